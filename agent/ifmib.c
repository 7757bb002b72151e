/*
 * ifmib.c - IF-MIB tables served from published aggregations (see ifmib.h).
 *
 * Owns the IF-MIB registrations, the present interfaces of each table per
 * result, and what the agent saw of each interface's operational state
 * (ifLastChange).  The object list, OIDs and mapping rules are
 * mib/ifmib.c's; the ifIndex numbering is ifindex.c's.  Never reads a
 * segment itself and never writes: every object is read-only.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "ifmib.h"
#include "../mib/ifmib.h"
#include "agent.h"
#include "handlers.h"
#include "ifindex.h"
#include "timebase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPER_UP      1
#define OPER_UNKNOWN 4
#define OPER_MAX     7 /* lowerLayerDown(7), RFC 2863 */
#define SPEED_MAX    4294967295u
#define TRUTH_FALSE  2
#define TRAP_OFF     2

struct if_table;

/* One served column of one table: one range registration. */
struct if_column {
	struct if_table *table;
	const struct ifmib_object *obj;
	int source; /* the declared column giving the value, or -1 */
	oid prefix[IFMIB_ENTRY_MAX_ARCS + 1];
	size_t prefix_len;
	netsnmp_handler_registration *reg;
};

struct if_row {
	uint32_t ifindex;
	uint32_t row;
};

struct if_table {
	struct ifmib_serve *owner;
	uint32_t seg, table;
	const struct statctr_segment_decl *seg_decl;
	const struct statctr_table_decl *decl;
	uint32_t base, range;
	int oper_col; /* the gauge mapped to ifOperStatus, or -1 */
	struct if_column *cols;
	size_t ncols;
	/* The result the rows below were built from. */
	const struct agg_result *built;
	uint64_t built_ns, built_passes;
	bool built_once;
	struct if_row *rows; /* present, sorted by ifIndex */
	uint32_t nrows;
	/* Per ifIndex - base: the operational state seen and since when. */
	uint8_t *oper;     /* 0: not present when last built */
	uint64_t *changed; /* CLOCK_REALTIME; 0: before the agent's first look */
	uint8_t *seen;     /* scratch of track_oper() */
	/* The `interfaces` overrides, sorted by row name. */
	const struct statctr_if_decl **overrides;
	bool told_full;
};

struct ifmib_serve {
	const struct agent_settings *set;
	struct aggregator *agg;
	struct if_table *tables;
	size_t ntables;
};

/* Process-wide, so that a SIGHUP reload never hands an ifIndex to a new name. */
static struct ifindex_store *store;
static char *store_path;

static int open_store(const char *state_file)
{
	char path[4096];
	int err;

	if (store && (state_file ? store_path && strcmp(store_path, state_file) == 0 : !store_path))
		return 0;
	ifindex_close(store);
	free(store_path);
	store = NULL;
	store_path = state_file ? strdup(state_file) : NULL;
	if (state_file && !store_path)
		return agent_seterr(ENOMEM, "out of memory");
	if (state_file)
		snprintf(path, sizeof(path), "%s.ifindex", state_file);
	err = ifindex_open(state_file ? path : NULL, &store);
	return err ? agent_seterr(-err, "ifIndex store: out of memory") : 0;
}

void ifmib_store_close(void)
{
	ifindex_close(store);
	store = NULL;
	free(store_path);
	store_path = NULL;
}

/* ------------------------------------------------------------------------
 * The present interfaces of a result.
 */

