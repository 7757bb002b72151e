/*
 * epoch.c - epochs: named points in time kept as lifetime raw totals
 * (docs/epochs.md, the format and the protocol).
 *
 * Owns the epoch file <segment path>.epochs: its validation and mapping for
 * readers, epoch starts, the intervals between epochs, and the writer's
 * create/adopt and the captures of a generation's final counts.  Offsets
 * come from epoch_layout_for() of the validated keep and the segment's
 * ncells, never from the file; every live index is bounded before use.
 * Never stores to a segment or a control file: an epoch start changes no
 * value and no discontinuity time that a reader serves.
 *
 * Stores (starts, captures, adopt) hold the file's flock() and bracket
 * their stores with an odd and the next even seq; loads go through
 * read_stable(), which retries while seq is odd or moved, for a bounded
 * time.  No other party can keep the writer waiting (writer_lock()), and
 * its adopt rebuilds a header whose live fields are corrupt.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define EPOCH_LOCK_START_MS 500
/* Then the writer takes the file over with a copy (writer_lock()). */
#define EPOCH_LOCK_WRITER_MS 250
/*
 * A read waits at most EPOCH_READ_BUDGET_MS for an even, unchanged seq
 * (a start's stores take microseconds to a few ms).  One that gives up
 * makes every read of the file in the next EPOCH_BUSY_HOLD_MS, in any
 * thread, try once and never wait: an odd seq left by a dead starter or
 * stored by hand costs one budget per hold, not one per value read.
 */
#define EPOCH_READ_BUDGET_MS 100
#define EPOCH_BUSY_HOLD_MS   1000
#define NS_PER_MS            1000000ull

struct epochs {
	_Atomic uint32_t refs; /* the view and its snapshots */
	int fd;
	bool writable;
	uint8_t *base;
	struct epoch_layout layout;
	uint32_t keep, ncells;
	char *path;
	/* CLOCK_MONOTONIC ns until which reads try once (a read gave up). */
	_Atomic uint64_t busy_until_ns;
};

/* A consistent copy of the live header fields. */
struct live {
	uint32_t next_number, nkept, oldest, era;
	uint64_t generation;
};

static struct epoch_header *hdr_of(const struct epochs *e)
{
	return (struct epoch_header *)e->base;
}

static struct epoch_record *record_at(const struct epochs *e, uint32_t i)
{
	return (struct epoch_record *)(e->base + e->layout.records_off +
	                               (uint64_t)i * EPOCH_RECORD_SIZE);
}

static _Atomic uint64_t *carry_of(const struct epochs *e)
{
	return (_Atomic uint64_t *)(e->base + e->layout.carry_off);
}

static _Atomic uint64_t *bases_at(const struct epochs *e, uint32_t i)
{
	return (_Atomic uint64_t *)(e->base + e->layout.bases_off + (uint64_t)i * e->layout.stride);
}

