/*
 * names.c - SMIv2 names derived from configuration names: module names
 * ("STATCTR-DATAPLANE-MIB") and descriptors ("dataplaneIfStatsRxPackets"),
 * valid (letters and digits, lowercase first, at most 64 characters) and
 * unique within one module; and the one set of descriptors of a
 * configuration's module that the MIB (gen.c) and the snmp_exporter
 * module (cmd_exporter.c) both name their objects with.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "names.h"
#include "objects.h"
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DESCRIPTOR 64

static bool is_alnum(int c)
{
	return isascii(c) && isalnum(c);
}

/* Appends @s camel-cased: "if_stats" -> "IfStats" (first letter upper). */
static void append_camel(char *buf, size_t size, const char *s)
{
	size_t len = strlen(buf);
	bool word_start = true;

	for (const unsigned char *p = (const unsigned char *)s; *p && len + 1 < size; p++) {
		if (!is_alnum(*p)) {
			word_start = true;
			continue;
		}
		buf[len++] = (char)(word_start ? toupper(*p) : *p);
		word_start = false;
	}
	buf[len] = '\0';
}

static int by_name(const void *a, const void *b)
{
	return strcasecmp(((const struct mib_name_entry *)a)->name,
	                  ((const struct mib_name_entry *)b)->name);
}

static int by_natural(const void *a, const void *b)
{
	return strcasecmp(((const struct mib_name_entry *)a)->natural,
	                  ((const struct mib_name_entry *)b)->natural);
}

static bool name_taken(const struct mib_names *reg, const char *name)
{
	struct mib_name_entry key = {.name = (char *)name};

	return tfind(&key, &reg->by_name, by_name) != NULL;
}

/* FNV-1a, to keep shortened names distinct and stable. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Cuts @buf to @max characters, the last 5 a hash of the whole ("h1f2e3"). */
static void shorten(char *buf, size_t max)
{
	if (strlen(buf) <= max)
		return;
	snprintf(buf + max - 5, 6, "h%04x", (unsigned)(name_hash(buf) & 0xffff));
}

static void free_entry(struct mib_name_entry *e)
{
	if (e != NULL) {
		free(e->name);
		free(e->natural);
	}
	free(e);
}

/*
 * Indexes a new entry under its name (never taken: make_unique()) and,
 * unless an earlier one holds it, its natural form; the first entry found
 * holding it makes the clash of struct mib_names.
 */
static bool index_entry(struct mib_names *reg, struct mib_name_entry *e)
{
	struct mib_name_entry **held = tsearch(e, &reg->by_natural, by_natural);

	if (held == NULL || tsearch(e, &reg->by_name, by_name) == NULL)
		return false;
	if (*held != e && !reg->clashed) {
		reg->clashed = true;
		reg->clash[0] = (*held)->index;
		reg->clash[1] = e->index;
	}
	return true;
}

static const char *register_name(struct mib_names *reg, const char *name, const char *natural)
{
	struct mib_name_entry **v = realloc(reg->v, (reg->n + 1) * sizeof(*v));
	struct mib_name_entry *e = calloc(1, sizeof(*e));

	if (v != NULL)
		reg->v = v;
	if (v == NULL || e == NULL) {
		free(e);
		return NULL;
	}
	*e = (struct mib_name_entry){strdup(name), strdup(natural), reg->owner, reg->n};
	if (e->name == NULL || e->natural == NULL) {
		free_entry(e);
		return NULL;
	}
	v[reg->n++] = e; /* freed by mib_names_free() from here on */
	return index_entry(reg, e) ? e->name : NULL;
}

/*
 * "N2", "N3", ... after @name (@base characters), or over its end once the
 * descriptor would pass MAX_DESCRIPTOR: every number gives another name,
 * so at most reg->n + 1 tries find a free one.
 */
static void make_unique(const struct mib_names *reg, char *name, size_t base)
{
	for (unsigned i = 2; name_taken(reg, name); i++) {
		char tail[16];
		size_t len = (size_t)snprintf(tail, sizeof(tail), "N%u", i);
		size_t at = base + len > MAX_DESCRIPTOR ? MAX_DESCRIPTOR - len : base;

		memcpy(name + at, tail, len + 1);
	}
}

