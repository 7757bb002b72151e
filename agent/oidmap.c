/*
 * oidmap.c - OID <-> cell mapping: the regions, their sorted columns and
 * the O(log n) GET / GETNEXT search over a published aggregation.
 *
 * Owns the per-configuration index (segments sorted by oid, the sorted
 * counter and gauge cell ids of each segment, the column arrays).  Never
 * reads a segment: which instances exist is decided by the configuration
 * and by the published result (a segment without a snapshot has no rows).
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "oidmap.h"
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seg_by_oid {
	uint32_t oid;
	uint32_t conf; /* index in the configuration */
};

struct seg_cells {
	statctr_id *counters; /* sorted */
	uint32_t ncounters;
	statctr_id *gauges; /* sorted */
	uint32_t ngauges;
};

struct oidmap {
	const struct statctr_config *cfg;
	uint32_t **tables_by_cell; /* per segment: table indexes sorted by first_cell */
	struct seg_by_oid *by_oid; /* sorted by oid */
	struct seg_cells *cells;   /* configuration order */
	struct oidmap_region *regions;
	size_t nregions;
	struct oidmap_column **data_cols; /* one array per data-table region */
};

#define SCALAR(n, w)                                                                               \
	{                                                                                          \
		{1, n}, 2, SPACE_SCALAR, FILTER_ANY, 0, w, 0                                       \
	}
#define SEGCOL(n, w, wr)                                                                           \
	{                                                                                          \
		{2, 1, n}, 3, SPACE_SEGMENT, FILTER_ANY, wr, w, 0                                  \
	}
#define CELLCOL(n, f, w, wr)                                                                       \
	{                                                                                          \
		{3, 1, n}, 3, SPACE_CELL, f, wr, w, 0                                              \
	}
#define SLOTCOL(n, f, w)                                                                           \
	{                                                                                          \
		{4, 1, n}, 3, SPACE_SLOT, f, 0, w, 0                                               \
	}

/* statctrObjects (R.1), sorted by sub-identifiers as the MIB numbers them. */
static const struct oidmap_column object_cols[] = {
    SCALAR(1, W_VERSION),
    SCALAR(2, W_INTERVAL),
    SCALAR(3, W_LAST_PASS),
    SCALAR(4, W_PASS_DURATION),
    SCALAR(5, W_PASSES),
    SCALAR(6, W_RETRIES),
    SCALAR(7, W_BUSY),
    SCALAR(8, W_ASSISTED),
    SCALAR(9, W_RESET_ALLOWED),
    SEGCOL(2, W_SEG_NAME, 0),
    SEGCOL(3, W_SEG_PATH, 0),
    SEGCOL(4, W_SEG_STATUS, 0),
    SEGCOL(5, W_SEG_SLOTS, 0),
    SEGCOL(6, W_SEG_CELLS, 0),
    SEGCOL(7, W_SEG_PID, 0),
    SEGCOL(8, W_SEG_CREATED, 0),
    SEGCOL(9, W_SEG_DISCONTINUITY, 0),
    SEGCOL(10, W_SEG_GENERATIONS, 0),
    SEGCOL(11, W_SEG_BUSY, 0),
    SEGCOL(12, W_SEG_RESET, 1),
    CELLCOL(2, FILTER_ANY, W_CELL_TABLE, 0),
    CELLCOL(3, FILTER_ANY, W_CELL_COLUMN, 0),
    CELLCOL(4, FILTER_ANY, W_CELL_ROW, 0),
    CELLCOL(5, FILTER_ANY, W_CELL_KIND, 0),
    CELLCOL(6, FILTER_ANY, W_CELL_DESCRIPTION, 0),
    CELLCOL(7, FILTER_ANY, W_CELL_UNITS, 0),
    CELLCOL(8, FILTER_COUNTER, W_CELL_COUNTER, 0),
    CELLCOL(9, FILTER_GAUGE, W_CELL_GAUGE32, 0),
    CELLCOL(10, FILTER_GAUGE, W_CELL_GAUGE64, 0),
    CELLCOL(11, FILTER_ANY, W_CELL_DISCONTINUITY, 0),
    CELLCOL(12, FILTER_COUNTER, W_CELL_RESET, 1),
    SLOTCOL(2, FILTER_COUNTER, W_SLOT_COUNTER),
    SLOTCOL(3, FILTER_GAUGE, W_SLOT_GAUGE_DELTA),
};

/* statctrData entry columns before the declared ones (.1.(10+c)). */
#define DATA_FIRST_VALUE 10

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

static unsigned space_levels(enum oidmap_space space)
{
	switch (space) {
	case SPACE_CELL:
		return 2;
	case SPACE_SLOT:
		return 3;
	default:
		return 1;
	}
}

