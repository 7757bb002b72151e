/*
 * test_proc.c - lib/proc.c: a thread is the one that owned a slot while its
 * (pid, tid, start time) still match; a thread that exited, a zombie, a
 * different start time or an id of 0 is not; a command name holding spaces
 * and ')' does not move the start time read; realtime_ns() is the clock.
 */
#include "internal.h"
#include "testutil.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

/* Polls @pid/@tid until proc_start_time() says 0 (gone), for at most 10 s. */
static bool becomes_gone(pid_t pid, pid_t tid)
{
	const struct timespec nap = {0, 1000000};
	int i;

	for (i = 0; i < 10000; i++) {
		if (proc_start_time(pid, tid) == 0)
			return true;
		nanosleep(&nap, NULL);
	}
	return false;
}

/* Clock ticks since boot, from /proc/uptime. */
static uint64_t ticks_since_boot(void)
{
	double up = 0;
	FILE *f = fopen("/proc/uptime", "r");

	CU_ASSERT_FATAL(f && fscanf(f, "%lf", &up) == 1);
	fclose(f);
	return (uint64_t)(up * (double)sysconf(_SC_CLK_TCK)) + 1;
}

static void this_thread_is_alive_at_its_start_time_only(void)
{
	pid_t pid = getpid(), tid = gettid();
	uint64_t start = proc_start_time(pid, tid);

	CU_ASSERT(start > 0);
	CU_ASSERT(start <= ticks_since_boot());
	CU_ASSERT(proc_alive(pid, tid, start));
	CU_ASSERT(!proc_alive(pid, tid, start + 1));
	/* Start 0: an owner between its claim and its store of the start time. */
	CU_ASSERT(proc_alive(pid, tid, 0));
	CU_ASSERT(!proc_alive(0, tid, start));
	CU_ASSERT(!proc_alive(pid, 0, start));
	CU_ASSERT(!proc_alive(-1, -1, 0));
}

struct named_thread {
	const char *name;
	pid_t tid;
	uint64_t start, renamed_start;
	int go[2], done[2];
};

/* Says its tid and start time, renames itself, says the start time again. */
static void *named_thread(void *arg)
{
	struct named_thread *t = arg;
	char c;

	t->tid = gettid();
	t->start = proc_start_time(getpid(), t->tid);
	prctl(PR_SET_NAME, t->name);
	t->renamed_start = proc_start_time(getpid(), t->tid);
	if (write(t->done[1], "d", 1) != 1 || read(t->go[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void a_thread_has_its_own_start_time_until_it_exits(void)
{
	struct named_thread t = {.name = "a) b ) c"};
	pthread_t th;
	uint64_t main_start = proc_start_time(getpid(), gettid());
	char c;

	CU_ASSERT_EQUAL_FATAL(pipe(t.go), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(t.done), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, named_thread, &t), 0);
	CU_ASSERT_EQUAL_FATAL(read(t.done[0], &c, 1), 1);
	CU_ASSERT(t.start >= main_start);
	CU_ASSERT_EQUAL(t.renamed_start, t.start);
	CU_ASSERT_EQUAL(proc_start_time(getpid(), t.tid), t.start);
	CU_ASSERT(proc_alive(getpid(), t.tid, t.start));
	CU_ASSERT(write(t.go[1], "g", 1) == 1);
	pthread_join(th, NULL);
	CU_ASSERT(becomes_gone(getpid(), t.tid));
	CU_ASSERT(!proc_alive(getpid(), t.tid, t.start));
	close(t.go[0]), close(t.go[1]), close(t.done[0]), close(t.done[1]);
}

static void a_zombie_child_is_gone_before_it_is_reaped(void)
{
	pid_t child = fork();
	int status;

	if (child == 0)
		_exit(0);
	CU_ASSERT_FATAL(child > 0);
	CU_ASSERT(becomes_gone(child, child));
	CU_ASSERT(!proc_alive(child, child, 0));
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT_EQUAL(proc_start_time(child, child), 0);
}

static void realtime_ns_is_the_realtime_clock(void)
{
	struct timespec a, b;
	uint64_t now;

	clock_gettime(CLOCK_REALTIME, &a);
	now = realtime_ns();
	clock_gettime(CLOCK_REALTIME, &b);
	CU_ASSERT(now >= (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec);
	CU_ASSERT(now <= (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"this_thread_is_alive_at_its_start_time_only",
	     this_thread_is_alive_at_its_start_time_only},
	    {"a_thread_has_its_own_start_time_until_it_exits",
	     a_thread_has_its_own_start_time_until_it_exits},
	    {"a_zombie_child_is_gone_before_it_is_reaped",
	     a_zombie_child_is_gone_before_it_is_reaped},
	    {"realtime_ns_is_the_realtime_clock", realtime_ns_is_the_realtime_clock},
	    {NULL, NULL},
	};

	return tu_run("proc", cases);
}
