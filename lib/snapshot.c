/*
 * snapshot.c - consistent reads of every slot, summed; starvation handling.
 *
 * Per slot, in order of cost:
 *   1. sequence read (THE PROTOCOL in statctr.h): succeeds whenever the
 *      writer is idle or between transactions long enough for the copy;
 *   2. if the slot's owner is gone, its memory no longer changes: read it
 *      as final (and say so if it died inside a transaction);
 *   3. writer-assisted copy: raise the slot's request word in the control
 *      file and sleep (never spin: on few CPUs a spinning reader displaces
 *      the writer it waits for) until the writer has copied its cells at a
 *      transaction boundary; between naps retry the sequence read;
 *   4. give up after the budget: the slot is included as last read and
 *      counted in busy_slots.  If its owner is live and inside a
 *      transaction (odd sequence), the view remembers it as stuck at that
 *      sequence: later snapshots count it busy at once, without naps or
 *      copy requests, until the sequence moves.  Nothing here can wait
 *      forever, and a stopped writer costs one budget, not one per snapshot.
 * Baselines are read between two loads of reset_seq; a reset in between
 * makes the whole snapshot start again (bounded).
 *
 * Each read of a slot goes over its cells once, straight into the sums, and
 * is committed only when it turns out consistent (a torn read never reaches
 * a sum): each cell is loaded once (load_once(), load_once_pair():
 * internal.h), added to the committed sum into a second, pending sum, and
 * a read that succeeds swaps the two; a read that fails leaves the
 * committed sum as it was.  A full snapshot also stores each loaded cell
 * in the slot's row, the same register the sum took, so that rows add up
 * to sums; a failed read's row is written again by the slot's next read.
 * The first slot's read stores its cells as they are (nothing to add to),
 * into the committed sum itself: nothing is committed yet to keep.  So do
 * the group reads (below) of a full snapshot's first pass, in place: one
 * that fails once a slot was committed spoils the pass, which is read
 * again at once with pending sums (read_all(); at most once a snapshot).
 * Slots whose sequence has not moved since the view last read them whole
 * (idle writers, free and dead slots) are read several at a time under one
 * check of their sequences, which passes over the sums once per group;
 * if any of them moved, the group is read again slot by slot as above.
 * The shared slot and then the CPU slots, whose cells only ever see single
 * atomic adds, come last, in the last groups, unvalidated (a group that
 * fails reads them again alone, added in place).  The last group is the
 * final pass over the sums: a sums-only read for epoch.c may direct it to
 * a base in the epoch file instead of the pending sum, and add one more
 * array of cells there, the epoch file's carry, as one more source of that
 * group (snap_retake_sums_into()).  The baselines are copied only when
 * reset_seq moved since the snapshot's previous copy from the same
 * control-file mapping: every reset moves it.
 * Dynamic rows (segments with a row directory only; others do none of
 * this): each row's entry is read before the slots and checked after them
 * (the per-row protocol in rows.c and docs/segment-format.md).  A row that
 * changes meanwhile is absent from this snapshot; nothing else is retried,
 * so a change of one row costs readers of every other row nothing.
 *
 * This module never stores to a segment mapping; in the control file it
 * stores only the request word, the ticket counter and (to recover from a
 * writer that died holding it) the buffer lock.  Control-file offsets come
 * from the view's computed layout, never from the file; the values read
 * from it (buf_slot, buf_lock, done) are only compared, never used as an
 * index.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/*
 * Sequence reads of a slot before asking its writer for a copy.  A failed
 * read of a large slot costs the writer a miss on every line it touched,
 * and a writer busy enough to fail one read of it fails the next: retry
 * only slots of a few lines.
 */
#define SEQ_TRIES       4
#define SEQ_RETRY_CELLS 512 /* 4 KiB of cells */

static int seq_tries(uint32_t ncells)
{
	return ncells <= SEQ_RETRY_CELLS ? SEQ_TRIES : 1;
}
/*
 * Budgets for waiting on writers, in elapsed time: generous enough for a
 * writer that is preempted on an oversubscribed machine (tens of ms), small
 * enough that a stuck writer delays one snapshot by at most a second.
 */
#define SLOT_WAIT_NS  100000000ll  /* assisted-copy budget per slot */
#define TOTAL_WAIT_NS 1000000000ll /* and per snapshot */
#define RESET_TRIES   8
#define ROW_TRIES     4 /* copies of a row directory entry that changed under us */

/*
 * Slots read in one pass (read_slots()), cell after cell across the slots,
 * the sum of each cell kept in a register: 8 sources and the sums make 9
 * streams, which the hardware prefetchers follow; a full snapshot also
 * writes each slot's row, so it takes 6 (6 sources, 6 rows and the sums:
 * 4 writer slots and the shared slot in one pass, and no slower than 4 or
 * 8 at 100k and 1M cells x 16 and 64 slots, where 8 was 1.3x slower).
 */
#define GROUP_SLOTS      8
#define FULL_GROUP_SLOTS 6

struct statctr_snap {
	uint32_t nslots, ncells; /* nslots writer slots + 1 shared slot stored */
	uint32_t ncpuslots;      /* and the CPU slots after them */
	uint64_t cpu_aborts;     /* their aborts fields, summed */
	uint64_t *slot_values;   /* (nslots + 1 + ncpuslots) x ncells; NULL: sums only */
	uint64_t *sum;
	uint64_t *pending; /* the sum with the read in progress added */
	uint64_t *copy;    /* a private copy of the exchange buffer; NULL until needed */
	uint64_t *baseline;
	uint64_t *disc;
	/* Which baselines and disc hold: those of the control-file mapping
	 * numbered base_serial (view.c) at reset_seq base_reset_seq; 0: none. */
	uint64_t base_serial, base_reset_seq;
	uint64_t created_ns;
	struct statctr_snap_stats stats;
	uint32_t spoiled;  /* passes read again since the snapshot was made (tests) */
	struct meta *meta; /* a reference to the metadata the snapshot was taken against */
	/* Per row directory entry (nrowdir of them; none without dynamic tables). */
	uint32_t nrowdir;
	uint64_t *row_gen;  /* the incarnation present in the snapshot, 0: absent */
	uint64_t *added_ns; /* its add time */
	char (*row_names)[STATCTR_MAX_ROWNAME + 1];
	uint64_t *base;        /* per cell: its incarnation base (cells of present rows) */
	struct epochs *epochs; /* a reference to the view's epoch file then, or NULL */
};

/* The reader's per-snapshot working state. */
struct reader {
	struct statctr_view *view;
	struct statctr_snap *snap;
	bool sum_empty; /* no slot committed to snap->sum in this pass yet */
	/* Full snapshots: group reads add into snap->sum itself, without a
	 * pending sum to stream through; one that fails once a slot was
	 * committed leaves part of it there, spoiling the pass (read_all()). */
	bool in_place;
	bool spoiled;
	/* Sums only: where the final pass puts the sums instead of the
	 * pending sum (NULL: there), and whether it did in this pass; with
	 * final_add (or NULL), cells it adds to them there. */
	uint64_t *final_dest;
	const _Atomic uint64_t *final_add;
	bool in_final_dest;
	bool copy_locked;
	int64_t waited_ns;
	uint32_t rows_changed;
};

