/*
 * mibgen.c - writes the SMIv2 module that names a configuration's tables.
 *
 * The OID layout is the agent's (it serves exactly this; see statctl(1)):
 * table T of segment S is statctrData.S.T, its entry .1, and in the entry
 * .1 rowIndex (the INDEX), .2 rowName, .3 discontinuity, .4 reset, and
 * .(10+c) declared column c.  The module's identity sits at
 * statctrData.S.0 of its first segment (table OIDs start at 1: the library
 * rejects 0), its conformance under that.
 * Output depends only on the configuration and the revision time given.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "mibnames.h"
#include "statctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COLUMN_BASE 10 /* declared column c is entry.(COLUMN_BASE + c) */
#define TEXT_WIDTH  72
#define TEXT_MAX    4096

struct table_names {
	const char *table, *entry, *group;
	const char *row_index, *row_name, *disc, *reset;
	const char **columns;
};

struct seg_names {
	const char *node;
	struct table_names *tables;
};

struct gen {
	FILE *out;
	const struct statctr_config *cfg;
	const struct mib_settings *set;
	const char *file;
	struct mib_names reg;
	struct seg_names *segs;
	const char *modid, *compliances, *groups, *compliance;
	const char *data; /* statctrData, or the node this module defines for root.3 */
	char module[80];
	char date[16];
	bool has_counter, has_gauge;
};

/* ---- names ------------------------------------------------------------ */

static bool table_names_init(struct gen *g, const struct statctr_segment_decl *seg,
                             const struct statctr_table_decl *t, struct table_names *n)
{
	n->table = mib_name(&g->reg, 3, seg->name, t->name, "Table");
	n->entry = mib_name(&g->reg, 3, seg->name, t->name, "Entry");
	n->group = mib_name(&g->reg, 3, seg->name, t->name, "Group");
	n->row_index = mib_name(&g->reg, 3, seg->name, t->name, "RowIndex");
	n->row_name = mib_name(&g->reg, 3, seg->name, t->name, "RowName");
	n->disc = mib_name(&g->reg, 3, seg->name, t->name, "Discontinuity");
	n->reset = mib_name(&g->reg, 3, seg->name, t->name, "Reset");
	n->columns = calloc(t->ncolumns, sizeof(*n->columns));
	if (n->columns == NULL)
		return false;
	for (uint32_t c = 0; c < t->ncolumns; c++) {
		n->columns[c] = mib_name(&g->reg, 3, seg->name, t->name, t->columns[c].name);
		if (n->columns[c] == NULL)
			return false;
		g->has_counter |= t->columns[c].kind == STATCTR_COUNTER;
		g->has_gauge |= t->columns[c].kind == STATCTR_GAUGE;
	}
	return n->table && n->entry && n->group && n->row_index && n->row_name && n->disc &&
	       n->reset;
}

static bool names_init(struct gen *g)
{
	const char *first = g->cfg->segments[0].name;

	g->segs = calloc(g->cfg->nsegments, sizeof(*g->segs));
	/* Reserve what the module imports. */
	if (g->segs == NULL || !mib_name(&g->reg, 1, "statctrData") ||
	    !mib_name(&g->reg, 1, "statctrMIB"))
		return false;
	g->modid = mib_name(&g->reg, 2, first, "MIB");
	g->compliances = mib_name(&g->reg, 2, first, "MIBCompliances");
	g->groups = mib_name(&g->reg, 2, first, "MIBGroups");
	g->compliance = mib_name(&g->reg, 2, first, "MIBCompliance");
	for (uint32_t s = 0; s < g->cfg->nsegments; s++) {
		const struct statctr_segment_decl *seg = &g->cfg->segments[s];

		g->segs[s].node = mib_name(&g->reg, 2, seg->name, "Segment");
		g->segs[s].tables = calloc(seg->ntables, sizeof(*g->segs[s].tables));
		if (g->segs[s].node == NULL || g->segs[s].tables == NULL)
			return false;
		for (uint32_t t = 0; t < seg->ntables; t++)
			if (!table_names_init(g, seg, &seg->tables[t], &g->segs[s].tables[t]))
				return false;
	}
	return g->modid && g->compliances && g->groups && g->compliance;
}

