/*
 * test_ifmib.c - mib/ifmib.c: the IF-MIB object table is consistent with
 * RFC 2863's OIDs and with itself, and ifmib_check() refuses every bad
 * mapping with file:line and the setting, as check-config reports it.
 */
#include "ifmib.h"
#include "statctr.h"
#include "testutil.h"

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

/* ifmib_check() of @path fails with "PATH:@line: @setting: ...@what...". */
static void expect_refused(const char *path, int line, const char *setting, const char *what)
{
	struct statctr_config *cfg = load(path);
	char prefix[1024];
	const char *msg;

	snprintf(prefix, sizeof(prefix), "%s:%d: %s: ", path, line, setting);
	CU_ASSERT_EQUAL(ifmib_check(cfg), -EINVAL);
	msg = statctr_errmsg();
	CU_ASSERT(strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, what));
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fprintf(stderr, "\n  expected: %s...%s\n  got:      %s\n", prefix, what, msg);
	statctr_config_free(cfg);
}

#define IFTABLE               "rows = [ \"p0\", \"p1\" ]; standard = \"if-mib\";"
#define COUNTER(name, object) "{ name = \"" name "\"; kind = \"counter\"; ifmib = \"" object "\"; }"
#define GAUGE(name, object)   "{ name = \"" name "\"; kind = \"gauge\"; ifmib = \"" object "\"; }"

/* RFC 2863's column numbers, ascending per table, no object twice. */
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
	    "cols.conf", IFTABLE,
	    COUNTER("rx", "ifHCInOctets") ", { name = \"x\"; kind = \"counter\"; }, " GAUGE(
	        "oper", "ifOperStatus")));
	const struct statctr_table_decl *t = &cfg->segments[0].tables[0];
	int cols[64];

	CU_ASSERT_FATAL(ifmib_nobjects <= 64);
	CU_ASSERT_EQUAL(ifmib_check(cfg), 0);
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
	statctr_config_free(cfg);
	cfg = load(one_table("range.conf", "rows = 100; standard = \"if-mib\";",
	                     COUNTER("rx", "ifHCInOctets")));
	CU_ASSERT_EQUAL(ifmib_range(&cfg->segments[0].tables[0]), 400);
	statctr_config_free(cfg);
}

static void bad_mappings_refused_with_file_line(void)
{
	const char *col = "segments.[0].tables.[0].columns.[0].ifmib";

	expect_refused(one_table("unknown.conf", IFTABLE, COUNTER("rx", "ifHCInOctet")), 7, col,
	               "unknown IF-MIB object \"ifHCInOctet\"");
	expect_refused(one_table("derived.conf", IFTABLE, COUNTER("rx", "ifInOctets")), 7, col,
	               "unknown IF-MIB object \"ifInOctets\"");
	expect_refused(one_table("kind.conf", IFTABLE, GAUGE("rx", "ifHCInOctets")), 7, col,
	               "ifHCInOctets needs a counter column, rx is a gauge");
	expect_refused(one_table("kind2.conf", IFTABLE, COUNTER("sp", "ifHighSpeed")), 7, col,
	               "ifHighSpeed needs a gauge column, sp is a counter");
	expect_refused(one_table("kind3.conf", IFTABLE, GAUGE("e", "ifInErrors")), 7, col,
	               "needs a counter column");
	expect_refused(one_table("nostd.conf", "rows = 1;", COUNTER("rx", "ifHCInOctets")), 7, col,
	               "which is no IF-MIB table");
	expect_refused(one_table("twice.conf", IFTABLE,
	                         COUNTER("a", "ifHCInOctets") ", " COUNTER("b", "ifHCInOctets")),
	               7, "segments.[0].tables.[0].columns.[1].ifmib",
	               "ifHCInOctets is mapped twice (also column a)");
}

static void ranges_must_fit_and_not_overlap(void)
{
	struct statctr_config *cfg;
	char tables[1024];

	expect_refused(one_table("high.conf", IFTABLE " ifindex_base = 2147483600;",
	                         COUNTER("rx", "ifHCInOctets")),
	               5, "segments.[0].tables.[0].ifindex_base", "passes 2147483647");
	expect_refused(one_table("rows.conf", "rows = 257; standard = \"if-mib\";",
	                         COUNTER("rx", "ifHCInOctets")),
	               5, "segments.[0].tables.[0].rows",
	               "257 rows in IF-MIB table t, at most 256");
	cfg = load(one_table("top.conf", IFTABLE " ifindex_base = 2147483584;",
	                     COUNTER("rx", "ifHCInOctets")));
	CU_ASSERT_EQUAL(ifmib_check(cfg), 0); /* 2147483584 + 64 - 1 = 2^31 - 1 */
	statctr_config_free(cfg);
	snprintf(tables, sizeof(tables),
	         "segments = ( { name = \"s\"; slots = 1; tables = (\n"
	         "  { name = \"a\"; rows = 1; standard = \"if-mib\"; ifindex_base = 1000;\n"
	         "    columns = ( { name = \"c\"; kind = \"counter\"; } ); },\n"
	         "  { name = \"b\"; rows = 1; standard = \"if-mib\"; ifindex_base = 1063;\n"
	         "    columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); } );\n");
	expect_refused(tu_write_file("overlap.conf", tables), 4,
	               "segments.[0].tables.[1].ifindex_base",
	               "ifIndex range 1063..1126 of table b overlaps 1000..1063 of a");
	tables[strstr(tables, "1063") - tables + 3] = '4';
	cfg = load(tu_write_file("adjacent.conf", tables));
	CU_ASSERT_EQUAL(ifmib_check(cfg), 0);
	statctr_config_free(cfg);
}

static void shipped_config_is_valid(void)
{
	const char *srcdir = getenv("srcdir");
	struct statctr_config *cfg = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/conf/statctr.conf", srcdir ? srcdir : ".");
	CU_ASSERT_EQUAL_FATAL(statctr_config_load(path, &cfg), 0);
	CU_ASSERT_EQUAL(ifmib_check(cfg), 0);
	CU_ASSERT_PTR_NOT_NULL(cfg->segments[0].tables[0].ifmib);
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
	    {"bad_mappings_refused_with_file_line", bad_mappings_refused_with_file_line},
	    {"ranges_must_fit_and_not_overlap", ranges_must_fit_and_not_overlap},
	    {"shipped_config_is_valid", shipped_config_is_valid},
	    {NULL, NULL},
	};

	return tu_run("ifmib", cases);
}
