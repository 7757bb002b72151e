/*
 * statctr/hist.h - statctr_hist_record()'s inline machinery (part of <statctr.h>).
 *
 * Owns: the histogram descriptor's bits, the process's bounds pool and
 * the thread's guess, the bucket search and the record.  Never: a load
 * of shared memory but the slot's own line and cells, a locked
 * instruction, an API of its own (statctr.h documents the record).
 */
#ifndef STATCTR_HIST_H
#define STATCTR_HIST_H

#ifndef STATCTR_H
#error "<statctr/hist.h> is part of <statctr.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Histograms' machinery (docs/segment-format.md, "Histogram cells").
 * The histogram's own cell (its id) counts nothing.  In every writer slot
 * it holds the writer's private *descriptor* of the histogram, stored by
 * statctr_seg_create() before the segment is published: where its block
 * is, how deep the bucket search goes and where its bounds are in this
 * process's bounds pool - integers, never an address.  So the fast path
 * finds all it needs with one load from the slot, next to the row's other
 * cells, and never reads a bound from a file.  Readers ignore descriptors
 * (statctr_snap_hist_*() read the block).  The descriptor's bits:
 *   0..31   the block's byte offset from the slot's first cell (8 x its
 *           first cell; cells are < STATCTR_MAX_CELLS = 2^24)
 *   32..46  0
 *   47..63  the *key*: the index of the column's padded bounds in
 *           statctr_hist_pool.  lib/hist.c puts every column's bounds at an
 *           index whose low byte is *half*, half the padded number of
 *           bounds (1..64) and the search's first step, so the key alone
 *           gives both.  Half 0 (a slot line the SIGBUS guard replaced by
 *           zeroes, or no descriptor) records nothing.
 * Public only for the inline statctr_hist_record(); treat as private.
 */

#define STATCTR_HIST_POOL      131072u /* padded bounds per writer process: a 17-bit key */
#define STATCTR_HIST_KEY_SHIFT 47      /* bits 47..63: the key */

/* The descriptor of a block at byte offset @block_off whose bounds are at
 * pool index @key (lib/hist.c writes it; statctr_hist_record() reads it). */
static inline uint64_t statctr_hist_desc(uint32_t block_off, uint64_t key)
{
	return (uint64_t)block_off | key << STATCTR_HIST_KEY_SHIFT;
}

/* The key of descriptor @desc: its bounds' index in statctr_hist_pool. */
static inline uint64_t statctr_hist_desc_key(uint64_t desc)
{
	return desc >> STATCTR_HIST_KEY_SHIFT;
}

/* The byte offset of descriptor @desc's block from the slot's first cell. */
static inline uint32_t statctr_hist_desc_block(uint64_t desc)
{
	return (uint32_t)desc;
}

/* The search's first step of key @key: its low byte (lib/hist.c's pool_find()
 * places bounds so); 0 records nothing. */
static inline uint32_t statctr_hist_key_half(uint64_t key)
{
	return (uint8_t)key;
}

/*
 * STATCTR_OPTIMIZER_HIDE_VAR() - makes the compiler forget what it knows of
 * @var's value (it must sit in a register) without emitting an instruction,
 * as Linux's OPTIMIZER_HIDE_VAR().
 */
#define STATCTR_OPTIMIZER_HIDE_VAR(var) __asm__("" : "+r"(var))

/* The padded bounds of this process's writer histograms (lib/hist.c): each
 * histogram's bounds, then UINT64_MAX up to 2 x half entries.  The slack
 * keeps any 17-bit key plus any 8-bit half's search inside the array. */
extern uint64_t statctr_hist_pool[STATCTR_HIST_POOL + 512];

/* The key of the last histogram this thread recorded in: the guess with
 * which statctr_hist_record() starts its search (see there).  The compiler
 * picks its TLS model: in a program, one %fs-relative load (initial-exec);
 * in a shared object, which may be dlopen()ed, a __tls_get_addr() call it
 * can hoist out of a loop (global-dynamic). */
extern __thread uint64_t statctr_hist_guess;

