/*
 * settings.c - the "agent" group of a configuration: one table of its keys
 * (type, bounds, default, rule), read from the tree the library parsed.
 *
 * Owns every rule of the group (docs/config.md, "Agent group"), the root
 * OID's among them, for the agent and statctl alike.  Never reads the file
 * itself (statctr_config_load() did, with its checks), never talks SNMP.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "settings.h"
#include "objects.h"

#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

/* Net-SNMP keeps communities in 256-byte buffers, terminator included. */
#define MAX_TOKEN     255
#define MAX_TEXT      1023
#define MAX_MODULE    64
#define MAX_ROOT_TEXT (MIB_ROOT_MAX_ARCS * sizeof("4294967295"))
#define STR(x)        STR_(x)
#define STR_(x)       #x

#define TEXT_RULE "must be 1.." STR(MAX_TEXT) " printable ASCII characters"
#define TOKEN_RULE                                                                                 \
	"must be 1.." STR(MAX_TOKEN) " printable ASCII characters without spaces, quotes or "      \
	                             "backslashes"
#define MODULE_RULE                                                                                \
	"must be an SMIv2 module name: an uppercase letter, then letters, digits and single "      \
	"hyphens, at most " STR(MAX_MODULE) " characters"
#define ROOT_RULE                                                                                  \
	"must be a dotted OID below 1.3.6.1 of at most " STR(                                      \
	    MIB_ROOT_MAX_ARCS) " numbers, each below 2^32 (e.g. \"1.3.6.1.4.1.99999.1\")"

static bool is_printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* 1..MAX_TEXT printable ASCII characters: what a log line or a path may hold. */
static bool valid_text(const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (!is_printable((unsigned char)s[i]))
			return false;
	return len >= 1 && len <= MAX_TEXT;
}

/*
 * One token of an snmpd.conf line: 1..MAX_TOKEN printable ASCII
 * characters, none of them a space (tokens are whitespace-separated: "pub
 * lic" would become the community "pub") or a quote or a backslash (which
 * Net-SNMP's tokenizer interprets).
 */
static bool valid_token(const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len; i++)
		if (!is_printable((unsigned char)s[i]) || strchr(" \"'\\", s[i]))
			return false;
	return len >= 1 && len <= MAX_TOKEN;
}

/* An SMIv2 module name: an uppercase letter, then letters, digits, single hyphens. */
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

/* The agent group, in the order docs/config.md lists it (tests/unit/test_mib.c compares). */
const struct settings_key settings_keys[] = {
    {"interval_ms", SETTINGS_INTEGER, 10, 3600000, "1000", NULL, NULL,
     offsetof(struct agent_settings, interval_ms)},
    {"master", SETTINGS_STRING, 0, 0, SETTINGS_DEFAULT_MASTER, valid_text, TEXT_RULE,
     offsetof(struct agent_settings, master)},
    {"ping_interval", SETTINGS_INTEGER, 1, 3600, "1", NULL, NULL,
     offsetof(struct agent_settings, ping_interval)},
    {"allow_reset", SETTINGS_BOOLEAN, 0, 0, "false", NULL, NULL,
     offsetof(struct agent_settings, allow_reset)},
    {"root_oid", SETTINGS_STRING, 0, 0, MIB_ROOT_DEFAULT, valid_root, ROOT_RULE,
     offsetof(struct agent_settings, root_oid)},
    {"community", SETTINGS_STRING, 0, 0, "public", valid_token, TOKEN_RULE,
     offsetof(struct agent_settings, community)},
    {"write_community", SETTINGS_STRING, 0, 0, NULL, valid_token, TOKEN_RULE,
     offsetof(struct agent_settings, write_community)},
    {"mib_module", SETTINGS_STRING, 0, 0, NULL, valid_module, MODULE_RULE,
     offsetof(struct agent_settings, module)},
    {"segment_owner", SETTINGS_OWNER, 0, 4294967294, NULL, NULL, NULL,
     offsetof(struct agent_settings, segment_owner)},
    {"state_file", SETTINGS_STRING, 0, 0, NULL, valid_text, TEXT_RULE,
     offsetof(struct agent_settings, state_file)},
};

const size_t settings_nkeys = sizeof(settings_keys) / sizeof(settings_keys[0]);

const char *settings_type_name(enum settings_type type)
{
	switch (type) {
	case SETTINGS_INTEGER:
		return "integer";
	case SETTINGS_BOOLEAN:
		return "boolean";
	case SETTINGS_STRING:
		return "string";
	default:
		return "string or integer";
	}
}

/* ---- reading one key -------------------------------------------------- */

static void *field(struct agent_settings *set, const struct settings_key *k)
{
	return (char *)set + k->offset;
}

