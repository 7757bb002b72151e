/*
 * objects.h - the fixed objects of STATCTR-MIB (mib/oids.h's tables) as
 * data: the agent builds its dispatch from mib_objects[], the unit test
 * compares it with mib/STATCTR-MIB.txt.
 */
#ifndef STATCTR_MIB_OBJECTS_H
#define STATCTR_MIB_OBJECTS_H

#include "oids.h"

#include <stddef.h>
#include <stdint.h>

/* Where an object hangs: statctrAgent (scalars) or the entry of a fixed table. */
enum mib_space {
	MIB_SPACE_AGENT,
#define MIB_SPACE_ENUM(space, table, entry, arc) MIB_SPACE_##space,
	MIB_FIXED_TABLES(MIB_SPACE_ENUM)
#undef MIB_SPACE_ENUM
	    MIB_NSPACES
};

/* MIB_ACCESSIBLE_FOR_NOTIFY: a notification's varbind only, never served. */
enum mib_access { MIB_NOT_ACCESSIBLE, MIB_READ_ONLY, MIB_READ_WRITE, MIB_ACCESSIBLE_FOR_NOTIFY };

/* Which cells an object of the cell or slot table has an instance for (oids.h). */
enum mib_instances { MIB_ALL, MIB_COUNTERS, MIB_GAUGES, MIB_PLAIN_COUNTERS, MIB_SLOT_CELLS };

/* One id per row of MIB_FIXED_OBJECTS, in its order (which is OID order). */
enum mib_object_id {
#define MIB_OBJECT_ENUM(id, descriptor, space, arc, syntax, access, instances) MIB_##id,
	MIB_FIXED_OBJECTS(MIB_OBJECT_ENUM)
#undef MIB_OBJECT_ENUM
	    MIB_NOBJECTS
};

struct mib_object {
	const char *descriptor;
	enum mib_space space;
	uint32_t arc; /* under statctrAgent, or the column of its table's entry */
	const char *syntax;
	enum mib_access access;
	enum mib_instances instances;
};

/* Indexed by enum mib_object_id. */
extern const struct mib_object mib_objects[MIB_NOBJECTS];

/* The node objects of @space hang from, and the table and entry over them. */
struct mib_space_nodes {
	const char *parent;        /* statctrAgent, or the entry */
	const char *table, *entry; /* NULL for MIB_SPACE_AGENT */
	uint32_t arc;              /* of statctrAgent or of the table, under statctrObjects */
};

extern const struct mib_space_nodes mib_spaces[MIB_NSPACES];

/*
 * A column of the generated tables (oids.h: MIB_DATA_OBJECTS and the
 * tables after it), expanded into arrays in their OID order.
 */
struct mib_column {
	const char *suffix; /* of the descriptor, after its table's prefix */
	uint32_t arc;       /* under the entry */
	const char *syntax;
	enum mib_access access;
};

/* One array per generated table kind; the enum counts are their lengths. */
enum { MIB_DATA_NCOLUMNS = 4, MIB_HIST_BUCKET_NCOLUMNS = 3, MIB_HIST_SUMMARY_NCOLUMNS = 2 };
enum { MIB_HIST_INTERVAL_NCOLUMNS = 1, MIB_INTERVAL_NCOLUMNS = 2, MIB_BYNAME_NCOLUMNS = 3 };
extern const struct mib_column mib_data_columns[MIB_DATA_NCOLUMNS];
extern const struct mib_column mib_hist_bucket_columns[MIB_HIST_BUCKET_NCOLUMNS];
extern const struct mib_column mib_hist_summary_columns[MIB_HIST_SUMMARY_NCOLUMNS];
extern const struct mib_column mib_hist_interval_columns[MIB_HIST_INTERVAL_NCOLUMNS];
extern const struct mib_column mib_interval_columns[MIB_INTERVAL_NCOLUMNS];
extern const struct mib_column mib_byname_columns[MIB_BYNAME_NCOLUMNS];

/* The text of @access as SMIv2 writes it ("read-only", ...). */
const char *mib_access_text(enum mib_access access);

/*
 * mib_object_oid() - the sub-identifiers of @o below statctrObjects
 * (R.1): statctrAgent.arc, or table.entry.arc.  Returns how many (2 or 3).
 */
size_t mib_object_oid(const struct mib_object *o, uint32_t sub[3]);

/*
 * mib_root_anchor() - the SNMPv2-SMI node of MIB_SMI_ANCHORS that
 * @root_oid (canonical dotted text) lies strictly below, the most specific
 * one, with *@belowp set to the arcs after it ("99999.1"); NULL when there
 * is none: the root is not below internet (1.3.6.1).
 */
const char *mib_root_anchor(const char *root_oid, const char **belowp);

#endif /* STATCTR_MIB_OBJECTS_H */
