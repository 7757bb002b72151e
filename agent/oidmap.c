/*
 * oidmap.c - OID <-> cell mapping: the regions, their sorted columns and
 * the O(log n) GET / GETNEXT search over a published aggregation.
 *
 * Owns the per-configuration index (segments sorted by oid, the sorted
 * counter, histogram and gauge cell ids of each segment, the column arrays)
 * and, per dynamic table, the sorted indexes of the rows a snapshot holds.
 * A histogram's bucket cells are no cells (cell ids stop at the last
 * table's); its buckets are a dense range per row of its region; a
 * segment's epochs are those its published result lists, by bisection.  Never
 * reads a segment: which instances exist is decided by the configuration
 * and by the published result (a segment without a snapshot has no rows;
 * a dynamic table has the rows present in the snapshot).
 * Numbers no OID itself: the arcs and columns are mib/oids.h's, the fixed
 * objects mib_objects[].
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "oidmap.h"
#include "agent.h"
#include "bisect.h"
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seg_by_oid {
	uint32_t oid;
	uint32_t conf; /* index in the configuration */
};

struct seg_cells {
	statctr_id *counters; /* sorted: counters and histograms */
	uint32_t ncounters;
	statctr_id *plain; /* sorted: counters only */
	uint32_t nplain;
	statctr_id *gauges; /* sorted */
	uint32_t ngauges;
	statctr_id *sloted; /* sorted: counters and gauges, which have slot values */
	uint32_t nsloted;
	/* Cells of the tables, 0..ngrid-1; the histograms' bucket blocks follow
	 * (docs/segment-format.md) and are no cells of their own. */
	uint32_t ngrid;
};

/*
 * The rows of a dynamic table present in one snapshot, sorted: built by
 * the first lookup that needs them after the snapshot changed (O(rows),
 * once per aggregation pass at most), so a GETNEXT that skips absent rows
 * bisects instead of scanning them.  A snapshot is retaken in the same
 * memory, so it is known by its address and completion time.
 */
struct present_rows {
	const struct statctr_snap *snap; /* NULL: not built */
	uint64_t taken_ns;
	uint64_t generation;
	uint32_t *rows; /* room for the table's nrows */
	uint32_t n;
};

struct oidmap {
	const struct statctr_config *cfg;
	struct present_rows **present; /* per segment, per table; rows NULL for a static table */
	uint32_t **tables_by_cell;     /* per segment: table indexes sorted by first_cell */
	struct seg_by_oid *by_oid;     /* sorted by oid */
	struct seg_cells *cells;       /* configuration order */
	struct oidmap_region *regions;
	size_t nregions;
	struct oidmap_column object_cols[MIB_NOBJECTS]; /* the accessible fixed objects */
	struct oidmap_column **data_cols;               /* one array per data-table region */
};

/* Net-SNMP's OID buffers hold the longest OID the layout allows (mib/oids.h). */
_Static_assert(MAX_OID_LEN >= MIB_MAX_OID_ARCS, "Net-SNMP holds every OID of the layout");

/* ------------------------------------------------------------------------
 * The index spaces: each level is an ordered set; level_ge() gives its
 * smallest member >= v, given the members chosen at the levels before.
 */

struct search {
	const struct oidmap_region *reg;
	const struct agg_result *res;
	const struct oidmap_column *col;
	uint32_t idx[3];
};

static unsigned space_levels(unsigned space)
{
	switch (space) {
	case MIB_SPACE_CELL:
	case MIB_SPACE_EPOCH:
	case SPACE_BUCKET:
	case SPACE_INTERVAL:
		return 2;
	case MIB_SPACE_SLOT:
	case SPACE_HIST_INTERVAL:
		return 3;
	default:
		return 1;
	}
}

/* Position of the first segment whose oid is >= v. */
static uint32_t seg_lower_bound(const struct oidmap *map, uint64_t v)
{
	return (uint32_t)BISECT_FIRST(map->cfg->nsegments, m, map->by_oid[m].oid < v);
}

/* Configuration index of the segment with oid @soid (it exists). */
static uint32_t seg_conf(const struct oidmap *map, uint32_t soid)
{
	return map->by_oid[seg_lower_bound(map, soid)].conf;
}

static bool seg_ge(const struct search *s, uint64_t v, bool need_values, uint32_t *out)
{
	const struct oidmap *map = s->reg->map;

	for (uint32_t p = seg_lower_bound(map, v); p < map->cfg->nsegments; p++) {
		if (need_values && !s->res->segs[map->by_oid[p].conf].snap)
			continue;
		*out = map->by_oid[p].oid;
		return true;
	}
	return false;
}