/*
 * A descriptor from @nparts strings, each camel-cased: ("dataplane",
 * "ifStats", "Entry") -> "dataplaneIfStatsEntry".  The last part is kept
 * whole (up to 32 characters) when the name must be shortened, so "Table"
 * and "Entry" stay where smilint looks for them.  Unique ignoring case,
 * so that an entry's SEQUENCE type can be its name capitalised.  The
 * configuration's names start with a letter, and so does the result.
 */
const char *mib_name(struct mib_names *reg, int nparts, ...)
{
	char prefix[512] = "", suffix[256] = "", name[sizeof(prefix) + sizeof(suffix) + 4];
	char natural[sizeof(name)];
	va_list ap;

	va_start(ap, nparts);
	for (int i = 0; i < nparts; i++)
		append_camel(i + 1 < nparts ? prefix : suffix,
		             i + 1 < nparts ? sizeof(prefix) : sizeof(suffix),
		             va_arg(ap, const char *));
	va_end(ap);
	snprintf(natural, sizeof(natural), "%s%s", prefix, suffix);
	shorten(suffix, MAX_DESCRIPTOR / 2);
	shorten(prefix, MAX_DESCRIPTOR - strlen(suffix) - 3);
	snprintf(name, sizeof(name), "%s%s", prefix, suffix);
	name[0] = (char)tolower((unsigned char)name[0]);
	make_unique(reg, name, strlen(name));
	return register_name(reg, name, natural);
}

/* The trees hold no storage of their own but their nodes: the entries are v's. */
static void keep(void *entry)
{
	(void)entry;
}

void mib_names_free(struct mib_names *reg)
{
	tdestroy(reg->by_name, keep);
	tdestroy(reg->by_natural, keep);
	for (size_t i = 0; i < reg->n; i++)
		free_entry(reg->v[i]);
	free(reg->v);
	*reg = (struct mib_names){.v = NULL};
}

/*
 * @configured (agent.mib_module) when set, else
 * "STATCTR-<SEGMENT>-<SEGMENT>-MIB", uppercase, single hyphens, <= 64.
 */
void mib_module_name(const struct statctr_config *cfg, const char *configured, char *buf,
                     size_t size)
{
	size_t len, limit = size - sizeof("-MIB") < 64 - 4 ? size - sizeof("-MIB") : 64 - 4;

	if (configured != NULL) {
		snprintf(buf, size, "%s", configured);
		return;
	}
	len = (size_t)snprintf(buf, size, "STATCTR");
	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		for (const char *p = cfg->segments[i].name; *p && len < limit; p++) {
			bool alnum = is_alnum((unsigned char)*p);

			if (!alnum && buf[len - 1] == '-')
				continue;
			if (alnum && (p == cfg->segments[i].name) && buf[len - 1] != '-')
				buf[len++] = '-';
			buf[len++] = alnum ? (char)toupper((unsigned char)*p) : '-';
		}
	}
	while (buf[len - 1] == '-')
		len--;
	snprintf(buf + len, size - len, "-MIB");
}

/* ---- the descriptors of one module ------------------------------------ */

static bool table_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                             const struct statctr_table_decl *t, struct mib_table_names *n)
{
	reg->owner = t;
	n->table = mib_name(reg, 3, seg->name, t->name, "Table");
	n->entry = mib_name(reg, 3, seg->name, t->name, "Entry");
	n->group = mib_name(reg, 3, seg->name, t->name, "Group");
	const char **const fixed[MIB_DATA_NCOLUMNS] = {&n->row_index, &n->row_name, &n->disc,
	                                               &n->reset};

	for (size_t i = 0; i < MIB_DATA_NCOLUMNS; i++)
		*fixed[i] = mib_name(reg, 3, seg->name, t->name, mib_data_columns[i].suffix);
	n->columns = calloc(t->ncolumns, sizeof(*n->columns));
	if (n->columns == NULL)
		return false;
	for (uint32_t c = 0; c < t->ncolumns; c++) {
		reg->owner = &t->columns[c];
		n->columns[c] = mib_name(reg, 3, seg->name, t->name, t->columns[c].name);
		if (n->columns[c] == NULL)
			return false;
	}
	return n->table && n->entry && n->group && n->row_index && n->row_name && n->disc &&
	       n->reset;
}

