/*
 * gen.c - writes the SMIv2 module that names a configuration's tables.
 *
 * The OID layout is mib/oids.h's, which the agent serves: table T of
 * segment S at statctrData.S.T, its entry and its columns (row index, row
 * name, discontinuity, reset, then the declared columns), each histogram
 * column's bucket and summary tables at statctrHistograms.S.T.(10+i), in a
 * segment that declares epochs each table's interval table at
 * statctrIntervals.S.T, each dynamic table's by-name table at
 * statctrRowsByName.S.T, the module's identity and conformance under the
 * first segment.  Every number
 * comes from there.  Output depends only on the configuration and the revision
 * time given.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "gen.h"
#include "names.h"
#include "objects.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEXT_WIDTH 72
#define TEXT_MAX   4096

struct gen {
	FILE *out;
	const struct statctr_config *cfg;
	const struct mib_settings *set;
	const char *file;
	struct mib_module_names names;
	const char *data;       /* statctrData, or the node this module defines for root.3 */
	const char *histograms; /* statctrHistograms, or the node it defines for root.4 */
	const char *intervals;  /* statctrIntervals, or the node it defines for root.5 */
	const char *by_name;    /* statctrRowsByName, or the node it defines for root.6 */
	char module[80];
	char date[16];
	bool has_counter, has_gauge, has_histogram, has_intervals, has_dynamic;
};

/* ---- names ------------------------------------------------------------ */

/* Which SMI types the module imports. */
static void find_kinds(struct gen *g)
{
	for (uint32_t s = 0; s < g->cfg->nsegments; s++)
		for (uint32_t t = 0; t < g->cfg->segments[s].ntables; t++)
			for (uint32_t c = 0; c < g->cfg->segments[s].tables[t].ncolumns; c++) {
				enum statctr_kind kind =
				    g->cfg->segments[s].tables[t].columns[c].kind;

				/* A histogram's count, sum and buckets are Counter64s. */
				g->has_counter |=
				    kind == STATCTR_KIND_COUNTER || kind == STATCTR_KIND_HISTOGRAM;
				g->has_gauge |= kind == STATCTR_KIND_GAUGE;
				g->has_histogram |= kind == STATCTR_KIND_HISTOGRAM;
				g->has_intervals |= mib_has_intervals(
				    &g->cfg->segments[s], &g->cfg->segments[s].tables[t]);
				g->has_dynamic |= g->cfg->segments[s].tables[t].dynamic != 0;
			}
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
	bool line_start = true; /* a word here needs no space before it (one-letter words too) */

	fputs("        \"", g->out);
	for (const char *p = text; *p;) {
		size_t word = strcspn(p, " \n\t");

		if (word > 0 && !line_start && col + 1 + (int)word > TEXT_WIDTH) {
			fputs("\n        ", g->out);
			col = 8;
		} else if (word > 0 && !line_start) {
			fputc(' ', g->out);
			col++;
		}
		emit_word(g, p, word);
		col += (int)word;
		line_start = line_start && word == 0;
		p += word;
		if (*p == '\n') {
			fputs("\n\n        ", g->out);
			col = 8;
			line_start = true;
			p++;
		}
		p += strspn(p, " \t");
	}
	fputs("\"\n", g->out);
}

static void emit_description(struct gen *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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
	fprintf(g->out,
	        "        FROM SNMPv2-SMI\n"
	        "    DisplayString, TimeStamp%s\n"
	        "        FROM SNMPv2-TC\n"
	        "    MODULE-COMPLIANCE, OBJECT-GROUP\n"
	        "        FROM SNMPv2-CONF\n",
	        g->has_intervals ? ", TruthValue" : "");
	fprintf(g->out, "    %s%s%s%sStatctrResetAction\n        FROM STATCTR-MIB;\n\n",
	        anchor ? "" : "statctrData, ",
	        anchor || !g->has_histogram ? "" : "statctrHistograms, ",
	        anchor || !g->has_intervals ? "" : "statctrIntervals, ",
	        anchor || !g->has_dynamic ? "" : "statctrRowsByName, ");
}

static void emit_identity(struct gen *g)
{
	fprintf(g->out, "%s MODULE-IDENTITY\n    LAST-UPDATED \"%s\"\n", g->names.modid, g->date);
	fputs("    ORGANIZATION \"statctr\"\n    CONTACT-INFO\n", g->out);
	emit_text(g, "Generated by statctl mib; see statctl(1). Regenerate it from the "
	             "configuration instead of editing it.");
	emit_description(g,
	                 "Counter tables declared in %s and served by statctr-agentx: one "
	                 "table per declared table, one row per declared row, one column per "
	                 "declared counter, gauge or histogram (its count; its buckets, count "
	                 "and sum in two tables of its own under statctrHistograms).",
	                 g->file);
	fprintf(g->out, "    REVISION \"%s\"\n", g->date);
	emit_description(g, "Generated from %s.", g->file);
	fprintf(g->out, "    ::= { %s %d }\n\n", g->names.segs[0].node, MIB_MODULE_IDENTITY);
}

