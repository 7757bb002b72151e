/*
 * objects.c - mib_objects[], mib_spaces[] and the generated tables'
 * columns (mib_data_columns[], ...), expanded from mib/oids.h's tables; no
 * number is written here.
 */
#include "objects.h"

#include <string.h>

const struct mib_object mib_objects[MIB_NOBJECTS] = {
#define MIB_OBJECT_ROW(id, descriptor, space, arc, syntax, access, instances)                      \
	[MIB_##id] = {descriptor, MIB_SPACE_##space, arc, syntax, MIB_##access, MIB_##instances},
    MIB_FIXED_OBJECTS(MIB_OBJECT_ROW)
#undef MIB_OBJECT_ROW
};

const struct mib_space_nodes mib_spaces[MIB_NSPACES] = {
    [MIB_SPACE_AGENT] = {"statctrAgent", NULL, NULL, MIB_ARC_AGENT},
#define MIB_SPACE_ROW(space, table, entry, arc) [MIB_SPACE_##space] = {entry, table, entry, arc},
    MIB_FIXED_TABLES(MIB_SPACE_ROW)
#undef MIB_SPACE_ROW
};

#define MIB_COLUMN_ROW(id, suffix, arc, syntax, access) {suffix, arc, syntax, MIB_##access},
const struct mib_column mib_data_columns[] = {MIB_DATA_OBJECTS(MIB_COLUMN_ROW)};
const struct mib_column mib_hist_bucket_columns[] = {MIB_HIST_BUCKET_OBJECTS(MIB_COLUMN_ROW)};
const struct mib_column mib_hist_summary_columns[] = {MIB_HIST_SUMMARY_OBJECTS(MIB_COLUMN_ROW)};
const struct mib_column mib_hist_interval_columns[] = {MIB_HIST_INTERVAL_OBJECTS(MIB_COLUMN_ROW)};
const struct mib_column mib_interval_columns[] = {MIB_INTERVAL_OBJECTS(MIB_COLUMN_ROW)};
const struct mib_column mib_byname_columns[] = {MIB_BYNAME_OBJECTS(MIB_COLUMN_ROW)};
#undef MIB_COLUMN_ROW

/* Each array's length is its enum count: a row added to a table must be counted there. */
#define MIB_COUNT_ROW(id, suffix, arc, syntax, access) +1
_Static_assert(0 MIB_DATA_OBJECTS(MIB_COUNT_ROW) == MIB_DATA_NCOLUMNS, "MIB_DATA_NCOLUMNS");
_Static_assert(0 MIB_HIST_BUCKET_OBJECTS(MIB_COUNT_ROW) == MIB_HIST_BUCKET_NCOLUMNS,
               "MIB_HIST_BUCKET_NCOLUMNS");
_Static_assert(0 MIB_HIST_SUMMARY_OBJECTS(MIB_COUNT_ROW) == MIB_HIST_SUMMARY_NCOLUMNS,
               "MIB_HIST_SUMMARY_NCOLUMNS");
_Static_assert(0 MIB_HIST_INTERVAL_OBJECTS(MIB_COUNT_ROW) == MIB_HIST_INTERVAL_NCOLUMNS,
               "MIB_HIST_INTERVAL_NCOLUMNS");
_Static_assert(0 MIB_INTERVAL_OBJECTS(MIB_COUNT_ROW) == MIB_INTERVAL_NCOLUMNS,
               "MIB_INTERVAL_NCOLUMNS");
_Static_assert(0 MIB_BYNAME_OBJECTS(MIB_COUNT_ROW) == MIB_BYNAME_NCOLUMNS, "MIB_BYNAME_NCOLUMNS");
#undef MIB_COUNT_ROW

const char *mib_access_text(enum mib_access access)
{
	static const char *const text[] = {"not-accessible", "read-only", "read-write",
	                                   "accessible-for-notify"};

	return text[access];
}

size_t mib_object_oid(const struct mib_object *o, uint32_t sub[3])
{
	size_t n = 0;

	sub[n++] = mib_spaces[o->space].arc;
	if (o->space != MIB_SPACE_AGENT)
		sub[n++] = MIB_ARC_ENTRY;
	sub[n++] = o->arc;
	return n;
}

static const struct {
	const char *descriptor, *oid;
} anchors[] = {
#define MIB_ANCHOR_ROW(descriptor, oid) {descriptor, oid},
    MIB_SMI_ANCHORS(MIB_ANCHOR_ROW)
#undef MIB_ANCHOR_ROW
};

const char *mib_root_anchor(const char *root_oid, const char **belowp)
{
	for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++) {
		size_t len = strlen(anchors[i].oid);

		if (strncmp(root_oid, anchors[i].oid, len) == 0 && root_oid[len] == '.' &&
		    root_oid[len + 1] != '\0') {
			*belowp = root_oid + len + 1;
			return anchors[i].descriptor;
		}
	}
	return NULL;
}
