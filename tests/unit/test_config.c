/*
 * test_config.c - statctr_config_load(): defaults, derived cells, and every
 * class of invalid file rejected with file:line and the setting's path.
 */
#include "statctr.h"
#include "testutil.h"

#include <libconfig.h>
#include <sys/stat.h>

/*
 * A valid file with @seg, @table and @column inserted on lines 3, 5 and 7.
 * The table has no rows unless @table declares them.  Static buffer.
 */
static const char *conf(const char *seg, const char *table, const char *column)
{
	static char text[8192];

	snprintf(text, sizeof(text),
	         "segments = (\n"
	         "  {\n"
	         "    name = \"s\"; %s\n"
	         "    tables = ( {\n"
	         "      name = \"t\"; %s\n"
	         "      columns = (\n"
	         "        { %s }\n"
	         "      );\n"
	         "    } );\n"
	         "  }\n"
	         ");\n",
	         seg, table, column);
	return text;
}

/* Where a failed load must not leave its result pointing. */
static struct statctr_config not_loaded;

static const char *const counter_column = "name = \"c\"; kind = \"counter\";";

static struct statctr_config *load_ok(const char *name, const char *text)
{
	struct statctr_config *cfg = NULL;
	int rc = statctr_config_load(tu_write_file(name, text), &cfg);

	if (rc != 0)
		fprintf(stderr, "\n  unexpected error: %s\n", statctr_errmsg());
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	return cfg;
}

/*
 * Loads @text as file @name and checks the failure: -EINVAL, no config, and a
 * message "FILE:@line: @setting: ...@what...".
 */
