/*
 * backend_ifmib.c - the IF-MIB backend of the engine (see backend_ifmib.h).
 *
 * Owns the IF-MIB regions, the present interfaces of each table per
 * result, and what the agent saw of each interface's operational state
 * (ifLastChange, and the state last told to traps.c).  The object list,
 * OIDs and mapping rules are mib/ifmib.c's; the ifIndex numbering is
 * ifindex.c's; registering is register.c's, encoding encode.c's, and
 * ifLinkUpDownTrapEnable's store notify_state.c's, the notifications traps.c's.  Never
 * reads a segment itself; the one writable object is
 * ifLinkUpDownTrapEnable.
 *
 * ifOperStatus: the row's mapped gauge while its writer is alive (up(1)
 * without one); lowerLayerDown(7) while the segment's values are final or
 * unsure (writerGone, stale): the data plane beneath the interface is
 * down.  A segment without values (absent, closed, unreadable) has no
 * rows.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "backend_ifmib.h"
#include "agent.h"
#include "bisect.h"
#include "encode.h"
#include "ifindex.h"
#include "ifmib.h"
#include "notify_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPER_UP         1
#define OPER_UNKNOWN    4
#define OPER_LOWER_DOWN 7 /* lowerLayerDown(7), RFC 2863 */
#define OPER_MAX        7
#define SPEED_MAX       4294967295u
#define TRAP_ON         1
#define TRAP_OFF        2

/*
 * A table's range is registered from its base in chunks, as far as its
 * names reach: values 0..15 of the range first, then 16..31, 32..63, each
 * chunk as long as all before it.  snmpd keeps one subtree per registered
 * value and column, at a cost that grows as the square of their number,
 * and a GETNEXT crosses each empty one with a round trip: a range of 1024
 * values holding 20 names costs what 32 values do.  The layout depends on
 * how far the names reach only, so a reload registers the same regions
 * (engine_adopt()).
 */
#define FIRST_CHUNK 16u
#define MAX_CHUNKS  29 /* 16 x 2^28 = 2^32 */

struct if_table;

/* One served column of one table: a range registration per chunk (struct if_region). */
struct if_column {
	struct if_table *table;
	const struct ifmib_object *obj;
	int source; /* the declared column giving the value, or -1 */
	oid prefix[IFMIB_ENTRY_MAX_ARCS + 1];
	size_t prefix_len;
};

struct if_row {
	uint32_t ifindex;
	uint32_t row;
};

/* One chunk of one column: one range registration, ifIndex lo..hi. */
struct if_region {
	const struct if_column *col;
	uint32_t lo, hi;
};

struct if_table {
	struct ifmib_serve *owner;
	uint32_t seg, table;
	const struct statctr_segment_decl *seg_decl;
	const struct statctr_table_decl *decl;
	const struct ifmib_table *ift; /* its IF-MIB settings */
	uint32_t base, range;
	int oper_col; /* the gauge mapped to ifOperStatus, or -1 */
	struct if_column *cols;
	size_t ncols;
	struct if_region *regions; /* ncols per chunk, chunk after chunk */
	size_t nregions;
	uint32_t reach; /* values from base in a region: 0 or a chunk's end */
	bool told_grow; /* the last registration of more chunks failed, logged */
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
	/* Per ifIndex - base: what ifmib_serve_changes() last told, and since. */
	uint8_t *told;
	uint32_t *flips;
	uint64_t *told_ns;
	/* The `interfaces` overrides, sorted by row name. */
	const struct ifmib_if **overrides;
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
static bool store_started; /* ifmib_store_start() was called: a new store starts at once */

static int start_store(void)
{
	int err = store_started ? ifindex_start(store) : 0;

	return err ? errmsg_set(-err, "cannot start the ifIndex file writer: %s", strerror(-err))
	           : 0;
}

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
		return errmsg_set(ENOMEM, "out of memory");
	if (state_file)
		snprintf(path, sizeof(path), "%s.ifindex", state_file);
	err = ifindex_open(state_file ? path : NULL, &store);
	return err ? errmsg_set(-err, "ifIndex store: out of memory") : start_store();
}

