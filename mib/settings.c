/*
 * settings.c - the "agent" and "exporter" groups of a configuration: one
 * table of keys each (type, bounds, default, rule), read from the tree the
 * library parsed.
 *
 * Owns every rule of the group (docs/config.md, "Agent group"), the root
 * OID's and the SNMPv3 users' among them, for the agent and statctl alike.
 * Never reads the file itself (statctr_config_load() did, with its checks;
 * it only stat()s it, for the passphrases rule), never talks SNMP.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "settings.h"
#include "ifmib.h"
#include "names.h"
#include "objects.h"
#include "promnames.h"

#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Net-SNMP keeps communities in 256-byte buffers, terminator included. */
#define MAX_TOKEN      255
#define MAX_TEXT       1023
#define MAX_ADMIN_TEXT 255 /* SnmpAdminString (SIZE (0..255)): sysContact, ... */
#define MAX_USER_NAME  32  /* usmUserName, SnmpAdminString (SIZE (1..32)) */
#define MIN_PASSPHRASE 8   /* USM: shorter passphrases are refused (RFC 3414, A.2) */
#define MAX_MODULE     64
#define MAX_ROOT_TEXT  (MIB_ROOT_MAX_ARCS * sizeof("4294967295"))
#define STR(x)         STR_(x)
#define STR_(x)        #x

#define PRINTABLE   " printable ASCII characters"
#define TOKEN_CHARS PRINTABLE " without spaces, quotes or backslashes, the first neither # nor -"
#define TEXT_RULE   "must be 1.." STR(MAX_TEXT) PRINTABLE
#define ADMIN_RULE                                                                                 \
	"must be 1.." STR(MAX_ADMIN_TEXT) PRINTABLE ", the first neither a space nor #, the last " \
	                                            "not a space"
#define TOKEN_RULE  "must be 1.." STR(MAX_TOKEN) TOKEN_CHARS
#define USER_RULE   "must be 1.." STR(MAX_USER_NAME) TOKEN_CHARS
#define PASS_RULE   "must be " STR(MIN_PASSPHRASE) ".." STR(MAX_TOKEN) TOKEN_CHARS
#define ENGINE_RULE "must be 1.." STR(SETTINGS_MAX_ENGINE_ID) TOKEN_CHARS
#define AUTH_RULE   "must be one of SHA, SHA-224, SHA-256, SHA-384, SHA-512"
#define PRIV_RULE   "must be one of AES, AES-192, AES-256"
#define ACCESS_RULE "must be \"read\" or \"reset\""
#define TYPE_RULE   "must be \"trap\" or \"inform\""
#define MODULE_RULE                                                                                \
	"must be an SMIv2 module name: an uppercase letter, then letters, digits and single "      \
	"hyphens, at most " STR(MAX_MODULE) " characters"
#define ROOT_RULE                                                                                  \
	"must be a dotted OID below 1.3.6.1 of at most " STR(                                      \
	    MIB_ROOT_MAX_ARCS) " numbers, each below 2^32 (e.g. \"1.3.6.1.4.1.99999.1\")"

static const char *const auth_protocols[] = {"SHA",     "SHA-224", "SHA-256",
                                             "SHA-384", "SHA-512", NULL};
static const char *const priv_protocols[] = {"AES", "AES-192", "AES-256", NULL};
static const char *const accesses[] = {"read", "reset", NULL};
static const char *const sink_types[] = {"trap", "inform", NULL};

static bool is_printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* @min..@max printable ASCII characters: what a log line, a path or sysContact may hold. */
static bool text_within(const char *s, size_t min, size_t max)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (!is_printable((unsigned char)s[i]))
			return false;
	return len >= min && len <= max;
}

static bool valid_text(const char *s)
{
	return text_within(s, 1, MAX_TEXT);
}

/* Net-SNMP drops the spaces around a value, and a value that starts with '#'. */
static bool valid_admin_text(const char *s)
{
	return text_within(s, 1, MAX_ADMIN_TEXT) && s[0] != ' ' && s[0] != '#' &&
	       s[strlen(s) - 1] != ' ';
}

/*
 * One token of an snmpd.conf line: @min..@max printable ASCII characters,
 * none of them a space (tokens are whitespace-separated: "pub lic" would
 * become the community "pub") or a quote or a backslash (which Net-SNMP's
 * tokenizer interprets), the first not '#' (Net-SNMP drops such a token:
 * community = "#pub" was accepted and served nobody) and not '-'
 * (createUser reads a first token "-e" as its engineID option, so a user
 * named "-e" silently did not exist; the rule holds for every token,
 * whatever the line, so that no word of ours is ever an option there).
 */
static bool token_within(const char *s, size_t min, size_t max)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (!is_printable((unsigned char)s[i]) || strchr(" \"'\\", s[i]))
			return false;
	return len >= min && len <= max && s[0] != '#' && s[0] != '-';
}