/**
 * statctr_hist_bucket_of() - the bucket of @value among @bounds (padded
 * with UINT64_MAX to 2 x @half entries): the first b whose bound is >=
 * @value, which is nbuckets (+Inf) past every finite bound.  A branch-free
 * binary search: log2(2 x half) comparisons, 7 for 64 buckets, each a
 * load, a compare and a conditional move (a search that moves a pointer
 * instead compiles to a branch, which random values mispredict).  Pure.
 */
static inline uint32_t statctr_hist_bucket_of(const uint64_t *bounds, uint32_t half, uint64_t value)
{
	uint32_t b = 0;

	for (uint32_t step = half; step != 0; step >>= 1)
		b += bounds[b + step - 1] < value ? step : 0;
	return b;
}

/*
 * statctr_hist_record() (statctr.h documents it).
 * How it finds the bounds.  The descriptor is one load from the slot, but
 * a search that waited for it would start that load's latency later than
 * a hand-written histogram whose bounds pointer is at hand.  So the search
 * starts from this thread's *guess*, the key it recorded with last (a load
 * whose address depends on nothing), while the descriptor's key is loaded
 * and compared beside it.  The bounds and half are a function of the key
 * alone, so when the two keys are equal - always, for a thread that
 * records in one histogram column, whatever its rows - the guessed values
 * are exactly the descriptor's.  When they differ, a predictable or
 * mispredicted branch takes the descriptor's and makes it the next guess
 * (docs/PERFORMANCE.md, section 8, measures both cases).
 */
/* Always inlined: GCC -O2 calls it out of line from a loop that records
 * four times, which costs more than the record (docs/PERFORMANCE.md, §8). */
static inline __attribute__((always_inline)) void statctr_hist_record(struct statctr_slot *slot,
                                                                      statctr_id id, uint64_t value)
{
	uint64_t desc = atomic_load_explicit(&slot->cells[id], memory_order_relaxed);
	uint64_t key = statctr_hist_desc_key(desc), guess = statctr_hist_guess;
	const uint64_t *bounds = &statctr_hist_pool[guess];
	uint32_t half = statctr_hist_key_half(guess);
	/* The block's cells by one pointer: the sum at [0], bucket b at [1 + b]. */
	_Atomic(uint64_t) *block =
	    (_Atomic(uint64_t) *)((char *)slot->cells + statctr_hist_desc_block(desc));
	uint64_t seq, b;

	/* Hides where bounds and half come from, so that the compiler can
	 * neither rebuild them from the descriptor's key once it knows the two
	 * keys equal (that would put the descriptor's load back in front of the
	 * search) nor fold the pool's address into every probe of the search. */
	STATCTR_OPTIMIZER_HIDE_VAR(bounds);
	STATCTR_OPTIMIZER_HIDE_VAR(half);
	if (__builtin_expect(key != guess, 0)) {
		statctr_hist_guess = key;
		bounds = &statctr_hist_pool[key];
		half = statctr_hist_key_half(key);
	}
	if (__builtin_expect(half == 0, 0))
		return;
	b = statctr_hist_bucket_of(bounds, half, value);
	seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);
	if (seq & 1) { /* the caller's transaction */
		statctr_cell_add(&block[1 + b], 1);
		statctr_cell_add(&block[0], value);
		return;
	}
	/* statctr_txn_begin() and statctr_txn_end(), with the sequence kept in
	 * a register: the same stores and the same fences. */
	atomic_store_explicit(&slot->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release); /* pairs as in statctr_txn_begin() */
	statctr_cell_add(&block[1 + b], 1);
	statctr_cell_add(&block[0], value);
	seq += 2;
	atomic_store_explicit(&slot->seq, seq, memory_order_release); /* as statctr_txn_end() */
	if (__builtin_expect((seq & STATCTR_COPY_CHECK_MASK) == 0 && seq >= slot->copy_resume, 0))
		statctr_slot_serve_copy(slot);
}

#ifdef __cplusplus
}
#endif

#endif /* STATCTR_HIST_H */
