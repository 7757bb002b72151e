/*
 * timebase.c - the offset between CLOCK_REALTIME and the master's
 * sysUpTime, stable across SIGHUP and agent restarts (see timebase.h).
 *
 * Owns the offset and its state file.  The file holds one line, the offset
 * in centiseconds; it is written (safefile_write(): never through a link,
 * never over anything but a regular file) only when the offset changes,
 * i.e. once per master start, by timebase_flush() from the main loop (a
 * request never does file I/O), and read back (safefile_read(): only a file
 * of the agent's user or root, not group- or other-writable) when it is set.  A missing or
 * unreadable file costs nothing but the stability it would have given; it is reported once. Never
 * reads segments.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "timebase.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_CS 10000000u /* nanoseconds per centisecond */
/*
 * A larger move is a new master or a clock step.  An estimate is the
 * master's uptime as of its last AgentX message minus the time now, so it
 * is late by that message's latency: 80-150 ms at load 20.  Within this
 * bound an estimate, or the offset an earlier agent process stored, is the
 * same master's (two masters' offsets differ by the time between their
 * starts).
 */
#define JUMP_CS 100

static char *state_file;
static long long base_cs; /* sysUpTime - realtime, centiseconds */
static bool have_base;
static bool told_state_error;
static long long stored_cs; /* what the state file holds (read when it is set) */
static bool have_stored;
static bool write_pending; /* stored_cs is to be written by timebase_flush() */

static bool read_state(long long *stored);
void timebase_flush(void);

void timebase_set_state_file(const char *path)
{
	timebase_flush(); /* to the file it was meant for */
	free(state_file);
	state_file = path ? strdup(path) : NULL;
	told_state_error = false;
	write_pending = false;
	have_stored = state_file && read_state(&stored_cs);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void state_error(const char *what, int err)
{
	if (told_state_error)
		return;
	told_state_error = true;
	snmp_log(LOG_WARNING,
	         "state file %s: %s: %s (TimeStamps may move when the agent restarts)\n",
	         state_file, what, strerror(err));
}

/* safefile_read(): a file planted or made writable by another user is not believed. */
static bool read_state(long long *stored)
{
	const char *why;
	char *buf, *end;
	size_t len;
	int err = safefile_read(state_file, 64, &buf, &len, &why);
	bool ok;

	if (err < 0) {
		if (err != -ENOENT)
			state_error(why, -err);
		return false;
	}
	errno = 0;
	*stored = strtoll(buf, &end, 10);
	ok = errno == 0 && end != buf && (*end == '\n' || *end == '\0');
	free(buf);
	return ok;
}

static int fill_state(FILE *f, void *arg)
{
	return fprintf(f, "%lld\n", *(const long long *)arg) < 0 ? -EIO : 0;
}

/* state_file may be in a shared directory: safefile_write() never follows or replaces a link. */
static void write_state(long long value)
{
	const char *why;
	int err = safefile_write(state_file, SAFEFILE_STATE, 0644, fill_state, &value, &why);

	if (err < 0)
		state_error(why, -err);
}

/*
 * A fresh estimate replaces the offset; the stored one wins when it is the
 * same master's.  In a request: no file I/O here, timebase_flush() writes.
 */
static void adopt(long long estimate)
{
	base_cs = estimate;
	have_base = true;
	if (!state_file)
		return;
	if (have_stored && llabs(stored_cs - estimate) <= JUMP_CS) {
		base_cs = stored_cs;
		return;
	}
	stored_cs = estimate;
	have_stored = true;
	write_pending = true;
}

void timebase_flush(void)
{
	if (!write_pending || !state_file)
		return;
	write_pending = false;
	write_state(stored_cs);
}

u_long timebase_ticks(uint64_t ns)
{
	u_long up = netsnmp_get_agent_uptime();
	long long estimate = (long long)up - (long long)(realtime_ns() / NS_PER_CS);
	long long ts;

	if (!have_base || llabs(estimate - base_cs) > JUMP_CS)
		adopt(estimate);
	ts = (long long)(ns / NS_PER_CS) + base_cs;
	if (ns == 0 || ts < 0)
		return 0;
	return ts > (long long)up ? up : (u_long)ts;
}
