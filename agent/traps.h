/*
 * traps.h - the agent's notifications (docs/agent.md, "Notifications"):
 * RFC 2863's linkUp and linkDown for the IF-MIB rows it serves,
 * STATCTR-MIB's statctrSegmentStateChange, statctrWriterRestart and
 * statctrResetDone.
 *
 * Each built from its row of mib/notifications.h's table and sent as an
 * AgentX Notify PDU (send_v2trap() in a subagent): snmpd's trap2sink,
 * informsink and notification tables choose versions and targets.
 * Detection runs in the main loop after each published aggregation (the
 * thread wakes the loop), so a change goes out within one pass.
 * ifLinkUpDownTrapEnable and the counters are notify_state.h's, which a
 * SIGHUP keeps.  SNMP (main) thread only.
 */
#ifndef STATCTR_AGENT_TRAPS_H
#define STATCTR_AGENT_TRAPS_H

#include "aggregate.h"
#include "backend_ifmib.h"
#include "settings.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * traps_open() - opens the notifications' state (notify_state_open()) for
 * STATE_FILE (NULL: not kept) and forgets what was last seen of the
 * segments.  Called again with the same path: nothing.  0 or a negative
 * errno (errmsg_get()).
 */
int traps_open(const char *state_file);

/* At exit: frees what traps_open() opened. */
void traps_close(void);

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

#endif /* STATCTR_AGENT_TRAPS_H */
