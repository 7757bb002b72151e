/*
 * ifmibconf.c - the IF-MIB settings of a declaration (docs/config.md,
 * "IF-MIB tables"): a table's `ifmib = { ... }` group, which libstatctr
 * leaves unread, and for one release the deprecated form, `standard =
 * "if-mib"` with the same keys beside it and `ifmib = "..."` in columns,
 * which the library also leaves unread.  The deprecated form gives a
 * warning naming file:line.
 *
 * Owns the syntax of those keys and struct ifmib_config; the rules of a
 * mapping (which objects exist, kinds, ifIndex ranges) are ifmib.c's.
 * Reads the libconfig tree statctr_config_load() parsed, never the file.
 */
#include "ifmib.h"

#include <errno.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BASE  1000u
#define DEFAULT_TYPE  6u  /* ethernetCsmacd */
#define MAX_ALIAS     64u /* ifAlias: DisplayString (SIZE(0..64)), RFC 2863 */
#define MAX_DESCR     255u
#define STANDARD_NAME "if-mib"

/* The IANAifType names docs/config.md lists; any other type is given as its number. */
static const struct {
	const char *name;
	uint32_t value;
} if_types[] = {
    {"other", 1},    {"ethernetCsmacd", 6}, {"softwareLoopback", 24}, {"propVirtual", 53},
    {"tunnel", 131}, {"l2vlan", 135},       {"ieee8023adLag", 161},   {"bridge", 209},
};

/* The keys of a table's ifmib group; all but "columns" also stand beside `standard`. */
static const char *const group_keys[] = {"ifindex_base", "ifindex_range", "ifType",  "ifMtu",
                                         "ifAlias",      "interfaces",    "columns", NULL};
static const char *const legacy_keys[] = {"ifindex_base", "ifType",     "ifMtu",
                                          "ifAlias",      "interfaces", NULL};
static const char *const interface_keys[] = {"row", "ifAlias", "ifDescr", "ifType", "ifMtu", NULL};

/* What one table's parse needs besides its result. */
struct parse {
	const struct statctr_config *cfg;
	const struct statctr_table_decl *decl;
	const config_setting_t *table; /* the table's group */
	const config_setting_t *group; /* where the keys are: ifmib group, or the table */
};

static int bad(const struct parse *p, const config_setting_t *s, const char *why)
{
	return statctr_config_error(p->cfg, s, EINVAL, "%s", why);
}

static int check_keys(const struct parse *p, const config_setting_t *group, const char *const *keys)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		size_t k = 0;

		while (keys[k] && strcmp(keys[k], config_setting_name(s)) != 0)
			k++;
		if (!keys[k])
			return bad(p, s, "unknown setting (docs/config.md, IF-MIB tables)");
	}
	return 0;
}

/* The optional integer @key of @group in @min..@max; *valp keeps its value when absent. */
static int get_uint(const struct parse *p, const config_setting_t *group, const char *key,
                    uint32_t min, uint32_t max, uint32_t *valp)
{
	const config_setting_t *s = config_setting_get_member(group, key);
	long long v;

	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return bad(p, s, "must be an integer");
	v = config_setting_get_int64(s);
	if (v < min || v > max)
		return statctr_config_error(p->cfg, s, EINVAL, "%lld is out of range (%u..%u)", v,
		                            min, max);
	*valp = (uint32_t)v;
	return 0;
}

/* Printable ASCII of at most @max bytes, copied to *textp (replacing it) when present. */
static int get_text(const struct parse *p, const config_setting_t *group, const char *key,
                    size_t max, char **textp)
{
	const config_setting_t *s = config_setting_get_member(group, key);
	const char *text;
	char *copy;
	size_t i;

	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return bad(p, s, "must be a string");
	text = config_setting_get_string(s);
	for (i = 0; text[i]; i++)
		if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e)
			return statctr_config_error(p->cfg, s, EINVAL,
			                            "character %zu is not printable ASCII", i + 1);
	if (i > max)
		return statctr_config_error(p->cfg, s, EINVAL,
		                            "%zu characters, at most %zu allowed", i, max);
	copy = strdup(text);
	if (!copy)
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	free(*textp);
	*textp = copy;
	return 0;
}

