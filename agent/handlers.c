/*
 * handlers.c - Net-SNMP handlers: GET, GETNEXT and SET for STATCTR-MIB.
 *
 * Owns the registrations and the conversion of published values to SNMP
 * types (Counter64 halves, Gauge32 latching, TimeStamps, DateAndTime).
 * Answers only from a published aggregation: each request (PDU) takes a
 * reference to the latest result when its first handler runs and keeps it
 * until Net-SNMP frees the request, so every varbind of a PDU, across
 * regions, reads one aggregation.  Never reads a segment itself.  SETs do
 * no blocking work but the reset: RESERVE1 checks everything (setcheck.c)
 * and the reset rate limit (agg_reset_admit()); the first COMMIT call of a
 * PDU checks again and hands every reset of the PDU to the aggregation
 * thread in one agg_reset(), which waits at most AGG_RESET_WAIT_MS.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>

#include "handlers.h"
#include "agent.h"
#include "setcheck.h"
#include "timebase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESET_IDLE SETCHECK_IDLE

struct binding {
	struct handlers *h;
	const struct oidmap_region *region;
	netsnmp_handler_registration *reg;
	long refused; /* the master's error for its last Register PDU; 0: held */
};

struct handlers {
	const struct agent_settings *set;
	struct aggregator *agg;
	const struct oidmap *map;
	struct binding *bindings;
	size_t nbindings;
	const struct agg_result *res; /* the request being handled holds it */
	bool established;             /* registered: later answers are logged */
	time_t next_retry;            /* CLOCK_MONOTONIC s: re-send refused regions */
	uint32_t retry_delay;         /* s: ping_interval, doubled per re-send up to RETRY_MAX */
};

/* ------------------------------------------------------------------------
 * Values.
 */

static void set_counter64(netsnmp_variable_list *vb, uint64_t v)
{
	struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xffffffffu)};

	snmp_set_var_typed_value(vb, ASN_COUNTER64, &c, sizeof(c));
}

static void set_uint(netsnmp_variable_list *vb, u_char type, uint64_t v)
{
	u_long u = (u_long)v;

	snmp_set_var_typed_value(vb, type, &u, sizeof(u));
}

static void set_int(netsnmp_variable_list *vb, long v)
{
	snmp_set_var_typed_value(vb, ASN_INTEGER, &v, sizeof(v));
}

static void set_string(netsnmp_variable_list *vb, const char *s)
{
	snmp_set_var_typed_value(vb, ASN_OCTET_STR, s, strlen(s));
}

/* A discontinuity time of segment @as: never before the agent's floor. */
static uint64_t floored(const struct agg_segment *as, uint64_t ns)
{
	return ns > as->disc_floor_ns ? ns : as->disc_floor_ns;
}

/* Gauge32 latches at its bounds (RFC 2578 7.1.7) instead of wrapping. */
static uint32_t latch32(int64_t level)
{
	if (level < 0)
		return 0;
	return level > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)level;
}

/* DateAndTime (RFC 2579), UTC; all zero when unknown. */
static void set_date(netsnmp_variable_list *vb, uint64_t ns)
{
	u_char buf[11] = {0};
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns && gmtime_r(&secs, &tm)) {
		int year = tm.tm_year + 1900;

		buf[0] = (u_char)(year >> 8);
		buf[1] = (u_char)year;
		buf[2] = (u_char)(tm.tm_mon + 1);
		buf[3] = (u_char)tm.tm_mday;
		buf[4] = (u_char)tm.tm_hour;
		buf[5] = (u_char)tm.tm_min;
		buf[6] = (u_char)tm.tm_sec;
		buf[7] = (u_char)(ns / 100000000u % 10);
		buf[8] = '+';
	}
	snmp_set_var_typed_value(vb, ASN_OCTET_STR, buf, ns ? 11 : 8);
}

