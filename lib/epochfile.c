/*
 * epochfile.c - the epoch file <segment path>.epochs (docs/epochs.md, "The
 * epoch file" and "Protocol"): its creation, validation and mapping for
 * readers, its lock (the writer's takeover copy included), and both halves
 * of its seq protocol: the odd/even bracket of stores and the loads
 * through epochs_read_stable(), which retries while seq is odd or moved,
 * for a bounded time, and repairs a seq a dead starter left odd.  Record
 * copies and the ring lookup are here; what epochs mean (starts, captures,
 * adopt, intervals) is epoch.c's.  Offsets come from epoch_layout_for() of
 * the validated keep and the segment's ncells, never from the file.
 *
 * Sits below view.c and snapshot.c (a view opens the file, a snapshot keeps
 * a reference): never calls either, and never chooses a record, base or
 * carry value; never stores to a segment or a control file.
 */
#include "epochfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The writer's wait; then it takes the file over with a copy (epochs_writer_lock()). */
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

struct epoch_live epochs_load_live(const struct epochs *e)
{
	const struct epoch_header *h = epochs_hdr(e);
	struct epoch_live l;

	l.next_number = atomic_load_explicit(&h->next_number, memory_order_relaxed);
	l.nkept = atomic_load_explicit(&h->nkept, memory_order_relaxed);
	l.oldest = atomic_load_explicit(&h->oldest, memory_order_relaxed);
	l.era = atomic_load_explicit(&h->era, memory_order_relaxed);
	l.generation = atomic_load_explicit(&h->generation, memory_order_relaxed);
	return l;
}

int epochs_check_live(const struct epochs *e, const struct epoch_live *l)
{
	return l->nkept <= e->keep && l->oldest < e->keep ? 0 : -EPROTO;
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
	int (*fn)(const struct epochs *e, const struct epoch_live *l, void *arg);
	void *arg;
	bool once;      /* the file was marked busy: one try */
	bool stuck_odd; /* gave up on one odd seq, unchanged throughout */
	uint64_t odd;   /* that seq */
};

/* One try: true and *@rcp when seq was even and unchanged around @fn; *@seqp the seq seen. */
static bool stable_try(const struct stable_args *a, uint64_t *seqp, int *rcp)
{
	const struct epoch_header *h = epochs_hdr(a->e);
	/* Pairs with the release store of the even seq in epochs_store_end(). */
	uint64_t seq = atomic_load_explicit(&h->seq, memory_order_acquire);
	struct epoch_live l;
	int rc;

	*seqp = seq;
	if (seq & 1)
		return false;
	l = epochs_load_live(a->e);
	rc = epochs_check_live(a->e, &l) ? -EPROTO : a->fn(a->e, &l, a->arg);
	/* Orders the loads above before the second load of seq: pairs with
	 * the release fence after the odd seq in epochs_store_begin(). */
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
	_Atomic uint64_t *seq = &epochs_hdr(r->e)->seq;
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

int epochs_read_stable(const struct epochs *e,
                       int (*fn)(const struct epochs *e, const struct epoch_live *l, void *arg),
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
int epochs_find(const struct epochs *e, const struct epoch_live *l, uint32_t number,
                uint32_t *indexp)
{
	for (uint32_t k = 0; k < l->nkept; k++) {
		uint32_t i = (l->oldest + k) % e->keep;

		if (atomic_load_explicit(&epochs_record(e, i)->number, memory_order_relaxed) ==
		    number) {
			*indexp = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* Record @i into @out; -EPROTO for a name that is not printable text. */
int epochs_copy_record(const struct epochs *e, uint32_t i, struct statctr_epoch *out)
{
	const struct epoch_record *r = epochs_record(e, i);
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

/* ---- stores: under the file's lock, between an odd and the next even seq ---- */

/*
 * The file's lock, bounded wait: flock(), held by this open file
 * description until epochs_unlock() or its close (a starter that dies
 * releases it).  A pair costs about half what an F_OFD_SETLK pair does
 * (0.75 against 1.2 us on the development machine), which counts in a
 * start of a small segment (docs/PERFORMANCE.md section 12).
 */
int epochs_lock(const struct epochs *e, unsigned wait_ms)
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

void epochs_unlock(const struct epochs *e)
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
int epochs_writer_lock(struct statctr_view *v)
{
	struct epochs *e = v->epochs;
	struct copy_args c = {e, NULL};
	struct stat st;
	char *tmp = NULL;
	int err = epochs_lock(e, EPOCH_LOCK_WRITER_MS), fd = -1;

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

void epochs_store_begin(struct epochs *e)
{
	struct epoch_header *h = epochs_hdr(e);
	/* An odd value: a predecessor died mid-way; start from the next even. */
	uint64_t seq = (atomic_load_explicit(&h->seq, memory_order_relaxed) + 1) & ~(uint64_t)1;

	atomic_store_explicit(&h->seq, seq + 1, memory_order_relaxed);
	/* Orders the odd seq before the stores that follow: pairs with the
	 * acquire fence in stable_loop(). */
	atomic_thread_fence(memory_order_release);
}

void epochs_store_end(struct epochs *e)
{
	struct epoch_header *h = epochs_hdr(e);
	uint64_t seq = atomic_load_explicit(&h->seq, memory_order_relaxed);

	/* Pairs with the acquire load of seq in stable_loop(): the stores first. */
	atomic_store_explicit(&h->seq, seq + 1, memory_order_release);
}

/* ---- the writer: a new file ---- */

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
int epochs_create(struct statctr_view *v, const struct statctr_segment_decl *d)
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