/* ---- the root when it is not STATCTR-MIB's ---------------------------- */

/* The nodes under the root this module defines (data, and the others its objects need). */
static bool emit_root_nodes(struct gen *g, const char *first, const char *parent)
{
	const struct {
		bool wanted;
		const char **node;
		const char *suffix;
		int arc;
	} subs[] = {
	    {true, &g->data, "Data", MIB_ARC_DATA},
	    {g->has_histogram, &g->histograms, "Histograms", MIB_ARC_HISTOGRAMS},
	    {g->has_intervals, &g->intervals, "Intervals", MIB_ARC_INTERVALS},
	    {g->has_dynamic, &g->by_name, "RowsByName", MIB_ARC_BY_NAME},
	};

	for (size_t k = 0; k < sizeof(subs) / sizeof(subs[0]); k++) {
		if (!subs[k].wanted)
			continue;
		*subs[k].node = mib_name(&g->names.reg, 2, first, subs[k].suffix);
		if (*subs[k].node == NULL)
			return false;
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %d }\n", *subs[k].node, parent,
		        subs[k].arc);
	}
	return true;
}

/*
 * Defines root_oid arc by arc below @anchor, its SNMPv2-SMI node (@below:
 * the arcs after it), then the data node under it.
 */
static bool emit_root_chain(struct gen *g, const char *anchor, const char *below)
{
	const char *parent = anchor;
	char arcs[MIB_ROOT_MAX_ARCS * sizeof("4294967295")], *save = NULL, label[32];
	const char *first = g->cfg->segments[0].name;
	int i = 1;

	snprintf(arcs, sizeof(arcs), "%s", below);
	for (char *tok = strtok_r(arcs, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		const char *node;

		snprintf(label, sizeof(label), "Arc%d", i++);
		node = mib_name(&g->names.reg, 2, first, label);
		if (node == NULL)
			return false;
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %s }\n", node, parent, tok);
		parent = node;
	}
	if (!emit_root_nodes(g, first, parent))
		return false;
	fputc('\n', g->out);
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

/* Column @mc (oids.h's tables) of @entry, named @descriptor. */
static struct object column_object(const struct mib_column *mc, const char *descriptor,
                                   const char *entry, const char *units)
{
	return (struct object){descriptor, mc->syntax, mib_access_text(mc->access),
	                       units,      entry,      mc->arc};
}

/* "descriptor Type": @mc's SEQUENCE member (its syntax without a range). */
static void column_member(char *buf, size_t size, const char *descriptor,
                          const struct mib_column *mc)
{
	snprintf(buf, size, "%s %.*s", descriptor, (int)strcspn(mc->syntax, " "), mc->syntax);
}

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
                          const struct mib_table_names *n)
{
	const char *const fixed[MIB_DATA_NCOLUMNS] = {n->row_index, n->row_name, n->disc, n->reset};
	char member[160];

	fprintf(g->out, "%c%s ::= SEQUENCE {", n->entry[0] - 'a' + 'A', n->entry + 1);
	for (size_t i = 0; i < MIB_DATA_NCOLUMNS; i++) {
		column_member(member, sizeof(member), fixed[i], &mib_data_columns[i]);
		fprintf(g->out, "%s\n    %s", i ? "," : "", member);
	}
	for (uint32_t c = 0; c < t->ncolumns; c++)
		fprintf(g->out, ",\n    %s %s", n->columns[c],
		        t->columns[c].kind == STATCTR_KIND_GAUGE ? "Gauge32" : "Counter64");
	fputs("\n}\n\n", g->out);
}

static void emit_table_and_entry(struct gen *g, const struct mib_seg_names *sn,
                                 const struct statctr_table_decl *t,
                                 const struct mib_table_names *n)
{
	char syntax[128];
	struct object o = {n->table, syntax, "not-accessible", "", sn->node, t->oid};

	snprintf(syntax, sizeof(syntax), "SEQUENCE OF %c%s", n->entry[0] - 'a' + 'A', n->entry + 1);
	emit_object_head(g, &o);
	if (t->dynamic)
		emit_description(g,
		                 "%s%sTable %s: rows come and go while the writer runs (at most "
		                 "%" PRIu32 "); only the rows present exist.  The index of a "
		                 "removed row is not reused until every other free index has "
		                 "been used (first in, first out), so a manager polling by index "
		                 "does not take a new row for the one that left.  A row added "
		                 "again, under any name, is a new row: its counters start at zero "
		                 "and %s is the time of its add.",
		                 t->description, t->description[0] ? "\n" : "", t->name, t->nrows,
		                 n->disc);
	else
		emit_description(g, "%s%sTable %s: one row per declared row (%" PRIu32 " rows).",
		                 t->description, t->description[0] ? "\n" : "", t->name, t->nrows);
	emit_object_tail(g, &o);

	o = (struct object){n->entry,         syntax + strlen("SEQUENCE OF "),
	                    "not-accessible", "",
	                    n->table,         MIB_ARC_ENTRY};
	emit_object_head(g, &o);
	emit_description(g, "One %s row of table %s.", t->dynamic ? "present" : "declared",
	                 t->name);
	fprintf(g->out, "    INDEX       { %s }\n", n->row_index);
	emit_object_tail(g, &o);
	emit_sequence(g, t, n);
}