static void set_agent_value(struct handlers *h, const struct agg_result *res,
                            const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	const struct agg_stats *st = &res->stats;

	switch (inst->col->what) {
	case W_VERSION:
		set_string(vb, STATCTR_VERSION);
		break;
	case W_INTERVAL:
		set_uint(vb, ASN_UNSIGNED, h->set->interval_ms);
		break;
	case W_LAST_PASS:
		set_uint(vb, ASN_TIMETICKS, timebase_ticks(res->taken_ns));
		break;
	case W_PASS_DURATION:
		set_uint(vb, ASN_GAUGE, st->last_duration_us);
		break;
	case W_PASSES:
		set_counter64(vb, st->passes);
		break;
	case W_RETRIES:
		set_counter64(vb, st->retries);
		break;
	case W_BUSY:
		set_counter64(vb, st->busy);
		break;
	case W_ASSISTED:
		set_counter64(vb, st->assisted);
		break;
	case W_RESETS_REFUSED:
		set_counter64(vb, st->resets_refused);
		break;
	default: /* W_RESET_ALLOWED: TruthValue */
		set_int(vb, h->set->allow_reset ? 1 : 2);
		break;
	}
}

static void set_segment_value(struct handlers *h, const struct agg_segment *as, uint16_t what,
                              netsnmp_variable_list *vb)
{
	switch (what) {
	case W_SEG_NAME:
		set_string(vb, as->decl->name);
		break;
	case W_SEG_PATH:
		set_string(vb, as->decl->path);
		break;
	case W_SEG_STATUS:
		set_int(vb, as->status);
		break;
	case W_SEG_SLOTS:
		set_uint(vb, ASN_UNSIGNED, as->snap ? as->nslots : as->decl->nslots);
		break;
	case W_SEG_CELLS:
		set_uint(vb, ASN_UNSIGNED, as->decl->ncells);
		break;
	case W_SEG_PID:
		set_uint(vb, ASN_UNSIGNED, as->status == AGG_ABSENT ? 0 : (uint64_t)as->writer_pid);
		break;
	case W_SEG_CREATED:
		set_date(vb, as->status == AGG_ABSENT ? 0 : as->created_ns);
		break;
	case W_SEG_DISCONTINUITY:
		set_uint(vb, ASN_TIMETICKS,
		         as->status == AGG_ABSENT ? 0
		                                  : timebase_ticks(floored(as, as->created_ns)));
		break;
	case W_SEG_GENERATIONS:
		set_uint(vb, ASN_COUNTER, as->generations);
		break;
	case W_SEG_BUSY:
		set_uint(vb, ASN_GAUGE, as->busy_slots);
		break;
	default: /* W_SEG_RESET */
		set_int(vb, RESET_IDLE);
		break;
	}
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
		set_string(vb, name);
		return;
	}
	snprintf(num, sizeof(num), "%" PRIu32, r);
	set_string(vb, num);
}

static void set_level(const struct statctr_snap *snap, statctr_id id, bool wide,
                      netsnmp_variable_list *vb)
{
	int64_t level = statctr_snap_gauge(snap, id);

	if (wide)
		set_counter64(vb, level < 0 ? 0 : (uint64_t)level);
	else
		set_uint(vb, ASN_GAUGE, latch32(level));
}

static void set_slot_delta(const struct statctr_snap *snap, uint32_t slot, statctr_id id,
                           netsnmp_variable_list *vb)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, (int64_t)statctr_snap_slot_value(snap, slot, id));
	set_string(vb, num);
}

/* A Counter64 cell's value: a counter's, or a histogram's count. */
static uint64_t counted(const struct statctr_snap *snap, enum statctr_kind kind, statctr_id id)
{
	return kind == STATCTR_HISTOGRAM ? statctr_snap_hist_count(snap, id)
	                                 : statctr_snap_counter(snap, id);
}

