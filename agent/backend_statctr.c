/*
 * backend_statctr.c - the STATCTR-MIB backend of the engine (engine.h): the
 * regions of the oidmap (statctrObjects, each declared table, each
 * histogram), their instances (oidmap.c's O(log n) search) and their
 * values, and which SET resets what or starts an epoch (setcheck.c checks
 * it).
 *
 * Owns the meaning of every STATCTR-MIB object: which published number an
 * instance is.  Never encodes a value itself (encode.c does), never
 * registers (register.c) and never reads a segment: it answers from the
 * published aggregation the engine hands it.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "backend_statctr.h"
#include "agent.h"
#include "encode.h"
#include "notify_state.h"
#include "setcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One region of the oidmap: the data the engine hands the backend. */
struct handlers_region {
	const struct handlers *h;
	const struct oidmap_region *region;
};

struct handlers {
	const struct agent_settings *set;
	const struct oidmap *map;
	struct handlers_region regions[]; /* one per oidmap region */
};

/* ------------------------------------------------------------------------
 * Values.
 */

/* A discontinuity time of segment @as: never before the agent's floor. */
static uint64_t floored(const struct agg_segment *as, uint64_t ns)
{
	return ns > as->disc_floor_ns ? ns : as->disc_floor_ns;
}

/* The notification counters: the agent's, not the result's (notify_state.c). */
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

/* Seconds from the newest epoch's start to the pass at @now_ns (RFC 3705's HCPerfTimeElapsed). */
static uint64_t epoch_elapsed_s(const struct agg_segment *as, uint64_t now_ns)
{
	uint64_t start;

	if (!as->nepochs)
		return 0;
	start = as->epochs[as->nepochs - 1].start_ns;
	return now_ns > start ? (now_ns - start) / 1000000000u : 0;
}

static void set_segment_value(const struct handlers *h, const struct agg_segment *as, uint16_t what,
                              uint64_t now_ns, netsnmp_variable_list *vb)
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
	case MIB_SEG_EPOCH_VALID:
		encode_gauge32(vb, as->valid_intervals);
		break;
	case MIB_SEG_EPOCH_ELAPSED:
		encode_gauge32(vb, (int64_t)epoch_elapsed_s(as, now_ns));
		break;
	default: /* MIB_SEG_RESET, MIB_SEG_EPOCH_START */
		encode_integer(vb, SETCHECK_IDLE);
		break;
	}
}

void handlers_segment_value(const struct agg_segment *as, enum mib_object_id what,
                            netsnmp_variable_list *vb)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	set_segment_value(NULL, as, (uint16_t)what,
	                  (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec, vb);
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

/* "3", "shared", "cpu2", "cpu0-3": the library's name of the slot. */
static void set_slot_name(const struct statctr_snap *snap, uint32_t slot, netsnmp_variable_list *vb)
{
	char name[33];

	if (statctr_snap_slot_name(snap, slot, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "%u", slot); /* never: the search bounds slots */
	encode_string(vb, name);
}

static void set_slot_delta(const struct statctr_snap *snap, uint32_t slot, statctr_id id,
                           netsnmp_variable_list *vb)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, (int64_t)statctr_snap_slot_value(snap, slot, id));
	encode_string(vb, num);
}

/* A Counter64 cell's value: a counter's or a histogram's count, with what it carried over. */
static uint64_t counted(const struct agg_segment *as, enum statctr_kind kind, statctr_id id)
{
	return kind == STATCTR_KIND_HISTOGRAM ? agg_hist_count(as, id) : agg_counter(as, id);
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
		encode_counter64(vb, counted(as, td->columns[c].kind, inst->cell));
		break;
	case MIB_CELL_GAUGE32:
	case MIB_CELL_GAUGE64:
		set_level(as->snap, inst->cell, inst->col->what == MIB_CELL_GAUGE64, vb);
		break;
	case MIB_CELL_DISCONTINUITY:
		encode_timestamp(vb, floored(as, agg_discontinuity(as, inst->cell)));
		break;
	case MIB_SLOT_COUNTER:
		encode_counter64(vb, statctr_snap_slot_value(as->snap, inst->slot, inst->cell));
		break;
	case MIB_SLOT_GAUGE_DELTA:
		set_slot_delta(as->snap, inst->slot, inst->cell, vb);
		break;
	case MIB_SLOT_NAME:
		set_slot_name(as->snap, inst->slot, vb);
		break;
	default: /* MIB_CELL_RESET */
		encode_integer(vb, SETCHECK_IDLE);
		break;
	}
}