int ifmib_store_start(void)
{
	store_started = true;
	return start_store();
}

void ifmib_store_close(void)
{
	ifindex_close(store);
	store = NULL;
	store_started = false;
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

static uint8_t oper_state(const struct if_table *t, const struct agg_segment *as, uint32_t r)
{
	int64_t level;

	if (as->status != AGG_ACTIVE)
		return OPER_LOWER_DOWN;
	if (t->oper_col < 0)
		return OPER_UP;
	level = statctr_snap_gauge(as->snap, row_cell(t, r) + (statctr_id)t->oper_col);
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
static void track_oper(struct if_table *t, const struct agg_segment *as, uint64_t now_ns)
{
	memset(t->seen, 0, t->range);
	for (uint32_t i = 0; i < t->nrows; i++) {
		uint32_t k = t->rows[i].ifindex - t->base;
		uint8_t state = oper_state(t, as, t->rows[i].row);

		t->seen[k] = 1;
		if (t->oper[k] != state)
			t->changed[k] = t->oper[k] || t->built_once ? now_ns : 0;
		if (t->oper[k] && t->oper[k] != state)
			t->flips[k]++;
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
	track_oper(t, as, res->taken_ns);
	t->built = res;
	t->built_ns = res->taken_ns;
	t->built_passes = res->stats.passes;
	t->built_once = true;
}

/* The first present row with ifIndex >= @ifindex, by bisection; NULL when none. */
static const struct if_row *row_ge(const struct if_table *t, uint64_t ifindex)
{
	size_t i = BISECT_FIRST(t->nrows, m, t->rows[m].ifindex < ifindex);

	return i < t->nrows ? &t->rows[i] : NULL;
}

/* ------------------------------------------------------------------------
 * Values.
 */

static int cmp_override(const void *a, const void *b)
{
	const struct ifmib_if *const *x = a, *const *y = b;

	return strcmp((*x)->row, (*y)->row);
}

/* Row @name's attributes: its `interfaces` entry, by bisection, else the table's. */
static const struct ifmib_if *if_decl(const struct if_table *t, const char *name)
{
	const struct ifmib_if key = {.row = (char *)name}, *keyp = &key;
	const struct ifmib_if **found =
	    bsearch(&keyp, t->overrides, t->ift->ninterfaces, sizeof(*t->overrides), cmp_override);

	return found ? *found : &t->ift->defaults;
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
	const struct ifmib_if *d = if_decl(col->table, name);

	switch (col->obj->value) {
	case IFV_DESCR:
		encode_string(vb, d->descr ? d->descr : name);
		break;
	case IFV_TYPE:
		encode_integer(vb, (long)d->type);
		break;
	case IFV_MTU:
		encode_integer(vb, (long)d->mtu);
		break;
	case IFV_ALIAS:
		encode_string(vb, d->alias);
		break;
	default: /* IFV_NAME */
		encode_string(vb, name);
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
		encode_integer(vb, (long)row->ifindex);
		break;
	case IFV_SPEED:
		encode_gauge32(vb, (int64_t)mbps_to_bps(statctr_snap_gauge(as->snap, id)));
		break;
	case IFV_HIGH_SPEED: {
		int64_t mbps = statctr_snap_gauge(as->snap, id);

		encode_gauge32(vb, mbps);
		break;
	}
	case IFV_PHYS:
		encode_string(vb, "");
		break;
	case IFV_ADMIN:
		encode_integer(vb, OPER_UP);
		break;
	case IFV_OPER:
		encode_integer(vb, t->oper[row->ifindex - t->base]);
		break;
	case IFV_LAST_CHANGE:
		encode_timestamp(vb, t->changed[row->ifindex - t->base]);
		break;
	case IFV_COUNTER32:
		encode_counter32(vb, agg_counter(as, id));
		break;
	case IFV_COUNTER64:
		encode_counter64(vb, agg_counter(as, id));
		break;
	case IFV_FALSE:
		encode_truth(vb, false);
		break;
	case IFV_TRAP_ENABLE: /* ifLinkUpDownTrapEnable */
		encode_integer(vb, traps_link_enabled(row->ifindex) ? TRAP_ON : TRAP_OFF);
		break;
	case IFV_DISC_TIME:
		encode_timestamp(vb, agg_row_discontinuity(as, cell, t->decl->ncolumns));
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

/* The present row @vb names exactly (the column's prefix, an ifIndex), or NULL. */
static const struct if_row *row_at(const struct if_column *col, const struct agg_result *res,
                                   const netsnmp_variable_list *vb)
{
	const struct if_row *row;

	build(col->table, res);
	if (against_column(col, vb->name, vb->name_length) != 0 ||
	    vb->name_length != col->prefix_len + 1)
		return NULL;
	row = row_ge(col->table, vb->name[col->prefix_len]);
	return row && row->ifindex == vb->name[col->prefix_len] ? row : NULL;
}

static int get(const void *data, const struct agg_result *res, netsnmp_variable_list *vb)
{
	const struct if_column *col = ((const struct if_region *)data)->col;
	const struct if_row *row = row_at(col, res, vb);

	if (!row)
		return SNMP_NOSUCHINSTANCE;
	set_if_value(col, &res->segs[col->table->seg], row, vb);
	return SNMP_ERR_NOERROR;
}

/*
 * The first instance after the request (at it when inclusive) in the
 * region; none: left to the next region.
 */
static bool next(const void *data, const struct agg_result *res, netsnmp_variable_list *vb,
                 bool inclusive)
{
	const struct if_region *reg = data;
	const struct if_column *col = reg->col;
	int where = against_column(col, vb->name, vb->name_length);
	uint64_t from = 0;
	const struct if_row *row;
	oid name[IFMIB_ENTRY_MAX_ARCS + 2];

	if (where > 0)
		return false;
	build(col->table, res);
	if (where == 0 && vb->name_length > col->prefix_len) {
		from = vb->name[col->prefix_len];
		if (vb->name_length > col->prefix_len + 1 || !inclusive)
			from++;
	}
	row = row_ge(col->table, from > reg->lo ? from : reg->lo);
	if (!row || row->ifindex > reg->hi)
		return false;
	memcpy(name, col->prefix, col->prefix_len * sizeof(oid));
	name[col->prefix_len] = row->ifindex;
	snmp_set_var_objid(vb, name, col->prefix_len + 1);
	set_if_value(col, &res->segs[col->table->seg], row, vb);
	return true;
}

/* Read-only: no set_check, and the engine answers notWritable. */
static const struct engine_backend backend = {.get = get, .next = next};

/*
 * ifLinkUpDownTrapEnable, in RFC 3416 4.2.5's order: a row that is not
 * present is noCreation, a user without resets (allow_reset) notWritable,
 * anything but an INTEGER wrongType, anything but enabled(1)/disabled(2)
 * wrongValue.
 */
static int trap_enable_check(const void *data, const struct agg_result *res,
                             const netsnmp_variable_list *vb, struct agg_reset *reset)
{
	const struct if_column *col = ((const struct if_region *)data)->col;

	(void)reset;
	if (!row_at(col, res, vb))
		return SNMP_ERR_NOCREATION;
	if (!col->table->owner->set->allow_reset)
		return SNMP_ERR_NOTWRITABLE;
	if (vb->type != ASN_INTEGER || vb->val_len != sizeof(long))
		return SNMP_ERR_WRONGTYPE;
	if (*vb->val.integer != TRAP_ON && *vb->val.integer != TRAP_OFF)
		return SNMP_ERR_WRONGVALUE;
	return SNMP_ERR_NOERROR;
}

/* ifIndex @ifindex's ifLinkUpDownTrapEnable set to @value (notify_state.c keeps it). */
static int trap_enable_set(uint32_t ifindex, long value, int failed)
{
	int err = traps_link_enable(ifindex, value == TRAP_ON);

	if (err < 0) {
		snmp_log(LOG_ERR, "ifLinkUpDownTrapEnable.%" PRIu32 ": %s\n", ifindex,
		         errmsg_get());
		return failed;
	}
	return SNMP_ERR_NOERROR;
}

/* ACTION: checked again by the engine; kept in the state file, or left as it was. */
static int trap_enable_apply(const void *data, const netsnmp_variable_list *vb, long *undo)
{
	const struct if_column *col = ((const struct if_region *)data)->col;
	uint32_t ifindex = (uint32_t)vb->name[col->prefix_len];

	*undo = traps_link_enabled(ifindex) ? TRAP_ON : TRAP_OFF;
	return trap_enable_set(ifindex, *vb->val.integer, SNMP_ERR_COMMITFAILED);
}

static int trap_enable_undo(const void *data, const netsnmp_variable_list *vb, long undo)
{
	const struct if_column *col = ((const struct if_region *)data)->col;

	return trap_enable_set((uint32_t)vb->name[col->prefix_len], undo, SNMP_ERR_UNDOFAILED);
}

static const struct engine_backend trap_enable_backend = {.get = get,
                                                          .next = next,
                                                          .set_check = trap_enable_check,
                                                          .set_apply = trap_enable_apply,
                                                          .set_undo = trap_enable_undo};

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

static int init_table(struct ifmib_serve *ifm, const struct ifmib_table *ift, struct if_table *t)
{
	const struct statctr_segment_decl *sd = &ifm->set->cfg->segments[ift->segment];
	int *sources = calloc(ifmib_nobjects, sizeof(*sources));

	*t = (struct if_table){.owner = ifm,
	                       .seg = ift->segment,
	                       .table = ift->table,
	                       .seg_decl = sd,
	                       .decl = ift->decl,
	                       .ift = ift};
	t->base = ift->ifindex_base;
	t->range = ifmib_range(ift);
	t->oper_col = ifmib_mapped(ift, "ifOperStatus");
	t->cols = calloc(ifmib_nobjects, sizeof(*t->cols));
	t->rows = calloc(t->decl->nrows, sizeof(*t->rows));
	t->oper = calloc(t->range, sizeof(*t->oper));
	t->changed = calloc(t->range, sizeof(*t->changed));
	t->seen = calloc(t->range, sizeof(*t->seen));
	t->told = calloc(t->range, sizeof(*t->told));
	t->flips = calloc(t->range, sizeof(*t->flips));
	t->told_ns = calloc(t->range, sizeof(*t->told_ns));
	t->overrides = calloc(ift->ninterfaces + 1, sizeof(*t->overrides));
	if (!sources || !t->cols || !t->rows || !t->oper || !t->changed || !t->seen || !t->told ||
	    !t->flips || !t->told_ns || !t->overrides) {
		free(sources);
		return errmsg_set(ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < ift->ninterfaces; i++)
		t->overrides[i] = &ift->interfaces[i];
	qsort(t->overrides, ift->ninterfaces, sizeof(*t->overrides), cmp_override);
	ifmib_columns(ift, sources);
	for (uint32_t i = 0; i < ifmib_nobjects; i++)
		if (sources[i] != -1)
			init_column(t, &ifmib_objects[i], sources[i] < 0 ? -1 : sources[i],
			            &t->cols[t->ncols++]);
	free(sources);
	t->regions = calloc(t->ncols * MAX_CHUNKS + 1, sizeof(*t->regions));
	return t->regions ? 0 : errmsg_set(ENOMEM, "out of memory");
}

int ifmib_serve_create(const struct agent_settings *set, struct aggregator *agg,
                       struct ifmib_serve **ifmp)
{
	struct ifmib_serve *ifm = calloc(1, sizeof(*ifm));
	size_t n = set->ifmib->ntables;
	int err;

	*ifmp = NULL;
	if (ifm)
		ifm->tables = calloc(n + 1, sizeof(*ifm->tables));
	if (!ifm || !ifm->tables) {
		free(ifm);
		return errmsg_set(ENOMEM, "out of memory");
	}
	ifm->set = set;
	ifm->agg = agg;
	err = n ? open_store(set->state_file) : 0;
	for (size_t i = 0; !err && i < n; i++)
		err = init_table(ifm, &set->ifmib->tables[i], &ifm->tables[ifm->ntables++]);
	if (err) {
		ifmib_serve_free(ifm);
		return err;
	}
	*ifmp = ifm;
	return 0;
}

/* The end of the chunk that starts at @lo (values from the table's base). */
static uint32_t chunk_end(const struct if_table *t, uint32_t lo)
{
	uint64_t end = lo < FIRST_CHUNK ? FIRST_CHUNK : 2 * (uint64_t)lo;

	return end < t->range ? (uint32_t)end : t->range;
}

/* Column @col's region over ifIndex base+lo..base+hi (range registration on the ifIndex arc). */
static int add_region(struct engine *e, const struct if_column *col, uint32_t lo, uint32_t hi)
{
	const struct if_table *t = col->table;
	struct if_region *reg = &col->table->regions[t->nregions];
	oid first[IFMIB_ENTRY_MAX_ARCS + 2];
	char name[64];

	*reg = (struct if_region){col, t->base + lo, t->base + hi};
	memcpy(first, col->prefix, col->prefix_len * sizeof(oid));
	first[col->prefix_len] = reg->lo;
	snprintf(name, sizeof(name), "%s.%s.%s", t->seg_decl->name, t->decl->name, col->obj->name);
	return engine_add(e, name, first, col->prefix_len + 1, (int)col->prefix_len + 1, reg->hi,
	                  col->obj->value == IFV_TRAP_ENABLE ? &trap_enable_backend : &backend,
	                  reg);
}

/* How far table @t's names reach into its range (ifindex.h), at least the first chunk. */
static int64_t wanted(const struct if_table *t)
{
	int64_t reach = ifindex_reach(store, t->seg_decl->name, t->decl->name, t->base, t->range);

	if (reach < 0)
		return errmsg_set(ENOMEM, "out of memory");
	return reach > FIRST_CHUNK ? reach : FIRST_CHUNK;
}

/*
 * Adds the chunks past t->reach that @want values need, a region per
 * column each (after a failure, from the column it failed at); 1: added
 * some, 0: none needed, or -ENOMEM.
 */
static int add_chunks(struct if_table *t, struct engine *e, int64_t want)
{
	int added = 0;

	while (t->ncols && t->reach < t->range && t->reach < want) {
		uint32_t end = chunk_end(t, t->reach);

		for (size_t c = t->nregions % t->ncols; c < t->ncols; c++) {
			int err = add_region(e, &t->cols[c], t->reach, end - 1);

			if (err)
				return err;
			t->nregions++;
		}
		t->reach = end;
		added = 1;
	}
	return added;
}

int ifmib_serve_add(struct ifmib_serve *ifm, struct engine *e)
{
	for (size_t i = 0; i < ifm->ntables; i++) {
		struct if_table *t = &ifm->tables[i];
		int64_t want = wanted(t);
		int err = want < 0 ? (int)want : add_chunks(t, e, want);

		if (err < 0)
			return err;
	}
	return 0;
}

/* A failure to register more, logged once until one succeeds. */
static void tell_grow(struct if_table *t, int err)
{
	if (err < 0 && !t->told_grow)
		snmp_log(LOG_ERR,
		         "%s.%s: interfaces past ifIndex %" PRIu32 " not served yet: %s; "
		         "trying again with each pass\n",
		         t->seg_decl->name, t->decl->name, t->base + t->reach - 1, errmsg_get());
	t->told_grow = err < 0;
}

void ifmib_serve_grow(struct ifmib_serve *ifm, struct engine *e, const struct agg_result *res)
{
	for (size_t i = 0; i < ifm->ntables; i++) {
		struct if_table *t = &ifm->tables[i];
		int64_t want;
		int err;

		build(t, res); /* a new name gets its ifIndex */
		want = wanted(t);
		err = want < 0 ? (int)want : add_chunks(t, e, want);
		if (err >= 0 && (err > 0 || t->told_grow))
			err = engine_register_more(e);
		tell_grow(t, err);
	}
}

/* ------------------------------------------------------------------------
 * Changes to tell (traps.c).
 */

static void table_changes(struct if_table *t, const struct agg_result *res, ifmib_tell_fn *tell,
                          void *arg)
{
	build(t, res);
	for (uint32_t k = 0; k < t->range; k++) {
		struct ifmib_change c = {.ifindex = t->base + k,
		                         .told = t->told[k],
		                         .now = t->oper[k],
		                         .admin = OPER_UP,
		                         .flips = t->flips[k],
		                         .told_ns = t->told_ns[k]};

		enum ifmib_told done;

		if (c.told == c.now && !c.flips)
			continue;
		done = tell(arg, &c, res->taken_ns);
		if (done == IFMIB_HOLD)
			continue;
		t->told[k] = c.now;
		t->flips[k] = 0;
		if (done == IFMIB_SENT)
			t->told_ns[k] = res->taken_ns;
	}
}

void ifmib_serve_changes(struct ifmib_serve *ifm, const struct agg_result *res, ifmib_tell_fn *tell,
                         void *arg)
{
	for (size_t i = 0; i < ifm->ntables; i++)
		table_changes(&ifm->tables[i], res, tell, arg);
}

/* Table @t's counterpart in @old: same segment, table and ifIndex range; or NULL. */
static const struct if_table *same_table(const struct ifmib_serve *old, const struct if_table *t)
{
	for (size_t i = 0; i < old->ntables; i++) {
		const struct if_table *o = &old->tables[i];

		if (strcmp(o->seg_decl->name, t->seg_decl->name) == 0 &&
		    strcmp(o->decl->name, t->decl->name) == 0 && o->base == t->base &&
		    o->range == t->range)
			return o;
	}
	return NULL;
}

void ifmib_serve_adopt(struct ifmib_serve *new, const struct ifmib_serve *old)
{
	for (size_t i = 0; old && i < new->ntables; i++) {
		struct if_table *t = &new->tables[i];
		const struct if_table *o = same_table(old, t);

		if (!o)
			continue;
		memcpy(t->oper, o->oper, t->range * sizeof(*t->oper));
		memcpy(t->changed, o->changed, t->range * sizeof(*t->changed));
		memcpy(t->told, o->told, t->range * sizeof(*t->told));
		memcpy(t->flips, o->flips, t->range * sizeof(*t->flips));
		memcpy(t->told_ns, o->told_ns, t->range * sizeof(*t->told_ns));
		t->built_once = o->built_once;
	}
}

void ifmib_serve_free(struct ifmib_serve *ifm)
{
	if (!ifm)
		return;
	for (size_t i = 0; i < ifm->ntables; i++) {
		free(ifm->tables[i].cols);
		free(ifm->tables[i].regions);
		free(ifm->tables[i].rows);
		free(ifm->tables[i].oper);
		free(ifm->tables[i].changed);
		free(ifm->tables[i].seen);
		free(ifm->tables[i].told);
		free(ifm->tables[i].flips);
		free(ifm->tables[i].told_ns);
		free(ifm->tables[i].overrides);
	}
	free(ifm->tables);
	free(ifm);
}
