/*
 * render_text.c - aligned text for people: a table per declared table (one
 * line per row, one column per declared column; a dynamic table's present
 * rows only) for show, and one line per cell with delta and rate for watch
 * (fits narrow terminals).  Builds each
 * table as a grid of strings first, so widths fit the widest value.  Every
 * string from a segment goes through text_escape(): never raw to a terminal.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct grid {
	uint32_t ncols;
	uint32_t nrows; /* filled so far */
	size_t ncells;
	char **cells; /* row-major, allocated strings or NULL */
	int *width;
};

static void grid_free(struct grid *g)
{
	for (size_t i = 0; g->cells != NULL && i < g->ncells; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->width);
}

static void grid_set(struct grid *g, uint32_t col, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Cells hold names from segments: escaped (text_escape()) before they are measured. */
static void grid_set(struct grid *g, uint32_t col, const char *fmt, ...)
{
	char **cell = &g->cells[(size_t)g->nrows * g->ncols + col];
	char *raw = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&raw, fmt, ap);
	va_end(ap);
	*cell = len < 0 ? NULL : text_escape(raw);
	free(raw);
	if (*cell != NULL && (int)strlen(*cell) > g->width[col])
		g->width[col] = (int)strlen(*cell);
}

/*
 * A grid of @nrows by @ncols with @heads (NULL-terminated) as the first
 * cells of its head row; false, having said so, when out of memory.
 */
static bool grid_start(struct grid *g, uint32_t nrows, uint32_t ncols, const char *const *heads)
{
	g->ncols = ncols;
	g->nrows = 0;
	g->ncells = (size_t)nrows * ncols;
	g->cells = calloc(g->ncells, sizeof(*g->cells));
	g->width = calloc(ncols, sizeof(*g->width));
	if (g->cells == NULL || g->width == NULL) {
		grid_free(g);
		error_msg("out of memory");
		return false;
	}
	for (uint32_t c = 0; heads[c] != NULL; c++)
		grid_set(g, c, "%s", heads[c]);
	return true;
}

static int grid_line_width(const struct grid *g, uint32_t ncols)
{
	int total = 0;

	for (uint32_t c = 0; c < ncols; c++)
		total += g->width[c] + (c ? 2 : 0);
	return total;
}

/*
 * Fits the grid into @limit columns (0: no limit): drops columns from the
 * right while more than two remain, then cuts the first column (names).
 * Returns how many columns to print.
 */
static uint32_t grid_fit(struct grid *g, int limit)
{
	uint32_t ncols = g->ncols;

	if (limit <= 0)
		return ncols;
	while (ncols > 2 && grid_line_width(g, ncols) > limit)
		ncols--;
	if (grid_line_width(g, ncols) > limit) {
		g->width[0] -= grid_line_width(g, ncols) - limit;
		if (g->width[0] < 4)
			g->width[0] = 4;
	}
	return ncols;
}

/*
 * The first column is left-aligned (names), the others right (numbers).
 * @limit as for grid_fit().
 */
static void grid_print(FILE *out, struct grid *g, int limit)
{
	uint32_t ncols = grid_fit(g, limit);

	for (uint32_t r = 0; r < g->nrows; r++) {
		char **line = &g->cells[(size_t)r * g->ncols];
		uint32_t used = ncols;

		while (used > 1 && line[used - 1] == NULL)
			used--; /* no trailing blanks: a counter's line beside histograms */
		for (uint32_t c = 0; c < used; c++) {
			const char *cell = line[c];

			if (c == 0)
				fprintf(out, "%-*.*s", g->width[0], g->width[0], cell ? cell : "");
			else
				fprintf(out, "  %*s", g->width[c], cell ? cell : "");
		}
		fputc('\n', out);
	}
}

static void set_value(struct grid *g, uint32_t col, const struct cell *c)
{
	if (c->kind == STATCTR_KIND_GAUGE)
		grid_set(g, col, "%" PRId64, c->gauge);
	else
		grid_set(g, col, "%" PRIu64, c->counter);
}

/* A histogram's slot cell holds that slot's sum alone, its count being
 * spread over the bucket block: no per-slot value to show. */
