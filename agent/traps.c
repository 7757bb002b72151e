/*
 * traps.c - linkUp/linkDown and ifLinkUpDownTrapEnable (see traps.h).
 *
 * Owns which rows have notifications disabled (STATE_FILE.linktraps), the
 * decision whether a change of ifOperStatus is a linkUp, a linkDown or
 * nothing, the hold-down, what it last saw of each segment, the
 * notification counters and their file for statctl
 * (STATE_FILE.notifications) and the Notify PDUs.  Never decides a row's state
 * (ifmib.c does) or a segment's values (handlers.c does), never registers
 * anything.
 *
 * RFC 2863 (linkDown, linkUp): a notification when ifOperStatus enters
 * down(2) from a state other than notPresent(6), or leaves it for a state
 * other than notPresent(6).  lowerLayerDown(7) is a down state here as
 * down(2) is (the interface cannot pass packets: RFC 2863 3.1.13).  A row
 * that appears or disappears never changed ifOperStatus: no notification.
 * The varbinds are the row's ifIndex, ifAdminStatus and ifOperStatus as a
 * GET reads them when the notification is sent.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "traps.h"
#include "agent.h"
#include "backend_statctr.h"
#include "bisect.h"
#include "encode.h"
#include "ifmib.h"
#include "objects.h"
#include "safefile.h"
#include "sinks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OPER_DOWN        2
#define OPER_NOT_PRESENT 6
#define OPER_LOWER_DOWN  7
#define MAX_FILE         (1u << 20)

static const oid snmp_trap_oid[] = {1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0};
static const oid link_down_oid[] = {1, 3, 6, 1, 6, 3, 1, 1, 5, 3};
static const oid link_up_oid[] = {1, 3, 6, 1, 6, 3, 1, 1, 5, 4};
/* ifIndex, ifAdminStatus, ifOperStatus: ifEntry columns 1, 7, 8. */
static const oid if_entry[] = {1, 3, 6, 1, 2, 1, 2, 2, 1};
#define IF_ENTRY_LEN (sizeof(if_entry) / sizeof(if_entry[0]))

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
/* The result traps_poll() last looked at, and each of its segments. */
static const struct aggregator *seen_agg;
static uint64_t seen_ns, seen_passes;
struct seg_seen {
	enum agg_status status;
	uint32_t generations;
};
static struct seg_seen *segs_seen;
static uint32_t nsegs_seen;

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
			return agent_seterr(ENOMEM, "out of memory");
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

int traps_open(const char *state_file)
{
	char buf[4096];

	if (!started)
		started = time(NULL);
	if (state_file)
		snprintf(buf, sizeof(buf), "%s.linktraps", state_file);
	if (opened && (state_file ? path && strcmp(path, buf) == 0 : !path))
		return 0;
	traps_close();
	opened = true;
	if (!state_file)
		return 0;
	path = strdup(buf);
	snprintf(buf, sizeof(buf), "%s.notifications", state_file);
	counts_path = strdup(buf);
	if (!path || !counts_path)
		return agent_seterr(ENOMEM, "out of memory");
	read_file();
	return 0;
}

void traps_close(void)
{
	free(disabled);
	free(path);
	free(counts_path);
	counts_path = NULL;
	counts_written = told_counts_error = false;
	free(segs_seen);
	disabled = NULL;
	path = NULL;
	segs_seen = NULL;
	nsegs_seen = 0;
	seen_agg = NULL;
	ndisabled = room = 0;
	opened = false;
}

bool traps_link_enabled(uint32_t ifindex)
{
	size_t at = position(ifindex);

	return at == ndisabled || disabled[at] != ifindex;
}

int traps_link_enable(uint32_t ifindex, bool on)
{
	const char *why = "cannot write";
	int err;

	if (on)
		remove_disabled(ifindex);
	else if (add_disabled(ifindex) < 0)
		return -ENOMEM;
	if (!path)
		return 0;
	err = safefile_write(path, SAFEFILE_STATE, 0644, fill_file, NULL, &why);
	if (err < 0)
		return agent_seterr(-err, "%s: %s: %s (the value holds until the agent restarts)",
		                    path, why, strerror(-err));
	return 0;
}

