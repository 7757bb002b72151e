/*
 * walk.c - the snapshot of a source and the one walk over its tables that
 * every output format shares, statctl's and statctr-exporter's (walk.h).
 * A renderer sees a table through table_cell()/table_row_label()/
 * table_slot_value() and picks its own order (rows first for text and
 * JSON, columns first for Prometheus).  Reads only; never resets, never
 * opens a segment.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "walk.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* The one status vocabulary of the library, statctl, the MIB and the docs
 * (docs/statctl.md, "Segment status"); list_status() adds "absent". */
static const char *const status_names[] = {
    [STATCTR_SEG_ACTIVE] = "active",
    [STATCTR_SEG_CLOSED] = "closed",
    [STATCTR_SEG_GONE] = "gone",
    [STATCTR_SEG_STALE] = "stale",
};

const char *status_name(enum statctr_seg_status status)
{
	size_t i = (size_t)status;

	if (i >= sizeof(status_names) / sizeof(status_names[0]) || status_names[i] == NULL)
		return "unknown";
	return status_names[i];
}

const char *list_status(const struct list_item *item)
{
	return item->present ? status_name(item->info.status) : "absent";
}

/* The new snapshot goes into the memory of the one before the previous.
 * A source that could not be opened (reported then) fails again, silently. */
int source_snap(struct source *src)
{
	struct statctr_snap *snap = src->prev;
	int err;

	if (src->view == NULL)
		return -EBADF;
	err = statctr_snap_retake(src->view, &snap);

	src->prev = NULL;
	src->failed = err < 0;
	if (err < 0) {
		error_msg("segment '%s': snapshot: %s", src->label, statctr_errmsg());
		return err;
	}
	src->prev = src->snap;
	src->snap = snap;
	statctr_view_info(src->view, &src->info);
	statctr_snap_stats(snap, &src->stats);
	return 0;
}

int find_table(const struct statctr_view *view, const char *name, uint32_t *tp)
{
	struct statctr_table_info info;

	for (uint32_t t = 0; statctr_view_table(view, t, &info) == 0; t++) {
		if (strcmp(info.name, name) == 0) {
			*tp = t;
			return 0;
		}
	}
	return -ENOENT;
}

static statctr_id cell_id(const struct table_view *tv, uint32_t row, uint32_t col)
{
	return tv->info.first_cell + row * tv->stride + tv->col_ids[col];
}

/* A histogram's value is its count, always since its reset: the library
 * has no raw bucket values, and a raw sum beside a reset count would lie. */
static uint64_t counter_value(const struct statctr_snap *snap, statctr_id id,
                              enum statctr_kind kind, bool raw)
{
	if (kind == STATCTR_KIND_HISTOGRAM)
		return statctr_snap_hist_count(snap, id);
	return raw ? statctr_snap_counter_raw(snap, id) : statctr_snap_counter(snap, id);
}

/*
 * Deltas only between snapshots of one generation and one counting period.
 * A dynamic row must be the same incarnation in both, raw or not: its add
 * time is part of its discontinuity, so an index removed and re-added in
 * between (another interface, perhaps) never yields a delta.
 */
static bool comparable(const struct table_view *tv, uint32_t row, statctr_id id)
{
	const struct statctr_snap *prev = tv->src->prev;
	struct statctr_snap_stats ps;

	if (prev == NULL || tv->interval_s <= 0)
		return false;
	statctr_snap_stats(prev, &ps);
	if (ps.generation != tv->src->stats.generation)
		return false;
	if (tv->info.dynamic && statctr_snap_row_name(prev, tv->index, row) == NULL)
		return false;
	return (tv->opts->raw && !tv->info.dynamic) ||
	       statctr_snap_discontinuity(prev, id) ==
	           statctr_snap_discontinuity(tv->src->snap, id);
}

/* A gauge is a level: its change per second means nothing, it has no delta. */
static void fill_delta(const struct table_view *tv, uint32_t row, statctr_id id, struct cell *c)
{
	const struct statctr_snap *prev = tv->src->prev;

	c->has_delta = c->kind != STATCTR_KIND_GAUGE && comparable(tv, row, id);
	if (!c->has_delta)
		return;
	c->counter_delta = c->counter - counter_value(prev, id, c->kind, tv->opts->raw);
	c->rate = (double)c->counter_delta / tv->interval_s;
}

