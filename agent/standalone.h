/*
 * standalone.h - the embedded master (-M) as a complete small agent: the
 * system group's texts, a stable snmpEngineID, snmpEngineBoots that grows
 * with every start, and who may read and who may reset (communities,
 * SNMPv3 users, VACM views), all from the agent group of the configuration.
 *
 * Net-SNMP reads all of that as snmpd.conf lines, once, in init_snmp():
 * standalone_configure() queues them before, standalone_started() records
 * the new snmpEngineBoots after.  Only the SNMP (main) thread calls these.
 */
#ifndef STATCTR_AGENT_STANDALONE_H
#define STATCTR_AGENT_STANDALONE_H

#include "settings.h"

#include <stdbool.h>

/*
 * standalone_configure() - before init_snmp(): queue the snmpd.conf lines
 * of @set for the agent serving SNMP on @address (-M), with the engine
 * boots read from agent.engine_boots_file.  Logs a warning when the
 * configuration holds a community and every user may read it.  Returns 0
 * or a negative errno (an unreadable or corrupt boots file: the start must
 * not go on with boots that do not grow), cause in errmsg_get().
 */
int standalone_configure(const struct agent_settings *set, const char *address);

/*
 * standalone_started() - after init_snmp(): write the snmpEngineBoots of
 * this start to agent.engine_boots_file, if any.  Returns 0 or a negative
 * errno (the file could not be written: the next start would repeat these
 * boots), cause in errmsg_get().
 */
int standalone_started(const struct agent_settings *set);

/*
 * standalone_same() - whether @a and @b configure the embedded master
 * alike (Net-SNMP reads its lines once: a SIGHUP cannot change them).
 */
bool standalone_same(const struct agent_settings *a, const struct agent_settings *b,
                     const char *address);

#endif /* STATCTR_AGENT_STANDALONE_H */
