/*
 * ports.c - the ports as rows: set-up, hot-plug, link state and the NIC's
 * own counters (docs/dpdk.md).
 *
 * Owns: struct fwd_port, for the main lcore alone.  A port becomes a row of
 * the dynamic tables "ports" (IF-MIB) and "nic" when it is added and stops
 * being one when it is removed; rte_dev_probe() and rte_dev_remove() drive
 * both for a hot-plugged vdev.  Every poll moves the gauges ifHighSpeed and
 * ifOperStatus to what rte_eth_link_get_nowait() says (so the agent's
 * ifLastChange, and linkUp/linkDown once the agent sends notifications,
 * follow the link) and adds to the "nic" cells what each xstat counted
 * since the last poll.  Never does: count packets (worker.c), or remove a
 * row a worker counts into (workers forward only the ports present at
 * start, and those are removed only after the workers ended).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "fwd.h"

#define RX_DESC 1024
#define TX_DESC 1024

enum { OPER_UP = 1, OPER_DOWN = 2 }; /* IF-MIB ifOperStatus */

static struct fwd_port ports[FWD_MAX_PORTS];
static uint16_t tx_cap = UINT16_MAX; /* -q (main.c); UINT16_MAX: none */

const struct fwd_port *fwd_port_get(uint16_t port)
{
	return port < FWD_MAX_PORTS ? &ports[port] : NULL;
}

/* -q: a tx callback gives the driver at most @cap packets of each burst,
 * as a congested port's full tx ring would take; rte_eth_tx_burst()
 * returns the rest to the worker, which counts them as drops and frees
 * them (drop_unsent() in worker.c).  For the ports started after this
 * call; UINT16_MAX: no callback. */
void fwd_ports_cap_tx(uint16_t cap)
{
	tx_cap = cap;
}

static uint16_t cap_burst(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
                          void *cap)
{
	(void)port, (void)queue, (void)pkts;
	return RTE_MIN(n, (uint16_t)(uintptr_t)cap);
}

/* One rx and one tx queue, as l2fwd: each tx queue has one sender.  No
 * offload is asked for; without scatter or LRO every packet received is one
 * segment, which forward_burst() (worker.c) relies on to sum a burst's
 * octets in 32 bits. */
int fwd_port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	uint16_t nrx = RX_DESC, ntx = TX_DESC;
	int err;

	memset(&conf, 0, sizeof(conf));
	err = rte_eth_dev_configure(port, 1, 1, &conf);
	if (err == 0)
		err = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (err == 0)
		err = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port), NULL, pool);
	if (err == 0)
		err = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (err == 0 && tx_cap != UINT16_MAX &&
	    rte_eth_add_tx_callback(port, 0, cap_burst, (void *)(uintptr_t)tx_cap) == NULL)
		err = -rte_errno;
	if (err == 0)
		err = rte_eth_dev_start(port);
	if (err == 0)
		err = rte_eth_promiscuous_enable(port);
	if (err == -ENOTSUP)
		err = 0;
	if (err != 0)
		fprintf(stderr, "statctr-dpdk-fwd: port %u: cannot start: %s\n", port,
		        rte_strerror(-err));
	return err;
}

void fwd_port_stop(uint16_t port)
{
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
}

/* The "nic" cells of the port's xstats whose names are columns. */
static int map_xstats(struct statctr_seg *seg, uint16_t port, struct fwd_port *p)
{
	struct rte_eth_xstat_name *names;
	int n = rte_eth_xstats_get_names(port, NULL, 0);

	if (n < 0)
		return n;
	names = calloc((size_t)n + 1, sizeof(*names));
	if (names == NULL)
		return -ENOMEM;
	n = rte_eth_xstats_get_names(port, names, (unsigned)n);
	p->nxstats = 0;
	for (int i = 0; i < n && p->nxstats < FWD_MAX_XSTATS; i++) {
		statctr_id cell;

		if (statctr_seg_lookup(seg, "nic", names[i].name, p->nic_row, &cell) != 0)
			continue; /* a name the declaration has no column for */
		p->xstat_id[p->nxstats] = (uint64_t)i;
		p->xstat_cell[p->nxstats] = cell;
		p->xstat_last[p->nxstats] = 0;
		p->nxstats++;
	}
	free(names);
	return n < 0 ? n : 0;
}

static int row_error(const char *what, const char *name, int err)
{
	fprintf(stderr, "statctr-dpdk-fwd: %s %s: %s\n", what, name, statctr_errmsg());
	return err;
}

