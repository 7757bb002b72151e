/*
 * timebase.c - the offset between CLOCK_REALTIME and the master's
 * sysUpTime, stable across SIGHUP and agent restarts (see timebase.h).
 *
 * Owns the offset, what vouches for it (struct base) and its state file.
 * The file holds one line (read_state()); it is written (safefile_write():
 * never through a link, never over anything but a regular file) when the
 * offset changes, once per master start, and when the master's uptime has
 * doubled (persist()), by timebase_flush() from the main loop (a request
 * never does file I/O), and read back (safefile_read(): only a file of the
 * agent's user or root, not group- or other-writable) when it is set.  A
 * missing or unreadable file costs nothing but the stability it would have
 * given; it is reported once.  Never reads segments.
 *
 * Threads: the main loop does everything, but the exit watchdog
 * (daemon.c) calls timebase_flush_forced() from its own thread when the
 * loop is stuck inside Net-SNMP (a master answering slower than
 * ping_interval keeps the loop in back-to-back synchronous pings, while
 * requests are still answered), so that the last offset and SEEN are not
 * lost with the forced exit.  One mutex (state_lock) guards all state.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "timebase.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_CS 10000000u /* nanoseconds per centisecond */
/*
 * Offsets within this bound are the same master's (two masters' offsets
 * differ by the time between their starts), whatever else is known.
 */
#define JUMP_CS 100
/* What the state file may hold: 2^48 cs is 89,000 years either way. */
#define STATE_MAX_CS (1LL << 48)

/*
 * An offset and what vouches for it.  An estimate (sysUpTime minus the
 * time now) is the master's uptime as of its last AgentX message, so it is
 * late by that message's latency: 80-150 ms at load 20, over a second at
 * load 40.  A late estimate puts the master's start (realtime minus
 * uptime) later than it was, never earlier; a new master starts after the
 * old one was last heard from.  So an estimate below @offset_cs whose
 * master started no later than @seen_cs is @offset_cs's master, provided
 * the realtime clock was not stepped since (@boot_cs, realtime minus
 * CLOCK_BOOTTIME, moves only on a step or a reboot).
 */
struct base {
	long long offset_cs; /* sysUpTime - realtime */
	long long seen_cs;   /* realtime when a request of this master came, 0: never */
	long long boot_cs;   /* realtime - CLOCK_BOOTTIME then */
};

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER; /* everything below */
static char *state_file;
static struct base cur; /* the offset in use */
static bool have_base;
static bool settled;       /* cur is this AgentX session's master's (track()) */
static struct base stored; /* what the state file holds (read when it is set) */
static bool have_stored;
static bool write_pending; /* stored is to be written by timebase_flush() */
static bool told_state_error;

static bool read_state(struct base *b, long long now);
static long long clock_cs(clockid_t id);
static void flush_locked(void);

void timebase_set_state_file(const char *path)
{
	pthread_mutex_lock(&state_lock);
	flush_locked(); /* to the file it was meant for */
	free(state_file);
	state_file = path ? strdup(path) : NULL;
	told_state_error = false;
	write_pending = false;
	have_stored = state_file && read_state(&stored, clock_cs(CLOCK_REALTIME));
	pthread_mutex_unlock(&state_lock);
}

