/*
 * settings.h - a configuration file as statctr-agentx and statctl both
 * read it: the library's declaration of segments, tables and columns, and
 * the top-level "agent" group (how the declaration is served over SNMP)
 * and "exporter" group (how statctr-exporter serves it over HTTP).
 *
 * The file is read once, by statctr_config_load(); the agent and exporter
 * groups are the ones its parse hands over (statctr_config_group()).  settings_load() is
 * what the agent does at start and on SIGHUP, and what both check-config
 * commands run (settings_check()), so that their verdicts cannot differ.
 * Errors are the library's: statctr_errmsg(), "FILE:LINE: agent.KEY: ...".
 */
#ifndef STATCTR_MIB_SETTINGS_H
#define STATCTR_MIB_SETTINGS_H

#include "oids.h"
#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* One SNMPv3 user of the embedded master (agent.v3_users): Net-SNMP's words. */
struct settings_v3_user {
	char *name;
	char *auth; /* "SHA", "SHA-224" .. "SHA-512" */
	char *auth_pass;
	char *priv; /* "AES", "AES-192", "AES-256" */
	char *priv_pass;
	char *access; /* "read" or "reset" */
};

/*
 * One notification target of the embedded master (agent.trap_sinks): a v2c
 * community or one of v3_users, and "trap" or "inform".
 */
struct settings_sink {
	char *address;   /* Net-SNMP's transport address, e.g. "udp:192.0.2.1:162" */
	char *community; /* SNMPv2c, or NULL */
	char *user;      /* the name of one of v3_users, or NULL */
	char *type;      /* "trap" or "inform"; default: trap for v2c, inform for v3 */
};

struct ifmib_config;

/*
 * The top-level "exporter" group: how statctr-exporter serves the
 * declaration over HTTP (docs/config.md, "Exporter group").
 */
struct exporter_settings {
	char *listen_address; /* HOST:PORT, ":PORT" for every address */
	char **segments;      /* the names served, declared ones; NULL: all */
	uint32_t nsegments;
	char *web_config_file;      /* exporter-toolkit's TLS and basic auth, or NULL */
	uint32_t max_scrapes;       /* scrapes at once; more get 503 */
	uint32_t max_connections;   /* open connections at once */
	uint32_t threads;           /* libmicrohttpd's thread pool */
	uint32_t timeout_s;         /* a connection idle this long is closed */
	uint32_t max_request_bytes; /* a request's line and headers, at most */
};

struct agent_settings {
	struct statctr_config *cfg; /* segments, tables, columns, their OIDs */
	struct ifmib_config *ifmib; /* the tables also served as interfaces (ifmib.h) */
	uint32_t interval_ms;       /* aggregation period */
	uint32_t max_age_ms;        /* a request's result at most this old (agg_fresh()); 0: off */
	char *master;               /* AgentX address of the master */
	uint32_t ping_interval;     /* seconds between AgentX pings / reconnects */
	bool allow_reset;           /* SETs of the reset columns accepted */
	bool slot_table;            /* statctrSlotTable served: full snapshots */
	char *root_oid;             /* statctrMIB, dotted, as canonical text */
	uint32_t root[MIB_ROOT_MAX_ARCS];
	uint32_t root_len;
	/* The embedded master (-M) alone reads these. */
	char *community;       /* read-only community, or NULL: none */
	char *write_community; /* read and reset community, or NULL */
	struct settings_v3_user *v3_users;
	uint32_t nv3_users;
	struct settings_sink *sinks; /* where the notifications go */
	uint32_t nsinks;
	char *engine_id;         /* snmpEngineID's text, or NULL: derived from the host */
	char *engine_boots_file; /* keeps snmpEngineBoots across restarts, or NULL */
	char *sys_contact;       /* the system group's, or NULL: Net-SNMP's default */
	char *sys_name;
	char *sys_location;
	char *module;        /* mib_module: the generated MIB's name, or NULL */
	uid_t segment_owner; /* required owner of segment files, (uid_t)-1: any */
	char *state_file;    /* keeps the TimeStamp base across restarts, or NULL */
	bool *carry_over;    /* per segment: counts carried over writer restarts (default on) */
	char *conf_dir; /* fragments declaring more segments (lib/config.c merges them), or NULL */

