/*
 * traps.c - the notifications: which are due, and sending them (see
 * traps.h).
 *
 * Owns the decision whether a change of ifOperStatus is a linkUp, a
 * linkDown or nothing, the hold-down and the budget, what it last saw of
 * each segment, and the Notify PDUs, built by one sender walking
 * mib_notifications[] (mib/notifications.h).  Never decides a row's state
 * (backend_ifmib.c does) or a segment's values (backend_statctr.c does), never keeps
 * ifLinkUpDownTrapEnable or the counters (notify_state.c does), never
 * registers anything.
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
#include "encode.h"
#include "ifmib.h"
#include "notifications.h"
#include "notify_state.h"
#include "objects.h"
#include "sinks.h"

#include <stdlib.h>
#include <string.h>

#define OPER_DOWN        2
#define OPER_NOT_PRESENT 6
#define OPER_LOWER_DOWN  7

/* The result traps_poll() last looked at, and each of its segments. */
static const struct aggregator *seen_agg;
static uint64_t seen_ns, seen_passes;
struct seg_seen {
	enum agg_status status;
	uint32_t generations;
};
static struct seg_seen *segs_seen;
static uint32_t nsegs_seen;

int traps_open(const char *state_file)
{
	if (notify_state_opened(state_file))
		return 0;
	traps_close();
	return notify_state_open(state_file);
}

void traps_close(void)
{
	free(segs_seen);
	segs_seen = NULL;
	nsegs_seen = 0;
	seen_agg = NULL;
	notify_state_close();
}

/* ------------------------------------------------------------------------
 * The sender: a notification's varbinds as its row of mib_notifications[]
 * lists them, each read from what the notification is about.
 */

struct subject {
	const struct ifmib_change *link; /* linkUp, linkDown: the row's change */
	const struct agg_segment *seg;   /* STATCTR-MIB's: the segment */
	uint64_t reset_first_cell;       /* statctrResetDone: statctrResetFirstCell */
	uint64_t reset_cells;            /* and statctrResetCells */
};

/* @len arcs of @from after the @at arcs already in @name: the new length. */
static size_t append_arcs(oid *name, size_t at, const uint32_t *from, size_t len)
{
	for (size_t i = 0; i < len; i++)
		name[at++] = from[i];
	return at;
}

/* snmpTrapOID.0 = @n's OID: a notification's first varbind (send_v2trap() puts sysUpTime.0
 * before it). */
static void add_trap_oid(netsnmp_variable_list **vars, const struct agent_settings *set,
                         const struct mib_notification *n)
{
	oid trap_oid[MIB_SNMP_TRAP_OID_LEN], name[MIB_ROOT_MAX_ARCS + 2];
	size_t len;
	netsnmp_variable_list *vb;

	if (n->module == MIB_NOTIFY_IF_MIB) {
		len = append_arcs(name, 0, mib_snmp_traps, MIB_SNMP_TRAPS_LEN);
	} else {
		len = append_arcs(name, 0, set->root, set->root_len);
		name[len++] = MIB_ARC_NOTIFICATIONS;
	}
	name[len++] = n->arc;
	append_arcs(trap_oid, 0, mib_snmp_trap_oid, MIB_SNMP_TRAP_OID_LEN);
	vb = snmp_varlist_add_variable(vars, trap_oid, MIB_SNMP_TRAP_OID_LEN, ASN_NULL, NULL, 0);
	if (vb)
		encode_oid(vb, name, len);
}

/* The value of ifTable column @column of @c's row: what mib/ifmib.h serves there. */
static long if_value(uint32_t column, const struct ifmib_change *c)
{
	for (uint32_t k = 0; k < ifmib_nobjects; k++) {
		const struct ifmib_object *o = &ifmib_objects[k];

		if (o->entry != IFMIB_IF_TABLE || o->column != column)
			continue;
		switch (o->value) {
		case IFV_INDEX:
			return (long)c->ifindex;
		case IFV_ADMIN:
			return c->admin;
		case IFV_OPER:
			return c->now;
		default: /* a change holds no other value: linkUp and linkDown name none */
			return 0;
		}
	}
	return 0;
}

/* ifEntry.@column.ifIndex of @s's row. */
static void add_if_column(netsnmp_variable_list **vars, uint32_t column, const struct subject *s)
{
	oid name[IFMIB_IF_ENTRY_LEN + 2];
	size_t len = append_arcs(name, 0, ifmib_if_entry, IFMIB_IF_ENTRY_LEN);
	netsnmp_variable_list *vb;

	name[len++] = column;
	name[len++] = s->link->ifindex;
	vb = snmp_varlist_add_variable(vars, name, len, ASN_NULL, NULL, 0);
	if (vb)
		encode_integer(vb, if_value(column, s->link));
}

