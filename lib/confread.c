/*
 * confread.c - reading one libconfig setting: its type, limits and text
 * rules, and the "FILE:LINE: SETTING: what" message when it is wrong.
 *
 * The primitives every part of the configuration parser shares (config.c:
 * segments, tables, columns; confhist.c: histogram buckets).  Each returns
 * 0 or a negative errno with the message set; none keeps state.
 */
#include "confread.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                 "0123456789_-";

/* Writes the libconfig path of @s into @buf; returns its length (truncated to @size - 1). */
static size_t setting_path(const config_setting_t *s, char *buf, size_t size)
{
	const config_setting_t *parent = config_setting_parent(s);
	size_t len;
	int n;

	buf[0] = '\0';
	if (!parent)
		return 0;
	len = setting_path(parent, buf, size);
	if (config_setting_name(s))
		n = snprintf(buf + len, size - len, "%s%s", len ? "." : "", config_setting_name(s));
	else
		n = snprintf(buf + len, size - len, "%s[%d]", len ? "." : "",
		             config_setting_index(s));
	if (n < 0 || (size_t)n >= size - len)
		return size - 1;
	return len + n;
}

/*
 * conf_vfail() - set the message for a bad setting and return -@err.
 *
 * Names @group's member @name (which may be absent: a missing setting), or
 * @group itself when @name is NULL.  The line is the member's when it exists,
 * else the group's; the root has none, so it points at the top of the file.
 */

int conf_vfail(int err, const char *path, const config_setting_t *group, const char *name,
               const char *fmt, va_list ap)
{
	const config_setting_t *at = name ? config_setting_get_member(group, name) : NULL;
	char where[256], what[512];
	const char *file;
	unsigned line;
	size_t len;

	if (!at)
		at = group;
	file = config_setting_source_file(at);
	line = config_setting_source_line(at);
	len = setting_path(group, where, sizeof(where));
	if (name)
		snprintf(where + len, sizeof(where) - len, "%s%s", len ? "." : "", name);
	vsnprintf(what, sizeof(what), fmt, ap);
	return errmsg_set(err, "%s:%u: %s: %s", file ? file : path, line ? line : 1, where, what);
}

int conf_fail(const char *path, const config_setting_t *group, const char *name, const char *fmt,
              ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = conf_vfail(EINVAL, path, group, name, fmt, ap);
	va_end(ap);
	return err;
}

int conf_no_memory(void)
{
	return errmsg_set(ENOMEM, "out of memory reading the configuration");
}

const char *conf_type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	default:
		return "an unknown type";
	}
}

static bool is_key(const char *const *keys, const char *name)
{
	for (; *keys; keys++)
		if (strcmp(*keys, name) == 0)
			return true;
	return false;
}

/* Rejects members of @group not in @keys: catches typos like "desciption". */
int conf_check_keys(const char *path, const config_setting_t *group, const char *const *keys)
{
	char known[256];
	size_t len = 0;
	int i;

	for (i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *s = config_setting_get_elem(group, i);

		if (is_key(keys, config_setting_name(s)))
			continue;
		for (; *keys && len < sizeof(known); keys++)
			len += snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "",
			                *keys);
		return conf_fail(path, s, NULL, "unknown setting (known: %s)", known);
	}
	return 0;
}

/*
 * conf_member() - @group's setting @name, which must have type @type.
 *
 * Integers may be plain or 64-bit.  Returns 0 with *sp NULL when the setting
 * is absent and optional, -EINVAL when it is absent and required or of
 * another type.
 */
int conf_member(const char *path, const config_setting_t *group, const char *name, int type,
                bool required, const config_setting_t **sp)
{
	const config_setting_t *s = config_setting_get_member(group, name);
	int actual;

	*sp = s;
	if (!s)
		return required ? conf_fail(path, group, name, "missing (required)") : 0;
	actual = config_setting_type(s);
	if (actual == CONFIG_TYPE_INT64)
		actual = CONFIG_TYPE_INT;
	if (actual != type)
		return conf_fail(path, group, name, "expected %s, not %s", conf_type_name(type),
		                 conf_type_name(config_setting_type(s)));
	return 0;
}

/* @group's string @key: *strp is it, or NULL when it is absent and optional. */
static int member_string(const char *path, const config_setting_t *group, const char *key,
                         bool required, const char **strp)
{
	const config_setting_t *s;
	int err = conf_member(path, group, key, CONFIG_TYPE_STRING, required, &s);

	*strp = err || !s ? NULL : config_setting_get_string(s);
	return err;
}

int conf_copy_string(const char *s, const char **copyp)
{
	*copyp = strdup(s);
	return *copyp ? 0 : conf_no_memory();
}

