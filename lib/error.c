/*
 * error.c - the thread's last error message.
 *
 * Owns one thread-local buffer; every failing call fills it through
 * set_error() and returns the negative errno it was given.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char errbuf[1024] = "no error";

int set_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return -err;
}

const char *statctr_errmsg(void)
{
	return errbuf;
}
