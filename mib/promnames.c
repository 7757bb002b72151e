/*
 * promnames.c - the Prometheus metric names of a declaration's columns
 * (promnames.h) and check-config's rule that they are unique.  Derives
 * names from strings; never reads a file or a segment, never prints.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "promnames.h"
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A name part: "rxPackets" -> "rx_packets", "if-stats.v2" -> "if_stats_v2".
 * Only [a-z0-9_] come out, never two '_' in a row; at most @size - 1 bytes
 * (cut short: names come from segment files too).  Returns @out.
 */
static char *prom_name_part(char *out, size_t size, const char *s)
{
	bool after_word = false; /* last output was a lowercase letter or digit */
	bool pending = false;    /* an '_' is due before the next character */
	size_t len = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && len + 2 < size; p++) {
		if (!isascii(*p) || !isalnum(*p)) {
			pending = after_word;
			after_word = false;
			continue;
		}
		if (isupper(*p) && after_word)
			pending = true;
		if (pending)
			out[len++] = '_';
		out[len++] = (char)tolower(*p);
		pending = false;
		after_word = !isupper(*p);
	}
	out[len] = '\0';
	return out;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The suffixes the format gives counters' and histograms' series. */
static const char *reserved_suffix(const char *family)
{
	static const char *const reserved[] = {"_total", "_bucket", "_sum", "_count", NULL};

	for (const char *const *r = reserved; *r; r++)
		if (ends_with(family, *r))
			return *r;
	return NULL;
}

const char *prom_column_names(struct prom_column *pc, const char *segment, const char *table,
                              const char *column, enum statctr_kind kind)
{
	char seg[PROM_NAME_MAX / 4], tab[PROM_NAME_MAX / 4], col[PROM_NAME_MAX / 4];
	char base[PROM_NAME_MAX - 16];
	const char *total = kind == STATCTR_KIND_COUNTER ? "_total" : "";

	snprintf(base, sizeof(base), "statctr_%s_%s_%s", prom_name_part(seg, sizeof(seg), segment),
	         prom_name_part(tab, sizeof(tab), table), prom_name_part(col, sizeof(col), column));
	snprintf(pc->names[PROM_FAMILY], PROM_NAME_MAX, "%s%s", base, total);
	if (kind != STATCTR_KIND_HISTOGRAM) {
		snprintf(pc->names[PROM_BY_SLOT], PROM_NAME_MAX, "%s_by_slot%s", base, total);
		pc->n = 2;
		if (kind == STATCTR_KIND_COUNTER)
			snprintf(pc->names[pc->n++], PROM_NAME_MAX, "%s_created", base);
	} else {
		snprintf(pc->names[PROM_BUCKET], PROM_NAME_MAX, "%s_bucket", base);
		snprintf(pc->names[PROM_SUM], PROM_NAME_MAX, "%s_sum", base);
		snprintf(pc->names[PROM_COUNT], PROM_NAME_MAX, "%s_count", base);
		pc->n = 4;
	}
	if (kind == STATCTR_KIND_COUNTER || reserved_suffix(base) == NULL)
		return NULL;
	return kind == STATCTR_KIND_GAUGE
	           ? "a gauge's name may not end in _total, _bucket, _sum or "
	             "_count (the format keeps them for counters and histograms)"
	           : "a histogram's name may not end in _total, _bucket, _sum or "
	             "_count (the format keeps them for its series)";
}

void prom_discontinuity_name(char *buf, size_t size, const char *segment, const char *table)
{
	struct prom_column pc;

	prom_column_names(&pc, segment, table, "discontinuity", STATCTR_KIND_GAUGE);
	snprintf(buf, size, "%s", pc.names[PROM_FAMILY]);
}

/* ---- check-config ------------------------------------------------------ */

struct claim {
	char *name;
	uint32_t at[3]; /* segment, table, column */
};

static int by_name_then_place(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	for (int i = 0; d == 0 && i < 3; i++)
		d = (x->at[i] > y->at[i]) - (x->at[i] < y->at[i]);
	return d;
}

