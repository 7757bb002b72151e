/*
 * http.c - statctr-exporter's HTTP(S) server, through libmicrohttpd (no
 * HTTP parsing of its own).
 *
 * Owns what a request may be and get: GET or HEAD (else 405), of
 * /metrics (?epoch=N: an epoch's counts) or / (else 404), from a user of the web configuration when
 * it lists some (else 401) and with a client certificate its CA signed when it asks for one (else
 * 403); at most max_scrapes scrapes at once (more get 503); the format the Accept header asks for
 * (OpenMetrics 1.0 for application/openmetrics-text, else text 0.0.4), gzipped when Accept-Encoding
 * has gzip.  libmicrohttpd enforces the connection limits (count, idle timeout, memory of a
 * request's headers).  Never reads a segment itself (collect.c), never blocks a scrape on another
 * but on the collector's one lock.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OM   "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct server {
	struct MHD_Daemon *mhd;
	pthread_mutex_t scrape_lock; /* the collector: one scrape at a time */
	struct collector *collector;
	pthread_mutex_t auth_lock; /* the web configuration's users */
	struct web_config *web;
	bool client_certs; /* TLS asks for client certificates: verify them */
	atomic_uint max_scrapes;
	atomic_uint inflight;
	struct exporter_counts counts;
};

static const char index_page[] =
    "<html><head><title>statctr-exporter</title></head><body>\n"
    "<h1>statctr-exporter</h1>\n"
    "<p>statctr counters for Prometheus: <a href=\"/metrics\">/metrics</a></p>\n"
    "</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
                             void *body, size_t len, enum MHD_ResponseMemoryMode mode,
                             const char *encoding)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (encoding != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return reply(conn, status, "text/plain; charset=utf-8", (void *)text, strlen(text),
	             MHD_RESPMEM_PERSISTENT, NULL);
}

/* Whether the comma-separated header @value names @token with a q other than 0. */
static bool accepts(const char *value, const char *token)
{
	size_t tlen = strlen(token);

	for (const char *p = value; p != NULL && *p != '\0'; p = strchr(p, ',')) {
		const char *q;

		p += strspn(p, ", \t");
		if (strncasecmp(p, token, tlen) != 0 ||
		    strchr(";, \t", p[tlen] ? p[tlen] : ',') == NULL)
			continue;
		q = strstr(p, "q=");
		if (q != NULL && (strchr(p, ',') == NULL || q < strchr(p, ',')) &&
		    strtod(q + 2, NULL) <= 0)
			continue;
		return true;
	}
	return false;
}

/* @len bytes of @in gzipped into a malloc()ed *@outp; 0 or -ENOMEM. */
static int gzip(const char *in, size_t len, char **outp, size_t *outlen)
{
	z_stream z = {0};
	uLong max = compressBound((uLong)len) + 32; /* the gzip header and trailer */
	char *out = malloc(max);
	int rc;

	if (out == NULL ||
	    deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)max;
	rc = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return -ENOMEM;
	}
	*outp = out;
	return 0;
}

/* ?epoch=N: 0 without, 1..2^32-1, or -1 when it is not a number of that range. */
static long long epoch_arg(struct MHD_Connection *conn)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "epoch");
	char *end;
	unsigned long long n;

	if (v == NULL)
		return 0;
	if (v[0] < '1' || v[0] > '9' || strlen(v) > 10)
		return -1;
	n = strtoull(v, &end, 10);
	return *end != '\0' || n > UINT32_MAX ? -1 : (long long)n;
}

