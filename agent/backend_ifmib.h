/*
 * backend_ifmib.h - a table with an `ifmib` group served as interfaces:
 * the ifTable and ifXTable columns mib/ifmib.h lists, for the table's
 * ifIndex range only (docs/agent.md, "Show up in your NMS as interfaces").
 *
 * A backend of the engine (engine.h): range regions per served column
 * and table (the ifIndex sub-identifier), over the part of the table's
 * ifIndex range its names reach, in chunks that double, so that snmpd
 * keeps serving its own interfaces below and around them and a walk sees
 * both as one table.  Answers from the same published
 * aggregation as every region of the request; GET and GETNEXT bisect a
 * per-result array of the present rows sorted by ifIndex.  SNMP thread
 * only.
 */
#ifndef STATCTR_AGENT_BACKEND_IFMIB_H
#define STATCTR_AGENT_BACKEND_IFMIB_H

#include "aggregate.h"
#include "engine.h"
#include "settings.h"

struct ifmib_serve;

/*
 * ifmib_serve_create() - the IF-MIB tables of @set (none: an empty
 * object), answering from @agg; the ifIndex store follows
 * agent.state_file (ifindex.h).  @set and @agg must outlive it.  Returns 0
 * or a negative errno (cause in errmsg_get()).
 */
int ifmib_serve_create(const struct agent_settings *set, struct aggregator *agg,
                       struct ifmib_serve **ifmp);

/*
 * ifmib_serve_add() - adds to @e the regions of every column of every
 * IF-MIB table, over the part of its ifIndex range its names reach
 * (ifindex.h), at least the first 16 values; 0 or -ENOMEM (errmsg_get()).
 */
int ifmib_serve_add(struct ifmib_serve *ifm, struct engine *e);

/*
 * ifmib_serve_grow() - brings every table up to @res and, where a new name
 * took an ifIndex past the registered part of the range, registers the
 * next chunks (engine_register_more()); a failure is logged once and tried
 * again at the next call.  With each published result, once @e serves.
 * SNMP thread.
 */
void ifmib_serve_grow(struct ifmib_serve *ifm, struct engine *e, const struct agg_result *res);

/*
 * An interface whose ifOperStatus is not what was last told (or that
 * changed and changed back), for ifmib_serve_changes().  States are
 * ifOperStatus values; 0: the row was (is) not present.
 */
struct ifmib_change {
	uint32_t ifindex;
	uint8_t told;     /* the state last told (0: never, or the row was absent) */
	uint8_t now;      /* the state now (0: the row is absent) */
	uint8_t admin;    /* ifAdminStatus now */
	uint32_t flips;   /* changes of ifOperStatus since told, while present */
	uint64_t told_ns; /* CLOCK_REALTIME of the last tell; 0: never */
};

/* What the teller did with a change at @now_ns (the result's time). */
enum ifmib_told {
	IFMIB_HOLD,  /* not told yet: handed again after the next result */
	IFMIB_QUIET, /* nothing to tell: the next change is measured from c->now */
	IFMIB_SENT,  /* told at @now_ns (told_ns): the same, and a hold-down starts */
};
typedef enum ifmib_told ifmib_tell_fn(void *arg, const struct ifmib_change *c, uint64_t now_ns);

/*
 * ifmib_serve_changes() - brings every table up to @res (as a request
 * would) and hands each interface whose state differs from what was last
 * told to @tell.  O(ifIndex range) per table.  SNMP thread.
 */
void ifmib_serve_changes(struct ifmib_serve *ifm, const struct agg_result *res, ifmib_tell_fn *tell,
                         void *arg);

/*
 * ifmib_serve_adopt() - at a reload, @new takes over what @old knows of
 * each interface both serve (a table of the same segment and name, over
 * the same ifIndex range): its last ifOperStatus and since when
 * (ifLastChange), and what was last told.  A change seen first by @new is
 * then a change (notified), not a row appearing, and ifLastChange keeps
 * its value across the reload.  Before @new serves; SNMP thread.
 */
void ifmib_serve_adopt(struct ifmib_serve *new, const struct ifmib_serve *old);

/* Frees (NULL: nothing); the engine's regions must be gone first. */
void ifmib_serve_free(struct ifmib_serve *ifm);

/*
 * Starts the ifIndex store's file writer, now and for every store a reload
 * opens later: once the process keeps its threads (after a daemon's fork).
 * Returns 0 or -errno, the message set (errmsg_get()).
 */
int ifmib_store_start(void);

/* At exit: writes the ifIndex names not in the file yet, and frees the store. */
void ifmib_store_close(void);

#endif /* STATCTR_AGENT_BACKEND_IFMIB_H */
