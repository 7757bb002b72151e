/*
 * confifmib.c - the IF-MIB settings of a declaration (docs/config.md,
 * "IF-MIB tables"): a table's `standard = "if-mib"`, ifindex_base, ifType,
 * ifMtu, ifAlias and per-row `interfaces`, and a column's `ifmib`.
 *
 * Owns the syntax only: which object names exist, which kind each needs and
 * whether an ifIndex range fits are the agent's rules (mib/ifmib.c), checked
 * with the rest of the agent group.  Never touches segments.
 */
#include "confread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INT32     2147483647u /* ifIndex, ifType, ifMtu: Integer32 1..2^31-1 */
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

/* The table keys that mean nothing without `standard = "if-mib"`. */
static const char *const table_if_keys[] = {"ifindex_base", "ifType",     "ifMtu",
                                            "ifAlias",      "interfaces", NULL};
static const char *const interface_keys[] = {"row", "ifAlias", "ifDescr", "ifType", "ifMtu", NULL};

static int parse_if_type(const char *path, const config_setting_t *group, uint32_t *typep)
{
	const config_setting_t *s = config_setting_get_member(group, "ifType");
	const char *name;

	if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
		return conf_get_uint(path, group, "ifType", 1, MAX_INT32, typep);
	name = config_setting_get_string(s);
	for (size_t i = 0; i < sizeof(if_types) / sizeof(if_types[0]); i++) {
		if (strcmp(if_types[i].name, name) == 0) {
			*typep = if_types[i].value;
			return 0;
		}
	}
	return conf_fail(path, group, "ifType",
	                 "unknown ifType \"%s\" (a number 1..%u, or one of the names "
	                 "docs/config.md lists: ethernetCsmacd, softwareLoopback, ...)",
	                 name, MAX_INT32);
}

/* An optional string of at most @max printable bytes; replaces *textp when present. */
static int parse_if_text(const char *path, const config_setting_t *group, const char *key,
                         size_t max, const char **textp)
{
	const config_setting_t *s;
	const char *text;
	int err = conf_member(path, group, key, CONFIG_TYPE_STRING, false, &s);

	if (err || !s)
		return err;
	text = config_setting_get_string(s);
	err = conf_check_text(path, group, key, text, max);
	if (err)
		return err;
	free((void *)*textp);
	*textp = NULL;
	return conf_copy_string(text, textp);
}

/* ifAlias, ifDescr, ifType, ifMtu of @group over the defaults already in @d. */
static int parse_if_attrs(const char *path, const config_setting_t *group,
                          struct statctr_if_decl *d)
{
	int err;

	d->line = config_setting_source_line(group);
	err = parse_if_text(path, group, "ifAlias", MAX_ALIAS, &d->alias);
	if (!err)
		err = parse_if_text(path, group, "ifDescr", MAX_DESCR, &d->descr);
	if (!err)
		err = parse_if_type(path, group, &d->type);
	if (!err)
		err = conf_get_uint(path, group, "ifMtu", 0, MAX_INT32, &d->mtu);
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

static int parse_interface(const char *path, const config_setting_t *s,
                           const struct statctr_table_decl *t, const struct statctr_if_decl *dflt,
                           struct statctr_if_decl *d)
{
	const config_setting_t *row;
	const char *name;
	int err = conf_check_keys(path, s, interface_keys);

