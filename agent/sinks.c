/*
 * sinks.c - the embedded master's trap sinks, each on its own thread (see
 * sinks.h).
 *
 * Owns each sink's queue, thread, Net-SNMP sessions, connection state,
 * engineID discovery and loss counter.  Never builds a notification's
 * varbinds (traps.c does), never touches the agent's own Net-SNMP sessions.
 *
 * Net-SNMP is not thread-safe.  Each sink thread uses only sessions it
 * opened itself (snmp_sess_open()/snmp_sess_*), and every Net-SNMP call a
 * sink thread makes holds lib_mu, so sink threads never run Net-SNMP code
 * at the same time.  Globals they read and the SNMP thread uses (the USM
 * user list, the engine-time list) are only written by the SNMP thread in
 * sinks_poll(), holding lib_mu (trylock: the SNMP thread never waits).  A
 * v3 inform's user for the receiver's engineID is created there, so the
 * sessions are opened with SNMP_FLAGS_DONT_PROBE and SNMP_FLAGS_USER_CREATED:
 * Net-SNMP's own probe (synchronous, run from inside a send) and its user
 * creation never run.
 *
 * Nothing a sink thread does can take longer than a bound: a TCP connect
 * is tried without blocking for CONNECT_MS, a probe waits PROBE_MS, a send
 * on a stream goes only when poll() says the socket takes it (and
 * SO_SNDTIMEO bounds it), informs in flight are capped at INFLIGHT_MAX.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "sinks.h"
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QUEUE_MAX    1024  /* notifications a sink holds for its thread */
#define INFLIGHT_MAX 128   /* informs sent and not yet answered */
#define CONNECT_MS   3000  /* a TCP connect that takes longer failed */
#define PROBE_MS     1000  /* the engineID probe's wait, one try */
#define SEND_MS      1000  /* SO_SNDTIMEO of a sink's socket */
#define STREAM_BUF   65536 /* SO_SNDBUF of a TCP sink: what a receiver not reading holds */
#define RETRY_MIN_MS 1000  /* first wait before opening a failed sink again */
#define RETRY_MAX_MS 30000 /* the longest, doubling from RETRY_MIN_MS */
#define TICK_MS      200   /* a sink thread looks at the stop flag this often */
#define ENGINE_MAX   32    /* SnmpEngineID: 5..32 octets (RFC 3411) */

static const oid sys_uptime_oid[] = {1, 3, 6, 1, 2, 1, 1, 3, 0};

enum engine_state { ENGINE_NONE, ENGINE_WANTED, ENGINE_READY };

struct sink {
	/* Set before the thread starts, then read-only. */
	uint32_t index;
	char *address;
	bool inform, v3, stream;
	netsnmp_session tmpl; /* what each snmp_sess_open() copies */
	pthread_t thread;
	bool started;
	int wake[2];    /* the SNMP thread writes a byte when it queues */
	atomic_bool up; /* open, or its first opening: sinks_send() queues */
	/* Under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	netsnmp_variable_list *queue[QUEUE_MAX];
	uint32_t head, count;
	enum engine_state engine_state;
	u_char engine[ENGINE_MAX];
	size_t engine_len;
	/* The thread's own. */
	void *sess;
	uint32_t inflight;
	uint32_t backoff_ms;
	bool told_down;
};

static struct sink *sinks;
static uint32_t nsinks;
static atomic_bool stopping;
static atomic_uint_fast64_t lost;
static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------------
 * Small helpers.
 */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void count_lost(uint64_t n)
{
	atomic_fetch_add(&lost, n);
}

/* "tcp:" or "tcp6:" (any case): a stream, whose connect and sends can block. */
static bool is_stream(const char *address)
{
	return strncasecmp(address, "tcp:", 4) == 0 || strncasecmp(address, "tcp6:", 5) == 0;
}

/* Waits up to @ms for the wake pipe (or the stop flag); drains it. */
static void nap(struct sink *k, uint32_t ms)
{
	struct pollfd p = {.fd = k->wake[0], .events = POLLIN};
	char buf[64];

	if (poll(&p, 1, (int)(ms < TICK_MS ? ms : TICK_MS)) > 0)
		while (read(k->wake[0], buf, sizeof(buf)) > 0) {
		}
}

