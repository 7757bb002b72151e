/*
 * mibnames.c - SMIv2 names derived from configuration names: module names
 * ("STATCTR-DATAPLANE-MIB") and descriptors ("dataplaneIfStatsRxPackets"),
 * valid (letters and digits, lowercase first, at most 64 characters) and
 * unique within one module.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "mibnames.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DESCRIPTOR 64

static bool is_alnum(int c)
{
	return isascii(c) && isalnum(c);
}

/* Appends @s camel-cased: "if_stats" -> "IfStats" (first letter upper). */
static void append_camel(char *buf, size_t size, const char *s)
{
	size_t len = strlen(buf);
	bool word_start = true;

	for (const unsigned char *p = (const unsigned char *)s; *p && len + 1 < size; p++) {
		if (!is_alnum(*p)) {
			word_start = true;
			continue;
		}
		buf[len++] = (char)(word_start ? toupper(*p) : *p);
		word_start = false;
	}
	buf[len] = '\0';
}

static bool name_taken(const struct mib_names *reg, const char *name)
{
	for (size_t i = 0; i < reg->n; i++)
		if (strcasecmp(reg->v[i], name) == 0)
			return true;
	return false;
}

/* FNV-1a, to keep shortened names distinct and stable. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Cuts @buf to @max characters, the last 5 a hash of the whole ("h1f2e3"). */
static void shorten(char *buf, size_t max)
{
	if (strlen(buf) <= max)
		return;
	snprintf(buf + max - 5, 6, "h%04x", (unsigned)(name_hash(buf) & 0xffff));
}

static const char *register_name(struct mib_names *reg, const char *name)
{
	char **v = realloc(reg->v, (reg->n + 1) * sizeof(*v));

	if (v == NULL)
		return NULL;
	reg->v = v;
	v[reg->n] = strdup(name);
	return v[reg->n] ? v[reg->n++] : NULL;
}

/*
 * A descriptor from @nparts strings, each camel-cased: ("dataplane",
 * "ifStats", "Entry") -> "dataplaneIfStatsEntry".  The last part is kept
 * whole (up to 32 characters) when the name must be shortened, so "Table"
 * and "Entry" stay where smilint looks for them.  Unique ignoring case,
 * so that an entry's SEQUENCE type can be its name capitalised.  The
 * configuration's names start with a letter, and so does the result.
 */
const char *mib_name(struct mib_names *reg, int nparts, ...)
{
	char prefix[512] = "", suffix[256] = "", name[sizeof(prefix) + sizeof(suffix) + 4];
	va_list ap;

	va_start(ap, nparts);
	for (int i = 0; i < nparts; i++)
		append_camel(i + 1 < nparts ? prefix : suffix,
		             i + 1 < nparts ? sizeof(prefix) : sizeof(suffix),
		             va_arg(ap, const char *));
	va_end(ap);
	shorten(suffix, MAX_DESCRIPTOR / 2);
	shorten(prefix, MAX_DESCRIPTOR - strlen(suffix) - 3);
	snprintf(name, sizeof(name), "%s%s", prefix, suffix);
	name[0] = (char)tolower((unsigned char)name[0]);
	for (unsigned i = 2; name_taken(reg, name) && i < 100; i++)
		snprintf(name + strlen(prefix) + strlen(suffix), 4, "N%u", i);
	return register_name(reg, name);
}

void mib_names_free(struct mib_names *reg)
{
	for (size_t i = 0; i < reg->n; i++)
		free(reg->v[i]);
	free(reg->v);
	reg->v = NULL;
	reg->n = 0;
}

/* "STATCTR-<SEGMENT>-<SEGMENT>-MIB", uppercase, single hyphens, <= 64. */
void mib_module_name(const struct statctr_config *cfg, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "STATCTR");
	size_t limit = size - sizeof("-MIB") < 64 - 4 ? size - sizeof("-MIB") : 64 - 4;

	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		for (const char *p = cfg->segments[i].name; *p && len < limit; p++) {
			bool alnum = is_alnum((unsigned char)*p);

			if (!alnum && buf[len - 1] == '-')
				continue;
			if (alnum && (p == cfg->segments[i].name) && buf[len - 1] != '-')
				buf[len++] = '-';
			buf[len++] = alnum ? (char)toupper((unsigned char)*p) : '-';
		}
	}
	while (buf[len - 1] == '-')
		len--;
	snprintf(buf + len, size - len, "-MIB");
}