static enum MHD_Result serve_metrics(struct server *s, struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");
	const char *enc = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept-Encoding");
	bool om = accept != NULL && accepts(accept, "application/openmetrics-text");
	long long epoch = epoch_arg(conn);
	char *body, *zipped;
	size_t len, zlen;
	int err;

	if (epoch < 0) {
		atomic_fetch_add(&s->counts.bad_requests, 1);
		return reply_text(conn, MHD_HTTP_BAD_REQUEST, "epoch: a number 1..4294967295\n");
	}
	if (atomic_fetch_add(&s->inflight, 1) >= atomic_load(&s->max_scrapes)) {
		atomic_fetch_sub(&s->inflight, 1);
		atomic_fetch_add(&s->counts.busy, 1);
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		                  "too many scrapes at once (exporter.max_scrapes)\n");
	}
	pthread_mutex_lock(&s->scrape_lock);
	atomic_fetch_add(&s->counts.requests, 1);
	err = collector_scrape(s->collector, om, (uint32_t)epoch, &s->counts, &body, &len);
	pthread_mutex_unlock(&s->scrape_lock);
	atomic_fetch_sub(&s->inflight, 1);
	if (err < 0)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	if (enc != NULL && accepts(enc, "gzip") && gzip(body, len, &zipped, &zlen) == 0) {
		free(body);
		return reply(conn, MHD_HTTP_OK, om ? CT_OM : CT_TEXT, zipped, zlen,
		             MHD_RESPMEM_MUST_FREE, "gzip");
	}
	return reply(conn, MHD_HTTP_OK, om ? CT_OM : CT_TEXT, body, len, MHD_RESPMEM_MUST_FREE,
	             NULL);
}

/* TLS with client_ca_file: the client's certificate, verified against it. */
static bool client_verified(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	unsigned status = 0;

	if (ci == NULL || ci->tls_session == NULL)
		return false;
	if (gnutls_certificate_type_get((gnutls_session_t)ci->tls_session) != GNUTLS_CRT_X509)
		return false;
	return gnutls_certificate_verify_peers2((gnutls_session_t)ci->tls_session, &status) == 0 &&
	       status == 0;
}

static bool authorized(struct server *s, struct MHD_Connection *conn)
{
	char *pass = NULL, *user;
	bool ok;

	pthread_mutex_lock(&s->auth_lock);
	if (s->web == NULL || s->web->nusers == 0) {
		pthread_mutex_unlock(&s->auth_lock);
		return true;
	}
	user = MHD_basic_auth_get_username_password(conn, &pass);
	ok = user != NULL && pass != NULL && webconfig_check(s->web, user, pass);
	pthread_mutex_unlock(&s->auth_lock);
	if (pass != NULL)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	return ok;
}

static enum MHD_Result unauthorized(struct server *s, struct MHD_Connection *conn)
{
	static const char text[] = "unauthorized\n";
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	atomic_fetch_add(&s->counts.unauthorized, 1);
	if (r == NULL)
		return MHD_NO;
	ret = MHD_queue_basic_auth_fail_response(conn, EXPORTER_NAME, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_size, void **con_cls)
{
	struct server *s = cls;

	if (*upload_size != 0) { /* a body: GET and HEAD have none */
		*upload_size = 0;
		return MHD_YES; /* the reply was queued at the first call */
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		atomic_fetch_add(&s->counts.bad_requests, 1);
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	}
	if (s->client_certs && !client_verified(conn)) {
		atomic_fetch_add(&s->counts.unauthorized, 1);
		return reply_text(conn, MHD_HTTP_FORBIDDEN,
		                  "a verified client certificate is required\n");
	}
	if (!authorized(s, conn))
		return unauthorized(s, conn);
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(s, conn);
	if (strcmp(url, "/") == 0)
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)index_page,
		             strlen(index_page), MHD_RESPMEM_PERSISTENT, NULL);
	atomic_fetch_add(&s->counts.bad_requests, 1);
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

