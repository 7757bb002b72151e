/*
 * serve.c - serving one configuration at a time (see serve.h).
 *
 * Owns what a configuration produces (settings, OID map, aggregator, the
 * engine and every backend registered on it), replaced whole on SIGHUP
 * once the new one's first pass is published; Net-SNMP's set-up as an
 * AgentX subagent or, with -M, as its own SNMP agent (standalone.c
 * configures it); the AgentX connection's state, logged once per change,
 * not per retry; and the orderly end of the session.  The one file that
 * knows every backend.  Never parses options, forks, handles a signal or
 * reads a segment itself.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>

#include "serve.h"
#include "agent.h"
#include "aggregate.h"
#include "backend_byname.h"
#include "daemon.h"
#include "engine.h"
#include "backend_statctr.h"
#include "backend_ifmib.h"
#include "ifmib.h"
#include "oidmap.h"
#include "register.h"
#include "settings.h"
#include "sinks.h"
#include "standalone.h"
#include "timebase.h"
#include "traps.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exported by libnetsnmpagent (agent/mibgroup/mibII/vacm_conf.c), not in an installed header. */
void init_vacm_conf(void);
/* Exported by libnetsnmpmibs (mibII/system_mib.c, mibII/sysORTable.c, snmpv3/snmpEngine.c). */
void init_system_mib(void);
void init_sysORTable(void);
void init_snmpEngine(void);

/* What one configuration produces; replaced whole on SIGHUP. */
struct serving {
	struct agent_settings *set;
	struct oidmap *map;
	struct aggregator *agg;
	struct engine *engine;     /* serves the regions of both backends */
	struct handlers *handlers; /* STATCTR-MIB (backend_statctr.c) */
	struct byname *byname;     /* its dynamic tables by row name (backend_byname.c) */
	struct ifmib_serve *ifmib; /* the IF-MIB tables (backend_ifmib.c) */
};

struct server {
	struct serve_options opt;
	struct serving cur;
	/* SIGHUP: read, its first pass under way; next.set NULL: none. */
	struct serving next;
	int wake_fd;    /* the aggregation threads wake the main loop here */
	bool connected; /* to the AgentX master */
	int master_fd;  /* the AgentX session's socket while connected, else -1 */
	uint32_t sinks; /* -M: the trap sinks (sinks.c sends to them) */
	bool told_down; /* "master unreachable" logged since the last connect */
};

/* ------------------------------------------------------------------------
 * AgentX connection state: logged once per change, not per retry.
 */

static const char *master_address(const struct server *s)
{
	return s->opt.master ? s->opt.master : s->cur.set->master;
}

/*
 * AgentX runs over a stream socket, where a request is never lost: a resend
 * only duplicates it.  Net-SNMP's client default (an answer within 1 s, else
 * sent again, 5 times) made a slow master parse each Register PDU up to six
 * times, answer the copies duplicateRegistration against the agent itself,
 * and fall further behind, until a ping went unanswered and the session was
 * reopened, to register everything again (agent_restart.sh under ASan at
 * load 16).  So each request is sent once, and may take 30 s: a master that
 * exits or restarts closes the socket and is seen at once, so the timeout
 * only ever judges a live master that is slow, and a session reopened
 * costs registering everything again (a ping unanswered in 6 s at load 24
 * on 2 CPUs, then 100 s to register: agent_restart.sh, round 8).  Set as
 * the library default for the Open PDU, and on the open session in case an
 * snmp.conf set "retries" or "timeout" since.
 */
enum { AGENTX_TIMEOUT_S = 30 };

static void agentx_send_once_defaults(void)
{
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_RETRIES, 0);
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_TIMEOUT, AGENTX_TIMEOUT_S);
}