void table_cell(const struct table_view *tv, uint32_t row, uint32_t col, struct cell *out)
{
	const struct statctr_snap *snap = tv->src->snap;
	statctr_id id = cell_id(tv, row, col);

	memset(out, 0, sizeof(*out));
	out->kind = tv->columns[col].kind;
	out->disc_ns = statctr_snap_discontinuity(snap, id);
	if (out->kind == STATCTR_KIND_GAUGE)
		out->gauge = statctr_snap_gauge(snap, id);
	else if (out->kind == STATCTR_KIND_COUNTER && tv->src->epoch_from != 0)
		out->counter = epoch_count(tv->src, id);
	else if (out->kind == STATCTR_KIND_HISTOGRAM && tv->src->epoch_from != 0)
		out->counter = epoch_hist_count(tv->src, id);
	else
		out->counter = counter_value(snap, id, out->kind, tv->opts->raw);
	fill_delta(tv, row, id, out);
}

static void hist_read(struct hist *h, const struct statctr_snap *snap, statctr_id id)
{
	for (uint32_t b = 0; b <= h->nbuckets; b++)
		h->buckets[b] = statctr_snap_hist_bucket(snap, id, b);
	h->count = statctr_snap_hist_count(snap, id);
	h->sum = statctr_snap_hist_sum(snap, id);
}

bool table_hist(const struct table_view *tv, uint32_t row, uint32_t col, struct hist *out)
{
	statctr_id id = cell_id(tv, row, col);

	if (tv->columns[col].kind != STATCTR_KIND_HISTOGRAM)
		return false;
	out->nbuckets = statctr_view_hist_buckets(tv->src->view, id, &out->bounds);
	if (out->nbuckets == 0 || out->nbuckets > STATCTR_MAX_BUCKETS)
		return false;
	if (tv->src->epoch_from != 0)
		epoch_hist(tv->src, id, out); /* show --since/--epoch: the interval's values */
	else
		hist_read(out, tv->src->snap, id);
	return true;
}

/* Differences mod 2^64, as counter deltas: the totals only grow between resets. */
bool table_hist_interval(const struct table_view *tv, uint32_t row, uint32_t col, struct hist *out)
{
	statctr_id id = cell_id(tv, row, col);
	struct hist prev;

	if (!table_hist(tv, row, col, out) || !comparable(tv, row, id))
		return false;
	prev.nbuckets = out->nbuckets;
	hist_read(&prev, tv->src->prev, id);
	for (uint32_t b = 0; b <= out->nbuckets; b++)
		out->buckets[b] -= prev.buckets[b];
	out->count -= prev.count;
	out->sum -= prev.sum;
	return true;
}

const double hist_quantiles[NQUANTILES] = {0.5, 0.9, 0.99};
const char *const hist_quantile_names[NQUANTILES] = {"p50", "p90", "p99"};

bool hist_mean(const struct hist *h, double *mean)
{
	if (h->count == 0)
		return false;
	*mean = (double)h->sum / (double)h->count;
	return true;
}

/*
 * Prometheus' bucketQuantile(): the rank q x count falls in the first
 * bucket whose cumulative count reaches it; the values of that bucket are
 * taken as spread evenly between its bounds, so the estimate is off by at
 * most the bucket's width (docs/statctl.md).
 */
bool hist_quantile(const struct hist *h, double q, struct quantile *out)
{
	double rank = q * (double)h->count;
	uint64_t below = 0;
	uint32_t b = 0;

	if (h->count == 0)
		return false;
	while (b < h->nbuckets && (double)(below + h->buckets[b]) < rank)
		below += h->buckets[b++];
	out->above = b == h->nbuckets;
	if (out->above) {
		out->value = (double)h->bounds[h->nbuckets - 1];
		return true;
	}
	double lower = b == 0 ? 0 : (double)h->bounds[b - 1];
	double upper = (double)h->bounds[b];

	out->value = lower + (upper - lower) * (rank - (double)below) / (double)h->buckets[b];
	return true;
}

bool table_row_present(const struct table_view *tv, uint32_t row)
{
	return !tv->info.dynamic || statctr_snap_row_name(tv->src->snap, tv->index, row) != NULL;
}

