/*
 * config.c - libconfig file -> validated in-memory declaration; never touches segments.
 *
 * Owns every rule of docs/config.md: which settings exist, their types,
 * defaults and limits, uniqueness, and the derived cell numbering (tables in
 * declared order, row-major).  Every string is copied out of libconfig, so
 * the result owns all it points to.  Errors read "FILE:LINE: SETTING: what",
 * SETTING being the libconfig path ("segments.[0].tables.[1].rows").  The
 * top-level "agent" and "exporter" groups are not the library's: they are
 * kept as read, with the parse tree, for statctr_config_group()
 * (mib/settings.c checks them), but for agent.conf_dir: the fragments it
 * names are read here, with the main file, as one declaration.
 */
#include "confread.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_OID          2147483647u /* SNMP sub-identifiers: 1..2^31-1 */
#define DEFAULT_MODE     0640
#define DEFAULT_CTL_MODE 0660

static const char *const root_keys[] = {"segments", "agent", "exporter", NULL};
/* carry_over is the agent's (mib/settings.c): the library accepts it unread. */
static const char *const segment_keys[] = {"name",      "path",     "slots",      "oid",
                                           "mode",      "ctl_mode", "group",      "tables",
                                           "cpu_slots", "epochs",   "carry_over", NULL};
static const char *const cpu_slots_keys[] = {"collapse", NULL};
static const char *const fragment_keys[] = {"segments", NULL}; /* an agent.conf_dir file's */
static const char *const epochs_keys[] = {"keep", "interval_s", NULL};
/*
 * A table's "ifmib" group is not the library's, as the top-level "agent"
 * group is not: mib/ reads it (the IF-MIB settings, docs/config.md), and
 * so it does, for one release, the deprecated keys of the same settings
 * written in the table ("standard" .. "interfaces") and in its columns
 * ("ifmib").  The library accepts them unread.
 */
static const char *const table_keys[] = {
    "name",         "oid",    "description", "rows",    "columns",    "ifmib", "standard",
    "ifindex_base", "ifType", "ifMtu",       "ifAlias", "interfaces", NULL};
/* buckets: lib/confhist.c; ifmib: as a table's, mib/'s (deprecated). */
static const char *const column_keys[] = {"name",    "kind",  "description", "units",
                                          "buckets", "ifmib", NULL};

struct row_key {
	const char *name;
	uint32_t index;
};

static int cmp_row_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

/* Row-name arrays can be long: sort the names rather than compare every pair. */
static int check_row_names_unique(const char *path, const config_setting_t *rows,
                                  const char *const *names, uint32_t n)
{
	struct row_key *keys = calloc(n, sizeof(*keys));
	uint32_t i;
	int err = 0;

	if (!keys)
		return conf_no_memory();
	for (i = 0; i < n; i++) {
		keys[i].name = names[i];
		keys[i].index = i;
	}
	qsort(keys, n, sizeof(*keys), cmp_row_key);
	for (i = 1; i < n; i++) {
		if (strcmp(keys[i - 1].name, keys[i].name) == 0) {
			err = conf_fail(path, config_setting_get_elem(rows, keys[i].index), NULL,
			                "duplicate row name \"%s\" (also row %u)", keys[i].name,
			                keys[i - 1].index);
			break;
		}
	}
	free(keys);
	return err;
}

static int parse_row_names(const char *path, const config_setting_t *rows,
                           struct statctr_table_decl *t)
{
	const char **names;
	uint32_t n = config_setting_length(rows), i;

	if (n == 0)
		return conf_fail(path, rows, NULL, "no rows (empty array)");
	if (n > STATCTR_MAX_CELLS)
		return conf_fail(path, rows, NULL, "%u rows, at most %u", n, STATCTR_MAX_CELLS);
	names = calloc(n, sizeof(*names));
	if (!names)
		return conf_no_memory();
	t->row_names = names;
	t->nrows = n;
	for (i = 0; i < n; i++) {
		const config_setting_t *el = config_setting_get_elem(rows, i);
		const char *name;
		int err;

		if (config_setting_type(el) != CONFIG_TYPE_STRING)
			return conf_fail(path, el, NULL, "expected a string, not %s",
			                 conf_type_name(config_setting_type(el)));
		name = config_setting_get_string(el);
		if (name[0] == '\0')
			return conf_fail(path, el, NULL, "empty row name");
		err = conf_check_text(path, el, NULL, name, STATCTR_MAX_ROWNAME);
		if (err)
			return err;
		err = conf_copy_string(name, &names[i]);
		if (err)
			return err;
	}
	return check_row_names_unique(path, rows, names, n);
}

