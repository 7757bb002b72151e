/*
 * notify.h - start-up and readiness reports (notify.c): to the service
 * manager ($NOTIFY_SOCKET, systemd's Type=notify) and to the waiting parent
 * of a daemon.  Main thread only.
 */
#ifndef STATCTR_AGENT_NOTIFY_H
#define STATCTR_AGENT_NOTIFY_H

/*
 * notify_manager() - sends @state ("READY=1\nSTATUS=...", "STOPPING=1",
 * sd_notify(3) keys) to $NOTIFY_SOCKET; does nothing without it.
 */
void notify_manager(const char *state);

/*
 * notify_daemonize() - forks; the parent waits until the child calls
 * notify_started() (or dies) and exits with the outcome: 0, or 1 after
 * printing the child's reason on stderr.  The child returns 0 in a new
 * session with stdio on /dev/null, or a negative errno (errmsg_get()).
 */
int notify_daemonize(void);

/*
 * notify_started() - tells the waiting parent, once: @error NULL when the
 * agent serves, else the one-line reason it could not start.  Does nothing
 * without a waiting parent (foreground).
 */
void notify_started(const char *error);

#endif /* STATCTR_AGENT_NOTIFY_H */