static bool range_ge(uint64_t lo, uint64_t hi, uint64_t v, uint32_t *out)
{
	if (v < lo)
		v = lo;
	if (v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Smallest id + 1 >= v among @ids (sorted). */
static bool ids_ge(const statctr_id *ids, uint32_t n, uint64_t v, uint32_t *out)
{
	uint64_t want = v ? v - 1 : 0;
	size_t i = BISECT_FIRST(n, m, ids[m] < want);

	if (i == n)
		return false;
	*out = ids[i] + 1;
	return true;
}

/* The present rows of dynamic table @t of segment @seg in @snap, rebuilt when it changed. */
static const struct present_rows *present_rows(const struct oidmap *map, uint32_t seg, uint32_t t,
                                               const struct statctr_snap *snap)
{
	struct present_rows *p = &map->present[seg][t];
	struct statctr_snap_stats st;

	statctr_snap_stats(snap, &st);
	if (p->snap == snap && p->taken_ns == st.taken_ns && p->generation == st.generation)
		return p;
	p->n = 0;
	for (uint32_t r = 0; r < map->cfg->segments[seg].tables[t].nrows; r++)
		if (statctr_snap_row_name(snap, t, r))
			p->rows[p->n++] = r;
	p->snap = snap;
	p->taken_ns = st.taken_ns;
	p->generation = st.generation;
	return p;
}

/* The first present row >= @row of dynamic table @t, by bisection; false when none. */
static bool present_ge(const struct oidmap *map, const struct agg_segment *as, uint32_t seg,
                       uint32_t t, uint64_t row, uint32_t *out)
{
	const struct present_rows *p = present_rows(map, seg, t, as->snap);
	size_t i = BISECT_FIRST(p->n, m, p->rows[m] < row);

	if (i == p->n)
		return false;
	*out = p->rows[i];
	return true;
}

/* Table of cell @cell of segment @seg: the last one whose first cell is <= @cell. */
static uint32_t table_of(const struct oidmap *map, uint32_t seg, statctr_id cell)
{
	const struct statctr_segment_decl *d = &map->cfg->segments[seg];
	const uint32_t *order = map->tables_by_cell[seg];
	/* The first table starting after @cell, less one: table 0 starts at cell 0. */
	size_t after = BISECT_FIRST(d->ntables, m, d->tables[order[m]].first_cell <= cell);

	return order[after - 1];
}

/*
 * Cell index (id + 1) @id is served unless its row is a dynamic row absent
 * from the snapshot; then *@skip_to is the first cell index past the gap:
 * the first cell of the next present row, or the table's end.
 */
static bool cell_present(const struct search *s, uint32_t seg, uint32_t id, uint64_t *skip_to)
{
	const struct oidmap *map = s->reg->map;
	uint32_t t = table_of(map, seg, id - 1);
	const struct statctr_table_decl *td = &map->cfg->segments[seg].tables[t];
	uint32_t row = (id - 1 - td->first_cell) / td->ncolumns, next;

	if (!td->dynamic)
		return true;
	if (!present_ge(map, &s->res->segs[seg], seg, t, row, &next))
		next = td->nrows;
	else if (next == row)
		return true;
	*skip_to = (uint64_t)td->first_cell + (uint64_t)next * td->ncolumns + 1;
	return false;
}

static bool slot_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	const struct agg_segment *as = &s->res->segs[seg_conf(s->reg->map, s->idx[0])];

	/* Sums-only snapshots (agent.slot_table false) have no slot values. */
	if (!as->slot_values)
		return false;
	/* Writer slots, the shared slot, then the CPU slots. */
	return range_ge(1, (uint64_t)as->nslots + 1 + as->ncpuslots, v, out);
}

/* The cell's instance of the column's kind, present or not. */
static bool any_cell_ge(const struct search *s, uint32_t conf, uint64_t v, uint32_t *out)
{
	const struct seg_cells *cells = &s->reg->map->cells[conf];

	switch (s->col->filter) {
	case MIB_COUNTERS:
		return ids_ge(cells->counters, cells->ncounters, v, out);
	case MIB_GAUGES:
		return ids_ge(cells->gauges, cells->ngauges, v, out);
	case MIB_PLAIN_COUNTERS:
		return ids_ge(cells->plain, cells->nplain, v, out);
	case MIB_SLOT_CELLS:
		return ids_ge(cells->sloted, cells->nsloted, v, out);
	default:
		return range_ge(1, cells->ngrid, v, out);
	}
}

/*
 * Cells of absent dynamic rows are skipped a gap at a time (each step
 * lands in a present row or past a table), so a search costs O(log n) per
 * table crossed, never a step per absent row.
 */
static bool cell_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	uint32_t conf = seg_conf(s->reg->map, s->idx[0]);

	while (any_cell_ge(s, conf, v, out))
		if (cell_present(s, conf, *out, &v))
			return true;
	return false;
}

