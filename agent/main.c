/*
 * main.c - statctr-agentx: the options and the main loop.
 *
 * Owns the command line (getopt_long(), --help, --version, --check-config)
 * and the order of a start: the configuration read as the -u/-g identity,
 * the daemon's fork (daemon.c), Net-SNMP set up and every backend
 * registered (serve.c), root dropped (privileges.c), the threads started,
 * then the loop: serve what comes in, reload on SIGHUP, tell the service
 * manager once the agent serves (readiness.c), until SIGTERM/SIGINT.  Only
 * this thread calls Net-SNMP: it logs what the aggregation thread queued.
 * Never touches a backend, a signal or a segment itself.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "agent.h"
#include "daemon.h"
#include "privileges.h"
#include "readiness.h"
#include "serve.h"
#include "settings.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef STATCTR_DEFAULT_CONFIG
#define STATCTR_DEFAULT_CONFIG "/etc/statctr.conf"
#endif

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

/* getopt_long()'s tables, from option_docs. */
static void getopt_tables(struct option longopts[NOPTIONS + 1], char shortopts[2 * NOPTIONS + 1])
{
	size_t n = 0;

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
}

/* What getopt cannot check: no argument left over, a known --log. */
static int check_options(int argc, char **argv, const struct options *opt)
{
	if (optind != argc) {
		fprintf(stderr, AGENT_NAME ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opt->log && strcmp(opt->log, "stderr") != 0 && strcmp(opt->log, "syslog") != 0 &&
	    (strncmp(opt->log, "file:", 5) != 0 || opt->log[5] == '\0')) {
		fprintf(stderr,
		        AGENT_NAME ": --log must be stderr, syslog or file:PATH, not '%s'\n",
		        opt->log);
		return -1;
	}
	/* A daemon's stderr is /dev/null: its log would be lost, not kept. */
	if (opt->log && strcmp(opt->log, "stderr") == 0 && !opt->foreground) {
		fprintf(stderr, AGENT_NAME ": --log stderr needs --foreground (-f); a daemon "
		                           "logs to syslog\n");
		return -1;
	}
	return 0;
}

/* One option getopt_long() returned, into @opt.  Returns 0, or -1 (usage said). */
static int take_option(int c, struct options *opt)
{
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
	return 0;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 1];
	int c;

	getopt_tables(longopts, shortopts);
	opt->config = STATCTR_DEFAULT_CONFIG;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		if (take_option(c, opt) < 0)
			return -1;
	if (check_options(argc, argv, opt) < 0) {
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

/* Told once: serving SNMP itself (-M), or connected with every region granted. */
static void tell_if_ready(const struct server *s, const char *config)
{
	if (!readiness_told() && serve_ready(s))
		readiness_serving(config, serve_nsegments(s));
}

static int run(struct server *s, const struct options *opt, struct privileges *privs)
{
	/* A daemon's exit status says whether it serves: it waits for no master. */
	int err = serve_register(s, daemon_wake_fd(), !opt->foreground);

	/* Set up: the master was tried, the handlers are registered, the segments mapped. */
	if (!err)
		err = privileges_drop(privs);
	if (!err) /* after the drop: the threads never run as root */
		err = serve_start(s);
	if (err)
		return err;
	tell_if_ready(s, opt->config);
	while (!daemon_stopping()) {
		serve_process(s);
		serve_poll(s);
		if (daemon_take_reload())
			serve_reload(s);
		serve_update(s);
		tell_if_ready(s, opt->config);
		serve_save_state();
	}
	snmp_log(LOG_INFO, "exiting on signal\n");
	return 0;
}

/*
 * Before the fork, as the -u/-g identity: what the first pass opens, the
 * agent can open again later.
 */
static int open_serving(const struct options *opt, struct privileges *privs, struct server **s)
{
	const struct serve_options so = {opt->config, opt->master, opt->embedded};

	if (privileges_assume(privs) < 0 || serve_open(&so, s) < 0 ||
	    privileges_unassume(privs) < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", errmsg_get());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct privileges privs;
	struct server *s;
	int err;

	daemon_close_inherited();
	memset(&opt, 0, sizeof(opt));
	if (parse_options(argc, argv, &opt) < 0)
		return 2;
	if (opt.check)
		return settings_check(opt.config, stdout, stderr);
	if (absolute_config(&opt) < 0)
		return 1;
	if (privileges_resolve(opt.user, opt.group, &privs) < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", errmsg_get());
		return 1;
	}
	daemon_log_to(opt.log, opt.foreground);
	if (open_serving(&opt, &privs, &s) < 0)
		return 1;
	/* The parent exits once the agent serves, or with the reason it cannot (readiness.c). */
	if (!opt.foreground && daemon_detach() < 0) {
		fprintf(stderr, AGENT_NAME ": %s\n", errmsg_get());
		return 1;
	}
	err = daemon_start(opt.pidfile, serve_save_state_forced);
	if (!err)
		err = run(s, &opt, &privs);
	if (err) {
		snmp_log(LOG_ERR, "%s\n", errmsg_get());
		readiness_failed(errmsg_get());
	}
	serve_save_state();
	readiness_stopping();
	serve_stop(s);
	daemon_stop();
	return err ? 1 : 0;
}
