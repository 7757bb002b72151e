/*
 * bench_rows.c - what dynamic rows cost (docs/PERFORMANCE.md, "Dynamic rows").
 *
 *   add/remove: statctr_row_add() and statctr_row_remove() on a table with
 *               room for 4096 rows of 4 columns, 4 slots, with 1024 rows
 *               present (the hash map and the free list at work), and on
 *               a table of 16 columns (an add reads columns x (slots + 1)
 *               cells for the incarnation base);
 *   snapshot:   statctr_snap_retake() of a segment holding a static table
 *               of 16,384 cells next to a dynamic table (64 rows x 4
 *               columns), its rows idle and then added and removed flat
 *               out by another thread; and of the static table alone (no
 *               row directory).  Reported as ratios of the same run, and
 *               with the snapshots' retries (the churn must cause none).
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define STATIC_ROWS 8192 /* x 2 columns */
#define DYN_MAX     64
#define NSLOTS      4

/* A configuration of segment "rows" at <tmp>/@file: @tables inside "tables = ( )". */
static void write_config(const struct bench_env *env, const char *file, const char *tables,
                         char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s.conf", env->tmp_dir, file);
	f = fopen(path, "w");
	if (!f)
		bench_die("cannot write %s", path);
	fprintf(
	    f,
	    "segments = ( { name = \"rows\"; path = \"%s/%s\"; slots = %u; tables = ( %s ); } );\n",
	    env->tmp_dir, file, NSLOTS, tables);
	fclose(f);
}

static const char *columns(unsigned n)
{
	static char text[2048];
	size_t used = 0;
	unsigned c;

	for (c = 0; c < n; c++)
		used +=
		    (size_t)snprintf(text + used, sizeof(text) - used,
		                     "%s{ name = \"c%u\"; kind = \"counter\"; }", c ? ", " : "", c);
	return text;
}

/* Median ns of one add + one remove, rows churning through a table of @ncols columns. */
static double add_remove_ns(const struct bench_env *env, unsigned ncols, unsigned rounds)
{
	char tables[4096], path[512], name[32];
	struct statctr_seg *seg;
	double samples[64];
	uint32_t row, live[1024];
	unsigned i, s, n = 0;

	snprintf(tables, sizeof(tables),
	         "{ name = \"d\"; rows = { max = 4096; }; columns = ( %s ); }", columns(ncols));
	write_config(env, "addremove", tables, path, sizeof(path));
	if (statctr_seg_create(path, "rows", &seg) != 0)
		bench_die("%s", statctr_errmsg());
	for (i = 0; i < 1024; i++) {
		snprintf(name, sizeof(name), "if%u", n++);
		bench_check(statctr_row_add(seg, "d", name, &live[i]) == 0, "add: %s",
		            statctr_errmsg());
	}
	for (s = 0; s < 64; s++) {
		uint64_t t0 = bench_now_ns();

		for (i = 0; i < rounds; i++) {
			snprintf(name, sizeof(name), "if%u", n++);
			bench_check(statctr_row_remove(seg, "d", live[i % 1024]) == 0, "remove");
			bench_check(statctr_row_add(seg, "d", name, &row) == 0, "add");
			live[i % 1024] = row;
		}
		samples[s] = (double)(bench_now_ns() - t0) / rounds;
	}
	statctr_seg_destroy(seg);
	return bench_stats_of(samples, 64).median;
}

static _Atomic int churning;

static void *churn(void *arg)
{
	struct statctr_seg *seg = arg;
	uint32_t live[DYN_MAX / 2] = {0}, row;
	char name[32];
	unsigned n = 0;

	while (atomic_load_explicit(&churning, memory_order_relaxed)) {
		snprintf(name, sizeof(name), "tun%u", n);
		if (n >= DYN_MAX / 2)
			statctr_row_remove(seg, "dyn", live[n % (DYN_MAX / 2)]);
		if (statctr_row_add(seg, "dyn", name, &row) == 0)
			live[n % (DYN_MAX / 2)] = row;
		n++;
	}
	return NULL;
}

/* Snapshot times of one segment, gathered over interleaved rounds. */
struct snap_cost {
	const char *path;
	double *samples;
	unsigned n;
	uint64_t retries; /* retried, busy or assisted slot reads, all samples */
};

/* @count more samples of statctr_snap_retake() into @cost. */
static void measure(struct snap_cost *cost, unsigned count)
{
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	struct statctr_snap_stats st;
	unsigned i;

	if (statctr_view_open(cost->path, &view) != 0)
		bench_die("cannot open %s: %s", cost->path, statctr_errmsg());
	statctr_snap_retake(view, &snap); /* buffers faulted in */
	for (i = 0; i < count; i++) {
		uint64_t t0 = bench_now_ns();

		bench_check(statctr_snap_retake(view, &snap) == 0, "snapshot: %s",
		            statctr_errmsg());
		cost->samples[cost->n++] = (double)(bench_now_ns() - t0);
		statctr_snap_stats(snap, &st);
		cost->retries += st.retries + st.busy_slots + st.assisted_slots;
	}
	statctr_snap_free(snap);
	statctr_view_close(view);
}

static double median(struct snap_cost *cost)
{
	return bench_stats_of(cost->samples, cost->n).median;
}