/* A letter, then letters, digits, '_' or '-'; 1..STATCTR_MAX_NAME. */
static bool conf_is_name(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len <= STATCTR_MAX_NAME && strchr(letters, s[0]) &&
	       strspn(s, name_chars) == len;
}

/* Checks that @text (@group's @key, or element @group when @key is NULL) is printable ASCII. */
int conf_check_text(const char *path, const config_setting_t *group, const char *key,
                    const char *text, size_t max)
{
	size_t i;

	for (i = 0; text[i]; i++) {
		unsigned char c = text[i];

		if (!text_byte_ok(c))
			return conf_fail(path, group, key,
			                 "character %zu is not printable ASCII (byte 0x%02x)",
			                 i + 1, c);
	}
	if (i > max)
		return conf_fail(path, group, key, "%zu characters, at most %zu allowed", i, max);
	return 0;
}

/* @group's string @key ("" when absent and optional), checked by @check, then copied. */
static int
get_string(const char *path, const config_setting_t *group, const char *key, bool required,
           int (*check)(const char *, const config_setting_t *, const char *, const char *),
           const char **copyp)
{
	const char *str;
	int err = member_string(path, group, key, required, &str);

	if (err)
		return err;
	if (str == NULL)
		str = "";
	err = check(path, group, key, str);
	return err ? err : conf_copy_string(str, copyp);
}

static int check_name(const char *path, const config_setting_t *group, const char *key,
                      const char *name)
{
	if (conf_is_name(name))
		return 0;
	return conf_fail(path, group, key,
	                 "invalid name \"%s\" (expected a letter, then letters, digits, '_' or "
	                 "'-', at most %u characters)",
	                 name, STATCTR_MAX_NAME);
}

/* The required name @key of @group: a letter, then letters, digits, '_' or '-'. */
int conf_get_name(const char *path, const config_setting_t *group, const char *key,
                  const char **namep)
{
	return get_string(path, group, key, true, check_name, namep);
}

static int check_text(const char *path, const config_setting_t *group, const char *key,
                      const char *text)
{
	return conf_check_text(path, group, key, text, STATCTR_MAX_TEXT);
}

/* The optional description or units @key of @group; "" when absent. */
int conf_get_text(const char *path, const config_setting_t *group, const char *key,
                  const char **textp)
{
	return get_string(path, group, key, false, check_text, textp);
}

/* The optional integer @key of @group in @min..@max; *valp keeps its default when absent. */
int conf_get_uint(const char *path, const config_setting_t *group, const char *key, uint32_t min,
                  uint32_t max, uint32_t *valp)
{
	const config_setting_t *s;
	long long val;
	int err;

	err = conf_member(path, group, key, CONFIG_TYPE_INT, false, &s);
	if (err || !s)
		return err;
	val = config_setting_get_int64(s);
	if (val < min || val > max)
		return conf_fail(path, group, key, "%lld is out of range (%u..%u)", val, min, max);
	*valp = val;
	return 0;
}

/*
 * The optional file mode @key of @group: a string of 1 to 4 octal digits
 * ("0640"; a bare integer would be read as decimal), at most 0777, without
 * write permission for others.  *modep keeps its default when absent.
 */
int conf_get_mode(const char *path, const config_setting_t *group, const char *key, mode_t *modep)
{
	const char *str;
	mode_t mode;
	size_t len;
	int err = member_string(path, group, key, false, &str);

	if (err || !str)
		return err;
	len = strlen(str);
	if (len == 0 || len > 4 || strspn(str, "01234567") != len)
		return conf_fail(path, group, key, "\"%s\" is not an octal mode like \"0640\"",
		                 str);
	mode = strtoul(str, NULL, 8);
	if (mode > 0777)
		return conf_fail(path, group, key,
		                 "mode %04o has setuid, setgid or sticky bits (at most 0777)",
		                 mode);
	if (mode & S_IWOTH)
		return conf_fail(path, group, key, "mode %04o lets others write", mode);
	*modep = mode;
	return 0;
}

/* @group's required list @key of groups, which must not be empty. */
int conf_get_list(const char *path, const config_setting_t *group, const char *key,
                  const config_setting_t **listp, uint32_t *np)
{
	const config_setting_t *list;
	int err, i;

	err = conf_member(path, group, key, CONFIG_TYPE_LIST, true, &list);
	if (err)
		return err;
	if (config_setting_length(list) == 0)
		return conf_fail(path, group, key, "empty list (at least one entry needed)");
	for (i = 0; i < config_setting_length(list); i++) {
		const config_setting_t *el = config_setting_get_elem(list, i);

		if (!config_setting_is_group(el))
			return conf_fail(path, el, NULL, "expected a group { ... }, not %s",
			                 conf_type_name(config_setting_type(el)));
	}
	*listp = list;
	*np = config_setting_length(list);
	return 0;
}
