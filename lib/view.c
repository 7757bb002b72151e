/*
 * view.c - a reader's mapping of a segment: open, validate, follow restarts.
 *
 * The path names whatever anybody planted in a shared directory, so each
 * file is opened without blocking or following links, judged by fstat,
 * and read into private memory and validated (meta.c) before it is mapped:
 * the segment PROT_READ (a store through it faults), the control file
 * read-write when permitted.  Offsets, counts and strings come from the
 * private copy only, control-file offsets from ctl_layout_for() of it.
 * Never stores to the segment; stores to the control file only through
 * snapshot.c (copy requests) and reset.c.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CTL_OPEN_TRIES 20 /* a writer replacing the pair renames twice */

/* Numbers every control-file mapping of the process: a snapshot keeps the
 * baselines of one mapping until it sees a reset there (snapshot.c). */
static _Atomic uint64_t ctl_serials;

static char *segment_path(const char *segment)
{
	char *path = NULL;

	if (strchr(segment, '/'))
		return strdup(segment);
	if (asprintf(&path, "/dev/shm/statctr.%s", segment) < 0)
		return NULL;
	return path;
}

static void file_id_set(struct file_id *id, const struct stat *st)
{
	id->ino = st->st_ino;
	id->dev = st->st_dev;
	id->uid = st->st_uid;
}

/* The stored control header against the layout computed from our copy. */
static int check_ctl_layout(const struct statctr_view *v, const struct ctl_header *c)
{
	const struct ctl_layout *l = &v->ctl_layout;
	const struct {
		const char *name;
		uint64_t stored, expected;
	} field[] = {
	    {"reqs_off", c->reqs_off, l->reqs_off},
	    {"baselines_off", c->baselines_off, l->baselines_off},
	    {"disc_off", c->disc_off, l->disc_off},
	    {"buf_off", c->buf_off, l->buf_off},
	    {"file_size", c->file_size, l->size},
	};
	size_t i;

	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (field[i].stored != field[i].expected)
			return errmsg_set(EPROTO, "%s: %s is %llu, the layout for %s says %llu",
			                  v->ctl_path, field[i].name,
			                  (unsigned long long)field[i].stored, v->path,
			                  (unsigned long long)field[i].expected);
	return 0;
}

static int check_ctl(const struct statctr_view *v, const struct ctl_header *c, uint64_t size)
{
	const struct seg_header *h = v->meta->hdr;

	if (memcmp(c->magic, CTL_MAGIC, 8) != 0 || c->version != CTL_VERSION ||
	    c->header_size != HEADER_SIZE || c->file_size != size)
		return errmsg_set(EPROTO, "%s: not a version-%u control file of %llu bytes",
		                  v->ctl_path, CTL_VERSION, (unsigned long long)size);
	if (c->generation != h->generation)
		return errmsg_set(EAGAIN, "%s: belongs to another generation of %s", v->ctl_path,
		                  v->path);
	if (c->nslots != h->nslots || c->ncells != h->ncells)
		return errmsg_set(EPROTO, "%s: %u slots and %u cells, %s has %u and %u",
		                  v->ctl_path, c->nslots, c->ncells, v->path, h->nslots, h->ncells);
	return check_ctl_layout(v, c);
}

static void unmap_ctl(struct statctr_view *v)
{
	if (v->ctl)
		munmap(v->ctl, v->ctl_size);
	if (v->ctl_fd >= 0)
		close(v->ctl_fd);
	v->ctl = NULL;
	v->ctl_serial = 0;
	v->ctl_fd = -1;
	v->ctl_writable = false;
	v->sizes_checked_tick = 0; /* the next snapshot checks the sizes */
}

