/*
 * worker.c - the forwarding loop of a worker lcore and its counting: the
 * fast path (docs/dpdk.md, "What a worker counts").
 *
 * Owns: the worker's statctr slot, acquired on its own lcore thread and
 * released when the loop ends.  Per burst that moved packets, one
 * transaction adds to the rx port's row (packets, octets), the tx port's
 * row (packets and octets sent, drops) and the queue's row (packets,
 * octets, drops): a reader sees packets and octets of every row agree.
 * The burst's TSC cycles go into the queue's burstCycles histogram, in
 * the next burst's transaction.
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
 * port's address; returns the packet's length for the octet count. */
static inline uint32_t rewrite(struct rte_mbuf *m, const struct fwd_queue *q)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[1] = 0;
	eth->dst_addr.addr_bytes[2] = 0;
	eth->dst_addr.addr_bytes[3] = 0;
	eth->dst_addr.addr_bytes[4] = 0;
	eth->dst_addr.addr_bytes[5] = (uint8_t)q->tx_port;
	rte_ether_addr_copy(&q->tx_src, &eth->src_addr);
	return rte_pktmbuf_pkt_len(m);
}

/* Frees what the tx port refused; returns their octets. */
static inline uint64_t drop_unsent(struct rte_mbuf **pkts, uint16_t sent, uint16_t n)
{
	uint64_t octets = 0;

	for (uint16_t i = sent; i < n; i++) {
		octets += rte_pktmbuf_pkt_len(pkts[i]);
		rte_pktmbuf_free(pkts[i]);
	}
	return octets;
}

/* A burst's cycles, known at the next poll, waiting to be recorded. */
struct burst_time {
	const struct fwd_queue *q; /* NULL: nothing waits */
	uint64_t cycles;
};

#ifndef STATCTR_DPDK_NO_COUNT
/* One transaction: the burst's counts, and the previous burst's cycles
 * (so that recording them costs no transaction of its own). */
static inline void count_burst(struct statctr_slot *slot, const struct fwd_queue *q, uint16_t n,
                               uint16_t sent, uint64_t octets, uint64_t dropped_octets,
                               struct burst_time *prev)
{
	statctr_txn_begin(slot);
	statctr_add(slot, q->rx_packets, n);
	statctr_add(slot, q->rx_octets, octets);
	statctr_add(slot, q->tx_packets, sent);
	statctr_add(slot, q->tx_octets, octets - dropped_octets);
	statctr_add(slot, q->tx_drops, (uint64_t)(n - sent));
	statctr_add(slot, q->packets, n);
	statctr_add(slot, q->octets, octets);
	statctr_add(slot, q->drops, (uint64_t)(n - sent));
	if (prev->q != NULL)
		statctr_hist_record(slot, prev->q->cycles, prev->cycles);
	statctr_txn_end(slot);
	prev->q = NULL;
}
#endif

/* Receives, rewrites and transmits one burst of @q; returns its packets.
 * Records @prev when it counts. */
static inline uint16_t forward_burst(struct statctr_slot *slot, const struct fwd_queue *q,
                                     struct burst_time *prev)
{
	struct rte_mbuf *pkts[BURST];
	uint64_t octets = 0, dropped_octets = 0;
	uint16_t n, sent;

	n = rte_eth_rx_burst(q->rx_port, q->rx_queue, pkts, BURST);
	if (n == 0)
		return 0;
	for (uint16_t i = 0; i < n; i++)
		octets += rewrite(pkts[i], q);
	sent = rte_eth_tx_burst(q->tx_port, q->tx_queue, pkts, n);
	if (__builtin_expect(sent < n, 0))
		dropped_octets = drop_unsent(pkts, sent, n);
#ifndef STATCTR_DPDK_NO_COUNT
	count_burst(slot, q, n, sent, octets, dropped_octets, prev);
#else
	(void)slot, (void)octets, (void)dropped_octets, (void)prev;
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

/*
 * The loop.  A burst's cycles are those from its poll to the next poll
 * (rx, rewrite, tx and counting): one TSC read per poll, the end of one
 * burst the start of the next.  They are recorded in the burst's queue
 * within the next burst's transaction, or alone after an empty poll.
 */
static void forward(struct fwd_worker *w, struct statctr_slot *slot)
{
	uint64_t packets = 0, start = rte_rdtsc(), cpu_start = thread_cpu_ns();
	struct burst_time prev = {NULL, 0};
#ifndef STATCTR_DPDK_NO_COUNT
	uint64_t poll = start;
#endif

	while (!atomic_load_explicit(&fwd_stop, memory_order_relaxed)) {
		uint64_t turn_start = packets;

		for (unsigned i = 0; i < w->nqueues; i++) {
			uint16_t n;
#ifndef STATCTR_DPDK_NO_COUNT
			uint64_t now = rte_rdtsc();

			prev.cycles = now - poll;
			poll = now;
#endif
			n = forward_burst(slot, &w->queues[i], &prev);
			packets += n;
#ifndef STATCTR_DPDK_NO_COUNT
			if (prev.q != NULL) /* an empty poll: record it alone */
				statctr_hist_record(slot, prev.q->cycles, prev.cycles);
#endif
			prev.q = n != 0 ? &w->queues[i] : NULL;
		}
		if (__builtin_expect(packets == turn_start && w->idle_us != 0, 0))
			usleep(w->idle_us); /* -y: no queue had a packet */
	}
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