static void expect_error(const char *name, const char *text, int line, const char *setting,
                         const char *what)
{
	struct statctr_config *cfg = &not_loaded;
	char prefix[1024];
	const char *path = tu_write_file(name, text);
	const char *msg;
	int rc;

	snprintf(prefix, sizeof(prefix), "%s:%d: %s: ", path, line, setting);
	rc = statctr_config_load(path, &cfg);
	msg = statctr_errmsg();
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_EQUAL(strncmp(msg, prefix, strlen(prefix)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fprintf(stderr, "\n  expected: %s...%s\n  got:      %s\n", prefix, what, msg);
}

static uint32_t online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > STATCTR_MAX_SLOTS ? STATCTR_MAX_SLOTS : n;
}

static void shipped_config_loads(void)
{
	const char *srcdir = getenv("srcdir");
	const struct statctr_segment_decl *seg;
	const struct statctr_table_decl *t;
	struct statctr_config *cfg = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/conf/statctr.conf", srcdir ? srcdir : ".");
	CU_ASSERT_EQUAL_FATAL(statctr_config_load(path, &cfg), 0);
	CU_ASSERT_STRING_EQUAL(cfg->file, path);
	CU_ASSERT_EQUAL_FATAL(cfg->nsegments, 1);
	seg = &cfg->segments[0];
	CU_ASSERT_STRING_EQUAL(seg->name, "dataplane");
	CU_ASSERT_STRING_EQUAL(seg->path, "/dev/shm/statctr.dataplane");
	CU_ASSERT_EQUAL(seg->oid, 1);
	CU_ASSERT_EQUAL(seg->nslots, 4);
	CU_ASSERT_EQUAL(seg->mode, 0640);
	CU_ASSERT_EQUAL(seg->ctl_mode, 0660);
	CU_ASSERT_PTR_NULL(seg->group);
	/* The grids of the five tables, then stages.latency's bucket blocks:
	 * 3 rows of the sum, 16 finite buckets and +Inf. */
	CU_ASSERT_EQUAL(seg->ncells, 4 * 7 + 64 * 2 + 1 * 3 + 64 * 4 + 3 * 1 + 3 * (16 + 2));
	CU_ASSERT_EQUAL_FATAL(seg->ntables, 5);
	CU_ASSERT_EQUAL(seg->tables[4].first_cell, 4 * 7 + 64 * 2 + 1 * 3 + 64 * 4);
	CU_ASSERT_EQUAL(seg->tables[4].columns[0].kind, STATCTR_KIND_HISTOGRAM);
	CU_ASSERT_EQUAL_FATAL(seg->tables[4].columns[0].nbuckets, 16);
	CU_ASSERT_EQUAL(seg->tables[4].columns[0].bounds[0], 16);
	CU_ASSERT_EQUAL(seg->tables[4].columns[0].bounds[15], 16u << 15);

	t = &seg->tables[0];
	CU_ASSERT_STRING_EQUAL(t->name, "ifStats");
	CU_ASSERT_STRING_EQUAL(t->description, "Per-interface packet and byte counts");
	CU_ASSERT_EQUAL(t->oid, 1);
	CU_ASSERT_EQUAL(t->first_cell, 0);
	CU_ASSERT_EQUAL_FATAL(t->nrows, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->row_names);
	CU_ASSERT_STRING_EQUAL(t->row_names[0], "dp0");
	CU_ASSERT_STRING_EQUAL(t->row_names[3], "dp3");
	CU_ASSERT_EQUAL_FATAL(t->ncolumns, 7);
	CU_ASSERT_STRING_EQUAL(t->columns[0].name, "rxPackets");
	CU_ASSERT_EQUAL(t->columns[0].kind, STATCTR_KIND_COUNTER);
	CU_ASSERT_STRING_EQUAL(t->columns[0].units, "");
	CU_ASSERT_STRING_EQUAL(t->columns[1].units, "octets");
	CU_ASSERT_STRING_EQUAL(t->columns[1].description, "Bytes received");
	CU_ASSERT_STRING_EQUAL(t->columns[5].name, "queueDepth");
	CU_ASSERT_EQUAL(t->columns[5].kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_STRING_EQUAL(t->columns[5].units, "packets");

	t = &seg->tables[1];
	CU_ASSERT_STRING_EQUAL(t->name, "flowStats");
	CU_ASSERT_EQUAL(t->oid, 2);
	CU_ASSERT_EQUAL(t->nrows, 64);
	CU_ASSERT_PTR_NULL(t->row_names);
	CU_ASSERT_EQUAL(t->ncolumns, 2);
	CU_ASSERT_EQUAL(t->first_cell, 28);

	t = &seg->tables[2];
	CU_ASSERT_STRING_EQUAL(t->name, "totals");
	CU_ASSERT_EQUAL(t->oid, 3);
	CU_ASSERT_EQUAL(t->first_cell, 28 + 128);
	CU_ASSERT_EQUAL_FATAL(t->nrows, 1);
	CU_ASSERT_STRING_EQUAL(t->row_names[0], "all");
	CU_ASSERT_EQUAL_FATAL(t->ncolumns, 3);
	CU_ASSERT_EQUAL(t->columns[2].kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_STRING_EQUAL(t->columns[2].name, "inFlight");
	statctr_config_free(cfg);
}

static void defaults_apply(void)
{
	struct statctr_config *cfg = load_ok(
	    "defaults.conf",
	    "segments = (\n"
	    "  { name = \"first\"; tables = (\n"
	    "      { name = \"a\"; rows = 1; columns = ( { name = \"x\"; kind = \"counter\"; } ); "
	    "},\n"
	    "      { name = \"b\"; rows = 2; columns = ( { name = \"y\"; kind = \"gauge\"; } ); }\n"
	    "  ); },\n"
	    "  { name = \"second\"; tables = (\n"
	    "      { name = \"c\"; rows = 3; columns = ( { name = \"z\"; kind = \"counter\"; } ); "
	    "}\n"
	    "  ); }\n"
	    ");\n");
	const struct statctr_segment_decl *seg = &cfg->segments[0];

	CU_ASSERT_EQUAL_FATAL(cfg->nsegments, 2);
	CU_ASSERT_STRING_EQUAL(seg->path, "/dev/shm/statctr.first");
	CU_ASSERT_EQUAL(seg->oid, 1);
	CU_ASSERT_EQUAL(seg->nslots, online_cpus());
	CU_ASSERT_EQUAL(seg->mode, 0640);
	CU_ASSERT_EQUAL(seg->ctl_mode, 0660);
	CU_ASSERT_PTR_NULL(seg->group);
	CU_ASSERT_EQUAL(seg->line, 2);
	CU_ASSERT_EQUAL(seg->ncells, 3);
	CU_ASSERT_EQUAL_FATAL(seg->ntables, 2);
	CU_ASSERT_EQUAL(seg->tables[0].oid, 1);
	CU_ASSERT_EQUAL(seg->tables[1].oid, 2);
	CU_ASSERT_EQUAL(seg->tables[1].line, 4);
	CU_ASSERT_STRING_EQUAL(seg->tables[0].description, "");
	CU_ASSERT_STRING_EQUAL(seg->tables[0].columns[0].description, "");
	CU_ASSERT_STRING_EQUAL(seg->tables[0].columns[0].units, "");
	CU_ASSERT_EQUAL(seg->tables[1].columns[0].kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_EQUAL(seg->tables[1].columns[0].line, 4);

	seg = &cfg->segments[1];
	CU_ASSERT_STRING_EQUAL(seg->name, "second");
	CU_ASSERT_STRING_EQUAL(seg->path, "/dev/shm/statctr.second");
	CU_ASSERT_EQUAL(seg->oid, 2);
	CU_ASSERT_EQUAL(seg->ncells, 3);
	CU_ASSERT_EQUAL(seg->tables[0].first_cell, 0);
	statctr_config_free(cfg);
}

static void explicit_settings_are_kept(void)
{
	struct statctr_config *cfg = load_ok(
	    "explicit.conf",
	    conf("path = \"/run/x.seg\"; slots = 4096; oid = 2147483647; mode = \"0600\"; "
	         "ctl_mode = \"620\"; group = \"stats\";",
	         "oid = 7; rows = 1; description = \"Table text\";",
	         "name = \"c-1_x\"; kind = \"gauge\"; description = \"Col\"; units = \"ms\";"));
	const struct statctr_segment_decl *seg = &cfg->segments[0];

	CU_ASSERT_STRING_EQUAL(seg->path, "/run/x.seg");
	CU_ASSERT_EQUAL(seg->nslots, 4096);
	CU_ASSERT_EQUAL(seg->oid, 2147483647u);
	CU_ASSERT_EQUAL(seg->mode, 0600);
	CU_ASSERT_EQUAL(seg->ctl_mode, 0620);
	CU_ASSERT_STRING_EQUAL(seg->group, "stats");
	CU_ASSERT_EQUAL(seg->tables[0].oid, 7);
	CU_ASSERT_STRING_EQUAL(seg->tables[0].description, "Table text");
	CU_ASSERT_STRING_EQUAL(seg->tables[0].columns[0].name, "c-1_x");
	CU_ASSERT_STRING_EQUAL(seg->tables[0].columns[0].description, "Col");
	CU_ASSERT_STRING_EQUAL(seg->tables[0].columns[0].units, "ms");
	CU_ASSERT_EQUAL(seg->tables[0].columns[0].kind, STATCTR_KIND_GAUGE);
	statctr_config_free(cfg);
}

static void named_and_numbered_rows_number_cells_row_major(void)
{
	struct statctr_config *cfg =
	    load_ok("rows.conf", "segments = ( { name = \"s\"; tables = (\n"
	                         "  { name = \"named\"; rows = [ \"a b\", \"c\", \"~!\" ];\n"
	                         "    columns = ( { name = \"x\"; kind = \"counter\"; },\n"
	                         "                { name = \"y\"; kind = \"gauge\"; } ); },\n"
	                         "  { name = \"numbered\"; rows = 5;\n"
	                         "    columns = ( { name = \"x\"; kind = \"counter\"; } ); },\n"
	                         "  { name = \"last\"; rows = 1L;\n"
	                         "    columns = ( { name = \"x\"; kind = \"counter\"; } ); }\n"
	                         "); } );\n");
	const struct statctr_segment_decl *seg = &cfg->segments[0];
	const struct statctr_table_decl *t = seg->tables;

	CU_ASSERT_EQUAL_FATAL(seg->ntables, 3);
	CU_ASSERT_EQUAL_FATAL(t[0].nrows, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t[0].row_names);
	CU_ASSERT_STRING_EQUAL(t[0].row_names[0], "a b");
	CU_ASSERT_STRING_EQUAL(t[0].row_names[1], "c");
	CU_ASSERT_STRING_EQUAL(t[0].row_names[2], "~!");
	CU_ASSERT_EQUAL(t[0].ncolumns, 2);
	CU_ASSERT_EQUAL(t[0].first_cell, 0);
	CU_ASSERT_EQUAL(t[1].nrows, 5);
	CU_ASSERT_PTR_NULL(t[1].row_names);
	CU_ASSERT_EQUAL(t[1].first_cell, 6);
	CU_ASSERT_EQUAL(t[2].nrows, 1);
	CU_ASSERT_EQUAL(t[2].first_cell, 11);
	CU_ASSERT_EQUAL(seg->ncells, 12);
	statctr_config_free(cfg);
}

static void agent_group_is_left_to_the_agent(void)
{
	struct statctr_config *cfg = load_ok(
	    "agent.conf", "agent = { anything = ( 1, \"x\" ); nested = { y = 2.5; }; };\n"
	                  "segments = ( { name = \"s\"; tables = ( { name = \"t\"; rows = 1;\n"
	                  "  columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); } );\n");

	CU_ASSERT_EQUAL(cfg->nsegments, 1);
	CU_ASSERT_EQUAL(cfg->segments[0].ncells, 1);
	statctr_config_free(cfg);
}

static void text_at_its_limits(void)
{
	char desc[STATCTR_MAX_TEXT + 2], row[STATCTR_MAX_ROWNAME + 2];
	char name[STATCTR_MAX_NAME + 2], table[2048], column[2048];
	struct statctr_config *cfg;

	memset(desc, 'd', STATCTR_MAX_TEXT);
	desc[STATCTR_MAX_TEXT] = '\0';
	memset(row, 'r', STATCTR_MAX_ROWNAME);
	row[STATCTR_MAX_ROWNAME] = '\0';
	memset(name, 'n', STATCTR_MAX_NAME);
	name[STATCTR_MAX_NAME] = '\0';
	snprintf(table, sizeof(table), "rows = [ \"%s\" ];", row);
	snprintf(column, sizeof(column), "name = \"%s\"; kind = \"counter\"; units = \"%s\";", name,
	         desc);
	cfg = load_ok("limits.conf", conf("", table, column));
	CU_ASSERT_EQUAL(strlen(cfg->segments[0].tables[0].row_names[0]), STATCTR_MAX_ROWNAME);
	CU_ASSERT_EQUAL(strlen(cfg->segments[0].tables[0].columns[0].name), STATCTR_MAX_NAME);
	CU_ASSERT_EQUAL(strlen(cfg->segments[0].tables[0].columns[0].units), STATCTR_MAX_TEXT);
	statctr_config_free(cfg);

	strcat(desc, "d");
	snprintf(column, sizeof(column), "name = \"c\"; kind = \"counter\"; description = \"%s\";",
	         desc);
	expect_error("longtext.conf", conf("", "rows = 1;", column), 7,
	             "segments.[0].tables.[0].columns.[0].description",
	             "256 characters, at most 255");

	strcat(row, "r");
	snprintf(table, sizeof(table), "rows = [ \"%s\" ];", row);
	expect_error("longrow.conf", conf("", table, counter_column), 5,
	             "segments.[0].tables.[0].rows.[0]", "256 characters, at most 255");

	strcat(name, "n");
	snprintf(column, sizeof(column), "name = \"%s\"; kind = \"counter\";", name);
	expect_error("longname.conf", conf("", "rows = 1;", column), 7,
	             "segments.[0].tables.[0].columns.[0].name", "invalid name");
}

/*
 * The agent serves descriptions, units and paths as DisplayStrings, SIZE
 * (0..255): 255 characters load, 256 are refused with file:line, in each
 * of them (the table's description too, which statctl mib writes).
 */
static void served_text_fits_a_display_string(void)
{
	char text[300], path[300], line[700];
	struct statctr_config *cfg;

	CU_ASSERT_EQUAL(STATCTR_MAX_TEXT, 255);
	CU_ASSERT_EQUAL(STATCTR_MAX_PATH, 255);
	memset(text, 'u', 255);
	text[255] = '\0';
	path[0] = '/';
	memset(path + 1, 'p', 254);
	path[255] = '\0';
	snprintf(line, sizeof(line), "path = \"%s\";", path);
	cfg = load_ok("path255.conf", conf(line, "rows = 1;", counter_column));
	CU_ASSERT_EQUAL(strlen(cfg->segments[0].path), 255);
	statctr_config_free(cfg);
	snprintf(line, sizeof(line), "rows = 1; description = \"%s\";", text);
	cfg = load_ok("tdesc255.conf", conf("", line, counter_column));
	CU_ASSERT_EQUAL(strlen(cfg->segments[0].tables[0].description), 255);
	statctr_config_free(cfg);

	strcat(path, "p");
	snprintf(line, sizeof(line), "path = \"%s\";", path);
	expect_error("path256.conf", conf(line, "rows = 1;", counter_column), 3,
	             "segments.[0].path", "256 characters, at most 255");
	expect_error("pathutf8.conf",
	             conf("path = \"/dev/shm/caf\xc3\xa9\";", "rows = 1;", counter_column), 3,
	             "segments.[0].path", "character 13 is not printable ASCII (byte 0xc3)");
	strcat(text, "u");
	snprintf(line, sizeof(line), "rows = 1; description = \"%s\";", text);
	expect_error("tdesc256.conf", conf("", line, counter_column), 5,
	             "segments.[0].tables.[0].description", "256 characters, at most 255");
	snprintf(line, sizeof(line), "name = \"c\"; kind = \"gauge\"; units = \"%s\";", text);
	expect_error("units256.conf", conf("", "rows = 1;", line), 7,
	             "segments.[0].tables.[0].columns.[0].units", "256 characters, at most 255");
}

static void syntax_error_names_file_and_line(void)
{
	struct statctr_config *cfg = &not_loaded;
	const char *path = tu_write_file("syntax.conf", "segments = (\n"
	                                                "  { name = \"s\"\n"
	                                                "    tables = ( ;\n");
	char expected[600];

	snprintf(expected, sizeof(expected), "%s:3: syntax error", path);
	CU_ASSERT_EQUAL(statctr_config_load(path, &cfg), -EINVAL);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_STRING_EQUAL(statctr_errmsg(), expected);
}

static void missing_file_is_enoent(void)
{
	struct statctr_config *cfg = &not_loaded;
	char path[512];

	snprintf(path, sizeof(path), "%s/does-not-exist.conf", tu_tmpdir());
	CU_ASSERT_EQUAL(statctr_config_load(path, &cfg), -ENOENT);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), path));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), strerror(ENOENT)));
}

