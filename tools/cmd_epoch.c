/*
 * cmd_epoch.c - epochs on the command line: epoch list|start, diff, and
 * the intervals show --since/--epoch print (docs/epochs.md).
 *
 * Owns the choice of an epoch's interval (to the next kept epoch, or to
 * the snapshot) and the per-cell comparison of two intervals.  Counts come
 * from statctr_snap_epoch_delta() only; a count the library refuses is
 * reported, never printed as a number.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_RATIO 2.0

static const char epoch_help[] =
    "\n'epoch list' prints the epochs each segment keeps, oldest first: number,\n"
    "start (UTC) and name.  'epoch start NAME' starts one (needs the rights a reset\n"
    "needs): one snapshot's totals become its base; no value and no discontinuity\n"
    "time changes.  Without SEGMENT: every segment found that declares epochs.\n";

static const char diff_help[] =
    "  -t, --threshold=R    flag cells whose ratio is above R or below 1/R\n"
    "                       (default 2)\n"
    "  -a, --all            print every counter, not only the flagged ones\n" FIELD_HELP
    "\nThe interval of epoch E runs from its start to the next kept epoch's, or to\n"
    "now for the latest.  Per counter: the counts of E1's and E2's intervals and\n"
    "their ratio E2/E1 (inf when E1 counted nothing and E2 did), as PCP's pmdiff.\n"
    "ROW is the row's name (declared, or a dynamic row's), or its number from 0\n"
    "for numbered rows, as show prints it.\n";

void epochs_json(FILE *out, struct statctr_view *view)
{
	static struct statctr_epoch list[STATCTR_MAX_EPOCHS];
	uint32_t n = statctr_view_epochs(view, list, STATCTR_MAX_EPOCHS);

	fputs(",\"epochs\":[", out);
	for (uint32_t i = 0; i < n && i < STATCTR_MAX_EPOCHS; i++) {
		fprintf(out, "%s{\"number\":%u,\"start_ns\":%llu,\"name\":", i ? "," : "",
		        list[i].number, (unsigned long long)list[i].start_ns);
		json_string(out, list[i].name);
		fputc('}', out);
	}
	fputc(']', out);
}

static void utc(char *buf, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void list_one(const struct source *src, bool *first)
{
	static struct statctr_epoch list[STATCTR_MAX_EPOCHS];
	uint32_t n = statctr_view_epochs(src->view, list, STATCTR_MAX_EPOCHS);
	char when[32];

	for (uint32_t i = 0; i < n && i < STATCTR_MAX_EPOCHS; i++) {
		if (*first)
			printf("%-16s %10s  %-20s  %s\n", "SEGMENT", "EPOCH", "START (UTC)",
			       "NAME");
		*first = false;
		utc(when, sizeof(when), list[i].start_ns);
		text_print(stdout, "%-16s %10u  %-20s  %s", src->info.name, list[i].number, when,
		           list[i].name);
		putchar('\n'); /* text_print() escapes control bytes */
	}
}

/* Whether @src has epochs; said so for a SEGMENT named (@named) that has none. */
static bool has_epochs(struct source *src, bool named)
{
	struct statctr_epoch_status st;

	if (src->view == NULL)
		return false;
	if (statctr_view_epoch_status(src->view, &st) == 0)
		return true;
	if (named)
		error_msg("segment '%s': %s", src->label, statctr_errmsg());
	return false;
}

static int epoch_list(const struct common_opts *opts, const char *segment)
{
	struct source *srcs;
	size_t n;
	int status = sources_open(opts, segment, false, &srcs, &n);
	bool first = true;

	if (opts->format == FORMAT_JSON)
		fputs("{\"segments\":[", stdout);
	for (size_t i = 0, shown = 0; i < n; i++) {
		if (!has_epochs(&srcs[i], segment != NULL)) {
			status = segment ? EXIT_FAIL : status;
			continue;
		}
		statctr_view_info(srcs[i].view, &srcs[i].info);
		if (opts->format == FORMAT_JSON) {
			fputs(shown++ ? ",{\"name\":" : "{\"name\":", stdout);
			json_string(stdout, srcs[i].info.name);
			epochs_json(stdout, srcs[i].view);
			fputc('}', stdout);
		} else {
			list_one(&srcs[i], &first);
		}
	}
	if (opts->format == FORMAT_JSON)
		fputs("]}\n", stdout);
	sources_close(srcs, n);
	return status;
}

static int epoch_start(const struct common_opts *opts, const char *name, const char *segment)
{
	struct source *srcs;
	size_t n, started = 0;
	int status = sources_open(opts, segment, false, &srcs, &n);

	for (size_t i = 0; i < n; i++) {
		uint32_t number;

		if (!has_epochs(&srcs[i], segment != NULL)) {
			status = segment ? EXIT_FAIL : status;
			continue;
		}
		statctr_view_info(srcs[i].view, &srcs[i].info);
		if (statctr_epoch_start(srcs[i].view, name, &number) != 0) {
			error_msg("segment '%s': epoch start: %s", srcs[i].label, statctr_errmsg());
			status = EXIT_FAIL;
			continue;
		}
		started++;
		text_print(stdout, "%s: epoch %u \"%s\" started", srcs[i].info.name, number, name);
		putchar('\n');
	}
	if (started == 0 && status == EXIT_OK) {
		error_msg("no segment declares epochs");
		status = EXIT_FAIL;
	}
	sources_close(srcs, n);
	return status;
}