static bool is_integer(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

static int bad(const struct agent_settings *set, const config_setting_t *s, const char *why)
{
	return statctr_config_error(set->cfg, s, EINVAL, "%s", why);
}

static int read_integer(struct agent_settings *set, const struct settings_key *k,
                        const config_setting_t *s)
{
	long long v;

	if (!is_integer(s))
		return bad(set, s, "must be an integer");
	v = config_setting_get_int64(s);
	if (v < k->min || v > k->max)
		return statctr_config_error(set->cfg, s, EINVAL, "%lld is out of range %lld..%lld",
		                            v, k->min, k->max);
	*(uint32_t *)field(set, k) = (uint32_t)v;
	return 0;
}

static int read_boolean(struct agent_settings *set, const struct settings_key *k,
                        const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return bad(set, s, "must be true or false");
	*(bool *)field(set, k) = config_setting_get_bool(s);
	return 0;
}

static int store_string(struct agent_settings *set, const struct settings_key *k, const char *str)
{
	char **out = field(set, k), *copy = strdup(str);

	if (!copy)
		return statctr_config_error(set->cfg, NULL, ENOMEM, "out of memory");
	free(*out);
	*out = copy;
	return 0;
}

static int read_string(struct agent_settings *set, const struct settings_key *k,
                       const config_setting_t *s)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !k->valid(config_setting_get_string(s)))
		return bad(set, s, k->rule);
	return store_string(set, k, config_setting_get_string(s));
}

/* A user name or a uid; the user must exist when the file is read. */
static int read_owner(struct agent_settings *set, const struct settings_key *k,
                      const config_setting_t *s)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	const char *name;

	if (is_integer(s) && config_setting_get_int64(s) >= k->min &&
	    config_setting_get_int64(s) <= k->max) {
		*(uid_t *)field(set, k) = (uid_t)config_setting_get_int64(s);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING ||
	    !valid_text(config_setting_get_string(s)))
		return statctr_config_error(set->cfg, s, EINVAL,
		                            "must be a user name or a uid (%lld..%lld)", k->min,
		                            k->max);
	name = config_setting_get_string(s);
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return statctr_config_error(set->cfg, s, EINVAL, "no user \"%.64s\"", name);
	*(uid_t *)field(set, k) = found->pw_uid;
	return 0;
}

static int read_key(struct agent_settings *set, const struct settings_key *k,
                    const config_setting_t *s)
{
	switch (k->type) {
	case SETTINGS_INTEGER:
		return read_integer(set, k, s);
	case SETTINGS_BOOLEAN:
		return read_boolean(set, k, s);
	case SETTINGS_STRING:
		return read_string(set, k, s);
	default:
		return read_owner(set, k, s);
	}
}

/* ---- the group -------------------------------------------------------- */

static const struct settings_key *find_key(const char *name)
{
	for (size_t i = 0; i < settings_nkeys; i++)
		if (strcmp(settings_keys[i].key, name) == 0)
			return &settings_keys[i];
	return NULL;
}

/* Rejects a key not in settings_keys[]: catches typos like "interval". */
static int unknown_key(const struct agent_settings *set, const config_setting_t *s)
{
	char known[256];
	size_t len = 0;

	for (size_t i = 0; i < settings_nkeys; i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "",
		                        settings_keys[i].key);
	return statctr_config_error(set->cfg, s, EINVAL, "unknown setting (known: %s)", known);
}

static int set_defaults(struct agent_settings *set)
{
	set->segment_owner = (uid_t)-1;
	for (size_t i = 0; i < settings_nkeys; i++) {
		const struct settings_key *k = &settings_keys[i];
		int err = 0;

		if (k->dflt == NULL)
			continue;
		if (k->type == SETTINGS_INTEGER)
			*(uint32_t *)field(set, k) = (uint32_t)strtoul(k->dflt, NULL, 10);
		else if (k->type == SETTINGS_BOOLEAN)
			*(bool *)field(set, k) = strcmp(k->dflt, "true") == 0;
		else
			err = store_string(set, k, k->dflt);
		if (err)
			return err;
	}
	return 0;
}

static int read_group(struct agent_settings *set, const config_setting_t *group)
{
	if (!config_setting_is_group(group))
		return bad(set, group, "must be a group: agent = { ... };");
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const struct settings_key *k = find_key(config_setting_name(s));
		int err = k ? read_key(set, k, s) : unknown_key(set, s);

		if (err)
			return err;
	}
	return 0;
}

/* root_oid passed valid_root(): its arcs, and its text made canonical. */
static void apply_root(struct agent_settings *set)
{
	char canon[MAX_ROOT_TEXT];

	parse_root(set->root_oid, set->root, &set->root_len, canon);
	memcpy(set->root_oid, canon, strlen(canon) + 1); /* never longer than the text */
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
	if (!err)
		err = set_defaults(set);
	group = err ? NULL : statctr_config_group(set->cfg, "agent");
	if (group)
		err = read_group(set, group);
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
	for (size_t i = 0; i < settings_nkeys; i++)
		if (settings_keys[i].type == SETTINGS_STRING)
			free(*(char **)field(set, &settings_keys[i]));
	statctr_config_free(set->cfg);
	free(set);
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
	settings_free(set);
	return 0;
}
