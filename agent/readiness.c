/*
 * readiness.c - when the agent says it serves, and what it says (see
 * readiness.h).
 *
 * Owns the one "ready" flag and the text of the reports: READY=1 with its
 * STATUS and MAINPID, STOPPING=1.  Ready means serving SNMP itself (-M), or
 * connected with every region granted: serve.c decides that, main.c asks.
 * Never decides whether the agent serves, never sends a datagram or writes
 * to the parent's pipe itself (notify.c does), never logs.
 */
#include "readiness.h"
#include "notify.h"

#include <stdio.h>
#include <unistd.h>

static bool ready; /* told: the service manager and a waiting parent */

bool readiness_told(void)
{
	return ready;
}

void readiness_serving(const char *config, unsigned nsegments)
{
	char state[512];

	if (ready)
		return;
	ready = true;
	snprintf(state, sizeof(state), "READY=1\nSTATUS=serving %s (%u segments)\nMAINPID=%ld",
	         config, nsegments, (long)getpid());
	notify_manager(state);
	notify_started(NULL);
}

void readiness_failed(const char *why)
{
	notify_started(why);
}

void readiness_stopping(void)
{
	notify_manager("STOPPING=1");
}