int cmd_epoch(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "epoch", .help = epoch_help, .common = &opts};
	int nargs;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	nargs = argc - optind;
	if (nargs >= 1 && strcmp(argv[optind], "list") == 0 && nargs <= 2)
		return epoch_list(&opts, nargs == 2 ? argv[optind + 1] : NULL);
	if (nargs >= 2 && strcmp(argv[optind], "start") == 0 && nargs <= 3)
		return epoch_start(&opts, argv[optind + 1], nargs == 3 ? argv[optind + 2] : NULL);
	return usage_error("epoch", "expected 'list [SEGMENT]' or 'start NAME [SEGMENT]'");
}

/* ---- diff ---- */

struct diff_opts {
	double threshold;
	bool all;
	const struct field_globs *fields;
	uint32_t e[2];
	uint32_t to[2];
};

static bool flagged(const struct diff_opts *d, uint64_t a, uint64_t b, double *ratio)
{
	if (a == 0) {
		*ratio = b == 0 ? 1.0 : INFINITY;
		return b != 0;
	}
	*ratio = (double)b / (double)a;
	return *ratio > d->threshold || *ratio < 1.0 / d->threshold;
}

/* One counter cell: 0, or -1 when a count was refused (reported). */
static int diff_cell(const struct diff_opts *d, const struct source *src, uint32_t table,
                     const struct statctr_table_info *t, const char *column, uint32_t row,
                     statctr_id id)
{
	uint64_t count[2];
	double ratio;
	char label[16];
	/* The name show prints: declared, or a dynamic row's in this snapshot. */
	const char *name = statctr_snap_row_name(src->snap, table, row);

	for (int i = 0; i < 2; i++)
		if (statctr_snap_epoch_delta(src->snap, id, d->e[i], d->to[i], &count[i]) != 0) {
			error_msg("segment '%s': %s", src->label, statctr_errmsg());
			return -1;
		}
	if (!flagged(d, count[0], count[1], &ratio) && !d->all)
		return 0;
	snprintf(label, sizeof(label), "%u", row);
	text_print(stdout, "%-16s %-16s %-12s %-16s %14llu %14llu %10.3f%s", src->info.name,
	           t->name, name ? name : label, column, (unsigned long long)count[0],
	           (unsigned long long)count[1], ratio,
	           flagged(d, count[0], count[1], &ratio) ? "  !" : "");
	putchar('\n');
	return 0;
}

static int diff_table(const struct diff_opts *d, const struct source *src, uint32_t t)
{
	struct statctr_table_info info;
	struct statctr_column_info col;

	if (statctr_view_table(src->view, t, &info) != 0)
		return -1;
	for (uint32_t c = 0; c < info.ncolumns; c++) {
		if (statctr_view_column(src->view, t, c, &col) != 0 ||
		    col.kind != STATCTR_KIND_COUNTER ||
		    !field_selected(d->fields, src->info.name, info.name, col.name))
			continue;
		for (uint32_t r = 0; r < info.nrows; r++) {
			if (info.dynamic && statctr_snap_row_name(src->snap, t, r) == NULL)
				continue;
			if (diff_cell(d, src, t, &info, col.name, r,
			              info.first_cell + r * info.ncolumns + c) < 0)
				return -1;
		}
	}
	return 0;
}

static int diff_source(struct diff_opts *d, struct source *src, const char *table, bool named)
{
	uint32_t t;

	if (!has_epochs(src, named))
		return named ? -1 : 0;
	if (source_snap(src) < 0)
		return -1;
	statctr_view_info(src->view, &src->info);
	for (int i = 0; i < 2; i++)
		if (epoch_next(src->view, d->e[i], &d->to[i]) != 0) {
			error_msg("segment '%s': epoch %u is not kept", src->label, d->e[i]);
			return -1;
		}
	if (table) {
		if (find_table(src->view, table, &t) < 0)
			return -1;
		return diff_table(d, src, t);
	}
	for (t = 0; t < src->info.ntables; t++)
		if (diff_table(d, src, t) < 0)
			return -1;
	return 0;
}

static bool parse_ratio(const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end != '\0' || !(v > 1.0) || isinf(v))
		return false;
	*out = v;
	return true;
}

int cmd_diff(const struct common_opts *common, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"threshold", required_argument, NULL, 't'},
	    {"all", no_argument, NULL, 'a'},
	    OPTIONS_END,
	};
	struct common_opts opts = *common;
	struct cmd_parser p = CMD_PARSER("diff", "t:a", longopts, CMD_FIELD, diff_help, &opts);
	struct diff_opts d = {.threshold = DEFAULT_RATIO, .all = false, .fields = &opts.fields};
	struct source *srcs;
	size_t n;
	int c, status;

	while ((c = cmd_getopt(&p, argc, argv)) != -1) {
		if (c == '?')
			return p.status;
		if (c == 'a')
			d.all = true;
		else if (!parse_ratio(optarg, &d.threshold))
			return usage_error("diff", "the threshold is a number above 1, not '%s'",
			                   optarg);
	}
	if (argc - optind < 2 || argc - optind > 4 || !parse_u32(argv[optind], &d.e[0]) ||
	    !parse_u32(argv[optind + 1], &d.e[1]) || d.e[0] == 0 || d.e[1] == 0)
		return usage_error("diff", "expected two epoch numbers, then [SEGMENT [TABLE]]");
	status = sources_open(&opts, argc - optind > 2 ? argv[optind + 2] : NULL, false, &srcs, &n);
	printf("%-16s %-16s %-12s %-16s %14s %14s %10s\n", "SEGMENT", "TABLE", "ROW", "COLUMN",
	       "E1", "E2", "E2/E1");
	for (size_t i = 0; i < n; i++)
		if (diff_source(&d, &srcs[i], argc - optind > 3 ? argv[optind + 3] : NULL,
		                argc - optind > 2) < 0)
			status = EXIT_FAIL;
	sources_close(srcs, n);
	return status;
}
