/*
 * harness.c - the shared bench harness (see harness.h).
 *
 * Owns the scratch directory and every child process a bench program
 * starts: both are removed/stopped on every exit path (bench_finish,
 * bench_die), so a bench run leaves nothing behind.
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define MAX_CHILDREN 16

static struct bench_env *cur_env;
static unsigned failed_checks;
static pid_t children[MAX_CHILDREN];

static void stop_children(void)
{
	unsigned i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			bench_stop(children[i]);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static void remove_tmp(void)
{
	if (cur_env && cur_env->tmp_dir[0]) {
		nftw(cur_env->tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		cur_env->tmp_dir[0] = '\0';
	}
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	stop_children();
	remove_tmp();
	exit(2);
}

static void make_tmp_dir(struct bench_env *env)
{
	const char *base = getenv("BENCH_TMP");

	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(env->tmp_dir, sizeof(env->tmp_dir), "%s/statctr-bench-%s.XXXXXX", base, env->name);
	if (!mkdtemp(env->tmp_dir))
		bench_die("mkdtemp %s: %s", env->tmp_dir, strerror(errno));
}

/* Async-signal-safe: stop the children; the scratch directory lives under
 * $BENCH_TMP when bench/run.sh runs us, and run.sh removes that. */
static void on_signal(int sig)
{
	unsigned i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
	_exit(128 + sig);
}

int bench_options(int argc, char **argv, const char *name, const char **out, bool *quick)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
	                                     {"quick", no_argument, NULL, 'q'},
	                                     {NULL, 0, NULL, 0}};
	int opt;

	*out = "bench-results";
	*quick = false;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'o')
			*out = optarg;
		else if (opt == 'q')
			*quick = true;
		else {
			fprintf(stderr, "usage: %s [--out DIR] [--quick]\n", name);
			return 2;
		}
	}
	return 0;
}

void bench_init(struct bench_env *env, const char *name, const char *out_dir, bool quick)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memset(env, 0, sizeof(*env));
	env->name = name;
	env->out_dir = out_dir;
	env->quick = quick;
	env->ncpus = n < 1 ? 1 : n > CPU_SETSIZE ? CPU_SETSIZE : (unsigned)n;
	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
		bench_die("mkdir %s: %s", out_dir, strerror(errno));
	make_tmp_dir(env);
	cur_env = env;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

int bench_finish(struct bench_env *env)
{
	stop_children();
	remove_tmp();
	cur_env = NULL;
	if (failed_checks)
		fprintf(stderr, "bench %s: %u sanity check(s) FAILED\n", env->name, failed_checks);
	return failed_checks ? 1 : 0;
}

/* ---- CPUs and clocks --------------------------------------------------- */

int bench_pin_self(unsigned cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(cpu % (unsigned)(n < 1 ? 1 : n), &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t bench_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return bench_now_ns();
#endif
}

double bench_tsc_ghz(void)
{
	static double ghz;
	uint64_t t0, c0, t1, c1;

	if (ghz > 0)
		return ghz;
	t0 = clock_ns(CLOCK_MONOTONIC_RAW);
	c0 = bench_tsc();
	bench_sleep_ns(100000000);
	t1 = clock_ns(CLOCK_MONOTONIC_RAW);
	c1 = bench_tsc();
	ghz = (double)(c1 - c0) / (double)(t1 - t0);
	return ghz;
}

uint64_t bench_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

uint64_t bench_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	int rc;

	do
		rc = nanosleep(&ts, &ts);
	while (rc != 0 && errno == EINTR);
}

/* ---- statistics -------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct bench_stats bench_stats_of(double *samples, size_t n)
{
	struct bench_stats st = {NAN, NAN, NAN, NAN};

	if (n == 0)
		return st;
	qsort(samples, n, sizeof(*samples), cmp_double);
	st.min = samples[0];
	st.max = samples[n - 1];
	st.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
	st.spread_pct = st.median > 0 ? (st.max - st.min) / st.median * 100 : 0;
	return st;
}

double bench_percentile(double *samples, size_t n, double p)
{
	size_t rank;

	if (n == 0)
		return NAN;
	qsort(samples, n, sizeof(*samples), cmp_double);
	rank = (size_t)ceil(p / 100 * (double)n);
	return samples[rank == 0 ? 0 : rank > n ? n - 1 : rank - 1];
}

/* ---- output -------------------------------------------------------------- */

FILE *bench_csv_open(const struct bench_env *env, const char *file, const char *header)
{
	char path[512];
	FILE *csv;

	snprintf(path, sizeof(path), "%s/%s", env->out_dir, file);
	csv = fopen(path, "w");
	if (!csv)
		bench_die("%s: %s", path, strerror(errno));
	fprintf(csv, "%s\n", header);
	return csv;
}