static int cmp_ifindex(const void *a, const void *b)
{
	const struct if_row *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static statctr_id row_cell(const struct if_table *t, uint32_t row)
{
	return t->decl->first_cell + (statctr_id)row * t->decl->ncolumns;
}

/* Row @r's name in @snap (a numbered row's number, in @buf), or NULL: absent. */
static const char *row_name(const struct if_table *t, const struct statctr_snap *snap, uint32_t r,
                            char *buf, size_t size)
{
	const char *name = statctr_snap_row_name(snap, t->table, r);

	if (name || t->decl->dynamic)
		return name;
	snprintf(buf, size, "%" PRIu32, r);
	return buf;
}

static uint8_t oper_state(const struct if_table *t, const struct statctr_snap *snap, uint32_t r)
{
	int64_t level;

	if (t->oper_col < 0)
		return OPER_UP;
	level = statctr_snap_gauge(snap, row_cell(t, r) + (statctr_id)t->oper_col);
	return level >= 1 && level <= OPER_MAX ? (uint8_t)level : OPER_UNKNOWN;
}

static void add_row(struct if_table *t, const struct statctr_snap *snap, uint32_t r)
{
	char num[16];
	const char *name = row_name(t, snap, r, num, sizeof(num));
	uint32_t ifindex;
	int err;

	if (!name)
		return;
	err =
	    ifindex_get(store, t->seg_decl->name, t->decl->name, name, t->base, t->range, &ifindex);
	if (err == -ENOSPC && !t->told_full)
		snmp_log(LOG_WARNING,
		         "%s.%s: row \"%s\" is not served as an interface: the ifIndex range "
		         "%" PRIu32 "..%" PRIu32 " is used up (docs/agent.md)\n",
		         t->seg_decl->name, t->decl->name, name, t->base, t->base + t->range - 1);
	t->told_full |= err == -ENOSPC;
	if (err)
		return;
	t->rows[t->nrows++] = (struct if_row){ifindex, r};
}

/* ifLastChange: a row seen for the first time after the agent's first look, or changed. */
static void track_oper(struct if_table *t, const struct statctr_snap *snap, uint64_t now_ns)
{
	memset(t->seen, 0, t->range);
	for (uint32_t i = 0; i < t->nrows; i++) {
		uint32_t k = t->rows[i].ifindex - t->base;
		uint8_t state = oper_state(t, snap, t->rows[i].row);

		t->seen[k] = 1;
		if (t->oper[k] != state)
			t->changed[k] = t->oper[k] || t->built_once ? now_ns : 0;
		t->oper[k] = state;
	}
	for (uint32_t k = 0; k < t->range; k++)
		if (!t->seen[k])
			t->oper[k] = 0; /* gone: its return is a change */
}

static void build(struct if_table *t, const struct agg_result *res)
{
	const struct agg_segment *as = &res->segs[t->seg];

	if (t->built == res && t->built_ns == res->taken_ns && t->built_passes == res->stats.passes)
		return;
	t->nrows = 0;
	for (uint32_t r = 0; as->snap && r < t->decl->nrows; r++)
		add_row(t, as->snap, r);
	qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_ifindex);
	track_oper(t, as->snap, res->taken_ns);
	t->built = res;
	t->built_ns = res->taken_ns;
	t->built_passes = res->stats.passes;
	t->built_once = true;
}

/* The first present row with ifIndex >= @ifindex, by bisection; NULL when none. */
static const struct if_row *row_ge(const struct if_table *t, uint64_t ifindex)
{
	uint32_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nrows ? &t->rows[lo] : NULL;
}

/* ------------------------------------------------------------------------
 * Values.
 */

static int cmp_override(const void *a, const void *b)
{
	const struct statctr_if_decl *const *x = a, *const *y = b;

	return strcmp((*x)->row, (*y)->row);
}

/* Row @name's attributes: its `interfaces` entry, by bisection, else the table's. */
static const struct statctr_if_decl *if_decl(const struct if_table *t, const char *name)
{
	const struct statctr_if_decl key = {.row = name}, *keyp = &key;
	const struct statctr_if_decl **found = bsearch(
	    &keyp, t->overrides, t->decl->ifmib->ninterfaces, sizeof(*t->overrides), cmp_override);

	return found ? *found : &t->decl->ifmib->defaults;
}

static void set_integer(netsnmp_variable_list *vb, u_char type, long v)
{
	snmp_set_var_typed_value(vb, type, &v, sizeof(v));
}

static void set_unsigned(netsnmp_variable_list *vb, u_char type, uint64_t v)
{
	u_long u = (u_long)v;

	snmp_set_var_typed_value(vb, type, &u, sizeof(u));
}

