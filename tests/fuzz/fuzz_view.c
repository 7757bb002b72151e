/*
 * fuzz_view.c - libFuzzer target: a reader opening hostile segment bytes.
 *
 * Input: a 4-byte little-endian length L, then L bytes of segment file and
 * the rest as its control file (none: no control file).  Both are written
 * to a private directory (on /dev/shm when there is one), then the target
 * does what the agent and statctl do: statctr_view_open(), every metadata
 * query (tables, columns, row names, lookups, cell kinds, slot states), a
 * snapshot and every accessor on it, a reset of every cell and a refresh.
 * Checks that a successful lookup agrees with the table's layout.  The
 * library must reject or survive every input: no crash, no read outside a
 * mapping, no leak, no wait beyond its bounded budget.
 */
#include "statctr.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WALK 256 /* rows, slots and cells visited per input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], seg_path[300], ctl_path[310];

static void cleanup(void)
{
	unlink(ctl_path);
	unlink(seg_path);
	rmdir(dir);
}

static int setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/statctr-fuzz-view.XXXXXX", base);
	if (!mkdtemp(dir))
		return -1;
	snprintf(seg_path, sizeof(seg_path), "%s/seg", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/seg.ctl", dir);
	atexit(cleanup);
	return 0;
}

static int put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

static uint32_t min_walk(uint32_t n)
{
	return n < MAX_WALK ? n : MAX_WALK;
}

static void walk_tables(struct statctr_view *view, const struct statctr_seg_info *info)
{
	for (uint32_t t = 0; t < min_walk(info->ntables); t++) {
		struct statctr_table_info ti;

		if (statctr_view_table(view, t, &ti) != 0)
			__builtin_trap(); /* in range: must succeed */
		(void)strlen(ti.name), (void)strlen(ti.description);
		for (uint32_t c = 0; c < min_walk(ti.ncolumns); c++) {
			struct statctr_column_info ci;
			statctr_id id;

			if (statctr_view_column(view, t, c, &ci) != 0)
				__builtin_trap();
			(void)strlen(ci.name), (void)strlen(ci.units), (void)strlen(ci.description);
			for (uint32_t r = 0; r < min_walk(ti.nrows); r += 1 + r / 8) {
				const char *row = statctr_view_row_name(view, t, r);

				if (row)
					(void)strlen(row);
				if (statctr_view_lookup(view, ti.name, ci.name, r, &id) == 0 &&
				    statctr_view_cell_kind(view, id) == 0)
					__builtin_trap(); /* a looked-up cell has a kind */
			}
		}
		(void)statctr_view_table(view, info->ntables, &ti);
	}
}

static void take_snapshot(struct statctr_view *view, const struct statctr_seg_info *info)
{
	struct statctr_snap *snap;
	struct statctr_snap_stats stats;
	uint64_t sink = 0;

	if (statctr_snap_take(view, &snap) != 0)
		return;
	statctr_snap_stats(snap, &stats);
	for (uint32_t id = 0; id < min_walk(info->ncells + 1); id++) {
		sink += statctr_snap_counter(snap, id) + statctr_snap_counter_raw(snap, id);
		sink +=
		    (uint64_t)statctr_snap_gauge(snap, id) + statctr_snap_discontinuity(snap, id);
		for (uint32_t s = 0; s < min_walk(info->nslots + 2); s++)
			sink += statctr_snap_slot_value(snap, s, id);
	}
	/* Row names as of the snapshot: declared, dynamic (present) or none. */
	for (uint32_t t = 0; t < min_walk(info->ntables + 1); t++)
		for (uint32_t r = 0; r < MAX_WALK; r += 1 + r / 8) {
			const char *row = statctr_snap_row_name(snap, t, r);

			if (row)
				sink += strlen(row);
		}
	(void)sink;
	statctr_snap_free(snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct statctr_view *view;
	struct statctr_seg_info info;
	uint32_t seg_len;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0 || size < 4)
		return 0;
	seg_len = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	          (uint32_t)data[3] << 24;
	data += 4, size -= 4;
	if (seg_len > size)
		seg_len = (uint32_t)size;
	unlink(ctl_path);
	if (put(seg_path, data, seg_len) != 0 ||
	    (size > seg_len && put(ctl_path, data + seg_len, size - seg_len) != 0))
		return 0;
	if (statctr_view_open(seg_path, &view) != 0)
		return 0;
	statctr_view_info(view, &info);
	(void)strlen(info.name);
	walk_tables(view, &info);
	for (uint32_t s = 0; s < min_walk(info.nslots + 1); s++)
		(void)statctr_view_slot_state(view, s);
	take_snapshot(view, &info);
	if (info.ncells > 0)
		(void)statctr_reset_range(view, 0, info.ncells);
	take_snapshot(view, &info);
	(void)statctr_view_refresh(view);
	statctr_view_close(view);
	return 0;
}
