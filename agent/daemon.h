/*
 * daemon.h - the process around serving (daemon.c): its descriptors, where
 * it logs, the daemon's fork, the pid file, signals as flags plus a wake-up
 * pipe, and the exit watchdog.  Main thread only.
 */
#ifndef STATCTR_AGENT_DAEMON_H
#define STATCTR_AGENT_DAEMON_H

#include <stdbool.h>

/*
 * daemon_close_inherited() - closes every descriptor above 2: a daemon
 * keeps none it did not open.
 */
void daemon_close_inherited(void);

/*
 * daemon_log_to() - sends Net-SNMP's log to @log ("stderr", "syslog" or
 * "file:PATH", opened now); NULL: stderr if @foreground, else syslog.
 */
void daemon_log_to(const char *log, bool foreground);

/*
 * daemon_detach() - forks; the parent exits once the child serves
 * (readiness.c tells it), or with the reason it cannot.  The child returns
 * 0 in a new session with stdio on /dev/null, or a negative errno
 * (errmsg_get()).
 */
int daemon_detach(void);

/*
 * daemon_start() - starts the exit watchdog, catches SIGTERM, SIGINT and
 * SIGHUP (SIGPIPE ignored), and writes @pidfile unless NULL.  A pid file
 * that cannot be written is logged and does not fail the start.  When the
 * watchdog forces the exit, it first calls @save (unless NULL) from its own
 * thread: @save takes its own locks and never waits long.  Returns 0 or a
 * negative errno (errmsg_get()).
 */
int daemon_start(const char *pidfile, void (*save)(void));

/* daemon_wake_fd() - the pipe's end that wakes the main loop when written. */
int daemon_wake_fd(void);

/* daemon_stopping() - whether SIGTERM or SIGINT came. */
bool daemon_stopping(void);

/* daemon_take_reload() - whether SIGHUP came since the last call. */
bool daemon_take_reload(void);

/* daemon_stop() - removes the pid file, if it is still the one written. */
void daemon_stop(void);

#endif /* STATCTR_AGENT_DAEMON_H */