/* A declared column's value: a gauge's level latched as Gauge32, else a Counter64. */
static void set_column_value(const struct agg_segment *as, const struct statctr_column_decl *col,
                             statctr_id id, netsnmp_variable_list *vb)
{
	if (col->kind == STATCTR_KIND_GAUGE)
		set_level(as->snap, id, false, vb);
	else
		encode_counter64(vb, counted(as, col->kind, id));
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
		set_column_value(as, &td->columns[inst->col->column], id, vb);
		break;
	}
}

void handlers_row_value(const struct agg_segment *as, uint32_t t, uint32_t row, uint32_t c,
                        netsnmp_variable_list *vb)
{
	const struct statctr_table_decl *td = &as->decl->tables[t];

	set_column_value(as, &td->columns[c], td->first_cell + row * td->ncolumns + c, vb);
}

void handlers_row_discontinuity(const struct agg_segment *as, uint32_t t, uint32_t row,
                                netsnmp_variable_list *vb)
{
	const struct statctr_table_decl *td = &as->decl->tables[t];

	encode_timestamp(
	    vb, agg_row_discontinuity(as, td->first_cell + row * td->ncolumns, td->ncolumns));
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
		/* cumulative (Prometheus `le`): values <= its bound */
		encode_counter64(vb, agg_hist_cumulative(as, id, inst->bucket));
		break;
	case W_HIST_COUNT:
		encode_counter64(vb, agg_hist_count(as, id));
		break;
	default: /* W_HIST_SUM */
		encode_counter64(vb, agg_hist_sum(as, id));
		break;
	}
}

/* A row of statctrEpochTable. */
static void set_epoch_value(const struct agg_segment *as, const struct oidmap_instance *inst,
                            netsnmp_variable_list *vb)
{
	const struct agg_epoch *ep = &as->epochs[inst->epoch];

	switch (inst->col->what) {
	case MIB_EPOCH_NAME:
		encode_string(vb, ep->name);
		break;
	case MIB_EPOCH_START:
		encode_timestamp(vb, ep->start_ns);
		break;
	case MIB_EPOCH_START_DATE:
		encode_date(vb, ep->start_ns);
		break;
	default: /* MIB_EPOCH_VALID */
		encode_truth(vb, ep->valid);
		break;
	}
}

/*
 * Epoch @e's interval: from its number to the next kept one's, or to the
 * snapshot (0) for the newest.  false when it is not valid (statctrEpochValid).
 */
static bool interval_of(const struct agg_segment *as, uint32_t e, uint32_t *from, uint32_t *to)
{
	*from = as->epochs[e].number;
	*to = e + 1 < as->nepochs ? as->epochs[e + 1].number : 0;
	return as->epochs[e].valid;
}

/*
 * Bucket @b's count in epoch @e, cumulative (values <= its bound), as the
 * bucket table's, into *@count: 0 when the interval is not valid.  Returns
 * 0, or the library's error (the epoch was dropped since the pass, or kept
 * changing): then there is no value to serve.
 */
static int interval_bucket(const struct agg_segment *as, uint32_t e, statctr_id id, uint32_t b,
                           uint64_t *count)
{
	uint32_t from, to;
	uint64_t delta;

	*count = 0;
	if (!interval_of(as, e, &from, &to))
		return 0;
	for (uint32_t k = 0; k <= b; k++) {
		int err = statctr_snap_epoch_bucket(as->snap, id, k, from, to, &delta);

		if (err < 0)
			return err;
		*count += delta;
	}
	return 0;
}

/*
 * Cell @id's count from epoch @e to the next kept one, or to the snapshot
 * for the newest, as interval_bucket(); a histogram's is the values
 * recorded, its +Inf bucket.
 */