static void directory_is_rejected(void)
{
	struct statctr_config *cfg = &not_loaded;

	CU_ASSERT_EQUAL(statctr_config_load(tu_tmpdir(), &cfg), -EISDIR);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), tu_tmpdir()));
}

static void missing_or_empty_segments_rejected(void)
{
	expect_error("nosegs.conf", "agent = { port = 1; };\n", 1, "segments",
	             "missing (required)");
	expect_error("emptysegs.conf", "\n\nsegments = ();\n", 3, "segments", "empty list");
	expect_error("arraysegs.conf", "segments = [ 1 ];\n", 1, "segments",
	             "expected a list ( ... ), not an array [ ... ]");
}

static void unknown_top_level_setting_rejected(void)
{
	expect_error("toplevel.conf",
	             "segments = ( { name = \"s\"; tables = ( { name = \"t\"; rows = 1;\n"
	             "  columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); } );\n"
	             "\n"
	             "segmnts = 1;\n",
	             4, "segmnts", "unknown setting (known: segments, agent, exporter)");
}

static void typo_in_column_rejected(void)
{
	expect_error("typo.conf",
	             conf("", "rows = 1;", "name = \"c\"; kind = \"counter\"; desciption = \"x\";"),
	             7, "segments.[0].tables.[0].columns.[0].desciption",
	             "unknown setting (known: name, kind, description, units, buckets, ifmib)");
	expect_error("typo2.conf", conf("slot = 2;", "rows = 1;", counter_column), 3,
	             "segments.[0].slot", "unknown setting");
	expect_error("typo3.conf", conf("", "rows = 1; column = 1;", counter_column), 5,
	             "segments.[0].tables.[0].column", "unknown setting");
}