static int get_type(const struct parse *p, const config_setting_t *group, uint32_t *typep)
{
	const config_setting_t *s = config_setting_get_member(group, "ifType");
	const char *name;

	if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
		return get_uint(p, group, "ifType", 1, IFMIB_MAX_INT32, typep);
	name = config_setting_get_string(s);
	for (size_t i = 0; i < sizeof(if_types) / sizeof(if_types[0]); i++) {
		if (strcmp(if_types[i].name, name) == 0) {
			*typep = if_types[i].value;
			return 0;
		}
	}
	return statctr_config_error(p->cfg, s, EINVAL,
	                            "unknown ifType \"%s\" (a number 1..%u, or one of the names "
	                            "docs/config.md lists: ethernetCsmacd, softwareLoopback, ...)",
	                            name, IFMIB_MAX_INT32);
}

/* ifAlias, ifDescr, ifType, ifMtu of @group over the values already in @d. */
static int get_attrs(const struct parse *p, const config_setting_t *group, struct ifmib_if *d)
{
	int err;

	d->line = config_setting_source_line(group);
	err = get_text(p, group, "ifAlias", MAX_ALIAS, &d->alias);
	if (!err)
		err = get_text(p, group, "ifDescr", MAX_DESCR, &d->descr);
	if (!err)
		err = get_type(p, group, &d->type);
	if (!err)
		err = get_uint(p, group, "ifMtu", 0, IFMIB_MAX_INT32, &d->mtu);
	return err;
}

/* Whether @name is a row of @t: a declared name, a number below nrows, any name if dynamic. */
static bool is_row_of(const struct statctr_table_decl *t, const char *name)
{
	char *end;
	unsigned long n;

	if (t->dynamic)
		return true;
	if (t->row_names) {
		for (uint32_t r = 0; r < t->nrows; r++)
			if (strcmp(t->row_names[r], name) == 0)
				return true;
		return false;
	}
	n = strtoul(name, &end, 10);
	return name[0] >= '0' && name[0] <= '9' && *end == '\0' && n < t->nrows;
}

static int get_interface(const struct parse *p, const config_setting_t *s,
                         const struct ifmib_if *dflt, struct ifmib_if *d)
{
	const config_setting_t *row = config_setting_get_member(s, "row");
	int err = check_keys(p, s, interface_keys);

	if (err)
		return err;
	if (!row || config_setting_type(row) != CONFIG_TYPE_STRING)
		return bad(p, row ? row : s, "row: a string naming a row is required");
	err = get_text(p, s, "row", STATCTR_MAX_ROWNAME, &d->row);
	if (err)
		return err;
	if (d->row[0] == '\0' || !is_row_of(p->decl, d->row))
		return statctr_config_error(p->cfg, row, EINVAL, "\"%s\" is no row of table %s",
		                            d->row, p->decl->name);
	d->type = dflt->type;
	d->mtu = dflt->mtu;
	d->alias = strdup(dflt->alias);
	if (!d->alias)
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	return get_attrs(p, s, d);
}

static int get_interfaces(const struct parse *p, struct ifmib_table *t)
{
	const config_setting_t *list = config_setting_get_member(p->group, "interfaces");
	uint32_t n;

	if (!list)
		return 0;
	if (!config_setting_is_list(list))
		return bad(p, list, "must be a list of groups: ( { row = \"...\"; ... } )");
	n = (uint32_t)config_setting_length(list);
	t->interfaces = calloc(n + 1, sizeof(*t->interfaces));
	if (!t->interfaces)
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(list, i);
		int err;

		t->ninterfaces = i + 1; /* freed by ifmib_config_free() even when half parsed */
		if (!config_setting_is_group(s))
			return bad(p, s, "must be a group: { row = \"...\"; ... }");
		err = get_interface(p, s, &t->defaults, &t->interfaces[i]);
		if (err)
			return err;
		for (uint32_t j = 0; j < i; j++)
			if (strcmp(t->interfaces[j].row, t->interfaces[i].row) == 0)
				return statctr_config_error(
				    p->cfg, config_setting_get_member(s, "row"), EINVAL,
				    "row \"%s\" declared twice (also interfaces.[%u], line %d)",
				    t->interfaces[i].row, j, t->interfaces[j].line);
	}
	return 0;
}

/* The declared column of @p's table named @name, or -1. */
static int column_named(const struct parse *p, const char *name)
{
	for (uint32_t c = 0; c < p->decl->ncolumns; c++)
		if (strcmp(p->decl->columns[c].name, name) == 0)
			return (int)c;
	return -1;
}

/* Column @c feeds the object named by string setting @s. */
static int set_object(const struct parse *p, struct ifmib_table *t, uint32_t c,
                      const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return bad(p, s, "must be a string naming an IF-MIB object (docs/config.md)");
	t->objects[c] = config_setting_get_string(s);
	t->object_settings[c] = s;
	return 0;
}

