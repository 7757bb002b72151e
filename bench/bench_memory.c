/*
 * bench_memory.c - segment and control file sizes, formula against the
 * files on disk (docs/PERFORMANCE.md, "Memory").
 *
 * Formulas (docs/segment-format.md):
 *   segment = metadata + (nslots + 1) x (64 + ncells x 8 rounded up to 64)
 *             (the + 1 is the shared slot of statctr_shared_add())
 *   control = 256 + nslots x 64 + 3 x ncells x 8
 *             (baselines, discontinuity times, the copy exchange buffer)
 * The target is 8 B per cell per slot plus one 64-byte line per
 * slot: checked per slot (the stride), and reported per writer slot.
 *
 * The thread pool (issue 23): 8 threads per CPU, each with a slot of its
 * own, against CPU slots (cpu_slots = true, no thread slot): the segment's
 * size and a snapshot's time (statctr_snap_retake(), median of 5), both
 * from the same run.
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sizes {
	uint64_t seg_size, seg_alloc, ctl_size, ctl_alloc;
	uint64_t slot_region; /* (nslots + 1) x stride */
	uint64_t metadata;    /* header, tables, columns, strings: slots_off */
	uint64_t ctl_formula;
	uint64_t stride;
};

static void stat_file(const char *path, uint64_t *size, uint64_t *alloc)
{
	struct stat st;

	if (stat(path, &st) != 0)
		bench_die("stat %s: %s", path, strerror(errno));
	*size = (uint64_t)st.st_size;
	*alloc = (uint64_t)st.st_blocks * 512;
}

/* slots_off and slot_stride, read from the header (docs/segment-format.md). */
static void read_layout(const char *path, struct sizes *sz)
{
	uint8_t hdr[256];
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		bench_die("%s: cannot read the header", path);
	close(fd);
	memcpy(&sz->metadata, hdr + 128, 8); /* slots_off */
	memcpy(&sz->stride, hdr + 136, 8);   /* slot_stride */
}

static void measure(const struct bench_env *env, uint32_t ncells, unsigned nslots, struct sizes *sz)
{
	char config[512], path[512], ctl[530];
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;

	bench_write_config(env, "memory", nslots, (ncells - 2) / 2, NULL, config, sizeof(config));
	if (statctr_seg_create(config, "bench", &seg) != 0)
		bench_die("statctr_seg_create: %s", statctr_errmsg());
	snprintf(path, sizeof(path), "%s/memory", env->tmp_dir);
	snprintf(ctl, sizeof(ctl), "%s.ctl", path);
	stat_file(path, &sz->seg_size, &sz->seg_alloc);
	stat_file(ctl, &sz->ctl_size, &sz->ctl_alloc);
	if (statctr_view_open(path, &view) != 0)
		bench_die("statctr_view_open: %s", statctr_errmsg());
	statctr_view_info(view, &info);
	bench_check(info.size == sz->seg_size && info.ncells == ncells && info.nslots == nslots,
	            "segment info disagrees with the file (%" PRIu64 " vs %" PRIu64 " bytes)",
	            info.size, sz->seg_size);
	statctr_view_close(view);
	read_layout(path, sz);
	statctr_seg_destroy(seg);
	sz->slot_region = (uint64_t)(nslots + 1) * sz->stride;
	bench_check(sz->metadata + sz->slot_region == sz->seg_size,
	            "slots_off + (nslots + 1) x slot_stride != file size");
	sz->ctl_formula = 256 + (uint64_t)nslots * 64 + 3 * (uint64_t)ncells * 8;
}

