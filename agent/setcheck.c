/*
 * setcheck.c - SET validation for STATCTR-MIB: which error, in which order.
 *
 * Owns the rules of RFC 3416 4.2.5 for the reset objects, checked in the
 * RFC's order so that a varbind wrong in several ways gets the error the
 * RFC ranks first.  Never performs a reset, never logs, never touches
 * Net-SNMP's agent state: it only looks at the published aggregation and
 * the varbind.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "setcheck.h"

#include <string.h>

/* Steps (9) to (11) of RFC 3416 4.2.5, for an instance that exists. */
static int check_instance(const struct agg_result *res, const struct oidmap_instance *inst,
                          long value, long *action)
{
	const struct agg_segment *as = &res->segs[inst->seg];

	/* (9) It exists, but this process may not write the control file: no value sticks. */
	if (as->snap && !as->can_reset)
		return SNMP_ERR_NOTWRITABLE;
	/* (10) No values now (absent, stale, incompatible): reset(2) works once they are back. */
	if (value == SETCHECK_RESET && !as->can_reset)
		return SNMP_ERR_INCONSISTENTVALUE;
	/* (10) start(2) of a segment that declares no epochs never works. */
	if (value == SETCHECK_RESET && inst->col->what == MIB_SEG_EPOCH_START &&
	    !as->decl->epoch_keep)
		return SNMP_ERR_INCONSISTENTVALUE;
	/* (11) resourceUnavailable never applies: the baselines are preallocated. */
	*action = value;
	return SNMP_ERR_NOERROR;
}

int setcheck(const struct oidmap_region *region, const struct agg_result *res, bool allow_reset,
             const struct setcheck_varbind *vb, struct oidmap_instance *inst, long *action)
{
	const struct oidmap_column *col = oidmap_column(region, vb->name, vb->name_len);
	long value;

	/* (1) noAccess is the master's (VACM): it never forwards a varbind outside the view. */
	/* (2) Nothing of this object type is ever writable: read-only, no object, resets off. */
	if (!col || !col->writable || !allow_reset)
		return SNMP_ERR_NOTWRITABLE;
	/* (3), (4): every StatctrResetAction is an INTEGER, which Net-SNMP decodes into a long. */
	if (vb->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (vb->val_len != sizeof(long) || !vb->val)
		return SNMP_ERR_WRONGLENGTH;
	/* (5) wrongEncoding is the master's: it drops a PDU whose BER it cannot decode. */
	memcpy(&value, vb->val, sizeof(value)); /* the value may be unaligned */
	if (value != SETCHECK_IDLE && value != SETCHECK_RESET)
		return SNMP_ERR_WRONGVALUE; /* (6) */
	/*
	 * (7) No SET creates an instance here (no RowStatus; rows come and go
	 * with the writers), so a missing one is noCreation, and (8)
	 * inconsistentName never applies.
	 */
	if (!oidmap_get(region, res, vb->name, vb->name_len, inst))
		return SNMP_ERR_NOCREATION;
	return check_instance(res, inst, value, action);
}
