/*
 * slowlock.c - an LD_PRELOAD fault for the agent (slow_reset.sh): a reset
 * that loses the CPU in the middle, as on a machine at load 20.
 *
 * Interposes fcntl().  While the file named by STATCTR_SLOWLOCK_ARM exists,
 * the next F_OFD_SETLK that takes a write lock on byte 1 of a file (the
 * control file's reset lock, lib/internal.h CTL_LOCK_RESET) first removes
 * that file, then sleeps STATCTR_SLOWLOCK_MS.  The reset has then begun
 * (the aggregation thread holds the request) and finishes that much later.
 * Everything else goes to libc's fcntl unchanged.  Never used outside the
 * tests.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*fcntl_fn)(int, int, ...);

/* The reset lock is wanted: sleep once if armed. */
static void maybe_stall(int cmd, const struct flock *fl)
{
	const char *arm = getenv("STATCTR_SLOWLOCK_ARM");
	const char *ms = getenv("STATCTR_SLOWLOCK_MS");
	long n = ms ? strtol(ms, NULL, 10) : 0;
	struct timespec ts = {n / 1000, (n % 1000) * 1000000L};

	if (cmd != F_OFD_SETLK || !fl || fl->l_type != F_WRLCK || fl->l_start != 1 || !arm)
		return;
	if (unlink(arm) != 0)
		return;
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Every command's argument is passed on as a pointer-sized word. */
int fcntl(int fd, int cmd, ...)
{
	fcntl_fn real = (fcntl_fn)dlsym(RTLD_NEXT, "fcntl");
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	maybe_stall(cmd, arg);
	return real ? real(fd, cmd, arg) : -1;
}

/* glibc's name for it when the caller asks for 64-bit offsets: the same. */
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
