/*
 * stages.c - a realistic multi-stage packet pipeline on the "dataplane"
 * segment of conf/statctr.conf.
 *
 * Each lane is three threads joined by single-producer/single-consumer
 * rings: receive -> classify -> transmit.  Every thread owns a slot, so:
 *   - receive and transmit count ifStats rx/tx of the lane's interface;
 *   - classify moves a flow row and the totals row in one transaction, so
 *     readers always see totals == sum of flows;
 *   - the gauges are levels made of deltas from *different* threads:
 *     ifStats.queueDepth is +1 in classify (enqueue) and -1 in transmit
 *     (dequeue); totals.inFlight is +1 in receive and -1 where a packet
 *     leaves (transmitted or dropped).  Their sum over slots is the level.
 *   - each stage times its work on every packet (CLOCK_MONOTONIC around
 *     it) into its row of the stages.latency histogram, in nanoseconds:
 *     statctr_hist_record() on the fast path, like the counters.
 * One more thread plays the virtual functions of the dynamic table vfStats:
 * vf0 and vf1 stay for the whole run, vf3 is plugged in 5 s into every 10 s
 * and pulled out 5 s later (statctr_row_add()/statctr_row_remove()).  It is
 * the only thread that counts VF traffic, so no thread updates a row that
 * is being removed; each return of vf3 takes a new index (first-in
 * first-out) and starts at zero.
 *
 * usage: stages [-c CONFIG] [-l LANES] [-r PACKETS_PER_S_PER_LANE] [-d SECONDS]
 * Runs until SIGINT/SIGTERM (or -d), then drains the rings so the gauges
 * end at 0, and removes the segment.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "statctr.h"

#define RING_SIZE   1024u /* power of two */
#define NFLOWS      64u
#define NIFS        4u
#define VF_PERIOD_S 10u /* vf3 comes back every 10 s ... */
#define VF_AWAY_S   5u  /* ... after 5 s away */

struct packet {
	uint32_t size, flow;
};

/* Single producer, single consumer; head and tail on their own lines. */
struct ring {
	alignas(64) _Atomic uint32_t head; /* next to pop; stored by the consumer */
	alignas(64) _Atomic uint32_t tail; /* next to push; stored by the producer */
	alignas(64) struct packet packets[RING_SIZE];
};

struct lane {
	unsigned index;
	struct ring to_classify, to_transmit;
	_Atomic int receive_done, classify_done;
	pthread_t threads[3];
};

/* The rows of the stages table. */
enum stage { STAGE_RECEIVE, STAGE_CLASSIFY, STAGE_TRANSMIT, NSTAGES };

struct ids {
	statctr_id rx_pkts[NIFS], rx_octets[NIFS], tx_pkts[NIFS], tx_octets[NIFS];
	statctr_id drops[NIFS], queue[NIFS];
	statctr_id flow_pkts[NFLOWS], flow_octets[NFLOWS];
	statctr_id tot_pkts, tot_octets, in_flight;
	statctr_id latency[NSTAGES];
};

static struct statctr_seg *seg;
static struct ids ids;
static long rate = 100000;
static volatile sig_atomic_t stop;

static bool ring_push(struct ring *r, struct packet p)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (tail - atomic_load_explicit(&r->head, memory_order_acquire) == RING_SIZE)
		return false;
	r->packets[tail % RING_SIZE] = p;
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	return true;
}

static bool ring_pop(struct ring *r, struct packet *p)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);

	if (head == atomic_load_explicit(&r->tail, memory_order_acquire))
		return false;
	*p = r->packets[head % RING_SIZE];
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return true;
}

static void nap(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time since @start, into @stage's latency histogram. */
static void record_latency(struct statctr_slot *slot, enum stage stage, uint64_t start)
{
	statctr_hist_record(slot, ids.latency[stage], now_ns() - start);
}

static struct statctr_slot *take_slot(const char *stage)
{
	struct statctr_slot *slot;

	if (statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "stages: %s: %s\n", stage, statctr_errmsg());
		exit(1);
	}
	return slot;
}

static void *receive(void *arg)
{
	struct lane *lane = arg;
	struct statctr_slot *slot = take_slot("receive");
	unsigned ifx = lane->index % NIFS;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (lane->index + 1), n;

	for (n = 0; !stop; n++) {
		uint64_t start = now_ns();
		struct packet p;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		p.size = 64 + (uint32_t)(seed % 1437);
		p.flow = (uint32_t)(seed >> 32) % NFLOWS;
		statctr_inc(slot, ids.rx_pkts[ifx]);
		statctr_add(slot, ids.rx_octets[ifx], p.size);
		statctr_gauge_add(slot, ids.in_flight, 1);
		if (!ring_push(&lane->to_classify, p)) {
			statctr_inc(slot, ids.drops[ifx]);
			statctr_gauge_add(slot, ids.in_flight, -1);
		}
		record_latency(slot, STAGE_RECEIVE, start);
		if (n % (uint64_t)(rate / 1000 + 1) == 0)
			nap(1000000); /* about `rate` packets per second */
	}
	atomic_store(&lane->receive_done, 1);
	statctr_slot_release(slot);
	return NULL;
}

