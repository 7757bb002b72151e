/*
 * worker.c - the forwarding loop of a worker lcore and its counting: the
 * fast path (docs/dpdk.md, "What a worker counts").
 *
 * Owns: the worker's statctr slot, acquired on its own lcore thread and
 * released when the loop ends, and each queue's counts not yet added to
 * it (struct pending).  One transaction per 16 bursts of a queue, at its
 * first empty poll and at the end adds to the rx port's row (packets,
 * octets), the tx port's row (packets and octets sent, drops) and the
 * queue's row (packets, octets, drops): a reader sees packets and octets
 * of every row agree.  Each burst's TSC cycles go into the queue's
 * burstCycles histogram at the next poll; with -t N, one burst in N is
 * timed instead, by two TSC reads around it (a sample of the same
 * distribution, without the TSC read of every poll).
 * Never does: a locked instruction, a system call or a lookup on the fast
 * path (every cell is found by fwd_queue_bind() before launch).
 *
 * Built twice from this file: with STATCTR_DPDK_NO_COUNT defined, every
 * statctr call and the per-poll TSC read are compiled out, so that
 * bench/dpdk.sh compares the same loop with and without counting.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fwd.h"

#define BURST 32u

/* l2fwd's rewrite: destination 02:00:00:00:00:<tx port>, source the tx
 * port's address. */
static inline void rewrite(struct rte_mbuf *m, const struct fwd_queue *q)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[1] = 0;
	eth->dst_addr.addr_bytes[2] = 0;
	eth->dst_addr.addr_bytes[3] = 0;
	eth->dst_addr.addr_bytes[4] = 0;
	eth->dst_addr.addr_bytes[5] = (uint8_t)q->tx_port;
	rte_ether_addr_copy(&q->tx_src, &eth->src_addr);
}

#ifndef STATCTR_DPDK_NO_COUNT
/* Bursts of one queue whose counts wait in the worker's registers and
 * stack (struct pending) before one transaction adds them to the segment:
 * at full rate the eight cells and the transaction cost 1/FLUSH_BURSTS of
 * a burst each.  A queue's counts are flushed after FLUSH_BURSTS bursts,
 * at its first empty poll and when the loop ends, so a reader lags an
 * active queue by at most FLUSH_BURSTS - 1 bursts (about 10 us at full
 * rate) and an idle one not at all. */
#define FLUSH_BURSTS 16u

/* What a queue counted since its last flush: received, and of those, what
 * the tx port refused (sent = packets - dropped). */
struct pending {
	uint64_t packets, octets;
	uint64_t dropped, dropped_octets;
	unsigned bursts; /* bursts in the sums above */
};

/* One transaction: the counts @p holds for @q, then @p emptied. */
static void flush(struct statctr_slot *slot, const struct fwd_queue *q, struct pending *p)
{
	statctr_txn_begin(slot);
	statctr_add(slot, q->rx_packets, p->packets);
	statctr_add(slot, q->rx_octets, p->octets);
	statctr_add(slot, q->tx_packets, p->packets - p->dropped);
	statctr_add(slot, q->tx_octets, p->octets - p->dropped_octets);
	statctr_add(slot, q->tx_drops, p->dropped);
	statctr_add(slot, q->packets, p->packets);
	statctr_add(slot, q->octets, p->octets);
	statctr_add(slot, q->drops, p->dropped);
	statctr_txn_end(slot);
	*p = (struct pending){0};
}
#else
struct pending {
	char unused;
};
#endif

/* Frees what the tx port refused, and counts it in @p when it counts. */
static void drop_unsent(struct rte_mbuf **pkts, uint16_t sent, uint16_t n, struct pending *p)
{
	for (uint16_t i = sent; i < n; i++) {
#ifndef STATCTR_DPDK_NO_COUNT
		p->dropped++;
		p->dropped_octets += rte_pktmbuf_pkt_len(pkts[i]);
#else
		(void)p;
#endif
		rte_pktmbuf_free(pkts[i]);
	}
}

