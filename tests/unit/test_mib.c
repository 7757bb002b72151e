/*
 * test_mib.c - mib/: the fixed-object table against mib/STATCTR-MIB.txt,
 * object by object and both ways; the notification table against the
 * NOTIFICATION-TYPEs of STATCTR-MIB and of mib/IF-MIB-notifications.excerpt,
 * both ways; the descriptors and generated text of a
 * histogram column; the agent group's key tables (and its v3_users')
 * against docs/config.md; the values settings_load() gives and what it
 * refuses.
 */
#include "gen.h"
#include "ifmib.h"
#include "names.h"
#include "notifications.h"
#include "objects.h"
#include "promnames.h"
#include "settings.h"
#include "statctr.h"
#include "testutil.h"

#include <ctype.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---- a reader of the MIB's OBJECT-TYPE and OBJECT IDENTIFIER nodes ---- */

#define MAX_NODES  128
#define MAX_TOKENS 16384

struct node {
	char name[64], parent[64];
	uint32_t arc;
	bool object_type, notification_type;
	char syntax[128], access[32];
	char objects[256]; /* a NOTIFICATION-TYPE's OBJECTS, space-separated */
};

static struct node nodes[MAX_NODES];
static size_t nnodes;
static char *tokens[MAX_TOKENS];
static size_t ntokens;
static char mib_text[256 * 1024];

static const char *top_srcdir(void)
{
	const char *dir = getenv("top_srcdir");

	if (dir == NULL)
		dir = getenv("srcdir");
	return dir ? dir : ".";
}

static size_t read_source(const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", top_srcdir(), rel);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	CU_ASSERT_FATAL(n < size - 1);
	buf[n] = '\0';
	return n;
}

/*
 * Splits @text into tokens at white space, with '{' and '}' tokens of their
 * own; quoted text (DESCRIPTIONs), "--" comments and commas do not count.
 */
