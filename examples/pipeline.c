/*
 * pipeline.c - a multi-threaded example writer for the "dataplane" segment
 * of conf/statctr.conf.
 *
 * Every worker thread owns a slot and processes synthetic packets: plain
 * adds for its interface's counters, and one transaction per packet that
 * moves a flow row and the totals row together, so readers can check
 * totals == sum of flows.  With -n the workers stop after N packets each and
 * the process idles until SIGINT/SIGTERM, leaving final values to read.
 *
 * With -R TABLE:ROWS:MS[:STEPS] one more thread (one more slot) churns the
 * rows of dynamic table TABLE: it adds rows "vf0".."vf<ROWS-1>", then every
 * MS milliseconds adds the incarnation number N (from 1) of every present
 * row to each of its counters in one transaction per row, then removes the
 * next row in turn and adds it again under the same name (a new index,
 * first-in first-out), with N + 1.  Each add raises the row's gauges by N.
 * So every incarnation reads: gauges N, counters multiples of N; and add
 * number j (from 0) is "vf<j % ROWS>" with N = j / ROWS + 1, at index
 * j % max while ROWS < max.  After STEPS steps (0: never) it stops, leaving
 * final values.  Each add and remove is logged to stdout.
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

/* -R: the rows of one dynamic table, added and removed in turn. */
struct churn {
	char table[STATCTR_MAX_NAME + 1];
	unsigned nrows; /* rows kept present: vf0..vf<nrows-1> */
	unsigned period_ms;
	unsigned steps; /* 0: until stopped */
	const struct statctr_table_decl *decl;
	uint32_t *row; /* vfK's index */
	uint64_t *gen; /* vfK's incarnation number, from 1 */
	pthread_t thread;
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

/*
 * ifStats.speed, where the declaration has it (conf/statctr.conf): every
 * interface a 10 Gb/s link, so that NMSs scale their graphs (ifHighSpeed).
 */
static void set_link_speeds(void)
{
	statctr_id id;

	for (uint32_t row = 0; statctr_seg_lookup(seg, "ifStats", "speed", row, &id) == 0; row++)
		statctr_gauge_set(seg, id, 10000);
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

/* The cell of row @row, column @c of the churned table. */
static statctr_id churn_cell(const struct churn *ch, uint32_t row, uint32_t c)
{
	return ch->decl->first_cell + row * ch->decl->ncolumns + c;
}

/* vfK with incarnation gen[K]: its gauges start at N (counters at 0). */
static int churn_add(struct churn *ch, struct statctr_slot *slot, unsigned k)
{
	char name[16];

	snprintf(name, sizeof(name), "vf%u", k);
	if (statctr_row_add(seg, ch->table, name, &ch->row[k]) != 0) {
		fprintf(stderr, "pipeline: -R: %s\n", statctr_errmsg());
		return -1;
	}
	statctr_txn_begin(slot);
	for (uint32_t c = 0; c < ch->decl->ncolumns; c++)
		if (ch->decl->columns[c].kind == STATCTR_KIND_GAUGE)
			statctr_gauge_add(slot, churn_cell(ch, ch->row[k], c), (int64_t)ch->gen[k]);
	statctr_txn_end(slot);
	printf("add %s row %" PRIu32 " gen %" PRIu64 "\n", name, ch->row[k], ch->gen[k]);
	fflush(stdout);
	return 0;
}

/* Every present row's counters go up by its incarnation number, a row per transaction. */
static void churn_count(const struct churn *ch, struct statctr_slot *slot)
{
	for (unsigned k = 0; k < ch->nrows; k++) {
		statctr_txn_begin(slot);
		for (uint32_t c = 0; c < ch->decl->ncolumns; c++)
			if (ch->decl->columns[c].kind == STATCTR_KIND_COUNTER)
				statctr_add(slot, churn_cell(ch, ch->row[k], c), ch->gen[k]);
		statctr_txn_end(slot);
	}
}

/* Removes vfK (this thread no longer updates it) and adds it back, N + 1. */
static int churn_step(struct churn *ch, struct statctr_slot *slot, unsigned k)
{
	if (statctr_row_remove(seg, ch->table, ch->row[k]) != 0) {
		fprintf(stderr, "pipeline: -R: %s\n", statctr_errmsg());
		return -1;
	}
	printf("remove vf%u row %" PRIu32 " gen %" PRIu64 "\n", k, ch->row[k], ch->gen[k]);
	ch->gen[k]++;
	return churn_add(ch, slot, k);
}

static void *churn_rows(void *arg)
{
	struct churn *ch = arg;
	struct statctr_slot *slot;
	struct timespec period = {ch->period_ms / 1000, (long)(ch->period_ms % 1000) * 1000000};
	unsigned k, step;
	int err = 0;

	if (statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "pipeline: -R: %s\n", statctr_errmsg());
		return NULL;
	}
	for (k = 0; k < ch->nrows && !err; k++)
		err = churn_add(ch, slot, k);
	for (step = 0; !err && !stop && (ch->steps == 0 || step < ch->steps); step++) {
		nanosleep(&period, NULL);
		churn_count(ch, slot);
		err = churn_step(ch, slot, step % ch->nrows);
	}
	statctr_slot_release(slot);
	return NULL;
}

/* -R TABLE:ROWS:MS[:STEPS] against the segment's declaration in @config. */
static int churn_parse(struct churn *ch, const char *spec, const struct statctr_config *cfg,
                       const char *segment)
{
	const struct statctr_segment_decl *sd = statctr_config_find(cfg, segment);
	int n = sscanf(spec, "%63[^:]:%u:%u:%u", ch->table, &ch->nrows, &ch->period_ms, &ch->steps);

	if (n < 3 || ch->nrows == 0 || ch->period_ms == 0) {
		fprintf(stderr, "pipeline: -R wants TABLE:ROWS:MS[:STEPS], not %s\n", spec);
		return -1;
	}
	for (uint32_t t = 0; sd && t < sd->ntables; t++)
		if (strcmp(sd->tables[t].name, ch->table) == 0)
			ch->decl = &sd->tables[t];
	if (!ch->decl || !ch->decl->dynamic || ch->nrows > ch->decl->nrows) {
		fprintf(stderr, "pipeline: -R: %s is not a dynamic table with room for %u rows\n",
		        ch->table, ch->nrows);
		return -1;
	}
	ch->row = calloc(ch->nrows, sizeof(*ch->row));
	ch->gen = calloc(ch->nrows, sizeof(*ch->gen));
	for (unsigned k = 0; ch->gen && k < ch->nrows; k++)
		ch->gen[k] = 1;
	return ch->row && ch->gen ? 0 : -1;
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
	fprintf(stderr,
	        "usage: pipeline [-c CONFIG] [-s SEGMENT] [-t THREADS] "
	        "[-n PACKETS_PER_THREAD] [-r PACKETS_PER_S] [-d SECONDS] "
	        "[-g TABLE.COLUMN.ROW=VALUE]... [-R TABLE:ROWS:MS[:STEPS]]\n"
	        "  -R  churn the rows vf0..vf<ROWS-1> of dynamic table TABLE: every MS ms\n"
	        "      count N on each counter of every row, then remove the next row and\n"
	        "      add it again (new index, N + 1; gauges start at N); stop after STEPS\n"
	        "      steps (0: never).  Adds and removes are logged to stdout.  One\n"
	        "      slot more than THREADS.\n");
}

static int run(unsigned seconds, char **gauges, int ngauges, struct churn *ch)
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
	if (!rc && ch && pthread_create(&ch->thread, NULL, churn_rows, ch) != 0)
		rc = 1;
	/* With -n the workers finish early; the values stay readable until then. */
	while (!stop && (seconds == 0 || waited < seconds * 10)) {
		usleep(100000);
		waited++;
	}
	stop = 1;
	for (t = 0; t < started; t++)
		pthread_join(workers[t].thread, NULL);
	if (!rc && ch)
		pthread_join(ch->thread, NULL);
	free(workers);
	return rc;
}