void bench_csv_close(FILE *csv)
{
	if (fclose(csv) != 0)
		bench_die("writing a CSV file: %s", strerror(errno));
}

static void record_target(const struct bench_env *env, const char *what, double value,
                          const char *op, double limit, const char *verdict)
{
	char path[512];
	FILE *f;

	if (strcmp(verdict, "info") == 0)
		printf("INFO   %-58s %10.3f (reference, not a target)\n", what, value);
	else
		printf("TARGET %-58s %10.3f %s %-8g %s\n", what, value, op, limit, verdict);
	snprintf(path, sizeof(path), "%s/targets.csv", env->out_dir);
	f = fopen(path, "a");
	if (!f)
		bench_die("%s: %s", path, strerror(errno));
	fprintf(f, "%s,\"%s\",%.4f,%s,%g,%s\n", env->name, what, value, op, limit, verdict);
	fclose(f);
}

bool bench_target(const struct bench_env *env, const char *what, double value, const char *op,
                  double limit)
{
	bool met = strcmp(op, ">=") == 0  ? value >= limit
	           : strcmp(op, ">") == 0 ? value > limit
	           : strcmp(op, "<") == 0 ? value < limit
	                                  : value <= limit;

	record_target(env, what, value, op, limit, env->quick ? "quick" : met ? "PASS" : "FAIL");
	return met;
}

void bench_info(const struct bench_env *env, const char *what, double value)
{
	record_target(env, what, value, "=", value, "info");
}

void bench_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failed_checks++;
	fprintf(stderr, "CHECK FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- statctr segments and processes -------------------------------------- */

void bench_write_config(const struct bench_env *env, const char *seg_file, unsigned nslots,
                        unsigned nflows, const char *agent, char *path, size_t pathlen)
{
	bench_write_config_ex(env, seg_file, nslots, "", nflows, agent, path, pathlen);
}

void bench_write_config_ex(const struct bench_env *env, const char *seg_file, unsigned nslots,
                           const char *seg_extra, unsigned nflows, const char *agent, char *path,
                           size_t pathlen)
{
	FILE *f;

	snprintf(path, pathlen, "%s/%s.conf", env->tmp_dir, seg_file);
	f = fopen(path, "w");
	if (!f)
		bench_die("%s: %s", path, strerror(errno));
	fprintf(f,
	        "segments = ( { name = \"bench\"; oid = 1; slots = %u; %s path = \"%s/%s\";\n"
	        "  tables = (\n"
	        "    { name = \"totals\"; oid = 1; rows = [ \"all\" ];\n"
	        "      columns = ( { name = \"packets\"; kind = \"counter\"; },\n"
	        "                  { name = \"octets\"; kind = \"counter\"; } ); },\n"
	        "    { name = \"flows\"; oid = 2; rows = %u;\n"
	        "      columns = ( { name = \"packets\"; kind = \"counter\"; },\n"
	        "                  { name = \"octets\"; kind = \"counter\"; } ); } ); } );\n",
	        nslots, seg_extra, env->tmp_dir, seg_file, nflows);
	if (agent)
		fprintf(f, "agent = { %s };\n", agent);
	if (fclose(f) != 0)
		bench_die("%s: %s", path, strerror(errno));
}

int bench_slot_acquire(struct statctr_seg *seg, struct statctr_slot **slotp)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const char *racy = getenv("BENCH_RACY_ACQUIRE");
	bool serialise = !racy || strcmp(racy, "1") != 0;
	int err;

	if (serialise)
		pthread_mutex_lock(&lock);
	err = statctr_slot_acquire(seg, slotp);
	if (serialise)
		pthread_mutex_unlock(&lock);
	return err;
}

static void track_child(pid_t pid, pid_t replace)
{
	unsigned i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == replace) {
			children[i] = pid;
			return;
		}
	if (pid > 0)
		bench_die("more than %d child processes", MAX_CHILDREN);
}

pid_t bench_spawn(char *const argv[], int in_fd, int out_fd, int err_fd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if ((in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0) ||
		    (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0) ||
		    (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "bench: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	track_child(pid, 0);
	return pid;
}

int bench_wait(pid_t pid, unsigned timeout_ms)
{
	unsigned waited;
	int status;

	for (waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD)) {
			track_child(0, pid);
			return r == pid ? status : 0;
		}
		if (waited >= timeout_ms)
			return -1;
		bench_sleep_ns(10000000);
	}
}

int bench_stop(pid_t pid)
{
	int status;

	if (kill(pid, SIGTERM) != 0 && errno == ESRCH) {
		status = bench_wait(pid, 0);
		return status < 0 ? 0 : status;
	}
	status = bench_wait(pid, 5000);
	if (status < 0) {
		kill(pid, SIGKILL);
		status = bench_wait(pid, 5000);
	}
	return status;
}