static void names_free(struct gen *g)
{
	for (uint32_t s = 0; g->segs != NULL && s < g->cfg->nsegments; s++) {
		for (uint32_t t = 0; g->segs[s].tables && t < g->cfg->segments[s].ntables; t++)
			free(g->segs[s].tables[t].columns);
		free(g->segs[s].tables);
	}
	free(g->segs);
	mib_names_free(&g->reg);
}

/* ---- text ------------------------------------------------------------- */

static void emit_word(struct gen *g, const char *word, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)word[i];

		if (ch == '"')
			ch = '\'';
		else if (ch < 0x20 || ch > 0x7e)
			ch = '?';
		fputc(ch, g->out);
	}
}

/*
 * A quoted SMI string, wrapped at TEXT_WIDTH; '\n' in @text starts a new
 * paragraph.  '"' (not allowed inside) becomes '\''.
 */
static void emit_text(struct gen *g, const char *text)
{
	int col = 9;

	fputs("        \"", g->out);
	for (const char *p = text; *p;) {
		size_t word = strcspn(p, " \n\t");

		if (word > 0 && col > 9 && col + 1 + (int)word > TEXT_WIDTH) {
			fputs("\n        ", g->out);
			col = 8;
		} else if (word > 0 && col > 9) {
			fputc(' ', g->out);
			col++;
		}
		emit_word(g, p, word);
		col += (int)word;
		p += word;
		if (*p == '\n') {
			fputs("\n\n        ", g->out);
			col = 8;
			p++;
		}
		p += strspn(p, " \t");
	}
	fputs("\"\n", g->out);
}