/* rows = { max = N; }: a dynamic table with room for N rows named at run time. */
static int parse_dynamic_rows(const char *path, const config_setting_t *rows,
                              struct statctr_table_decl *t)
{
	static const char *const dynamic_keys[] = {"max", NULL};
	const config_setting_t *max;
	int err = conf_check_keys(path, rows, dynamic_keys);

	if (!err)
		err = conf_member(path, rows, "max", CONFIG_TYPE_INT, true, &max);
	if (!err)
		err = conf_get_uint(path, rows, "max", 1, STATCTR_MAX_CELLS, &t->nrows);
	t->dynamic = !err;
	return err;
}

/* rows = N (numbered), rows = [ "name", ... ] or rows = { max = N; } (dynamic). */
static int parse_rows(const char *path, const config_setting_t *table, struct statctr_table_decl *t)
{
	const config_setting_t *rows = config_setting_get_member(table, "rows");

	if (!rows)
		return conf_fail(path, table, "rows", "missing (required)");
	switch (config_setting_type(rows)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return conf_get_uint(path, table, "rows", 1, STATCTR_MAX_CELLS, &t->nrows);
	case CONFIG_TYPE_ARRAY:
		return parse_row_names(path, rows, t);
	case CONFIG_TYPE_GROUP:
		return parse_dynamic_rows(path, rows, t);
	default:
		return conf_fail(path, table, "rows",
		                 "expected a number of rows or an array of row names, not %s",
		                 conf_type_name(config_setting_type(rows)));
	}
}

static const char *const kind_names[] = {
    [STATCTR_KIND_COUNTER] = "counter",
    [STATCTR_KIND_GAUGE] = "gauge",
    [STATCTR_KIND_HISTOGRAM] = "histogram",
};

const char *statctr_kind_name(enum statctr_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return NULL;
	return kind_names[kind];
}

static int parse_kind(const char *path, const config_setting_t *column, enum statctr_kind *kindp)
{
	const config_setting_t *s;
	const char *kind;
	int err;

	err = conf_member(path, column, "kind", CONFIG_TYPE_STRING, true, &s);
	if (err)
		return err;
	kind = config_setting_get_string(s);
	for (unsigned k = STATCTR_KIND_COUNTER; k <= STATCTR_KIND_HISTOGRAM; k++) {
		if (strcmp(kind, kind_names[k]) == 0) {
			*kindp = (enum statctr_kind)k;
			return 0;
		}
	}
	return conf_fail(path, column, "kind",
	                 "unknown kind \"%s\" (expected \"counter\", \"gauge\" or "
	                 "\"histogram\")",
	                 kind);
}

static int parse_column(const char *path, const config_setting_t *s,
                        struct statctr_column_decl *col)
{
	int err;

	col->line = config_setting_source_line(s);
	err = conf_check_keys(path, s, column_keys);
	if (err)
		return err;
	err = conf_get_name(path, s, "name", &col->name);
	if (err)
		return err;
	err = parse_kind(path, s, &col->kind);
	if (!err)
		err = conf_get_buckets(path, s, col);
	if (err)
		return err;
	err = conf_get_text(path, s, "description", &col->description);
	if (err)
		return err;
	return conf_get_text(path, s, "units", &col->units);
}

static int parse_columns(const char *path, const config_setting_t *table,
                         struct statctr_table_decl *t)
{
	const config_setting_t *list;
	struct statctr_column_decl *cols;
	uint32_t n, i, j;
	int err;

	err = conf_get_list(path, table, "columns", &list, &n);
	if (err)
		return err;
	cols = calloc(n, sizeof(*cols));
	if (!cols)
		return conf_no_memory();
	t->columns = cols;
	t->ncolumns = n;
	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(list, i);

		err = parse_column(path, s, &cols[i]);
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (strcmp(cols[j].name, cols[i].name) == 0)
				return conf_fail(path, s, "name",
				                 "duplicate column name \"%s\" (also columns.[%u], "
				                 "line %d)",
				                 cols[i].name, j, cols[j].line);
	}
	return 0;
}

static int parse_table(const char *path, const config_setting_t *s, uint32_t index,
                       struct statctr_table_decl *t)
{
	int err;

	t->line = config_setting_source_line(s);
	t->oid = index + 1;
	err = conf_check_keys(path, s, table_keys);
	if (err)
		return err;
	err = conf_get_name(path, s, "name", &t->name);
	if (err)
		return err;
	err = conf_get_uint(path, s, "oid", 1, MAX_OID, &t->oid);
	if (err)
		return err;
	err = conf_get_text(path, s, "description", &t->description);
	if (err)
		return err;
	err = parse_rows(path, s, t);
	if (err)
		return err;
	return parse_columns(path, s, t);
}