static void emit_fixed_columns(struct gen *g, const struct statctr_table_decl *t,
                               const struct mib_table_names *n)
{
	char range[48];
	struct object o = column_object(&mib_data_columns[0], n->row_index, n->entry, "");

	snprintf(range, sizeof(range), "%s (1..%" PRIu32 ")", o.syntax, t->nrows);
	o.syntax = range;
	emit_object_head(g, &o);
	if (t->dynamic)
		emit_description(g, "The row's index, from 1, given when the row was added and "
		                    "kept until it is removed.");
	else
		emit_description(g, "The row's position among the declared rows, from 1.");
	emit_object_tail(g, &o);

	o = column_object(&mib_data_columns[1], n->row_name, n->entry, "");
	emit_object_head(g, &o);
	if (t->dynamic)
		emit_description(g, "The row's name, given by the writer when it added the row; "
		                    "unique among the present rows.");
	else
		emit_description(g, "The row's declared name, or its number from 0 when the rows "
		                    "are numbered.");
	emit_object_tail(g, &o);

	o = column_object(&mib_data_columns[2], n->disc, n->entry, "");
	emit_object_head(g, &o);
	emit_description(g,
	                 "The value of sysUpTime at the most recent discontinuity of "
	                 "any counter of this row (%sa reset or a writer restart), or zero "
	                 "if none occurred since the agent started.",
	                 t->dynamic ? "the row's add, " : "");
	emit_object_tail(g, &o);

	o = column_object(&mib_data_columns[3], n->reset, n->entry, "");
	emit_object_head(g, &o);
	emit_description(g, "Writing reset(2) resets every counter of this row (gauges "
	                    "are left alone); reading returns idle(1).");
	emit_object_tail(g, &o);
}

static void emit_column(struct gen *g, const struct statctr_table_decl *t,
                        const struct mib_table_names *n, uint32_t c)
{
	const struct statctr_column_decl *col = &t->columns[c];
	bool gauge = col->kind == STATCTR_KIND_GAUGE;
	struct object o = {n->columns[c], gauge ? "Gauge32" : "Counter64", "read-only", col->units,
	                   n->entry,      MIB_DATA_FIRST_VALUE + c};
	const char *desc = col->description[0] ? col->description : col->name;

	if (col->kind == STATCTR_KIND_HISTOGRAM)
		o.units = "";
	emit_object_head(g, &o);
	if (gauge)
		emit_description(g,
		                 "%s\nGauge %s: a level, latched at 0 when negative and at "
		                 "4294967295 when greater.",
		                 desc, col->name);
	else if (col->kind == STATCTR_KIND_HISTOGRAM)
		emit_description(g,
		                 "%s\nHistogram %s: the number of values recorded (its count, "
		                 "as %s). Its buckets are in %s. Discontinuities in its value "
		                 "occur at %sresets and writer restarts, as indicated by %s.",
		                 desc, col->name, n->hists[c].count, n->hists[c].bucket_table,
		                 t->dynamic ? "the row's add, " : "", n->disc);
	else
		emit_description(g,
		                 "%s\nCounter %s. Discontinuities in its value occur at %s"
		                 "resets and writer restarts, as indicated by %s.",
		                 desc, col->name, t->dynamic ? "the row's add, " : "", n->disc);
	emit_object_tail(g, &o);
}

/* ---- histograms ------------------------------------------------------- */