static void nap_us(long us)
{
	struct timespec ts = {0, us * 1000L};

	nanosleep(&ts, NULL);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const _Atomic uint64_t *slot_cells(const struct statctr_view *v, uint32_t s)
{
	return (const void *)((const uint8_t *)meta_slot(v->meta, s) + LINE);
}

static uint64_t slot_seq(const struct statctr_view *v, uint32_t s)
{
	return atomic_load_explicit(&meta_slot(v->meta, s)->seq, memory_order_relaxed);
}

static void copy_cells(uint64_t *dst, const _Atomic uint64_t *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		dst[i] = atomic_load_explicit(&src[i], memory_order_relaxed);
}

/*
 * A read of one slot, or of a group of quiet slots at once (read_slots()):
 * each slot with its source (its cells in the mapping, or the exchange
 * buffer) and, for a sequence read, the sequence it had before.
 */
struct take {
	uint32_t n;
	bool final;    /* the last group of read_slots(): the final pass over the sums */
	bool in_place; /* a group read of a full snapshot's first pass (read_all()) */
	uint32_t slot[GROUP_SLOTS];
	const _Atomic uint64_t *src[GROUP_SLOTS];
	uint64_t before[GROUP_SLOTS];
};

static uint64_t *row_of(const struct statctr_snap *snap, uint32_t s)
{
	return snap->slot_values + (uint64_t)s * snap->ncells;
}

/*
 * How a slot's cells are loaded (docs/design.md, "Plain loads of slot
 * cells"): with plain loads, which the compiler may vectorise, where an
 * aligned 8-byte load, and each 8-byte element of a vector load, is
 * single-copy atomic (x86-64, arm64), outside ThreadSanitizer; else with
 * relaxed atomic loads.  Writers may store a cell meanwhile either way: a
 * sequence-checked slot's read is kept only when its sequence check holds
 * (seq_read_all(), the seqlock readers of Linux and DPDK's rte_seqlock do
 * the same), and the shared and CPU slots' cells only ever see single
 * 8-byte atomic adds, so any load sees a whole value.  Under TSan the
 * atomic loads keep the race detector's report meaningful.
 */
static inline uint64_t cell_load(const _Atomic uint64_t *src, uint32_t j)
{
#if PLAIN_SEQ_ACCESS
	return load_once(&src[j]);
#else
	return atomic_load_explicit(&src[j], memory_order_relaxed);
#endif
}

/*
 * The cells of the slots of one read (read_slots()): @n sources, each
 * copied to its row when there are rows.
 */
struct sources {
	uint32_t n;
	const _Atomic uint64_t *src[GROUP_SLOTS];
	uint64_t *row[GROUP_SLOTS]; /* all NULL: no rows (sums only) */
};

/* The vector loop's helpers and its four variants (sum_slots()) must be
 * inlined: called, each source's row pointer and count are reloaded from
 * memory for every four cells. */
#define ALWAYS_INLINE __attribute__((always_inline))

#if PLAIN_SEQ_ACCESS
/*
 * Four cells of every source at a time, in two 16-byte vectors: what every
 * x86-64 and arm64 has without -march (a wider vector type is split and
 * spilled to the stack; gcc's -O2 does not vectorise the scalar loop).  The
 * sum of the four cells over the sources stays in registers and is stored
 * once.  A full read loads cells with load_once_pair() (an asm load, 8-byte
 * aligned, in the segment): the row and the sum must take one load.  A sums-only read
 * gives each loaded vector one use, the sum, so a plain load (memcpy())
 * cannot make two uses disagree, and lets the compiler schedule the loads:
 * the volatile form cost 3-19% there at cache-resident sizes (PERFORMANCE.md
 * §2); tests/style/once_loads.sh checks the compiled loops.  memcpy() for
 * the sums and rows: no alignment assumed.
 */

/* Cells [@j, @j + 4) of @src into @x0, @x1 (added), and to @row when @rows. */
static inline ALWAYS_INLINE void load_vectors(const uint64_t *src, uint64_t *row, bool rows,
                                              uint32_t j, cells2 *x0, cells2 *x1)
{
	cells2 y0, y1;

	if (rows) { /* one load each: the row and the sum take the same registers */
		y0 = load_once_pair(src + j);
		y1 = load_once_pair(src + j + 2);
	} else { /* one use each: nothing to pin (see above) */
		memcpy(&y0, src + j, sizeof(y0));
		memcpy(&y1, src + j + 2, sizeof(y1));
	}
	if (rows) {
		memcpy(row + j, &y0, sizeof(y0));
		memcpy(row + j + 2, &y1, sizeof(y1));
	}
	*x0 += y0;
	*x1 += y1;
}

/*
 * The vector loop for @nsrc sources (a constant: sum_groups()): their
 * pointers in locals, which the row stores cannot alias, so that they stay
 * in registers.
 */
static inline ALWAYS_INLINE uint32_t sum_vectors(uint64_t *out, const uint64_t *in,
                                                 const struct sources *restrict from, uint32_t n,
                                                 bool rows, uint32_t nsrc)
{
	const uint64_t *src[GROUP_SLOTS];
	uint64_t *row[GROUP_SLOTS];
	cells2 x0, x1, z0, z1;
	uint32_t j, k;

	for (k = 0; k < nsrc; k++) {
		src[k] = (const uint64_t *)(const void *)from->src[k];
		row[k] = rows ? from->row[k] : NULL;
	}
	for (j = 0; j + 4 <= n; j += 4) {
		x0 = (cells2){0, 0};
		x1 = x0;
		if (in) {
			memcpy(&x0, in + j, sizeof(x0));
			memcpy(&x1, in + j + 2, sizeof(x1));
		}
		/* Two sources at a time: two independent chains of adds. */
		for (k = 0; k + 2 <= nsrc; k += 2) {
			z0 = (cells2){0, 0};
			z1 = z0;
			load_vectors(src[k], row[k], rows, j, &x0, &x1);
			load_vectors(src[k + 1], row[k + 1], rows, j, &z0, &z1);
			x0 += z0;
			x1 += z1;
		}
		if (k < nsrc)
			load_vectors(src[k], row[k], rows, j, &x0, &x1);
		memcpy(out + j, &x0, sizeof(x0));
		memcpy(out + j + 2, &x1, sizeof(x1));
	}
	return j;
}

/* sum_vectors(), with a loop of its own for each group size. */
static inline ALWAYS_INLINE uint32_t sum_groups(uint64_t *out, const uint64_t *in,
                                                const struct sources *restrict from, uint32_t n,
                                                bool rows)
{
	_Static_assert(GROUP_SLOTS == 8 && FULL_GROUP_SLOTS <= GROUP_SLOTS, "one case per size");
#define SUM_CASE(k)                                                                                \
	case k:                                                                                    \
		return sum_vectors(out, in, from, n, rows, k)
	switch (from->n) {
		SUM_CASE(1);
		SUM_CASE(2);
		SUM_CASE(3);
		SUM_CASE(4);
		SUM_CASE(5);
		SUM_CASE(6);
		SUM_CASE(7);
	default:
		return sum_vectors(out, in, from, n, rows, GROUP_SLOTS);
	}
#undef SUM_CASE
}
#endif

/*
 * @n cells of every source of @from, summed, each sum added to @in's (none
 * without @in) into @out (which may be @in); each cell copied to its row
 * when @rows.  A writer may store them meanwhile; the caller's sequence
 * check says whether they were whole (cell_load()).  Each cell is loaded
 * once, into a register, which both the row and the sum take: enforced by
 * load_once() and load_once_pair(), not left to the compiler.
 */
static inline ALWAYS_INLINE void sum_cells(uint64_t *out, const uint64_t *in,
                                           const struct sources *restrict from, uint32_t n,
                                           bool rows)
{
	uint32_t j = 0, k;
	uint64_t x, y;

#if PLAIN_SEQ_ACCESS
	j = sum_groups(out, in, from, n, rows);
#endif
	for (; j < n; j++) {
		x = in ? in[j] : 0;
		for (k = 0; k < from->n; k++) {
			y = cell_load(from->src[k], j);
			if (rows)
				from->row[k][j] = y;
			x += y;
		}
		out[j] = x;
	}
}

/* sum_cells(), with a loop of its own for each case. */
static void sum_slots(uint64_t *out, const uint64_t *in, const struct sources *from, uint32_t n)
{
	bool rows = from->row[0] != NULL;

	if (rows && in)
		sum_cells(out, in, from, n, true);
	else if (rows)
		sum_cells(out, NULL, from, n, true);
	else if (in)
		sum_cells(out, in, from, n, false);
	else
		sum_cells(out, NULL, from, n, false);
}

/*
 * Where a read's sum goes: the pending sum, or the committed sum itself
 * for a pass's first read (there is none yet to keep: sum_empty, and a
 * failed read leaves sum_empty set, so nothing reads what it wrote there)
 * and for an in-place group read (a failed one spoils the pass).  One sum
 * array less to stream through the caches than a swap.
 */
static uint64_t *read_dest(const struct reader *rd, const struct take *t)
{
	return rd->sum_empty || t->in_place ? rd->snap->sum : rd->snap->pending;
}

/*
 * Reads every slot of @t into the snapshot, uncommitted (see the top):
 * their cells summed over the slots, added to the sum (none before the
 * first slot kept) into the pending sum (or, sums only, the final
 * destination for the final group).
 */
static void take_cells(struct reader *rd, const struct take *t)
{
	struct statctr_snap *snap = rd->snap;
	struct sources from = {.n = t->n};
	uint64_t *dest = read_dest(rd, t);
	uint32_t k;

	for (k = 0; k < t->n; k++) {
		from.src[k] = t->src[k];
		from.row[k] = snap->slot_values ? row_of(snap, t->slot[k]) : NULL;
	}
	if (t->final && rd->final_dest) {
		dest = rd->final_dest;
		if (rd->final_add) /* read_slots() left it room */
			from.src[from.n++] = rd->final_add;
	}
	sum_slots(dest, rd->sum_empty ? NULL : snap->sum, &from, snap->ncells);
}

/*
 * Ends the read take_cells() began: committed when @whole (the pending sum
 * becomes the sum), else dropped, the committed sum untouched (a full
 * snapshot's rows then hold what was read; they are written again before
 * the snapshot is complete), or, for an in-place read after a commit,
 * spoiled: the pass is read again (read_all()).  Returns @whole.
 */
static bool settle(struct reader *rd, const struct take *t, bool whole)
{
	struct statctr_snap *snap = rd->snap;
	uint64_t *tmp;

	/* A read to the final destination leaves snap->sum without it; a
	 * pass's first read went to snap->sum itself (read_dest()). */
	if (whole && t->final && rd->final_dest) {
		rd->in_final_dest = true;
	} else if (whole && !rd->sum_empty && !t->in_place) {
		tmp = snap->sum;
		snap->sum = snap->pending;
		snap->pending = tmp;
	} else if (!whole && !rd->sum_empty && t->in_place) {
		rd->spoiled = true;
	}
	rd->sum_empty = rd->sum_empty && !whole;
	return whole;
}

static struct take take_one(uint32_t s, const _Atomic uint64_t *src)
{
	struct take t = {.n = 1, .slot = {s}, .src = {src}};

	return t;
}

/* A read that is final whatever it saw (the slot's owner is gone, or the
 * budget is spent): taken and kept. */
static void keep_cells(struct reader *rd, uint32_t s, const _Atomic uint64_t *src)
{
	struct take t = take_one(s, src);

	take_cells(rd, &t);
	settle(rd, &t, true);
}

/* A writer slot (sequence-checked), not the shared slot or a CPU slot. */
static bool has_seq(const struct reader *rd, uint32_t s)
{
	return s < rd->snap->nslots;
}

/*
 * One sequence read of every slot of @t (their cells were set by the
 * caller); true, and kept, when none of its writer slots saw a transaction
 * (the shared and CPU slots in it have no sequence: any read of theirs is
 * whole).  A writer slot whose read succeeds remembers the sequence it was
 * read at (read_slots()).
 */
static bool seq_read_all(struct reader *rd, struct take *t)
{
	uint32_t k;
	bool whole = true;

	for (k = 0; k < t->n; k++) {
		if (!has_seq(rd, t->slot[k]))
			continue;
		/* Pairs with the release store of seq in statctr_txn_end() (and
		 * in close_torn_transaction(), slot.c). */
		t->before[k] = atomic_load_explicit(&meta_slot(rd->view->meta, t->slot[k])->seq,
		                                    memory_order_acquire);
		if (t->before[k] & 1)
			return false;
	}
	take_cells(rd, t);
	/* Pairs with the release fence in statctr_txn_begin(): if a cell load
	 * above saw a store of a transaction, the re-load below sees at least
	 * its odd sequence. */
	atomic_thread_fence(memory_order_acquire);
	for (k = 0; k < t->n; k++)
		whole = whole && (!has_seq(rd, t->slot[k]) ||
		                  slot_seq(rd->view, t->slot[k]) == t->before[k]);
	for (k = 0; whole && k < t->n; k++)
		if (has_seq(rd, t->slot[k]))
			rd->view->read_seq[t->slot[k]] = t->before[k];
	return settle(rd, t, whole);
}

/* One sequence read of slot s; true (and kept) when it saw no transaction. */
static bool seq_read(struct reader *rd, uint32_t s)
{
	struct take t = take_one(s, slot_cells(rd->view, s));

	return seq_read_all(rd, &t);
}

/* Address of @off in the control file; @off comes from v->ctl_layout. */
static _Atomic uint64_t *ctl_at(const struct statctr_view *v, uint64_t off)
{
	return (_Atomic uint64_t *)((uint8_t *)v->ctl + off);
}

static struct ctl_request *request_of(struct statctr_view *v, uint32_t s)
{
	return (struct ctl_request *)ctl_at(v, v->ctl_layout.reqs_off) + s;
}

/*
 * Takes the exchange buffer if slot @s's writer copied it for our @ticket
 * and it still holds that copy.  The buffer and the words around it are in
 * the control file, which anyone who may reset can rewrite; the copy is
 * trusted only through the writer's record in its slot header (segment
 * memory only the writer may write): copy_ticket names our ticket, and our
 * private copy of the buffer, read once, has the writer's copy_check.  The
 * sums then take the private copy, never the buffer again.
 */
static bool take_buffer(struct reader *rd, uint32_t s, uint64_t ticket)
{
	const struct statctr_view *v = rd->view;
	const struct statctr_slot *slot = meta_slot(v->meta, s);
	struct ctl_header *c = v->ctl;
	const _Atomic uint64_t *buf = ctl_at(v, v->ctl_layout.buf_off);
	uint32_t n = rd->snap->ncells;
	uint64_t before, check;
	struct take t;

	/* Pairs with the release store of copy_ticket in copy_to_buffer()
	 * (slot.c): the check stored before it comes with it. */
	if (atomic_load_explicit(&slot->copy_ticket, memory_order_acquire) != ticket)
		return false;
	check = atomic_load_explicit(&slot->copy_check, memory_order_relaxed);
	/* Pairs with the release store of the even buf_seq in copy_to_buffer(). */
	before = atomic_load_explicit(&c->buf_seq, memory_order_acquire);
	if ((before & 1) || atomic_load_explicit(&c->buf_slot, memory_order_relaxed) != s ||
	    atomic_load_explicit(&c->buf_ticket, memory_order_relaxed) != ticket)
		return false;
	if (!rd->snap->copy && !(rd->snap->copy = malloc(n * sizeof(uint64_t))))
		return false;
	copy_cells(rd->snap->copy, buf, n);
	/* Pairs with the release fence after the odd buf_seq in copy_to_buffer(). */
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&c->buf_seq, memory_order_relaxed) != before ||
	    copy_check_of(rd->snap->copy, n) != check)
		return false;
	t = take_one(s, (const _Atomic uint64_t *)(const void *)rd->snap->copy);
	take_cells(rd, &t);
	return settle(rd, &t, true);
}

