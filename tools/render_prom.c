/*
 * render_prom.c - the Prometheus text exposition format (version 0.0.4),
 * e.g. for node_exporter's textfile collector, or OpenMetrics 1.0
 * (walk_opts.openmetrics: statctr-exporter, when the scraper asks).  One metric family per
 * column, named by mib/promnames.c (statctr_<segment>_<table>_<column> in
 * snake case, "_total" for counters: the rule check-config checks); one
 * sample per row, labelled segment/table/row (a dynamic table's present
 * rows only, labelled by name: a series follows an interface, and its
 * re-add starting at zero is an ordinary counter reset).  A histogram
 * column is a family of type histogram: per row its cumulative
 * <name>_bucket{le="B"} series (le="+Inf" last, equal to <name>_count),
 * then <name>_sum and <name>_count.  Families are printed whole (all rows
 * of a column), as the format requires.
 *
 * One output never names two families alike, whatever the segments hold
 * (two segments of one name, a segment of another configuration, names
 * that fold together): a column whose names are taken already, or that
 * prom_column_names() refuses, is left out and reported.  Then
 * statctr_segment_readable says per segment whether it could be read.
 *
 * OpenMetrics differs only where the format does: a counter's family is
 * named without "_total" (its samples keep it) and holds each row's
 * <base>_created right after its _total, instead of the gauge family of
 * 0.0.4; a family whose name ends with its column's units gets # UNIT;
 * HELP escapes double quotes.  The caller writes # EOF.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "promnames.h"
#include "walk.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>

/* The names given out in this output (tsearch() tree of strdup()ed strings). */
static void *taken;

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool is_taken(const char *name)
{
	return tfind(name, &taken, by_name) != NULL;
}

static void take(const char *name)
{
	char *copy = strdup(name);
	void *node = copy ? tsearch(copy, &taken, by_name) : NULL;

	if (node == NULL || *(char **)node != copy)
		free(copy); /* out of memory (a later twin goes out then), or taken */
}

static void prom_begin(FILE *out, const struct walk_opts *opts)
{
	take(PROM_READABLE_METRIC);
}

static void prom_end(FILE *out)
{
	tdestroy(taken, free);
	taken = NULL;
}

/* Whether column @col's names are free: then they are taken for it; else it is reported. */
static bool claim_column(const struct table_view *tv, uint32_t col, struct prom_column *pc)
{
	const char *why = prom_column_names(pc, tv->src->info.name, tv->info.name,
	                                    tv->columns[col].name, tv->columns[col].kind);

	for (unsigned i = 0; why == NULL && i < pc->n; i++)
		if (is_taken(pc->names[i]))
			why = "the name is another column's in this output";
	if (why != NULL) {
		error_msg("segment '%s' (%s): table '%s' column '%s' left out of the Prometheus "
		          "output: %s: %s",
		          tv->src->info.name, tv->src->path ? tv->src->path : tv->src->label,
		          tv->info.name, tv->columns[col].name, pc->names[PROM_FAMILY], why);
		return false;
	}
	for (unsigned i = 0; i < pc->n; i++)
		take(pc->names[i]);
	return true;
}

/*
 * OpenMetrics names a counter's family without its "_total" (the sample
 * has it): @name with "_total" taken off into @buf when @om and @type is
 * "counter", else @name.
 */
static const char *family_name(const char *name, const char *type, bool om,
                               char buf[static PROM_NAME_MAX])
{
	size_t n = strlen(name);

	if (!om || strcmp(type, "counter") != 0 || n < 6 || strcmp(name + n - 6, "_total") != 0)
		return name;
	snprintf(buf, PROM_NAME_MAX, "%.*s", (int)(n - 6), name);
	return buf;
}

/* OpenMetrics' # UNIT: only a unit the family's name ends with ("_bytes"), as the format requires.
 */
static void family_unit(FILE *out, const char *family, const char *units)
{
	size_t n = strlen(family), u = strlen(units);

	if (u == 0 || u + 1 >= n || strspn(units, "abcdefghijklmnopqrstuvwxyz0123456789_") != u)
		return;
	if (family[n - u - 1] == '_' && strcmp(family + n - u, units) == 0)
		fprintf(out, "# UNIT %s %s\n", family, units);
}