static void unknown_kind_rejected(void)
{
	expect_error("kind.conf", conf("", "rows = 1;", "name = \"c\"; kind = \"countr\";"), 7,
	             "segments.[0].tables.[0].columns.[0].kind",
	             "unknown kind \"countr\" (expected \"counter\", \"gauge\" or "
	             "\"histogram\")");
	expect_error("nokind.conf", conf("", "rows = 1;", "name = \"c\";"), 7,
	             "segments.[0].tables.[0].columns.[0].kind", "missing (required)");
}

static void wrong_types_rejected(void)
{
	expect_error("type1.conf", conf("slots = \"4\";", "rows = 1;", counter_column), 3,
	             "segments.[0].slots", "expected an integer, not a string");
	expect_error("type2.conf", conf("", "rows = 1.5;", counter_column), 5,
	             "segments.[0].tables.[0].rows",
	             "expected a number of rows or an array of row names, not a float");
	expect_error("type3.conf", conf("mode = 640;", "rows = 1;", counter_column), 3,
	             "segments.[0].mode", "expected a string, not an integer");
	expect_error("type4.conf", conf("", "rows = [ 1, 2 ];", counter_column), 5,
	             "segments.[0].tables.[0].rows.[0]", "expected a string, not an integer");
	expect_error("type5.conf", conf("", "rows = 1;", "name = \"c\"; kind = true;"), 7,
	             "segments.[0].tables.[0].columns.[0].kind",
	             "expected a string, not a boolean");
	expect_error("type6.conf",
	             "segments = ( { name = \"s\"; tables = (\n"
	             "  { name = \"t\"; rows = 1;\n"
	             "    columns = 2; }\n"
	             "); } );\n",
	             3, "segments.[0].tables.[0].columns",
	             "expected a list ( ... ), not an integer");
}

static void bad_names_rejected(void)
{
	expect_error("name1.conf", conf("", "rows = 1;", "name = \"9c\"; kind = \"counter\";"), 7,
	             "segments.[0].tables.[0].columns.[0].name", "invalid name \"9c\"");
	expect_error("name2.conf", conf("", "rows = 1;", "name = \"a.b\"; kind = \"counter\";"), 7,
	             "segments.[0].tables.[0].columns.[0].name", "invalid name \"a.b\"");
	expect_error("name3.conf", conf("", "rows = 1;", "name = \"\"; kind = \"counter\";"), 7,
	             "segments.[0].tables.[0].columns.[0].name", "invalid name \"\"");
	expect_error("name4.conf",
	             "segments = (\n"
	             "  { name = \"../etc\"; tables = ( { name = \"t\"; rows = 1;\n"
	             "    columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); }\n"
	             ");\n",
	             2, "segments.[0].name", "invalid name \"../etc\"");
	expect_error("name5.conf", conf("", "rows = 1;", "kind = \"counter\";"), 7,
	             "segments.[0].tables.[0].columns.[0].name", "missing (required)");
}

static void duplicate_segments_rejected(void)
{
	const char *seg = "tables = ( { name = \"t\"; rows = 1; columns = ( { name = \"c\"; kind "
	                  "= \"counter\"; } ); } ); }";
	char text[4096];

	snprintf(text, sizeof(text),
	         "segments = (\n"
	         "  { name = \"a\"; %s,\n"
	         "  { name = \"b\"; %s,\n"
	         "  { name = \"a\"; %s\n"
	         ");\n",
	         seg, seg, seg);
	expect_error("dupseg.conf", text, 4, "segments.[2].name",
	             "duplicate segment name \"a\" (also segments.[0], line 2)");

	snprintf(text, sizeof(text),
	         "segments = (\n"
	         "  { name = \"a\"; oid = 2; %s,\n"
	         "  { name = \"b\"; %s\n"
	         ");\n",
	         seg, seg);
	expect_error("dupsegoid.conf", text, 3, "segments.[1].oid",
	             "duplicate segment oid 2 (also segments.[0], line 2)");

	snprintf(text, sizeof(text),
	         "segments = (\n"
	         "  { name = \"a\"; path = \"/dev/shm/statctr.b\"; %s,\n"
	         "  { name = \"b\"; %s\n"
	         ");\n",
	         seg, seg);
	expect_error("dupsegpath.conf", text, 3, "segments.[1].path",
	             "duplicate segment path \"/dev/shm/statctr.b\"");
}

static void duplicate_tables_rejected(void)
{
	const char *cols = "columns = ( { name = \"c\"; kind = \"counter\"; } ); }";
	char text[4096];

	snprintf(text, sizeof(text),
	         "segments = ( { name = \"s\"; tables = (\n"
	         "  { name = \"t\"; rows = 1; %s,\n"
	         "  { name = \"u\"; rows = 1; %s,\n"
	         "  {\n"
	         "    rows = 1;\n"
	         "    name = \"t\"; %s\n"
	         "); } );\n",
	         cols, cols, cols);
	expect_error("duptable.conf", text, 6, "segments.[0].tables.[2].name",
	             "duplicate table name \"t\" (also tables.[0], line 2)");

	snprintf(text, sizeof(text),
	         "segments = ( { name = \"s\"; tables = (\n"
	         "  { name = \"t\"; rows = 1; %s,\n"
	         "  { name = \"u\"; rows = 1; oid = 1; %s\n"
	         "); } );\n",
	         cols, cols);
	expect_error("duptableoid.conf", text, 3, "segments.[0].tables.[1].oid",
	             "duplicate table oid 1 (also tables.[0], line 2)");
}

static void duplicate_columns_rejected(void)
{
	expect_error("dupcol.conf",
	             conf("", "rows = 1;",
	                  "name = \"c\"; kind = \"counter\"; }, { name = \"c\"; kind = \"gauge\";"),
	             7, "segments.[0].tables.[0].columns.[1].name",
	             "duplicate column name \"c\" (also columns.[0], line 7)");
}

