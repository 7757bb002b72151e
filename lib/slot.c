/*
 * slot.c - writer slots: ownership, the copy service, the shared slot.
 *
 * Ownership: a slot's owner_tid is its lock word.  A thread claims a slot
 * with a compare-and-swap from 0 (free) or from the tid of an owner that is
 * provably gone (tid + start time no longer match a live thread), then
 * records its start time.  Only the owner stores to the slot's cells and
 * sequence; a released slot keeps its counts, and the next owner continues
 * from them.
 *
 * Copy service (docs/design.md): once a slot's sequence reaches its
 * copy_resume, txn_end calls statctr_slot_serve_copy(), which loads the
 * slot's request word; when a reader raised it, the writer - at a
 * transaction boundary, so its cells are quiescent - takes the control
 * file's buffer lock with a CAS, marks the buffer odd, copies its cells,
 * marks it even (release) and then publishes the ticket in `done`
 * (release).  The reader's acquire of `done` pairs with that release.
 * Readers never make a writer wait: if the buffer is busy the writer tries
 * again later.  Whatever happened, it then moves copy_resume on by its own
 * budget, so that no reader - nor anyone else who may write the control
 * file - can make it spend more than ~1/COPY_BUDGET_DIV of its time here.
 *
 * Everything out of line comes from the writer's private handle (found by
 * the slot's address in guard.c's registry), never from either file.  The
 * slot's own header line (seq, copy_served, copy_resume) is in the segment,
 * which only the writer's user may write: that user rewriting their own
 * segment can disturb their own writer, and is out of scope.
 */
#include "internal.h"

#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The copy budget, in steps of the sequence (2 per transaction).  A look
 * that finds no request (or a busy buffer) costs a call and one load of a
 * line readers may have written (a cache miss, ~100 ns); the next look
 * comes 1024 transactions later (>= 2 ns each: < 5%), so a reader waits at
 * most that long (µs) for its request to be seen.  A copy is timed, and the
 * next look waits until the writer has run COPY_BUDGET_DIV - 1 times as
 * long, at the rate it had since its previous copy; but at most MAX_GAP_NS,
 * so that a reader's request is served within its 100 ms budget
 * (snapshot.c) even when a copy was slowed by preemption or is huge
 * (docs/design.md gives the bound).
 */
#define CHECK_GAP       2048u /* 1024 transactions */
#define COPY_BUDGET_DIV 40u
#define MAX_GAP_NS      50000000u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct ctl_request *request_of(const struct statctr_seg *seg, uint32_t index)
{
	return (void *)((uint8_t *)seg->ctl + seg->ctl_layout.reqs_off + (uint64_t)index * LINE);
}

static uint32_t slot_index(const struct statctr_seg *seg, const struct statctr_slot *slot)
{
	uint64_t off = (uint64_t)((uintptr_t)slot - (uintptr_t)seg->base);

	return (uint32_t)((off - seg->layout.slots_off) / seg->layout.stride);
}

static pid_t self_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * May a claimer take a slot owned by @tid?  Only when no thread @tid
 * exists, or when @tid is the caller's own (a dead predecessor's tid was
 * reused) with another start time.  The owner's start time is stored after
 * its compare-and-swap of the tid, so a live owner's may be stale for a
 * moment: claimers must not judge by it, or two threads could share a slot.
 */
static bool owner_gone(const struct statctr_seg *seg, const struct statctr_slot *slot, uint32_t tid,
                       pid_t me, uint64_t my_start)
{
	if (tid == (uint32_t)me)
		return atomic_load_explicit(&slot->owner_start, memory_order_relaxed) != my_start;
	return proc_start_time((pid_t)seg->meta.hdr->creator_pid, (pid_t)tid) == 0;
}

/*
 * A previous owner that died inside a transaction left the sequence odd.
 * Its partial updates are final; close that transaction so the new owner's
 * transactions keep odd meaning "open".
 */
static void close_torn_transaction(struct statctr_slot *sh)
{
	uint64_t seq = atomic_load_explicit(&sh->seq, memory_order_relaxed);

	/* Release, as in statctr_txn_end(): pairs with the acquire load of seq
	 * in seq_read() (snapshot.c). */
	if (seq & 1)
		atomic_store_explicit(&sh->seq, seq + 1, memory_order_release);
}

