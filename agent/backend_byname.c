/*
 * backend_byname.c - the by-name tables of dynamic tables (statctrRowsByName.S.T,
 * mib/oids.h): a backend of the engine (engine.h), one region per dynamic
 * table.
 *
 * Owns the index of a table's present rows by name, built from a
 * published result at its first lookup (O(n log n), once per pass at
 * most; then O(log n) per varbind), and the decoding of the IMPLIED name
 * index.  Never decides a value (backend_statctr.c does), never registers
 * (register.c), never reads a segment.
 *
 * An instance is R.6.S.T.1.COLUMN.NAME: the name's bytes one
 * sub-identifier each, without a length (IMPLIED, RFC 2578 7.7), so that
 * names order as OIDs do, byte by byte, a name before the longer names it
 * begins.  COLUMN is MIB_BYNAME_ROW_INDEX, MIB_BYNAME_DISCONTINUITY, or
 * MIB_DATA_FIRST_VALUE + c for declared column c.  A row whose name is
 * longer than MIB_BYNAME_MAX_KEY(root) bytes has no instance here (its OID
 * would pass 128 sub-identifiers): it is read by index in its table.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "backend_byname.h"
#include "agent.h"
#include "backend_statctr.h"
#include "bisect.h"
#include "encode.h"
#include "oids.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct byname_row {
	const char *name; /* the snapshot's: valid while its result is served */
	uint32_t len;
	uint32_t row;
};

struct byname_table {
	uint32_t seg, table; /* configuration indexes */
	const struct statctr_table_decl *decl;
	oid prefix[MIB_MAX_OID_ARCS]; /* R.6.S.T.1: the entry */
	size_t prefix_len;
	uint32_t max_key;
	struct byname_row *rows; /* room for every row of the table */
	uint32_t nrows;
	const struct agg_result *built; /* rows are of this result */
	uint64_t built_ns, built_passes;
};

struct byname {
	uint32_t ntables;
	struct byname_table tables[]; /* one per dynamic table */
};

/* ------------------------------------------------------------------------
 * The index: present rows sorted by name as OIDs sort.
 */

static int cmp_rows(const void *a, const void *b)
{
	const struct byname_row *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void build(struct byname_table *t, const struct agg_result *res)
{
	const struct agg_segment *as = &res->segs[t->seg];

	if (t->built == res && t->built_ns == res->taken_ns && t->built_passes == res->stats.passes)
		return;
	t->nrows = 0;
	for (uint32_t r = 0; as->snap && r < t->decl->nrows; r++) {
		const char *name = statctr_snap_row_name(as->snap, t->table, r);
		size_t len = name ? strlen(name) : 0;

		if (len && len <= t->max_key)
			t->rows[t->nrows++] = (struct byname_row){name, (uint32_t)len, r};
	}
	qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_rows);
	t->built = res;
	t->built_ns = res->taken_ns;
	t->built_passes = res->stats.passes;
}

/* <0, 0, >0: @r's name against the sub-identifiers @key[0..@n-1], as OIDs compare. */
static int cmp_key(const struct byname_row *r, const oid *key, size_t n)
{
	size_t m = r->len < n ? r->len : n;

	for (size_t i = 0; i < m; i++) {
		oid b = (unsigned char)r->name[i];

		if (b != key[i])
			return b < key[i] ? -1 : 1;
	}
	return (r->len > n) - (r->len < n);
}

/* The first row whose name is after @key (at it too when @inclusive); nrows: none. */
static size_t row_after(const struct byname_table *t, const oid *key, size_t n, bool inclusive)
{
	return BISECT_FIRST(t->nrows, m,
	                    inclusive ? cmp_key(&t->rows[m], key, n) < 0
	                              : cmp_key(&t->rows[m], key, n) <= 0);
}

/* ------------------------------------------------------------------------
 * Columns: ROW_INDEX, DISCONTINUITY, then the declared ones, in OID order.
 */

static uint32_t ncolumns(const struct byname_table *t)
{
	return 2 + t->decl->ncolumns;
}

static oid column_arc(uint32_t i)
{
	return i < 2 ? (oid)MIB_BYNAME_ROW_INDEX + i : (oid)MIB_DATA_FIRST_VALUE + (i - 2);
}

/* The first column whose arc is >= @arc; ncolumns(): none. */
static uint32_t column_ge(const struct byname_table *t, oid arc)
{
	return (uint32_t)BISECT_FIRST(ncolumns(t), m, column_arc((uint32_t)m) < arc);
}

static void set_value(const struct byname_table *t, const struct agg_result *res, oid arc,
                      const struct byname_row *r, netsnmp_variable_list *vb)
{
	const struct agg_segment *as = &res->segs[t->seg];

	if (arc == MIB_BYNAME_ROW_INDEX)
		encode_unsigned32(vb, (uint64_t)r->row + 1);
	else if (arc == MIB_BYNAME_DISCONTINUITY)
		handlers_row_discontinuity(as, t->table, r->row, vb);
	else
		handlers_row_value(as, t->table, r->row, (uint32_t)(arc - MIB_DATA_FIRST_VALUE),
		                   vb);
}

