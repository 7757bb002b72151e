/*
 * view.c - a reader's mapping of a segment: open, validate, follow restarts.
 *
 * Maps the segment PROT_READ (a store through it faults) and the control
 * file read-write when permitted.  Answers metadata questions from the
 * validated private copy (meta.c).  Never stores to the segment; stores to
 * the control file only through snapshot.c (copy requests) and reset.c.
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

static char *segment_path(const char *segment)
{
	char *path = NULL;

	if (strchr(segment, '/'))
		return strdup(segment);
	if (asprintf(&path, "/dev/shm/statctr.%s", segment) < 0)
		return NULL;
	return path;
}

static int map_file(const char *path, int flags, int *fdp, void **basep, uint64_t *sizep,
                    struct file_id *id)
{
	struct stat st;
	void *base;
	int fd, prot = (flags & O_ACCMODE) == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;

	fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return set_error(errno, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)HEADER_SIZE) {
		close(fd);
		return set_error(EPROTO, "%s: not a regular file of at least %u bytes", path,
		                 HEADER_SIZE);
	}
	base = mmap(NULL, (size_t)st.st_size, prot, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		close(fd);
		return set_error(errno, "cannot map %s: %s", path, strerror(errno));
	}
	*fdp = fd;
	*basep = base;
	*sizep = (uint64_t)st.st_size;
	if (id) {
		id->ino = st.st_ino;
		id->dev = st.st_dev;
		id->uid = st.st_uid;
	}
	return 0;
}

static bool ctl_region_ok(const struct ctl_header *c, uint64_t off, uint64_t bytes)
{
	return off >= HEADER_SIZE && off % LINE == 0 && off <= c->file_size &&
	       bytes <= c->file_size - off;
}

static int check_ctl(const struct statctr_view *v, const struct ctl_header *c, uint64_t size)
{
	const struct seg_header *h = v->meta.hdr;
	uint64_t cells = (uint64_t)h->ncells * 8;

	if (memcmp(c->magic, CTL_MAGIC, 8) != 0 || c->version != LAYOUT_VERSION ||
	    c->header_size != HEADER_SIZE || c->file_size != size)
		return set_error(EPROTO, "%s: not a version-%u control file of %llu bytes",
		                 v->ctl_path, LAYOUT_VERSION, (unsigned long long)size);
	if (c->generation != h->generation)
		return set_error(EAGAIN, "%s: belongs to another generation of %s", v->ctl_path,
		                 v->path);
	if (c->nslots != h->nslots || c->ncells != h->ncells ||
	    !ctl_region_ok(c, c->reqs_off, (uint64_t)h->nslots * LINE) ||
	    !ctl_region_ok(c, c->baselines_off, cells) || !ctl_region_ok(c, c->disc_off, cells) ||
	    !ctl_region_ok(c, c->buf_off, cells))
		return set_error(EPROTO, "%s: sizes or regions do not match %s", v->ctl_path,
		                 v->path);
	return 0;
}

/* A reader that names the expected owner refuses files planted by others. */
static int check_owner(const struct statctr_view *v, const char *path, uid_t uid)
{
	if (v->owner == (uid_t)-1 || uid == v->owner)
		return 0;
	return set_error(EPERM, "%s is owned by uid %u, not the expected uid %u", path,
	                 (unsigned)uid, (unsigned)v->owner);
}

static void unmap_ctl(struct statctr_view *v)
{
	if (v->ctl)
		munmap(v->ctl, v->ctl_size);
	if (v->ctl_fd >= 0)
		close(v->ctl_fd);
	v->ctl = NULL;
	v->ctl_fd = -1;
	v->ctl_writable = false;
}

