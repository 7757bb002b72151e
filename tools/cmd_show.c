/*
 * cmd_show.c - the read commands that print once: list and show.
 * They open views, take snapshots and hand them to a renderer; they never
 * reset anything.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char show_help[] =
    "  -s, --slots          add each slot's own raw value (the shared slot last)\n"
    "  -r, --raw            ignore reset baselines: totals since the segment's creation\n"
    "\nSEGMENT is a name (/dev/shm/statctr.NAME, or as CONFIG declares it) or a path;\n"
    "without it every segment found is shown.\n";

static const char list_help[] = "\nSegments are the files /dev/shm/statctr.* and, with -c, the\n"
                                "ones the configuration declares (status 'gone' when absent).\n";

static int snap_all(struct source *srcs, size_t n)
{
	int status = EXIT_OK;

	for (size_t i = 0; i < n; i++)
		if (source_snap(&srcs[i]) < 0)
			status = EXIT_FAIL;
	return status;
}

int cmd_show(const struct common_opts *common, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"slots", no_argument, NULL, 's'},
	    {"raw", no_argument, NULL, 'r'},
	    {NULL, 0, NULL, 0},
	};
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "show",
	                       .shortopts = "sr",
	                       .longopts = longopts,
	                       .help = show_help,
	                       .common = &opts};
	struct walk_opts wopts = {.raw = false, .slots = false, .width = 0};
	struct source *srcs = NULL;
	size_t nsrcs = 0;
	int c, status;

	while ((c = cmd_getopt(&p, argc, argv)) != -1) {
		if (c == '?')
			return p.status;
		if (c == 's')
			wopts.slots = true;
		else
			wopts.raw = true;
	}
	if (argc - optind > 2)
		return usage_error("show", "too many arguments");
	status = sources_open(opts.config, optind < argc ? argv[optind] : NULL, &srcs, &nsrcs);
	if (snap_all(srcs, nsrcs) != EXIT_OK)
		status = EXIT_FAIL;
	if (nsrcs > 0 && walk_render(stdout, renderer_for(opts.format), &wopts, srcs, nsrcs,
	                             optind + 1 < argc ? argv[optind + 1] : NULL) < 0)
		status = EXIT_FAIL;
	sources_close(srcs, nsrcs);
	return status;
}

const char *list_status(const struct list_item *item)
{
	return item->present ? status_name(item->info.status) : "gone";
}

static int list_one(struct list_item *item, const struct seg_entry *entry,
                    struct statctr_view **viewp)
{
	int err = statctr_view_open(entry->path, viewp);

	item->entry = entry;
	item->present = err == 0;
	if (err == 0) {
		statctr_view_info(*viewp, &item->info);
		return 0;
	}
	*viewp = NULL;
	if (err == -ENOENT && entry->declared)
		return 0;
	error_msg("segment '%s': %s", entry->path, statctr_errmsg());
	return err;
}

static void print_list(enum out_format format, const struct list_item *items, size_t n)
{
	if (format == FORMAT_JSON)
		list_json(stdout, items, n);
	else if (format == FORMAT_PROM)
		list_prom(stdout, items, n);
	else
		list_text(stdout, items, n);
}

int cmd_list(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "list", .help = list_help, .common = &opts};
	struct seg_entry *entries;
	struct list_item *items;
	struct statctr_view **views;
	size_t n, nitems = 0;
	int status = EXIT_OK;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	if (optind < argc)
		return usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (discover_segments(opts.config, &entries, &n) < 0)
		return EXIT_FAIL;
	items = calloc(n ? n : 1, sizeof(*items));
	views = calloc(n ? n : 1, sizeof(*views));
	for (size_t i = 0; items != NULL && views != NULL && i < n; i++) {
		if (list_one(&items[nitems], &entries[i], &views[i]) < 0)
			status = EXIT_FAIL;
		else
			nitems++;
	}
	print_list(opts.format, items, nitems);
	for (size_t i = 0; views != NULL && i < n; i++)
		if (views[i] != NULL)
			statctr_view_close(views[i]);
	free(views);
	free(items);
	free_segments(entries, n);
	return status;
}
