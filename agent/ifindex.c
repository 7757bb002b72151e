/*
 * ifindex.c - the ifIndex store (see ifindex.h): "SEGMENT TABLE ROWNAME"
 * keys (segment and table names have no space, so the key splits one way
 * only) and their ifIndex, in a binary tree (tsearch(3)), and its file.
 * Never reads segments; the SNMP thread never touches the file.
 *
 * THREADS
 * The SNMP thread alone searches and changes the store.  The file is
 * written by the store's writer thread, started by ifindex_start() (not by
 * ifindex_open(): a daemon opens the store before its fork, which keeps no
 * thread, and starts it after): the SNMP thread marks the store
 * dirty; the writer waits WRITE_DELAY_MS (so that the names of one pass go
 * in one write), copies the (key, ifIndex) list under s->lock, and writes
 * the copy with safefile_write() outside it.  Keys are never freed before
 * ifindex_close() has joined the writer, so the copy may point at them.
 * Under s->lock: the entry list (it may move when it grows), every
 * entry's ifindex, dirty, stop, and write_err.
 */
#include "config.h" /* _GNU_SOURCE (tdestroy()): before any system header */

/* search.h before Net-SNMP's headers, which define names it declares. */
#include <search.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "ifindex.h"
#include "ifmib.h"
#include "safefile.h"
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A key: two names of at most 63 bytes, a row name of at most 255, spaces. */
#define MAX_KEY        (63 + 1 + 63 + 1 + 255)
#define MAX_FILE       (1024ul * 1024 * 1024) /* larger is not a file this agent wrote */
#define WRITE_DELAY_MS 100

struct name {
	const char *key; /* text[], or a search's probe */
	uint32_t ifindex;
	uint32_t line; /* in the file it was loaded from; 0: added since */
	char text[];
};

/* Where a table's next new name goes: one above every ifIndex its names hold in base..last. */
struct table_hint {
	char *prefix;              /* "SEGMENT TABLE " */
	uint32_t base, last, next; /* next 0: the range is used up */
};

struct ifindex_store {
	char *path; /* NULL: in memory only */
	void *tree; /* struct name *, by key */
	struct table_hint *hints;
	size_t nhints;
	int told_err; /* the SNMP thread's: the last write error it logged */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct name **list; /* every entry, in the order added */
	size_t n, room;
	bool dirty, stop;
	int write_err;
	const char *write_why;
	bool threaded;
	pthread_t writer;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct name *)a)->key, ((const struct name *)b)->key);
}

static struct name *lookup(const struct ifindex_store *s, const char *key)
{
	const struct name probe = {.key = key};
	struct name *const *found = tfind(&probe, &s->tree, by_key);

	return found ? *found : NULL;
}

static struct name *new_entry(const char *key, size_t len, uint32_t ifindex, uint32_t line)
{
	struct name *e = malloc(sizeof(*e) + len + 1);

	if (!e)
		return NULL;
	memcpy(e->text, key, len);
	e->text[len] = '\0';
	e->key = e->text;
	e->ifindex = ifindex;
	e->line = line;
	return e;
}

/* Appends @e to the list (under the lock: the writer copies it) and the tree. */
static int add(struct ifindex_store *s, struct name *e)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->n == s->room) {
		size_t room = s->room ? 2 * s->room : 64;
		struct name **list = realloc(s->list, room * sizeof(*list));

		if (list) {
			s->list = list;
			s->room = room;
		} else {
			err = -ENOMEM;
		}
	}
	if (!err && !tsearch(e, &s->tree, by_key))
		err = -ENOMEM;
	if (!err)
		s->list[s->n++] = e;
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* ------------------------------------------------------------------------
 * Loading: parse every line, then drop duplicates by two sorts, O(n log n).
 */

/* "IFINDEX SEGMENT TABLE ROW": the key is the rest of the line, at least three words. */
static struct name *parse_line(char *line, size_t len, uint32_t lineno)
{
	char *end, *key, *sp;
	unsigned long ifindex = strtoul(line, &end, 10);

	if (end == line || *end != ' ' || ifindex == 0 || ifindex > IFMIB_MAX_INT32)
		return NULL;
	key = end + 1;
	sp = strchr(key, ' ');
	if (!sp || !strchr(sp + 1, ' ') || (size_t)(line + len - key) > MAX_KEY)
		return NULL;
	return new_entry(key, (size_t)(line + len - key), (uint32_t)ifindex, lineno);
}

