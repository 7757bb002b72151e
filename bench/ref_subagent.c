/*
 * ref_subagent.c - the reference AgentX subagent of the SNMP benchmark
 * (docs/PERFORMANCE.md, "SNMP serving"; started by bench/snmp.sh).
 *
 *   ref_subagent -x AGENTX_SOCKET -o TABLE_OID -r ROWS [-k tdata|dataset]
 *
 * Serves a table shaped like the statctr table the bench walks: entry
 * TABLE_OID.1, index INTEGER 1..ROWS, columns .2 a row name (OCTET
 * STRING), .3 a TimeStamp, .4 an INTEGER, .10 and .11 Counter64.  The
 * values are static and no statctr code is linked: it measures what the
 * plainest subagent Net-SNMP offers costs on the same snmpd, so that
 * statctr-agentx is compared with it rather than with snmpd's own MIBs.
 * Two of Net-SNMP's table-data helpers keep the rows:
 *   tdata (default): table_tdata, rows in a sorted container, so a GETNEXT
 *     costs O(log rows) (the helper Net-SNMP recommends for new code);
 *   dataset: table_dataset, rows in table_data's sorted linked list, so a
 *     GETNEXT walks the list from its head: O(rows) per request.
 * It runs until SIGTERM or SIGINT.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REF_NAME "ref-subagent"

enum ref_column {
	COL_NAME = 2,
	COL_DISCONTINUITY = 3,
	COL_RESET = 4,
	COL_FIRST_COUNTER = 10,
	COL_SECOND_COUNTER = 11,
};

/* The values of one row (static; the tdata handler answers from them). */
struct ref_row {
	long index; /* 1-based */
	char name[24];
	size_t name_len;
	u_long ticks;
	long reset;
	struct counter64 packets, octets;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Columns with their types, in the order a walk visits them. */
static void add_columns(netsnmp_table_data_set *set)
{
	netsnmp_table_dataset_add_index(set, ASN_INTEGER);
	netsnmp_table_set_add_default_row(set, COL_NAME, ASN_OCTET_STR, 0, NULL, 0);
	netsnmp_table_set_add_default_row(set, COL_DISCONTINUITY, ASN_TIMETICKS, 0, NULL, 0);
	netsnmp_table_set_add_default_row(set, COL_RESET, ASN_INTEGER, 0, NULL, 0);
	netsnmp_table_set_add_default_row(set, COL_FIRST_COUNTER, ASN_COUNTER64, 0, NULL, 0);
	netsnmp_table_set_add_default_row(set, COL_SECOND_COUNTER, ASN_COUNTER64, 0, NULL, 0);
}

static struct counter64 c64(uint64_t v)
{
	struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xffffffffu)};

	return c;
}

/* Row @index (1-based) with fixed values of the sizes a live table has. */
static void fill_row(struct ref_row *r, long index)
{
	r->index = index;
	r->name_len = (size_t)snprintf(r->name, sizeof(r->name), "%ld", index - 1);
	r->ticks = 0;
	r->reset = 1;
	r->packets = c64(10u * (uint64_t)index);
	r->octets = c64(1000u * (uint64_t)index);
}

static int add_dataset_row(netsnmp_table_data_set *set, struct ref_row *r)
{
	netsnmp_table_row *row = netsnmp_create_table_data_row();

	if (!row)
		return -1;
	netsnmp_table_row_add_index(row, ASN_INTEGER, &r->index, sizeof(r->index));
	if (netsnmp_set_row_column(row, COL_NAME, ASN_OCTET_STR, r->name, r->name_len) ||
	    netsnmp_set_row_column(row, COL_DISCONTINUITY, ASN_TIMETICKS, &r->ticks,
	                           sizeof(r->ticks)) ||
	    netsnmp_set_row_column(row, COL_RESET, ASN_INTEGER, &r->reset, sizeof(r->reset)) ||
	    netsnmp_set_row_column(row, COL_FIRST_COUNTER, ASN_COUNTER64, &r->packets,
	                           sizeof(r->packets)) ||
	    netsnmp_set_row_column(row, COL_SECOND_COUNTER, ASN_COUNTER64, &r->octets,
	                           sizeof(r->octets)))
		return -1;
	netsnmp_table_dataset_add_row(set, row);
	return 0;
}

/* table_dataset: the helper answers from the rows' stored columns. */
static int register_dataset(netsnmp_handler_registration *reg, struct ref_row *rows, long n)
{
	netsnmp_table_data_set *set = netsnmp_create_table_data_set("refTable");
	long r;

	if (!set)
		return -1;
	add_columns(set);
	for (r = 0; r < n; r++)
		if (add_dataset_row(set, &rows[r]) != 0)
			return -1;
	return netsnmp_register_table_data_set(reg, set, NULL) == SNMPERR_SUCCESS ? 0 : -1;
}

/* Sets the answer of column @colnum of row @r; SNMP_NOSUCHOBJECT for another column. */
static int answer(netsnmp_variable_list *vb, const struct ref_row *r, unsigned colnum)
{
	switch (colnum) {
	case COL_NAME:
		return snmp_set_var_typed_value(vb, ASN_OCTET_STR, r->name, r->name_len);
	case COL_DISCONTINUITY:
		return snmp_set_var_typed_value(vb, ASN_TIMETICKS, &r->ticks, sizeof(r->ticks));
	case COL_RESET:
		return snmp_set_var_typed_value(vb, ASN_INTEGER, &r->reset, sizeof(r->reset));
	case COL_FIRST_COUNTER:
		return snmp_set_var_typed_value(vb, ASN_COUNTER64, &r->packets, sizeof(r->packets));
	case COL_SECOND_COUNTER:
		return snmp_set_var_typed_value(vb, ASN_COUNTER64, &r->octets, sizeof(r->octets));
	default:
		return SNMP_NOSUCHOBJECT;
	}
}

