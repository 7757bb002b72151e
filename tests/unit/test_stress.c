/*
 * test_stress.c - two writer threads run transactions flat out that keep
 * totals == sum of flows; a reader (another process, or a thread for TSan)
 * takes a fixed number of snapshots meanwhile.  No snapshot may break the
 * invariant, and the final totals must equal what the writers counted: no
 * lost update.  At most 1 in 10 snapshots may have a busy slot while every
 * writer thread ran TU_RAN_NS (80 ms) or more of CPU during the snapshot
 * (more than a running writer needs to serve a copy: testutil.h); a busy
 * slot whose writer the machine kept off the CPU is the machine's, and is
 * only counted.
 */
#include "internal.h"
#include "testutil.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define NFLOWS   20000
#define NWRITERS 2

/* A number of snapshots, not a time: on a loaded machine or in a sanitizer
 * build each takes longer, and the test with it.  The writer process waits
 * for the end of the reading longer than the reading may last. */
#define SNAPSHOTS   100
#define READ_CAP_S  300               /* a hang, not a slow machine */
#define TERM_WAIT_S (READ_CAP_S + 60) /* the writer process's wait for SIGTERM */

static const char *seg_path;
static _Atomic int stop_writers;

struct writer {
	pthread_t thread;
	struct statctr_seg *seg;
	unsigned index;
	_Atomic pid_t tid;
	uint64_t packets, octets;
};

/* The writer threads, by process and thread id, whose CPU time a busy
 * snapshot is judged by. */
struct writer_tids {
	pid_t pid;
	pid_t tid[NWRITERS];
	unsigned n;
};

static void writers_cpu(const struct writer_tids *wt, uint64_t *ns)
{
	unsigned i;

	for (i = 0; i < wt->n; i++)
		ns[i] = tu_thread_cpu_ns(wt->pid, wt->tid[i]);
}

/* The writer process's threads other than its main one. */
static void child_writer_tids(pid_t pid, struct writer_tids *wt)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	wt->pid = pid;
	wt->n = 0;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) && wt->n < NWRITERS) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && tid != pid)
			wt->tid[wt->n++] = tid;
	}
	closedir(d);
}

static const char *stress_config(void)
{
	return tu_config(NWRITERS,
	                 "{ name = \"flows\"; rows = 20000; columns = ( "
	                 "{ name = \"pkts\"; kind = \"counter\"; }, { name = \"octets\"; kind = "
	                 "\"counter\"; } ); }, "
	                 "{ name = \"totals\"; rows = 1; columns = ( "
	                 "{ name = \"pkts\"; kind = \"counter\"; }, { name = \"octets\"; kind = "
	                 "\"counter\"; } ); }",
	                 &seg_path);
}

static void *write_flat_out(void *arg)
{
	struct writer *w = arg;
	struct statctr_slot *slot;
	const statctr_id tot_pkts = 2 * NFLOWS, tot_octets = 2 * NFLOWS + 1;
	uint64_t seed = 88172645463325252ull + w->index;

	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	if (statctr_slot_acquire(w->seg, &slot) != 0)
		return NULL;
	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed)) {
		/* Flows mostly per thread: each writer has its own half. */
		uint32_t flow = w->index * (NFLOWS / 2) + (uint32_t)(seed % (NFLOWS / 2));
		uint64_t size = 64 + seed % 1400;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		statctr_txn_begin(slot);
		statctr_inc(slot, 2 * flow);
		statctr_add(slot, 2 * flow + 1, size);
		statctr_inc(slot, tot_pkts);
		statctr_add(slot, tot_octets, size);
		statctr_txn_end(slot);
		w->packets++;
		w->octets += size;
	}
	statctr_slot_release(slot);
	return NULL;
}

static void start_writers(struct statctr_seg *seg, struct writer *w)
{
	unsigned i;

	atomic_store(&stop_writers, 0);
	for (i = 0; i < NWRITERS; i++) {
		w[i] = (struct writer){.seg = seg, .index = i};
		pthread_create(&w[i].thread, NULL, write_flat_out, &w[i]);
	}
}

static void stop_and_sum(struct writer *w, uint64_t *packets, uint64_t *octets)
{
	unsigned i;

	atomic_store(&stop_writers, 1);
	*packets = *octets = 0;
	for (i = 0; i < NWRITERS; i++) {
		pthread_join(w[i].thread, NULL);
		*packets += w[i].packets;
		*octets += w[i].octets;
	}
}

struct tally {
	unsigned snapshots, violations, busy, busy_ran, assisted;
	long read_ms; /* how long the SNAPSHOTS took */
	uint64_t final_packets, final_octets;
};

/* Did every writer thread run TU_RAN_NS or more between @before and @after? */
static bool all_ran(const struct writer_tids *wt, const uint64_t *before, const uint64_t *after)
{
	unsigned i;

	for (i = 0; i < wt->n; i++)
		if (after[i] < before[i] + TU_RAN_NS)
			return false;
	return wt->n > 0;
}

/* Checks one snapshot, taken while the writers in @wt (NULL: none) run. */
static void check_snapshot(struct statctr_view *view, const struct writer_tids *wt, struct tally *t)
{
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	uint64_t pkts = 0, octets = 0, before[NWRITERS] = {0}, after[NWRITERS] = {0};
	uint32_t f;
	int rc;

	if (wt)
		writers_cpu(wt, before);
	rc = statctr_snap_take(view, &snap);
	if (wt)
		writers_cpu(wt, after);
	if (rc != 0) {
		t->violations++;
		return;
	}
	for (f = 0; f < NFLOWS; f++) {
		pkts += statctr_snap_counter(snap, 2 * f);
		octets += statctr_snap_counter(snap, 2 * f + 1);
	}
	statctr_snap_stats(snap, &st);
	t->snapshots++;
	t->busy += st.busy_slots != 0;
	t->busy_ran += st.busy_slots != 0 && wt && all_ran(wt, before, after);
	t->assisted += st.assisted_slots;
	if (st.busy_slots == 0 && (pkts != statctr_snap_counter(snap, 2 * NFLOWS) ||
	                           octets != statctr_snap_counter(snap, 2 * NFLOWS + 1)))
		t->violations++;
	t->final_packets = statctr_snap_counter(snap, 2 * NFLOWS);
	t->final_octets = statctr_snap_counter(snap, 2 * NFLOWS + 1);
	statctr_snap_free(snap);
}

