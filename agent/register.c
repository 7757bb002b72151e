/*
 * register.c - registrations with Net-SNMP's registry and the AgentX master
 * (see register.h).
 *
 * Owns every call to Net-SNMP's register and unregister functions and the
 * registry's callbacks.  Never answers a request: the handler the caller
 * gave registry_init() does.  What Net-SNMP 5.9 and snmpd do that this file
 * works around, each at the code that does it:
 *
 * Ownership.  snmpd 5.9 removes a registration on any session's Unregister
 * PDU naming its OID and priority, without checking that the session made it
 * (RFC 2741 7.2.4.2 says it must answer unknownRegistration).  A subagent
 * that unregisters a region the master refused it therefore removes the
 * region of the agent holding it.  So the agent only ever unregisters, at
 * the master, what it holds: a refused registration is dropped locally
 * only, and at exit the master drops what the agent holds with its session.
 *
 * Refusals.  netsnmp_register_handler(), and Net-SNMP's re-registration
 * after a reconnect, do not report the master's answer: a refusal is only
 * logged ("registering pdu failed: 263!").  So the registry's
 * SNMPD_CALLBACK_REGISTER_OID is hooked on both sides of Net-SNMP's AgentX
 * callback (before: which registration is sent; after: what the master
 * said, from the log line in between), and each registration keeps its
 * answer.  A refusal of a running agent is logged once and its Register PDU
 * re-sent, quietly, after ping_interval, then twice as long each time up to
 * RETRY_MAX (snmpd logs each refusal), until the master grants it.
 *
 * Ranges.  Net-SNMP keeps a range registration as one subtree per value,
 * each carrying the whole range; after a reconnect it re-sends a Register
 * PDU for every subtree not marked attached, and the master would grant the
 * first and refuse every other as a duplicate.  registry_reattach_once()
 * marks all but the first attached.  And netsnmp_unregister_handler() on a
 * range reads its upper bound as a count (unregister_mib_context()), finds
 * no subtree past the range and returns before telling the master, so a
 * range is unregistered with netsnmp_unregister_mib_table_row(), what the
 * master itself runs on such a PDU.
 */
#include "register.h"
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RETRY_MAX 60u /* s */
#define MAX_MUTED 8

static Netsnmp_Node_Handler *serve;           /* the handler of every registration */
static struct registration *head;             /* every registration added, not removed */
static struct registration *sending;          /* whose Register PDU is out */
static long sending_error;                    /* the master's refusal of it, from the log */
static bool dropping;                         /* a refused registration is being dropped locally */
static bool retrying;                         /* registry_retry() is re-sending */
static netsnmp_log_handler *muted[MAX_MUTED]; /* the output handlers a re-send silenced */
static size_t nmuted;
static time_t next_retry;    /* CLOCK_MONOTONIC s */
static unsigned retry_delay; /* s; 0: no refusal pending */
static unsigned ping_s = 15; /* agent.ping_interval */
static char not_ours_context[] = "statctr-agentx: dropped locally";

/*
 * Net-SNMP's only report of a refusal is its log line "registering pdu
 * failed: N!"; tests/integration/netsnmp_text.sh fails when the library the
 * agent links prints another text.  Returns N, or 0: not such a line.
 */
static const char refusal_text[] = "registering pdu failed: ";

static long refusal_in(const char *log_line)
{
	const char *failed = log_line ? strstr(log_line, refusal_text) : NULL;

	return failed ? strtol(failed + strlen(refusal_text), NULL, 10) : 0;
}

/* Ours: the handler chain ends in serve (Net-SNMP puts helpers before it). */
static const netsnmp_mib_handler *our_handler(const netsnmp_mib_handler *hd)
{
	for (; hd; hd = hd->next)
		if (hd->access_method == serve)
			return hd;
	return NULL;
}

