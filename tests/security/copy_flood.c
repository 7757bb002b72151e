/*
 * copy_flood.c - what a copy-request flood, and a reader snapshotting back
 * to back, cost a writer (tests/security/copy_flood.sh, docs/design.md).
 *
 *   copy_flood writer CONFIG DIR PHASE_MS ROUNDS
 *       creates segment "flood" of CONFIG, runs 4-update transactions flat
 *       out on CPU 0, and plays ROUNDS of the phases idle, flood, idle,
 *       read (PHASE_MS each): it creates DIR/flood.on or DIR/read.on for
 *       the other parties, and measures its transactions per second of its
 *       own CPU time (others' processes on CPU 0 do not count) and of wall
 *       time.  Prints one line per phase and the medians of flood/idle and
 *       read/idle over adjacent phases; creates DIR/done at the end, and
 *       DIR/writer.tid ("PID TID" of its writer thread) at the start.
 *   copy_flood flood SEGMENT DIR
 *       the attacker, on CPU 1: maps the control file itself and, while
 *       DIR/flood.on exists, stores new tickets in every request word and
 *       frees the buffer lock in a tight loop.  Exits when DIR/done exists.
 *   copy_flood read SEGMENT DIR
 *       a reader on CPU 1: while DIR/read.on exists, statctr_snap_retake()
 *       back to back, checking totals == sum of flows in each snapshot
 *       without busy slots.  Prints "snapshots N consistent N broken N
 *       busy N busy_ran N" (snapshot counts) when DIR/done appears:
 *       busy_ran counts the busy snapshots during which the writer thread
 *       ran RAN_NS or more of CPU (its schedstat), long enough to serve any
 *       copy; the others' writer was kept off the CPU by the machine.
 *   copy_flood info SEGMENT
 *       prints "status S writer_flags F total T": the view's status and the
 *       writer's loss flags (statctr_view_info) and the raw sum of every
 *       cell in a snapshot (tests/security/resetter.sh).
 */
#define _GNU_SOURCE
#include "statctr.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 64
#define CTL_REQS   256 /* control file: request records from here, 64 bytes each */
#define CTL_LOCK   192 /* buf_lock */

#define RAN_NS 10000000ull /* 10 ms */

static char on_path[2][600], done_path[600], tid_path[600];

static void die(const char *what)
{
	fprintf(stderr, "copy_flood: %s: %s\n", what, errno ? strerror(errno) : statctr_errmsg());
	exit(2);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		die("sched_setaffinity");
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_paths(const char *dir)
{
	snprintf(on_path[0], sizeof(on_path[0]), "%s/flood.on", dir);
	snprintf(on_path[1], sizeof(on_path[1]), "%s/read.on", dir);
	snprintf(done_path, sizeof(done_path), "%s/done", dir);
	snprintf(tid_path, sizeof(tid_path), "%s/writer.tid", dir);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		die(path);
	close(fd);
}

/* ---- the writer ---------------------------------------------------------- */

struct writer {
	struct statctr_seg *seg;
	uint32_t nflows;
	_Atomic uint64_t txns;
	_Atomic bool stop, ready;
	_Atomic pid_t tid;
	pthread_t thread;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct statctr_slot *slot;
	uint64_t x = 88172645463325252ull, n = 0;

	pin(0);
	if (statctr_slot_acquire(w->seg, &slot) != 0)
		die("statctr_slot_acquire");
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	atomic_store(&w->ready, true);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		for (int k = 0; k < 1024; k++) {
			uint32_t flow;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			flow = 2 + 2 * (uint32_t)((x >> 20) % w->nflows);
			statctr_txn_begin(slot);
			statctr_add(slot, 0, 1);
			statctr_add(slot, 1, 64 + x % 1437);
			statctr_add(slot, flow, 1);
			statctr_add(slot, flow + 1, 64 + x % 1437);
			statctr_txn_end(slot);
		}
		n += 1024;
		atomic_store_explicit(&w->txns, n, memory_order_relaxed);
	}
	statctr_slot_release(slot);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One phase: @party (-1 none, 0 flood, 1 read) active; txns per CPU second, per wall second. */
static void phase(struct writer *w, clockid_t cpu, int party, long ms, double *per_cpu,
                  double *per_wall)
{
	double c0, t0;
	uint64_t n0;

	if (party >= 0)
		touch(on_path[party]);
	nap_ms(20); /* the other party notices within ~1 ms */
	c0 = clock_s(cpu);
	t0 = clock_s(CLOCK_MONOTONIC);
	n0 = atomic_load(&w->txns);
	nap_ms(ms);
	*per_cpu = (double)(atomic_load(&w->txns) - n0) / (clock_s(cpu) - c0);
	*per_wall = (double)(atomic_load(&w->txns) - n0) / (clock_s(CLOCK_MONOTONIC) - t0);
	if (party >= 0)
		unlink(on_path[party]);
}

/* DIR/writer.tid: "PID TID", written whole (a rename) for the reader. */
static void publish_tid(pid_t pid, pid_t tid)
{
	char tmp[620];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", tid_path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d %d\n", (int)pid, (int)tid) < 0 || fclose(f) != 0 ||
	    rename(tmp, tid_path) != 0)
		die(tid_path);
}

