/*
 * epoch.c - epochs: named points in time kept as lifetime raw totals
 * (docs/epochs.md): what the epoch file holds and when.
 *
 * Owns epoch starts (a sums-only snapshot's totals become the new epoch's
 * base), the intervals between epochs, the listing and status calls, the
 * captures of a generation's final counts, and the writer's adopt (which
 * rebuilds a header whose live fields are corrupt).  It sits above
 * snapshot.c and view.c, whose snapshots and views it takes; the file
 * itself (format, mapping, lock, seq protocol) is epochfile.c's, through
 * which every load and store goes: stores hold the file's lock between
 * epochs_store_begin() and epochs_store_end(), loads run under
 * epochs_read_stable().  Never stores to a segment or a control file: an
 * epoch start changes no value and no discontinuity time that a reader
 * serves.  Never opens, maps or validates the file itself.
 */
#include "epochfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EPOCH_LOCK_START_MS 500

/* ---- readers: the kept epochs, the status, intervals ---- */

struct list_args {
	struct statctr_epoch *out;
	uint32_t max, nkept;
};

static int list_epochs(const struct epochs *e, const struct epoch_live *l, void *arg)
{
	struct list_args *a = arg;

	a->nkept = l->nkept;
	for (uint32_t k = 0; k < l->nkept && k < a->max; k++) {
		int rc = epochs_copy_record(e, (l->oldest + k) % e->keep, &a->out[k]);

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

	if (view_epochs_of(view, &e) != 0 || epochs_read_stable(e, list_epochs, &a) != 0)
		return 0;
	return a.nkept;
}

struct status_args {
	struct statctr_epoch_status *status;
	uint64_t generation; /* the view's */
};

static int read_status(const struct epochs *e, const struct epoch_live *l, void *arg)
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

	return rc ? rc : epochs_read_stable(e, read_status, &a);
}

struct delta_args {
	const struct statctr_snap *snap;
	uint64_t generation; /* the snapshot's */
	statctr_id cell;
	uint32_t from, to;
	uint64_t delta;
};

/* The lifetime total of the cell at the end of the interval; -EXDEV: another era. */
static int end_total(const struct epochs *e, const struct epoch_live *l, const struct delta_args *a,
                     uint32_t from_era, uint64_t *totalp)
{
	uint32_t i;
	int rc;

	if (a->to == 0) {
		if (l->generation != a->generation || from_era != l->era)
			return -EXDEV;
		*totalp = atomic_load_explicit(&epochs_carry(e)[a->cell], memory_order_relaxed) +
		          statctr_snap_counter_raw(a->snap, a->cell);
		return 0;
	}
	rc = epochs_find(e, l, a->to, &i);
	if (rc)
		return rc;
	if (atomic_load_explicit(&epochs_record(e, i)->era, memory_order_relaxed) != from_era)
		return -EXDEV;
	*totalp = atomic_load_explicit(&epochs_bases(e, i)[a->cell], memory_order_relaxed);
	return 0;
}

