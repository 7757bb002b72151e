/*
 * handlers.c - the STATCTR-MIB backend of the engine (engine.h): the
 * regions of the oidmap (statctrObjects, each declared table, each
 * histogram), their instances (oidmap.c's O(log n) search) and their
 * values, and which SET resets what (setcheck.c checks it).
 *
 * Owns the meaning of every STATCTR-MIB object: which published number an
 * instance is.  Never encodes a value itself (encode.c does), never
 * registers (register.c) and never reads a segment: it answers from the
 * published aggregation the engine hands it.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "handlers.h"
#include "agent.h"
#include "encode.h"
#include "setcheck.h"
#include "traps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct handlers_region;

struct handlers {
	const struct agent_settings *set;
	const struct oidmap *map;
	struct handlers_region *regions;
};

/* ------------------------------------------------------------------------
 * Values.
 */

/* A discontinuity time of segment @as: never before the agent's floor. */
static uint64_t floored(const struct agg_segment *as, uint64_t ns)
{
	return ns > as->disc_floor_ns ? ns : as->disc_floor_ns;
}

/* The notification counters: the agent's, not the result's (traps.c). */
static void set_notify_value(uint16_t what, netsnmp_variable_list *vb)
{
	struct traps_counts c;

	traps_get_counts(&c);
	encode_counter64(vb, what == MIB_NOTIFY_SENT         ? c.sent
	                     : what == MIB_NOTIFY_SUPPRESSED ? c.suppressed
	                                                     : c.lost);
}

static void set_agent_value(const struct handlers *h, const struct agg_result *res,
                            const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	const struct agg_stats *st = &res->stats;

	switch (inst->col->what) {
	case MIB_VERSION:
		encode_string(vb, STATCTR_VERSION);
		break;
	case MIB_INTERVAL:
		encode_unsigned32(vb, h->set->interval_ms);
		break;
	case MIB_LAST_PASS:
		encode_timestamp(vb, res->taken_ns);
		break;
	case MIB_PASS_DURATION:
		encode_gauge32(vb, st->last_duration_us);
		break;
	case MIB_PASSES:
		encode_counter64(vb, st->passes);
		break;
	case MIB_RETRIES:
		encode_counter64(vb, st->retries);
		break;
	case MIB_BUSY:
		encode_counter64(vb, st->busy);
		break;
	case MIB_ASSISTED:
		encode_counter64(vb, st->assisted);
		break;
	case MIB_RESETS_REFUSED:
		encode_counter64(vb, st->resets_refused);
		break;
	case MIB_NOTIFY_SENT:
	case MIB_NOTIFY_SUPPRESSED:
	case MIB_NOTIFY_LOST:
		set_notify_value(inst->col->what, vb);
		break;
	default: /* MIB_RESET_ALLOWED: TruthValue */
		encode_truth(vb, h->set->allow_reset);
		break;
	}
}

static void set_segment_value(const struct handlers *h, const struct agg_segment *as, uint16_t what,
                              netsnmp_variable_list *vb)
{
	switch (what) {
	case MIB_SEG_NAME:
		encode_string(vb, as->decl->name);
		break;
	case MIB_SEG_PATH:
		encode_string(vb, as->decl->path);
		break;
	case MIB_SEG_STATUS:
		encode_integer(vb, as->status);
		break;
	case MIB_SEG_SLOTS:
		encode_unsigned32(vb, as->snap ? as->nslots : as->decl->nslots);
		break;
	case MIB_SEG_CELLS:
		encode_unsigned32(vb, as->decl->ncells);
		break;
	case MIB_SEG_PID:
		encode_unsigned32(vb, as->status == AGG_ABSENT ? 0 : (uint64_t)as->writer_pid);
		break;
	case MIB_SEG_CREATED:
		encode_date(vb, as->status == AGG_ABSENT ? 0 : as->created_ns);
		break;
	case MIB_SEG_DISCONTINUITY:
		encode_timestamp(vb, as->status == AGG_ABSENT ? 0 : floored(as, as->created_ns));
		break;
	case MIB_SEG_GENERATIONS:
		encode_counter32(vb, as->generations);
		break;
	case MIB_SEG_BUSY:
		encode_gauge32(vb, as->busy_slots);
		break;
	default: /* MIB_SEG_RESET */
		encode_integer(vb, SETCHECK_IDLE);
		break;
	}
}

void handlers_segment_value(const struct agg_segment *as, enum mib_object_id what,
                            netsnmp_variable_list *vb)
{
	set_segment_value(NULL, as, (uint16_t)what, vb);
}

/*
 * Row @r of table @t: its declared name, a dynamic row's name from the
 * snapshot (read with its values: one incarnation), or its number.
 */
static void set_row_name(const struct agg_segment *as, uint32_t t, uint32_t r,
                         netsnmp_variable_list *vb)
{
	const char *name = statctr_snap_row_name(as->snap, t, r);
	char num[16];

	if (name) {
		encode_string(vb, name);
		return;
	}
	snprintf(num, sizeof(num), "%" PRIu32, r);
	encode_string(vb, num);
}