/* ------------------------------------------------------------------------
 * Changes and notifications.
 */

/*
 * At most this many linkUp/linkDown per traps_poll().  The AgentX master
 * answers each Notify PDU with a Response, which the agent reads only
 * between polls, and both ends write their unix socket blocking: a burst
 * that fills the buffers of both directions deadlocks the two processes
 * for good (400 rows flapping at once did: the agent and snmpd both stuck
 * in sendto()).  The changes past the budget wait, pending, for the next
 * poll, which the master's Responses wake (traps_pending()).
 */
#define NOTIFY_BUDGET 32

struct poll_ctx {
	uint64_t holddown_ns;
	bool connected;
	uint32_t budget; /* Notify PDUs this poll may still send */
	bool deferred;   /* a change waited for the budget */
};

static bool deferred; /* the last poll left changes for the budget */

static bool is_down(uint8_t state)
{
	return state == OPER_DOWN || state == OPER_LOWER_DOWN;
}

/* linkDown, linkUp, or NULL: this change is none (RFC 2863, above). */
static const oid *link_trap(const struct ifmib_change *c)
{
	if (!c->told || !c->now || c->told == OPER_NOT_PRESENT || c->now == OPER_NOT_PRESENT)
		return NULL;
	if (is_down(c->now) != is_down(c->told))
		return is_down(c->now) ? link_down_oid : link_up_oid;
	return NULL;
}

static void add_column(netsnmp_variable_list **vars, oid column, uint32_t ifindex, long value)
{
	oid name[IF_ENTRY_LEN + 2];
	netsnmp_variable_list *vb;

	memcpy(name, if_entry, sizeof(if_entry));
	name[IF_ENTRY_LEN] = column;
	name[IF_ENTRY_LEN + 1] = ifindex;
	vb = snmp_varlist_add_variable(vars, name, IF_ENTRY_LEN + 2, ASN_NULL, NULL, 0);
	if (vb)
		encode_integer(vb, value);
}

/* snmpTrapOID.0 = @trap: a notification's first varbind (send_v2trap() puts sysUpTime.0
 * before it). */
static void add_trap_oid(netsnmp_variable_list **vars, const oid *trap, size_t len)
{
	netsnmp_variable_list *vb = snmp_varlist_add_variable(
	    vars, snmp_trap_oid, sizeof(snmp_trap_oid) / sizeof(oid), ASN_NULL, NULL, 0);

	if (vb)
		encode_oid(vb, trap, len);
}

/*
 * Hands @vars to the master, or with -M to the sinks' queues (sinks.c: the
 * SNMP thread never sends to a receiver itself), or counts them lost; frees them.
 */
static void send_vars(netsnmp_variable_list *vars, bool connected)
{
	if (connected) {
		if (sinks_on())
			sinks_send(vars);
		else
			send_v2trap(vars);
		counts.sent++;
	} else {
		counts.lost++;
	}
	snmp_free_varbind(vars);
}

/* ifIndex, ifAdminStatus, ifOperStatus. */
static void send_link(const oid *trap, const struct ifmib_change *c, bool connected)
{
	netsnmp_variable_list *vars = NULL;

	add_trap_oid(&vars, trap, sizeof(link_up_oid) / sizeof(oid));
	add_column(&vars, 1, c->ifindex, (long)c->ifindex);
	add_column(&vars, 7, c->ifindex, c->admin);
	add_column(&vars, 8, c->ifindex, c->now);
	send_vars(vars, connected);
}

static enum ifmib_told tell(void *arg, const struct ifmib_change *c, uint64_t now_ns)
{
	struct poll_ctx *p = arg;
	const oid *trap = link_trap(c);

