/*
 * snmpclient.c - Net-SNMP GETs and GETBULKs for the benchmarks (see snmpclient.h).
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "snmpclient.h"

#include <stdlib.h>
#include <string.h>

struct snmpc {
	void *sess;
};

void snmpc_init(void)
{
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	init_snmp("statctr-bench");
}

struct snmpc *snmpc_open(const char *peer, const char *community, long timeout_ms)
{
	struct snmpc *c = calloc(1, sizeof(*c));
	netsnmp_session s;

	if (!c)
		return NULL;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.peername = (char *)peer;
	s.community = (u_char *)community;
	s.community_len = strlen(community);
	s.timeout = timeout_ms * 1000;
	s.retries = 0;
	c->sess = snmp_sess_open(&s);
	if (!c->sess) {
		free(c);
		return NULL;
	}
	return c;
}

void snmpc_close(struct snmpc *c)
{
	if (!c)
		return;
	snmp_sess_close(c->sess);
	free(c);
}

static int value_of(const netsnmp_variable_list *v, uint64_t *value)
{
	switch (v->type) {
	case ASN_INTEGER:
	case ASN_GAUGE:
	case ASN_COUNTER:
	case ASN_TIMETICKS:
		*value = (uint64_t)(unsigned long)*v->val.integer;
		return 0;
	case ASN_COUNTER64:
		*value = (uint64_t)v->val.counter64->high << 32 | v->val.counter64->low;
		return 0;
	default:
		return -1;
	}
}

_Static_assert(sizeof(oid) == sizeof(unsigned long), "Net-SNMP oid is unsigned long");

int snmpc_parse(const char *text, struct snmpc_oid *o)
{
	o->len = sizeof(o->sub) / sizeof(o->sub[0]);
	return read_objid(text, (oid *)o->sub, &o->len) ? 0 : -1;
}

int snmpc_get(struct snmpc *c, const struct snmpc_oid *o, uint64_t *value)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *resp = NULL;
	int rc = -1;

	snmp_add_null_var(pdu, (const oid *)o->sub, o->len);
	if (snmp_sess_synch_response(c->sess, pdu, &resp) == STAT_SUCCESS && resp &&
	    resp->errstat == SNMP_ERR_NOERROR && resp->variables)
		rc = value_of(resp->variables, value);
	if (resp)
		snmp_free_pdu(resp);
	return rc;
}

int snmpc_get_text(struct snmpc *c, const char *text, uint64_t *value)
{
	struct snmpc_oid o;

	return snmpc_parse(text, &o) == 0 ? snmpc_get(c, &o, value) : -1;
}

int snmpc_bulk(struct snmpc *c, const struct snmpc_oid *req, size_t n, long reps,
               struct snmpc_oid *out, size_t max)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *resp = NULL;
	const netsnmp_variable_list *v;
	size_t i;
	int count = -1;

	pdu->non_repeaters = 0;
	pdu->max_repetitions = reps;
	for (i = 0; i < n; i++)
		snmp_add_null_var(pdu, (const oid *)req[i].sub, req[i].len);
	if (snmp_sess_synch_response(c->sess, pdu, &resp) == STAT_SUCCESS && resp &&
	    resp->errstat == SNMP_ERR_NOERROR) {
		count = 0;
		for (v = resp->variables; v && (size_t)count < max; v = v->next_variable) {
			if (v->name_length > sizeof(out->sub) / sizeof(out->sub[0]))
				break;
			memcpy(out[count].sub, v->name, v->name_length * sizeof(oid));
			out[count++].len = v->name_length;
		}
	}
	if (resp)
		snmp_free_pdu(resp);
	return count;
}
