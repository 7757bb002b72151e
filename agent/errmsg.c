/*
 * errmsg.c - the agent's last error message.
 *
 * Owns one buffer per thread (the SNMP thread and the aggregation thread
 * fail independently); never logs (callers decide what to report).
 */
#include "agent.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char message[1024] = "no error";

int agent_seterr(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return -err;
}

const char *agent_errmsg(void)
{
	return message;
}