static int on_connect(int major, int minor, void *server_arg, void *client_arg)
{
	struct server *s = client_arg;
	netsnmp_session *session = server_arg; /* the AgentX session (subagent.c passes it) */

	(void)major, (void)minor;
	s->connected = true;
	s->master_fd = -1;
	if (session) {
		session->retries = 0;
		session->timeout = AGENTX_TIMEOUT_S * 1000L * 1000L;
		s->master_fd = snmp_sess_transport(snmp_sess_pointer(session))->sock;
	}
	s->told_down = false;
	timebase_new_session();
	/* Called before Net-SNMP re-sends the registrations of a reconnect. */
	registry_reattach_once();
	snmp_log(LOG_INFO, "connected to the AgentX master at %s\n", master_address(s));
	return SNMPERR_SUCCESS;
}

static int on_disconnect(int major, int minor, void *server_arg, void *client_arg)
{
	struct server *s = client_arg;

	(void)major, (void)minor, (void)server_arg;
	s->connected = false;
	s->master_fd = -1;
	timebase_new_session();
	if (!s->told_down && !daemon_stopping())
		snmp_log(LOG_WARNING, "lost the AgentX master; reconnecting every %u s\n",
		         s->cur.set->ping_interval);
	s->told_down = true;
	return SNMPERR_SUCCESS;
}

static void check_master(struct server *s)
{
	if (s->opt.embedded || s->connected || s->told_down)
		return;
	snmp_log(LOG_WARNING, "AgentX master at %s not reachable; retrying every %u s\n",
	         master_address(s), s->cur.set->ping_interval);
	s->told_down = true;
}

/* Why a daemon could not connect at start, in one line. */
static int master_unreachable(const struct server *s)
{
	const char *addr = master_address(s);
	struct stat st;

	if (addr[0] == '/' && stat(addr, &st) < 0)
		return errmsg_set(ENOTCONN,
		                  "cannot connect to the AgentX master at %s: %s (is snmpd "
		                  "running, with \"master agentx\" and this agentXSocket?)",
		                  addr, strerror(errno));
	return errmsg_set(ENOTCONN,
	                  "cannot connect to the AgentX master at %s (is snmpd running, with "
	                  "\"master agentx\", and does agentXPerms let this user connect?)",
	                  addr);
}

/* ------------------------------------------------------------------------
 * Serving one configuration.
 */

static void serving_stop(struct serving *s)
{
	engine_unregister(s->engine);
	engine_free(s->engine);
	handlers_free(s->handlers);
	byname_free(s->byname);
	ifmib_serve_free(s->ifmib);
	agg_destroy(s->agg);
	oidmap_free(s->map);
	settings_free(s->set);
	memset(s, 0, sizeof(*s));
}

static int build_settings(const char *config, struct serving *s)
{
	int err = settings_load(config, &s->set);

	if (err) {
		errmsg_set(-err, "%s", statctr_errmsg());
		return err;
	}
	for (uint32_t i = 0; i < s->set->ifmib->nwarnings; i++)
		snmp_log(LOG_WARNING, "%s\n", s->set->ifmib->warnings[i]);
	return oidmap_create(s->set->cfg, s->set->root, s->set->root_len, &s->map);
}

/* @wake_fd < 0: at start, the first pass runs here; else in the new thread. */
static int build_aggregator(struct serving *s, const struct serving *cur, int wake_fd)
{
	bool threaded = wake_fd >= 0;
	int err = agg_open(s->set->cfg, s->set->segment_owner, s->set->slot_table, &s->agg);

	if (err)
		return err;
	agg_set_carry_over(s->agg, s->set->carry_over);
	agg_set_max_age(s->agg, s->set->max_age_ms);
	/* At start, what STATE_FILE.carry kept continues; on SIGHUP, the process's. */
	err = agg_keep_carry(s->agg, s->set->state_file, !threaded);
	if (!err && threaded) /* the counts carried so far continue (SIGHUP) */
		err = agg_adopt_carry(s->agg, cur ? cur->agg : NULL);
	if (err)
		return err;
	if (threaded)
		return agg_start(s->agg, s->set->interval_ms, wake_fd);
	return agg_first_pass(s->agg);
}

