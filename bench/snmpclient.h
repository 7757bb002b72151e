/*
 * snmpclient.h - the few SNMP GETs and GETBULKs the benchmarks make, through Net-SNMP's
 * single-session API (thread-safe: one session per thread).
 */
#ifndef STATCTR_BENCH_SNMPCLIENT_H
#define STATCTR_BENCH_SNMPCLIENT_H

#include <stddef.h>
#include <stdint.h>

struct snmpc;

/* A parsed numeric OID (sub-identifiers as Net-SNMP's oid type). */
struct snmpc_oid {
	unsigned long sub[128];
	size_t len;
};

/* Parses ".1.3.6..." into @o; 0 or -1.  Not thread-safe: parse up front. */
int snmpc_parse(const char *text, struct snmpc_oid *o);

/* Initialises the library once (no config files, no MIBs); not thread-safe. */
void snmpc_init(void);

/* A v2c session to @peer ("udp:127.0.0.1:1161"); NULL on failure. */
struct snmpc *snmpc_open(const char *peer, const char *community, long timeout_ms);
void snmpc_close(struct snmpc *c);

/*
 * snmpc_get() - GET @o as an unsigned value (INTEGER, Gauge32, Counter32/64,
 * TimeTicks).  Returns 0, or -1 on a timeout, an error status or a
 * non-numeric answer.
 */
int snmpc_get(struct snmpc *c, const struct snmpc_oid *o, uint64_t *value);

/* snmpc_get() of a textual OID (parses it: calling thread only). */
int snmpc_get_text(struct snmpc *c, const char *oid, uint64_t *value);

/*
 * snmpc_bulk() - one GETBULK naming the @n OIDs of @req (non-repeaters 0,
 * max-repetitions @reps).  Stores the OIDs of the answer's varbinds in
 * @out (at most @max, in the order of the answer: repetition by
 * repetition, @n per repetition) and returns how many, or -1 on a timeout
 * or an error status.
 */
int snmpc_bulk(struct snmpc *c, const struct snmpc_oid *req, size_t n, long reps,
               struct snmpc_oid *out, size_t max);

#endif /* STATCTR_BENCH_SNMPCLIENT_H */