/* Row indexes are row + 1: every row of a static table, the present ones of a dynamic one. */
static bool row_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	const struct oidmap_region *reg = s->reg;
	const struct agg_segment *as = &s->res->segs[reg->seg];
	const struct statctr_table_decl *td = &reg->map->cfg->segments[reg->seg].tables[reg->table];
	uint32_t row;

	if (!as->snap)
		return false;
	if (!td->dynamic)
		return range_ge(1, td->nrows, v, out);
	if (!present_ge(reg->map, as, reg->seg, reg->table, v ? v - 1 : 0, &row))
		return false;
	*out = row + 1;
	return true;
}

/* Position of the first epoch of @as whose number is >= @v. */
static uint32_t epoch_lower_bound(const struct agg_segment *as, uint64_t v)
{
	return (uint32_t)BISECT_FIRST(as->nepochs, m, as->epochs[m].number < v);
}

/* The smallest kept epoch number >= @v of segment @conf (numbers ascend, oldest first). */
static bool epoch_ge(const struct search *s, uint32_t conf, uint64_t v, uint32_t *out)
{
	const struct agg_segment *as = &s->res->segs[conf];
	uint32_t p = epoch_lower_bound(as, v);

	if (p == as->nepochs)
		return false;
	*out = as->epochs[p].number;
	return true;
}

/* Bucket indexes are b + 1, the last (+Inf) nbuckets + 1: the same for every row. */
static bool bucket_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	const struct oidmap_region *reg = s->reg;
	const struct statctr_table_decl *td = &reg->map->cfg->segments[reg->seg].tables[reg->table];

	return range_ge(1, (uint64_t)td->columns[s->col->column].nbuckets + 1, v, out);
}

static bool level_ge(const struct search *s, unsigned level, uint64_t v, uint32_t *out)
{
	switch (s->col->space) {
	case MIB_SPACE_AGENT:
		return range_ge(MIB_SCALAR_INSTANCE, MIB_SCALAR_INSTANCE, v, out);
	case MIB_SPACE_SEGMENT:
		return seg_ge(s, v, false, out);
	case SPACE_ROW:
		return row_ge(s, v, out);
	case SPACE_BUCKET:
		return level == 0 ? row_ge(s, v, out) : bucket_ge(s, v, out);
	case SPACE_INTERVAL:
		return level == 0 ? epoch_ge(s, s->reg->seg, v, out) : row_ge(s, v, out);
	case SPACE_HIST_INTERVAL:
		if (level == 0)
			return epoch_ge(s, s->reg->seg, v, out);
		return level == 1 ? row_ge(s, v, out) : bucket_ge(s, v, out);
	case MIB_SPACE_EPOCH:
		return level == 0 ? seg_ge(s, v, true, out)
		                  : epoch_ge(s, seg_conf(s->reg->map, s->idx[0]), v, out);
	case MIB_SPACE_CELL:
	case MIB_SPACE_SLOT:
		break;
	}
	if (level == 0)
		return seg_ge(s, v, true, out);
	return level == 1 ? cell_ge(s, v, out) : slot_ge(s, v, out);
}

/*
 * The smallest tuple at levels @level.. that is >= want (> want when
 * @strict) while @tight (every level before matched want exactly), else
 * the smallest tuple under the prefix chosen so far.
 */
static bool find(struct search *s, unsigned level, unsigned n, const uint64_t *want, bool tight,
                 bool strict)
{
	uint64_t from = tight ? want[level] : 0;
	uint32_t v;

	while (level_ge(s, level, from, &v)) {
		bool exact = tight && v == want[level];

		s->idx[level] = v;
		if (level + 1 == n) {
			if (!(exact && strict))
				return true;
		} else if (find(s, level + 1, n, want, exact, strict)) {
			return true;
		}
		from = (uint64_t)v + 1;
	}
	return false;
}