static int build_backends(struct serving *s)
{
	int err = engine_create(s->agg, s->set->ping_interval, &s->engine);

	if (!err)
		err = handlers_add(s->engine, s->set, s->map, &s->handlers);
	if (!err)
		err = byname_add(s->engine, s->set, &s->byname);
	if (!err)
		err = ifmib_serve_create(s->set, s->agg, &s->ifmib);
	if (!err)
		err = ifmib_serve_add(s->ifmib, s->engine);
	return err;
}

/*
 * Builds everything but the registrations; nothing is served yet.  At start
 * (@wake_fd < 0: before the daemon's fork, which keeps no thread) the first
 * pass runs here; on SIGHUP the new aggregator's thread runs it while the
 * old configuration keeps being served.
 */
static int serving_build(const char *config, struct serving *s, const struct serving *cur,
                         int wake_fd)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = build_settings(config, s);
	if (!err)
		err = build_aggregator(s, cur, wake_fd);
	if (!err)
		err = build_backends(s);
	if (err)
		serving_stop(s);
	return err;
}

/* @strict: a region the master refuses fails the start (else it is retried). */
static int serving_start(struct serving *s, bool strict)
{
	int err = engine_register(s->engine, strict);

	if (err)
		return err;
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
	                   s->set->ping_interval);
	return 0;
}

/*
 * Whether a notification sent now reaches anyone: the AgentX master while
 * connected; with -M, the trap sinks sinks.c sends to from their own
 * threads (changes take effect on restart, as those of the other -M
 * settings).  Otherwise traps.c counts it lost.
 */
static bool can_notify(const struct server *s)
{
	return s->opt.embedded ? s->sinks > 0 : s->connected;
}

/* A SET's resets are done: statctrResetDone (traps.c), from the handler's COMMIT. */
static void on_reset(void *arg, const struct agg_result *res, const struct agg_reset *v, uint32_t n)
{
	const struct server *s = arg;

	traps_reset_done(s->cur.set, res, v, n, can_notify(s));
}

/* The settings a reload cannot change, said when it tries. */
static void warn_restart_only(const struct server *s)
{
	const struct agent_settings *old = s->cur.set, *next = s->next.set;

	if (old->master && next->master && strcmp(old->master, next->master))
		snmp_log(LOG_WARNING, "SIGHUP: agent.master changes take effect on restart\n");
	if (s->opt.embedded && !standalone_same(old, next, s->opt.embedded))
		snmp_log(LOG_WARNING,
		         "SIGHUP: changes of the communities, v3_users, trap_sinks, engine_*, "
		         "sys_* settings take effect on restart\n");
}

/* The pending configuration replaces the served one, or is dropped if it cannot. */
static void switch_serving(struct server *s)
{
	struct serving old = s->cur;

	if (!s->next.set || !agg_ready(s->next.agg))
		return;
	warn_restart_only(s);
	/* The regions both serve stay registered: no gap, no PDU (engine_adopt()). */
	engine_adopt(s->next.engine, old.engine);
	ifmib_serve_adopt(s->next.ifmib, old.ifmib); /* ifLastChange, and a change in between */
	engine_on_reset(s->next.engine, on_reset, s);
	s->cur = s->next;
	memset(&s->next, 0, sizeof(s->next));
	if (serving_start(&s->cur, true) < 0) {
		snmp_log(LOG_ERR, "SIGHUP: %s; still serving the previous configuration\n",
		         errmsg_get());
		serving_stop(&s->cur);
		s->cur = old; /* its thread never stopped */
		/* Not strict: a region another agent took in between is retried. */
		if (serving_start(&s->cur, false) < 0)
			snmp_log(LOG_ERR, "cannot register again: %s\n", errmsg_get());
		return;
	}
	serving_stop(&old);
	timebase_set_state_file(s->cur.set->state_file);
	if (traps_open(s->cur.set->state_file) < 0)
		snmp_log(LOG_ERR, "SIGHUP: %s\n", errmsg_get());
	snmp_log(LOG_INFO, "SIGHUP: configuration %s reloaded\n", s->opt.config);
}

/* ------------------------------------------------------------------------
 * Net-SNMP set-up.
 */

