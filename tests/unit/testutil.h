/*
 * testutil.h - shared by the CUnit suites: temp dirs, config files, main().
 */
#ifndef STATCTR_TESTUTIL_H
#define STATCTR_TESTUTIL_H

#include "statctr.h"

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Nanoseconds thread @tid of process @pid has run (schedstat); 0 if
 * unknown.  A busy slot is judged by it: a writer that ran TU_RAN_NS of CPU
 * during a snapshot and served no copy was not kept busy by the machine.
 * What a running writer may spend before it serves: after each copy it
 * looks for the next request only when it has run 39 times as long as the
 * copy took, at most 50 ms (lib/slot.c, MAX_GAP_NS), then copies (a large
 * slot in a sanitizer build: milliseconds).  So 80 ms, of a reader's 100 ms
 * budget per slot (lib/snapshot.c, SLOT_WAIT_NS): a writer that could not
 * serve stays busy the whole budget and runs all of it on an idle machine;
 * a writer the machine shares a CPU with runs less, and its busy slot is
 * only counted. */
#define TU_RAN_NS 80000000ull

static inline uint64_t tu_thread_cpu_ns(pid_t pid, pid_t tid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* Whether that judgement is asserted (else only counted and printed): not
 * under ThreadSanitizer, where a copy of a 720 KiB slot takes 3-20 ms
 * (measured on the 2-CPU machine, alone and beside test_stress; tens of
 * microseconds in other builds), so that the writer's pause after a copy
 * is mostly at its 50 ms cap, and the rates it is measured by move with
 * the instrumentation.  The TSan build is for races; the invariants are
 * checked in every build. */
#if defined(__SANITIZE_THREAD__)
#define TU_TIMING_CHECKED 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TU_TIMING_CHECKED 0
#endif
#endif
#ifndef TU_TIMING_CHECKED
#define TU_TIMING_CHECKED 1
#endif

struct test_case {
	const char *name;
	CU_TestFunc fn;
};

/* A fresh directory under $TMPDIR (or /tmp), removed by tu_cleanup(). */
static char tu_dir[256];

static inline const char *tu_tmpdir(void)
{
	if (tu_dir[0] == '\0') {
		const char *base = getenv("TMPDIR");

		snprintf(tu_dir, sizeof(tu_dir), "%s/statctr-test.XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tu_dir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tu_dir;
}

/* Writes @text to <tmpdir>/@name and returns the path (static buffer). */
static inline const char *tu_write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

/*
 * Writes a one-segment config "seg" with @nslots slots and the extra segment
 * settings @extra, whose files live in the test's temp dir, tables given by
 * @tables (libconfig text); returns the config's path (static buffer).
 * *seg_path receives the segment path.
 */
static inline const char *tu_config_ex(unsigned nslots, const char *extra, const char *tables,
                                       const char **seg_path)
{
	static char seg[300], text[8192];

	snprintf(seg, sizeof(seg), "%s/seg", tu_tmpdir());
	snprintf(text, sizeof(text),
	         "segments = ( { name = \"seg\"; path = \"%s\"; slots = %u; %s\n"
	         "  tables = ( %s ); } );\n",
	         seg, nslots, extra, tables);
	if (seg_path)
		*seg_path = seg;
	return tu_write_file("seg.conf", text);
}

static inline const char *tu_config(unsigned nslots, const char *tables, const char **seg_path)
{
	return tu_config_ex(nslots, "", tables, seg_path);
}

/* A snapshot of a file that shrank: its size check (at most once per clock
 * tick) or, between checks, the SIGBUS guard says so. */
static inline bool tu_says_changed_size(const char *msg)
{
	return strstr(msg, "changed size under its mapping") != NULL ||
	       strstr(msg, "truncated while mapped") != NULL;
}

/* Two counters and a gauge per row, rows numbered. */
#define TU_SIMPLE_TABLE(rows)                                                                      \
	"{ name = \"t\"; rows = " #rows "; columns = ( "                                           \
	"{ name = \"pkts\"; kind = \"counter\"; }, { name = \"bytes\"; kind = \"counter\"; }, "    \
	"{ name = \"level\"; kind = \"gauge\"; } ); }"

static inline void tu_cleanup(void)
{
	char cmd[300];

	if (tu_dir[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tu_dir);
}

/*
 * Suites that take snapshots run twice (tu_run_both()): with full
 * snapshots, then with sums-only ones (statctr_view_set_sums_only()).  Every
 * view such a suite opens through tu_view_open() takes the run's mode, and
 * assertions on one slot's value expect tu_slot_value() of it.
 */
static int tu_sums_only;

static inline int tu_mode_full(void)
{
	tu_sums_only = 0;
	return 0;
}

static inline int tu_mode_sums_only(void)
{
	tu_sums_only = 1;
	return 0;
}

/* statctr_view_open(), then the mode of the run (-EINVAL if refused). */
static inline int tu_view_open(const char *segment, struct statctr_view **viewp)
{
	int err = statctr_view_open(segment, viewp);

	if (err == 0 && statctr_view_set_sums_only(*viewp, tu_sums_only) != 0) {
		statctr_view_close(*viewp);
		*viewp = NULL;
		return -EINVAL;
	}
	return err;
}

/* What statctr_snap_slot_value() gives in this run for a slot value @v. */
static inline uint64_t tu_slot_value(uint64_t v)
{
	return tu_sums_only ? 0 : v;
}

static inline void tu_add_suite(const char *name, CU_InitializeFunc init,
                                const struct test_case *cases)
{
	CU_pSuite suite = CU_add_suite(name, init, NULL);

	for (; cases->name; cases++)
		CU_add_test(suite, cases->name, cases->fn);
}

/* The watchdog: make check has no time limit of its own, so a test that
 * hangs (a read nobody will answer, a lost wakeup) would stall the whole
 * suite, and CI with it.  A POSIX timer (not alarm(), which tests use, and
 * not a thread: TSan refuses to start threads in a child forked from a
 * threaded process, and tests fork writers) ends the process after
 * TU_WATCHDOG_S with automake's hard-error status; the log's last "Test:"
 * line names the test that hung.  STATCTR_TEST_WATCHDOG_S overrides the
 * limit (0: none, for a debugger).  Timers are not inherited by fork(). */
#define TU_WATCHDOG_S 1200
#define TU_STR_(x)    #x
#define TU_STR(x)     TU_STR_(x)
static inline void tu_watchdog_fired(int sig)
{
	static const char msg[] =
	    "\nwatchdog: the test above still runs after its time limit "
	    "(STATCTR_TEST_WATCHDOG_S, default " TU_STR(TU_WATCHDOG_S) " s): a hang\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) { /* nothing more to say */
	}
	_exit(99);
}

static inline void tu_watchdog_start(void)
{
	const char *env = getenv("STATCTR_TEST_WATCHDOG_S");
	long s = env ? strtol(env, NULL, 10) : TU_WATCHDOG_S;
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN};
	struct itimerspec when = {.it_value = {s, 0}};
	timer_t timer;

	if (s <= 0)
		return;
	signal(SIGRTMIN, tu_watchdog_fired);
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &when, NULL) != 0)
		fprintf(stderr, "watchdog: cannot start a timer: %s (no time limit)\n",
		        strerror(errno));
}

/* Runs the registered suites; the exit status is 0 when all passed. */
static inline int tu_run_registered(void)
{
	unsigned failed;

	tu_watchdog_start();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures() +
	         CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	tu_cleanup();
	return failed ? 1 : 0;
}

/* Runs one suite; the exit status is the number of failures (0: all passed). */
static inline int tu_run(const char *suite_name, const struct test_case *cases)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	tu_add_suite(suite_name, NULL, cases);
	return tu_run_registered();
}

/* Runs @cases with full snapshots, then again with sums-only ones. */
static inline int tu_run_both(const char *suite_name, const struct test_case *cases)
{
	char full[128], sums[128];

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	snprintf(full, sizeof(full), "%s (full snapshots)", suite_name);
	snprintf(sums, sizeof(sums), "%s (sums-only snapshots)", suite_name);
	tu_add_suite(full, tu_mode_full, cases);
	tu_add_suite(sums, tu_mode_sums_only, cases);
	return tu_run_registered();
}

#endif /* STATCTR_TESTUTIL_H */
