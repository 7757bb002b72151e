/*
 * ifwriter.c - a writer driven by commands on stdin, for
 * tests/integration/ifmib.sh and epochs.sh: it sets exact values (counters
 * above 2^32, an operational-state gauge, histogram records) and adds and
 * removes dynamic rows by name.
 *
 *   ifwriter CONFIG SEGMENT
 *   add TABLE COLUMN ROW N      add N to a counter (ROW: a row's name)
 *   set TABLE COLUMN ROW N      set a gauge to N
 *   rec TABLE COLUMN ROW V      record value V in a histogram (a slot of its own)
 *   row+ TABLE ROW              add a dynamic row
 *   row- TABLE ROW              remove a dynamic row
 *
 * Each command is done through the segment's shared slot (statctr_shared_add()
 * and statctr_gauge_set(): one control thread, no fast path to exercise), but
 * rec, through a slot acquired and released around it (histograms have no
 * shared-slot record), and
 * answered with "ok" or "error: ..." on stdout, after "ready" once the segment
 * exists.  Exits at end of input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statctr.h"

/* Row @name of @table: a declared name, a number, or a present dynamic row. */
static int find_row(const struct statctr_seg *seg, const struct statctr_segment_decl *d,
                    const char *table, const char *name, uint32_t *rowp)
{
	for (uint32_t t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *td = &d->tables[t];

		if (strcmp(td->name, table) != 0)
			continue;
		if (td->dynamic)
			return statctr_row_find(seg, table, name, rowp);
		for (uint32_t r = 0; td->row_names && r < td->nrows; r++) {
			if (strcmp(td->row_names[r], name) == 0) {
				*rowp = r;
				return 0;
			}
		}
		*rowp = (uint32_t)strtoul(name, NULL, 10);
		return td->row_names ? -ENOENT : 0;
	}
	return -ENOENT;
}

/* One record in histogram @id, from a slot held for it alone. */
static int record(struct statctr_seg *seg, statctr_id id, uint64_t value)
{
	struct statctr_slot *slot;
	int err = statctr_slot_acquire(seg, &slot);

	if (err)
		return err;
	statctr_hist_record(slot, id, value); /* outside a transaction: opens its own */
	statctr_slot_release(slot);           /* pairs with statctr_slot_acquire() above */
	return 0;
}

static int run(struct statctr_seg *seg, const struct statctr_segment_decl *d, char *line)
{
	char cmd[8], table[64], column[64], row[256];
	unsigned long long n = 0;
	statctr_id id;
	uint32_t r;
	int err;

	if (sscanf(line, "%7s %63s", cmd, table) != 2)
		return -EINVAL;
	if (strcmp(cmd, "row+") == 0 || strcmp(cmd, "row-") == 0) {
		if (sscanf(line, "%*s %*s %255s", row) != 1)
			return -EINVAL;
		if (cmd[3] == '+')
			return statctr_row_add(seg, table, row, &r);
		err = statctr_row_find(seg, table, row, &r);
		return err ? err : statctr_row_remove(seg, table, r);
	}
	if (sscanf(line, "%*s %*s %63s %255s %llu", column, row, &n) != 3)
		return -EINVAL;
	err = find_row(seg, d, table, row, &r);
	if (!err)
		err = statctr_seg_lookup(seg, table, column, r, &id);
	if (err)
		return err;
	if (strcmp(cmd, "add") == 0)
		statctr_shared_add(seg, id, n);
	else if (strcmp(cmd, "set") == 0)
		statctr_gauge_set(seg, id, (int64_t)n);
	else if (strcmp(cmd, "rec") == 0)
		return record(seg, id, n);
	else
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	struct statctr_config *cfg;
	struct statctr_seg *seg;
	const struct statctr_segment_decl *d;
	char line[512];

	if (argc != 3) {
		fprintf(stderr, "usage: ifwriter CONFIG SEGMENT < commands\n");
		return 2;
	}
	if (statctr_config_load(argv[1], &cfg) < 0 || !(d = statctr_config_find(cfg, argv[2])) ||
	    statctr_seg_create(argv[1], argv[2], &seg) < 0) {
		fprintf(stderr, "ifwriter: %s\n", statctr_errmsg());
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		int err = run(seg, d, line);

		if (err)
			printf("error: %s: %s", strerror(-err), line);
		else
			printf("ok: %s", line);
	}
	statctr_seg_destroy(seg);
	statctr_config_free(cfg);
	return 0;
}