static void set_slot_value(struct grid *g, uint32_t col, enum statctr_kind kind, uint64_t v)
{
	if (kind == STATCTR_KIND_HISTOGRAM)
		grid_set(g, col, "-");
	else if (kind == STATCTR_KIND_GAUGE)
		grid_set(g, col, "%" PRId64, (int64_t)v);
	else
		grid_set(g, col, "%" PRIu64, v);
}

static void add_slot_rows(struct grid *g, const struct table_view *tv, uint32_t row)
{
	uint32_t nslots = table_nslots(tv);
	char name[16];

	for (uint32_t s = 0; s < nslots; s++, g->nrows++) {
		if (s < tv->src->stats.nslots)
			grid_set(g, 0, "  slot %" PRIu32, s);
		else /* "shared", then the CPU slots: "cpu3", "cpu0-3" */
			grid_set(g, 0, "  %s", table_slot_name(tv, s, name));
		for (uint32_t c = 0; c < tv->info.ncolumns; c++)
			set_slot_value(g, c + 1, tv->columns[c].kind,
			               table_slot_value(tv, s, row, c));
	}
}

static void add_row(struct grid *g, const struct table_view *tv, uint32_t row)
{
	char buf[16];
	struct cell cell;

	grid_set(g, 0, "%s", table_row_label(tv, row, buf));
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		table_cell(tv, row, c, &cell);
		set_value(g, c + 1, &cell);
	}
	g->nrows++;
	if (tv->opts->slots)
		add_slot_rows(g, tv, row);
}

/* "name - description", and for a dynamic table how many of its rows are present. */
static void table_title(FILE *out, const struct table_view *tv, uint32_t npresent)
{
	const char *desc = tv->info.description;

	fputc('\n', out);
	text_print(out, "%s", tv->info.name);
	if (desc[0] != '\0')
		text_print(out, " - %s", desc);
	if (tv->info.dynamic)
		text_print(out, "%s%" PRIu32 " of %" PRIu32 " rows present", desc[0] ? "; " : " - ",
		           npresent, tv->info.nrows);
	fputc('\n', out);
}

/* Mean and quantiles of @h into columns @col.. (NQUANTILES + 1 of them). */
static void set_distribution(struct grid *g, uint32_t col, const struct hist *h)
{
	struct quantile q;
	double mean;

	if (!hist_mean(h, &mean)) {
		for (uint32_t i = 0; i <= NQUANTILES; i++)
			grid_set(g, col + i, "-");
		return;
	}
	grid_set(g, col, "%.1f", mean);
	for (uint32_t i = 0; i < NQUANTILES; i++) {
		hist_quantile(h, hist_quantiles[i], &q);
		if (q.above)
			grid_set(g, col + 1 + i, ">%" PRIu64, h->bounds[h->nbuckets - 1]);
		else
			grid_set(g, col + 1 + i, "%.1f", q.value);
	}
}

static void set_distribution_heads(struct grid *g, uint32_t col)
{
	grid_set(g, col, "mean");
	for (uint32_t i = 0; i < NQUANTILES; i++)
		grid_set(g, col + 1 + i, "%s", hist_quantile_names[i]);
}

/*
 * "  table.column (units) - what": the title of a histogram's grids.  They
 * are indented under their table: a line starting "row " follows a table's
 * title, for whatever reads show's text (bash completion, tests).
 */
static void hist_title(FILE *out, const struct table_view *tv, uint32_t col, const char *what)
{
	const struct statctr_column_info *info = &tv->columns[col];

	fputc('\n', out);
	text_print(out, "  %s.%s", tv->info.name, info->name);
	if (info->units[0] != '\0')
		text_print(out, " (%s)", info->units);
	text_print(out, " - %s", what);
	fputc('\n', out);
}

