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
 * @set, @agg and @map must outlive the registrations.  Returns 0 or a
 * negative errno (cause in agent_errmsg()); on failure nothing stays
 * registered.
 */
int handlers_register(const struct agent_settings *set, struct aggregator *agg,
                      const struct oidmap *map, struct handlers **hp);

/* Unregisters (an AgentX Unregister PDU each) and frees. */
void handlers_unregister(struct handlers *h);

#endif /* STATCTR_AGENT_HANDLERS_H */