/* The snapshot's name: a dynamic row's is read with its values (one incarnation). */
const char *table_row_name(const struct table_view *tv, uint32_t row)
{
	return statctr_snap_row_name(tv->src->snap, tv->index, row);
}

const char *table_row_label(const struct table_view *tv, uint32_t row, char buf[static 16])
{
	const char *name = table_row_name(tv, row);

	if (name != NULL)
		return name;
	snprintf(buf, 16, "%" PRIu32, row);
	return buf;
}

uint32_t table_nslots(const struct table_view *tv)
{
	return tv->src->stats.nslots + 1 + statctr_snap_cpu_slots(tv->src->snap, NULL);
}

const char *table_slot_name(const struct table_view *tv, uint32_t s, char buf[16])
{
	if (statctr_snap_slot_name(tv->src->snap, s, buf, 16) < 0)
		snprintf(buf, 16, "%" PRIu32, s);
	return buf;
}

uint64_t table_slot_value(const struct table_view *tv, uint32_t slot, uint32_t row, uint32_t col)
{
	return statctr_snap_slot_value(tv->src->snap, slot, cell_id(tv, row, col));
}

static double interval_of(const struct source *src)
{
	struct statctr_snap_stats ps;

	if (src->prev == NULL)
		return 0;
	statctr_snap_stats(src->prev, &ps);
	if (src->stats.taken_ns <= ps.taken_ns)
		return 0;
	return (double)(src->stats.taken_ns - ps.taken_ns) / 1e9;
}

bool field_selected(const struct field_globs *f, const char *segment, const char *table,
                    const char *column)
{
	char *name;
	bool included = true, excluded = false;

	if (f == NULL || f->n == 0)
		return true;
	if (asprintf(&name, "%s.%s.%s", segment, table, column) < 0)
		return true; /* out of memory: shown rather than silently left out */
	for (size_t i = 0; i < f->n; i++)
		if (f->glob[i][0] != '!')
			included = false;
	for (size_t i = 0; i < f->n && !excluded; i++) {
		if (f->glob[i][0] == '!')
			excluded = fnmatch(f->glob[i] + 1, name, 0) == 0;
		else if (!included)
			included = fnmatch(f->glob[i], name, 0) == 0;
	}
	free(name);
	return included && !excluded;
}

/* The table's columns that walk_opts.fields selects, in declaration order. */
static int load_table(struct table_view *tv, const struct source *src, uint32_t t)
{
	uint32_t n = 0;

	tv->src = src;
	tv->index = t;
	tv->interval_s = interval_of(src);
	if (statctr_view_table(src->view, t, &tv->info) < 0)
		return -ENOENT;
	tv->stride = tv->info.ncolumns;
	tv->columns = calloc(tv->stride + 1, sizeof(*tv->columns));
	tv->col_ids = calloc(tv->stride + 1, sizeof(*tv->col_ids));
	if (tv->columns == NULL || tv->col_ids == NULL)
		return -ENOMEM;
	for (uint32_t c = 0; c < tv->stride; c++) {
		if (statctr_view_column(src->view, t, c, &tv->columns[n]) < 0)
			return -ENOENT;
		if (field_selected(tv->opts->fields, src->info.name, tv->info.name,
		                   tv->columns[n].name))
			tv->col_ids[n++] = c;
	}
	tv->info.ncolumns = n;
	return 0;
}

static int render_table(FILE *out, const struct renderer *r, const struct walk_opts *opts,
                        const struct source *src, uint32_t t)
{
	struct table_view tv = {.opts = opts};
	int err = load_table(&tv, src, t);

	if (err == 0 && tv.info.ncolumns > 0) /* none: every column left out by -F */
		r->table(out, &tv);
	else if (err < 0)
		error_msg("segment '%s': table %" PRIu32 ": %s", src->label, t, strerror(-err));
	free(tv.columns);
	free(tv.col_ids);
	return err;
}