static void set_cell_value(struct handlers *h, const struct agg_segment *as,
                           const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	uint32_t t, r, c;
	const struct statctr_table_decl *td;

	oidmap_locate(h->map, inst->seg, inst->cell, &t, &r, &c);
	td = &as->decl->tables[t];
	switch (inst->col->what) {
	case W_CELL_TABLE:
		set_string(vb, td->name);
		break;
	case W_CELL_COLUMN:
		set_string(vb, td->columns[c].name);
		break;
	case W_CELL_ROW:
		set_row_name(as, t, r, vb);
		break;
	case W_CELL_KIND:
		set_int(vb, td->columns[c].kind);
		break;
	case W_CELL_DESCRIPTION:
		set_string(vb, td->columns[c].description);
		break;
	case W_CELL_UNITS:
		set_string(vb, td->columns[c].units);
		break;
	case W_CELL_COUNTER:
		set_counter64(vb, counted(as->snap, td->columns[c].kind, inst->cell));
		break;
	case W_CELL_GAUGE32:
	case W_CELL_GAUGE64:
		set_level(as->snap, inst->cell, inst->col->what == W_CELL_GAUGE64, vb);
		break;
	case W_CELL_DISCONTINUITY:
		set_uint(
		    vb, ASN_TIMETICKS,
		    timebase_ticks(floored(as, statctr_snap_discontinuity(as->snap, inst->cell))));
		break;
	case W_SLOT_COUNTER:
		set_counter64(vb, statctr_snap_slot_value(as->snap, inst->slot, inst->cell));
		break;
	case W_SLOT_GAUGE_DELTA:
		set_slot_delta(as->snap, inst->slot, inst->cell, vb);
		break;
	default: /* W_CELL_RESET */
		set_int(vb, RESET_IDLE);
		break;
	}
}

/* The latest discontinuity among the row's cells: any of them resets the row's story. */
uint64_t handlers_row_discontinuity(const struct agg_segment *as, statctr_id first,
                                    uint32_t ncolumns)
{
	uint64_t latest = as->disc_floor_ns;

	for (uint32_t c = 0; c < ncolumns; c++) {
		uint64_t d = statctr_snap_discontinuity(as->snap, first + c);

		if (d > latest)
			latest = d;
	}
	return latest;
}

static void set_row_value(struct handlers *h, const struct oidmap_region *region,
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
		set_uint(vb, ASN_TIMETICKS,
		         timebase_ticks(handlers_row_discontinuity(as, inst->cell, td->ncolumns)));
		break;
	case W_ROW_RESET:
		set_int(vb, RESET_IDLE);
		break;
	default: /* W_ROW_VALUE */
		if (td->columns[inst->col->column].kind == STATCTR_GAUGE)
			set_level(as->snap, id, false, vb);
		else
			set_counter64(vb,
			              counted(as->snap, td->columns[inst->col->column].kind, id));
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
		set_string(vb, bound);
		break;
	case W_HIST_BUCKET_COUNT:
		set_counter64(vb, cumulative(as->snap, id, inst->bucket));
		break;
	case W_HIST_COUNT:
		set_counter64(vb, statctr_snap_hist_count(as->snap, id));
		break;
	default: /* W_HIST_SUM */
		set_counter64(vb, statctr_snap_hist_sum(as->snap, id));
		break;
	}
}

