/*
 * ifmib.h - what statctr knows of IF-MIB (RFC 2863): the objects of
 * ifTable and ifXTable it serves for a table with an `ifmib` group, their
 * OIDs, which objects a column may map itself to and with which kind,
 * which 32-bit object each mapped counter also feeds, the ifIndex range a
 * table reserves, and the IF-MIB settings of a configuration (struct
 * ifmib_config, parsed by ifmibconf.c from the groups libstatctr leaves
 * unread).  The one place of that knowledge: the agent
 * (agent/backend_ifmib.c) serves from it, check-config validates with it
 * (ifmib_config_load(), from settings_load()).  No Net-SNMP.
 */
#ifndef STATCTR_MIB_IFMIB_H
#define STATCTR_MIB_IFMIB_H

#include "statctr.h"

#include <stdbool.h>
#include <stdint.h>

/* InterfaceIndex and the Integer32 objects (ifType, ifMtu): at most 2^31-1. */
#define IFMIB_MAX_INT32 2147483647u

/* ifTable's entry, 1.3.6.1.2.1.2.2.1, and ifXTable's, 1.3.6.1.2.1.31.1.1.1. */
#define IFMIB_ENTRY_MAX_ARCS 10
extern const uint32_t ifmib_if_entry[];
extern const uint32_t ifmib_ifx_entry[];
#define IFMIB_IF_ENTRY_LEN  9u
#define IFMIB_IFX_ENTRY_LEN 10u

/* How a served object gets its value. */
enum ifmib_value {
	IFV_INDEX,       /* the ifIndex itself */
	IFV_DESCR,       /* ifDescr: declared, else the row name */
	IFV_TYPE,        /* ifType: declared (default ethernetCsmacd) */
	IFV_MTU,         /* ifMtu: declared (default 0) */
	IFV_SPEED,       /* ifSpeed: ifHighSpeed x 10^6, at most 4294967295 */
	IFV_PHYS,        /* ifPhysAddress: "" (no hardware address) */
	IFV_ADMIN,       /* ifAdminStatus: up(1) */
	IFV_OPER,        /* ifOperStatus: the mapped gauge, else up(1) */
	IFV_LAST_CHANGE, /* ifLastChange: TimeStamp of the last ifOperStatus change seen */
	IFV_COUNTER32,   /* Counter32: the low 32 bits of the mapped counter */
	IFV_COUNTER64,   /* Counter64: the mapped counter */
	IFV_NAME,        /* ifName: the row name */
	IFV_HIGH_SPEED,  /* ifHighSpeed: the mapped gauge, Mb/s */
	IFV_FALSE,       /* ifPromiscuousMode, ifConnectorPresent: false(2) */
	IFV_TRAP_ENABLE, /* ifLinkUpDownTrapEnable: enabled(1) unless set disabled(2)
	                    (notify_state.c) */
	IFV_ALIAS,       /* ifAlias: declared, default "" */
	IFV_DISC_TIME,   /* ifCounterDiscontinuityTime: the row's discontinuity TimeStamp */
};

enum ifmib_entry { IFMIB_IF_TABLE, IFMIB_IFX_TABLE };

/*
 * Every IF-MIB object statctr serves, ifTable's then ifXTable's, each in
 * column order: the one definition ifmib_objects[] expands, in the form of
 * mib/oids.h's MIB_FIXED_OBJECTS.  tests/unit/test_ifmib.c checks it
 * against mib/IF-MIB-objects.list, RFC 2863's object list, both ways.
 *   X(descriptor, entry, column, syntax, value, mappable, kind, source)
 * entry: IF (ifTable) or IFX (ifXTable); syntax: as RFC 2863 states it
 * (an enumeration as INTEGER); value: enum ifmib_value without IFV_;
 * mappable: a column may declare `ifmib = descriptor`, with kind C
 * (counter) or G (gauge); source: see struct ifmib_object.  Left out:
 * ifTable's deprecated ifInNUcastPkts, ifOutNUcastPkts, ifOutQLen and
 * ifSpecific (RFC 2863 3.1.6: an agent may stop serving them).
 */