static void set_level(const struct statctr_snap *snap, statctr_id id, bool wide,
                      netsnmp_variable_list *vb)
{
	int64_t level = statctr_snap_gauge(snap, id);

	if (wide)
		encode_counter64(vb, level < 0 ? 0 : (uint64_t)level);
	else
		encode_gauge32(vb, level);
}

static void set_slot_delta(const struct statctr_snap *snap, uint32_t slot, statctr_id id,
                           netsnmp_variable_list *vb)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, (int64_t)statctr_snap_slot_value(snap, slot, id));
	encode_string(vb, num);
}

/* A Counter64 cell's value: a counter's, or a histogram's count. */
static uint64_t counted(const struct statctr_snap *snap, enum statctr_kind kind, statctr_id id)
{
	return kind == STATCTR_HISTOGRAM ? statctr_snap_hist_count(snap, id)
	                                 : statctr_snap_counter(snap, id);
}

static void set_cell_value(const struct handlers *h, const struct agg_segment *as,
                           const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	uint32_t t, r, c;
	const struct statctr_table_decl *td;

	oidmap_locate(h->map, inst->seg, inst->cell, &t, &r, &c);
	td = &as->decl->tables[t];
	switch (inst->col->what) {
	case MIB_CELL_TABLE:
		encode_string(vb, td->name);
		break;
	case MIB_CELL_COLUMN:
		encode_string(vb, td->columns[c].name);
		break;
	case MIB_CELL_ROW:
		set_row_name(as, t, r, vb);
		break;
	case MIB_CELL_KIND:
		encode_integer(vb, td->columns[c].kind);
		break;
	case MIB_CELL_DESCRIPTION:
		encode_string(vb, td->columns[c].description);
		break;
	case MIB_CELL_UNITS:
		encode_string(vb, td->columns[c].units);
		break;
	case MIB_CELL_COUNTER:
		encode_counter64(vb, counted(as->snap, td->columns[c].kind, inst->cell));
		break;
	case MIB_CELL_GAUGE32:
	case MIB_CELL_GAUGE64:
		set_level(as->snap, inst->cell, inst->col->what == MIB_CELL_GAUGE64, vb);
		break;
	case MIB_CELL_DISCONTINUITY:
		encode_timestamp(vb, floored(as, statctr_snap_discontinuity(as->snap, inst->cell)));
		break;
	case MIB_SLOT_COUNTER:
		encode_counter64(vb, statctr_snap_slot_value(as->snap, inst->slot, inst->cell));
		break;
	case MIB_SLOT_GAUGE_DELTA:
		set_slot_delta(as->snap, inst->slot, inst->cell, vb);
		break;
	default: /* MIB_CELL_RESET */
		encode_integer(vb, SETCHECK_IDLE);
		break;
	}
}

static void set_row_value(const struct handlers *h, const struct oidmap_region *region,
                          const struct agg_segment *as, const struct oidmap_instance *inst,
                          netsnmp_variable_list *vb)
{
	const struct statctr_table_decl *td = &as->decl->tables[region->table];
	statctr_id id = inst->cell + inst->col->column;

	switch (inst->col->what) {
	case W_ROW_NAME:
		set_row_name(as, region->table, inst->row, vb);
		break;
	case W_ROW_DISCONTINUITY:
		encode_timestamp(vb, agg_row_discontinuity(as, inst->cell, td->ncolumns));
		break;
	case W_ROW_RESET:
		encode_integer(vb, SETCHECK_IDLE);
		break;
	default: /* W_ROW_VALUE */
		if (td->columns[inst->col->column].kind == STATCTR_GAUGE)
			set_level(as->snap, id, false, vb);
		else
			encode_counter64(
			    vb, counted(as->snap, td->columns[inst->col->column].kind, id));
		break;
	}
}

/*
 * Bucket @b's count, cumulative (Prometheus `le`): values <= its bound.
 * At most STATCTR_MAX_BUCKETS + 1 additions, whatever the table's size.
 */
static uint64_t cumulative(const struct statctr_snap *snap, statctr_id id, uint32_t b)
{
	uint64_t total = 0;

	for (uint32_t k = 0; k <= b; k++)
		total += statctr_snap_hist_bucket(snap, id, k);
	return total;
}

/* A histogram's bucket and summary tables (statctrHistograms). */
static void set_hist_value(const struct agg_segment *as, const struct oidmap_region *region,
                           const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	const struct statctr_column_decl *col =
	    &as->decl->tables[region->table].columns[inst->col->column];
	statctr_id id = inst->cell + inst->col->column;
	char bound[24];

	switch (inst->col->what) {
	case W_HIST_BOUND:
		if (inst->bucket == col->nbuckets)
			snprintf(bound, sizeof(bound), "+Inf");
		else
			snprintf(bound, sizeof(bound), "%" PRIu64, col->bounds[inst->bucket]);
		encode_string(vb, bound);
		break;
	case W_HIST_BUCKET_COUNT:
		encode_counter64(vb, cumulative(as->snap, id, inst->bucket));
		break;
	case W_HIST_COUNT:
		encode_counter64(vb, statctr_snap_hist_count(as->snap, id));
		break;
	default: /* W_HIST_SUM */
		encode_counter64(vb, statctr_snap_hist_sum(as->snap, id));
		break;
	}
}

