/*
 * settings.h - the agent's configuration: the library's declaration of
 * segments, tables and columns plus the agent's own "agent" group.
 */
#ifndef STATCTR_AGENT_SETTINGS_H
#define STATCTR_AGENT_SETTINGS_H

#include "statctr.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Room left after the root for statctrData.<seg>.<table>.1.<column>.<row>. */
#define SETTINGS_MAX_ROOT_LEN 100

struct agent_settings {
	char *file;                           /* the configuration file */
	struct statctr_config *cfg;           /* segments, tables, columns, OIDs */
	uint32_t interval_ms;                 /* aggregation period */
	char *master;                         /* AgentX address of the master */
	int ping_interval;                    /* seconds between AgentX pings / reconnects */
	bool allow_reset;                     /* SETs of the reset columns accepted */
	uint32_t root[SETTINGS_MAX_ROOT_LEN]; /* statctrMIB */
	uint32_t root_len;
	char *community;       /* embedded master: read-only community */
	char *write_community; /* embedded master: read-write community, or NULL */
	uid_t segment_owner;   /* required owner of segment files, (uid_t)-1: any */
	char *state_file;      /* keeps the TimeStamp base across restarts, or NULL */
};

/* Defaults, also documented in docs/agent.md and statctr-agentx(8). */
#define SETTINGS_DEFAULT_INTERVAL_MS 1000
#define SETTINGS_DEFAULT_MASTER      "/var/agentx/master"
#define SETTINGS_DEFAULT_PING        1
#define SETTINGS_DEFAULT_ROOT        "1.3.6.1.4.1.8072.9999.9999.4242"
#define SETTINGS_DEFAULT_COMMUNITY   "public"

/*
 * settings_load() - read @path: the library's declaration and the "agent"
 * group.  Rejects unknown agent settings, wrong types and out-of-range
 * values with file:line in agent_errmsg().  Returns 0 or a negative errno.
 */
int settings_load(const char *path, struct agent_settings **setp);
void settings_free(struct agent_settings *set);

/* Parses a dotted OID ("1.3.6.1" or ".1.3.6.1"); 0 or -EINVAL. */
int settings_parse_oid(const char *text, uint32_t *sub, uint32_t max, uint32_t *len);

#endif /* STATCTR_AGENT_SETTINGS_H */
