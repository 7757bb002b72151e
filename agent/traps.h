/*
 * traps.h - the agent's notifications (docs/agent.md, "Notifications"):
 * RFC 2863's linkUp and linkDown for the IF-MIB rows it serves (and
 * ifLinkUpDownTrapEnable), STATCTR-MIB's statctrSegmentStateChange and
 * statctrWriterRestart.
 *
 * Sent as AgentX Notify PDUs (send_v2trap() in a subagent): snmpd's
 * trap2sink, informsink and notification tables choose versions and
 * targets.  Detection runs in the main loop after each published
 * aggregation (the thread wakes the loop), so a change goes out within one
 * pass.  Process-wide, like the ifIndex store: a SIGHUP keeps the settings
 * of ifLinkUpDownTrapEnable and the counters.  SNMP (main) thread only.
 */
#ifndef STATCTR_AGENT_TRAPS_H
#define STATCTR_AGENT_TRAPS_H

#include "aggregate.h"
#include "backend_ifmib.h"
#include "settings.h"

#include <stdbool.h>
#include <stdint.h>

struct traps_counts {
	uint64_t sent;       /* notifications handed to the master */
	uint64_t suppressed; /* oper-state changes a hold-down kept from being sent */
	uint64_t lost;       /* due while detached from the master: dropped, never queued */
};

/*
 * traps_open() - ifLinkUpDownTrapEnable as kept in STATE_FILE.linktraps
 * (NULL: not kept; every row enabled(1), RFC 2863's DEFVAL for an
 * interface on top of no other).  Called again with the same path:
 * nothing.  0 or a negative errno (agent_errmsg(); an unreadable file is
 * logged and ignored).
 */
int traps_open(const char *state_file);

/* At exit: frees the store. */
void traps_close(void);

/* Whether row @ifindex sends linkUp/linkDown: ifLinkUpDownTrapEnable is enabled(1). */
bool traps_link_enabled(uint32_t ifindex);

/*
 * traps_link_enable() - sets ifLinkUpDownTrapEnable of @ifindex and
 * writes the state file (safefile_write()).  0, or a negative errno
 * (agent_errmsg()): the value is set but not kept.
 */
int traps_link_enable(uint32_t ifindex, bool on);

/*
 * traps_poll() - if @agg published a result since the last call, sends
 * the notifications of what changed since the previous one: a segment's
 * status or generation (as @set enables them; the first result of an
 * aggregator is only looked at), @ifm's rows' linkUp/linkDown (at most
 * one per row per set->link_holddown_ms, and at most a budget per call:
 * traps_pending()); while not @connected they are counted as lost.
 */
void traps_poll(const struct agent_settings *set, struct ifmib_serve *ifm, struct aggregator *agg,
                bool connected);

/*
 * traps_reset_done() - statctrResetDone for the resets @v[0..@n-1] (a SET
 * PDU's, done): one per segment, naming the range covering its resets, if
 * set->notify_reset; counted lost while not @connected.
 */
void traps_reset_done(const struct agent_settings *set, const struct agg_result *res,
                      const struct agg_reset *v, uint32_t n, bool connected);

/*
 * traps_pending() - the last traps_poll() sent as many linkUp/linkDown as
 * one poll may (NOTIFY_BUDGET) and left changes for the next: poll again
 * soon, once the master's Responses have been read.
 */
bool traps_pending(void);

void traps_get_counts(struct traps_counts *c);

#endif /* STATCTR_AGENT_TRAPS_H */