/* Maps the control file, read-write if we may; -EAGAIN while mid-replacement. */
static int map_ctl(struct statctr_view *v)
{
	void *base;
	int err;

	struct file_id id;

	v->ctl_writable = true;
	err = map_file(v->ctl_path, O_RDWR, &v->ctl_fd, &base, &v->ctl_size, &id);
	if (err == -EACCES || err == -EROFS || err == -EPERM) {
		v->ctl_writable = false;
		err = map_file(v->ctl_path, O_RDONLY, &v->ctl_fd, &base, &v->ctl_size, &id);
	}
	if (err)
		return err;
	v->ctl = base;
	err = check_owner(v, v->ctl_path, id.uid);
	if (!err)
		err = check_ctl(v, v->ctl, v->ctl_size);
	if (err)
		unmap_ctl(v);
	return err;
}

static int open_once(struct statctr_view *v)
{
	void *base;
	int err;

	err = map_file(v->path, O_RDONLY, &v->fd, &base, &v->size, &v->id);
	if (err)
		return err == -ENOENT ? set_error(ENOENT, "no segment %s", v->path) : err;
	v->base = base;
	err = check_owner(v, v->path, v->id.uid);
	if (err)
		return err;
	err = meta_init(&v->meta, v->base, v->size, v->path);
	if (err)
		return err;
	return map_ctl(v);
}

