/*
 * test_meta.c - lib/meta.c: a crafted, truncated or randomly corrupted
 * segment is refused with the right error and never crashes a reader, one
 * test per rule of docs/segment-format.md that meta.c checks on its private
 * copy: the header field by field, the canonical layout, the strings, the
 * table, column and row-name records, the dynamic tables' row directory,
 * the histograms' bounds and bucket numbering.
 */
#include "corruptutil.h"

/* A valid segment with a static table "s" and dynamic tables "d1" (max 2)
 * and "d2" (max 3); with_image(dyn_image, ...) makes it the image patched. */
static uint8_t *dyn_image;
static size_t dyn_image_size;
/* A valid segment with histograms: static "s" (2 rows: counter "c",
 * histogram "h" [1, 5, 10]) and dynamic "d" (max 2: histogram "g" [7]);
 * with_image(hist_image, ...) makes it the image patched. */
static uint8_t *hist_image;
static size_t hist_image_size;

/* The reference segments beside the image (built before CUnit runs). */
static int make_images(void)
{
	return capture(
	           "{ name = \"s\"; rows = 2; columns = ( { name = \"c\"; kind = \"counter\"; } ); "
	           "}, { name = \"d1\"; rows = { max = 2; }; columns = ( { name = \"c\"; kind = "
	           "\"counter\"; }, { name = \"g\"; kind = \"gauge\"; } ); }, { name = \"d2\"; "
	           "rows = { max = 3; }; columns = ( { name = \"c\"; kind = \"counter\"; } ); }",
	           &dyn_image, &dyn_image_size) ||
	       capture(
	           "{ name = \"s\"; rows = 2; columns = ( { name = \"c\"; kind = \"counter\"; }, "
	           "{ name = \"h\"; kind = \"histogram\"; buckets = [ 1, 5, 10 ]; } ); }, "
	           "{ name = \"d\"; rows = { max = 2; }; columns = ( { name = \"g\"; kind = "
	           "\"histogram\"; buckets = [ 7 ]; } ); }",
	           &hist_image, &hist_image_size);
}

/* Writes @size bytes of @bytes as a segment file and opens a view of it. */
static int open_bytes(const uint8_t *bytes, size_t size)
{
	char path[300];
	struct statctr_view *view;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/crafted", tu_tmpdir());
	f = fopen(path, "wb");
	fwrite(bytes, 1, size, f);
	fclose(f);
	err = tu_view_open(path, &view);
	if (err == 0) {
		struct statctr_snap *snap;

		if (statctr_snap_take(view, &snap) == 0)
			statctr_snap_free(snap);
		statctr_view_close(view);
	}
	unlink(path);
	return err;
}

/* Opens the image with the u32 or u64 at @off replaced by @value. */
static int open_patched(size_t off, uint64_t value, int width)
{
	uint8_t *copy = malloc(image_size);
	int err;

	memcpy(copy, image, image_size);
	if (width == 1) {
		copy[off] = (uint8_t)value;
	} else if (width == 4) {
		uint32_t v = (uint32_t)value;

		memcpy(copy + off, &v, 4);
	} else {
		memcpy(copy + off, &value, 8);
	}
	err = open_bytes(copy, image_size);
	free(copy);
	return err;
}

/* Asserts that the image patched at @off fails with @err, naming @why. */
static void expect_patched(size_t off, uint64_t value, int width, int err, const char *why)
{
	int got = open_patched(off, value, width);

	if (got != err || !strstr(statctr_errmsg(), why))
		fprintf(stderr, "\n    patch @%zu = %llu: %d \"%s\", expected %d \"%s\"\n", off,
		        (unsigned long long)value, got, statctr_errmsg(), err, why);
	CU_ASSERT_EQUAL(got, err);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), why));
}

static const struct seg_header *ref(void)
{
	return (const void *)image;
}

static size_t table_field(uint32_t t, size_t field)
{
	return ref()->tables_off + t * sizeof(struct seg_table) + field;
}

static size_t column_field(uint32_t c, size_t field)
{
	return ref()->columns_off + c * sizeof(struct seg_column) + field;
}