static void decode(const struct search *s, struct oidmap_instance *inst)
{
	const struct oidmap *map = s->reg->map;
	const struct oidmap_column *col = s->col;

	memset(inst, 0, sizeof(*inst));
	inst->col = col;
	inst->nindex = space_levels(col->space);
	memcpy(inst->index, s->idx, sizeof(inst->index));
	if (col->space == SPACE_ROW || col->space == SPACE_BUCKET) {
		const struct statctr_table_decl *t =
		    &map->cfg->segments[s->reg->seg].tables[s->reg->table];

		inst->seg = s->reg->seg;
		inst->row = s->idx[0] - 1;
		inst->cell = t->first_cell + inst->row * t->ncolumns;
		inst->bucket = col->space == SPACE_BUCKET ? s->idx[1] - 1 : 0;
	} else if (col->space == SPACE_INTERVAL || col->space == SPACE_HIST_INTERVAL) {
		const struct statctr_table_decl *t =
		    &map->cfg->segments[s->reg->seg].tables[s->reg->table];

		inst->seg = s->reg->seg;
		inst->epoch = epoch_lower_bound(&s->res->segs[inst->seg], s->idx[0]);
		inst->row = s->idx[1] - 1;
		inst->cell = t->first_cell + inst->row * t->ncolumns;
		inst->bucket = col->space == SPACE_HIST_INTERVAL ? s->idx[2] - 1 : 0;
	} else if (col->space == MIB_SPACE_EPOCH) {
		inst->seg = seg_conf(map, s->idx[0]);
		inst->epoch = epoch_lower_bound(&s->res->segs[inst->seg], s->idx[1]);
	} else if (col->space != MIB_SPACE_AGENT) {
		inst->seg = seg_conf(map, s->idx[0]);
		inst->cell = s->idx[1] ? s->idx[1] - 1 : 0;
		inst->slot = s->idx[2] ? s->idx[2] - 1 : 0;
	}
}

/* ------------------------------------------------------------------------
 * Columns of a region.
 */

/* <0: the column sorts before @rel, 0: @rel is the column or under it, >0: after. */
static int cmp_column(const struct oidmap_column *c, const oid *rel, size_t len)
{
	for (size_t i = 0; i < c->sublen; i++) {
		if (i == len)
			return 1;
		if (c->sub[i] != rel[i])
			return c->sub[i] < rel[i] ? -1 : 1;
	}
	return 0;
}

static size_t column_lower_bound(const struct oidmap_region *reg, const oid *rel, size_t len)
{
	return BISECT_FIRST(reg->ncols, m, cmp_column(&reg->cols[m], rel, len) < 0);
}

/* -1: @name sorts before the region, 0: inside it (@rel set), 1: after it. */
static int relative(const struct oidmap_region *reg, const oid *name, size_t len, const oid **rel,
                    size_t *rlen)
{
	for (size_t i = 0; i < reg->root_len; i++) {
		if (i == len)
			return -1;
		if (name[i] != reg->root[i])
			return name[i] < reg->root[i] ? -1 : 1;
	}
	*rel = name + reg->root_len;
	*rlen = len - reg->root_len;
	return 0;
}

static bool search_column(const struct oidmap_region *reg, const struct agg_result *res,
                          const struct oidmap_column *col, const oid *want_oid, size_t nwant,
                          bool inclusive, struct oidmap_instance *inst)
{
	struct search s = {.reg = reg, .res = res, .col = col};
	unsigned n = space_levels(col->space);
	uint64_t want[3] = {0, 0, 0};
	bool strict = nwant > n || (nwant == n && !inclusive);

	for (size_t k = 0; k < n && k < nwant; k++)
		want[k] = want_oid[k];
	if (!find(&s, 0, n, want, nwant > 0, strict))
		return false;
	decode(&s, inst);
	return true;
}

bool oidmap_next(const struct oidmap_region *reg, const struct agg_result *res, const oid *name,
                 size_t len, bool inclusive, struct oidmap_instance *inst)
{
	const oid *rel = NULL;
	size_t rlen = 0, i = 0;
	int where = relative(reg, name, len, &rel, &rlen);
	bool tight = false;

	if (where > 0)
		return false;
	if (where == 0) {
		i = column_lower_bound(reg, rel, rlen);
		tight = i < reg->ncols && cmp_column(&reg->cols[i], rel, rlen) == 0;
	}
	for (; i < reg->ncols; i++, tight = false) {
		const struct oidmap_column *col = &reg->cols[i];

		if (tight && search_column(reg, res, col, rel + col->sublen, rlen - col->sublen,
		                           inclusive, inst))
			return true;
		if (!tight && search_column(reg, res, col, NULL, 0, false, inst))
			return true;
	}
	return false;
}

bool oidmap_get(const struct oidmap_region *reg, const struct agg_result *res, const oid *name,
                size_t len, struct oidmap_instance *inst)
{
	const oid *rel = NULL;
	size_t rlen = 0, i;
	struct search s = {.reg = reg, .res = res};
	unsigned n;

	if (relative(reg, name, len, &rel, &rlen) != 0)
		return false;
	i = column_lower_bound(reg, rel, rlen);
	if (i == reg->ncols || cmp_column(&reg->cols[i], rel, rlen) != 0)
		return false;
	s.col = &reg->cols[i];
	n = space_levels(s.col->space);
	if (rlen - s.col->sublen != n)
		return false;
	for (unsigned k = 0; k < n; k++) {
		uint64_t want = rel[s.col->sublen + k];
		uint32_t v;

		if (!level_ge(&s, k, want, &v) || v != want)
			return false;
		s.idx[k] = v;
	}
	decode(&s, inst);
	return true;
}