static void set_value(struct handlers *h, const struct oidmap_region *region,
                      const struct oidmap_instance *inst, netsnmp_variable_list *vb)
{
	const struct agg_result *res = h->res;

	switch (inst->col->space) {
	case SPACE_SCALAR:
		set_agent_value(h, res, inst, vb);
		break;
	case SPACE_SEGMENT:
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
 * GET and GETNEXT.
 */

static void do_get(struct binding *b, netsnmp_agent_request_info *reqinfo,
                   netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	struct oidmap_instance inst;

	if (oidmap_get(b->region, b->h->res, vb->name, vb->name_length, &inst))
		set_value(b->h, b->region, &inst, vb);
	else if (oidmap_is_column(b->region, vb->name, vb->name_length))
		netsnmp_set_request_error(reqinfo, req, SNMP_NOSUCHINSTANCE);
	else
		netsnmp_set_request_error(reqinfo, req, SNMP_NOSUCHOBJECT);
}

/* Nothing after the request in this region: the varbind is left alone and
 * the agent goes on to the next region. */
static void do_getnext(struct binding *b, netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	struct oidmap_instance inst;
	oid name[MAX_OID_LEN];
	size_t len;

	if (!oidmap_next(b->region, b->h->res, vb->name, vb->name_length, req->inclusive != 0,
	                 &inst))
		return;
	len = oidmap_instance_oid(b->region, &inst, name);
	snmp_set_var_objid(vb, name, len);
	set_value(b->h, b->region, &inst, vb);
}

/* ------------------------------------------------------------------------
 * SET: the reset columns.
 */

/* The counters a reset instance covers. */
static void reset_range(const struct binding *b, const struct oidmap_instance *inst,
                        statctr_id *first, uint32_t *count)
{
	const struct statctr_segment_decl *d = &b->h->set->cfg->segments[inst->seg];

	*first = inst->cell;
	*count = 1;
	if (inst->col->what == W_SEG_RESET) {
		*first = 0;
		*count = d->ncells;
	} else if (inst->col->what == W_ROW_RESET) {
		*count = d->tables[b->region->table].ncolumns;
	}
}

static int check_set(const struct binding *b, const netsnmp_variable_list *vb,
                     struct oidmap_instance *inst, long *action)
{
	const struct setcheck_varbind v = {vb->name, vb->name_length, vb->type, vb->val.string,
	                                   vb->val_len};

	return setcheck(b->region, b->h->res, b->h->set->allow_reset, &v, inst, action);
}

/* RESERVE1: every check, then the reset rate limit (resourceUnavailable, RFC 3416 4.2.5). */
static void do_reserve(struct binding *b, netsnmp_agent_request_info *reqinfo,
                       netsnmp_request_info *req)
{
	struct oidmap_instance inst;
	long action;
	int err = check_set(b, req->requestvb, &inst, &action);

	if (err == SNMP_ERR_NOERROR && action == SETCHECK_RESET &&
	    agg_reset_admit(b->h->agg, inst.seg) < 0) {
		snmp_log(LOG_INFO, "SET refused: %s\n", agent_errmsg());
		err = SNMP_ERR_RESOURCEUNAVAILABLE;
	}
	if (err != SNMP_ERR_NOERROR)
		netsnmp_set_request_error(reqinfo, req, err);
}

static long long monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The binding whose region @vb falls in and would reset, with the range; NULL if none. */
static const struct binding *reset_of(const struct handlers *h, const netsnmp_variable_list *vb,
                                      struct agg_reset *r)
{
	for (size_t i = 0; i < h->nbindings; i++) {
		const struct binding *b = &h->bindings[i];
		struct oidmap_instance inst;
		long action;

		if (netsnmp_oid_is_subtree(b->region->root, b->region->root_len, vb->name,
		                           vb->name_length) != 0)
			continue;
		if (check_set(b, vb, &inst, &action) != SNMP_ERR_NOERROR ||
		    action != SETCHECK_RESET)
			continue;
		r->seg = inst.seg;
		reset_range(b, &inst, &r->first, &r->count);
		return b;
	}
	return NULL;
}

#define PDU_RESETS "statctr-pdu-resets"

/*
 * Every reset of the PDU being committed, done in one agg_reset() when its
 * first handler call commits (one snapshot per segment, whatever the number
 * of varbinds); the outcome is kept with the request for its other calls.
 * Returns 0 or the negative errno of agg_reset().
 */
static int commit_pdu_resets(struct handlers *h, netsnmp_agent_request_info *reqinfo)
{
	void *done = netsnmp_agent_get_list_data(reqinfo, PDU_RESETS);
	netsnmp_data_list *held;
	struct agg_reset *v;
	uint32_t n = 0, room = 0;
	long long start;
	int err;

	if (done)
		return 1 - (int)(intptr_t)done;
	for (netsnmp_variable_list *vb = reqinfo->asp->pdu->variables; vb; vb = vb->next_variable)
		room++;
	v = malloc((room ? room : 1) * sizeof(*v));
	if (!v)
		return agent_seterr(ENOMEM, "out of memory for %u resets", room);
	for (netsnmp_variable_list *vb = reqinfo->asp->pdu->variables; vb; vb = vb->next_variable)
		if (reset_of(h, vb, &v[n]))
			n++;
	start = monotonic_ms();
	err = n ? agg_reset(h->agg, v, n) : 0;
	free(v);
	if (err < 0)
		snmp_log(LOG_ERR, "reset failed: %s\n", agent_errmsg());
	else if (n)
		snmp_log(LOG_INFO, "reset by SET: %u varbinds done in %lld ms\n", n,
		         monotonic_ms() - start);
	/* Stored as 1 - err, never NULL: 1 for success, 1 + errno otherwise. */
	held = netsnmp_create_data_list(PDU_RESETS, (void *)(intptr_t)(1 - err), NULL);
	if (held)
		netsnmp_agent_add_list_data(reqinfo, held);
	return err;
}

/* Checked again: a pass may have run since RESERVE1 (AgentX sends the phases apart). */
static void do_commit(struct binding *b, netsnmp_agent_request_info *reqinfo,
                      netsnmp_request_info *req)
{
	struct oidmap_instance inst;
	long action;

	if (check_set(b, req->requestvb, &inst, &action) != SNMP_ERR_NOERROR) {
		netsnmp_set_request_error(reqinfo, req, SNMP_ERR_COMMITFAILED);
		return;
	}
	if (action == SETCHECK_RESET && commit_pdu_resets(b->h, reqinfo) < 0)
		netsnmp_set_request_error(reqinfo, req, SNMP_ERR_COMMITFAILED);
}

/* Net-SNMP frees a request's data when it has answered it (Netsnmp_Free_List_Data). */
static void release_result(void *res)
{
	agg_release(res);
}

#define HELD_RESULT "statctr-agg-result"

/*
 * The result request @reqinfo answers from: the one its first handler call
 * acquired, else the latest, held until Net-SNMP frees the request.  NULL
 * when out of memory.
 */
const struct agg_result *handlers_request_result(struct aggregator *agg,
                                                 netsnmp_agent_request_info *reqinfo)
{
	const struct agg_result *res = netsnmp_agent_get_list_data(reqinfo, HELD_RESULT);
	netsnmp_data_list *held;

	if (res)
		return res;
	res = agg_acquire(agg);
	held = netsnmp_create_data_list(HELD_RESULT, (void *)res, release_result);
	if (!held) {
		agg_release(res);
		return NULL;
	}
	netsnmp_agent_add_list_data(reqinfo, held); /* released with the request */
	return res;
}

static int handle_request(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                          netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	struct binding *b = reg->my_reg_void;

	b->h->res = handlers_request_result(b->h->agg, reqinfo);
	if (!b->h->res) {
		netsnmp_request_set_error_all(requests, SNMP_ERR_GENERR);
		return SNMP_ERR_NOERROR;
	}
	for (netsnmp_request_info *req = requests; req; req = req->next) {
		if (req->processed)
			continue;
		switch (reqinfo->mode) {
		case MODE_GET:
			do_get(b, reqinfo, req);
			break;
		case MODE_GETNEXT:
			do_getnext(b, req);
			break;
		case MODE_SET_RESERVE1:
			do_reserve(b, reqinfo, req);
			break;
		case MODE_SET_COMMIT:
			do_commit(b, reqinfo, req);
			break;
		default: /* RESERVE2, ACTION, FREE, UNDO: nothing to hold or undo */
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

/* ------------------------------------------------------------------------
 * Registration.
 *
 * Ownership.  snmpd 5.9 removes a registration on any session's Unregister
 * PDU naming its OID and priority, without checking that the session made it
 * (RFC 2741 7.2.4.2 says it must answer unknownRegistration).  A subagent
 * that unregisters a region the master refused it therefore removes the
 * region of the agent holding it.  So this agent only ever unregisters, at
 * the master, the regions it holds: a refused region is dropped locally
 * only, and at exit the master drops what the agent holds with its session.
 *
 * Refusals.  netsnmp_register_handler(), and Net-SNMP's re-registration
 * after a reconnect, do not report the master's answer: a refusal is only
 * logged ("registering pdu failed: 263!").  So handlers.c hooks the
 * registry's SNMPD_CALLBACK_REGISTER_OID on both sides of Net-SNMP's AgentX
 * callback (before: which region is sent; after: what the master said, from
 * the log line in between) and keeps each region's answer.  A refused region
 * of a running agent is logged once and its Register PDU re-sent, quietly,
 * after ping_interval, then twice as long each time up to RETRY_MAX (snmpd
 * logs each refusal), until the master grants it.
 */
#define RETRY_MAX 60u /* s */

static struct binding *sending;       /* whose Register PDU is out */
static long sending_error;            /* the master's refusal of it, from the log */
static bool dropping;                 /* a refused region is being dropped locally */
static bool retrying;                 /* handlers_retry() is re-sending */
static netsnmp_log_handler *muted[8]; /* the output handlers a re-send silenced */
static size_t nmuted;
static char not_ours_context[] = "statctr-agentx: dropped locally";

/* The binding of a registration of handlers.c (Net-SNMP puts helpers before its handler). */
static struct binding *binding_of(const netsnmp_handler_registration *reg)
{
	for (const netsnmp_mib_handler *hd = reg ? reg->handler : NULL; hd; hd = hd->next)
		if (hd->access_method == handle_request)
			return reg->my_reg_void;
	return NULL;
}

/*
 * While a re-sent Register PDU is answered, Net-SNMP's refusal line
 * ("registering pdu failed") reaches only the log watcher: the agent said
 * it once already.  after_register() turns the output handlers back on.
 */
static void mute_logs(void)
{
	for (netsnmp_log_handler *l = get_logh_head(); l && nmuted < 8; l = l->next) {
		if (!l->enabled || l->type == NETSNMP_LOGHANDLER_CALLBACK)
			continue;
		netsnmp_disable_this_loghandler(l);
		muted[nmuted++] = l;
	}
}

static int before_register(int major, int minor, void *serverarg, void *clientarg)
{
	const struct register_parameters *rp = serverarg;

	(void)major, (void)minor, (void)clientarg;
	sending = binding_of(rp->reginfo);
	sending_error = 0;
	if (retrying)
		mute_logs();
	return SNMP_ERR_NOERROR;
}

/* The AgentX errors (RFC 2741 6.2.16) a Register PDU can get. */
static const char *agentx_error_name(long err)
{
	switch (err) {
	case 262:
		return "unsupportedContext(262)";
	case 263:
		return "duplicateRegistration(263)";
	case 267:
		return "requestDenied(267)";
	default:
		return "an error";
	}
}

static void format_oid(const oid *name, size_t len, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < len && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ".%lu", (unsigned long)name[i]);
}

/* After Net-SNMP's AgentX callback: the answer is in; a running agent logs changes once. */
static int after_register(int major, int minor, void *serverarg, void *clientarg)
{
	struct binding *b = sending;
	long was;
	char name[MAX_OID_LEN * 11];

	(void)major, (void)minor, (void)serverarg, (void)clientarg;
	sending = NULL;
	while (nmuted)
		netsnmp_enable_this_loghandler(muted[--nmuted]);
	if (!b)
		return SNMP_ERR_NOERROR;
	was = b->refused;
	b->refused = sending_error;
	if (!b->h->established || !b->refused == !was)
		return SNMP_ERR_NOERROR;
	format_oid(b->region->root, b->region->root_len, name, sizeof(name));
	if (b->refused)
		snmp_log(LOG_WARNING,
		         "%s (%s): the AgentX master refused the registration with %s; another "
		         "agent serves it now; trying again in %d s, then less often\n",
		         b->region->name, name, agentx_error_name(b->refused),
		         b->h->set->ping_interval);
	else
		snmp_log(LOG_INFO, "%s (%s): registered again\n", b->region->name, name);
	return SNMP_ERR_NOERROR;
}

/* A region the master refused is dropped locally: its Unregister PDU names no region. */
static int before_unregister(int major, int minor, void *serverarg, void *clientarg)
{
	struct register_parameters *rp = serverarg;

	(void)major, (void)minor, (void)clientarg;
	if (dropping)
		rp->contextName = not_ours_context;
	return SNMP_ERR_NOERROR;
}

static int watch_log(int major, int minor, void *serverarg, void *clientarg)
{
	const struct snmp_log_message *m = serverarg;
	const char *failed;

	(void)major, (void)minor, (void)clientarg;
	if (!sending || !m || !m->msg)
		return SNMP_ERR_NOERROR;
	failed = strstr(m->msg, "registering pdu failed: ");
	if (failed)
		sending_error = strtol(failed + strlen("registering pdu failed: "), NULL, 10);
	return SNMP_ERR_NOERROR;
}

static void watch_registrations(void)
{
	static bool installed;

	if (installed)
		return;
	installed = true;
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_ERR);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, watch_log, NULL);
	/* Net-SNMP's AgentX callbacks have the default priority: these run before and after. */
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID,
	                          before_register, NULL, NETSNMP_CALLBACK_HIGHEST_PRIORITY);
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID,
	                          after_register, NULL, NETSNMP_CALLBACK_LOWEST_PRIORITY);
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_UNREGISTER_OID,
	                          before_unregister, NULL, NETSNMP_CALLBACK_HIGHEST_PRIORITY);
}

