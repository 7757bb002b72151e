/*
 * walk.h - the one walk over a segment's snapshot that every exposition
 * shares (walk.c), the Prometheus renderer (render_prom.c) and its quoting
 * (escape.c): tools/libstatctl_walk.la, which statctl and statctr-exporter
 * (exporter/) both link, so that both print the same series with the same
 * names (docs/fleet.md, "One metric naming").
 *
 * Reads snapshots through the public API of libstatctr only; never opens,
 * finds or resets a segment (the programs do), never writes but to the
 * FILE it is given.
 */
#ifndef STATCTL_WALK_H
#define STATCTL_WALK_H

#include "statctr.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Provided by the program that links this library: one message, to its log
 * or stderr (statctl prefixes "statctl: "). */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A segment to read: a name (from the configuration or the file name) and its path. */
struct seg_entry {
	char *name; /* from the configuration or the file name */
	char *path;
	bool declared; /* listed in the configuration */
};

/* The snapshot of one segment, as the walk reads it. */
struct source {
	const char *label; /* what the user named */
	char *label_buf;   /* owned storage of label, or NULL */
	char *path;        /* found by discovery: its path (owned), else NULL */
	bool failed;       /* could not be opened, or its last snapshot failed */
	struct statctr_view *view;
	struct statctr_snap *snap;
	struct statctr_snap *prev; /* watch: the previous snapshot, or NULL */
	struct statctr_seg_info info;
	struct statctr_snap_stats stats;
	/* show --since/--epoch: counters count from epoch epoch_from to
	 * epoch_to (0: the snapshot); epoch_from 0: off (cmd_epoch.c). */
	uint32_t epoch_from, epoch_to;
};

struct walk_opts {
	bool raw;     /* ignore reset baselines (counters and gauges) */
	bool slots;   /* per-slot breakdown */
	bool buckets; /* text: each histogram's buckets */
	int width;    /* text: fit lines into this many columns; 0: no limit */
	/* Prometheus: OpenMetrics 1.0 (counter families without "_total",
	 * _created and # UNIT in the family, # EOF) instead of text 0.0.4. */
	bool openmetrics;
	const struct field_globs *fields; /* statctl -F: the columns shown; NULL: all */
};

/*
 * statctl's field globs (-F GLOB, --field GLOB), as varnishstat's -f: each
 * matched with fnmatch(3), no flags, against "SEGMENT.TABLE.COLUMN" (the
 * segment's name as show prints it); "!GLOB" excludes.  A column is shown
 * when it matches no exclusion and, if there is any inclusion, one of them.
 */
#define MAX_FIELD_GLOBS 64
struct field_globs {
	const char *glob[MAX_FIELD_GLOBS];
	size_t n;
};
bool field_selected(const struct field_globs *f, const char *segment, const char *table,
                    const char *column);

/* One cell's value as the renderers see it. */
struct cell {
	enum statctr_kind kind;
	uint64_t counter; /* counters: value (raw or since reset); histograms: count */
	int64_t gauge;    /* gauges: level */
	uint64_t disc_ns; /* counting without discontinuity since */
	bool has_delta;   /* watch: counters and histograms (their count) only, when a
	                   * previous snapshot has the same counting; a gauge has none */
	uint64_t counter_delta;
	double rate; /* per second, for display only */
};

struct table_view {
	const struct source *src;
	const struct walk_opts *opts;
	uint32_t index;
	/* info.ncolumns: the columns shown (walk_opts.fields), columns[] theirs;
	 * col_ids[c] is shown column c's index in the table, of stride columns. */
	struct statctr_table_info info;
	struct statctr_column_info *columns;
	uint32_t *col_ids;
	uint32_t stride;
	double interval_s; /* between prev and snap, or 0 */
};

void table_cell(const struct table_view *tv, uint32_t row, uint32_t col, struct cell *out);
/*
 * Whether row @row is shown: every row of a static table, and the rows of a
 * dynamic table present in the snapshot (renderers skip the others: an
 * absent row has no name and no values).
 */
bool table_row_present(const struct table_view *tv, uint32_t row);
/* Row @row's name in the snapshot, or NULL for a numbered row. */
const char *table_row_name(const struct table_view *tv, uint32_t row);
/* Row @row's name, or its number (from 0) written into @buf. */
const char *table_row_label(const struct table_view *tv, uint32_t row, char buf[static 16]);
uint32_t table_nslots(const struct table_view *tv); /* writer slots, the shared one, CPU slots */
/* Slot @s's name in @buf: a writer slot's number, "shared", "cpuN" or "cpuA-B". */
const char *table_slot_name(const struct table_view *tv, uint32_t s, char buf[16]);
uint64_t table_slot_value(const struct table_view *tv, uint32_t slot, uint32_t row, uint32_t col);