/* An OBJECT-TYPE whole: head, DESCRIPTION, then @clause (an INDEX or AUGMENTS line, or NULL). */
static void emit_object(struct gen *g, const struct object *o, const char *clause, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

static void emit_object(struct gen *g, const struct object *o, const char *clause, const char *fmt,
                        ...)
{
	char text[TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	emit_object_head(g, o);
	emit_description(g, "%s", text);
	if (clause)
		fprintf(g->out, "    %s\n", clause);
	emit_object_tail(g, o);
}

/*
 * A table @table at @parent.@arc and its entry @entry, described by
 * @table_text and @entry_text, indexed by @clause; then its SEQUENCE type
 * with @members ("name Type" each).
 */
static void emit_table_pair(struct gen *g, const char *table, const char *entry, const char *parent,
                            uint32_t arc, const char *table_text, const char *entry_text,
                            const char *clause, const char *const *members, size_t nmembers)
{
	char syntax[128];
	const char *type = syntax + strlen("SEQUENCE OF ");
	struct object o = {table, syntax, "not-accessible", "", parent, arc};

	snprintf(syntax, sizeof(syntax), "SEQUENCE OF %c%s", entry[0] - 'a' + 'A', entry + 1);
	emit_object(g, &o, NULL, "%s", table_text);
	o = (struct object){entry, type, "not-accessible", "", table, MIB_ARC_ENTRY};
	emit_object(g, &o, clause, "%s", entry_text);
	fprintf(g->out, "%s ::= SEQUENCE {", type);
	for (size_t i = 0; i < nmembers; i++)
		fprintf(g->out, "%s\n    %s", i ? "," : "", members[i]);
	fputs("\n}\n\n", g->out);
}

static void emit_bucket_table(struct gen *g, const struct statctr_table_decl *t,
                              const struct mib_table_names *n, uint32_t c)
{
	const struct mib_hist_names *h = &n->hists[c];
	const struct statctr_column_decl *col = &t->columns[c];
	char text[TEXT_MAX], entry_text[256], clause[160], members[3][96];
	const char *const member_list[] = {members[0], members[1], members[2]};

	snprintf(text, sizeof(text),
	         "The buckets of histogram %s of table %s: one row per %s row of %s and bucket "
	         "(%" PRIu32 " finite bounds, then +Inf).\nCounts are cumulative, as "
	         "Prometheus's le: a bucket counts the values less than or equal to its bound. "
	         "So each count is a monotonic counter with a meaning of its own (values of at "
	         "most the bound), the fraction of values within an objective is one GET and a "
	         "division by %s, a manager polling a subset of the buckets still reads correct "
	         "values, the +Inf row equals %s, and the rows map one to one onto Prometheus "
	         "_bucket{le} series through snmp_exporter.",
	         col->name, t->name, t->dynamic ? "present" : "declared", n->table, col->nbuckets,
	         h->count, h->count);
	snprintf(entry_text, sizeof(entry_text), "One bucket of histogram %s of one row of %s.",
	         col->name, n->table);
	snprintf(clause, sizeof(clause), "INDEX       { %s, %s }", n->row_index, h->bucket_index);
	column_member(members[0], sizeof(members[0]), h->bucket_index, &mib_hist_bucket_columns[0]);
	column_member(members[1], sizeof(members[1]), h->bucket_bound, &mib_hist_bucket_columns[1]);
	column_member(members[2], sizeof(members[2]), h->bucket_count, &mib_hist_bucket_columns[2]);
	emit_table_pair(g, h->bucket_table, h->bucket_entry, h->node, MIB_HIST_BUCKETS, text,
	                entry_text, clause, member_list, 3);
}

static void emit_bucket_columns(struct gen *g, const struct statctr_table_decl *t,
                                const struct mib_table_names *n, uint32_t c)
{
	const struct mib_hist_names *h = &n->hists[c];
	const struct statctr_column_decl *col = &t->columns[c];
	struct object o =
	    column_object(&mib_hist_bucket_columns[0], h->bucket_index, h->bucket_entry, "");

	emit_object(g, &o, NULL,
	            "The bucket's position, from 1 for the lowest bound; the last, %" PRIu32
	            ", is +Inf.",
	            col->nbuckets + 1);
	o = column_object(&mib_hist_bucket_columns[1], h->bucket_bound, h->bucket_entry, "");
	emit_object(g, &o, NULL,
	            "The bucket's inclusive upper bound in decimal%s%s, or '+Inf' for the last "
	            "bucket (Prometheus's le label).",
	            col->units[0] ? ", in " : "", col->units);
	o = column_object(&mib_hist_bucket_columns[2], h->bucket_count, h->bucket_entry, "");
	emit_object(g, &o, NULL,
	            "The number of values recorded that are less than or equal to the bound "
	            "(cumulative). Discontinuities occur at %sresets and writer restarts, as "
	            "indicated by %s.",
	            t->dynamic ? "the row's add, " : "", n->disc);
}

static void emit_summary(struct gen *g, const struct statctr_table_decl *t,
                         const struct mib_table_names *n, uint32_t c)
{
	const struct mib_hist_names *h = &n->hists[c];
	const struct statctr_column_decl *col = &t->columns[c];
	char text[256], entry_text[256], clause[96], members[2][96];
	const char *const member_list[] = {members[0], members[1]};
	struct object o =
	    column_object(&mib_hist_summary_columns[0], h->count, h->summary_entry, "");

	snprintf(text, sizeof(text), "The count and sum of histogram %s, one row per row of %s.",
	         col->name, n->table);
	snprintf(entry_text, sizeof(entry_text),
	         "The count and sum of histogram %s of one row of %s.", col->name, n->table);
	snprintf(clause, sizeof(clause), "AUGMENTS    { %s }", n->entry);
	column_member(members[0], sizeof(members[0]), h->count, &mib_hist_summary_columns[0]);
	column_member(members[1], sizeof(members[1]), h->sum, &mib_hist_summary_columns[1]);
	emit_table_pair(g, h->summary_table, h->summary_entry, h->node, MIB_HIST_SUMMARY, text,
	                entry_text, clause, member_list, 2);
	emit_object(g, &o, NULL,
	            "The number of values recorded: the +Inf bucket's %s. Discontinuities as "
	            "for %s.",
	            h->bucket_count, h->bucket_count);
	o = column_object(&mib_hist_summary_columns[1], h->sum, h->summary_entry, col->units);
	emit_object(g, &o, NULL,
	            "The sum of the values recorded%s%s, modulo 2^64; with %s, their mean. "
	            "Discontinuities as for %s.",
	            col->units[0] ? ", in " : "", col->units, h->count, h->bucket_count);
}

/* statctrHistograms.S.T and, per histogram column, its node and its two tables. */
static void emit_histograms(struct gen *g, const struct statctr_segment_decl *seg,
                            const struct mib_seg_names *sn, uint32_t t)
{
	const struct statctr_table_decl *td = &seg->tables[t];
	const struct mib_table_names *n = &sn->tables[t];

	if (n->hist_node == NULL)
		return;
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n", n->hist_node,
	        sn->hist_node, td->oid);
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if (td->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n",
			        n->hists[c].node, n->hist_node, MIB_DATA_FIRST_VALUE + c);
	fputc('\n', g->out);
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		if (td->columns[c].kind != STATCTR_KIND_HISTOGRAM)
			continue;
		emit_bucket_table(g, td, n, c);
		emit_bucket_columns(g, td, n, c);
		emit_summary(g, td, n, c);
	}
}