	if (!trap) {
		/* Changed and changed back within a hold-down: the changes were suppressed. */
		if (c->told && c->told == c->now)
			counts.suppressed += c->flips;
		return IFMIB_QUIET;
	}
	if (!traps_link_enabled(c->ifindex))
		return IFMIB_QUIET;
	if (c->told_ns && now_ns - c->told_ns < p->holddown_ns)
		return IFMIB_HOLD;
	if (p->connected && !p->budget) {
		p->deferred = true;
		return IFMIB_HOLD;
	}
	if (p->connected)
		p->budget--; /* while detached nothing is sent: counted lost */
	counts.suppressed += c->flips > 1 ? c->flips - 1 : 0;
	send_link(trap, c, p->connected);
	return IFMIB_SENT;
}

/* ------------------------------------------------------------------------
 * STATCTR-MIB's notifications: a segment's row values, as a GET reads them.
 */

/* Fixed object @what's OID under root_oid, without its instance: its length. */
static size_t object_name(const struct agent_settings *set, enum mib_object_id what, oid *name)
{
	uint32_t sub[3];
	size_t len = 0, n = mib_object_oid(&mib_objects[what], sub);

	for (uint32_t i = 0; i < set->root_len; i++)
		name[len++] = set->root[i];
	name[len++] = MIB_ARC_OBJECTS;
	for (size_t i = 0; i < n; i++)
		name[len++] = sub[i];
	return len;
}

static void add_segment_value(netsnmp_variable_list **vars, const struct agent_settings *set,
                              const struct agg_segment *as, enum mib_object_id what)
{
	oid name[MIB_ROOT_MAX_ARCS + 5];
	size_t len = object_name(set, what, name);
	netsnmp_variable_list *vb;

	name[len++] = as->decl->oid;
	vb = snmp_varlist_add_variable(vars, name, len, ASN_NULL, NULL, 0);
	if (vb)
		handlers_segment_value(as, what, vb);
}

/* statctrNotifications.@arc under root_oid. */
static void add_statctr_trap(netsnmp_variable_list **vars, const struct agent_settings *set,
                             uint32_t arc)
{
	oid name[MIB_ROOT_MAX_ARCS + 2];
	size_t len = 0;

	for (uint32_t i = 0; i < set->root_len; i++)
		name[len++] = set->root[i];
	name[len++] = MIB_ARC_NOTIFICATIONS;
	name[len++] = arc;
	add_trap_oid(vars, name, len);
}

static void send_segment_state(const struct agent_settings *set, const struct agg_segment *as,
                               bool connected)
{
	netsnmp_variable_list *vars = NULL;

	add_statctr_trap(&vars, set, MIB_NOTIFY_SEGMENT_STATE);
	add_segment_value(&vars, set, as, MIB_SEG_NAME);
	add_segment_value(&vars, set, as, MIB_SEG_STATUS);
	add_segment_value(&vars, set, as, MIB_SEG_PID);
	send_vars(vars, connected);
}

static void send_writer_restart(const struct agent_settings *set, const struct agg_segment *as,
                                bool connected)
{
	netsnmp_variable_list *vars = NULL;

	add_statctr_trap(&vars, set, MIB_NOTIFY_WRITER_RESTART);
	add_segment_value(&vars, set, as, MIB_SEG_NAME);
	add_segment_value(&vars, set, as, MIB_SEG_PID);
	add_segment_value(&vars, set, as, MIB_SEG_GENERATIONS);
	add_segment_value(&vars, set, as, MIB_SEG_DISCONTINUITY);
	send_vars(vars, connected);
}

/* An accessible-for-notify scalar statctrAgent.arc.0 of @what. */
static void add_agent_value(netsnmp_variable_list **vars, const struct agent_settings *set,
                            enum mib_object_id what, uint64_t value)
{
	oid name[MIB_ROOT_MAX_ARCS + 5];
	size_t len = object_name(set, what, name);
	netsnmp_variable_list *vb;

	name[len++] = MIB_SCALAR_INSTANCE;
	vb = snmp_varlist_add_variable(vars, name, len, ASN_NULL, NULL, 0);
	if (vb)
		encode_unsigned32(vb, value);
}

/*
 * One statctrResetDone per segment a SET PDU reset, naming the smallest
 * range that covers its resets there: a PDU of 1,000 row resets (which
 * the engine does in one step) must not become 1,000 Notify PDUs sent
 * from inside its COMMIT while snmpd waits for the answer.
 */
