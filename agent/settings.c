/*
 * settings.c - reads the agent's configuration.
 *
 * The library parses segments, tables and columns (statctr_config_load());
 * this module reads only the top-level "agent" group with libconfig, so the
 * one file is the one source of truth for both.  It never touches segments
 * or Net-SNMP.
 */
#include "settings.h"
#include "../tools/conftext.h"
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mib_module belongs to `statctl mib` (the generated MIB's name); the agent ignores it. */
static const char *const agent_keys[] = {
    "interval_ms",     "master",     "ping_interval", "allow_reset", "root_oid", "community",
    "write_community", "mib_module", "segment_owner", "state_file",  NULL,
};

static int fail(const struct agent_settings *set, const config_setting_t *s, const char *why)
{
	return agent_seterr(EINVAL, "%s:%d: agent.%s: %s", set->file, config_setting_source_line(s),
	                    config_setting_name(s), why);
}

static int check_keys(const struct agent_settings *set, const config_setting_t *group)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(s);
		int known = 0;

		for (const char *const *k = agent_keys; *k; k++)
			known |= strcmp(*k, name) == 0;
		if (!known)
			return fail(set, s, "unknown setting");
	}
	return 0;
}

static int get_int(const struct agent_settings *set, const config_setting_t *group,
                   const char *name, long long lo, long long hi, long long *out)
{
	const config_setting_t *s = config_setting_get_member(group, name);

	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return fail(set, s, "must be an integer");
	*out = config_setting_get_int64(s);
	if (*out < lo || *out > hi)
		return agent_seterr(EINVAL, "%s:%d: agent.%s: %lld is out of range %lld..%lld",
		                    set->file, config_setting_source_line(s), name, *out, lo, hi);
	return 0;
}

static int get_string(const struct agent_settings *set, const config_setting_t *group,
                      const char *name, char **out)
{
	const config_setting_t *s = config_setting_get_member(group, name);
	char *copy;

	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !*config_setting_get_string(s))
		return fail(set, s, "must be a non-empty string");
	copy = strdup(config_setting_get_string(s));
	if (!copy)
		return agent_seterr(ENOMEM, "out of memory");
	free(*out);
	*out = copy;
	return 0;
}

/* A community: one snmpd.conf token (text_token_ok()), else snmpd would serve another. */
static int get_community(const struct agent_settings *set, const config_setting_t *group,
                         const char *name, char **out)
{
	int err = get_string(set, group, name, out);

	if (err || !*out || text_token_ok(*out, CONFTEXT_MAX_TOKEN))
		return err;
	return fail(set, config_setting_get_member(group, name), CONFTEXT_TOKEN_RULE);
}

static int get_bool(const struct agent_settings *set, const config_setting_t *group,
                    const char *name, bool *out)
{
	const config_setting_t *s = config_setting_get_member(group, name);

	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return fail(set, s, "must be true or false");
	*out = config_setting_get_bool(s);
	return 0;
}

int settings_parse_oid(const char *text, uint32_t *sub, uint32_t max, uint32_t *len)
{
	const char *p = text[0] == '.' ? text + 1 : text;

	*len = 0;
	while (*p) {
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9' || *len == max)
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > UINT32_MAX || (*end != '.' && *end != '\0'))
			return -EINVAL;
		sub[(*len)++] = (uint32_t)v;
		p = *end == '.' ? end + 1 : end;
		if (*end == '.' && *p == '\0')
			return -EINVAL;
	}
	return *len >= 2 && sub[0] <= 2 ? 0 : -EINVAL;
}

static int get_root(struct agent_settings *set, const config_setting_t *group)
{
	const config_setting_t *s = group ? config_setting_get_member(group, "root_oid") : NULL;
	const char *text = SETTINGS_DEFAULT_ROOT;

	if (s) {
		if (config_setting_type(s) != CONFIG_TYPE_STRING)
			return fail(set, s, "must be a string such as \"1.3.6.1.4.1.8072.9999\"");
		text = config_setting_get_string(s);
	}
	if (settings_parse_oid(text, set->root, SETTINGS_MAX_ROOT_LEN, &set->root_len) < 0)
		return agent_seterr(EINVAL,
		                    "%s:%d: agent.root_oid: \"%s\" is not a dotted OID of 2..%u "
		                    "numbers",
		                    set->file, s ? config_setting_source_line(s) : 0, text,
		                    SETTINGS_MAX_ROOT_LEN);
	return 0;
}

