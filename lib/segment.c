/*
 * segment.c - create and destroy a segment and its control file (writer side).
 *
 * Owns the translation of a configuration declaration into the bytes of
 * docs/segment-format.md, and the file life cycle: build under a temporary
 * O_EXCL|O_NOFOLLOW name, allocate every byte, then rename into place
 * (control file first), so readers only ever see complete files.  The
 * writer's handle keeps its own copy of every size and offset; after
 * creation nothing here reads one from either file.  Never reads counter
 * values.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Sizes and offsets of a segment for one declaration. */
struct plan {
	uint32_t ncolumns, nbounds, nrownames, nrowdir;
	uint32_t grid_cells; /* every table's grid: bucket blocks are numbered after them */
	uint32_t ncpus, cpu_collapse, ncpuslots; /* CPU slots: none when cpu_collapse is 0 */
	uint64_t strings_size;
	struct seg_layout seg;
	struct ctl_layout ctl;
};

static void plan_layout(const struct statctr_segment_decl *d, struct plan *p)
{
	uint32_t t, c, r;

	memset(p, 0, sizeof(*p));
	p->strings_size = 1 + strlen(d->name) + 1;
	for (t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *tb = &d->tables[t];

		p->ncolumns += tb->ncolumns;
		p->grid_cells += tb->nrows * tb->ncolumns;
		p->strings_size += strlen(tb->name) + strlen(tb->description) + 2;
		for (c = 0; c < tb->ncolumns; c++) {
			p->strings_size += strlen(tb->columns[c].name) +
			                   strlen(tb->columns[c].description) +
			                   strlen(tb->columns[c].units) + 3;
			p->nbounds += tb->columns[c].nbuckets;
		}
		if (tb->dynamic)
			p->nrowdir += tb->nrows;
		if (tb->row_names) {
			p->nrownames += tb->nrows;
			for (r = 0; r < tb->nrows; r++)
				p->strings_size += strlen(tb->row_names[r]) + 1;
		}
	}
	if (d->cpu_collapse > 0) {
		p->ncpus = cpu_possible();
		/* A collapse above the CPU count is one slot for all of them. */
		p->cpu_collapse = d->cpu_collapse < p->ncpus ? d->cpu_collapse : p->ncpus;
		p->ncpuslots = cpu_slots_for(p->ncpus, p->cpu_collapse);
	}
	p->seg = seg_layout_for(d->ntables, p->ncolumns, p->nbounds, p->nrownames, p->strings_size,
	                        p->nrowdir, d->nslots, p->ncpuslots, d->ncells);
	p->ctl = ctl_layout_for(d->nslots, d->ncells);
}

/* Appends string s to the string region; returns its offset. */
static uint32_t put_string(char *strings, uint64_t *used, const char *s)
{
	uint64_t off = *used;
	size_t len = strlen(s);

	if (len == 0)
		return 0;
	memcpy(strings + off, s, len + 1);
	*used += len + 1;
	return (uint32_t)off;
}

/*
 * Column record of @decl in table @tb: its strings, and for a histogram its
 * bounds at *@bound and its bucket blocks at *@block (the canonical
 * numbering of docs/segment-format.md, "Histogram cells"), both moved on.
 */
static void write_column(uint8_t *base, const struct plan *p, const struct statctr_table_decl *tb,
                         const struct statctr_column_decl *decl, struct seg_column *out,
                         uint32_t *bound, uint32_t *block, uint64_t *used)
{
	char *strings = (char *)(base + p->seg.strings_off);
	uint64_t *bounds = (void *)(base + p->seg.bounds_off);

	out->name = put_string(strings, used, decl->name);
	out->description = put_string(strings, used, decl->description);
	out->units = put_string(strings, used, decl->units);
	out->kind = decl->kind;
	if (decl->kind != STATCTR_KIND_HISTOGRAM)
		return;
	out->nbuckets = decl->nbuckets;
	out->first_bound = *bound;
	out->first_block = *block;
	memcpy(bounds + *bound, decl->bounds, decl->nbuckets * sizeof(*bounds));
	*bound += decl->nbuckets;
	*block += tb->nrows * hist_block_cells(decl->nbuckets);
}

