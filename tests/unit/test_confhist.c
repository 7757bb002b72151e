/*
 * test_confhist.c - lib/confhist.c: a histogram column's `buckets` read
 * into its bounds (explicit and exponential, up to 2^63), refused with the
 * exact "FILE:LINE: SETTING: what" where docs/config.md, "Histograms",
 * says so, and conf_hist_cells(), the block cells a table's histograms
 * take.  Whole files with histograms are in test_config.c.
 */
#include "confutil.h"

/* conf_get_buckets() of @text's column "c", of kind @kind; *col receives it. */
static int buckets_of(const char *text, enum statctr_kind kind, struct statctr_column_decl *col)
{
	const config_setting_t *root = cf_parse(text);

	memset(col, 0, sizeof(*col));
	col->kind = kind;
	return conf_get_buckets("t.conf", config_setting_get_member(root, "c"), col);
}

/* Asserts that histogram column "c" of @text has exactly the @n bounds @want. */
static void expect_bounds(const char *text, uint32_t n, const uint64_t *want)
{
	struct statctr_column_decl col;
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(buckets_of(text, STATCTR_KIND_HISTOGRAM, &col), 0);
	CU_ASSERT_EQUAL_FATAL(col.nbuckets, n);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(col.bounds[i], want[i]);
	free((void *)col.bounds);
}

static void explicit_bounds_are_read_as_given(void)
{
	static const uint64_t want[] = {0, 5, 10, INT64_MAX};

	expect_bounds("c = { buckets = [ 0L, 5L, 10L, 9223372036854775807L ]; };", 4, want);
}

static void exponential_bounds_are_start_times_factor_powers(void)
{
	static const uint64_t want[] = {3, 12, 48, 192, 768};
	uint64_t powers[STATCTR_MAX_BUCKETS];
	uint32_t i;

	expect_bounds("c = { buckets = { start = 3; factor = 4; count = 5; }; };", 5, want);
	for (i = 0; i < STATCTR_MAX_BUCKETS; i++)
		powers[i] = 1ull << i;
	expect_bounds("c = { buckets = { start = 1; factor = 2; count = 64; }; };",
	              STATCTR_MAX_BUCKETS, powers);
}

static void other_kinds_have_no_buckets(void)
{
	struct statctr_column_decl col;

	CU_ASSERT_EQUAL(buckets_of("c = { kind = \"counter\"; };", STATCTR_KIND_COUNTER, &col), 0);
	CU_ASSERT_EQUAL(col.nbuckets, 0);
	CU_ASSERT_PTR_NULL(col.bounds);
	cf_expect(buckets_of("c = {\n  kind = \"gauge\";\n  buckets = [ 1 ];\n};",
	                     STATCTR_KIND_GAUGE, &col),
	          "t.conf:3: c.buckets: only a column of kind \"histogram\" has buckets");
	cf_expect(buckets_of("c = { kind = \"histogram\"; };", STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets: missing (required for kind \"histogram\")");
}

static void bad_bounds_are_refused_where_they_are(void)
{
	struct statctr_column_decl col;

	cf_expect(buckets_of("c = {\n  buckets = [ 1,\n    5,\n    5 ];\n};",
	                     STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:4: c.buckets.[2]: bound 5 is not above the bound before it, [1] = 5 "
	          "(bounds must be strictly ascending)");
	free((void *)col.bounds);
	cf_expect(buckets_of("c = { buckets = [ -1 ]; };", STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets.[0]: bound -1 is negative");
	free((void *)col.bounds);
	cf_expect(buckets_of("c = { buckets = \"1, 2\"; };", STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets: expected an array [ ... ] of bounds or a group { start; "
	          "factor; count; }, not a string");
	free((void *)col.bounds);
	cf_expect(buckets_of("c = { buckets = { start = 1; factor = 1; count = 4; }; };",
	                     STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets.factor: 1 is out of range (2..18446744073709551615)");
	free((void *)col.bounds);
	cf_expect(buckets_of("c = { buckets = { start = 3; factor = 2; count = 64; }; };",
	                     STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets.count: bound 63 = 3 x 2^63 does not fit in 64 bits");
	free((void *)col.bounds);
	cf_expect(buckets_of("c = { buckets = { start = 1; factor = 2; cnt = 4; }; };",
	                     STATCTR_KIND_HISTOGRAM, &col),
	          "t.conf:1: c.buckets.cnt: unknown setting (known: start, factor, count)");
	free((void *)col.bounds);
}

/* 3 rows: a counter, histograms of 4 and 1 buckets: (4 + 2) + (1 + 2) cells a row. */
static void a_tables_histograms_take_nbuckets_plus_2_cells_a_row(void)
{
	const struct statctr_column_decl columns[] = {
	    {.name = "c", .kind = STATCTR_KIND_COUNTER},
	    {.name = "h", .kind = STATCTR_KIND_HISTOGRAM, .nbuckets = 4},
	    {.name = "g", .kind = STATCTR_KIND_HISTOGRAM, .nbuckets = 1},
	};
	struct statctr_table_decl t = {.name = "t", .nrows = 3, .ncolumns = 3, .columns = columns};

	CU_ASSERT_EQUAL(conf_hist_cells(&t), 3 * 6 + 3 * 3);
	t.ncolumns = 1;
	CU_ASSERT_EQUAL(conf_hist_cells(&t), 0);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"explicit_bounds_are_read_as_given", explicit_bounds_are_read_as_given},
	    {"exponential_bounds_are_start_times_factor_powers",
	     exponential_bounds_are_start_times_factor_powers},
	    {"other_kinds_have_no_buckets", other_kinds_have_no_buckets},
	    {"bad_bounds_are_refused_where_they_are", bad_bounds_are_refused_where_they_are},
	    {"a_tables_histograms_take_nbuckets_plus_2_cells_a_row",
	     a_tables_histograms_take_nbuckets_plus_2_cells_a_row},
	    {NULL, NULL},
	};
	int rc = tu_run("confhist", cases);

	cf_cleanup();
	return rc;
}
