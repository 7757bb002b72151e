/*
 * main.c - statctr-dpdk-fwd: an l2fwd-style forwarder counting with
 * statctr (docs/dpdk.md).
 *
 *   statctr-dpdk-fwd EAL-OPTIONS -- -c CONFIG [-s SEGMENT] [-P PATH]
 *                    [-C CONTROL] [-d SECONDS] [-i POLL_MS] [-y IDLE_US]
 *                    [-t BURSTS] [-q TX_CAP]
 *
 * Owns: the run - EAL, the mbuf pool, the declaration written to CONFIG
 * from the ports found, the segment, the workers (one per worker lcore,
 * each forwarding the rx queue of some ports to their pair, as l2fwd:
 * ports 0<->1, 2<->3, an odd last one to itself) and the main lcore's
 * loop: every POLL_MS it mirrors link state and xstats (ports.c) and runs
 * the commands of the CONTROL file ("attach DEVARGS", "detach NAME":
 * hot-plug; "link-down NAME", "link-up NAME"; one a line), which it removes
 * once read.  With -y, a worker sleeps IDLE_US after a turn that found no
 * packet (for shared test machines; DPDK's workers spin by default).  With
 * -q, every port's tx takes at most TX_CAP packets of a burst and refuses
 * the rest, as a congested port does (ports.c).  Stops on SIGINT/SIGTERM
 * or after SECONDS, then prints what each worker forwarded, its cycles per
 * packet and, once the ports are closed, the mbufs still in use (0 unless
 * one leaked).  Never does: count on the fast path (worker.c) or touch a
 * row (ports.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "fwd.h"
#include "safefile.h"

#define POOL_MBUFS 8191u
#define POOL_CACHE 256u

atomic_bool fwd_stop;

struct options {
	const char *config, *segment, *seg_path, *control;
	unsigned seconds, poll_ms, idle_us, timed;
	unsigned tx_cap; /* -q, or UINT16_MAX: no cap */
};

static struct fwd_worker workers[RTE_MAX_LCORE];
static unsigned nworkers;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&fwd_stop, true);
}

static int usage(void)
{
	fprintf(stderr, "usage: statctr-dpdk-fwd EAL-OPTIONS -- -c CONFIG [-s SEGMENT] [-P PATH]\n"
	                "       [-C CONTROL] [-d SECONDS] [-i POLL_MS] [-y IDLE_US] [-t BURSTS]\n"
	                "       [-q TX_CAP]\n");
	return 2;
}

/* A number of 0..@max, else a message naming the option. */
static int parse_uint(int opt, const char *arg, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v > max) {
		fprintf(stderr, "statctr-dpdk-fwd: -%c %s: not a number of 0..%u\n", opt, arg, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	int c, err = 0;

	*o = (struct options){.segment = "dpdk", .poll_ms = 100, .timed = 1, .tx_cap = UINT16_MAX};
	while ((c = getopt(argc, argv, "c:s:P:C:d:i:y:t:q:")) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			o->segment = optarg;
			break;
		case 'P':
			o->seg_path = optarg;
			break;
		case 'C':
			o->control = optarg;
			break;
		case 'd':
			err = parse_uint(c, optarg, 86400u * 365u, &o->seconds);
			break;
		case 'i':
			err = parse_uint(c, optarg, 60000u, &o->poll_ms);
			break;
		case 'y':
			err = parse_uint(c, optarg, 1000000u, &o->idle_us);
			break;
		case 't':
			err = parse_uint(c, optarg, 65536u, &o->timed);
			break;
		case 'q':
			err = parse_uint(c, optarg, UINT16_MAX - 1u, &o->tx_cap);
			break;
		default:
			return -EINVAL;
		}
		if (err != 0)
			return err;
	}
	if (o->config == NULL || optind != argc || o->poll_ms == 0 || o->timed == 0)
		return -EINVAL;
	/* Both go into the declaration as libconfig strings (conf.c). */
	if (strpbrk(o->segment, "\"\\") != NULL ||
	    (o->seg_path != NULL && strpbrk(o->seg_path, "\"\\") != NULL)) {
		fprintf(stderr, "statctr-dpdk-fwd: -s and -P may not hold '\"' or '\\'\n");
		return -EINVAL;
	}
	return 0;
}