static void set_text(netsnmp_variable_list *vb, const char *s)
{
	snmp_set_var_typed_value(vb, ASN_OCTET_STR, s, strlen(s));
}

static void set_counter64(netsnmp_variable_list *vb, uint64_t v)
{
	struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xffffffffu)};

	snmp_set_var_typed_value(vb, ASN_COUNTER64, &c, sizeof(c));
}

static uint64_t mbps_to_bps(int64_t mbps)
{
	if (mbps <= 0)
		return 0;
	return (uint64_t)mbps > SPEED_MAX / 1000000u ? SPEED_MAX : (uint64_t)mbps * 1000000u;
}

/* Values that are the row's name or declared attributes. */
static void set_attribute(const struct if_column *col, const char *name, netsnmp_variable_list *vb)
{
	const struct statctr_if_decl *d = if_decl(col->table, name);

	switch (col->obj->value) {
	case IFV_DESCR:
		set_text(vb, d->descr ? d->descr : name);
		break;
	case IFV_TYPE:
		set_integer(vb, ASN_INTEGER, (long)d->type);
		break;
	case IFV_MTU:
		set_integer(vb, ASN_INTEGER, (long)d->mtu);
		break;
	case IFV_ALIAS:
		set_text(vb, d->alias);
		break;
	default: /* IFV_NAME */
		set_text(vb, name);
		break;
	}
}

static void set_if_value(const struct if_column *col, const struct agg_segment *as,
                         const struct if_row *row, netsnmp_variable_list *vb)
{
	const struct if_table *t = col->table;
	statctr_id cell = row_cell(t, row->row);
	statctr_id id = cell + (statctr_id)(col->source < 0 ? 0 : col->source);
	char num[16];

	switch (col->obj->value) {
	case IFV_INDEX:
		set_integer(vb, ASN_INTEGER, (long)row->ifindex);
		break;
	case IFV_SPEED:
		set_unsigned(vb, ASN_GAUGE, mbps_to_bps(statctr_snap_gauge(as->snap, id)));
		break;
	case IFV_HIGH_SPEED: {
		int64_t mbps = statctr_snap_gauge(as->snap, id);

		set_unsigned(vb, ASN_GAUGE, mbps < 0 ? 0 : mbps > SPEED_MAX ? SPEED_MAX : mbps);
		break;
	}
	case IFV_PHYS:
		snmp_set_var_typed_value(vb, ASN_OCTET_STR, "", 0);
		break;
	case IFV_ADMIN:
		set_integer(vb, ASN_INTEGER, OPER_UP);
		break;
	case IFV_OPER:
		set_integer(vb, ASN_INTEGER, t->oper[row->ifindex - t->base]);
		break;
	case IFV_LAST_CHANGE:
		set_unsigned(vb, ASN_TIMETICKS, timebase_ticks(t->changed[row->ifindex - t->base]));
		break;
	case IFV_COUNTER32:
		set_unsigned(vb, ASN_COUNTER, statctr_snap_counter(as->snap, id) & 0xffffffffu);
		break;
	case IFV_COUNTER64:
		set_counter64(vb, statctr_snap_counter(as->snap, id));
		break;
	case IFV_FALSE:
		set_integer(vb, ASN_INTEGER, TRUTH_FALSE);
		break;
	case IFV_DISABLED:
		set_integer(vb, ASN_INTEGER, TRAP_OFF);
		break;
	case IFV_DISC_TIME:
		set_unsigned(
		    vb, ASN_TIMETICKS,
		    timebase_ticks(handlers_row_discontinuity(as, cell, t->decl->ncolumns)));
		break;
	default: /* the name and the declared attributes */
		set_attribute(col, row_name(t, as->snap, row->row, num, sizeof(num)), vb);
		break;
	}
}

/* ------------------------------------------------------------------------
 * GET and GETNEXT.
 */