/* The string offset of @text in the image (it must be there). */
static uint32_t string_of(const char *text)
{
	const char *strings = (const char *)image + ref()->strings_off;
	uint32_t off;

	for (off = 1; off < ref()->strings_size; off++)
		if (strings[off - 1] == '\0' && strcmp(strings + off, text) == 0)
			return off;
	CU_FAIL_FATAL("string not in the image");
	return 0;
}

#define FIELD(type, f) offsetof(struct type, f)

/* A name at @off set outside the strings, to "" and to a 255-byte string. */
static void expect_bad_names(size_t off, const char *why)
{
	expect_patched(off, ref()->strings_size, 4, -EPROTO, why);
	expect_patched(off, 0, 4, -EPROTO, why);
	expect_patched(off, string_of(LONG_TEXT), 4, -EPROTO, why);
}

static void valid_image_opens(void)
{
	CU_ASSERT_EQUAL(open_bytes(image, image_size), 0);
}

static void header_fields_are_checked(void)
{
	CU_ASSERT_EQUAL(open_patched(0, 0x4b4b4b4b, 4), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "bad magic"));
	CU_ASSERT_EQUAL(open_patched(8, 1, 4), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "version 1"));
	CU_ASSERT_EQUAL(open_patched(12, 128, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(16, image_size + 64, 8), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "file_size"));
	CU_ASSERT_EQUAL(open_patched(24, 0, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(56, 0, 4), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "nslots"));
	CU_ASSERT_EQUAL(open_patched(56, 1u << 20, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(60, 1u << 30, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(64, 1000000, 4), -EPROTO);
}

static void region_offsets_are_checked(void)
{
	CU_ASSERT_EQUAL(open_patched(88, image_size - 8, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(88, 8, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(112, UINT64_MAX - 10, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(120, UINT64_MAX / 2, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(128, image_size, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(128, 100, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(136, 64, 8), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "slot"));
}

static void records_are_checked(void)
{
	size_t table0 = HEADER_SIZE, column0 = HEADER_SIZE + 2 * sizeof(struct seg_table);

	CU_ASSERT_EQUAL(open_patched(table0 + 0, 1u << 30, 4), -EPROTO); /* name */
	CU_ASSERT_EQUAL(open_patched(table0 + 12, 0, 4), -EPROTO);       /* nrows */
	CU_ASSERT_EQUAL(open_patched(table0 + 16, 99, 4), -EPROTO);      /* ncolumns */
	CU_ASSERT_EQUAL(open_patched(table0 + 24, 77, 4), -EPROTO);      /* first_rowname */
	CU_ASSERT_EQUAL(open_patched(table0 + 28, 5, 4), -EPROTO);       /* overlaps table 1 */
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "overlaps"));
	CU_ASSERT_EQUAL(open_patched(column0 + 12, 7, 4), -EPROTO); /* kind */
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "kind 7"));
}

/* ---- Segment header, field by field. ---- */

static void magic_version_and_header_size_are_exact(void)
{
	expect_patched(FIELD(seg_header, magic), 0x4b4b4b4b, 4, -EPROTO, "bad magic");
	expect_patched(FIELD(seg_header, version), 1, 4, -EINVAL, "version 1");
	expect_patched(FIELD(seg_header, version), 3, 4, -EINVAL,
	               "version 3, this library reads 4");
	expect_patched(FIELD(seg_header, header_size), 128, 4, -EPROTO, "header_size 128");
}

static void file_size_equals_fstat_and_the_canonical_layout(void)
{
	uint8_t *longer = calloc(1, image_size + LINE);
	uint64_t size = image_size + LINE;

	expect_patched(FIELD(seg_header, file_size), image_size + 64, 8, -EPROTO,
	               "file_size field");
	/* Consistent with fstat, not with the counts. */
	memcpy(longer, image, image_size);
	memcpy(longer + FIELD(seg_header, file_size), &size, 8);
	CU_ASSERT_EQUAL(open_bytes(longer, image_size + LINE), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "file_size is"));
	free(longer);
}

static void generation_and_creator_pid_are_set(void)
{
	expect_patched(FIELD(seg_header, generation), 0, 8, -EPROTO, "generation is 0");
	expect_patched(FIELD(seg_header, creator_pid), 0, 4, -EPROTO, "creator_pid 0");
	expect_patched(FIELD(seg_header, creator_pid), 0x80000001u, 4, -EPROTO, "creator_pid");
}

static void state_is_active_or_closed_at_open(void)
{
	expect_patched(FIELD(seg_header, state), 0, 4, -EPROTO, "state 0");
	expect_patched(FIELD(seg_header, state), 3, 4, -EPROTO, "state 3");
	CU_ASSERT_EQUAL(open_patched(FIELD(seg_header, state), SEG_STATE_CLOSED, 4), 0);
}

static void nslots_and_ncells_are_within_the_limits(void)
{
	expect_patched(FIELD(seg_header, nslots), 0, 4, -EPROTO, "nslots 0");
	expect_patched(FIELD(seg_header, nslots), STATCTR_MAX_SLOTS + 1, 4, -EPROTO, "nslots");
	expect_patched(FIELD(seg_header, ncells), 0, 4, -EPROTO, "ncells 0");
	expect_patched(FIELD(seg_header, ncells), STATCTR_MAX_CELLS + 1, 4, -EPROTO, "ncells");
}

static void record_counts_fit_the_cells(void)
{
	uint32_t ncells = ref()->ncells;

	expect_patched(FIELD(seg_header, ntables), 0, 4, -EPROTO, "ntables 0");
	expect_patched(FIELD(seg_header, ntables), ncells + 1, 4, -EPROTO, "ntables");
	expect_patched(FIELD(seg_header, ncolumns), 0, 4, -EPROTO, "ncolumns 0");
	expect_patched(FIELD(seg_header, ncolumns), ncells + 1, 4, -EPROTO, "ncolumns");
	expect_patched(FIELD(seg_header, nrownames), ncells + 1, 4, -EPROTO, "nrownames");
}

static void strings_size_is_bounded_by_the_names_it_could_hold(void)
{
	const struct seg_header *h = ref();
	uint64_t bound = 1 + 64ull * (1 + h->ntables + h->ncolumns) +
	                 1024ull * 2 * (h->ntables + h->ncolumns) + 256ull * h->nrownames;

	expect_patched(FIELD(seg_header, strings_size), 0, 8, -EPROTO, "strings_size 0");
	expect_patched(FIELD(seg_header, strings_size), bound + 1, 8, -EPROTO, "strings_size");
	expect_patched(FIELD(seg_header, strings_size), UINT64_MAX / 2, 8, -EPROTO, "strings_size");
}

static void every_offset_equals_the_canonical_layout(void)
{
	const struct seg_header *h = ref();

	expect_patched(FIELD(seg_header, tables_off), h->tables_off + 4, 8, -EPROTO, "tables_off");
	expect_patched(FIELD(seg_header, columns_off), h->columns_off + 4, 8, -EPROTO,
	               "columns_off");
	expect_patched(FIELD(seg_header, rownames_off), h->rownames_off - 4, 8, -EPROTO,
	               "rownames_off");
	expect_patched(FIELD(seg_header, strings_off), h->strings_off + 4, 8, -EPROTO,
	               "strings_off");
	expect_patched(FIELD(seg_header, slots_off), h->slots_off + LINE, 8, -EPROTO, "slots_off");
	expect_patched(FIELD(seg_header, slot_stride), h->slot_stride + LINE, 8, -EPROTO,
	               "slot_stride");
}

static void segment_name_is_a_string_of_1_to_63_bytes(void)
{
	expect_bad_names(FIELD(seg_header, name), "segment name");
}

/* ---- Strings. ---- */

static void string_region_starts_with_nul(void)
{
	expect_patched(ref()->strings_off, 'x', 1, -EPROTO, "does not start with a NUL");
}

static void string_has_a_nul_before_the_end_of_the_region(void)
{
	uint8_t *copy = malloc(image_size);
	uint32_t last = (uint32_t)ref()->strings_size - 1;

	memcpy(copy, image, image_size);
	copy[ref()->strings_off + last] = 'x';
	memcpy(copy + column_field(0, FIELD(seg_column, units)), &last, 4);
	CU_ASSERT_EQUAL(open_bytes(copy, image_size), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "column record 0: bad description"));
	free(copy);
}