/*
 * A writer that died while holding the buffer lock would block all copies.
 * The lock word names the holder's claim of its slot (copy_lock_word()): if
 * that slot is no longer live, or was claimed again since, the holder is
 * gone, and the CAS from that very word cannot clear a later holder's lock.
 * A word that names no slot is no writer's: cleared too.
 */
static void clear_dead_buffer_lock(struct reader *rd)
{
	struct ctl_header *c = rd->view->ctl;
	uint64_t holder = atomic_load_explicit(&c->buf_lock, memory_order_relaxed);
	uint32_t index = (uint32_t)holder - 1, nslots = rd->view->meta->hdr->nslots;
	bool gone = true;

	if (holder == 0)
		return;
	if (index < nslots)
		gone = statctr_view_slot_state(rd->view, index) != STATCTR_SLOT_LIVE ||
		       copy_lock_word(index, atomic_load_explicit(
		                                 &meta_slot(rd->view->meta, index)->acquisitions,
		                                 memory_order_relaxed)) != holder;
	if (gone)
		atomic_compare_exchange_strong_explicit(&c->buf_lock, &holder, 0,
		                                        memory_order_relaxed, memory_order_relaxed);
}

/* A fresh ticket in slot @s's request word (tickets start at 1). */
static uint64_t request_copy(struct statctr_view *v, uint32_t s)
{
	uint64_t ticket = atomic_fetch_add_explicit(&v->ctl->ticket, 1, memory_order_relaxed) + 1;

	/* Relaxed: the writer only compares the ticket with the last it served
	 * (statctr_slot_serve_copy() loads it relaxed) and reads nothing else
	 * this reader stored; the answer comes back through done, buf_seq and
	 * copy_ticket, which are ordered. */
	atomic_store_explicit(&request_of(v, s)->req, ticket ? ticket : 1, memory_order_relaxed);
	return ticket ? ticket : 1;
}

