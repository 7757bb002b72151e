/*
 * errmsg.c - the calling thread's last error message (see errmsg.h).
 *
 * Owns one buffer per thread (an agent's SNMP and aggregation threads fail
 * independently); never logs: callers decide what to report.
 */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char message[1024] = "no error";

int errmsg_set(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return -err;
}

const char *errmsg_get(void)
{
	return message;
}