static void *classify(void *arg)
{
	struct lane *lane = arg;
	struct statctr_slot *slot = take_slot("classify");
	unsigned ifx = lane->index % NIFS;
	struct packet p;

	for (;;) {
		uint64_t start = now_ns();

		if (!ring_pop(&lane->to_classify, &p)) {
			if (atomic_load(&lane->receive_done))
				break;
			nap(100000);
			continue;
		}
		statctr_txn_begin(slot);
		statctr_inc(slot, ids.flow_pkts[p.flow]);
		statctr_add(slot, ids.flow_octets[p.flow], p.size);
		statctr_inc(slot, ids.tot_pkts);
		statctr_add(slot, ids.tot_octets, p.size);
		statctr_txn_end(slot);
		if (ring_push(&lane->to_transmit, p)) {
			statctr_gauge_add(slot, ids.queue[ifx], 1);
		} else {
			statctr_inc(slot, ids.drops[ifx]);
			statctr_gauge_add(slot, ids.in_flight, -1);
		}
		record_latency(slot, STAGE_CLASSIFY, start);
	}
	atomic_store(&lane->classify_done, 1);
	statctr_slot_release(slot);
	return NULL;
}

static void *transmit(void *arg)
{
	struct lane *lane = arg;
	struct statctr_slot *slot = take_slot("transmit");
	unsigned ifx = lane->index % NIFS;
	struct packet p;

	for (;;) {
		uint64_t start = now_ns();

		if (!ring_pop(&lane->to_transmit, &p)) {
			if (atomic_load(&lane->classify_done))
				break;
			nap(100000);
			continue;
		}
		statctr_gauge_add(slot, ids.queue[ifx], -1);
		statctr_inc(slot, ids.tx_pkts[ifx]);
		statctr_add(slot, ids.tx_octets[ifx], p.size);
		statctr_gauge_add(slot, ids.in_flight, -1);
		record_latency(slot, STAGE_TRANSMIT, start);
	}
	statctr_slot_release(slot);
	return NULL;
}

static int lookup(const char *table, const char *column, uint32_t row, statctr_id *id)
{
	if (statctr_seg_lookup(seg, table, column, row, id) == 0)
		return 0;
	fprintf(stderr, "stages: %s\n", statctr_errmsg());
	return -1;
}

struct vf {
	const char *name;
	bool always; /* present for the whole run, else plugged in and out */
	bool present;
	int queue; /* its queueDepth level, 0..7 */
	statctr_id rx_pkts, rx_octets, tx_pkts, queue_depth;
};

/* Plugs @vf in: a row of its own, counting from zero. */
static int vf_plug(struct vf *vf)
{
	uint32_t row;

	if (statctr_row_add(seg, "vfStats", vf->name, &row) != 0) {
		fprintf(stderr, "stages: %s\n", statctr_errmsg());
		return -1;
	}
	vf->present = true;
	vf->queue = 0;
	return lookup("vfStats", "rxPackets", row, &vf->rx_pkts) |
	       lookup("vfStats", "rxOctets", row, &vf->rx_octets) |
	       lookup("vfStats", "txPackets", row, &vf->tx_pkts) |
	       lookup("vfStats", "queueDepth", row, &vf->queue_depth);
}

static void vf_unplug(struct vf *vf)
{
	uint32_t row;

	if (statctr_row_find(seg, "vfStats", vf->name, &row) == 0)
		statctr_row_remove(seg, "vfStats", row);
	vf->present = false;
}

/* One packet through @vf: received, queued or dequeued, transmitted. */
static void vf_packet(struct statctr_slot *slot, struct vf *vf, uint64_t seed)
{
	int step = (seed & 1) && vf->queue < 7 ? 1 : vf->queue > 0 ? -1 : 0;

	statctr_txn_begin(slot);
	statctr_inc(slot, vf->rx_pkts);
	statctr_add(slot, vf->rx_octets, 64 + seed % 1437);
	statctr_inc(slot, vf->tx_pkts);
	statctr_gauge_add(slot, vf->queue_depth, step);
	statctr_txn_end(slot);
	vf->queue += step;
}

