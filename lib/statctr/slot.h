/*
 * statctr/slot.h - the thread slot's inline fast path (part of <statctr.h>).
 *
 * Owns: the slot's layout (struct statctr_slot), the writer's side of the
 * sequence protocol (statctr_add(), statctr_txn_begin()/_end()) and the
 * protocol's statement next to that code.  Never: an API of its own
 * (statctr.h documents every call), a system call, a locked instruction.
 */
#ifndef STATCTR_SLOT_H
#define STATCTR_SLOT_H

#ifndef STATCTR_H
#error "<statctr/slot.h> is part of <statctr.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * THE PROTOCOL
 *
 * Writers (one thread per slot; nobody else ever stores to a slot's cells):
 *   statctr_add()/statctr_inc()/statctr_gauge_add() are a relaxed atomic
 *   load, a plain add and a relaxed atomic store on the slot's own cell.  No
 *   locked instruction, no fence; on x86-64 they compile to load/add/store.
 *
 *   statctr_txn_begin() stores seq+1 (odd, relaxed) and issues a release
 *   fence, so no cell store of the transaction can become visible before the
 *   odd sequence.  statctr_txn_end() stores seq+2 with release, so every cell
 *   store of the transaction is visible before the even sequence.  Every
 *   16th transaction (a test of the sequence already in a register) it
 *   compares the sequence with the slot's copy_resume (same line); once the
 *   sequence has reached it, the out-of-line statctr_slot_serve_copy() loads
 *   the slot's copy-request word (in the control file, memory readers may
 *   write), copies the cells into the exchange buffer if a reader asked,
 *   records the copy's ticket and check in its own slot header (which
 *   readers cannot write, and check the copy against), publishes
 *   completion with a release store, and moves copy_resume on by
 *   the writer's own copy budget (docs/design.md): whatever readers store,
 *   copies take at most ~1/40 of the writer's time.  The fast path
 *   itself never touches the control file.
 *
 * Readers (any process; the segment is mapped PROT_READ):
 *   per slot: acquire-load seq; odd means a transaction is open, retry;
 *   load every cell once (a relaxed or volatile load, or a vector load
 *   whose register is pinned: the row and the sum take the same value);
 *   acquire fence (pairs with the writer's release fence in txn_begin);
 *   relaxed re-load seq; equal means the copy holds no partial
 *   transaction, and only then is the read added to the committed sums.
 *   A reader that keeps failing (a writer running transactions back to
 *   back) raises the slot's copy request and sleeps
 *   until the writer has served it; it never spins on a slot.  Retries and
 *   waits are bounded: a slot whose writer is stuck or died inside a
 *   transaction is reported in the snapshot, never waited on forever.
 *
 * What is guaranteed: each slot is read at a transaction boundary of its
 * writer, so every transaction is seen whole or not at all in the totals,
 * however far apart its cells are - for every slot not counted in the
 * snapshot's busy_slots (a live writer that held one transaction open past
 * the whole wait budget).  What is NOT guaranteed: the slots are
 * read at slightly different instants (a snapshot is not a global cut
 * across writers), and updates made with statctr_add() outside a
 * transaction are individually atomic but carry no grouping.
 *
 * Resets never store to writer memory: a reset records the current total of
 * each cell as its baseline (in the control file) and stamps a discontinuity
 * time; readers report total - baseline.  Counts arriving during or after a
 * reset are never lost.
 *
 * Dynamic rows (statctr_row_add()): each row of a dynamic table has an
 * incarnation number `gen` in the row directory, odd while present.  The
 * writer (under the table's mutex) changes a row's name, add time and
 * incarnation bases only while gen is even, after a release fence, then
 * publishes with a release store of gen + 1.  A reader acquire-loads gen
 * before the slots, copies name, time and bases, acquire fence, loads gen
 * again; after the slots an acquire fence and a third load.  A row whose
 * gen was odd and equal in all three is present with that name and those
 * values; any other is absent from the snapshot.  A counter's new counts
 * become visible to that third load through the release fence of the
 * writer's statctr_txn_begin(): counts added to a re-added row outside a
 * transaction are ordered only by the hardware (x86-64: always).  No
 * global epoch: a change of one row costs readers of other rows nothing.
 */

/* statctr_txn_end() compares seq with copy_resume when (seq & this) == 0. */
#define STATCTR_COPY_CHECK_MASK 0x1eu

/** Out-of-line part of statctr_txn_end(); not called directly. */
void statctr_slot_serve_copy(struct statctr_slot *slot);

/*
 * A slot handle is the slot itself: its header line in the segment, with
 * the cells right after it, so the fast path finds a cell at a constant
 * offset from the handle and loads nothing else (docs/segment-format.md
 * gives the bytes).  The fields are public only so that the fast path can
 * be inline; treat them as private.  The writer-private ones are offsets,
 * never pointers, so readers of the segment learn no addresses.
 */
struct statctr_slot {
	_Atomic(uint64_t) seq;          /* odd while a transaction is open */
	_Atomic(uint32_t) owner_tid;    /* 0 when free */
	_Atomic(uint32_t) owner_state;  /* 0 free, 1 owned */
	_Atomic(uint64_t) owner_start;  /* owner's start time, clock ticks */
	_Atomic(uint64_t) acquisitions; /* times the slot was acquired */
	/* The writer's record of its last copy (docs/design.md): readers
	 * check a copy against it, since the buffer is in memory they may
	 * write. */
	_Atomic(uint64_t) copy_check;  /* copy_check_of() the copied cells */
	uint64_t copy_served;          /* writer-private: last request looked at */
	_Atomic(uint64_t) copy_ticket; /* ticket of the last copy; release, after copy_check */
	uint64_t copy_resume;          /* writer-private: no request check before this sequence */
	_Atomic(uint64_t) cells[];     /* one per declared counter or gauge */
};

/* The fast path's one update, on a cell given by its address: a relaxed
 * load, an add and a relaxed store (statctr_add(), statctr_hist_record()). */
static inline void statctr_cell_add(_Atomic(uint64_t) *cell, uint64_t n)
{
	atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

/* The fast path statctr.h documents. */
static inline void statctr_add(struct statctr_slot *slot, statctr_id id, uint64_t n)
{
	statctr_cell_add(&slot->cells[id], n);
}

static inline void statctr_inc(struct statctr_slot *slot, statctr_id id)
{
	statctr_add(slot, id, 1);
}

static inline void statctr_gauge_add(struct statctr_slot *slot, statctr_id id, int64_t delta)
{
	statctr_add(slot, id, (uint64_t)delta);
}

static inline void statctr_txn_begin(struct statctr_slot *slot)
{
	uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);

	atomic_store_explicit(&slot->seq, seq + 1, memory_order_relaxed);
	/* Pairs with the acquire fence in seq_read() (lib/snapshot.c). */
	atomic_thread_fence(memory_order_release);
}

static inline void statctr_txn_end(struct statctr_slot *slot)
{
	uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed) + 1;

	/* Pairs with the acquire load of seq in seq_read() (lib/snapshot.c). */
	atomic_store_explicit(&slot->seq, seq, memory_order_release);
	if (__builtin_expect((seq & STATCTR_COPY_CHECK_MASK) == 0 && seq >= slot->copy_resume, 0))
		statctr_slot_serve_copy(slot);
}

#ifdef __cplusplus
}
#endif

#endif /* STATCTR_SLOT_H */