static bool valid_token(const char *s)
{
	return token_within(s, 1, MAX_TOKEN);
}

static bool valid_user_name(const char *s)
{
	return token_within(s, 1, MAX_USER_NAME);
}

static bool valid_passphrase(const char *s)
{
	return token_within(s, MIN_PASSPHRASE, MAX_TOKEN);
}

static bool valid_engine_id(const char *s)
{
	return token_within(s, 1, SETTINGS_MAX_ENGINE_ID);
}

static bool one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

static bool valid_auth(const char *s)
{
	return one_of(s, auth_protocols);
}

static bool valid_priv(const char *s)
{
	return one_of(s, priv_protocols);
}

static bool valid_access(const char *s)
{
	return one_of(s, accesses);
}

/* An SMIv2 module name: an uppercase letter, then letters, digits, single hyphens. */
static bool valid_sink_type(const char *s)
{
	return one_of(s, sink_types);
}

static bool valid_module(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > MAX_MODULE || s[0] < 'A' || s[0] > 'Z' || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		bool alnum = (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		             (s[i] >= '0' && s[i] <= '9');

		if (!alnum && (s[i] != '-' || s[i + 1] == '-'))
			return false;
	}
	return true;
}

/*
 * The root OID: dotted decimal (a leading dot allowed, as Net-SNMP writes
 * OIDs), at most MIB_ROOT_MAX_ARCS numbers of 0..2^32-1, below internet
 * (1.3.6.1), where SNMPv2-SMI gives the generated MIB a node to hang it
 * from.  Fills @arcs and the canonical text @canon (MAX_ROOT_TEXT bytes).
 */
static bool parse_root(const char *text, uint32_t *arcs, uint32_t *n, char *canon)
{
	const char *p = text[0] == '.' ? text + 1 : text, *below;
	size_t len = 0;

	*n = 0;
	do {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9' || *n == MIB_ROOT_MAX_ARCS)
			return false;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > UINT32_MAX || (*end != '.' && *end != '\0'))
			return false;
		arcs[(*n)++] = (uint32_t)v;
		len +=
		    (size_t)snprintf(canon + len, MAX_ROOT_TEXT - len, "%s%llu", len ? "." : "", v);
		p = *end == '.' ? end + 1 : end;
	} while (*p != '\0' || p[-1] == '.');
	return mib_root_anchor(canon, &below) != NULL;
}

static bool valid_root(const char *s)
{
	uint32_t arcs[MIB_ROOT_MAX_ARCS], n;
	char canon[MAX_ROOT_TEXT];

	return parse_root(s, arcs, &n, canon);
}

/* HOST:PORT as Prometheus exporters take it: HOST a name, an IPv4 address,
 * an IPv6 one in brackets, or empty (every address); PORT 1..65535. */
static bool valid_listen(const char *s)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!token_within(s, 2, MAX_TOKEN) || colon == NULL || colon[1] == '\0')
		return false;
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535 || colon[1] == '0')
		return false;
	if (s[0] == '[')
		return colon > s + 1 && colon[-1] == ']';
	return memchr(s, ':', (size_t)(colon - s)) == NULL &&
	       memchr(s, ']', (size_t)(colon - s)) == NULL;
}

#define AGENT(field) offsetof(struct agent_settings, field)
#define USER(field)  offsetof(struct settings_v3_user, field)
#define SINK(field)  offsetof(struct settings_sink, field)

