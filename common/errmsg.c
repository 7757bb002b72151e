/*
 * errmsg.c - the calling thread's last error message (see errmsg.h).
 *
 * Owns one buffer per thread (an agent's SNMP and aggregation threads fail
 * independently); never logs: callers decide what to report.
 */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[1024] = "no error";

/* Formatted aside, then copied: a message may quote the one it replaces
 * (errmsg_get(), or statctr_errmsg() where the library and the caller share
 * this copy, as the fuzz replays do). */
int errmsg_set(int err, const char *fmt, ...)
{
	char next[sizeof(message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(next, sizeof(next), fmt, ap);
	va_end(ap);
	memcpy(message, next, sizeof(message));
	return -err;
}

const char *errmsg_get(void)
{
	return message;
}
