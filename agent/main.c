/*
 * main.c - statctr-agentx: options, daemon life cycle, signals, main loop.
 *
 * Owns the process: it parses options, daemonizes, sets up Net-SNMP as an
 * AgentX subagent (or, with -M, as its own SNMP master, which standalone.c
 * configures), drops root once set up (-u/-g), then starts the aggregation
 * thread (aggregate.c) and runs the Net-SNMP main loop, re-reads the
 * configuration on SIGHUP and exits cleanly on SIGTERM/SIGINT.  Only this
 * thread calls Net-SNMP: it logs what the aggregation thread queued.
 * Signal handlers only set flags and write to a self-pipe that wakes the
 * loop (so does the aggregation thread when it queues a log line); all work
 * happens in the loop.  Never reads segments or builds OIDs itself.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>

#include "agent.h"
#include "safefile.h"
#include "aggregate.h"
#include "engine.h"
#include "backend_byname.h"
#include "backend_ifmib.h"
#include "backend_statctr.h"
#include "ifmib.h"
#include "notify.h"
#include "oidmap.h"
#include "privileges.h"
#include "register.h"
#include "settings.h"
#include "sinks.h"
#include "standalone.h"
#include "timebase.h"
#include "traps.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef STATCTR_DEFAULT_CONFIG
#define STATCTR_DEFAULT_CONFIG "/etc/statctr.conf"
#endif

/* Exported by libnetsnmpagent (agent/mibgroup/mibII/vacm_conf.c), not in an installed header. */
void init_vacm_conf(void);
/* Exported by libnetsnmpmibs (mibII/system_mib.c, mibII/sysORTable.c, snmpv3/snmpEngine.c). */
void init_system_mib(void);
void init_sysORTable(void);
void init_snmpEngine(void);

struct options {
	const char *config;
	const char *master;   /* -x, overrides agent.master */
	const char *embedded; /* -M: serve SNMP on this address */
	const char *log;      /* -L: stderr, syslog or file:PATH */
	const char *pidfile;
	const char *user;  /* -u: run as this user after setup */
	const char *group; /* -g: and this group */
	bool foreground;
	bool check; /* -n, --check-config: validate the configuration and exit */
};

/* What one configuration produces; replaced whole on SIGHUP. */
struct serving {
	struct agent_settings *set;
	struct oidmap *map;
	struct aggregator *agg;
	struct engine *engine;     /* serves the regions of both backends */
	struct handlers *handlers; /* STATCTR-MIB (handlers.c) */
	struct byname *byname;     /* its dynamic tables by row name (byname.c) */
	struct ifmib_serve *ifmib; /* the IF-MIB tables (ifmib.c) */
};

struct agent {
	struct options opt;
	struct privileges privs;
	struct serving cur;
	/* SIGHUP: read, its first pass under way; next.set NULL: none. */
	struct serving next;
	bool connected; /* to the AgentX master */
	int master_fd;  /* the AgentX session's socket while connected, else -1 */
	uint32_t sinks; /* -M: the trap sinks (sinks.c sends to them) */
	bool told_down; /* "master unreachable" logged since the last connect */
	bool ready;     /* serving: the service manager and a waiting parent were told */
};

static volatile sig_atomic_t got_term, got_hup;
static int wake_pipe[2] = {-1, -1};

/*
 * The options, one row each: getopt_long()'s table, the short options and
 * --help all come from here.  A help text's later lines start under its
 * first.
 */
static const struct option_doc {
	const char *name;
	char letter;
	const char *arg; /* NULL: takes none */
	const char *help;
} option_docs[] = {
    {"config", 'c', "CONFIG", "configuration file\n(default " STATCTR_DEFAULT_CONFIG ")"},
    {"check-config", 'n', NULL,
     "validate CONFIG as a start would, print one line,\n"
     "exit 0 if valid, else 1 (as statctl check-config)"},
    {"master", 'x', "AGENTX",
     "AgentX address of snmpd (overrides agent.master;\n"
     "default " SETTINGS_DEFAULT_MASTER ", or tcp:HOST:PORT)"},
    {"embedded", 'M', "ADDRESS",
     "be the SNMP agent, without snmpd: serve SNMP on\n"
     "ADDRESS (e.g. udp:127.0.0.1:1161) to the communities\n"
     "and SNMPv3 users of the agent group"},
    {"foreground", 'f', NULL, "stay in the foreground"},
    {"log", 'L', "stderr|syslog|file:PATH",
     "where to log (default: stderr with -f, else syslog;\n"
     "file:PATH appends to PATH, opened at start)"},
    {"pidfile", 'p', "PIDFILE", "write the process id to PIDFILE"},
    {"user", 'u', "USER", "run as USER once set up (needs root to start)"},
    {"group", 'g', "GROUP", "run as GROUP once set up\n(default with -u: USER's group)"},
    {"help", 'h', NULL, "print this help and exit"},
    {"version", 'V', NULL, "print the version and exit"},
};