/*
 * Fixed object @what with its instance: a statctrSegmentTable column of
 * @s's segment, as a GET reads it, or an accessible-for-notify scalar
 * statctrAgent.arc.0 of the reset range.
 */
static void add_object(netsnmp_variable_list **vars, const struct agent_settings *set,
                       enum mib_object_id what, const struct subject *s)
{
	const struct mib_object *o = &mib_objects[what];
	oid name[MIB_ROOT_MAX_ARCS + 5];
	uint32_t sub[3];
	size_t len = append_arcs(name, 0, set->root, set->root_len);
	netsnmp_variable_list *vb;

	name[len++] = MIB_ARC_OBJECTS;
	len = append_arcs(name, len, sub, mib_object_oid(o, sub));
	name[len++] = o->space == MIB_SPACE_AGENT ? MIB_SCALAR_INSTANCE : s->seg->decl->oid;
	vb = snmp_varlist_add_variable(vars, name, len, ASN_NULL, NULL, 0);
	if (!vb)
		return;
	if (o->space != MIB_SPACE_AGENT)
		handlers_segment_value(s->seg, what, vb);
	else
		encode_unsigned32(vb, what == MIB_RESET_FIRST_CELL ? s->reset_first_cell
		                                                   : s->reset_cells);
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
		notify_state_sent();
	} else {
		notify_state_lost();
	}
	snmp_free_varbind(vars);
}

/* Notification @id about @s: snmpTrapOID.0, then its objects in the table's order. */
static void send_notification(const struct agent_settings *set, enum mib_notification_id id,
                              const struct subject *s, bool connected)
{
	const struct mib_notification *n = &mib_notifications[id];
	netsnmp_variable_list *vars = NULL;

	add_trap_oid(&vars, set, n);
	for (uint32_t i = 0; i < n->nobjects; i++) {
		const struct mib_notify_object *o = &n->objects[i];

		if (o->module == MIB_NOTIFY_IF_MIB)
			add_if_column(&vars, o->id, s);
		else
			add_object(&vars, set, (enum mib_object_id)o->id, s);
	}
	send_vars(vars, connected);
}

/* ------------------------------------------------------------------------
 * linkUp and linkDown.
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
	const struct agent_settings *set;
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

/* Whether this change is a linkDown or a linkUp (RFC 2863, above): which in *@id. */
static bool link_trap(const struct ifmib_change *c, enum mib_notification_id *id)
{
	if (!c->told || !c->now || c->told == OPER_NOT_PRESENT || c->now == OPER_NOT_PRESENT)
		return false;
	if (is_down(c->now) == is_down(c->told))
		return false;
	*id = is_down(c->now) ? MIB_NOTIFICATION_LINK_DOWN : MIB_NOTIFICATION_LINK_UP;
	return true;
}

static enum ifmib_told tell(void *arg, const struct ifmib_change *c, uint64_t now_ns)
{
	struct poll_ctx *p = arg;
	enum mib_notification_id id;

	if (!link_trap(c, &id)) {
		/* Changed and changed back within a hold-down: the changes were suppressed. */
		if (c->told && c->told == c->now)
			notify_state_suppressed(c->flips);
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
	notify_state_suppressed(c->flips > 1 ? c->flips - 1 : 0);
	send_notification(p->set, id, &(struct subject){.link = c}, p->connected);
	return IFMIB_SENT;
}

/* ------------------------------------------------------------------------
 * STATCTR-MIB's notifications.
 */

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
		send_notification(set, MIB_NOTIFICATION_RESET_DONE,
		                  &(struct subject){.seg = &res->segs[s],
		                                    .reset_first_cell = first + 1,
		                                    .reset_cells = end - first},
		                  connected);
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
		const struct subject about = {.seg = &res->segs[s]};
		struct seg_seen *seen = &segs_seen[s];

		if (about.seg->generations > seen->generations && set->notify_writer_restart)
			send_notification(set, MIB_NOTIFICATION_WRITER_RESTART, &about, connected);
		if (about.seg->status != seen->status && set->notify_segment_state)
			send_notification(set, MIB_NOTIFICATION_SEGMENT_STATE, &about, connected);
		*seen = (struct seg_seen){about.seg->status, about.seg->generations};
	}
}

void traps_poll(const struct agent_settings *set, struct ifmib_serve *ifm, struct aggregator *agg,
                bool connected)
{
	struct poll_ctx p = {.set = set,
	                     .holddown_ns = (uint64_t)set->link_holddown_ms * 1000000u,
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
	notify_state_write();
}

bool traps_pending(void)
{
	return deferred;
}
