/*
 * handlers.h - the Net-SNMP handlers serving STATCTR-MIB.
 *
 * One registration per region of the oidmap (statctrObjects and each
 * declared table), each handling GET, GETNEXT and the SET phases for its
 * whole subtree, never one per cell.
 */
#ifndef STATCTR_AGENT_HANDLERS_H
#define STATCTR_AGENT_HANDLERS_H

#include "aggregate.h"
#include "oidmap.h"
#include "settings.h"

struct handlers;

/*
 * handlers_register() - register every region of @map with the agent.
 * @set, @agg and @map must outlive the registrations.  A region the AgentX
 * master refuses (another agent holds it) fails the call when @strict, and
 * is otherwise kept and re-sent by handlers_retry().  Returns 0 or a
 * negative errno (cause, naming the region and its OID, in agent_errmsg());
 * on failure nothing stays registered and nothing the master refused was
 * unregistered at the master.
 */
int handlers_register(const struct agent_settings *set, struct aggregator *agg,
                      const struct oidmap *map, bool strict, struct handlers **hp);

/* Whether the master granted every region of @h (false for NULL). */
bool handlers_held(const struct handlers *h);

/*
 * Re-sends the Register PDUs of the regions the master refused, at most once
 * per ping interval; call while connected.  A region granted again is
 * logged once, as its refusal was.
 */
void handlers_retry(struct handlers *h);

/*
 * Unregisters (an AgentX Unregister PDU for each region the master granted;
 * a refused region is dropped locally only) and frees.
 */
void handlers_unregister(struct handlers *h);

/*
 * Frees without unregistering: at exit, once snmp_shutdown() has closed the
 * AgentX session (the master drops what it held) and shutdown_agent() has
 * emptied the local registry.
 */
void handlers_free(struct handlers *h);

/*
 * Shared with ifmib.c (IF-MIB serving), so that both answer alike.
 * handlers_request_result(): the result request @reqinfo answers from, the
 * same for every handler of the request (acquired by the first, released
 * with the request); NULL when out of memory.
 * handlers_row_discontinuity(): CLOCK_REALTIME of the latest discontinuity
 * among cells @first..@first+@ncolumns-1 of @as, floored (statctrData's
 * per-row discontinuity column).
 */
const struct agg_result *handlers_request_result(struct aggregator *agg,
                                                 netsnmp_agent_request_info *reqinfo);
uint64_t handlers_row_discontinuity(const struct agg_segment *as, statctr_id first,
                                    uint32_t ncolumns);

#endif /* STATCTR_AGENT_HANDLERS_H */