static int interval_count(const struct agg_segment *as, uint32_t e, statctr_id id,
                          const struct statctr_column_decl *col, uint64_t *count)
{
	uint32_t from, to;

	*count = 0;
	if (!interval_of(as, e, &from, &to))
		return 0;
	if (col->kind == STATCTR_KIND_HISTOGRAM)
		return interval_bucket(as, e, id, col->nbuckets, count);
	return statctr_snap_epoch_delta(as->snap, id, from, to, count);
}

/* A row of an interval table (statctrIntervals), or of a histogram's; false: no value. */
static bool set_interval_value(const struct agg_segment *as, const struct oidmap_region *region,
                               const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	const struct statctr_column_decl *col =
	    &as->decl->tables[region->table].columns[inst->col->column];
	statctr_id id = inst->cell + inst->col->column;
	uint64_t count;
	int err;

	if (inst->col->what == W_INTERVAL_VALID) {
		encode_truth(vb, as->epochs[inst->epoch].valid);
		return true;
	}
	if (inst->col->what == W_HIST_INTERVAL)
		err = interval_bucket(as, inst->epoch, id, inst->bucket, &count);
	else
		err = interval_count(as, inst->epoch, id, col, &count);
	if (err < 0)
		return false;
	encode_counter64(vb, count);
	return true;
}

/*
 * @inst's value into @vb; false when it has none now: an interval whose
 * epoch the library dropped since the pass (noSuchInstance, skipped by
 * GETNEXT), never a wrong count.
 */
static bool set_value(const struct handlers *h, const struct agg_result *res,
                      const struct oidmap_region *region, const struct oidmap_instance *inst,
                      netsnmp_variable_list *vb)
{
	switch (inst->col->space) {
	case SPACE_INTERVAL:
	case SPACE_HIST_INTERVAL:
		return set_interval_value(&res->segs[inst->seg], region, inst, vb);
	case MIB_SPACE_AGENT:
		set_agent_value(h, res, inst, vb);
		break;
	case MIB_SPACE_SEGMENT:
		set_segment_value(h, &res->segs[inst->seg], inst->col->what, res->taken_ns, vb);
		break;
	case MIB_SPACE_EPOCH:
		set_epoch_value(&res->segs[inst->seg], inst, vb);
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
	return true;
}

/* ------------------------------------------------------------------------
 * The backend: GET, GETNEXT and SET of one region.
 */

static int get(const void *data, const struct agg_result *res, netsnmp_variable_list *vb)
{
	const struct handlers_region *hr = data;
	struct oidmap_instance inst;

	if (oidmap_get(hr->region, res, vb->name, vb->name_length, &inst))
		return set_value(hr->h, res, hr->region, &inst, vb) ? SNMP_ERR_NOERROR
		                                                    : SNMP_NOSUCHINSTANCE;
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
	const oid *after = vb->name;
	size_t len, after_len = vb->name_length;

	/* An instance without a value now is skipped (set_value()). */
	while (oidmap_next(hr->region, res, after, after_len, inclusive, &inst)) {
		len = oidmap_instance_oid(hr->region, &inst, name);
		if (set_value(hr->h, res, hr->region, &inst, vb)) {
			snmp_set_var_objid(vb, name, len);
			return true;
		}
		after = name;
		after_len = len;
		inclusive = false;
	}
	return false;
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

	if (err != SNMP_ERR_NOERROR || action != SETCHECK_RESET)
		return err;
	if (inst.col->what == MIB_SEG_EPOCH_START) {
		reset->seg = inst.seg;
		reset->epoch = true;
	} else {
		reset_range(hr, &inst, reset);
	}
	return err;
}

static const struct engine_backend backend = {.get = get, .next = next, .set_check = set_check};

int handlers_add(struct engine *e, const struct agent_settings *set, const struct oidmap *map,
                 struct handlers **hp)
{
	size_t n = oidmap_nregions(map);
	struct handlers *h = calloc(1, sizeof(*h) + n * sizeof(h->regions[0]));

	*hp = h;
	if (!h)
		return errmsg_set(ENOMEM, "out of memory");
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
	free(h);
}