#define MIB_IF_OBJECTS(X)                                                                          \
	X("ifIndex", IF, 1, "InterfaceIndex", INDEX, false, C, NULL)                               \
	X("ifDescr", IF, 2, "DisplayString", DESCR, false, C, NULL)                                \
	X("ifType", IF, 3, "IANAifType", TYPE, false, C, NULL)                                     \
	X("ifMtu", IF, 4, "Integer32", MTU, false, C, NULL)                                        \
	X("ifSpeed", IF, 5, "Gauge32", SPEED, false, C, "ifHighSpeed")                             \
	X("ifPhysAddress", IF, 6, "PhysAddress", PHYS, false, C, NULL)                             \
	X("ifAdminStatus", IF, 7, "INTEGER", ADMIN, false, C, NULL)                                \
	X("ifOperStatus", IF, 8, "INTEGER", OPER, true, G, NULL)                                   \
	X("ifLastChange", IF, 9, "TimeTicks", LAST_CHANGE, false, C, NULL)                         \
	X("ifInOctets", IF, 10, "Counter32", COUNTER32, false, C, "ifHCInOctets")                  \
	X("ifInUcastPkts", IF, 11, "Counter32", COUNTER32, false, C, "ifHCInUcastPkts")            \
	X("ifInDiscards", IF, 13, "Counter32", COUNTER32, true, C, "ifInDiscards")                 \
	X("ifInErrors", IF, 14, "Counter32", COUNTER32, true, C, "ifInErrors")                     \
	X("ifInUnknownProtos", IF, 15, "Counter32", COUNTER32, true, C, "ifInUnknownProtos")       \
	X("ifOutOctets", IF, 16, "Counter32", COUNTER32, false, C, "ifHCOutOctets")                \
	X("ifOutUcastPkts", IF, 17, "Counter32", COUNTER32, false, C, "ifHCOutUcastPkts")          \
	X("ifOutDiscards", IF, 19, "Counter32", COUNTER32, true, C, "ifOutDiscards")               \
	X("ifOutErrors", IF, 20, "Counter32", COUNTER32, true, C, "ifOutErrors")                   \
	X("ifName", IFX, 1, "DisplayString", NAME, false, C, NULL)                                 \
	X("ifInMulticastPkts", IFX, 2, "Counter32", COUNTER32, false, C, "ifHCInMulticastPkts")    \
	X("ifInBroadcastPkts", IFX, 3, "Counter32", COUNTER32, false, C, "ifHCInBroadcastPkts")    \
	X("ifOutMulticastPkts", IFX, 4, "Counter32", COUNTER32, false, C, "ifHCOutMulticastPkts")  \
	X("ifOutBroadcastPkts", IFX, 5, "Counter32", COUNTER32, false, C, "ifHCOutBroadcastPkts")  \
	X("ifHCInOctets", IFX, 6, "Counter64", COUNTER64, true, C, "ifHCInOctets")                 \
	X("ifHCInUcastPkts", IFX, 7, "Counter64", COUNTER64, true, C, "ifHCInUcastPkts")           \
	X("ifHCInMulticastPkts", IFX, 8, "Counter64", COUNTER64, true, C, "ifHCInMulticastPkts")   \
	X("ifHCInBroadcastPkts", IFX, 9, "Counter64", COUNTER64, true, C, "ifHCInBroadcastPkts")   \
	X("ifHCOutOctets", IFX, 10, "Counter64", COUNTER64, true, C, "ifHCOutOctets")              \
	X("ifHCOutUcastPkts", IFX, 11, "Counter64", COUNTER64, true, C, "ifHCOutUcastPkts")        \
	X("ifHCOutMulticastPkts", IFX, 12, "Counter64", COUNTER64, true, C,                        \
	  "ifHCOutMulticastPkts")                                                                  \
	X("ifHCOutBroadcastPkts", IFX, 13, "Counter64", COUNTER64, true, C,                        \
	  "ifHCOutBroadcastPkts")                                                                  \
	X("ifLinkUpDownTrapEnable", IFX, 14, "INTEGER", TRAP_ENABLE, false, C, NULL)               \
	X("ifHighSpeed", IFX, 15, "Gauge32", HIGH_SPEED, true, G, "ifHighSpeed")                   \
	X("ifPromiscuousMode", IFX, 16, "TruthValue", FALSE, false, C, NULL)                       \
	X("ifConnectorPresent", IFX, 17, "TruthValue", FALSE, false, C, NULL)                      \
	X("ifAlias", IFX, 18, "DisplayString", ALIAS, false, C, NULL)                              \
	X("ifCounterDiscontinuityTime", IFX, 19, "TimeStamp", DISC_TIME, false, C, NULL)

struct ifmib_object {
	const char *name;
	const char *syntax;     /* as RFC 2863 states it, an enumeration as INTEGER */
	uint8_t entry;          /* enum ifmib_entry */
	uint8_t column;         /* sub-identifier under the entry */
	uint8_t value;          /* enum ifmib_value */
	bool mappable;          /* a column may declare `ifmib = name` */
	enum statctr_kind kind; /* mappable: the kind such a column must have */
	/*
	 * The mappable object whose column gives the value (itself when
	 * mappable; ifInOctets: ifHCInOctets), or NULL: the object needs none.
	 * An object whose source is not mapped is not served.  ifOperStatus
	 * has none: without a mapped gauge it is up(1).
	 */
	const char *source;
};

