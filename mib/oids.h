/*
 * oids.h - every number of the OID layout, named once: from a configuration
 * to the OID of each value statctr-agentx serves and `statctl mib` names.
 *
 *   R                      root_oid: statctrMIB (default MIB_ROOT_DEFAULT)
 *   R.0.n                  statctrNotifications: NOTIFICATION-TYPE n
 *   R.1                    statctrObjects: the fixed objects of STATCTR-MIB
 *     R.1.1.n.0              the agent's scalars (MIB_FIXED_OBJECTS, AGENT)
 *     R.1.T.1.n.<index>      column n of fixed table T (MIB_FIXED_TABLES)
 *   R.2                    statctrConformance (STATCTR-MIB's groups)
 *   R.3                    statctrData: the declared tables
 *     R.3.S.T                table T (its `oid`) of segment S (its `oid`)
 *     R.3.S.T.1              its entry
 *     R.3.S.T.1.c.(row+1)    column c: MIB_DATA_ROW_INDEX .. MIB_DATA_RESET,
 *                            then declared column i at MIB_DATA_FIRST_VALUE + i
 *                            (a histogram's: its count)
 *     R.3.S.0                the generated module's MODULE-IDENTITY (first
 *                            segment), its compliances at .1, groups at .2
 *   R.4                    statctrHistograms: the histogram columns' buckets
 *     R.4.S.T.(10+i)         histogram column i of table T of segment S (the
 *                            arc of its column in R.3.S.T.1)
 *     R.4.S.T.(10+i).1.1.c.(row+1).(b+1)
 *                            its bucket table: MIB_HIST_BUCKET_INDEX ..
 *                            MIB_HIST_BUCKET_COUNT, bucket b (the last +Inf)
 *     R.4.S.T.(10+i).2.1.c.(row+1)
 *                            its summary table (AUGMENTS the table's entry):
 *                            MIB_HIST_COUNT, MIB_HIST_SUM
 *     R.4.S.T.(10+i).3.1.1.e.(row+1).(b+1)
 *                            in a segment with epochs, its interval bucket
 *                            table: MIB_HIST_INTERVAL_COUNT, bucket b's count
 *                            in epoch e
 *   R.5                    statctrIntervals: the declared tables' epochs
 *     R.5.S.T                interval table of table T of segment S (one with
 *                            a counter or histogram column)
 *     R.5.S.T.1.c.e.(row+1)  column c: MIB_INTERVAL_EPOCH, MIB_INTERVAL_VALID,
 *                            then declared counter or histogram column i at
 *                            MIB_DATA_FIRST_VALUE + i: its count in epoch e
 *
 * Epochs (docs/agent.md, "Epochs"): statctrEpochTable (R.1.5) lists the kept
 * epochs, index segment, epoch number; statctrSegmentEpochStart starts one.
 *
 * Index values of the fixed tables: a segment is its `oid`, a cell its id
 * + 1, a slot its number + 1 (the last one is the shared slot).  Segment
 * and table `oid`s are checked by the library (lib/config.c: 1..2^31-1,
 * unique); root_oid by mib/settings.c (MIB_ROOT_MAX_ARCS).
 * mib/STATCTR-MIB.txt defines the fixed part; tests/unit/test_mib.c checks
 * that it and the tables below agree, object by object.
 */
#ifndef STATCTR_MIB_OIDS_H
#define STATCTR_MIB_OIDS_H

/* Net-SNMP's netSnmpPlaypen.4242, where mib/STATCTR-MIB.txt puts statctrMIB. */
#define MIB_ROOT_DEFAULT "1.3.6.1.4.1.8072.9999.9999.4242"

/*
 * SNMP names at most 128 sub-identifiers (RFC 2578, 3.5); the deepest OID
 * below the root is an epoch's bucket: R.4.S.T.(10+i).3.1.1.epoch.row.bucket,
 * 10 more.  100 keeps room to spare for managers with shorter buffers.
 */
#define MIB_MAX_OID_ARCS        128
#define MIB_MAX_ARCS_BELOW_ROOT 10
#define MIB_ROOT_MAX_ARCS       100
_Static_assert(MIB_ROOT_MAX_ARCS + MIB_MAX_ARCS_BELOW_ROOT <= MIB_MAX_OID_ARCS,
               "every served OID fits in 128 sub-identifiers");

/* Under the root. */
#define MIB_ARC_NOTIFICATIONS 0 /* statctrNotifications (RFC 3584 2.1.2: a 0 arc) */