/* Position of the first segment whose oid is >= v. */
static uint32_t seg_lower_bound(const struct oidmap *map, uint64_t v)
{
	uint32_t lo = 0, hi = map->cfg->nsegments;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (map->by_oid[mid].oid < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return false;
	*out = ids[lo] + 1;
	return true;
}

static bool cell_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	uint32_t conf = seg_conf(s->reg->map, s->idx[0]);
	const struct seg_cells *cells = &s->reg->map->cells[conf];

	switch (s->col->filter) {
	case FILTER_COUNTER:
		return ids_ge(cells->counters, cells->ncounters, v, out);
	case FILTER_GAUGE:
		return ids_ge(cells->gauges, cells->ngauges, v, out);
	default:
		return range_ge(1, s->reg->map->cfg->segments[conf].ncells, v, out);
	}
}

static bool slot_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	uint32_t conf = seg_conf(s->reg->map, s->idx[0]);

	return range_ge(1, (uint64_t)s->res->segs[conf].nslots + 1, v, out);
}

static bool row_ge(const struct search *s, uint64_t v, uint32_t *out)
{
	const struct statctr_segment_decl *d = &s->reg->map->cfg->segments[s->reg->seg];

	if (!s->res->segs[s->reg->seg].snap)
		return false;
	return range_ge(1, d->tables[s->reg->table].nrows, v, out);
}