static void bad_rows_rejected(void)
{
	expect_error("zerorows.conf", conf("", "rows = 0;", counter_column), 5,
	             "segments.[0].tables.[0].rows", "0 is out of range (1..16777216)");
	expect_error("norows.conf", conf("", "rows = [];", counter_column), 5,
	             "segments.[0].tables.[0].rows", "no rows");
	expect_error("missrows.conf", conf("", "", counter_column), 4,
	             "segments.[0].tables.[0].rows", "missing (required)");
	expect_error("emptyrow.conf", conf("", "rows = [ \"a\", \"\" ];", counter_column), 5,
	             "segments.[0].tables.[0].rows.[1]", "empty row name");
	expect_error("duprow.conf",
	             conf("", "rows = [ \"b\", \"a\", \"b\", \"a\" ];", counter_column), 5,
	             "segments.[0].tables.[0].rows.[3]", "duplicate row name \"a\" (also row 1)");
	expect_error("ctlrow.conf", conf("", "rows = [ \"a\\tb\" ];", counter_column), 5,
	             "segments.[0].tables.[0].rows.[0]",
	             "character 2 is not printable ASCII (byte 0x09)");
}

static void empty_lists_rejected(void)
{
	expect_error("notables.conf",
	             "segments = (\n"
	             "  { name = \"s\";\n"
	             "    tables = (); }\n"
	             ");\n",
	             3, "segments.[0].tables", "empty list");
	expect_error("nocols.conf",
	             "segments = ( { name = \"s\"; tables = (\n"
	             "  { name = \"t\"; rows = 1;\n"
	             "    columns = (); }\n"
	             "); } );\n",
	             3, "segments.[0].tables.[0].columns", "empty list");
	expect_error(
	    "notgroup.conf", conf("", "rows = 1;", "name = \"c\"; kind = \"counter\"; }, 7, {"), 7,
	    "segments.[0].tables.[0].columns.[1]", "expected a group { ... }, not an integer");
}

static void too_many_cells_rejected(void)
{
	char text[4096];

	expect_error(
	    "cells1.conf",
	    conf("", "rows = 16777216;",
	         "name = \"c\"; kind = \"counter\"; }, { name = \"d\"; kind = \"counter\";"),
	    4, "segments.[0].tables.[0]", "too many cells: 33554432");

	snprintf(
	    text, sizeof(text),
	    "segments = ( { name = \"s\"; tables = (\n"
	    "  { name = \"big\"; rows = 16777216; columns = ( { name = \"c\"; kind = \"counter\"; "
	    "} ); },\n"
	    "  { name = \"one\"; rows = 1; columns = ( { name = \"c\"; kind = \"counter\"; } ); }\n"
	    "); } );\n");
	expect_error(
	    "cells2.conf", text, 3, "segments.[0].tables.[1]",
	    "too many cells: 16777217 in the segment's tables up to this one, at most 16777216");
}

static void exactly_max_cells_accepted(void)
{
	struct statctr_config *cfg =
	    load_ok("maxcells.conf", conf("", "rows = 16777216;", counter_column));

	CU_ASSERT_EQUAL(cfg->segments[0].ncells, STATCTR_MAX_CELLS);
	statctr_config_free(cfg);
}

static void slots_out_of_range_rejected(void)
{
	expect_error("slots0.conf", conf("slots = 0;", "rows = 1;", counter_column), 3,
	             "segments.[0].slots", "0 is out of range (1..4096)");
	expect_error("slots4097.conf", conf("slots = 4097;", "rows = 1;", counter_column), 3,
	             "segments.[0].slots", "4097 is out of range (1..4096)");
	expect_error("oidbig.conf", conf("oid = 2147483648L;", "rows = 1;", counter_column), 3,
	             "segments.[0].oid", "2147483648 is out of range (1..2147483647)");
	expect_error("oid0.conf", conf("", "rows = 1; oid = 0;", counter_column), 5,
	             "segments.[0].tables.[0].oid", "0 is out of range (1..2147483647)");
}

/*
 * One integer setting: @setting ("slots = %s;" in the segment, table or
 * agent part of conf()) at @lo and @hi loads; @hi + 1, @lo - 1, 2^32 + @lo
 * (which 32 bits would read as @lo) and a negative value are refused with
 * the value as written and the bounds.
 */
struct int_setting {
	const char *part; /* "seg", "table" */
	const char *key;
	const char *path;
	long long lo, hi;
	int line;
};

static const char *with_value(const struct int_setting *is, long long value)
{
	static char assign[128];
	char table[160];

	snprintf(assign, sizeof(assign), "%s = %lld;", is->key, value);
	if (strcmp(is->part, "seg") == 0)
		return conf(assign, "rows = 1;", counter_column);
	snprintf(table, sizeof(table), "%s%s", strcmp(is->key, "rows") == 0 ? "" : "rows = 1; ",
	         assign);
	return conf("", table, counter_column);
}

static void check_int_setting(const struct int_setting *is)
{
	const long long bad[] = {is->hi + 1, is->lo - 1, 4294967296LL + is->lo, -5, -4294967296LL};
	char what[128];

	statctr_config_free(load_ok("intlo.conf", with_value(is, is->lo)));
	statctr_config_free(load_ok("inthi.conf", with_value(is, is->hi)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "%lld is out of range (%lld..%lld)", bad[i], is->lo,
		         is->hi);
		expect_error("intbad.conf", with_value(is, bad[i]), is->line, is->path, what);
	}
}

static void integers_are_range_checked_in_64_bits(void)
{
	static const struct int_setting settings[] = {
	    {"seg", "slots", "segments.[0].slots", 1, STATCTR_MAX_SLOTS, 3},
	    {"seg", "oid", "segments.[0].oid", 1, 2147483647, 3},
	    {"table", "oid", "segments.[0].tables.[0].oid", 1, 2147483647, 5},
	    {"table", "rows", "segments.[0].tables.[0].rows", 1, STATCTR_MAX_CELLS, 5},
	};

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		check_int_setting(&settings[i]);
}

static void integers_in_every_notation_are_exact(void)
{
	struct statctr_config *cfg =
	    load_ok("hexint.conf", conf("slots = 0x10; oid = 7L;", "rows = 0x3L;", counter_column));

	CU_ASSERT_EQUAL(cfg->segments[0].nslots, 16);
	CU_ASSERT_EQUAL(cfg->segments[0].oid, 7);
	CU_ASSERT_EQUAL(cfg->segments[0].tables[0].nrows, 3);
	statctr_config_free(cfg);
	expect_error("hexbig.conf", conf("slots = 0x100000002;", "rows = 1;", counter_column), 3,
	             "segments.[0].slots", "4294967298 is out of range (1..4096)");
}