/*
 * The IF-MIB settings of a configuration (docs/config.md, "IF-MIB tables").
 * Interface attributes: a table's defaults (row NULL) and per-row overrides.
 */
struct ifmib_if {
	char *row;     /* the row name it applies to; NULL: the table's defaults */
	char *alias;   /* ifAlias; "" when not given */
	char *descr;   /* ifDescr; NULL: the row name */
	uint32_t type; /* ifType (IANAifType); default 6, ethernetCsmacd */
	uint32_t mtu;  /* ifMtu; 0 when not given */
	int line;
};

/* A declared table also served as interfaces. */
struct ifmib_table {
	const struct statctr_table_decl *decl;
	uint32_t segment, table; /* its indexes in the configuration */
	uint32_t ifindex_base;   /* first ifIndex of its rows; default 1000 */
	uint32_t ifindex_range;  /* ifIndex values it reserves; 0: the default (ifmib_range()) */
	struct ifmib_if defaults;
	uint32_t ninterfaces; /* per-row overrides */
	struct ifmib_if *interfaces;
	/* Per declared column: the object it feeds (a string of the libconfig
	 * tree), or NULL; and the setting naming it, for messages. */
	const char **objects;
	const void **object_settings;
	const void *setting;       /* the table's ifmib group (the table: deprecated form) */
	const void *table_setting; /* the table's group */
};

struct ifmib_config {
	uint32_t ntables;
	struct ifmib_table *tables; /* in declaration order */
	uint32_t nwarnings;
	char **warnings; /* "FILE:LINE: PATH: warning: ..." (the deprecated form) */
};

/*
 * ifmib_config_load() - the IF-MIB settings of @cfg, parsed and checked
 * (ifmib_check()); valid while @cfg is.  Returns 0 or -EINVAL/-ENOMEM with
 * statctr_errmsg() naming file:line and the setting.  Thread-safe.
 */
int ifmib_config_load(const struct statctr_config *cfg, struct ifmib_config **icp);
void ifmib_config_free(struct ifmib_config *ic);

/* Table @t of segment @s as an IF-MIB table, or NULL when it is none. */
const struct ifmib_table *ifmib_table_of(const struct ifmib_config *ic, uint32_t s, uint32_t t);

/* Every object statctr can serve (MIB_IF_OBJECTS), in OID order. */
extern const struct ifmib_object ifmib_objects[];
extern const uint32_t ifmib_nobjects;

/* The index in ifmib_objects of the object named @name, or -1. */
int ifmib_find(const char *name);

/*
 * ifmib_range() - how many ifIndex values table @t reserves from its
 * ifindex_base: its ifindex_range when set (at least its rows), else
 * max(4 x rows, IFMIB_MIN_RANGE).  A name keeps its ifIndex for good, so a
 * dynamic table whose rows come and go under new names uses the range up,
 * as does a static table whose rows are renamed; docs/agent.md says what
 * happens then.
 */
#define IFMIB_MIN_RANGE 64u
uint32_t ifmib_range(const struct ifmib_table *t);

/*
 * At most this many ifIndex values reserved by all IF-MIB tables of a
 * configuration together: snmpd keeps one subtree per ifIndex of each
 * registered column in a list it searches linearly, so a registration
 * costs O(range^2) (docs/agent.md, "Registration"): 1024 cost snmpd about
 * 1 s here; four times as many, 46 s.  With the default range (4 x rows)
 * that is 256 rows; a table that sets ifindex_range to its rows may have
 * up to IFMIB_MAX_ROWS.
 */
#define IFMIB_MAX_TOTAL 1024u
#define IFMIB_MAX_ROWS  IFMIB_MAX_TOTAL

/* The declared column of @t mapped to the object @name, or -1. */
int ifmib_mapped(const struct ifmib_table *t, const char *name);

/*
 * ifmib_columns() - for each object of ifmib_objects, the declared column
 * of @t that serves it (its source's), or -1 when none does: @cols has
 * ifmib_nobjects entries.  An object with no source gets -2 (always
 * served).  @t must have passed ifmib_check().
 */
void ifmib_columns(const struct ifmib_table *t, int *cols);

/*
 * ifmib_check() - the IF-MIB rules of @ic, parsed from @cfg: every mapped
 * column names a mappable object, on a column of the kind the object
 * needs, once per table; an IF-MIB table has at most
 * IFMIB_MAX_ROWS rows, and its ifIndex range fits under 2^31 and overlaps
 * no other's.  Returns 0 or -EINVAL with
 * statctr_errmsg() naming file:line and the setting
 * (statctr_config_error()).
 */
int ifmib_check(const struct statctr_config *cfg, const struct ifmib_config *ic);

#endif /* STATCTR_MIB_IFMIB_H */