/* The agent group, in the order docs/config.md lists it (tests/unit/test_mib.c compares). */
const struct settings_key settings_keys[] = {
    {"interval_ms", SETTINGS_INTEGER, 10, 3600000, false, "1000", NULL, NULL, AGENT(interval_ms)},
    {"max_age_ms", SETTINGS_INTEGER, 0, 3600000, false, "200", NULL, NULL, AGENT(max_age_ms)},
    {"master", SETTINGS_STRING, 0, 0, false, SETTINGS_DEFAULT_MASTER, valid_text, TEXT_RULE,
     AGENT(master)},
    {"ping_interval", SETTINGS_INTEGER, 1, 3600, false, "1", NULL, NULL, AGENT(ping_interval)},
    {"allow_reset", SETTINGS_BOOLEAN, 0, 0, false, "false", NULL, NULL, AGENT(allow_reset)},
    {"slot_table", SETTINGS_BOOLEAN, 0, 0, false, "true", NULL, NULL, AGENT(slot_table)},
    {"root_oid", SETTINGS_STRING, 0, 0, false, MIB_ROOT_DEFAULT, valid_root, ROOT_RULE,
     AGENT(root_oid)},
    {"community", SETTINGS_STRING, 0, 0, false, "public", valid_token, TOKEN_RULE,
     AGENT(community)},
    {"write_community", SETTINGS_STRING, 0, 0, false, NULL, valid_token, TOKEN_RULE,
     AGENT(write_community)},
    {"v3_users", SETTINGS_USERS, 0, SETTINGS_MAX_V3_USERS, false, NULL, NULL, NULL,
     AGENT(v3_users)},
    {"trap_sinks", SETTINGS_SINKS, 0, SETTINGS_MAX_SINKS, false, NULL, NULL, NULL, AGENT(sinks)},
    {"engine_id", SETTINGS_STRING, 0, 0, false, NULL, valid_engine_id, ENGINE_RULE,
     AGENT(engine_id)},
    {"engine_boots_file", SETTINGS_STRING, 0, 0, false, NULL, valid_text, TEXT_RULE,
     AGENT(engine_boots_file)},
    {"sys_contact", SETTINGS_STRING, 0, 0, false, NULL, valid_admin_text, ADMIN_RULE,
     AGENT(sys_contact)},
    {"sys_name", SETTINGS_STRING, 0, 0, false, NULL, valid_admin_text, ADMIN_RULE, AGENT(sys_name)},
    {"sys_location", SETTINGS_STRING, 0, 0, false, NULL, valid_admin_text, ADMIN_RULE,
     AGENT(sys_location)},
    {"mib_module", SETTINGS_STRING, 0, 0, false, NULL, valid_module, MODULE_RULE, AGENT(module)},
    {"segment_owner", SETTINGS_OWNER, 0, 4294967294, false, NULL, NULL, NULL, AGENT(segment_owner)},
    {"state_file", SETTINGS_STRING, 0, 0, false, NULL, valid_text, TEXT_RULE, AGENT(state_file)},
    {"conf_dir", SETTINGS_STRING, 0, 0, false, NULL, valid_text, TEXT_RULE, AGENT(conf_dir)},
    {"link_holddown_ms", SETTINGS_INTEGER, 0, 3600000, false, "1000", NULL, NULL,
     AGENT(link_holddown_ms)},
    {"notify_segment_state", SETTINGS_BOOLEAN, 0, 0, false, "true", NULL, NULL,
     AGENT(notify_segment_state)},
    {"notify_writer_restart", SETTINGS_BOOLEAN, 0, 0, false, "true", NULL, NULL,
     AGENT(notify_writer_restart)},
    {"notify_reset", SETTINGS_BOOLEAN, 0, 0, false, "true", NULL, NULL, AGENT(notify_reset)},
};

const size_t settings_nkeys = sizeof(settings_keys) / sizeof(settings_keys[0]);

/* One group of v3_users, in the order of docs/config.md's "SNMPv3 users". */
const struct settings_key settings_user_keys[] = {
    {"name", SETTINGS_STRING, 0, 0, true, NULL, valid_user_name, USER_RULE, USER(name)},
    {"auth", SETTINGS_STRING, 0, 0, false, "SHA-256", valid_auth, AUTH_RULE, USER(auth)},
    {"auth_pass", SETTINGS_STRING, 0, 0, true, NULL, valid_passphrase, PASS_RULE, USER(auth_pass)},
    {"priv", SETTINGS_STRING, 0, 0, false, "AES", valid_priv, PRIV_RULE, USER(priv)},
    {"priv_pass", SETTINGS_STRING, 0, 0, true, NULL, valid_passphrase, PASS_RULE, USER(priv_pass)},
    {"access", SETTINGS_STRING, 0, 0, false, "read", valid_access, ACCESS_RULE, USER(access)},
};

const size_t settings_nuser_keys = sizeof(settings_user_keys) / sizeof(settings_user_keys[0]);

/* One group of trap_sinks, in the order of docs/config.md's "Trap sinks". */
const struct settings_key settings_sink_keys[] = {
    {"address", SETTINGS_STRING, 0, 0, true, NULL, valid_token, TOKEN_RULE, SINK(address)},
    {"community", SETTINGS_STRING, 0, 0, false, NULL, valid_token, TOKEN_RULE, SINK(community)},
    {"user", SETTINGS_STRING, 0, 0, false, NULL, valid_user_name, USER_RULE, SINK(user)},
    {"type", SETTINGS_STRING, 0, 0, false, NULL, valid_sink_type, TYPE_RULE, SINK(type)},
};

const size_t settings_nsink_keys = sizeof(settings_sink_keys) / sizeof(settings_sink_keys[0]);

#define LISTEN_RULE                                                                                \
	"must be HOST:PORT (HOST a name, an IPv4 address, [an IPv6 address] or empty for every "   \
	"address; PORT 1..65535)"
#define EXPORTER(field) offsetof(struct exporter_settings, field)

