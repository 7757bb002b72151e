/*
 * cmd_reset.c - statctl reset: turns SEGMENT [TABLE [ROW [COLUMN]]] into
 * the one contiguous cell range it covers and resets it through the
 * library's baselines.  Never writes to a segment itself.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <errno.h>
#include <string.h>

static const char reset_help[] =
    "\nResets the counters and histograms of a whole segment, a table, a row (a\n"
    "name, or a number from 0 for numbered rows) or one cell; gauges are left\n"
    "alone.  A histogram resets whole: buckets, count and sum.  Readers see\n"
    "the values restart from 0 and a new discontinuity time.  Needs write access\n"
    "to the segment's control file.\n";

struct range {
	statctr_id first;
	uint32_t count;
};

/* The row named @arg in @snap, or in the declaration when @snap is NULL. */
static bool row_named(struct statctr_view *view, const struct statctr_snap *snap, uint32_t t,
                      uint32_t nrows, const char *arg, uint32_t *rowp)
{
	for (uint32_t r = 0; r < nrows; r++) {
		const char *name =
		    snap ? statctr_snap_row_name(snap, t, r) : statctr_view_row_name(view, t, r);

		if (name != NULL && strcmp(name, arg) == 0) {
			*rowp = r;
			return true;
		}
	}
	return false;
}

/*
 * A dynamic table's rows are named at run time: the name is looked up in a
 * snapshot, and the reset applies to the index it has now (a row removed
 * and added again meanwhile starts from zero anyway).
 */
static int find_row(struct statctr_view *view, uint32_t t, const struct statctr_table_info *info,
                    const char *arg, uint32_t *rowp)
{
	struct statctr_snap *snap = NULL;
	bool found;

	if (info->dynamic && statctr_snap_take(view, &snap) < 0)
		return -ENOENT;
	found = row_named(view, snap, t, info->nrows, arg, rowp);
	statctr_snap_free(snap);
	if (found || (parse_u32(arg, rowp) && *rowp < info->nrows))
		return 0;
	return -ENOENT;
}

static int find_column(const struct statctr_view *view, uint32_t t, uint32_t ncolumns,
                       const char *arg, uint32_t *colp)
{
	struct statctr_column_info info;

	for (uint32_t c = 0; c < ncolumns; c++) {
		if (statctr_view_column(view, t, c, &info) == 0 && strcmp(info.name, arg) == 0) {
			*colp = c;
			return info.kind == STATCTR_KIND_GAUGE ? -EINVAL
			                                       : 0; /* counters and histograms */
		}
	}
	return -ENOENT;
}

/*
 * The range of SEGMENT TABLE [ROW [COLUMN]] (@args[0] is SEGMENT) in @view:
 * a table and a row are each one contiguous range of cells.
 */
static int table_range(struct statctr_view *view, char **args, int nargs, struct range *rg)
{
	struct statctr_table_info info;
	uint32_t t, row, col;
	int err;

	if (find_table(view, args[1], &t) < 0 || statctr_view_table(view, t, &info) < 0) {
		error_msg("segment '%s': no table '%s'", args[0], args[1]);
		return -ENOENT;
	}
	rg->first = info.first_cell;
	rg->count = info.nrows * info.ncolumns;
	if (nargs == 2)
		return 0;
	if (find_row(view, t, &info, args[2], &row) < 0) {
		error_msg("segment '%s': table '%s' has no row '%s'", args[0], args[1], args[2]);
		return -ENOENT;
	}
	rg->first += row * info.ncolumns;
	rg->count = info.ncolumns;
	if (nargs == 3)
		return 0;
	err = find_column(view, t, info.ncolumns, args[3], &col);
	if (err == -ENOENT)
		error_msg("segment '%s': table '%s' has no column '%s'", args[0], args[1], args[3]);
	else if (err < 0)
		error_msg("segment '%s': %s.%s is a gauge: a level has nothing to reset", args[0],
		          args[1], args[3]);
	rg->first += col;
	rg->count = 1;
	return err;
}

/* Resets SEGMENT [TABLE [ROW [COLUMN]]], @args[0..nargs-1]. */
static int reset_view(struct statctr_view *view, char **args, int nargs)
{
	struct statctr_seg_info info;
	struct range rg = {0, 0};
	int err;

	statctr_view_info(view, &info);
	rg.count = info.ncells;
	if (nargs > 1 && table_range(view, args, nargs, &rg) < 0)
		return EXIT_FAIL;
	err = statctr_reset_range(view, rg.first, rg.count);
	if (err < 0) {
		error_msg("segment '%s': reset: %s", args[0], statctr_errmsg());
		return EXIT_FAIL;
	}
	printf("reset");
	for (int i = 0; i < nargs; i++)
		printf(" %s", args[i]);
	printf(" (%" PRIu32 " cell%s)\n", rg.count, rg.count == 1 ? "" : "s");
	return EXIT_OK;
}

int cmd_reset(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "reset", .help = reset_help, .common = &opts};
	struct statctr_view *view;
	int status;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	if (optind >= argc)
		return usage_error("reset", "missing SEGMENT");
	if (argc - optind > 4)
		return usage_error("reset", "too many arguments");
	if (open_segment(opts.config, argv[optind], &view) < 0)
		return EXIT_FAIL;
	status = reset_view(view, argv + optind, argc - optind);
	statctr_view_close(view);
	return status;
}