static void print_created(FILE *out, uint64_t ns)
{
	fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/* @type: the family's TYPE, or NULL for the column's kind. */
static void family_header(FILE *out, const struct table_view *tv, uint32_t col, const char *name,
                          const char *help_prefix, const char *type)
{
	const struct statctr_column_info *info = &tv->columns[col];
	void (*help)(FILE *, const char *) = tv->opts->openmetrics ? om_help_text : prom_help_text;
	char buf[PROM_NAME_MAX];

	if (type == NULL)
		type = statctr_kind_name(info->kind);
	name = family_name(name, type, tv->opts->openmetrics, buf);
	fprintf(out, "# HELP %s ", name);
	help(out, help_prefix);
	if (info->description[0] != '\0')
		help(out, info->description);
	else
		fprintf(out, "%s.%s", tv->info.name, info->name);
	if (info->units[0] != '\0') {
		fputs(" (", out);
		help(out, info->units);
		fputc(')', out);
	}
	fprintf(out, "\n# TYPE %s %s\n", name, type);
	if (tv->opts->openmetrics)
		family_unit(out, name, info->units);
}

static void sample_start(FILE *out, const struct table_view *tv, uint32_t row, const char *name)
{
	char buf[16];

	fprintf(out, "%s{segment=\"", name);
	prom_label_value(out, tv->src->info.name);
	fputs("\",table=\"", out);
	prom_label_value(out, tv->info.name);
	fputs("\",row=\"", out);
	prom_label_value(out, table_row_label(tv, row, buf));
	fputc('"', out);
}

static void print_value(FILE *out, enum statctr_kind kind, uint64_t counter, int64_t gauge)
{
	if (kind == STATCTR_KIND_GAUGE)
		fprintf(out, " %" PRId64 "\n", gauge);
	else
		fprintf(out, " %" PRIu64 "\n", counter);
}

/*
 * Each present row's samples of column @col: its value in the family when
 * @values, and a counter's discontinuity time as <name>_created when
 * @created (OpenMetrics: right after its _total, in its family).
 */
static void row_samples(FILE *out, const struct table_view *tv, uint32_t col,
                        const struct prom_column *pc, bool values, bool created)
{
	struct cell cell;

	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		table_cell(tv, r, col, &cell);
		if (values) {
			sample_start(out, tv, r, pc->names[PROM_FAMILY]);
			fputc('}', out);
			print_value(out, cell.kind, cell.counter, cell.gauge);
		}
		if (!created || cell.kind != STATCTR_KIND_COUNTER)
			continue;
		sample_start(out, tv, r, pc->names[PROM_CREATED]);
		fputc('}', out);
		print_created(out, cell.disc_ns);
	}
}

static void column_family(FILE *out, const struct table_view *tv, uint32_t col,
                          const struct prom_column *pc)
{
	family_header(out, tv, col, pc->names[PROM_FAMILY], "", NULL);
	row_samples(out, tv, col, pc, true, tv->opts->openmetrics);
}

/*
 * A counter's discontinuity time, OpenMetrics' <name>_created, as a gauge
 * family of its own (the 0.0.4 text format has no _created series): an
 * ingestor tells a reset (a new time) from a wrap (the same time).
 */
static void created_family(FILE *out, const struct table_view *tv, uint32_t col,
                           const struct prom_column *pc)
{
	family_header(out, tv, col, pc->names[PROM_CREATED],
	              "Discontinuity time, seconds since the epoch: ", "gauge");
	row_samples(out, tv, col, pc, false, true);
}

/*
 * le is the bound as an integer ("10"): Prometheus parses it as a float,
 * and promtool and the client libraries accept the integer form.
 */
static void hist_family(FILE *out, const struct table_view *tv, uint32_t col,
                        const struct prom_column *pc)
{
	struct hist h;

	family_header(out, tv, col, pc->names[PROM_FAMILY], "", NULL);
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		uint64_t cumulative = 0;

		if (!table_row_present(tv, r) || !table_hist(tv, r, col, &h))
			continue;
		for (uint32_t b = 0; b <= h.nbuckets; b++) {
			cumulative += h.buckets[b];
			sample_start(out, tv, r, pc->names[PROM_BUCKET]);
			if (b == h.nbuckets)
				fputs(",le=\"+Inf\"}", out);
			else
				fprintf(out, ",le=\"%" PRIu64 "\"}", h.bounds[b]);
			fprintf(out, " %" PRIu64 "\n", cumulative);
		}
		sample_start(out, tv, r, pc->names[PROM_SUM]);
		fprintf(out, "} %" PRIu64 "\n", h.sum);
		sample_start(out, tv, r, pc->names[PROM_COUNT]);
		fprintf(out, "} %" PRIu64 "\n", h.count);
	}
}