static int check_table_unique(const char *path, const config_setting_t *s,
                              const struct statctr_table_decl *tables, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < i; j++) {
		if (strcmp(tables[j].name, tables[i].name) == 0)
			return conf_fail(path, s, "name",
			                 "duplicate table name \"%s\" (also tables.[%u], line %d)",
			                 tables[i].name, j, tables[j].line);
		if (tables[j].oid == tables[i].oid)
			return conf_fail(path, s, "oid",
			                 "duplicate table oid %u (also tables.[%u], line %d)",
			                 tables[i].oid, j, tables[j].line);
	}
	return 0;
}

/* Parses the tables and numbers their cells: tables in declared order, row-major. */
static int parse_tables(const char *path, const config_setting_t *segment,
                        struct statctr_segment_decl *seg)
{
	struct statctr_table_decl *tables;
	const config_setting_t *list;
	uint64_t ncells = 0, hist_cells = 0; /* bucket blocks follow every grid */
	uint32_t n, i;
	int err;

	err = conf_get_list(path, segment, "tables", &list, &n);
	if (err)
		return err;
	tables = calloc(n, sizeof(*tables));
	if (!tables)
		return conf_no_memory();
	seg->tables = tables;
	seg->ntables = n;
	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(list, i);

		err = parse_table(path, s, i, &tables[i]);
		if (err)
			return err;
		err = check_table_unique(path, s, tables, i);
		if (err)
			return err;
		tables[i].first_cell = ncells;
		ncells += (uint64_t)tables[i].nrows * tables[i].ncolumns;
		hist_cells += conf_hist_cells(&tables[i]);
		if (ncells + hist_cells > STATCTR_MAX_CELLS)
			return conf_fail(
			    path, s, NULL,
			    "too many cells: %llu in the segment's tables up to this one, "
			    "at most %u",
			    (unsigned long long)(ncells + hist_cells), STATCTR_MAX_CELLS);
	}
	seg->ncells = ncells + hist_cells;
	return 0;
}

/*
 * The optional absolute path; "/dev/shm/statctr.<name>" when absent.  The
 * agent serves it as statctrSegmentPath, a DisplayString: printable ASCII,
 * at most STATCTR_MAX_PATH characters.
 */
static int parse_seg_path(const char *path, const config_setting_t *segment,
                          struct statctr_segment_decl *seg)
{
	const config_setting_t *s;
	int err;

	err = conf_member(path, segment, "path", CONFIG_TYPE_STRING, false, &s);
	if (err)
		return err;
	if (!s) {
		char dflt[sizeof("/dev/shm/statctr.") + STATCTR_MAX_NAME];

		snprintf(dflt, sizeof(dflt), "/dev/shm/statctr.%s", seg->name);
		return conf_copy_string(dflt, &seg->path);
	}
	err =
	    conf_check_text(path, segment, "path", config_setting_get_string(s), STATCTR_MAX_PATH);
	if (err)
		return err;
	if (config_setting_get_string(s)[0] != '/')
		return conf_fail(path, segment, "path", "\"%s\" is not an absolute path",
		                 config_setting_get_string(s));
	return conf_copy_string(config_setting_get_string(s), &seg->path);
}

static int parse_group(const char *path, const config_setting_t *segment,
                       struct statctr_segment_decl *seg)
{
	const config_setting_t *s;
	int err;

	err = conf_member(path, segment, "group", CONFIG_TYPE_STRING, false, &s);
	if (err || !s)
		return err;
	if (config_setting_get_string(s)[0] == '\0')
		return conf_fail(path, segment, "group", "empty group name");
	return conf_copy_string(config_setting_get_string(s), &seg->group);
}

static uint32_t online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > STATCTR_MAX_SLOTS)
		return STATCTR_MAX_SLOTS;
	return n;
}

/*
 * `cpu_slots = true;` (a CPU slot per CPU), `false` (none, the default) or
 * `{ collapse = N; }` (docs/config.md, "CPU slots").
 */
static int parse_cpu_slots(const char *path, const config_setting_t *segment,
                           struct statctr_segment_decl *seg)
{
	const config_setting_t *s = config_setting_get_member(segment, "cpu_slots");
	int err;

	seg->cpu_collapse = 0;
	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		seg->cpu_collapse = config_setting_get_bool(s) ? 1 : 0;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return conf_fail(path, segment, "cpu_slots",
		                 "expected true, false or a group, not %s",
		                 conf_type_name(config_setting_type(s)));
	err = conf_check_keys(path, s, cpu_slots_keys);
	if (!err && !config_setting_get_member(s, "collapse"))
		err = conf_fail(path, s, "collapse", "missing (required)");
	seg->cpu_collapse = 1;
	if (!err)
		err = conf_get_uint(path, s, "collapse", 1, STATCTR_MAX_CPUS, &seg->cpu_collapse);
	return err;
}

/*
 * `epochs = { keep = K; interval_s = S; };` (docs/epochs.md): K epochs kept,
 * an interval epoch every S seconds (the agent's schedule; 0: none).
 */