static void write_metadata(uint8_t *base, const struct statctr_segment_decl *d,
                           const struct plan *p)
{
	struct seg_header *h = (void *)base;
	struct seg_table *tables = (void *)(base + p->seg.tables_off);
	struct seg_column *columns = (void *)(base + p->seg.columns_off);
	uint32_t *rownames = (void *)(base + p->seg.rownames_off);
	char *strings = (char *)(base + p->seg.strings_off);
	uint64_t used = 1;
	uint32_t t, c, r, col = 0, rn = 0, rowdir = 0, bound = 0, block = p->grid_cells;

	h->name = put_string(strings, &used, d->name);
	for (t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *tb = &d->tables[t];
		struct seg_table *out = &tables[t];

		out->name = put_string(strings, &used, tb->name);
		out->description = put_string(strings, &used, tb->description);
		out->oid = tb->oid;
		out->nrows = tb->nrows;
		out->ncolumns = tb->ncolumns;
		out->first_column = col;
		out->first_cell = tb->first_cell;
		out->first_rowname = tb->row_names ? rn : NO_ROWNAMES;
		/* Row directory entries start absent (gen 0): the file is zeroed. */
		out->flags = tb->dynamic ? TABLE_DYNAMIC : 0;
		out->first_rowdir = tb->dynamic ? rowdir : NO_ROWDIR;
		rowdir += tb->dynamic ? tb->nrows : 0;
		for (c = 0; c < tb->ncolumns; c++, col++)
			write_column(base, p, tb, &tb->columns[c], &columns[col], &bound, &block,
			             &used);
		for (r = 0; tb->row_names && r < tb->nrows; r++)
			rownames[rn++] = put_string(strings, &used, tb->row_names[r]);
	}
}

static uint64_t new_generation(void)
{
	uint64_t g = 0;

	if (getrandom(&g, sizeof(g), 0) != sizeof(g))
		g = realtime_ns() ^ ((uint64_t)getpid() << 32);
	return g ? g : 1;
}

static void write_header(uint8_t *base, const struct statctr_segment_decl *d, const struct plan *p,
                         uint64_t generation)
{
	struct seg_header *h = (void *)base;

	memcpy(h->magic, SEG_MAGIC, 8);
	h->version = LAYOUT_VERSION;
	h->header_size = HEADER_SIZE;
	h->file_size = p->seg.size;
	h->generation = generation;
	h->created_ns = realtime_ns();
	h->creator_pid = (uint32_t)getpid();
	h->creator_start = proc_start_time(getpid(), getpid());
	atomic_init(&h->state, SEG_STATE_ACTIVE);
	h->nslots = d->nslots;
	h->ncells = d->ncells;
	h->ntables = d->ntables;
	h->ncolumns = p->ncolumns;
	h->nrownames = p->nrownames;
	h->oid = d->oid;
	h->tables_off = p->seg.tables_off;
	h->columns_off = p->seg.columns_off;
	h->rownames_off = p->seg.rownames_off;
	h->strings_off = p->seg.strings_off;
	h->strings_size = p->strings_size;
	h->slots_off = p->seg.slots_off;
	h->slot_stride = p->seg.stride;
	h->rowdir_off = p->seg.rowdir_off;
	h->nrowdir = p->nrowdir;
	h->bases_off = p->seg.bases_off;
	h->bounds_off = p->seg.bounds_off;
	h->nbounds = p->nbounds;
	h->ncpuslots = p->ncpuslots;
	h->cpu_collapse = p->cpu_collapse;
	h->ncpus = p->ncpus;
}

static void write_ctl_header(struct ctl_header *c, const struct statctr_segment_decl *d,
                             const struct plan *p, uint64_t generation)
{
	memcpy(c->magic, CTL_MAGIC, 8);
	c->version = CTL_VERSION;
	c->header_size = HEADER_SIZE;
	c->file_size = p->ctl.size;
	c->generation = generation;
	c->nslots = d->nslots;
	c->ncells = d->ncells;
	c->reqs_off = p->ctl.reqs_off;
	c->baselines_off = p->ctl.baselines_off;
	c->disc_off = p->ctl.disc_off;
	c->buf_off = p->ctl.buf_off;
}