/* The exporter group, in the order of docs/config.md's "Exporter group". */
const struct settings_key settings_exporter_keys[] = {
    {"listen_address", SETTINGS_STRING, 0, 0, false, SETTINGS_DEFAULT_LISTEN, valid_listen,
     LISTEN_RULE, EXPORTER(listen_address)},
    {"segments", SETTINGS_NAMES, 1, 1024, false, NULL, NULL, NULL, EXPORTER(segments)},
    {"web_config_file", SETTINGS_STRING, 0, 0, false, NULL, valid_text, TEXT_RULE,
     EXPORTER(web_config_file)},
    {"max_scrapes", SETTINGS_INTEGER, 1, 1024, false, "4", NULL, NULL, EXPORTER(max_scrapes)},
    {"max_connections", SETTINGS_INTEGER, 1, 65536, false, "256", NULL, NULL,
     EXPORTER(max_connections)},
    {"threads", SETTINGS_INTEGER, 1, 64, false, "4", NULL, NULL, EXPORTER(threads)},
    {"timeout_s", SETTINGS_INTEGER, 1, 3600, false, "10", NULL, NULL, EXPORTER(timeout_s)},
    {"max_request_bytes", SETTINGS_INTEGER, 4096, 1048576, false, "16384", NULL, NULL,
     EXPORTER(max_request_bytes)},
};

const size_t settings_nexporter_keys =
    sizeof(settings_exporter_keys) / sizeof(settings_exporter_keys[0]);

/* Every settings_type has its name: the table has no gap. */
static const char *const type_names[] = {
    [SETTINGS_INTEGER] = "integer",       [SETTINGS_BOOLEAN] = "boolean",
    [SETTINGS_STRING] = "string",         [SETTINGS_OWNER] = "string or integer",
    [SETTINGS_USERS] = "list of groups",  [SETTINGS_SINKS] = "list of groups",
    [SETTINGS_NAMES] = "list of strings",
};

const char *settings_type_name(enum settings_type type)
{
	if ((size_t)type >= sizeof(type_names) / sizeof(type_names[0]))
		return "?";
	return type_names[type];
}

/*
 * ---- reading one key --------------------------------------------------
 *
 * @base is the struct the key's offset is in: the agent_settings for the
 * agent group, a settings_v3_user or a settings_sink for a group of a list.
 */

static void *field(void *base, const struct settings_key *k)
{
	return (char *)base + k->offset;
}

static bool is_integer(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

static int bad(const struct statctr_config *cfg, const config_setting_t *s, const char *why)
{
	return statctr_config_error(cfg, s, EINVAL, "%s", why);
}

static int read_integer(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                        const config_setting_t *s)
{
	long long v;

	if (!is_integer(s))
		return bad(cfg, s, "must be an integer");
	v = config_setting_get_int64(s);
	if (v < k->min || v > k->max)
		return statctr_config_error(cfg, s, EINVAL, "%lld is out of range %lld..%lld", v,
		                            k->min, k->max);
	*(uint32_t *)field(base, k) = (uint32_t)v;
	return 0;
}

static int read_boolean(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                        const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return bad(cfg, s, "must be true or false");
	*(bool *)field(base, k) = config_setting_get_bool(s);
	return 0;
}

static int store_string(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                        const char *str)
{
	char **out = field(base, k), *copy = strdup(str);

	if (!copy)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	free(*out);
	*out = copy;
	return 0;
}

static int read_string(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                       const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !k->valid(config_setting_get_string(s)))
		return bad(cfg, s, k->rule);
	return store_string(cfg, base, k, config_setting_get_string(s));
}

/* A user name or a uid; the user must exist when the file is read. */
static int read_owner(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                      const config_setting_t *s)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	const char *name;

	if (is_integer(s) && config_setting_get_int64(s) >= k->min &&
	    config_setting_get_int64(s) <= k->max) {
		*(uid_t *)field(base, k) = (uid_t)config_setting_get_int64(s);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING ||
	    !valid_text(config_setting_get_string(s)))
		return statctr_config_error(
		    cfg, s, EINVAL, "must be a user name or a uid (%lld..%lld)", k->min, k->max);
	name = config_setting_get_string(s);
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return statctr_config_error(cfg, s, EINVAL, "no user \"%.64s\"", name);
	*(uid_t *)field(base, k) = found->pw_uid;
	return 0;
}

static int read_list(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                     const config_setting_t *s);

static int read_names(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                      const config_setting_t *s);

static int read_key(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                    const config_setting_t *s)
{
	switch (k->type) {
	case SETTINGS_NAMES:
		return read_names(cfg, base, k, s);
	case SETTINGS_INTEGER:
		return read_integer(cfg, base, k, s);
	case SETTINGS_BOOLEAN:
		return read_boolean(cfg, base, k, s);
	case SETTINGS_STRING:
		return read_string(cfg, base, k, s);
	case SETTINGS_OWNER:
		return read_owner(cfg, base, k, s);
	default:
		return read_list(cfg, base, k, s);
	}
}