/* Each subtree of a range has its own copy of the handler, myvoid included. */
static struct registration *registration_of(const netsnmp_handler_registration *reg)
{
	const netsnmp_mib_handler *hd = our_handler(reg ? reg->handler : NULL);

	return hd ? hd->myvoid : NULL;
}

void *registry_owner(const netsnmp_mib_handler *handler)
{
	const struct registration *r = handler->myvoid;

	return r ? r->owner : NULL;
}

/* ------------------------------------------------------------------------
 * The master's answers.
 */

/*
 * While a re-sent Register PDU is answered, Net-SNMP's refusal line reaches
 * only the log watcher: the agent said it once already.  after_register()
 * turns the output handlers back on.
 */
static void mute_logs(void)
{
	for (netsnmp_log_handler *l = get_logh_head(); l && nmuted < MAX_MUTED; l = l->next) {
		if (!l->enabled || l->type == NETSNMP_LOGHANDLER_CALLBACK)
			continue;
		netsnmp_disable_this_loghandler(l);
		muted[nmuted++] = l;
	}
}

static int before_register(int major, int minor, void *serverarg, void *clientarg)
{
	const struct register_parameters *rp = serverarg;

	(void)major, (void)minor, (void)clientarg;
	sending = registration_of(rp->reginfo);
	sending_error = 0;
	if (retrying)
		mute_logs();
	return SNMP_ERR_NOERROR;
}

/* The AgentX errors (RFC 2741 6.2.16) a Register PDU can get. */
static const char *agentx_error_name(long err)
{
	switch (err) {
	case 262:
		return "unsupportedContext(262)";
	case 263:
		return "duplicateRegistration(263)";
	case 267:
		return "requestDenied(267)";
	default:
		return "an error";
	}
}

static void format_oid(const struct registration *r, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->root_len && used < size; i++)
		used +=
		    (size_t)snprintf(buf + used, size - used, ".%lu", (unsigned long)r->root[i]);
	if (r->range_subid && used < size)
		snprintf(buf + used, size - used, "-%lu", (unsigned long)r->range_ubound);
}

/* After Net-SNMP's AgentX callback: the answer is in; a running agent logs changes once. */
static int after_register(int major, int minor, void *serverarg, void *clientarg)
{
	struct registration *r = sending;
	char name[MAX_OID_LEN * 11 + 16];
	long was;

	(void)major, (void)minor, (void)serverarg, (void)clientarg;
	sending = NULL;
	while (nmuted)
		netsnmp_enable_this_loghandler(muted[--nmuted]);
	if (!r)
		return SNMP_ERR_NOERROR;
	was = r->refused;
	r->refused = sending_error;
	if (!r->established || !r->refused == !was)
		return SNMP_ERR_NOERROR;
	format_oid(r, name, sizeof(name));
	if (r->refused)
		snmp_log(LOG_WARNING,
		         "%s (%s): the AgentX master refused the registration with %s; another "
		         "agent serves it now; trying again in %u s, then less often\n",
		         r->name, name, agentx_error_name(r->refused), ping_s);
	else
		snmp_log(LOG_INFO, "%s (%s): registered again\n", r->name, name);
	return SNMP_ERR_NOERROR;
}

/* A registration the master refused is dropped locally: its Unregister PDU names nothing. */
static int before_unregister(int major, int minor, void *serverarg, void *clientarg)
{
	struct register_parameters *rp = serverarg;

	(void)major, (void)minor, (void)clientarg;
	if (dropping)
		rp->contextName = not_ours_context;
	return SNMP_ERR_NOERROR;
}

static int watch_log(int major, int minor, void *serverarg, void *clientarg)
{
	const struct snmp_log_message *m = serverarg;
	long err;

	(void)major, (void)minor, (void)clientarg;
	if (!sending || !m)
		return SNMP_ERR_NOERROR;
	err = refusal_in(m->msg);
	if (err)
		sending_error = err;
	return SNMP_ERR_NOERROR;
}