/*
 * The three cases in interleaved rounds (A B C A B C ...), so that load
 * from other processes falls on all of them alike.
 */
static void measure_rounds(struct snap_cost *only, struct snap_cost *idle, struct snap_cost *busy,
                           struct statctr_seg *mixed, unsigned rounds, unsigned per_round)
{
	pthread_t thread;
	unsigned r;

	for (r = 0; r < rounds; r++) {
		measure(only, per_round);
		measure(idle, per_round);
		atomic_store(&churning, 1);
		pthread_create(&thread, NULL, churn, mixed);
		measure(busy, per_round);
		atomic_store(&churning, 0);
		pthread_join(thread, NULL);
	}
}

static void snapshot_costs(const struct bench_env *env, FILE *csv)
{
	char statics[512], both[1024], path_static[512], path_both[512], seg_static[512],
	    seg_mixed[512];
	unsigned rounds = env->quick ? 2 : 20, per_round = env->quick ? 25 : 100;
	struct statctr_seg *alone, *mixed;
	struct snap_cost only = {.path = seg_static}, idle = {.path = seg_mixed},
	                 busy = {.path = seg_mixed};
	double t_only, t_idle, t_busy;

	snprintf(
	    statics, sizeof(statics),
	    "{ name = \"flows\"; rows = %u; columns = ( { name = \"p\"; kind = \"counter\"; }, "
	    "{ name = \"o\"; kind = \"counter\"; } ); }",
	    STATIC_ROWS);
	snprintf(both, sizeof(both),
	         "%s, { name = \"dyn\"; rows = { max = %u; }; columns = ( %s ); }", statics,
	         DYN_MAX, columns(4));
	write_config(env, "static", statics, path_static, sizeof(path_static));
	write_config(env, "mixed", both, path_both, sizeof(path_both));
	snprintf(seg_static, sizeof(seg_static), "%s/static", env->tmp_dir);
	snprintf(seg_mixed, sizeof(seg_mixed), "%s/mixed", env->tmp_dir);
	only.samples = calloc(rounds * per_round, sizeof(double));
	idle.samples = calloc(rounds * per_round, sizeof(double));
	busy.samples = calloc(rounds * per_round, sizeof(double));
	if (!only.samples || !idle.samples || !busy.samples ||
	    statctr_seg_create(path_static, "rows", &alone) != 0 ||
	    statctr_seg_create(path_both, "rows", &mixed) != 0)
		bench_die("%s", statctr_errmsg());
	measure_rounds(&only, &idle, &busy, mixed, rounds, per_round);
	t_only = median(&only), t_idle = median(&idle), t_busy = median(&busy);
	printf("\nSnapshot of %u static cells (statctr_snap_retake, median of %u, %u rounds)\n",
	       2 * STATIC_ROWS, rounds * per_round, rounds);
	printf("  static table alone                          %10.0f ns\n", t_only);
	printf("  + dynamic table (%u x 4), rows idle          %10.0f ns  (x%.3f)\n", DYN_MAX,
	       t_idle, t_idle / t_only);
	printf("  + dynamic table, rows added/removed flat out %10.0f ns  (x%.3f of idle)\n",
	       t_busy, t_busy / t_idle);
	printf("  slot retries, busy or assisted reads: %llu idle, %llu churning\n",
	       (unsigned long long)idle.retries, (unsigned long long)busy.retries);
	fprintf(csv,
	        "snapshot_static_alone_ns,%.0f\nsnapshot_with_idle_dynamic_ns,%.0f\n"
	        "snapshot_with_churning_dynamic_ns,%.0f\n",
	        t_only, t_idle, t_busy);
	bench_check(busy.retries == 0, "churn caused %llu slot retries",
	            (unsigned long long)busy.retries);
	bench_target(env, "rows: snapshot with churning rows / rows idle", t_busy / t_idle, "<",
	             1.25);
	bench_info(env, "rows: snapshot with an idle dynamic table / static alone",
	           t_idle / t_only);
	statctr_seg_destroy(alone);
	statctr_seg_destroy(mixed);
	free(only.samples);
	free(idle.samples);
	free(busy.samples);
}

int main(int argc, char **argv)
{
	const char *out;
	struct bench_env env;
	bool quick;
	double narrow, wide;
	FILE *csv;

	if (bench_options(argc, argv, "bench_rows", &out, &quick) != 0)
		return 2;
	bench_init(&env, "rows", out, quick);
	csv = bench_csv_open(&env, "rows.csv", "what,value");
	narrow = add_remove_ns(&env, 4, quick ? 100 : 2000);
	wide = add_remove_ns(&env, 16, quick ? 100 : 2000);
	printf("\nstatctr_row_remove() + statctr_row_add(), 1024 of 4096 rows present, %u slots\n",
	       NSLOTS);
	printf("  4 columns   %8.0f ns per remove + add\n", narrow);
	printf("  16 columns  %8.0f ns per remove + add\n", wide);
	fprintf(csv, "remove_add_4_columns_ns,%.0f\nremove_add_16_columns_ns,%.0f\n", narrow, wide);
	bench_info(&env, "rows: remove + add, 4 columns (ns)", narrow);
	bench_info(&env, "rows: remove + add, 16 columns (ns)", wide);
	snapshot_costs(&env, csv);
	bench_csv_close(csv);
	return bench_finish(&env);
}
