/*
 * test_ifmib.c - mib/ifmib.c and mib/ifmibconf.c: the IF-MIB object table
 * is consistent with RFC 2863's OIDs and with itself; a table's ifmib group
 * is parsed, and ifmib_config_load() refuses every bad setting and mapping
 * with file:line and the setting, as check-config reports it; the
 * deprecated form (`standard = "if-mib"`) still loads, with a warning.
 */
#include "ifmib.h"
#include "statctr.h"
#include "testutil.h"

#include <unistd.h>

/* A file with one table (@table on line 5) and its columns (@columns on line 7). */
static const char *one_table(const char *name, const char *table, const char *columns)
{
	static char text[4096];

	snprintf(text, sizeof(text),
	         "segments = (\n"
	         "  {\n"
	         "    name = \"s\"; slots = 1;\n"
	         "    tables = ( {\n"
	         "      name = \"t\"; %s\n"
	         "      columns = (\n"
	         "        %s\n"
	         "      );\n"
	         "    } );\n"
	         "  }\n"
	         ");\n",
	         table, columns);
	return tu_write_file(name, text);
}

static struct statctr_config *load(const char *path)
{
	struct statctr_config *cfg = NULL;

	if (statctr_config_load(path, &cfg) != 0)
		fprintf(stderr, "\n  unexpected error: %s\n", statctr_errmsg());
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	return cfg;
}

/* The IF-MIB settings of @cfg, which must be valid. */
static struct ifmib_config *load_ifmib(const struct statctr_config *cfg)
{
	struct ifmib_config *ic = NULL;

	if (ifmib_config_load(cfg, &ic) != 0)
		fprintf(stderr, "\n  unexpected error: %s\n", statctr_errmsg());
	CU_ASSERT_PTR_NOT_NULL_FATAL(ic);
	return ic;
}

/* ifmib_config_load() of @path fails with "PATH:@line: @setting: ...@what...". */
static void expect_refused(const char *path, int line, const char *setting, const char *what)
{
	struct statctr_config *cfg = load(path);
	struct ifmib_config *ic = NULL;
	char prefix[1024];
	const char *msg;

	snprintf(prefix, sizeof(prefix), "%s:%d: %s: ", path, line, setting);
	CU_ASSERT_EQUAL(ifmib_config_load(cfg, &ic), -EINVAL);
	CU_ASSERT_PTR_NULL(ic);
	msg = statctr_errmsg();
	CU_ASSERT(strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, what));
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fprintf(stderr, "\n  expected: %s...%s\n  got:      %s\n", prefix, what, msg);
	statctr_config_free(cfg);
}

/* A two-row table with an ifmib group holding @keys and the column map @map. */
#define IFTABLE(keys, map)  "rows = [ \"p0\", \"p1\" ]; ifmib = { " keys " columns = { " map " }; };"
#define COUNTER(name)       "{ name = \"" name "\"; kind = \"counter\"; }"
#define GAUGE(name)         "{ name = \"" name "\"; kind = \"gauge\"; }"
#define MAP(column, object) column " = \"" object "\"; "
#define AT                  "segments.[0].tables.[0].ifmib."