/* One line per present row: count, mean, quantiles. */
static void hist_summary(FILE *out, const struct table_view *tv, uint32_t col)
{
	struct grid g;
	struct hist h;
	char buf[16];

	if (!grid_start(&g, 1 + tv->info.nrows, 2 + NQUANTILES + 1,
	                (const char *const[]){"  row", "count", NULL}))
		return;
	set_distribution_heads(&g, 2);
	g.nrows++;
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r) || !table_hist(tv, r, col, &h))
			continue;
		grid_set(&g, 0, "  %s", table_row_label(tv, r, buf));
		grid_set(&g, 1, "%" PRIu64, h.count);
		set_distribution(&g, 2, &h);
		g.nrows++;
	}
	hist_title(out, tv, col, "count, mean and quantiles estimated within buckets");
	grid_print(out, &g, tv->opts->width);
	grid_free(&g);
}

/* --buckets: one line per row and bucket, not cumulative and cumulative. */
static void hist_buckets(FILE *out, const struct table_view *tv, uint32_t col)
{
	struct grid g;
	struct hist h;
	char buf[16];

	if (!table_hist(tv, 0, col, &h))
		return;
	if (!grid_start(&g, 1 + tv->info.nrows * (h.nbuckets + 1), 4,
	                (const char *const[]){"  row", "le", "count", "cumulative", NULL}))
		return;
	g.nrows++;
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		uint64_t cumulative = 0;

		if (!table_row_present(tv, r) || !table_hist(tv, r, col, &h))
			continue;
		for (uint32_t b = 0; b <= h.nbuckets; b++, g.nrows++) {
			cumulative += h.buckets[b];
			grid_set(&g, 0, "  %s", table_row_label(tv, r, buf));
			if (b == h.nbuckets)
				grid_set(&g, 1, "+Inf");
			else
				grid_set(&g, 1, "%" PRIu64, h.bounds[b]);
			grid_set(&g, 2, "%" PRIu64, h.buckets[b]);
			grid_set(&g, 3, "%" PRIu64, cumulative);
		}
	}
	hist_title(out, tv, col, "buckets: values <= le");
	grid_print(out, &g, tv->opts->width);
	grid_free(&g);
}

static void text_table(FILE *out, const struct table_view *tv)
{
	uint32_t per_row = tv->opts->slots ? table_nslots(tv) + 1 : 1;
	uint32_t npresent = 0;
	struct grid g;

	if (!grid_start(&g, 1 + tv->info.nrows * per_row, tv->info.ncolumns + 1,
	                (const char *const[]){"row", NULL}))
		return;
	for (uint32_t c = 0; c < tv->info.ncolumns; c++)
		grid_set(&g, c + 1, "%s", tv->columns[c].name);
	g.nrows++;
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		add_row(&g, tv, r);
		npresent++;
	}
	table_title(out, tv, npresent);
	grid_print(out, &g, tv->opts->width);
	grid_free(&g);
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		if (tv->columns[c].kind != STATCTR_KIND_HISTOGRAM)
			continue;
		hist_summary(out, tv, c);
		if (tv->opts->buckets)
			hist_buckets(out, tv, c);
	}
}

