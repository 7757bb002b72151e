/*
 * agent.h - what every module of statctr-agentx shares: the version and the
 * agent's error message.
 *
 * Functions of the agent that can fail return a negative errno and leave the
 * cause (naming the file:line, the segment or the OID) in agent_errmsg();
 * the caller decides whether to log it.  The message is the calling
 * thread's own (the SNMP thread and the aggregation thread, aggregate.c).
 */
#ifndef STATCTR_AGENT_H
#define STATCTR_AGENT_H

#ifndef STATCTR_VERSION
#define STATCTR_VERSION "unknown"
#endif

#define AGENT_NAME "statctr-agentx"

/* Records the cause of a failure and returns -err (err > 0). */
int agent_seterr(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The calling thread's last recorded cause; never NULL. */
const char *agent_errmsg(void);

#endif /* STATCTR_AGENT_H */