/* ---- a group of keys -------------------------------------------------- */

static const struct settings_key *find_key(const struct settings_key *keys, size_t nkeys,
                                           const char *name)
{
	for (size_t i = 0; i < nkeys; i++)
		if (strcmp(keys[i].key, name) == 0)
			return &keys[i];
	return NULL;
}

/* Rejects a key not in @keys: catches typos like "interval". */
static int unknown_key(const struct statctr_config *cfg, const config_setting_t *s,
                       const struct settings_key *keys, size_t nkeys)
{
	char known[512];
	size_t len = 0;

	for (size_t i = 0; i < nkeys; i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "",
		                        keys[i].key);
	return statctr_config_error(cfg, s, EINVAL, "unknown setting (known: %s)", known);
}

static int set_defaults(const struct statctr_config *cfg, void *base,
                        const struct settings_key *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++) {
		const struct settings_key *k = &keys[i];
		int err = 0;

		if (k->type == SETTINGS_OWNER)
			*(uid_t *)field(base, k) = (uid_t)-1; /* any owner */
		if (k->dflt == NULL)
			continue;
		if (k->type == SETTINGS_INTEGER)
			*(uint32_t *)field(base, k) = (uint32_t)strtoul(k->dflt, NULL, 10);
		else if (k->type == SETTINGS_BOOLEAN)
			*(bool *)field(base, k) = strcmp(k->dflt, "true") == 0;
		else
			err = store_string(cfg, base, k, k->dflt);
		if (err)
			return err;
	}
	return 0;
}

/* @group's keys into @base: defaults first, then what the file says; required keys present. */
static int read_group(const struct statctr_config *cfg, void *base, const config_setting_t *group,
                      const struct settings_key *keys, size_t nkeys)
{
	int err = set_defaults(cfg, base, keys, nkeys);

	for (int i = 0; !err && i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const struct settings_key *k = find_key(keys, nkeys, config_setting_name(s));

		err = k ? read_key(cfg, base, k, s) : unknown_key(cfg, s, keys, nkeys);
	}
	for (size_t i = 0; !err && i < nkeys; i++)
		if (keys[i].required && !config_setting_get_member(group, keys[i].key))
			err = statctr_config_error(cfg, group, EINVAL, "%s: missing (required)",
			                           keys[i].key);
	return err;
}

static void free_group(void *base, const struct settings_key *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (keys[i].type == SETTINGS_STRING)
			free(*(char **)field(base, &keys[i]));
}

/* ---- a list of segment names: the exporter's segments ----------------- */

/* The count of a SETTINGS_NAMES key: the uint32_t right after its array. */
_Static_assert(offsetof(struct exporter_settings, nsegments) ==
                   offsetof(struct exporter_settings, segments) + sizeof(char **),
               "a list of names is followed by its count");
static uint32_t *names_count(void *base, const struct settings_key *k)
{
	return (uint32_t *)((char *)field(base, k) + sizeof(char **));
}

static void free_names(void *base, const struct settings_key *k)
{
	char **names = *(char ***)field(base, k);

	for (uint32_t i = 0; names && i < *names_count(base, k); i++)
		free(names[i]);
	free(names);
	*(char ***)field(base, k) = NULL;
	*names_count(base, k) = 0;
}

/* One name of the list: declared in the file, and not listed before. */
static int check_name(const struct statctr_config *cfg, const config_setting_t *e, char **names,
                      uint32_t i)
{
	const char *name = config_setting_get_string(e);

	if (config_setting_type(e) != CONFIG_TYPE_STRING)
		return bad(cfg, e, "must be a segment's name (a string)");
	if (statctr_config_find(cfg, name) == NULL)
		return statctr_config_error(cfg, e, EINVAL, "no segment \"%.64s\" is declared",
		                            name);
	for (uint32_t j = 0; j < i; j++)
		if (strcmp(names[j], name) == 0)
			return statctr_config_error(cfg, e, EINVAL,
			                            "segment \"%.64s\" listed twice", name);
	return 0;
}

static int read_names(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                      const config_setting_t *s)
{
	int n = config_setting_length(s), err = 0;
	char **names;

	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return bad(cfg, s, "must be a list of segment names: [\"NAME\", ...]");
	if (n < k->min || n > k->max)
		return statctr_config_error(cfg, s, EINVAL, "%d names, must be %lld..%lld", n,
		                            k->min, k->max);
	names = calloc((size_t)n, sizeof(*names));
	if (!names)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	*(char ***)field(base, k) = names;
	for (int i = 0; !err && i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		err = check_name(cfg, e, names, (uint32_t)i);
		if (!err && !(names[i] = strdup(config_setting_get_string(e))))
			err = statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
		if (!err)
			(*names_count(base, k))++;
	}
	return err;
}

