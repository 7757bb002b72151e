/*
 * engine.h - the agent's one SNMP engine: every MIB region the agent serves
 * (STATCTR-MIB's objects, data and histogram tables; IF-MIB's ifTable and
 * ifXTable columns) is registered by register.c and answered by the one
 * handler here, through the same GET, GETNEXT and SET path.
 *
 * A backend is one file per MIB area, named for what it serves:
 * backend_statctr.c (STATCTR-MIB), backend_byname.c (its by-name tables,
 * statctrRowsByName) and backend_ifmib.c (IF-MIB).  Its interface with the
 * engine is this header: engine_add() per region, with a struct
 * engine_backend (how to find an instance, O(log n) by bisection with
 * bisect.h's one loop; what its value is; which SETs it accepts) and the
 * backend's data for that region.  A backend answers one varbind at a
 * time: it never registers and never sees a PDU.
 *
 * The engine owns what is common: the published result every varbind of a
 * PDU answers from (one aggregation per PDU, across regions and backends),
 * the SET phases (RESERVE1 checks and the reset rate limit; the first
 * COMMIT hands every reset of the PDU to the aggregation thread in one
 * agg_reset()), and keeping regions served across a reload
 * (engine_adopt()).  SNMP thread only.
 */
#ifndef STATCTR_AGENT_ENGINE_H
#define STATCTR_AGENT_ENGINE_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "aggregate.h"
#include "register.h"

#include <stdbool.h>

struct engine_region;

/* What a backend answers for one region (@data: the backend's, per region). */
struct engine_backend {
	/*
	 * GET of @vb's name: SNMP_ERR_NOERROR with the value set, else
	 * SNMP_NOSUCHINSTANCE (an object of the region) or SNMP_NOSUCHOBJECT.
	 */
	int (*get)(const void *data, const struct agg_result *res, netsnmp_variable_list *vb);
	/*
	 * GETNEXT: true with @vb's name and value set to the first instance of
	 * the region after its name (at it when @inclusive); false when there
	 * is none in this region.
	 */
	bool (*next)(const void *data, const struct agg_result *res, netsnmp_variable_list *vb,
	             bool inclusive);
	/*
	 * SET of @vb: the SNMP error status of RFC 3416 4.2.5; on
	 * SNMP_ERR_NOERROR, @reset->count > 0 when it resets @reset's cells, @reset->epoch
	 * when it starts an epoch of @reset->seg (both handed to agg_reset()).
	 * NULL: nothing in the region is writable.
	 */
	int (*set_check)(const void *data, const struct agg_result *res,
	                 const netsnmp_variable_list *vb, struct agg_reset *reset);
	/*
	 * ACTION of a SET that set_check() accepted and that resets nothing:
	 * stores @vb's value and sets *@undo to what set_undo() puts back;
	 * SNMP_ERR_NOERROR, or SNMP_ERR_COMMITFAILED with nothing changed.
	 * NULL: the region's SETs only reset.
	 */
	int (*set_apply)(const void *data, const netsnmp_variable_list *vb, long *undo);
	/*
	 * UNDO (another varbind of the PDU failed in ACTION) of a set_apply()
	 * that succeeded: stores @undo back; SNMP_ERR_NOERROR or
	 * SNMP_ERR_UNDOFAILED.
	 */
	int (*set_undo)(const void *data, const netsnmp_variable_list *vb, long undo);
};

struct engine;

/*
 * An engine answering from @agg, with no region yet; a refused region is
 * re-sent after @ping_interval s (agent.ping_interval), then less often.
 * 0 or -ENOMEM (errmsg_get()).
 */
int engine_create(struct aggregator *agg, unsigned int ping_interval, struct engine **ep);

/*
 * engine_on_reset() - @fn(@arg, @v, @n) after the resets @v[0..@n-1] of a
 * SET PDU are done (COMMIT, once per PDU; traps.c's statctrResetDone).
 */
typedef void engine_reset_fn(void *arg, const struct agg_result *res, const struct agg_reset *v,
                             uint32_t n);
void engine_on_reset(struct engine *e, engine_reset_fn *fn, void *arg);

/*
 * engine_add() - a region of @be with @data (which must outlive the
 * engine): the subtree @root, or with @range_subid the range of subtrees
 * where sub-identifier @range_subid of @root runs up to @range_ubound.
 * Not registered yet (engine_register(), or engine_register_more() once
 * the engine serves).  0 or -ENOMEM.
 */
int engine_add(struct engine *e, const char *name, const oid *root, size_t root_len,
               int range_subid, oid range_ubound, const struct engine_backend *be,
               const void *data);

/*
 * engine_register() - registers every region not registered yet (register.h:
 * refused with @strict, the call fails naming it and nothing of @e stays
 * registered).  0 or a negative errno (errmsg_get()).
 */
int engine_register(struct engine *e, bool strict);

/*
 * engine_register_more() - registers the regions added since the engine
 * registered, as engine_register() without @strict, but a failure leaves
 * the rest registered (the regions it did not register are tried again at
 * the next call).  0 or a negative errno (errmsg_get()).
 */
int engine_register_more(struct engine *e);

/*
 * engine_adopt() - before @to registers: each region of @to that @from
 * registered alike (same OID, range and access) takes over @from's
 * registration, so that it is served without a gap (and without a PDU to
 * the master) across a reload; @from's other regions are unregistered.
 */
void engine_adopt(struct engine *to, struct engine *from);

/* Unregisters every region of @e (the master is told of what it granted only). */
void engine_unregister(struct engine *e);

/*
 * Frees @e; its regions must be unregistered, or forgotten with
 * registry_forget_all() after shutdown_agent().  NULL: nothing.
 */
void engine_free(struct engine *e);

#endif /* STATCTR_AGENT_ENGINE_H */
