/*
 * fwd.h - the parts of statctr-dpdk-fwd (examples/dpdk), an l2fwd-style
 * forwarder that counts with statctr (docs/dpdk.md).
 *
 * Owns: the state the modules share - the ports as the application sees
 * them, each worker's queues, the stop flag.  Never does: DPDK or statctr
 * calls (those are in the modules below).
 *
 *   main.c    options, EAL, the segment, launching workers, the main loop
 *   conf.c    writes the statctr declaration from the ports found
 *   ports.c   port set-up, hot-plug (rows added and removed), link state
 *             and the NIC's own counters mirrored by the main lcore
 *   worker.c  the forwarding loop and its counting (the fast path)
 *
 * Who touches what: the main lcore alone adds, removes and polls ports and
 * owns struct fwd_port; a worker reads only its own struct fwd_worker,
 * filled before it is launched and never changed while it runs.  Workers
 * forward the ports present at start (l2fwd's pairs); a port hot-plugged
 * later is mirrored and served, not forwarded.
 */
#ifndef FWD_H
#define FWD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "statctr.h"

#define FWD_MAX_PORTS        RTE_MAX_ETHPORTS
#define FWD_MAX_QUEUES_LCORE 16u /* rx queues one worker polls */
#define FWD_MAX_XSTATS       64u /* NIC counters mirrored per port */
#define FWD_NAME_MAX         64u /* RTE_ETH_NAME_MAX_LEN */

/* One port as the main lcore knows it (an IF-MIB row and a NIC row). */
struct fwd_port {
	bool present;                      /* started, and its rows are added */
	bool hotplugged;                   /* attached at run time: not forwarded */
	char name[FWD_NAME_MAX];           /* ethdev name: the row name, ifName */
	uint32_t port_row, nic_row;        /* rows of tables "ports" and "nic" */
	statctr_id speed, oper;            /* gauges ifHighSpeed, ifOperStatus */
	int64_t speed_level, oper_level;   /* what the main lcore's slot holds */
	uint32_t nxstats;                  /* xstats mirrored */
	uint64_t xstat_id[FWD_MAX_XSTATS]; /* DPDK's xstat id */
	statctr_id xstat_cell[FWD_MAX_XSTATS];
	uint64_t xstat_last[FWD_MAX_XSTATS]; /* value already added */
};

/* One rx queue a worker polls, with every cell its bursts count into. */
struct fwd_queue {
	uint16_t rx_port, rx_queue, tx_port, tx_queue;
	struct rte_ether_addr tx_src;               /* the tx port's address */
	statctr_id packets, octets, drops, cycles;  /* table "queues" */
	statctr_id rx_packets, rx_octets;           /* table "ports", rx port */
	statctr_id tx_packets, tx_octets, tx_drops; /* table "ports", tx port */
};

/* A worker lcore: its queues, and what it measured (read after it ends). */
struct fwd_worker {
	unsigned lcore;
	struct statctr_seg *seg;
	unsigned idle_us; /* sleep after a turn that found no packet; 0: spin */
	unsigned timed;   /* -t: the burstCycles histogram times 1 burst in this many */
	unsigned nqueues;
	struct fwd_queue queues[FWD_MAX_QUEUES_LCORE];
	uint64_t packets, cycles; /* forwarded, and the loop's TSC cycles */
	uint64_t cpu_ns;          /* the loop's CPU time */
	int err;                  /* -errno from the slot acquire, or 0 */
};

extern atomic_bool fwd_stop; /* set by signals and the main loop */

/* conf.c: the declaration of the ports found, through common/safefile.c; *@whyp on failure. */
int fwd_conf_write(const char *path, const char *segment, const char *seg_path, unsigned nslots,
                   const char **whyp);

/* ports.c */
struct rte_mempool;
void fwd_ports_cap_tx(uint16_t cap);
int fwd_port_start(uint16_t port, struct rte_mempool *pool);
void fwd_port_stop(uint16_t port);
int fwd_port_add(struct statctr_seg *seg, uint16_t port);
void fwd_port_remove(struct statctr_seg *seg, uint16_t port);
const struct fwd_port *fwd_port_get(uint16_t port);
void fwd_ports_poll(struct statctr_slot *slot);
int fwd_port_attach(struct statctr_seg *seg, struct rte_mempool *pool, const char *devargs);
int fwd_port_detach(struct statctr_seg *seg, const char *name);
int fwd_port_link(const char *name, bool up);

/* worker.c */
int fwd_worker_main(void *arg);
int fwd_queue_bind(struct statctr_seg *seg, struct fwd_queue *q);

#endif /* FWD_H */