/* ---- lists of groups: v3_users, trap_sinks ---------------------------- */

/* A list key's groups: their keys, the size of one, where the count is. */
struct list_kind {
	const struct settings_key *keys;
	size_t nkeys, size, count_offset;
	bool unique;                /* the first key (a user's name) is unique in the list */
	const char *unit, *example; /* for errors: "users", "{ name = ...; }" */
};

static const struct list_kind users_kind = {
    .keys = settings_user_keys,
    .nkeys = sizeof(settings_user_keys) / sizeof(settings_user_keys[0]),
    .size = sizeof(struct settings_v3_user),
    .count_offset = AGENT(nv3_users),
    .unique = true,
    .unit = "users",
    .example = "{ name = \"...\"; auth_pass = ...; }",
};
static const struct list_kind sinks_kind = {
    .keys = settings_sink_keys,
    .nkeys = sizeof(settings_sink_keys) / sizeof(settings_sink_keys[0]),
    .size = sizeof(struct settings_sink),
    .count_offset = AGENT(nsinks),
    .unit = "sinks",
    .example = "{ address = \"udp:HOST:162\"; community = \"...\"; }",
};

static const struct list_kind *kind_of(const struct settings_key *k)
{
	return k->type == SETTINGS_USERS ? &users_kind : &sinks_kind;
}

static uint32_t *count_of(void *base, const struct list_kind *lk)
{
	return (uint32_t *)((char *)base + lk->count_offset);
}

static void free_list(struct agent_settings *set, const struct settings_key *k)
{
	const struct list_kind *lk = kind_of(k);
	char *array = *(char **)field(set, k);
	uint32_t n = *count_of(set, lk);

	for (uint32_t i = 0; i < n; i++)
		free_group(array + i * lk->size, lk->keys, lk->nkeys);
	free(array);
}

/* Group @i of @array: its first key (a user's name) is unique. */
static int check_unique(const struct statctr_config *cfg, const struct list_kind *lk,
                        const char *array, int i, const config_setting_t *g, const char *list)
{
	const struct settings_key *first = &lk->keys[0];
	const char *v = *(char *const *)(array + (size_t)i * lk->size + first->offset);

	for (int j = 0; j < i; j++)
		if (strcmp(*(char *const *)(array + (size_t)j * lk->size + first->offset), v) == 0)
			return statctr_config_error(cfg, g, EINVAL,
			                            "duplicate user %s \"%s\" (also %s.[%d])",
			                            first->key, v, list, j);
	return 0;
}

