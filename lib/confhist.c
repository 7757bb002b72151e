/*
 * confhist.c - a histogram column's `buckets` setting -> its bounds.
 *
 * Owns the rules of docs/config.md, "Histograms": `buckets` is required
 * with kind "histogram" and refused with any other kind; it is either an
 * array of explicit bounds or a group { start; factor; count; } of
 * exponential ones.  Either way the bounds are integers >= 0 that fit in
 * 64 bits, strictly ascending, 1..STATCTR_MAX_BUCKETS of them.  The result
 * is a bounds array the declaration owns (config.c frees it).  Never
 * touches segments.
 */
#include "confread.h"

#include <errno.h>
#include <stdlib.h>

static const char *const exponential_keys[] = {"start", "factor", "count", NULL};

/* A required integer member of @group in @min..@max (64-bit). */
static int get_u64(const char *path, const config_setting_t *group, const char *key, uint64_t min,
                   uint64_t max, uint64_t *valp)
{
	const config_setting_t *s;
	long long val;
	int err = conf_member(path, group, key, CONFIG_TYPE_INT, true, &s);

	if (err)
		return err;
	val = config_setting_get_int64(s);
	if (val < 0 || (uint64_t)val < min || (uint64_t)val > max)
		return conf_fail(path, group, key, "%lld is out of range (%llu..%llu)", val,
		                 (unsigned long long)min, (unsigned long long)max);
	*valp = (uint64_t)val;
	return 0;
}

/* buckets = [ b0, b1, ... ]: integers >= 0, strictly ascending. */
static int parse_explicit(const char *path, const config_setting_t *buckets, uint64_t *bounds,
                          uint32_t *np)
{
	int n = config_setting_length(buckets), i;

	if (n < 1 || (unsigned)n > STATCTR_MAX_BUCKETS)
		return conf_fail(path, buckets, NULL, "%d buckets, expected 1..%u", n,
		                 STATCTR_MAX_BUCKETS);
	for (i = 0; i < n; i++) {
		const config_setting_t *el = config_setting_get_elem(buckets, (unsigned)i);
		int type = config_setting_type(el);
		long long val;

		if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
			return conf_fail(path, el, NULL, "expected an integer, not %s",
			                 conf_type_name(type));
		val = config_setting_get_int64(el);
		if (val < 0)
			return conf_fail(path, el, NULL, "bound %lld is negative", val);
		bounds[i] = (uint64_t)val;
		if (i > 0 && bounds[i] <= bounds[i - 1])
			return conf_fail(path, el, NULL,
			                 "bound %llu is not above the bound before it, [%d] = %llu "
			                 "(bounds must be strictly ascending)",
			                 (unsigned long long)bounds[i], i - 1,
			                 (unsigned long long)bounds[i - 1]);
	}
	*np = (uint32_t)n;
	return 0;
}

/* buckets = { start = S; factor = F; count = N; }: S, S*F, ..., S*F^(N-1). */
static int parse_exponential(const char *path, const config_setting_t *buckets, uint64_t *bounds,
                             uint32_t *np)
{
	uint64_t start, factor, count, i;
	int err = conf_check_keys(path, buckets, exponential_keys);

	if (!err)
		err = get_u64(path, buckets, "start", 1, UINT64_MAX, &start);
	/* factor 1 would repeat the start: bounds must be strictly ascending. */
	if (!err)
		err = get_u64(path, buckets, "factor", 2, UINT64_MAX, &factor);
	if (!err)
		err = get_u64(path, buckets, "count", 1, STATCTR_MAX_BUCKETS, &count);
	if (err)
		return err;
	bounds[0] = start;
	for (i = 1; i < count; i++) {
		if (bounds[i - 1] > UINT64_MAX / factor)
			return conf_fail(path, buckets, "count",
			                 "bound %llu = %llu x %llu^%llu does not fit in 64 bits",
			                 (unsigned long long)i, (unsigned long long)start,
			                 (unsigned long long)factor, (unsigned long long)i);
		bounds[i] = bounds[i - 1] * factor;
	}
	*np = (uint32_t)count;
	return 0;
}

static int parse_buckets(const char *path, const config_setting_t *buckets,
                         struct statctr_column_decl *col)
{
	uint64_t *bounds = calloc(STATCTR_MAX_BUCKETS, sizeof(*bounds));
	int type = config_setting_type(buckets), err;

	if (!bounds)
		return conf_no_memory();
	col->bounds = bounds;
	if (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST)
		err = parse_explicit(path, buckets, bounds, &col->nbuckets);
	else if (type == CONFIG_TYPE_GROUP)
		err = parse_exponential(path, buckets, bounds, &col->nbuckets);
	else
		err = conf_fail(path, buckets, NULL,
		                "expected an array [ ... ] of bounds or a group { start; factor; "
		                "count; }, not %s",
		                conf_type_name(type));
	return err;
}

int conf_get_buckets(const char *path, const struct config_setting_t *column,
                     struct statctr_column_decl *col)
{
	const config_setting_t *buckets = config_setting_get_member(column, "buckets");

	if (col->kind != STATCTR_KIND_HISTOGRAM) {
		if (buckets)
			return conf_fail(path, column, "buckets",
			                 "only a column of kind \"histogram\" has buckets");
		return 0;
	}
	if (!buckets)
		return conf_fail(path, column, "buckets",
		                 "missing (required for kind \"histogram\")");
	return parse_buckets(path, buckets, col);
}

uint64_t conf_hist_cells(const struct statctr_table_decl *t)
{
	uint64_t cells = 0;
	uint32_t c;

	for (c = 0; c < t->ncolumns; c++)
		if (t->columns[c].kind == STATCTR_KIND_HISTOGRAM)
			cells += (uint64_t)t->nrows * hist_block_cells(t->columns[c].nbuckets);
	return cells;
}