/* Adds the port's rows; the NIC's counts so far become its first delta. */
int fwd_port_add(struct statctr_seg *seg, uint16_t port)
{
	struct fwd_port *p = &ports[port];
	int err;

	memset(p, 0, sizeof(*p));
	rte_eth_dev_get_name_by_port(port, p->name);
	err = statctr_row_add(seg, "ports", p->name, &p->port_row);
	if (err != 0)
		return row_error("row of table ports for", p->name, err);
	err = statctr_row_add(seg, "nic", p->name, &p->nic_row);
	if (err != 0) {
		statctr_row_remove(seg, "ports", p->port_row);
		return row_error("row of table nic for", p->name, err);
	}
	if (statctr_seg_lookup(seg, "ports", "speed", p->port_row, &p->speed) != 0 ||
	    statctr_seg_lookup(seg, "ports", "operStatus", p->port_row, &p->oper) != 0 ||
	    map_xstats(seg, port, p) != 0) {
		fwd_port_remove(seg, port);
		return row_error("cells of", p->name, -EINVAL);
	}
	p->present = true;
	return 0;
}

void fwd_port_remove(struct statctr_seg *seg, uint16_t port)
{
	struct fwd_port *p = &ports[port];

	statctr_row_remove(seg, "nic", p->nic_row);
	statctr_row_remove(seg, "ports", p->port_row);
	p->present = false;
}

/* A gauge the main lcore's slot holds at @level moves to @want. */
static void gauge_move(struct statctr_slot *slot, statctr_id id, int64_t *level, int64_t want)
{
	statctr_gauge_add(slot, id, want - *level);
	*level = want;
}

static void poll_link(struct statctr_slot *slot, uint16_t port, struct fwd_port *p)
{
	struct rte_eth_link link;
	int64_t speed = 0, oper = OPER_DOWN;

	if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP) {
		oper = OPER_UP;
		if (link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
			speed = link.link_speed; /* Mb/s, as ifHighSpeed */
	}
	gauge_move(slot, p->speed, &p->speed_level, speed);
	gauge_move(slot, p->oper, &p->oper_level, oper);
}

static void poll_xstats(struct statctr_slot *slot, uint16_t port, struct fwd_port *p)
{
	uint64_t values[FWD_MAX_XSTATS];

	if (p->nxstats == 0 ||
	    rte_eth_xstats_get_by_id(port, p->xstat_id, values, p->nxstats) != (int)p->nxstats)
		return;
	for (unsigned i = 0; i < p->nxstats; i++) {
		statctr_add(slot, p->xstat_cell[i], values[i] - p->xstat_last[i]);
		p->xstat_last[i] = values[i];
	}
}

/* One transaction per port: its xstats are read at one instant, and a
 * reader sees them together. */
void fwd_ports_poll(struct statctr_slot *slot)
{
	for (uint16_t port = 0; port < FWD_MAX_PORTS; port++) {
		struct fwd_port *p = &ports[port];

		if (!p->present)
			continue;
		statctr_txn_begin(slot);
		poll_link(slot, port, p);
		poll_xstats(slot, port, p);
		statctr_txn_end(slot);
	}
}

/* Hot-plug: probe the vdev, start its port, add its rows. */
int fwd_port_attach(struct statctr_seg *seg, struct rte_mempool *pool, const char *devargs)
{
	char name[FWD_NAME_MAX];
	uint16_t port;
	int err;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(devargs, ","), devargs);
	err = rte_dev_probe(devargs);
	if (err != 0)
		return err;
	err = rte_eth_dev_get_port_by_name(name, &port);
	if (err != 0)
		return err; /* probed, but not as an ethdev of that name */
	err = fwd_port_start(port, pool);
	if (err == 0)
		err = fwd_port_add(seg, port);
	if (err != 0) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(port, &info) == 0)
			rte_dev_remove(info.device);
		return err;
	}
	ports[port].hotplugged = true;
	return 0;
}

/* Hot-unplug of a hot-plugged port: remove the rows, stop the port,
 * remove the device. */
int fwd_port_detach(struct statctr_seg *seg, const char *name)
{
	struct rte_eth_dev_info info;
	uint16_t port;
	int err = rte_eth_dev_get_port_by_name(name, &port);

	if (err != 0)
		return err;
	if (!ports[port].present || rte_eth_dev_info_get(port, &info) != 0)
		return -ENOENT;
	if (!ports[port].hotplugged)
		return -EBUSY; /* a worker forwards it and counts into its rows */
	fwd_port_remove(seg, port);
	rte_eth_dev_stop(port);
	return rte_dev_remove(info.device);
}

/* Sets the link of port @name down or up (rte_eth_dev_set_link_down/up):
 * the next poll moves its gauges, as for a cable pulled or plugged. */
int fwd_port_link(const char *name, bool up)
{
	uint16_t port;
	int err = rte_eth_dev_get_port_by_name(name, &port);

	if (err != 0)
		return err;
	if (!ports[port].present)
		return -ENOENT;
	return up ? rte_eth_dev_set_link_up(port) : rte_eth_dev_set_link_down(port);
}