static int read_delta(const struct epochs *e, const struct epoch_live *l, void *arg)
{
	struct delta_args *a = arg;
	uint64_t end;
	uint32_t i;
	int rc = epochs_find(e, l, a->from, &i);

	if (!rc)
		rc = end_total(
		    e, l, a, atomic_load_explicit(&epochs_record(e, i)->era, memory_order_relaxed),
		    &end);
	if (!rc)
		a->delta =
		    end - atomic_load_explicit(&epochs_bases(e, i)[a->cell], memory_order_relaxed);
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
	rc = epochs_read_stable(e, read_delta, &a);
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

static void store_record(struct epochs *e, uint32_t i, const struct store_args *a, uint32_t era)
{
	struct epoch_record *r = epochs_record(e, i);
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
static int live_for_start(struct epochs *e, const struct store_args *a, struct epoch_live *l)
{
	*l = epochs_load_live(e); /* stable: we hold the lock */
	if (epochs_check_live(e, l))
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
	struct epoch_header *h = epochs_hdr(e);
	struct epoch_live l;
	int err = live_for_start(e, a, &l);

	if (err)
		return err;
	a->index = (l.oldest + l.nkept) % e->keep;
	if (l.nkept == e->keep) {
		epochs_store_begin(e);
		atomic_store_explicit(&h->oldest, (l.oldest + 1) % e->keep, memory_order_relaxed);
		atomic_store_explicit(&h->nkept, l.nkept - 1, memory_order_relaxed);
		epochs_store_end(e);
	}
	/* Orders the retirement (its even seq) before the snapshot's stores
	 * to the base: pairs with the acquire fence in stable_loop() (epochfile.c), so that
	 * a reader that saw one of them sees seq moved and retries. */
	atomic_thread_fence(memory_order_release);
	if (PLAIN_SEQ_ACCESS) {
		a->direct_base = (uint64_t *)(void *)epochs_bases(e, a->index);
		if (atomic_load_explicit(&h->carried, memory_order_relaxed))
			a->direct_add = epochs_carry(e);
	}
	return 0;
}

/* @base: the carry plus @sum, every cell's raw total (histograms' sums too). */
static void store_base(struct epochs *e, _Atomic uint64_t *base, const uint64_t *sum)
{
	const _Atomic uint64_t *carry = epochs_carry(e);

	if (atomic_load_explicit(&epochs_hdr(e)->carried, memory_order_relaxed))
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
	struct epoch_header *h = epochs_hdr(e);
	struct epoch_live l;
	uint32_t i;
	int err = live_for_start(e, a, &l);

	if (err)
		return err;
	i = (l.oldest + l.nkept) % e->keep;
	if (i != a->index || l.nkept == e->keep)
		return -EPROTO; /* stored to without the lock since store_retire() */
	a->number = l.next_number;
	epochs_store_begin(e);
	if (!a->in_base) /* else the snapshot's final pass wrote it */
		store_base(e, epochs_bases(e, i), snap_sums(a->snap));
	store_record(e, i, a, l.era);
	atomic_store_explicit(&h->nkept, l.nkept + 1, memory_order_relaxed);
	atomic_store_explicit(&h->next_number, l.next_number + 1, memory_order_relaxed);
	epochs_store_end(e);
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

/*
 * The view's epoch snapshot, sums only whatever the view's mode: all a base
 * needs (see snap_retake_sums_into() for @dest and @add).  The view frees
 * it through the function set here: view.c, below snapshot.c, never calls it.
 */
static int retake_epoch_snap(struct statctr_view *view, uint64_t *dest, const _Atomic uint64_t *add,
                             bool *in_destp)
{
	view->epoch_snap_free = statctr_snap_free;
	return snap_retake_sums_into(view, &view->epoch_snap, dest, add, in_destp);
}

static int retake_sums(struct statctr_view *view)
{
	bool in_dest;

	return retake_epoch_snap(view, NULL, NULL, &in_dest);
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
		err = epochs_lock(a.e, EPOCH_LOCK_START_MS);
	if (err)
		return err;
	a.now = realtime_ns();
	a.generation = view->meta->hdr->generation;
	err = start_outcome(guard_run(store_retire, &a, a.e->path), a.e, &a);
	if (!err)
		err = retake_epoch_snap(view, a.direct_base, a.direct_add, &a.in_base);
	if (err == -ESTALE && a.direct_base && file_shrank(a.e))
		err = errmsg_set(ESTALE, "%s changed size under its mapping", a.e->path);
	if (!err) {
		statctr_snap_stats(view->epoch_snap, &st);
		a.snap = view->epoch_snap;
		a.generation = st.generation;
		err = start_outcome(guard_run(store_start, &a, a.e->path), a.e, &a);
	}
	epochs_unlock(a.e);
	if (!err && numberp)
		*numberp = a.number;
	return err;
}

/* ---- captures ---- */

/* The generation a.generation ends: its final totals join the carry. */
static int store_capture(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct epoch_live l = epochs_load_live(e);
	_Atomic uint64_t *carry = epochs_carry(e);
	const uint64_t *sum = snap_sums(a->snap);

	if (l.generation != a->generation)
		return 0; /* captured already, or not the generation the carry precedes */
	epochs_store_begin(e);
	for (uint32_t c = 0; c < e->ncells; c++)
		atomic_store_explicit(
		    &carry[c], atomic_load_explicit(&carry[c], memory_order_relaxed) + sum[c],
		    memory_order_relaxed);
	atomic_store_explicit(&epochs_hdr(e)->generation, 0, memory_order_relaxed);
	atomic_store_explicit(&epochs_hdr(e)->carried, 1, memory_order_relaxed);
	epochs_store_end(e);
	return 0;
}

/* The final counts of @v's generation into the carry, once (the generation check). */
static int capture_view(struct statctr_view *v, bool writer)
{
	struct store_args a = {.name = ""};
	struct statctr_snap_stats st;
	int err = !v->epochs ? -ENOENT
	          : writer   ? epochs_writer_lock(v)
	                     : epochs_lock(v->epochs, EPOCH_LOCK_START_MS);

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
	epochs_unlock(a.e);
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

/* ---- the writer's adopt ---- */

/* How many records from ring index @start have valid names and rising numbers, at most @max. */
static uint32_t rising_from(const struct epochs *e, uint32_t start, uint32_t max, uint32_t *lastp)
{
	struct statctr_epoch r;
	uint32_t n = 0, prev = 0;

	while (n < max && epochs_copy_record(e, (start + n) % e->keep, &r) == 0 &&
	       r.number > prev) {
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
static void kept_run(const struct epochs *e, const struct epoch_live *l, uint32_t *startp,
                     uint32_t *np, uint32_t *lastp)
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
static void repair_live(struct store_args *a, struct epoch_live *l)
{
	struct epochs *e = a->e;
	struct epoch_header *h = epochs_hdr(e);
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
	epochs_store_begin(e);
	atomic_store_explicit(&h->oldest, start, memory_order_relaxed);
	atomic_store_explicit(&h->nkept, n, memory_order_relaxed);
	atomic_store_explicit(&h->next_number, next, memory_order_relaxed);
	epochs_store_end(e);
	l->oldest = start;
	l->nkept = n;
	l->next_number = next;
}

/* Whether @l's numbering is sane: next_number after the newest kept epoch's. */
static bool numbers_follow(const struct epochs *e, const struct epoch_live *l)
{
	uint32_t newest;

	if (l->next_number == 0)
		return false;
	if (!l->nkept)
		return true;
	newest = atomic_load_explicit(
	    &epochs_record(e, (l->oldest + l->nkept - 1) % e->keep)->number, memory_order_relaxed);
	return l->next_number > newest;
}

/* The writer of generation a->generation takes the file over. */
static int store_adopt(void *arg)
{
	struct store_args *a = arg;
	struct epochs *e = a->e;
	struct epoch_header *h = epochs_hdr(e);
	struct epoch_live l = epochs_load_live(e);

	if (epochs_check_live(e, &l) || !numbers_follow(e, &l))
		repair_live(a, &l);
	if (l.generation == a->generation)
		return 0;
	epochs_store_begin(e);
	if (l.generation != 0) {
		/* The predecessor's final counts were lost: a new era. */
		for (uint32_t c = 0; c < e->ncells; c++)
			atomic_store_explicit(&epochs_carry(e)[c], 0, memory_order_relaxed);
		atomic_store_explicit(&h->era, l.era + 1, memory_order_relaxed);
		atomic_store_explicit(&h->carried, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&h->generation, a->generation, memory_order_relaxed);
	epochs_store_end(e);
	return 0;
}

int epochs_adopt(const char *path, const struct statctr_segment_decl *d)
{
	struct store_args a = {.name = ""};
	struct statctr_view *v;
	int err = statctr_view_open_owned(path, geteuid(), &v);

	if (err)
		return err;
	if (!v->epochs || v->epochs->keep != d->epoch_keep) {
		err = epochs_create(v, d);
		if (!err)
			err = epochs_open(v);
	}
	a.generation = v->meta->hdr->generation;
	if (!err)
		err = epochs_writer_lock(v);
	if (!err) {
		a.e = v->epochs;
		err = guard_run(store_adopt, &a, a.e->path);
		epochs_unlock(a.e);
		if (a.note[0]) /* a writer's start is not refused for it: said where it is seen */
			fprintf(stderr, "statctr: %s\n", a.note);
	}
	statctr_view_close(v);
	return err;
}