/*
 * A histogram cell's distribution: since its reset (the library applies
 * the baselines; --raw does not apply), or for watch the values recorded
 * between the previous snapshot and this one.
 */
struct hist {
	uint32_t nbuckets;                         /* finite buckets */
	const uint64_t *bounds;                    /* inclusive upper bounds (the view's) */
	uint64_t buckets[STATCTR_MAX_BUCKETS + 1]; /* not cumulative; +Inf last */
	uint64_t count;                            /* the sum of the buckets */
	uint64_t sum;                              /* of the values, mod 2^64 */
};

/* Fills @out from histogram @col of @row; false when the column is not one. */
bool table_hist(const struct table_view *tv, uint32_t row, uint32_t col, struct hist *out);
/* The same for the values recorded since the previous snapshot; false when
 * there is none of the same counting (first frame, reset, restart). */
bool table_hist_interval(const struct table_view *tv, uint32_t row, uint32_t col, struct hist *out);

/*
 * A quantile estimated within buckets (Prometheus' histogram_quantile()):
 * the bucket where the cumulative count reaches q x count, interpolated
 * linearly between its lower bound (the previous bound, 0 for the first)
 * and its upper bound.  In +Inf, @above is set and @value is the highest
 * finite bound: a lower limit.  Returns false when the histogram is empty.
 */
struct quantile {
	double value;
	bool above;
};
bool hist_quantile(const struct hist *h, double q, struct quantile *out);
bool hist_mean(const struct hist *h, double *mean);
/* The quantiles every text output shows, in this order. */
#define NQUANTILES 3
extern const double hist_quantiles[NQUANTILES];
extern const char *const hist_quantile_names[NQUANTILES];
const char *status_name(enum statctr_seg_status status);

/* An output format.  begin and table are required; a hook left NULL has nothing to print. */
struct renderer {
	void (*begin)(FILE *out, const struct walk_opts *opts);
	void (*segment_begin)(FILE *out, const struct source *src);
	void (*table)(FILE *out, const struct table_view *tv);
	void (*segment_end)(FILE *out, const struct source *src);
	void (*end)(FILE *out);
	/* Which sources could be read (Prometheus: PROM_READABLE_METRIC). */
	void (*readable)(FILE *out, const struct source *srcs, size_t n);
};

extern const struct renderer render_prom;

/* Takes @src's next snapshot, keeping the previous one in prev (the error
 * reported, src->failed set, a negative errno when it fails). */
int source_snap(struct source *src);
/* Renders the tables of @srcs (all, or only @table) to @out. */
int walk_render(FILE *out, const struct renderer *r, const struct walk_opts *opts,
                struct source *srcs, size_t nsrcs, const char *table);
int find_table(const struct statctr_view *view, const char *name, uint32_t *tp);

/* The number of the epoch kept after @number, 0 if it is the latest; -ENOENT if not kept. */
int epoch_next(struct statctr_view *view, uint32_t number, uint32_t *nextp);
/*
 * The interval of @src's epoch @number: from it to the next kept epoch, or
 * to the snapshot when it is the latest (@to_next), or from it to the
 * snapshot; sets src->epoch_from/epoch_to and checks that the counts are
 * served (the error printed, the snapshot freed and the source failed,
 * -errno, when not).  statctl show --since/--epoch, statctr-exporter's
 * /metrics?epoch=N.
 */
int epoch_select(struct source *src, uint32_t number, bool to_next);
/* A counter's count over @src's selected epoch interval; 0 and a message when refused. */
uint64_t epoch_count(const struct source *src, statctr_id id);
/* Histogram @id over @src's selected interval: its buckets (per epoch, from
 * statctr_snap_epoch_bucket()), their count and the values' sum into @h,
 * whose nbuckets is set; refused ones count 0, with a message. */
void epoch_hist(const struct source *src, statctr_id id, struct hist *h);
/* The values histogram @id recorded over @src's selected interval. */
uint64_t epoch_hist_count(const struct source *src, statctr_id id);

/* list: one entry per segment for the list renderers. */
struct list_item {
	const struct seg_entry *entry;
	bool present;                 /* the segment file could be opened */
	struct statctr_seg_info info; /* when present */
};
const char *list_status(const struct list_item *item);
/* statctl list -f prometheus: statctr_segment_up, _slots, ... per segment. */
void list_prom(FILE *out, const struct list_item *items, size_t n);

/* Escaping of the Prometheus text formats (escape.c). */
void prom_label_value(FILE *out, const char *s);
void prom_help_text(FILE *out, const char *s);
void om_help_text(FILE *out, const char *s); /* OpenMetrics' HELP: quotes escaped too */

#endif /* STATCTL_WALK_H */
