/*
 * serve.h - serving the configuration (serve.c): the one place that knows
 * every backend (the engine, STATCTR-MIB's handlers, the by-name tables,
 * IF-MIB, linkUp/linkDown, the trap sinks) and Net-SNMP's roles.  What
 * main.c calls to start serving, to reload on SIGHUP and to stop.  Main
 * thread only.
 */
#ifndef STATCTR_AGENT_SERVE_H
#define STATCTR_AGENT_SERVE_H

#include <stdbool.h>

struct server;

/* What the command line says about serving. */
struct serve_options {
	const char *config;   /* absolute: a SIGHUP reads the file the start read */
	const char *master;   /* -x, overrides agent.master; NULL: the setting */
	const char *embedded; /* -M: serve SNMP on this address; NULL: AgentX */
};

/*
 * serve_open() - reads @opt->config and builds all it serves, the first
 * aggregation pass included, with no thread and nothing registered (before
 * a daemon's fork, which keeps no thread).  Returns 0 and *@out, or a
 * negative errno (errmsg_get()).
 */
int serve_open(const struct serve_options *opt, struct server **out);

/*
 * serve_register() - sets Net-SNMP up (an AgentX subagent, or with -M its
 * own SNMP agent), opens the state files and registers every backend; a
 * region the master refuses fails it.  @wake_fd: where the aggregation
 * threads wake the main loop.  @need_master: fail if the AgentX master
 * cannot be reached (a daemon's exit status says whether it serves).
 * Returns 0 or a negative errno (errmsg_get()).
 */
int serve_register(struct server *s, int wake_fd, bool need_master);

/*
 * serve_start() - starts the threads (aggregation, ifIndex store, -M's
 * trap sinks; after the privileges drop: they never run as root), logs that
 * the agent serves, and arms the retry of refused regions.  Returns 0 or a
 * negative errno (errmsg_get()).
 */
int serve_start(struct server *s);

/*
 * serve_process() - answers what came in, waiting for it at most a second
 * (not at all while -M holds notifications back).
 */
void serve_process(struct server *s);

/*
 * serve_poll() - after each wake-up: the notifications due, the trap
 * sinks' outcomes, the aggregation threads' log lines.
 */
void serve_poll(struct server *s);

/*
 * serve_reload() - SIGHUP: reads the configuration again and builds it
 * while the served one stays served (a reload still in its first pass is
 * dropped).  A failure is logged; the served configuration stays.
 */
void serve_reload(struct server *s);

/*
 * serve_update() - serves a reloaded configuration once its first pass is
 * published (or logs why it cannot and keeps the previous one), and logs
 * once that the AgentX master is not reachable.
 */
void serve_update(struct server *s);

/* serve_ready() - whether it serves: -M, or connected with every region granted. */
bool serve_ready(const struct server *s);

/* serve_nsegments() - how many segments the served configuration declares. */
unsigned serve_nsegments(const struct server *s);

/* serve_save_state() - writes what changed in the time base's state file. */
void serve_save_state(void);

/*
 * serve_save_state_forced() - serve_save_state() from the exit watchdog's
 * thread, while the main loop is stuck: gives up after 200 ms.
 */
void serve_save_state_forced(void);

/*
 * serve_stop() - ends the AgentX session (or -M's agent), the registrations
 * and the threads, closes the state files, and frees @s.
 */
void serve_stop(struct server *s);

#endif /* STATCTR_AGENT_SERVE_H */