const struct oidmap_column *oidmap_column(const struct oidmap_region *reg, const oid *name,
                                          size_t len)
{
	const oid *rel = NULL;
	size_t rlen = 0, i;

	if (relative(reg, name, len, &rel, &rlen) != 0)
		return NULL;
	i = column_lower_bound(reg, rel, rlen);
	if (i == reg->ncols || cmp_column(&reg->cols[i], rel, rlen) != 0)
		return NULL;
	return &reg->cols[i];
}

bool oidmap_is_column(const struct oidmap_region *reg, const oid *name, size_t len)
{
	return oidmap_column(reg, name, len) != NULL;
}

size_t oidmap_instance_oid(const struct oidmap_region *reg, const struct oidmap_instance *inst,
                           oid *out)
{
	size_t len = reg->root_len;

	memcpy(out, reg->root, reg->root_len * sizeof(oid));
	for (size_t i = 0; i < inst->col->sublen; i++)
		out[len++] = inst->col->sub[i];
	for (size_t i = 0; i < inst->nindex; i++)
		out[len++] = inst->index[i];
	return len;
}

void oidmap_locate(const struct oidmap *map, uint32_t seg, statctr_id cell, uint32_t *t,
                   uint32_t *r, uint32_t *c)
{
	const struct statctr_table_decl *td;

	*t = table_of(map, seg, cell);
	td = &map->cfg->segments[seg].tables[*t];
	*r = (cell - td->first_cell) / td->ncolumns;
	*c = (cell - td->first_cell) % td->ncolumns;
}

size_t oidmap_nregions(const struct oidmap *map)
{
	return map->nregions;
}

const struct oidmap_region *oidmap_region(const struct oidmap *map, size_t i)
{
	return &map->regions[i];
}

/* ------------------------------------------------------------------------
 * Building the map from the configuration.
 */

static int cmp_seg(const void *a, const void *b)
{
	const struct seg_by_oid *x = a, *y = b;

	return x->oid < y->oid ? -1 : x->oid > y->oid;
}

static int cmp_id(const void *a, const void *b)
{
	statctr_id x = *(const statctr_id *)a, y = *(const statctr_id *)b;

	return x < y ? -1 : x > y;
}

/* Segment oids are unique (the library checks it), so bisection finds one. */
static void build_segments(struct oidmap *map)
{
	const struct statctr_config *cfg = map->cfg;

	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		map->by_oid[i].oid = cfg->segments[i].oid;
		map->by_oid[i].conf = i;
	}
	qsort(map->by_oid, cfg->nsegments, sizeof(map->by_oid[0]), cmp_seg);
}

static const struct statctr_segment_decl *sort_segment; /* qsort has no context */

static int cmp_table(const void *a, const void *b)
{
	statctr_id x = sort_segment->tables[*(const uint32_t *)a].first_cell;
	statctr_id y = sort_segment->tables[*(const uint32_t *)b].first_cell;

	return x < y ? -1 : x > y;
}

static int build_table_order(const struct statctr_segment_decl *d, uint32_t **orderp)
{
	uint32_t *order = malloc(((size_t)d->ntables + 1) * sizeof(uint32_t));

	*orderp = order;
	if (!order)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables; t++)
		order[t] = t;
	sort_segment = d;
	qsort(order, d->ntables, sizeof(uint32_t), cmp_table);
	return 0;
}

static void add_cell(struct seg_cells *cells, enum statctr_kind kind, statctr_id id)
{
	if (kind != STATCTR_KIND_HISTOGRAM)
		cells->sloted[cells->nsloted++] = id;
	if (kind == STATCTR_KIND_GAUGE) {
		cells->gauges[cells->ngauges++] = id;
		return;
	}
	cells->counters[cells->ncounters++] = id;
	if (kind == STATCTR_KIND_COUNTER)
		cells->plain[cells->nplain++] = id;
}

static int build_cells(const struct statctr_segment_decl *d, struct seg_cells *cells)
{
	cells->counters = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	cells->plain = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	cells->gauges = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	cells->sloted = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	if (!cells->counters || !cells->plain || !cells->gauges || !cells->sloted)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *td = &d->tables[t];
		uint32_t end = td->first_cell + td->nrows * td->ncolumns;

		for (uint32_t r = 0; r < td->nrows; r++)
			for (uint32_t c = 0; c < td->ncolumns; c++)
				add_cell(cells, td->columns[c].kind,
				         td->first_cell + r * td->ncolumns + c);
		if (end > cells->ngrid)
			cells->ngrid = end;
	}
	qsort(cells->counters, cells->ncounters, sizeof(statctr_id), cmp_id);
	qsort(cells->plain, cells->nplain, sizeof(statctr_id), cmp_id);
	qsort(cells->gauges, cells->ngauges, sizeof(statctr_id), cmp_id);
	qsort(cells->sloted, cells->nsloted, sizeof(statctr_id), cmp_id);
	return 0;
}

