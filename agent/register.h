/*
 * register.h - the agent's registrations with Net-SNMP's registry and, through
 * it, with the AgentX master: the one file that calls Net-SNMP's register
 * and unregister functions, and that holds every workaround for how Net-SNMP
 * 5.9 and snmpd behave there (register.c says each, with the reason).
 *
 * A registration is a subtree (a root OID), or a range of subtrees (the
 * sub-identifier range_subid of the root running up to range_ubound: IF-MIB
 * columns over one table's ifIndex range).  Every registration is handled
 * alike: refused at start, the caller fails naming it; refused or lost
 * later (another agent took it while the master restarted), it is logged
 * once and re-sent with backoff until the master grants it; only what the
 * master granted is ever unregistered there.
 *
 * The registry is process-wide, as Net-SNMP's is.  SNMP thread only.
 */
#ifndef STATCTR_AGENT_REGISTER_H
#define STATCTR_AGENT_REGISTER_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/agent_callbacks.h>

#include <stdbool.h>
#include <stddef.h>

struct registration {
	/* Set by the caller before registry_add(). */
	char name[64]; /* the registration's name, and the one messages give */
	oid root[MAX_OID_LEN];
	size_t root_len;
	int range_subid;  /* 0: a plain subtree; else root[range_subid - 1] runs ... */
	oid range_ubound; /* ... up to this value */
	bool writable;    /* HANDLER_CAN_RWRITE, else read-only */
	void *owner;      /* the caller's: handed back by registry_owner() */
	/* The registry's own. */
	netsnmp_handler_registration *reg;
	long refused; /* the master's error for its last Register PDU; 0: granted */
	bool established;
	struct registration *next;
};

/*
 * registry_init() - every registration is served by @handler, and a refusal
 * re-sent after @ping_interval s (agent.ping_interval; a reload may change
 * it); installs the watchers of the master's answers (once).
 */
void registry_init(Netsnmp_Node_Handler *handler, unsigned int ping_interval);

/*
 * registry_add() - registers @r (linked into the registry; @r must stay
 * where it is until removed).  Refused by the master: -EEXIST naming @r and
 * its OID when @strict (nothing stays registered), else kept, logged and
 * re-sent by registry_retry().  0 or a negative errno (errmsg_get()).
 */
int registry_add(struct registration *r, bool strict);

/* The owner of the registration whose handler @handler is (the handler's argument). */
void *registry_owner(const netsnmp_mib_handler *handler);

/*
 * registry_move() - @to takes over @from's registration, granted or not,
 * without a PDU to the master: the same subtree keeps being served across a
 * reload.  Both must have the same root, range and access.
 */
void registry_move(struct registration *from, struct registration *to);

/* Whether @a and @b name the same registration (registry_move() may be used). */
bool registry_same(const struct registration *a, const struct registration *b);

/*
 * registry_remove() - unregisters @r (the master is told only if it granted
 * it) and unlinks it.  Nothing for one never added or already removed.
 */
void registry_remove(struct registration *r);

/*
 * registry_forget_all() - unlinks every registration without unregistering:
 * after shutdown_agent() freed Net-SNMP's registry.
 */
void registry_forget_all(void);

/* Whether the master granted every registration (true when there is none). */
bool registry_held(void);

/*
 * registry_retry() - re-sends the Register PDUs the master refused, first
 * after ping_interval s, then twice as long each time up to a minute;
 * call about once a second while connected.
 */
void registry_retry(void);

/*
 * registry_reattach_once() - call when the AgentX session (re)opens, before
 * Net-SNMP re-sends the registrations: a range is re-sent as one Register
 * PDU, as at its first registration.
 */
void registry_reattach_once(void);

#endif /* STATCTR_AGENT_REGISTER_H */