/* Where @name is against the column: <0 before it, >0 after it, 0 under it. */
static int against_column(const struct if_column *col, const oid *name, size_t len)
{
	return snmp_oid_ncompare(name, len, col->prefix, col->prefix_len, col->prefix_len);
}

static void do_get(const struct if_column *col, const struct agg_result *res,
                   netsnmp_agent_request_info *reqinfo, netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	const struct if_row *row = NULL;

	if (against_column(col, vb->name, vb->name_length) == 0 &&
	    vb->name_length == col->prefix_len + 1)
		row = row_ge(col->table, vb->name[col->prefix_len]);
	if (row && row->ifindex == vb->name[col->prefix_len])
		set_if_value(col, &res->segs[col->table->seg], row, vb);
	else
		netsnmp_set_request_error(reqinfo, req, SNMP_NOSUCHINSTANCE);
}

/* The first instance after the request (at it when inclusive); none: left to the next region. */
static void do_getnext(const struct if_column *col, const struct agg_result *res,
                       netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	int where = against_column(col, vb->name, vb->name_length);
	uint64_t from = 0;
	const struct if_row *row;
	oid name[IFMIB_ENTRY_MAX_ARCS + 2];

	if (where > 0)
		return;
	if (where == 0 && vb->name_length > col->prefix_len) {
		from = vb->name[col->prefix_len];
		if (vb->name_length > col->prefix_len + 1 || !req->inclusive)
			from++;
	}
	row = row_ge(col->table, from);
	if (!row)
		return;
	memcpy(name, col->prefix, col->prefix_len * sizeof(oid));
	name[col->prefix_len] = row->ifindex;
	snmp_set_var_objid(vb, name, col->prefix_len + 1);
	set_if_value(col, &res->segs[col->table->seg], row, vb);
}

static int handle_if(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                     netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct if_column *col = handler->myvoid;
	const struct agg_result *res = handlers_request_result(col->table->owner->agg, reqinfo);

	if (!res) {
		netsnmp_request_set_error_all(requests, SNMP_ERR_GENERR);
		return SNMP_ERR_NOERROR;
	}
	build(col->table, res);
	for (netsnmp_request_info *req = requests; req; req = req->next) {
		if (req->processed)
			continue;
		if (reqinfo->mode == MODE_GET)
			do_get(col, res, reqinfo, req);
		else if (reqinfo->mode == MODE_GETNEXT)
			do_getnext(col, res, req);
		else if (reqinfo->mode == MODE_SET_RESERVE1)
			netsnmp_set_request_error(reqinfo, req, SNMP_ERR_NOTWRITABLE);
	}
	return SNMP_ERR_NOERROR;
}

/* ------------------------------------------------------------------------
 * Tables and registrations.
 */

static void init_column(struct if_table *t, const struct ifmib_object *obj, int source,
                        struct if_column *col)
{
	bool x = obj->entry == IFMIB_IFX_TABLE;
	const uint32_t *entry = x ? ifmib_ifx_entry : ifmib_if_entry;
	size_t len = x ? IFMIB_IFX_ENTRY_LEN : IFMIB_IF_ENTRY_LEN;

	col->table = t;
	col->obj = obj;
	col->source = source;
	for (size_t i = 0; i < len; i++)
		col->prefix[i] = entry[i];
	col->prefix[len] = obj->column;
	col->prefix_len = len + 1;
}