/* A user name or a decimal uid; the user must exist when the file is read. */
static int get_owner(struct agent_settings *set, const config_setting_t *group)
{
	const config_setting_t *s = config_setting_get_member(group, "segment_owner");
	struct passwd pw, *found = NULL;
	char buf[4096];
	const char *name;

	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_INT ||
	    config_setting_type(s) == CONFIG_TYPE_INT64) {
		long long uid = config_setting_get_int64(s);

		if (uid < 0 || uid >= (long long)UINT32_MAX)
			return fail(set, s, "must be a user name or a uid");
		set->segment_owner = (uid_t)uid;
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !*config_setting_get_string(s))
		return fail(set, s, "must be a user name or a uid");
	name = config_setting_get_string(s);
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &found) != 0 || !found)
		return agent_seterr(EINVAL, "%s:%d: agent.segment_owner: no user \"%.64s\"",
		                    set->file, config_setting_source_line(s), name);
	set->segment_owner = found->pw_uid;
	return 0;
}

static int read_group(struct agent_settings *set, const config_setting_t *group)
{
	long long interval = SETTINGS_DEFAULT_INTERVAL_MS, ping = SETTINGS_DEFAULT_PING;
	int err;

	if (config_setting_type(group) != CONFIG_TYPE_GROUP)
		return fail(set, group, "must be a group: agent = { ... };");
	err = check_keys(set, group);
	if (!err)
		err = get_int(set, group, "interval_ms", 10, 3600000, &interval);
	if (!err)
		err = get_int(set, group, "ping_interval", 1, 3600, &ping);
	if (!err)
		err = get_string(set, group, "master", &set->master);
	if (!err)
		err = get_bool(set, group, "allow_reset", &set->allow_reset);
	if (!err)
		err = get_community(set, group, "community", &set->community);
	if (!err)
		err = get_community(set, group, "write_community", &set->write_community);
	if (!err)
		err = get_owner(set, group);
	if (!err)
		err = get_string(set, group, "state_file", &set->state_file);
	set->interval_ms = (uint32_t)interval;
	set->ping_interval = (int)ping;
	return err;
}

static int read_agent_group(struct agent_settings *set)
{
	config_t lc;
	const config_setting_t *group;
	int err = 0;

	config_init(&lc);
	err = conftext_read(set->file, &lc);
	if (err) {
		if (config_error_text(&lc))
			agent_seterr(-err, "%s:%d: %s", set->file, config_error_line(&lc),
			             config_error_text(&lc));
		else
			agent_seterr(-err, "%s: cannot read it again: %s", set->file,
			             strerror(-err));
		goto out;
	}
	group = config_lookup(&lc, "agent");
	if (group)
		err = read_group(set, group);
	if (!err)
		err = get_root(set, group);
out:
	config_destroy(&lc);
	return err;
}

static int set_defaults(struct agent_settings *set, const char *path)
{
	set->file = strdup(path);
	set->master = strdup(SETTINGS_DEFAULT_MASTER);
	set->community = strdup(SETTINGS_DEFAULT_COMMUNITY);
	set->interval_ms = SETTINGS_DEFAULT_INTERVAL_MS;
	set->ping_interval = SETTINGS_DEFAULT_PING;
	set->segment_owner = (uid_t)-1;
	if (!set->file || !set->master || !set->community)
		return agent_seterr(ENOMEM, "out of memory");
	return 0;
}

int settings_load(const char *path, struct agent_settings **setp)
{
	struct agent_settings *set = calloc(1, sizeof(*set));
	int err;

	*setp = NULL;
	if (!set)
		return agent_seterr(ENOMEM, "out of memory");
	err = set_defaults(set, path);
	if (!err) {
		err = statctr_config_load(path, &set->cfg);
		if (err)
			agent_seterr(-err, "%s", statctr_errmsg());
	}
	if (!err)
		err = read_agent_group(set);
	if (err) {
		settings_free(set);
		return err;
	}
	*setp = set;
	return 0;
}

void settings_free(struct agent_settings *set)
{
	if (!set)
		return;
	if (set->cfg)
		statctr_config_free(set->cfg);
	free(set->file);
	free(set->master);
	free(set->community);
	free(set->write_community);
	free(set->state_file);
	free(set);
}
