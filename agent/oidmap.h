/*
 * oidmap.h - OID <-> cell mapping: mib/oids.h's layout applied to a
 * configuration and a published aggregation.
 *
 * Registered regions under the root R (statctrMIB, agent.root_oid): R.1
 * statctrObjects, holding every accessible row of MIB_FIXED_OBJECTS, one
 * per declared table at R.3.<segment oid>.<table oid> (statctrData), and
 * one per histogram column i of a table at R.4.<segment oid>.<table
 * oid>.(10+i) (statctrHistograms: its bucket and summary tables), and,
 * for a segment that declares epochs, one per declared table with a counter
 * or histogram column at R.5.<segment oid>.<table oid> (statctrIntervals).
 *
 * Lookups never scan a table: the columns of a region and the segments are
 * sorted arrays searched by bisection, the counter and gauge cells of each
 * segment are sorted arrays of cell ids, rows and slots are dense ranges,
 * and the rows of a dynamic table present in a snapshot a sorted array
 * (built once per snapshot), a histogram's buckets a dense range, and a
 * segment's kept epochs the sorted array its published result holds.  GET
 * and GETNEXT cost O(log n) per varbind.
 *
 * A dynamic table (rows = { max = N; }) has an instance for the rows
 * present in the result's snapshot only, in its own table and in the cell
 * and slot tables: index row + 1, as for any row; an absent row is no
 * instance (noSuchInstance to a GET, skipped by GETNEXT).
 *
 * oidmap_get() and oidmap_next() keep that array in the map: one thread
 * at a time (the SNMP thread) may look up.
 */
#ifndef STATCTR_AGENT_OIDMAP_H
#define STATCTR_AGENT_OIDMAP_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/types.h>

#include "aggregate.h"
#include "objects.h"
#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a column holds; backend_statctr.c turns it into a value: one of
 * mib/objects.h's enum mib_object_id for the fixed objects, else one of
 * these, the data and histogram columns.
 */
enum oidmap_what {
	W_ROW_NAME = MIB_NOBJECTS,
	W_ROW_DISCONTINUITY,
	W_ROW_RESET,
	W_ROW_VALUE,
	W_HIST_BOUND,        /* a bucket's upper bound, "+Inf" last */
	W_HIST_BUCKET_COUNT, /* values <= that bound: cumulative */
	W_HIST_COUNT,
	W_HIST_SUM,
	W_INTERVAL_VALID, /* the epoch's interval is exact */
	W_INTERVAL_COUNT, /* the declared column's count in the epoch's interval */
	W_HIST_INTERVAL,  /* a bucket's cumulative count in the epoch's interval */
};

/* Where a column's instances are: one of mib/objects.h's enum mib_space, else one of these. */
enum oidmap_space {
	SPACE_ROW = MIB_NSPACES, /* the rows of a declared table (and a histogram's summary) */
	SPACE_BUCKET,            /* the rows of a declared table x a histogram's buckets */
	SPACE_INTERVAL,          /* a segment's kept epochs x the rows of a declared table */
	SPACE_HIST_INTERVAL,     /* kept epochs x rows x a histogram's buckets */
};

struct oidmap_column {
	oid sub[3]; /* relative to the region's root */
	uint8_t sublen;
	uint8_t space;  /* enum mib_space or enum oidmap_space */
	uint8_t filter; /* enum mib_instances: which cells have an instance */
	uint8_t writable;
	uint16_t what;   /* enum mib_object_id or enum oidmap_what */
	uint32_t column; /* W_ROW_VALUE, W_HIST_*: the declared column */
};

struct oidmap;

struct oidmap_region {
	const struct oidmap *map;
	char name[48]; /* registration name */
	oid root[MAX_OID_LEN];
	size_t root_len;
	const struct oidmap_column *cols; /* sorted by sub */
	size_t ncols;
	uint32_t seg;   /* SPACE_ROW/BUCKET: configuration index of the segment */
	uint32_t table; /* SPACE_ROW/BUCKET: table index within the segment */
};

/* One resolved instance: a column and its index, decoded. */
struct oidmap_instance {
	const struct oidmap_column *col;
	uint32_t index[3]; /* the sub-identifiers after the column */
	uint32_t nindex;
	uint32_t seg;    /* configuration index (MIB_SPACE_SEGMENT/CELL/SLOT/ROW/BUCKET) */
	statctr_id cell; /* MIB_SPACE_CELL/SLOT; SPACE_ROW/BUCKET: cell of column 0 */
	uint32_t slot;   /* MIB_SPACE_SLOT */
	uint32_t row;    /* SPACE_ROW/BUCKET */
	uint32_t bucket; /* SPACE_BUCKET: 0..nbuckets (nbuckets: +Inf) */
	uint32_t epoch;  /* MIB_SPACE_EPOCH, SPACE_INTERVAL: position in the result's epochs */
};

/*
 * oidmap_create() - build the regions for @cfg (whose OIDs the library
 * checked unique) under @root (at most MIB_ROOT_MAX_ARCS sub-identifiers).
 */
int oidmap_create(const struct statctr_config *cfg, const uint32_t *root, size_t root_len,
                  struct oidmap **mapp);
void oidmap_free(struct oidmap *map);

size_t oidmap_nregions(const struct oidmap *map);
const struct oidmap_region *oidmap_region(const struct oidmap *map, size_t i);

/* The instance named exactly by @name in @res; false when it does not exist. */
bool oidmap_get(const struct oidmap_region *reg, const struct agg_result *res, const oid *name,
                size_t len, struct oidmap_instance *inst);

/*
 * The first instance after @name (at or after it when @inclusive) inside
 * @reg that exists in @res; false when there is none in this region.
 */
bool oidmap_next(const struct oidmap_region *reg, const struct agg_result *res, const oid *name,
                 size_t len, bool inclusive, struct oidmap_instance *inst);

/* Writes the instance's full OID; returns its length. */
size_t oidmap_instance_oid(const struct oidmap_region *reg, const struct oidmap_instance *inst,
                           oid *out);

/*
 * oidmap_locate() - table @t, row @r and declared column @c of cell @cell of
 * segment @seg (configuration index), by bisection over the tables.
 */
void oidmap_locate(const struct oidmap *map, uint32_t seg, statctr_id cell, uint32_t *t,
                   uint32_t *r, uint32_t *c);

/*
 * The column of @reg that @name is, or is under (any instance, existing or
 * not, well-formed or not); NULL when @name is no column of @reg.
 */
const struct oidmap_column *oidmap_column(const struct oidmap_region *reg, const oid *name,
                                          size_t len);

/* Whether @name is a column of @reg (any instance): noSuchInstance rather than noSuchObject. */
bool oidmap_is_column(const struct oidmap_region *reg, const oid *name, size_t len);

#endif /* STATCTR_AGENT_OIDMAP_H */