/* Loads @len bytes of @text and expects -@err and a message starting "FILE@where". */
static void expect_bytes_refused(const char *name, const char *text, size_t len, int err,
                                 const char *where)
{
	struct statctr_config *cfg = &not_loaded;
	char path[512], prefix[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	fclose(f);
	snprintf(prefix, sizeof(prefix), "%s%s", path, where);
	CU_ASSERT_EQUAL(statctr_config_load(path, &cfg), -err);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_EQUAL(strncmp(statctr_errmsg(), prefix, strlen(prefix)), 0);
	if (strncmp(statctr_errmsg(), prefix, strlen(prefix)) != 0)
		fprintf(stderr, "\n  expected: %s...\n  got:      %s\n", prefix, statctr_errmsg());
}

#define REFUSED(name, lit, err, where) expect_bytes_refused(name, lit, sizeof(lit) - 1, err, where)

static void integer_beyond_64_bits_refused(void)
{
	REFUSED("int65.conf", "segments = (\n  { slots = 99999999999999999999; } );\n", EINVAL,
	        ":2:13: integer does not fit in 64 bits");
	REFUSED("neg65.conf", "segments = (\n{ oid = -9223372036854775809; } );\n", EINVAL,
	        ":2:9: integer does not fit in 64 bits");
}

static void control_bytes_refused_before_parsing(void)
{
	REFUSED("nul.conf", "segments = ();\n# x\0\n@include \"/tmp\"\n", EINVAL,
	        ":2:4: control byte 0x00 (only tab, LF and CR allowed)");
	REFUSED("esc.conf", "segments = ();\nagent = { master = \"a\x1b[2J\"; };\n", EINVAL,
	        ":2:22: control byte 0x1b");
	REFUSED("del.conf", "\x7f", EINVAL, ":1:1: control byte 0x7f");
}

static void include_refused_anywhere(void)
{
	REFUSED("inc1.conf", "segments = ();\n@include \"/tmp\"\n", EINVAL,
	        ":2: @include is not supported (column 1)");
	REFUSED("inc2.conf", "segments = ();\n \t @include \"/dev/null\"\n", EINVAL,
	        ":2: @include is not supported (column 4)");
	REFUSED("inc3.conf", "segments = (); /* x */ @include \"/tmp\"\n", EINVAL,
	        ":1: @include is not supported (column 24)");
	REFUSED("inc4.conf", "segments = ();\r@include \"/tmp\"\n", EINVAL,
	        ":1: @include is not supported (column 16)");
}

static void at_sign_in_strings_and_comments_accepted(void)
{
	statctr_config_free(load_ok("at.conf", conf("# @include \"/tmp\"", "rows = 1;",
	                                            "name = \"c\"; kind = \"counter\"; "
	                                            "description = \"@include \\\"x\\\"\";")));
}

/* The agent group is handed over as read, integers in 64 bits; its errors read like ours. */
static void agent_group_handed_over_in_64_bits(void)
{
	const config_setting_t *agent, *interval;
	struct statctr_config *cfg;
	char text[8192];

	strcpy(text, conf("", "rows = 1;", counter_column));
	strcat(text, "agent = { interval_ms = 4294967306; };\n");
	cfg = load_ok("agent64.conf", text);
	CU_ASSERT_PTR_NULL(statctr_config_group(cfg, "nothing"));
	agent = statctr_config_group(cfg, "agent");
	CU_ASSERT_PTR_NOT_NULL_FATAL(agent);
	interval = config_setting_get_member(agent, "interval_ms");
	CU_ASSERT_PTR_NOT_NULL_FATAL(interval);
	CU_ASSERT_EQUAL(config_setting_get_int64(interval), 4294967306LL);
	CU_ASSERT_EQUAL(statctr_config_error(cfg, interval, ERANGE, "%s", "too long"), -ERANGE);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(statctr_errmsg(), "agent64.conf:12: agent.interval_ms: too long"));
	CU_ASSERT_EQUAL(statctr_config_error(cfg, NULL, ENOMEM, "out of %s", "memory"), -ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "agent64.conf: out of memory"));
	statctr_config_free(cfg);
}

static void not_a_plain_file_refused(void)
{
	struct statctr_config *cfg = &not_loaded;
	char fifo[512], link[512], big[512];
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	CU_ASSERT_EQUAL(statctr_config_load(fifo, &cfg), -EINVAL); /* no writer: no hang */
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "not a regular file"));
	snprintf(link, sizeof(link), "%s/link.conf", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(
	    symlink(tu_write_file("target.conf", conf("", "rows = 1;", counter_column)), link), 0);
	CU_ASSERT_EQUAL(statctr_config_load(link, &cfg), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "symbolic link"));
	snprintf(big, sizeof(big), "%s/big.conf", tu_tmpdir());
	f = fopen(big, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fseek(f, 1024 * 1024, SEEK_SET), 0);
	fputc('\n', f);
	fclose(f);
	CU_ASSERT_EQUAL(statctr_config_load(big, &cfg), -EFBIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "at most 1048576"));
	CU_ASSERT_PTR_NULL(cfg);
}

static void bad_modes_rejected(void)
{
	expect_error("mode1.conf", conf("mode = \"0abc\";", "rows = 1;", counter_column), 3,
	             "segments.[0].mode", "\"0abc\" is not an octal mode like \"0640\"");
	expect_error("mode2.conf", conf("mode = \"0642\";", "rows = 1;", counter_column), 3,
	             "segments.[0].mode", "mode 0642 lets others write");
	expect_error("mode3.conf", conf("ctl_mode = \"1770\";", "rows = 1;", counter_column), 3,
	             "segments.[0].ctl_mode", "mode 1770 has setuid, setgid or sticky bits");
	expect_error("mode4.conf", conf("ctl_mode = \"\";", "rows = 1;", counter_column), 3,
	             "segments.[0].ctl_mode", "\"\" is not an octal mode");
	expect_error("mode5.conf", conf("mode = \"00640\";", "rows = 1;", counter_column), 3,
	             "segments.[0].mode", "is not an octal mode");
	/* The segment is its writer's alone (its slots hold the writer's
	 * histogram descriptors); the control file may be the group's. */
	expect_error("mode6.conf", conf("mode = \"0660\";", "rows = 1;", counter_column), 3,
	             "segments.[0].mode",
	             "mode 0660 lets the group write the segment: only its writer may");
	expect_error("mode7.conf",
	             conf("mode = \"0620\"; ctl_mode = \"0660\";", "rows = 1;", counter_column), 3,
	             "segments.[0].mode", "mode 0620 lets the group write the segment");
}