static int init_table(struct ifmib_serve *ifm, uint32_t s, uint32_t ti, struct if_table *t)
{
	const struct statctr_segment_decl *sd = &ifm->set->cfg->segments[s];
	int *sources = calloc(ifmib_nobjects, sizeof(*sources));

	*t = (struct if_table){
	    .owner = ifm, .seg = s, .table = ti, .seg_decl = sd, .decl = &sd->tables[ti]};
	t->base = t->decl->ifmib->ifindex_base;
	t->range = ifmib_range(t->decl);
	t->oper_col = ifmib_mapped(t->decl, "ifOperStatus");
	t->cols = calloc(ifmib_nobjects, sizeof(*t->cols));
	t->rows = calloc(t->decl->nrows, sizeof(*t->rows));
	t->oper = calloc(t->range, sizeof(*t->oper));
	t->changed = calloc(t->range, sizeof(*t->changed));
	t->seen = calloc(t->range, sizeof(*t->seen));
	t->overrides = calloc(t->decl->ifmib->ninterfaces + 1, sizeof(*t->overrides));
	if (!sources || !t->cols || !t->rows || !t->oper || !t->changed || !t->seen ||
	    !t->overrides) {
		free(sources);
		return agent_seterr(ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < t->decl->ifmib->ninterfaces; i++)
		t->overrides[i] = &t->decl->ifmib->interfaces[i];
	qsort(t->overrides, t->decl->ifmib->ninterfaces, sizeof(*t->overrides), cmp_override);
	ifmib_columns(t->decl, sources);
	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		if (sources[i] != -1)
			init_column(t, &ifmib_objects[i], sources[i] < 0 ? -1 : sources[i],
			            &t->cols[t->ncols++]);
	free(sources);
	return 0;
}

int ifmib_serve_create(const struct agent_settings *set, struct aggregator *agg,
                       struct ifmib_serve **ifmp)
{
	struct ifmib_serve *ifm = calloc(1, sizeof(*ifm));
	const struct statctr_config *cfg = set->cfg;
	size_t n = 0;
	int err;

	*ifmp = NULL;
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++)
			n += cfg->segments[s].tables[t].ifmib != NULL;
	if (ifm)
		ifm->tables = calloc(n + 1, sizeof(*ifm->tables));
	if (!ifm || !ifm->tables) {
		free(ifm);
		return agent_seterr(ENOMEM, "out of memory");
	}
	ifm->set = set;
	ifm->agg = agg;
	err = n ? open_store(set->state_file) : 0;
	for (uint32_t s = 0; !err && s < cfg->nsegments; s++)
		for (uint32_t t = 0; !err && t < cfg->segments[s].ntables; t++)
			if (cfg->segments[s].tables[t].ifmib)
				err = init_table(ifm, s, t, &ifm->tables[ifm->ntables++]);
	if (err) {
		ifmib_serve_free(ifm);
		return err;
	}
	*ifmp = ifm;
	return 0;
}

static int register_column(struct if_column *col)
{
	const struct if_table *t = col->table;
	oid first[IFMIB_ENTRY_MAX_ARCS + 2];
	netsnmp_handler_registration *reg;

	/* The instance OID is the column's and one more arc, the ifIndex: the range's. */
	memcpy(first, col->prefix, col->prefix_len * sizeof(oid));
	first[col->prefix_len] = t->base;
	reg = netsnmp_create_handler_registration(col->obj->name, handle_if, first,
	                                          col->prefix_len + 1, HANDLER_CAN_RONLY);
	if (!reg)
		return agent_seterr(ENOMEM, "out of memory");
	reg->range_subid = (int)col->prefix_len + 1;
	reg->range_ubound = t->base + t->range - 1;
	/* Net-SNMP copies the handler, not my_reg_void, into each ifIndex of the range. */
	reg->handler->myvoid = col;
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK)
		return agent_seterr(EEXIST,
		                    "%s.%s: cannot register %s for ifIndex %" PRIu32 "..%" PRIu32
		                    " (already registered?)",
		                    t->seg_decl->name, t->decl->name, col->obj->name, t->base,
		                    t->base + t->range - 1);
	col->reg = reg;
	return 0;
}

int ifmib_serve_register(struct ifmib_serve *ifm)
{
	for (size_t i = 0; i < ifm->ntables; i++) {
		for (size_t c = 0; c < ifm->tables[i].ncols; c++) {
			int err = register_column(&ifm->tables[i].cols[c]);

			if (err) {
				ifmib_serve_unregister(ifm);
				return err;
			}
		}
	}
	return 0;
}