/* Room for the present rows of each dynamic table of segment @d. */
static int build_present(const struct statctr_segment_decl *d, struct present_rows **presentp)
{
	struct present_rows *present = calloc((size_t)d->ntables + 1, sizeof(*present));

	*presentp = present;
	if (!present)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables; t++) {
		if (!d->tables[t].dynamic)
			continue;
		present[t].rows = malloc((size_t)d->tables[t].nrows * sizeof(uint32_t));
		if (!present[t].rows)
			return errmsg_set(ENOMEM, "out of memory");
	}
	return 0;
}

static void free_present(const struct statctr_segment_decl *d, struct present_rows *present)
{
	for (uint32_t t = 0; present && t < d->ntables; t++)
		free(present[t].rows);
	free(present);
}

static void set_root(struct oidmap_region *reg, const uint32_t *root, size_t root_len,
                     const oid *tail, size_t ntail)
{
	for (size_t i = 0; i < root_len; i++)
		reg->root[i] = root[i];
	for (size_t i = 0; i < ntail; i++)
		reg->root[root_len + i] = tail[i];
	reg->root_len = root_len + ntail;
}

/* MIB_FIXED_OBJECTS is in OID order: its accessible rows are sorted as regions need. */
static size_t object_columns(struct oidmap_column *cols)
{
	size_t n = 0;

	for (size_t i = 0; i < MIB_NOBJECTS; i++) {
		const struct mib_object *o = &mib_objects[i];
		uint32_t sub[3];

		if (o->access == MIB_NOT_ACCESSIBLE || o->access == MIB_ACCESSIBLE_FOR_NOTIFY)
			continue;
		cols[n] = (struct oidmap_column){.sublen = (uint8_t)mib_object_oid(o, sub),
		                                 .space = (uint8_t)o->space,
		                                 .filter = (uint8_t)o->instances,
		                                 .writable = o->access == MIB_READ_WRITE,
		                                 .what = (uint16_t)i};
		for (size_t k = 0; k < cols[n].sublen; k++)
			cols[n].sub[k] = sub[k];
		n++;
	}
	return n;
}

/* The entry columns of a declared table: row name, discontinuity, reset, then its columns. */
static struct oidmap_column *data_columns(const struct statctr_table_decl *td)
{
	static const struct {
		uint32_t column;
		uint16_t what;
	} fixed[3] = {{MIB_DATA_ROW_NAME, W_ROW_NAME},
	              {MIB_DATA_DISCONTINUITY, W_ROW_DISCONTINUITY},
	              {MIB_DATA_RESET, W_ROW_RESET}};
	struct oidmap_column *cols = calloc((size_t)td->ncolumns + 3, sizeof(*cols));

	if (!cols)
		return NULL;
	for (uint32_t i = 0; i < 3; i++)
		cols[i] = (struct oidmap_column){{MIB_ARC_ENTRY, fixed[i].column},
		                                 2,
		                                 SPACE_ROW,
		                                 MIB_ALL,
		                                 fixed[i].what == W_ROW_RESET,
		                                 fixed[i].what,
		                                 0};
	for (uint32_t c = 0; c < td->ncolumns; c++)
		cols[3 + c] = (struct oidmap_column){
		    {MIB_ARC_ENTRY, MIB_DATA_FIRST_VALUE + c},
		    2,
		    SPACE_ROW,
		    td->columns[c].kind == STATCTR_KIND_GAUGE ? MIB_GAUGES : MIB_COUNTERS,
		    0,
		    W_ROW_VALUE,
		    c};
	return cols;
}

/*
 * A histogram's bucket and summary tables, and with @epochs its interval
 * bucket table: R.4.S.T.(10+c) is the region's root.  @n: how many.
 */
static struct oidmap_column *hist_columns(uint32_t c, bool epochs, size_t *n)
{
	static const struct {
		oid sub[3];
		uint8_t space;
		uint16_t what;
	} cols[5] = {
	    {{MIB_HIST_BUCKETS, MIB_ARC_ENTRY, MIB_HIST_BUCKET_BOUND}, SPACE_BUCKET, W_HIST_BOUND},
	    {{MIB_HIST_BUCKETS, MIB_ARC_ENTRY, MIB_HIST_BUCKET_COUNT},
	     SPACE_BUCKET,
	     W_HIST_BUCKET_COUNT},
	    {{MIB_HIST_SUMMARY, MIB_ARC_ENTRY, MIB_HIST_COUNT}, SPACE_ROW, W_HIST_COUNT},
	    {{MIB_HIST_SUMMARY, MIB_ARC_ENTRY, MIB_HIST_SUM}, SPACE_ROW, W_HIST_SUM},
	    {{MIB_HIST_INTERVALS, MIB_ARC_ENTRY, MIB_HIST_INTERVAL_COUNT},
	     SPACE_HIST_INTERVAL,
	     W_HIST_INTERVAL},
	};
	struct oidmap_column *out = calloc(5, sizeof(*out));

