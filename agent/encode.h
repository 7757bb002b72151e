/*
 * encode.h - published values as SNMP varbind values: the one place that
 * knows how statctr's numbers become SMIv2 syntaxes.
 *
 * Owns the encodings: Counter64 (two 32-bit halves), the latched Gauge32
 * (RFC 2578 7.1.7: it sticks at its bounds instead of wrapping), TimeStamp
 * (a CLOCK_REALTIME event as the master's sysUpTime, timebase.h),
 * DateAndTime (RFC 2579, UTC), TruthValue, INTEGER and OCTET STRING.
 * Never decides which value an object has: the backends (backend_*.c)
 * do.
 */
#ifndef STATCTR_AGENT_ENCODE_H
#define STATCTR_AGENT_ENCODE_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdbool.h>
#include <stdint.h>

void encode_counter64(netsnmp_variable_list *vb, uint64_t v);

/* Counter32 (the low 32 bits: RFC 2863's ifInOctets and kin wrap), Unsigned32. */
void encode_counter32(netsnmp_variable_list *vb, uint64_t v);
void encode_unsigned32(netsnmp_variable_list *vb, uint64_t v);

/* Gauge32 of @level, latched: below 0 reads 0, above 2^32-1 reads 2^32-1. */
void encode_gauge32(netsnmp_variable_list *vb, int64_t level);

/* TimeStamp: sysUpTime at CLOCK_REALTIME @ns; 0 for 0 (unknown). */
void encode_timestamp(netsnmp_variable_list *vb, uint64_t ns);

/* DateAndTime, UTC, of CLOCK_REALTIME @ns: 11 bytes; 8 zero bytes for 0 (unknown). */
void encode_date(netsnmp_variable_list *vb, uint64_t ns);

/* TruthValue: true(1) or false(2). */
void encode_truth(netsnmp_variable_list *vb, bool v);

void encode_integer(netsnmp_variable_list *vb, long v);
void encode_string(netsnmp_variable_list *vb, const char *s);

/* OBJECT IDENTIFIER (a notification's snmpTrapOID.0). */
void encode_oid(netsnmp_variable_list *vb, const oid *name, size_t len);

#endif /* STATCTR_AGENT_ENCODE_H */