static void emit_description(struct gen *g, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void emit_description(struct gen *g, const char *fmt, ...)
{
	char text[TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fputs("    DESCRIPTION\n", g->out);
	emit_text(g, text);
}

/* ---- module header ---------------------------------------------------- */

static void emit_imports(struct gen *g, const char *anchor)
{
	fprintf(g->out, "%s DEFINITIONS ::= BEGIN\n\nIMPORTS\n", g->module);
	fprintf(g->out, "    MODULE-IDENTITY, OBJECT-TYPE, Unsigned32%s%s%s%s\n",
	        g->has_counter ? ", Counter64" : "", g->has_gauge ? ", Gauge32" : "",
	        anchor ? ", " : "", anchor ? anchor : "");
	fputs("        FROM SNMPv2-SMI\n"
	      "    DisplayString, TimeStamp\n"
	      "        FROM SNMPv2-TC\n"
	      "    MODULE-COMPLIANCE, OBJECT-GROUP\n"
	      "        FROM SNMPv2-CONF\n",
	      g->out);
	fprintf(g->out, "    %sStatctrResetAction\n        FROM STATCTR-MIB;\n\n",
	        anchor ? "" : "statctrData, ");
}

static void emit_identity(struct gen *g)
{
	fprintf(g->out, "%s MODULE-IDENTITY\n    LAST-UPDATED \"%s\"\n", g->modid, g->date);
	fputs("    ORGANIZATION \"statctr\"\n    CONTACT-INFO\n", g->out);
	emit_text(g, "Generated by statctl mib; see statctl(1). Regenerate it from the "
	             "configuration instead of editing it.");
	emit_description(g,
	                 "Counter tables declared in %s and served by statctr-agentx: one "
	                 "table per declared table, one row per declared row, one column per "
	                 "declared counter or gauge.",
	                 g->file);
	fprintf(g->out, "    REVISION \"%s\"\n", g->date);
	emit_description(g, "Generated from %s.", g->file);
	fprintf(g->out, "    ::= { %s 0 }\n\n", g->segs[0].node);
}

/* ---- the root when it is not STATCTR-MIB's ---------------------------- */

static const struct {
	const char *name;
	const char *prefix; /* with a trailing dot */
} anchors[] = {
    {"enterprises", "1.3.6.1.4.1."}, {"private", "1.3.6.1.4."}, {"experimental", "1.3.6.1.3."},
    {"mib-2", "1.3.6.1.2.1."},       {"mgmt", "1.3.6.1.2."},    {"internet", "1.3.6.1."},
};

static int find_anchor(const char *root)
{
	for (int i = 0; i < (int)(sizeof(anchors) / sizeof(anchors[0])); i++)
		if (strncmp(root, anchors[i].prefix, strlen(anchors[i].prefix)) == 0)
			return i;
	return -1;
}

/* Defines root_oid arc by arc below its anchor, then root.3 as the data node. */
static bool emit_root_chain(struct gen *g, int anchor)
{
	const char *parent = anchors[anchor].name;
	char arcs[256], *save = NULL, label[32];
	const char *first = g->cfg->segments[0].name;
	int i = 1;

	snprintf(arcs, sizeof(arcs), "%s", g->set->root_oid + strlen(anchors[anchor].prefix));
	for (char *tok = strtok_r(arcs, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		const char *node;

		snprintf(label, sizeof(label), "Arc%d", i++);
		node = mib_name(&g->reg, 2, first, label);
		if (node == NULL)
			return false;
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %s }\n", node, parent, tok);
		parent = node;
	}
	g->data = mib_name(&g->reg, 2, first, "Data");
	if (g->data == NULL)
		return false;
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s 3 }\n\n", g->data, parent);
	return true;
}

/* ---- tables ----------------------------------------------------------- */

struct object {
	const char *name;
	const char *syntax;
	const char *access;
	const char *units; /* or "" */
	const char *parent;
	uint32_t subid;
};

static void emit_object_head(struct gen *g, const struct object *o)
{
	fprintf(g->out, "%s OBJECT-TYPE\n    SYNTAX      %s\n", o->name, o->syntax);
	if (o->units[0] != '\0') {
		fputs("    UNITS       \"", g->out);
		for (const char *p = o->units; *p; p++)
			fputc(*p == '"' ? '\'' : *p, g->out);
		fputs("\"\n", g->out);
	}
	fprintf(g->out, "    MAX-ACCESS  %s\n    STATUS      current\n", o->access);
}

static void emit_object_tail(struct gen *g, const struct object *o)
{
	fprintf(g->out, "    ::= { %s %" PRIu32 " }\n\n", o->parent, o->subid);
}

static void emit_sequence(struct gen *g, const struct statctr_table_decl *t,
                          const struct table_names *n)
{
	fprintf(g->out, "%c%s ::= SEQUENCE {\n", n->entry[0] - 'a' + 'A', n->entry + 1);
	fprintf(g->out, "    %s Unsigned32,\n    %s DisplayString,\n", n->row_index, n->row_name);
	fprintf(g->out, "    %s TimeStamp,\n    %s StatctrResetAction", n->disc, n->reset);
	for (uint32_t c = 0; c < t->ncolumns; c++)
		fprintf(g->out, ",\n    %s %s", n->columns[c],
		        t->columns[c].kind == STATCTR_GAUGE ? "Gauge32" : "Counter64");
	fputs("\n}\n\n", g->out);
}

static void emit_table_and_entry(struct gen *g, const struct seg_names *sn,
                                 const struct statctr_table_decl *t, const struct table_names *n)
{
	char syntax[128];
	struct object o = {n->table, syntax, "not-accessible", "", sn->node, t->oid};

	snprintf(syntax, sizeof(syntax), "SEQUENCE OF %c%s", n->entry[0] - 'a' + 'A', n->entry + 1);
	emit_object_head(g, &o);
	emit_description(g, "%s%sTable %s: one row per declared row (%" PRIu32 " rows).",
	                 t->description, t->description[0] ? "\n" : "", t->name, t->nrows);
	emit_object_tail(g, &o);

	o = (struct object){
	    n->entry, syntax + strlen("SEQUENCE OF "), "not-accessible", "", n->table, 1};
	emit_object_head(g, &o);
	emit_description(g, "One declared row of table %s.", t->name);
	fprintf(g->out, "    INDEX       { %s }\n", n->row_index);
	emit_object_tail(g, &o);
	emit_sequence(g, t, n);
}

static void emit_fixed_columns(struct gen *g, const struct statctr_table_decl *t,
                               const struct table_names *n)
{
	char range[48];
	struct object o = {n->row_index, range, "not-accessible", "", n->entry, 1};

	snprintf(range, sizeof(range), "Unsigned32 (1..%" PRIu32 ")", t->nrows);
	emit_object_head(g, &o);
	emit_description(g, "The row's position among the declared rows, from 1.");
	emit_object_tail(g, &o);

	o = (struct object){n->row_name, "DisplayString", "read-only", "", n->entry, 2};
	emit_object_head(g, &o);
	emit_description(g, "The row's declared name, or its number from 0 when the rows "
	                    "are numbered.");
	emit_object_tail(g, &o);

	o = (struct object){n->disc, "TimeStamp", "read-only", "", n->entry, 3};
	emit_object_head(g, &o);
	emit_description(g, "The value of sysUpTime at the most recent discontinuity of "
	                    "any counter of this row (a reset or a writer restart), or zero "
	                    "if none occurred since the agent started.");
	emit_object_tail(g, &o);

	o = (struct object){n->reset, "StatctrResetAction", "read-write", "", n->entry, 4};
	emit_object_head(g, &o);
	emit_description(g, "Writing reset(2) resets every counter of this row (gauges "
	                    "are left alone); reading returns idle(1).");
	emit_object_tail(g, &o);
}

static void emit_column(struct gen *g, const struct statctr_column_decl *col,
                        const struct table_names *n, uint32_t c)
{
	bool gauge = col->kind == STATCTR_GAUGE;
	struct object o = {n->columns[c], gauge ? "Gauge32" : "Counter64",
	                   "read-only",   col->units,
	                   n->entry,      COLUMN_BASE + c};
	const char *desc = col->description[0] ? col->description : col->name;

	emit_object_head(g, &o);
	if (gauge)
		emit_description(g,
		                 "%s\nGauge %s: a level, latched at 0 when negative and at "
		                 "4294967295 when greater.",
		                 desc, col->name);
	else
		emit_description(g,
		                 "%s\nCounter %s. Discontinuities in its value occur at resets "
		                 "and writer restarts, as indicated by %s.",
		                 desc, col->name, n->disc);
	emit_object_tail(g, &o);
}

static void emit_segment(struct gen *g, uint32_t s)
{
	const struct statctr_segment_decl *seg = &g->cfg->segments[s];
	const struct seg_names *sn = &g->segs[s];

	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n\n", sn->node, g->data,
	        seg->oid);
	for (uint32_t t = 0; t < seg->ntables; t++) {
		const struct statctr_table_decl *td = &seg->tables[t];

		emit_table_and_entry(g, sn, td, &sn->tables[t]);
		emit_fixed_columns(g, td, &sn->tables[t]);
		for (uint32_t c = 0; c < td->ncolumns; c++)
			emit_column(g, &td->columns[c], &sn->tables[t], c);
	}
}

