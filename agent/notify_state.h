/*
 * notify_state.h - what the agent keeps of its SNMP notifications (sent by
 * traps.c; notify.c's start-up reports are another matter): which rows have
 * ifLinkUpDownTrapEnable disabled(2), and the notification counters, each
 * with its state file (docs/agent.md, "Notifications", "Notification
 * counters").
 *
 * A leaf below the sender: the backends read and set it (backend_ifmib.c serves
 * ifLinkUpDownTrapEnable, backend_statctr.c the counters) without including
 * traps.h.  Their calls keep the traps_ names they were written with.
 * Process-wide, like the ifIndex store: a SIGHUP keeps both.  SNMP (main)
 * thread only.
 */
#ifndef STATCTR_AGENT_NOTIFY_STATE_H
#define STATCTR_AGENT_NOTIFY_STATE_H

#include <stdbool.h>
#include <stdint.h>

struct traps_counts {
	uint64_t sent;       /* notifications handed to the master */
	uint64_t suppressed; /* oper-state changes a hold-down kept from being sent */
	uint64_t lost;       /* due while detached from the master: dropped, never queued */
};

/*
 * notify_state_open() - ifLinkUpDownTrapEnable as kept in
 * STATE_FILE.linktraps (NULL: not kept; every row enabled(1), RFC 2863's
 * DEFVAL for an interface on top of no other), the counters written to
 * STATE_FILE.notifications.  Closes what was open first.  0 or a negative
 * errno (errmsg_get(); an unreadable file is logged and ignored).
 */
int notify_state_open(const char *state_file);

/* Whether notify_state_open(@state_file) is what is open. */
bool notify_state_opened(const char *state_file);

/* At exit, or before opening another file: frees the store; the counters stay. */
void notify_state_close(void);

/* Whether row @ifindex sends linkUp/linkDown: ifLinkUpDownTrapEnable is enabled(1). */
bool traps_link_enabled(uint32_t ifindex);

/*
 * traps_link_enable() - sets ifLinkUpDownTrapEnable of @ifindex and
 * writes the state file (safefile_write()).  0, or a negative errno
 * (errmsg_get()): the value is unchanged.
 */
int traps_link_enable(uint32_t ifindex, bool on);

/* Counts one notification handed on, one lost, @n changes suppressed. */
void notify_state_sent(void);
void notify_state_lost(void);
void notify_state_suppressed(uint64_t n);

/* The counters, with what -M's sinks lost (sinks_lost()). */
void traps_get_counts(struct traps_counts *c);

/*
 * notify_state_write() - STATE_FILE.notifications, if the counters changed
 * since it was last written (safefile_write(); a failure is logged once).
 */
void notify_state_write(void);

#endif /* STATCTR_AGENT_NOTIFY_STATE_H */
