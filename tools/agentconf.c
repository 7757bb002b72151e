/*
 * agentconf.c - reads and validates the settings of the configuration's
 * "agent" group that the MIB generator needs (mib_module, root_oid), and
 * checks the communities with the agent's rule, so that check-config
 * refuses what the agent would.  The library ignores that group and the
 * agent owns its other settings.  Errors name file:line.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "conftext.h"
#include "statctl.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

static int setting_error(const config_setting_t *s, const char *path, const char *what)
{
	error_msg("%s:%d: agent.%s: %s", path, config_setting_source_line(s),
	          config_setting_name(s), what);
	return -EINVAL;
}

/* An SMIv2 module name: uppercase first, letters, digits, single hyphens. */
static bool valid_module_name(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > 64 || !isupper((unsigned char)s[0]) || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '-' && s[i + 1] == '-')
			return false;
		if (s[i] != '-' && (!isascii((unsigned char)s[i]) || !isalnum((unsigned char)s[i])))
			return false;
	}
	return true;
}

/* Dotted decimal sub-identifiers, each < 2^32, under 1.3.6.1 (internet). */
static bool valid_root_oid(const char *s)
{
	uint32_t arc;
	char *copy = strdup(s), *save = NULL;
	bool ok = copy != NULL && strncmp(s, "1.3.6.1.", 8) == 0 && s[strlen(s) - 1] != '.';

	for (char *tok = strtok_r(copy, ".", &save); ok && tok; tok = strtok_r(NULL, ".", &save))
		ok = parse_u32(tok, &arc);
	free(copy);
	return ok && strstr(s, "..") == NULL;
}

static int read_string(const config_setting_t *agent, const char *path, const char *name,
                       bool (*valid)(const char *), const char *rule, char **out)
{
	const config_setting_t *s = config_setting_get_member(agent, name);
	const char *value;

	if (s == NULL)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return setting_error(s, path, "must be a string");
	value = config_setting_get_string(s);
	if (!valid(value))
		return setting_error(s, path, rule);
	*out = strdup(value);
	return *out ? 0 : -ENOMEM;
}

static bool valid_community(const char *s)
{
	return text_token_ok(s, CONFTEXT_MAX_TOKEN);
}

/* Checks @name without keeping it: the agent reads it (agent/settings.c). */
static int check_community(const config_setting_t *agent, const char *path, const char *name)
{
	char *value = NULL;
	int err = read_string(agent, path, name, valid_community, CONFTEXT_TOKEN_RULE, &value);

	free(value);
	return err;
}

static int read_agent_group(const config_t *cfg, const char *path, struct mib_settings *s)
{
	const config_setting_t *agent = config_lookup(cfg, "agent");
	int err;

	if (agent == NULL)
		return 0;
	if (!config_setting_is_group(agent)) {
		error_msg("%s:%d: agent: must be a group", path, config_setting_source_line(agent));
		return -EINVAL;
	}
	err = read_string(agent, path, "mib_module", valid_module_name,
	                  "not an SMIv2 module name (uppercase letter first, then letters, "
	                  "digits and single hyphens, at most 64)",
	                  &s->module);
	if (err == 0)
		err = read_string(agent, path, "root_oid", valid_root_oid,
		                  "not a dotted OID under 1.3.6.1 (e.g. \"1.3.6.1.4.1.99999.1\")",
		                  &s->root_oid);
	if (err == 0)
		err = check_community(agent, path, "community");
	if (err == 0)
		err = check_community(agent, path, "write_community");
	return err;
}

int mib_settings_load(const char *path, struct mib_settings *s)
{
	config_t cfg;
	int err;

	s->module = NULL;
	s->root_oid = NULL;
	config_init(&cfg);
	err = conftext_read(path, &cfg);
	if (err < 0) {
		if (config_error_text(&cfg) != NULL)
			error_msg("%s:%d: %s", path, config_error_line(&cfg),
			          config_error_text(&cfg));
		else
			error_msg("%s: cannot read the file: %s", path, strerror(-err));
		config_destroy(&cfg);
		return err;
	}
	err = read_agent_group(&cfg, path, s);
	config_destroy(&cfg);
	if (err == 0 && s->root_oid == NULL) {
		s->root_oid = strdup(STATCTR_DEFAULT_ROOT_OID);
		err = s->root_oid ? 0 : -ENOMEM;
	}
	if (err < 0)
		mib_settings_free(s);
	return err;
}

void mib_settings_free(struct mib_settings *s)
{
	free(s->module);
	free(s->root_oid);
	s->module = NULL;
	s->root_oid = NULL;
}
