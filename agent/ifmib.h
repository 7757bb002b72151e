/*
 * ifmib.h - a table declared `standard = "if-mib"` served as interfaces:
 * the ifTable and ifXTable columns mib/ifmib.h lists, for the table's
 * ifIndex range only (docs/agent.md, "Show up in your NMS as interfaces").
 *
 * One AgentX range registration per served column and table (Net-SNMP's
 * range_subid/range_ubound: the ifIndex sub-identifier, up to the range's
 * last value), so that snmpd keeps serving its own interfaces below and
 * around it and a walk sees both as one table.  Answers from the same
 * published aggregation as the STATCTR-MIB handlers of the request
 * (handlers_request_result()); GET and GETNEXT bisect a per-result array of
 * the present rows sorted by ifIndex.  SNMP thread only.
 */
#ifndef STATCTR_AGENT_IFMIB_H
#define STATCTR_AGENT_IFMIB_H

#include "aggregate.h"
#include "settings.h"

struct ifmib_serve;

/*
 * ifmib_serve_create() - the IF-MIB tables of @set (none: an empty
 * object), answering from @agg; the ifIndex store follows
 * agent.state_file (ifindex.h).  @set and @agg must outlive it.  Returns 0
 * or a negative errno (cause in agent_errmsg()).
 */
int ifmib_serve_create(const struct agent_settings *set, struct aggregator *agg,
                       struct ifmib_serve **ifmp);

/* Registers every column of every IF-MIB table; 0 or a negative errno (agent_errmsg()). */
int ifmib_serve_register(struct ifmib_serve *ifm);

/*
 * To call when the AgentX session (re)opens, before Net-SNMP re-sends its
 * registrations: lets one Register PDU per range go out, not one per
 * ifIndex (ifmib.c says why).  NULL: nothing.
 */
void ifmib_serve_reattach_once(struct ifmib_serve *ifm);

/* Unregisters what ifmib_serve_register() registered (nothing twice). */
void ifmib_serve_unregister(struct ifmib_serve *ifm);

/* Drops the registrations without unregistering: shutdown_agent() freed them. */
void ifmib_serve_forget(struct ifmib_serve *ifm);

/* Unregisters what is still registered and frees (NULL: nothing). */
void ifmib_serve_free(struct ifmib_serve *ifm);

/* At exit: writes the ifIndex names not in the file yet, and frees the store. */
void ifmib_store_close(void);

#endif /* STATCTR_AGENT_IFMIB_H */