static void objects_have_rfc2863_oids(void)
{
	static const struct {
		const char *name;
		uint8_t entry, column;
	} known[] = {
	    {"ifIndex", IFMIB_IF_TABLE, 1},
	    {"ifOperStatus", IFMIB_IF_TABLE, 8},
	    {"ifInOctets", IFMIB_IF_TABLE, 10},
	    {"ifOutErrors", IFMIB_IF_TABLE, 20},
	    {"ifName", IFMIB_IFX_TABLE, 1},
	    {"ifHCInOctets", IFMIB_IFX_TABLE, 6},
	    {"ifHCOutBroadcastPkts", IFMIB_IFX_TABLE, 13},
	    {"ifHighSpeed", IFMIB_IFX_TABLE, 15},
	    {"ifAlias", IFMIB_IFX_TABLE, 18},
	    {"ifCounterDiscontinuityTime", IFMIB_IFX_TABLE, 19},
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		int k = ifmib_find(known[i].name);

		CU_ASSERT_FATAL(k >= 0);
		CU_ASSERT_EQUAL(ifmib_objects[k].entry, known[i].entry);
		CU_ASSERT_EQUAL(ifmib_objects[k].column, known[i].column);
	}
	for (uint32_t i = 1; i < ifmib_nobjects; i++) {
		const struct ifmib_object *a = &ifmib_objects[i - 1], *b = &ifmib_objects[i];

		CU_ASSERT(a->entry < b->entry || (a->entry == b->entry && a->column < b->column));
	}
	CU_ASSERT_EQUAL(ifmib_find("ifInNUcastPkts"), -1);
	CU_ASSERT_EQUAL(ifmib_find("ifhcinoctets"), -1);
	CU_ASSERT_EQUAL(ifmib_if_entry[IFMIB_IF_ENTRY_LEN - 3], 2);
	CU_ASSERT_EQUAL(ifmib_ifx_entry[IFMIB_IFX_ENTRY_LEN - 4], 31);
}

/* ------------------------------------------------------------------------
 * MIB_IF_OBJECTS against RFC 2863's object list (mib/IF-MIB-objects.list).
 */

struct rfc_object {
	char name[48], table[16], access[16], status[16], syntax[32];
	unsigned column;
};

static struct rfc_object rfc[64];
static size_t nrfc;

static void load_rfc_objects(void)
{
	const char *dir = getenv("top_srcdir") ? getenv("top_srcdir") : getenv("srcdir");
	char path[512], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/mib/IF-MIB-objects.list", dir ? dir : ".");
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		struct rfc_object *o = &rfc[nrfc];
		int end = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		CU_ASSERT_FATAL(nrfc < sizeof(rfc) / sizeof(rfc[0]));
		CU_ASSERT_FATAL(sscanf(line, "%47s %15s %u %15s %15s %n", o->name, o->table,
		                       &o->column, o->access, o->status, &end) == 5);
		snprintf(o->syntax, sizeof(o->syntax), "%s", line + end);
		o->syntax[strcspn(o->syntax, "\n")] = '\0';
		nrfc++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(nrfc, 22 + 19); /* ifTable's columns, ifXTable's */
}

static const struct rfc_object *rfc_find(const char *name)
{
	for (size_t i = 0; i < nrfc; i++)
		if (strcmp(rfc[i].name, name) == 0)
			return &rfc[i];
	return NULL;
}

/*
 * Both ways: every object statctr serves is RFC 2863's, at its OID, with
 * its syntax, and served read-only at most as the RFC allows; every object
 * of the RFC's two tables is served, or deprecated (RFC 2863 3.1.6).
 */
static void objects_are_rfc2863s_both_ways(void)
{
	load_rfc_objects();
	for (uint32_t i = 0; i < ifmib_nobjects; i++) {
		const struct ifmib_object *o = &ifmib_objects[i];
		const struct rfc_object *r = rfc_find(o->name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_STRING_EQUAL(r->table,
		                       o->entry == IFMIB_IF_TABLE ? "ifTable" : "ifXTable");
		CU_ASSERT_EQUAL(r->column, o->column);
		CU_ASSERT_STRING_EQUAL(r->syntax, o->syntax);
		CU_ASSERT_STRING_EQUAL(r->status, "current");
	}
	for (size_t i = 0; i < nrfc; i++) {
		bool served = ifmib_find(rfc[i].name) >= 0;

		CU_ASSERT(served || strcmp(rfc[i].status, "deprecated") == 0);
		if (!served && strcmp(rfc[i].status, "deprecated") != 0)
			fprintf(stderr, "\n  %s: current in RFC 2863, not served\n", rfc[i].name);
	}
}

/* Each way of serving gives the syntax the RFC states. */
static void values_encode_the_rfc_syntax(void)
{
	static const struct {
		uint8_t value;
		const char *syntax;
	} rules[] = {
	    {IFV_COUNTER32, "Counter32"},   {IFV_COUNTER64, "Counter64"},
	    {IFV_SPEED, "Gauge32"},         {IFV_HIGH_SPEED, "Gauge32"},
	    {IFV_FALSE, "TruthValue"},      {IFV_DISC_TIME, "TimeStamp"},
	    {IFV_LAST_CHANGE, "TimeTicks"}, {IFV_INDEX, "InterfaceIndex"},
	};

	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++)
			if (ifmib_objects[i].value == rules[k].value)
				CU_ASSERT_STRING_EQUAL(ifmib_objects[i].syntax, rules[k].syntax);
}

