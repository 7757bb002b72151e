/*
 * exporter.h - what the modules of statctr-exporter share.
 *
 * statctr-exporter serves the segments a configuration declares on
 * /metrics, in the Prometheus text format 0.0.4 or OpenMetrics 1.0, with
 * the series `statctl show -f prometheus` prints (tools/walk.h renders
 * both).  main.c runs the daemon (options, signals, readiness,
 * privileges), collect.c takes the snapshots and renders a scrape,
 * http.c speaks HTTP through libmicrohttpd, webconfig.c reads the
 * exporter-toolkit web configuration (TLS, basic auth).
 */
#ifndef STATCTR_EXPORTER_H
#define STATCTR_EXPORTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EXPORTER_NAME "statctr-exporter"

/* main.c: "statctr-exporter: MESSAGE" to stderr (the journal under systemd). */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- webconfig.c: exporter-toolkit's --web.config.file ---------------- */

struct web_user {
	char *name;
	char *hash;     /* bcrypt: $2a$, $2b$ or $2y$ */
	char *verified; /* the last password that matched @hash, or NULL */
};

struct web_config {
	char *cert_pem, *key_pem, *ca_pem; /* TLS: NULL without; ca_pem: client certificates */
	bool require_client_cert;          /* client_auth_type RequireAndVerifyClientCert */
	struct web_user *users;            /* basic_auth_users; none: no authentication */
	uint32_t nusers;
};

/*
 * webconfig_load() - reads @path (the YAML subset of exporter-toolkit's
 * web configuration: tls_server_config and basic_auth_users) and the
 * certificate and key files it names (relative to its directory), each
 * through safefile_read().  Returns 0 or a negative errno with
 * "FILE:LINE: what" in @err.
 */
int webconfig_load(const char *path, struct web_config **wcp, char *err, size_t errsize);
void webconfig_free(struct web_config *wc);
/* Whether @user with @password is one of @wc's users (crypt_r(), then remembered). */
bool webconfig_check(struct web_config *wc, const char *user, const char *password);

/* ---- collect.c: the snapshots of a scrape and its body ------------------ */

struct agent_settings;
struct collector;

/* The counts of the exporter itself (statctr_exporter_*), kept by http.c. */
struct exporter_counts {
	atomic_uint_fast64_t requests;     /* answered on /metrics */
	atomic_uint_fast64_t busy;         /* refused with 503: max_scrapes reached */
	atomic_uint_fast64_t unauthorized; /* refused with 401 or 403 */
	atomic_uint_fast64_t bad_requests; /* refused with 404 or 405 */
};

/*
 * collector_new() - the segments @set's exporter group serves (all it
 * declares without a list), opened at the first scrape.  Returns 0 or a
 * negative errno (out of memory).
 */
int collector_new(const struct agent_settings *set, struct collector **cp);
void collector_free(struct collector *c);
/*
 * collector_scrape() - one scrape: a sums-only snapshot of every segment
 * (each view kept open between scrapes, followed to a writer's new
 * generation), rendered with the segments' state and the exporter's own
 * series into a malloc()ed *@bodyp of *@lenp bytes.  @epoch not 0:
 * counters and histograms count over epoch @epoch's interval (to the next
 * kept epoch, or to now for the latest), as statctl show --epoch; a
 * segment that does not keep it is not read (statctr_segment_readable 0).  One thread at a time
 * per collector.  Returns 0 or -ENOMEM.
 */
int collector_scrape(struct collector *c, bool openmetrics, uint32_t epoch,
                     const struct exporter_counts *counts, char **bodyp, size_t *lenp);

/* ---- http.c: the HTTP server --------------------------------------------- */

struct server_conf {
	const char *listen_address; /* HOST:PORT */
	uint32_t max_connections, threads, timeout_s, max_request_bytes;
};

struct server;
/*
 * server_start() - listens on @conf->listen_address and serves @c with
 * @wc (TLS and users; NULL: plain HTTP for anyone), at most @max_scrapes
 * scrapes at once.  The server owns @c and @wc from then on.  Returns 0
 * or a negative errno, the cause logged.
 */
int server_start(const struct server_conf *conf, struct collector *c, struct web_config *wc,
                 uint32_t max_scrapes, struct server **sp);
/*
 * server_reload() - SIGHUP: serve @c, @wc's users and @max_scrapes from
 * now on (the old ones freed once no scrape uses them).  TLS and the
 * listen address stay those of the start.
 */
void server_reload(struct server *s, struct collector *c, struct web_config *wc,
                   uint32_t max_scrapes);
void server_stop(struct server *s);

#endif /* STATCTR_EXPORTER_H */