static int by_key_then_line(const void *a, const void *b)
{
	const struct name *x = *(struct name *const *)a, *y = *(struct name *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int by_ifindex_then_line(const void *a, const void *b)
{
	const struct name *x = *(struct name *const *)a, *y = *(struct name *const *)b;

	if (x->ifindex != y->ifindex)
		return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
	return (x->line > y->line) - (x->line < y->line);
}

static void warn_line(const struct ifindex_store *s, uint32_t line)
{
	snmp_log(LOG_WARNING,
	         "ifIndex file %s:%u: not \"IFINDEX SEGMENT TABLE ROW\" with a new name and "
	         "ifIndex, skipped\n",
	         s->path, line);
}

/*
 * Keeps the first line of each run of equal entries of sorted @v (an edited
 * file may give one name or one ifIndex twice: the first line keeps it).
 */
static size_t drop_repeats(const struct ifindex_store *s, struct name **v, size_t n,
                           int (*cmp)(const void *, const void *))
{
	size_t kept = 0;

	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < n; i++) {
		bool repeat =
		    kept > 0 && (cmp == by_key_then_line ? strcmp(v[kept - 1]->key, v[i]->key) == 0
		                                         : v[kept - 1]->ifindex == v[i]->ifindex);

		if (repeat) {
			warn_line(s, v[i]->line);
			free(v[i]);
			continue;
		}
		v[kept++] = v[i];
	}
	return kept;
}

static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 1;

	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p++)
		n++;
	return n;
}

/* Every well-formed line of @buf in a new array, *@np of them; NULL when out of memory. */
static struct name **parse_all(const struct ifindex_store *s, char *buf, size_t len, size_t *np)
{
	struct name **v = malloc(count_lines(buf, len) * sizeof(*v));
	uint32_t lineno = 0;
	size_t n = 0;

	if (!v)
		return NULL;
	for (char *line = buf; line < buf + len;) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		size_t linelen = nl ? (size_t)(nl - line) : (size_t)(buf + len - line);

		line[linelen] = '\0';
		v[n] = parse_line(line, linelen, ++lineno);
		if (v[n])
			n++;
		else
			warn_line(s, lineno);
		line += linelen + 1;
	}
	*np = n;
	return v;
}

static void load(struct ifindex_store *s)
{
	const char *why;
	char *buf;
	size_t len, n = 0;
	struct name **v;
	int err = safefile_read(s->path, MAX_FILE, &buf, &len, &why);

	if (err < 0) {
		if (err != -ENOENT)
			snmp_log(LOG_WARNING,
			         "ifIndex file %s: %s: %s: every name gets a new ifIndex\n",
			         s->path, why, strerror(-err));
		return;
	}
	v = parse_all(s, buf, len, &n);
	free(buf);
	if (!v) {
		snmp_log(LOG_WARNING, "ifIndex file %s: out of memory, not read\n", s->path);
		return;
	}
	n = drop_repeats(s, v, n, by_key_then_line);
	n = drop_repeats(s, v, n, by_ifindex_then_line);
	for (size_t i = 0; i < n; i++)
		if (add(s, v[i]) < 0)
			free(v[i]);
	free(v);
}

/* ------------------------------------------------------------------------
 * Writing, in the writer thread.
 */

struct line {
	const char *key;
	uint32_t ifindex;
};

struct lines {
	struct line *v;
	size_t n;
};

static int fill(FILE *f, void *arg)
{
	const struct lines *l = arg;

	for (size_t i = 0; i < l->n; i++)
		if (fprintf(f, "%u %s\n", l->v[i].ifindex, l->v[i].key) < 0)
			return -EIO;
	return 0;
}

/* Under s->lock: the list as it is now, to write outside the lock. */
static struct lines copy_list(const struct ifindex_store *s)
{
	struct lines l = {malloc((s->n ? s->n : 1) * sizeof(struct line)), s->n};

	for (size_t i = 0; l.v && i < s->n; i++)
		l.v[i] = (struct line){s->list[i]->key, s->list[i]->ifindex};
	return l;
}

static void write_now(struct ifindex_store *s)
{
	struct lines l;
	const char *why = "out of memory";
	int err = -ENOMEM;

	pthread_mutex_lock(&s->lock);
	s->dirty = false;
	l = copy_list(s);
	pthread_mutex_unlock(&s->lock);
	if (l.v)
		err = safefile_write(s->path, SAFEFILE_STATE, 0644, fill, &l, &why);
	free(l.v);
	pthread_mutex_lock(&s->lock);
	s->write_err = err;
	s->write_why = why;
	pthread_mutex_unlock(&s->lock);
}

static struct timespec realtime_in_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += ms * 1000000l;
	t.tv_sec += t.tv_nsec / 1000000000l;
	t.tv_nsec %= 1000000000l;
	return t;
}

static void *writer(void *arg)
{
	struct ifindex_store *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct timespec at;

		while (!s->dirty && !s->stop)
			pthread_cond_wait(&s->wake, &s->lock);
		if (!s->dirty)
			break;
		/* Coalesce: the names of one pass (or more) go in one write. */
		at = realtime_in_ms(WRITE_DELAY_MS);
		while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &at) == 0)
			;
		pthread_mutex_unlock(&s->lock);
		write_now(s);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ------------------------------------------------------------------------
 * The store.
 */

int ifindex_open(const char *path, struct ifindex_store **sp)
{
	struct ifindex_store *s = calloc(1, sizeof(*s));

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	if (path) {
		s->path = strdup(path);
		if (!s->path) {
			ifindex_close(s);
			return -ENOMEM;
		}
		load(s);
	}
	*sp = s;
	return 0;
}