/* ---- conformance ------------------------------------------------------ */

/* Calls @fn for every table's names, in module order. */
static void for_each_table(struct gen *g,
                           void (*fn)(struct gen *, const struct statctr_table_decl *,
                                      const struct table_names *, uint32_t))
{
	uint32_t i = 0;

	for (uint32_t s = 0; s < g->cfg->nsegments; s++)
		for (uint32_t t = 0; t < g->cfg->segments[s].ntables; t++)
			fn(g, &g->cfg->segments[s].tables[t], &g->segs[s].tables[t], i++);
}

static void emit_group_ref(struct gen *g, const struct statctr_table_decl *t,
                           const struct table_names *n, uint32_t i)
{
	fprintf(g->out, "%s%s", i ? ",\n                  " : "", n->group);
}

static void emit_reset_min_access(struct gen *g, const struct statctr_table_decl *t,
                                  const struct table_names *n, uint32_t i)
{
	fprintf(g->out, "        OBJECT %s\n            MIN-ACCESS read-only\n", n->reset);
	fputs("            DESCRIPTION\n                \"Write access is not required.\"\n",
	      g->out);
}

static void emit_group(struct gen *g, const struct statctr_table_decl *t,
                       const struct table_names *n, uint32_t i)
{
	fprintf(g->out, "%s OBJECT-GROUP\n    OBJECTS { %s,\n              %s,\n              %s",
	        n->group, n->row_name, n->disc, n->reset);
	for (uint32_t c = 0; c < t->ncolumns; c++)
		fprintf(g->out, ",\n              %s", n->columns[c]);
	fputs(" }\n    STATUS      current\n", g->out);
	emit_description(g, "The objects of table %s.", t->name);
	fprintf(g->out, "    ::= { %s %" PRIu32 " }\n\n", g->groups, i + 1);
}

