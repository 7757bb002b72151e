/*
 * notifications.h - the notifications statctr-agentx sends, as data: for
 * each, its OID and the objects of its varbinds in their order (the
 * OBJECTS clause of its NOTIFICATION-TYPE).  RFC 2863's linkDown and
 * linkUp (IF-MIB, under SNMPv2-MIB's snmpTraps) and STATCTR-MIB's
 * statctrNotifications; every one goes out with snmpTrapOID.0 first.
 *
 * The one place of those facts: the agent's sender (agent/traps.c) walks
 * mib_notifications[], tests/unit/test_mib.c checks it against
 * mib/STATCTR-MIB.txt and mib/IF-MIB-notifications.excerpt (not a .txt: not a module, so
 * smilint and the MIB directory never take it), both ways.  Says
 * nothing of when a notification is due or of its values.  No Net-SNMP.
 */
#ifndef STATCTR_MIB_NOTIFICATIONS_H
#define STATCTR_MIB_NOTIFICATIONS_H

#include "objects.h"

#include <stdint.h>

/* snmpTrapOID.0 (RFC 3418, SNMPv2-MIB): a notification's first varbind after sysUpTime.0. */
#define MIB_SNMP_TRAP_OID_LEN 11u
extern const uint32_t mib_snmp_trap_oid[MIB_SNMP_TRAP_OID_LEN];

/* snmpTraps (RFC 3418), 1.3.6.1.6.3.1.1.5: where IF-MIB hangs linkDown and linkUp. */
#define MIB_SNMP_TRAPS_LEN 9u
extern const uint32_t mib_snmp_traps[MIB_SNMP_TRAPS_LEN];

/*
 * Which MIB a notification, or one of its objects, is of.  A notification:
 * IF-MIB's hangs from snmpTraps, STATCTR-MIB's from statctrNotifications
 * (root_oid.MIB_ARC_NOTIFICATIONS).  An object: IF-MIB's is an ifTable
 * column (instance: the ifIndex), STATCTR-MIB's a fixed object (enum
 * mib_object_id; instance: the segment's `oid` in statctrSegmentTable, 0
 * for a statctrAgent scalar).
 */
enum mib_notify_module { MIB_NOTIFY_IF_MIB, MIB_NOTIFY_STATCTR_MIB };

struct mib_notify_object {
	enum mib_notify_module module;
	uint32_t id; /* IF-MIB: the column under ifEntry; STATCTR-MIB: enum mib_object_id */
};

#define MIB_NOTIFY_MAX_OBJECTS 4

struct mib_notification {
	const char *descriptor;
	enum mib_notify_module module;
	uint32_t arc; /* under snmpTraps or statctrNotifications */
	uint32_t nobjects;
	struct mib_notify_object objects[MIB_NOTIFY_MAX_OBJECTS]; /* the varbinds, in order */
};

enum mib_notification_id {
	MIB_NOTIFICATION_LINK_DOWN,
	MIB_NOTIFICATION_LINK_UP,
	MIB_NOTIFICATION_SEGMENT_STATE,
	MIB_NOTIFICATION_WRITER_RESTART,
	MIB_NOTIFICATION_RESET_DONE,
	MIB_NNOTIFICATIONS
};

/* Indexed by enum mib_notification_id. */
extern const struct mib_notification mib_notifications[MIB_NNOTIFICATIONS];

#endif /* STATCTR_MIB_NOTIFICATIONS_H */
