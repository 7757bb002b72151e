/*
 * engine.c - the one handler serving every region (see engine.h).
 *
 * Owns the regions' list, the per-PDU result and the SET phases.  Never
 * decides an instance or a value (the backends do), never calls Net-SNMP's
 * registry (register.c does), and does no blocking work but the reset's
 * bounded hand-over: agg_reset() waits at most AGG_RESET_WAIT_MS.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "engine.h"
#include "agent.h"
#include "timebase.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct engine_region {
	struct registration r; /* r.owner: this region */
	const struct engine_backend *be;
	const void *data;
	struct engine *e;
};

static int handle_request(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                          netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests);

struct engine {
	struct aggregator *agg;
	unsigned int ping_interval;
	struct engine_region **regions; /* each allocated alone: it never moves */
	size_t nregions, room;
	engine_reset_fn *on_reset;
	void *on_reset_arg;
};

int engine_create(struct aggregator *agg, unsigned int ping_interval, struct engine **ep)
{
	struct engine *e = calloc(1, sizeof(*e));

	*ep = e;
	if (!e)
		return errmsg_set(ENOMEM, "out of memory");
	e->agg = agg;
	e->ping_interval = ping_interval;
	return 0;
}

void engine_on_reset(struct engine *e, engine_reset_fn *fn, void *arg)
{
	e->on_reset = fn;
	e->on_reset_arg = arg;
}

int engine_add(struct engine *e, const char *name, const oid *root, size_t root_len,
               int range_subid, oid range_ubound, const struct engine_backend *be, const void *data)
{
	struct engine_region *er;

	if (root_len > MAX_OID_LEN)
		return errmsg_set(EINVAL, "%s: cannot be added", name);
	if (e->nregions == e->room) {
		size_t room = e->room ? e->room * 2 : 16;
		struct engine_region **v = realloc(e->regions, room * sizeof(*v));

		if (!v)
			return errmsg_set(ENOMEM, "out of memory");
		e->regions = v;
		e->room = room;
	}
	er = calloc(1, sizeof(*er));
	if (!er)
		return errmsg_set(ENOMEM, "out of memory");
	e->regions[e->nregions++] = er;
	snprintf(er->r.name, sizeof(er->r.name), "%s", name);
	memcpy(er->r.root, root, root_len * sizeof(oid));
	er->r.root_len = root_len;
	er->r.range_subid = range_subid;
	er->r.range_ubound = range_ubound;
	er->r.writable = be->set_check != NULL;
	er->r.owner = er;
	er->be = be;
	er->data = data;
	er->e = e;
	return 0;
}

/* Registers @e's regions not registered yet; stops at the first that fails. */
static int register_new(struct engine *e, bool strict)
{
	registry_init(handle_request, e->ping_interval);
	for (size_t i = 0; i < e->nregions; i++) {
		struct engine_region *er = e->regions[i];
		int err;

		if (er->r.reg)
			continue; /* adopted, or registered before */
		err = registry_add(&er->r, strict);
		if (err)
			return err;
	}
	return 0;
}

int engine_register(struct engine *e, bool strict)
{
	int err = register_new(e, strict);

	if (err)
		engine_unregister(e);
	return err;
}

int engine_register_more(struct engine *e)
{
	return register_new(e, false);
}

/* The region of @e registered alike to @r, or NULL. */
static struct engine_region *alike(struct engine *e, const struct registration *r)
{
	for (size_t i = 0; i < e->nregions; i++)
		if (!e->regions[i]->r.reg && registry_same(&e->regions[i]->r, r))
			return e->regions[i];
	return NULL;
}

void engine_adopt(struct engine *to, struct engine *from)
{
	registry_init(handle_request, to->ping_interval);
	for (size_t i = 0; from && i < from->nregions; i++) {
		struct registration *r = &from->regions[i]->r;
		struct engine_region *er = r->reg ? alike(to, r) : NULL;

		if (er)
			registry_move(r, &er->r);
		else
			registry_remove(r);
	}
}

void engine_unregister(struct engine *e)
{
	for (size_t i = 0; e && i < e->nregions; i++)
		registry_remove(&e->regions[i]->r);
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nregions; i++)
		free(e->regions[i]);
	free(e->regions);
	free(e);
}

/* ------------------------------------------------------------------------
 * The result a PDU answers from.
 */

#define HELD_RESULT "statctr-agg-result"

/* Net-SNMP frees a request's data when it has answered it (Netsnmp_Free_List_Data). */
static void release_result(void *res)
{
	agg_release(res);
}

/*
 * The result @reqinfo answers from: the one its first handler call
 * acquired, else the latest, held until Net-SNMP frees the request.  NULL
 * when out of memory.
 */