/* FNV-1a 64 of the segment's validated metadata: what the cells mean. */
static uint64_t layout_hash(const struct meta *m)
{
	uint64_t h = 14695981039346656037ull;

	for (uint64_t i = HEADER_SIZE; i < m->hdr->rowdir_off; i++)
		h = (h ^ m->copy[i]) * 1099511628211ull;
	return h;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- readers: open and validate ---- */

struct epochs *epochs_ref(struct epochs *e)
{
	if (e)
		atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
	return e;
}

void epochs_unref(struct epochs *e)
{
	/* Acquire-release: the last owner sees every other owner's use done. */
	if (!e || atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (e->base)
		munmap(e->base, e->layout.size);
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	free(e);
}

/* The private header against the segment @m and the file's size. */
static int check_header(const struct epochs *e, const struct epoch_header *h, const struct meta *m,
                        uint64_t size)
{
	struct epoch_layout l;

	if (memcmp(h->magic, EPOCH_MAGIC, 8) != 0 || h->version != EPOCH_VERSION ||
	    h->header_size != HEADER_SIZE)
		return errmsg_set(EPROTO, "%s: not a version-%u epoch file", e->path,
		                  EPOCH_VERSION);
	if (h->keep < 1 || h->keep > STATCTR_MAX_EPOCHS)
		return errmsg_set(EPROTO, "%s: keep is %u, not 1..%u", e->path, h->keep,
		                  STATCTR_MAX_EPOCHS);
	if (h->ncells != m->hdr->ncells)
		return errmsg_set(EPROTO, "%s: %u cells, the segment has %u", e->path, h->ncells,
		                  m->hdr->ncells);
	if (h->layout_hash != layout_hash(m))
		return errmsg_set(EPROTO, "%s: was made for another layout of the segment",
		                  e->path);
	l = epoch_layout_for(h->keep, h->ncells);
	if (h->file_size != l.size || size != l.size)
		return errmsg_set(EPROTO, "%s: %llu bytes (file_size %llu), the layout says %llu",
		                  e->path, (unsigned long long)size,
		                  (unsigned long long)h->file_size, (unsigned long long)l.size);
	return 0;
}

/* Opens as the control file is opened: read-write when we may. */
static int open_file(struct statctr_view *v, struct epochs *e, struct epoch_header *h)
{
	struct stat st;
	int err;

	err = view_open_rw_or_ro(e->path, &e->fd, &e->writable);
	if (!err)
		err = view_check_stat(v, e->path, e->fd, &st);
	if (!err)
		err = meta_pread(e->fd, h, sizeof(*h), 0, e->path);
	if (!err)
		err = check_header(e, h, v->meta, (uint64_t)st.st_size);
	return err;
}

int epochs_open(struct statctr_view *v)
{
	struct epoch_header h;
	struct epochs *e = calloc(1, sizeof(*e));
	int err;

	epochs_unref(v->epochs);
	v->epochs = NULL;
	if (!e)
		return errmsg_set(ENOMEM, "out of memory");
	e->fd = -1;
	atomic_init(&e->refs, 1);
	if (asprintf(&e->path, "%s.epochs", v->path) < 0) {
		free(e);
		return errmsg_set(ENOMEM, "out of memory");
	}
	err = open_file(v, e, &h);
	if (!err) {
		void *base;

		e->keep = h.keep;
		e->ncells = h.ncells;
		e->layout = epoch_layout_for(h.keep, h.ncells);
		base = mmap(NULL, e->layout.size, e->writable ? PROT_READ | PROT_WRITE : PROT_READ,
		            MAP_SHARED, e->fd, 0);
		if (base == MAP_FAILED)
			err = errmsg_set(errno, "cannot map %s: %s", e->path, strerror(errno));
		else
			e->base = base;
	}
	if (err == -ENOENT)
		err = errmsg_set(ENOENT, "segment %s declares no epochs (no %s)", v->path, e->path);
	if (err) {
		epochs_unref(e);
		return err;
	}
	v->epochs = e;
	return 0;
}

/* ---- readers: consistent loads ---- */

static struct live load_live(const struct epochs *e)
{
	const struct epoch_header *h = hdr_of(e);
	struct live l;

	l.next_number = atomic_load_explicit(&h->next_number, memory_order_relaxed);
	l.nkept = atomic_load_explicit(&h->nkept, memory_order_relaxed);
	l.oldest = atomic_load_explicit(&h->oldest, memory_order_relaxed);
	l.era = atomic_load_explicit(&h->era, memory_order_relaxed);
	l.generation = atomic_load_explicit(&h->generation, memory_order_relaxed);
	return l;
}

/*
 * Runs @fn (loads only, its result returned only from a stable read) until
 * seq is even and unchanged around it, for at most the read budget (one
 * try while the file is marked busy).  Inside guard_run(): -ESTALE when
 * the file was truncated under us; -EBUSY when it gave up, with
 * a->stuck_odd set when seq stayed at one odd value the whole time.
 */
struct stable_args {
	const struct epochs *e;
	int (*fn)(const struct epochs *e, const struct live *l, void *arg);
	void *arg;
	bool once;      /* the file was marked busy: one try */
	bool stuck_odd; /* gave up on one odd seq, unchanged throughout */
	uint64_t odd;   /* that seq */
};

/* One try: true and *@rcp when seq was even and unchanged around @fn; *@seqp the seq seen. */
static bool stable_try(const struct stable_args *a, uint64_t *seqp, int *rcp)
{
	const struct epoch_header *h = hdr_of(a->e);
	/* Pairs with the release store of the even seq in store_end(). */
	uint64_t seq = atomic_load_explicit(&h->seq, memory_order_acquire);
	struct live l;
	int rc;

	*seqp = seq;
	if (seq & 1)
		return false;
	l = load_live(a->e);
	rc = l.nkept <= a->e->keep && l.oldest < a->e->keep ? a->fn(a->e, &l, a->arg) : -EPROTO;
	/* Orders the loads above before the second load of seq: pairs with
	 * the release fence after the odd seq in store_begin(). */
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&h->seq, memory_order_relaxed) != seq)
		return false;
	*rcp = rc;
	return true;
}

static int stable_loop(void *arg)
{
	struct stable_args *a = arg;
	uint64_t start = mono_ns(), seq, first = 0;
	uint64_t deadline;
	bool once = start < atomic_load_explicit(&a->e->busy_until_ns, memory_order_relaxed);
	bool steady = true;
	int rc;

	a->once = once;
	deadline = start + (once ? 0 : EPOCH_READ_BUDGET_MS * NS_PER_MS);
	for (int tries = 0;; tries++) {
		if (stable_try(a, &seq, &rc))
			return rc;
		if (tries == 0)
			first = seq;
		steady = steady && seq == first;
		if (mono_ns() >= deadline)
			break;
		if (seq & 1)
			pause_ms(1);
	}
	a->stuck_odd = !once && steady && (first & 1);
	a->odd = first;
	return -EBUSY;
}

/*
 * Under the file's lock, with seq still at the odd value @odd a read gave up
 * on: no live starter stores (it would hold the lock), so the one that made
 * it odd died mid-way, or someone stored it by hand.  The next even value,
 * as the next start would store.
 */
struct repair_args {
	struct epochs *e;
	uint64_t odd;
};

static int repair_seq(void *arg)
{
	const struct repair_args *r = arg;
	_Atomic uint64_t *seq = &hdr_of(r->e)->seq;
	uint64_t want = r->odd;

	/* Pairs with the acquire load of seq in stable_try(). */
	return atomic_compare_exchange_strong_explicit(seq, &want, r->odd + 1, memory_order_release,
	                                               memory_order_relaxed)
	           ? 0
	           : -EAGAIN;
}

/*
 * Repairs the odd seq @odd when this process may store and nobody holds the
 * lock.  Through a descriptor of its own (a new open file description of
 * the same file): another thread may hold the lock through e->fd, and
 * flock() would neither stop us nor let us release only our own hold.
 */