	*n = epochs ? 5 : 4;
	for (size_t i = 0; out && i < *n; i++)
		out[i] = (struct oidmap_column){{cols[i].sub[0], cols[i].sub[1], cols[i].sub[2]},
		                                3,
		                                cols[i].space,
		                                MIB_ALL,
		                                0,
		                                cols[i].what,
		                                c};
	return out;
}

/* An interval table's columns: valid, then each counter or histogram column's count. */
static struct oidmap_column *interval_columns(const struct statctr_table_decl *td, size_t *ncols)
{
	struct oidmap_column *cols = calloc((size_t)td->ncolumns + 1, sizeof(*cols));

	*ncols = 0;
	if (!cols)
		return NULL;
	cols[(*ncols)++] = (struct oidmap_column){{MIB_ARC_ENTRY, MIB_INTERVAL_VALID},
	                                          2,
	                                          SPACE_INTERVAL,
	                                          MIB_ALL,
	                                          0,
	                                          W_INTERVAL_VALID,
	                                          0};
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if (td->columns[c].kind != STATCTR_KIND_GAUGE)
			cols[(*ncols)++] =
			    (struct oidmap_column){{MIB_ARC_ENTRY, MIB_DATA_FIRST_VALUE + c},
			                           2,
			                           SPACE_INTERVAL,
			                           MIB_ALL,
			                           0,
			                           W_INTERVAL_COUNT,
			                           c};
	return cols;
}

/* The next region, for table @t of segment @s: its columns @cols (owned by the map). */
static struct oidmap_region *add_region(struct oidmap *map, uint32_t s, uint32_t t,
                                        struct oidmap_column *cols, size_t ncols)
{
	struct oidmap_region *reg = &map->regions[map->nregions];

	map->data_cols[map->nregions] = cols;
	if (!cols)
		return NULL;
	map->nregions++;
	reg->map = map;
	reg->cols = cols;
	reg->ncols = ncols;
	reg->seg = s;
	reg->table = t;
	return reg;
}

/* One region per histogram column of table @t of segment @s, after the table's. */
static int build_hist_regions(struct oidmap *map, const uint32_t *root, size_t root_len, uint32_t s,
                              uint32_t t)
{
	const struct statctr_segment_decl *d = &map->cfg->segments[s];
	const struct statctr_table_decl *td = &d->tables[t];

	for (uint32_t c = 0; c < td->ncolumns; c++) {
		const oid tail[] = {MIB_ARC_HISTOGRAMS, d->oid, td->oid, MIB_DATA_FIRST_VALUE + c};
		struct oidmap_region *reg;
		size_t ncols;

		if (td->columns[c].kind != STATCTR_KIND_HISTOGRAM)
			continue;
		reg = add_region(map, s, t, hist_columns(c, d->epoch_keep > 0, &ncols), 0);
		if (!reg)
			return errmsg_set(ENOMEM, "out of memory");
		reg->ncols = ncols;
		snprintf(reg->name, sizeof(reg->name), "statctr.%.12s.%.12s.%.12s", d->name,
		         td->name, td->columns[c].name);
		set_root(reg, root, root_len, tail, 4);
	}
	return 0;
}

/* The interval tables of segment @s (one that declares epochs), after its other regions. */
static int build_interval_regions(struct oidmap *map, const uint32_t *root, size_t root_len,
                                  uint32_t s)
{
	const struct statctr_segment_decl *d = &map->cfg->segments[s];

	for (uint32_t t = 0; t < d->ntables; t++) {
		const oid tail[] = {MIB_ARC_INTERVALS, d->oid, d->tables[t].oid};
		struct oidmap_region *reg;
		size_t ncols;

		if (!mib_has_intervals(d, &d->tables[t]))
			continue;
		reg = add_region(map, s, t, interval_columns(&d->tables[t], &ncols), 0);
		if (!reg)
			return errmsg_set(ENOMEM, "out of memory");
		reg->ncols = ncols;
		snprintf(reg->name, sizeof(reg->name), "statctr.%.14s.%.14s.epochs", d->name,
		         d->tables[t].name);
		set_root(reg, root, root_len, tail, 3);
	}
	return 0;
}

