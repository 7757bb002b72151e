/*
 * traps.c - linkUp/linkDown and ifLinkUpDownTrapEnable (see traps.h).
 *
 * Owns which rows have notifications disabled (STATE_FILE.linktraps), the
 * decision whether a change of ifOperStatus is a linkUp, a linkDown or
 * nothing, the hold-down, the notification counters and the Notify PDUs.
 * Never decides a row's state (ifmib.c does) and never registers anything.
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
#include "encode.h"
#include "safefile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* The result traps_poll() last looked at. */
static uint64_t seen_ns, seen_passes;

/* ------------------------------------------------------------------------
 * ifLinkUpDownTrapEnable and its file: one disabled ifIndex per line.
 */

static size_t position(uint32_t ifindex)
{
	size_t lo = 0, hi = ndisabled;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (disabled[mid] < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
		if (errno || end == p || v == 0 || v > 2147483647ul || (*end != '\n' && *end))
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

	if (state_file)
		snprintf(buf, sizeof(buf), "%s.linktraps", state_file);
	if (opened && (state_file ? path && strcmp(path, buf) == 0 : !path))
		return 0;
	traps_close();
	opened = true;
	if (!state_file)
		return 0;
	path = strdup(buf);
	if (!path)
		return agent_seterr(ENOMEM, "out of memory");
	read_file();
	return 0;
}

void traps_close(void)
{
	free(disabled);
	free(path);
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

struct poll_ctx {
	uint64_t holddown_ns;
	bool connected;
};

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

/* One Notify PDU: snmpTrapOID.0, ifIndex, ifAdminStatus, ifOperStatus (send_v2trap()
 * puts sysUpTime.0 first). */
static void send_link(const oid *trap, const struct ifmib_change *c)
{
	netsnmp_variable_list *vars = NULL;
	netsnmp_variable_list *vb = snmp_varlist_add_variable(
	    &vars, snmp_trap_oid, sizeof(snmp_trap_oid) / sizeof(oid), ASN_NULL, NULL, 0);

	if (vb)
		encode_oid(vb, trap, sizeof(link_up_oid) / sizeof(oid));
	add_column(&vars, 1, c->ifindex, (long)c->ifindex);
	add_column(&vars, 7, c->ifindex, c->admin);
	add_column(&vars, 8, c->ifindex, c->now);
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

static enum ifmib_told tell(void *arg, const struct ifmib_change *c, uint64_t now_ns)
{
	const struct poll_ctx *p = arg;
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
	counts.suppressed += c->flips > 1 ? c->flips - 1 : 0;
	if (!p->connected) {
		counts.lost++;
		return IFMIB_SENT;
	}
	send_link(trap, c);
	counts.sent++;
	return IFMIB_SENT;
}

void traps_poll(struct ifmib_serve *ifm, struct aggregator *agg, uint32_t holddown_ms,
                bool connected)
{
	struct poll_ctx p = {.holddown_ns = (uint64_t)holddown_ms * 1000000u,
	                     .connected = connected};
	const struct agg_result *res;

	if (!ifm || !agg_ready(agg))
		return;
	res = agg_acquire(agg); /* released below */
	if (res->taken_ns != seen_ns || res->stats.passes != seen_passes) {
		seen_ns = res->taken_ns;
		seen_passes = res->stats.passes;
		ifmib_serve_changes(ifm, res, tell, &p);
	}
	agg_release(res); /* pairs with agg_acquire() above */
}

void traps_get_counts(struct traps_counts *c)
{
	*c = counts;
}