/* Everything queued is dropped: counted lost. */
static void drop_queue(struct sink *k)
{
	uint32_t n;

	pthread_mutex_lock(&k->mu);
	n = k->count;
	for (uint32_t i = 0; i < n; i++) {
		snmp_free_varbind(k->queue[(k->head + i) % QUEUE_MAX]);
		k->queue[(k->head + i) % QUEUE_MAX] = NULL;
	}
	k->head = k->count = 0;
	pthread_mutex_unlock(&k->mu);
	count_lost(n);
}

static netsnmp_variable_list *pop(struct sink *k)
{
	netsnmp_variable_list *v = NULL;

	pthread_mutex_lock(&k->mu);
	if (k->count) {
		v = k->queue[k->head];
		k->queue[k->head] = NULL;
		k->head = (k->head + 1) % QUEUE_MAX;
		k->count--;
	}
	pthread_mutex_unlock(&k->mu);
	return v;
}

/* ------------------------------------------------------------------------
 * Opening a sink: a bounded TCP connect, the v3 inform's engineID, the session.
 */

/* "tcp:HOST:PORT", "tcp6:[HOST]:PORT" (PORT 162 if absent) resolved. */
static int resolve(const char *address, struct addrinfo **ai)
{
	char host[256], *port;
	const char *p = strchr(address, ':') + 1;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};

	snprintf(host, sizeof(host), "%s", p);
	port = strrchr(host, ':');
	if (port && (host[0] != '[' || port > strchr(host, ']')))
		*port++ = '\0';
	else
		port = "162";
	if (host[0] == '[') {
		memmove(host, host + 1, strlen(host));
		host[strcspn(host, "]")] = '\0';
	}
	return getaddrinfo(host, port, &hints, ai) == 0 ? 0 : -EHOSTUNREACH;
}

/* Whether a non-blocking connect to @ai succeeds within CONNECT_MS (or the stop). */
static int try_connect(const struct addrinfo *ai)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	uint64_t end = now_ms() + CONNECT_MS;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)
		err = -errno;
	while (!err && !stopping) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		uint64_t t = now_ms();

		if (t >= end) {
			err = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)(end - t < TICK_MS ? end - t : TICK_MS)) > 0) {
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
				err = errno;
			err = -err;
			break;
		}
	}
	close(fd);
	return stopping ? -ECANCELED : err;
}

static int check_stream(const struct sink *k)
{
	struct addrinfo *ai;
	int err = resolve(k->address, &ai);

	if (err)
		return err;
	err = try_connect(ai);
	freeaddrinfo(ai);
	return err;
}

/*
 * The receiver's engineID: a probe (an unauthenticated GET its Report
 * answers, RFC 3414 4) on a session of its own, one try of PROBE_MS.
 */
static int probe_engine(struct sink *k)
{
	netsnmp_session s = k->tmpl;
	netsnmp_pdu *pdu, *resp = NULL;
	netsnmp_session *open;
	void *h;
	int err = -EHOSTUNREACH;

	s.securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	s.flags |= SNMP_FLAGS_DONT_PROBE | SNMP_FLAGS_USER_CREATED;
	s.timeout = PROBE_MS * 1000L;
	s.retries = 0;
	pthread_mutex_lock(&lib_mu);
	h = snmp_sess_open(&s);
	pdu = h ? snmp_pdu_create(SNMP_MSG_GET) : NULL;
	if (pdu) {
		pdu->version = SNMP_VERSION_3;
		pdu->securityName = strdup("");
		pdu->securityNameLen = 0;
		pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
		pdu->securityModel = SNMP_SEC_MODEL_USM;
		snmp_sess_synch_response(h, pdu, &resp);
		open = snmp_sess_session(h);
		if (open->securityEngineIDLen >= 5 && open->securityEngineIDLen <= ENGINE_MAX) {
			pthread_mutex_lock(&k->mu);
			memcpy(k->engine, open->securityEngineID, open->securityEngineIDLen);
			k->engine_len = open->securityEngineIDLen;
			k->engine_state = ENGINE_WANTED;
			pthread_mutex_unlock(&k->mu);
			err = 0;
		}
	}
	if (resp)
		snmp_free_pdu(resp);
	if (h)
		snmp_sess_close(h);
	pthread_mutex_unlock(&lib_mu);
	return err;
}