static void setup_roles(const struct server *s)
{
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	if (s->opt.embedded) {
		/*
		 * -M serves exactly these addresses.  init_master_agent() also opens
		 * SMUX (TCP 0.0.0.0:199) unless the module is on the "do not
		 * initialise" list, which is what snmpd's -I -smux fills.
		 */
		char no_smux[] = "-smux";

		add_to_init_list(no_smux);
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
		                      s->opt.embedded);
		return;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_CONNECTION_WARNINGS,
	                       1);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
	                      master_address(s));
}

/*
 * -M: a complete small agent: the system group (sysUpTime, which every
 * TimeStamp of STATCTR-MIB counts from), sysORTable and the snmpEngine
 * objects, as snmpd serves them; their config tokens (sysContact, ...) must
 * exist before init_snmp() reads the files.
 */
static int setup_embedded(struct server *s)
{
	int err;

	init_system_mib();
	init_sysORTable();
	init_snmpEngine();
	init_vacm_conf();
	err = standalone_configure(s->cur.set, s->opt.embedded);
	if (err)
		return err;
	s->sinks = s->cur.set->nsinks;
	return 0;
}

static int start_netsnmp(struct server *s)
{
	const struct agent_settings *set = s->cur.set;
	int err;

	setup_roles(s);
	/* The agent needs no MIB text; loading the default modules only warns. */
	setenv("MIBS", "", 1);
	if (init_agent(AGENT_NAME) != 0)
		return errmsg_set(EIO, "init_agent() failed");
	/* Only now: init_agent() resets the ping interval to its default of 15 s. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
	                   set->ping_interval);
	if (s->opt.embedded) {
		err = setup_embedded(s);
		if (err)
			return err;
	} else {
		agentx_send_once_defaults();
		snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_START,
		                       on_connect, s);
		snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_STOP,
		                       on_disconnect, s);
	}
	init_snmp(AGENT_NAME);
	if (!s->opt.embedded)
		return 0;
	if (init_master_agent() != 0)
		return errmsg_set(EADDRINUSE, "cannot serve SNMP on %s", s->opt.embedded);
	return standalone_started(set);
}

/* Once a second, in the loop: re-sends the regions the master refused (register.c paces it). */
static void retry_alarm(unsigned int reg, void *arg)
{
	const struct server *s = arg;

	(void)reg;
	if (s->connected)
		registry_retry();
}

/* ------------------------------------------------------------------------
 * What main.c calls.
 */

int serve_open(const struct serve_options *opt, struct server **out)
{
	struct server *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return errmsg_set(ENOMEM, "out of memory");
	s->opt = *opt;
	s->wake_fd = -1;
	s->master_fd = -1;
	err = serving_build(opt->config, &s->cur, NULL, -1);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

int serve_register(struct server *s, int wake_fd, bool need_master)
{
	int err;

	s->wake_fd = wake_fd;
	err = start_netsnmp(s);
	timebase_set_state_file(s->cur.set->state_file);
	if (!err)
		err = traps_open(s->cur.set->state_file);
	if (!err)
		engine_on_reset(s->cur.engine, on_reset, s);
	if (!err)
		err = serving_start(&s->cur, true);
	if (!err && need_master && !s->opt.embedded && !s->connected)
		err = master_unreachable(s);
	if (err)
		return err;
	check_master(s);
	return 0;
}

int serve_start(struct server *s)
{
	int err;

	/* Called after the privileges drop: the threads never run as root. */
	err = agg_start(s->cur.agg, s->cur.set->interval_ms, s->wake_fd);
	if (!err) /* after the fork too, which keeps no thread */
		err = ifmib_store_start();
	if (!err && s->opt.embedded) /* -M: one sending thread per trap sink (sinks.c) */
		err = sinks_start(s->cur.set);
	if (err)
		return err;
	snmp_log(LOG_INFO, AGENT_NAME " %s serving %s (%u segments) as uid %u gid %u\n",
	         STATCTR_VERSION, s->opt.config, s->cur.set->cfg->nsegments, (unsigned)getuid(),
	         (unsigned)getgid());
	snmp_alarm_register(1, SA_REPEAT, retry_alarm, s);
	return 0;
}

void serve_process(struct server *s)
{
	/*
	 * Notifications held back by traps.c's budget go at the next poll:
	 * through the master once its Responses woke the loop (read first:
	 * that is what keeps both socket ends moving); with -M at once (its
	 * sinks answer nothing the loop must read).
	 */
	agent_check_and_process(traps_pending() && s->opt.embedded ? 0 : 1);
}

/* A new interface past the IF-MIB regions: the next chunk, before its linkUp goes out. */
static void grow_ifmib(struct serving *s)
{
	const struct agg_result *res;

	if (!s->ifmib || !agg_ready(s->agg))
		return;
	res = agg_acquire(s->agg);
	ifmib_serve_grow(s->ifmib, s->engine, res);
	agg_release(res);
}

void serve_poll(struct server *s)
{
	/* Woken by each published result: its changes go out within the pass. */
	grow_ifmib(&s->cur);
	traps_poll(s->cur.set, s->cur.ifmib, s->cur.agg, can_notify(s));
	sinks_poll();
	agg_flush_log(s->cur.agg);
	if (s->next.agg)
		agg_flush_log(s->next.agg);
}

/* SIGHUP: the new configuration is served once its first pass is published. */
void serve_reload(struct server *s)
{
	if (s->next.set) {
		serving_stop(&s->next);
		snmp_log(LOG_INFO, "SIGHUP: the pending reload (in its first pass) dropped\n");
	}
	if (serving_build(s->opt.config, &s->next, &s->cur, s->wake_fd) < 0)
		snmp_log(LOG_ERR, "SIGHUP: %s; still serving the previous configuration\n",
		         errmsg_get());
}

void serve_update(struct server *s)
{
	switch_serving(s);
	check_master(s);
}

bool serve_ready(const struct server *s)
{
	return s->opt.embedded || (s->connected && registry_held());
}

unsigned serve_nsegments(const struct server *s)
{
	return s->cur.set->cfg->nsegments;
}

void serve_save_state(void)
{
	timebase_flush();
}

void serve_save_state_forced(void)
{
	timebase_flush_forced();
}

/*
 * Ends the AgentX session from the main loop, outside any Net-SNMP callback:
 * the agent stops writing (shutdown(SHUT_WR)), the master sees the end of
 * the stream and drops the session with everything it held, and the agent
 * reads the master's end of file as a plain disconnect (at most 1 s).  No
 * Unregister PDU (backend_statctr.c, "Ownership"), and no Close PDU: snmp_shutdown()
 * would send one from its shutdown callback and wait for the answer, and a
 * master stopping at the same time then drops the session inside that
 * callback, where Net-SNMP's disconnect handling trips its callback-lock
 * assertion ("netsnmp_assert lock_holded < 100 failed").
 */
static void close_master_session(struct server *s)
{
	int fd = s->master_fd;

	if (!s->connected || fd < 0)
		return;
	/* No reconnection: Net-SNMP then logs "not reconnecting" and arms no retry. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 0);
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 100 && s->connected; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		poll(&p, 1, 10);
		agent_check_and_process(0);
	}
}

/* The served configuration lives until no request can come any more. */
static void shut_down(struct server *s)
{
	close_master_session(s);
	/* snmp_shutdown() would free the callbacks' client argument, s. */
	snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_START, on_connect,
	                         s, 1);
	snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_STOP,
	                         on_disconnect, s, 1);
	sinks_stop(); /* its threads use Net-SNMP until they are joined */
	snmp_shutdown(AGENT_NAME);
	if (s->opt.embedded)
		shutdown_master_agent();
	shutdown_agent(); /* the local registrations, without callbacks */
	registry_forget_all();
	serving_stop(&s->cur);
}

void serve_stop(struct server *s)
{
	serving_stop(&s->next); /* built, never registered */
	timebase_set_state_file(NULL);
	shut_down(s);
	ifmib_store_close();
	traps_close();
	free(s);
}
