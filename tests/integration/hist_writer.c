/*
 * hist_writer.c - a writer that records known values into histograms, for
 * tests/integration/hist.sh.
 *
 * hist_writer -c CONFIG -s SEGMENT: creates the segment (hist.sh's
 * declaration: a static table "requests" with rows get and put, columns
 * calls (counter), latency (histogram, bounds 1 2 5 10) and depth
 * (gauge); a dynamic table "sessions" with a histogram column "wait",
 * bounds 10 100), adds the dynamic rows "alpha" then "beta" and removes
 * "alpha" (so only its row 1, index 2 over SNMP, is present), records the set below, prints
 * "recorded 1" and waits.  Each SIGUSR1 records the set once more and
 * prints "recorded N"; SIGTERM or SIGINT closes the segment and exits 0.
 *
 *   requests.get.latency  0 1 1 2 3 5 6 10 11 100  (calls += 1 for each)
 *   requests.put.latency  7 7 7 5000000000
 *   sessions.beta.wait    5 50 500
 *
 * Recorded outside transactions (statctr_hist_record() opens its own) but
 * for put, whose four values are one transaction with its calls.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "statctr.h"

struct cells {
	statctr_id get_calls, get_latency, put_calls, put_latency, beta_wait;
};

static const uint64_t get_values[] = {0, 1, 1, 2, 3, 5, 6, 10, 11, 100};
static const uint64_t put_values[] = {7, 7, 7, 5000000000u};
static const uint64_t wait_values[] = {5, 50, 500};

#define NVALUES(a) (sizeof(a) / sizeof((a)[0]))

static int fail(const char *what)
{
	fprintf(stderr, "hist_writer: %s: %s\n", what, statctr_errmsg());
	return -1;
}

/* Adds alpha and beta, removes alpha: beta is the only present row, at index 1. */
static int add_rows(struct statctr_seg *seg, uint32_t *beta)
{
	uint32_t alpha;

	if (statctr_row_add(seg, "sessions", "alpha", &alpha) < 0 ||
	    statctr_row_add(seg, "sessions", "beta", beta) < 0 ||
	    statctr_row_remove(seg, "sessions", alpha) < 0)
		return fail("rows");
	return 0;
}

static int lookup(struct statctr_seg *seg, struct cells *c)
{
	uint32_t beta;

	if (statctr_seg_lookup(seg, "requests", "calls", 0, &c->get_calls) < 0 ||
	    statctr_seg_lookup(seg, "requests", "latency", 0, &c->get_latency) < 0 ||
	    statctr_seg_lookup(seg, "requests", "calls", 1, &c->put_calls) < 0 ||
	    statctr_seg_lookup(seg, "requests", "latency", 1, &c->put_latency) < 0)
		return fail("lookup");
	if (add_rows(seg, &beta) < 0)
		return -1;
	if (statctr_seg_lookup(seg, "sessions", "wait", beta, &c->beta_wait) < 0)
		return fail("lookup");
	return 0;
}

static void record(struct statctr_slot *slot, const struct cells *c)
{
	for (size_t i = 0; i < NVALUES(get_values); i++) {
		statctr_inc(slot, c->get_calls);
		statctr_hist_record(slot, c->get_latency, get_values[i]);
	}
	statctr_txn_begin(slot);
	for (size_t i = 0; i < NVALUES(put_values); i++) {
		statctr_inc(slot, c->put_calls);
		statctr_hist_record(slot, c->put_latency, put_values[i]);
	}
	statctr_txn_end(slot);
	for (size_t i = 0; i < NVALUES(wait_values); i++)
		statctr_hist_record(slot, c->beta_wait, wait_values[i]);
}

/* Records once, then once per SIGUSR1, until SIGTERM or SIGINT. */
static int serve(struct statctr_slot *slot, const struct cells *c)
{
	sigset_t set;
	int sig = SIGUSR1;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	for (unsigned n = 1; sig == SIGUSR1; n++) {
		record(slot, c);
		printf("recorded %u\n", n);
		fflush(stdout);
		if (sigwait(&set, &sig) != 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *config = NULL, *segment = NULL;
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	struct cells c;
	int opt, err;

	while ((opt = getopt(argc, argv, "c:s:")) != -1) {
		if (opt == 'c')
			config = optarg;
		else if (opt == 's')
			segment = optarg;
		else
			return 2;
	}
	if (!config || !segment) {
		fprintf(stderr, "usage: hist_writer -c CONFIG -s SEGMENT\n");
		return 2;
	}
	if (statctr_seg_create(config, segment, &seg) < 0) {
		fail("create");
		return 1;
	}
	err = lookup(seg, &c);
	if (err == 0 && statctr_slot_acquire(seg, &slot) < 0)
		err = fail("slot");
	if (err == 0)
		err = serve(slot, &c);
	statctr_seg_destroy(seg);
	return err ? 1 : 0;
}
