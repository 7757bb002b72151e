/*
 * setcheck.c - SET validation for STATCTR-MIB: which error, in which order.
 *
 * Owns the rules of RFC 3416 4.2.5 for the reset objects.  Never performs a
 * reset, never logs, never touches Net-SNMP's agent state: it only looks at
 * the published aggregation and the varbind.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "setcheck.h"

#include <string.h>

int setcheck(const struct oidmap_region *region, const struct agg_result *res, bool allow_reset,
             const struct setcheck_varbind *vb, struct oidmap_instance *inst, long *action)
{
	long value;

	if (!oidmap_get(region, res, vb->name, vb->name_len, inst))
		return SNMP_ERR_NOCREATION;
	if (!inst->col->writable || !allow_reset)
		return SNMP_ERR_NOTWRITABLE;
	if (vb->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (vb->val_len != sizeof(long) || !vb->val)
		return SNMP_ERR_WRONGLENGTH;
	memcpy(&value, vb->val, sizeof(value));
	if (value != SETCHECK_IDLE && value != SETCHECK_RESET)
		return SNMP_ERR_WRONGVALUE;
	if (inst->seg >= res->nsegments || !res->segs[inst->seg].can_reset)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	*action = value;
	return SNMP_ERR_NOERROR;
}