#define MIB_ARC_OBJECTS     1 /* statctrObjects */
#define MIB_ARC_CONFORMANCE 2 /* statctrConformance */
#define MIB_ARC_DATA        3 /* statctrData */
#define MIB_ARC_HISTOGRAMS  4 /* statctrHistograms */
#define MIB_ARC_INTERVALS   5 /* statctrIntervals */
#define MIB_ARC_BY_NAME     6 /* statctrRowsByName */

/* Under statctrNotifications: the NOTIFICATION-TYPEs. */
#define MIB_NOTIFY_SEGMENT_STATE  1 /* statctrSegmentStateChange */
#define MIB_NOTIFY_WRITER_RESTART 2 /* statctrWriterRestart */
#define MIB_NOTIFY_RESET_DONE     3 /* statctrResetDone */

/* Under statctrObjects: the agent's scalars (instance .0), then the tables. */
#define MIB_ARC_AGENT       1 /* statctrAgent */
#define MIB_SCALAR_INSTANCE 0
/* Every table's entry (conceptual row) is the table's .1. */
#define MIB_ARC_ENTRY 1

/*
 * The fixed tables under statctrObjects, in OID order.
 *   X(space, table descriptor, entry descriptor, arc)
 */
#define MIB_FIXED_TABLES(X)                                                                        \
	X(SEGMENT, "statctrSegmentTable", "statctrSegmentEntry", 2)                                \
	X(CELL, "statctrCellTable", "statctrCellEntry", 3)                                         \
	X(SLOT, "statctrSlotTable", "statctrSlotEntry", 4)                                         \
	X(EPOCH, "statctrEpochTable", "statctrEpochEntry", 5)

/*
 * Every OBJECT-TYPE of STATCTR-MIB below statctrObjects but the tables and
 * entries, in OID order: the agent dispatches on the id (agent/oidmap.h)
 * and serves every accessible row.
 *   X(id, descriptor, space, arc, syntax, access, instances)
 * space: AGENT (scalar statctrAgent.arc) or a MIB_FIXED_TABLES space
 * (column arc of its entry); syntax: as the MIB states it, an enumeration
 * as its base type; instances: which cells have one (COUNTERS: counters and
 * histograms, whose value is their count; PLAIN_COUNTERS: counters only;
 * GAUGES; SLOT_CELLS: counters and gauges, the cells with slot values;
 * ALL: every cell but a histogram's bucket cells, which are no cells of
 * their own).
 */