/* Every string is printable ASCII: a control byte, DEL or a byte above 0x7e
 * in a description, a name or a row name refuses the segment. */
static void strings_are_printable_ascii(void)
{
	static const uint8_t bad[] = {0x01, 0x0a, 0x1b, 0x7f, 0x80, 0xff};
	size_t text = ref()->strings_off + string_of(LONG_TEXT) + 7;
	size_t row = ref()->strings_off + string_of("a");
	size_t column = ref()->strings_off + string_of("c");

	for (size_t i = 0; i < sizeof(bad); i++) {
		expect_patched(text, bad[i], 1, -EPROTO, "bad name or description");
		expect_patched(row, bad[i], 1, -EPROTO, "is not 1..255 printable bytes");
		expect_patched(column, bad[i], 1, -EPROTO, "is not 1..63 printable bytes");
	}
	expect_patched(text, ' ', 1, 0, "");
}

/* ---- Table records. ---- */

static void table_name_is_a_string_of_1_to_63_bytes(void)
{
	expect_bad_names(table_field(0, FIELD(seg_table, name)), "table record 0");
}

static void table_names_are_unique(void)
{
	expect_patched(table_field(1, FIELD(seg_table, name)), string_of("named"), 4, -EPROTO,
	               "duplicate table name named");
}