static int parse_epochs(const char *path, const config_setting_t *segment,
                        struct statctr_segment_decl *seg)
{
	const config_setting_t *e = config_setting_get_member(segment, "epochs");
	int err;

	seg->epoch_keep = 0;
	seg->epoch_interval_s = 0;
	if (!e)
		return 0;
	if (config_setting_type(e) != CONFIG_TYPE_GROUP)
		return conf_fail(path, segment, "epochs", "expected a group, not %s",
		                 conf_type_name(config_setting_type(e)));
	err = conf_check_keys(path, e, epochs_keys);
	if (!err && !config_setting_get_member(e, "keep"))
		err = conf_fail(path, e, "keep", "missing (required)");
	if (!err)
		err = conf_get_uint(path, e, "keep", 1, STATCTR_MAX_EPOCHS, &seg->epoch_keep);
	if (!err)
		err = conf_get_uint(path, e, "interval_s", 1, STATCTR_MAX_EPOCH_INTERVAL_S,
		                    &seg->epoch_interval_s);
	return err;
}

static int parse_segment(const char *path, const config_setting_t *s, uint32_t index,
                         struct statctr_segment_decl *seg)
{
	int err;

	seg->line = config_setting_source_line(s);
	seg->oid = index + 1;
	seg->nslots = online_cpus();
	seg->mode = DEFAULT_MODE;
	seg->ctl_mode = DEFAULT_CTL_MODE;
	err = conf_check_keys(path, s, segment_keys);
	if (err)
		return err;
	err = conf_get_name(path, s, "name", &seg->name);
	if (err)
		return err;
	err = parse_seg_path(path, s, seg);
	if (err)
		return err;
	err = parse_cpu_slots(path, s, seg);
	if (err)
		return err;
	/* With CPU slots, thread slots are optional. */
	err = conf_get_uint(path, s, "slots", seg->cpu_collapse > 0 ? 0 : 1, STATCTR_MAX_SLOTS,
	                    &seg->nslots);
	if (err)
		return err;
	err = conf_get_uint(path, s, "oid", 1, MAX_OID, &seg->oid);
	if (err)
		return err;
	err = conf_get_mode(path, s, "mode", &seg->mode);
	/* The writer slots hold the writer's histogram descriptors (statctr.h,
	 * "Histograms"): the segment is its writer's alone.  Resetters write
	 * the control file, whose ctl_mode may let the group write. */
	if (!err && (seg->mode & S_IWGRP))
		err = conf_fail(path, s, "mode",
		                "mode %04o lets the group write the segment: only its writer may",
		                seg->mode);
	if (err)
		return err;
	err = conf_get_mode(path, s, "ctl_mode", &seg->ctl_mode);
	if (err)
		return err;
	err = parse_group(path, s, seg);
	if (err)
		return err;
	err = parse_epochs(path, s, seg);
	if (err)
		return err;
	return parse_tables(path, s, seg);
}

/*
 * Where segments.[@j] is, for a duplicate's message: "segments.[J], line
 * L" in the same file as @s, else "FILE:L" (a conf_dir fragment).
 */
static const char *other_place(const char *path, const config_setting_t *list,
                               const config_setting_t *s, uint32_t j, int line, char *buf,
                               size_t size)
{
	const char *here = config_setting_source_file(s);
	const char *there = config_setting_source_file(config_setting_get_elem(list, j));

	if ((here ? here : path) == (there ? there : path) ||
	    strcmp(here ? here : path, there ? there : path) == 0)
		snprintf(buf, size, "segments.[%u], line %d", j, line);
	else
		snprintf(buf, size, "%s:%d", there ? there : path, line);
	return buf;
}

static int check_segment_unique(const char *path, const config_setting_t *list,
                                const config_setting_t *s, const struct statctr_segment_decl *segs,
                                uint32_t i)
{
	char where[300];
	uint32_t j;

	for (j = 0; j < i; j++) {
		if (strcmp(segs[j].name, segs[i].name) == 0)
			return conf_fail(
			    path, s, "name", "duplicate segment name \"%s\" (also %s)",
			    segs[i].name,
			    other_place(path, list, s, j, segs[j].line, where, sizeof(where)));
		if (segs[j].oid == segs[i].oid)
			return conf_fail(
			    path, s, "oid", "duplicate segment oid %u (also %s)", segs[i].oid,
			    other_place(path, list, s, j, segs[j].line, where, sizeof(where)));
		if (strcmp(segs[j].path, segs[i].path) == 0)
			return conf_fail(
			    path, s, "path", "duplicate segment path \"%s\" (also %s)",
			    segs[i].path,
			    other_place(path, list, s, j, segs[j].line, where, sizeof(where)));
	}
	return 0;
}

