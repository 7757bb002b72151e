/*
 * harness.h - what every bench program shares: options, CPUs and pinning,
 * clocks, statistics, CSV output, targets and sanity checks, scratch files
 * and child processes.
 *
 * A bench program prints a table to stdout and writes <out>/<name>.csv.
 * Targets are ratios measured in the same run; each one is printed as a
 * PASS/FAIL line and appended to <out>/targets.csv.  Sanity checks (exact
 * totals, invariants) are not timing: a failed check makes the program exit
 * non-zero, in --quick mode too, which is what CI runs.
 */
#ifndef STATCTR_BENCH_HARNESS_H
#define STATCTR_BENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define BENCH_PRINTF(a, b) __attribute__((format(printf, a, b)))

struct bench_env {
	const char *name;    /* the program's benchmark family, e.g. "update" */
	const char *out_dir; /* --out: CSV files and targets.csv */
	bool quick;          /* --quick: tiny sizes, sanity checks, no verdicts */
	unsigned ncpus;      /* online CPUs */
	char tmp_dir[256];   /* scratch directory on tmpfs, removed at exit */
};

/*
 * The options of a benchmark that has only --out DIR and --quick: sets
 * *@out (default "bench-results") and *@quick; 0, or 2 after printing the
 * usage of @name.
 */
int bench_options(int argc, char **argv, const char *name, const char **out, bool *quick);

/* Fills @env, creates out_dir and the scratch directory; exits on failure. */
void bench_init(struct bench_env *env, const char *name, const char *out_dir, bool quick);

/* Removes the scratch directory and returns the exit status (1 if a check failed). */
int bench_finish(struct bench_env *env);

/* Prints "bench: ..." to stderr and exits with status 2 (a broken setup, not a result). */
void bench_die(const char *fmt, ...) BENCH_PRINTF(1, 2) __attribute__((noreturn));

/* ---- CPUs and clocks --------------------------------------------------- */

/* Pins the calling thread to CPU @cpu modulo the online CPUs; 0 or -errno. */
int bench_pin_self(unsigned cpu);

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

/* The time-stamp counter (CLOCK_MONOTONIC ns where there is none). */
uint64_t bench_tsc(void);

/* TSC ticks per ns, measured once against CLOCK_MONOTONIC_RAW (~100 ms). */
double bench_tsc_ghz(void);

/* CPU time (user + system) of the calling process, in ns (getrusage). */
uint64_t bench_cpu_ns(void);

/* CPU time of the calling thread, in ns (CLOCK_THREAD_CPUTIME_ID). */
uint64_t bench_thread_cpu_ns(void);

/* Sleeps @ns nanoseconds (restarts after signals). */
void bench_sleep_ns(uint64_t ns);

/* ---- statistics -------------------------------------------------------- */

struct bench_stats {
	double median, min, max;
	double spread_pct; /* (max - min) / median x 100 */
};

/* Summary of @n samples (sorted in place). */
struct bench_stats bench_stats_of(double *samples, size_t n);

/* The @p-th percentile (0..100, nearest rank) of @n samples (sorted in place). */
double bench_percentile(double *samples, size_t n, double p);

/* ---- output -------------------------------------------------------------- */

/* Opens <out>/<file> for writing and writes @header plus a newline. */
FILE *bench_csv_open(const struct bench_env *env, const char *file, const char *header);
void bench_csv_close(FILE *csv);

/*
 * bench_target() - report value @op limit (@op: "<", "<=", ">" or ">=").
 *
 * Prints a TARGET line and appends it to targets.csv; in --quick mode the
 * verdict is "quick" (no timing assertions in smoke tests).  Returns
 * whether the target was met.
 */
bool bench_target(const struct bench_env *env, const char *what, double value, const char *op,
                  double limit);

/* A reference figure printed and recorded beside the targets (verdict "info"). */
void bench_info(const struct bench_env *env, const char *what, double value);

/* Records a failed sanity check unless @ok (the run then exits non-zero). */
void bench_check(bool ok, const char *fmt, ...) BENCH_PRINTF(2, 3);

/* ---- statctr segments and processes -------------------------------------- */

/*
 * Writes a configuration declaring segment "bench" at <tmp>/@seg_file with
 * @nslots slots and tables totals (1 row) and flows (@nflows rows), each
 * with counters "packets" and "octets": 2 + 2 x nflows cells.  @agent is
 * the text of an agent group, or NULL.  Returns the config path in @path.
 */
void bench_write_config(const struct bench_env *env, const char *seg_file, unsigned nslots,
                        unsigned nflows, const char *agent, char *path, size_t pathlen);
/* bench_write_config() with @seg_extra (settings of the segment group,
 * such as "cpu_slots = true;") added to the segment. */
void bench_write_config_ex(const struct bench_env *env, const char *seg_file, unsigned nslots,
                           const char *seg_extra, unsigned nflows, const char *agent, char *path,
                           size_t pathlen);

struct statctr_seg;
struct statctr_slot;

/*
 * bench_slot_acquire() - statctr_slot_acquire(), one thread at a time.
 *
 * Concurrent acquisitions can hand two threads the same slot (lib/slot.c:
 * claim() publishes owner_tid before owner_start, and a concurrent claimer
 * that reads owner_start == 0 takes the owner for dead).  Serialising the
 * calls keeps the benchmarks' figures valid; BENCH_RACY_ACQUIRE=1 turns the
 * lock off, and the sanity checks then show the race.  Outside timing.
 */
int bench_slot_acquire(struct statctr_seg *seg, struct statctr_slot **slotp);

/* Forks and execs @argv; stdin, stdout, stderr from the fds that are >= 0. */
pid_t bench_spawn(char *const argv[], int in_fd, int out_fd, int err_fd);

/* Stops @pid: SIGTERM, up to 5 s, then SIGKILL; reaps it.  Returns its status. */
int bench_stop(pid_t pid);

/* Waits up to @timeout_ms for @pid to exit; its status, or -1 if still running. */
int bench_wait(pid_t pid, unsigned timeout_ms);

#endif /* STATCTR_BENCH_HARNESS_H */