/*
 * While the writer works on our request, a sequence read would only pull
 * every line of its slot away from it (and fail): between naps, re-read the
 * slot only when its sequence stood still since the last nap (an idle
 * writer, which serves no request, or one that just finished).  Watching
 * the sequence costs one line per nap.  A request that was served but
 * whose copy is no longer in the buffer (another slot's writer served a
 * late request there meanwhile, or someone rewrote it) is raised again
 * with a new ticket.  When the wait ends, by any way, the request is
 * withdrawn, so that its writer never serves it late into the one buffer.
 */
static bool assisted_read(struct reader *rd, uint32_t s)
{
	struct statctr_view *v = rd->view;
	struct ctl_request *rq = request_of(v, s);
	uint64_t ticket = request_copy(v, s);
	uint64_t last_seq = slot_seq(v, s), seq;
	int64_t start = monotonic_ns(), waited = 0;
	long nap = 20;
	bool copied = false, by_copy = false, served;

	while (!copied && waited < SLOT_WAIT_NS && rd->waited_ns + waited < TOTAL_WAIT_NS) {
		nap_us(nap);
		nap = nap < 1000 ? nap * 2 : 1000;
		seq = slot_seq(v, s);
		/* Pairs with the release store of done in copy_to_buffer() (slot.c). */
		served = atomic_load_explicit(&rq->done, memory_order_acquire) == ticket;
		by_copy = served && take_buffer(rd, s, ticket);
		copied = by_copy || (seq == last_seq && !(seq & 1) && seq_read(rd, s));
		if (served && !copied)
			ticket = request_copy(v, s);
		last_seq = seq;
		rd->snap->stats.retries += !copied;
		waited = monotonic_ns() - start;
	}
	atomic_compare_exchange_strong_explicit(&rq->req, &ticket, 0, memory_order_relaxed,
	                                        memory_order_relaxed);
	rd->waited_ns += waited;
	v->copy_first[s] = by_copy;
	if (!copied)
		clear_dead_buffer_lock(rd);
	return copied;
}

static bool can_assist(struct reader *rd)
{
	if (rd->copy_locked)
		return true;
	if (!rd->view->ctl_writable || rd->waited_ns >= TOTAL_WAIT_NS)
		return false;
	rd->copy_locked = view_ctl_lock(rd->view, CTL_LOCK_COPY, 100) == 0;
	return rd->copy_locked;
}

/*
 * A live owner inside the same transaction as when its budget ran out?  A
 * mark left from an earlier transaction never matches again: the sequence
 * only grows.
 */
static bool still_stuck(const struct statctr_view *v, uint32_t s)
{
	return v->stuck_seq[s] != 0 && slot_seq(v, s) == v->stuck_seq[s];
}

static void read_busy(struct reader *rd, uint32_t s)
{
	keep_cells(rd, s, slot_cells(rd->view, s));
	rd->snap->stats.busy_slots++;
}