static void *vf_traffic(void *arg)
{
	struct vf vfs[] = {{.name = "vf0", .always = true},
	                   {.name = "vf1", .always = true},
	                   {.name = "vf3", .always = false}};
	struct statctr_slot *slot = take_slot("vfs");
	uint64_t seed = 0x2545f4914f6cdd1dull, ms;
	struct timespec start, now;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (ms = 0; !stop; ms++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		bool plugged = (uint64_t)(now.tv_sec - start.tv_sec) % VF_PERIOD_S >= VF_AWAY_S;

		for (size_t i = 0; i < sizeof(vfs) / sizeof(vfs[0]); i++) {
			struct vf *vf = &vfs[i];
			bool want = vf->always || plugged;

			if (want && !vf->present && vf_plug(vf) != 0)
				stop = 1;
			else if (!want && vf->present)
				vf_unplug(vf);
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			if (vf->present && seed % (i + 2) == 0) /* vf0 busiest */
				vf_packet(slot, vf, seed >> 8);
		}
		nap(1000000);
	}
	statctr_slot_release(slot);
	return NULL;
}

/*
 * ifStats.speed, where the declaration has it (conf/statctr.conf): every
 * interface a 10 Gb/s link, so that NMSs scale their graphs (ifHighSpeed).
 */
static void set_link_speeds(void)
{
	statctr_id id;

	for (uint32_t row = 0; statctr_seg_lookup(seg, "ifStats", "speed", row, &id) == 0; row++)
		statctr_gauge_set(seg, id, 10000);
}

static int lookup_ids(void)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < NIFS; i++)
		err |= lookup("ifStats", "rxPackets", i, &ids.rx_pkts[i]) |
		       lookup("ifStats", "rxOctets", i, &ids.rx_octets[i]) |
		       lookup("ifStats", "txPackets", i, &ids.tx_pkts[i]) |
		       lookup("ifStats", "txOctets", i, &ids.tx_octets[i]) |
		       lookup("ifStats", "drops", i, &ids.drops[i]) |
		       lookup("ifStats", "queueDepth", i, &ids.queue[i]);
	for (i = 0; i < NFLOWS; i++)
		err |= lookup("flowStats", "packets", i, &ids.flow_pkts[i]) |
		       lookup("flowStats", "octets", i, &ids.flow_octets[i]);
	for (i = 0; i < NSTAGES; i++)
		err |= lookup("stages", "latency", i, &ids.latency[i]);
	return err | lookup("totals", "packets", 0, &ids.tot_pkts) |
	       lookup("totals", "octets", 0, &ids.tot_octets) |
	       lookup("totals", "inFlight", 0, &ids.in_flight);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void run(struct lane *lanes, unsigned nlanes, unsigned seconds)
{
	void *(*stage[3])(void *) = {transmit, classify, receive};
	unsigned l, s, tenths = 0;
	pthread_t vf_thread;

	pthread_create(&vf_thread, NULL, vf_traffic, NULL);
	for (l = 0; l < nlanes; l++)
		for (s = 0; s < 3; s++)
			pthread_create(&lanes[l].threads[s], NULL, stage[s], &lanes[l]);
	while (!stop && (seconds == 0 || tenths < seconds * 10)) {
		nap(100000000);
		tenths++;
	}
	stop = 1;
	for (l = 0; l < nlanes; l++)
		for (s = 0; s < 3; s++)
			pthread_join(lanes[l].threads[s], NULL);
	pthread_join(vf_thread, NULL);
}

int main(int argc, char **argv)
{
	const char *config = "conf/statctr.conf";
	unsigned nlanes = 1, seconds = 0;
	struct lane *lanes;
	int opt;

	while ((opt = getopt(argc, argv, "c:l:r:d:h")) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 'l':
			nlanes = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rate = strtol(optarg, NULL, 10);
			break;
		case 'd':
			seconds = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
			        "usage: stages [-c CONFIG] [-l LANES] [-r RATE] [-d SECONDS]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (nlanes == 0 || rate <= 0 || !(lanes = calloc(nlanes, sizeof(*lanes)))) {
		fprintf(stderr, "stages: need at least one lane and a positive rate\n");
		return 2;
	}
	if (statctr_seg_create(config, "dataplane", &seg) != 0) {
		fprintf(stderr, "stages: %s\n", statctr_errmsg());
		return 1;
	}
	if (lookup_ids() != 0) {
		statctr_seg_destroy(seg);
		return 1;
	}
	set_link_speeds();
	for (unsigned l = 0; l < nlanes; l++)
		lanes[l].index = l;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "stages: %u lane(s) of receive -> classify -> transmit\n", nlanes);
	run(lanes, nlanes, seconds);
	statctr_seg_destroy(seg);
	free(lanes);
	return 0;
}