#define MIB_FIXED_OBJECTS(X)                                                                       \
	X(VERSION, "statctrAgentVersion", AGENT, 1, "DisplayString", READ_ONLY, ALL)               \
	X(INTERVAL, "statctrAggInterval", AGENT, 2, "Unsigned32", READ_ONLY, ALL)                  \
	X(LAST_PASS, "statctrAggLastTime", AGENT, 3, "TimeStamp", READ_ONLY, ALL)                  \
	X(PASS_DURATION, "statctrAggDuration", AGENT, 4, "Gauge32", READ_ONLY, ALL)                \
	X(PASSES, "statctrAggPasses", AGENT, 5, "Counter64", READ_ONLY, ALL)                       \
	X(RETRIES, "statctrAggRetries", AGENT, 6, "Counter64", READ_ONLY, ALL)                     \
	X(BUSY, "statctrAggBusySlots", AGENT, 7, "Counter64", READ_ONLY, ALL)                      \
	X(ASSISTED, "statctrAggAssistedSlots", AGENT, 8, "Counter64", READ_ONLY, ALL)              \
	X(RESET_ALLOWED, "statctrResetAllowed", AGENT, 9, "TruthValue", READ_ONLY, ALL)            \
	X(RESETS_REFUSED, "statctrAggResetsRefused", AGENT, 10, "Counter64", READ_ONLY, ALL)       \
	X(NOTIFY_SENT, "statctrNotificationsSent", AGENT, 11, "Counter64", READ_ONLY, ALL)         \
	X(NOTIFY_SUPPRESSED, "statctrNotificationsSuppressed", AGENT, 12, "Counter64", READ_ONLY,  \
	  ALL)                                                                                     \
	X(NOTIFY_LOST, "statctrNotificationsLost", AGENT, 13, "Counter64", READ_ONLY, ALL)         \
	X(RESET_FIRST_CELL, "statctrResetFirstCell", AGENT, 14, "Unsigned32 (1..16777216)",        \
	  ACCESSIBLE_FOR_NOTIFY, ALL)                                                              \
	X(RESET_CELLS, "statctrResetCells", AGENT, 15, "Unsigned32 (1..16777216)",                 \
	  ACCESSIBLE_FOR_NOTIFY, ALL)                                                              \
	X(SEG_INDEX, "statctrSegmentIndex", SEGMENT, 1, "Unsigned32 (1..4294967295)",              \
	  NOT_ACCESSIBLE, ALL)                                                                     \
	X(SEG_NAME, "statctrSegmentName", SEGMENT, 2, "DisplayString", READ_ONLY, ALL)             \
	X(SEG_PATH, "statctrSegmentPath", SEGMENT, 3, "DisplayString", READ_ONLY, ALL)             \
	X(SEG_STATUS, "statctrSegmentStatus", SEGMENT, 4, "INTEGER", READ_ONLY, ALL)               \
	X(SEG_SLOTS, "statctrSegmentSlots", SEGMENT, 5, "Unsigned32", READ_ONLY, ALL)              \
	X(SEG_CELLS, "statctrSegmentCells", SEGMENT, 6, "Unsigned32", READ_ONLY, ALL)              \
	X(SEG_PID, "statctrSegmentWriterPid", SEGMENT, 7, "Unsigned32", READ_ONLY, ALL)            \
	X(SEG_CREATED, "statctrSegmentCreated", SEGMENT, 8, "DateAndTime", READ_ONLY, ALL)         \
	X(SEG_DISCONTINUITY, "statctrSegmentDiscontinuity", SEGMENT, 9, "TimeStamp", READ_ONLY,    \
	  ALL)                                                                                     \
	X(SEG_GENERATIONS, "statctrSegmentGenerations", SEGMENT, 10, "Counter32", READ_ONLY, ALL)  \
	X(SEG_BUSY, "statctrSegmentBusySlots", SEGMENT, 11, "Gauge32", READ_ONLY, ALL)             \
	X(SEG_RESET, "statctrSegmentReset", SEGMENT, 12, "StatctrResetAction", READ_WRITE, ALL)    \
	X(SEG_EPOCH_START, "statctrSegmentEpochStart", SEGMENT, 13, "StatctrEpochAction",          \
	  READ_WRITE, ALL)                                                                         \
	X(SEG_EPOCH_VALID, "statctrSegmentEpochValidIntervals", SEGMENT, 14, "Gauge32", READ_ONLY, \
	  ALL)                                                                                     \
	X(SEG_EPOCH_ELAPSED, "statctrSegmentEpochTimeElapsed", SEGMENT, 15, "Gauge32", READ_ONLY,  \
	  ALL)                                                                                     \
	X(CELL_INDEX, "statctrCellIndex", CELL, 1, "Unsigned32 (1..16777216)", NOT_ACCESSIBLE,     \
	  ALL)                                                                                     \
	X(CELL_TABLE, "statctrCellTableName", CELL, 2, "DisplayString", READ_ONLY, ALL)            \
	X(CELL_COLUMN, "statctrCellColumnName", CELL, 3, "DisplayString", READ_ONLY, ALL)          \
	X(CELL_ROW, "statctrCellRowName", CELL, 4, "DisplayString", READ_ONLY, ALL)                \
	X(CELL_KIND, "statctrCellKind", CELL, 5, "INTEGER", READ_ONLY, ALL)                        \
	X(CELL_DESCRIPTION, "statctrCellDescription", CELL, 6, "DisplayString", READ_ONLY, ALL)    \
	X(CELL_UNITS, "statctrCellUnits", CELL, 7, "DisplayString", READ_ONLY, ALL)                \
	X(CELL_COUNTER, "statctrCellCounter", CELL, 8, "Counter64", READ_ONLY, COUNTERS)           \
	X(CELL_GAUGE32, "statctrCellGauge", CELL, 9, "Gauge32", READ_ONLY, GAUGES)                 \
	X(CELL_GAUGE64, "statctrCellGauge64", CELL, 10, "CounterBasedGauge64", READ_ONLY, GAUGES)  \
	X(CELL_DISCONTINUITY, "statctrCellDiscontinuity", CELL, 11, "TimeStamp", READ_ONLY, ALL)   \
	X(CELL_RESET, "statctrCellReset", CELL, 12, "StatctrResetAction", READ_WRITE, COUNTERS)    \
	X(SLOT_INDEX, "statctrSlotIndex", SLOT, 1, "Unsigned32 (1..8193)", NOT_ACCESSIBLE, ALL)    \
	X(SLOT_COUNTER, "statctrSlotCounter", SLOT, 2, "Counter64", READ_ONLY, PLAIN_COUNTERS)     \
	X(SLOT_GAUGE_DELTA, "statctrSlotGaugeDelta", SLOT, 3, "DisplayString", READ_ONLY, GAUGES)  \
	X(SLOT_NAME, "statctrSlotName", SLOT, 4, "DisplayString (SIZE (1..32))", READ_ONLY,        \
	  SLOT_CELLS)                                                                              \
	X(EPOCH_NUMBER, "statctrEpochNumber", EPOCH, 1, "Unsigned32 (1..4294967295)",              \
	  NOT_ACCESSIBLE, ALL)                                                                     \
	X(EPOCH_NAME, "statctrEpochName", EPOCH, 2, "DisplayString (SIZE (1..63))", READ_ONLY,     \
	  ALL)                                                                                     \
	X(EPOCH_START, "statctrEpochStart", EPOCH, 3, "TimeStamp", READ_ONLY, ALL)                 \
	X(EPOCH_START_DATE, "statctrEpochStartDate", EPOCH, 4, "DateAndTime", READ_ONLY, ALL)      \
	X(EPOCH_VALID, "statctrEpochValid", EPOCH, 5, "TruthValue", READ_ONLY, ALL)

