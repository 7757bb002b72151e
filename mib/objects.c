/*
 * objects.c - mib_objects[] and mib_spaces[], expanded from mib/oids.h's
 * tables; no number is written here.
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