/* l2fwd's pairs; port i's rx queue goes to worker i mod nworkers. */
static int assign_queues(struct statctr_seg *seg, const struct options *o)
{
	uint16_t list[FWD_MAX_PORTS], nports = 0, port;
	unsigned lcore, k = 0;

	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		workers[k] = (struct fwd_worker){
		    .lcore = lcore, .seg = seg, .idle_us = o->idle_us, .timed = o->timed};
		k++;
	}
	nworkers = k;
	RTE_ETH_FOREACH_DEV(port)
	{
		list[nports++] = port;
	}
	for (uint16_t i = 0; i < nports; i++) {
		struct fwd_worker *w = &workers[i % nworkers];
		struct fwd_queue *q = &w->queues[w->nqueues];
		uint16_t pair = (i ^ 1u) < nports ? (uint16_t)(i ^ 1u) : i;
		int err;

		if (w->nqueues == FWD_MAX_QUEUES_LCORE)
			return -E2BIG;
		*q = (struct fwd_queue){.rx_port = list[i], .tx_port = list[pair]};
		err = fwd_queue_bind(seg, q);
		if (err != 0)
			return err;
		w->nqueues++;
	}
	return 0;
}

static void run_command(struct statctr_seg *seg, struct rte_mempool *pool, char *line)
{
	char *arg = line + strcspn(line, " ");
	int err = -EINVAL;

	line[strcspn(line, "\r\n")] = '\0';
	if (*arg == ' ')
		*arg++ = '\0';
	if (strcmp(line, "attach") == 0)
		err = fwd_port_attach(seg, pool, arg);
	else if (strcmp(line, "detach") == 0)
		err = fwd_port_detach(seg, arg);
	else if (strcmp(line, "link-down") == 0 || strcmp(line, "link-up") == 0)
		err = fwd_port_link(arg, line[5] == 'u');
	if (err == 0 && line[0] == 'l')
		printf("%s %s\n", line, arg);
	else if (err == 0)
		printf("%sed %s\n", line, arg);
	else
		printf("error: %s %s: %s\n", line, arg, rte_strerror(-err));
	fflush(stdout);
}

/*
 * The control file's commands, once: read through common/safefile.c, so
 * only a regular file of this process's user (or root), writable by
 * neither group nor others, is obeyed (a command attaches a vdev, whose
 * arguments may name files to write); a FIFO, link or another user's file
 * is refused without blocking or following, said once while it stays.
 */
#define CONTROL_MAX 65536

static void run_control_file(struct statctr_seg *seg, struct rte_mempool *pool, const char *path)
{
	static const char *refused; /* the last refusal said */
	const char *why = NULL;
	char *buf, *line, *save = NULL;
	size_t len;
	int err = safefile_read(path, CONTROL_MAX, &buf, &len, &why);

	if (err != 0) {
		if (err != -ENOENT && why != refused)
			printf("error: control file %s: %s\n", path, why);
		refused = err == -ENOENT ? NULL : why;
		fflush(stdout);
		return;
	}
	refused = NULL;
	(void)len;
	unlink(path);
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			run_command(seg, pool, line);
	free(buf);
}

static void main_loop(struct statctr_seg *seg, struct rte_mempool *pool, const struct options *o)
{
	uint64_t deadline = rte_get_timer_cycles() + (uint64_t)o->seconds * rte_get_timer_hz();
	struct statctr_slot *slot;

	/* Pairs with statctr_slot_release() below: the main lcore's slot
	 * holds the gauges and the NIC's counts. */
	if (statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "statctr-dpdk-fwd: main lcore: %s\n", statctr_errmsg());
		atomic_store(&fwd_stop, true);
		return;
	}
	printf("ready: %u workers\n", nworkers);
	fflush(stdout);
	while (!atomic_load(&fwd_stop)) {
		fwd_ports_poll(slot);
		if (o->control != NULL)
			run_control_file(seg, pool, o->control);
		if (o->seconds != 0 && rte_get_timer_cycles() >= deadline)
			break;
		usleep(o->poll_ms * 1000u);
	}
	atomic_store(&fwd_stop, true);
	rte_eal_mp_wait_lcore();
	fwd_ports_poll(slot);       /* the NIC's last counts */
	statctr_slot_release(slot); /* pairs with the acquire above */
}