/*
 * The generated tables' columns (`statctl mib`, mib/gen.c), in the form of
 * MIB_FIXED_OBJECTS: one row per column every such table has, in OID order.
 * The descriptor of each is its table's prefix (mib/names.c: segment,
 * table and for a histogram's tables the column) and the suffix.
 *   X(id, suffix, arc, syntax, access)
 * syntax: as generated; a declared table's row index gets its range,
 * "(1..rows)", from the declaration.  tests/unit/test_mib.c checks a
 * generated module against these tables, both ways.
 *
 * A declared table's entry under statctrData, INDEX { ROW_INDEX }; declared
 * column i follows at MIB_DATA_FIRST_VALUE + i (Counter64, Gauge32 for a
 * gauge; a histogram's is its count).
 */
#define MIB_DATA_OBJECTS(X)                                                                        \
	X(ROW_INDEX, "RowIndex", 1, "Unsigned32", NOT_ACCESSIBLE)                                  \
	X(ROW_NAME, "RowName", 2, "DisplayString", READ_ONLY)                                      \
	X(DISCONTINUITY, "Discontinuity", 3, "TimeStamp", READ_ONLY)                               \
	X(RESET, "Reset", 4, "StatctrResetAction", READ_WRITE)
#define MIB_DATA_FIRST_VALUE 10

/*
 * Under a histogram's node R.4.S.T.(MIB_DATA_FIRST_VALUE + i): its tables,
 * each with its entry at .1 (MIB_ARC_ENTRY).  The bucket table, INDEX {
 * the table's row index, BUCKET_INDEX } (bucket b is b + 1, the last
 * +Inf; a count is cumulative: values <= the bound); the summary table,
 * AUGMENTS { the table's entry } (the sum is mod 2^64); and in a segment
 * with epochs the interval bucket table, INDEX { the interval table's
 * epoch, row index, bucket index }.
 */
#define MIB_HIST_BUCKETS   1
#define MIB_HIST_SUMMARY   2
#define MIB_HIST_INTERVALS 3
#define MIB_HIST_BUCKET_OBJECTS(X)                                                                 \
	X(BUCKET_INDEX, "BucketIndex", 1, "Unsigned32 (1..65)", NOT_ACCESSIBLE)                    \
	X(BUCKET_BOUND, "BucketBound", 2, "DisplayString", READ_ONLY)                              \
	X(BUCKET_COUNT, "BucketCount", 3, "Counter64", READ_ONLY)
#define MIB_HIST_SUMMARY_OBJECTS(X)                                                                \
	X(COUNT, "Count", 1, "Counter64", READ_ONLY)                                               \
	X(SUM, "Sum", 2, "Counter64", READ_ONLY)
#define MIB_HIST_INTERVAL_OBJECTS(X)                                                               \
	X(INTERVAL_COUNT, "IntervalBucketCount", 1, "Counter64", READ_ONLY)

