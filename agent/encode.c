/*
 * encode.c - published values as SNMP varbind values (see encode.h).
 */
#include "encode.h"
#include "timebase.h"

#include <string.h>
#include <time.h>

#define TRUTH_TRUE  1
#define TRUTH_FALSE 2

void encode_counter64(netsnmp_variable_list *vb, uint64_t v)
{
	struct counter64 c = {.high = (u_long)(v >> 32), .low = (u_long)(v & 0xffffffffu)};

	snmp_set_var_typed_value(vb, ASN_COUNTER64, &c, sizeof(c));
}

static void encode_u32(netsnmp_variable_list *vb, u_char type, uint64_t v)
{
	u_long u = (u_long)(v & 0xffffffffu);

	snmp_set_var_typed_value(vb, type, &u, sizeof(u));
}

void encode_counter32(netsnmp_variable_list *vb, uint64_t v)
{
	encode_u32(vb, ASN_COUNTER, v);
}

void encode_unsigned32(netsnmp_variable_list *vb, uint64_t v)
{
	encode_u32(vb, ASN_UNSIGNED, v);
}

void encode_gauge32(netsnmp_variable_list *vb, int64_t level)
{
	uint64_t v = level < 0 ? 0 : level > (int64_t)UINT32_MAX ? UINT32_MAX : (uint64_t)level;

	encode_u32(vb, ASN_GAUGE, v);
}

void encode_timestamp(netsnmp_variable_list *vb, uint64_t ns)
{
	encode_u32(vb, ASN_TIMETICKS, timebase_ticks(ns));
}

void encode_date(netsnmp_variable_list *vb, uint64_t ns)
{
	u_char buf[11] = {0};
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns && gmtime_r(&secs, &tm)) {
		int year = tm.tm_year + 1900;

		buf[0] = (u_char)(year >> 8);
		buf[1] = (u_char)year;
		buf[2] = (u_char)(tm.tm_mon + 1);
		buf[3] = (u_char)tm.tm_mday;
		buf[4] = (u_char)tm.tm_hour;
		buf[5] = (u_char)tm.tm_min;
		buf[6] = (u_char)tm.tm_sec;
		buf[7] = (u_char)(ns / 100000000u % 10);
		buf[8] = '+';
	}
	snmp_set_var_typed_value(vb, ASN_OCTET_STR, buf, ns ? 11 : 8);
}

void encode_truth(netsnmp_variable_list *vb, bool v)
{
	encode_integer(vb, v ? TRUTH_TRUE : TRUTH_FALSE);
}

void encode_integer(netsnmp_variable_list *vb, long v)
{
	snmp_set_var_typed_value(vb, ASN_INTEGER, &v, sizeof(v));
}

void encode_string(netsnmp_variable_list *vb, const char *s)
{
	snmp_set_var_typed_value(vb, ASN_OCTET_STR, s, strlen(s));
}

void encode_oid(netsnmp_variable_list *vb, const oid *name, size_t len)
{
	snmp_set_var_typed_value(vb, ASN_OBJECT_ID, name, len * sizeof(oid));
}