static bool level_ge(const struct search *s, unsigned level, uint64_t v, uint32_t *out)
{
	switch ((enum oidmap_space)s->col->space) {
	case SPACE_SCALAR:
		return range_ge(0, 0, v, out);
	case SPACE_SEGMENT:
		return seg_ge(s, v, false, out);
	case SPACE_ROW:
		return row_ge(s, v, out);
	case SPACE_CELL:
	case SPACE_SLOT:
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
	if (col->space == SPACE_ROW) {
		const struct statctr_table_decl *t =
		    &map->cfg->segments[s->reg->seg].tables[s->reg->table];

		inst->seg = s->reg->seg;
		inst->row = s->idx[0] - 1;
		inst->cell = t->first_cell + inst->row * t->ncolumns;
	} else if (col->space != SPACE_SCALAR) {
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
	size_t lo = 0, hi = reg->ncols;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_column(&reg->cols[mid], rel, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	const struct statctr_segment_decl *d = &map->cfg->segments[seg];
	const uint32_t *order = map->tables_by_cell[seg];
	uint32_t lo = 0, hi = d->ntables;
	const struct statctr_table_decl *td;

	/* The last table whose first cell is <= cell. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->tables[order[mid]].first_cell <= cell)
			lo = mid;
		else
			hi = mid;
	}
	*t = order[lo];
	td = &d->tables[*t];
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

static int build_segments(struct oidmap *map)
{
	const struct statctr_config *cfg = map->cfg;

	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		map->by_oid[i].oid = cfg->segments[i].oid;
		map->by_oid[i].conf = i;
	}
	qsort(map->by_oid, cfg->nsegments, sizeof(map->by_oid[0]), cmp_seg);
	for (uint32_t i = 1; i < cfg->nsegments; i++) {
		const struct statctr_segment_decl *a = &cfg->segments[map->by_oid[i - 1].conf];
		const struct statctr_segment_decl *b = &cfg->segments[map->by_oid[i].conf];

		if (a->oid == b->oid)
			return agent_seterr(EINVAL,
			                    "%s:%d: segment %s: oid %u collides with segment %s "
			                    "(line %d)",
			                    cfg->file, b->line, b->name, b->oid, a->name, a->line);
	}
	return 0;
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
		return agent_seterr(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables; t++)
		order[t] = t;
	sort_segment = d;
	qsort(order, d->ntables, sizeof(uint32_t), cmp_table);
	return 0;
}

static int build_cells(const struct statctr_segment_decl *d, struct seg_cells *cells)
{
	cells->counters = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	cells->gauges = malloc(((size_t)d->ncells + 1) * sizeof(statctr_id));
	if (!cells->counters || !cells->gauges)
		return agent_seterr(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *td = &d->tables[t];

		for (uint32_t r = 0; r < td->nrows; r++)
			for (uint32_t c = 0; c < td->ncolumns; c++) {
				statctr_id id = td->first_cell + r * td->ncolumns + c;

				if (td->columns[c].kind == STATCTR_GAUGE)
					cells->gauges[cells->ngauges++] = id;
				else
					cells->counters[cells->ncounters++] = id;
			}
	}
	qsort(cells->counters, cells->ncounters, sizeof(statctr_id), cmp_id);
	qsort(cells->gauges, cells->ngauges, sizeof(statctr_id), cmp_id);
	return 0;
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

static struct oidmap_column *data_columns(const struct statctr_table_decl *td)
{
	struct oidmap_column *cols = calloc((size_t)td->ncolumns + 3, sizeof(*cols));
	static const uint16_t fixed[3] = {W_ROW_NAME, W_ROW_DISCONTINUITY, W_ROW_RESET};

	if (!cols)
		return NULL;
	for (uint32_t i = 0; i < 3; i++)
		cols[i] = (struct oidmap_column){{1, 2 + i}, 2,        SPACE_ROW, FILTER_ANY,
		                                 i == 2,     fixed[i], 0};
	for (uint32_t c = 0; c < td->ncolumns; c++)
		cols[3 + c] = (struct oidmap_column){
		    {1, DATA_FIRST_VALUE + c},
		    2,
		    SPACE_ROW,
		    td->columns[c].kind == STATCTR_GAUGE ? FILTER_GAUGE : FILTER_COUNTER,
		    0,
		    W_ROW_VALUE,
		    c};
	return cols;
}

static int check_tables(const struct statctr_config *cfg, const struct statctr_segment_decl *d)
{
	for (uint32_t t = 1; t < d->ntables; t++)
		for (uint32_t u = 0; u < t; u++)
			if (d->tables[t].oid == d->tables[u].oid)
				return agent_seterr(EINVAL,
				                    "%s:%d: table %s.%s: oid %u collides with "
				                    "table %s (line %d)",
				                    cfg->file, d->tables[t].line, d->name,
				                    d->tables[t].name, d->tables[t].oid,
				                    d->tables[u].name, d->tables[u].line);
	return 0;
}

static int build_regions(struct oidmap *map, const uint32_t *root, size_t root_len)
{
	const struct statctr_config *cfg = map->cfg;
	struct oidmap_region *reg = &map->regions[0];
	const oid objects[] = {1};

	reg->map = map;
	snprintf(reg->name, sizeof(reg->name), "statctrObjects");
	set_root(reg, root, root_len, objects, 1);
	reg->cols = object_cols;
	reg->ncols = sizeof(object_cols) / sizeof(object_cols[0]);
	for (uint32_t s = 0; s < cfg->nsegments; s++) {
		const struct statctr_segment_decl *d = &cfg->segments[s];
		int err = check_tables(cfg, d);

		if (err)
			return err;
		for (uint32_t t = 0; t < d->ntables; t++) {
			const oid tail[] = {3, d->oid, d->tables[t].oid};

			reg = &map->regions[map->nregions];
			map->data_cols[map->nregions] = data_columns(&d->tables[t]);
			if (!map->data_cols[map->nregions])
				return agent_seterr(ENOMEM, "out of memory");
			reg->map = map;
			snprintf(reg->name, sizeof(reg->name), "statctr.%.18s.%.18s", d->name,
			         d->tables[t].name);
			set_root(reg, root, root_len, tail, 3);
			reg->cols = map->data_cols[map->nregions];
			reg->ncols = (size_t)d->tables[t].ncolumns + 3;
			reg->seg = s;
			reg->table = t;
			map->nregions++;
		}
	}
	return 0;
}

static size_t count_tables(const struct statctr_config *cfg)
{
	size_t n = 0;

	for (uint32_t s = 0; s < cfg->nsegments; s++)
		n += cfg->segments[s].ntables;
	return n;
}

int oidmap_create(const struct statctr_config *cfg, const uint32_t *root, size_t root_len,
                  struct oidmap **mapp)
{
	struct oidmap *map;
	size_t nregions = count_tables(cfg) + 1;
	int err = 0;

	*mapp = NULL;
	if (root_len + 9 > MAX_OID_LEN)
		return agent_seterr(EINVAL, "root OID too long (%zu sub-identifiers)", root_len);
	map = calloc(1, sizeof(*map));
	if (map) {
		map->cfg = cfg;
		map->by_oid = calloc(cfg->nsegments + 1, sizeof(*map->by_oid));
		map->cells = calloc(cfg->nsegments + 1, sizeof(*map->cells));
		map->tables_by_cell = calloc(cfg->nsegments + 1, sizeof(*map->tables_by_cell));
		map->regions = calloc(nregions, sizeof(*map->regions));
		map->data_cols = calloc(nregions, sizeof(*map->data_cols));
		map->nregions = 1;
	}
	if (!map || !map->by_oid || !map->cells || !map->tables_by_cell || !map->regions ||
	    !map->data_cols)
		err = agent_seterr(ENOMEM, "out of memory");
	if (!err)
		err = build_segments(map);
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++) {
		err = build_cells(&cfg->segments[s], &map->cells[s]);
		if (!err)
			err = build_table_order(&cfg->segments[s], &map->tables_by_cell[s]);
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
		free(map->cells[s].gauges);
	}
	for (uint32_t s = 0; map->tables_by_cell && s < map->cfg->nsegments; s++)
		free(map->tables_by_cell[s]);
	free(map->tables_by_cell);
	for (size_t i = 0; map->data_cols && i < map->nregions; i++)
		free(map->data_cols[i]);
	free(map->data_cols);
	free(map->regions);
	free(map->cells);
	free(map->by_oid);
	free(map);
}
