/*
 * sinks.h - the embedded master's (-M) trap sinks (agent.trap_sinks):
 * where its notifications go, sent off the SNMP thread (docs/agent.md,
 * "Notifications", "Sending with -M").
 *
 * The SNMP (main) thread only queues: sinks_send() puts a copy of each
 * notification in every sink's bounded queue and returns at once.  One
 * thread per sink connects, discovers a v3 inform receiver's engineID,
 * sends and retries, with its own Net-SNMP sessions (the single-session
 * API); a sink that is down, refuses, drops SYNs or stops reading costs its
 * queue and counted losses (sinks_lost()), never the SNMP thread's time.
 */
#ifndef STATCTR_AGENT_SINKS_H
#define STATCTR_AGENT_SINKS_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "settings.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * sinks_start() - one sending thread per sink of @set (after init_snmp():
 * the v3 users and the local engineID exist).  Sinks are kept until
 * sinks_stop(): a SIGHUP does not change them.  0 or a negative errno
 * (errmsg_get()).
 */
int sinks_start(const struct agent_settings *set);

/* Whether sinks_start() started sinks: notifications go through sinks_send(). */
bool sinks_on(void);

/*
 * sinks_send() - queues sysUpTime.0 and @vars (snmpTrapOID.0 first) for
 * every sink; a sink that is down or whose queue is full counts it lost.
 * Never blocks; @vars stays the caller's.
 */
void sinks_send(const netsnmp_variable_list *vars);

/*
 * sinks_poll() - the SNMP thread's share, once per main loop: gives a v3
 * inform sink's receiver, once its thread discovered the engineID, its USM
 * user (Net-SNMP's user list is written from this thread only, and only
 * while no sink thread is inside Net-SNMP).  Never blocks.
 */
void sinks_poll(void);

/* Notifications the sinks dropped (one per sink and notification) since the start. */
uint64_t sinks_lost(void);

/* Stops and joins the threads (each within about a second), then frees everything. */
void sinks_stop(void);

#endif /* STATCTR_AGENT_SINKS_H */
