/*
 * names.h - SMIv2 module names and descriptors derived from a
 * configuration (names.c).
 */
#ifndef STATCTR_MIB_NAMES_H
#define STATCTR_MIB_NAMES_H

#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The descriptors given out so far in one module; owns their storage.
 * Each is kept with the object it names (@owner when it was given out: a
 * declaration's segment, table or column, or NULL for the module's own)
 * and with its natural form, the camel-cased parts before any shortening.
 * Two objects whose natural forms are equal ignoring case collide: their
 * config names differ only in case or in '-'/'_' ("rx-packets",
 * "rxPackets"), and the first such pair is kept in @clash.
 */
struct mib_name_entry {
	char *name;
	char *natural;
	const void *owner;
	size_t index; /* in v */
};

struct mib_names {
	struct mib_name_entry **v;
	size_t n;
	void *by_name, *by_natural; /* tsearch() trees of v's entries, ignoring case */
	const void *owner;
	bool clashed;
	size_t clash[2]; /* the indexes in v of the first pair: first holder, then newcomer */
};

/*
 * A new descriptor from @nparts strings for @reg->owner; NULL when out of
 * memory.  Never one given out before: a clash gets "N2", "N3", ...
 * (shortened further when the 64 characters are reached), so the module
 * never defines a descriptor twice whatever the configuration.
 */
const char *mib_name(struct mib_names *reg, int nparts, ...);
void mib_names_free(struct mib_names *reg);
void mib_module_name(const struct statctr_config *cfg, const char *configured, char *buf,
                     size_t size);

/* The descriptors of one histogram column (statctrHistograms.S.T.(10+i)). */
struct mib_hist_names {
	const char *node;
	const char *bucket_table, *bucket_entry, *bucket_index, *bucket_bound, *bucket_count;
	const char *summary_table, *summary_entry, *count, *sum;
};

/*
 * The descriptors of one table's interval table (statctrIntervals.S.T),
 * in a segment that declares epochs and a table with a counter or
 * histogram column; else all NULL.
 */
struct mib_interval_names {
	const char *table, *entry, *epoch, *valid;
	const char **counts; /* one per declared column: NULL for a gauge's */
	/* One per declared column, all NULL but a histogram's: its interval
	 * bucket table (statctrHistograms.S.T.(10+i).3). */
	struct mib_hist_interval_names {
		const char *table, *entry, *count;
	} * hists;
};

/*
 * The descriptors of a dynamic table's by-name table
 * (statctrRowsByName.S.T); else all NULL.
 */
struct mib_byname_names {
	const char *table, *entry, *key, *row_index, *disc;
	const char **columns; /* one per declared column */
};

/* The descriptors of one declared table in the generated module. */
struct mib_table_names {
	const char *table, *entry, *group;
	const char *row_index, *row_name, *disc, *reset;
	const char **columns; /* one per declared column */
	/* Tables with histogram columns: statctrHistograms.S.T, and one per
	 * declared column (all NULL but a histogram's); else NULL. */
	const char *hist_node;
	struct mib_hist_names *hists;
	struct mib_interval_names iv;
	struct mib_byname_names bn;
};

struct mib_seg_names {
	const char *node;
	const char *hist_node;          /* statctrHistograms.S, or NULL: no histogram */
	const char *interval_node;      /* statctrIntervals.S, or NULL: no interval table */
	const char *byname_node;        /* statctrRowsByName.S, or NULL: no dynamic table */
	struct mib_table_names *tables; /* one per declared table */
};

/*
 * Every descriptor of the module of @cfg (statctl mib) and of the
 * snmp_exporter module naming it (statctl exporter-config), given out in
 * one fixed order so that both agree; names given out later (the root
 * chain) cannot change them.  The histograms' come after every table's,
 * so a histogram column added to a configuration renames nothing else, the
 * interval tables' after those, so epochs added rename nothing either, and
 * the by-name tables' last.  mib_module_names_init()
 * returns false when out of memory; mib_module_names_free() frees what it made either way.
 */
struct mib_module_names {
	struct mib_names reg;
	struct mib_seg_names *segs; /* one per declared segment */
	const char *modid, *compliances, *groups, *compliance;
};

bool mib_module_names_init(struct mib_module_names *n, const struct statctr_config *cfg);

/* Whether table @t of segment @seg has an interval table: epochs, and a counter or histogram. */
bool mib_has_intervals(const struct statctr_segment_decl *seg, const struct statctr_table_decl *t);
void mib_module_names_free(struct mib_module_names *n, const struct statctr_config *cfg);

/*
 * check-config's rule (settings_load() calls it): no two objects of @cfg's
 * module collide (struct mib_names).  Returns 0, or -EINVAL with the
 * message "FILE:LINE: ... collides with ..." naming both objects (the line
 * of the later one), or -ENOMEM.
 */
int mib_names_check(const struct statctr_config *cfg);

#endif /* STATCTR_MIB_NAMES_H */
