/*
 * readiness.h - what the agent tells of its state (readiness.c): that it
 * serves, that it could not start, that it stops; to the service manager
 * (Type=notify) and to a daemon's waiting parent, through notify.c.  Main
 * thread only.
 */
#ifndef STATCTR_AGENT_READINESS_H
#define STATCTR_AGENT_READINESS_H

#include <stdbool.h>

/* readiness_told() - whether readiness_serving() has told it. */
bool readiness_told(void);

/*
 * readiness_serving() - tells, once, that the agent serves @config's
 * @nsegments segments: READY=1 with a STATUS line to the service manager,
 * and success to a waiting parent.  Later calls do nothing.
 */
void readiness_serving(const char *config, unsigned nsegments);

/* readiness_failed() - tells a waiting parent why the agent cannot start. */
void readiness_failed(const char *why);

/* readiness_stopping() - tells the service manager the agent stops (STOPPING=1). */
void readiness_stopping(void);

#endif /* STATCTR_AGENT_READINESS_H */