/* Validates the control file through its descriptor, then maps it. */
static int map_ctl_checked(struct statctr_view *v)
{
	struct ctl_header hdr;
	struct stat st;
	void *base;
	int err = view_open_rw_or_ro(v->ctl_path, &v->ctl_fd, &v->ctl_writable);

	if (!err)
		err = view_check_stat(v, v->ctl_path, v->ctl_fd, &st);
	if (!err)
		err = meta_pread(v->ctl_fd, &hdr, sizeof(hdr), 0, v->ctl_path);
	if (!err)
		err = check_ctl(v, &hdr, (uint64_t)st.st_size);
	if (err)
		return err;
	v->ctl_size = v->ctl_layout.size;
	file_id_set(&v->ctl_id, &st);
	base = mmap(NULL, v->ctl_size, v->ctl_writable ? PROT_READ | PROT_WRITE : PROT_READ,
	            MAP_SHARED, v->ctl_fd, 0);
	if (base == MAP_FAILED)
		return errmsg_set(errno, "cannot map %s: %s", v->ctl_path, strerror(errno));
	v->ctl = base;
	v->ctl_serial = atomic_fetch_add_explicit(&ctl_serials, 1, memory_order_relaxed) + 1;
	return 0;
}

/* Maps the control file; -EAGAIN while mid-replacement.  Needs the copy. */
static int map_ctl(struct statctr_view *v)
{
	int err;

	v->ctl_layout = ctl_layout_for(v->meta->hdr->nslots, v->meta->hdr->ncells);
	err = map_ctl_checked(v);
	if (err)
		unmap_ctl(v);
	return err;
}

/* Opens, checks, copies and validates the segment; maps it only then. */
static int open_segment(struct statctr_view *v)
{
	struct stat st;
	void *base;
	int err = view_open_nofollow(v->path, O_RDONLY, &v->fd);

	if (err == -ENOENT)
		return errmsg_set(ENOENT, "no segment %s", v->path);
	if (!err)
		err = view_check_stat(v, v->path, v->fd, &st);
	if (!err)
		err = meta_read(&v->meta, v->fd, (uint64_t)st.st_size, v->path);
	if (err)
		return err;
	v->size = (uint64_t)st.st_size;
	file_id_set(&v->id, &st);
	v->stuck_seq = calloc(v->meta->hdr->nslots, sizeof(*v->stuck_seq));
	v->read_seq = calloc(v->meta->hdr->nslots, sizeof(*v->read_seq));
	v->copy_first = calloc(v->meta->hdr->nslots, sizeof(*v->copy_first));
	if (!v->stuck_seq || !v->read_seq || !v->copy_first)
		return errmsg_set(ENOMEM, "out of memory");
	base = mmap(NULL, v->size, PROT_READ, MAP_SHARED, v->fd, 0);
	if (base == MAP_FAILED)
		return errmsg_set(errno, "cannot map %s: %s", v->path, strerror(errno));
	v->base = base;
	meta_attach(v->meta, base);
	return 0;
}

static int open_once(struct statctr_view *v)
{
	int err = open_segment(v);

	if (!err)
		epochs_open(v); /* none usable: the epoch calls say why */
	return err ? err : map_ctl(v);
}

static void close_mappings(struct statctr_view *v)
{
	if (v->epoch_snap) /* epoch.c's: a view calls no snapshot.c */
		v->epoch_snap_free(v->epoch_snap);
	v->epoch_snap = NULL;
	epochs_unref(v->epochs);
	v->epochs = NULL;
	unmap_ctl(v);
	if (v->base)
		munmap((void *)v->base, v->size);
	if (v->fd >= 0)
		close(v->fd);
	meta_unref(v->meta);
	v->meta = NULL;
	free(v->stuck_seq);
	free(v->read_seq);
	free(v->copy_first);
	v->stuck_seq = NULL;
	v->read_seq = NULL;
	v->copy_first = NULL;
	v->base = NULL;
	v->fd = -1;
}