void registry_init(Netsnmp_Node_Handler *handler, unsigned int ping_interval)
{
	ping_s = ping_interval;
	if (serve)
		return;
	serve = handler;
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_ERR);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, watch_log, NULL);
	/* Net-SNMP's AgentX callbacks have the default priority: these run before and after. */
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID,
	                          before_register, NULL, NETSNMP_CALLBACK_HIGHEST_PRIORITY);
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID,
	                          after_register, NULL, NETSNMP_CALLBACK_LOWEST_PRIORITY);
	netsnmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_UNREGISTER_OID,
	                          before_unregister, NULL, NETSNMP_CALLBACK_HIGHEST_PRIORITY);
}

/* ------------------------------------------------------------------------
 * Adding and removing.
 */

static void link_in(struct registration *r)
{
	r->next = head;
	head = r;
}

static void unlink_out(struct registration *r)
{
	for (struct registration **p = &head; *p; p = &(*p)->next) {
		if (*p == r) {
			*p = r->next;
			break;
		}
	}
	r->next = NULL;
}

static int refusal_error(const struct registration *r)
{
	char name[MAX_OID_LEN * 11 + 16];

	format_oid(r, name, sizeof(name));
	return errmsg_set(EEXIST,
	                  "%s (%s): the AgentX master refused the registration with %s: "
	                  "another subagent serves this OID, or an snmpd module does (snmpd's "
	                  "log names it: \"duplicate registration\"). One statctr-agentx "
	                  "serves every application of a host: instead of a second agent, "
	                  "put this configuration's segments in a fragment of the running "
	                  "agent's agent.conf_dir (e.g. /etc/statctr/conf.d/APP.conf) and "
	                  "send that agent SIGHUP (docs/agent.md, \"Several applications\")",
	                  r->name, name, agentx_error_name(r->refused));
}

static int register_locally(struct registration *r)
{
	netsnmp_handler_registration *reg = netsnmp_create_handler_registration(
	    r->name, serve, r->root, r->root_len,
	    r->writable ? HANDLER_CAN_RWRITE : HANDLER_CAN_RONLY);

	if (!reg)
		return errmsg_set(ENOMEM, "%s: out of memory", r->name);
	reg->range_subid = r->range_subid;
	reg->range_ubound = r->range_ubound;
	/* Net-SNMP copies the handler, not my_reg_void, into each subtree of a range. */
	reg->handler->myvoid = r;
	r->refused = 0;
	r->established = false;
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK)
		return errmsg_set(EEXIST, "%s: cannot register (already registered?)", r->name);
	r->reg = reg;
	return 0;
}

int registry_add(struct registration *r, bool strict)
{
	int err = register_locally(r);

	if (err)
		return err;
	link_in(r);
	if (r->refused) {
		err = refusal_error(r);
		if (strict) {
			registry_remove(r);
			return err;
		}
		snmp_log(LOG_WARNING, "%s; trying again in %u s, then less often\n", errmsg_get(),
		         ping_s);
	}
	r->established = true;
	return 0;
}

bool registry_same(const struct registration *a, const struct registration *b)
{
	return a->root_len == b->root_len && a->range_subid == b->range_subid &&
	       a->range_ubound == b->range_ubound && a->writable == b->writable &&
	       snmp_oid_compare(a->root, a->root_len, b->root, b->root_len) == 0;
}

/* Every local subtree of @r (one, or one per value of a range), marked or changed by @fn. */
static void for_each_subtree(const struct registration *r,
                             void (*fn)(netsnmp_subtree *s, const struct registration *r,
                                        oid value))
{
	oid name[MAX_OID_LEN];
	oid first = r->range_subid ? r->root[r->range_subid - 1] : 0;
	oid last = r->range_subid ? r->range_ubound : 0;

	memcpy(name, r->root, r->root_len * sizeof(oid));
	for (oid v = first; v <= last; v++) {
		if (r->range_subid)
			name[r->range_subid - 1] = v;
		for (netsnmp_subtree *s = netsnmp_subtree_find(name, r->root_len, NULL, ""); s;
		     s = s->children)
			if (s->reginfo && registration_of(s->reginfo) == r)
				fn(s, r, v);
	}
}