static bool hist_names_init(struct mib_names *reg, const char *seg, const char *table,
                            const char *column, struct mib_hist_names *h)
{
	const char *const parts[] = {seg, table, column};
	const char **const out[] = {
	    &h->node,         &h->bucket_table, &h->bucket_entry,  &h->bucket_index,
	    &h->bucket_bound, &h->bucket_count, &h->summary_table, &h->summary_entry,
	    &h->count,        &h->sum};
	const char *const suffixes[] = {"Histogram",
	                                "BucketTable",
	                                "BucketEntry",
	                                mib_hist_bucket_columns[0].suffix,
	                                mib_hist_bucket_columns[1].suffix,
	                                mib_hist_bucket_columns[2].suffix,
	                                "SummaryTable",
	                                "SummaryEntry",
	                                mib_hist_summary_columns[0].suffix,
	                                mib_hist_summary_columns[1].suffix};

	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		*out[i] = mib_name(reg, 4, parts[0], parts[1], parts[2], suffixes[i]);
		if (*out[i] == NULL)
			return false;
	}
	return true;
}

static bool has_histogram(const struct statctr_table_decl *t)
{
	for (uint32_t c = 0; c < t->ncolumns; c++)
		if (t->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			return true;
	return false;
}

/* The histogram nodes of segment @s: after every table's names (names.h). */
static bool seg_hist_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                                struct mib_seg_names *sn)
{
	for (uint32_t t = 0; t < seg->ntables; t++) {
		const struct statctr_table_decl *td = &seg->tables[t];
		struct mib_table_names *tn = &sn->tables[t];

		if (!has_histogram(td))
			continue;
		reg->owner = seg;
		if (sn->hist_node == NULL)
			sn->hist_node = mib_name(reg, 2, seg->name, "SegmentHistograms");
		reg->owner = td;
		tn->hist_node = mib_name(reg, 3, seg->name, td->name, "Histograms");
		tn->hists = calloc(td->ncolumns, sizeof(*tn->hists));
		if (sn->hist_node == NULL || tn->hist_node == NULL || tn->hists == NULL)
			return false;
		for (uint32_t c = 0; c < td->ncolumns; c++) {
			reg->owner = &td->columns[c];
			if (td->columns[c].kind == STATCTR_KIND_HISTOGRAM &&
			    !hist_names_init(reg, seg->name, td->name, td->columns[c].name,
			                     &tn->hists[c]))
				return false;
		}
	}
	return true;
}

/* Whether table @t has an interval table in a segment with epochs: a column counts. */
bool mib_has_intervals(const struct statctr_segment_decl *seg, const struct statctr_table_decl *t)
{
	for (uint32_t c = 0; seg->epoch_keep && c < t->ncolumns; c++)
		if (t->columns[c].kind != STATCTR_KIND_GAUGE)
			return true;
	return false;
}

static bool hist_interval_names_init(struct mib_names *reg, const char *seg, const char *table,
                                     const char *column, struct mib_hist_interval_names *h)
{
	h->table = mib_name(reg, 4, seg, table, column, "IntervalBucketTable");
	h->entry = mib_name(reg, 4, seg, table, column, "IntervalBucketEntry");
	h->count = mib_name(reg, 4, seg, table, column, mib_hist_interval_columns[0].suffix);
	return h->table && h->entry && h->count;
}

/* Segment @seg's node *@nodep (<seg>@suffix), named the first time a table needs it. */
static bool seg_node_once(struct mib_names *reg, const struct statctr_segment_decl *seg,
                          const char **nodep, const char *suffix)
{
	reg->owner = seg;
	if (*nodep == NULL)
		*nodep = mib_name(reg, 2, seg->name, suffix);
	return *nodep != NULL;
}