static int writer_run(const char *config, long ms, int rounds)
{
	static const char *const names[] = {"idle", "flood", "idle", "read"};
	static const int parties[] = {-1, 0, -1, 1};
	double cpu[MAX_ROUNDS][4], wall[MAX_ROUNDS][4], flood[MAX_ROUNDS], read[MAX_ROUNDS];
	struct writer w = {0};
	clockid_t clock;
	int r, p;

	if (statctr_seg_create(config, "flood", &w.seg) != 0)
		die("statctr_seg_create");
	w.nflows = 49999;
	if (pthread_create(&w.thread, NULL, writer_main, &w) != 0)
		die("pthread_create");
	while (!atomic_load(&w.ready))
		nap_ms(1);
	publish_tid(getpid(), atomic_load(&w.tid));
	pin(1); /* this thread mostly sleeps; keep CPU 0 for the writer */
	if (pthread_getcpuclockid(w.thread, &clock) != 0)
		die("pthread_getcpuclockid");
	for (r = 0; r < rounds; r++) {
		for (p = 0; p < 4; p++) {
			phase(&w, clock, parties[p], ms, &cpu[r][p], &wall[r][p]);
			printf("round %d %-5s %12.0f txn/cpu-s %12.0f txn/s\n", r, names[p],
			       cpu[r][p], wall[r][p]);
		}
	}
	/* Each disturbed phase against the mean of the idle phases on either side. */
	for (r = 0; r < rounds; r++) {
		flood[r] = cpu[r][1] / ((cpu[r][0] + cpu[r][2]) / 2);
		read[r] = cpu[r][3] / ((cpu[r][2] + cpu[r + 1 < rounds ? r + 1 : r][0]) / 2);
	}
	touch(done_path);
	atomic_store(&w.stop, true);
	pthread_join(w.thread, NULL);
	printf("health %d\n", statctr_seg_health(w.seg));
	printf("flood_ratio %.3f\nread_ratio %.3f\n", median(flood, rounds), median(read, rounds));
	statctr_seg_destroy(w.seg);
	return 0;
}

/* ---- the attacker and the reader ------------------------------------------ */

static int flood_run(const char *segment)
{
	char ctl[600];
	struct stat st;
	uint64_t ticket = 1;
	uint8_t *base;
	int fd;

	snprintf(ctl, sizeof(ctl), "%s.ctl", segment);
	fd = open(ctl, O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0)
		die(ctl);
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		die("mmap");
	pin(1);
	while (!exists(done_path)) {
		if (!exists(on_path[0])) {
			nap_ms(1);
			continue;
		}
		for (int k = 0; k < 100000; k++) {
			atomic_store_explicit((_Atomic uint64_t *)(base + CTL_REQS), ticket++,
			                      memory_order_relaxed);
			atomic_store_explicit((_Atomic uint64_t *)(base + CTL_LOCK), 0,
			                      memory_order_relaxed);
		}
	}
	return 0;
}