	uint32_t link_holddown_ms;  /* least time between two linkUp/linkDown of a row */
	bool notify_segment_state;  /* statctrSegmentStateChange sent */
	bool notify_writer_restart; /* statctrWriterRestart sent */
	bool notify_reset;          /* statctrResetDone sent */

	struct exporter_settings exporter; /* statctr-exporter's group */
};

/* statctr-exporter's default listen address, also in its usage text. */
#define SETTINGS_DEFAULT_LISTEN ":9469"

/* The agent's default AgentX address, also in its usage text. */
#define SETTINGS_DEFAULT_MASTER "/var/agentx/master"

/*
 * settings_load() - read @path (statctr_config_load()) and its agent group:
 * unknown keys, wrong types, out-of-range values and broken rules are
 * refused with file:line in statctr_errmsg(), and so are names that would
 * not be unique where they land: two SMI descriptors of the generated
 * module (mib_names_check()) or two Prometheus metric names
 * (prom_names_check()).  Thread-safe.  Returns 0 or
 * a negative errno; *setp is NULL on error.
 */
int settings_load(const char *path, struct agent_settings **setp);
void settings_free(struct agent_settings *set);

/*
 * settings_check() - check-config, for statctr-agentx --check-config and
 * statctl check-config alike: settings_load(@path), then one line, to @out
 * ("PATH: valid: N segments, N tables, N cells") or to @err (the error);
 * when valid, a "FILE:LINE: ...: warning: ..." line to @err per column
 * whose Prometheus name promtool's lint reports (prom_name_abbreviated_unit()).
 * Returns 0 when valid, 1 when not: the exit status.
 */
int settings_check(const char *path, FILE *out, FILE *err);

/*
 * The libconfig setting of a declared object, for statctr_config_error()'s
 * file:line: segment @s, its table @t, that table's column @c (@t and @c
 * SETTINGS_NONE for the segment itself, @c for the table).  NULL (the file)
 * when @s is SETTINGS_NONE.  Read-only.
 */
#define SETTINGS_NONE UINT32_MAX
const void *settings_decl_setting(const struct statctr_config *cfg, uint32_t s, uint32_t t,
                                  uint32_t c);

/*
 * The keys of the agent group, and of each group of its v3_users and
 * trap_sinks lists, as docs/config.md lists them.
 */
enum settings_type {
	SETTINGS_INTEGER,
	SETTINGS_BOOLEAN,
	SETTINGS_STRING,
	SETTINGS_OWNER,
	SETTINGS_USERS, /* a list of groups of settings_user_keys[] */
	SETTINGS_SINKS, /* a list of groups of settings_sink_keys[] */
	SETTINGS_NAMES, /* a list of declared segments' names */
};

struct settings_key {
	const char *key;
	enum settings_type type;
	long long min, max;             /* integers (and uids): the bounds */
	bool required;                  /* no default: the key must be there */
	const char *dflt;               /* the default (a string's without quotes); NULL: none */
	bool (*valid)(const char *str); /* strings: the rule */
	const char *rule;               /* strings: what valid() demands */
	size_t offset; /* of the value in agent_settings, settings_v3_user or settings_sink */
};

extern const struct settings_key settings_keys[];
extern const size_t settings_nkeys;
extern const struct settings_key settings_user_keys[];
extern const size_t settings_nuser_keys;
extern const struct settings_key settings_sink_keys[];
extern const size_t settings_nsink_keys;
/* The exporter group's keys, as docs/config.md's "Exporter group" lists them. */
extern const struct settings_key settings_exporter_keys[];
extern const size_t settings_nexporter_keys;

/* At most this many SNMPv3 users. */
#define SETTINGS_MAX_V3_USERS 32
/* At most this many trap sinks. */
#define SETTINGS_MAX_SINKS 16
/* snmpEngineID: 5 bytes of format (RFC 3411, format 4: text), then 1..27 of text. */
#define SETTINGS_MAX_ENGINE_ID 27

/* How docs/config.md names @type ("integer", ...). */
const char *settings_type_name(enum settings_type type);

#endif /* STATCTR_MIB_SETTINGS_H */