/* Waits until sinks_poll() created the receiver's user (or the stop). */
static int await_user(struct sink *k)
{
	int err = 0;

	pthread_mutex_lock(&k->mu);
	while (k->engine_state == ENGINE_WANTED && !stopping) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TICK_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&k->cv, &k->mu, &ts);
	}
	if (k->engine_state != ENGINE_READY)
		err = -ECANCELED;
	pthread_mutex_unlock(&k->mu);
	return err;
}

static int open_session(struct sink *k)
{
	netsnmp_session s = k->tmpl;
	netsnmp_transport *t;
	struct timeval tv = {.tv_sec = SEND_MS / 1000, .tv_usec = (SEND_MS % 1000) * 1000};

	s.flags |= SNMP_FLAGS_DONT_PROBE | SNMP_FLAGS_USER_CREATED;
	if (k->v3 && k->inform) {
		s.securityEngineID = k->engine; /* copied by snmp_sess_open() */
		s.securityEngineIDLen = k->engine_len;
	}
	pthread_mutex_lock(&lib_mu);
	k->sess = snmp_sess_open(&s);
	t = k->sess ? snmp_sess_transport(k->sess) : NULL;
	if (t && t->sock >= 0) {
		int buf = STREAM_BUF;

		setsockopt(t->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (k->stream)
			setsockopt(t->sock, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	pthread_mutex_unlock(&lib_mu);
	return k->sess ? 0 : -ENOTCONN;
}

static void close_session(struct sink *k)
{
	if (!k->sess)
		return;
	atomic_store(&k->up, false);
	pthread_mutex_lock(&lib_mu);
	snmp_sess_close(k->sess);
	pthread_mutex_unlock(&lib_mu);
	k->sess = NULL;
	count_lost(k->inflight); /* informs never answered */
	k->inflight = 0;
}

static const char *open_step(struct sink *k, int *err)
{
	if (k->stream && (*err = check_stream(k)) < 0)
		return "cannot connect";
	if (k->v3 && k->inform && k->engine_state != ENGINE_READY) {
		if ((*err = probe_engine(k)) < 0)
			return "no answer to the engineID probe";
		if ((*err = await_user(k)) < 0)
			return "stopping";
	}
	if ((*err = open_session(k)) < 0)
		return "Net-SNMP cannot open a session";
	return NULL;
}

/* Opens the sink, or logs why not (once until it opens) and waits, doubling, to try again. */
static void open_sink(struct sink *k)
{
	int err = 0;
	const char *why = open_step(k, &err);

	if (!why) {
		if (k->told_down)
			snmp_log(LOG_NOTICE, "agent.trap_sinks.[%u] %s: sending again\n", k->index,
			         k->address);
		k->told_down = false;
		k->backoff_ms = 0;
		atomic_store(&k->up, true);
		return;
	}
	atomic_store(&k->up, false);
	if (stopping)
		return;
	if (!k->told_down)
		snmp_log(LOG_WARNING,
		         "agent.trap_sinks.[%u] %s: %s (%s): its notifications are counted lost "
		         "until it is reached; trying again in the background\n",
		         k->index, k->address, why, strerror(-err));
	k->told_down = true;
	k->backoff_ms = k->backoff_ms ? k->backoff_ms * 2 : RETRY_MIN_MS;
	if (k->backoff_ms > RETRY_MAX_MS)
		k->backoff_ms = RETRY_MAX_MS;
	for (uint64_t end = now_ms() + k->backoff_ms; !stopping && now_ms() < end;) {
		drop_queue(k);
		nap(k, (uint32_t)(end - now_ms()));
	}
	drop_queue(k);
}

/* ------------------------------------------------------------------------
 * Sending.
 */

/* An inform's answer, its timeout or a security error. */
static int on_inform(int op, netsnmp_session *s, int reqid, netsnmp_pdu *pdu, void *arg)
{
	struct sink *k = arg;

	(void)s;
	(void)reqid;
	(void)pdu;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE)
		count_lost(1);
	if (k->inflight)
		k->inflight--;
	return 1;
}

/* Whether a stream's socket takes a PDU now without blocking. */
static bool writable(struct sink *k)
{
	netsnmp_transport *t = snmp_sess_transport(k->sess);
	struct pollfd p = {.fd = t ? t->sock : -1, .events = POLLOUT};

	if (p.fd < 0)
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) == 0 &&
	       (p.revents & POLLOUT);
}

/* Sends @vars (taken); false when the session is broken. */
static bool send_one(struct sink *k, netsnmp_variable_list *vars)
{
	netsnmp_pdu *pdu;
	bool ok;

	if (k->stream && !writable(k)) {
		snmp_free_varbind(vars);
		count_lost(1); /* the receiver does not read: its queue would block */
		return true;
	}
	pthread_mutex_lock(&lib_mu);
	pdu = snmp_pdu_create(k->inform ? SNMP_MSG_INFORM : SNMP_MSG_TRAP2);
	if (!pdu) {
		pthread_mutex_unlock(&lib_mu);
		snmp_free_varbind(vars);
		count_lost(1);
		return true;
	}
	pdu->variables = vars;
	ok = snmp_sess_async_send(k->sess, pdu, k->inform ? on_inform : NULL, k) != 0;
	pthread_mutex_unlock(&lib_mu);
	if (!ok) {
		snmp_free_pdu(pdu);
		count_lost(1);
		return !k->stream;
	}
	if (k->inform)
		k->inflight++;
	return true;
}

static bool send_queued(struct sink *k)
{
	netsnmp_variable_list *v;

	while ((!k->inform || k->inflight < INFLIGHT_MAX) && !stopping && (v = pop(k)))
		if (!send_one(k, v))
			return false;
	return true;
}

/*
 * Waits for the wake pipe, the session's answers or its next timeout
 * (at most TICK_MS), and lets Net-SNMP handle them.  False when the
 * session is broken (a stream the receiver closed).
 */
static bool serve_io(struct sink *k)
{
	fd_set fds;
	struct timeval tv = {.tv_sec = 0, .tv_usec = TICK_MS * 1000};
	int nfds = 0, block = 0, n;
	char buf[64];
	bool ok = true;

	FD_ZERO(&fds);
	pthread_mutex_lock(&lib_mu);
	snmp_sess_select_info(k->sess, &nfds, &fds, &tv, &block);
	pthread_mutex_unlock(&lib_mu);
	if (block || tv.tv_sec > 0 || tv.tv_usec > TICK_MS * 1000)
		tv = (struct timeval){.tv_sec = 0, .tv_usec = TICK_MS * 1000};
	FD_SET(k->wake[0], &fds);
	if (k->wake[0] >= nfds)
		nfds = k->wake[0] + 1;
	n = select(nfds, &fds, NULL, NULL, &tv);
	if (n > 0 && FD_ISSET(k->wake[0], &fds)) {
		while (read(k->wake[0], buf, sizeof(buf)) > 0) {
		}
		FD_CLR(k->wake[0], &fds);
		n--;
	}
	pthread_mutex_lock(&lib_mu);
	if (n > 0 && snmp_sess_read(k->sess, &fds) < 0 && k->stream)
		ok = false;
	else if (n == 0)
		snmp_sess_timeout(k->sess);
	if (ok && k->stream) {
		netsnmp_transport *t = snmp_sess_transport(k->sess);

		ok = t && t->sock >= 0;
	}
	pthread_mutex_unlock(&lib_mu);
	return ok;
}

static void *sink_main(void *arg)
{
	struct sink *k = arg;

	while (!stopping) {
		if (!k->sess) {
			open_sink(k);
			continue;
		}
		if (!send_queued(k) || !serve_io(k)) {
			snmp_log(LOG_WARNING, "agent.trap_sinks.[%u] %s: connection lost\n",
			         k->index, k->address);
			k->told_down = true;
			close_session(k);
		}
	}
	close_session(k);
	drop_queue(k);
	return NULL;
}

/* ------------------------------------------------------------------------
 * The SNMP thread's side.
 */

static const struct settings_v3_user *user_named(const struct agent_settings *set, const char *name)
{
	for (uint32_t i = 0; i < set->nv3_users; i++)
		if (strcmp(set->v3_users[i].name, name) == 0)
			return &set->v3_users[i];
	return NULL;
}

/* The v3 part of a session: the user's protocols, its passphrases as Ku, authPriv. */
static int v3_template(netsnmp_session *s, const struct settings_v3_user *u)
{
	int auth = usm_lookup_auth_type(u->auth), priv = usm_lookup_priv_type(u->priv);
	size_t alen = 0, plen = 0;
	const oid *aoid = auth < 0 ? NULL : sc_get_auth_oid(auth, &alen);
	const oid *poid = priv < 0 ? NULL : sc_get_priv_oid(priv, &plen);

	if (!aoid || !poid)
		return errmsg_set(EINVAL, "user %s: Net-SNMP lacks %s or %s", u->name, u->auth,
		                  u->priv);
	s->version = SNMP_VERSION_3;
	s->securityModel = SNMP_SEC_MODEL_USM;
	s->securityName = strdup(u->name);
	s->securityNameLen = strlen(u->name);
	s->securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
	s->securityAuthProto = snmp_duplicate_objid(aoid, alen);
	s->securityAuthProtoLen = alen;
	s->securityPrivProto = snmp_duplicate_objid(poid, plen);
	s->securityPrivProtoLen = plen;
	s->securityAuthKeyLen = USM_AUTH_KU_LEN;
	s->securityPrivKeyLen = USM_PRIV_KU_LEN;
	if (!s->securityName || !s->securityAuthProto || !s->securityPrivProto ||
	    generate_Ku(aoid, (u_int)alen, (const u_char *)u->auth_pass, strlen(u->auth_pass),
	                s->securityAuthKey, &s->securityAuthKeyLen) != SNMPERR_SUCCESS ||
	    generate_Ku(aoid, (u_int)alen, (const u_char *)u->priv_pass, strlen(u->priv_pass),
	                s->securityPrivKey, &s->securityPrivKeyLen) != SNMPERR_SUCCESS)
		return errmsg_set(EINVAL, "user %s: cannot derive its keys", u->name);
	return 0;
}

/* A v3 trap's authoritative engine is this agent: its own engineID, its own user. */
static int local_engine(netsnmp_session *s)
{
	size_t len = 0;
	u_char *id = snmpv3_generate_engineID(&len);

	if (!id)
		return errmsg_set(ENOMEM, "out of memory");
	s->securityEngineID = id;
	s->securityEngineIDLen = len;
	return 0;
}

static int init_sink(struct sink *k, uint32_t index, const struct agent_settings *set)
{
	const struct settings_sink *c = &set->sinks[index];
	const struct settings_v3_user *u = c->user ? user_named(set, c->user) : NULL;
	int err = 0;

	k->index = index;
	k->address = strdup(c->address);
	k->inform = c->type ? strcmp(c->type, "inform") == 0 : u != NULL;
	k->v3 = u != NULL;
	k->stream = is_stream(c->address);
	atomic_store(&k->up, true); /* queued while it is first opened */
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	if (!k->address || pipe2(k->wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return errmsg_set(errno ? errno : ENOMEM, "trap sink %u: %s", index,
		                  strerror(errno ? errno : ENOMEM));
	snmp_sess_init(&k->tmpl);
	k->tmpl.peername = k->address;
	k->tmpl.timeout = 1000000L; /* an inform: 1 s, then again, 3 times */
	k->tmpl.retries = 3;
	if (u) {
		err = v3_template(&k->tmpl, u);
		if (!err && !k->inform)
			err = local_engine(&k->tmpl);
	} else {
		k->tmpl.version = SNMP_VERSION_2c;
		k->tmpl.community = (u_char *)strdup(c->community);
		k->tmpl.community_len = strlen(c->community);
	}
	return err;
}

int sinks_start(const struct agent_settings *set)
{
	int err;

	if (!set->nsinks)
		return 0;
	sinks = calloc(set->nsinks, sizeof(*sinks));
	if (!sinks)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t i = 0; i < set->nsinks; i++)
		sinks[i].wake[0] = sinks[i].wake[1] = -1;
	nsinks = set->nsinks;
	for (uint32_t i = 0; i < nsinks; i++) {
		err = init_sink(&sinks[i], i, set);
		if (err)
			return err;
	}
	for (uint32_t i = 0; i < nsinks; i++) {
		err = pthread_create(&sinks[i].thread, NULL, sink_main, &sinks[i]);
		if (err)
			return errmsg_set(err, "trap sink thread: %s", strerror(err));
		sinks[i].started = true;
	}
	return 0;
}

bool sinks_on(void)
{
	return nsinks > 0;
}

/* sysUpTime.0, then a copy of @vars: what send_v2trap() would send. */
static netsnmp_variable_list *notification(const netsnmp_variable_list *vars)
{
	netsnmp_variable_list *v = NULL;
	u_long ticks = netsnmp_get_agent_uptime();

	if (!snmp_varlist_add_variable(&v, sys_uptime_oid, OID_LENGTH(sys_uptime_oid),
	                               ASN_TIMETICKS, &ticks, sizeof(ticks)))
		return NULL;
	v->next_variable = snmp_clone_varbind((netsnmp_variable_list *)vars);
	if (!v->next_variable) {
		snmp_free_varbind(v);
		return NULL;
	}
	return v;
}

static void queue_one(struct sink *k, const netsnmp_variable_list *vars)
{
	netsnmp_variable_list *v;
	bool queued = false;

	if (!atomic_load(&k->up)) {
		count_lost(1);
		return;
	}
	v = notification(vars);
	pthread_mutex_lock(&k->mu);
	if (v && k->count < QUEUE_MAX) {
		k->queue[(k->head + k->count) % QUEUE_MAX] = v;
		k->count++;
		queued = true;
	}
	pthread_mutex_unlock(&k->mu);
	if (!queued) {
		snmp_free_varbind(v);
		count_lost(1);
		return;
	}
	if (write(k->wake[1], "", 1) < 0) {
		/* the pipe is full: the thread is awake already */
	}
}

void sinks_send(const netsnmp_variable_list *vars)
{
	for (uint32_t i = 0; i < nsinks; i++)
		queue_one(&sinks[i], vars);
}

/* The user of @k's receiver's engineID, and a first engine time entry for it. */
static void create_user(struct sink *k)
{
	netsnmp_session s = k->tmpl;
	u_int boots, etime;

	s.securityEngineID = k->engine;
	s.securityEngineIDLen = k->engine_len;
	s.flags &= ~SNMP_FLAGS_USER_CREATED;
	usm_create_user_from_session(&s);
	if (get_enginetime(k->engine, (u_int)k->engine_len, &boots, &etime, FALSE) !=
	    SNMPERR_SUCCESS)
		set_enginetime(k->engine, (u_int)k->engine_len, 0, 0, FALSE);
}

void sinks_poll(void)
{
	for (uint32_t i = 0; i < nsinks; i++) {
		struct sink *k = &sinks[i];
		bool wanted;

		pthread_mutex_lock(&k->mu);
		wanted = k->engine_state == ENGINE_WANTED;
		pthread_mutex_unlock(&k->mu);
		if (!wanted || pthread_mutex_trylock(&lib_mu) != 0)
			continue;
		create_user(k);
		pthread_mutex_unlock(&lib_mu);
		pthread_mutex_lock(&k->mu);
		k->engine_state = ENGINE_READY;
		pthread_cond_signal(&k->cv);
		pthread_mutex_unlock(&k->mu);
	}
}

uint64_t sinks_lost(void)
{
	return atomic_load(&lost);
}

static void free_template(netsnmp_session *s)
{
	free(s->community);
	free(s->securityName);
	free(s->securityAuthProto);
	free(s->securityPrivProto);
	free(s->securityEngineID);
}

void sinks_stop(void)
{
	atomic_store(&stopping, true);
	for (uint32_t i = 0; i < nsinks; i++)
		if (sinks[i].wake[1] >= 0 && write(sinks[i].wake[1], "", 1) < 0) {
			/* full: the thread wakes anyway */
		}
	for (uint32_t i = 0; i < nsinks; i++) {
		struct sink *k = &sinks[i];

		if (k->started)
			pthread_join(k->thread, NULL);
		free_template(&k->tmpl);
		free(k->address);
		if (k->wake[0] >= 0)
			close(k->wake[0]);
		if (k->wake[1] >= 0)
			close(k->wake[1]);
		pthread_mutex_destroy(&k->mu);
		pthread_cond_destroy(&k->cv);
	}
	free(sinks);
	sinks = NULL;
	nsinks = 0;
}