/* A list of groups, at most @k->max. */
static int read_list(const struct statctr_config *cfg, void *base, const struct settings_key *k,
                     const config_setting_t *s)
{
	const struct list_kind *lk = kind_of(k);
	uint32_t *count = count_of(base, lk);
	int n = config_setting_is_list(s) ? config_setting_length(s) : -1;
	char *array;

	if (n < 0)
		return statctr_config_error(cfg, s, EINVAL, "must be a list of groups: ( %s, ... )",
		                            lk->example);
	if (n > k->max)
		return statctr_config_error(cfg, s, EINVAL, "%d %s, at most %lld", n, lk->unit,
		                            k->max);
	array = calloc((size_t)n + 1, lk->size);
	if (!array)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	*(char **)field(base, k) = array;
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(s, (unsigned)i);
		int err;

		*count = (uint32_t)i + 1; /* freed by settings_free() from here on */
		if (!config_setting_is_group(g))
			return statctr_config_error(cfg, g, EINVAL, "must be a group: %s",
			                            lk->example);
		err = read_group(cfg, array + (size_t)i * lk->size, g, lk->keys, lk->nkeys);
		if (!err && lk->unique)
			err = check_unique(cfg, lk, array, i, g, k->key);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The rules between keys, once the group is read.  SNMPv3 users make the
 * file a secret (their passphrases) and call for snmpEngineBoots to grow
 * with every start (RFC 3414, 3.2: with the same boots and a clock that
 * restarts at 0, messages recorded before a restart are accepted again);
 * and they turn the default read community off.
 */
static int check_v3_rules(struct agent_settings *set, const config_setting_t *group)
{
	const config_setting_t *users = config_setting_get_member(group, "v3_users");
	struct stat st;

	if (set->nv3_users == 0)
		return 0;
	if (!config_setting_get_member(group, "community")) {
		free(set->community);
		set->community = NULL;
	}
	if (!set->engine_boots_file)
		return bad(set->cfg, users,
		           "SNMPv3 users need agent.engine_boots_file (snmpEngineBoots must grow "
		           "across restarts, or recorded requests can be replayed)");
	if (stat(set->cfg->file, &st) == 0 && (st.st_mode & S_IROTH))
		return statctr_config_error(set->cfg, users, EINVAL,
		                            "passphrases in a file every user may read (mode "
		                            "%04o): chmod o-r %s",
		                            (unsigned)(st.st_mode & 07777), set->cfg->file);
	return 0;
}

/*
 * Each trap sink names exactly one party: a community (SNMPv2c) or one of
 * v3_users (SNMPv3 at authPriv, with that user's protocols and
 * passphrases).  The type defaults to what suits each version: v2c traps
 * (a v2c inform buys delivery without any security) and v3 informs (a v3
 * trap's receiver must be told the sender's engineID beforehand; an
 * inform's sender discovers the receiver's).
 */
static bool same_text(const char *a, const char *b)
{
	return a ? b && strcmp(a, b) == 0 : !b;
}

static bool same_sink(const struct settings_sink *a, const struct settings_sink *b)
{
	return strcmp(a->address, b->address) == 0 && same_text(a->community, b->community) &&
	       same_text(a->user, b->user);
}

static int check_sink_rules(struct agent_settings *set, const config_setting_t *group)
{
	const config_setting_t *list = config_setting_get_member(group, "trap_sinks");

	for (uint32_t i = 0; i < set->nsinks; i++) {
		struct settings_sink *k = &set->sinks[i];
		const config_setting_t *g = config_setting_get_elem(list, i);
		bool known = false;

		if (!k->community == !k->user)
			return bad(set->cfg, g,
			           "needs exactly one of community (SNMPv2c) and user (SNMPv3: "
			           "the name of one of agent.v3_users)");
		for (uint32_t u = 0; k->user && u < set->nv3_users; u++)
			known |= strcmp(set->v3_users[u].name, k->user) == 0;
		if (k->user && !known)
			return statctr_config_error(set->cfg, config_setting_get_member(g, "user"),
			                            EINVAL, "no user \"%s\" in agent.v3_users",
			                            k->user);
		if (!k->type && !(k->type = strdup(k->user ? "inform" : "trap")))
			return statctr_config_error(set->cfg, NULL, ENOMEM, "out of memory");
		for (uint32_t j = 0; j < i; j++)
			if (same_sink(k, &set->sinks[j]))
				return statctr_config_error(set->cfg, g, EINVAL,
				                            "the same address and party as "
				                            "trap_sinks.[%u]: each notification "
				                            "would go twice",
				                            j);
	}
	return 0;
}

/* ---- the agent group -------------------------------------------------- */

/* root_oid passed valid_root(): its arcs, and its text made canonical. */
static void apply_root(struct agent_settings *set)
{
	char canon[MAX_ROOT_TEXT];

	parse_root(set->root_oid, set->root, &set->root_len, canon);
	memcpy(set->root_oid, canon, strlen(canon) + 1); /* never longer than the text */
}

/* The exporter group: its keys, or their defaults when there is none. */
/*
 * Each segment's carry_over (a segment setting the library accepts unread;
 * docs/config.md): true or false, default true.
 */
static int read_carry_over(struct agent_settings *set)
{
	const struct statctr_config *cfg = set->cfg;

	set->carry_over = calloc(cfg->nsegments ? cfg->nsegments : 1, sizeof(bool));
	if (!set->carry_over)
		return statctr_config_error(cfg, NULL, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		const config_setting_t *seg =
		    settings_decl_setting(cfg, i, SETTINGS_NONE, SETTINGS_NONE);
		const config_setting_t *s =
		    seg ? config_setting_get_member(seg, "carry_over") : NULL;

		set->carry_over[i] = true;
		if (!s)
			continue;
		if (config_setting_type(s) != CONFIG_TYPE_BOOL)
			return bad(cfg, s, "carry_over: expected true or false");
		set->carry_over[i] = config_setting_get_bool(s) != 0;
	}
	return 0;
}

static int read_exporter(struct agent_settings *set)
{
	const config_setting_t *group = statctr_config_group(set->cfg, "exporter");

	if (group && !config_setting_is_group(group))
		return bad(set->cfg, group, "must be a group: exporter = { ... };");
	if (group)
		return read_group(set->cfg, &set->exporter, group, settings_exporter_keys,
		                  settings_nexporter_keys);
	return set_defaults(set->cfg, &set->exporter, settings_exporter_keys,
	                    settings_nexporter_keys);
}

int settings_load(const char *path, struct agent_settings **setp)
{
	struct agent_settings *set = calloc(1, sizeof(*set));
	const config_setting_t *group;
	int err;

	*setp = NULL;
	if (!set)
		return -ENOMEM;
	err = statctr_config_load(path, &set->cfg);
	group = err ? NULL : statctr_config_group(set->cfg, "agent");
	if (!err && group && !config_setting_is_group(group))
		err = bad(set->cfg, group, "must be a group: agent = { ... };");
	else if (!err && group)
		err = read_group(set->cfg, set, group, settings_keys, settings_nkeys);
	else if (!err)
		err = set_defaults(set->cfg, set, settings_keys, settings_nkeys);
	if (!err && group)
		err = check_sink_rules(set, group);
	if (!err && group)
		err = check_v3_rules(set, group);
	if (!err)
		err = read_exporter(set);
	if (!err)
		err = read_carry_over(set);
	if (!err)
		err = ifmib_config_load(set->cfg, &set->ifmib);
	if (!err)
		err = mib_names_check(set->cfg);
	if (!err)
		err = prom_names_check(set->cfg);
	if (err) {
		settings_free(set);
		return err;
	}
	apply_root(set);
	*setp = set;
	return 0;
}

void settings_free(struct agent_settings *set)
{
	if (!set)
		return;
	free_group(set, settings_keys, settings_nkeys);
	free_group(&set->exporter, settings_exporter_keys, settings_nexporter_keys);
	for (size_t i = 0; i < settings_nexporter_keys; i++)
		if (settings_exporter_keys[i].type == SETTINGS_NAMES)
			free_names(&set->exporter, &settings_exporter_keys[i]);
	for (size_t i = 0; i < settings_nkeys; i++)
		if (settings_keys[i].type == SETTINGS_USERS ||
		    settings_keys[i].type == SETTINGS_SINKS)
			free_list(set, &settings_keys[i]);
	ifmib_config_free(set->ifmib);
	free(set->carry_over);
	statctr_config_free(set->cfg);
	free(set);
}

/* "FILE:LINE: warning: ..." when column @c's family has a part promtool's lint reports. */
static void warn_prom_column(const struct statctr_config *cfg, uint32_t s, uint32_t t, uint32_t c,
                             FILE *err)
{
	const struct statctr_segment_decl *seg = &cfg->segments[s];
	const struct statctr_column_decl *col = &seg->tables[t].columns[c];
	struct prom_column pc;
	const char *unit;

	if (prom_column_names(&pc, seg->name, seg->tables[t].name, col->name, col->kind) != NULL)
		return; /* an error, which prom_names_check() reported */
	unit = prom_name_abbreviated_unit(pc.names[PROM_FAMILY]);
	if (unit == NULL)
		return;
	statctr_config_error(
	    cfg, settings_decl_setting(cfg, s, t, c), EINVAL,
	    "warning: Prometheus name \"%s\" of column \"%s\" has the part \"%s\", "
	    "which promtool check metrics reports as an abbreviated unit "
	    "(rename the segment, table or column)",
	    pc.names[PROM_FAMILY], col->name, unit);
	fprintf(err, "%s\n", statctr_errmsg());
}

static void warn_prom_style(const struct statctr_config *cfg, FILE *err)
{
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++)
			for (uint32_t c = 0; c < cfg->segments[s].tables[t].ncolumns; c++)
				warn_prom_column(cfg, s, t, c, err);
}