static void bad_path_and_group_rejected(void)
{
	expect_error("relpath.conf", conf("path = \"shm/x\";", "rows = 1;", counter_column), 3,
	             "segments.[0].path", "\"shm/x\" is not an absolute path");
	expect_error("group.conf", conf("group = \"\";", "rows = 1;", counter_column), 3,
	             "segments.[0].group", "empty group name");
}

static void control_characters_in_text_rejected(void)
{
	expect_error("ctltext.conf",
	             conf("", "rows = 1;", "name = \"c\"; kind = \"counter\"; units = \"a\\nb\";"),
	             7, "segments.[0].tables.[0].columns.[0].units",
	             "character 2 is not printable ASCII (byte 0x0a)");
}

static void find_hits_and_misses(void)
{
	struct statctr_config *cfg =
	    load_ok("find.conf",
	            "segments = (\n"
	            "  { name = \"a\"; tables = ( { name = \"t\"; rows = 1; columns = ( { name = "
	            "\"c\"; kind = \"counter\"; } ); } ); },\n"
	            "  { name = \"b\"; tables = ( { name = \"t\"; rows = 2; columns = ( { name = "
	            "\"c\"; kind = \"counter\"; } ); } ); }\n"
	            ");\n");
	const struct statctr_segment_decl *seg;

	seg = statctr_config_find(cfg, "b");
	CU_ASSERT_PTR_EQUAL(seg, &cfg->segments[1]);
	CU_ASSERT_EQUAL(seg->ncells, 2);
	CU_ASSERT_EQUAL(seg->line, 3);
	CU_ASSERT_PTR_EQUAL(statctr_config_find(cfg, "a"), &cfg->segments[0]);
	CU_ASSERT_PTR_NULL(statctr_config_find(cfg, "c"));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "no segment named \"c\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), cfg->file));
	statctr_config_free(cfg);
	statctr_config_free(NULL);
}

/* Histogram columns: explicit and exponential bounds, and their bucket cells. */
static void histogram_bounds_are_parsed(void)
{
	static const uint64_t explicit[] = {1, 2, 5, 10}, exponential[] = {3, 12, 48, 192, 768};
	struct statctr_config *cfg = load_ok(
	    "hist.conf",
	    conf("", "rows = 2;",
	         "name = \"c\"; kind = \"counter\"; }, { name = \"lat\"; kind = \"histogram\"; "
	         "units = \"us\"; buckets = [ 1, 2, 5, 10 ]; }, { name = \"exp\"; kind = "
	         "\"histogram\"; buckets = { start = 3; factor = 4; count = 5; };"));
	const struct statctr_table_decl *t = &cfg->segments[0].tables[0];

	CU_ASSERT_EQUAL(t->columns[0].nbuckets, 0);
	CU_ASSERT_PTR_NULL(t->columns[0].bounds);
	CU_ASSERT_EQUAL(t->columns[1].kind, STATCTR_KIND_HISTOGRAM);
	CU_ASSERT_STRING_EQUAL(t->columns[1].units, "us");
	CU_ASSERT_EQUAL_FATAL(t->columns[1].nbuckets, 4);
	CU_ASSERT_EQUAL(memcmp(t->columns[1].bounds, explicit, sizeof(explicit)), 0);
	CU_ASSERT_EQUAL_FATAL(t->columns[2].nbuckets, 5);
	CU_ASSERT_EQUAL(memcmp(t->columns[2].bounds, exponential, sizeof(exponential)), 0);
	/* The grid (2 rows x 3 columns), then blocks (sum + buckets + 1) of
	 * 2 x (4 + 2) and 2 x (5 + 2) cells. */
	CU_ASSERT_EQUAL(t->first_cell, 0);
	CU_ASSERT_EQUAL(cfg->segments[0].ncells, 6 + 12 + 14);
	statctr_config_free(cfg);
}

static void histogram_of_64_buckets_up_to_2_pow_63_accepted(void)
{
	struct statctr_config *cfg = load_ok(
	    "hist64.conf", conf("", "rows = 1;",
	                        "name = \"h\"; kind = \"histogram\"; buckets = { start = 1; "
	                        "factor = 2; count = 64; };"));
	const struct statctr_column_decl *col = &cfg->segments[0].tables[0].columns[0];

	CU_ASSERT_EQUAL_FATAL(col->nbuckets, STATCTR_MAX_BUCKETS);
	CU_ASSERT_EQUAL(col->bounds[0], 1);
	CU_ASSERT_EQUAL(col->bounds[63], UINT64_C(1) << 63);
	CU_ASSERT_EQUAL(cfg->segments[0].ncells, 1 + 66);
	statctr_config_free(cfg);
}

#define HIST_AT    "segments.[0].tables.[0].columns.[0]"
#define HIST(more) "name = \"h\"; kind = \"histogram\"; " more

static void bad_explicit_buckets_rejected(void)
{
	char many[700] = HIST("buckets = [ 1");
	int i;

	expect_error("hasc.conf", conf("", "rows = 1;", HIST("buckets = [ 1, 5, 5 ];")), 7,
	             HIST_AT ".buckets.[2]",
	             "bound 5 is not above the bound before it, [1] = 5 (bounds must be strictly "
	             "ascending)");
	expect_error("hdesc.conf", conf("", "rows = 1;", HIST("buckets = [ 10, 2 ];")), 7,
	             HIST_AT ".buckets.[1]", "bound 2 is not above the bound before it, [0] = 10");
	expect_error("hneg.conf", conf("", "rows = 1;", HIST("buckets = [ -1, 2 ];")), 7,
	             HIST_AT ".buckets.[0]", "bound -1 is negative");
	expect_error("hempty.conf", conf("", "rows = 1;", HIST("buckets = [ ];")), 7,
	             HIST_AT ".buckets", "0 buckets, expected 1..64");
	for (i = 2; i <= 65; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ", %d", i);
	strcat(many, " ];");
	expect_error("h65.conf", conf("", "rows = 1;", many), 7, HIST_AT ".buckets",
	             "65 buckets, expected 1..64");
	expect_error("hnone.conf", conf("", "rows = 1;", HIST("")), 7, HIST_AT ".buckets",
	             "missing (required for kind \"histogram\")");
	expect_error("hstr.conf", conf("", "rows = 1;", HIST("buckets = [ \"a\" ];")), 7,
	             HIST_AT ".buckets.[0]", "expected an integer, not a string");
	expect_error("htype.conf", conf("", "rows = 1;", HIST("buckets = 5;")), 7,
	             HIST_AT ".buckets", "expected an array [ ... ] of bounds or a group");
	expect_error("hcounter.conf",
	             conf("", "rows = 1;", "name = \"c\"; kind = \"counter\"; buckets = [ 1 ];"), 7,
	             HIST_AT ".buckets", "only a column of kind \"histogram\" has buckets");
}