/* ---- interval tables (epochs) ----------------------------------------- */

/* The interval table and entry of @td, and its SEQUENCE: epoch, valid, then the counts. */
static bool emit_interval_pair(struct gen *g, const struct statctr_table_decl *td,
                               const struct mib_seg_names *sn, const struct mib_table_names *n,
                               const char *text, const char *entry_text, const char *clause)
{
	const struct mib_interval_names *iv = &n->iv;
	char(*members)[96] = calloc((size_t)td->ncolumns + 2, sizeof(*members));
	const char **list = calloc((size_t)td->ncolumns + 2, sizeof(*list));
	size_t m = 0;
	bool ok = members && list;

	if (ok) {
		column_member(members[m++], sizeof(members[0]), iv->epoch,
		              &mib_interval_columns[0]);
		column_member(members[m++], sizeof(members[0]), iv->valid,
		              &mib_interval_columns[1]);
		for (uint32_t c = 0; c < td->ncolumns; c++)
			if (iv->counts[c])
				snprintf(members[m++], sizeof(members[0]), "%s Counter64",
				         iv->counts[c]);
		for (size_t i = 0; i < m; i++)
			list[i] = members[i];
		emit_table_pair(g, iv->table, iv->entry, sn->interval_node, td->oid, text,
		                entry_text, clause, list, m);
	}
	free(members);
	free(list);
	return ok;
}

/* Histogram column @c's interval bucket table, at its node's MIB_HIST_INTERVALS. */
static void emit_hist_interval(struct gen *g, const struct statctr_table_decl *t,
                               const struct mib_table_names *n, uint32_t c)
{
	const struct mib_hist_interval_names *hi = &n->iv.hists[c];
	const struct mib_hist_names *h = &n->hists[c];
	char text[TEXT_MAX], entry_text[256], clause[256], member[96];
	const char *const members[] = {member};
	struct object o = column_object(&mib_hist_interval_columns[0], hi->count, hi->entry, "");

	snprintf(text, sizeof(text),
	         "The buckets of histogram %s of table %s per epoch: one row per kept epoch, row "
	         "of %s and bucket, each the values recorded in the epoch's interval (as %s) "
	         "that are less than or equal to the bucket's bound (%s): cumulative, as %s.",
	         t->columns[c].name, t->name, n->table, n->iv.counts[c], h->bucket_bound,
	         h->bucket_count);
	snprintf(entry_text, sizeof(entry_text),
	         "One bucket of histogram %s of one row of %s in one epoch.", t->columns[c].name,
	         n->table);
	snprintf(clause, sizeof(clause), "INDEX       { %s, %s, %s }", n->iv.epoch, n->row_index,
	         h->bucket_index);
	column_member(member, sizeof(member), hi->count, &mib_hist_interval_columns[0]);
	emit_table_pair(g, hi->table, hi->entry, h->node, MIB_HIST_INTERVALS, text, entry_text,
	                clause, members, 1);
	emit_object(g, &o, NULL,
	            "The values recorded in the epoch's interval that are less than or equal to "
	            "the bound; 0 when %s is false(2).",
	            n->iv.valid);
}

