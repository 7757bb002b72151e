/*
 * agent.h - what every module of statctr-agentx shares: its name, its
 * version, and the error channel.
 *
 * Functions of the agent that can fail return a negative errno and leave the
 * cause (naming the file:line, the segment or the OID) in errmsg_get()
 * (common/errmsg.c); the caller decides whether to log it.  The message is
 * the calling thread's own (the SNMP thread and the aggregation thread,
 * aggregate.c).
 */
#ifndef STATCTR_AGENT_H
#define STATCTR_AGENT_H

#ifndef STATCTR_VERSION
#define STATCTR_VERSION "unknown"
#endif

#define AGENT_NAME "statctr-agentx"

#include "errmsg.h"

#endif /* STATCTR_AGENT_H */