/* table_tdata: the helper finds the row (GETNEXT turned into GET), we answer. */
static int tdata_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                         netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	netsnmp_request_info *req;

	(void)handler;
	(void)reg;
	if (reqinfo->mode != MODE_GET)
		return SNMP_ERR_NOERROR;
	for (req = requests; req; req = req->next) {
		const struct ref_row *r = netsnmp_tdata_extract_entry(req);
		const netsnmp_table_request_info *info = netsnmp_extract_table_info(req);

		if (!r || !info || answer(req->requestvb, r, info->colnum) != 0)
			netsnmp_set_request_error(reqinfo, req, SNMP_NOSUCHINSTANCE);
	}
	return SNMP_ERR_NOERROR;
}

static int register_tdata(netsnmp_handler_registration *reg, struct ref_row *rows, long n)
{
	static unsigned int columns[] = {COL_NAME, COL_DISCONTINUITY, COL_RESET, COL_FIRST_COUNTER,
	                                 COL_SECOND_COUNTER};
	static netsnmp_column_info valid = {.isRange = 0,
	                                    .list_count = sizeof(columns) / sizeof(columns[0]),
	                                    .details.list = columns};
	netsnmp_tdata *table = netsnmp_tdata_create_table("refTable", 0);
	netsnmp_table_registration_info *info =
	    SNMP_MALLOC_TYPEDEF(netsnmp_table_registration_info);
	long r;

	if (!table || !info)
		return -1;
	netsnmp_table_helper_add_indexes(info, ASN_INTEGER, 0);
	info->min_column = COL_NAME;
	info->max_column = COL_SECOND_COUNTER;
	info->valid_columns = &valid;
	for (r = 0; r < n; r++) {
		netsnmp_tdata_row *row = netsnmp_tdata_create_row();

		if (!row)
			return -1;
		row->data = &rows[r];
		netsnmp_tdata_row_add_index(row, ASN_INTEGER, &rows[r].index,
		                            sizeof(rows[r].index));
		if (netsnmp_tdata_add_row(table, row) != SNMPERR_SUCCESS)
			return -1;
	}
	return netsnmp_tdata_register(reg, table, info) == SNMPERR_SUCCESS ? 0 : -1;
}

static int register_table(const oid *table_oid, size_t table_len, long n, bool dataset)
{
	struct ref_row *rows = calloc((size_t)n, sizeof(*rows));
	netsnmp_handler_registration *reg;
	long r;

	if (!rows)
		return -1;
	for (r = 0; r < n; r++)
		fill_row(&rows[r], r + 1);
	reg = netsnmp_create_handler_registration("refTable", dataset ? NULL : tdata_handler,
	                                          table_oid, table_len, HANDLER_CAN_RONLY);
	if (!reg)
		return -1;
	return dataset ? register_dataset(reg, rows, n) : register_tdata(reg, rows, n);
}

/* ".1.3.6..." into @o (numeric only: no MIB is loaded); 0 or -1. */
static int parse_oid(const char *text, oid *o, size_t *len)
{
	size_t n = 0;
	char *end;

	while (*text == '.' && n < MAX_OID_LEN) {
		o[n++] = strtoul(text + 1, &end, 10);
		if (end == text + 1)
			return -1;
		text = end;
	}
	*len = n;
	return *text || n < 2 ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ref_subagent -x AGENTX_SOCKET -o TABLE_OID -r ROWS "
	                "[-k tdata|dataset]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *socket_path = NULL, *table_text = NULL;
	oid table_oid[MAX_OID_LEN];
	size_t table_len;
	long rows = 0;
	bool dataset = false;
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: ends the select */
	int opt;

	while ((opt = getopt(argc, argv, "x:o:r:k:")) != -1) {
		switch (opt) {
		case 'x':
			socket_path = optarg;
			break;
		case 'o':
			table_text = optarg;
			break;
		case 'r':
			rows = strtol(optarg, NULL, 10);
			break;
		case 'k':
			if (strcmp(optarg, "tdata") && strcmp(optarg, "dataset"))
				usage();
			dataset = !strcmp(optarg, "dataset");
			break;
		default:
			usage();
		}
	}
	if (!socket_path || !table_text || rows < 1 || rows > 10000000)
		usage();
	setenv("MIBS", "", 1);
	if (parse_oid(table_text, table_oid, &table_len) != 0) {
		fprintf(stderr, "ref_subagent: bad OID %s\n", table_text);
		return 2;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, socket_path);
	snmp_enable_stderrlog();
	if (init_agent(REF_NAME) != 0 || register_table(table_oid, table_len, rows, dataset) != 0) {
		fprintf(stderr, "ref_subagent: cannot register the table at %s\n", table_text);
		return 1;
	}
	init_snmp(REF_NAME);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop_requested)
		agent_check_and_process(1);
	snmp_shutdown(REF_NAME);
	return 0;
}
