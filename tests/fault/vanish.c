/*
 * vanish.c - an LD_PRELOAD fault for readers (vanish.sh): a segment that
 * its writer removes between the moment a reader found it and the moment
 * the reader opens it.
 *
 * Interposes open() (and glibc's other names for it).  The first open of
 * the path named by STATCTR_VANISH unlinks that path first, so the open
 * fails with ENOENT, as if the writer had exited just then.  Every other
 * call goes to libc's open unchanged.  Never used outside the tests.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

static void maybe_vanish(const char *path)
{
	const char *victim = getenv("STATCTR_VANISH");

	if (victim && path && strcmp(path, victim) == 0)
		unlink(path); /* once: the name is gone after it */
}

int open(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	maybe_vanish(path);
	return real ? real(path, flags, mode) : -1;
}

/* glibc's names for it with 64-bit offsets, and _FORTIFY_SOURCE's checked ones. */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));