static void emit_conformance(struct gen *g)
{
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s 1 }\n", g->compliances, g->modid);
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s 2 }\n\n", g->groups, g->modid);
	fprintf(g->out, "%s MODULE-COMPLIANCE\n    STATUS      current\n", g->compliance);
	emit_description(g, "An agent serving the tables of %s.", g->file);
	fputs("    MODULE -- this module\n        MANDATORY-GROUPS { ", g->out);
	for_each_table(g, emit_group_ref);
	fputs(" }\n", g->out);
	for_each_table(g, emit_reset_min_access);
	fprintf(g->out, "    ::= { %s 1 }\n\n", g->compliances);
	for_each_table(g, emit_group);
}

/* ---- the module ------------------------------------------------------- */

static int prepare(struct gen *g, const struct statctr_config *cfg, long long revision_time)
{
	time_t when = (time_t)revision_time;
	struct tm tm;
	const char *slash = strrchr(cfg->file, '/');

	if (cfg->nsegments == 0) {
		error_msg("%s: declares no segment: nothing to put in a MIB", cfg->file);
		return -EINVAL;
	}
	g->file = slash ? slash + 1 : cfg->file;
	gmtime_r(&when, &tm);
	strftime(g->date, sizeof(g->date), "%Y%m%d%H%MZ", &tm);
	if (g->set->module != NULL)
		snprintf(g->module, sizeof(g->module), "%s", g->set->module);
	else
		mib_module_name(cfg, g->module, sizeof(g->module));
	if (!names_init(g)) {
		error_msg("out of memory");
		return -ENOMEM;
	}
	return 0;
}

int mib_generate(FILE *out, const struct statctr_config *cfg, const struct mib_settings *set,
                 long long revision_time)
{
	struct gen g = {.out = out, .cfg = cfg, .set = set, .data = "statctrData"};
	int anchor = -1;
	int err = prepare(&g, cfg, revision_time);

	if (err == 0 && strcmp(set->root_oid, STATCTR_DEFAULT_ROOT_OID) != 0)
		anchor = find_anchor(set->root_oid);
	if (err == 0) {
		emit_imports(&g, anchor >= 0 ? anchors[anchor].name : NULL);
		emit_identity(&g);
		if (anchor >= 0 && !emit_root_chain(&g, anchor))
			err = -ENOMEM;
	}
	for (uint32_t s = 0; err == 0 && s < cfg->nsegments; s++)
		emit_segment(&g, s);
	if (err == 0) {
		emit_conformance(&g);
		fputs("END\n", out);
	}
	names_free(&g);
	return err;
}
