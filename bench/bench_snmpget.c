/*
 * bench_snmpget.c - SNMP GET latency with concurrent pollers
 * (docs/PERFORMANCE.md, "SNMP serving"; driven by bench/snmp.sh).
 *
 * THREADS pollers, each with its own v2c session, GET one random row's
 * instance OID_BASE.<1..ROWS> back to back for SECONDS; prints one line:
 * "requests errors requests_per_s p50_us p99_us mean_us max_us".
 */
#include "config.h"

#include "harness.h"
#include "snmpclient.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64
#define MAX_LAT     200000 /* latencies kept per poller */

struct poller {
	pthread_t thread;
	const char *peer, *community;
	const struct snmpc_oid *base;
	unsigned rows, index;
	uint64_t deadline;
	uint64_t requests, errors;
	double *lat_us;
	size_t nlat;
};

static void *poller_main(void *arg)
{
	struct poller *p = arg;
	struct snmpc *c = snmpc_open(p->peer, p->community, 2000);
	struct snmpc_oid o = *p->base;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (p->index + 1), value;

	if (!c) {
		p->errors++;
		return NULL;
	}
	o.len++;
	while (bench_now_ns() < p->deadline) {
		uint64_t t0;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		o.sub[o.len - 1] = 1 + seed % p->rows;
		t0 = bench_now_ns();
		if (snmpc_get(c, &o, &value) != 0)
			p->errors++;
		else if (p->nlat < MAX_LAT)
			p->lat_us[p->nlat++] = (double)(bench_now_ns() - t0) / 1000;
		p->requests++;
	}
	snmpc_close(c);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct poller p[MAX_THREADS];
	struct snmpc_oid base;
	unsigned threads, rows, seconds, t;
	uint64_t requests = 0, errors = 0, start;
	double *all, sum = 0, p50, p99;
	size_t n = 0, i;

	if (argc != 7) {
		fprintf(stderr,
		        "usage: bench_snmpget PEER COMMUNITY OID_BASE ROWS THREADS SECONDS\n");
		return 2;
	}
	rows = (unsigned)strtoul(argv[4], NULL, 10);
	threads = (unsigned)strtoul(argv[5], NULL, 10);
	seconds = (unsigned)strtoul(argv[6], NULL, 10);
	if (!rows || !threads || threads > MAX_THREADS || !seconds)
		bench_die("bad ROWS, THREADS or SECONDS");
	snmpc_init();
	if (snmpc_parse(argv[3], &base) != 0 || base.len >= 127)
		bench_die("bad OID %s", argv[3]);
	all = malloc((size_t)threads * MAX_LAT * sizeof(*all));
	if (!all)
		bench_die("out of memory");
	start = bench_now_ns();
	for (t = 0; t < threads; t++) {
		p[t] = (struct poller){.peer = argv[1],
		                       .community = argv[2],
		                       .base = &base,
		                       .rows = rows,
		                       .index = t,
		                       .deadline = start + (uint64_t)seconds * 1000000000u,
		                       .lat_us = all + (size_t)t * MAX_LAT};
		if (pthread_create(&p[t].thread, NULL, poller_main, &p[t]) != 0)
			bench_die("pthread_create: %s", strerror(errno));
	}
	for (t = 0; t < threads; t++) {
		pthread_join(p[t].thread, NULL);
		requests += p[t].requests;
		errors += p[t].errors;
		memmove(all + n, p[t].lat_us, p[t].nlat * sizeof(*all));
		n += p[t].nlat;
	}
	for (i = 0; i < n; i++)
		sum += all[i];
	p50 = bench_percentile(all, n, 50);
	p99 = bench_percentile(all, n, 99);
	printf("%" PRIu64 " %" PRIu64 " %.0f %.1f %.1f %.1f %.1f\n", requests, errors,
	       (double)requests / ((double)(bench_now_ns() - start) / 1e9), p50, p99,
	       n ? sum / (double)n : 0, n ? all[n - 1] : 0);
	free(all);
	return 0;
}