#define NOPTIONS    (sizeof(option_docs) / sizeof(option_docs[0]))
#define HELP_COLUMN 27

static void usage(FILE *out)
{
	fprintf(out, "usage: " AGENT_NAME " [OPTION]...\n"
	             "Serve libstatctr segments over SNMP, as an AgentX subagent of snmpd or, with "
	             "-M,\nas an SNMP agent of its own.\n\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_doc *o = &option_docs[i];
		int len = fprintf(out, "  -%c, --%s%s%s", o->letter, o->name, o->arg ? "=" : "",
		                  o->arg ? o->arg : "");

		fprintf(out, "%*s", len < HELP_COLUMN ? HELP_COLUMN - len : 1, "");
		for (const char *p = o->help; *p; p++) {
			if (*p == '\n')
				fprintf(out, "\n%*s", HELP_COLUMN, "");
			else
				fputc(*p, out);
		}
		fputc('\n', out);
	}
	fprintf(out, "\nExit status: 0 serving (without -f) or stopped by SIGTERM, 1 an error,\n"
	             "2 bad options.  See statctr-agentx(8).\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 1];
	size_t n = 0;
	int c;

	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_doc *o = &option_docs[i];

		longopts[i] = (struct option){o->name, o->arg ? required_argument : no_argument,
		                              NULL, o->letter};
		shortopts[n++] = o->letter;
		if (o->arg)
			shortopts[n++] = ':';
	}
	longopts[NOPTIONS] = (struct option){NULL, 0, NULL, 0};
	shortopts[n] = '\0';
	opt->config = STATCTR_DEFAULT_CONFIG;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opt->config = optarg;
			break;
		case 'n':
			opt->check = true;
			break;
		case 'x':
			opt->master = optarg;
			break;
		case 'f':
			opt->foreground = true;
			break;
		case 'L':
			opt->log = optarg;
			break;
		case 'p':
			opt->pidfile = optarg;
			break;
		case 'M':
			opt->embedded = optarg;
			break;
		case 'u':
			opt->user = optarg;
			break;
		case 'g':
			opt->group = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf(AGENT_NAME " " STATCTR_VERSION "\n");
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, AGENT_NAME ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (opt->log && strcmp(opt->log, "stderr") != 0 && strcmp(opt->log, "syslog") != 0 &&
	    (strncmp(opt->log, "file:", 5) != 0 || opt->log[5] == '\0')) {
		fprintf(stderr,
		        AGENT_NAME ": --log must be stderr, syslog or file:PATH, not '%s'\n",
		        opt->log);
		usage(stderr);
		return -1;
	}
	/* A daemon's stderr is /dev/null: its log would be lost, not kept. */
	if (opt->log && strcmp(opt->log, "stderr") == 0 && !opt->foreground) {
		fprintf(stderr, AGENT_NAME ": --log stderr needs --foreground (-f); a daemon "
		                           "logs to syslog\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/*
 * A relative CONFIG is made absolute at start: a daemon runs in /, and a
 * SIGHUP reads the file the start read.  Not resolved further (a link
 * stays a link: its target may be switched).  Returns 0 or -1 (said).
 */
static int absolute_config(struct options *opt)
{
	static char path[4096];
	char cwd[4096];

	if (opt->config[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, AGENT_NAME ": cannot resolve -c %s: getcwd: %s\n", opt->config,
		        strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", cwd, opt->config) >= sizeof(path)) {
		fprintf(stderr, AGENT_NAME ": -c %s: path too long\n", opt->config);
		return -1;
	}
	opt->config = path;
	return 0;
}

/* ------------------------------------------------------------------------
 * Signals: flags plus a self-pipe watched by the Net-SNMP select loop.
 */

/*
 * The exit watchdog.  SIGTERM ends the agent within EXIT_WATCHDOG_S even
 * while Net-SNMP is inside a synchronous exchange with a master that does not
 * answer (a re-registration after a missed ping: seconds per region), which
 * the main loop cannot interrupt.  The handler posts exit_sem (sem_post() is
 * async-signal-safe); the watchdog thread then waits EXIT_WATCHDOG_S and, if
 * the orderly exit has not ended the process by then, removes the pid file
 * it wrote and _exit()s.  The master drops the session with the socket.
 */
#define EXIT_WATCHDOG_S 2

static sem_t exit_sem;
static const char *watchdog_pidfile;
static void remove_pidfile(const char *path);

static void *exit_watchdog(void *arg)
{
	struct timespec wait = {EXIT_WATCHDOG_S, 0};

	(void)arg;
	while (sem_wait(&exit_sem) != 0)
		;
	while (nanosleep(&wait, &wait) != 0)
		;
	if (watchdog_pidfile)
		remove_pidfile(watchdog_pidfile);
	_exit(0);
	return NULL;
}

/* Started with every signal blocked, so that they all go to the main thread. */
static int start_exit_watchdog(const char *pidfile)
{
	sigset_t all, old;
	pthread_t t;
	int err;

	watchdog_pidfile = pidfile;
	if (sem_init(&exit_sem, 0, 0) != 0)
		return agent_seterr(errno, "sem_init: %s", strerror(errno));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, exit_watchdog, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return agent_seterr(err, "cannot start the exit watchdog: %s", strerror(err));
	pthread_detach(t);
	return 0;
}

static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP) {
		got_hup = 1;
	} else {
		if (!got_term)
			sem_post(&exit_sem);
		got_term = 1;
	}
	if (write(wake_pipe[1], "", 1) < 0) {
		/* full pipe: the loop is already awake */
	}
	errno = saved;
}

static void drain_pipe(int fd, void *arg)
{
	char buf[64];

	(void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int setup_signals(void)
{
	struct sigaction sa;

	if (pipe(wake_pipe) < 0)
		return agent_seterr(errno, "pipe: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		fcntl(wake_pipe[i], F_SETFL, O_NONBLOCK);
		fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	register_readfd(wake_pipe[0], drain_pipe, NULL);
	return 0;
}

/* ------------------------------------------------------------------------
 * AgentX connection state: logged once per change, not per retry.
 */

static int on_connect(int major, int minor, void *server_arg, void *client_arg)
{
	struct agent *a = client_arg;

	(void)major, (void)minor, (void)server_arg;
	a->connected = true;
	a->master_fd = -1;
	if (server_arg) /* the AgentX session (subagent.c passes it) */
		a->master_fd = snmp_sess_transport(snmp_sess_pointer(server_arg))->sock;
	a->told_down = false;
	/* Called before Net-SNMP re-sends the registrations of a reconnect. */
	registry_reattach_once();
	snmp_log(LOG_INFO, "connected to the AgentX master at %s\n",
	         a->opt.master ? a->opt.master : a->cur.set->master);
	return SNMPERR_SUCCESS;
}

static int on_disconnect(int major, int minor, void *server_arg, void *client_arg)
{
	struct agent *a = client_arg;

	(void)major, (void)minor, (void)server_arg;
	a->connected = false;
	a->master_fd = -1;
	if (!a->told_down && !got_term)
		snmp_log(LOG_WARNING, "lost the AgentX master; reconnecting every %u s\n",
		         a->cur.set->ping_interval);
	a->told_down = true;
	return SNMPERR_SUCCESS;
}

static void check_master(struct agent *a)
{
	if (a->opt.embedded || a->connected || a->told_down)
		return;
	snmp_log(LOG_WARNING, "AgentX master at %s not reachable; retrying every %u s\n",
	         a->opt.master ? a->opt.master : a->cur.set->master, a->cur.set->ping_interval);
	a->told_down = true;
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

/*
 * Builds everything but the registrations; nothing is served yet.  At start
 * (@threaded false: before the daemon's fork, which keeps no thread) the first
 * pass runs here; on SIGHUP the new aggregator's thread runs it while the
 * old configuration keeps being served.
 */
static int serving_build(const char *config, struct serving *s, const struct serving *cur,
                         bool threaded)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = settings_load(config, &s->set);
	if (err)
		agent_seterr(-err, "%s", statctr_errmsg());
	for (uint32_t i = 0; !err && i < s->set->ifmib->nwarnings; i++)
		snmp_log(LOG_WARNING, "%s\n", s->set->ifmib->warnings[i]);
	if (!err)
		err = oidmap_create(s->set->cfg, s->set->root, s->set->root_len, &s->map);
	if (!err)
		err = agg_open(s->set->cfg, s->set->segment_owner, s->set->slot_table, &s->agg);
	if (!err) {
		agg_set_carry_over(s->agg, s->set->carry_over);
		agg_set_max_age(s->agg, s->set->max_age_ms);
		/* At start, what STATE_FILE.carry kept continues; on SIGHUP, the process's. */
		err = agg_keep_carry(s->agg, s->set->state_file, !threaded);
	}
	if (!err && threaded) /* the counts carried so far continue (SIGHUP) */
		err = agg_adopt_carry(s->agg, cur ? cur->agg : NULL);
	if (!err && threaded)
		err = agg_start(s->agg, s->set->interval_ms, wake_pipe[1]);
	else if (!err)
		err = agg_first_pass(s->agg);
	if (!err)
		err = engine_create(s->agg, s->set->ping_interval, &s->engine);
	if (!err)
		err = handlers_add(s->engine, s->set, s->map, &s->handlers);
	if (!err)
		err = byname_add(s->engine, s->set, &s->byname);
	if (!err)
		err = ifmib_serve_create(s->set, s->agg, &s->ifmib);
	if (!err)
		err = ifmib_serve_add(s->ifmib, s->engine);
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

/* SIGHUP: the new configuration is served once its first pass is published. */
static void reload(struct agent *a)
{
	if (a->next.set) {
		serving_stop(&a->next);
		snmp_log(LOG_INFO, "SIGHUP: the pending reload (in its first pass) dropped\n");
	}
	if (serving_build(a->opt.config, &a->next, &a->cur, true) < 0)
		snmp_log(LOG_ERR, "SIGHUP: %s; still serving the previous configuration\n",
		         agent_errmsg());
}

/*
 * Whether a notification sent now reaches anyone: the AgentX master while
 * connected; with -M, the trap sinks sinks.c sends to from their own
 * threads (changes take effect on restart, as those of the other -M
 * settings).  Otherwise
 * traps.c counts it lost.
 */
static bool can_notify(const struct agent *a)
{
	return a->opt.embedded ? a->sinks > 0 : a->connected;
}

/* A SET's resets are done: statctrResetDone (traps.c), from the handler's COMMIT. */
static void on_reset(void *arg, const struct agg_result *res, const struct agg_reset *v, uint32_t n)
{
	const struct agent *a = arg;

	traps_reset_done(a->cur.set, res, v, n, can_notify(a));
}

/* The pending configuration replaces the served one, or is dropped if it cannot. */
static void switch_serving(struct agent *a)
{
	struct serving old = a->cur;

	if (!a->next.set || !agg_ready(a->next.agg))
		return;
	if (old.set->master && a->next.set->master && strcmp(old.set->master, a->next.set->master))
		snmp_log(LOG_WARNING, "SIGHUP: agent.master changes take effect on restart\n");
	if (a->opt.embedded && !standalone_same(old.set, a->next.set, a->opt.embedded))
		snmp_log(LOG_WARNING,
		         "SIGHUP: changes of the communities, v3_users, trap_sinks, engine_*, "
		         "sys_* settings take effect on restart\n");
	/* The regions both serve stay registered: no gap, no PDU (engine_adopt()). */
	engine_adopt(a->next.engine, old.engine);
	ifmib_serve_adopt(a->next.ifmib, old.ifmib); /* ifLastChange, and a change in between */
	engine_on_reset(a->next.engine, on_reset, a);
	a->cur = a->next;
	memset(&a->next, 0, sizeof(a->next));
	if (serving_start(&a->cur, true) < 0) {
		snmp_log(LOG_ERR, "SIGHUP: %s; still serving the previous configuration\n",
		         agent_errmsg());
		serving_stop(&a->cur);
		a->cur = old; /* its thread never stopped */
		/* Not strict: a region another agent took in between is retried. */
		if (serving_start(&a->cur, false) < 0)
			snmp_log(LOG_ERR, "cannot register again: %s\n", agent_errmsg());
		return;
	}
	serving_stop(&old);
	timebase_set_state_file(a->cur.set->state_file);
	if (traps_open(a->cur.set->state_file) < 0)
		snmp_log(LOG_ERR, "SIGHUP: %s\n", agent_errmsg());
	snmp_log(LOG_INFO, "SIGHUP: configuration %s reloaded\n", a->opt.config);
}

/* ------------------------------------------------------------------------
 * Net-SNMP set-up.
 */

static void setup_logging(const struct options *opt)
{
	const char *target = opt->log ? opt->log : opt->foreground ? "stderr" : "syslog";

	/*
	 * Net-SNMP logs to stderr only while no handler is registered, and
	 * handlers.c registers one (to watch for refused registrations): name
	 * the target explicitly.
	 */
	if (strcmp(target, "syslog") == 0)
		snmp_enable_syslog_ident(AGENT_NAME, LOG_DAEMON);
	else if (strncmp(target, "file:", 5) == 0)
		snmp_enable_filelog(target + 5, 1); /* append; opened now, before the fork */
	else
		snmp_enable_stderrlog();
}

static void setup_roles(struct agent *a)
{
	const struct agent_settings *set = a->cur.set;

	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	if (a->opt.embedded) {
		/*
		 * -M serves exactly these addresses.  init_master_agent() also opens
		 * SMUX (TCP 0.0.0.0:199) unless the module is on the "do not
		 * initialise" list, which is what snmpd's -I -smux fills.
		 */
		char no_smux[] = "-smux";

		add_to_init_list(no_smux);
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
		                      a->opt.embedded);
		return;
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_CONNECTION_WARNINGS,
	                       1);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
	                      a->opt.master ? a->opt.master : set->master);
}

static int start_netsnmp(struct agent *a)
{
	const struct agent_settings *set = a->cur.set;
	int err;

	setup_roles(a);
	/* The agent needs no MIB text; loading the default modules only warns. */
	setenv("MIBS", "", 1);
	if (init_agent(AGENT_NAME) != 0)
		return agent_seterr(EIO, "init_agent() failed");
	/* Only now: init_agent() resets the ping interval to its default of 15 s. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
	                   set->ping_interval);
	if (a->opt.embedded) {
		/*
		 * A complete small agent: the system group (sysUpTime, which every
		 * TimeStamp of STATCTR-MIB counts from), sysORTable and the
		 * snmpEngine objects, as snmpd serves them; their config tokens
		 * (sysContact, ...) must exist before init_snmp() reads the files.
		 */
		init_system_mib();
		init_sysORTable();
		init_snmpEngine();
		init_vacm_conf();
		err = standalone_configure(set, a->opt.embedded);
		if (err)
			return err;
		a->sinks = set->nsinks;
	} else {
		snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_START,
		                       on_connect, a);
		snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_STOP,
		                       on_disconnect, a);
	}
	init_snmp(AGENT_NAME);
	if (!a->opt.embedded)
		return 0;
	if (init_master_agent() != 0)
		return agent_seterr(EADDRINUSE, "cannot serve SNMP on %s", a->opt.embedded);
	return standalone_started(set);
}

/* ------------------------------------------------------------------------
 * The process.
 */

/*
 * A daemon keeps no descriptor it did not open: an inherited pipe would keep
 * its writer's reader waiting for end-of-file, an inherited file stays open
 * as long as the agent runs.  0, 1 and 2 stay (a daemon redirects them).
 */
static void close_inherited_fds(void)
{
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
}

static int fill_pid(FILE *f, void *arg)
{
	(void)arg;
	return fprintf(f, "%ld\n", (long)getpid()) < 0 ? -EIO : 0;
}

/* The pid file this agent wrote: only that file is removed at exit. */
static struct stat pidfile_written;

/* /run or a shared directory: safefile_write() never follows, blocks on or reuses what is there. */
static int write_pidfile(const char *path)
{
	const char *why;
	int err = safefile_write(path, SAFEFILE_STATE, 0644, fill_pid, NULL, &why);

	if (err < 0)
		return agent_seterr(-err, "pid file %s: %s: %s", path, why, strerror(-err));
	if (lstat(path, &pidfile_written) != 0)
		pidfile_written.st_ino = 0;
	return 0;
}

/* Whether the file at @path holds our pid: a file system may give a new
 * agent's pid file the inode number of ours, removed meanwhile. */
static bool pidfile_is_ours(const char *path)
{
	char buf[32], want[32];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	return n > 0 && (buf[n] = '\0', strcmp(buf, want) == 0);
}

/* Removes the pid file if it is still the one write_pidfile() wrote, not
 * one planted or written by a later agent since. */
static void remove_pidfile(const char *path)
{
	struct stat st;

	if (pidfile_written.st_ino != 0 && lstat(path, &st) == 0 &&
	    st.st_ino == pidfile_written.st_ino && st.st_dev == pidfile_written.st_dev &&
	    pidfile_is_ours(path))
		unlink(path);
}

/* Why a daemon could not connect at start, in one line. */
static int master_unreachable(const struct agent *a)
{
	const char *addr = a->opt.master ? a->opt.master : a->cur.set->master;
	struct stat st;

	if (addr[0] == '/' && stat(addr, &st) < 0)
		return agent_seterr(ENOTCONN,
		                    "cannot connect to the AgentX master at %s: %s (is snmpd "
		                    "running, with \"master agentx\" and this agentXSocket?)",
		                    addr, strerror(errno));
	return agent_seterr(ENOTCONN,
	                    "cannot connect to the AgentX master at %s (is snmpd running, with "
	                    "\"master agentx\", and does agentXPerms let this user connect?)",
	                    addr);
}

/*
 * Ready: serving SNMP itself (-M), or connected with every region granted.
 * Told once, to the service manager (Type=notify) and to a waiting parent.
 */
static void check_ready(struct agent *a)
{
	char state[512];

	if (a->ready || (!a->opt.embedded && !(a->connected && registry_held())))
		return;
	a->ready = true;
	snprintf(state, sizeof(state), "READY=1\nSTATUS=serving %s (%u segments)\nMAINPID=%ld",
	         a->opt.config, a->cur.set->cfg->nsegments, (long)getpid());
	notify_manager(state);
	notify_started(NULL);
}

/* Once a second, in the loop: re-sends the regions the master refused (register.c paces it). */
static void retry_alarm(unsigned int reg, void *arg)
{
	struct agent *a = arg;

	(void)reg;
	if (a->connected)
		registry_retry();
}

static int run(struct agent *a)
{
	int err = start_netsnmp(a);

	timebase_set_state_file(a->cur.set->state_file);
	if (!err)
		err = traps_open(a->cur.set->state_file);
	if (!err)
		engine_on_reset(a->cur.engine, on_reset, a);
	if (!err)
		err = serving_start(&a->cur, true);
	/* A daemon's exit status says whether it serves: it waits for no master. */
	if (!err && !a->opt.foreground && !a->opt.embedded && !a->connected)
		err = master_unreachable(a);
	if (err)
		return err;
	check_master(a);
	/* Set up: the master was tried, the handlers are registered, the segments mapped. */
	err = privileges_drop(&a->privs);
	if (!err) /* after the drop: the threads never run as root */
		err = agg_start(a->cur.agg, a->cur.set->interval_ms, wake_pipe[1]);
	if (!err) /* after the fork too, which keeps no thread */
		err = ifmib_store_start();
	if (!err && a->opt.embedded) /* -M: one sending thread per trap sink (sinks.c) */
		err = sinks_start(a->cur.set);
	if (err)
		return err;
	snmp_log(LOG_INFO, AGENT_NAME " %s serving %s (%u segments) as uid %u gid %u\n",
	         STATCTR_VERSION, a->opt.config, a->cur.set->cfg->nsegments, (unsigned)getuid(),
	         (unsigned)getgid());
	snmp_alarm_register(1, SA_REPEAT, retry_alarm, a);
	check_ready(a);
	while (!got_term) {
		/*
		 * Notifications held back by traps.c's budget go at the next
		 * poll: through the master once its Responses woke the loop
		 * (read first: that is what keeps both socket ends moving); with
		 * -M at once (its sinks answer nothing the loop must read).
		 */
		agent_check_and_process(traps_pending() && a->opt.embedded ? 0 : 1);
		/* Woken by each published result: its changes go out within the pass. */
		traps_poll(a->cur.set, a->cur.ifmib, a->cur.agg, can_notify(a));
		sinks_poll();
		agg_flush_log(a->cur.agg);
		if (a->next.agg)
			agg_flush_log(a->next.agg);
		if (got_hup) {
			got_hup = 0;
			reload(a);
		}
		switch_serving(a);
		check_master(a);
		check_ready(a);
		timebase_flush();
	}
	snmp_log(LOG_INFO, "exiting on signal\n");
	return 0;
}

/*
 * Ends the AgentX session from the main loop, outside any Net-SNMP callback:
 * the agent stops writing (shutdown(SHUT_WR)), the master sees the end of
 * the stream and drops the session with everything it held, and the agent
 * reads the master's end of file as a plain disconnect (at most 1 s).  No
 * Unregister PDU (handlers.c, "Ownership"), and no Close PDU: snmp_shutdown()
 * would send one from its shutdown callback and wait for the answer, and a
 * master stopping at the same time then drops the session inside that
 * callback, where Net-SNMP's disconnect handling trips its callback-lock
 * assertion ("netsnmp_assert lock_holded < 100 failed").
 */
static void close_master_session(struct agent *a)
{
	int fd = a->master_fd;

	if (!a->connected || fd < 0)
		return;
	/* No reconnection: Net-SNMP then logs "not reconnecting" and arms no retry. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 0);
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 100 && a->connected; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		poll(&p, 1, 10);
		agent_check_and_process(0);
	}
}

/* The served configuration lives until no request can come any more. */
static void shut_down(struct agent *a)
{
	close_master_session(a);
	/* snmp_shutdown() would free the callbacks' client argument, a. */
	snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_START, on_connect,
	                         a, 1);
	snmp_unregister_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_INDEX_STOP,
	                         on_disconnect, a, 1);
	sinks_stop(); /* its threads use Net-SNMP until they are joined */
	snmp_shutdown(AGENT_NAME);
	if (a->opt.embedded)
		shutdown_master_agent();
	shutdown_agent(); /* the local registrations, without callbacks */
	registry_forget_all();
	serving_stop(&a->cur);
}