static void slot_family(FILE *out, const struct table_view *tv, uint32_t col,
                        const struct prom_column *pc)
{
	enum statctr_kind kind = tv->columns[col].kind;
	uint32_t nslots = table_nslots(tv);
	char name[16];

	family_header(out, tv, col, pc->names[PROM_BY_SLOT],
	              "Raw per-slot values (resets ignored): ", NULL);
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		for (uint32_t s = 0; s < nslots; s++) {
			uint64_t v = table_slot_value(tv, s, r, col);

			sample_start(out, tv, r, pc->names[PROM_BY_SLOT]);
			/* "0".., "shared", then "cpu3" or "cpu0-3" */
			fprintf(out, ",slot=\"%s\"}", table_slot_name(tv, s, name));
			print_value(out, kind, v, (int64_t)v);
		}
	}
}

static void prom_table(FILE *out, const struct table_view *tv)
{
	struct prom_column pc;

	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		if (!claim_column(tv, c, &pc))
			continue;
		if (tv->columns[c].kind == STATCTR_KIND_HISTOGRAM) {
			hist_family(out, tv, c, &pc); /* no per-slot counts: render_json.c */
			continue;
		}
		column_family(out, tv, c, &pc);
		if (tv->columns[c].kind == STATCTR_KIND_COUNTER && !tv->opts->openmetrics)
			created_family(out, tv, c, &pc);
		if (tv->opts->slots)
			slot_family(out, tv, c, &pc);
	}
}

/* PROM_READABLE_METRIC: per source, 1 when read, 0 when not (stderr said why). */
static void prom_readable(FILE *out, const struct source *srcs, size_t n)
{
	fputs("# HELP " PROM_READABLE_METRIC
	      " 1 when statctl read the segment, 0 when it could not (its error is on stderr)\n"
	      "# TYPE " PROM_READABLE_METRIC " gauge\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		bool read = srcs[i].snap != NULL && !srcs[i].failed;

		fputs(PROM_READABLE_METRIC "{segment=\"", out);
		prom_label_value(out, read ? srcs[i].info.name : srcs[i].label);
		fputs("\",path=\"", out);
		prom_label_value(out, read           ? srcs[i].info.path
		                      : srcs[i].path ? srcs[i].path
		                                     : srcs[i].label);
		fprintf(out, "\"} %d\n", read);
	}
}

const struct renderer render_prom = {
    .begin = prom_begin,
    .table = prom_table,
    .end = prom_end,
    .readable = prom_readable,
};

enum list_metric {
	METRIC_UP,
	METRIC_SLOTS,
	METRIC_CELLS,
	METRIC_PID,
	METRIC_CREATED,
};

static const struct {
	const char *name;
	const char *help;
} list_metrics[] = {
    [METRIC_UP] = {"statctr_segment_up", "1 when the segment is active (its writer is running)"},
    [METRIC_SLOTS] = {"statctr_segment_slots", "Writer slots of the segment"},
    [METRIC_CELLS] = {"statctr_segment_cells", "Cells (counters and gauges) per slot"},
    [METRIC_PID] = {"statctr_segment_writer_pid", "Process that created the segment"},
    [METRIC_CREATED] = {"statctr_segment_created_seconds",
                        "Creation time of the segment, seconds since the epoch"},
};

static void list_sample(FILE *out, enum list_metric m, const struct list_item *it)
{
	const struct statctr_seg_info *info = &it->info;

	fprintf(out, "%s{segment=\"", list_metrics[m].name);
	prom_label_value(out, it->present ? info->name : it->entry->name);
	fputs("\",path=\"", out);
	prom_label_value(out, it->entry->path);
	fprintf(out, "\",status=\"%s\"} ", list_status(it));
	if (m == METRIC_UP)
		fprintf(out, "%d\n", it->present && info->status == STATCTR_SEG_ACTIVE);
	else if (m == METRIC_SLOTS)
		fprintf(out, "%" PRIu32 "\n", info->nslots);
	else if (m == METRIC_CELLS)
		fprintf(out, "%" PRIu32 "\n", info->ncells);
	else if (m == METRIC_PID)
		fprintf(out, "%ld\n", (long)info->creator_pid);
	else
		fprintf(out, "%" PRIu64 ".%09" PRIu64 "\n", info->created_ns / 1000000000u,
		        info->created_ns % 1000000000u);
}

void list_prom(FILE *out, const struct list_item *items, size_t n)
{
	for (int m = METRIC_UP; m <= METRIC_CREATED; m++) {
		fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", list_metrics[m].name,
		        list_metrics[m].help, list_metrics[m].name);
		for (size_t i = 0; i < n; i++)
			if (m == METRIC_UP || items[i].present)
				list_sample(out, (enum list_metric)m, &items[i]);
	}
}