static void tokenize(const char *text)
{
	static char spaced[3 * sizeof(mib_text)];
	bool quoted = false;
	size_t len = 0;
	char *save = NULL;

	for (const char *p = text; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		if (!quoted && p[0] == '-' && p[1] == '-')
			p += strcspn(p, "\n");
		if (*p == '\0')
			break;
		if (*p == '{' || *p == '}') {
			spaced[len++] = ' ';
			spaced[len++] = *p;
			spaced[len++] = ' ';
		} else {
			spaced[len++] = quoted || *p == '"' || *p == ',' ? ' ' : *p;
		}
	}
	spaced[len] = '\0';
	ntokens = 0;
	for (char *t = strtok_r(spaced, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		CU_ASSERT_FATAL(ntokens < MAX_TOKENS);
		tokens[ntokens++] = t;
	}
}

static bool is(size_t i, const char *word)
{
	return i < ntokens && strcmp(tokens[i], word) == 0;
}

/* "::= { parent arc }" at @i. */
static bool assignment(size_t i, struct node *n)
{
	if (!is(i, "::=") || !is(i + 1, "{") || !is(i + 4, "}"))
		return false;
	snprintf(n->parent, sizeof(n->parent), "%s", tokens[i + 2]);
	n->arc = (uint32_t)strtoul(tokens[i + 3], NULL, 10);
	return true;
}

/* An OBJECT-TYPE's clauses up to its "::=": SYNTAX (an enumeration as its base type), MAX-ACCESS.
 */
static void object_type(size_t i, struct node *n)
{
	for (; i < ntokens && !assignment(i, n); i++) {
		if (is(i, "MAX-ACCESS"))
			snprintf(n->access, sizeof(n->access), "%s", tokens[i + 1]);
		if (!is(i, "SYNTAX"))
			continue;
		for (size_t k = i + 1;
		     k < ntokens && !is(k, "UNITS") && !is(k, "MAX-ACCESS") && !is(k, "{"); k++) {
			size_t len = strlen(n->syntax);

			snprintf(n->syntax + len, sizeof(n->syntax) - len, "%s%s", len ? " " : "",
			         tokens[k]);
		}
	}
}

/* A NOTIFICATION-TYPE's clauses up to its "::=": the descriptors of its OBJECTS clause. */
static void notification_type(size_t i, struct node *n)
{
	n->notification_type = true;
	for (; i < ntokens && !assignment(i, n); i++) {
		if (!is(i, "OBJECTS") || !is(i + 1, "{"))
			continue;
		for (size_t k = i + 2; k < ntokens && !is(k, "}"); k++) {
			size_t len = strlen(n->objects);

			snprintf(n->objects + len, sizeof(n->objects) - len, "%s%s", len ? " " : "",
			         tokens[k]);
		}
	}
}

static bool mib_loaded; /* nodes[] holds STATCTR-MIB's (else another module's) */

/* Every node of the module text in mib_text into nodes[]. */
static void parse_nodes(void)
{
	nnodes = 0;
	tokenize(mib_text);
	for (size_t i = 0; i + 1 < ntokens; i++) {
		struct node n = {0};

		if (!islower((unsigned char)tokens[i][0]))
			continue;
		snprintf(n.name, sizeof(n.name), "%s", tokens[i]);
		if (is(i + 1, "OBJECT-TYPE")) {
			n.object_type = true;
			object_type(i + 2, &n);
		} else if (is(i + 1, "OBJECT") && is(i + 2, "IDENTIFIER")) {
			assignment(i + 3, &n);
		} else if (is(i + 1, "NOTIFICATION-TYPE")) {
			notification_type(i + 2, &n);
		} else if (is(i + 1, "MODULE-IDENTITY") || is(i + 1, "OBJECT-IDENTITY")) {
			for (size_t k = i + 2; k < ntokens && !assignment(k, &n); k++)
				;
		} else {
			continue;
		}
		CU_ASSERT_FATAL(nnodes < MAX_NODES);
		nodes[nnodes++] = n;
	}
}

/* The nodes of the MIB text in file @rel of the source tree. */
static void load_text(const char *rel)
{
	read_source(rel, mib_text, sizeof(mib_text));
	mib_loaded = false;
	parse_nodes();
}

static void load_mib(void)
{
	if (mib_loaded)
		return;
	load_text("mib/STATCTR-MIB.txt");
	mib_loaded = true;
}

static const struct node *find_node(const char *name)
{
	for (size_t i = 0; i < nnodes; i++)
		if (strcmp(nodes[i].name, name) == 0)
			return &nodes[i];
	return NULL;
}

/* Whether @n lies below statctrObjects. */
static bool under_objects(const struct node *n)
{
	for (int depth = 0; n && depth < 16; depth++) {
		if (strcmp(n->parent, "statctrObjects") == 0)
			return true;
		n = find_node(n->parent);
	}
	return false;
}

static const char *access_name(enum mib_access access)
{
	static const char *const names[] = {"not-accessible", "read-only", "read-write",
	                                    "accessible-for-notify"};

	return names[access];
}

static void expect_node(const char *name, const char *parent, uint32_t arc, const char *syntax,
                        const char *access)
{
	const struct node *n = find_node(name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	if (strcmp(n->parent, parent) != 0 || n->arc != arc ||
	    (syntax && strcmp(n->syntax, syntax) != 0) ||
	    (access && strcmp(n->access, access) != 0))
		fprintf(stderr, "\n%s: MIB { %s %u } %s %s, table { %s %u } %s %s\n", name,
		        n->parent, n->arc, n->syntax, n->access, parent, arc, syntax ? syntax : "",
		        access ? access : "");
	CU_ASSERT_STRING_EQUAL(n->parent, parent);
	CU_ASSERT_EQUAL(n->arc, arc);
	if (syntax) {
		CU_ASSERT_TRUE(n->object_type);
		CU_ASSERT_STRING_EQUAL(n->syntax, syntax);
	}
	if (access)
		CU_ASSERT_STRING_EQUAL(n->access, access);
}

/* ---- the fixed objects ------------------------------------------------ */

static void layout_nodes_match_the_mib(void)
{
	const struct node *root;
	const char *last_arc = strrchr(MIB_ROOT_DEFAULT, '.') + 1;

	load_mib();
	expect_node("statctrObjects", "statctrMIB", MIB_ARC_OBJECTS, NULL, NULL);
	expect_node("statctrConformance", "statctrMIB", MIB_ARC_CONFORMANCE, NULL, NULL);
	expect_node("statctrData", "statctrMIB", MIB_ARC_DATA, NULL, NULL);
	expect_node("statctrHistograms", "statctrMIB", MIB_ARC_HISTOGRAMS, NULL, NULL);
	expect_node("statctrAgent", "statctrObjects", MIB_ARC_AGENT, NULL, NULL);
	expect_node("statctrNotifications", "statctrMIB", MIB_ARC_NOTIFICATIONS, NULL, NULL);
	expect_node("statctrSegmentStateChange", "statctrNotifications", MIB_NOTIFY_SEGMENT_STATE,
	            NULL, NULL);
	expect_node("statctrWriterRestart", "statctrNotifications", MIB_NOTIFY_WRITER_RESTART, NULL,
	            NULL);
	expect_node("statctrResetDone", "statctrNotifications", MIB_NOTIFY_RESET_DONE, NULL, NULL);
	root = find_node("statctrMIB");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(root->parent, "netSnmpPlaypen");
	CU_ASSERT_EQUAL(root->arc, strtoul(last_arc, NULL, 10));
}

static void every_table_row_is_in_the_mib(void)
{
	load_mib();
	for (size_t i = 0; i < MIB_NOBJECTS; i++) {
		const struct mib_object *o = &mib_objects[i];

		expect_node(o->descriptor, mib_spaces[o->space].parent, o->arc, o->syntax,
		            access_name(o->access));
	}
	for (size_t s = 0; s < MIB_NSPACES; s++) {
		const struct mib_space_nodes *sp = &mib_spaces[s];
		char entry_type[64], table_type[80];

		if (sp->table == NULL)
			continue;
		snprintf(entry_type, sizeof(entry_type), "%c%s",
		         toupper((unsigned char)sp->entry[0]), sp->entry + 1);
		snprintf(table_type, sizeof(table_type), "SEQUENCE OF %s", entry_type);
		expect_node(sp->table, "statctrObjects", sp->arc, table_type, "not-accessible");
		expect_node(sp->entry, sp->table, MIB_ARC_ENTRY, entry_type, "not-accessible");
	}
}

static bool in_tables(const char *name)
{
	for (size_t i = 0; i < MIB_NOBJECTS; i++)
		if (strcmp(mib_objects[i].descriptor, name) == 0)
			return true;
	for (size_t s = 0; s < MIB_NSPACES; s++)
		if (mib_spaces[s].table && (strcmp(mib_spaces[s].table, name) == 0 ||
		                            strcmp(mib_spaces[s].entry, name) == 0))
			return true;
	return false;
}

static void every_mib_object_is_in_the_table(void)
{
	size_t found = 0;

	load_mib();
	for (size_t i = 0; i < nnodes; i++) {
		if (!nodes[i].object_type || !under_objects(&nodes[i]))
			continue;
		if (!in_tables(nodes[i].name))
			fprintf(stderr, "\n%s is in the MIB, not in MIB_FIXED_OBJECTS\n",
			        nodes[i].name);
		CU_ASSERT_TRUE(in_tables(nodes[i].name));
		found++;
	}
	/* Every row, every table and every entry; 51 objects in STATCTR-MIB today. */
	CU_ASSERT_EQUAL(found, MIB_NOBJECTS + 2 * (MIB_NSPACES - 1));
	CU_ASSERT_EQUAL(MIB_NOBJECTS, 51);
}

/* The agent's regions bisect over the rows: they must be in OID order. */
static void table_is_in_oid_order(void)
{
	uint32_t prev[3] = {0, 0, 0}, cur[3];
	size_t prev_len = 0;

	for (size_t i = 0; i < MIB_NOBJECTS; i++) {
		size_t len = mib_object_oid(&mib_objects[i], cur), k = 0;

		while (k < len && k < prev_len && cur[k] == prev[k])
			k++;
		CU_ASSERT_TRUE(i == 0 || (k < len && (k == prev_len || cur[k] > prev[k])));
		memcpy(prev, cur, sizeof(prev));
		prev_len = len;
	}
	CU_ASSERT_EQUAL(mib_object_oid(&mib_objects[MIB_VERSION], cur), 2);
	CU_ASSERT_EQUAL(cur[0], MIB_ARC_AGENT);
	CU_ASSERT_EQUAL(cur[1], 1);
	CU_ASSERT_EQUAL(mib_object_oid(&mib_objects[MIB_SLOT_GAUGE_DELTA], cur), 3);
	CU_ASSERT_EQUAL(cur[0], 4);
	CU_ASSERT_EQUAL(cur[1], MIB_ARC_ENTRY);
	CU_ASSERT_EQUAL(cur[2], 3);
}

/* statctrCellKind serves enum statctr_kind as it is: its enumeration names every kind. */
static void cell_kinds_are_the_library_kinds(void)
{
	const char *kind, *end;
	char want[64];

	load_mib();
	kind = strstr(mib_text, "statctrCellKind OBJECT-TYPE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(kind);
	end = strstr(kind, "MAX-ACCESS");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	snprintf(want, sizeof(want), "INTEGER { counter(%d), gauge(%d), histogram(%d) }",
	         STATCTR_KIND_COUNTER, STATCTR_KIND_GAUGE, STATCTR_KIND_HISTOGRAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(kind, want));
	CU_ASSERT_TRUE(strstr(kind, want) < end);
}

static void root_anchors(void)
{
	const char *below = NULL;

	CU_ASSERT_STRING_EQUAL(mib_root_anchor("1.3.6.1.4.1.99999.1", &below), "enterprises");
	CU_ASSERT_STRING_EQUAL(below, "99999.1");
	CU_ASSERT_STRING_EQUAL(mib_root_anchor("1.3.6.1.2.1.7", &below), "mib-2");
	CU_ASSERT_STRING_EQUAL(mib_root_anchor("1.3.6.1.5", &below), "internet");
	CU_ASSERT_STRING_EQUAL(below, "5");
	CU_ASSERT_STRING_EQUAL(mib_root_anchor("1.3.6.1.4.1", &below), "private");
	CU_ASSERT_PTR_NULL(mib_root_anchor("1.3.6.1", &below));
	CU_ASSERT_PTR_NULL(mib_root_anchor("1.3.6.10.1", &below));
	CU_ASSERT_PTR_NULL(mib_root_anchor("2.25.1", &below));
}

/* ---- the notifications ------------------------------------------------ */

/* The descriptor of a notification's object, or NULL when the table names none. */
static const char *object_descriptor(const struct mib_notify_object *o)
{
	if (o->module == MIB_NOTIFY_STATCTR_MIB)
		return o->id < MIB_NOBJECTS ? mib_objects[o->id].descriptor : NULL;
	for (uint32_t k = 0; k < ifmib_nobjects; k++)
		if (ifmib_objects[k].entry == IFMIB_IF_TABLE && ifmib_objects[k].column == o->id)
			return ifmib_objects[k].name;
	return NULL;
}

/* @n's objects as an OBJECTS clause lists them, space-separated. */
static void table_objects(const struct mib_notification *n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	CU_ASSERT_FATAL(n->nobjects <= MIB_NOTIFY_MAX_OBJECTS);
	for (uint32_t i = 0; i < n->nobjects; i++) {
		const char *name = object_descriptor(&n->objects[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(name);
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", name);
		CU_ASSERT_FATAL(len < size);
	}
}

static bool in_notification_table(const char *name)
{
	for (size_t i = 0; i < MIB_NNOTIFICATIONS; i++)
		if (strcmp(mib_notifications[i].descriptor, name) == 0)
			return true;
	return false;
}

/*
 * @module's rows of mib_notifications[] against the NOTIFICATION-TYPEs of
 * the MIB text in nodes[], both ways: each under @parent at its arc, with
 * its OBJECTS clause's objects in its order.
 */
static void expect_notifications(enum mib_notify_module module, const char *parent)
{
	size_t rows = 0, found = 0;

	for (size_t i = 0; i < MIB_NNOTIFICATIONS; i++) {
		const struct mib_notification *n = &mib_notifications[i];
		const struct node *node;
		char want[256];

		if (n->module != module)
			continue;
		rows++;
		expect_node(n->descriptor, parent, n->arc, NULL, NULL);
		node = find_node(n->descriptor);
		if (node == NULL) /* expect_node() failed already */
			continue;
		table_objects(n, want, sizeof(want));
		if (strcmp(node->objects, want) != 0)
			fprintf(stderr, "\n%s: MIB OBJECTS { %s }, table { %s }\n", n->descriptor,
			        node->objects, want);
		CU_ASSERT_TRUE(node->notification_type);
		CU_ASSERT_STRING_EQUAL(node->objects, want);
	}
	for (size_t i = 0; i < nnodes; i++) {
		if (!nodes[i].notification_type)
			continue;
		if (!in_notification_table(nodes[i].name))
			fprintf(stderr, "\n%s is in the MIB, not in mib_notifications[]\n",
			        nodes[i].name);
		CU_ASSERT_TRUE(in_notification_table(nodes[i].name));
		found++;
	}
	CU_ASSERT_EQUAL(found, rows);
}

static void statctr_notifications_are_the_mib_text(void)
{
	load_mib();
	expect_notifications(MIB_NOTIFY_STATCTR_MIB, "statctrNotifications");
	/* The agent gives each object its instance: a segment's row, or a scalar's .0. */
	for (size_t i = 0; i < MIB_NNOTIFICATIONS; i++)
		for (uint32_t k = 0; k < mib_notifications[i].nobjects; k++) {
			const struct mib_notify_object *o = &mib_notifications[i].objects[k];

			if (o->module == MIB_NOTIFY_STATCTR_MIB)
				CU_ASSERT_TRUE(mib_objects[o->id].space == MIB_SPACE_SEGMENT ||
				               mib_objects[o->id].space == MIB_SPACE_AGENT);
		}
	/* Three in STATCTR-MIB today, besides linkDown and linkUp. */
	CU_ASSERT_EQUAL(MIB_NNOTIFICATIONS, 5);
}

/* The OID of node @name, its parents resolved up to SNMPv2-SMI's internet, 1.3.6.1. */
static size_t resolve_oid(const char *name, uint32_t *arcs, size_t max)
{
	static const uint32_t internet[] = {1, 3, 6, 1};
	uint32_t below[MIB_MAX_OID_ARCS];
	size_t n = 0, len = 0;

	while (strcmp(name, "internet") != 0) {
		const struct node *node = find_node(name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(node);
		CU_ASSERT_FATAL(n < MIB_MAX_OID_ARCS);
		below[n++] = node->arc;
		name = node->parent;
	}
	CU_ASSERT_FATAL(4 + n <= max);
	for (size_t i = 0; i < 4; i++)
		arcs[len++] = internet[i];
	while (n)
		arcs[len++] = below[--n];
	return len;
}

static void standard_notifications_are_the_mib_text(void)
{
	uint32_t arcs[MIB_MAX_OID_ARCS];
	size_t len;

	load_text("mib/IF-MIB-notifications.excerpt");
	expect_notifications(MIB_NOTIFY_IF_MIB, "snmpTraps");
	len = resolve_oid("snmpTraps", arcs, MIB_MAX_OID_ARCS);
	CU_ASSERT_EQUAL(len, MIB_SNMP_TRAPS_LEN);
	CU_ASSERT_EQUAL(memcmp(arcs, mib_snmp_traps, sizeof(mib_snmp_traps)), 0);
	/* snmpTrapOID.0: the scalar's instance. */
	len = resolve_oid("snmpTrapOID", arcs, MIB_MAX_OID_ARCS);
	arcs[len++] = 0;
	CU_ASSERT_EQUAL(len, MIB_SNMP_TRAP_OID_LEN);
	CU_ASSERT_EQUAL(memcmp(arcs, mib_snmp_trap_oid, sizeof(mib_snmp_trap_oid)), 0);
	expect_node("snmpTrapOID", "snmpTrap", 1, "OBJECT IDENTIFIER", "accessible-for-notify");
	nnodes = 0;
}

/* ---- histogram columns ------------------------------------------------- */

static const char hist_conf[] =
    "segments = ( { name = \"s\"; oid = 4; tables = ( { name = \"t\"; oid = 2; rows = 2;\n"
    "  columns = ( { name = \"c\"; kind = \"counter\"; },\n"
    "    { name = \"lat\"; kind = \"histogram\"; units = \"us\"; buckets = [ 1, 10 ]; },\n"
    "    { name = \"a_histogram_column_with_a_name_long_enough_to_be_cut_short\";\n"
    "      kind = \"histogram\"; buckets = [ 5 ]; } ); } ); } );\n";

static struct statctr_config *load_hist_conf(void)
{
	struct statctr_config *cfg = NULL;

	if (statctr_config_load(tu_write_file("hist.conf", hist_conf), &cfg) != 0)
		fprintf(stderr, "\n%s\n", statctr_errmsg());
	return cfg;
}

/* Every descriptor of one histogram: valid SMI, at most 64 characters, the suffix kept. */
static void expect_hist_names(const struct mib_hist_names *h, const char *prefix)
{
	const char *const got[] = {
	    h->node,         h->bucket_table,  h->bucket_entry,  h->bucket_index, h->bucket_bound,
	    h->bucket_count, h->summary_table, h->summary_entry, h->count,        h->sum};
	static const char *const suffixes[] = {
	    "Histogram",   "BucketTable",  "BucketEntry",  "BucketIndex", "BucketBound",
	    "BucketCount", "SummaryTable", "SummaryEntry", "Count",       "Sum"};

	for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
		size_t len, slen = strlen(suffixes[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
		len = strlen(got[i]);
		CU_ASSERT_TRUE(len <= 64);
		CU_ASSERT_TRUE(islower((unsigned char)got[i][0]));
		CU_ASSERT_TRUE(len > slen && strcmp(got[i] + len - slen, suffixes[i]) == 0);
		CU_ASSERT_EQUAL(strncmp(got[i], prefix, strlen(prefix)), 0);
		for (size_t k = 0; k < len; k++)
			CU_ASSERT_TRUE(isascii((unsigned char)got[i][k]) &&
			               isalnum((unsigned char)got[i][k]));
	}
}

static void histogram_names(void)
{
	struct statctr_config *cfg = load_hist_conf();
	struct mib_module_names n;
	const struct mib_table_names *t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_TRUE_FATAL(mib_module_names_init(&n, cfg));
	t = &n.segs[0].tables[0];
	CU_ASSERT_STRING_EQUAL(n.segs[0].hist_node, "sSegmentHistograms");
	CU_ASSERT_STRING_EQUAL(t->hist_node, "sTHistograms");
	CU_ASSERT_PTR_NULL(t->hists[0].node); /* a counter has none */
	CU_ASSERT_STRING_EQUAL(t->hists[1].node, "sTLatHistogram");
	CU_ASSERT_STRING_EQUAL(t->hists[1].bucket_table, "sTLatBucketTable");
	CU_ASSERT_STRING_EQUAL(t->hists[1].bucket_count, "sTLatBucketCount");
	CU_ASSERT_STRING_EQUAL(t->hists[1].summary_entry, "sTLatSummaryEntry");
	CU_ASSERT_STRING_EQUAL(t->hists[1].sum, "sTLatSum");
	expect_hist_names(&t->hists[1], "sTLat");
	expect_hist_names(&t->hists[2], "sTAHistogramColumn");
	/* The declared column keeps the name it has without histograms. */
	CU_ASSERT_STRING_EQUAL(t->columns[1], "sTLat");
	mib_module_names_free(&n, cfg);
	statctr_config_free(cfg);
}

/* The generated text of a histogram: its nodes, INDEX, AUGMENTS and group. */
static void histogram_module_text(void)
{
	struct statctr_config *cfg = load_hist_conf();
	struct mib_settings set = {NULL, (char *)MIB_ROOT_DEFAULT};
	static const char *const lines[] = {
	    "    statctrData, statctrHistograms, StatctrResetAction\n        FROM STATCTR-MIB;",
	    "sSegmentHistograms OBJECT IDENTIFIER ::= { statctrHistograms 4 }",
	    "sTHistograms OBJECT IDENTIFIER ::= { sSegmentHistograms 2 }",
	    "sTLatHistogram OBJECT IDENTIFIER ::= { sTHistograms 11 }",
	    "    ::= { sTLatHistogram 1 }",
	    "    INDEX       { sTRowIndex, sTLatBucketIndex }\n    ::= { sTLatBucketTable 1 }",
	    "    SYNTAX      Unsigned32 (1..65)",
	    "    ::= { sTLatBucketEntry 3 }",
	    "    ::= { sTLatHistogram 2 }",
	    "    AUGMENTS    { sTEntry }\n    ::= { sTLatSummaryTable 1 }",
	    "    UNITS       \"us\"\n    MAX-ACCESS  read-only\n    STATUS      current\n",
	    "    ::= { sTLatSummaryEntry 2 }",
	    "              sTLatBucketBound,\n              sTLatBucketCount,\n"
	    "              sTLatCount,\n              sTLatSum",
	};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(mib_generate(out, cfg, &set, 1700000000), 0);
	fclose(out);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (!strstr(text, lines[i]))
			fprintf(stderr, "\nnot generated: %s\n", lines[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, lines[i]));
	}
	/* The declared column is a Counter64 without the histogram's units. */
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "sTLat OBJECT-TYPE\n    SYNTAX      Counter64\n    MAX-ACCESS"));
	free(text);
	statctr_config_free(cfg);
}

/* ---- the generated tables against oids.h's tables, both ways ----------- */

/* A declared column of a generated entry: descriptor, arc, syntax. */
struct declared {
	const char *name;
	uint32_t arc;
	const char *syntax;
};

/*
 * The children of @entry in the parsed module are exactly @cols (named
 * @prefix and the suffix, at the arc, syntax and access of the table; a
 * declared table's row index with its range) and @decl.
 */
static void expect_entry(const char *entry, const char *prefix, const struct mib_column *cols,
                         size_t ncols, const struct declared *decl, size_t ndecl)
{
	size_t children = 0;
	char name[128], syntax[160];

	for (size_t i = 0; i < ncols; i++) {
		const struct node *n;

		snprintf(name, sizeof(name), "%s%s", prefix, cols[i].suffix);
		n = find_node(name);
		if (!n)
			fprintf(stderr, "\n%s: not in the generated module\n", name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		snprintf(syntax, sizeof(syntax), "%s", cols[i].syntax);
		/* A row index's range is the table's, a by-name key's size the root's. */
		if (strcmp(cols[i].suffix, "RowIndex") == 0 ||
		    strcmp(cols[i].suffix, "ByNameKey") == 0)
			snprintf(syntax, sizeof(syntax), "%s", n->syntax);
		CU_ASSERT_EQUAL(strncmp(n->syntax, cols[i].syntax, strlen(cols[i].syntax)), 0);
		expect_node(name, entry, cols[i].arc, syntax, mib_access_text(cols[i].access));
	}
	for (size_t i = 0; i < ndecl; i++)
		expect_node(decl[i].name, entry, decl[i].arc, decl[i].syntax, "read-only");
	for (size_t i = 0; i < nnodes; i++) {
		bool known = false;

		if (strcmp(nodes[i].parent, entry) != 0)
			continue;
		children++;
		for (size_t k = 0; k < ncols; k++) {
			snprintf(name, sizeof(name), "%s%s", prefix, cols[k].suffix);
			known |= strcmp(nodes[i].name, name) == 0;
		}
		for (size_t k = 0; k < ndecl; k++)
			known |= strcmp(nodes[i].name, decl[k].name) == 0;
		if (!known)
			fprintf(stderr, "\n%s in %s: in no table of oids.h\n", nodes[i].name,
			        entry);
		CU_ASSERT_TRUE(known);
	}
	CU_ASSERT_EQUAL(children, ncols + ndecl);
}

/*
 * A module with every generated table kind (a dynamic table with a counter,
 * a gauge and a histogram, in a segment with epochs) has exactly the
 * columns MIB_DATA_OBJECTS, MIB_HIST_*_OBJECTS, MIB_INTERVAL_OBJECTS and
 * MIB_BYNAME_OBJECTS say, and the declared ones, as its text states them.
 */
static void generated_tables_are_the_tables_both_ways(void)
{
	static const char conf[] =
	    "segments = ( { name = \"s\"; epochs = { keep = 4; }; tables = ( { name = \"t\";\n"
	    "  rows = { max = 4; }; columns = ( { name = \"c\"; kind = \"counter\"; },\n"
	    "  { name = \"g\"; kind = \"gauge\"; },\n"
	    "  { name = \"lat\"; kind = \"histogram\"; buckets = [ 1, 2 ]; } ); } ); } );\n";
	static const struct declared data[] = {
	    {"sTC", 10, "Counter64"}, {"sTG", 11, "Gauge32"}, {"sTLat", 12, "Counter64"}};
	static const struct declared intervals[] = {{"sTCInterval", 10, "Counter64"},
	                                            {"sTLatInterval", 12, "Counter64"}};
	static const struct declared by_name[] = {{"sTByNameC", 10, "Counter64"},
	                                          {"sTByNameG", 11, "Gauge32"},
	                                          {"sTByNameLat", 12, "Counter64"}};
	struct mib_settings set = {NULL, (char *)MIB_ROOT_DEFAULT};
	struct statctr_config *cfg = NULL;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	CU_ASSERT_EQUAL_FATAL(statctr_config_load(tu_write_file("all.conf", conf), &cfg), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(mib_generate(out, cfg, &set, 1700000000), 0);
	fclose(out);
	CU_ASSERT_FATAL(size < sizeof(mib_text));
	memcpy(mib_text, text, size + 1);
	mib_loaded = false;
	parse_nodes();
	expect_entry("sTEntry", "sT", mib_data_columns, MIB_DATA_NCOLUMNS, data, 3);
	expect_entry("sTLatBucketEntry", "sTLat", mib_hist_bucket_columns, MIB_HIST_BUCKET_NCOLUMNS,
	             NULL, 0);
	expect_entry("sTLatSummaryEntry", "sTLat", mib_hist_summary_columns,
	             MIB_HIST_SUMMARY_NCOLUMNS, NULL, 0);
	expect_entry("sTLatIntervalBucketEntry", "sTLat", mib_hist_interval_columns,
	             MIB_HIST_INTERVAL_NCOLUMNS, NULL, 0);
	expect_entry("sTIntervalEntry", "sT", mib_interval_columns, MIB_INTERVAL_NCOLUMNS,
	             intervals, 2);
	expect_entry("sTByNameEntry", "sT", mib_byname_columns, MIB_BYNAME_NCOLUMNS, by_name, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(mib_text, "INDEX       { IMPLIED sTByNameKey }"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mib_text, "SYNTAX      DisplayString (SIZE (1..113))"));
	nnodes = 0;
	free(text);
	statctr_config_free(cfg);
}

/* ---- the agent group -------------------------------------------------- */

static const char segments[] = "segments = ( { name = \"s\"; tables = ( { name = \"t\"; rows = 1;\n"
                               "  columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); } );\n";

/* @agent and segments[] in a file of @mode; settings_load()'s return value. */
static int load_mode(const char *agent, mode_t mode, struct agent_settings **setp)
{
	static char text[16384];
	const char *path;

	snprintf(text, sizeof(text), "%s%s", agent, segments);
	path = tu_write_file("agent.conf", text);
	CU_ASSERT_EQUAL_FATAL(chmod(path, mode), 0);
	return settings_load(path, setp);
}

static struct agent_settings *load(const char *agent)
{
	struct agent_settings *set = NULL;

	if (load_mode(agent, 0600, &set) != 0)
		fprintf(stderr, "\n%s\n", statctr_errmsg());
	return set;
}

/* @agent is refused, with "agent.conf:@line: @what" in the message. */
static void refused(const char *agent, mode_t mode, int line, const char *what)
{
	struct agent_settings *set = (struct agent_settings *)&set;
	char want[512];

	snprintf(want, sizeof(want), "agent.conf:%d: %s", line, what);
	CU_ASSERT_EQUAL(load_mode(agent, mode, &set), -EINVAL);
	CU_ASSERT_PTR_NULL(set);
	if (!strstr(statctr_errmsg(), want))
		fprintf(stderr, "\n  want \"%s\"\n  got  \"%s\"\n", want, statctr_errmsg());
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), want));
}

static void defaults_are_the_tables(void)
{
	struct agent_settings *set = load("");

	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL(set->interval_ms, 1000);
	CU_ASSERT_STRING_EQUAL(set->master, SETTINGS_DEFAULT_MASTER);
	CU_ASSERT_EQUAL(set->ping_interval, 1);
	CU_ASSERT_FALSE(set->allow_reset);
	CU_ASSERT_STRING_EQUAL(set->root_oid, MIB_ROOT_DEFAULT);
	CU_ASSERT_EQUAL(set->root_len, 10);
	CU_ASSERT_EQUAL(set->root[9], 4242);
	CU_ASSERT_STRING_EQUAL(set->community, "public");
	CU_ASSERT_PTR_NULL(set->write_community);
	CU_ASSERT_PTR_NULL(set->module);
	CU_ASSERT_EQUAL(set->segment_owner, (uid_t)-1);
	CU_ASSERT_PTR_NULL(set->state_file);
	CU_ASSERT_PTR_NULL(set->v3_users);
	CU_ASSERT_EQUAL(set->nv3_users, 0);
	CU_ASSERT_PTR_NULL(set->engine_id);
	CU_ASSERT_PTR_NULL(set->engine_boots_file);
	CU_ASSERT_PTR_NULL(set->sys_contact);
	CU_ASSERT_PTR_NULL(set->sys_name);
	CU_ASSERT_PTR_NULL(set->sys_location);
	CU_ASSERT_EQUAL(set->cfg->nsegments, 1);
	settings_free(set);
}

static void values_as_written(void)
{
	struct agent_settings *set =
	    load("agent = { interval_ms = 10; ping_interval = 3600; allow_reset = true;\n"
	         "  root_oid = \".1.3.6.1.4.1.0099.4294967295\"; write_community = \"rw\";\n"
	         "  mib_module = \"APP-COUNTERS-MIB\"; segment_owner = 4294967294;\n"
	         "  state_file = \"/var/lib/statctr/state\"; master = \"tcp:127.0.0.1:705\"; };\n");

	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL(set->interval_ms, 10);
	CU_ASSERT_EQUAL(set->ping_interval, 3600);
	CU_ASSERT_TRUE(set->allow_reset);
	CU_ASSERT_STRING_EQUAL(set->root_oid, "1.3.6.1.4.1.99.4294967295"); /* canonical */
	CU_ASSERT_EQUAL(set->root_len, 8);
	CU_ASSERT_EQUAL(set->root[6], 99);
	CU_ASSERT_EQUAL(set->root[7], 4294967295u);
	CU_ASSERT_STRING_EQUAL(set->write_community, "rw");
	CU_ASSERT_STRING_EQUAL(set->module, "APP-COUNTERS-MIB");
	CU_ASSERT_EQUAL(set->segment_owner, (uid_t)4294967294u);
	CU_ASSERT_STRING_EQUAL(set->state_file, "/var/lib/statctr/state");
	CU_ASSERT_STRING_EQUAL(set->master, "tcp:127.0.0.1:705");
	settings_free(set);
	set = load("agent = { segment_owner = \"root\"; };\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL(set->segment_owner, 0);
	settings_free(set);
}

#define BOOTS "  engine_boots_file = \"/var/lib/statctr/engine-boots\";\n"
#define OPS                                                                                        \
	"{ name = \"ops\"; auth = \"SHA-512\"; auth_pass = \"12345678\"; priv = \"AES-256\";\n"    \
	"    priv_pass = \"p-a-s-s-w-o-r-d\"; access = \"reset\"; }"

static void v3_users_as_written(void)
{
	struct agent_settings *set =
	    load("agent = {\n" BOOTS "  v3_users = ( " OPS ",\n"
	         "    { name = \"mon\"; auth_pass = \"monitor-auth\"; priv_pass = "
	         "\"monitor-priv\"; } );\n"
	         "  engine_id = \"edge-7\"; sys_contact = \"ops <ops@example.net>\";\n"
	         "  sys_name = \"edge-7\"; sys_location = \"Rack 4, Room 2\"; };\n");

	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL_FATAL(set->nv3_users, 2);
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].name, "ops");
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].auth, "SHA-512");
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].auth_pass, "12345678");
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].priv, "AES-256");
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].priv_pass, "p-a-s-s-w-o-r-d");
	CU_ASSERT_STRING_EQUAL(set->v3_users[0].access, "reset");
	/* The defaults of a user group: SHA-256, AES, read. */
	CU_ASSERT_STRING_EQUAL(set->v3_users[1].name, "mon");
	CU_ASSERT_STRING_EQUAL(set->v3_users[1].auth, "SHA-256");
	CU_ASSERT_STRING_EQUAL(set->v3_users[1].priv, "AES");
	CU_ASSERT_STRING_EQUAL(set->v3_users[1].access, "read");
	/* SNMPv3 users and no community said: none, not "public". */
	CU_ASSERT_PTR_NULL(set->community);
	CU_ASSERT_STRING_EQUAL(set->engine_id, "edge-7");
	CU_ASSERT_STRING_EQUAL(set->engine_boots_file, "/var/lib/statctr/engine-boots");
	CU_ASSERT_STRING_EQUAL(set->sys_contact, "ops <ops@example.net>");
	CU_ASSERT_STRING_EQUAL(set->sys_name, "edge-7");
	CU_ASSERT_STRING_EQUAL(set->sys_location, "Rack 4, Room 2");
	settings_free(set);

	/* A community said is kept beside the users; group-readable is the operator's call. */
	CU_ASSERT_EQUAL(load_mode("agent = {\n" BOOTS "  v3_users = ( " OPS " );\n"
	                          "  community = \"mon\"; };\n",
	                          0640, &set),
	                0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_STRING_EQUAL(set->community, "mon");
	settings_free(set);
	/* An empty list is no users: the default community stays. */
	set = load("agent = { v3_users = (); };\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL(set->nv3_users, 0);
	CU_ASSERT_STRING_EQUAL(set->community, "public");
	settings_free(set);
}

#define USER_WITH(keys)                                                                            \
	"agent = {\n" BOOTS "  v3_users = ( { name = \"u\"; auth_pass = \"12345678\";\n"           \
	"    priv_pass = \"12345678\"; " keys " } );\n};\n"

static void v3_users_refused(void)
{
	char many[8192];
	size_t len;

	refused(USER_WITH("auth = \"MD5\";"), 0600, 4,
	        "agent.v3_users.[0].auth: must be one of SHA, SHA-224, SHA-256, SHA-384, SHA-512");
	refused(USER_WITH("priv = \"DES\";"), 0600, 4,
	        "agent.v3_users.[0].priv: must be one of AES, AES-192, AES-256");
	refused(USER_WITH("access = \"write\";"), 0600, 4,
	        "agent.v3_users.[0].access: must be \"read\" or \"reset\"");
	refused(USER_WITH("authpass = \"x\";"), 0600, 4,
	        "agent.v3_users.[0].authpass: unknown setting (known: name, auth, auth_pass, priv, "
	        "priv_pass, access)");
	refused(USER_WITH("name = \"u\";"), 0600, 4, "duplicate setting name");
	refused("agent = {\n" BOOTS "  v3_users = ( { name = \"u\";\n auth_pass = \"1234567\";\n"
	        "  priv_pass = \"12345678\"; } );\n};\n",
	        0600, 4,
	        "agent.v3_users.[0].auth_pass: must be 8..255 printable ASCII characters without "
	        "spaces");
	refused("agent = {\n" BOOTS "  v3_users = ( { name = \"u\"; auth_pass = \"pass word\";\n"
	        "  priv_pass = \"12345678\"; } );\n};\n",
	        0600, 3, "agent.v3_users.[0].auth_pass: must be 8..255");
	refused("agent = {\n" BOOTS
	        "  v3_users = ( { name = \"123456789012345678901234567890123\";\n"
	        "  auth_pass = \"12345678\"; priv_pass = \"12345678\"; } );\n};\n",
	        0600, 3, "agent.v3_users.[0].name: must be 1..32");
	refused("agent = {\n" BOOTS
	        "  v3_users = (\n { name = \"u\"; priv_pass = \"12345678\"; } );\n};\n",
	        0600, 4, "agent.v3_users.[0]: auth_pass: missing (required)");
	refused("agent = {\n" BOOTS "  v3_users = ( " OPS ",\n " OPS " );\n};\n", 0600, 5,
	        "agent.v3_users.[1]: duplicate user name \"ops\" (also v3_users.[0])");
	refused("agent = {\n" BOOTS "  v3_users = { name = \"u\"; };\n};\n", 0600, 3,
	        "agent.v3_users: must be a list of groups");
	refused("agent = {\n" BOOTS "  v3_users = ( \"ops\" );\n};\n", 0600, 3,
	        "agent.v3_users.[0]: must be a group");
	/* The rules between keys: boots kept, passphrases out of every user's sight. */
	refused("agent = {\n  v3_users = ( " OPS " );\n};\n", 0600, 2,
	        "agent.v3_users: SNMPv3 users need agent.engine_boots_file");
	refused(
	    "agent = {\n" BOOTS "  v3_users = ( " OPS " );\n};\n", 0644, 3,
	    "agent.v3_users: passphrases in a file every user may read (mode 0644): chmod o-r ");
	len = (size_t)snprintf(many, sizeof(many), "agent = {\n" BOOTS "  v3_users = (\n");
	for (int i = 0; i < SETTINGS_MAX_V3_USERS + 1; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
		                        "%s{ name = \"u%d\"; auth_pass = \"12345678\"; "
		                        "priv_pass = \"12345678\"; }\n",
		                        i ? "," : "", i);
	snprintf(many + len, sizeof(many) - len, ");\n};\n");
	refused(many, 0600, 3, "agent.v3_users: 33 users, at most 32");
}

/* SnmpAdminString (SIZE (0..255)) for sys*, 27 characters of text for the engineID. */
static void identity_within_its_mib_sizes(void)
{
	char text[1024], value[300];
	struct agent_settings *set;

	memset(value, 'x', 255);
	value[255] = '\0';
	snprintf(text, sizeof(text),
	         "agent = { sys_location = \"%s\";\n engine_id = \"%.27s\"; };\n", value, value);
	set = load(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(set);
	CU_ASSERT_EQUAL(strlen(set->sys_location), 255);
	CU_ASSERT_EQUAL(strlen(set->engine_id), 27);
	settings_free(set);
	strcat(value, "x");
	snprintf(text, sizeof(text), "agent = {\n sys_contact = \"%s\"; };\n", value);
	refused(text, 0600, 2, "agent.sys_contact: must be 1..255 printable ASCII characters");
	refused("agent = {\n sys_name = \"\"; };\n", 0600, 2, "agent.sys_name: must be 1..255");
	refused("agent = {\n sys_name = \"caf\xc3\xa9\"; };\n", 0600, 2, "agent.sys_name: must be");
	/* What Net-SNMP would change: the spaces around a value, a leading '#'. */
	refused("agent = {\n sys_location = \" Rack 4\"; };\n", 0600, 2,
	        "agent.sys_location: must");
	refused("agent = {\n sys_location = \"Rack 4 \"; };\n", 0600, 2,
	        "agent.sys_location: must");
	refused("agent = {\n sys_contact = \"#ops\"; };\n", 0600, 2, "agent.sys_contact: must");
	refused("agent = {\n community = \"#pub\"; };\n", 0600, 2,
	        "agent.community: must be 1..255 printable ASCII characters without spaces, quotes "
	        "or backslashes, the first neither # nor -");
	/* Net-SNMP's createUser reads a first token "-e" as its engineID option. */
	refused("agent = {\n engine_boots_file = \"/nonexistent/b\";\n v3_users = ( { name = "
	        "\"-e\"; auth_pass = \"12345678\"; priv_pass = \"12345678\"; } ); };\n",
	        0600, 3, "agent.v3_users.[0].name: must be 1..32 printable");
	refused("agent = {\n community = \"-c\"; };\n", 0600, 2, "agent.community: must be");
	refused("agent = {\n engine_id = \"1234567890123456789012345678\"; };\n", 0600, 2,
	        "agent.engine_id: must be 1..27 printable ASCII characters without spaces");
}

/* ---- names unique where they land ------------------------------------- */

/* 150 objects folding to one descriptor, short and at the 64-character limit: all distinct. */
static void descriptors_never_repeat(void)
{
	static const char *const tables[] = {"t",
	                                     "t123456789012345678901234567890123456789012345678"};

	for (size_t k = 0; k < 2; k++) {
		struct mib_names reg = {.v = NULL};
		const char *got[150];

		for (size_t i = 0; i < 150; i++) {
			got[i] = mib_name(&reg, 3, "seg", tables[k], i % 2 ? "x-y" : "xY");
			CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
			CU_ASSERT_TRUE(strlen(got[i]) <= 64);
			for (size_t j = 0; j < i; j++)
				CU_ASSERT_NOT_EQUAL(strcasecmp(got[i], got[j]), 0);
		}
		CU_ASSERT_TRUE(reg.clashed);
		mib_names_free(&reg);
	}
}

/* A file of @columns (a column list's text) in one table t of segment s; settings_load()'s message.
 */
static const char *load_columns(const char *columns)
{
	static char text[4096];
	struct agent_settings *set = NULL;

	snprintf(text, sizeof(text),
	         "segments = ( { name = \"s\"; tables = ( { name = \"t\"; rows = 1;\n"
	         "  columns = (\n%s ); } ); } );\n",
	         columns);
	CU_ASSERT_EQUAL(settings_load(tu_write_file("names.conf", text), &set), -EINVAL);
	CU_ASSERT_PTR_NULL(set);
	return statctr_errmsg();
}

static void expect_in(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fprintf(stderr, "\n  want \"%s\"\n  got  \"%s\"\n", want, msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
}

static void colliding_names_refused(void)
{
	expect_in(
	    load_columns("{ name = \"rx-packets\"; kind = \"counter\"; },\n"
	                 "{ name = \"rxPackets\"; kind = \"counter\"; }"),
	    "names.conf:4: segments.[0].tables.[0].columns.[1]: SMI descriptor \"sTRxPackets\" "
	    "of column \"rxPackets\" of table \"t\" of segment \"s\" is also that of column "
	    "\"rx-packets\" of table \"t\" of segment \"s\" (");
	/* Distinct descriptors (sTA, sTAbySlot), one Prometheus name with --slots. */
	expect_in(load_columns("{ name = \"a\"; kind = \"counter\"; },\n"
	                       "{ name = \"a_by_slot\"; kind = \"counter\"; }"),
	          "names.conf:4: segments.[0].tables.[0].columns.[1]: Prometheus name "
	          "\"statctr_s_t_a_by_slot_total\" of column \"a_by_slot\"");
	expect_in(
	    load_columns("{ name = \"lat_count\"; kind = \"gauge\"; }"),
	    "names.conf:3: segments.[0].tables.[0].columns.[0]: Prometheus name "
	    "\"statctr_s_t_lat_count\" of column \"lat_count\": a gauge's name may not end in");
}

static void prom_names_by_kind(void)
{
	struct prom_column pc;

	CU_ASSERT_PTR_NULL(
	    prom_column_names(&pc, "data-plane", "ifStats", "rxPackets", STATCTR_KIND_COUNTER));
	CU_ASSERT_EQUAL(pc.n, 3);
	CU_ASSERT_STRING_EQUAL(pc.names[PROM_FAMILY],
	                       "statctr_data_plane_if_stats_rx_packets_total");
	CU_ASSERT_STRING_EQUAL(pc.names[PROM_BY_SLOT],
	                       "statctr_data_plane_if_stats_rx_packets_by_slot_total");
	CU_ASSERT_STRING_EQUAL(pc.names[PROM_CREATED],
	                       "statctr_data_plane_if_stats_rx_packets_created");
	CU_ASSERT_PTR_NULL(prom_column_names(&pc, "s", "t", "level", STATCTR_KIND_GAUGE));
	CU_ASSERT_EQUAL(pc.n, 2);
	CU_ASSERT_PTR_NULL(prom_column_names(&pc, "s", "t", "lat", STATCTR_KIND_HISTOGRAM));
	CU_ASSERT_EQUAL(pc.n, 4);
	CU_ASSERT_STRING_EQUAL(pc.names[PROM_COUNT], "statctr_s_t_lat_count");
	CU_ASSERT_PTR_NOT_NULL(prom_column_names(&pc, "s", "t", "x_total", STATCTR_KIND_GAUGE));
	CU_ASSERT_PTR_NULL(prom_column_names(&pc, "s", "t", "x_count", STATCTR_KIND_COUNTER));
}

static void refused_with_file_line_and_key(void)
{
	struct agent_settings *set = (struct agent_settings *)&set;

	CU_ASSERT_EQUAL(
	    settings_load(tu_write_file("bad.conf", "agent = {\n  ping_interval = 0;\n};\n"
	                                            "segments = ( { name = \"s\"; tables = "
	                                            "( { name = \"t\"; rows = 1; columns = ( "
	                                            "{ name = \"c\"; kind = \"counter\"; } "
	                                            "); } ); } );\n"),
	                  &set),
	    -EINVAL);
	CU_ASSERT_PTR_NULL(set);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(statctr_errmsg(), "bad.conf:2: agent.ping_interval: 0 is out of range 1..3600"));
}

/* ---- docs/config.md's table of the agent group ------------------------ */

/* Cell @col of the Markdown table row @line ("| a | b |"), trimmed of spaces and backticks. */
static void cell(const char *line, int col, char *out, size_t size)
{
	const char *p = line;
	size_t len;

	for (int i = 0; i < col && p; i++)
		p = strchr(p + 1, '|');
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p += strspn(p + 1, " `") + 1;
	len = strcspn(p, "|");
	while (len > 0 && strchr(" `", p[len - 1]))
		len--;
	snprintf(out, size, "%.*s", (int)len, p);
}

/* The Markdown table after @heading in @doc lists @keys, in order, with their types and defaults.
 */
static void docs_table_lists(const char *doc, const char *heading, const struct settings_key *keys,
                             size_t nkeys)
{
	const char *p = strstr(doc, heading);
	size_t k = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p = strstr(p, "\n|---");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (p = strchr(p + 1, '\n') + 1; p[0] == '|'; p = strchr(p, '\n') + 1, k++) {
		char key[64], type[64], dflt[128], want[128], rules[1024];
		const struct settings_key *sk = &keys[k];

		CU_ASSERT_FATAL(k < nkeys);
		cell(p, 0, key, sizeof(key));
		cell(p, 1, type, sizeof(type));
		cell(p, 2, dflt, sizeof(dflt));
		cell(p, 3, rules, sizeof(rules));
		CU_ASSERT_STRING_EQUAL(key, sk->key);
		CU_ASSERT_STRING_EQUAL(type, settings_type_name(sk->type));
		snprintf(want, sizeof(want),
		         sk->type == SETTINGS_STRING && sk->dflt ? "\"%s\"" : "%s",
		         sk->required ? "required"
		         : sk->dflt   ? sk->dflt
		                      : "none");
		CU_ASSERT_STRING_EQUAL(dflt, want);
		if (sk->type == SETTINGS_INTEGER || sk->type == SETTINGS_OWNER) {
			snprintf(want, sizeof(want), "%lld..%lld", sk->min, sk->max);
			CU_ASSERT_PTR_NOT_NULL(strstr(rules, want));
		}
	}
	CU_ASSERT_EQUAL(k, nkeys);
}

static void docs_table_is_the_key_table(void)
{
	static char doc[128 * 1024];

	read_source("docs/config.md", doc, sizeof(doc));
	docs_table_lists(doc, "\n## Agent group\n", settings_keys, settings_nkeys);
	docs_table_lists(doc, "\n### SNMPv3 users\n", settings_user_keys, settings_nuser_keys);
	docs_table_lists(doc, "\n### Trap sinks\n", settings_sink_keys, settings_nsink_keys);
	docs_table_lists(doc, "\n## Exporter group\n", settings_exporter_keys,
	                 settings_nexporter_keys);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"layout_nodes_match_the_mib", layout_nodes_match_the_mib},
	    {"every_table_row_is_in_the_mib", every_table_row_is_in_the_mib},
	    {"every_mib_object_is_in_the_table", every_mib_object_is_in_the_table},
	    {"table_is_in_oid_order", table_is_in_oid_order},
	    {"cell_kinds_are_the_library_kinds", cell_kinds_are_the_library_kinds},
	    {"root_anchors", root_anchors},
	    {"statctr_notifications_are_the_mib_text", statctr_notifications_are_the_mib_text},
	    {"standard_notifications_are_the_mib_text", standard_notifications_are_the_mib_text},
	    {"histogram_names", histogram_names},
	    {"histogram_module_text", histogram_module_text},
	    {"generated_tables_are_the_tables_both_ways",
	     generated_tables_are_the_tables_both_ways},
	    {"defaults_are_the_tables", defaults_are_the_tables},
	    {"values_as_written", values_as_written},
	    {"v3_users_as_written", v3_users_as_written},
	    {"v3_users_refused", v3_users_refused},
	    {"identity_within_its_mib_sizes", identity_within_its_mib_sizes},
	    {"refused_with_file_line_and_key", refused_with_file_line_and_key},
	    {"descriptors_never_repeat", descriptors_never_repeat},
	    {"colliding_names_refused", colliding_names_refused},
	    {"prom_names_by_kind", prom_names_by_kind},
	    {"docs_table_is_the_key_table", docs_table_is_the_key_table},
	    {NULL, NULL},
	};

	return tu_run("mib", cases);
}