/* Table @t's interval table at statctrIntervals.S.T: epoch x row, a count per column. */
/* false: out of memory. */
static bool emit_intervals(struct gen *g, const struct statctr_segment_decl *seg,
                           const struct mib_seg_names *sn, uint32_t t)
{
	const struct statctr_table_decl *td = &seg->tables[t];
	const struct mib_table_names *n = &sn->tables[t];
	const struct mib_interval_names *iv = &n->iv;
	char text[TEXT_MAX], entry_text[256], clause[160];
	struct object o = column_object(&mib_interval_columns[0], iv->epoch, iv->entry, "");

	if (iv->table == NULL)
		return true;
	snprintf(text, sizeof(text),
	         "The counts of table %s per epoch of segment %s (statctrEpochTable): one row "
	         "per kept epoch and %s row of %s, the counts from the epoch's start to the next "
	         "kept epoch's (a past interval: they never change again) or, for the newest, to "
	         "the aggregation being served (the current interval). The shape of RFC 3705 "
	         "(HC-PerfHist-TC-MIB), indexed by epoch number, so each count is monotonic for "
	         "as long as its row exists. Starting an epoch resets nothing; resets do not "
	         "change these counts.",
	         td->name, seg->name, td->dynamic ? "present" : "declared", n->table);
	snprintf(entry_text, sizeof(entry_text), "The counts of one row of %s in one epoch.",
	         n->table);
	snprintf(clause, sizeof(clause), "INDEX       { %s, %s }", iv->epoch, n->row_index);
	if (!emit_interval_pair(g, td, sn, n, text, entry_text, clause))
		return false;
	emit_object(g, &o, NULL, "The epoch's number (statctrEpochNumber).");
	o = column_object(&mib_interval_columns[1], iv->valid, iv->entry, "");
	emit_object(g, &o, NULL,
	            "Whether the epoch's interval is exact (statctrEpochValid). false(2): it "
	            "spans a writer restart whose final counts were not captured; the counts of "
	            "the row are then 0 and must not be used.");
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		if (!iv->counts[c])
			continue;
		o = (struct object){
		    iv->counts[c],
		    "Counter64",
		    "read-only",
		    td->columns[c].kind == STATCTR_KIND_HISTOGRAM ? "" : td->columns[c].units,
		    iv->entry,
		    MIB_DATA_FIRST_VALUE + c};
		emit_object(g, &o, NULL, "The epoch's count of %s %s (%s): %s.", "column",
		            td->columns[c].name, n->columns[c],
		            td->columns[c].kind == STATCTR_KIND_HISTOGRAM
		                ? "the values the histogram recorded in the interval"
		                : "what the counter counted in the interval, as RFC 3705's "
		                  "HCPerfIntervalCount (past) and HCPerfCurrentCount (newest)");
	}
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if (td->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			emit_hist_interval(g, td, n, c);
	return true;
}

/* ---- by-name tables (dynamic tables) ---------------------------------- */

/* The longest key: the instance's OID is root, .6.S.T.1.column, then the key. */
static uint32_t byname_max_key(const struct gen *g)
{
	uint32_t arcs = 1;

	for (const char *p = g->set->root_oid; *p; p++)
		arcs += *p == '.';
	return MIB_BYNAME_MAX_KEY(arcs);
}

/*
 * Dynamic table @t's by-name table at statctrRowsByName.S.T: the present
 * rows indexed by their name, the declared columns as in the table.
 */
