/*
 * ifmib.c - the IF-MIB objects statctr serves and the rules of a mapping
 * (see ifmib.h).  Reads a parsed declaration and its libconfig tree (for
 * file:line in messages); never the file, never Net-SNMP.
 */
#include "ifmib.h"

#include <errno.h>
#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

const uint32_t ifmib_if_entry[] = {1, 3, 6, 1, 2, 1, 2, 2, 1};
const uint32_t ifmib_ifx_entry[] = {1, 3, 6, 1, 2, 1, 31, 1, 1, 1};

#define IF  IFMIB_IF_TABLE
#define IFX IFMIB_IFX_TABLE
#define C   STATCTR_KIND_COUNTER
#define G   STATCTR_KIND_GAUGE

#define IFMIB_OBJECT(name, entry, column, syntax, value, mappable, kind, source)                   \
	{name, syntax, entry, column, IFV_##value, mappable, kind, source},
const struct ifmib_object ifmib_objects[] = {MIB_IF_OBJECTS(IFMIB_OBJECT)};
#undef IFMIB_OBJECT
const uint32_t ifmib_nobjects = sizeof(ifmib_objects) / sizeof(ifmib_objects[0]);

int ifmib_find(const char *name)
{
	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		if (strcmp(ifmib_objects[i].name, name) == 0)
			return (int)i;
	return -1;
}

uint32_t ifmib_range(const struct ifmib_table *t)
{
	uint64_t n = 4 * (uint64_t)t->decl->nrows;

	if (t->ifindex_range)
		return t->ifindex_range;
	return n > IFMIB_MIN_RANGE ? (uint32_t)n : IFMIB_MIN_RANGE;
}

int ifmib_mapped(const struct ifmib_table *t, const char *name)
{
	for (uint32_t c = 0; c < t->decl->ncolumns; c++)
		if (t->objects[c] && strcmp(t->objects[c], name) == 0)
			return (int)c;
	return -1;
}

void ifmib_columns(const struct ifmib_table *t, int *cols)
{
	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		cols[i] = ifmib_objects[i].source ? ifmib_mapped(t, ifmib_objects[i].source) : -2;
}

/* ---- check-config ------------------------------------------------------ */

static const config_setting_t *member_of(const config_setting_t *group, const char *name)
{
	const config_setting_t *m = group ? config_setting_get_member(group, name) : NULL;

	return m ? m : group;
}

static int check_column(const struct statctr_config *cfg, const struct ifmib_table *t, uint32_t c)
{
	const struct statctr_column_decl *col = &t->decl->columns[c];
	const char *name = t->objects[c];
	int i = ifmib_find(name), first;

	if (i < 0 || !ifmib_objects[i].mappable)
		return statctr_config_error(
		    cfg, t->object_settings[c], EINVAL,
		    "unknown IF-MIB object \"%s\" (a column maps to ifHC*Octets, ifHC*Pkts, "
		    "ifIn/OutDiscards, ifIn/OutErrors, ifInUnknownProtos, ifHighSpeed or "
		    "ifOperStatus; docs/config.md)",
		    name);
	if (ifmib_objects[i].kind != col->kind)
		return statctr_config_error(cfg, t->object_settings[c], EINVAL,
		                            "%s needs a %s column, %s is a %s", name,
		                            statctr_kind_name(ifmib_objects[i].kind), col->name,
		                            statctr_kind_name(col->kind));
	first = ifmib_mapped(t, name);
	if (first != (int)c)
		return statctr_config_error(cfg, t->object_settings[c], EINVAL,
		                            "%s is mapped twice (also column %s)", name,
		                            t->decl->columns[first].name);
	return 0;
}

struct if_range {
	uint32_t first, last;
	const char *table;
};

static int check_range(const struct statctr_config *cfg, const struct ifmib_table *t,
                       struct if_range *ranges, uint32_t *nranges)
{
	uint64_t last = (uint64_t)t->ifindex_base + ifmib_range(t) - 1, total;
	const config_setting_t *at = member_of(t->setting, "ifindex_base");
	const char *name = t->decl->name;

	if (t->decl->nrows > IFMIB_MAX_ROWS)
		return statctr_config_error(cfg, member_of(t->table_setting, "rows"), EINVAL,
		                            "%u rows in IF-MIB table %s, at most %u",
		                            t->decl->nrows, name, IFMIB_MAX_ROWS);
	if (last > IFMIB_MAX_INT32)
		return statctr_config_error(
		    cfg, at, EINVAL,
		    "ifIndex range %u..%llu of table %s passes %u (it "
		    "reserves ifindex_range, else max(4 x rows, %u) values)",
		    t->ifindex_base, (unsigned long long)last, name, IFMIB_MAX_INT32,
		    IFMIB_MIN_RANGE);
	total = last - t->ifindex_base + 1;
	for (uint32_t i = 0; i < *nranges; i++)
		total += (uint64_t)ranges[i].last - ranges[i].first + 1;
	if (total > IFMIB_MAX_TOTAL)
		return statctr_config_error(cfg, member_of(t->setting, "standard"), EINVAL,
		                            "IF-MIB tables up to %s reserve %llu ifIndex values, "
		                            "at most %u in all (snmpd keeps a subtree per value "
		                            "and column: docs/agent.md; a table reserves 4 x rows "
		                            "unless its ifmib.ifindex_range says fewer)",
		                            name, (unsigned long long)total, IFMIB_MAX_TOTAL);
	for (uint32_t i = 0; i < *nranges; i++)
		if (ranges[i].first <= last && t->ifindex_base <= ranges[i].last)
			return statctr_config_error(
			    cfg, at, EINVAL,
			    "ifIndex range %u..%llu of table %s overlaps %u..%u of %s",
			    t->ifindex_base, (unsigned long long)last, name, ranges[i].first,
			    ranges[i].last, ranges[i].table);
	ranges[(*nranges)++] = (struct if_range){t->ifindex_base, (uint32_t)last, name};
	return 0;
}

int ifmib_check(const struct statctr_config *cfg, const struct ifmib_config *ic)
{
	struct if_range *ranges = calloc(ic->ntables + 1, sizeof(*ranges));
	uint32_t nranges = 0;
	int err = 0;

	if (!ranges)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	for (uint32_t i = 0; !err && i < ic->ntables; i++) {
		const struct ifmib_table *t = &ic->tables[i];

		err = check_range(cfg, t, ranges, &nranges);
		for (uint32_t c = 0; !err && c < t->decl->ncolumns; c++)
			if (t->objects[c])
				err = check_column(cfg, t, c);
	}
	free(ranges);
	return err;
}