/* A source is mappable and of the kind the value needs; an HC object feeds its 32-bit twin. */
static void sources_are_mappable_objects(void)
{
	for (uint32_t i = 0; i < ifmib_nobjects; i++) {
		const struct ifmib_object *o = &ifmib_objects[i];
		int s = o->source ? ifmib_find(o->source) : -1;

		if (o->mappable && o->source)
			CU_ASSERT_STRING_EQUAL(o->source, o->name);
		if (!o->source)
			continue;
		CU_ASSERT_FATAL(s >= 0);
		CU_ASSERT(ifmib_objects[s].mappable);
		if (o->value == IFV_COUNTER32 || o->value == IFV_COUNTER64)
			CU_ASSERT_EQUAL(ifmib_objects[s].kind, STATCTR_KIND_COUNTER);
	}
	CU_ASSERT_STRING_EQUAL(ifmib_objects[ifmib_find("ifInOctets")].source, "ifHCInOctets");
	CU_ASSERT_STRING_EQUAL(ifmib_objects[ifmib_find("ifOutMulticastPkts")].source,
	                       "ifHCOutMulticastPkts");
	CU_ASSERT_STRING_EQUAL(ifmib_objects[ifmib_find("ifSpeed")].source, "ifHighSpeed");
	CU_ASSERT_EQUAL(ifmib_objects[ifmib_find("ifHighSpeed")].kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_EQUAL(ifmib_objects[ifmib_find("ifOperStatus")].kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_EQUAL(ifmib_objects[ifmib_find("ifInErrors")].kind, STATCTR_KIND_COUNTER);
	CU_ASSERT(!ifmib_objects[ifmib_find("ifInOctets")].mappable);
}

/* Served: attributes always, a counter object only when its source is mapped. */
static void columns_follow_the_mapping(void)
{
	struct statctr_config *cfg = load(one_table(
	    "cols.conf", IFTABLE("", MAP("rx", "ifHCInOctets") MAP("oper", "ifOperStatus")),
	    COUNTER("rx") ", " COUNTER("x") ", " GAUGE("oper")));
	struct ifmib_config *ic = load_ifmib(cfg);
	const struct ifmib_table *t = ifmib_table_of(ic, 0, 0);
	int cols[64];

	CU_ASSERT_FATAL(ifmib_nobjects <= 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(ic->nwarnings, 0);
	ifmib_columns(t, cols);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifHCInOctets")], 0);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifInOctets")], 0);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifHCOutOctets")], -1);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifOutOctets")], -1);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifSpeed")], -1);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifName")], -2);
	CU_ASSERT_EQUAL(cols[ifmib_find("ifOperStatus")], -2); /* served with or without */
	CU_ASSERT_EQUAL(ifmib_mapped(t, "ifOperStatus"), 2);
	CU_ASSERT_EQUAL(ifmib_mapped(t, "ifHighSpeed"), -1);
	CU_ASSERT_EQUAL(ifmib_range(t), IFMIB_MIN_RANGE);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	cfg = load(one_table("range.conf",
	                     "rows = 100; ifmib = { columns = { rx = \"ifHCInOctets\"; }; };",
	                     COUNTER("rx")));
	ic = load_ifmib(cfg);
	CU_ASSERT_EQUAL(ifmib_range(ifmib_table_of(ic, 0, 0)), 400);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	cfg = load(one_table("thousand.conf",
	                     "rows = 1000; ifmib = { ifindex_range = 1000; columns = { rx = "
	                     "\"ifHCInOctets\"; }; };",
	                     COUNTER("rx")));
	ic = load_ifmib(cfg);
	CU_ASSERT_EQUAL(ifmib_range(ifmib_table_of(ic, 0, 0)), 1000);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