/* Receives, rewrites and transmits one burst of @q; returns its packets.
 * Adds them to @p when it counts.  Out of line in both builds (GCC makes
 * the non-counting one so by itself): inlined into the loop of the counting
 * build, it reloads the tx port for every packet (docs/PERFORMANCE.md §9).
 *
 * The burst's octets are summed in 32 bits, one add from memory per packet,
 * and added to @p before the tx call (kept across it, GCC copies the sum to
 * another register on every packet).  32 bits hold them: the ports are
 * configured without scatter or LRO (fwd_port_start()), so every packet is
 * one segment of at most UINT16_MAX bytes (its data_len).
 */
static __attribute__((noinline)) uint16_t forward_burst(const struct fwd_queue *q,
                                                        struct pending *p)
{
	_Static_assert(BURST * (uint64_t)UINT16_MAX <= UINT32_MAX, "a burst's octets in 32 bits");
	struct rte_mbuf *pkts[BURST];
	uint32_t octets = 0;
	uint16_t n, sent;

	n = rte_eth_rx_burst(q->rx_port, q->rx_queue, pkts, BURST);
	if (n == 0)
		return 0;
	for (uint16_t i = 0; i < n; i++) {
		octets += rte_pktmbuf_pkt_len(pkts[i]);
		rewrite(pkts[i], q);
	}
#ifndef STATCTR_DPDK_NO_COUNT
	p->octets += octets;
#endif
	sent = rte_eth_tx_burst(q->tx_port, q->tx_queue, pkts, n);
	if (__builtin_expect(sent < n, 0))
		drop_unsent(pkts, sent, n, p);
#ifndef STATCTR_DPDK_NO_COUNT
	p->packets += n;
	p->bursts++;
#else
	(void)octets, (void)p;
#endif
	return n;
}

/* The calling thread's CPU time: unlike the TSC, it does not count the
 * time the thread waited for a CPU another process held. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifndef STATCTR_DPDK_NO_COUNT
/* One burst of @q timed alone (-t N > 1): two TSC reads around it. */
static uint16_t timed_burst(struct statctr_slot *slot, const struct fwd_queue *q, struct pending *p)
{
	uint64_t t0 = rte_rdtsc();
	uint16_t n = forward_burst(q, p);

	if (n != 0)
		statctr_hist_record(slot, q->cycles, rte_rdtsc() - t0);
	return n;
}
#endif

/*
 * The loop.  A burst's cycles are those from its poll to the next poll
 * (rx, rewrite, tx and counting): one TSC read per poll, the end of one
 * burst the start of the next.  They are recorded in the burst's queue's
 * histogram at the next poll, each record a transaction of its own (sum
 * and bucket agree); an empty poll records nothing.  With -t N (w->timed
 * > 1), every N-th poll's burst is timed alone (timed_burst(): rx,
 * rewrite and tx, without the counting between polls) and no other poll
 * reads the TSC; each queue counts its own polls.
 */