/* ifmib.columns = { column = "object"; ... }: each key a declared column. */
static int get_columns(const struct parse *p, struct ifmib_table *t)
{
	const config_setting_t *map = config_setting_get_member(p->group, "columns");

	if (!map)
		return 0;
	if (!config_setting_is_group(map))
		return bad(p, map, "must be a group: columns = { COLUMN = \"ifHCInOctets\"; ... }");
	for (int i = 0; i < config_setting_length(map); i++) {
		const config_setting_t *s = config_setting_get_elem(map, (unsigned)i);
		int c = column_named(p, config_setting_name(s));
		int err;

		if (c < 0)
			return statctr_config_error(p->cfg, s, EINVAL, "table %s has no column %s",
			                            p->decl->name, config_setting_name(s));
		err = set_object(p, t, (uint32_t)c, s);
		if (err)
			return err;
	}
	return 0;
}

/* The column's own `ifmib` string (deprecated form), or NULL. */
static const config_setting_t *legacy_object(const struct parse *p, uint32_t c)
{
	const config_setting_t *cols = config_setting_get_member(p->table, "columns");
	const config_setting_t *col = cols ? config_setting_get_elem(cols, c) : NULL;

	return col ? config_setting_get_member(col, "ifmib") : NULL;
}

static int get_legacy_columns(const struct parse *p, struct ifmib_table *t)
{
	for (uint32_t c = 0; c < p->decl->ncolumns; c++) {
		const config_setting_t *s = legacy_object(p, c);
		int err = s ? set_object(p, t, c, s) : 0;

		if (err)
			return err;
	}
	return 0;
}

/* Parse @p's keys into @t; @legacy: they stand beside `standard` in the table. */
static int get_table(const struct parse *p, bool legacy, struct ifmib_table *t)
{
	int err = legacy ? 0 : check_keys(p, p->group, group_keys);

	t->ifindex_base = DEFAULT_BASE;
	t->defaults.type = DEFAULT_TYPE;
	t->defaults.alias = strdup("");
	t->objects = calloc(p->decl->ncolumns + 1, sizeof(*t->objects));
	t->object_settings = calloc(p->decl->ncolumns + 1, sizeof(*t->object_settings));
	if (!t->defaults.alias || !t->objects || !t->object_settings)
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	if (!err)
		err = get_uint(p, p->group, "ifindex_base", 1, IFMIB_MAX_INT32, &t->ifindex_base);
	/* A value per row (a dynamic table's: per row it has room for); too
	 * many rows are ifmib_check()'s error. */
	if (!err && !legacy)
		err = get_uint(p, p->group, "ifindex_range",
		               p->decl->nrows < 1                 ? 1
		               : p->decl->nrows < IFMIB_MAX_TOTAL ? p->decl->nrows
		                                                  : IFMIB_MAX_TOTAL,
		               IFMIB_MAX_TOTAL, &t->ifindex_range);
	if (!err)
		err = get_attrs(p, p->group, &t->defaults);
	if (!err)
		err = get_interfaces(p, t);
	if (!err)
		err = legacy ? get_legacy_columns(p, t) : get_columns(p, t);
	return err;
}

/*
 * The IF-MIB keys of the deprecated form, found in a table that is no such
 * table (@hint: what to write instead), are errors, each by name.
 */
static int refuse_strays(const struct parse *p, const char *hint)
{
	for (size_t i = 0; legacy_keys[i]; i++) {
		const config_setting_t *s = config_setting_get_member(p->table, legacy_keys[i]);

		if (s)
			return statctr_config_error(p->cfg, s, EINVAL,
			                            "only for an IF-MIB table (%s)", hint);
	}
	for (uint32_t c = 0; c < p->decl->ncolumns; c++) {
		const config_setting_t *s = legacy_object(p, c);

		if (s)
			return statctr_config_error(
			    p->cfg, s, EINVAL,
			    "ifmib \"%s\" in table %s, which is no IF-MIB table (%s)",
			    config_setting_type(s) == CONFIG_TYPE_STRING
			        ? config_setting_get_string(s)
			        : "?",
			    p->decl->name, hint);
	}
	return 0;
}