int main(int argc, char **argv)
{
	struct agent a;
	int err;

	close_inherited_fds();
	memset(&a, 0, sizeof(a));
	a.master_fd = -1;
	if (parse_options(argc, argv, &a.opt) < 0)
		return 2;
	if (a.opt.check)
		return settings_check(a.opt.config, stdout, stderr);
	if (absolute_config(&a.opt) < 0)
		return 1;
	if (privileges_resolve(a.opt.user, a.opt.group, &a.privs) < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", agent_errmsg());
		return 1;
	}
	setup_logging(&a.opt);
	/* As the -u/-g identity: what the first pass opens, the agent can open again later. */
	if (privileges_assume(&a.privs) < 0 ||
	    serving_build(a.opt.config, &a.cur, NULL, false) < 0 ||
	    privileges_unassume(&a.privs) < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", agent_errmsg());
		return 1;
	}
	/* The parent exits once the agent serves, or with the reason it cannot (notify.c). */
	if (!a.opt.foreground && notify_daemonize() < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", agent_errmsg());
		return 1;
	}
	err = start_exit_watchdog(a.opt.pidfile);
	if (!err)
		err = setup_signals();
	/* A file another user planted at PIDFILE is refused, never followed, and
	 * must not stop the start (docs/security.md): said, and served anyway. */
	if (!err && a.opt.pidfile && write_pidfile(a.opt.pidfile) < 0)
		snmp_log(LOG_ERR, "%s; serving without a pid file\n", agent_errmsg());
	if (!err)
		err = run(&a);
	if (err) {
		snmp_log(LOG_ERR, "%s\n", agent_errmsg());
		notify_started(agent_errmsg());
	}
	timebase_flush();
	notify_manager("STOPPING=1");
	serving_stop(&a.next); /* built, never registered */
	timebase_set_state_file(NULL);
	shut_down(&a);
	ifmib_store_close();
	traps_close();
	if (a.opt.pidfile)
		remove_pidfile(a.opt.pidfile);
	return err ? 1 : 0;
}
