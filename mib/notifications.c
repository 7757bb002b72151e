/*
 * notifications.c - mib_notifications[] and the SNMPv2-MIB OIDs they hang
 * from (see notifications.h).  STATCTR-MIB's arcs and objects are
 * mib/oids.h's names; only the standard MIBs' numbers are written here.
 * Data only: never decides when a notification is sent.
 */
#include "notifications.h"

const uint32_t mib_snmp_trap_oid[MIB_SNMP_TRAP_OID_LEN] = {1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0};
const uint32_t mib_snmp_traps[MIB_SNMP_TRAPS_LEN] = {1, 3, 6, 1, 6, 3, 1, 1, 5};

/*
 * IF-MIB's objects are ifEntry columns: ifIndex 1, ifAdminStatus 7,
 * ifOperStatus 8 (RFC 2863).
 */
const struct mib_notification mib_notifications[MIB_NNOTIFICATIONS] = {
    [MIB_NOTIFICATION_LINK_DOWN] = {"linkDown",
                                    MIB_NOTIFY_IF_MIB,
                                    3,
                                    3,
                                    {{MIB_NOTIFY_IF_MIB, 1},
                                     {MIB_NOTIFY_IF_MIB, 7},
                                     {MIB_NOTIFY_IF_MIB, 8}}},
    [MIB_NOTIFICATION_LINK_UP] = {"linkUp",
                                  MIB_NOTIFY_IF_MIB,
                                  4,
                                  3,
                                  {{MIB_NOTIFY_IF_MIB, 1},
                                   {MIB_NOTIFY_IF_MIB, 7},
                                   {MIB_NOTIFY_IF_MIB, 8}}},
    [MIB_NOTIFICATION_SEGMENT_STATE] = {"statctrSegmentStateChange",
                                        MIB_NOTIFY_STATCTR_MIB,
                                        MIB_NOTIFY_SEGMENT_STATE,
                                        3,
                                        {{MIB_NOTIFY_STATCTR_MIB, MIB_SEG_NAME},
                                         {MIB_NOTIFY_STATCTR_MIB, MIB_SEG_STATUS},
                                         {MIB_NOTIFY_STATCTR_MIB, MIB_SEG_PID}}},
    [MIB_NOTIFICATION_WRITER_RESTART] = {"statctrWriterRestart",
                                         MIB_NOTIFY_STATCTR_MIB,
                                         MIB_NOTIFY_WRITER_RESTART,
                                         4,
                                         {{MIB_NOTIFY_STATCTR_MIB, MIB_SEG_NAME},
                                          {MIB_NOTIFY_STATCTR_MIB, MIB_SEG_PID},
                                          {MIB_NOTIFY_STATCTR_MIB, MIB_SEG_GENERATIONS},
                                          {MIB_NOTIFY_STATCTR_MIB, MIB_SEG_DISCONTINUITY}}},
    [MIB_NOTIFICATION_RESET_DONE] = {"statctrResetDone",
                                     MIB_NOTIFY_STATCTR_MIB,
                                     MIB_NOTIFY_RESET_DONE,
                                     3,
                                     {{MIB_NOTIFY_STATCTR_MIB, MIB_SEG_NAME},
                                      {MIB_NOTIFY_STATCTR_MIB, MIB_RESET_FIRST_CELL},
                                      {MIB_NOTIFY_STATCTR_MIB, MIB_RESET_CELLS}}},
};
