/*
 * main.c - statctr-exporter: the daemon that serves a configuration's
 * segments to Prometheus on /metrics (statctr-exporter(8)).
 *
 * Owns the command line (flags as Prometheus exporters name them), the
 * reading of the configuration (mib/settings.c, the agent's own code: one
 * verdict for --check-config, statctl check-config and the agent), the
 * switch to an unprivileged user once it listens, readiness to systemd
 * (Type=notify) and the signals: SIGHUP reloads, SIGTERM and SIGINT stop.
 * Every signal is taken by this thread (sigwaitinfo()); the server's
 * threads never see one.  Serves nothing itself (http.c).
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"
#include "settings.h"
#include "walk.h"
#include "sdnotify.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef STATCTR_DEFAULT_CONFIG
#define STATCTR_DEFAULT_CONFIG "/etc/statctr.conf"
#endif

struct options {
	const char *config;
	const char *listen;     /* --web.listen-address, or NULL: the file's */
	const char *web_config; /* --web.config.file, or NULL: the file's */
	const char *user, *group;
	bool check;
};

static const char usage_text[] =
    "Usage: " EXPORTER_NAME " [OPTIONS]\n"
    "Serves the segments of a statctr configuration to Prometheus on /metrics.\n\n"
    "  -c, --config=FILE              configuration (default " STATCTR_DEFAULT_CONFIG ")\n"
    "      --web.listen-address=HOST:PORT\n"
    "                                 where to listen (default: exporter.listen_address,\n"
    "                                 else " SETTINGS_DEFAULT_LISTEN ")\n"
    "      --web.config.file=FILE     TLS and basic auth, exporter-toolkit's format\n"
    "                                 (default: exporter.web_config_file, else none)\n"
    "      --check-config             check FILE and the web configuration, then exit\n"
    "  -u, --user=USER                switch to USER once listening (when started as root)\n"
    "  -g, --group=GROUP              and to GROUP (default: USER's)\n"
    "  -h, --help                     this text\n"
    "      --version                  the version\n";

static void vlog_msg(const char *fmt, va_list ap)
{
	fputs(EXPORTER_NAME ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_msg(fmt, ap);
	va_end(ap);
}

/* tools/walk.h's messages (a column left out, a segment not read) go to the log. */
void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_msg(fmt, ap);
	va_end(ap);
}