/* Takes SNAPSHOTS snapshots, 20 ms apart, while the writers run. */
static void read_snapshots(struct statctr_view *view, const struct writer_tids *wt, struct tally *t)
{
	struct timespec start, now, gap = {0, 20 * 1000 * 1000};

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		check_snapshot(view, wt, t);
		nanosleep(&gap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (t->snapshots + t->violations < SNAPSHOTS &&
	         now.tv_sec - start.tv_sec < READ_CAP_S);
	t->read_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
}

static void assert_tally(const struct tally *t, uint64_t packets, uint64_t octets)
{
	double load[1] = {0};

	getloadavg(load, 1);
	fprintf(stderr,
	        "\n    %u snapshots, %u with a busy slot (%u while every writer ran %llu ms%s), "
	        "%u assisted slot reads, %u violations, %llu packets, read in %ld ms, load %.2f\n",
	        t->snapshots, t->busy, t->busy_ran, TU_RAN_NS / 1000000,
	        TU_TIMING_CHECKED ? "" : ", not checked: TSan", t->assisted, t->violations,
	        (unsigned long long)packets, t->read_ms, load[0]);
	CU_ASSERT(t->snapshots >= SNAPSHOTS);
	CU_ASSERT_EQUAL(t->violations, 0);
	CU_ASSERT(!TU_TIMING_CHECKED || t->busy_ran * 10 <= t->snapshots);
	CU_ASSERT(packets > 0);
	CU_ASSERT_EQUAL(t->final_packets, packets);
	CU_ASSERT_EQUAL(t->final_octets, octets);
}

/* Waits for SIGTERM at most TERM_WAIT_S, longer than the reading may last:
 * a test child never outlives its test. */
static void wait_term(const sigset_t *set)
{
	struct timespec limit = {TERM_WAIT_S, 0};

	if (sigtimedwait(set, NULL, &limit) < 0)
		_exit(3);
}

/* The writer process: runs writers until SIGTERM, then reports its counts. */
static void writer_process(int report_fd)
{
	struct statctr_seg *seg;
	struct writer w[NWRITERS];
	uint64_t counts[2];
	sigset_t set;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (statctr_seg_create(stress_config(), "seg", &seg) != 0)
		_exit(1);
	start_writers(seg, w);
	if (write(report_fd, "r", 1) != 1)
		_exit(1);
	wait_term(&set);
	stop_and_sum(w, &counts[0], &counts[1]);
	if (write(report_fd, counts, sizeof(counts)) != sizeof(counts))
		_exit(1);
	wait_term(&set);
	statctr_seg_destroy(seg);
	_exit(0);
}

/* Reads @len bytes the writer process @pid sent on @fd; false, with the
 * process's end said, when it ended first (and is reaped). */
static bool from_writer(int fd, void *buf, size_t len, pid_t pid)
{
	int status = 0;

	if (read(fd, buf, len) == (ssize_t)len)
		return true;
	waitpid(pid, &status, 0);
	fprintf(stderr, "\n    the writer process ended before it reported (exit %d, signal %d)\n",
	        WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	        WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return false;
}

static void cross_process_snapshots_keep_invariants_and_lose_nothing(void)
{
	struct statctr_view *view;
	struct tally t = {0};
	struct writer_tids wt;
	uint64_t counts[2];
	int fds[2], status;
	char c;
	pid_t pid;

	stress_config(); /* sets seg_path in this process too */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		writer_process(fds[1]);
	}
	close(fds[1]); /* the writer process's end only: its exit is an end of file */
	CU_ASSERT_FATAL(from_writer(fds[0], &c, 1, pid));
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	child_writer_tids(pid, &wt);
	CU_ASSERT_EQUAL(wt.n, NWRITERS);
	read_snapshots(view, &wt, &t);
	kill(pid, SIGTERM);
	CU_ASSERT_FATAL(from_writer(fds[0], counts, sizeof(counts), pid));
	check_snapshot(view, NULL, &t);
	assert_tally(&t, counts[0], counts[1]);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	statctr_view_close(view);
	close(fds[0]);
}

static void in_process_reader_thread_keeps_invariants(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct writer w[NWRITERS];
	struct writer_tids wt = {.pid = getpid(), .n = NWRITERS};
	struct tally t = {0};
	uint64_t packets, octets;
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(stress_config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	start_writers(seg, w);
	for (i = 0; i < NWRITERS; i++) {
		while (atomic_load(&w[i].tid) == 0)
			sched_yield();
		wt.tid[i] = atomic_load(&w[i].tid);
	}
	read_snapshots(view, &wt, &t);
	stop_and_sum(w, &packets, &octets);
	check_snapshot(view, NULL, &t);
	assert_tally(&t, packets, octets);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"cross_process_snapshots_keep_invariants_and_lose_nothing",
	     cross_process_snapshots_keep_invariants_and_lose_nothing},
	    {"in_process_reader_thread_keeps_invariants",
	     in_process_reader_thread_keeps_invariants},
	    {NULL, NULL},
	};

	return tu_run_both("stress", cases);
}