/* Waits for the writer's copy; a slot whose budget ran out inside a
 * transaction is remembered as stuck. */
static bool assist(struct reader *rd, uint32_t s)
{
	uint64_t seq;

	if (!can_assist(rd))
		return false;
	if (assisted_read(rd, s)) {
		rd->snap->stats.assisted_slots++;
		return true;
	}
	seq = slot_seq(rd->view, s);
	rd->view->stuck_seq[s] = (seq & 1) ? seq : 0;
	return false;
}

/*
 * A writer slot that moved since this view last read it whole: sequence
 * reads, then the writer's copy.  A large slot whose last read came from a
 * copy skips its one sequence read: its writer is busy, so the read would
 * fail again and cost the writer a miss on every line of the slot, once per
 * snapshot (assisted_read() still reads it directly once the writer stands
 * still).
 */
static void read_slot(struct reader *rd, uint32_t s)
{
	struct statctr_snap *snap = rd->snap;
	int i, tries = seq_tries(snap->ncells);

	if (tries == 1 && rd->view->copy_first[s] && can_assist(rd))
		tries = 0;
	for (i = 0; i < tries; i++) {
		if (seq_read(rd, s)) {
			rd->view->copy_first[s] = false;
			return;
		}
		snap->stats.retries++;
	}
	if (statctr_view_slot_state(rd->view, s) != STATCTR_SLOT_LIVE) {
		/* Final: nobody will ever finish or add to this slot. */
		keep_cells(rd, s, slot_cells(rd->view, s));
		if (slot_seq(rd->view, s) & 1)
			snap->stats.dead_torn_slots++;
		return;
	}
	if (still_stuck(rd->view, s) || !assist(rd, s))
		read_busy(rd, s);
}

/*
 * The baselines and discontinuity times as of reset_seq @seq (even; the
 * caller checks that it held throughout).  Every reset moves reset_seq
 * (reset.c), so a snapshot that holds them for this mapping at this very
 * @seq already holds them: only a snapshot after a reset copies them.
 */
static void read_baselines(const struct statctr_view *v, struct statctr_snap *snap, uint64_t seq)
{
	const struct ctl_header *c = v->ctl;

	if (!c) {
		memset(snap->baseline, 0, snap->ncells * sizeof(uint64_t));
		memset(snap->disc, 0, snap->ncells * sizeof(uint64_t));
		return;
	}
	if (snap->base_serial == v->ctl_serial && snap->base_reset_seq == seq)
		return;
	copy_cells(snap->baseline, ctl_at(v, v->ctl_layout.baselines_off), snap->ncells);
	copy_cells(snap->disc, ctl_at(v, v->ctl_layout.disc_off), snap->ncells);
	snap->base_serial = v->ctl_serial;
	snap->base_reset_seq = seq;
}

static uint64_t reset_seq(const struct statctr_view *v, memory_order order)
{
	return v->ctl ? atomic_load_explicit(&v->ctl->reset_seq, order) : 0;
}

static uint32_t group_slots(const struct statctr_snap *snap)
{
	return snap->slot_values ? FULL_GROUP_SLOTS : GROUP_SLOTS;
}

/*
 * Slot @s, the shared slot or a CPU slot, whose every cell update is a
 * single atomic add (no sequence to check): kept as read, added to the sum
 * in place.
 */
static void keep_atomic(struct reader *rd, uint32_t s)
{
	struct statctr_snap *snap = rd->snap;
	const _Atomic uint64_t *src = slot_cells(rd->view, s);
	struct sources from = {.n = 1, .src = {src}};

	if (snap->slot_values || rd->sum_empty)
		keep_cells(rd, s, src);
	else
		sum_slots(snap->sum, snap->sum, &from, snap->ncells);
}

/* A group in one sequence read; if it fails, one by one (unless it spoiled
 * the pass: read_all() reads it again). */
static void read_group(struct reader *rd, struct take *t)
{
	uint32_t k;

	t->in_place = rd->in_place;
	if (t->n == 0 || seq_read_all(rd, t))
		return;
	rd->snap->stats.retries++;
	if (rd->spoiled)
		return;
	for (k = 0; k < t->n; k++) {
		if (has_seq(rd, t->slot[k]))
			read_slot(rd, t->slot[k]);
		else
			keep_atomic(rd, t->slot[k]);
	}
}

/*
 * Every slot.  Writer slots whose sequence moved since this view last read
 * them whole are read one by one, with all of read_slot()'s fallbacks.  The
 * others (idle writers, free and dead slots), then the shared slot and the
 * CPU slots (docs/segment-format.md, "CPU slots": their cells only ever see
 * single atomic adds, so any read of them is whole: no sequence, never busy,
 * never dead) are read group_slots() at a time, which passes over the sums
 * once per group instead of once per slot.  The shared slot comes after
 * every writer slot, so the last group, the final pass over the sums, is
 * never empty.  With a final addend (rd->final_add), groups take one slot
 * fewer, so that the last one has room for it.
 */
static void read_slots(struct reader *rd)
{
	struct statctr_view *v = rd->view;
	struct statctr_snap *snap = rd->snap;
	struct take t = {.n = 0};
	uint32_t s, nall = snap->nslots + 1 + snap->ncpuslots;
	uint32_t per_group = group_slots(snap) - (rd->final_add != NULL);

	for (s = 0; s < nall; s++) {
		if (has_seq(rd, s) && slot_seq(v, s) != v->read_seq[s]) {
			read_slot(rd, s);
			continue;
		}
		if (t.n == per_group) {
			read_group(rd, &t);
			if (rd->spoiled)
				return;
			t.n = 0;
		}
		t.slot[t.n] = s;
		t.src[t.n++] = slot_cells(v, s);
	}
	t.final = true;
	read_group(rd, &t);
}

/* The CPU slots' aborts fields, summed (statctr_snap_cpu_slots()). */
static void read_cpu_aborts(struct reader *rd)
{
	struct statctr_snap *snap = rd->snap;
	uint32_t k, s;

	snap->cpu_aborts = 0;
	for (k = 0; k < snap->ncpuslots; k++) {
		s = snap->nslots + 1 + k;
		snap->cpu_aborts += atomic_load_explicit(
		    &((const struct cpu_slot_header *)(const void *)meta_slot(rd->view->meta, s))
		         ->aborts,
		    memory_order_relaxed);
	}
}

/* A spoiled pass's counts, but its failed reads (retries). */
static void forget_pass(struct statctr_snap_stats *stats)
{
	stats->assisted_slots = 0;
	stats->busy_slots = 0;
	stats->dead_torn_slots = 0;
}