static void settings_are_parsed(void)
{
	struct statctr_config *cfg = load(one_table(
	    "attrs.conf",
	    IFTABLE("ifindex_base = 5000; ifType = \"l2vlan\"; ifMtu = 9000; ifAlias = \"fabric\"; "
	            "interfaces = ( { row = \"p1\"; ifDescr = \"Port 1\"; ifType = 24; } );",
	            MAP("c", "ifHCInOctets")),
	    COUNTER("c") ", " COUNTER("d")));
	struct ifmib_config *ic = load_ifmib(cfg);
	const struct ifmib_table *t = ifmib_table_of(ic, 0, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(ic->ntables, 1);
	CU_ASSERT_EQUAL(t->ifindex_base, 5000);
	CU_ASSERT_EQUAL(t->defaults.type, 135);
	CU_ASSERT_EQUAL(t->defaults.mtu, 9000);
	CU_ASSERT_STRING_EQUAL(t->defaults.alias, "fabric");
	CU_ASSERT_PTR_NULL(t->defaults.descr);
	CU_ASSERT_EQUAL_FATAL(t->ninterfaces, 1);
	CU_ASSERT_STRING_EQUAL(t->interfaces[0].row, "p1");
	CU_ASSERT_STRING_EQUAL(t->interfaces[0].descr, "Port 1");
	CU_ASSERT_EQUAL(t->interfaces[0].type, 24);
	CU_ASSERT_EQUAL(t->interfaces[0].mtu, 9000);              /* the table's */
	CU_ASSERT_STRING_EQUAL(t->interfaces[0].alias, "fabric"); /* the table's */
	CU_ASSERT_STRING_EQUAL(t->objects[0], "ifHCInOctets");
	CU_ASSERT_PTR_NULL(t->objects[1]);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

static void defaults_and_plain_tables(void)
{
	struct statctr_config *cfg =
	    load(one_table("dflt.conf", "rows = 2; ifmib = { };", COUNTER("c")));
	struct ifmib_config *ic = load_ifmib(cfg);
	const struct ifmib_table *t = ifmib_table_of(ic, 0, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->ifindex_base, 1000);
	CU_ASSERT_EQUAL(t->defaults.type, 6);
	CU_ASSERT_EQUAL(t->defaults.mtu, 0);
	CU_ASSERT_STRING_EQUAL(t->defaults.alias, "");
	CU_ASSERT_EQUAL(t->ninterfaces, 0);
	CU_ASSERT_PTR_NULL(t->objects[0]);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	cfg = load(one_table("plain.conf", "rows = 1;", COUNTER("c")));
	ic = load_ifmib(cfg);
	CU_ASSERT_EQUAL(ic->ntables, 0);
	CU_ASSERT_PTR_NULL(ifmib_table_of(ic, 0, 0));
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

#define ALIAS65 "ifAlias = \"01234567890123456789012345678901234567890123456789012345678901234\";"

static void bad_settings_refused_with_file_line(void)
{
	expect_refused(one_table("type.conf", IFTABLE("ifType = \"ethernet\";", ""), COUNTER("c")),
	               5, AT "ifType", "unknown ifType \"ethernet\"");
	expect_refused(one_table("type0.conf", IFTABLE("ifType = 0;", ""), COUNTER("c")), 5,
	               AT "ifType", "out of range");
	expect_refused(one_table("base.conf", IFTABLE("ifindex_base = 0;", ""), COUNTER("c")), 5,
	               AT "ifindex_base", "out of range (1..2147483647)");
	expect_refused(one_table("mtu.conf", IFTABLE("ifMtu = -1;", ""), COUNTER("c")), 5,
	               AT "ifMtu", "out of range");
	expect_refused(one_table("alias.conf", IFTABLE(ALIAS65, ""), COUNTER("c")), 5, AT "ifAlias",
	               "65 characters, at most 64");
	expect_refused(
	    one_table("row.conf", IFTABLE("interfaces = ( { row = \"p2\"; } );", ""), COUNTER("c")),
	    5, AT "interfaces.[0].row", "\"p2\" is no row of table t");
	expect_refused(
	    one_table("row2.conf",
	              IFTABLE("interfaces = ( { row = \"p0\"; }, { row = \"p0\"; } );", ""),
	              COUNTER("c")),
	    5, AT "interfaces.[1].row", "declared twice");
	expect_refused(one_table("ifkey.conf",
	                         IFTABLE("interfaces = ( { row = \"p0\"; ifName = \"x\"; } );", ""),
	                         COUNTER("c")),
	               5, AT "interfaces.[0].ifName", "unknown setting");
	expect_refused(one_table("key.conf", IFTABLE("standard = \"if-mib\";", ""), COUNTER("c")),
	               5, AT "standard", "unknown setting");
	expect_refused(one_table("notgroup.conf", "rows = 1; ifmib = 1;", COUNTER("c")), 5,
	               "segments.[0].tables.[0].ifmib", "must be a group");
	expect_refused(one_table("objtype.conf", IFTABLE("", "c = 1;"), COUNTER("c")), 5,
	               AT "columns.c", "must be a string");
	expect_refused(
	    one_table("nocol.conf", IFTABLE("", MAP("rx", "ifHCInOctets")), COUNTER("c")), 5,
	    AT "columns.rx", "table t has no column rx");
	expect_refused(one_table("stray.conf", "rows = 1; ifMtu = 1500;", COUNTER("c")), 5,
	               "segments.[0].tables.[0].ifMtu", "only for an IF-MIB table");
	expect_refused(one_table("mixed.conf", IFTABLE("", "") " ifMtu = 1500;", COUNTER("c")), 5,
	               "segments.[0].tables.[0].ifMtu", "the table's ifmib group holds them");
	expect_refused(
	    one_table("both.conf", IFTABLE("", "") " standard = \"if-mib\";", COUNTER("c")), 5,
	    "segments.[0].tables.[0].standard", "beside the table's ifmib group");
}

static void bad_mappings_refused_with_file_line(void)
{
	const char *col = AT "columns.rx";

	expect_refused(
	    one_table("unknown.conf", IFTABLE("", MAP("rx", "ifHCInOctet")), COUNTER("rx")), 5, col,
	    "unknown IF-MIB object \"ifHCInOctet\"");
	expect_refused(
	    one_table("derived.conf", IFTABLE("", MAP("rx", "ifInOctets")), COUNTER("rx")), 5, col,
	    "unknown IF-MIB object \"ifInOctets\"");
	expect_refused(one_table("kind.conf", IFTABLE("", MAP("rx", "ifHCInOctets")), GAUGE("rx")),
	               5, col, "ifHCInOctets needs a counter column, rx is a gauge");
	expect_refused(
	    one_table("kind2.conf", IFTABLE("", MAP("rx", "ifHighSpeed")), COUNTER("rx")), 5, col,
	    "ifHighSpeed needs a gauge column, rx is a counter");
	expect_refused(one_table("kind3.conf", IFTABLE("", MAP("rx", "ifInErrors")), GAUGE("rx")),
	               5, col, "needs a counter column");
	expect_refused(one_table("twice.conf",
	                         IFTABLE("", MAP("a", "ifHCInOctets") MAP("b", "ifHCInOctets")),
	                         COUNTER("a") ", " COUNTER("b")),
	               5, AT "columns.b", "ifHCInOctets is mapped twice (also column a)");
}

static void ranges_must_fit_and_not_overlap(void)
{
	struct statctr_config *cfg;
	struct ifmib_config *ic;
	char tables[1024];

	expect_refused(
	    one_table("high.conf", IFTABLE("ifindex_base = 2147483600;", ""), COUNTER("rx")), 5,
	    AT "ifindex_base", "passes 2147483647");
	/* 4 x 257 ifIndex values by default; ifindex_range allows up to 1024 rows. */
	expect_refused(one_table("rows.conf", "rows = 257; ifmib = { };", COUNTER("rx")), 5,
	               "segments.[0].tables.[0].ifmib",
	               "reserve 1028 ifIndex values, at most 1024");
	expect_refused(
	    one_table("short.conf", "rows = 300; ifmib = { ifindex_range = 299; };", COUNTER("rx")),
	    5, "segments.[0].tables.[0].ifmib.ifindex_range", "299 is out of range (300..1024)");
	expect_refused(one_table("many.conf", "rows = 1025; ifmib = { ifindex_range = 1024; };",
	                         COUNTER("rx")),
	               5, "segments.[0].tables.[0].rows",
	               "1025 rows in IF-MIB table t, at most 1024");
	cfg = load(one_table("top.conf", IFTABLE("ifindex_base = 2147483584;", ""), COUNTER("rx")));
	ic = load_ifmib(cfg); /* 2147483584 + 64 - 1 = 2^31 - 1 */
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	snprintf(tables, sizeof(tables),
	         "segments = ( { name = \"s\"; slots = 1; tables = (\n"
	         "  { name = \"a\"; rows = 1; ifmib = { ifindex_base = 1000; };\n"
	         "    columns = ( { name = \"c\"; kind = \"counter\"; } ); },\n"
	         "  { name = \"b\"; rows = 1; ifmib = { ifindex_base = 1063; };\n"
	         "    columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); } );\n");
	expect_refused(tu_write_file("overlap.conf", tables), 4,
	               "segments.[0].tables.[1].ifmib.ifindex_base",
	               "ifIndex range 1063..1126 of table b overlaps 1000..1063 of a");
	tables[strstr(tables, "1063") - tables + 3] = '4';
	cfg = load(tu_write_file("adjacent.conf", tables));
	ic = load_ifmib(cfg);
	CU_ASSERT_EQUAL(ic->ntables, 2);
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

/*
 * The deprecated form, `standard = "if-mib"` with the keys in the table and
 * `ifmib` in columns: the same settings, one warning naming file:line, and
 * the old errors.
 */
#define OLD_COUNTER(name, object)                                                                  \
	"{ name = \"" name "\"; kind = \"counter\"; ifmib = \"" object "\"; }"

static void deprecated_form_loads_with_a_warning(void)
{
	const char *path = one_table(
	    "old.conf",
	    "rows = [ \"p0\", \"p1\" ]; standard = \"if-mib\"; ifindex_base = 5000; ifMtu = 9000; "
	    "interfaces = ( { row = \"p1\"; ifAlias = \"up\"; } );",
	    OLD_COUNTER("rx", "ifHCInOctets") ", " COUNTER("x"));
	struct statctr_config *cfg = load(path);
	struct ifmib_config *ic = load_ifmib(cfg);
	const struct ifmib_table *t = ifmib_table_of(ic, 0, 0);
	char prefix[600];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->ifindex_base, 5000);
	CU_ASSERT_EQUAL(t->defaults.mtu, 9000);
	CU_ASSERT_EQUAL_FATAL(t->ninterfaces, 1);
	CU_ASSERT_STRING_EQUAL(t->interfaces[0].alias, "up");
	CU_ASSERT_STRING_EQUAL(t->objects[0], "ifHCInOctets");
	CU_ASSERT_PTR_NULL(t->objects[1]);
	CU_ASSERT_EQUAL_FATAL(ic->nwarnings, 1);
	snprintf(prefix, sizeof(prefix), "%s:5: segments.[0].tables.[0].standard: warning: ", path);
	CU_ASSERT_EQUAL(strncmp(ic->warnings[0], prefix, strlen(prefix)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ic->warnings[0], "deprecated"));
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	expect_refused(one_table("oldkind.conf", "rows = 1; standard = \"if-mib\";",
	                         "{ name = \"rx\"; kind = \"gauge\"; ifmib = \"ifHCInOctets\"; }"),
	               7, "segments.[0].tables.[0].columns.[0].ifmib", "needs a counter column");
	expect_refused(one_table("oldnostd.conf", "rows = 1;", OLD_COUNTER("rx", "ifHCInOctets")),
	               7, "segments.[0].tables.[0].columns.[0].ifmib", "which is no IF-MIB table");
	expect_refused(one_table("oldstd.conf", "rows = 1; standard = \"IF-MIB\";", COUNTER("c")),
	               5, "segments.[0].tables.[0].standard", "the only one is \"if-mib\"");
	expect_refused(
	    one_table("oldmtu.conf", "rows = 1; standard = \"if-mib\"; ifMtu = -1;", COUNTER("c")),
	    5, "segments.[0].tables.[0].ifMtu", "out of range");
}

/* Numbered rows are named by their number; a dynamic table's any row name will do. */
static void interface_rows_of_numbered_and_dynamic_tables(void)
{
	struct statctr_config *cfg = load(one_table(
	    "num.conf",
	    "rows = 3; ifmib = { interfaces = ( { row = \"2\"; ifAlias = \"last\"; } ); };",
	    COUNTER("c")));
	struct ifmib_config *ic = load_ifmib(cfg);

	CU_ASSERT_STRING_EQUAL(ic->tables[0].interfaces[0].alias, "last");
	ifmib_config_free(ic);
	statctr_config_free(cfg);
	expect_refused(one_table("num3.conf",
	                         "rows = 3; ifmib = { interfaces = ( { row = \"3\"; } ); };",
	                         COUNTER("c")),
	               5, AT "interfaces.[0].row", "no row of table t");
	cfg = load(one_table(
	    "dyn.conf", "rows = { max = 4; }; ifmib = { interfaces = ( { row = \"vf 9\"; } ); };",
	    COUNTER("c")));
	ic = load_ifmib(cfg);
	CU_ASSERT_STRING_EQUAL(ic->tables[0].interfaces[0].row, "vf 9");
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

static void shipped_config_is_valid(void)
{
	const char *srcdir = getenv("srcdir");
	struct statctr_config *cfg = NULL;
	struct ifmib_config *ic;
	char path[512];

	snprintf(path, sizeof(path), "%s/conf/statctr.conf", srcdir ? srcdir : ".");
	CU_ASSERT_EQUAL_FATAL(statctr_config_load(path, &cfg), 0);
	ic = load_ifmib(cfg);
	CU_ASSERT_PTR_NOT_NULL(ifmib_table_of(ic, 0, 0));
	CU_ASSERT_EQUAL(ic->nwarnings, 0); /* the example uses the current form */
	/* Its interfaces sit next to the kernel's in ifTable: no row may take
	 * the name of one (eth0 did), which an NMS would mix up. */
	for (uint32_t i = 0; i < ic->ntables; i++) {
		const struct statctr_table_decl *t = ic->tables[i].decl;

		for (uint32_t r = 0; t->row_names && r < t->nrows; r++) {
			char sys[300];

			snprintf(sys, sizeof(sys), "/sys/class/net/%s", t->row_names[r]);
			if (access(sys, F_OK) == 0)
				fprintf(stderr, "\n%s: row %s is a kernel interface's name\n", path,
				        t->row_names[r]);
			CU_ASSERT_NOT_EQUAL(access(sys, F_OK), 0);
		}
	}
	ifmib_config_free(ic);
	statctr_config_free(cfg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"objects_have_rfc2863_oids", objects_have_rfc2863_oids},
	    {"objects_are_rfc2863s_both_ways", objects_are_rfc2863s_both_ways},
	    {"values_encode_the_rfc_syntax", values_encode_the_rfc_syntax},
	    {"sources_are_mappable_objects", sources_are_mappable_objects},
	    {"columns_follow_the_mapping", columns_follow_the_mapping},
	    {"settings_are_parsed", settings_are_parsed},
	    {"defaults_and_plain_tables", defaults_and_plain_tables},
	    {"bad_settings_refused_with_file_line", bad_settings_refused_with_file_line},
	    {"bad_mappings_refused_with_file_line", bad_mappings_refused_with_file_line},
	    {"deprecated_form_loads_with_a_warning", deprecated_form_loads_with_a_warning},
	    {"interface_rows_of_numbered_and_dynamic_tables",
	     interface_rows_of_numbered_and_dynamic_tables},
	    {"ranges_must_fit_and_not_overlap", ranges_must_fit_and_not_overlap},
	    {"shipped_config_is_valid", shipped_config_is_valid},
	    {NULL, NULL},
	};

	return tu_run("ifmib", cases);
}