void traps_reset_done(const struct agent_settings *set, const struct agg_result *res,
                      const struct agg_reset *v, uint32_t n, bool connected)
{
	for (uint32_t s = 0; set->notify_reset && s < res->nsegments; s++) {
		netsnmp_variable_list *vars = NULL;
		uint64_t first = UINT64_MAX, end = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (v[i].seg != s || !v[i].count) /* count 0: an epoch start */
				continue;
			first = v[i].first < first ? v[i].first : first;
			end = v[i].first + (uint64_t)v[i].count > end
			          ? v[i].first + (uint64_t)v[i].count
			          : end;
		}
		if (!end)
			continue;
		add_statctr_trap(&vars, set, MIB_NOTIFY_RESET_DONE);
		add_segment_value(&vars, set, &res->segs[s], MIB_SEG_NAME);
		add_agent_value(&vars, set, MIB_RESET_FIRST_CELL, first + 1);
		add_agent_value(&vars, set, MIB_RESET_CELLS, end - first);
		send_vars(vars, connected);
	}
}

/* The first result of an aggregator (start, reload) is the baseline: nothing to tell. */
static bool segments_baseline(const struct aggregator *agg, const struct agg_result *res)
{
	struct seg_seen *v;

	if (seen_agg == agg && nsegs_seen == res->nsegments)
		return false;
	v = realloc(segs_seen, (res->nsegments ? res->nsegments : 1) * sizeof(*v));
	if (!v)
		return true; /* tried again at the next result */
	segs_seen = v;
	nsegs_seen = res->nsegments;
	seen_agg = agg;
	for (uint32_t s = 0; s < res->nsegments; s++)
		segs_seen[s] = (struct seg_seen){res->segs[s].status, res->segs[s].generations};
	return true;
}

static void segment_changes(const struct agent_settings *set, const struct aggregator *agg,
                            const struct agg_result *res, bool connected)
{
	if (segments_baseline(agg, res))
		return;
	for (uint32_t s = 0; s < res->nsegments; s++) {
		const struct agg_segment *as = &res->segs[s];
		struct seg_seen *seen = &segs_seen[s];

		if (as->generations > seen->generations && set->notify_writer_restart)
			send_writer_restart(set, as, connected);
		if (as->status != seen->status && set->notify_segment_state)
			send_segment_state(set, as, connected);
		*seen = (struct seg_seen){as->status, as->generations};
	}
}

/* ------------------------------------------------------------------------
 * STATE_FILE.notifications (docs/agent.md, "Notification counters"):
 * written from the main loop when the counters changed, at most once a
 * pass, through the safe-file rules; statctl notifications reads it.
 */

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

static void write_counts(void)
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

void traps_poll(const struct agent_settings *set, struct ifmib_serve *ifm, struct aggregator *agg,
                bool connected)
{
	struct poll_ctx p = {.holddown_ns = (uint64_t)set->link_holddown_ms * 1000000u,
	                     .connected = connected,
	                     .budget = NOTIFY_BUDGET};
	const struct agg_result *res;
	bool fresh;

	if (!agg_ready(agg))
		return;
	res = agg_acquire(agg); /* released below */
	fresh = seen_agg != agg || res->taken_ns != seen_ns || res->stats.passes != seen_passes;
	if (fresh) {
		seen_ns = res->taken_ns;
		seen_passes = res->stats.passes;
		segment_changes(set, agg, res, connected);
	}
	/* The same result again only for what the budget held back: idempotent. */
	if (ifm && (fresh || deferred)) {
		ifmib_serve_changes(ifm, res, tell, &p);
		deferred = p.deferred;
	}
	agg_release(res); /* pairs with agg_acquire() above */
	write_counts();
}

bool traps_pending(void)
{
	return deferred;
}

void traps_get_counts(struct traps_counts *c)
{
	*c = counts;
	c->lost += sinks_lost(); /* -M: what a sink could not take, once per sink */
}
