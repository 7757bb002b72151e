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
    "                       (not histograms: they have none without their baselines)\n"
    "  -b, --buckets        text: each histogram's buckets too (count, cumulative)\n"
    "  -o, --output=FILE    write to FILE instead of stdout, atomically (a new file in\n"
    "                       FILE's directory, fsync()ed, renamed over FILE): for\n"
    "                       node_exporter's textfile collector\n"
    "      --since=E        counters and histograms: the counts since the start of\n"
    "                       epoch E\n"
    "      --epoch=N        counters and histograms: the counts of epoch N's interval\n"
    "                       (to the next epoch, or to now for the latest)\n" FIELD_HELP
        ANY_OWNER_HELP
    "\nSEGMENT is a name (/dev/shm/statctr.NAME, or as CONFIG declares it) or a path;\n"
    "without it every segment found is shown (with -c, the configuration's).  A\n"
    "segment that cannot be read is reported and the rest shown (FILE replaced,\n"
    "with statctr_segment_readable 0 for it); the exit status is then 1.\n";

static const char list_help[] = ANY_OWNER_HELP
    "\nSegments are the files /dev/shm/statctr.* of yours and root's (anyone's with\n"
    "--any-owner), or with -c exactly the ones the configuration declares.  Status:\n"
    "active (writer running), closed, gone (writer died; values final), stale\n"
    "(unreadable: refresh), absent (no file).\n";

/* What show renders, for write_output(). */
struct show_job {
	const struct renderer *r;
	const struct walk_opts *wopts;
	struct source *srcs;
	size_t nsrcs;
	const char *table;
	int status;
};

/* Always 0: like stdout, the file gets what could be rendered; status says the rest. */
static int fill_show(FILE *f, void *arg)
{
	struct show_job *job = arg;

	if (job->nsrcs > 0 &&
	    walk_render(f, job->r, job->wopts, job->srcs, job->nsrcs, job->table) < 0)
		job->status = EXIT_FAIL;
	return 0;
}

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
	    {"buckets", no_argument, NULL, 'b'},
	    {"output", required_argument, NULL, 'o'},
	    {"since", required_argument, NULL, 'S'},
	    {"epoch", required_argument, NULL, 'E'},
	    OPTIONS_END,
	};
	struct common_opts opts = *common;
	struct cmd_parser p =
	    CMD_PARSER("show", "srbo:", longopts, CMD_FIELD | CMD_ANY_OWNER, show_help, &opts);
	struct walk_opts wopts = {.raw = false, .slots = false, .buckets = false, .width = 0};
	struct show_job job = {.wopts = &wopts, .table = NULL};
	const char *out = NULL;
	uint32_t epoch = 0;
	bool to_next = false;
	int c;

	while ((c = cmd_getopt(&p, argc, argv)) != -1) {
		if (c == '?')
			return p.status;
		if (c == 'S' || c == 'E') {
			if (epoch != 0 || !parse_u32(optarg, &epoch) || epoch == 0)
				return usage_error("show", "--since and --epoch take one epoch "
				                           "number (1 or more), once");
			to_next = c == 'E';
		} else if (c == 's')
			wopts.slots = true;
		else if (c == 'r')
			wopts.raw = true;
		else if (c == 'b')
			wopts.buckets = true;
		else
			out = optarg;
	}
	if (argc - optind > 2)
		return usage_error("show", "too many arguments");
	job.status = sources_open(&opts, optind < argc ? argv[optind] : NULL, wopts.slots,
	                          &job.srcs, &job.nsrcs);
	if (snap_all(job.srcs, job.nsrcs) != EXIT_OK)
		job.status = EXIT_FAIL;
	for (size_t i = 0; epoch != 0 && i < job.nsrcs; i++)
		if (job.srcs[i].snap && epoch_select(&job.srcs[i], epoch, to_next) < 0)
			job.status = EXIT_FAIL;
	job.r = renderer_for(opts.format);
	wopts.fields = &opts.fields;
	job.table = optind + 1 < argc ? argv[optind + 1] : NULL;
	/*
	 * One unreadable segment must not freeze what a collector reads of
	 * the others: FILE is replaced with every segment read, and the
	 * failed ones said so (renderer's readable()).  Only with nothing to
	 * show (none found, or the one SEGMENT named could not be opened) is
	 * it kept.
	 */
	if (out && job.nsrcs == 0)
		error_msg("%s: not replaced: no segment to show", out);
	else if (write_output(out, fill_show, &job) < 0)
		job.status = EXIT_FAIL;
	sources_close(job.srcs, job.nsrcs);
	return job.status;
}

/* 0: @item listed; 1: nothing to list (the segment went away); or an error, reported. */
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
		return 0; /* listed as absent */
	if (segment_gone(entry, err))
		return 1; /* removed since it was found: as if never found */
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
	struct cmd_parser p = {
	    .cmd = "list", .shared = CMD_ANY_OWNER, .help = list_help, .common = &opts};
	struct seg_entry *entries;
	struct list_item *items;
	struct statctr_view **views;
	size_t n, nitems = 0;
	int status = EXIT_OK;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	if (optind < argc)
		return usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (discover_segments(&opts, &entries, &n) < 0)
		return EXIT_FAIL;
	items = calloc(n ? n : 1, sizeof(*items));
	views = calloc(n ? n : 1, sizeof(*views));
	for (size_t i = 0; items != NULL && views != NULL && i < n; i++) {
		int listed = list_one(&items[nitems], &entries[i], &views[i]);

		if (listed < 0)
			status = EXIT_FAIL;
		else if (listed == 0)
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