static long long clock_cs(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 100 + ts.tv_nsec / (long)NS_PER_CS;
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

/*
 * The file is one line, "OFFSET SEEN BOOT" (struct base, centiseconds), or
 * "OFFSET" alone (as written before SEEN and BOOT were kept: nothing vouches
 * for a late estimate).  safefile_read(): a file planted or made writable by
 * another user is not believed.
 */
static bool read_state(struct base *b, long long now)
{
	long long v[3] = {0, 0, 0};
	const char *why;
	char *buf, *p, *end = NULL;
	size_t len;
	int err = safefile_read(state_file, 96, &buf, &len, &why);
	int n = 0;

	if (err < 0) {
		if (err != -ENOENT)
			state_error(why, -err);
		return false;
	}
	for (p = buf; n < 3; p = end) {
		errno = 0;
		v[n] = strtoll(p, &end, 10);
		if (errno || end == p)
			break;
		n++;
		if (*end != ' ')
			break;
	}
	err = (n == 1 || n == 3) && (*end == '\n' || *end == '\0') ? 0 : -EINVAL;
	for (int i = 0; i < 3; i++)
		if (v[i] < -STATE_MAX_CS || v[i] > STATE_MAX_CS)
			err = -EINVAL; /* no arithmetic on them can overflow */
	free(buf);
	*b = (struct base){.offset_cs = v[0], .seen_cs = v[1], .boot_cs = v[2]};
	if (b->seen_cs < 0 || b->seen_cs > now + JUMP_CS)
		b->seen_cs = 0; /* not a moment that has been: vouches for nothing */
	return err == 0;
}

static int fill_state(FILE *f, void *arg)
{
	const struct base *b = arg;

	return fprintf(f, "%lld %lld %lld\n", b->offset_cs, b->seen_cs, b->boot_cs) < 0 ? -EIO : 0;
}

/* state_file may be in a shared directory: safefile_write() never follows or replaces a link. */
static void write_state(struct base *b)
{
	const char *why;
	int err = safefile_write(state_file, SAFEFILE_STATE, 0644, fill_state, b, &why);

	if (err < 0)
		state_error(why, -err);
}

/* Realtime minus CLOCK_BOOTTIME: moves only on a clock step or a reboot. */
static long long boot_cs(long long now)
{
	return now - clock_cs(CLOCK_BOOTTIME);
}

/* Whether @estimate, made at realtime @now, is @b's master. */
static bool same_master(const struct base *b, long long estimate, long long now)
{
	if (llabs(estimate - b->offset_cs) <= JUMP_CS)
		return true;
	if (!b->seen_cs || llabs(boot_cs(now) - b->boot_cs) > JUMP_CS)
		return false; /* nothing vouches, or the clock was stepped */
	/* -estimate: the master's start, realtime */
	return estimate < b->offset_cs && -estimate <= b->seen_cs;
}

/*
 * The state file is rewritten when the offset changes, and when the master's
 * uptime has doubled since the stored SEEN (at least 1 s later): the stored
 * SEEN then vouches for estimates late by up to half the uptime, and the
 * file is written a few dozen times in a master's life.
 */
static void persist(long long now)
{
	long long start = -cur.offset_cs; /* the master's, realtime */
	long long age = stored.seen_cs - start;

	if (!state_file)
		return;
	if (have_stored && stored.offset_cs == cur.offset_cs && stored.seen_cs &&
	    now - stored.seen_cs < (age > 100 ? age : 100))
		return;
	stored = cur;
	have_stored = true;
	write_pending = true;
}

/*
 * The offset for the master whose uptime the agent has now: kept while the
 * estimate is its master's, else the stored one when that is, else the
 * estimate itself.
 */
static void judge(long long now)
{
	long long estimate = (long long)netsnmp_get_agent_uptime() - now;

	if (have_base && same_master(&cur, estimate, now))
		return;
	if (have_stored && same_master(&stored, estimate, now))
		cur = stored;
	else
		cur = (struct base){.offset_cs = estimate};
	have_base = true;
}

/*
 * Judges the estimate until a request of the master is answered (@heard:
 * the master runs now, and its uptime came with the session's Open), then
 * keeps that offset for the rest of the AgentX session (settled): a new
 * master comes only with a new session (timebase_new_session()), so a later
 * estimate, however late, is the same master's.  A clock step ends that:
 * the offset then follows the realtime clock.  No file I/O here
 * (timebase_flush() writes).
 */
static void track(bool heard)
{
	long long now = clock_cs(CLOCK_REALTIME);

	if (!settled || llabs(boot_cs(now) - cur.boot_cs) > JUMP_CS) {
		judge(now);
		settled = heard;
	}
	if (!heard)
		return;
	cur.seen_cs = now;
	cur.boot_cs = boot_cs(now);
	persist(now);
}

void timebase_new_session(void)
{
	pthread_mutex_lock(&state_lock);
	settled = false;
	pthread_mutex_unlock(&state_lock);
}

void timebase_heard(void)
{
	pthread_mutex_lock(&state_lock);
	track(true);
	pthread_mutex_unlock(&state_lock);
}

static void flush_locked(void)
{
	if (!write_pending || !state_file)
		return;
	write_pending = false;
	write_state(&stored);
}

void timebase_flush(void)
{
	pthread_mutex_lock(&state_lock);
	flush_locked();
	pthread_mutex_unlock(&state_lock);
}

/*
 * The main thread holds state_lock for a few clock reads, or for a write
 * of one line: FORCED_WAIT_MS is ample.  Past it the write is left to the
 * main thread, which was doing it.
 */
#define FORCED_WAIT_MS 200

void timebase_flush_forced(void)
{
	const struct timespec ms = {0, 1000000};

	for (int waited = 0; pthread_mutex_trylock(&state_lock) != 0; waited++) {
		if (waited == FORCED_WAIT_MS)
			return;
		nanosleep(&ms, NULL);
	}
	flush_locked();
	pthread_mutex_unlock(&state_lock);
}

u_long timebase_ticks(uint64_t ns)
{
	u_long up = netsnmp_get_agent_uptime();
	long long ts;

	pthread_mutex_lock(&state_lock);
	track(false);
	ts = (long long)(ns / NS_PER_CS) + cur.offset_cs;
	pthread_mutex_unlock(&state_lock);
	if (ns == 0 || ts < 0)
		return 0;
	return ts > (long long)up ? up : (u_long)ts;
}