/* -EEXIST when @path is a segment whose creator is still running. */
static int check_replaceable(const char *path)
{
	struct statctr_view *old;
	struct statctr_seg_info info;
	struct stat st;
	int err;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : errmsg_set(errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg_set(EEXIST, "%s exists and is not a regular file", path);
	err = statctr_view_open(path, &old);
	if (err)
		return errmsg_set(EEXIST, "%s exists and is not a usable segment (%s); remove it",
		                  path, statctr_errmsg());
	statctr_view_info(old, &info);
	statctr_view_close(old);
	if (info.status == STATCTR_SEG_ACTIVE)
		return errmsg_set(EEXIST, "segment %s is in use by pid %d", path,
		                  (int)info.creator_pid);
	return 0;
}

static int file_id_of(const char *path, struct file_id *id)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errmsg_set(errno, "%s: %s", path, strerror(errno));
	id->ino = st.st_ino;
	id->dev = st.st_dev;
	return 0;
}

/*
 * The writer's private copy of its layout and its per-slot copy budgets;
 * the mappings are registered with the SIGBUS handler as soon as they exist
 * (a group member may open and truncate a temporary control file too).
 */
static int keep_layout(struct statctr_seg *seg, const struct statctr_segment_decl *d,
                       const struct plan *p)
{
	/* One at least: aligned_alloc(, 0) may fail, and slots = 0 is valid. */
	size_t budget_bytes = ((size_t)d->nslots + 1) * sizeof(struct copy_budget);

	seg->nslots = d->nslots;
	seg->ncells = d->ncells;
	seg->layout = p->seg;
	seg->ctl_layout = p->ctl;
	seg->budget = aligned_alloc(_Alignof(struct copy_budget), budget_bytes);
	if (!seg->budget)
		return errmsg_set(ENOMEM, "out of memory for %u slots", d->nslots);
	memset(seg->budget, 0, budget_bytes);
	return 0;
}

static int map_both(struct statctr_seg *seg, const struct statctr_segment_decl *d, char **ctl_tmp,
                    char **tmp)
{
	int err = create_mapped(seg->ctl_path, seg->ctl_layout.size, d->ctl_mode, d->group, ctl_tmp,
	                        (uint8_t **)&seg->ctl);

	if (!err)
		err = guard_register(seg, seg->ctl, seg->ctl_layout.size, WRITER_MAP_CONTROL);
	if (!err)
		err =
		    create_mapped(seg->path, seg->layout.size, d->mode, d->group, tmp, &seg->base);
	if (!err)
		err = guard_register(seg, seg->base, seg->layout.size, WRITER_MAP_SEGMENT);
	return err;
}

static int build(struct statctr_seg *seg, const struct statctr_segment_decl *d)
{
	struct plan p;
	char *tmp = NULL, *ctl_tmp = NULL;
	uint64_t generation = new_generation();
	int err;

	plan_layout(d, &p);
	err = keep_layout(seg, d, &p);
	if (!err)
		err = map_both(seg, d, &ctl_tmp, &tmp);
	if (err)
		goto fail;
	write_ctl_header(seg->ctl, d, &p, generation);
	write_header(seg->base, d, &p, generation);
	write_metadata(seg->base, d, &p);
	err = meta_init(&seg->meta, seg->base, seg->layout.size, tmp);
	if (!err)
		err = rows_init(seg);
	if (!err)
		err = hist_claim(seg);
	if (!err)
		err = cpu_slots_init(seg);
	if (err)
		goto fail;
	err = file_id_of(ctl_tmp, &seg->ctl_id);
	if (!err)
		err = file_id_of(tmp, &seg->id);
	if (err)
		goto fail;
	if (rename(ctl_tmp, seg->ctl_path) != 0 || rename(tmp, seg->path) != 0) {
		err = errmsg_set(errno, "cannot rename into %s: %s", seg->path, strerror(errno));
		goto fail;
	}
	free(tmp);
	free(ctl_tmp);
	return 0;
fail:
	if (tmp)
		unlink(tmp);
	if (ctl_tmp)
		unlink(ctl_tmp);
	free(tmp);
	free(ctl_tmp);
	return err;
}