/* Nanoseconds the writer thread in DIR/writer.tid has run; UINT64_MAX
 * while unknown (a busy snapshot then counts as if it ran). */
static uint64_t writer_cpu_ns(void)
{
	static int pid, tid;
	unsigned long long ns;
	char path[64];
	FILE *f;

	if (!tid) {
		f = fopen(tid_path, "r");
		if (!f)
			return UINT64_MAX;
		if (fscanf(f, "%d %d", &pid, &tid) != 2)
			pid = tid = 0;
		fclose(f);
		if (!tid)
			return UINT64_MAX;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = UINT64_MAX;
	fclose(f);
	return ns;
}

static bool writer_ran(uint64_t before, uint64_t after)
{
	return before == UINT64_MAX || after == UINT64_MAX || after - before >= RAN_NS;
}

static int read_run(const char *segment)
{
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	uint64_t snaps = 0, consistent = 0, broken = 0, busy = 0, busy_ran = 0;

	if (statctr_view_open(segment, &view) != 0)
		die("statctr_view_open");
	pin(1);
	while (!exists(done_path)) {
		struct statctr_snap_stats st;
		uint64_t pkts = 0, octets = 0, cpu0, cpu1;

		if (!exists(on_path[1])) {
			nap_ms(1);
			continue;
		}
		cpu0 = writer_cpu_ns();
		if (statctr_snap_retake(view, &snap) != 0)
			die("statctr_snap_retake");
		cpu1 = writer_cpu_ns();
		statctr_snap_stats(snap, &st);
		for (uint32_t f = 0; f < 49999; f++) {
			pkts += statctr_snap_counter(snap, 2 + 2 * f);
			octets += statctr_snap_counter(snap, 3 + 2 * f);
		}
		snaps++;
		/* A busy slot is read as is, and said so: only the others must hold. */
		if (st.busy_slots != 0) {
			busy++;
			busy_ran += writer_ran(cpu0, cpu1);
		} else if (pkts != statctr_snap_counter(snap, 0) ||
		           octets != statctr_snap_counter(snap, 1))
			broken++;
		else
			consistent++;
	}
	printf("snapshots %llu consistent %llu broken %llu busy %llu busy_ran %llu\n",
	       (unsigned long long)snaps, (unsigned long long)consistent,
	       (unsigned long long)broken, (unsigned long long)busy, (unsigned long long)busy_ran);
	statctr_snap_free(snap);
	statctr_view_close(view);
	return 0;
}

static int info_run(const char *segment)
{
	struct statctr_view *view;
	struct statctr_snap *snap;
	struct statctr_seg_info info;
	uint64_t total = 0;

	if (statctr_view_open(segment, &view) != 0)
		die("statctr_view_open");
	statctr_view_info(view, &info);
	if (statctr_snap_take(view, &snap) != 0)
		die("statctr_snap_take");
	for (statctr_id id = 0; id < info.ncells; id++)
		total += statctr_snap_counter_raw(snap, id);
	printf("status %d writer_flags %u total %llu\n", (int)info.status, info.writer_flags,
	       (unsigned long long)total);
	statctr_snap_free(snap);
	statctr_view_close(view);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && strcmp(argv[1], "writer") == 0) {
		int rounds = atoi(argv[5]);

		set_paths(argv[3]);
		if (rounds < 1 || rounds > MAX_ROUNDS)
			die("ROUNDS out of range");
		return writer_run(argv[2], atol(argv[4]), rounds);
	}
	if (argc == 4 && (strcmp(argv[1], "flood") == 0 || strcmp(argv[1], "read") == 0)) {
		set_paths(argv[3]);
		return argv[1][0] == 'f' ? flood_run(argv[2]) : read_run(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "info") == 0)
		return info_run(argv[2]);
	fprintf(stderr, "usage: copy_flood writer CONFIG DIR PHASE_MS ROUNDS\n"
	                "       copy_flood flood|read SEGMENT DIR\n"
	                "       copy_flood info SEGMENT\n");
	return 2;
}