	if (!err)
		err = conf_member(path, s, "row", CONFIG_TYPE_STRING, true, &row);
	if (err)
		return err;
	name = config_setting_get_string(row);
	err = conf_check_text(path, s, "row", name, STATCTR_MAX_ROWNAME);
	if (err)
		return err;
	if (name[0] == '\0' || !is_row_of(t, name))
		return conf_fail(path, s, "row", "\"%s\" is no row of table %s", name, t->name);
	*d = (struct statctr_if_decl){.type = dflt->type, .mtu = dflt->mtu};
	err = conf_copy_string(name, &d->row);
	if (!err)
		err = conf_copy_string(dflt->alias, &d->alias);
	if (!err)
		err = parse_if_attrs(path, s, d);
	return err;
}

static int parse_interfaces(const char *path, const config_setting_t *table,
                            const struct statctr_table_decl *t, struct statctr_ifmib_decl *ifm)
{
	const config_setting_t *list = config_setting_get_member(table, "interfaces");
	struct statctr_if_decl *ifs;
	uint32_t n, i, j;
	int err;

	if (!list)
		return 0;
	err = conf_get_list(path, table, "interfaces", &list, &n);
	if (err)
		return err;
	ifs = calloc(n, sizeof(*ifs));
	if (!ifs)
		return conf_no_memory();
	ifm->interfaces = ifs;
	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(list, i);

		err = parse_interface(path, s, t, &ifm->defaults, &ifs[i]);
		ifm->ninterfaces = i + 1; /* freed by conf_ifmib_free() even when half parsed */
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (strcmp(ifs[j].row, ifs[i].row) == 0)
				return conf_fail(path, s, "row",
				                 "row \"%s\" declared twice (also interfaces.[%u], "
				                 "line %d)",
				                 ifs[i].row, j, ifs[j].line);
	}
	return 0;
}

/* Without `standard`, the keys that only an IF-MIB table has are an error, each by name. */
static int refuse_if_keys(const char *path, const config_setting_t *table)
{
	for (size_t i = 0; table_if_keys[i]; i++)
		if (config_setting_get_member(table, table_if_keys[i]))
			return conf_fail(path, table, table_if_keys[i],
			                 "only for an IF-MIB table (standard = \"" STANDARD_NAME
			                 "\";)");
	return 0;
}

int conf_ifmib_table(const char *path, const config_setting_t *table, struct statctr_table_decl *t)
{
	const config_setting_t *s;
	struct statctr_ifmib_decl *ifm;
	int err = conf_member(path, table, "standard", CONFIG_TYPE_STRING, false, &s);

	if (err)
		return err;
	if (!s)
		return refuse_if_keys(path, table);
	if (strcmp(config_setting_get_string(s), STANDARD_NAME) != 0)
		return conf_fail(path, table, "standard",
		                 "unknown standard \"%s\" (the only one is \"" STANDARD_NAME "\")",
		                 config_setting_get_string(s));
	ifm = calloc(1, sizeof(*ifm));
	if (!ifm)
		return conf_no_memory();
	t->ifmib = ifm;
	ifm->ifindex_base = DEFAULT_BASE;
	ifm->defaults.type = DEFAULT_TYPE;
	err = conf_get_uint(path, table, "ifindex_base", 1, MAX_INT32, &ifm->ifindex_base);
	if (!err)
		err = conf_copy_string("", &ifm->defaults.alias);
	if (!err)
		err = parse_if_attrs(path, table, &ifm->defaults);
	if (!err)
		err = parse_interfaces(path, table, t, ifm);
	return err;
}

int conf_ifmib_column(const char *path, const config_setting_t *column,
                      struct statctr_column_decl *col)
{
	const config_setting_t *s;
	int err = conf_member(path, column, "ifmib", CONFIG_TYPE_STRING, false, &s);

	if (err)
		return err;
	return conf_copy_string(s ? config_setting_get_string(s) : "", &col->ifmib);
}

static void free_if_decl(const struct statctr_if_decl *d)
{
	free((void *)d->row);
	free((void *)d->alias);
	free((void *)d->descr);
}

void conf_ifmib_free(const struct statctr_table_decl *t)
{
	const struct statctr_ifmib_decl *ifm = t->ifmib;

	for (uint32_t i = 0; i < t->ncolumns; i++)
		free((void *)t->columns[i].ifmib);
	if (!ifm)
		return;
	for (uint32_t i = 0; i < ifm->ninterfaces; i++)
		free_if_decl(&ifm->interfaces[i]);
	free_if_decl(&ifm->defaults);
	free((void *)ifm->interfaces);
	free((void *)ifm);
}