static void table_description_is_a_valid_string(void)
{
	expect_patched(table_field(1, FIELD(seg_table, description)), ref()->strings_size + 9, 4,
	               -EPROTO, "table record 1");
}

static void table_has_rows_and_columns(void)
{
	expect_patched(table_field(1, FIELD(seg_table, nrows)), 0, 4, -EPROTO, "has 0 rows");
	expect_patched(table_field(1, FIELD(seg_table, ncolumns)), 0, 4, -EPROTO, "0 columns");
}

static void table_columns_lie_within_the_column_records(void)
{
	expect_patched(table_field(1, FIELD(seg_table, first_column)), 2, 4, -EPROTO,
	               "beyond 4 column records");
	expect_patched(table_field(1, FIELD(seg_table, ncolumns)), 4, 4, -EPROTO,
	               "beyond 4 column records");
}

static void table_row_names_lie_within_the_row_name_records(void)
{
	expect_patched(table_field(0, FIELD(seg_table, first_rowname)), 1, 4, -EPROTO,
	               "row names 1..+2 beyond 2 records");
	expect_patched(table_field(1, FIELD(seg_table, first_rowname)), 0, 4, -EPROTO,
	               "row names 0..+3 beyond 2 records");
}

static void table_cells_lie_within_ncells(void)
{
	expect_patched(table_field(1, FIELD(seg_table, first_cell)), 3, 4, -EPROTO,
	               "beyond 11 cells");
	expect_patched(table_field(1, FIELD(seg_table, nrows)), UINT32_MAX, 4, -EPROTO,
	               "beyond 11 cells");
}

static void tables_cover_disjoint_cells(void)
{
	expect_patched(table_field(1, FIELD(seg_table, first_cell)), 1, 4, -EPROTO, "overlaps");
}

/* ---- Column records. ---- */

static void column_name_is_a_string_of_1_to_63_bytes(void)
{
	expect_bad_names(column_field(2, FIELD(seg_column, name)), "column record 2: name");
}

static void column_description_and_units_are_valid_strings(void)
{
	expect_patched(column_field(1, FIELD(seg_column, description)), UINT32_MAX, 4, -EPROTO,
	               "column record 1: bad description");
	expect_patched(column_field(1, FIELD(seg_column, units)), ref()->strings_size, 4, -EPROTO,
	               "column record 1: bad description or units");
}

static void column_kind_is_counter_gauge_or_histogram(void)
{
	expect_patched(column_field(0, FIELD(seg_column, kind)), 0, 4, -EPROTO, "kind 0");
	expect_patched(column_field(3, FIELD(seg_column, kind)), 4, 4, -EPROTO, "kind 4");
}

/* ---- Row-name records. ---- */

/* No string of a segment is longer than a row name may be (255): outside, or "". */
static void row_name_is_a_string_of_1_to_255_bytes(void)
{
	expect_patched(ref()->rownames_off + 4, ref()->strings_size, 4, -EPROTO,
	               "row-name record 1");
	expect_patched(ref()->rownames_off + 4, 0, 4, -EPROTO, "row-name record 1");
}

