/*
 * bench_agent.c - the agent's aggregation pass and its CPU share
 * (docs/PERFORMANCE.md, "Agent").
 *
 *   pass: statctrAggDuration (the agent's own timing of its last pass, in
 *         us), sampled after each new pass, for cells x slots, against the
 *         library alone doing the same work in this process
 *         (statctr_view_refresh + statctr_snap_retake into the previous
 *         pass's snapshot, as the agent does).
 *   cpu:  100,000 cells x 16 slots, the agent at its default 1 s interval:
 *         its CPU time (/proc/PID/stat) over wall time, against the library
 *         alone doing a refresh and a snapshot every second (getrusage).
 *
 * The agent runs as its own master (-M) on a free 127.0.0.1 UDP port, so no
 * snmpd is involved; this process creates the segments and leaves their
 * slots idle.  Without --agent only the library figures are produced.
 */
#include "config.h"

#include "harness.h"
#include "snmpclient.h"
#include "statctr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROOT         ".1.3.6.1.4.1.8072.9999.9999.4242"
#define OID_DURATION ROOT ".1.1.4.0" /* statctrAggDuration, us */
#define OID_PASSES   ROOT ".1.1.5.0" /* statctrAggPasses */
#define MAX_SAMPLES  16

struct agent {
	pid_t pid;
	struct snmpc *snmp;
	char log[512];
};

/* A UDP port nobody listens on now (the agent binds it a moment later). */
static unsigned free_udp_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	unsigned port = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	if (!port)
		bench_die("no free UDP port: %s", strerror(errno));
	return port;
}

static bool agent_answers(struct agent *a, unsigned timeout_ms)
{
	uint64_t passes, deadline = bench_now_ns() + (uint64_t)timeout_ms * 1000000u;

	while (bench_now_ns() < deadline) {
		if (snmpc_get_text(a->snmp, OID_PASSES, &passes) == 0 && passes > 0)
			return true;
		bench_sleep_ns(50000000);
	}
	return false;
}

static bool try_start_agent(const struct bench_env *env, const char *path, const char *config,
                            struct agent *a)
{
	char addr[64], peer[64];
	char *argv[] = {(char *)path, "-f", "-L", "stderr", "-c", (char *)config, "-M", addr, NULL};
	unsigned port = free_udp_port();
	int log;

	snprintf(addr, sizeof(addr), "udp:127.0.0.1:%u", port);
	snprintf(peer, sizeof(peer), "udp:127.0.0.1:%u", port);
	snprintf(a->log, sizeof(a->log), "%s/agent.log", env->tmp_dir);
	log = open(a->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	a->pid = bench_spawn(argv, -1, log, log);
	close(log);
	a->snmp = snmpc_open(peer, "public", 500);
	if (a->snmp && agent_answers(a, 10000))
		return true;
	snmpc_close(a->snmp);
	bench_stop(a->pid);
	return false;
}

static void start_agent(const struct bench_env *env, const char *path, const char *config,
                        struct agent *a)
{
	int try;

	memset(a, 0, sizeof(*a));
	for (try = 0; try < 3; try++)
		if (try_start_agent(env, path, config, a))
			return;
	bench_die("%s did not answer on 127.0.0.1 (see %s)", path, a->log);
}

static void stop_agent(struct agent *a)
{
	int status;

	snmpc_close(a->snmp);
	status = bench_stop(a->pid);
	bench_check(status == 0, "the agent exited with status %d on SIGTERM", status);
}

/* utime + stime of @pid in ns (/proc/PID/stat fields 14 and 15). */
static uint64_t proc_cpu_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long utime, stime;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		bench_die("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
	                 &stime) != 2)
		bench_die("cannot parse %s", path);
	return (utime + stime) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

/* ---- the segment and the library's own pass ------------------------------------ */

struct segment {
	struct statctr_seg *seg;
	struct statctr_view *view;
	char config[512];
};