/*
 * After a reconnect, Net-SNMP re-sends a Register PDU for every subtree of
 * its registry that is not marked attached (register_mib_reattach()), and
 * it keeps a range registration as one subtree per ifIndex, each carrying
 * the whole range: the master would grant the first and refuse every other
 * as a duplicate (263), one log line each.  So when the session opens,
 * before that re-send, every subtree of a range but its first is marked
 * attached: the first re-registers the range, as at the first
 * registration.  (Ours are the subtrees this file's handler serves: the
 * ranges of different tables never share an ifIndex.)  Linear in the
 * range, at each reconnect only.
 */
/* Whether @s is one of this file's registrations (Net-SNMP puts helpers before its handler). */
static bool served_here(const netsnmp_subtree *s)
{
	for (const netsnmp_mib_handler *hd = s->reginfo ? s->reginfo->handler : NULL; hd;
	     hd = hd->next)
		if (hd->access_method == handle_if)
			return true;
	return false;
}

static void reattach_column_once(const struct if_column *col)
{
	const struct if_table *t = col->table;
	oid name[IFMIB_ENTRY_MAX_ARCS + 2];

	memcpy(name, col->prefix, col->prefix_len * sizeof(oid));
	for (uint32_t v = t->base + 1; v < t->base + t->range; v++) {
		name[col->prefix_len] = v;
		for (netsnmp_subtree *s = netsnmp_subtree_find(name, col->prefix_len + 1, NULL, "");
		     s; s = s->children)
			if (served_here(s))
				s->flags |= SUBTREE_ATTACHED;
	}
}

void ifmib_serve_reattach_once(struct ifmib_serve *ifm)
{

	for (size_t i = 0; ifm && i < ifm->ntables; i++)
		for (size_t c = 0; c < ifm->tables[i].ncols; c++)
			if (ifm->tables[i].cols[c].reg)
				reattach_column_once(&ifm->tables[i].cols[c]);
}

/*
 * Not netsnmp_unregister_handler(): Net-SNMP 5.9's unregister_mib_context()
 * reads a range's upper bound as a count from its first value, so it looks
 * for one subtree past the range, finds none and returns before freeing the
 * first one, restoring its lookup cache and calling the callback that sends
 * the AgentX Unregister PDU.  netsnmp_unregister_mib_table_row(), what the
 * master itself runs on such a PDU, takes the bound as the last value and
 * does all of that.  It frees the registration (the context name with it):
 * the name and context are copies.
 */
static void unregister_column(const struct if_column *col)
{
	const netsnmp_handler_registration *reg = col->reg;
	oid name[IFMIB_ENTRY_MAX_ARCS + 2];
	char context[64] = "";

	memcpy(name, reg->rootoid, reg->rootoid_len * sizeof(oid));
	if (reg->contextName)
		snprintf(context, sizeof(context), "%s", reg->contextName);
	netsnmp_unregister_mib_table_row(name, reg->rootoid_len, reg->priority, reg->range_subid,
	                                 reg->range_ubound, context);
}

static void drop_registrations(struct ifmib_serve *ifm, bool unregister)
{
	for (size_t i = 0; ifm && i < ifm->ntables; i++) {
		for (size_t c = 0; c < ifm->tables[i].ncols; c++) {
			struct if_column *col = &ifm->tables[i].cols[c];

			if (col->reg && unregister)
				unregister_column(col);
			col->reg = NULL;
		}
	}
}

void ifmib_serve_unregister(struct ifmib_serve *ifm)
{
	drop_registrations(ifm, true);
}

void ifmib_serve_forget(struct ifmib_serve *ifm)
{
	drop_registrations(ifm, false);
}

void ifmib_serve_free(struct ifmib_serve *ifm)
{
	if (!ifm)
		return;
	ifmib_serve_unregister(ifm);
	for (size_t i = 0; i < ifm->ntables; i++) {
		free(ifm->tables[i].cols);
		free(ifm->tables[i].rows);
		free(ifm->tables[i].oper);
		free(ifm->tables[i].changed);
		free(ifm->tables[i].seen);
		free(ifm->tables[i].overrides);
	}
	free(ifm->tables);
	free(ifm);
}
