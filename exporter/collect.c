/*
 * collect.c - one scrape of statctr-exporter: a sums-only snapshot of every
 * served segment and the body Prometheus reads.
 *
 * Owns the views of the served segments, kept open across scrapes (a
 * snapshot is retaken in the memory of the last one) and followed to a
 * writer's new generation (statctr_view_refresh()); a segment that cannot
 * be opened is tried again at the next scrape.  The body is what
 * `statctl show -f prometheus` prints (tools/walk.h renders it), then the
 * segments' state as `statctl list -f prometheus` names it, then the
 * state of each snapshot and the exporter's own counts.  Never resets,
 * never writes a file.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"
#include "settings.h"
#include "walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct collector {
	size_t n;
	struct seg_entry *entries; /* name and path of each served segment */
	struct source *srcs;       /* its view and snapshot (label and path: the entry's) */
	struct list_item *items;   /* its state, for list_prom() */
	uid_t owner;               /* agent.segment_owner, (uid_t)-1: any */
	uint64_t scrapes;          /* taken by this collector */
	uint64_t errors;           /* segments not read, summed over its scrapes */
};

static int add_segment(struct collector *c, const struct statctr_segment_decl *decl)
{
	struct seg_entry *e = &c->entries[c->n];

	e->name = strdup(decl->name);
	e->path = strdup(decl->path);
	e->declared = true;
	if (e->name == NULL || e->path == NULL)
		return -ENOMEM;
	c->srcs[c->n].label = e->name;
	c->srcs[c->n].path = e->path;
	c->items[c->n].entry = e;
	c->n++;
	return 0;
}

int collector_new(const struct agent_settings *set, struct collector **cp)
{
	const struct exporter_settings *ex = &set->exporter;
	uint32_t n = ex->segments ? ex->nsegments : set->cfg->nsegments;
	struct collector *c = calloc(1, sizeof(*c));
	int err = 0;

	*cp = NULL;
	if (c == NULL)
		return -ENOMEM;
	c->owner = set->segment_owner;
	c->entries = calloc(n ? n : 1, sizeof(*c->entries));
	c->srcs = calloc(n ? n : 1, sizeof(*c->srcs));
	c->items = calloc(n ? n : 1, sizeof(*c->items));
	if (c->entries == NULL || c->srcs == NULL || c->items == NULL)
		err = -ENOMEM;
	for (uint32_t i = 0; err == 0 && i < n; i++) /* settings_load() checked the names */
		err = add_segment(c, ex->segments ? statctr_config_find(set->cfg, ex->segments[i])
		                                  : &set->cfg->segments[i]);
	if (err < 0) {
		collector_free(c);
		return err;
	}
	*cp = c;
	return 0;
}

static void seg_close(struct source *src)
{
	if (src->snap != NULL)
		statctr_snap_free(src->snap);
	if (src->view != NULL)
		statctr_view_close(src->view);
	src->snap = NULL;
	src->view = NULL;
}

void collector_free(struct collector *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n; i++) {
		seg_close(&c->srcs[i]);
		free(c->entries[i].name);
		free(c->entries[i].path);
	}
	free(c->entries);
	free(c->srcs);
	free(c->items);
	free(c);
}

/* The view of segment @i, opened (sums only) or followed to a new generation. */
static int seg_view(struct collector *c, size_t i)
{
	struct source *src = &c->srcs[i];
	int err;

	if (src->view != NULL) {
		err = statctr_view_refresh(src->view);
		if (err != -ENOENT)
			return 0; /* the old mapping stays usable on other errors */
		seg_close(src);   /* removed: absent until a writer creates it again */
		return err;
	}
	err = c->owner == (uid_t)-1 ? statctr_view_open(src->path, &src->view)
	                            : statctr_view_open_owned(src->path, c->owner, &src->view);
	if (err < 0) {
		src->view = NULL;
		return err;
	}
	return statctr_view_set_sums_only(src->view, 1);
}

/* Segment @i as of now: its state, and its snapshot unless it cannot be read. */
static void seg_snap(struct collector *c, size_t i)
{
	struct source *src = &c->srcs[i];
	struct list_item *item = &c->items[i];
	int err = seg_view(c, i);

	item->present = src->view != NULL;
	if (src->view != NULL) {
		statctr_view_info(src->view, &src->info);
		item->info = src->info;
	}
	if (err == 0)
		err = statctr_snap_retake(src->view, &src->snap); /* NULL on error */
	src->failed = err < 0;
	if (err < 0 && err != -ENOENT)
		error_msg("segment '%s' (%s): %s", src->label, src->path, statctr_errmsg());
	if (err < 0)
		c->errors++;
	else
		statctr_snap_stats(src->snap, &src->stats);
}