static bool interval_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                                const struct statctr_table_decl *td, struct mib_interval_names *iv)
{
	reg->owner = td;
	iv->table = mib_name(reg, 3, seg->name, td->name, "IntervalTable");
	iv->entry = mib_name(reg, 3, seg->name, td->name, "IntervalEntry");
	iv->epoch = mib_name(reg, 3, seg->name, td->name, mib_interval_columns[0].suffix);
	iv->valid = mib_name(reg, 3, seg->name, td->name, mib_interval_columns[1].suffix);
	iv->counts = calloc(td->ncolumns, sizeof(*iv->counts));
	iv->hists = calloc(td->ncolumns, sizeof(*iv->hists));
	if (!iv->table || !iv->entry || !iv->epoch || !iv->valid || !iv->counts || !iv->hists)
		return false;
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		reg->owner = &td->columns[c];
		if (td->columns[c].kind != STATCTR_KIND_GAUGE &&
		    !(iv->counts[c] =
		          mib_name(reg, 4, seg->name, td->name, td->columns[c].name, "Interval")))
			return false;
		if (td->columns[c].kind == STATCTR_KIND_HISTOGRAM &&
		    !hist_interval_names_init(reg, seg->name, td->name, td->columns[c].name,
		                              &iv->hists[c]))
			return false;
	}
	return true;
}

/* The interval tables of segment @s: after every histogram's names (names.h). */
static bool seg_interval_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                                    struct mib_seg_names *sn)
{
	for (uint32_t t = 0; t < seg->ntables; t++)
		if (mib_has_intervals(seg, &seg->tables[t]) &&
		    (!seg_node_once(reg, seg, &sn->interval_node, "SegmentIntervals") ||
		     !interval_names_init(reg, seg, &seg->tables[t], &sn->tables[t].iv)))
			return false;
	return true;
}

static bool byname_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                              const struct statctr_table_decl *td, struct mib_byname_names *bn)
{
	const char **const fixed[MIB_BYNAME_NCOLUMNS] = {&bn->key, &bn->row_index, &bn->disc};

	reg->owner = td;
	bn->table = mib_name(reg, 3, seg->name, td->name, "ByNameTable");
	bn->entry = mib_name(reg, 3, seg->name, td->name, "ByNameEntry");
	for (size_t i = 0; i < MIB_BYNAME_NCOLUMNS; i++)
		if (!(*fixed[i] =
		          mib_name(reg, 3, seg->name, td->name, mib_byname_columns[i].suffix)))
			return false;
	bn->columns = calloc(td->ncolumns, sizeof(*bn->columns));
	if (!bn->table || !bn->entry || !bn->columns)
		return false;
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		reg->owner = &td->columns[c];
		if (!(bn->columns[c] =
		          mib_name(reg, 4, seg->name, td->name, "ByName", td->columns[c].name)))
			return false;
	}
	return true;
}

/* The by-name tables of segment @s's dynamic tables: after every other name (names.h). */
static bool seg_byname_names_init(struct mib_names *reg, const struct statctr_segment_decl *seg,
                                  struct mib_seg_names *sn)
{
	for (uint32_t t = 0; t < seg->ntables; t++)
		if (seg->tables[t].dynamic &&
		    (!seg_node_once(reg, seg, &sn->byname_node, "SegmentRowsByName") ||
		     !byname_names_init(reg, seg, &seg->tables[t], &sn->tables[t].bn)))
			return false;
	return true;
}

bool mib_module_names_init(struct mib_module_names *n, const struct statctr_config *cfg)
{
	const char *first = cfg->segments[0].name;

	*n = (struct mib_module_names){.reg = {.v = NULL}};
	n->segs = calloc(cfg->nsegments, sizeof(*n->segs));
	/* Reserve what the module imports. */
	if (n->segs == NULL || !mib_name(&n->reg, 1, "statctrData") ||
	    !mib_name(&n->reg, 1, "statctrIntervals") ||
	    !mib_name(&n->reg, 1, "statctrRowsByName") || !mib_name(&n->reg, 1, "statctrMIB"))
		return false;
	n->reg.owner = &cfg->segments[0]; /* the module's own names derive from it */
	n->modid = mib_name(&n->reg, 2, first, "MIB");
	n->compliances = mib_name(&n->reg, 2, first, "MIBCompliances");
	n->groups = mib_name(&n->reg, 2, first, "MIBGroups");
	n->compliance = mib_name(&n->reg, 2, first, "MIBCompliance");
	for (uint32_t s = 0; s < cfg->nsegments; s++) {
		const struct statctr_segment_decl *seg = &cfg->segments[s];

		n->reg.owner = seg;
		n->segs[s].node = mib_name(&n->reg, 2, seg->name, "Segment");
		n->segs[s].tables = calloc(seg->ntables, sizeof(*n->segs[s].tables));
		if (n->segs[s].node == NULL || n->segs[s].tables == NULL)
			return false;
		for (uint32_t t = 0; t < seg->ntables; t++)
			if (!table_names_init(&n->reg, seg, &seg->tables[t], &n->segs[s].tables[t]))
				return false;
	}
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		if (!seg_hist_names_init(&n->reg, &cfg->segments[s], &n->segs[s]))
			return false;
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		if (!seg_interval_names_init(&n->reg, &cfg->segments[s], &n->segs[s]))
			return false;
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		if (!seg_byname_names_init(&n->reg, &cfg->segments[s], &n->segs[s]))
			return false;
	n->reg.owner = NULL; /* what the module names later is its own */
	return n->modid && n->compliances && n->groups && n->compliance;
}