static void bad_exponential_buckets_rejected(void)
{
	expect_error(
	    "hover.conf",
	    conf("", "rows = 1;", HIST("buckets = { start = 2; factor = 2; count = 64; };")), 7,
	    HIST_AT ".buckets.count", "bound 63 = 2 x 2^63 does not fit in 64 bits");
	expect_error(
	    "hfactor.conf",
	    conf("", "rows = 1;", HIST("buckets = { start = 1; factor = 1; count = 4; };")), 7,
	    HIST_AT ".buckets.factor", "1 is out of range (2..");
	expect_error(
	    "hcount.conf",
	    conf("", "rows = 1;", HIST("buckets = { start = 1; factor = 2; count = 65; };")), 7,
	    HIST_AT ".buckets.count", "65 is out of range (1..64)");
	expect_error(
	    "hstart.conf",
	    conf("", "rows = 1;", HIST("buckets = { start = 0; factor = 2; count = 4; };")), 7,
	    HIST_AT ".buckets.start", "0 is out of range (1..");
	expect_error("hkey.conf",
	             conf("", "rows = 1;",
	                  HIST("buckets = { start = 1; factor = 2; count = 4; base = 3; };")),
	             7, HIST_AT ".buckets.base", "unknown setting");
	expect_error("hmiss.conf",
	             conf("", "rows = 1;", HIST("buckets = { start = 1; count = 4; };")), 7,
	             HIST_AT ".buckets.factor", "missing (required)");
}

/* Bucket cells count against STATCTR_MAX_CELLS with the grid. */
static void histogram_cells_count_against_the_limit(void)
{
	/* 2^22 + 1 rows of 4 cells (the grid cell; the sum and 1 + 1 buckets):
	 * one row past the limit. */
	expect_error("hcells.conf", conf("", "rows = 4194305;", HIST("buckets = [ 1 ];")), 4,
	             "segments.[0].tables.[0]", "too many cells: 16777220");
}

/* ---- IF-MIB keys: mib/'s, left unread (tests/unit/test_ifmib.c) ----------- */

/* A table's ifmib group, and the deprecated keys in tables and columns, load. */
static void ifmib_keys_are_left_unread(void)
{
	struct statctr_config *cfg = load_ok(
	    "ifgroup.conf",
	    conf("", "rows = 2; ifmib = { ifMtu = 1500; columns = { c = \"ifHCInOctets\"; }; };",
	         counter_column));

	CU_ASSERT_EQUAL(cfg->segments[0].tables[0].ncolumns, 1);
	statctr_config_free(cfg);
	cfg = load_ok("ifold.conf",
	              conf("", "rows = 2; standard = \"x\"; ifindex_base = -1; ifMtu = \"y\";",
	                   "name = \"c\"; kind = \"counter\"; ifmib = 3;"));
	CU_ASSERT_EQUAL(cfg->segments[0].tables[0].nrows, 2);
	statctr_config_free(cfg);
	expect_error("ifname.conf", conf("", "rows = 1; ifName = \"x\";", counter_column), 5,
	             "segments.[0].tables.[0].ifName", "unknown setting");
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"ifmib_keys_are_left_unread", ifmib_keys_are_left_unread},
	    {"shipped_config_loads", shipped_config_loads},
	    {"defaults_apply", defaults_apply},
	    {"explicit_settings_are_kept", explicit_settings_are_kept},
	    {"named_and_numbered_rows_number_cells_row_major",
	     named_and_numbered_rows_number_cells_row_major},
	    {"agent_group_is_left_to_the_agent", agent_group_is_left_to_the_agent},
	    {"text_at_its_limits", text_at_its_limits},
	    {"served_text_fits_a_display_string", served_text_fits_a_display_string},
	    {"syntax_error_names_file_and_line", syntax_error_names_file_and_line},
	    {"missing_file_is_enoent", missing_file_is_enoent},
	    {"directory_is_rejected", directory_is_rejected},
	    {"missing_or_empty_segments_rejected", missing_or_empty_segments_rejected},
	    {"unknown_top_level_setting_rejected", unknown_top_level_setting_rejected},
	    {"typo_in_column_rejected", typo_in_column_rejected},
	    {"unknown_kind_rejected", unknown_kind_rejected},
	    {"wrong_types_rejected", wrong_types_rejected},
	    {"bad_names_rejected", bad_names_rejected},
	    {"duplicate_segments_rejected", duplicate_segments_rejected},
	    {"duplicate_tables_rejected", duplicate_tables_rejected},
	    {"duplicate_columns_rejected", duplicate_columns_rejected},
	    {"bad_rows_rejected", bad_rows_rejected},
	    {"empty_lists_rejected", empty_lists_rejected},
	    {"too_many_cells_rejected", too_many_cells_rejected},
	    {"exactly_max_cells_accepted", exactly_max_cells_accepted},
	    {"slots_out_of_range_rejected", slots_out_of_range_rejected},
	    {"bad_modes_rejected", bad_modes_rejected},
	    {"bad_path_and_group_rejected", bad_path_and_group_rejected},
	    {"control_characters_in_text_rejected", control_characters_in_text_rejected},
	    {"find_hits_and_misses", find_hits_and_misses},
	    {"integers_are_range_checked_in_64_bits", integers_are_range_checked_in_64_bits},
	    {"integers_in_every_notation_are_exact", integers_in_every_notation_are_exact},
	    {"integer_beyond_64_bits_refused", integer_beyond_64_bits_refused},
	    {"control_bytes_refused_before_parsing", control_bytes_refused_before_parsing},
	    {"include_refused_anywhere", include_refused_anywhere},
	    {"at_sign_in_strings_and_comments_accepted", at_sign_in_strings_and_comments_accepted},
	    {"agent_group_handed_over_in_64_bits", agent_group_handed_over_in_64_bits},
	    {"not_a_plain_file_refused", not_a_plain_file_refused},
	    {"histogram_bounds_are_parsed", histogram_bounds_are_parsed},
	    {"histogram_of_64_buckets_up_to_2_pow_63_accepted",
	     histogram_of_64_buckets_up_to_2_pow_63_accepted},
	    {"bad_explicit_buckets_rejected", bad_explicit_buckets_rejected},
	    {"bad_exponential_buckets_rejected", bad_exponential_buckets_rejected},
	    {"histogram_cells_count_against_the_limit", histogram_cells_count_against_the_limit},
	    {NULL, NULL},
	};

	return tu_run("config", cases);
}