/* One segment of @ncells cells: its size and the median retake time. */
static void pool_case(const struct bench_env *env, uint32_t ncells, unsigned nslots,
                      const char *extra, uint64_t *size, double *retake_ms)
{
	char config[512], path[512];
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	double ms[5];
	uint64_t alloc;

	bench_write_config_ex(env, "pool", nslots, extra, (ncells - 2) / 2, NULL, config,
	                      sizeof(config));
	if (statctr_seg_create(config, "bench", &seg) != 0)
		bench_die("statctr_seg_create: %s", statctr_errmsg());
	snprintf(path, sizeof(path), "%s/pool", env->tmp_dir);
	stat_file(path, size, &alloc);
	if (statctr_view_open(path, &view) != 0 || statctr_snap_retake(view, &snap) != 0)
		bench_die("%s: %s", path, statctr_errmsg());
	for (unsigned i = 0; i < 5; i++) {
		uint64_t t0 = bench_now_ns();

		if (statctr_snap_retake(view, &snap) != 0)
			bench_die("statctr_snap_retake: %s", statctr_errmsg());
		ms[i] = (double)(bench_now_ns() - t0) / 1e6;
	}
	*retake_ms = bench_stats_of(ms, 5).median;
	statctr_snap_free(snap);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static void measure_pool(const struct bench_env *env, bool quick)
{
	static const uint32_t cells[] = {100000, 1000000};
	unsigned pool = 8 * env->ncpus;
	FILE *csv = bench_csv_open(env, "pool_memory.csv",
	                           "cells,threads,cpus,layout,slots,segment_bytes,retake_ms");
	char what[128];

	printf("\nThread pool: %u threads on %u CPUs, a slot per thread against CPU slots\n", pool,
	       env->ncpus);
	printf("%8s %-14s %6s %14s %10s\n", "cells", "layout", "slots", "segment", "retake ms");
	for (unsigned i = 0; i < (quick ? 1u : 2u); i++) {
		uint64_t size[2];
		double ms[2];

		pool_case(env, cells[i], pool, "", &size[0], &ms[0]);
		pool_case(env, cells[i], 0, "cpu_slots = true;", &size[1], &ms[1]);
		for (unsigned k = 0; k < 2; k++) {
			const char *layout = k ? "cpu_slots" : "thread_slots";
			unsigned n = k ? env->ncpus : pool;

			printf("%8u %-14s %6u %14" PRIu64 " %10.2f\n", cells[i], layout, n, size[k],
			       ms[k]);
			fprintf(csv, "%u,%u,%u,%s,%u,%" PRIu64 ",%.3f\n", cells[i], pool,
			        env->ncpus, layout, n, size[k], ms[k]);
		}
		snprintf(what, sizeof(what),
		         "memory: pool, %u cells: thread slots / CPU slots, bytes", cells[i]);
		bench_info(env, what, (double)size[0] / (double)size[1]);
		snprintf(what, sizeof(what),
		         "memory: pool, %u cells: thread slots / CPU slots, snapshot time",
		         cells[i]);
		bench_info(env, what, ms[0] / ms[1]);
	}
	bench_csv_close(csv);
}

int main(int argc, char **argv)
{
	static const uint32_t cells[] = {1000, 100000, 1000000};
	static const unsigned slots[] = {1, 2, 16, 64};
	const char *out;
	struct bench_env env;
	bool quick, ctl_ok = true;
	uint64_t line_max = 0; /* largest per-slot overhead beyond 8 B x cells */
	unsigned i, j;
	FILE *csv;

	if (bench_options(argc, argv, "bench_memory", &out, &quick) != 0)
		return 2;
	bench_init(&env, "memory", out, quick);
	csv = bench_csv_open(&env, "memory.csv",
	                     "cells,slots,segment_bytes,segment_allocated,metadata_bytes,"
	                     "slot_stride,formula_slots_bytes,bytes_per_cell_per_writer_slot,"
	                     "control_bytes,control_formula,control_allocated");
	printf("\nSegment and control file sizes (st_size; allocated = st_blocks x 512)\n");
	printf("%8s %5s %12s %10s %9s %9s %10s %12s %12s %10s\n", "cells", "slots", "segment",
	       "allocated", "metadata", "stride", "B/cell/wslot", "control", "ctl formula",
	       "allocated");
	for (i = 0; i < (quick ? 2u : 3u); i++)
		for (j = 0; j < 4; j++) {
			struct sizes sz;
			double per;

			measure(&env, cells[i], slots[j], &sz);
			per = (double)(sz.seg_size - sz.metadata) / ((double)cells[i] * slots[j]);
			if (sz.stride - (uint64_t)cells[i] * 8 > line_max)
				line_max = sz.stride - (uint64_t)cells[i] * 8;
			ctl_ok &= sz.ctl_size == sz.ctl_formula;
			printf("%8u %5u %12" PRIu64 " %10" PRIu64 " %9" PRIu64 " %9" PRIu64
			       " %10.3f %12" PRIu64 " %12" PRIu64 " %10" PRIu64 "\n",
			       cells[i], slots[j], sz.seg_size, sz.seg_alloc, sz.metadata,
			       sz.stride, per, sz.ctl_size, sz.ctl_formula, sz.ctl_alloc);
			fprintf(csv,
			        "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			        ",%.4f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			        cells[i], slots[j], sz.seg_size, sz.seg_alloc, sz.metadata,
			        sz.stride, sz.slot_region, per, sz.ctl_size, sz.ctl_formula,
			        sz.ctl_alloc);
			bench_check(sz.metadata < sz.seg_size, "the slots do not fit the file");
		}
	bench_csv_close(csv);
	measure_pool(&env, quick);
	bench_target(&env, "memory: per-slot bytes beyond 8 B x cells (max)", (double)line_max,
	             "<=", 64);
	bench_target(&env, "memory: control file == 256 + 64 x slots + 24 x cells (1 = yes)",
	             ctl_ok ? 1 : 0, ">=", 1);
	return bench_finish(&env);
}