/* One pass over all slots and the baselines; false if a reset interfered. */
static bool read_all(struct reader *rd)
{
	struct statctr_snap *snap = rd->snap;
	uint64_t before, after;

	/* Pairs with the release store of the even reset_seq in
	 * store_baselines() (reset.c). */
	before = reset_seq(rd->view, memory_order_acquire);
	rd->sum_empty = true;
	rd->in_final_dest = false;
	read_slots(rd);
	if (rd->spoiled) { /* once per snapshot: in place no more */
		snap->spoiled++;
		rd->in_place = false;
		rd->spoiled = false;
		rd->sum_empty = true;
		forget_pass(&snap->stats);
		read_slots(rd);
	}
	read_cpu_aborts(rd);
	read_baselines(rd->view, snap, before);
	/* Pairs with the release fence after the odd reset_seq in
	 * store_baselines() (reset.c). */
	atomic_thread_fence(memory_order_acquire);
	after = reset_seq(rd->view, memory_order_relaxed);
	if (!(before & 1) && before == after)
		return true;
	snap->base_serial = 0; /* torn, or mid-reset: copy them again */
	return false;
}

static void snap_release_buffers(struct statctr_snap *snap)
{
	free(snap->slot_values);
	free(snap->sum);
	free(snap->pending);
	free(snap->copy);
	free(snap->baseline);
	free(snap->disc);
	free(snap->row_gen);
	free(snap->added_ns);
	free(snap->row_names);
	free(snap->base);
	snap->slot_values = NULL;
	snap->base_serial = 0;
	snap->sum = NULL;
	snap->pending = NULL;
	snap->copy = NULL;
	snap->row_gen = NULL;
	snap->added_ns = NULL;
	snap->row_names = NULL;
	snap->base = NULL;
}

static bool rowdir_buffers(struct statctr_snap *snap)
{
	if (snap->nrowdir == 0)
		return true;
	snap->row_gen = malloc(snap->nrowdir * sizeof(uint64_t));
	snap->added_ns = malloc(snap->nrowdir * sizeof(uint64_t));
	snap->row_names = malloc(snap->nrowdir * sizeof(*snap->row_names));
	snap->base = malloc(snap->ncells * sizeof(uint64_t));
	return snap->row_gen && snap->added_ns && snap->row_names && snap->base;
}

/*
 * Gives @snap buffers for @v's shape, and a reference to @v's metadata.
 * Buffers of the same shape are kept: their pages are already faulted in,
 * which is most of a large snapshot's cost.
 */
static int snap_shape(struct statctr_snap *snap, const struct statctr_view *v)
{
	uint32_t nslots = v->meta->hdr->nslots, ncells = v->meta->hdr->ncells;
	uint32_t nrowdir = v->meta->hdr->nrowdir, ncpuslots = v->meta->hdr->ncpuslots;
	size_t n = ncells;

	if (snap->meta != v->meta) {
		meta_unref(snap->meta);
		snap->meta = meta_ref(v->meta);
	}
	if (snap->sum && snap->nslots == nslots && snap->ncells == ncells &&
	    snap->nrowdir == nrowdir && snap->ncpuslots == ncpuslots &&
	    !snap->slot_values == v->sums_only)
		return 0;
	snap_release_buffers(snap);
	snap->nslots = nslots;
	snap->ncpuslots = ncpuslots;
	snap->ncells = ncells;
	snap->nrowdir = nrowdir;
	/* A full snapshot's pending sum comes last, after the arrays its loop
	 * streams through: placed before the sum, it moved the sum's offset
	 * within a page, which cost full reads 4% at 10,000 cells x 1-2 slots
	 * (PERFORMANCE.md §2). */
	if (v->sums_only)
		snap->pending = malloc(n * sizeof(uint64_t));
	else
		snap->slot_values = malloc((nslots + 1ull + ncpuslots) * n * sizeof(uint64_t));
	snap->sum = malloc(n * sizeof(uint64_t));
	snap->baseline = malloc(n * sizeof(uint64_t));
	snap->disc = malloc(n * sizeof(uint64_t));
	if (!v->sums_only)
		snap->pending = malloc(n * sizeof(uint64_t));
	if ((snap->slot_values || v->sums_only) && snap->pending && snap->sum && snap->baseline &&
	    snap->disc && rowdir_buffers(snap))
		return 0;
	return errmsg_set(ENOMEM, "out of memory for a snapshot of %s", v->path);
}

/*
 * Whether both files still have the sizes the view mapped.  Shrunk, a file
 * faults (SIGBUS) where it is read past its end, which the guard turns into
 * -ESTALE; grown, or shrunk within its last page, it reads zeros there, and
 * only fstat() says so.  Two fstat() calls are most of a small snapshot's
 * cost, so they run at most once per tick of CLOCK_MONOTONIC_COARSE (1 to 4
 * ms, a vDSO read, no system call), and again at every snapshot after a
 * check failed.  Between checks the guard still catches every read past an
 * end.  Only a party that may write a file can change its size, and it can
 * write any count into it anyway: the check is for saying so, not for trust.
 */
static int check_sizes(struct statctr_view *v)
{
	struct timespec ts;
	struct stat st;
	uint64_t tick;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	tick = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (tick == v->sizes_checked_tick)
		return 0;
	if (fstat(v->fd, &st) != 0 || (uint64_t)st.st_size != v->size)
		return errmsg_set(ESTALE, "%s changed size under its mapping", v->path);
	if (v->ctl && (fstat(v->ctl_fd, &st) != 0 || (uint64_t)st.st_size != v->ctl_size))
		return errmsg_set(ESTALE, "%s changed size under its mapping", v->ctl_path);
	v->sizes_checked_tick = tick;
	return 0;
}

/* The incarnation bases of row @first's cells and of its histograms' blocks
 * (a histogram's own cell, its descriptor, gets one it never serves). */
static void copy_row_bases(struct statctr_snap *snap, const struct meta *m, statctr_id first,
                           uint32_t ncolumns)
{
	const _Atomic uint64_t *bases = meta_bases(m);
	uint32_t c, block;

	copy_cells(snap->base + first, bases + first, ncolumns);
	for (c = 0; m->hist && c < ncolumns; c++) {
		const struct seg_column *col = meta_hist_of(m, first + c, &block);

		if (col)
			copy_cells(snap->base + block, bases + block,
			           hist_block_cells(col->nbuckets));
	}
}

/*
 * Copies row @r of dynamic table @tb (entry @e) into the snapshot: its
 * incarnation if present and unchanged across the copy, else 0.
 */