static void describe(const struct statctr_config *cfg, const uint32_t at[3], char *buf, size_t size)
{
	const struct statctr_segment_decl *seg = &cfg->segments[at[0]];

	snprintf(buf, size, "column \"%s\" of table \"%s\" of segment \"%s\"",
	         seg->tables[at[1]].columns[at[2]].name, seg->tables[at[1]].name, seg->name);
}

/* "FILE:LINE: PATH: Prometheus name "NAME" @what" at column @at. */
static int column_error(const struct statctr_config *cfg, const uint32_t at[3], const char *name,
                        const char *what)
{
	return statctr_config_error(cfg, settings_decl_setting(cfg, at[0], at[1], at[2]), EINVAL,
	                            "Prometheus name \"%s\" %s", name, what);
}

static int add_claims(const struct statctr_config *cfg, const uint32_t at[3], struct claim *claims,
                      size_t *n)
{
	const struct statctr_segment_decl *seg = &cfg->segments[at[0]];
	const struct statctr_table_decl *t = &seg->tables[at[1]];
	struct prom_column pc;
	const char *why = prom_column_names(&pc, seg->name, t->name, t->columns[at[2]].name,
	                                    t->columns[at[2]].kind);

	char what[512];

	if (why != NULL) {
		snprintf(what, sizeof(what), "of column \"%s\": %s: rename it",
		         t->columns[at[2]].name, why);
		return column_error(cfg, at, pc.names[PROM_FAMILY], what);
	}
	for (unsigned i = 0; i < pc.n; i++) {
		claims[*n].name = strdup(pc.names[i]);
		memcpy(claims[*n].at, at, sizeof(claims[*n].at));
		if (claims[(*n)++].name == NULL)
			return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * PROM_READABLE_METRIC is not among them: a column's name has three
 * parts, none empty (a config name starts with a letter), so at least two
 * '_' after "statctr_", and "segment_readable" has one.
 */
static int collect(const struct statctr_config *cfg, struct claim *claims, size_t *n)
{
	int err = 0;

	*n = 0;
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++)
		for (uint32_t t = 0; !err && t < cfg->segments[s].ntables; t++)
			for (uint32_t c = 0; !err && c < cfg->segments[s].tables[t].ncolumns; c++)
				err = add_claims(cfg, (const uint32_t[3]){s, t, c}, claims, n);
	return err;
}

/* The first name claimed twice, reported at the later claim (sorted after the earlier). */
static int find_twice(const struct statctr_config *cfg, struct claim *claims, size_t n)
{
	char first[256], second[256], what[768];

	qsort(claims, n, sizeof(*claims), by_name_then_place);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(claims[i - 1].name, claims[i].name) != 0)
			continue;
		describe(cfg, claims[i - 1].at, first, sizeof(first));
		describe(cfg, claims[i].at, second, sizeof(second));
		snprintf(
		    what, sizeof(what),
		    "of %s is also that of %s (both would be shown under that name): rename one",
		    second, first);
		return column_error(cfg, claims[i].at, claims[i].name, what);
	}
	return 0;
}

int prom_names_check(const struct statctr_config *cfg)
{
	size_t ncolumns = 0, n = 0;
	struct claim *claims;
	int err;

	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++)
			ncolumns += cfg->segments[s].tables[t].ncolumns;
	claims = calloc(1 + ncolumns * PROM_MAX_NAMES, sizeof(*claims));
	if (claims == NULL)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	err = collect(cfg, claims, &n);
	if (err == 0)
		err = find_twice(cfg, claims, n);
	for (size_t i = 0; i < n; i++)
		free(claims[i].name);
	free(claims);
	return err;
}

const char *prom_name_abbreviated_unit(const char *name)
{
	static const char *const units[] = {"s",  "ms", "us", "ns", "sec", "b", "kb",
	                                    "mb", "gb", "tb", "pb", "m",   "h", "d"};

	for (const char *part = name; *part != '\0';) {
		size_t len = strcspn(part, "_");

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i]) == len && strncmp(part, units[i], len) == 0)
				return units[i];
		part += len + (part[len] == '_');
	}
	return NULL;
}
