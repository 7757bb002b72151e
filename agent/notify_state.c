/*
 * notify_state.c - ifLinkUpDownTrapEnable and the notification counters,
 * with their state files (see notify_state.h).
 *
 * Owns which rows have notifications disabled (STATE_FILE.linktraps: one
 * disabled ifIndex per line), the counters and their file for statctl
 * (STATE_FILE.notifications).  Never decides whether a notification is due
 * and never sends one (traps.c does), never serves an object (backend_ifmib.c and
 * backend_statctr.c do).
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "notify_state.h"
#include "agent.h"
#include "bisect.h"
#include "ifmib.h"
#include "safefile.h"
#include "sinks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILE (1u << 20)

/* Rows with ifLinkUpDownTrapEnable disabled(2), sorted; the file's path, or NULL. */
static uint32_t *disabled;
static size_t ndisabled, room;
static char *path;
static bool opened;
static struct traps_counts counts;
/* STATE_FILE.notifications, or NULL; what it holds; when counting began. */
static char *counts_path;
static struct traps_counts written;
static bool counts_written, told_counts_error;
static time_t started;

/* ------------------------------------------------------------------------
 * ifLinkUpDownTrapEnable and its file: one disabled ifIndex per line.
 */

static size_t position(uint32_t ifindex)
{
	return BISECT_FIRST(ndisabled, m, disabled[m] < ifindex);
}

static int add_disabled(uint32_t ifindex)
{
	size_t at = position(ifindex);

	if (at < ndisabled && disabled[at] == ifindex)
		return 0;
	if (ndisabled == room) {
		size_t n = room ? room * 2 : 16;
		uint32_t *v = realloc(disabled, n * sizeof(*v));

		if (!v)
			return errmsg_set(ENOMEM, "out of memory");
		disabled = v;
		room = n;
	}
	memmove(&disabled[at + 1], &disabled[at], (ndisabled - at) * sizeof(*disabled));
	disabled[at] = ifindex;
	ndisabled++;
	return 0;
}

static void remove_disabled(uint32_t ifindex)
{
	size_t at = position(ifindex);

	if (at == ndisabled || disabled[at] != ifindex)
		return;
	memmove(&disabled[at], &disabled[at + 1], (ndisabled - at - 1) * sizeof(*disabled));
	ndisabled--;
}

/* A line that is not an ifIndex is logged with file:line and skipped. */
static void parse_file(char *buf)
{
	unsigned int line = 0;

	for (char *p = buf, *nl; *p; p = nl) {
		char *end;
		unsigned long v;

		nl = strchr(p, '\n');
		nl = nl ? nl + 1 : p + strlen(p);
		line++;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v == 0 || v > IFMIB_MAX_INT32 || (*end != '\n' && *end))
			snmp_log(LOG_WARNING, "%s:%u: not an ifIndex: ignored\n", path, line);
		else if (add_disabled((uint32_t)v) < 0)
			return;
	}
}

static void read_file(void)
{
	const char *why = NULL;
	char *buf;
	size_t len;
	int err = safefile_read(path, MAX_FILE, &buf, &len, &why);

	if (err == -ENOENT)
		return;
	if (err < 0) {
		snmp_log(LOG_WARNING, "%s: %s: %s (every ifLinkUpDownTrapEnable is enabled(1))\n",
		         path, why ? why : "cannot read", strerror(-err));
		return;
	}
	parse_file(buf);
	free(buf);
}

static int fill_file(FILE *f, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < ndisabled; i++)
		if (fprintf(f, "%" PRIu32 "\n", disabled[i]) < 0)
			return -EIO;
	return 0;
}

/* STATE_FILE.linktraps of @state_file, in @buf of @size. */
static void linktraps_path(const char *state_file, char *buf, size_t size)
{
	snprintf(buf, size, "%s.linktraps", state_file);
}

bool notify_state_opened(const char *state_file)
{
	char buf[4096];

	if (!opened)
		return false;
	if (!state_file)
		return !path;
	linktraps_path(state_file, buf, sizeof(buf));
	return path && strcmp(path, buf) == 0;
}

int notify_state_open(const char *state_file)
{
	char buf[4096];

	if (!started)
		started = time(NULL);
	notify_state_close();
	opened = true;
	if (!state_file)
		return 0;
	linktraps_path(state_file, buf, sizeof(buf));
	path = strdup(buf);
	snprintf(buf, sizeof(buf), "%s.notifications", state_file);
	counts_path = strdup(buf);
	if (!path || !counts_path)
		return errmsg_set(ENOMEM, "out of memory");
	read_file();
	return 0;
}

void notify_state_close(void)
{
	free(disabled);
	free(path);
	free(counts_path);
	counts_path = NULL;
	counts_written = told_counts_error = false;
	disabled = NULL;
	path = NULL;
	ndisabled = room = 0;
	opened = false;
}

bool traps_link_enabled(uint32_t ifindex)
{
	size_t at = position(ifindex);

	return at == ndisabled || disabled[at] != ifindex;
}

/* Sets @ifindex's value in memory only; 0 or -ENOMEM. */
static int set_enabled(uint32_t ifindex, bool on)
{
	if (on)
		remove_disabled(ifindex);
	else if (add_disabled(ifindex) < 0)
		return -ENOMEM;
	return 0;
}

int traps_link_enable(uint32_t ifindex, bool on)
{
	const char *why = "cannot write";
	bool was = traps_link_enabled(ifindex);
	int err;

	if (set_enabled(ifindex, on) < 0)
		return errmsg_set(ENOMEM, "out of memory");
	if (!path)
		return 0;
	err = safefile_write(path, SAFEFILE_STATE, 0644, fill_file, NULL, &why);
	if (err < 0) {
		/* Removing never fails, nor adding back what was there. */
		(void)set_enabled(ifindex, was);
		return errmsg_set(-err, "%s: %s: %s (the value is unchanged)", path, why,
		                  strerror(-err));
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * The counters and STATE_FILE.notifications (docs/agent.md, "Notification
 * counters"): written from the main loop when the counters changed, at
 * most once a pass, through the safe-file rules; statctl notifications
 * reads it.
 */

void notify_state_sent(void)
{
	counts.sent++;
}

void notify_state_lost(void)
{
	counts.lost++;
}

void notify_state_suppressed(uint64_t n)
{
	counts.suppressed += n;
}

void traps_get_counts(struct traps_counts *c)
{
	*c = counts;
	c->lost += sinks_lost(); /* -M: what a sink could not take, once per sink */
}

static int fill_counts(FILE *f, void *arg)
{
	const struct traps_counts *c = arg;

	return fprintf(f,
	               "pid %ld\nstarted %lld\nsent %" PRIu64 "\nsuppressed %" PRIu64
	               "\nlost %" PRIu64 "\n",
	               (long)getpid(), (long long)started, c->sent, c->suppressed, c->lost) < 0
	           ? -EIO
	           : 0;
}

void notify_state_write(void)
{
	struct traps_counts now;
	const char *why = "cannot write";
	int err;

	traps_get_counts(&now);
	if (!counts_path || (counts_written && memcmp(&now, &written, sizeof(now)) == 0))
		return;
	err = safefile_write(counts_path, SAFEFILE_STATE, 0644, fill_counts, &now, &why);
	if (err < 0) {
		if (!told_counts_error)
			snmp_log(LOG_WARNING,
			         "%s: %s: %s (statctl notifications cannot show them)\n",
			         counts_path, why, strerror(-err));
		told_counts_error = true;
		return;
	}
	written = now;
	counts_written = true;
}
