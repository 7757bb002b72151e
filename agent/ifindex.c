/*
 * ifindex.c - the ifIndex store (see ifindex.h): a sorted array of
 * "SEGMENT TABLE ROWNAME" keys (segment and table names have no space, so
 * the key splits one way only) and their ifIndex, searched by bisection,
 * and its file.  Never reads segments.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "ifindex.h"
#include "../tools/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A key: two names of at most 63 bytes, a row name of at most 255, spaces. */
#define MAX_KEY  (63 + 1 + 63 + 1 + 255)
#define MAX_LINE (MAX_KEY + 16)

struct entry {
	char *key;
	uint32_t ifindex;
};

struct ifindex_store {
	char *path; /* NULL: in memory only */
	struct entry *entries;
	size_t n, room;
	bool told_write_error;
};

/* The position of @key, or where it would go: *foundp says which. */
static size_t find(const struct ifindex_store *s, const char *key, bool *foundp)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->entries[mid].key, key);

		if (c == 0) {
			*foundp = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*foundp = false;
	return lo;
}

static int insert(struct ifindex_store *s, size_t at, const char *key, uint32_t ifindex)
{
	char *copy = strdup(key);

	if (!copy)
		return -ENOMEM;
	if (s->n == s->room) {
		size_t room = s->room ? 2 * s->room : 64;
		struct entry *e = realloc(s->entries, room * sizeof(*e));

		if (!e) {
			free(copy);
			return -ENOMEM;
		}
		s->entries = e;
		s->room = room;
	}
	memmove(&s->entries[at + 1], &s->entries[at], (s->n - at) * sizeof(*s->entries));
	s->entries[at].key = copy;
	s->entries[at].ifindex = ifindex;
	s->n++;
	return 0;
}

/* "IFINDEX KEY": the key is the rest of the line, at least three words. */
static int load_line(struct ifindex_store *s, char *line)
{
	char *end, *key;
	unsigned long ifindex = strtoul(line, &end, 10);
	bool found;
	size_t at;

	if (end == line || *end != ' ' || ifindex == 0 || ifindex > 2147483647ul)
		return -EINVAL;
	key = end + 1;
	key[strcspn(key, "\n")] = '\0';
	at = find(s, key, &found);
	if (found || !strchr(key, ' ') || !strchr(strchr(key, ' ') + 1, ' '))
		return -EINVAL;
	/* An edited file may give one ifIndex twice: the first name keeps it. */
	for (size_t i = 0; i < s->n; i++)
		if (s->entries[i].ifindex == ifindex)
			return -EINVAL;
	return insert(s, at, key, (uint32_t)ifindex);
}

static void load(struct ifindex_store *s)
{
	int fd = open(s->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	char line[MAX_LINE + 2];
	struct stat st;
	unsigned lineno = 0;
	FILE *f;

	if (fd < 0) {
		if (errno != ENOENT)
			snmp_log(LOG_WARNING,
			         "ifIndex file %s: %s: every name gets a new ifIndex\n", s->path,
			         strerror(errno));
		return;
	}
	f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
	if (!f) {
		snmp_log(LOG_WARNING, "ifIndex file %s: not a regular file, not read\n", s->path);
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (load_line(s, line) < 0)
			snmp_log(LOG_WARNING,
			         "ifIndex file %s:%u: not \"IFINDEX SEGMENT TABLE ROW\" with a "
			         "new name and ifIndex, skipped\n",
			         s->path, lineno);
	}
	fclose(f);
}

int ifindex_open(const char *path, struct ifindex_store **sp)
{
	struct ifindex_store *s = calloc(1, sizeof(*s));

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	if (path) {
		s->path = strdup(path);
		if (!s->path) {
			free(s);
			return -ENOMEM;
		}
		load(s);
	}
	*sp = s;
	return 0;
}

void ifindex_close(struct ifindex_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->entries[i].key);
	free(s->entries);
	free(s->path);
	free(s);
}

static int fill(FILE *f, void *arg)
{
	const struct ifindex_store *s = arg;

	for (size_t i = 0; i < s->n; i++)
		if (fprintf(f, "%u %s\n", s->entries[i].ifindex, s->entries[i].key) < 0)
			return -EIO;
	return 0;
}

/* The state file may be in a shared directory: safefile_write() never follows a link. */
static void save(struct ifindex_store *s)
{
	const char *why;
	int err;

	if (!s->path)
		return;
	err = safefile_write(s->path, 0644, fill, s, &why);
	if (err < 0 && !s->told_write_error)
		snmp_log(LOG_WARNING,
		         "ifIndex file %s: %s: %s (the new ifIndex values hold until the agent "
		         "restarts)\n",
		         s->path, why, strerror(-err));
	s->told_write_error = err < 0;
}

/*
 * One above the highest ifIndex in @base..@last held by a name of the
 * table whose keys start with @prefix, or @base; 0 when @last is held.
 */
static uint32_t next_free(const struct ifindex_store *s, const char *prefix, uint32_t base,
                          uint32_t last)
{
	bool found;
	size_t at = find(s, prefix, &found), len = strlen(prefix);
	uint32_t next = base;

	for (; at < s->n && strncmp(s->entries[at].key, prefix, len) == 0; at++) {
		uint32_t v = s->entries[at].ifindex;

		if (v >= base && v <= last && v >= next)
			next = v == last ? 0 : v + 1;
		if (next == 0)
			break;
	}
	return next;
}

int ifindex_get(struct ifindex_store *s, const char *segment, const char *table, const char *row,
                uint32_t base, uint32_t n, uint32_t *ifindexp)
{
	char key[MAX_KEY + 1], prefix[MAX_KEY + 1];
	uint32_t last = base + n - 1, v;
	bool found;
	size_t at;

	snprintf(key, sizeof(key), "%s %s %s", segment, table, row);
	at = find(s, key, &found);
	if (found && s->entries[at].ifindex >= base && s->entries[at].ifindex <= last) {
		*ifindexp = s->entries[at].ifindex;
		return 0;
	}
	snprintf(prefix, sizeof(prefix), "%s %s ", segment, table);
	v = next_free(s, prefix, base, last);
	if (v == 0)
		return -ENOSPC;
	if (found) { /* the table's ifindex_base moved: the name starts again in the new range */
		s->entries[at].ifindex = v;
	} else {
		int err = insert(s, at, key, v);

		if (err)
			return err;
	}
	save(s);
	*ifindexp = v;
	return 0;
}