/* ---- Dynamic tables: the row directory's rules. ---- */

/* Runs @checks against reference image @bytes instead of the static one. */
static void with_image(uint8_t *bytes, size_t size, void (*checks)(void))
{
	uint8_t *saved = image;
	size_t saved_size = image_size;

	image = bytes;
	image_size = size;
	checks();
	image = saved;
	image_size = saved_size;
}

static void dynamic_image_opens_with_its_row_directory(void)
{
	CU_ASSERT_EQUAL(ref()->nrowdir, 5);
	CU_ASSERT_EQUAL(ref()->bases_off, ref()->rowdir_off + 5 * ROWDIR_SIZE);
	CU_ASSERT_EQUAL(ref()->slots_off, ref()->bases_off + LINE * 2); /* 9 cells */
	CU_ASSERT_EQUAL(open_bytes(image, image_size), 0);
}

static void nrowdir_is_at_most_ncells(void)
{
	expect_patched(FIELD(seg_header, nrowdir), ref()->ncells + 1, 4, -EPROTO,
	               "nrowdir 10 exceeds ncells");
}

static void row_directory_and_bases_are_where_the_layout_says(void)
{
	expect_patched(FIELD(seg_header, rowdir_off), ref()->rowdir_off + LINE, 8, -EPROTO,
	               "rowdir_off");
	expect_patched(FIELD(seg_header, bases_off), ref()->bases_off - LINE, 8, -EPROTO,
	               "bases_off");
}

static void table_flags_have_only_the_dynamic_bit_and_reserved_is_0(void)
{
	expect_patched(table_field(0, FIELD(seg_table, flags)), 2, 4, -EPROTO, "flags 0x2");
	expect_patched(table_field(1, FIELD(seg_table, reserved)), 1, 8, -EPROTO, "reserved 0x1");
}

static void static_table_has_no_row_directory(void)
{
	expect_patched(table_field(0, FIELD(seg_table, first_rowdir)), 0, 4, -EPROTO,
	               "static table s: first_rowdir 0");
}

static void dynamic_tables_take_disjoint_entries_in_table_order(void)
{
	expect_patched(table_field(1, FIELD(seg_table, first_rowdir)), 1, 4, -EPROTO,
	               "dynamic table d1: first_rowdir 1..+2, expected 0");
	expect_patched(table_field(2, FIELD(seg_table, first_rowdir)), 0, 4, -EPROTO,
	               "dynamic table d2: first_rowdir 0..+3, expected 2");
}

/* Table d2 made static: the directory holds entries no table owns. */
static void nrowdir_equals_the_rows_of_the_dynamic_tables(void)
{
	uint8_t *copy = malloc(image_size);
	uint32_t flags = 0, none = NO_ROWDIR;

	memcpy(copy, image, image_size);
	memcpy(copy + table_field(2, FIELD(seg_table, flags)), &flags, 4);
	memcpy(copy + table_field(2, FIELD(seg_table, first_rowdir)), &none, 4);
	CU_ASSERT_EQUAL(open_bytes(copy, image_size), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(statctr_errmsg(), "nrowdir 5, but the dynamic tables have 2"));
	free(copy);
}

static void dynamic_rules(void)
{
	dynamic_image_opens_with_its_row_directory();
	nrowdir_is_at_most_ncells();
	row_directory_and_bases_are_where_the_layout_says();
	table_flags_have_only_the_dynamic_bit_and_reserved_is_0();
	static_table_has_no_row_directory();
	dynamic_tables_take_disjoint_entries_in_table_order();
	nrowdir_equals_the_rows_of_the_dynamic_tables();
}

static void row_directory_rules_are_checked(void)
{
	with_image(dyn_image, dyn_image_size, dynamic_rules);
}

/* ---- Histograms: column records, bounds and the bucket cells' numbering. ---- */