/*
 * The top level: "segments", and "agent" and "exporter", which belong to
 * statctr-agentx and statctr-exporter: the library hands them over as read
 * (statctr_config_group()) and never looks inside; mib/settings.c
 * validates them.
 */
static int parse_root(const char *path, const config_setting_t *root, struct statctr_config *cfg)
{
	struct statctr_segment_decl *segs;
	const config_setting_t *list;
	uint32_t n, i;
	int err;

	err = conf_check_keys(path, root, root_keys);
	if (err)
		return err;
	err = conf_get_list(path, root, "segments", &list, &n);
	if (err)
		return err;
	segs = calloc(n, sizeof(*segs));
	if (!segs)
		return conf_no_memory();
	cfg->segments = segs;
	cfg->nsegments = n;
	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(list, i);

		err = parse_segment(path, s, i, &segs[i]);
		if (err)
			return err;
		err = check_segment_unique(path, list, s, segs, i);
		if (err)
			return err;
	}
	return 0;
}

#define MAX_CONFIG_BYTES (1024 * 1024) /* a declaration of STATCTR_MAX_CELLS cells fits */

/* Where byte @off of @text is, as "line:column" counted from 1. */
static void locate(const char *text, size_t off, unsigned *linep, unsigned *colp)
{
	unsigned line = 1, col = 1;

	for (size_t i = 0; i < off; i++) {
		col++;
		if (text[i] == '\n') {
			line++;
			col = 1;
		}
	}
	*linep = line;
	*colp = col;
}

static int fail_at(const char *path, const char *text, size_t off, const char *what)
{
	unsigned line, col;

	locate(text, off, &line, &col);
	return errmsg_set(EINVAL, "%s:%u:%u: %s", path, line, col, what);
}

/* '@' starts a directive, and the only one libconfig has is @include. */
static int refuse_directive(const char *path, const char *text, size_t off)
{
	unsigned line, col;

	locate(text, off, &line, &col);
	return errmsg_set(EINVAL, "%s:%u: @include is not supported (column %u)", path, line, col);
}

/*
 * A NUL or another control byte (tab, LF and CR excepted) is refused before
 * anything parses the file: libconfig reads a NUL as the end of a line and
 * could then see what follows differently from any check made on the text.
 */
static int check_bytes(const char *path, const char *text, size_t len)
{
	char what[64];

	for (size_t i = 0; i < len; i++) {
		unsigned char c = text[i];

		if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r')
			continue;
		snprintf(what, sizeof(what), "control byte 0x%02x (only tab, LF and CR allowed)",
		         c);
		return fail_at(path, text, i, what);
	}
	return 0;
}

/* Length of the quoted string at @p (which is '"'), quotes included. */
static size_t string_len(const char *p)
{
	size_t i = 1;

	while (p[i] && p[i] != '"')
		i += p[i] == '\\' && p[i + 1] ? 2 : 1;
	return p[i] ? i + 1 : i;
}

/* Length of the comment at @p, or 0 when none starts there. */
static size_t comment_len(const char *p)
{
	const char *end;

	if (p[0] == '#' || (p[0] == '/' && p[1] == '/'))
		return strcspn(p, "\n");
	if (p[0] != '/' || p[1] != '*')
		return 0;
	end = strstr(p + 2, "*/");
	return end ? (size_t)(end - p) + 2 : strlen(p);
}