/* Sets @vb's name to column @i's instance of @r, and its value. */
static void set_instance(const struct byname_table *t, const struct agg_result *res, uint32_t i,
                         const struct byname_row *r, netsnmp_variable_list *vb)
{
	oid name[MIB_MAX_OID_ARCS];
	size_t len = t->prefix_len;

	memcpy(name, t->prefix, len * sizeof(oid));
	name[len++] = column_arc(i);
	for (uint32_t k = 0; k < r->len; k++)
		name[len++] = (unsigned char)r->name[k];
	snmp_set_var_objid(vb, name, len);
	set_value(t, res, column_arc(i), r, vb);
}

/* ------------------------------------------------------------------------
 * The backend.
 */

static int get(const void *data, const struct agg_result *res, netsnmp_variable_list *vb)
{
	struct byname_table *t = (struct byname_table *)data; /* the index is a cache */
	const oid *name = vb->name;
	size_t len = vb->name_length, at;
	uint32_t i;

	if (len <= t->prefix_len ||
	    snmp_oid_ncompare(name, len, t->prefix, t->prefix_len, t->prefix_len) != 0)
		return SNMP_NOSUCHOBJECT;
	i = column_ge(t, name[t->prefix_len]);
	if (i == ncolumns(t) || column_arc(i) != name[t->prefix_len])
		return SNMP_NOSUCHOBJECT;
	build(t, res);
	at = row_after(t, name + t->prefix_len + 1, len - t->prefix_len - 1, true);
	if (at == t->nrows ||
	    cmp_key(&t->rows[at], name + t->prefix_len + 1, len - t->prefix_len - 1) != 0)
		return SNMP_NOSUCHINSTANCE;
	set_value(t, res, column_arc(i), &t->rows[at], vb);
	return SNMP_ERR_NOERROR;
}

/* The first instance after the request (at it when inclusive); none: left to the next region. */
static bool next(const void *data, const struct agg_result *res, netsnmp_variable_list *vb,
                 bool inclusive)
{
	struct byname_table *t = (struct byname_table *)data;
	int where =
	    snmp_oid_ncompare(vb->name, vb->name_length, t->prefix, t->prefix_len, t->prefix_len);
	uint32_t i = 0;
	size_t at = 0;

	if (where > 0)
		return false;
	build(t, res);
	if (t->nrows == 0)
		return false;
	if (where == 0 && vb->name_length > t->prefix_len) {
		const oid *key = vb->name + t->prefix_len + 1;
		size_t n = vb->name_length - t->prefix_len - 1;

		i = column_ge(t, vb->name[t->prefix_len]);
		if (i < ncolumns(t) && column_arc(i) == vb->name[t->prefix_len])
			at = row_after(t, key, n, inclusive || n == 0);
		if (at == t->nrows) { /* past this column's last row: the next column's first */
			i++;
			at = 0;
		}
	}
	if (i >= ncolumns(t))
		return false;
	set_instance(t, res, i, &t->rows[at], vb);
	return true;
}

/* Read-only: no set_check, and the engine answers notWritable. */
static const struct engine_backend backend = {.get = get, .next = next};

/* ------------------------------------------------------------------------
 * The regions.
 */

static int add_table(struct engine *e, const struct agent_settings *set, uint32_t s, uint32_t tt,
                     struct byname_table *t)
{
	const struct statctr_segment_decl *d = &set->cfg->segments[s];
	char name[160];

	*t = (struct byname_table){.seg = s, .table = tt, .decl = &d->tables[tt]};
	t->rows = calloc((size_t)t->decl->nrows + 1, sizeof(*t->rows));
	if (!t->rows)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t i = 0; i < set->root_len; i++)
		t->prefix[t->prefix_len++] = set->root[i];
	t->prefix[t->prefix_len++] = MIB_ARC_BY_NAME;
	t->prefix[t->prefix_len++] = d->oid;
	t->prefix[t->prefix_len++] = t->decl->oid;
	t->prefix[t->prefix_len++] = MIB_ARC_ENTRY;
	t->max_key = MIB_BYNAME_MAX_KEY(set->root_len);
	snprintf(name, sizeof(name), "%s.%s by name", d->name, t->decl->name);
	/* The region is the table (R.6.S.T), its entry's one child. */
	return engine_add(e, name, t->prefix, t->prefix_len - 1, 0, 0, &backend, t);
}

int byname_add(struct engine *e, const struct agent_settings *set, struct byname **bp)
{
	const struct statctr_config *cfg = set->cfg;
	struct byname *b;
	size_t n = 0;

	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++)
			n += cfg->segments[s].tables[t].dynamic != 0;
	b = calloc(1, sizeof(*b) + n * sizeof(b->tables[0]));
	*bp = b;
	if (!b)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++) {
			int err;

			if (!cfg->segments[s].tables[t].dynamic)
				continue;
			err = add_table(e, set, s, t, &b->tables[b->ntables++]);
			if (err)
				return err;
		}
	return 0;
}

void byname_free(struct byname *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->ntables; i++)
		free(b->tables[i].rows);
	free(b);
}