static void set_value(const struct handlers *h, const struct agg_result *res,
                      const struct oidmap_region *region, const struct oidmap_instance *inst,
                      netsnmp_variable_list *vb)
{
	switch (inst->col->space) {
	case MIB_SPACE_AGENT:
		set_agent_value(h, res, inst, vb);
		break;
	case MIB_SPACE_SEGMENT:
		set_segment_value(h, &res->segs[inst->seg], inst->col->what, vb);
		break;
	case SPACE_ROW:
		if (inst->col->what == W_HIST_COUNT || inst->col->what == W_HIST_SUM)
			set_hist_value(&res->segs[inst->seg], region, inst, vb);
		else
			set_row_value(h, region, &res->segs[inst->seg], inst, vb);
		break;
	case SPACE_BUCKET:
		set_hist_value(&res->segs[inst->seg], region, inst, vb);
		break;
	default:
		set_cell_value(h, &res->segs[inst->seg], inst, vb);
		break;
	}
}

/* ------------------------------------------------------------------------
 * The backend: GET, GETNEXT and SET of one region.
 */

struct handlers_region {
	const struct handlers *h;
	const struct oidmap_region *region;
};

static int get(const void *data, const struct agg_result *res, netsnmp_variable_list *vb)
{
	const struct handlers_region *hr = data;
	struct oidmap_instance inst;

	if (oidmap_get(hr->region, res, vb->name, vb->name_length, &inst)) {
		set_value(hr->h, res, hr->region, &inst, vb);
		return SNMP_ERR_NOERROR;
	}
	if (oidmap_is_column(hr->region, vb->name, vb->name_length))
		return SNMP_NOSUCHINSTANCE;
	return SNMP_NOSUCHOBJECT;
}

static bool next(const void *data, const struct agg_result *res, netsnmp_variable_list *vb,
                 bool inclusive)
{
	const struct handlers_region *hr = data;
	struct oidmap_instance inst;
	oid name[MAX_OID_LEN];
	size_t len;

	if (!oidmap_next(hr->region, res, vb->name, vb->name_length, inclusive, &inst))
		return false;
	len = oidmap_instance_oid(hr->region, &inst, name);
	snmp_set_var_objid(vb, name, len);
	set_value(hr->h, res, hr->region, &inst, vb);
	return true;
}

/* The counters a reset instance covers. */
static void reset_range(const struct handlers_region *hr, const struct oidmap_instance *inst,
                        struct agg_reset *reset)
{
	const struct statctr_segment_decl *d = &hr->h->set->cfg->segments[inst->seg];

	reset->seg = inst->seg;
	reset->first = inst->cell;
	reset->count = 1;
	if (inst->col->what == MIB_SEG_RESET) {
		reset->first = 0;
		reset->count = d->ncells;
	} else if (inst->col->what == W_ROW_RESET) {
		reset->count = d->tables[hr->region->table].ncolumns;
	}
}

static int set_check(const void *data, const struct agg_result *res,
                     const netsnmp_variable_list *vb, struct agg_reset *reset)
{
	const struct handlers_region *hr = data;
	const struct setcheck_varbind v = {vb->name, vb->name_length, vb->type, vb->val.string,
	                                   vb->val_len};
	struct oidmap_instance inst;
	long action;
	int err = setcheck(hr->region, res, hr->h->set->allow_reset, &v, &inst, &action);

	if (err == SNMP_ERR_NOERROR && action == SETCHECK_RESET)
		reset_range(hr, &inst, reset);
	return err;
}

static const struct engine_backend backend = {.get = get, .next = next, .set_check = set_check};

int handlers_add(struct engine *e, const struct agent_settings *set, const struct oidmap *map,
                 struct handlers **hp)
{
	struct handlers *h = calloc(1, sizeof(*h));
	size_t n = oidmap_nregions(map);

	*hp = h;
	if (h)
		h->regions = calloc(n ? n : 1, sizeof(*h->regions));
	if (!h || !h->regions)
		return agent_seterr(ENOMEM, "out of memory");
	h->set = set;
	h->map = map;
	for (size_t i = 0; i < n; i++) {
		const struct oidmap_region *region = oidmap_region(map, i);
		int err;

		h->regions[i] = (struct handlers_region){h, region};
		err = engine_add(e, region->name, region->root, region->root_len, 0, 0, &backend,
		                 &h->regions[i]);
		if (err)
			return err;
	}
	return 0;
}

void handlers_free(struct handlers *h)
{
	if (!h)
		return;
	free(h->regions);
	free(h);
}