int settings_check(const char *path, FILE *out, FILE *err)
{
	struct agent_settings *set;
	uint32_t ntables = 0, ncells = 0;

	if (settings_load(path, &set) < 0) {
		fprintf(err, "%s\n", statctr_errmsg());
		return 1;
	}
	for (uint32_t s = 0; s < set->cfg->nsegments; s++) {
		ntables += set->cfg->segments[s].ntables;
		ncells += set->cfg->segments[s].ncells;
	}
	fprintf(out, "%s: valid: %" PRIu32 " segments, %" PRIu32 " tables, %" PRIu32 " cells\n",
	        path, set->cfg->nsegments, ntables, ncells);
	for (uint32_t i = 0; i < set->ifmib->nwarnings; i++)
		fprintf(err, "%s\n", set->ifmib->warnings[i]);
	warn_prom_style(set->cfg, err);
	settings_free(set);
	return 0;
}

/* Element @i of list @name of @group, or @group when there is none. */
static const config_setting_t *elem_of(const config_setting_t *group, const char *name, uint32_t i)
{
	const config_setting_t *list = config_setting_get_member(group, name);
	const config_setting_t *elem = list ? config_setting_get_elem(list, i) : NULL;

	return elem ? elem : group;
}

const void *settings_decl_setting(const struct statctr_config *cfg, uint32_t s, uint32_t t,
                                  uint32_t c)
{
	const config_setting_t *segs = statctr_config_group(cfg, "segments"), *at = NULL;

	if (segs && s != SETTINGS_NONE)
		at = config_setting_get_elem(segs, s);
	if (at && t != SETTINGS_NONE)
		at = elem_of(at, "tables", t);
	if (at && t != SETTINGS_NONE && c != SETTINGS_NONE)
		at = elem_of(at, "columns", c);
	return at;
}
