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

#define MAX_IFINDEX 2147483647u /* InterfaceIndex: 1..2^31-1 */

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

uint32_t ifmib_range(const struct statctr_table_decl *t)
{
	uint64_t n = 4 * (uint64_t)t->nrows;

	return n > IFMIB_MIN_RANGE ? (uint32_t)n : IFMIB_MIN_RANGE;
}

int ifmib_mapped(const struct statctr_table_decl *t, const char *name)
{
	for (uint32_t c = 0; c < t->ncolumns; c++)
		if (t->columns[c].ifmib && strcmp(t->columns[c].ifmib, name) == 0)
			return (int)c;
	return -1;
}

void ifmib_columns(const struct statctr_table_decl *t, int *cols)
{
	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		cols[i] = ifmib_objects[i].source ? ifmib_mapped(t, ifmib_objects[i].source) : -2;
}

/* ---- check-config ------------------------------------------------------ */

/* The libconfig setting of table @t of segment @s, for messages (NULL: the file). */
static const config_setting_t *table_setting(const struct statctr_config *cfg, uint32_t s,
                                             uint32_t t)
{
	const config_setting_t *segs = statctr_config_group(cfg, "segments");
	const config_setting_t *seg = segs ? config_setting_get_elem(segs, s) : NULL;
	const config_setting_t *tables = seg ? config_setting_get_member(seg, "tables") : NULL;

	return tables ? config_setting_get_elem(tables, t) : NULL;
}

static const config_setting_t *member_of(const config_setting_t *group, const char *name)
{
	const config_setting_t *m = group ? config_setting_get_member(group, name) : NULL;

	return m ? m : group;
}

static const config_setting_t *column_setting(const config_setting_t *table, uint32_t c)
{
	const config_setting_t *cols = table ? config_setting_get_member(table, "columns") : NULL;

	return member_of(cols ? config_setting_get_elem(cols, c) : NULL, "ifmib");
}

static int check_column(const struct statctr_config *cfg, const config_setting_t *ts,
                        const struct statctr_table_decl *t, uint32_t c)
{
	const struct statctr_column_decl *col = &t->columns[c];
	const config_setting_t *at = column_setting(ts, c);
	int i = ifmib_find(col->ifmib), first;

	if (!t->ifmib)
		return statctr_config_error(cfg, at, EINVAL,
		                            "ifmib \"%s\" in table %s, which is no IF-MIB table "
		                            "(standard = \"if-mib\";)",
		                            col->ifmib, t->name);
	if (i < 0 || !ifmib_objects[i].mappable)
		return statctr_config_error(
		    cfg, at, EINVAL,
		    "unknown IF-MIB object \"%s\" (a column maps to ifHC*Octets, ifHC*Pkts, "
		    "ifIn/OutDiscards, ifIn/OutErrors, ifInUnknownProtos, ifHighSpeed or "
		    "ifOperStatus; docs/config.md)",
		    col->ifmib);
	if (ifmib_objects[i].kind != col->kind)
		return statctr_config_error(cfg, at, EINVAL, "%s needs a %s column, %s is a %s",
		                            col->ifmib, statctr_kind_name(ifmib_objects[i].kind),
		                            col->name, statctr_kind_name(col->kind));
	first = ifmib_mapped(t, col->ifmib);
	if (first != (int)c)
		return statctr_config_error(cfg, at, EINVAL, "%s is mapped twice (also column %s)",
		                            col->ifmib, t->columns[first].name);
	return 0;
}

struct if_range {
	uint32_t first, last;
	const char *table;
};

static int check_range(const struct statctr_config *cfg, const config_setting_t *ts,
                       const struct statctr_table_decl *t, struct if_range *ranges,
                       uint32_t *nranges)
{
	uint64_t last = (uint64_t)t->ifmib->ifindex_base + ifmib_range(t) - 1;
	const config_setting_t *at = member_of(ts, "ifindex_base");

	if (t->nrows > IFMIB_MAX_ROWS)
		return statctr_config_error(cfg, member_of(ts, "rows"), EINVAL,
		                            "%u rows in IF-MIB table %s, at most %u", t->nrows,
		                            t->name, IFMIB_MAX_ROWS);
	if (last > MAX_IFINDEX)
		return statctr_config_error(cfg, at, EINVAL,
		                            "ifIndex range %u..%llu of table %s passes %u (it "
		                            "reserves max(4 x rows, %u) values)",
		                            t->ifmib->ifindex_base, (unsigned long long)last,
		                            t->name, MAX_IFINDEX, IFMIB_MIN_RANGE);
	uint64_t total = last - t->ifmib->ifindex_base + 1;

	for (uint32_t i = 0; i < *nranges; i++)
		total += (uint64_t)ranges[i].last - ranges[i].first + 1;
	if (total > IFMIB_MAX_TOTAL)
		return statctr_config_error(cfg, member_of(ts, "standard"), EINVAL,
		                            "IF-MIB tables up to %s reserve %llu ifIndex values, "
		                            "at most %u in all (snmpd keeps a subtree per value "
		                            "and column: docs/agent.md)",
		                            t->name, (unsigned long long)total, IFMIB_MAX_TOTAL);
	for (uint32_t i = 0; i < *nranges; i++)
		if (ranges[i].first <= last && t->ifmib->ifindex_base <= ranges[i].last)
			return statctr_config_error(
			    cfg, at, EINVAL,
			    "ifIndex range %u..%llu of table %s overlaps %u..%u of %s",
			    t->ifmib->ifindex_base, (unsigned long long)last, t->name,
			    ranges[i].first, ranges[i].last, ranges[i].table);
	ranges[(*nranges)++] = (struct if_range){t->ifmib->ifindex_base, (uint32_t)last, t->name};
	return 0;
}

static int check_table(const struct statctr_config *cfg, uint32_t s, uint32_t ti,
                       struct if_range *ranges, uint32_t *nranges)
{
	const struct statctr_table_decl *t = &cfg->segments[s].tables[ti];
	const config_setting_t *ts = table_setting(cfg, s, ti);
	int err = t->ifmib ? check_range(cfg, ts, t, ranges, nranges) : 0;

	for (uint32_t c = 0; !err && c < t->ncolumns; c++)
		if (t->columns[c].ifmib && t->columns[c].ifmib[0])
			err = check_column(cfg, ts, t, c);
	return err;
}

int ifmib_check(const struct statctr_config *cfg)
{
	struct if_range *ranges;
	uint32_t ntables = 0, nranges = 0;
	int err = 0;

	for (uint32_t s = 0; s < cfg->nsegments; s++)
		ntables += cfg->segments[s].ntables;
	ranges = calloc(ntables + 1, sizeof(*ranges));
	if (!ranges)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++)
		for (uint32_t t = 0; !err && t < cfg->segments[s].ntables; t++)
			err = check_table(cfg, s, t, ranges, &nranges);
	free(ranges);
	return err;
}