static bool starts_number(const char *p)
{
	if (*p == '-' || *p == '+')
		p++;
	return (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9');
}

/*
 * Copies the number at @p to @out and returns its length in @p.  An
 * integer gets the suffix L when it has none, so that libconfig reads
 * every integer in 64 bits (without it, libconfig 1.5 silently keeps the
 * low 32 bits of 4294967298).  A float is copied as it is.  *overflowp is
 * set when the integer does not fit in 64 bits.
 */
static size_t widen_number(const char *p, char *out, size_t *outlen, bool *overflowp)
{
	bool hex = false, negative = false;
	unsigned long long value = 0, limit;
	size_t i = 0, start;

	if (p[i] == '-' || p[i] == '+')
		negative = p[i++] == '-';
	if (p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) {
		hex = true;
		i += 2;
	}
	start = i;
	limit = negative ? 9223372036854775808ull : 9223372036854775807ull;
	for (; hex ? isxdigit((unsigned char)p[i]) : isdigit((unsigned char)p[i]); i++) {
		unsigned digit =
		    isdigit((unsigned char)p[i]) ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10;

		*overflowp |= value > (limit - digit) / (hex ? 16 : 10);
		value = value * (hex ? 16 : 10) + digit;
	}
	if (!hex && (p[i] == '.' || p[i] == 'e' || p[i] == 'E')) {
		i += strspn(p + i, "0123456789.eE");
		if (p[i - 1] == 'e' || p[i - 1] == 'E')
			i += strspn(p + i, "+-0123456789");
		*overflowp = false;
	} else if (i > start && p[i] != 'L') {
		memcpy(out + *outlen, p, i);
		*outlen += i;
		out[(*outlen)++] = 'L';
		return i;
	}
	i += strspn(p + i, "L");
	memcpy(out + *outlen, p, i);
	*outlen += i;
	return i;
}

/*
 * Copies @text to @out (room for 2 * @len + 1 bytes) with every integer
 * widened to 64 bits, and refuses '@' outside strings and comments: the
 * only directive libconfig has is @include, and one declaration is one
 * regular file (an included directory makes libconfig 1.5 exit() the
 * process, an included FIFO blocks it).
 */
static int widen_integers(const char *path, const char *text, char *out)
{
	size_t i = 0, outlen = 0, n;

	while (text[i]) {
		bool overflow = false;

		if (text[i] == '@')
			return refuse_directive(path, text, i);
		if (text[i] == '"')
			n = string_len(text + i);
		else if ((n = comment_len(text + i)) == 0 && isalpha((unsigned char)text[i]))
			n = strspn(text + i, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			                     "0123456789_-*");
		if (n == 0 && starts_number(text + i)) {
			n = widen_number(text + i, out, &outlen, &overflow);
			if (overflow)
				return fail_at(path, text, i, "integer does not fit in 64 bits");
		} else {
			n = n ? n : 1;
			memcpy(out + outlen, text + i, n);
			outlen += n;
		}
		i += n;
	}
	out[outlen] = '\0';
	return 0;
}

/*
 * Reads all of @path, a regular file of at most MAX_CONFIG_BYTES, into a
 * NUL-terminated buffer.  Opened non-blocking (a FIFO cannot hang us) and
 * without following a symbolic link, and checked with fstat() before any
 * byte is read.
 */
static int read_text(const char *path, char **textp, size_t *lenp)
{
	struct stat st;
	char *text;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return errmsg_set(err, "%s: %s", path,
		                  err == ELOOP ? "a symbolic link (refused)" : strerror(err));
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		return errmsg_set(err, "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return errmsg_set(S_ISDIR(st.st_mode) ? EISDIR : EINVAL, "%s: not a regular file",
		                  path);
	}
	if (st.st_size > MAX_CONFIG_BYTES) {
		close(fd);
		return errmsg_set(EFBIG, "%s: %lld bytes, at most %d", path, (long long)st.st_size,
		                  MAX_CONFIG_BYTES);
	}
	text = malloc(MAX_CONFIG_BYTES + 1);
	if (!text) {
		close(fd);
		return conf_no_memory();
	}
	n = read(fd, text, MAX_CONFIG_BYTES + 1);
	err = errno;
	close(fd);
	if (n < 0 || n > MAX_CONFIG_BYTES) {
		free(text);
		return errmsg_set(n < 0 ? err : EFBIG, "%s: %s", path,
		                  n < 0 ? strerror(err) : "grew past the size limit while read");
	}
	text[n] = '\0';
	*textp = text;
	*lenp = n;
	return 0;
}

/*
 * Reads @path into @lc: bytes checked, integers widened, @include refused
 * by widen_integers() and, should one get past it, by libconfig itself:
 * include files are looked up under "/dev/null", which is no directory,
 * so opening any of them fails with ENOTDIR.
 */
static int read_file(const char *path, config_t *lc)
{
	char *text = NULL, *wide;
	size_t len = 0;
	int err;

	err = read_text(path, &text, &len);
	if (err)
		return err;
	err = check_bytes(path, text, len);
	wide = err ? NULL : malloc(2 * len + 1);
	if (!err && !wide)
		err = conf_no_memory();
	if (!err)
		err = widen_integers(path, text, wide);
	free(text);
	if (!err) {
		config_set_include_dir(lc, "/dev/null");
		if (!config_read_string(lc, wide))
			err = errmsg_set(EINVAL, "%s:%d: %s", path, config_error_line(lc),
			                 config_error_text(lc));
	}
	free(wide);
	return err;
}

/*
 * A declaration and the libconfig tree it was parsed from.  The tree lives
 * as long as the declaration: statctr_config_group() hands groups the
 * library does not own (the agent's) to their reader, so the file is read
 * once, with the checks of read_file().
 */
struct config_file {
	struct statctr_config decl; /* first: what users hold points here */
	config_t lc;
	char **fragments; /* the conf_dir files merged in: their settings' source file */
	uint32_t nfragments;
};

/* ------------------------------------------------------------------------
 * agent.conf_dir: a directory of fragments, each declaring segments, read
 * with the main file as one declaration (docs/config.md, "Fragments").
 * Each fragment's segments are copied into the main tree's "segments" list,
 * every copied setting keeping its fragment's name and line, so that every
 * message names the fragment's file:line.
 */