enum { OPT_LISTEN = 0x100, OPT_WEBCONFIG, OPT_CHECK, OPT_VERSION };

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"web.listen-address", required_argument, NULL, OPT_LISTEN},
	    {"web.config.file", required_argument, NULL, OPT_WEBCONFIG},
	    {"check-config", no_argument, NULL, OPT_CHECK},
	    {"user", required_argument, NULL, 'u'},
	    {"group", required_argument, NULL, 'g'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	int c;

	o->config = STATCTR_DEFAULT_CONFIG;
	while ((c = getopt_long(argc, argv, "c:u:g:h", longopts, NULL)) != -1) {
		if (c == 'c')
			o->config = optarg;
		else if (c == OPT_LISTEN)
			o->listen = optarg;
		else if (c == OPT_WEBCONFIG)
			o->web_config = optarg;
		else if (c == OPT_CHECK)
			o->check = true;
		else if (c == 'u')
			o->user = optarg;
		else if (c == 'g')
			o->group = optarg;
		else if (c == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		} else if (c == OPT_VERSION) {
			printf(EXPORTER_NAME " %s\n", STATCTR_VERSION);
			exit(0);
		} else {
			fputs(usage_text, stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		log_msg("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* What one reading of the configuration gives: its settings and web configuration. */
struct loaded {
	struct agent_settings *set;
	struct web_config *web;
};

static const char *web_config_of(const struct options *o, const struct agent_settings *set)
{
	return o->web_config ? o->web_config : set->exporter.web_config_file;
}

static int load(const struct options *o, struct loaded *l)
{
	char err[1024];
	const char *web;

	l->web = NULL;
	if (settings_load(o->config, &l->set) < 0) {
		log_msg("%s", statctr_errmsg());
		return -EINVAL;
	}
	web = web_config_of(o, l->set);
	if (web != NULL && webconfig_load(web, &l->web, err, sizeof(err)) < 0) {
		log_msg("%s", err);
		settings_free(l->set);
		l->set = NULL;
		return -EINVAL;
	}
	return 0;
}

static int check_config(const struct options *o)
{
	struct loaded l;

	if (settings_check(o->config, stdout, stderr) != 0 || load(o, &l) < 0)
		return 1;
	if (l.web != NULL)
		printf("%s: valid: %s, %u basic-auth users\n", web_config_of(o, l.set),
		       l.web->cert_pem ? (l.web->ca_pem ? "TLS with client certificates" : "TLS")
		                       : "no TLS",
		       l.web->nusers);
	webconfig_free(l.web);
	settings_free(l.set);
	return 0;
}

static int lookup_ids(const struct options *o, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(o->user);
	struct group *gr = o->group ? getgrnam(o->group) : NULL;

	if (pw == NULL) {
		log_msg("-u %s: no such user", o->user);
		return -EINVAL;
	}
	if (o->group != NULL && gr == NULL) {
		log_msg("-g %s: no such group", o->group);
		return -EINVAL;
	}
	*uid = pw->pw_uid;
	*gid = gr ? gr->gr_gid : pw->pw_gid;
	return 0;
}

/* -u/-g: switch for good (groups, gid, uid) and check that root cannot come back. */
static int drop_privileges(const struct options *o)
{
	uid_t uid;
	gid_t gid;

	if (o->user == NULL)
		return 0;
	if (geteuid() != 0) {
		log_msg("-u %s: not started as root; running as uid %ld", o->user, (long)geteuid());
		return 0;
	}
	if (lookup_ids(o, &uid, &gid) < 0)
		return -EINVAL;
	if (initgroups(o->user, gid) != 0 || setresgid(gid, gid, gid) != 0 ||
	    setresuid(uid, uid, uid) != 0) {
		log_msg("cannot switch to user %s: %s", o->user, strerror(errno));
		return -EPERM;
	}
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
		log_msg("root could be regained after switching to %s: refusing to serve", o->user);
		return -EPERM;
	}
	return 0;
}

static uint32_t max_scrapes_of(const struct loaded *l)
{
	return l->set->exporter.max_scrapes;
}

/* SIGHUP: the new configuration, or the old one kept with the reason logged. */
static void reload(const struct options *o, struct server *srv)
{
	struct loaded l;
	struct collector *c;

	if (load(o, &l) < 0) {
		log_msg("SIGHUP: still serving the previous configuration");
		return;
	}
	if (collector_new(l.set, &c) < 0) {
		log_msg("SIGHUP: out of memory; still serving the previous configuration");
		webconfig_free(l.web);
		settings_free(l.set);
		return;
	}
	server_reload(srv, c, l.web, max_scrapes_of(&l));
	log_msg(
	    "SIGHUP: configuration %s reloaded (%zu segments)", o->config,
	    (size_t)(l.set->exporter.segments ? l.set->exporter.nsegments : l.set->cfg->nsegments));
	settings_free(l.set);
}

static int serve(const struct options *o, struct loaded *l, sigset_t *sigs)
{
	const struct exporter_settings *ex = &l->set->exporter;
	struct server_conf conf = {
	    .listen_address = o->listen ? o->listen : ex->listen_address,
	    .max_connections = ex->max_connections,
	    .threads = ex->threads,
	    .timeout_s = ex->timeout_s,
	    .max_request_bytes = ex->max_request_bytes,
	};
	struct collector *c;
	struct server *srv;
	char state[256];
	int sig;

	if (collector_new(l->set, &c) < 0 ||
	    server_start(&conf, c, l->web, max_scrapes_of(l), &srv) < 0)
		return 1;
	if (drop_privileges(o) < 0) {
		server_stop(srv);
		return 1;
	}
	log_msg("serving %s on %s%s", o->config, conf.listen_address,
	        l->web && l->web->cert_pem ? " (TLS)" : "");
	snprintf(state, sizeof(state), "READY=1\nSTATUS=serving on %s\nMAINPID=%ld",
	         conf.listen_address, (long)getpid());
	sd_notify_state(state);
	settings_free(l->set);
	l->set = NULL;
	while ((sig = sigwaitinfo(sigs, NULL)) != SIGTERM && sig != SIGINT)
		if (sig == SIGHUP)
			reload(o, srv);
	sd_notify_state("STOPPING=1");
	server_stop(srv);
	log_msg("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	struct loaded l;
	sigset_t sigs;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	if (o.check)
		return check_config(&o);
	/* before any thread: they all inherit the mask, this one waits */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (load(&o, &l) < 0)
		return 1;
	return serve(&o, &l, &sigs);
}