static int add_warning(const struct parse *p, struct ifmib_config *ic, const config_setting_t *s)
{
	char **w = realloc(ic->warnings, (ic->nwarnings + 1) * sizeof(*w));

	if (!w)
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	ic->warnings = w;
	statctr_config_error(p->cfg, s, EINVAL,
	                     "warning: `standard = \"if-mib\"` with the IF-MIB keys beside it "
	                     "and `ifmib` in columns is deprecated and will be refused in the "
	                     "next release: write `ifmib = { ...; columns = { COLUMN = "
	                     "\"OBJECT\"; }; };` in table %s (docs/config.md, IF-MIB tables)",
	                     p->decl->name);
	w[ic->nwarnings] = strdup(statctr_errmsg());
	if (!w[ic->nwarnings])
		return statctr_config_error(p->cfg, NULL, ENOMEM, "out of memory");
	ic->nwarnings++;
	return 0;
}

/* Table @ti of segment @s: an IF-MIB table (added to @ic), or none (its strays refused). */
static int parse_table(const struct statctr_config *cfg, uint32_t s, uint32_t ti,
                       struct ifmib_config *ic)
{
	const config_setting_t *segs = statctr_config_group(cfg, "segments");
	const config_setting_t *tables =
	    config_setting_get_member(config_setting_get_elem(segs, s), "tables");
	struct parse p = {cfg, &cfg->segments[s].tables[ti], config_setting_get_elem(tables, ti),
	                  NULL};
	const config_setting_t *group = config_setting_get_member(p.table, "ifmib");
	const config_setting_t *std = config_setting_get_member(p.table, "standard");
	struct ifmib_table *t = &ic->tables[ic->ntables];
	int err;

	if (std && group)
		return bad(&p, std, "deprecated beside the table's ifmib group: remove it");
	if (std && (config_setting_type(std) != CONFIG_TYPE_STRING ||
	            strcmp(config_setting_get_string(std), STANDARD_NAME) != 0))
		return bad(&p, std, "unknown standard (the only one is \"" STANDARD_NAME "\")");
	if (group && !config_setting_is_group(group))
		return bad(&p, group, "must be a group: ifmib = { ifindex_base = 1000; ... };");
	if (!std && !group)
		return refuse_strays(&p, "ifmib = { ... }; in the table: docs/config.md");
	if (group &&
	    (err = refuse_strays(&p, "here the table's ifmib group holds them: "
	                             "ifmib = { ...; columns = { COLUMN = \"OBJECT\"; }; }")) != 0)
		return err;
	if (std && (err = add_warning(&p, ic, std)) != 0)
		return err;
	p.group = group ? group : p.table;
	*t = (struct ifmib_table){.decl = p.decl,
	                          .segment = s,
	                          .table = ti,
	                          .setting = p.group,
	                          .table_setting = p.table};
	ic->ntables++; /* freed by ifmib_config_free() even when half parsed */
	return get_table(&p, std != NULL, t);
}

static void free_if(struct ifmib_if *d)
{
	free(d->row);
	free(d->alias);
	free(d->descr);
}

void ifmib_config_free(struct ifmib_config *ic)
{
	if (!ic)
		return;
	for (uint32_t i = 0; i < ic->ntables; i++) {
		struct ifmib_table *t = &ic->tables[i];

		for (uint32_t j = 0; j < t->ninterfaces; j++)
			free_if(&t->interfaces[j]);
		free_if(&t->defaults);
		free(t->interfaces);
		free(t->objects);
		free(t->object_settings);
	}
	for (uint32_t i = 0; i < ic->nwarnings; i++)
		free(ic->warnings[i]);
	free(ic->warnings);
	free(ic->tables);
	free(ic);
}

int ifmib_config_load(const struct statctr_config *cfg, struct ifmib_config **icp)
{
	struct ifmib_config *ic = calloc(1, sizeof(*ic));
	uint32_t ntables = 0;
	int err = 0;

	*icp = NULL;
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		ntables += cfg->segments[s].ntables;
	if (ic)
		ic->tables = calloc(ntables + 1, sizeof(*ic->tables));
	if (!ic || !ic->tables) {
		free(ic);
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	}
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++)
		for (uint32_t t = 0; !err && t < cfg->segments[s].ntables; t++)
			err = parse_table(cfg, s, t, ic);
	if (!err)
		err = ifmib_check(cfg, ic);
	if (err) {
		ifmib_config_free(ic);
		return err;
	}
	*icp = ic;
	return 0;
}

const struct ifmib_table *ifmib_table_of(const struct ifmib_config *ic, uint32_t s, uint32_t t)
{
	for (uint32_t i = 0; ic && i < ic->ntables; i++)
		if (ic->tables[i].segment == s && ic->tables[i].table == t)
			return &ic->tables[i];
	return NULL;
}
