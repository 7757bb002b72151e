/*
 * pipeline.c - a multi-threaded example writer for the "dataplane" segment
 * of conf/statctr.conf.
 *
 * Every worker thread owns a slot and processes synthetic packets: plain
 * adds for its interface's counters, and one transaction per packet that
 * moves a flow row and the totals row together, so readers can check
 * totals == sum of flows.  With -n the workers stop after N packets each and
 * the process idles until SIGINT/SIGTERM, leaving final values to read.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "statctr.h"

#define NFLOWS 64

struct ids {
	statctr_id rx_pkts, rx_octets, tx_pkts, tx_octets, queue;
	statctr_id flow_pkts[NFLOWS], flow_octets[NFLOWS];
	statctr_id tot_pkts, tot_octets, in_flight;
};

struct worker {
	pthread_t thread;
	unsigned index;
	struct ids ids;
};

static struct statctr_seg *seg;
static unsigned nthreads = 2;
static uint64_t packets_per_thread; /* 0: no limit */
static long rate;                   /* packets/s per thread, 0: flat out */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int lookup(const char *table, const char *column, uint32_t row, statctr_id *id)
{
	int err = statctr_seg_lookup(seg, table, column, row, id);

	if (err)
		fprintf(stderr, "pipeline: %s\n", statctr_errmsg());
	return err;
}

static int lookup_ids(struct ids *ids, uint32_t ifrow)
{
	uint32_t f;

	if (lookup("ifStats", "rxPackets", ifrow, &ids->rx_pkts) ||
	    lookup("ifStats", "rxOctets", ifrow, &ids->rx_octets) ||
	    lookup("ifStats", "txPackets", ifrow, &ids->tx_pkts) ||
	    lookup("ifStats", "txOctets", ifrow, &ids->tx_octets) ||
	    lookup("ifStats", "queueDepth", ifrow, &ids->queue) ||
	    lookup("totals", "packets", 0, &ids->tot_pkts) ||
	    lookup("totals", "octets", 0, &ids->tot_octets) ||
	    lookup("totals", "inFlight", 0, &ids->in_flight))
		return -1;
	for (f = 0; f < NFLOWS; f++)
		if (lookup("flowStats", "packets", f, &ids->flow_pkts[f]) ||
		    lookup("flowStats", "octets", f, &ids->flow_octets[f]))
			return -1;
	return 0;
}

/* Flows are mostly per thread: each thread has its own band of flows. */
static unsigned pick_flow(unsigned thread, uint64_t i)
{
	unsigned band = (NFLOWS / nthreads) ? (NFLOWS / nthreads) : 1;

	return (thread * band + (unsigned)(i % band)) % NFLOWS;
}

static void process_packet(struct statctr_slot *slot, const struct ids *ids, unsigned flow,
                           uint64_t size)
{
	statctr_inc(slot, ids->rx_pkts);
	statctr_add(slot, ids->rx_octets, size);
	statctr_gauge_add(slot, ids->queue, 1);

	statctr_txn_begin(slot);
	statctr_inc(slot, ids->flow_pkts[flow]);
	statctr_add(slot, ids->flow_octets[flow], size);
	statctr_inc(slot, ids->tot_pkts);
	statctr_add(slot, ids->tot_octets, size);
	statctr_txn_end(slot);

	statctr_gauge_add(slot, ids->queue, -1);
	statctr_inc(slot, ids->tx_pkts);
	statctr_add(slot, ids->tx_octets, size);
}

static void pace(long rate_per_s, uint64_t i)
{
	struct timespec ts = {0, 1000000}; /* 1 ms */

	if (rate_per_s > 0 && i % (uint64_t)(rate_per_s / 1000 + 1) == 0)
		nanosleep(&ts, NULL);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct statctr_slot *slot;
	uint64_t i, seed = 0x9e3779b97f4a7c15ull * (w->index + 1);

	if (statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "pipeline: worker %u: %s\n", w->index, statctr_errmsg());
		return NULL;
	}
	for (i = 0; !stop && (packets_per_thread == 0 || i < packets_per_thread); i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		process_packet(slot, &w->ids, pick_flow(w->index, i), 64 + seed % 1437);
		pace(rate, i);
	}
	statctr_slot_release(slot);
	return NULL;
}

/* -g TABLE.COLUMN.ROW=VALUE */
static int set_gauge(const char *spec)
{
	char table[64], column[64];
	unsigned row;
	long long value;
	statctr_id id;

	if (sscanf(spec, "%63[^.].%63[^.].%u=%lld", table, column, &row, &value) != 4) {
		fprintf(stderr, "pipeline: -g wants TABLE.COLUMN.ROW=VALUE, not %s\n", spec);
		return -1;
	}
	if (lookup(table, column, row, &id))
		return -1;
	statctr_gauge_set(seg, id, value);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pipeline [-c CONFIG] [-s SEGMENT] [-t THREADS] "
	                "[-n PACKETS_PER_THREAD] [-r PACKETS_PER_S] [-d SECONDS] "
	                "[-g TABLE.COLUMN.ROW=VALUE]...\n");
}

static int run(unsigned seconds, char **gauges, int ngauges)
{
	struct worker *workers = calloc(nthreads, sizeof(*workers));
	unsigned t, started = 0, waited = 0;
	int i, rc = 0;

	if (!workers)
		return 1;
	for (i = 0; i < ngauges; i++)
		if (set_gauge(gauges[i]))
			rc = 1;
	for (t = 0; !rc && t < nthreads; t++) {
		workers[t].index = t;
		if (lookup_ids(&workers[t].ids, t % 4) ||
		    pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0) {
			rc = 1;
			break;
		}
		started++;
	}
	/* With -n the workers finish early; the values stay readable until then. */
	while (!stop && (seconds == 0 || waited < seconds * 10)) {
		usleep(100000);
		waited++;
	}
	stop = 1;
	for (t = 0; t < started; t++)
		pthread_join(workers[t].thread, NULL);
	free(workers);
	return rc;
}

int main(int argc, char **argv)
{
	const char *config = "conf/statctr.conf", *segment = "dataplane";
	char *gauges[16];
	int opt, ngauges = 0, rc;
	unsigned seconds = 0;

	while ((opt = getopt(argc, argv, "c:s:t:n:r:d:g:h")) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 's':
			segment = optarg;
			break;
		case 't':
			nthreads = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			packets_per_thread = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			rate = strtol(optarg, NULL, 10);
			break;
		case 'd':
			seconds = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'g':
			if (ngauges < 16)
				gauges[ngauges++] = optarg;
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (nthreads == 0) {
		usage();
		return 2;
	}
	if (statctr_seg_create(config, segment, &seg) != 0) {
		fprintf(stderr, "pipeline: %s\n", statctr_errmsg());
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "pipeline: writing segment %s with %u threads\n", segment, nthreads);
	rc = run(seconds, gauges, ngauges);
	statctr_seg_destroy(seg);
	return rc;
}