#define MAX_FRAGMENTS 1024

static int copy_setting(config_setting_t *to, const config_setting_t *from, const char *file);

static int copy_members(config_setting_t *to, const config_setting_t *from, const char *file)
{
	for (int i = 0; i < config_setting_length(from); i++) {
		int err = copy_setting(to, config_setting_get_elem(from, (unsigned)i), file);

		if (err)
			return err;
	}
	return 0;
}

static int copy_setting(config_setting_t *parent, const config_setting_t *from, const char *file)
{
	int type = config_setting_type(from);
	config_setting_t *to = config_setting_add(parent, config_setting_name(from), type);
	int ok = 1;

	if (!to)
		return conf_no_memory();
	to->line = from->line;
	to->file = file;
	switch (type) {
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		return copy_members(to, from, file);
	case CONFIG_TYPE_INT:
		ok = config_setting_set_int(to, config_setting_get_int(from));
		break;
	case CONFIG_TYPE_INT64:
		ok = config_setting_set_int64(to, config_setting_get_int64(from));
		break;
	case CONFIG_TYPE_FLOAT:
		ok = config_setting_set_float(to, config_setting_get_float(from));
		break;
	case CONFIG_TYPE_BOOL:
		ok = config_setting_set_bool(to, config_setting_get_bool(from));
		break;
	case CONFIG_TYPE_STRING:
		ok = config_setting_set_string(to, config_setting_get_string(from));
		break;
	default:
		break;
	}
	return ok ? 0 : conf_no_memory();
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of @dir's fragments ("*.conf", not hidden), sorted; *@np of them. */
static int list_fragments(const char *dir, char ***namesp, uint32_t *np)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char **names = NULL;
	uint32_t n = 0;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return errmsg_set(errno, "%s: %s", dir,
		                  errno == ELOOP ? "a symbolic link (refused)" : strerror(errno));
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return errmsg_set(errno, "%s: %s", dir, strerror(errno));
	}
	names = calloc(MAX_FRAGMENTS, sizeof(*names));
	while (names && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".conf") != 0)
			continue;
		if (n == MAX_FRAGMENTS) {
			closedir(d);
			*namesp = names;
			*np = n;
			return errmsg_set(EFBIG, "%s: more than %d fragments", dir, MAX_FRAGMENTS);
		}
		if (!(names[n++] = strdup(e->d_name))) {
			closedir(d);
			*namesp = names;
			*np = n;
			return conf_no_memory();
		}
	}
	closedir(d);
	if (!names)
		return conf_no_memory();
	qsort(names, n, sizeof(*names), by_name);
	*namesp = names;
	*np = n;
	return 0;
}

/* agent.conf_dir of @path's tree, as a path (relative: to @path's directory), or NULL. */
static int conf_dir_of(const char *path, config_t *lc, char **dirp)
{
	const config_setting_t *agent = config_setting_get_member(config_root_setting(lc), "agent");
	const config_setting_t *s = agent && config_setting_is_group(agent)
	                                ? config_setting_get_member(agent, "conf_dir")
	                                : NULL;
	const char *dir, *slash;

	*dirp = NULL;
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !*config_setting_get_string(s))
		return conf_fail(path, s, NULL, "expected a directory's path (a non-empty string)");
	dir = config_setting_get_string(s);
	slash = strrchr(path, '/');
	if (dir[0] == '/' || !slash)
		*dirp = strdup(dir);
	else if (asprintf(dirp, "%.*s/%s", (int)(slash - path), path, dir) < 0)
		*dirp = NULL;
	return *dirp ? 0 : conf_no_memory();
}

/* One fragment: "segments" only, each copied into @list. */
static int merge_fragment(struct config_file *cf, const char *main, const char *file,
                          config_setting_t *list)
{
	const config_setting_t *root, *segs, *agent;
	config_t flc;
	int err;

	config_init(&flc);
	err = read_file(file, &flc);
	root = err ? NULL : config_root_setting(&flc);
	agent = root ? config_setting_get_member(root, "agent") : NULL;
	if (agent)
		err = conf_fail(file, agent, NULL, "the agent group belongs in the main file, %s",
		                main);
	if (!err && root)
		err = conf_check_keys(file, root, fragment_keys);
	segs = !err && root ? config_setting_get_member(root, "segments") : NULL;
	if (!err && root && (!segs || !config_setting_is_list(segs)))
		err = conf_fail(file, root, "segments",
		                "a fragment declares segments: segments = ( { ... } );");
	/* @file is the name cf keeps: it outlives @flc, as the copies' source file. */
	for (int i = 0; !err && i < config_setting_length(segs); i++) {
		const config_setting_t *s = config_setting_get_elem(segs, (unsigned)i);

		if (!config_setting_is_group(s))
			err = conf_fail(file, s, NULL, "expected a group: { name = ...; ... }");
		else
			err = copy_setting(list, s, file);
	}
	config_destroy(&flc);
	return err;
}