void mib_module_names_free(struct mib_module_names *n, const struct statctr_config *cfg)
{
	for (uint32_t s = 0; n->segs != NULL && s < cfg->nsegments; s++) {
		for (uint32_t t = 0; n->segs[s].tables && t < cfg->segments[s].ntables; t++) {
			free(n->segs[s].tables[t].columns);
			free(n->segs[s].tables[t].hists);
			free(n->segs[s].tables[t].iv.counts);
			free(n->segs[s].tables[t].iv.hists);
			free(n->segs[s].tables[t].bn.columns);
		}
		free(n->segs[s].tables);
	}
	free(n->segs);
	n->segs = NULL;
	mib_names_free(&n->reg);
}

/* ---- check-config: no two objects collide ------------------------------ */

/* Where @owner is in @cfg: its segment, table and column (SETTINGS_NONE when not one). */
static void locate(const struct statctr_config *cfg, const void *owner, uint32_t at[3])
{
	at[0] = at[1] = at[2] = SETTINGS_NONE;
	for (uint32_t s = 0; owner && s < cfg->nsegments; s++) {
		const struct statctr_segment_decl *seg = &cfg->segments[s];

		if (owner == seg)
			at[0] = s;
		for (uint32_t t = 0; t < seg->ntables; t++) {
			if (owner == &seg->tables[t]) {
				at[0] = s;
				at[1] = t;
			}
			for (uint32_t c = 0; c < seg->tables[t].ncolumns; c++)
				if (owner == &seg->tables[t].columns[c]) {
					at[0] = s;
					at[1] = t;
					at[2] = c;
				}
		}
	}
}

/* "column \"x\" of table \"t\" of segment \"s\"", "segment \"s\"", "the module". */
static void describe(const struct statctr_config *cfg, const uint32_t at[3], char *buf, size_t size)
{
	const struct statctr_segment_decl *seg =
	    at[0] != SETTINGS_NONE ? &cfg->segments[at[0]] : NULL;
	size_t len = 0;

	if (seg == NULL) {
		snprintf(buf, size, "an object the module imports from STATCTR-MIB");
		return;
	}
	if (at[2] != SETTINGS_NONE)
		len += (size_t)snprintf(buf, size, "column \"%s\" of ",
		                        seg->tables[at[1]].columns[at[2]].name);
	if (at[1] != SETTINGS_NONE)
		len += (size_t)snprintf(buf + len, size - len, "table \"%s\" of ",
		                        seg->tables[at[1]].name);
	snprintf(buf + len, size - len, "segment \"%s\"", seg->name);
}

static int report_clash(const struct statctr_config *cfg, const struct mib_names *reg)
{
	uint32_t first[3], second[3];
	char a[256], b[256];

	locate(cfg, reg->v[reg->clash[0]]->owner, first);
	locate(cfg, reg->v[reg->clash[1]]->owner, second);
	describe(cfg, first, a, sizeof(a));
	describe(cfg, second, b, sizeof(b));
	return statctr_config_error(
	    cfg, settings_decl_setting(cfg, second[0], second[1], second[2]), EINVAL,
	    "SMI descriptor \"%s\" of %s is also that of %s (names that differ only in case or in "
	    "'-' and '_' fold to one descriptor): rename one",
	    reg->v[reg->clash[0]]->name, b, a);
}

int mib_names_check(const struct statctr_config *cfg)
{
	struct mib_module_names n;
	int err = 0;

	if (!mib_module_names_init(&n, cfg))
		err = statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	else if (n.reg.clashed)
		err = report_clash(cfg, &n.reg);
	mib_module_names_free(&n, cfg);
	return err;
}