/* A family's HELP and TYPE: a counter's family is named without "_total" in OpenMetrics. */
static void family(FILE *f, bool om, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);

	if (om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
}

/* Per served segment whose snapshot was taken: @what of its stats. */
static void snap_family(FILE *f, const struct collector *c, bool om, const char *name,
                        const char *help, int what)
{
	family(f, om, name, "gauge", help);
	for (size_t i = 0; i < c->n; i++) {
		const struct source *src = &c->srcs[i];

		if (src->snap == NULL)
			continue;
		fprintf(f, "%s{segment=\"", name);
		prom_label_value(f, c->entries[i].name);
		fprintf(f, "\"} %" PRIu64 "\n",
		        what == 0   ? (uint64_t)src->stats.busy_slots
		        : what == 1 ? (uint64_t)src->stats.dead_torn_slots
		                    : src->stats.generation);
	}
}

static void counter(FILE *f, bool om, const char *name, const char *help, uint64_t v)
{
	family(f, om, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void own_series(FILE *f, const struct collector *c, bool om, double seconds, size_t read,
                       const struct exporter_counts *k)
{
	snap_family(f, c, om, "statctr_segment_busy_slots",
	            "Writer slots this scrape's snapshot could not read consistently", 0);
	snap_family(f, c, om, "statctr_segment_dead_torn_slots",
	            "Slots of dead writers left inside a transaction", 1);
	snap_family(f, c, om, "statctr_segment_generation",
	            "Generation of the segment (an identifier): another at each writer restart", 2);
	family(f, om, "statctr_exporter_scrape_duration_seconds", "gauge",
	       "Time this scrape took to snapshot and render the segments");
	fprintf(f, "statctr_exporter_scrape_duration_seconds %.6f\n", seconds);
	family(f, om, "statctr_exporter_segments_read", "gauge",
	       "Segments this scrape read, of statctr_exporter_segments");
	fprintf(f, "statctr_exporter_segments_read %zu\n", read);
	family(f, om, "statctr_exporter_segments", "gauge", "Segments served");
	fprintf(f, "statctr_exporter_segments %zu\n", c->n);
	counter(f, om, "statctr_exporter_scrapes_total", "Scrapes served since the last (re)load",
	        c->scrapes);
	counter(f, om, "statctr_exporter_scrape_errors_total",
	        "Segments a scrape could not read, since the last (re)load", c->errors);
	family(f, om, "statctr_exporter_requests_refused_total", "counter",
	       "Requests refused since start, by cause");
	fprintf(f,
	        "statctr_exporter_requests_refused_total{cause=\"busy\"} %" PRIu64 "\n"
	        "statctr_exporter_requests_refused_total{cause=\"unauthorized\"} %" PRIu64 "\n"
	        "statctr_exporter_requests_refused_total{cause=\"bad_request\"} %" PRIu64 "\n",
	        (uint64_t)atomic_load(&k->busy), (uint64_t)atomic_load(&k->unauthorized),
	        (uint64_t)atomic_load(&k->bad_requests));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int collector_scrape(struct collector *c, bool openmetrics, uint32_t epoch,
                     const struct exporter_counts *counts, char **bodyp, size_t *lenp)
{
	struct walk_opts opts = {.openmetrics = openmetrics};
	double start = now_s();
	size_t read = 0;
	FILE *f;

	*bodyp = NULL;
	*lenp = 0;
	f = open_memstream(bodyp, lenp);
	if (f == NULL)
		return -ENOMEM;
	c->scrapes++;
	for (size_t i = 0; i < c->n; i++) {
		seg_snap(c, i);
		if (epoch != 0 && c->srcs[i].snap != NULL &&
		    epoch_select(&c->srcs[i], epoch, true) < 0)
			c->errors++;
		read += c->srcs[i].snap != NULL;
	}
	walk_render(f, &render_prom, &opts, c->srcs, c->n, NULL);
	for (size_t i = 0; i < c->n; i++)
		c->srcs[i].epoch_from = c->srcs[i].epoch_to = 0; /* the next scrape's own choice */
	list_prom(f, c->items, c->n);
	own_series(f, c, openmetrics, now_s() - start, read, counts);
	if (openmetrics)
		fputs("# EOF\n", f);
	if (fclose(f) != 0) {
		free(*bodyp);
		*bodyp = NULL;
		return -ENOMEM;
	}
	return 0;
}
