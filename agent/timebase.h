/*
 * timebase.h - TimeStamps: CLOCK_REALTIME events as the master's sysUpTime.
 *
 * A TimeStamp (RFC 2579) is the value of sysUpTime when something happened,
 * and managers read a changed discontinuity TimeStamp as "this counter had
 * a discontinuity".  The agent knows events as CLOCK_REALTIME nanoseconds
 * and the master's sysUpTime only to the centisecond (AgentX carries it in
 * every response), so each process estimates the offset between the two
 * clocks with its own rounding: two agent processes serving the same master
 * would print the same event one centisecond apart, and an estimate is late
 * by the latency of the master's last message.  The offset is therefore
 * kept process-wide (across SIGHUP reloads) for as long as the AgentX
 * session lasts, judged again with each new session by whether the
 * estimate is the same master's (timebase.c: struct base), and persisted
 * in a state file, when one is configured, for the next agent process to
 * reuse.
 */
#ifndef STATCTR_AGENT_TIMEBASE_H
#define STATCTR_AGENT_TIMEBASE_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/types.h>

#include <stdint.h>

/*
 * timebase_set_state_file() - where the offset is kept across restarts
 * (agent.state_file), or NULL for nowhere.  The string is copied.
 */
void timebase_set_state_file(const char *path);

/*
 * timebase_ticks() - sysUpTime (centiseconds) at CLOCK_REALTIME @ns,
 * clamped to 0..now; 0 for @ns == 0 (unknown, or before the master started).
 */
u_long timebase_ticks(uint64_t ns);

/*
 * timebase_new_session() - the AgentX session with the master opened or
 * ended: the next estimate is judged again (a new master comes only with a
 * new session; within one, the offset is kept however late an estimate).
 */
void timebase_new_session(void);

/*
 * timebase_heard() - a request of the master is being answered: it runs
 * now, with the uptime the agent has (a new master's offset is taken here at
 * the latest).  Cheap: two clock reads and a comparison.
 */
void timebase_heard(void);

/*
 * timebase_flush() - writes a new offset to the state file, if
 * timebase_ticks() adopted one since: from the main loop, between requests.
 */
void timebase_flush(void);

/*
 * timebase_flush_forced() - timebase_flush() from another thread, for the
 * exit watchdog: waits at most 200 ms for the main thread to let go of the
 * state, and writes nothing if it does not.
 */
void timebase_flush_forced(void);

#endif /* STATCTR_AGENT_TIMEBASE_H */