static bool emit_byname(struct gen *g, const struct statctr_segment_decl *seg,
                        const struct mib_seg_names *sn, uint32_t t)
{
	const struct statctr_table_decl *td = &seg->tables[t];
	const struct mib_table_names *n = &sn->tables[t];
	const struct mib_byname_names *bn = &n->bn;
	char text[TEXT_MAX], entry_text[256], clause[160], key_syntax[64];
	char(*members)[96] = calloc((size_t)td->ncolumns + MIB_BYNAME_NCOLUMNS, sizeof(*members));
	const char **list = calloc((size_t)td->ncolumns + MIB_BYNAME_NCOLUMNS, sizeof(*list));
	const char *const fixed[MIB_BYNAME_NCOLUMNS] = {bn->key, bn->row_index, bn->disc};
	struct object o;
	size_t m = 0;

	if (!members || !list) {
		free(members);
		free(list);
		return false;
	}
	for (size_t i = 0; i < MIB_BYNAME_NCOLUMNS; i++)
		column_member(members[m++], sizeof(members[0]), fixed[i], &mib_byname_columns[i]);
	for (uint32_t c = 0; c < td->ncolumns; c++)
		snprintf(members[m++], sizeof(members[0]), "%s %s", bn->columns[c],
		         td->columns[c].kind == STATCTR_KIND_GAUGE ? "Gauge32" : "Counter64");
	for (size_t i = 0; i < m; i++)
		list[i] = members[i];
	snprintf(text, sizeof(text),
	         "The present rows of table %s (%s) by name: a manager that knows a row by the "
	         "name its writer gave it reads it here without looking its index up first, "
	         "and reads nothing when no present row has that name. The same values as "
	         "%s, for rows whose name is at most %" PRIu32
	         " bytes long (an instance's OID has at most 128 sub-identifiers); longer names "
	         "are only in %s.",
	         td->name, n->table, n->table, byname_max_key(g), n->table);
	snprintf(entry_text, sizeof(entry_text), "One present row of %s, by its name.", n->table);
	snprintf(clause, sizeof(clause), "INDEX       { IMPLIED %s }", bn->key);
	emit_table_pair(g, bn->table, bn->entry, sn->byname_node, td->oid, text, entry_text, clause,
	                list, m);
	free(members);
	free(list);

	o = column_object(&mib_byname_columns[0], bn->key, bn->entry, "");
	snprintf(key_syntax, sizeof(key_syntax), "%s (SIZE (1..%" PRIu32 "))", o.syntax,
	         byname_max_key(g));
	o.syntax = key_syntax;
	emit_object(g, &o, NULL, "The row's name, as %s.", n->row_name);
	o = column_object(&mib_byname_columns[1], bn->row_index, bn->entry, "");
	emit_object(g, &o, NULL,
	            "The row's index in %s (%s): it changes when a row is removed and added "
	            "again.",
	            n->table, n->row_index);
	o = column_object(&mib_byname_columns[2], bn->disc, bn->entry, "");
	emit_object(g, &o, NULL,
	            "As %s: the time of the row's add, reset or writer restart, whichever is "
	            "latest. A row removed and added again under the same name is a new row: "
	            "its counters start at zero, and this time tells.",
	            n->disc);
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		bool gauge = td->columns[c].kind == STATCTR_KIND_GAUGE;

		o = (struct object){
		    bn->columns[c],
		    gauge ? "Gauge32" : "Counter64",
		    "read-only",
		    td->columns[c].kind == STATCTR_KIND_HISTOGRAM ? "" : td->columns[c].units,
		    bn->entry,
		    MIB_DATA_FIRST_VALUE + c};
		emit_object(g, &o, NULL, "As %s, of the row named by the index.", n->columns[c]);
	}
	return true;
}

/* false: out of memory. */
static bool emit_segment(struct gen *g, uint32_t s)
{
	const struct statctr_segment_decl *seg = &g->cfg->segments[s];
	const struct mib_seg_names *sn = &g->names.segs[s];

	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n\n", sn->node, g->data,
	        seg->oid);
	if (sn->hist_node)
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n\n", sn->hist_node,
		        g->histograms, seg->oid);
	for (uint32_t t = 0; t < seg->ntables; t++) {
		const struct statctr_table_decl *td = &seg->tables[t];

		emit_table_and_entry(g, sn, td, &sn->tables[t]);
		emit_fixed_columns(g, td, &sn->tables[t]);
		for (uint32_t c = 0; c < td->ncolumns; c++)
			emit_column(g, td, &sn->tables[t], c);
		emit_histograms(g, seg, sn, t);
	}
	if (sn->interval_node)
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n\n",
		        sn->interval_node, g->intervals, seg->oid);
	for (uint32_t t = 0; t < seg->ntables; t++)
		if (!emit_intervals(g, seg, sn, t))
			return false;
	if (sn->byname_node)
		fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %" PRIu32 " }\n\n", sn->byname_node,
		        g->by_name, seg->oid);
	for (uint32_t t = 0; t < seg->ntables; t++)
		if (seg->tables[t].dynamic && !emit_byname(g, seg, sn, t))
			return false;
	return true;
}

/* ---- conformance ------------------------------------------------------ */

/* Calls @fn for every table's names, in module order. */
static void for_each_table(struct gen *g,
                           void (*fn)(struct gen *, const struct statctr_table_decl *,
                                      const struct mib_table_names *, uint32_t))
{
	uint32_t i = 0;

	for (uint32_t s = 0; s < g->cfg->nsegments; s++)
		for (uint32_t t = 0; t < g->cfg->segments[s].ntables; t++)
			fn(g, &g->cfg->segments[s].tables[t], &g->names.segs[s].tables[t], i++);
}

static void emit_group_ref(struct gen *g, const struct statctr_table_decl *t,
                           const struct mib_table_names *n, uint32_t i)
{
	fprintf(g->out, "%s%s", i ? ",\n                  " : "", n->group);
}

static void emit_reset_min_access(struct gen *g, const struct statctr_table_decl *t,
                                  const struct mib_table_names *n, uint32_t i)
{
	fprintf(g->out, "        OBJECT %s\n            MIN-ACCESS read-only\n", n->reset);
	fputs("            DESCRIPTION\n                \"Write access is not required.\"\n",
	      g->out);
}

