/*
 * sdnotify.h - the service manager's readiness protocol, spoken by the
 * daemons (statctr-agentx, statctr-exporter).
 */
#ifndef STATCTR_SDNOTIFY_H
#define STATCTR_SDNOTIFY_H

/*
 * sd_notify_state() - sends @state ("READY=1\nSTATUS=...", "STOPPING=1",
 * ...) to the service manager named by $NOTIFY_SOCKET, if any.  Never
 * blocks, never logs: a lost datagram only loses the report.
 */
void sd_notify_state(const char *state);

#endif /* STATCTR_SDNOTIFY_H */
