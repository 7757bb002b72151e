/*
 * txn_writer.c - a writer that stops inside a transaction, for
 * tests/fault/writer_torn.sh.
 *
 * txn_writer -c CONFIG -s SEGMENT -n N: creates the segment (tables of
 * conf/statctr.conf's dataplane), takes one slot and runs N whole
 * transactions, each moving flowStats row 0 and totals row 0 together by
 * one packet of 100 octets.  Then it opens transaction N+1, moves only the
 * flow row, prints "in-transaction" on stdout and waits for a signal
 * without ever closing it.  Readers must then see, without waiting more
 * than their budget: flowStats.packets.0 = N+1, flowStats.octets.0 =
 * 100(N+1), totals.packets.all = N, totals.octets.all = 100N (the torn
 * transaction as read); while the writer lives the slot is busy, once it
 * is killed the slot is dead_torn and the values are final.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "statctr.h"

#define OCTETS 100

struct cells {
	statctr_id flow_pkts, flow_octets, tot_pkts, tot_octets;
};

static int lookup(struct statctr_seg *seg, struct cells *c)
{
	if (statctr_seg_lookup(seg, "flowStats", "packets", 0, &c->flow_pkts) ||
	    statctr_seg_lookup(seg, "flowStats", "octets", 0, &c->flow_octets) ||
	    statctr_seg_lookup(seg, "totals", "packets", 0, &c->tot_pkts) ||
	    statctr_seg_lookup(seg, "totals", "octets", 0, &c->tot_octets)) {
		fprintf(stderr, "txn_writer: %s\n", statctr_errmsg());
		return -1;
	}
	return 0;
}

static void run(struct statctr_slot *slot, const struct cells *c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		statctr_txn_begin(slot);
		statctr_inc(slot, c->flow_pkts);
		statctr_add(slot, c->flow_octets, OCTETS);
		statctr_inc(slot, c->tot_pkts);
		statctr_add(slot, c->tot_octets, OCTETS);
		statctr_txn_end(slot);
	}
	statctr_txn_begin(slot);
	statctr_inc(slot, c->flow_pkts);
	statctr_add(slot, c->flow_octets, OCTETS);
	/* The totals row of this transaction is never written. */
}

int main(int argc, char **argv)
{
	const char *config = NULL, *segment = NULL;
	unsigned long n = 1000;
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	struct cells c;
	int opt;

	while ((opt = getopt(argc, argv, "c:s:n:")) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 's':
			segment = optarg;
			break;
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: txn_writer -c CONFIG -s SEGMENT [-n N]\n");
			return 2;
		}
	}
	if (!config || !segment) {
		fprintf(stderr, "usage: txn_writer -c CONFIG -s SEGMENT [-n N]\n");
		return 2;
	}
	if (statctr_seg_create(config, segment, &seg) != 0 || lookup(seg, &c) != 0 ||
	    statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "txn_writer: %s\n", statctr_errmsg());
		return 1;
	}
	run(slot, &c, n);
	printf("in-transaction\n");
	fflush(stdout);
	for (;;)
		pause(); /* until SIGKILL: the transaction stays open */
}