/* Tries to make the calling thread the owner of slot s. */
static bool claim(struct statctr_seg *seg, uint32_t s, pid_t me, uint64_t my_start)
{
	struct statctr_slot *sh = seg_slot_header(seg, s);
	/* Pairs with the release store in statctr_slot_release(), as the CAS. */
	uint32_t tid = atomic_load_explicit(&sh->owner_tid, memory_order_acquire);

	if (tid != 0 && !owner_gone(seg, sh, tid, me, my_start))
		return false;
	/* Acquire: pairs with the release store in statctr_slot_release(), so
	 * the previous owner's stores to the slot (cells, seq, copy_served,
	 * copy_resume) come before ours.  No release: the claimer has stored
	 * nothing yet that a reader of owner_tid needs (owner_start follows;
	 * see owner_gone()). */
	if (!atomic_compare_exchange_strong_explicit(&sh->owner_tid, &tid, (uint32_t)me,
	                                             memory_order_acquire, memory_order_relaxed))
		return false;
	atomic_store_explicit(&sh->owner_start, my_start, memory_order_relaxed);
	close_torn_transaction(sh);
	atomic_store_explicit(&sh->owner_state, OWNER_OWNED, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->acquisitions, 1, memory_order_relaxed);
	return true;
}

int statctr_slot_acquire(struct statctr_seg *seg, struct statctr_slot **slotp)
{
	pid_t me = self_tid();
	uint64_t my_start = proc_start_time(getpid(), me);
	uint32_t s;

	for (s = 0; s < seg->nslots; s++) {
		struct statctr_slot *slot = seg_slot_header(seg, s);

		if (!claim(seg, s, me, my_start))
			continue;
		/* Requests raised before we owned the slot were answered by
		 * plain sequence reads; start from the current one, with a
		 * fresh budget (the previous owner's rate is not ours). */
		slot->copy_served =
		    atomic_load_explicit(&request_of(seg, s)->req, memory_order_relaxed);
		slot->copy_resume = 0;
		seg->budget[s].last_ns = 0;
		cpu_place_thread_slot(seg, slot);
		*slotp = slot;
		return 0;
	}
	return errmsg_set(EBUSY, "all %u slots of segment %s are owned by live threads",
	                  seg->nslots, meta_string(&seg->meta, seg->meta.hdr->name));
}

void statctr_slot_release(struct statctr_slot *slot)
{
	if (!slot)
		return;
	atomic_store_explicit(&slot->owner_state, OWNER_FREE, memory_order_relaxed);
	atomic_store_explicit(&slot->owner_start, 0, memory_order_relaxed);
	/* Pairs with the acquires in claim(): the next owner sees our stores;
	 * and in load_owner() (view.c): a reader that finds the slot free sees
	 * its final counts. */
	atomic_store_explicit(&slot->owner_tid, 0, memory_order_release);
}

/*
 * Copies the slot's cells to the exchange buffer for @ticket; false when it
 * is busy.  The lock word names this owner (copy_lock_word()), so a reader
 * clearing a dead holder's lock can never clear ours.  The record that
 * readers trust is in the slot header (copy_check, then copy_ticket): the
 * buffer and the words around it are in the control file, which readers
 * may write.
 */
static bool copy_to_buffer(struct statctr_seg *seg, struct statctr_slot *slot, uint32_t index,
                           uint64_t ticket)
{
	struct ctl_header *ctl = seg->ctl;
	_Atomic uint64_t *buf = (void *)((uint8_t *)ctl + seg->ctl_layout.buf_off);
	uint64_t expected = 0, bseq, check,
	         lock = copy_lock_word(
	             index, atomic_load_explicit(&slot->acquisitions, memory_order_relaxed));
	uint32_t i;

	/* Another writer is copying: try again later (a plain load first, so
	 * a busy buffer costs no locked instruction).  The CAS's acquire pairs
	 * with the release CAS of buf_lock that ends the previous copy. */
	if (atomic_load_explicit(&ctl->buf_lock, memory_order_relaxed) != 0 ||
	    !atomic_compare_exchange_strong_explicit(&ctl->buf_lock, &expected, lock,
	                                             memory_order_acquire, memory_order_relaxed))
		return false;
	bseq = atomic_load_explicit(&ctl->buf_seq, memory_order_relaxed) | 1;
	atomic_store_explicit(&ctl->buf_seq, bseq, memory_order_relaxed);
	/* Orders the odd buf_seq before the buffer stores: pairs with the
	 * acquire fence in take_buffer() (snapshot.c). */
	atomic_thread_fence(memory_order_release);
	for (i = 0; i < seg->ncells; i++)
		atomic_store_explicit(&buf[i],
		                      atomic_load_explicit(&slot->cells[i], memory_order_relaxed),
		                      memory_order_relaxed);
	/* Our own cells: nobody else stores to them, so plain loads are the
	 * values just copied. */
	check = copy_check_of((const uint64_t *)(const void *)slot->cells, seg->ncells);
	atomic_store_explicit(&ctl->buf_slot, index, memory_order_relaxed);
	atomic_store_explicit(&ctl->buf_ticket, ticket, memory_order_relaxed);
	/* Pairs with the acquire load of buf_seq in take_buffer(): the cells,
	 * buf_slot and buf_ticket first. */
	atomic_store_explicit(&ctl->buf_seq, bseq + 1, memory_order_release);
	atomic_store_explicit(&slot->copy_check, check, memory_order_relaxed);
	/* Pairs with the acquire load of copy_ticket in take_buffer(): the
	 * check first. */
	atomic_store_explicit(&slot->copy_ticket, ticket, memory_order_release);
	/* Pairs with the acquire load of done in assisted_read() (snapshot.c). */
	atomic_store_explicit(&request_of(seg, index)->done, ticket, memory_order_release);
	/* Pairs with the acquire CAS of buf_lock in the next copy_to_buffer().
	 * A CAS from our own word: if someone who may write the control file
	 * stole the lock meanwhile, we leave theirs alone. */
	atomic_compare_exchange_strong_explicit(&ctl->buf_lock, &lock, 0, memory_order_release,
	                                        memory_order_relaxed);
	return true;
}