int main(int argc, char **argv)
{
	const char *config = "conf/statctr.conf", *segment = "dataplane", *churn_spec = NULL;
	struct statctr_config *cfg = NULL;
	struct churn churn = {.steps = 0};
	char *gauges[16];
	int opt, ngauges = 0, rc;
	unsigned seconds = 0;

	while ((opt = getopt(argc, argv, "c:s:t:n:r:d:g:R:h")) != -1) {
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
		case 'R':
			churn_spec = optarg;
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
	if (churn_spec && statctr_config_load(config, &cfg) != 0) {
		fprintf(stderr, "pipeline: %s\n", statctr_errmsg());
		return 1;
	}
	if (churn_spec && churn_parse(&churn, churn_spec, cfg, segment) != 0) {
		statctr_config_free(cfg);
		return 2;
	}
	if (statctr_seg_create(config, segment, &seg) != 0) {
		fprintf(stderr, "pipeline: %s\n", statctr_errmsg());
		return 1;
	}
	set_link_speeds();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "pipeline: writing segment %s with %u threads\n", segment, nthreads);
	rc = run(seconds, gauges, ngauges, churn_spec ? &churn : NULL);
	statctr_seg_destroy(seg);
	statctr_config_free(cfg);
	free(churn.row);
	free(churn.gen);
	return rc;
}