static void close_mappings(struct statctr_view *v)
{
	unmap_ctl(v);
	if (v->base)
		munmap((void *)v->base, v->size);
	if (v->fd >= 0)
		close(v->fd);
	meta_fini(&v->meta);
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
		return set_error(EINVAL, "no segment name or path given");
	v = calloc(1, sizeof(*v));
	if (!v)
		return set_error(ENOMEM, "out of memory");
	v->fd = v->ctl_fd = -1;
	v->owner = owner;
	v->path = segment_path(segment);
	if (!v->path || asprintf(&v->ctl_path, "%s.ctl", v->path) < 0) {
		v->ctl_path = NULL;
		view_free(v);
		return set_error(ENOMEM, "out of memory");
	}
	for (tries = 0; tries < CTL_OPEN_TRIES; tries++) {
		err = open_once(v);
		/* A missing or foreign control file leaves a usable view; one of
		 * another generation may be mid-replacement, so retry it first. */
		if (err == 0 || (v->meta.copy && err != -EPERM &&
		                 (err != -EAGAIN || tries == CTL_OPEN_TRIES - 1)))
			break;
		close_mappings(v);
		if (err != -EAGAIN)
			break;
		pause_ms(1);
	}
	if (!v->meta.copy) {
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
 * the validated copy in every field but `state`.
 */
static bool header_unchanged(const struct statctr_view *v)
{
	const size_t state = offsetof(struct seg_header, state);
	const size_t after = offsetof(struct seg_header, nslots);
	struct seg_header now;

	if (pread(v->fd, &now, sizeof(now), 0) != (ssize_t)sizeof(now))
		return false;
	return memcmp(&now, v->meta.hdr, state) == 0 &&
	       memcmp((const char *)&now + after, (const char *)v->meta.hdr + after,
	              sizeof(now) - after) == 0;
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
		return set_error(
		    ESTALE, "segment %s changed size under its mapping (%llu -> %llu bytes): %s",
		    view->path, (unsigned long long)old_size, (unsigned long long)size, why);
	return set_error(EPROTO, "segment %s was rewritten in place: %s", view->path, why);
}

int statctr_view_refresh(struct statctr_view *view)
{
	struct stat st;

	if (lstat(view->path, &st) != 0)
		return set_error(errno, "segment %s: %s", view->path, strerror(errno));
	if (st.st_ino != view->id.ino || st.st_dev != view->id.dev)
		return reopen(view);
	if ((uint64_t)st.st_size != view->size || !header_unchanged(view))
		return follow_in_place(view, (uint64_t)st.st_size);
	if (!view->ctl && map_ctl(view) != 0)
		unmap_ctl(view);
	return 0;
}

int statctr_view_lookup(const struct statctr_view *view, const char *table, const char *column,
                        uint32_t row, statctr_id *idp)
{
	return meta_lookup(&view->meta, table, column, row, idp);
}

static int load_state(void *arg)
{
	const struct meta *m = arg;

	return (int)atomic_load_explicit(&meta_live_header(m)->state, memory_order_acquire);
}

void statctr_view_info(const struct statctr_view *view, struct statctr_seg_info *info)
{
	const struct seg_header *h = view->meta.hdr;
	int state = guard_run(load_state, (void *)&view->meta, view->path);

	memset(info, 0, sizeof(*info));
	info->name = meta_string(&view->meta, h->name);
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
	if (state < 0)
		info->status = STATCTR_SEG_STALE;
	else if (state == SEG_STATE_CLOSED)
		info->status = STATCTR_SEG_CLOSED;
	else if (proc_alive((pid_t)h->creator_pid, (pid_t)h->creator_pid, h->creator_start))
		info->status = STATCTR_SEG_ACTIVE;
	else
		info->status = STATCTR_SEG_GONE;
}

int statctr_view_table(const struct statctr_view *view, uint32_t t, struct statctr_table_info *info)
{
	const struct meta *m = &view->meta;
	const struct seg_table *tb;

	if (t >= m->hdr->ntables)
		return set_error(ENOENT, "table %u out of range (%u tables)", t, m->hdr->ntables);
	tb = &m->tables[t];
	info->name = meta_string(m, tb->name);
	info->description = meta_string(m, tb->description);
	info->oid = tb->oid;
	info->nrows = tb->nrows;
	info->ncolumns = tb->ncolumns;
	info->first_cell = tb->first_cell;
	return 0;
}

int statctr_view_column(const struct statctr_view *view, uint32_t t, uint32_t c,
                        struct statctr_column_info *info)
{
	const struct meta *m = &view->meta;
	const struct seg_column *col;

	if (t >= m->hdr->ntables || c >= m->tables[t].ncolumns)
		return set_error(ENOENT, "column %u of table %u out of range", c, t);
	col = &m->columns[m->tables[t].first_column + c];
	info->name = meta_string(m, col->name);
	info->description = meta_string(m, col->description);
	info->units = meta_string(m, col->units);
	info->kind = (enum statctr_kind)col->kind;
	return 0;
}

const char *statctr_view_row_name(const struct statctr_view *view, uint32_t t, uint32_t r)
{
	const struct meta *m = &view->meta;
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
	if (id >= view->meta.hdr->ncells)
		return 0;
	return (enum statctr_kind)view->meta.cell_kind[id];
}

struct owner {
	const struct meta *meta;
	uint32_t slot, tid;
	uint64_t start;
};

static int load_owner(void *arg)
{
	struct owner *o = arg;
	const struct slot_header *sh = meta_slot(o->meta, o->slot);

	o->tid = atomic_load_explicit(&sh->owner_tid, memory_order_acquire);
	o->start = atomic_load_explicit(&sh->owner_start, memory_order_relaxed);
	return 0;
}

enum statctr_slot_state statctr_view_slot_state(const struct statctr_view *view, uint32_t s)
{
	struct owner o = {.meta = &view->meta, .slot = s};

	if (s >= view->meta.hdr->nslots)
		return STATCTR_SLOT_FREE;
	if (guard_run(load_owner, &o, view->path) != 0)
		return STATCTR_SLOT_DEAD; /* the file is gone from under us */
	if (o.tid == 0)
		return STATCTR_SLOT_FREE;
	if (proc_alive((pid_t)view->meta.hdr->creator_pid, (pid_t)o.tid, o.start))
		return STATCTR_SLOT_LIVE;
	return STATCTR_SLOT_DEAD;
}

/* Open-file-description lock on one byte of the control file, bounded wait. */
int view_ctl_lock(struct statctr_view *view, int byte, unsigned wait_ms)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1};
	unsigned waited = 0;

	if (!view->ctl_writable)
		return set_error(EACCES, "%s is not writable by this process", view->ctl_path);
	while (fcntl(view->ctl_fd, F_OFD_SETLK, &fl) != 0) {
		if ((errno != EAGAIN && errno != EACCES) || waited >= wait_ms)
			return set_error(EBUSY, "%s: lock %d held by another reader",
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