static void segment_create(const struct bench_env *env, struct segment *s, uint32_t ncells,
                           unsigned nslots, const char *agent_settings)
{
	char path[512];

	bench_write_config(env, "agent", nslots, (ncells - 2) / 2, agent_settings, s->config,
	                   sizeof(s->config));
	if (statctr_seg_create(s->config, "bench", &s->seg) != 0)
		bench_die("statctr_seg_create: %s", statctr_errmsg());
	snprintf(path, sizeof(path), "%s/agent", env->tmp_dir);
	if (statctr_view_open(path, &s->view) != 0)
		bench_die("statctr_view_open: %s", statctr_errmsg());
}

static void segment_destroy(struct segment *s)
{
	statctr_view_close(s->view);
	statctr_seg_destroy(s->seg);
}

/*
 * What an aggregation pass needs from the library, with the agent's reuse
 * of the previous snapshot's memory (*@keep, taken on the first call);
 * returns its duration in us.
 */
static double library_pass(struct statctr_view *view, struct statctr_snap **keep)
{
	uint64_t t0 = bench_now_ns();
	int err = statctr_view_refresh(view);

	if (err >= 0)
		err = statctr_snap_retake(view, keep);
	if (err < 0)
		bench_die("library pass: %s", statctr_errmsg());
	return (double)(bench_now_ns() - t0) / 1000;
}

/* ---- pass duration ----------------------------------------------------------------- */

/* Durations (us) of @n passes that complete after the first one we see. */
static unsigned sample_passes(struct agent *a, unsigned interval_ms, unsigned n, double *us)
{
	uint64_t seen = 0, passes, duration, deadline;
	unsigned got = 0;

	deadline = bench_now_ns() + (uint64_t)(n + 3) * interval_ms * 3000000u + 5000000000u;
	while (got < n && bench_now_ns() < deadline) {
		bench_sleep_ns((uint64_t)interval_ms * 250000u);
		if (snmpc_get_text(a->snmp, OID_PASSES, &passes) != 0 || passes == seen)
			continue;
		if (seen && snmpc_get_text(a->snmp, OID_DURATION, &duration) == 0)
			us[got++] = (double)duration;
		seen = passes;
	}
	return got;
}

static void bench_pass(const struct bench_env *env, const char *agent_path)
{
	static const uint32_t cells[] = {1000, 10000, 100000, 1000000};
	static const unsigned slots[] = {1, 4, 16, 64};
	unsigned nc = env->quick ? 1 : 4, ns = env->quick ? 2 : 4, i, j, k;
	FILE *csv = bench_csv_open(env, "agent_pass.csv",
	                           "cells,slots,interval_ms,samples,agent_pass_us,agent_min_us,"
	                           "agent_max_us,library_pass_us,ratio_agent_vs_library");

	printf("\nAggregation pass, writers idle (agent: statctrAggDuration; library: "
	       "statctr_view_refresh + snap_retake)\n");
	printf("%9s %5s %9s %12s %10s %10s %14s %8s\n", "cells", "slots", "interval", "agent us",
	       "min", "max", "library us", "ratio");
	for (i = 0; i < nc; i++)
		for (j = 0; j < ns; j++) {
			bool big = (uint64_t)cells[i] * slots[j] > 2000000;
			unsigned interval = big ? 1000 : 100, want = env->quick ? 2 : big ? 5 : 7;
			double lib_us[MAX_SAMPLES];
			struct bench_stats ag = {0, 0, 0, 0}, lib;
			char settings[64];
			struct segment s;
			struct statctr_snap *keep = NULL;
			unsigned got = 0;

			snprintf(settings, sizeof(settings), "interval_ms = %u;", interval);
			segment_create(env, &s, cells[i], slots[j], settings);
			library_pass(s.view, &keep); /* the agent's first pass takes */
			for (k = 0; k < want; k++)
				lib_us[k] = library_pass(s.view, &keep);
			statctr_snap_free(keep);
			lib = bench_stats_of(lib_us, want);
			if (agent_path) {
				double agent_us[MAX_SAMPLES];
				struct agent a;

				start_agent(env, agent_path, s.config, &a);
				got = sample_passes(&a, interval, want, agent_us);
				stop_agent(&a);
				bench_check(got == want, "%u of %u agent passes sampled", got,
				            want);
				ag = bench_stats_of(agent_us, got);
			}
			printf("%9u %5u %6u ms %12.0f %10.0f %10.0f %14.0f %8.2f\n", cells[i],
			       slots[j], interval, ag.median, ag.min, ag.max, lib.median,
			       agent_path ? ag.median / lib.median : 0);
			fprintf(csv, "%u,%u,%u,%u,%.1f,%.1f,%.1f,%.1f,%.3f\n", cells[i], slots[j],
			        interval, got, ag.median, ag.min, ag.max, lib.median,
			        agent_path ? ag.median / lib.median : 0);
			segment_destroy(&s);
		}
	bench_csv_close(csv);
}

