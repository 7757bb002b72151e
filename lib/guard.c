/*
 * guard.c - survive a mapping whose file shrank under it.
 *
 * Reading a page of a MAP_SHARED mapping past the end of its (truncated)
 * file raises SIGBUS.  Every reader entry point that touches a live mapping
 * runs inside guard_run(): a process-wide SIGBUS handler, installed once and
 * chained to whatever handler was there before, jumps back to the guarded
 * call on the faulting thread, which then returns -ESTALE.  A SIGBUS raised
 * outside a guarded call goes to the previous handler (by default: the
 * process dies, as it would have without statctr).
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static _Thread_local sigjmp_buf *active_guard;
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
	if (active_guard)
		siglongjmp(*active_guard, 1);
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, info, context);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		/* Restore the default; the faulting access repeats and kills us. */
		sigaction(SIGBUS, &previous, NULL);
	}
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &previous);
}

int guard_run(int (*fn)(void *), void *arg, const char *path)
{
	sigjmp_buf here;
	sigjmp_buf *outer = active_guard;
	int rc;

	pthread_once(&installed, install);
	if (sigsetjmp(here, 1)) {
		active_guard = outer;
		return set_error(ESTALE, "%s was truncated while mapped", path);
	}
	active_guard = &here;
	rc = fn(arg);
	active_guard = outer;
	return rc;
}