static const struct agg_result *request_result(struct aggregator *agg,
                                               netsnmp_agent_request_info *reqinfo)
{
	const struct agg_result *res = netsnmp_agent_get_list_data(reqinfo, HELD_RESULT);
	netsnmp_data_list *held;

	if (res)
		return res;
	agg_fresh(agg); /* at most agent.max_age_ms old, CPU allowing */
	res = agg_acquire(agg);
	held = netsnmp_create_data_list(HELD_RESULT, (void *)res, release_result);
	if (!held) {
		agg_release(res);
		return NULL;
	}
	netsnmp_agent_add_list_data(reqinfo, held); /* released with the request */
	return res;
}

/* ------------------------------------------------------------------------
 * SET: resets.
 */

/* Whether a checked SET does something: a reset, or an epoch start. */
static bool acts(const struct agg_reset *reset)
{
	return reset->count || reset->epoch;
}

static int check_set(const struct engine_region *er, const struct agg_result *res,
                     const netsnmp_variable_list *vb, struct agg_reset *reset)
{
	memset(reset, 0, sizeof(*reset));
	if (!er->be->set_check)
		return SNMP_ERR_NOTWRITABLE;
	return er->be->set_check(er->data, res, vb, reset);
}

/* RESERVE1: every check, then the reset rate limit (resourceUnavailable, RFC 3416 4.2.5). */
static void do_reserve(const struct engine_region *er, const struct agg_result *res,
                       netsnmp_agent_request_info *reqinfo, netsnmp_request_info *req)
{
	struct agg_reset reset;
	int err = check_set(er, res, req->requestvb, &reset);

	if (err == SNMP_ERR_NOERROR && acts(&reset) && agg_reset_admit(er->e->agg, reset.seg) < 0) {
		snmp_log(LOG_INFO, "SET refused: %s\n", errmsg_get());
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

/* The reset @vb asks for, in whichever writable region of @e it falls; false if none. */
static bool reset_of(const struct engine *e, const struct agg_result *res,
                     const netsnmp_variable_list *vb, struct agg_reset *reset)
{
	for (size_t i = 0; i < e->nregions; i++) {
		const struct engine_region *er = e->regions[i];

		if (!er->be->set_check || er->r.range_subid ||
		    netsnmp_oid_is_subtree(er->r.root, er->r.root_len, vb->name, vb->name_length))
			continue;
		return check_set(er, res, vb, reset) == SNMP_ERR_NOERROR && acts(reset);
	}
	return false;
}

#define PDU_RESETS "statctr-pdu-resets"

/*
 * Every reset of the PDU, done in one agg_reset() when its first handler
 * call in ACTION gets there (one snapshot per segment, whatever the number
 * of varbinds); the outcome is kept with the request for its other calls.
 * Returns 0 or the negative errno of agg_reset().
 */
static int commit_pdu_resets(const struct engine *e, const struct agg_result *res,
                             netsnmp_agent_request_info *reqinfo)
{
	void *done = netsnmp_agent_get_list_data(reqinfo, PDU_RESETS);
	netsnmp_data_list *held;
	struct agg_reset *v;
	uint32_t n = 0, room = 0, nresets = 0; /* the others start an epoch */
	long long start;
	int err;

	if (done)
		return 1 - (int)(intptr_t)done;
	for (netsnmp_variable_list *vb = reqinfo->asp->pdu->variables; vb; vb = vb->next_variable)
		room++;
	v = malloc((room ? room : 1) * sizeof(*v));
	if (!v)
		return errmsg_set(ENOMEM, "out of memory for %u resets", room);
	for (netsnmp_variable_list *vb = reqinfo->asp->pdu->variables; vb; vb = vb->next_variable)
		if (reset_of(e, res, vb, &v[n]))
			n++;
	for (uint32_t i = 0; i < n; i++)
		nresets += v[i].count != 0;
	start = monotonic_ms();
	err = n ? agg_reset(e->agg, v, n) : 0;
	if (n && !err && e->on_reset)
		e->on_reset(e->on_reset_arg, res, v, n);
	free(v);
	if (err < 0)
		snmp_log(LOG_ERR, "%s failed: %s\n", nresets ? "reset" : "epoch start",
		         errmsg_get());
	else if (nresets)
		snmp_log(LOG_INFO, "reset by SET: %u varbinds done in %lld ms%s\n", nresets,
		         monotonic_ms() - start, n > nresets ? ", and an epoch started" : "");
	else if (n)
		snmp_log(LOG_INFO, "epoch start by SET: done in %lld ms\n", monotonic_ms() - start);
	/* Stored as 1 - err, never NULL: 1 for success, 1 + errno otherwise. */
	held = netsnmp_create_data_list(PDU_RESETS, (void *)(intptr_t)(1 - err), NULL);
	if (held)
		netsnmp_agent_add_list_data(reqinfo, held);
	return err;
}

#define VB_UNDO "statctr-vb-undo"

/* ACTION of a write that is not a reset: applied, and what UNDO puts back kept. */
static int apply_write(const struct engine_region *er, netsnmp_request_info *req)
{
	netsnmp_data_list *held;
	long *undo = malloc(sizeof(*undo));
	int err;

	if (!undo)
		return SNMP_ERR_COMMITFAILED;
	err = er->be->set_apply(er->data, req->requestvb, undo);
	if (err != SNMP_ERR_NOERROR) {
		free(undo);
		return err;
	}
	held = netsnmp_create_data_list(VB_UNDO, undo, free);
	if (!held) {
		err = er->be->set_undo(er->data, req->requestvb, *undo);
		free(undo);
		return err == SNMP_ERR_NOERROR ? SNMP_ERR_COMMITFAILED : SNMP_ERR_UNDOFAILED;
	}
	netsnmp_request_add_list_data(req, held);
	return SNMP_ERR_NOERROR;
}

/*
 * The SET phases, as Net-SNMP runs them for a subagent: RESERVE1 and
 * RESERVE2 for AgentX's TestSet, ACTION for its CommitSet, whose answer
 * decides the SET's outcome, then COMMIT and FREE for its CleanupSet, sent
 * after the master has answered the NMS (UNDO for UndoSet instead, when
 * CommitSet failed anywhere).  So every write is done in ACTION, resets
 * and the others alike: what goes wrong there still reaches the NMS, and
 * COMMIT has nothing left to do.  Each phase checks again: a pass may have
 * run since RESERVE1 (AgentX sends the phases apart).
 */
static void do_action(const struct engine_region *er, const struct agg_result *res,
                      netsnmp_agent_request_info *reqinfo, netsnmp_request_info *req)
{
	struct agg_reset reset;
	int err = check_set(er, res, req->requestvb, &reset);

	if (err != SNMP_ERR_NOERROR)
		err = SNMP_ERR_COMMITFAILED;
	else if (acts(&reset))
		err = commit_pdu_resets(er->e, res, reqinfo) < 0 ? SNMP_ERR_COMMITFAILED
		                                                 : SNMP_ERR_NOERROR;
	else if (er->be->set_apply)
		err = apply_write(er, req);
	if (err != SNMP_ERR_NOERROR)
		netsnmp_set_request_error(reqinfo, req, err);
}

/*
 * UNDO (some varbind failed in ACTION).  A write that was applied is put
 * back.  A reset cannot be taken back: when the PDU's resets were done, or
 * began and outlived ACTION's wait (-EINPROGRESS: they complete, and their
 * outcome is logged, after the SET is answered), the UNDO of each reset
 * varbind fails, and the SET is answered undoFailed (RFC 3416, 4.2.5: some
 * assignments may have been made), not commitFailed (none was).
 */
static void do_undo(const struct engine_region *er, const struct agg_result *res,
                    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *req)
{
	void *done = netsnmp_agent_get_list_data(reqinfo, PDU_RESETS);
	const long *undo = netsnmp_request_get_list_data(req, VB_UNDO);
	struct agg_reset reset;
	int err = done ? 1 - (int)(intptr_t)done : -ENOENT;

	if (undo) {
		if (er->be->set_undo(er->data, req->requestvb, *undo) != SNMP_ERR_NOERROR)
			netsnmp_set_request_error(reqinfo, req, SNMP_ERR_UNDOFAILED);
		return;
	}
	if (err != 0 && err != -EINPROGRESS)
		return;
	if (check_set(er, res, req->requestvb, &reset) == SNMP_ERR_NOERROR && acts(&reset))
		netsnmp_set_request_error(reqinfo, req, SNMP_ERR_UNDOFAILED);
}

/* ------------------------------------------------------------------------
 * The handler.
 */

static void do_get(const struct engine_region *er, const struct agg_result *res,
                   netsnmp_agent_request_info *reqinfo, netsnmp_request_info *req)
{
	int err = er->be->get(er->data, res, req->requestvb);

	if (err != SNMP_ERR_NOERROR)
		netsnmp_set_request_error(reqinfo, req, err);
}

/* Nothing after the request in this region: the varbind is left alone and
 * the agent goes on to the next region. */
static void do_getnext(const struct engine_region *er, const struct agg_result *res,
                       netsnmp_request_info *req)
{
	er->be->next(er->data, res, req->requestvb, req->inclusive != 0);
}

static int handle_request(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                          netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct engine_region *er = registry_owner(handler);
	const struct agg_result *res = er ? request_result(er->e->agg, reqinfo) : NULL;

	(void)reg;
	timebase_heard();
	if (!res) {
		netsnmp_request_set_error_all(requests, SNMP_ERR_GENERR);
		return SNMP_ERR_NOERROR;
	}
	for (netsnmp_request_info *req = requests; req; req = req->next) {
		if (req->processed)
			continue;
		switch (reqinfo->mode) {
		case MODE_GET:
			do_get(er, res, reqinfo, req);
			break;
		case MODE_GETNEXT:
			do_getnext(er, res, req);
			break;
		case MODE_SET_RESERVE1:
			do_reserve(er, res, reqinfo, req);
			break;
		case MODE_SET_ACTION:
			do_action(er, res, reqinfo, req);
			break;
		case MODE_SET_UNDO:
			do_undo(er, res, reqinfo, req);
			break;
		default: /* RESERVE2, COMMIT, FREE: nothing to hold or do */
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}