static int refusal_error(const struct binding *b)
{
	char name[MAX_OID_LEN * 11];

	format_oid(b->region->root, b->region->root_len, name, sizeof(name));
	return agent_seterr(EEXIST,
	                    "%s (%s): the AgentX master refused the registration with %s: "
	                    "another subagent serves this OID (a statctr-agentx on the same "
	                    "configuration?) or an snmpd module does; snmpd's log names it "
	                    "(\"duplicate registration\")",
	                    b->region->name, name, agentx_error_name(b->refused));
}

static int register_one(struct binding *b)
{
	const struct oidmap_region *region = b->region;
	netsnmp_handler_registration *reg = netsnmp_create_handler_registration(
	    region->name, handle_request, region->root, region->root_len, HANDLER_CAN_RWRITE);

	if (!reg)
		return agent_seterr(ENOMEM, "%s: out of memory", region->name);
	reg->my_reg_void = b;
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK)
		return agent_seterr(EEXIST, "%s: cannot register (already registered?)",
		                    region->name);
	b->reg = reg;
	return 0;
}

int handlers_register(const struct agent_settings *set, struct aggregator *agg,
                      const struct oidmap *map, bool strict, struct handlers **hp)
{
	struct handlers *h = calloc(1, sizeof(*h));
	size_t n = oidmap_nregions(map);

	*hp = NULL;
	watch_registrations();
	if (h)
		h->bindings = calloc(n, sizeof(h->bindings[0]));
	if (!h || !h->bindings) {
		free(h);
		return agent_seterr(ENOMEM, "out of memory");
	}
	h->set = set;
	h->agg = agg;
	h->map = map;
	for (size_t i = 0; i < n; i++) {
		struct binding *b = &h->bindings[h->nbindings];
		int err;

		b->h = h;
		b->region = oidmap_region(map, i);
		err = register_one(b);
		if (b->reg)
			h->nbindings++;
		if (!err && b->refused) {
			err = refusal_error(b);
			if (!strict) { /* kept, and re-sent by handlers_retry() */
				snmp_log(LOG_WARNING, "%s; trying again in %d s, then less often\n",
				         agent_errmsg(), set->ping_interval);
				err = 0;
			}
		}
		if (err) {
			handlers_unregister(h);
			return err;
		}
	}
	h->established = true;
	*hp = h;
	return 0;
}