static void emit_group(struct gen *g, const struct statctr_table_decl *t,
                       const struct mib_table_names *n, uint32_t i)
{
	fprintf(g->out, "%s OBJECT-GROUP\n    OBJECTS { %s,\n              %s,\n              %s",
	        n->group, n->row_name, n->disc, n->reset);
	for (uint32_t c = 0; c < t->ncolumns; c++)
		fprintf(g->out, ",\n              %s", n->columns[c]);
	for (uint32_t c = 0; n->hists && c < t->ncolumns; c++)
		if (t->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			fprintf(g->out,
			        ",\n              %s,\n              %s,\n              %s,\n"
			        "              %s",
			        n->hists[c].bucket_bound, n->hists[c].bucket_count,
			        n->hists[c].count, n->hists[c].sum);
	if (n->iv.table) {
		fprintf(g->out, ",\n              %s", n->iv.valid);
		for (uint32_t c = 0; c < t->ncolumns; c++)
			if (n->iv.counts[c])
				fprintf(g->out, ",\n              %s", n->iv.counts[c]);
		for (uint32_t c = 0; c < t->ncolumns; c++)
			if (n->iv.hists[c].count)
				fprintf(g->out, ",\n              %s", n->iv.hists[c].count);
	}
	if (n->bn.table) {
		fprintf(g->out, ",\n              %s,\n              %s", n->bn.row_index,
		        n->bn.disc);
		for (uint32_t c = 0; c < t->ncolumns; c++)
			fprintf(g->out, ",\n              %s", n->bn.columns[c]);
	}
	fputs(" }\n    STATUS      current\n", g->out);
	emit_description(g, "The objects of table %s.", t->name);
	fprintf(g->out, "    ::= { %s %" PRIu32 " }\n\n", g->names.groups,
	        MIB_MODULE_FIRST_GROUP + i);
}

static void emit_conformance(struct gen *g)
{
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %d }\n", g->names.compliances,
	        g->names.modid, MIB_MODULE_COMPLIANCES);
	fprintf(g->out, "%s OBJECT IDENTIFIER ::= { %s %d }\n\n", g->names.groups, g->names.modid,
	        MIB_MODULE_GROUPS);
	fprintf(g->out, "%s MODULE-COMPLIANCE\n    STATUS      current\n", g->names.compliance);
	emit_description(g, "An agent serving the tables of %s.", g->file);
	fputs("    MODULE -- this module\n        MANDATORY-GROUPS { ", g->out);
	for_each_table(g, emit_group_ref);
	fputs(" }\n", g->out);
	for_each_table(g, emit_reset_min_access);
	fprintf(g->out, "    ::= { %s %d }\n\n", g->names.compliances, MIB_MODULE_COMPLIANCE);
	for_each_table(g, emit_group);
}

/* ---- the module ------------------------------------------------------- */

static int prepare(struct gen *g, const struct statctr_config *cfg, long long revision_time)
{
	time_t when = (time_t)revision_time;
	struct tm tm;
	const char *slash = strrchr(cfg->file, '/');

	g->file = slash ? slash + 1 : cfg->file;
	gmtime_r(&when, &tm);
	strftime(g->date, sizeof(g->date), "%Y%m%d%H%MZ", &tm);
	mib_module_name(cfg, g->set->module, g->module, sizeof(g->module));
	find_kinds(g);
	if (!mib_module_names_init(&g->names, cfg))
		return -ENOMEM;
	return 0;
}

int mib_generate(FILE *out, const struct statctr_config *cfg, const struct mib_settings *set,
                 long long revision_time)
{
	struct gen g = {.out = out,
	                .cfg = cfg,
	                .set = set,
	                .data = "statctrData",
	                .histograms = "statctrHistograms",
	                .intervals = "statctrIntervals",
	                .by_name = "statctrRowsByName"};
	const char *anchor = NULL, *below = NULL;
	int err = prepare(&g, cfg, revision_time);

	/* Another root passed mib/settings.c's rule: it lies below an anchor. */
	if (err == 0 && strcmp(set->root_oid, MIB_ROOT_DEFAULT) != 0)
		anchor = mib_root_anchor(set->root_oid, &below);
	if (err == 0) {
		emit_imports(&g, anchor);
		emit_identity(&g);
		if (anchor && !emit_root_chain(&g, anchor, below))
			err = -ENOMEM;
	}
	for (uint32_t s = 0; err == 0 && s < cfg->nsegments; s++)
		if (!emit_segment(&g, s))
			err = -ENOMEM;
	if (err == 0) {
		emit_conformance(&g);
		fputs("END\n", out);
	}
	mib_module_names_free(&g.names, cfg);
	return err;
}

void mib_settings_free(struct mib_settings *set)
{
	free(set->module);
	free(set->root_oid);
	set->module = NULL;
	set->root_oid = NULL;
}