static bool repair_odd(const struct epochs *ce, uint64_t odd)
{
	struct epochs *e = (struct epochs *)ce; /* the mapping is shared, not the struct */
	struct repair_args r = {e, odd};
	char self[40];
	int fd, rc = -EBUSY;

	if (!e->writable)
		return false;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", e->fd);
	fd = open(self, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		rc = guard_run(repair_seq, &r, e->path);
	close(fd); /* releases the lock */
	return rc == 0;
}

static int read_stable(const struct epochs *e,
                       int (*fn)(const struct epochs *e, const struct live *l, void *arg),
                       void *arg)
{
	struct stable_args a = {e, fn, arg, false, false, 0};
	_Atomic uint64_t *busy = (_Atomic uint64_t *)&e->busy_until_ns;
	int rc = guard_run(stable_loop, &a, e->path);

	if (rc == -EBUSY && a.stuck_odd && repair_odd(e, a.odd)) {
		a.stuck_odd = false;
		rc = guard_run(stable_loop, &a, e->path);
	}
	if (rc == -EBUSY) {
		if (!a.once) /* a budget spent: the next ones try once until the hold ends */
			atomic_store_explicit(busy, mono_ns() + EPOCH_BUSY_HOLD_MS * NS_PER_MS,
			                      memory_order_relaxed);
		if (a.stuck_odd)
			return errmsg_set(EBUSY,
			                  "%s: seq stayed odd for %u ms: a starter died mid-way or "
			                  "the file was written by hand (the next epoch start or "
			                  "writer start repairs it)",
			                  e->path, EPOCH_READ_BUDGET_MS);
		return errmsg_set(EBUSY, "%s: epoch starts kept it changing", e->path);
	}
	if (rc == -EPROTO)
		return errmsg_set(EPROTO, "%s: corrupt header or epoch record", e->path);
	return rc;
}

/* The ring index of epoch @number, or -ENOENT. */
static int find_epoch(const struct epochs *e, const struct live *l, uint32_t number,
                      uint32_t *indexp)
{
	for (uint32_t k = 0; k < l->nkept; k++) {
		uint32_t i = (l->oldest + k) % e->keep;

		if (atomic_load_explicit(&record_at(e, i)->number, memory_order_relaxed) ==
		    number) {
			*indexp = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* Record @i into @out; -EPROTO for a name that is not printable text. */
static int copy_record(const struct epochs *e, uint32_t i, struct statctr_epoch *out)
{
	const struct epoch_record *r = record_at(e, i);
	uint64_t words[8];
	size_t len;

	for (int w = 0; w < 8; w++)
		words[w] = atomic_load_explicit(&r->name[w], memory_order_relaxed);
	out->number = atomic_load_explicit(&r->number, memory_order_relaxed);
	out->start_ns = atomic_load_explicit(&r->start_ns, memory_order_relaxed);
	memcpy(out->name, words, sizeof(out->name));
	len = strnlen(out->name, sizeof(out->name));
	if (len == 0 || len >= sizeof(out->name))
		return -EPROTO;
	for (size_t c = 0; c < len; c++)
		if (!text_byte_ok((unsigned char)out->name[c]))
			return -EPROTO;
	return 0;
}

struct list_args {
	struct statctr_epoch *out;
	uint32_t max, nkept;
};

static int list_epochs(const struct epochs *e, const struct live *l, void *arg)
{
	struct list_args *a = arg;

	a->nkept = l->nkept;
	for (uint32_t k = 0; k < l->nkept && k < a->max; k++) {
		int rc = copy_record(e, (l->oldest + k) % e->keep, &a->out[k]);

		if (rc)
			return rc;
	}
	return 0;
}

/* @view's epochs, opened again when it had none (one may have been created since). */
static int view_epochs_of(struct statctr_view *view, struct epochs **ep)
{
	int err = view->epochs ? 0 : epochs_open(view);

	*ep = view->epochs;
	return err;
}

uint32_t statctr_view_epochs(struct statctr_view *view, struct statctr_epoch *out, uint32_t max)
{
	struct list_args a = {out, max, 0};
	struct epochs *e;

	if (view_epochs_of(view, &e) != 0 || read_stable(e, list_epochs, &a) != 0)
		return 0;
	return a.nkept;
}

struct status_args {
	struct statctr_epoch_status *status;
	uint64_t generation; /* the view's */
};

static int read_status(const struct epochs *e, const struct live *l, void *arg)
{
	struct status_args *a = arg;

	a->status->keep = e->keep;
	a->status->nkept = l->nkept;
	a->status->next_number = l->next_number;
	a->status->era = l->era;
	a->status->current = l->generation == a->generation;
	return 0;
}

int statctr_view_epoch_status(struct statctr_view *view, struct statctr_epoch_status *status)
{
	struct status_args a = {status, view->meta->hdr->generation};
	struct epochs *e;
	int rc = view_epochs_of(view, &e);

	return rc ? rc : read_stable(e, read_status, &a);
}

struct delta_args {
	const struct statctr_snap *snap;
	uint64_t generation; /* the snapshot's */
	statctr_id cell;
	uint32_t from, to;
	uint64_t delta;
};

/* The lifetime total of the cell at the end of the interval; -EXDEV: another era. */
static int end_total(const struct epochs *e, const struct live *l, const struct delta_args *a,
                     uint32_t from_era, uint64_t *totalp)
{
	uint32_t i;
	int rc;

	if (a->to == 0) {
		if (l->generation != a->generation || from_era != l->era)
			return -EXDEV;
		*totalp = atomic_load_explicit(&carry_of(e)[a->cell], memory_order_relaxed) +
		          statctr_snap_counter_raw(a->snap, a->cell);
		return 0;
	}
	rc = find_epoch(e, l, a->to, &i);
	if (rc)
		return rc;
	if (atomic_load_explicit(&record_at(e, i)->era, memory_order_relaxed) != from_era)
		return -EXDEV;
	*totalp = atomic_load_explicit(&bases_at(e, i)[a->cell], memory_order_relaxed);
	return 0;
}

static int read_delta(const struct epochs *e, const struct live *l, void *arg)
{
	struct delta_args *a = arg;
	uint64_t end;
	uint32_t i;
	int rc = find_epoch(e, l, a->from, &i);

	if (!rc)
		rc = end_total(e, l, a,
		               atomic_load_explicit(&record_at(e, i)->era, memory_order_relaxed),
		               &end);
	if (!rc)
		a->delta =
		    end - atomic_load_explicit(&bases_at(e, i)[a->cell], memory_order_relaxed);
	return rc;
}

/* The interval of cell @cell (a value cell, validated by the caller). */
static int cell_delta(const struct statctr_snap *snap, statctr_id cell, uint32_t from, uint32_t to,
                      uint64_t *delta)
{
	struct statctr_snap_stats st;
	struct delta_args a = {snap, 0, cell, from, to, 0};
	struct epochs *e = snap_epochs(snap);
	int rc;

	if (!e)
		return errmsg_set(ENOENT, "the snapshot's segment has no usable epoch file");
	statctr_snap_stats(snap, &st);
	a.generation = st.generation;
	rc = read_stable(e, read_delta, &a);
	if (rc == -ENOENT)
		return errmsg_set(ENOENT, "%s: epoch %u or %u is not kept", e->path, from, to);
	if (rc == -EXDEV)
		return errmsg_set(ESTALE,
		                  "%s: epochs %u..%u span a writer restart whose final counts were "
		                  "not captured",
		                  e->path, from, to);
	if (!rc)
		*delta = a.delta;
	return rc;
}

int statctr_snap_epoch_delta(const struct statctr_snap *snap, statctr_id id, uint32_t from,
                             uint32_t to, uint64_t *delta)
{
	const struct meta *m = snap_meta(snap);

	if (id >= m->hdr->ncells || m->cell_kind[id] == STATCTR_GAUGE)
		return errmsg_set(EINVAL, "cell %u: not a counter of the segment (%u cells)", id,
		                  m->hdr->ncells);
	return cell_delta(snap, meta_value_cell(m, id), from, to, delta);
}

int statctr_snap_epoch_bucket(const struct statctr_snap *snap, statctr_id id, uint32_t b,
                              uint32_t from, uint32_t to, uint64_t *delta)
{
	const struct meta *m = snap_meta(snap);
	uint32_t block;
	const struct seg_column *col =
	    id < m->hdr->ncells ? meta_hist_of(m, id, &block) : NULL; /* NULL: not one */

	if (!col || b > col->nbuckets)
		return errmsg_set(EINVAL, "cell %u bucket %u: not a histogram's bucket", id, b);
	return cell_delta(snap, block + 1 + b, from, to, delta);
}

/* ---- stores: under the file's lock, between an odd and the next even seq ---- */

/*
 * The file's lock, bounded wait: flock(), held by this open file
 * description until unlock_file() or its close (a starter that dies
 * releases it).  A pair costs about half what an F_OFD_SETLK pair does
 * (0.75 against 1.2 us on the development machine), which counts in a
 * start of a small segment (docs/PERFORMANCE.md section 12).
 */
static int lock_file(const struct epochs *e, unsigned wait_ms)
{
	unsigned waited = 0;

	if (!e->writable)
		return errmsg_set(EACCES, "%s is not writable by this process", e->path);
	while (flock(e->fd, LOCK_EX | LOCK_NB) != 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= wait_ms)
			return errmsg_set(EBUSY, "%s: held by another epoch start", e->path);
		pause_ms(1);
		waited++;
	}
	return 0;
}

static void unlock_file(const struct epochs *e)
{
	flock(e->fd, LOCK_UN);
}

struct copy_args {
	const struct epochs *e;
	uint8_t *to;
};

/* The whole file into @to, its seq made even (whatever a holder left). */
static int copy_file(void *arg)
{
	const struct copy_args *c = arg;
	struct epoch_header *h = (struct epoch_header *)c->to;
	uint64_t seq;

	memcpy(c->to, c->e->base, c->e->layout.size);
	seq = atomic_load_explicit(&h->seq, memory_order_relaxed);
	atomic_store_explicit(&h->seq, (seq + 1) & ~(uint64_t)1, memory_order_relaxed);
	return 0;
}

/* *@fdp: @tmp opened and locked, and the same file as what @path names after the rename. */
static int lock_and_rename(const char *tmp, const char *path, int *fdp)
{
	struct stat a, b;
	int fd, err = view_open_nofollow(tmp, O_RDWR, &fd);

	if (err)
		return err;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &a) != 0)
		err = errmsg_set(EBUSY, "%s: cannot lock the copy: %s", tmp, strerror(errno));
	else if (rename(tmp, path) != 0)
		err = errmsg_set(errno, "cannot rename %s into place: %s", path, strerror(errno));
	else if (lstat(path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		err = errmsg_set(ESTALE, "%s was replaced under the writer", path);
	if (err)
		close(fd);
	else
		*fdp = fd;
	return err;
}

/*
 * The file's lock, for the segment's writer (its adopt and its captures).
 * Anyone who may open the file may flock() it: the resetter group, and
 * every user when ctl_mode lets every user read it (flock() needs only a
 * read-only descriptor).  So after EPOCH_LOCK_WRITER_MS the writer stops
 * waiting: it copies the file into a new one of the same mode and group,
 * locked before it is renamed into place, and goes on with that; the
 * holder keeps the old inode, which nobody opens again.  A start that
 * held the lock that long loses its epoch (its caller was told success;
 * readers see the file as the writer copied it).  @v->epochs is replaced.
 */
static int writer_lock(struct statctr_view *v)
{
	struct epochs *e = v->epochs;
	struct copy_args c = {e, NULL};
	struct stat st;
	char *tmp = NULL;
	int err = lock_file(e, EPOCH_LOCK_WRITER_MS), fd = -1;

	if (err != -EBUSY)
		return err;
	if (fstat(e->fd, &st) != 0)
		return errmsg_set(errno, "%s: %s", e->path, strerror(errno));
	err = create_mapped(e->path, e->layout.size, st.st_mode & 07777, NULL, &tmp, &c.to);
	if (err)
		return err;
	if (lchown(tmp, (uid_t)-1, st.st_gid) != 0)
		err = errmsg_set(errno, "cannot set the group of %s: %s", tmp, strerror(errno));
	if (!err)
		err = guard_run(copy_file, &c, e->path);
	munmap(c.to, e->layout.size);
	if (!err)
		err = lock_and_rename(tmp, e->path, &fd);
	if (err)
		unlink(tmp);
	free(tmp);
	if (!err)
		err = epochs_open(v);
	if (!err && dup2(fd, v->epochs->fd) < 0) /* the locked description */
		err = errmsg_set(errno, "%s: %s", e->path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!err)
		fprintf(stderr,
		        "statctr: %s: its lock was held over %u ms by another process: the writer "
		        "took it over with a copy\n",
		        v->epochs->path, EPOCH_LOCK_WRITER_MS);
	return err;
}

static void store_begin(struct epochs *e)
{
	struct epoch_header *h = hdr_of(e);
	/* An odd value: a predecessor died mid-way; start from the next even. */
	uint64_t seq = (atomic_load_explicit(&h->seq, memory_order_relaxed) + 1) & ~(uint64_t)1;

	atomic_store_explicit(&h->seq, seq + 1, memory_order_relaxed);
	/* Orders the odd seq before the stores that follow: pairs with the
	 * acquire fence in stable_loop(). */
	atomic_thread_fence(memory_order_release);
}

static void store_end(struct epochs *e)
{
	struct epoch_header *h = hdr_of(e);
	uint64_t seq = atomic_load_explicit(&h->seq, memory_order_relaxed);

	/* Pairs with the acquire load of seq in stable_loop(): the stores first. */
	atomic_store_explicit(&h->seq, seq + 1, memory_order_release);
}

struct store_args {
	struct epochs *e;
	const struct statctr_snap *snap;
	uint64_t generation; /* the snapshot's, or the adopting writer's */
	const char *name;
	uint64_t now;
	uint32_t number;
	/* A start: the ring index it takes (store_retire()), that index's
	 * bases when the snapshot may write them itself (NULL: it may not),
	 * what it adds to them there, and whether it did. */
	uint32_t index;
	uint64_t *direct_base;
	const _Atomic uint64_t *direct_add; /* the carry, when it is not all zero */
	bool in_base;
	char note[256]; /* an adopt's repair: what it kept and what it lost */
};

static int check_live(const struct epochs *e, const struct live *l)
{
	return l->nkept <= e->keep && l->oldest < e->keep ? 0 : -EPROTO;
}

static void store_record(struct epochs *e, uint32_t i, const struct store_args *a, uint32_t era)
{
	struct epoch_record *r = record_at(e, i);
	uint64_t words[8] = {0};

	memcpy(words, a->name, strlen(a->name)); /* <= 63 bytes: checked */
	atomic_store_explicit(&r->number, a->number, memory_order_relaxed);
	atomic_store_explicit(&r->era, era, memory_order_relaxed);
	atomic_store_explicit(&r->start_ns, a->now, memory_order_relaxed);
	atomic_store_explicit(&r->generation, a->generation, memory_order_relaxed);
	for (int w = 0; w < 8; w++)
		atomic_store_explicit(&r->name[w], words[w], memory_order_relaxed);
}

/*
 * The header as a start finds it under the lock: sane, of the generation
 * the start was asked for, with an epoch number left.  0 or -errno.
 */
static int live_for_start(struct epochs *e, const struct store_args *a, struct live *l)
{
	*l = load_live(e); /* stable: we hold the lock */
	if (check_live(e, l))
		return -EPROTO;
	if (l->generation != a->generation)
		return -EXDEV;
	if (l->next_number == 0 || l->next_number == UINT32_MAX)
		return -EOVERFLOW;
	return 0;
}

/*
 * Before a start's snapshot: the ring index the new epoch takes, out of
 * every reader's sight, so that the snapshot may write its base there
 * directly.  When keep epochs are kept that index is the oldest's, which is
 * retired now (its own odd/even seq) rather than when the new one is
 * stored.  Without a carry, and with plain stores to data under a sequence
 * (PLAIN_SEQ_ACCESS), the snapshot may write the base itself.
 */
static int store_retire(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct epoch_header *h = hdr_of(e);
	struct live l;
	int err = live_for_start(e, a, &l);

	if (err)
		return err;
	a->index = (l.oldest + l.nkept) % e->keep;
	if (l.nkept == e->keep) {
		store_begin(e);
		atomic_store_explicit(&h->oldest, (l.oldest + 1) % e->keep, memory_order_relaxed);
		atomic_store_explicit(&h->nkept, l.nkept - 1, memory_order_relaxed);
		store_end(e);
	}
	/* Orders the retirement (its even seq) before the snapshot's stores
	 * to the base: pairs with the acquire fence in stable_loop(), so that
	 * a reader that saw one of them sees seq moved and retries. */
	atomic_thread_fence(memory_order_release);
	if (PLAIN_SEQ_ACCESS) {
		a->direct_base = (uint64_t *)(void *)bases_at(e, a->index);
		if (atomic_load_explicit(&h->carried, memory_order_relaxed))
			a->direct_add = carry_of(e);
	}
	return 0;
}

/* @base: the carry plus @sum, every cell's raw total (histograms' sums too). */
static void store_base(struct epochs *e, _Atomic uint64_t *base, const uint64_t *sum)
{
	const _Atomic uint64_t *carry = carry_of(e);

	if (atomic_load_explicit(&hdr_of(e)->carried, memory_order_relaxed))
		for (uint32_t c = 0; c < e->ncells; c++)
			atomic_store_explicit(
			    &base[c],
			    atomic_load_explicit(&carry[c], memory_order_relaxed) + sum[c],
			    memory_order_relaxed);
	else if (PLAIN_SEQ_ACCESS) /* no restart yet: a copy */
		memcpy((void *)base, sum, (size_t)e->ncells * sizeof(*sum));
	else
		for (uint32_t c = 0; c < e->ncells; c++)
			atomic_store_explicit(&base[c], sum[c], memory_order_relaxed);
}

/*
 * The new epoch's base is the lifetime total of every cell in the snapshot;
 * the snapshot wrote it already when a->in_base (store_retire()).
 */
static int store_start(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct epoch_header *h = hdr_of(e);
	struct live l;
	uint32_t i;
	int err = live_for_start(e, a, &l);

	if (err)
		return err;
	i = (l.oldest + l.nkept) % e->keep;
	if (i != a->index || l.nkept == e->keep)
		return -EPROTO; /* stored to without the lock since store_retire() */
	a->number = l.next_number;
	store_begin(e);
	if (!a->in_base) /* else the snapshot's final pass wrote it */
		store_base(e, bases_at(e, i), snap_sums(a->snap));
	store_record(e, i, a, l.era);
	atomic_store_explicit(&h->nkept, l.nkept + 1, memory_order_relaxed);
	atomic_store_explicit(&h->next_number, l.next_number + 1, memory_order_relaxed);
	store_end(e);
	return 0;
}

static int check_name(const char *name)
{
	size_t len = name ? strnlen(name, STATCTR_MAX_EPOCH_NAME + 1) : 0;

	if (len == 0 || len > STATCTR_MAX_EPOCH_NAME)
		return errmsg_set(EINVAL, "an epoch name is 1..%u bytes", STATCTR_MAX_EPOCH_NAME);
	for (size_t c = 0; c < len; c++)
		if (!text_byte_ok((unsigned char)name[c]))
			return errmsg_set(EINVAL,
			                  "epoch name: byte %zu (0x%02x) is not printable ASCII", c,
			                  (unsigned char)name[c]);
	return 0;
}

/* The snapshot that wrote a base directly saw a SIGBUS: was it this file's? */
static bool file_shrank(const struct epochs *e)
{
	struct stat st;

	return fstat(e->fd, &st) != 0 || (uint64_t)st.st_size != e->layout.size;
}

static int start_outcome(int rc, const struct epochs *e, const struct store_args *a)
{
	if (rc == -EXDEV)
		return errmsg_set(ESTALE,
		                  "%s follows another generation of the segment than this view "
		                  "(%016llx): refresh it",
		                  e->path, (unsigned long long)a->generation);
	if (rc == -EPROTO)
		return errmsg_set(EPROTO, "%s: corrupt header", e->path);
	if (rc == -EOVERFLOW)
		return errmsg_set(EOVERFLOW, "%s: epoch numbers exhausted", e->path);
	return rc;
}

/* The view's epoch snapshot, sums only whatever the view's mode: all a base needs. */
static int retake_sums(struct statctr_view *view)
{
	bool in_dest;

	return snap_retake_sums_into(view, &view->epoch_snap, NULL, NULL, &in_dest);
}

int statctr_epoch_start(struct statctr_view *view, const char *name, uint32_t *numberp)
{
	struct store_args a = {.name = name};
	struct statctr_snap_stats st;
	int err = check_name(name);

	if (!err)
		err = view_epochs_of(view, &a.e);
	if (!err && (!view->ctl || !view->ctl_writable))
		err = errmsg_set(EACCES,
		                 "cannot start an epoch of %s: %s is not writable by this "
		                 "process",
		                 view->path, view->ctl_path);
	if (!err)
		err = lock_file(a.e, EPOCH_LOCK_START_MS);
	if (err)
		return err;
	a.now = realtime_ns();
	a.generation = view->meta->hdr->generation;
	err = start_outcome(guard_run(store_retire, &a, a.e->path), a.e, &a);
	if (!err)
		err = snap_retake_sums_into(view, &view->epoch_snap, a.direct_base, a.direct_add,
		                            &a.in_base);
	if (err == -ESTALE && a.direct_base && file_shrank(a.e))
		err = errmsg_set(ESTALE, "%s changed size under its mapping", a.e->path);
	if (!err) {
		statctr_snap_stats(view->epoch_snap, &st);
		a.snap = view->epoch_snap;
		a.generation = st.generation;
		err = start_outcome(guard_run(store_start, &a, a.e->path), a.e, &a);
	}
	unlock_file(a.e);
	if (!err && numberp)
		*numberp = a.number;
	return err;
}

/* The generation a.generation ends: its final totals join the carry. */
static int store_capture(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct live l = load_live(e);
	_Atomic uint64_t *carry = carry_of(e);
	const uint64_t *sum = snap_sums(a->snap);

	if (l.generation != a->generation)
		return 0; /* captured already, or not the generation the carry precedes */
	store_begin(e);
	for (uint32_t c = 0; c < e->ncells; c++)
		atomic_store_explicit(
		    &carry[c], atomic_load_explicit(&carry[c], memory_order_relaxed) + sum[c],
		    memory_order_relaxed);
	atomic_store_explicit(&hdr_of(e)->generation, 0, memory_order_relaxed);
	atomic_store_explicit(&hdr_of(e)->carried, 1, memory_order_relaxed);
	store_end(e);
	return 0;
}

/* The final counts of @v's generation into the carry, once (the generation check). */
static int capture_view(struct statctr_view *v, bool writer)
{
	struct store_args a = {.name = ""};
	struct statctr_snap_stats st;
	int err = !v->epochs ? -ENOENT
	          : writer   ? writer_lock(v)
	                     : lock_file(v->epochs, EPOCH_LOCK_START_MS);

	if (err)
		return err;
	a.e = v->epochs;
	err = retake_sums(v);
	if (!err) {
		statctr_snap_stats(v->epoch_snap, &st);
		a.snap = v->epoch_snap;
		a.generation = st.generation;
		err = guard_run(store_capture, &a, a.e->path);
	}
	unlock_file(a.e);
	return err;
}

/*
 * The final counts of the segment at @path (its writer closing it, or gone:
 * the caller holds the segment lock), when its epoch file follows it.
 * Best effort: what is not captured, the next writer's adopt makes -ESTALE.
 */
void epochs_capture(const char *path)
{
	struct statctr_view *v;

	if (statctr_view_open_owned(path, geteuid(), &v) != 0)
		return;
	capture_view(v, true);
	statctr_view_close(v);
}

int statctr_epoch_capture(struct statctr_view *view)
{
	struct statctr_seg_info info;
	struct epochs *e;
	int err = view_epochs_of(view, &e);

	if (err)
		return err;
	statctr_view_info(view, &info);
	if (info.status == STATCTR_SEG_ACTIVE)
		return errmsg_set(EBUSY, "%s: its writer (pid %d) still counts", view->path,
		                  (int)info.creator_pid);
	if (!view->ctl_writable)
		return errmsg_set(EACCES, "cannot capture %s: %s is not writable by this process",
		                  view->path, view->ctl_path);
	return capture_view(view, false);
}

/* How many records from ring index @start have valid names and rising numbers, at most @max. */
static uint32_t rising_from(const struct epochs *e, uint32_t start, uint32_t max, uint32_t *lastp)
{
	struct statctr_epoch r;
	uint32_t n = 0, prev = 0;

	while (n < max && copy_record(e, (start + n) % e->keep, &r) == 0 && r.number > prev) {
		prev = r.number;
		n++;
	}
	*lastp = prev;
	return n;
}

/*
 * The kept ring when oldest or nkept is out of range: every record that
 * can be kept.  From a sane oldest, the records whose numbers rise (at
 * most a sane nkept); else the longest such run, its newest nkept when
 * nkept is sane.  A record left of a start that failed after its retire
 * holds a smaller number than the oldest kept, so no run takes it in
 * after the newest.
 */
static void kept_run(const struct epochs *e, const struct live *l, uint32_t *startp, uint32_t *np,
                     uint32_t *lastp)
{
	uint32_t max = l->nkept <= e->keep ? l->nkept : e->keep, last;

	*np = 0;
	*startp = 0;
	*lastp = 0;
	if (l->oldest < e->keep) {
		*startp = l->oldest;
		*np = rising_from(e, l->oldest, max, lastp);
		return;
	}
	for (uint32_t s = 0; s < e->keep; s++) {
		uint32_t n = rising_from(e, s, e->keep, &last);

		if (n > *np || (n == *np && n && last > *lastp)) {
			*np = n;
			*startp = s;
			*lastp = last;
		}
	}
	if (*np > max) {
		*startp = (*startp + *np - max) % e->keep;
		*np = max;
	}
}

/*
 * A header whose oldest or nkept is out of range, or whose next_number does
 * not follow its newest epoch, rebuilt in place (as a changed keep
 * rebuilds the file): every record kept_run() finds stays, with its
 * bases, numbering goes on after the newest, and a->note says what was
 * lost.  Under the lock, between an odd and the next even seq.
 */
static void repair_live(struct store_args *a, struct live *l)
{
	struct epochs *e = a->e;
	struct epoch_header *h = hdr_of(e);
	uint32_t start, n, last;
	uint32_t next = l->next_number;

	kept_run(e, l, &start, &n, &last);
	if (next <= last || next == UINT32_MAX)
		next = last + 1;
	snprintf(a->note, sizeof(a->note),
	         "%s: corrupt header (nkept %u, oldest %u, next_number %u, keep %u): rebuilt with "
	         "%u epoch(s) kept, numbering from %u; %u lost",
	         e->path, l->nkept, l->oldest, l->next_number, e->keep, n, next,
	         l->nkept <= e->keep && n < l->nkept ? l->nkept - n : 0);
	if (l->nkept > e->keep)
		snprintf(a->note + strlen(a->note), sizeof(a->note) - strlen(a->note),
		         " that it could tell (nkept out of range: a record outside the rising run "
		         "is dropped)");
	store_begin(e);
	atomic_store_explicit(&h->oldest, start, memory_order_relaxed);
	atomic_store_explicit(&h->nkept, n, memory_order_relaxed);
	atomic_store_explicit(&h->next_number, next, memory_order_relaxed);
	store_end(e);
	l->oldest = start;
	l->nkept = n;
	l->next_number = next;
}

/* Whether @l's numbering is sane: next_number after the newest kept epoch's. */
static bool numbers_follow(const struct epochs *e, const struct live *l)
{
	uint32_t newest;

	if (l->next_number == 0)
		return false;
	if (!l->nkept)
		return true;
	newest = atomic_load_explicit(&record_at(e, (l->oldest + l->nkept - 1) % e->keep)->number,
	                              memory_order_relaxed);
	return l->next_number > newest;
}

/* The writer of generation a->generation takes the file over. */
static int store_adopt(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct epoch_header *h = hdr_of(e);
	struct live l = load_live(e);

	if (check_live(e, &l) || !numbers_follow(e, &l))
		repair_live(a, &l);
	if (l.generation == a->generation)
		return 0;
	store_begin(e);
	if (l.generation != 0) {
		/* The predecessor's final counts were lost: a new era. */
		for (uint32_t c = 0; c < e->ncells; c++)
			atomic_store_explicit(&carry_of(e)[c], 0, memory_order_relaxed);
		atomic_store_explicit(&h->era, l.era + 1, memory_order_relaxed);
		atomic_store_explicit(&h->carried, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&h->generation, a->generation, memory_order_relaxed);
	store_end(e);
	return 0;
}

/* The next_number of an epoch file of ours at @epath that we cannot keep, else 1. */
static uint32_t old_next_number(struct statctr_view *v, const char *epath)
{
	struct epoch_header h;
	struct stat st;
	uint32_t next = 1;
	int fd;

	if (view_open_nofollow(epath, O_RDONLY, &fd) != 0)
		return 1;
	if (view_check_stat(v, epath, fd, &st) == 0 &&
	    meta_pread(fd, &h, sizeof(h), 0, epath) == 0 && memcmp(h.magic, EPOCH_MAGIC, 8) == 0) {
		next = atomic_load_explicit(&h.next_number, memory_order_relaxed);
		if (next == 0 || next == UINT32_MAX)
			next = 1;
	}
	close(fd);
	return next;
}

/* A new epoch file for @v's segment as @d declares it, renamed into place. */
static int create_file(struct statctr_view *v, const struct statctr_segment_decl *d)
{
	struct epoch_layout l = epoch_layout_for(d->epoch_keep, v->meta->hdr->ncells);
	struct epoch_header *h;
	char *epath = NULL, *tmp = NULL;
	uint8_t *base;
	int err;

	if (asprintf(&epath, "%s.epochs", v->path) < 0)
		return errmsg_set(ENOMEM, "out of memory");
	err = create_mapped(epath, l.size, d->ctl_mode, d->group, &tmp, &base);
	if (!err) {
		h = (struct epoch_header *)base;
		memcpy(h->magic, EPOCH_MAGIC, 8);
		h->version = EPOCH_VERSION;
		h->header_size = HEADER_SIZE;
		h->file_size = l.size;
		h->keep = d->epoch_keep;
		h->ncells = v->meta->hdr->ncells;
		h->layout_hash = layout_hash(v->meta);
		atomic_store_explicit(&h->next_number, old_next_number(v, epath),
		                      memory_order_relaxed);
		munmap(base, l.size);
		if (rename(tmp, epath) != 0)
			err = errmsg_set(errno, "cannot rename %s into place: %s", epath,
			                 strerror(errno));
	}
	if (err && tmp)
		unlink(tmp);
	free(tmp);
	free(epath);
	return err;
}

int epochs_adopt(const char *path, const struct statctr_segment_decl *d)
{
	struct store_args a = {.name = ""};
	struct statctr_view *v;
	int err = statctr_view_open_owned(path, geteuid(), &v);

	if (err)
		return err;
	if (!v->epochs || v->epochs->keep != d->epoch_keep) {
		err = create_file(v, d);
		if (!err)
			err = epochs_open(v);
	}
	a.generation = v->meta->hdr->generation;
	if (!err)
		err = writer_lock(v);
	if (!err) {
		a.e = v->epochs;
		err = guard_run(store_adopt, &a, a.e->path);
		unlock_file(a.e);
		if (a.note[0]) /* a writer's start is not refused for it: said where it is seen */
			fprintf(stderr, "statctr: %s\n", a.note);
	}
	statctr_view_close(v);
	return err;
}
