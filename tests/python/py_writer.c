/*
 * py_writer.c - a writer with known values, for tests/python (the Python
 * reader's tests).  Owns nothing but its own segment; never reads one.
 *
 * py_writer -c CONFIG -s SEGMENT [-t]: creates the segment of
 * test_statctr.py's declaration, takes one slot and sets:
 *
 *   ports (rows dp0 dp1 dp2): rxPackets = 1000 (r + 1),
 *       rxOctets = 2^63 + r (above 2^53: exact only as integers),
 *       queue (gauge) = -5 (r + 1)
 *   cpus (rows = 4, numbered): ticks = r * r + 1
 *   vfs (rows { max = 4 }): adds "vf-a" then "vf-b", removes "vf-a", so
 *       only "vf-b" is present, at index 1: bytes = 77; its histogram
 *       lat (bounds 1 10) records 0 5 5 50
 *
 * prints "ready" and then, with -t, runs transactions flat out until
 * SIGTERM, each adding 1 to pair.a and 3 to pair.b (row 0), so that every
 * consistent snapshot reads b == 3 a; without -t it waits for SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "statctr.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "py_writer: %s: %s\n", what, statctr_errmsg());
	return 1;
}

static int set_ports(struct statctr_seg *seg, struct statctr_slot *slot)
{
	statctr_id pk, oc, q;

	for (uint32_t r = 0; r < 3; r++) {
		if (statctr_seg_lookup(seg, "ports", "rxPackets", r, &pk) ||
		    statctr_seg_lookup(seg, "ports", "rxOctets", r, &oc) ||
		    statctr_seg_lookup(seg, "ports", "queue", r, &q))
			return fail("ports");
		statctr_add(slot, pk, 1000u * (r + 1));
		statctr_add(slot, oc, (UINT64_C(1) << 63) + r);
		statctr_gauge_add(slot, q, -5 * (int64_t)(r + 1));
	}
	return 0;
}

static int set_cpus(struct statctr_seg *seg, struct statctr_slot *slot)
{
	statctr_id id;

	for (uint32_t r = 0; r < 4; r++) {
		if (statctr_seg_lookup(seg, "cpus", "ticks", r, &id))
			return fail("cpus");
		statctr_add(slot, id, r * r + 1);
	}
	return 0;
}

static int set_vfs(struct statctr_seg *seg, struct statctr_slot *slot)
{
	static const uint64_t lat[] = {0, 5, 5, 50};
	uint32_t a, b;
	statctr_id bytes, hist;

	if (statctr_row_add(seg, "vfs", "vf-a", &a) || statctr_row_add(seg, "vfs", "vf-b", &b) ||
	    statctr_row_remove(seg, "vfs", a) ||
	    statctr_seg_lookup(seg, "vfs", "bytes", b, &bytes) ||
	    statctr_seg_lookup(seg, "vfs", "lat", b, &hist))
		return fail("vfs");
	statctr_txn_begin(slot);
	statctr_add(slot, bytes, 77);
	statctr_txn_end(slot);
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		statctr_hist_record(slot, hist, lat[i]);
	return 0;
}

static int run_pairs(struct statctr_seg *seg, struct statctr_slot *slot)
{
	statctr_id a, b;

	if (statctr_seg_lookup(seg, "pair", "a", 0, &a) ||
	    statctr_seg_lookup(seg, "pair", "b", 0, &b))
		return fail("pair");
	while (!stop) {
		for (int i = 0; i < 1024; i++) {
			statctr_txn_begin(slot);
			statctr_add(slot, a, 1);
			statctr_add(slot, b, 3);
			statctr_txn_end(slot);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *config = NULL, *segment = NULL;
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	sigset_t term, old;
	int opt, txn = 0, rc;

	while ((opt = getopt(argc, argv, "c:s:t")) != -1) {
		if (opt == 'c')
			config = optarg;
		else if (opt == 's')
			segment = optarg;
		else if (opt == 't')
			txn = 1;
		else
			return 2;
	}
	if (!config || !segment) {
		fprintf(stderr, "usage: py_writer -c CONFIG -s SEGMENT [-t]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	if (statctr_seg_create(config, segment, &seg))
		return fail("create");
	if (statctr_slot_acquire(seg, &slot))
		return fail("slot");
	rc = set_ports(seg, slot) || set_cpus(seg, slot) || set_vfs(seg, slot);
	if (rc == 0) {
		printf("ready\n");
		fflush(stdout);
		if (txn)
			rc = run_pairs(seg, slot);
		/* SIGTERM blocked between the test of stop and the wait. */
		sigprocmask(SIG_BLOCK, &term, &old);
		while (!stop)
			sigsuspend(&old);
	}
	statctr_slot_release(slot);
	statctr_seg_destroy(seg);
	return rc;
}