static void view_free(struct statctr_view *v)
{
	close_mappings(v);
	free(v->path);
	free(v->ctl_path);
	free(v);
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int statctr_view_open(const char *segment, struct statctr_view **viewp)
{
	return statctr_view_open_owned(segment, (uid_t)-1, viewp);
}

int statctr_view_open_owned(const char *segment, uid_t owner, struct statctr_view **viewp)
{
	struct statctr_view *v;
	int err = 0, tries;

	if (!segment || !*segment)
		return errmsg_set(EINVAL, "no segment name or path given");
	v = calloc(1, sizeof(*v));
	if (!v)
		return errmsg_set(ENOMEM, "out of memory");
	v->fd = v->ctl_fd = -1;
	v->owner = owner;
	v->path = segment_path(segment);
	if (!v->path || asprintf(&v->ctl_path, "%s.ctl", v->path) < 0) {
		v->ctl_path = NULL;
		view_free(v);
		return errmsg_set(ENOMEM, "out of memory");
	}
	for (tries = 0; tries < CTL_OPEN_TRIES; tries++) {
		err = open_once(v);
		/* A missing or foreign control file leaves a usable view; one of
		 * another generation may be mid-replacement, so retry it first. */
		if (err == 0 ||
		    (v->base && err != -EPERM && (err != -EAGAIN || tries == CTL_OPEN_TRIES - 1)))
			break;
		close_mappings(v);
		if (err != -EAGAIN)
			break;
		pause_ms(1);
	}
	if (!v->base) {
		view_free(v);
		return err;
	}
	*viewp = v;
	return 0;
}

void statctr_view_close(struct statctr_view *view)
{
	if (view)
		view_free(view);
}

/*
 * A file rewritten in place keeps its inode.  Its header, read through the
 * descriptor (never the mapping, so nothing can fault), must still equal
 * the validated copy in every field but the two stored after the rename,
 * and its state must still be valid.
 */
static bool header_intact(const struct statctr_view *v)
{
	struct seg_header now, then;

	if (meta_pread(v->fd, &now, sizeof(now), 0, v->path) != 0 ||
	    !meta_state_ok(atomic_load_explicit(&now.state, memory_order_relaxed)))
		return false;
	memcpy(&then, v->meta->hdr, sizeof(then));
	atomic_store_explicit(&now.state, 0, memory_order_relaxed);
	atomic_store_explicit(&then.state, 0, memory_order_relaxed);
	atomic_store_explicit(&now.writer_flags, 0, memory_order_relaxed);
	atomic_store_explicit(&then.writer_flags, 0, memory_order_relaxed);
	return memcmp(&now, &then, sizeof(now)) == 0;
}

/*
 * Anybody allowed to reset may rewrite, truncate, grow or replace the
 * control file.  Still the same, fully allocated file of the same size
 * and owner, with a header that passes the open-time checks?
 */
static bool ctl_intact(const struct statctr_view *v)
{
	struct ctl_header now;
	struct stat st;

	if (lstat(v->ctl_path, &st) != 0 || st.st_ino != v->ctl_id.ino ||
	    st.st_dev != v->ctl_id.dev || st.st_uid != v->ctl_id.uid ||
	    (uint64_t)st.st_size != v->ctl_size || (uint64_t)st.st_blocks * 512 < v->ctl_size)
		return false;
	return meta_pread(v->ctl_fd, &now, sizeof(now), 0, v->ctl_path) == 0 &&
	       check_ctl(v, &now, v->ctl_size) == 0;
}

/* Replaces @view's mappings with those of a fresh open of its path. */
static int reopen(struct statctr_view *view)
{
	struct statctr_view *fresh;
	int err = statctr_view_open_owned(view->path, view->owner, &fresh);

	if (err)
		return err;
	close_mappings(view);
	free(view->path);
	free(view->ctl_path);
	*view = *fresh;
	free(fresh);
	return 1;
}

/* The same inode changed under us: follow it if it is valid, else say how. */
static int follow_in_place(struct statctr_view *view, uint64_t size)
{
	uint64_t old_size = view->size;
	char why[512];
	int err = reopen(view);

	if (err >= 0)
		return err;
	snprintf(why, sizeof(why), "%s", statctr_errmsg());
	if (size != old_size)
		return errmsg_set(
		    ESTALE, "segment %s changed size under its mapping (%llu -> %llu bytes): %s",
		    view->path, (unsigned long long)old_size, (unsigned long long)size, why);
	return errmsg_set(EPROTO, "segment %s was rewritten in place: %s", view->path, why);
}

int statctr_view_refresh(struct statctr_view *view)
{
	struct stat st;

	if (lstat(view->path, &st) != 0)
		return errmsg_set(errno, "segment %s: %s", view->path, strerror(errno));
	if (st.st_ino != view->id.ino || st.st_dev != view->id.dev)
		return reopen(view);
	if ((uint64_t)st.st_size != view->size || !header_intact(view))
		return follow_in_place(view, (uint64_t)st.st_size);
	if (!view->ctl || !ctl_intact(view)) {
		/* Validated again from scratch; a failure leaves the view
		 * without a control file (no resets, no copy requests). */
		unmap_ctl(view);
		map_ctl(view);
	}
	return 0;
}

int statctr_view_lookup(const struct statctr_view *view, const char *table, const char *column,
                        uint32_t row, statctr_id *idp)
{
	return meta_lookup(view->meta, table, column, row, idp);
}

static int load_state(void *arg)
{
	const struct meta *m = arg;

	/* Pairs with the release store of closed in statctr_seg_destroy()
	 * (segment.c). */
	return (int)atomic_load_explicit(&meta_live_header(m)->state, memory_order_acquire);
}

/* Live, for reporting only: the defined bits of what the writer lost. */
static int load_writer_flags(void *arg)
{
	const struct meta *m = arg;
	uint32_t flags =
	    atomic_load_explicit(&meta_live_header(m)->writer_flags, memory_order_relaxed);

	return (int)(flags & STATCTR_WRITER_CTL_LOST);
}

void statctr_view_info(const struct statctr_view *view, struct statctr_seg_info *info)
{
	const struct seg_header *h = view->meta->hdr;
	int state = guard_run(load_state, (void *)view->meta, view->path);
	int flags = guard_run(load_writer_flags, (void *)view->meta, view->path);

	memset(info, 0, sizeof(*info));
	info->name = meta_string(view->meta, h->name);
	info->path = view->path;
	info->generation = h->generation;
	info->created_ns = h->created_ns;
	info->creator_pid = (pid_t)h->creator_pid;
	info->oid = h->oid;
	info->nslots = h->nslots;
	info->ncells = h->ncells;
	info->ntables = h->ntables;
	info->size = view->size;
	info->can_reset = view->ctl_writable;
	info->writer_flags = flags < 0 ? 0 : (uint32_t)flags;
	if (state < 0 || !meta_state_ok((uint32_t)state))
		info->status = STATCTR_SEG_STALE; /* truncated, or a state no writer stores */
	else if (state == SEG_STATE_CLOSED)
		info->status = STATCTR_SEG_CLOSED;
	else if (proc_alive((pid_t)h->creator_pid, (pid_t)h->creator_pid, h->creator_start))
		info->status = STATCTR_SEG_ACTIVE;
	else
		info->status = STATCTR_SEG_GONE;
}

int statctr_view_table(const struct statctr_view *view, uint32_t t, struct statctr_table_info *info)
{
	const struct meta *m = view->meta;
	const struct seg_table *tb;

	if (t >= m->hdr->ntables)
		return errmsg_set(ENOENT, "table %u out of range (%u tables)", t, m->hdr->ntables);
	tb = &m->tables[t];
	info->name = meta_string(m, tb->name);
	info->description = meta_string(m, tb->description);
	info->oid = tb->oid;
	info->nrows = tb->nrows;
	info->ncolumns = tb->ncolumns;
	info->first_cell = tb->first_cell;
	info->dynamic = (tb->flags & TABLE_DYNAMIC) != 0;
	return 0;
}

int statctr_view_column(const struct statctr_view *view, uint32_t t, uint32_t c,
                        struct statctr_column_info *info)
{
	const struct meta *m = view->meta;
	const struct seg_column *col;

	if (t >= m->hdr->ntables || c >= m->tables[t].ncolumns)
		return errmsg_set(ENOENT, "column %u of table %u out of range", c, t);
	col = &m->columns[m->tables[t].first_column + c];
	info->name = meta_string(m, col->name);
	info->description = meta_string(m, col->description);
	info->units = meta_string(m, col->units);
	info->kind = (enum statctr_kind)col->kind;
	return 0;
}

const char *statctr_view_row_name(const struct statctr_view *view, uint32_t t, uint32_t r)
{
	const struct meta *m = view->meta;
	const struct seg_table *tb;

	if (t >= m->hdr->ntables)
		return NULL;
	tb = &m->tables[t];
	if (tb->first_rowname == NO_ROWNAMES || r >= tb->nrows)
		return NULL;
	return meta_string(m, m->rownames[tb->first_rowname + r]);
}

enum statctr_kind statctr_view_cell_kind(const struct statctr_view *view, statctr_id id)
{
	if (id >= view->meta->hdr->ncells)
		return 0;
	return (enum statctr_kind)view->meta->cell_kind[id];
}

uint32_t statctr_view_hist_buckets(const struct statctr_view *view, statctr_id id,
                                   const uint64_t **bounds)
{
	uint32_t block;
	const struct seg_column *col = meta_hist_of(view->meta, id, &block);

	if (!col)
		return 0;
	*bounds = view->meta->bounds + col->first_bound;
	return col->nbuckets;
}

struct owner {
	const struct meta *meta;
	uint32_t slot, tid;
	uint64_t start;
};

static int load_owner(void *arg)
{
	struct owner *o = arg;
	const struct statctr_slot *sh = meta_slot(o->meta, o->slot);

	/* Pairs with the release store of owner_tid in statctr_slot_release()
	 * (slot.c): a slot seen free shows its last owner's final counts,
	 * which read_slot() (snapshot.c) may then copy as final. */
	o->tid = atomic_load_explicit(&sh->owner_tid, memory_order_acquire);
	o->start = atomic_load_explicit(&sh->owner_start, memory_order_relaxed);
	return 0;
}

enum statctr_slot_state statctr_view_slot_state(const struct statctr_view *view, uint32_t s)
{
	struct owner o = {.meta = view->meta, .slot = s};

	if (s > view->meta->hdr->nslots &&
	    s <= view->meta->hdr->nslots + view->meta->hdr->ncpuslots)
		return STATCTR_SLOT_CPU;
	if (s >= view->meta->hdr->nslots)
		return STATCTR_SLOT_FREE;
	if (guard_run(load_owner, &o, view->path) != 0)
		return STATCTR_SLOT_DEAD; /* the file is gone from under us */
	if (o.tid == 0)
		return STATCTR_SLOT_FREE;
	if (proc_alive((pid_t)view->meta->hdr->creator_pid, (pid_t)o.tid, o.start))
		return STATCTR_SLOT_LIVE;
	return STATCTR_SLOT_DEAD;
}

/* Open-file-description lock on one byte of the control file, bounded wait. */
int view_ctl_lock(struct statctr_view *view, int byte, unsigned wait_ms)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	unsigned waited = 0;

	if (!view->ctl_writable)
		return errmsg_set(EACCES, "%s is not writable by this process", view->ctl_path);
	while (fcntl(view->ctl_fd, F_OFD_SETLK, &fl) != 0) {
		if ((errno != EAGAIN && errno != EACCES) || waited >= wait_ms)
			return errmsg_set(EBUSY, "%s: lock %d held by another reader",
			                  view->ctl_path, byte);
		pause_ms(1);
		waited++;
	}
	return 0;
}

void view_ctl_unlock(struct statctr_view *view, int byte)
{
	struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};

	fcntl(view->ctl_fd, F_OFD_SETLK, &fl);
}