/*
 * Makes this process the only writer of the segment: an exclusive flock()
 * on <path>.lock, held until destroy or death (the kernel drops it).  Two
 * writers started at once can otherwise both find no live segment, and
 * the later rename would orphan the first one's file and lose its counts.
 */
static int lock_segment(struct statctr_seg *seg)
{
	char *lock_path = NULL;
	struct stat st;
	int fd;

	if (asprintf(&lock_path, "%s.lock", seg->path) < 0)
		return errmsg_set(ENOMEM, "out of memory");
	/* Owner-only: a reader able to flock() it could stop the writer's restarts. */
	fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = errmsg_set(errno, "cannot open %s: %s", lock_path, strerror(errno));

		free(lock_path);
		return err;
	}
	free(lock_path);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &st) != 0) {
		close(fd);
		/* Name the live writer when its segment is already there. */
		if (check_replaceable(seg->path) == -EEXIST)
			return -EEXIST;
		return errmsg_set(EEXIST, "segment %s is in use by another writer", seg->path);
	}
	seg->lock_fd = fd;
	seg->lock_id.ino = st.st_ino;
	seg->lock_id.dev = st.st_dev;
	return 0;
}

/* Removes @path only if it still names the file we created (not a newer one). */
static void unlink_if_ours(const char *path, const struct file_id *id)
{
	struct stat st;

	if (lstat(path, &st) == 0 && st.st_ino == id->ino && st.st_dev == id->dev)
		unlink(path);
}

static void unlink_lock(const struct statctr_seg *seg)
{
	char *lock_path = NULL;

	if (seg->lock_fd < 0 || asprintf(&lock_path, "%s.lock", seg->path) < 0)
		return;
	unlink_if_ours(lock_path, &seg->lock_id);
	free(lock_path);
}

static void seg_free(struct statctr_seg *seg)
{
	if (seg->lock_fd >= 0)
		close(seg->lock_fd);
	/* Before the unmaps: the handler must not replace memory no longer ours. */
	guard_unregister(seg);
	if (seg->base)
		munmap(seg->base, seg->layout.size);
	if (seg->ctl)
		munmap(seg->ctl, seg->ctl_layout.size);
	/* After the unmaps: no slot whose descriptors name its pool ranges is left. */
	hist_release(seg);
	cpu_slots_fini(seg);
	free(seg->budget);
	rows_fini(seg);
	meta_fini(&seg->meta);
	free(seg->path);
	free(seg->ctl_path);
	free(seg);
}

int statctr_seg_create(const char *config_path, const char *segment, struct statctr_seg **segp)
{
	struct statctr_config *cfg;
	const struct statctr_segment_decl *d;
	struct statctr_seg *seg;
	int err;

	err = statctr_config_load(config_path, &cfg);
	if (err)
		return err;
	d = statctr_config_find(cfg, segment);
	if (!d) {
		err = errmsg_set(ENOENT, "%s declares no segment %s", config_path, segment);
		goto out;
	}
	seg = calloc(1, sizeof(*seg));
	if (seg) {
		seg->lock_fd = -1;
		seg->path = strdup(d->path);
	}
	if (seg && seg->path && asprintf(&seg->ctl_path, "%s.ctl", d->path) < 0)
		seg->ctl_path = NULL;
	if (!seg || !seg->ctl_path) {
		err = errmsg_set(ENOMEM, "out of memory");
		goto fail;
	}
	err = lock_segment(seg);
	if (!err)
		err = check_replaceable(seg->path);
	if (!err && d->epoch_keep > 0)
		epochs_capture(seg->path); /* the dead predecessor's final counts */
	if (!err)
		err = build(seg, d);
	if (err)
		goto fail;
	if (d->epoch_keep > 0 && (err = epochs_adopt(seg->path, d)) != 0) {
		statctr_seg_destroy(seg); /* epoch_keep 0: no capture, the message stays */
		goto out;
	}
	seg->epoch_keep = d->epoch_keep;
	*segp = seg;
	goto out;
fail:
	if (seg) {
		unlink_lock(seg);
		seg_free(seg);
	}
out:
	statctr_config_free(cfg);
	return err;
}