static void format_time(char *buf, size_t len, uint64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns == 0 || localtime_r(&secs, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static void text_segment_begin(FILE *out, const struct source *src)
{
	char created[32];
	uint64_t aborts;
	uint32_t ncpuslots = statctr_snap_cpu_slots(src->snap, &aborts);

	format_time(created, sizeof(created), src->info.created_ns);
	text_print(out, "segment %s (%s): writer %ld %s, %" PRIu32 " slots, created %s",
	           src->info.name, src->info.path, (long)src->info.creator_pid,
	           status_name(src->info.status), src->info.nslots, created);
	fputc('\n', out);
	if (ncpuslots != 0)
		fprintf(out, "%" PRIu32 " CPU slots, %" PRIu64 " restartable sequences aborted\n",
		        ncpuslots, aborts);
	if (src->stats.busy_slots != 0)
		fprintf(out, "warning: %" PRIu32 " slots could not be read consistently\n",
		        src->stats.busy_slots);
	if (src->info.writer_flags & STATCTR_WRITER_CTL_LOST)
		fputs("warning: the writer lost its control file (truncated): it serves no copy "
		      "requests, and resets may not hold until it restarts\n",
		      out);
}

static void text_segment_end(FILE *out, const struct source *src)
{
	fputc('\n', out);
}

static void text_begin(FILE *out, const struct walk_opts *opts)
{
	if (opts->raw)
		fputs("raw values: resets ignored\n", out);
}

const struct renderer render_text = {
    .begin = text_begin,
    .segment_begin = text_segment_begin,
    .table = text_table,
    .segment_end = text_segment_end,
};

/* A gauge's delta and rate stay blank: its level is all it means. "-": no
 * comparable previous snapshot (the first, a reset, a writer restart). */
static void set_delta(struct grid *g, const struct cell *c)
{
	if (c->kind == STATCTR_KIND_GAUGE)
		return;
	if (!c->has_delta) {
		grid_set(g, 2, "-");
		grid_set(g, 3, "-");
		return;
	}
	grid_set(g, 2, "%" PRIu64, c->counter_delta);
	grid_set(g, 3, "%.1f", c->rate);
}

static bool has_histogram(const struct table_view *tv)
{
	for (uint32_t c = 0; c < tv->info.ncolumns; c++)
		if (tv->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			return true;
	return false;
}

/*
 * watch: a histogram's mean and quantiles live, of the values recorded
 * during the last interval; of those since its reset when there is no
 * comparable previous snapshot (the first frame, a reset, a restart).
 */
static void set_live_distribution(struct grid *g, const struct table_view *tv, uint32_t row,
                                  uint32_t col)
{
	struct hist h;

	if (table_hist_interval(tv, row, col, &h) || table_hist(tv, row, col, &h))
		set_distribution(g, 4, &h);
}

static void long_table(FILE *out, const struct table_view *tv)
{
	bool hists = has_histogram(tv);
	struct grid g;
	struct cell cell;
	char buf[16];

	if (!grid_start(&g, 1 + tv->info.nrows * tv->info.ncolumns, hists ? 5 + NQUANTILES : 4,
	                (const char *const[]){tv->info.name, "value", "delta", "per second", NULL}))
		return;
	if (hists)
		set_distribution_heads(&g, 4);
	g.nrows++;
	for (uint32_t r = 0; r < tv->info.nrows; r++) {
		if (!table_row_present(tv, r))
			continue;
		for (uint32_t c = 0; c < tv->info.ncolumns; c++, g.nrows++) {
			table_cell(tv, r, c, &cell);
			grid_set(&g, 0, "  %s.%s", table_row_label(tv, r, buf),
			         tv->columns[c].name);
			set_value(&g, 1, &cell);
			set_delta(&g, &cell);
			if (cell.kind == STATCTR_KIND_HISTOGRAM)
				set_live_distribution(&g, tv, r, c);
		}
	}
	grid_print(out, &g, tv->opts->width);
	grid_free(&g);
}

const struct renderer render_text_long = {
    .begin = text_begin,
    .segment_begin = text_segment_begin,
    .table = long_table,
};

static const char *const list_heads[] = {"name",       "status",  "pid",  "slots", "cells",
                                         "generation", "created", "path", NULL};

void list_text(FILE *out, const struct list_item *items, size_t n)
{
	struct grid g;
	char created[32];

	if (!grid_start(&g, (uint32_t)n + 1, sizeof(list_heads) / sizeof(list_heads[0]) - 1,
	                list_heads))
		return;
	for (g.nrows = 1; g.nrows <= n; g.nrows++) {
		const struct list_item *it = &items[g.nrows - 1];

		grid_set(&g, 0, "%s", it->present ? it->info.name : it->entry->name);
		grid_set(&g, 1, "%s", list_status(it));
		grid_set(&g, 7, "%s", it->entry->path);
		if (!it->present)
			continue;
		format_time(created, sizeof(created), it->info.created_ns);
		grid_set(&g, 2, "%ld", (long)it->info.creator_pid);
		grid_set(&g, 3, "%" PRIu32, it->info.nslots);
		grid_set(&g, 4, "%" PRIu32, it->info.ncells);
		grid_set(&g, 5, "%016" PRIx64, it->info.generation);
		grid_set(&g, 6, "%s", created);
	}
	grid_print(out, &g, 0);
	grid_free(&g);
}