/* Per worker and in all: packets, TSC cycles (wall) and the TSC cycles of
 * the workers' CPU time (what bench/dpdk.sh compares: another process
 * holding the CPU does not count). */
static void report(void)
{
	double tsc_per_ns = (double)rte_get_tsc_hz() / 1e9, cpu_cycles = 0;
	uint64_t packets = 0, cycles = 0;

	for (unsigned k = 0; k < nworkers; k++) {
		const struct fwd_worker *w = &workers[k];

		printf("lcore %u: %" PRIu64 " packets, %" PRIu64 " cycles, %" PRIu64 " ns on CPU\n",
		       w->lcore, w->packets, w->cycles, w->cpu_ns);
		packets += w->packets;
		cycles += w->cycles;
		cpu_cycles += (double)w->cpu_ns * tsc_per_ns;
	}
	printf("cycles/packet: %.3f\n", packets ? (double)cycles / (double)packets : 0.0);
	printf("cpu cycles/packet: %.3f\n", packets ? cpu_cycles / (double)packets : 0.0);
}

/* Ports, declaration, segment, rows, queues: everything before launch. */
static int set_up(const struct options *o, struct rte_mempool *pool, struct statctr_seg **segp)
{
	const char *why;
	uint16_t port;
	int err;

	if (rte_eth_dev_count_avail() == 0 || rte_lcore_count() < 2) {
		fprintf(stderr,
		        "statctr-dpdk-fwd: needs a port (--vdev) and a worker lcore (-l 0-1)\n");
		return -EINVAL;
	}
	fwd_ports_cap_tx((uint16_t)o->tx_cap);
	RTE_ETH_FOREACH_DEV(port)
	{
		if (fwd_port_start(port, pool) != 0)
			return -EIO;
	}
	err = fwd_conf_write(o->config, o->segment, o->seg_path, rte_lcore_count(), &why);
	if (err != 0) {
		fprintf(stderr, "statctr-dpdk-fwd: %s: %s: %s\n", o->config, why, strerror(-err));
		return err;
	}
	err = statctr_seg_create(o->config, o->segment, segp);
	if (err != 0) {
		fprintf(stderr, "statctr-dpdk-fwd: %s\n", statctr_errmsg());
		return err;
	}
	RTE_ETH_FOREACH_DEV(port)
	{
		if (fwd_port_add(*segp, port) != 0)
			return -EIO;
	}
	err = assign_queues(*segp, o);
	if (err != 0)
		fprintf(stderr, "statctr-dpdk-fwd: queues: %s\n", statctr_errmsg());
	return err;
}

int main(int argc, char **argv)
{
	struct statctr_seg *seg = NULL;
	struct rte_mempool *pool;
	struct options o;
	uint16_t port;
	int n = rte_eal_init(argc, argv), err;

	if (n < 0) {
		fprintf(stderr, "statctr-dpdk-fwd: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (parse_options(argc - n, argv + n, &o) != 0)
		return usage();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pool = rte_pktmbuf_pool_create("mbufs", POOL_MBUFS, POOL_CACHE, 0,
	                               RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "statctr-dpdk-fwd: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	err = set_up(&o, pool, &seg);
	if (err == 0) {
		for (unsigned k = 0; k < nworkers; k++)
			rte_eal_remote_launch(fwd_worker_main, &workers[k], workers[k].lcore);
		main_loop(seg, pool, &o);
		report();
		for (unsigned k = 0; k < nworkers; k++)
			if (workers[k].err != 0)
				err = workers[k].err;
	}
	RTE_ETH_FOREACH_DEV(port)
	{
		fwd_port_stop(port);
	}
	printf("mbufs in use: %u\n", rte_mempool_in_use_count(pool));
	if (seg != NULL)
		statctr_seg_destroy(seg);
	rte_eal_cleanup();
	return err == 0 ? 0 : 1;
}