/*
 * Sequence steps until the next look after a copy that ran from @start to
 * @end (ns) at sequence @seq: COPY_BUDGET_DIV - 1 times the copy's time (at
 * most MAX_GAP_NS) at the rate measured since the previous copy.  Before
 * there is a rate, CHECK_GAP: the next copy measures it.
 */
static uint64_t copy_gap(struct copy_budget *b, uint64_t seq, uint64_t start, uint64_t end)
{
	uint64_t gap_ns = (end - start) * (COPY_BUDGET_DIV - 1), gap = CHECK_GAP;

	if (gap_ns > MAX_GAP_NS)
		gap_ns = MAX_GAP_NS;
	if (b->last_ns != 0 && start > b->last_ns && seq > b->last_seq)
		gap = (uint64_t)((double)gap_ns * (double)(seq - b->last_seq) /
		                 (double)(start - b->last_ns));
	b->last_ns = end;
	b->last_seq = seq;
	return gap > CHECK_GAP ? gap : CHECK_GAP;
}

/*
 * A mapping replaced by zeros (guard.c) has no reader left to serve: true,
 * and the copy service stops for this generation.  No handle: used after
 * destroy.
 */
static bool stop_serving(const struct statctr_seg *seg, struct statctr_slot *slot)
{
	if (seg && atomic_load_explicit(&seg->lost, memory_order_relaxed) == 0)
		return false;
	slot->copy_resume = UINT64_MAX;
	return true;
}

void statctr_slot_serve_copy(struct statctr_slot *slot)
{
	struct statctr_seg *seg = guard_writer_of(slot);
	uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed), ticket, start;
	uint32_t index;

	if (stop_serving(seg, slot))
		return;
	index = slot_index(seg, slot);
	/* Relaxed: a request carries nothing but its ticket (assisted_read()).
	 * On a truncated control file this is the load that faults, and the
	 * handler (this thread) sets seg->lost before it returns zero. */
	ticket = atomic_load_explicit(&request_of(seg, index)->req, memory_order_relaxed);
	if (stop_serving(seg, slot))
		return;
	slot->copy_resume = seq + CHECK_GAP;
	/* 0: no request, or one its reader cancelled (tickets start at 1). */
	if (ticket == 0 || ticket == slot->copy_served)
		return;
	start = now_ns();
	if (!copy_to_buffer(seg, slot, index, ticket))
		return;
	slot->copy_served = ticket;
	slot->copy_resume = seq + copy_gap(&seg->budget[index], seq, start, now_ns());
}

static _Atomic uint64_t *shared_cell(struct statctr_seg *seg, statctr_id id)
{
	return &seg_slot_header(seg, seg->nslots)->cells[id];
}

void statctr_shared_add(struct statctr_seg *seg, statctr_id id, uint64_t n)
{
	atomic_fetch_add_explicit(shared_cell(seg, id), n, memory_order_relaxed);
}

void statctr_shared_gauge_add(struct statctr_seg *seg, statctr_id id, int64_t delta)
{
	statctr_shared_add(seg, id, (uint64_t)delta);
}

void statctr_gauge_set(struct statctr_seg *seg, statctr_id id, int64_t value)
{
	uint64_t sum = 0;
	uint32_t s;

	/* Every slot but the shared one: the writer slots, then the CPU slots. */
	for (s = 0; s <= seg->nslots + seg->meta.hdr->ncpuslots; s++)
		if (s != seg->nslots)
			sum += atomic_load_explicit(&seg_slot_header(seg, s)->cells[id],
			                            memory_order_relaxed);
	atomic_store_explicit(shared_cell(seg, id), (uint64_t)value - sum, memory_order_relaxed);
}