/*
 * A declared table's interval table under statctrIntervals, INDEX { EPOCH,
 * the table's row index }: the epoch number, whether its interval is exact
 * (statctrEpochValid); declared counter or histogram column i follows at
 * MIB_DATA_FIRST_VALUE + i (Counter64).
 */
#define MIB_INTERVAL_OBJECTS(X)                                                                    \
	X(EPOCH, "IntervalEpoch", 1, "Unsigned32 (1..4294967295)", NOT_ACCESSIBLE)                 \
	X(VALID, "IntervalValid", 2, "TruthValue", READ_ONLY)

/*
 * A dynamic table's by-name table under statctrRowsByName.S.T, INDEX {
 * IMPLIED KEY }: its present rows by name, for a manager that knows a row
 * by the name its writer gave it (an index changes when a row is added
 * again); declared column i follows at MIB_DATA_FIRST_VALUE + i, as in the
 * table itself.  A key is at most MIB_BYNAME_MAX_KEY(root arcs) bytes: the
 * OID of an instance has root + 5 arcs (.6.S.T.1.column) before it.
 */
#define MIB_BYNAME_OBJECTS(X)                                                                      \
	X(KEY, "ByNameKey", 1, "DisplayString", NOT_ACCESSIBLE)                                    \
	X(ROW_INDEX, "ByNameRowIndex", 2, "Unsigned32", READ_ONLY)                                 \
	X(DISCONTINUITY, "ByNameDiscontinuity", 3, "TimeStamp", READ_ONLY)
#define MIB_BYNAME_MAX_KEY(root_arcs) (MIB_MAX_OID_ARCS - (root_arcs)-5)

/* The arcs as constants: MIB_DATA_ROW_INDEX, MIB_HIST_BUCKET_COUNT, MIB_INTERVAL_VALID, ... */
#define MIB_DATA_ARC(id, suffix, arc, syntax, access)     MIB_DATA_##id = arc,
#define MIB_HIST_ARC(id, suffix, arc, syntax, access)     MIB_HIST_##id = arc,
#define MIB_INTERVAL_ARC(id, suffix, arc, syntax, access) MIB_INTERVAL_##id = arc,
#define MIB_BYNAME_ARC(id, suffix, arc, syntax, access)   MIB_BYNAME_##id = arc,
enum mib_data_arc { MIB_DATA_OBJECTS(MIB_DATA_ARC) };
enum mib_hist_bucket_arc { MIB_HIST_BUCKET_OBJECTS(MIB_HIST_ARC) };
enum mib_hist_summary_arc { MIB_HIST_SUMMARY_OBJECTS(MIB_HIST_ARC) };
enum mib_hist_interval_arc { MIB_HIST_INTERVAL_OBJECTS(MIB_HIST_ARC) };
enum mib_interval_arc { MIB_INTERVAL_OBJECTS(MIB_INTERVAL_ARC) };
enum mib_byname_arc { MIB_BYNAME_OBJECTS(MIB_BYNAME_ARC) };
#undef MIB_DATA_ARC
#undef MIB_HIST_ARC
#undef MIB_INTERVAL_ARC
#undef MIB_BYNAME_ARC

/* The generated module's own nodes, under the first segment's statctrData.S. */
#define MIB_MODULE_IDENTITY    0 /* table OIDs start at 1, so 0 is free */
#define MIB_MODULE_COMPLIANCES 1 /* under the identity */
#define MIB_MODULE_GROUPS      2 /* under the identity */
#define MIB_MODULE_COMPLIANCE  1 /* its one MODULE-COMPLIANCE, under the compliances */
#define MIB_MODULE_FIRST_GROUP 1 /* the OBJECT-GROUP of the first table, under the groups */

/*
 * The SNMPv2-SMI nodes a generated module can hang a root_oid other than
 * the default from, most specific first; root_oid must lie below internet.
 *   X(descriptor, OID)
 */
#define MIB_SMI_ANCHORS(X)                                                                         \
	X("enterprises", "1.3.6.1.4.1")                                                            \
	X("private", "1.3.6.1.4")                                                                  \
	X("experimental", "1.3.6.1.3")                                                             \
	X("mib-2", "1.3.6.1.2.1")                                                                  \
	X("mgmt", "1.3.6.1.2")                                                                     \
	X("internet", "1.3.6.1")

#endif /* STATCTR_MIB_OIDS_H */