void statctr_seg_destroy(struct statctr_seg *seg)
{
	struct seg_header *h;

	if (!seg)
		return;
	h = (void *)seg->base;
	/* Pairs with the acquire load in load_state() (view.c): a reader that
	 * sees closed and then snapshots gets every count stored before this
	 * call (slot users finished before it, see statctr.h). */
	atomic_store_explicit(&h->state, SEG_STATE_CLOSED, memory_order_release);
	if (seg->epoch_keep > 0)
		epochs_capture(seg->path); /* a clean exit: its final counts */
	unlink_if_ours(seg->path, &seg->id);
	unlink_if_ours(seg->ctl_path, &seg->ctl_id);
	unlink_lock(seg);
	seg_free(seg);
}

/* "2026-01-02T03:04:05.678Z" for CLOCK_REALTIME @ns. */
static void format_utc(char *buf, size_t len, uint64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03uZ", (unsigned)(ns / 1000000u % 1000u));
}

/* -ESTALE unless @path still names file @id at @size bytes. */
static int check_file(const char *what, const char *path, const struct file_id *id, uint64_t size)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errmsg_set(ESTALE, "%s %s was removed: %s", what, path, strerror(errno));
	if (st.st_ino != id->ino || st.st_dev != id->dev)
		return errmsg_set(ESTALE, "%s %s was replaced by another file", what, path);
	if (size != UINT64_MAX && (uint64_t)st.st_size != size)
		return errmsg_set(ESTALE, "%s %s is %llu bytes, not the %llu it was created with",
		                  what, path, (unsigned long long)st.st_size,
		                  (unsigned long long)size);
	return 0;
}

static int check_lost(const struct statctr_seg *seg)
{
	/* Pairs with the release fetch_or in record_loss() (guard.c): the
	 * time of the loss, stored before it, reads as set below. */
	uint32_t lost = atomic_load_explicit(&seg->lost, memory_order_acquire);
	char when[64];

	if (lost & WRITER_SEG_LOST) {
		format_utc(when, sizeof(when),
		           atomic_load_explicit(&seg->seg_lost_ns, memory_order_relaxed));
		return errmsg_set(
		    ESTALE,
		    "segment %s was truncated under its writer at %s: the writer counts "
		    "into private memory readers do not see",
		    seg->path, when);
	}
	if (lost & WRITER_CTL_LOST) {
		format_utc(when, sizeof(when),
		           atomic_load_explicit(&seg->ctl_lost_ns, memory_order_relaxed));
		return errmsg_set(ESTALE,
		                  "control file %s was truncated under its writer at %s: no copy "
		                  "assistance or resets for this generation",
		                  seg->ctl_path, when);
	}
	return 0;
}

int statctr_seg_health(const struct statctr_seg *seg)
{
	char *lock_path = NULL;
	int err = check_lost(seg);

	if (!err)
		err = cpu_slots_check(seg);
	if (!err)
		err = check_file("segment", seg->path, &seg->id, seg->layout.size);
	if (!err)
		err = check_file("control file", seg->ctl_path, &seg->ctl_id, seg->ctl_layout.size);
	if (err)
		return err;
	if (asprintf(&lock_path, "%s.lock", seg->path) < 0)
		return errmsg_set(ENOMEM, "out of memory");
	err = check_file("lock file", lock_path, &seg->lock_id, UINT64_MAX);
	free(lock_path);
	return err;
}

int statctr_seg_lookup(const struct statctr_seg *seg, const char *table, const char *column,
                       uint32_t row, statctr_id *idp)
{
	return meta_lookup(&seg->meta, table, column, row, idp);
}
