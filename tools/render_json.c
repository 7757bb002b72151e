/*
 * render_json.c - the versioned JSON document of show and watch (schema in
 * docs/statctl.md).  One compact document per line.  Integers are printed
 * from their 64-bit values with PRIu64/PRId64: never through a double.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#define SCHEMA_VERSION 1

static bool first_segment;
static bool first_table;

static void json_kv_u64(FILE *out, const char *key, uint64_t v, bool comma)
{
	fprintf(out, "%s\"%s\":%" PRIu64, comma ? "," : "", key, v);
}

static void json_kv_str(FILE *out, const char *key, const char *v, bool comma)
{
	fprintf(out, "%s\"%s\":", comma ? "," : "", key);
	json_string(out, v);
}

static void json_begin(FILE *out, const struct walk_opts *opts)
{
	fprintf(out, "{\"schema\":\"statctr-show\",\"version\":%d,\"raw\":%s,\"segments\":[",
	        SCHEMA_VERSION, opts->raw ? "true" : "false");
	first_segment = true;
}

/*
 * The slots a row's "slots" arrays list, in order: "slot_names" (writer
 * slots by number, "shared", CPU slots "cpuN" or "cpuA-B"), and the CPU
 * slots' count and aborted restartable sequences.
 */
static void json_segment_slots(FILE *out, const struct source *src)
{
	uint64_t aborts;
	uint32_t ncpuslots = statctr_snap_cpu_slots(src->snap, &aborts);
	uint32_t n = src->stats.nslots + 1 + ncpuslots;
	char name[16];

	json_kv_u64(out, "cpu_slots", ncpuslots, true);
	json_kv_u64(out, "cpu_aborts", aborts, true);
	fputs(",\"slot_names\":[", out);
	for (uint32_t s = 0; s < n; s++) {
		if (statctr_snap_slot_name(src->snap, s, name, sizeof(name)) < 0)
			name[0] = '\0';
		fputs(s ? "," : "", out);
		json_string(out, name);
	}
	fputc(']', out);
}

static void json_segment_begin(FILE *out, const struct source *src)
{
	const struct statctr_seg_info *info = &src->info;

	fputs(first_segment ? "{" : ",{", out);
	first_segment = false;
	json_kv_str(out, "name", info->name, false);
	json_kv_str(out, "path", info->path, true);
	json_kv_str(out, "status", status_name(info->status), true);
	json_kv_u64(out, "creator_pid", (uint64_t)info->creator_pid, true);
	json_kv_u64(out, "generation", info->generation, true);
	json_kv_u64(out, "created_ns", info->created_ns, true);
	json_kv_u64(out, "oid", info->oid, true);
	json_kv_u64(out, "nslots", info->nslots, true);
	json_kv_u64(out, "ncells", info->ncells, true);
	json_kv_u64(out, "taken_ns", src->stats.taken_ns, true);
	json_kv_u64(out, "busy_slots", src->stats.busy_slots, true);
	json_kv_u64(out, "dead_torn_slots", src->stats.dead_torn_slots, true);
	json_kv_u64(out, "writer_flags", info->writer_flags, true);
	json_segment_slots(out, src);
	epochs_json(out, src->view);
	fputs(",\"tables\":[", out);
	first_table = true;
}

static void json_segment_end(FILE *out, const struct source *src)
{
	fputs("]}", out);
}

static void json_end(FILE *out)
{
	fputs("]}\n", out);
}

/* A histogram column's "bounds": its finite buckets' inclusive upper bounds. */
static void json_bounds(FILE *out, const struct table_view *tv, uint32_t col)
{
	struct hist h;

	if (!table_hist(tv, 0, col, &h))
		return;
	fputs(",\"bounds\":[", out);
	for (uint32_t b = 0; b < h.nbuckets; b++)
		fprintf(out, "%s%" PRIu64, b ? "," : "", h.bounds[b]);
	fputc(']', out);
}

static void json_columns(FILE *out, const struct table_view *tv)
{
	fputs(",\"columns\":[", out);
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		const struct statctr_column_info *col = &tv->columns[c];

		fputs(c ? ",{" : "{", out);
		json_kv_str(out, "name", col->name, false);
		json_kv_str(out, "kind", statctr_kind_name(col->kind), true);
		json_kv_str(out, "units", col->units, true);
		json_kv_str(out, "description", col->description, true);
		json_bounds(out, tv, c);
		fputc('}', out);
	}
	fputc(']', out);
}

/* What one of a row's per-column objects holds. */
enum row_field {
	FIELD_VALUE,
	FIELD_DISCONTINUITY,
	FIELD_DELTA,
	FIELD_RATE,
};

static void json_number(FILE *out, enum statctr_kind kind, uint64_t counter, int64_t gauge)
{
	if (kind == STATCTR_KIND_GAUGE)
		fprintf(out, "%" PRId64, gauge);
	else
		fprintf(out, "%" PRIu64, counter);
}

static void json_cell_field(FILE *out, const struct cell *c, enum row_field field)
{
	switch (field) {
	case FIELD_VALUE:
		json_number(out, c->kind, c->counter, c->gauge);
		break;
	case FIELD_DISCONTINUITY:
		fprintf(out, "%" PRIu64, c->disc_ns);
		break;
	case FIELD_DELTA: /* counters and histograms: a gauge has none */
		fprintf(out, "%" PRIu64, c->counter_delta);
		break;
	case FIELD_RATE:
		fprintf(out, "%.3f", c->rate);
		break;
	}
}

