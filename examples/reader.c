/*
 * reader.c - prints a segment's totals from consistent snapshots.
 *
 * reader [-1] [-i MS] SEGMENT: every MS milliseconds (default 1000), or once
 * with -1, one line per cell: "table.column.row value", where row is the
 * row's name or its number (a dynamic table: its rows present in the
 * snapshot, by name), and value a counter's count, a gauge's level or a
 * histogram's count (as statctr-agentx serves them in their table).
 * Snapshot statistics go to stderr.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "statctr.h"

static void print_cell(const struct statctr_view *view, const struct statctr_snap *snap, uint32_t t,
                       uint32_t r, uint32_t c)
{
	struct statctr_table_info table;
	struct statctr_column_info column;
	const char *row_name = statctr_snap_row_name(snap, t, r);
	statctr_id id;

	statctr_view_table(view, t, &table);
	statctr_view_column(view, t, c, &column);
	id = table.first_cell + r * table.ncolumns + c;
	if (row_name)
		printf("%s.%s.%s ", table.name, column.name, row_name);
	else
		printf("%s.%s.%" PRIu32 " ", table.name, column.name, r);
	if (column.kind == STATCTR_KIND_GAUGE)
		printf("%" PRId64 "\n", statctr_snap_gauge(snap, id));
	else if (column.kind == STATCTR_KIND_HISTOGRAM)
		printf("%" PRIu64 "\n", statctr_snap_hist_count(snap, id));
	else
		printf("%" PRIu64 "\n", statctr_snap_counter(snap, id));
}

static int print_snapshot(struct statctr_view *view)
{
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	struct statctr_snap_stats stats;
	struct statctr_table_info table;
	uint32_t t, r, c;

	if (statctr_snap_take(view, &snap) != 0) {
		fprintf(stderr, "reader: %s\n", statctr_errmsg());
		return 1;
	}
	statctr_view_info(view, &info);
	for (t = 0; t < info.ntables; t++) {
		statctr_view_table(view, t, &table);
		for (r = 0; r < table.nrows; r++)
			for (c = 0; c < table.ncolumns; c++)
				if (!table.dynamic || statctr_snap_row_name(snap, t, r))
					print_cell(view, snap, t, r, c);
	}
	statctr_snap_stats(snap, &stats);
	fprintf(stderr, "# retries %u assisted %u busy %u dead_torn %u\n", stats.retries,
	        stats.assisted_slots, stats.busy_slots, stats.dead_torn_slots);
	statctr_snap_free(snap);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct statctr_view *view;
	int opt, once = 0, rc = 0;
	long interval_ms = 1000;

	while ((opt = getopt(argc, argv, "1i:h")) != -1) {
		switch (opt) {
		case '1':
			once = 1;
			break;
		case 'i':
			interval_ms = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: reader [-1] [-i MS] SEGMENT\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: reader [-1] [-i MS] SEGMENT\n");
		return 2;
	}
	if (statctr_view_open(argv[optind], &view) != 0) {
		fprintf(stderr, "reader: %s\n", statctr_errmsg());
		return 1;
	}
	do {
		if (statctr_view_refresh(view) == 1)
			fprintf(stderr, "# writer restarted: new generation\n");
		rc = print_snapshot(view);
		if (!once) {
			printf("\n");
			usleep((useconds_t)interval_ms * 1000);
		}
	} while (!once && rc == 0);
	statctr_view_close(view);
	return rc;
}