static void hist_image_opens_with_its_bounds_and_blocks(void)
{
	const uint64_t *bounds = (const void *)(image + ref()->bounds_off);

	CU_ASSERT_EQUAL(ref()->nbounds, 4);
	CU_ASSERT_EQUAL(ref()->bounds_off, ref()->columns_off + 3 * sizeof(struct seg_column));
	CU_ASSERT_EQUAL(ref()->rownames_off, ref()->bounds_off + 4 * 8);
	CU_ASSERT_EQUAL(bounds[0], 1);
	CU_ASSERT_EQUAL(bounds[3], 7);
	/* Grids 2 x 2 + 2 x 1, then blocks (sum + buckets + 1) of 2 x (1 + 3 + 1)
	 * and 2 x (1 + 1 + 1) cells. */
	CU_ASSERT_EQUAL(ref()->ncells, 6 + 10 + 6);
	CU_ASSERT_EQUAL(open_bytes(image, image_size), 0);
}

static void hist_records_are_checked(void)
{
	uint64_t bounds = ref()->bounds_off;

	expect_patched(column_field(1, FIELD(seg_column, nbuckets)), 0, 4, -EPROTO,
	               "column record 1: nbuckets 0 out of range 1..64");
	expect_patched(column_field(1, FIELD(seg_column, nbuckets)), 65, 4, -EPROTO,
	               "nbuckets 65 out of range");
	expect_patched(column_field(1, FIELD(seg_column, nbuckets)), 2, 4, -EPROTO,
	               "column record 2: first_bound 3..+1, expected 2");
	expect_patched(column_field(2, FIELD(seg_column, first_bound)), 2, 4, -EPROTO,
	               "first_bound 2..+1, expected 3");
	expect_patched(column_field(0, FIELD(seg_column, nbuckets)), 1, 4, -EPROTO,
	               "column record 0 of kind 1: nbuckets 1");
	expect_patched(column_field(0, FIELD(seg_column, first_block)), 6, 4, -EPROTO,
	               "first_block 6, expected 0");
	expect_patched(column_field(1, FIELD(seg_column, reserved)), 1, 4, -EPROTO,
	               "reserved 0x1 not 0");
	expect_patched(column_field(1, FIELD(seg_column, kind)), 4, 4, -EPROTO, "kind 4");
	expect_patched(bounds + 8, 1, 8, -EPROTO, "bound 1 (1) is not above bound 0 (1)");
	expect_patched(bounds + 16, 2, 8, -EPROTO, "bound 2 (2) is not above bound 1 (5)");
}

static void hist_blocks_follow_the_canonical_numbering(void)
{
	expect_patched(column_field(1, FIELD(seg_column, first_block)), 7, 4, -EPROTO,
	               "column h: first_block 7, expected 6");
	expect_patched(column_field(1, FIELD(seg_column, first_block)), 0, 4, -EPROTO,
	               "first_block 0, expected 6");
	/* g's blocks numbered as if h's had no sum cell (nbuckets + 1 each). */
	expect_patched(column_field(2, FIELD(seg_column, first_block)), 14, 4, -EPROTO,
	               "column g: first_block 14, expected 16");
	expect_patched(column_field(2, FIELD(seg_column, first_block)), 17, 4, -EPROTO,
	               "column g: first_block 17, expected 16");
}

static void hist_header_fields_are_canonical(void)
{
	expect_patched(FIELD(seg_header, bounds_off), ref()->bounds_off + 8, 8, -EPROTO,
	               "bounds_off is");
	expect_patched(FIELD(seg_header, nbounds), 3, 4, -EPROTO, "the canonical layout says");
	expect_patched(FIELD(seg_header, nbounds), 3 * 64 + 1, 4, -EPROTO,
	               "nbounds 193 exceeds 64 per column record");
}

static void hist_rules(void)
{
	hist_image_opens_with_its_bounds_and_blocks();
	hist_records_are_checked();
	hist_blocks_follow_the_canonical_numbering();
	hist_header_fields_are_canonical();
}

static void histogram_rules_are_checked(void)
{
	with_image(hist_image, hist_image_size, hist_rules);
}

/* "named" made dynamic keeps its row names: refused. */
static void dynamic_table_has_no_declared_row_names(void)
{
	expect_patched(table_field(0, FIELD(seg_table, flags)), TABLE_DYNAMIC, 4, -EPROTO,
	               "dynamic table named has declared row names");
}

static void truncated_files_are_rejected(void)
{
	size_t cut[] = {0, 1, 100, HEADER_SIZE, HEADER_SIZE + 40, image_size / 2, image_size - 1};
	unsigned i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		CU_ASSERT_EQUAL(open_bytes(image, cut[i]), -EPROTO);
}