static void forward(struct fwd_worker *w, struct statctr_slot *slot)
{
	uint64_t packets = 0, start = rte_rdtsc(), cpu_start = thread_cpu_ns();
	struct pending pend[FWD_MAX_QUEUES_LCORE] = {0};
#ifndef STATCTR_DPDK_NO_COUNT
	const struct fwd_queue *last = NULL; /* the last poll's queue, if it moved packets */
	uint64_t poll = start;
	const unsigned timed = w->timed;            /* -t */
	unsigned until_timed[FWD_MAX_QUEUES_LCORE]; /* per queue: polls until its next timed one */

	for (unsigned i = 0; i < w->nqueues; i++)
		until_timed[i] = timed;
#endif

	(void)slot;
	while (!atomic_load_explicit(&fwd_stop, memory_order_relaxed)) {
		uint64_t turn_start = packets;

		for (unsigned i = 0; i < w->nqueues; i++) {
			const struct fwd_queue *q = &w->queues[i];
			uint16_t n;
#ifndef STATCTR_DPDK_NO_COUNT
			if (timed > 1) {
				if (--until_timed[i] == 0) {
					until_timed[i] = timed;
					n = timed_burst(slot, q, &pend[i]);
				} else {
					n = forward_burst(q, &pend[i]);
				}
			} else {
				uint64_t now = rte_rdtsc();

				if (last != NULL)
					statctr_hist_record(slot, last->cycles, now - poll);
				poll = now;
				n = forward_burst(q, &pend[i]);
				last = n != 0 ? q : NULL;
			}
#else
			n = forward_burst(q, &pend[i]);
#endif
			packets += n;
#ifndef STATCTR_DPDK_NO_COUNT
			if (pend[i].bursts == FLUSH_BURSTS || (n == 0 && pend[i].bursts != 0))
				flush(slot, q, &pend[i]);
#endif
		}
		if (__builtin_expect(packets == turn_start && w->idle_us != 0, 0))
			usleep(w->idle_us); /* -y: no queue had a packet */
	}
#ifndef STATCTR_DPDK_NO_COUNT
	if (last != NULL)
		statctr_hist_record(slot, last->cycles, rte_rdtsc() - poll);
	for (unsigned i = 0; i < w->nqueues; i++)
		if (pend[i].bursts != 0)
			flush(slot, &w->queues[i], &pend[i]);
#endif
	w->cycles = rte_rdtsc() - start;
	w->cpu_ns = thread_cpu_ns() - cpu_start;
	w->packets = packets;
}

int fwd_worker_main(void *arg)
{
	struct fwd_worker *w = arg;
	struct statctr_slot *slot = NULL;

#ifndef STATCTR_DPDK_NO_COUNT
	/* Pairs with statctr_slot_release() below: the slot is this lcore
	 * thread's for the whole loop. */
	w->err = statctr_slot_acquire(w->seg, &slot);
	if (w->err != 0) {
		fprintf(stderr, "statctr-dpdk-fwd: lcore %u: %s\n", rte_lcore_id(),
		        statctr_errmsg());
		atomic_store(&fwd_stop, true);
		return w->err;
	}
#endif
	forward(w, slot);
#ifndef STATCTR_DPDK_NO_COUNT
	statctr_slot_release(slot); /* pairs with the acquire above */
#endif
	return 0;
}

/* Finds every cell @q counts into (rows added by fwd_port_add() and the
 * queue's row by the caller). */
int fwd_queue_bind(struct statctr_seg *seg, struct fwd_queue *q)
{
	const struct fwd_port *rx = fwd_port_get(q->rx_port), *tx = fwd_port_get(q->tx_port);
	char name[FWD_NAME_MAX + 16];
	uint32_t row;
	int err;

	snprintf(name, sizeof(name), "%s/rxq%u", rx->name, q->rx_queue);
	err = statctr_row_add(seg, "queues", name, &row);
	if (err != 0)
		return err;
	err = rte_eth_macaddr_get(q->tx_port, &q->tx_src);
	if (err == 0)
		err = statctr_seg_lookup(seg, "queues", "packets", row, &q->packets) |
		      statctr_seg_lookup(seg, "queues", "octets", row, &q->octets) |
		      statctr_seg_lookup(seg, "queues", "drops", row, &q->drops) |
		      statctr_seg_lookup(seg, "queues", "burstCycles", row, &q->cycles) |
		      statctr_seg_lookup(seg, "ports", "rxPackets", rx->port_row, &q->rx_packets) |
		      statctr_seg_lookup(seg, "ports", "rxOctets", rx->port_row, &q->rx_octets) |
		      statctr_seg_lookup(seg, "ports", "txPackets", tx->port_row, &q->tx_packets) |
		      statctr_seg_lookup(seg, "ports", "txOctets", tx->port_row, &q->tx_octets) |
		      statctr_seg_lookup(seg, "ports", "txDrops", tx->port_row, &q->tx_drops);
	return err != 0 ? -ENOENT : 0;
}