static int render_source(FILE *out, const struct renderer *r, const struct walk_opts *opts,
                         const struct source *src, const char *table)
{
	uint32_t only = 0;
	int err = 0;

	if (table != NULL && find_table(src->view, table, &only) < 0) {
		error_msg("segment '%s': no table '%s'", src->label, table);
		return -ENOENT;
	}
	if (r->segment_begin != NULL)
		r->segment_begin(out, src);
	for (uint32_t t = 0; t < src->info.ntables && err == 0; t++)
		if (table == NULL || t == only)
			err = render_table(out, r, opts, src, t);
	if (r->segment_end != NULL)
		r->segment_end(out, src);
	return err;
}

int walk_render(FILE *out, const struct renderer *r, const struct walk_opts *opts,
                struct source *srcs, size_t nsrcs, const char *table)
{
	int status = 0;

	r->begin(out, opts);
	for (size_t i = 0; i < nsrcs; i++) {
		if (srcs[i].snap == NULL)
			continue;
		if (render_source(out, r, opts, &srcs[i], table) < 0)
			status = -1;
	}
	if (r->readable != NULL)
		r->readable(out, srcs, nsrcs);
	if (r->end != NULL)
		r->end(out);
	return status;
}

/* ---- show --since/--epoch: the counts of an epoch interval ---- */

int epoch_next(struct statctr_view *view, uint32_t number, uint32_t *nextp)
{
	struct statctr_epoch list[STATCTR_MAX_EPOCHS];
	uint32_t n = statctr_view_epochs(view, list, STATCTR_MAX_EPOCHS);

	for (uint32_t i = 0; i < n && i < STATCTR_MAX_EPOCHS; i++)
		if (list[i].number == number) {
			*nextp = i + 1 < n ? list[i + 1].number : 0;
			return 0;
		}
	return -ENOENT;
}

/* A counter cell of the segment, to check that an interval is served; 0 if none. */
static statctr_id first_counter(const struct statctr_view *view, uint32_t ncells, bool *found)
{
	for (statctr_id id = 0; id < ncells; id++)
		if (statctr_view_cell_kind(view, id) == STATCTR_KIND_COUNTER) {
			*found = true;
			return id;
		}
	*found = false;
	return 0;
}

int epoch_select(struct source *src, uint32_t number, bool to_next)
{
	struct statctr_epoch_status st;
	uint32_t to = 0;
	uint64_t d;
	bool found;
	statctr_id id = first_counter(src->view, src->info.ncells, &found);
	/* Opens the epoch file again if the view has none: the message says why. */
	int err = statctr_view_epoch_status(src->view, &st);

	if (!err && to_next)
		err = epoch_next(src->view, number, &to);

	if (!err && found)
		err = statctr_snap_epoch_delta(src->snap, id, number, to, &d);
	if (err == -ENOENT && to_next)
		error_msg("segment '%s': epoch %u is not kept", src->label, number);
	else if (err)
		error_msg("segment '%s': epoch %u: %s", src->label, number, statctr_errmsg());
	if (err) {
		statctr_snap_free(src->snap);
		src->snap = NULL;
		src->failed = true;
		return err;
	}
	src->epoch_from = number;
	src->epoch_to = to;
	return 0;
}

uint64_t epoch_count(const struct source *src, statctr_id id)
{
	uint64_t d = 0;

	if (statctr_snap_epoch_delta(src->snap, id, src->epoch_from, src->epoch_to, &d) != 0)
		error_msg("segment '%s': cell %u: %s", src->label, id, statctr_errmsg());
	return d;
}

void epoch_hist(const struct source *src, statctr_id id, struct hist *h)
{
	h->count = 0;
	for (uint32_t b = 0; b <= h->nbuckets; b++) {
		h->buckets[b] = 0;
		if (statctr_snap_epoch_bucket(src->snap, id, b, src->epoch_from, src->epoch_to,
		                              &h->buckets[b]) != 0)
			error_msg("segment '%s': cell %u, bucket %u: %s", src->label, id, b,
			          statctr_errmsg());
		h->count += h->buckets[b];
	}
	h->sum = epoch_count(src, id); /* a histogram's id gives its sum */
}

uint64_t epoch_hist_count(const struct source *src, statctr_id id)
{
	struct hist h;

	h.nbuckets = statctr_view_hist_buckets(src->view, id, &h.bounds);
	if (h.nbuckets == 0 || h.nbuckets > STATCTR_MAX_BUCKETS)
		return 0;
	epoch_hist(src, id, &h);
	return h.count;
}