static struct registration *moving_to;

static void repoint(netsnmp_subtree *s, const struct registration *r, oid value)
{
	netsnmp_mib_handler *hd = (netsnmp_mib_handler *)our_handler(s->reginfo->handler);

	(void)r, (void)value;
	hd->myvoid = moving_to;
}

void registry_move(struct registration *from, struct registration *to)
{
	moving_to = to;
	for_each_subtree(from, repoint);
	moving_to = NULL;
	to->reg = from->reg;
	to->refused = from->refused;
	to->established = true;
	unlink_out(from);
	from->reg = NULL;
	link_in(to);
}

static void unregister_range(const struct registration *r)
{
	const netsnmp_handler_registration *reg = r->reg;
	oid name[MAX_OID_LEN];
	char context[64] = "";

	memcpy(name, reg->rootoid, reg->rootoid_len * sizeof(oid));
	if (reg->contextName)
		snprintf(context, sizeof(context), "%s", reg->contextName);
	netsnmp_unregister_mib_table_row(name, reg->rootoid_len, reg->priority, reg->range_subid,
	                                 reg->range_ubound, context);
}

void registry_remove(struct registration *r)
{
	if (!r->reg)
		return;
	dropping = r->refused != 0;
	if (r->range_subid)
		unregister_range(r); /* frees the registration */
	else
		netsnmp_unregister_handler(r->reg);
	dropping = false;
	r->reg = NULL;
	unlink_out(r);
}

void registry_forget_all(void)
{
	while (head) {
		struct registration *r = head;

		head = r->next;
		r->reg = NULL;
		r->next = NULL;
	}
}

/* ------------------------------------------------------------------------
 * Keeping them.
 */

bool registry_held(void)
{
	for (const struct registration *r = head; r; r = r->next)
		if (r->refused)
			return false;
	return true;
}

static void send_register(struct registration *r)
{
	netsnmp_handler_registration *reg = r->reg;
	struct register_parameters rp = {
	    .name = reg->rootoid,
	    .namelen = reg->rootoid_len,
	    .priority = reg->priority,
	    .range_subid = reg->range_subid,
	    .range_ubound = reg->range_ubound,
	    .timeout = reg->timeout,
	    .contextName = reg->contextName,
	    .reginfo = reg,
	};

	/* What Net-SNMP's registry does for a new registration: the AgentX callback sends it. */
	snmp_call_callbacks(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_REGISTER_OID, &rp);
}

void registry_retry(void)
{
	unsigned int ping_interval = ping_s;

	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (registry_held()) {
		retry_delay = 0; /* the next refusal starts from ping_interval again */
		return;
	}
	if (!retry_delay) {
		retry_delay = ping_interval;
		next_retry = now.tv_sec + retry_delay;
	}
	if (now.tv_sec < next_retry)
		return;
	retry_delay = retry_delay * 2 > RETRY_MAX ? RETRY_MAX : retry_delay * 2;
	if (retry_delay < ping_interval)
		retry_delay = ping_interval;
	next_retry = now.tv_sec + retry_delay;
	retrying = true;
	for (struct registration *r = head; r; r = r->next)
		if (r->refused)
			send_register(r);
	retrying = false;
}

static void mark_attached(netsnmp_subtree *s, const struct registration *r, oid value)
{
	if (value != r->root[r->range_subid - 1])
		s->flags |= SUBTREE_ATTACHED;
}

void registry_reattach_once(void)
{
	for (struct registration *r = head; r; r = r->next)
		if (r->reg && r->range_subid)
			for_each_subtree(r, mark_attached);
}