/* HOST:PORT -> an address to bind; HOST empty: every address (IPv6 and IPv4). */
static int resolve(const char *listen, struct sockaddr_storage *ss, bool *v6)
{
	const char *colon = strrchr(listen, ':');
	char host[256];
	struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *res;
	int rc;

	if (colon == NULL || (size_t)(colon - listen) >= sizeof(host))
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if (host[0] == '\0')
		hints.ai_family = AF_INET6;
	rc = getaddrinfo(host[0] ? host : NULL, colon + 1, &hints, &res);
	if (rc != 0) {
		log_msg("listen address %s: %s", listen, gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}

static void opt(struct MHD_OptionItem *opts, size_t *n, enum MHD_OPTION o, intptr_t v, void *p)
{
	opts[*n].option = o;
	opts[*n].value = v;
	opts[*n].ptr_value = p;
	(*n)++;
}

static struct MHD_Daemon *start_mhd(struct server *s, const struct server_conf *conf,
                                    const struct web_config *wc)
{
	struct sockaddr_storage ss;
	struct MHD_OptionItem opts[10];
	size_t n = 0;
	bool v6 = false;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;

	if (resolve(conf->listen_address, &ss, &v6) < 0)
		return NULL;
	if (v6)
		flags |= MHD_USE_IPv6;
	if (v6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		flags |= MHD_USE_DUAL_STACK;
	opt(opts, &n, MHD_OPTION_SOCK_ADDR, 0, &ss);
	opt(opts, &n, MHD_OPTION_CONNECTION_LIMIT, conf->max_connections, NULL);
	opt(opts, &n, MHD_OPTION_CONNECTION_TIMEOUT, conf->timeout_s, NULL);
	opt(opts, &n, MHD_OPTION_CONNECTION_MEMORY_LIMIT, conf->max_request_bytes, NULL);
	if (conf->threads > 1)
		opt(opts, &n, MHD_OPTION_THREAD_POOL_SIZE, conf->threads, NULL);
	if (wc != NULL && wc->cert_pem != NULL) {
		flags |= MHD_USE_TLS;
		opt(opts, &n, MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key_pem);
		opt(opts, &n, MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert_pem);
		if (wc->ca_pem != NULL)
			opt(opts, &n, MHD_OPTION_HTTPS_MEM_TRUST, 0, wc->ca_pem);
	}
	opt(opts, &n, MHD_OPTION_END, 0, NULL);
	return MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_ARRAY, opts,
	                        MHD_OPTION_END);
}

int server_start(const struct server_conf *conf, struct collector *c, struct web_config *wc,
                 uint32_t max_scrapes, struct server **sp)
{
	struct server *s = calloc(1, sizeof(*s));

	*sp = NULL;
	if (s == NULL)
		return -ENOMEM;
	pthread_mutex_init(&s->scrape_lock, NULL);
	pthread_mutex_init(&s->auth_lock, NULL);
	s->collector = c;
	s->web = wc;
	s->client_certs = wc != NULL && wc->cert_pem != NULL && wc->ca_pem != NULL;
	atomic_store(&s->max_scrapes, max_scrapes);
	s->mhd = start_mhd(s, conf, wc);
	if (s->mhd == NULL) {
		log_msg("cannot serve on %s (in use, or not an address of this host?)",
		        conf->listen_address);
		s->collector = NULL;
		s->web = NULL;
		server_stop(s);
		return -EADDRNOTAVAIL;
	}
	*sp = s;
	return 0;
}

void server_reload(struct server *s, struct collector *c, struct web_config *wc,
                   uint32_t max_scrapes)
{
	struct collector *old_c;
	struct web_config *old_wc;

	pthread_mutex_lock(&s->scrape_lock);
	old_c = s->collector;
	s->collector = c;
	atomic_store(&s->max_scrapes, max_scrapes);
	pthread_mutex_unlock(&s->scrape_lock);
	collector_free(old_c);
	pthread_mutex_lock(&s->auth_lock);
	old_wc = s->web;
	/* TLS stays as started: keep its key and certificates, take the users */
	if (old_wc != NULL && wc != NULL) {
		struct web_user *users = old_wc->users;
		uint32_t n = old_wc->nusers;

		old_wc->users = wc->users;
		old_wc->nusers = wc->nusers;
		wc->users = users;
		wc->nusers = n;
		webconfig_free(wc);
	} else if (old_wc == NULL) {
		s->web = wc;
	} else if (old_wc->nusers > 0) {
		log_msg("SIGHUP: the web configuration is gone; its users stay until restart");
	}
	pthread_mutex_unlock(&s->auth_lock);
}

void server_stop(struct server *s)
{
	if (s == NULL)
		return;
	if (s->mhd != NULL)
		MHD_stop_daemon(s->mhd);
	collector_free(s->collector);
	webconfig_free(s->web);
	pthread_mutex_destroy(&s->scrape_lock);
	pthread_mutex_destroy(&s->auth_lock);
	free(s);
}
