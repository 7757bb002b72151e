/*
 * live_reader.c - a library reader that keeps one view open while its
 * segment and control file are rewritten under it, for
 * tests/security/corrupt_live.sh.
 *
 * live_reader -m MAX_PER_S -t START_S [-g MAX_GAUGE] [-i MS] SEGMENT: every
 * MS milliseconds (default 10), until SIGTERM, calls statctr_view_refresh()
 * then statctr_snap_retake() on the same view and snapshot.  Each call must
 * return 0 (refresh: or 1, a new generation) or a negative errno with a
 * message.  Each snapshot must hold only values the writer could have
 * produced: no counter above MAX_PER_S x (seconds since START_S + 1), none
 * below its value in an earlier snapshot of the same generation (the test
 * makes no resets, so only the writer moves a value), no gauge beyond
 * +-MAX_GAUGE.  Each broken rule is printed as it happens.  On SIGTERM it
 * prints one summary line on stdout and exits 0, or 1 if a rule was broken.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "statctr.h"

#define MAX_ERRNO 4095

struct limits {
	uint64_t max_per_s;
	time_t start_s;
	int64_t max_gauge;
};

struct tally {
	unsigned long calls, snapshots, generations, stale, proto, other, violations;
	int last;         /* result of the last snapshot */
	char logged[256]; /* the last error message printed: each is printed once in a row */
	uint64_t generation;
	uint32_t ncells;
	uint64_t *prev; /* counters of the last snapshot of this generation */
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void violation(struct tally *t, const char *what, statctr_id id, uint64_t value)
{
	t->violations++;
	fprintf(stderr,
	        "live_reader: VIOLATION: %s: cell %" PRIu32 " = %" PRIu64 " (0x%" PRIx64 ")\n",
	        what, id, value, value);
}

/* A call's result: 0, @ok_max, or a negative errno with a message. */
static void check_result(struct tally *t, const char *call, int rc, int ok_max)
{
	const char *msg = statctr_errmsg();

	t->calls++;
	if (rc >= 0 && rc <= ok_max)
		return;
	if (rc < -MAX_ERRNO || rc > 0 || msg[0] == '\0') {
		t->violations++;
		fprintf(stderr, "live_reader: VIOLATION: %s returned %d (%s)\n", call, rc, msg);
		return;
	}
	if (rc == -ESTALE)
		t->stale++;
	else if (rc == -EPROTO)
		t->proto++;
	else
		t->other++;
	if (strncmp(t->logged, msg, sizeof(t->logged) - 1) != 0)
		fprintf(stderr, "live_reader: %s: %s\n", call, msg);
	snprintf(t->logged, sizeof(t->logged), "%s", msg);
}

/* A new generation (or layout) starts a new history of counter values. */
static int track_generation(struct tally *t, const struct statctr_snap_stats *st)
{
	if (t->prev && st->generation == t->generation && st->ncells == t->ncells)
		return 0;
	free(t->prev);
	t->prev = calloc(st->ncells, sizeof(*t->prev));
	if (!t->prev)
		return -1;
	t->generation = st->generation;
	t->ncells = st->ncells;
	t->generations++;
	return 0;
}

static void check_values(struct tally *t, const struct statctr_view *view,
                         const struct statctr_snap *snap, const struct limits *lim)
{
	struct statctr_snap_stats st;
	uint64_t bound = lim->max_per_s * (uint64_t)(time(NULL) - lim->start_s + 1);

	statctr_snap_stats(snap, &st);
	if (track_generation(t, &st) != 0) {
		violation(t, "out of memory", 0, 0);
		return;
	}
	for (statctr_id id = 0; id < st.ncells; id++) {
		enum statctr_kind kind = statctr_view_cell_kind(view, id);
		uint64_t v = statctr_snap_counter(snap, id);
		int64_t g = statctr_snap_gauge(snap, id);

		if (kind == STATCTR_KIND_GAUGE && (g > lim->max_gauge || g < -lim->max_gauge))
			violation(t, "gauge beyond the writer's range", id, (uint64_t)g);
		if (kind != STATCTR_KIND_COUNTER)
			continue;
		if (v > bound)
			violation(t, "counter above what the writer could have counted", id, v);
		if (v < t->prev[id])
			violation(t, "counter went backwards without a reset", id, v);
		t->prev[id] = v;
	}
}

static void read_once(struct tally *t, struct statctr_view *view, struct statctr_snap **snap,
                      const struct limits *lim)
{
	check_result(t, "statctr_view_refresh", statctr_view_refresh(view), 1);
	t->last = statctr_snap_retake(view, snap);
	check_result(t, "statctr_snap_retake", t->last, 0);
	if (t->last == 0) {
		t->snapshots++;
		check_values(t, view, *snap, lim);
	}
}

static int parse_args(int argc, char **argv, struct limits *lim, long *interval_ms)
{
	int opt;

	while ((opt = getopt(argc, argv, "m:t:g:i:")) != -1) {
		if (opt == 'm')
			lim->max_per_s = strtoull(optarg, NULL, 10);
		else if (opt == 't')
			lim->start_s = (time_t)strtoll(optarg, NULL, 10);
		else if (opt == 'g')
			lim->max_gauge = strtoll(optarg, NULL, 10);
		else if (opt == 'i')
			*interval_ms = strtol(optarg, NULL, 10);
		else
			return -1;
	}
	if (optind != argc - 1 || lim->max_per_s == 0 || lim->start_s == 0 || *interval_ms <= 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct limits lim = {.max_gauge = 64};
	struct tally t = {0};
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	long interval_ms = 10;

	if (parse_args(argc, argv, &lim, &interval_ms) != 0) {
		fprintf(stderr, "usage: live_reader -m MAX_PER_S -t START_S [-g MAX_GAUGE] "
		                "[-i MS] SEGMENT\n");
		return 2;
	}
	if (statctr_view_open(argv[optind], &view) != 0) {
		fprintf(stderr, "live_reader: %s\n", statctr_errmsg());
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while (!stop) {
		struct timespec pause = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};

		read_once(&t, view, &snap, &lim);
		nanosleep(&pause, NULL);
	}
	printf("calls %lu snapshots %lu generations %lu stale %lu proto %lu other %lu "
	       "violations %lu last %d\n",
	       t.calls, t.snapshots, t.generations, t.stale, t.proto, t.other, t.violations,
	       t.last);
	statctr_snap_free(snap);
	statctr_view_close(view);
	free(t.prev);
	return t.violations ? 1 : 0;
}
