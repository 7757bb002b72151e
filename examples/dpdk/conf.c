/*
 * conf.c - writes the statctr declaration of the forwarder's segment from
 * the ports DPDK found (docs/dpdk.md, "The declaration").
 *
 * Owns: the text of the declaration - three dynamic tables: "ports" (the
 * application's view, an `ifmib` group, with an `interfaces` entry per
 * port giving ifMtu from the port and ifAlias from its device name),
 * "queues" (per rx queue, with the burst-cycles histogram) and "nic" (one
 * column per xstat name of the ports, the NIC's view).  Never does: create
 * the segment, or touch a port beyond reading its attributes.
 *
 * The hardware is the one source of truth: the file is written at start,
 * after the ports are configured (an xstat per queue exists only then),
 * replaced atomically (a temporary file renamed into place), and the agent
 * reads the same file.  A port hot-plugged later takes the table's
 * defaults; its xstats whose names no column has are not mirrored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "fwd.h"
#include "safefile.h"

#define MAX_COLUMNS FWD_MAX_XSTATS

/* The generic xstats (rte_eth_stats), then each driver's. */
struct names {
	unsigned n;
	char name[MAX_COLUMNS][RTE_ETH_XSTATS_NAME_SIZE];
};

/* A column name as docs/config.md allows: [A-Za-z][A-Za-z0-9_-]*, 1..63. */
static bool column_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > 63 || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == len;
}

static void names_add(struct names *nm, const char *s)
{
	if (!column_name_ok(s) || nm->n == MAX_COLUMNS)
		return;
	for (unsigned i = 0; i < nm->n; i++)
		if (strcmp(nm->name[i], s) == 0)
			return;
	snprintf(nm->name[nm->n++], RTE_ETH_XSTATS_NAME_SIZE, "%s", s);
}

static int xstat_names_of(uint16_t port, struct names *nm)
{
	struct rte_eth_xstat_name *xn;
	int n = rte_eth_xstats_get_names(port, NULL, 0);

	if (n < 0)
		return n;
	xn = calloc((size_t)n + 1, sizeof(*xn));
	if (xn == NULL)
		return -ENOMEM;
	n = rte_eth_xstats_get_names(port, xn, (unsigned)n);
	for (int i = 0; i < n; i++)
		names_add(nm, xn[i].name);
	free(xn);
	return n < 0 ? n : 0;
}

/* One `interfaces` entry: ifMtu from the port, ifAlias its device name,
 * ifDescr its driver. */
static void write_interface(FILE *f, uint16_t port, bool first)
{
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t mtu = RTE_ETHER_MTU;

	if (rte_eth_dev_get_name_by_port(port, name) != 0 || rte_eth_dev_info_get(port, &info) != 0)
		return;
	rte_eth_dev_get_mtu(port, &mtu);
	fprintf(
	    f,
	    "%s\n        { row = \"%s\"; ifAlias = \"%.64s\"; ifDescr = \"DPDK %s\"; ifMtu = %u; }",
	    first ? "" : ",", name, rte_dev_name(info.device), info.driver_name, mtu);
}

static void write_ports_table(FILE *f)
{
	uint16_t port;
	bool first = true;

	fputs(
	    "    { name = \"ports\"; oid = 1; rows = { max = 32; };\n"
	    "      description = \"The forwarder's count of each port: ifTable and ifXTable\";\n"
	    "      columns = (\n"
	    "        { name = \"rxPackets\"; kind = \"counter\";"
	    " description = \"Packets received by the workers\"; },\n"
	    "        { name = \"rxOctets\"; kind = \"counter\"; units = \"octets\"; },\n"
	    "        { name = \"txPackets\"; kind = \"counter\";"
	    " description = \"Packets the port accepted for transmission\"; },\n"
	    "        { name = \"txOctets\"; kind = \"counter\"; units = \"octets\"; },\n"
	    "        { name = \"txDrops\"; kind = \"counter\";"
	    " description = \"Packets the port refused (tx queue full), freed\"; },\n"
	    "        { name = \"speed\"; kind = \"gauge\"; units = \"Mb/s\"; },\n"
	    "        { name = \"operStatus\"; kind = \"gauge\";"
	    " description = \"1 up, 2 down (rte_eth_link_get_nowait)\"; } );\n"
	    "      ifmib = { ifindex_base = 1000; ifMtu = 1500;\n"
	    "        columns = { rxPackets = \"ifHCInUcastPkts\"; rxOctets = \"ifHCInOctets\";\n"
	    "                    txPackets = \"ifHCOutUcastPkts\"; txOctets = \"ifHCOutOctets\";\n"
	    "                    txDrops = \"ifOutDiscards\"; speed = \"ifHighSpeed\";\n"
	    "                    operStatus = \"ifOperStatus\"; };\n"
	    "        interfaces = (",
	    f);
	RTE_ETH_FOREACH_DEV(port)
	{
		write_interface(f, port, first);
		first = false;
	}
	fputs(" ); }; },\n", f);
}