/* Started with every signal blocked, so that they all go to the main thread. */
int ifindex_start(struct ifindex_store *s)
{
	sigset_t all, old;
	int err;

	if (!s || !s->path || s->threaded)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&s->writer, NULL, writer, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	s->threaded = err == 0;
	return -err;
}

static void no_free(void *node)
{
	(void)node; /* the list owns the entries */
}

void ifindex_close(struct ifindex_store *s)
{
	if (!s)
		return;
	if (s->threaded) /* the writer writes what is still dirty first */
		worker_stop(&s->lock, &s->wake, &s->stop, s->writer);
	tdestroy(s->tree, no_free);
	for (size_t i = 0; i < s->n; i++)
		free(s->list[i]);
	for (size_t i = 0; i < s->nhints; i++)
		free(s->hints[i].prefix);
	free(s->hints);
	free(s->list);
	free(s->path);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	free(s);
}

/* The writer's last outcome, logged once per change (Net-SNMP logs in this thread only). */
static void report_write(struct ifindex_store *s)
{
	const char *why;
	int err;

	pthread_mutex_lock(&s->lock);
	err = s->write_err;
	why = s->write_why;
	pthread_mutex_unlock(&s->lock);
	if (err < 0 && err != s->told_err)
		snmp_log(LOG_WARNING,
		         "ifIndex file %s: %s: %s (the new ifIndex values hold until the agent "
		         "restarts)\n",
		         s->path, why, strerror(-err));
	s->told_err = err;
}

/* One scan of the store for a table's first request, or when its range moved. */
static uint32_t scan_next(const struct ifindex_store *s, const char *prefix, uint32_t base,
                          uint32_t last)
{
	size_t len = strlen(prefix);
	uint32_t next = base;

	for (size_t i = 0; i < s->n && next != 0; i++) {
		uint32_t v = s->list[i]->ifindex;

		if (strncmp(s->list[i]->key, prefix, len) == 0 && v >= base && v <= last &&
		    v >= next)
			next = v == last ? 0 : v + 1;
	}
	return next;
}

static struct table_hint *hint_of(struct ifindex_store *s, const char *prefix, uint32_t base,
                                  uint32_t last)
{
	struct table_hint *h = NULL, *v;

	for (size_t i = 0; i < s->nhints && !h; i++)
		if (strcmp(s->hints[i].prefix, prefix) == 0)
			h = &s->hints[i];
	if (!h) {
		v = realloc(s->hints, (s->nhints + 1) * sizeof(*v));
		if (!v)
			return NULL;
		s->hints = v;
		h = &v[s->nhints];
		*h = (struct table_hint){.prefix = strdup(prefix)};
		if (!h->prefix)
			return NULL;
		s->nhints++;
		h->base = h->last = 0; /* forces the scan below */
	}
	if (h->base != base || h->last != last) {
		h->base = base;
		h->last = last;
		h->next = scan_next(s, prefix, base, last);
	}
	return h;
}

static void mark_dirty(struct ifindex_store *s)
{
	if (!s->path)
		return;
	pthread_mutex_lock(&s->lock);
	s->dirty = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

int ifindex_get(struct ifindex_store *s, const char *segment, const char *table, const char *row,
                uint32_t base, uint32_t n, uint32_t *ifindexp)
{
	char key[MAX_KEY + 1], prefix[MAX_KEY + 1];
	uint32_t last = base + n - 1, v;
	struct table_hint *h;
	struct name *e;

	if (s->path)
		report_write(s);
	snprintf(key, sizeof(key), "%s %s %s", segment, table, row);
	e = lookup(s, key);
	if (e && e->ifindex >= base && e->ifindex <= last) {
		*ifindexp = e->ifindex;
		return 0;
	}
	snprintf(prefix, sizeof(prefix), "%s %s ", segment, table);
	h = hint_of(s, prefix, base, last);
	if (!h)
		return -ENOMEM;
	v = h->next;
	if (v == 0)
		return -ENOSPC;
	if (e) { /* the table's ifindex_base moved: the name starts again in the new range */
		pthread_mutex_lock(&s->lock);
		e->ifindex = v;
		pthread_mutex_unlock(&s->lock);
	} else {
		e = new_entry(key, strlen(key), v, 0);
		if (!e || add(s, e) < 0) {
			free(e);
			return -ENOMEM;
		}
	}
	h->next = v == last ? 0 : v + 1;
	mark_dirty(s);
	*ifindexp = v;
	return 0;
}

int64_t ifindex_reach(struct ifindex_store *s, const char *segment, const char *table,
                      uint32_t base, uint32_t n)
{
	char prefix[MAX_KEY + 1];
	const struct table_hint *h;

	snprintf(prefix, sizeof(prefix), "%s %s ", segment, table);
	h = hint_of(s, prefix, base, base + n - 1);
	if (!h)
		return -ENOMEM;
	return h->next ? h->next - base : n;
}