static void random_corruption_never_crashes(void)
{
	uint8_t *copy = malloc(image_size);
	uint64_t seed = 12345;
	unsigned i, j, opened = 0, rejected = 0;

	for (i = 0; i < 2000; i++) {
		memcpy(copy, image, image_size);
		for (j = 0; j < 1 + i % 8; j++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			/* Mostly the header and metadata, where the structure is. */
			copy[seed % (i % 2 ? 1024 : image_size)] = (uint8_t)(seed >> 32);
		}
		if (open_bytes(copy, image_size) == 0)
			opened++;
		else
			rejected++;
	}
	free(copy);
	CU_ASSERT_EQUAL(opened + rejected, 2000);
	CU_ASSERT(rejected > 0);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"valid_image_opens", valid_image_opens},
	    {"header_fields_are_checked", header_fields_are_checked},
	    {"region_offsets_are_checked", region_offsets_are_checked},
	    {"records_are_checked", records_are_checked},
	    {"truncated_files_are_rejected", truncated_files_are_rejected},
	    {"random_corruption_never_crashes", random_corruption_never_crashes},
	    {"magic_version_and_header_size_are_exact", magic_version_and_header_size_are_exact},
	    {"file_size_equals_fstat_and_the_canonical_layout",
	     file_size_equals_fstat_and_the_canonical_layout},
	    {"generation_and_creator_pid_are_set", generation_and_creator_pid_are_set},
	    {"state_is_active_or_closed_at_open", state_is_active_or_closed_at_open},
	    {"nslots_and_ncells_are_within_the_limits", nslots_and_ncells_are_within_the_limits},
	    {"record_counts_fit_the_cells", record_counts_fit_the_cells},
	    {"strings_size_is_bounded_by_the_names_it_could_hold",
	     strings_size_is_bounded_by_the_names_it_could_hold},
	    {"every_offset_equals_the_canonical_layout", every_offset_equals_the_canonical_layout},
	    {"segment_name_is_a_string_of_1_to_63_bytes",
	     segment_name_is_a_string_of_1_to_63_bytes},
	    {"string_region_starts_with_nul", string_region_starts_with_nul},
	    {"string_has_a_nul_before_the_end_of_the_region",
	     string_has_a_nul_before_the_end_of_the_region},
	    {"strings_are_printable_ascii", strings_are_printable_ascii},
	    {"table_name_is_a_string_of_1_to_63_bytes", table_name_is_a_string_of_1_to_63_bytes},
	    {"table_names_are_unique", table_names_are_unique},
	    {"table_description_is_a_valid_string", table_description_is_a_valid_string},
	    {"table_has_rows_and_columns", table_has_rows_and_columns},
	    {"table_columns_lie_within_the_column_records",
	     table_columns_lie_within_the_column_records},
	    {"table_row_names_lie_within_the_row_name_records",
	     table_row_names_lie_within_the_row_name_records},
	    {"table_cells_lie_within_ncells", table_cells_lie_within_ncells},
	    {"tables_cover_disjoint_cells", tables_cover_disjoint_cells},
	    {"column_name_is_a_string_of_1_to_63_bytes", column_name_is_a_string_of_1_to_63_bytes},
	    {"column_description_and_units_are_valid_strings",
	     column_description_and_units_are_valid_strings},
	    {"column_kind_is_counter_gauge_or_histogram",
	     column_kind_is_counter_gauge_or_histogram},
	    {"histogram_rules_are_checked", histogram_rules_are_checked},
	    {"row_name_is_a_string_of_1_to_255_bytes", row_name_is_a_string_of_1_to_255_bytes},
	    {"row_directory_rules_are_checked", row_directory_rules_are_checked},
	    {"dynamic_table_has_no_declared_row_names", dynamic_table_has_no_declared_row_names},
	    {NULL, NULL},
	};
	int rc;

	if (make_images() != 0) {
		fprintf(stderr, "test_meta: cannot build the reference segments: %s\n",
		        statctr_errmsg());
		return 1;
	}
	rc = cu_run_both("meta", cases);
	free(dyn_image);
	free(hist_image);
	return rc;
}