bool handlers_held(const struct handlers *h)
{
	for (size_t i = 0; h && i < h->nbindings; i++)
		if (h->bindings[i].refused)
			return false;
	return h != NULL;
}

static void send_register(struct binding *b)
{
	netsnmp_handler_registration *reg = b->reg;
	struct register_parameters rp = {
	    .name = reg->rootoid,
	    .namelen = reg->rootoid_len,
	    .priority = reg->priority,
	    .range_subid = reg->range_subid,
	    .range_ubound = reg->range_ubound,
	    .timeout = reg->timeout,
	    .contextName = reg->contextName,
	    .reginfo = reg,
	};

	/* What Net-SNMP's registry does for a new registration: the AgentX callback sends it. */
	snmp_call_callbacks(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID, &rp);
}

void handlers_retry(struct handlers *h)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!h || handlers_held(h)) {
		if (h)
			h->retry_delay = 0; /* the next refusal starts from ping_interval again */
		return;
	}
	if (!h->retry_delay) {
		h->retry_delay = h->set->ping_interval;
		h->next_retry = now.tv_sec + h->retry_delay;
	}
	if (now.tv_sec < h->next_retry)
		return;
	h->retry_delay = h->retry_delay * 2 > RETRY_MAX ? RETRY_MAX : h->retry_delay * 2;
	if (h->retry_delay < h->set->ping_interval)
		h->retry_delay = h->set->ping_interval;
	h->next_retry = now.tv_sec + h->retry_delay;
	retrying = true;
	for (size_t i = 0; i < h->nbindings; i++)
		if (h->bindings[i].refused)
			send_register(&h->bindings[i]);
	retrying = false;
}

void handlers_unregister(struct handlers *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nbindings; i++) {
		dropping = h->bindings[i].refused != 0;
		netsnmp_unregister_handler(h->bindings[i].reg);
		dropping = false;
	}
	handlers_free(h);
}

void handlers_free(struct handlers *h)
{
	if (!h)
		return;
	free(h->bindings);
	free(h);
}