static uint64_t read_entry(struct reader *rd, const struct seg_table *tb, uint32_t r, uint32_t e)
{
	const struct meta *m = rd->view->meta;
	struct statctr_snap *snap = rd->snap;
	const struct seg_rowdir *entry = meta_rowdir(m, e);
	statctr_id first = tb->first_cell + r * tb->ncolumns;
	uint64_t gen, word;
	uint32_t i;
	int tries;

	for (tries = 0; tries < ROW_TRIES; tries++) {
		/* Pairs with the release store of the odd gen in publish() (rows.c). */
		gen = atomic_load_explicit(&entry->gen, memory_order_acquire);
		if (!(gen & 1))
			return 0;
		snap->added_ns[e] = atomic_load_explicit(&entry->added_ns, memory_order_relaxed);
		for (i = 0; i < ROWNAME_WORDS; i++) {
			word = atomic_load_explicit(&entry->name[i], memory_order_relaxed);
			memcpy(snap->row_names[e] + 8 * i, &word, 8);
		}
		copy_row_bases(snap, m, first, tb->ncolumns);
		/* Pairs with the release fence in publish() (rows.c): a copy that
		 * saw a store of a later add sees gen moved on below. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&entry->gen, memory_order_relaxed) == gen)
			return gen;
	}
	rd->rows_changed++;
	return 0;
}

/* Before the slots: every dynamic row's entry (no work for static tables). */
static void read_rowdir(struct reader *rd)
{
	const struct meta *m = rd->view->meta;
	uint32_t t, r;

	for (t = 0; t < m->hdr->ntables; t++) {
		const struct seg_table *tb = &m->tables[t];

		for (r = 0; (tb->flags & TABLE_DYNAMIC) && r < tb->nrows; r++)
			rd->snap->row_gen[tb->first_rowdir + r] =
			    read_entry(rd, tb, r, tb->first_rowdir + r);
	}
}

/*
 * After the slots: a row is present only if its gen did not move while
 * they were read, and only with a valid name (checked in our copy).
 */
static void check_rowdir(struct reader *rd)
{
	const struct meta *m = rd->view->meta;
	struct statctr_snap *snap = rd->snap;
	uint32_t e;

	/* Pairs with the release fence in statctr_txn_begin() (statctr.h):
	 * counts of a transaction on a re-added row, seen in the slots, come
	 * with the gen the re-add stored before them. */
	atomic_thread_fence(memory_order_acquire);
	snap->stats.rows_changed = rd->rows_changed;
	for (e = 0; e < snap->nrowdir; e++) {
		if (snap->row_gen[e] == 0)
			continue;
		if (atomic_load_explicit(&meta_rowdir(m, e)->gen, memory_order_relaxed) !=
		    snap->row_gen[e]) {
			snap->row_gen[e] = 0;
			snap->stats.rows_changed++;
		} else if (!row_name_ok(snap->row_names[e], sizeof(snap->row_names[e]))) {
			snap->row_gen[e] = 0;
			snap->stats.rows_corrupt++;
		} else {
			snap->stats.rows_present++;
		}
	}
}

/* The guarded part of a snapshot: every read of the live mappings. */
static int read_consistently(void *arg)
{
	struct reader *rd = arg;
	uint32_t state =
	    atomic_load_explicit(&meta_live_header(rd->view->meta)->state, memory_order_relaxed);
	int tries;

	if (!meta_state_ok(state))
		return errmsg_set(EPROTO, "%s: state %u, expected 1 (active) or 2 (closed)",
		                  rd->view->path, state);
	if (rd->snap->nrowdir > 0)
		read_rowdir(rd);
	for (tries = 0; tries < RESET_TRIES; tries++) {
		memset(&rd->snap->stats, 0, sizeof(rd->snap->stats));
		if (read_all(rd))
			break;
		nap_us(100);
	}
	if (rd->snap->nrowdir > 0)
		check_rowdir(rd);
	return 0;
}

/* Fills @snap, already shaped for @view; @final_dest, @final_add: see
 * snap_retake_sums_into(). */
static int snap_fill(struct statctr_view *view, struct statctr_snap *snap, uint64_t *final_dest,
                     const _Atomic uint64_t *final_add, bool *in_final_destp)
{
	struct reader *rd = calloc(1, sizeof(*rd)); /* must survive a SIGBUS longjmp */
	int err;

	if (!rd)
		return errmsg_set(ENOMEM, "out of memory for a snapshot of %s", view->path);
	rd->view = view;
	rd->snap = snap;
	rd->final_dest = snap->slot_values ? NULL : final_dest;
	rd->final_add = rd->final_dest ? final_add : NULL;
	rd->in_place = snap->slot_values != NULL;
	err = guard_run(read_consistently, rd, view->path);
	if (rd->copy_locked || (err && view->ctl_writable))
		view_ctl_unlock(view, CTL_LOCK_COPY);
	*in_final_destp = !err && rd->in_final_dest;
	free(rd);
	if (err)
		return err;
	snap->created_ns = view->meta->hdr->created_ns;
	snap->stats.flags = snap->slot_values ? 0 : STATCTR_SNAP_SUMS_ONLY;
	snap->stats.generation = view->meta->hdr->generation;
	epochs_unref(snap->epochs);
	snap->epochs = epochs_ref(view->epochs);
	snap->stats.taken_ns = realtime_ns();
	snap->stats.nslots = snap->nslots;
	snap->stats.ncells = snap->ncells;
	return 0;
}

static int retake(struct statctr_view *view, struct statctr_snap **snapp, uint64_t *final_dest,
                  const _Atomic uint64_t *final_add, bool *in_final_destp)
{
	struct statctr_snap *snap = *snapp;
	int err = check_sizes(view);

	if (!err && !snap && !(snap = calloc(1, sizeof(*snap))))
		err = errmsg_set(ENOMEM, "out of memory for a snapshot of %s", view->path);
	if (!err)
		err = snap_shape(snap, view);
	if (!err)
		err = snap_fill(view, snap, final_dest, final_add, in_final_destp);
	if (err) {
		/* Nothing is left that could pass for this snapshot's values. */
		statctr_snap_free(snap);
		snap = NULL;
	}
	*snapp = snap;
	return err;
}

int statctr_snap_retake(struct statctr_view *view, struct statctr_snap **snapp)
{
	bool in_final_dest;

	return retake(view, snapp, NULL, NULL, &in_final_dest);
}

int snap_retake_sums_into(struct statctr_view *view, struct statctr_snap **snapp, uint64_t *dest,
                          const _Atomic uint64_t *add, bool *in_destp)
{
	bool mode = view->sums_only;
	int err;

	view->sums_only = true;
	err = retake(view, snapp, dest, add, in_destp);
	view->sums_only = mode;
	return err;
}

int statctr_view_set_sums_only(struct statctr_view *view, int on)
{
	if (!view || (on != 0 && on != 1))
		return errmsg_set(EINVAL, "statctr_view_set_sums_only: %s",
		                  view ? "on must be 0 or 1" : "no view");
	view->sums_only = on;
	return 0;
}

int statctr_snap_take(struct statctr_view *view, struct statctr_snap **snapp)
{
	*snapp = NULL;
	return statctr_snap_retake(view, snapp);
}

void statctr_snap_free(struct statctr_snap *snap)
{
	if (!snap)
		return;
	snap_release_buffers(snap);
	meta_unref(snap->meta);
	epochs_unref(snap->epochs);
	free(snap);
}

/*
 * The sums of a histogram's own cell are its writers' descriptors, never
 * served: every call that serves a value by id reads a histogram's sum
 * (the first cell of its block) instead, through meta_value_cell().
 */
void snap_note_reset(struct statctr_snap *snap, statctr_id id, uint64_t now)
{
	snap->baseline[id] = snap->sum[id];
	snap->disc[id] = now;
}

const struct meta *snap_meta(const struct statctr_snap *snap)
{
	return snap->meta;
}

struct epochs *snap_epochs(const struct statctr_snap *snap)
{
	return snap->epochs;
}

uint32_t snap_spoiled(const struct statctr_snap *snap)
{
	return snap->spoiled;
}

const uint64_t *snap_sums(const struct statctr_snap *snap)
{
	return snap->sum;
}

uint64_t statctr_snap_counter_raw(const struct statctr_snap *snap, statctr_id id)
{
	return id < snap->ncells ? snap->sum[meta_value_cell(snap->meta, id)] : 0;
}

/* The row directory entry of cell @id (< ncells), or NO_ROWDIR: a static cell. */
static uint32_t entry_of(const struct statctr_snap *snap, statctr_id id)
{
	return snap->nrowdir > 0 ? snap->meta->cell_rowdir[id] : NO_ROWDIR;
}

/*
 * The value a cell of a dynamic row counts from: its reset baseline when
 * the reset is newer than the row's add, else its incarnation base
 * (docs/segment-format.md, "Incarnation bases").
 */
static uint64_t dynamic_baseline(const struct statctr_snap *snap, statctr_id id, uint32_t e)
{
	return snap->disc[id] > snap->added_ns[e] ? snap->baseline[id] : snap->base[id];
}

/*
 * Cell @id's value: its sum less what it does not count, a counter's reset
 * baseline (a dynamic row's: dynamic_baseline()), a dynamic row's gauge its
 * incarnation base; 0 for a dynamic row not present.
 */
static uint64_t cell_value(const struct statctr_snap *snap, statctr_id id, bool counter)
{
	uint32_t e;

	if (id >= snap->ncells)
		return 0;
	id = meta_value_cell(snap->meta, id);
	e = entry_of(snap, id);
	if (e == NO_ROWDIR)
		return snap->sum[id] - (counter ? snap->baseline[id] : 0);
	if (!snap->row_gen[e])
		return 0;
	return snap->sum[id] - (counter ? dynamic_baseline(snap, id, e) : snap->base[id]);
}

uint64_t statctr_snap_counter(const struct statctr_snap *snap, statctr_id id)
{
	return cell_value(snap, id, true);
}

int64_t statctr_snap_gauge(const struct statctr_snap *snap, statctr_id id)
{
	return (int64_t)cell_value(snap, id, false);
}

uint64_t statctr_snap_hist_bucket(const struct statctr_snap *snap, statctr_id id, uint32_t b)
{
	uint32_t block;
	const struct seg_column *col = meta_hist_of(snap->meta, id, &block);

	if (!col || b > col->nbuckets)
		return 0;
	return statctr_snap_counter(snap, block + 1 + b);
}

uint64_t statctr_snap_hist_count(const struct statctr_snap *snap, statctr_id id)
{
	uint32_t block, b;
	const struct seg_column *col = meta_hist_of(snap->meta, id, &block);
	uint64_t count = 0;

	for (b = 0; col && b <= col->nbuckets; b++)
		count += statctr_snap_counter(snap, block + 1 + b);
	return count;
}

uint64_t statctr_snap_hist_sum(const struct statctr_snap *snap, statctr_id id)
{
	uint32_t block;

	return meta_hist_of(snap->meta, id, &block) ? statctr_snap_counter(snap, block) : 0;
}

/* Cell @id (< ncells) as statctr_snap_values() serves it, by its kind. */
static uint64_t value_bits(const struct statctr_snap *snap, statctr_id id)
{
	switch (snap->meta->cell_kind[id]) {
	case STATCTR_KIND_GAUGE:
		return (uint64_t)statctr_snap_gauge(snap, id);
	case STATCTR_KIND_HISTOGRAM:
		return statctr_snap_hist_count(snap, id);
	default:
		return statctr_snap_counter(snap, id);
	}
}

int statctr_snap_values(const struct statctr_snap *snap, statctr_id first, uint32_t count,
                        uint64_t *out)
{
	if (first > snap->ncells || count > snap->ncells - first)
		return errmsg_set(EINVAL, "%u cells from cell %u: the snapshot has %u cells", count,
		                  first, snap->ncells);
	for (uint32_t i = 0; i < count; i++)
		out[i] = value_bits(snap, first + i);
	return 0;
}

uint64_t statctr_snap_slot_value(const struct statctr_snap *snap, uint32_t s, statctr_id id)
{
	if (!snap->slot_values || s > snap->nslots + snap->ncpuslots || id >= snap->ncells)
		return 0;
	return snap->slot_values[(uint64_t)s * snap->ncells + meta_value_cell(snap->meta, id)];
}

uint64_t statctr_snap_discontinuity(const struct statctr_snap *snap, statctr_id id)
{
	uint64_t since;
	uint32_t e;

	if (id >= snap->ncells)
		return 0;
	id = meta_value_cell(snap->meta, id);
	since = snap->disc[id] > snap->created_ns ? snap->disc[id] : snap->created_ns;
	e = entry_of(snap, id);
	if (e != NO_ROWDIR && snap->row_gen[e] && snap->added_ns[e] > since)
		since = snap->added_ns[e];
	return since;
}

const char *statctr_snap_row_name(const struct statctr_snap *snap, uint32_t table, uint32_t row)
{
	const struct meta *m = snap->meta;
	const struct seg_table *tb;
	uint32_t e;

	if (!m || table >= m->hdr->ntables || row >= m->tables[table].nrows)
		return NULL;
	tb = &m->tables[table];
	if (tb->flags & TABLE_DYNAMIC) {
		e = tb->first_rowdir + row;
		return snap->row_gen[e] ? snap->row_names[e] : NULL;
	}
	if (tb->first_rowname == NO_ROWNAMES)
		return NULL;
	return meta_string(m, m->rownames[tb->first_rowname + row]);
}

void statctr_snap_stats(const struct statctr_snap *snap, struct statctr_snap_stats *stats)
{
	*stats = snap->stats;
}

uint32_t statctr_snap_cpu_slots(const struct statctr_snap *snap, uint64_t *aborts)
{
	if (aborts)
		*aborts = snap->cpu_aborts;
	return snap->ncpuslots;
}

int statctr_snap_slot_name(const struct statctr_snap *snap, uint32_t s, char *buf, size_t size)
{
	const struct seg_header *h = snap->meta->hdr;
	uint32_t first, last;

	if (s < snap->nslots)
		return snprintf(buf, size, "%u", s);
	if (s == snap->nslots)
		return snprintf(buf, size, "shared");
	if (s > snap->nslots + snap->ncpuslots)
		return errmsg_set(EINVAL, "no slot %u (%u writer slots, %u CPU slots)", s,
		                  snap->nslots, snap->ncpuslots);
	/* The range comes from the validated header, never from the slot. */
	first = (s - snap->nslots - 1) * h->cpu_collapse;
	last = first + h->cpu_collapse - 1 < h->ncpus ? first + h->cpu_collapse - 1 : h->ncpus - 1;
	if (first == last)
		return snprintf(buf, size, "cpu%u", first);
	return snprintf(buf, size, "cpu%u-%u", first, last);
}