/* "key":{"column":field,...}; deltas and rates only for cells that have one
 * (never a gauge: its level is its value). */
static void json_row_object(FILE *out, const struct table_view *tv, uint32_t row, const char *key,
                            enum row_field field)
{
	bool first = true;
	struct cell cell;

	fprintf(out, ",\"%s\":{", key);
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		table_cell(tv, row, c, &cell);
		if ((field == FIELD_DELTA || field == FIELD_RATE) && !cell.has_delta)
			continue;
		fputs(first ? "" : ",", out);
		first = false;
		json_string(out, tv->columns[c].name);
		fputc(':', out);
		json_cell_field(out, &cell, field);
	}
	fputc('}', out);
}

/*
 * "histograms":{"column":{"count","sum","buckets":[per finite bucket, not
 * cumulative],"inf"}}, for the rows of a table with histogram columns.
 */
static void json_row_histograms(FILE *out, const struct table_view *tv, uint32_t row)
{
	bool first = true;
	struct hist h;

	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		if (!table_hist(tv, row, c, &h))
			continue;
		fputs(first ? ",\"histograms\":{" : ",", out);
		first = false;
		json_string(out, tv->columns[c].name);
		fputs(":{", out);
		json_kv_u64(out, "count", h.count, false);
		json_kv_u64(out, "sum", h.sum, true);
		fputs(",\"buckets\":[", out);
		for (uint32_t b = 0; b < h.nbuckets; b++)
			fprintf(out, "%s%" PRIu64, b ? "," : "", h.buckets[b]);
		fputc(']', out);
		json_kv_u64(out, "inf", h.buckets[h.nbuckets], true);
		fputc('}', out);
	}
	if (!first)
		fputc('}', out);
}

/* A histogram's per-slot cells hold sums alone (its counts are spread over
 * its bucket block): histograms have no per-slot values. */
static void json_row_slots(FILE *out, const struct table_view *tv, uint32_t row)
{
	bool first = true;

	fputs(",\"slots\":{", out);
	for (uint32_t c = 0; c < tv->info.ncolumns; c++) {
		if (tv->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			continue;
		fputs(first ? "" : ",", out);
		first = false;
		json_string(out, tv->columns[c].name);
		fputs(":[", out);
		for (uint32_t s = 0; s < table_nslots(tv); s++) {
			uint64_t v = table_slot_value(tv, s, row, c);

			fputs(s ? "," : "", out);
			json_number(out, tv->columns[c].kind, v, (int64_t)v);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void json_row(FILE *out, const struct table_view *tv, uint32_t row, bool first)
{
	const char *name = table_row_name(tv, row);

	fprintf(out, "%s{\"index\":%" PRIu32 ",\"name\":", first ? "" : ",", row);
	if (name != NULL)
		json_string(out, name);
	else
		fputs("null", out);
	json_row_object(out, tv, row, "values", FIELD_VALUE);
	json_row_object(out, tv, row, "discontinuity_ns", FIELD_DISCONTINUITY);
	json_row_histograms(out, tv, row);
	if (tv->src->prev != NULL) {
		json_row_object(out, tv, row, "deltas", FIELD_DELTA);
		json_row_object(out, tv, row, "rates", FIELD_RATE);
	}
	if (tv->opts->slots)
		json_row_slots(out, tv, row);
	fputc('}', out);
}

static void json_table(FILE *out, const struct table_view *tv)
{
	fputs(first_table ? "{" : ",{", out);
	first_table = false;
	json_kv_str(out, "name", tv->info.name, false);
	json_kv_str(out, "description", tv->info.description, true);
	json_kv_u64(out, "oid", tv->info.oid, true);
	json_kv_u64(out, "nrows", tv->info.nrows, true);
	fprintf(out, ",\"dynamic\":%s", tv->info.dynamic ? "true" : "false");
	json_columns(out, tv);
	fputs(",\"rows\":[", out);
	for (uint32_t r = 0, shown = 0; r < tv->info.nrows; r++)
		if (table_row_present(tv, r))
			json_row(out, tv, r, shown++ == 0);
	fputs("]}", out);
}

const struct renderer render_json = {
    .begin = json_begin,
    .segment_begin = json_segment_begin,
    .table = json_table,
    .segment_end = json_segment_end,
    .end = json_end,
};

void list_json(FILE *out, const struct list_item *items, size_t n)
{
	fprintf(out, "{\"schema\":\"statctr-list\",\"version\":%d,\"segments\":[", SCHEMA_VERSION);
	for (size_t i = 0; i < n; i++) {
		const struct list_item *it = &items[i];

		fputs(i ? ",{" : "{", out);
		json_kv_str(out, "name", it->present ? it->info.name : it->entry->name, false);
		json_kv_str(out, "path", it->entry->path, true);
		json_kv_str(out, "status", list_status(it), true);
		fprintf(out, ",\"declared\":%s", it->entry->declared ? "true" : "false");
		if (it->present) {
			json_kv_u64(out, "creator_pid", (uint64_t)it->info.creator_pid, true);
			json_kv_u64(out, "generation", it->info.generation, true);
			json_kv_u64(out, "created_ns", it->info.created_ns, true);
			json_kv_u64(out, "oid", it->info.oid, true);
			json_kv_u64(out, "nslots", it->info.nslots, true);
			json_kv_u64(out, "ncells", it->info.ncells, true);
			json_kv_u64(out, "ntables", it->info.ntables, true);
			json_kv_u64(out, "size", it->info.size, true);
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
}
