/*
 * render_prom.c - the Prometheus text exposition format (version 0.0.4),
 * e.g. for node_exporter's textfile collector.  One metric family per
 * declared column, named statctr_<segment>_<table>_<column> in snake case,
 * "_total" for counters; one sample per row, labelled segment/table/row
 * (a dynamic table's present rows only, labelled by name: a series follows
 * an interface, and its re-add starting at zero is an ordinary counter reset).
 * A histogram column is a family of type histogram: per row its cumulative
 * <name>_bucket{le="B"} series (le="+Inf" last, equal to <name>_count), then
 * <name>_sum and <name>_count.  Families are printed whole (all rows of a
 * column), as the format requires.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

static void prom_begin(FILE *out, const struct walk_opts *opts)
{
}

static void prom_end(FILE *out)
{
}

static void prom_segment(FILE *out, const struct source *src)
{
}

static void metric_name(FILE *out, const struct table_view *tv, uint32_t col, const char *suffix)
{
	fputs("statctr_", out);
	prom_name_part(out, tv->src->info.name);
	fputc('_', out);
	prom_name_part(out, tv->info.name);
	fputc('_', out);
	prom_name_part(out, tv->columns[col].name);
	fputs(suffix, out);
	if (tv->columns[col].kind == STATCTR_COUNTER)
		fputs("_total", out);
}

static void family_header(FILE *out, const struct table_view *tv, uint32_t col, const char *suffix,
                          const char *help_prefix)
{
	const struct statctr_column_info *info = &tv->columns[col];

	fputs("# HELP ", out);
	metric_name(out, tv, col, suffix);
	fputc(' ', out);
	prom_help_text(out, help_prefix);
	if (info->description[0] != '\0')
		prom_help_text(out, info->description);
	else
		fprintf(out, "%s.%s", tv->info.name, info->name);
	if (info->units[0] != '\0') {
		fputs(" (", out);
		prom_help_text(out, info->units);
		fputc(')', out);
	}
	fputs("\n# TYPE ", out);
	metric_name(out, tv, col, suffix);
	fprintf(out, " %s\n", kind_name(info->kind));
}

static void sample_start(FILE *out, const struct table_view *tv, uint32_t row, uint32_t col,
                         const char *suffix)
{
	char buf[16];

	metric_name(out, tv, col, suffix);
	fputs("{segment=\"", out);
	prom_label_value(out, tv->src->info.name);
	fputs("\",table=\"", out);
	prom_label_value(out, tv->info.name);
	fputs("\",row=\"", out);
	prom_label_value(out, table_row_label(tv, row, buf));
	fputc('"', out);
}

static void print_value(FILE *out, enum statctr_kind kind, uint64_t counter, int64_t gauge)
{
	if (kind == STATCTR_GAUGE)
		fprintf(out, " %" PRId64 "\n", gauge);
	else
		fprintf(out, " %" PRIu64 "\n", counter);
}

static void column_family(FILE *out, const struct table_view *tv, uint32_t col)
{
	struct cell cell;

	family_header(out, tv, col, "", "");
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		table_cell(tv, r, col, &cell);
		sample_start(out, tv, r, col, "");
		fputc('}', out);
		print_value(out, cell.kind, cell.counter, cell.gauge);
	}
}

/*
 * le is the bound as an integer ("10"): Prometheus parses it as a float,
 * and promtool and the client libraries accept the integer form.
 */
static void hist_family(FILE *out, const struct table_view *tv, uint32_t col)
{
	struct hist h;

	family_header(out, tv, col, "", "");
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		uint64_t cumulative = 0;

		if (!table_row_present(tv, r) || !table_hist(tv, r, col, &h))
			continue;
		for (uint32_t b = 0; b <= h.nbuckets; b++) {
			cumulative += h.buckets[b];
			sample_start(out, tv, r, col, "_bucket");
			if (b == h.nbuckets)
				fputs(",le=\"+Inf\"}", out);
			else
				fprintf(out, ",le=\"%" PRIu64 "\"}", h.bounds[b]);
			fprintf(out, " %" PRIu64 "\n", cumulative);
		}
		sample_start(out, tv, r, col, "_sum");
		fprintf(out, "} %" PRIu64 "\n", h.sum);
		sample_start(out, tv, r, col, "_count");
		fprintf(out, "} %" PRIu64 "\n", h.count);
	}
}

static void slot_family(FILE *out, const struct table_view *tv, uint32_t col)
{
	enum statctr_kind kind = tv->columns[col].kind;
	uint32_t nslots = table_nslots(tv);
	char name[16];

	family_header(out, tv, col, "_by_slot", "Raw per-slot values (resets ignored): ");
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		for (uint32_t s = 0; s < nslots; s++) {
			uint64_t v = table_slot_value(tv, s, r, col);

			sample_start(out, tv, r, col, "_by_slot");
			/* "0".., "shared", then "cpu3" or "cpu0-3" */
			fprintf(out, ",slot=\"%s\"}", table_slot_name(tv, s, name));
			print_value(out, kind, v, (int64_t)v);
		}
	}
}

static void prom_table(FILE *out, const struct table_view *tv)
{
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		if (tv->columns[c].kind == STATCTR_HISTOGRAM) {
			hist_family(out, tv, c); /* no per-slot counts: render_json.c */
			continue;
		}
		column_family(out, tv, c);
		if (tv->opts->slots)
			slot_family(out, tv, c);
	}
}

const struct renderer render_prom = {
    .begin = prom_begin,
    .segment_begin = prom_segment,
    .table = prom_table,
    .segment_end = prom_segment,
    .end = prom_end,
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
