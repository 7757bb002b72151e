/*
 * promnames.h - the Prometheus metric names of a declaration's columns
 * (promnames.c): the one rule that the exposition of statctl and
 * statctr-exporter (tools/render_prom.c) writes by and that check-config
 * (settings_load()) checks by, so that no configuration check-config
 * accepts gives two families one name, and no output holds two.
 */
#ifndef STATCTR_MIB_PROMNAMES_H
#define STATCTR_MIB_PROMNAMES_H

#include "statctr.h"

#include <stddef.h>

/* Every name fits: 3 parts of at most 2 x STATCTR_MAX_NAME, prefix and suffixes. */
#define PROM_NAME_MAX 512

/*
 * The one family of fixed name in `statctl show -f prometheus`: per
 * segment, 1 when it was read, 0 when it could not be (docs/statctl.md).
 */
#define PROM_READABLE_METRIC "statctr_segment_readable"

/*
 * The names one column claims in the exposition.  names[PROM_FAMILY] is
 * its family: statctr_<segment>_<table>_<column>, each part snake-cased
 * by prom_name_part(), "_total" after a counter's.  Then a counter's or a
 * gauge's per-slot family (show --slots: <family>_by_slot, "_total" after
 * a counter's), a counter's OpenMetrics-style <base>_created (its
 * discontinuity time), or a histogram's series (<family>_bucket, _sum,
 * _count).
 */
enum prom_name_index {
	PROM_FAMILY = 0,
	PROM_BY_SLOT = 1,
	PROM_CREATED = 2, /* counters: <base>_created, the discontinuity time */
	PROM_BUCKET = 1,
	PROM_SUM = 2,
	PROM_COUNT = 3,
	PROM_MAX_NAMES = 4,
};

struct prom_column {
	unsigned n; /* names[0 .. n-1] */
	char names[PROM_MAX_NAMES][PROM_NAME_MAX];
};

/*
 * Fills @pc with the names of column @column of table @table of segment
 * @segment.  Returns NULL, or why its family may not have that name: a
 * gauge's or a histogram's ending in "_total", "_bucket", "_sum" or
 * "_count", which the format reserves for counters and histograms
 * (promtool refuses such a file).  Pure; thread-safe.
 */
const char *prom_column_names(struct prom_column *pc, const char *segment, const char *table,
                              const char *column, enum statctr_kind kind);

/*
 * The family of table @table's discontinuity TimeStamp where the SNMP path
 * shows it (`statctl exporter-config --relabel` renames the MIB's
 * <seg><Table>Discontinuity to it): statctr_<segment>_<table>_discontinuity,
 * the name a gauge column "discontinuity" would have.  No column's family
 * is it: names that snake-case alike fold to one SMI descriptor, so such a
 * column (of this table or of a table "<table>_x" or the like) would share
 * the Discontinuity object's descriptor, which check-config refuses
 * (mib_names_check()).  Pure; thread-safe.
 */
void prom_discontinuity_name(char *buf, size_t size, const char *segment, const char *table);

/*
 * check-config's rule (settings_load() calls it): every column of @cfg
 * has names prom_column_names() accepts, and no name is claimed twice
 * across the whole file (its segments are shown together).  Returns 0,
 * or -EINVAL with "FILE:LINE: ..." naming both columns (the line of the
 * later one), or -ENOMEM.
 */
int prom_names_check(const struct statctr_config *cfg);

/*
 * promtool's style lint (client_golang's promlint, `promtool check metrics`
 * exit status 3): the first '_'-separated part of @name that is an
 * abbreviated unit ("s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb",
 * "tb", "pb", "m", "h", "d"), or NULL.  check-config warns of it; the
 * name stays valid.  Pure; thread-safe.
 */
const char *prom_name_abbreviated_unit(const char *name);

#endif /* STATCTR_MIB_PROMNAMES_H */
