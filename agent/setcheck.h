/*
 * setcheck.h - validation of one SET varbind for STATCTR-MIB.
 *
 * A pure function of the OID map, the published aggregation, the
 * allow_reset setting and the varbind's name, type and value bytes: no
 * Net-SNMP agent calls, no I/O, no state.  backend_statctr.c calls it in
 * RESERVE1; tests/fuzz/fuzz_set.c calls it on arbitrary bytes.
 */
#ifndef STATCTR_AGENT_SETCHECK_H
#define STATCTR_AGENT_SETCHECK_H

#include "aggregate.h"
#include "oidmap.h"

#include <stdbool.h>
#include <stddef.h>

/* Values of StatctrResetAction (and of StatctrEpochAction: idle(1), start(2)). */
#define SETCHECK_IDLE  1
#define SETCHECK_RESET 2

struct setcheck_varbind {
	const oid *name;
	size_t name_len;
	u_char type;     /* ASN_* */
	const void *val; /* val_len bytes; may be NULL when val_len is 0 */
	size_t val_len;
};

/*
 * setcheck() - the SNMP error status for SETting @vb in @region, checked in
 * RFC 3416 4.2.5 order: notWritable (no writable object type at that OID,
 * or !@allow_reset), wrongType (not an INTEGER), wrongLength (not a long),
 * wrongValue (not idle(1)/reset(2)), noCreation (no such instance in
 * @res), notWritable (the control file is read-only to this process),
 * inconsistentValue (reset(2) of a segment that has no values now, start(2)
 * of one that declares no epochs).  On
 * SNMP_ERR_NOERROR, *@inst is the instance and *@action its new value.
 * Never reads @vb->val beyond @vb->val_len, never trusts its alignment.
 */
int setcheck(const struct oidmap_region *region, const struct agg_result *res, bool allow_reset,
             const struct setcheck_varbind *vb, struct oidmap_instance *inst, long *action);

#endif /* STATCTR_AGENT_SETCHECK_H */