/* Table oids are unique within a segment (the library checks it). */
static int build_regions(struct oidmap *map, const uint32_t *root, size_t root_len)
{
	const struct statctr_config *cfg = map->cfg;
	struct oidmap_region *reg = &map->regions[0];
	const oid objects[] = {MIB_ARC_OBJECTS};

	reg->map = map;
	snprintf(reg->name, sizeof(reg->name), "statctrObjects");
	set_root(reg, root, root_len, objects, 1);
	reg->cols = map->object_cols;
	reg->ncols = object_columns(map->object_cols);
	for (uint32_t s = 0; s < cfg->nsegments; s++) {
		const struct statctr_segment_decl *d = &cfg->segments[s];

		for (uint32_t t = 0; t < d->ntables; t++) {
			const oid tail[] = {MIB_ARC_DATA, d->oid, d->tables[t].oid};
			int err;

			reg = add_region(map, s, t, data_columns(&d->tables[t]),
			                 (size_t)d->tables[t].ncolumns + 3);
			if (!reg)
				return errmsg_set(ENOMEM, "out of memory");
			snprintf(reg->name, sizeof(reg->name), "statctr.%.18s.%.18s", d->name,
			         d->tables[t].name);
			set_root(reg, root, root_len, tail, 3);
			err = build_hist_regions(map, root, root_len, s, t);
			if (err)
				return err;
		}
	}
	for (uint32_t s = 0; s < cfg->nsegments; s++) {
		int err = build_interval_regions(map, root, root_len, s);

		if (err)
			return err;
	}
	return 0;
}

/* Regions of the declared tables and of their histogram columns. */
static size_t count_regions(const struct statctr_config *cfg)
{
	size_t n = 0;

	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++) {
			const struct statctr_table_decl *td = &cfg->segments[s].tables[t];

			n++;
			n += mib_has_intervals(&cfg->segments[s], td);
			for (uint32_t c = 0; c < td->ncolumns; c++)
				n += td->columns[c].kind == STATCTR_KIND_HISTOGRAM;
		}
	return n;
}

int oidmap_create(const struct statctr_config *cfg, const uint32_t *root, size_t root_len,
                  struct oidmap **mapp)
{
	struct oidmap *map;
	size_t nregions = count_regions(cfg) + 1;
	int err = 0;

	*mapp = NULL;
	if (root_len > MIB_ROOT_MAX_ARCS)
		return errmsg_set(EINVAL, "root OID too long (%zu sub-identifiers)", root_len);
	map = calloc(1, sizeof(*map));
	if (map) {
		map->cfg = cfg;
		map->by_oid = calloc(cfg->nsegments + 1, sizeof(*map->by_oid));
		map->cells = calloc(cfg->nsegments + 1, sizeof(*map->cells));
		map->tables_by_cell = calloc(cfg->nsegments + 1, sizeof(*map->tables_by_cell));
		map->present = calloc(cfg->nsegments + 1, sizeof(*map->present));
		map->regions = calloc(nregions, sizeof(*map->regions));
		map->data_cols = calloc(nregions, sizeof(*map->data_cols));
		map->nregions = 1;
	}
	if (!map || !map->by_oid || !map->cells || !map->tables_by_cell || !map->present ||
	    !map->regions || !map->data_cols)
		err = errmsg_set(ENOMEM, "out of memory");
	if (!err)
		build_segments(map);
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++) {
		err = build_cells(&cfg->segments[s], &map->cells[s]);
		if (!err)
			err = build_table_order(&cfg->segments[s], &map->tables_by_cell[s]);
		if (!err)
			err = build_present(&cfg->segments[s], &map->present[s]);
	}
	if (!err)
		err = build_regions(map, root, root_len);
	if (err) {
		oidmap_free(map);
		return err;
	}
	*mapp = map;
	return 0;
}

void oidmap_free(struct oidmap *map)
{
	if (!map)
		return;
	for (uint32_t s = 0; map->cells && s < map->cfg->nsegments; s++) {
		free(map->cells[s].counters);
		free(map->cells[s].plain);
		free(map->cells[s].gauges);
		free(map->cells[s].sloted);
	}
	for (uint32_t s = 0; map->tables_by_cell && s < map->cfg->nsegments; s++)
		free(map->tables_by_cell[s]);
	free(map->tables_by_cell);
	for (uint32_t s = 0; map->present && s < map->cfg->nsegments; s++)
		free_present(&map->cfg->segments[s], map->present[s]);
	free(map->present);
	for (size_t i = 0; map->data_cols && i < map->nregions; i++)
		free(map->data_cols[i]);
	free(map->data_cols);
	free(map->regions);
	free(map->cells);
	free(map->by_oid);
	free(map);
}
