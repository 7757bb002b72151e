/*
 * test_error.c - lib/error.c: statctr_errmsg() is the calling thread's
 * message of its last failure: the cause and the path, the errno the call
 * returned, "no error" in a thread that never failed, another thread's
 * failures never seen, a message longer than the buffer cut, never
 * overflowing, and a message that quotes the one it replaces.
 */
#include "internal.h"
#include "testutil.h"

#include <pthread.h>

/* A thread that fails once: its message before and after. */
struct failing_thread {
	char before[64], after[300];
	int err;
};

static void *fail_once(void *arg)
{
	struct failing_thread *t = arg;
	struct statctr_view *view;

	snprintf(t->before, sizeof(t->before), "%s", statctr_errmsg());
	t->err = statctr_view_open("/nonexistent/statctr-thread", &view);
	snprintf(t->after, sizeof(t->after), "%s", statctr_errmsg());
	return NULL;
}

static void a_failure_names_its_cause_and_returns_its_errno(void)
{
	struct statctr_view *view;

	CU_ASSERT_EQUAL(statctr_view_open("/nonexistent/statctr-main", &view), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "/nonexistent/statctr-main"));
	CU_ASSERT_STRING_EQUAL(statctr_errmsg(), "no segment /nonexistent/statctr-main");
}

static void each_thread_has_its_own_message(void)
{
	struct failing_thread t = {.err = 1};
	struct statctr_view *view;
	pthread_t th;

	CU_ASSERT_EQUAL(statctr_view_open("/nonexistent/statctr-main", &view), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fail_once, &t), 0);
	pthread_join(th, NULL);
	CU_ASSERT_STRING_EQUAL(t.before, "no error");
	CU_ASSERT_EQUAL(t.err, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.after, "/nonexistent/statctr-thread"));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "/nonexistent/statctr-main"));
	CU_ASSERT_PTR_NULL(strstr(statctr_errmsg(), "statctr-thread"));
}

static void a_long_message_is_cut_to_the_buffer(void)
{
	char text[3000];

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	CU_ASSERT_EQUAL(errmsg_set(EIO, "long: %s", text), -EIO);
	CU_ASSERT_EQUAL(strlen(statctr_errmsg()), 1023);
	CU_ASSERT_EQUAL(strncmp(statctr_errmsg(), "long: xxx", 9), 0);
}

static void a_message_may_quote_the_one_it_replaces(void)
{
	CU_ASSERT_EQUAL(errmsg_set(EPROTO, "inner %d", 7), -EPROTO);
	CU_ASSERT_EQUAL(
	    errmsg_set(EINVAL, "outer: %s (again: %s)", statctr_errmsg(), statctr_errmsg()),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(statctr_errmsg(), "outer: inner 7 (again: inner 7)");
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"a_failure_names_its_cause_and_returns_its_errno",
	     a_failure_names_its_cause_and_returns_its_errno},
	    {"each_thread_has_its_own_message", each_thread_has_its_own_message},
	    {"a_long_message_is_cut_to_the_buffer", a_long_message_is_cut_to_the_buffer},
	    {"a_message_may_quote_the_one_it_replaces", a_message_may_quote_the_one_it_replaces},
	    {NULL, NULL},
	};

	return tu_run("error", cases);
}