/* The fragments of agent.conf_dir, if set, merged into @cf's tree. */
static int merge_fragments(struct config_file *cf, const char *path)
{
	config_setting_t *root = config_root_setting(&cf->lc), *list;
	char *dir = NULL, **names = NULL;
	uint32_t n = 0;
	int err = conf_dir_of(path, &cf->lc, &dir);

	if (err || !dir)
		return err;
	err = list_fragments(dir, &names, &n);
	list = config_setting_get_member(root, "segments");
	if (!err && !list)
		list = config_setting_add(root, "segments", CONFIG_TYPE_LIST);
	if (!err && !list)
		err = conf_no_memory();
	if (!err && n)
		cf->fragments = calloc(n, sizeof(*cf->fragments));
	if (!err && n && !cf->fragments)
		err = conf_no_memory();
	for (uint32_t i = 0; !err && i < n; i++) {
		if (asprintf(&cf->fragments[i], "%s/%s", dir, names[i]) < 0) {
			cf->fragments[i] = NULL;
			err = conf_no_memory();
			break;
		}
		cf->nfragments = i + 1;
		/* A main file's segments that are no list: parse_root() says so. */
		if (config_setting_is_list(list))
			err = merge_fragment(cf, path, cf->fragments[i], list);
	}
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	return err;
}

static struct config_file *config_file_of(const struct statctr_config *cfg)
{
	return (struct config_file *)((const char *)cfg - offsetof(struct config_file, decl));
}

int statctr_config_load(const char *path, struct statctr_config **cfgp)
{
	struct config_file *cf;
	int err;

	*cfgp = NULL;
	cf = calloc(1, sizeof(*cf));
	if (!cf)
		return conf_no_memory();
	config_init(&cf->lc);
	err = conf_copy_string(path, &cf->decl.file);
	if (!err)
		err = read_file(path, &cf->lc);
	if (!err)
		err = merge_fragments(cf, path);
	if (!err)
		err = parse_root(path, config_root_setting(&cf->lc), &cf->decl);
	if (err) {
		statctr_config_free(&cf->decl);
		return err;
	}
	*cfgp = &cf->decl;
	return 0;
}

const void *statctr_config_group(const struct statctr_config *cfg, const char *name)
{
	return config_setting_get_member(config_root_setting(&config_file_of(cfg)->lc), name);
}

int statctr_config_error(const struct statctr_config *cfg, const void *setting, int err,
                         const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	if (setting) {
		err = conf_vfail(err, cfg->file, setting, NULL, fmt, ap);
	} else {
		vsnprintf(what, sizeof(what), fmt, ap);
		err = errmsg_set(err, "%s: %s", cfg->file, what);
	}
	va_end(ap);
	return err;
}

/* The declaration's strings and arrays are const to users; this module allocated them. */
static void free_table(const struct statctr_table_decl *t)
{
	uint32_t i;

	for (i = 0; i < t->ncolumns; i++) {
		free((void *)t->columns[i].name);
		free((void *)t->columns[i].description);
		free((void *)t->columns[i].units);
		free((void *)t->columns[i].bounds);
	}
	for (i = 0; t->row_names && i < t->nrows; i++)
		free((void *)t->row_names[i]);
	free((void *)t->row_names);
	free((void *)t->columns);
	free((void *)t->name);
	free((void *)t->description);
}

void statctr_config_free(struct statctr_config *cfg)
{
	uint32_t i, j;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nsegments; i++) {
		const struct statctr_segment_decl *seg = &cfg->segments[i];

		for (j = 0; j < seg->ntables; j++)
			free_table(&seg->tables[j]);
		free((void *)seg->tables);
		free((void *)seg->name);
		free((void *)seg->path);
		free((void *)seg->group);
	}
	free((void *)cfg->segments);
	free((void *)cfg->file);
	config_destroy(&config_file_of(cfg)->lc);
	for (i = 0; i < config_file_of(cfg)->nfragments; i++)
		free(config_file_of(cfg)->fragments[i]);
	free(config_file_of(cfg)->fragments);
	free(config_file_of(cfg));
}

const struct statctr_segment_decl *statctr_config_find(const struct statctr_config *cfg,
                                                       const char *name)
{
	uint32_t i;

	for (i = 0; i < cfg->nsegments; i++)
		if (strcmp(cfg->segments[i].name, name) == 0)
			return &cfg->segments[i];
	errmsg_set(ENOENT, "%s: no segment named \"%s\"", cfg->file, name);
	return NULL;
}