static void write_queues_table(FILE *f)
{
	fputs("    { name = \"queues\"; oid = 2; rows = { max = 64; };\n"
	      "      description = \"Each rx queue a worker lcore polls: PORT/rxqN\";\n"
	      "      columns = (\n"
	      "        { name = \"packets\"; kind = \"counter\"; },\n"
	      "        { name = \"octets\"; kind = \"counter\"; units = \"octets\"; },\n"
	      "        { name = \"drops\"; kind = \"counter\"; description = \"Refused by the tx "
	      "port\"; },\n"
	      "        { name = \"burstCycles\"; kind = \"histogram\"; units = \"cycles\";"
	      " description = \"TSC cycles of a burst that moved packets: rx, rewrite, tx, "
	      "counting\";"
	      " buckets = { start = 64; factor = 2; count = 16; }; } ); },\n",
	      f);
}

static void write_nic_table(FILE *f, const struct names *nm)
{
	fputs("    { name = \"nic\"; oid = 3; rows = { max = 32; };\n"
	      "      description = \"The port's own counters (xstats), mirrored by the main "
	      "lcore\";\n"
	      "      columns = (",
	      f);
	for (unsigned i = 0; i < nm->n; i++)
		fprintf(f, "%s\n        { name = \"%s\"; kind = \"counter\"; }", i ? "," : "",
		        nm->name[i]);
	fputs(" ); }\n", f);
}

struct conf_args {
	const char *segment, *seg_path;
	unsigned nslots;
	const struct names *nm;
};

static int fill_conf(FILE *f, void *arg)
{
	const struct conf_args *a = arg;

	fprintf(f,
	        "# Written by statctr-dpdk-fwd from the ports it found (docs/dpdk.md).\n"
	        "segments = ( {\n  name = \"%s\"; oid = 1; slots = %u;",
	        a->segment, a->nslots);
	if (a->seg_path != NULL)
		fprintf(f, " path = \"%s\";", a->seg_path);
	fputs("\n  tables = (\n", f);
	write_ports_table(f);
	write_queues_table(f);
	write_nic_table(f, a->nm);
	fputs("  ); } );\n", f);
	return ferror(f) ? -EIO : 0;
}

/*
 * Through common/safefile.c (docs/security.md, "Files in shared
 * directories"): a symbolic link, FIFO or another user's device at @path
 * is refused, never followed or blocked on; the file is a new one, created
 * O_EXCL under a random name beside it and renamed over it, so nothing
 * planted at a fixed temporary name is written through.
 */
int fwd_conf_write(const char *path, const char *segment, const char *seg_path, unsigned nslots,
                   const char **whyp)
{
	static struct names nm; /* 4 KiB: not on the stack */
	struct conf_args a = {segment, seg_path, nslots, &nm};
	uint16_t port;
	int err;

	*whyp = "cannot read the ports' counter names";
	nm.n = 0;
	RTE_ETH_FOREACH_DEV(port)
	{
		err = xstat_names_of(port, &nm);
		if (err < 0)
			return err;
	}
	if (nm.n == 0)
		names_add(&nm, "rx_good_packets");
	return safefile_write(path, SAFEFILE_STATE, 0644, fill_conf, &a, whyp);
}