/* ---- CPU share at the default interval ---------------------------------------------- */

static void bench_cpu(const struct bench_env *env, const char *agent_path)
{
	unsigned seconds = env->quick ? 2 : 30, s;
	FILE *csv = bench_csv_open(env, "agent_cpu.csv",
	                           "cells,slots,interval_ms,seconds,agent_cpu_pct,library_cpu_pct");
	uint64_t wall0, lib0, agent0 = 0, wall;
	double agent_pct = 0, lib_pct;
	struct segment seg;
	struct statctr_snap *keep = NULL;
	struct agent a;

	segment_create(env, &seg, 100000, 16, NULL); /* the agent's defaults */
	if (agent_path)
		start_agent(env, agent_path, seg.config, &a);
	wall0 = bench_now_ns();
	lib0 = bench_cpu_ns();
	if (agent_path)
		agent0 = proc_cpu_ns(a.pid);
	for (s = 0; s < seconds; s++) {
		uint64_t next = wall0 + (uint64_t)(s + 1) * 1000000000u;

		library_pass(seg.view, &keep);
		if (next > bench_now_ns())
			bench_sleep_ns(next - bench_now_ns());
	}
	wall = bench_now_ns() - wall0;
	lib_pct = 100.0 * (double)(bench_cpu_ns() - lib0) / (double)wall;
	statctr_snap_free(keep);
	if (agent_path) {
		agent_pct = 100.0 * (double)(proc_cpu_ns(a.pid) - agent0) / (double)wall;
		stop_agent(&a);
	}
	segment_destroy(&seg);
	printf("\nCPU share at a 1 s interval, 100,000 cells x 16 slots, %u s: agent %.3f%% of a "
	       "core, library alone %.3f%%\n",
	       seconds, agent_pct, lib_pct);
	fprintf(csv, "100000,16,1000,%u,%.4f,%.4f\n", seconds, agent_pct, lib_pct);
	bench_csv_close(csv);
	if (agent_path)
		bench_target(env, "agent: CPU % of a core, 1 s interval, 100k x 16", agent_pct, "<",
		             1.0);
	else
		bench_target(env, "agent (library part): CPU % of a core, 1 s, 100k x 16", lib_pct,
		             "<", 1.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
	                                     {"quick", no_argument, NULL, 'q'},
	                                     {"agent", required_argument, NULL, 'a'},
	                                     {NULL, 0, NULL, 0}};
	const char *out = "bench-results", *agent = NULL;
	struct bench_env env;
	bool quick = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'q')
			quick = true;
		else if (opt == 'a')
			agent = optarg;
		else {
			fprintf(stderr,
			        "usage: bench_agent [--out DIR] [--quick] [--agent PATH]\n");
			return 2;
		}
	}
	bench_init(&env, "agent", out, quick);
	if (agent && access(agent, X_OK) != 0) {
		printf("agent %s not built: measuring the library part only\n", agent);
		agent = NULL;
	}
	snmpc_init();
	bench_pass(&env, agent);
	bench_cpu(&env, agent);
	return bench_finish(&env);
}
