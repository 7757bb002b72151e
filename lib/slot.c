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
 * Copy service (docs/design.md): when txn_end sees that a reader raised
 * this slot's request word, the writer - at a transaction boundary, so its
 * cells are quiescent - takes the control file's buffer lock with a CAS,
 * marks the buffer odd, copies its cells, marks it even (release) and then
 * publishes the ticket in `done` (release).  The reader's acquire of `done`
 * pairs with that release.  Readers never make a writer wait: if the
 * buffer is busy the writer simply tries again at its next txn_end.
 */
#include "internal.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

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
static void close_torn_transaction(struct slot_header *sh)
{
	uint64_t seq = atomic_load_explicit(&sh->seq, memory_order_relaxed);

	if (seq & 1)
		atomic_store_explicit(&sh->seq, seq + 1, memory_order_release);
}

/* Tries to make the calling thread the owner of slot s. */
static bool claim(struct statctr_seg *seg, uint32_t s, pid_t me, uint64_t my_start)
{
	struct slot_header *sh = seg_slot_header(seg, s);
	uint32_t tid = atomic_load_explicit(&sh->owner_tid, memory_order_acquire);

	if (tid != 0 && !owner_gone(seg, sh, tid, me, my_start))
		return false;
	if (!atomic_compare_exchange_strong_explicit(&sh->owner_tid, &tid, (uint32_t)me,
	                                             memory_order_acq_rel, memory_order_relaxed))
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

	for (s = 0; s < seg->meta.hdr->nslots; s++) {
		struct statctr_slot *slot = seg_slot_header(seg, s);

		if (!claim(seg, s, me, my_start))
			continue;
		/* Requests raised before we owned the slot were answered by
		 * plain sequence reads; start from the current one. */
		slot->copy_served =
		    atomic_load_explicit(statctr_slot_copy_req(slot), memory_order_relaxed);
		*slotp = slot;
		return 0;
	}
	return set_error(EBUSY, "all %u slots of segment %s are owned by live threads",
	                 seg->meta.hdr->nslots, meta_string(&seg->meta, seg->meta.hdr->name));
}

void statctr_slot_release(struct statctr_slot *slot)
{
	if (!slot)
		return;
	atomic_store_explicit(&slot->owner_state, OWNER_FREE, memory_order_relaxed);
	atomic_store_explicit(&slot->owner_start, 0, memory_order_relaxed);
	/* Pairs with the acquire in claim(): the next owner sees our stores. */
	atomic_store_explicit(&slot->owner_tid, 0, memory_order_release);
}

/*
 * Everything the copy needs comes from the writer's own segment header and
 * layout formula, never from the control file, whose offsets anybody who
 * may reset can overwrite.
 */
void statctr_slot_serve_copy(struct statctr_slot *slot)
{
	const struct seg_header *h = (const void *)((uintptr_t)slot - slot->seg_offset);
	uint32_t index = (uint32_t)((slot->seg_offset - h->slots_off) / h->slot_stride);
	uintptr_t req = (uintptr_t)statctr_slot_copy_req(slot);
	struct ctl_layout layout = ctl_layout_for(h->nslots, h->ncells);
	struct ctl_header *ctl = (void *)(req - layout.reqs_off - (uint64_t)index * LINE);
	struct ctl_request *rq = (void *)req;
	_Atomic uint64_t *buf = (void *)((uintptr_t)ctl + layout.buf_off);
	uint64_t ticket = atomic_load_explicit(&rq->req, memory_order_relaxed);
	uint64_t expected = 0, bseq;
	uint32_t i;

	/* Another writer is copying: try again at a later txn_end (a plain
	 * load first, so a busy buffer costs no locked instruction). */
	if (atomic_load_explicit(&ctl->buf_lock, memory_order_relaxed) != 0 ||
	    !atomic_compare_exchange_strong_explicit(&ctl->buf_lock, &expected, index + 1,
	                                             memory_order_acquire, memory_order_relaxed))
		return;
	bseq = atomic_load_explicit(&ctl->buf_seq, memory_order_relaxed) | 1;
	atomic_store_explicit(&ctl->buf_seq, bseq, memory_order_relaxed);
	/* Orders the odd buf_seq before the buffer stores (reader: acquire fence). */
	atomic_thread_fence(memory_order_release);
	for (i = 0; i < h->ncells; i++)
		atomic_store_explicit(&buf[i],
		                      atomic_load_explicit(&slot->cells[i], memory_order_relaxed),
		                      memory_order_relaxed);
	atomic_store_explicit(&ctl->buf_slot, index, memory_order_relaxed);
	atomic_store_explicit(&ctl->buf_ticket, ticket, memory_order_relaxed);
	atomic_store_explicit(&ctl->buf_seq, bseq + 1, memory_order_release);
	/* Pairs with the reader's acquire load of done. */
	atomic_store_explicit(&rq->done, ticket, memory_order_release);
	atomic_store_explicit(&ctl->buf_lock, 0, memory_order_release);
	slot->copy_served = ticket;
}

static _Atomic uint64_t *shared_cell(struct statctr_seg *seg, statctr_id id)
{
	return &seg_slot_header(seg, seg->meta.hdr->nslots)->cells[id];
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

	for (s = 0; s < seg->meta.hdr->nslots; s++)
		sum +=
		    atomic_load_explicit(&seg_slot_header(seg, s)->cells[id], memory_order_relaxed);
	atomic_store_explicit(shared_cell(seg, id), (uint64_t)value - sum, memory_order_relaxed);
}
