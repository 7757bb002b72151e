/*
 * bench_snmpwalk.c - a table walked one varbind per request against one
 * walked with GETBULKs naming every column (docs/PERFORMANCE.md, "SNMP
 * serving"; driven by bench/snmp.sh and bench/snmp-profile.sh).
 *
 *   bench_snmpwalk PEER COMMUNITY TABLE_OID ROUNDS [VARBINDS] [MODE]
 *
 * Finds the columns of TABLE_OID (entry .1) by GETNEXT, then, ROUNDS times,
 * walks the table twice, one way after the other: "one_varbind", GETBULKs
 * of one varbind from TABLE_OID (what snmpbulkwalk does), and
 * "all_columns", GETBULKs naming the cursor of every unfinished column,
 * with max-repetitions VARBINDS / columns.  Both ask for VARBINDS
 * (default 50) varbinds per response.  MODE (one_varbind or all_columns)
 * walks that way only.  Prints one line per way:
 * "way varbinds_per_request varbinds requests median_s median_vb_per_s
 * min_vb_per_s max_vb_per_s" (varbinds and requests of one walk).
 * Exits 2 on a failed request or when two walks return different counts.
 */
#include "config.h"

#include "harness.h"
#include "snmpclient.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS  64
#define MAX_VARBINDS 1000
#define MAX_ROUNDS   1000

/* One subtree walked in step with the others: its prefix and where it is. */
struct stream {
	struct snmpc_oid prefix, cursor;
};

struct walk_result {
	uint64_t varbinds, requests;
};

static bool under(const struct snmpc_oid *o, const struct snmpc_oid *prefix)
{
	return o->len > prefix->len &&
	       !memcmp(o->sub, prefix->sub, prefix->len * sizeof(o->sub[0]));
}

/* <0, 0, >0 as @a sorts before, with or after @b (lexicographic, SNMP order). */
static int oid_cmp(const struct snmpc_oid *a, const struct snmpc_oid *b)
{
	size_t i, n = a->len < b->len ? a->len : b->len;

	for (i = 0; i < n; i++)
		if (a->sub[i] != b->sub[i])
			return a->sub[i] < b->sub[i] ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

static struct snmpc_oid child(const struct snmpc_oid *parent, unsigned long sub)
{
	struct snmpc_oid o = *parent;

	if (o.len >= sizeof(o.sub) / sizeof(o.sub[0]))
		bench_die("OID too long");
	o.sub[o.len++] = sub;
	return o;
}

/* The column numbers under @entry, by GETNEXT from one column to the next. */
static size_t find_columns(struct snmpc *c, const struct snmpc_oid *entry, unsigned long *column)
{
	struct snmpc_oid cursor = child(entry, 0), got;
	size_t n = 0;

	for (;;) {
		if (snmpc_bulk(c, &cursor, 1, 1, &got, 1) != 1)
			bench_die("GETNEXT of a column failed");
		if (!under(&got, entry))
			return n;
		if (n == MAX_COLUMNS)
			bench_die("more than %d columns", MAX_COLUMNS);
		column[n] = got.sub[entry->len];
		cursor = child(entry, column[n++] + 1);
	}
}

/*
 * Takes the varbinds of one answer: varbind k belongs to the k % n-th
 * active stream.  A stream ends at its first varbind outside its prefix or
 * not after its cursor (endOfMibView repeats the OID asked for).  Removes
 * the ended streams from @active and returns how many varbinds were taken.
 */
static uint64_t take_answer(struct stream *s, size_t *active, size_t *nactive,
                            const struct snmpc_oid *out, size_t got)
{
	bool ended[MAX_COLUMNS] = {false};
	uint64_t taken = 0;
	size_t k, j, kept = 0, n = *nactive;

	for (k = 0; k < got; k++) {
		struct stream *st = &s[active[k % n]];

		if (ended[k % n])
			continue;
		if (!under(&out[k], &st->prefix) || oid_cmp(&out[k], &st->cursor) <= 0) {
			ended[k % n] = true;
			continue;
		}
		st->cursor = out[k];
		taken++;
	}
	for (j = 0; j < n; j++)
		if (!ended[j])
			active[kept++] = active[j];
	*nactive = kept;
	return taken;
}

/* Walks the @n streams to their ends, each GETBULK naming every active one. */
static struct walk_result walk(struct snmpc *c, struct stream *s, size_t n, long per_response)
{
	static struct snmpc_oid req[MAX_COLUMNS], out[MAX_VARBINDS];
	size_t active[MAX_COLUMNS], nactive = n, j;
	struct walk_result r = {0, 0};

	for (j = 0; j < n; j++)
		active[j] = j;
	while (nactive > 0) {
		long reps = per_response / (long)nactive > 0 ? per_response / (long)nactive : 1;
		int got;

		for (j = 0; j < nactive; j++)
			req[j] = s[active[j]].cursor;
		got = snmpc_bulk(c, req, nactive, reps, out, MAX_VARBINDS);
		if (got <= 0)
			bench_die("GETBULK of %zu varbinds failed", nactive);
		r.requests++;
		r.varbinds += take_answer(s, active, &nactive, out, (size_t)got);
	}
	return r;
}

struct way {
	const char *name;
	size_t nstreams;
	struct stream stream[MAX_COLUMNS];
	struct walk_result first;
	double rate[MAX_ROUNDS], seconds[MAX_ROUNDS];
};

/* One timed walk of @w (its streams reset to their prefixes); checks the count. */
static void walk_once(struct snmpc *c, struct way *w, unsigned round, long per_response)
{
	struct walk_result r;
	uint64_t t0;
	size_t j;

	for (j = 0; j < w->nstreams; j++)
		w->stream[j].cursor = w->stream[j].prefix;
	t0 = bench_now_ns();
	r = walk(c, w->stream, w->nstreams, per_response);
	w->seconds[round] = (double)(bench_now_ns() - t0) / 1e9;
	w->rate[round] = (double)r.varbinds / w->seconds[round];
	if (round == 0)
		w->first = r;
	else if (r.varbinds != w->first.varbinds)
		bench_die("%s: %" PRIu64 " varbinds, %" PRIu64 " in the first round", w->name,
		          r.varbinds, w->first.varbinds);
}

static void report(struct way *w, unsigned rounds)
{
	struct bench_stats secs = bench_stats_of(w->seconds, rounds);
	struct bench_stats rate = bench_stats_of(w->rate, rounds);

	printf("%s %zu %" PRIu64 " %" PRIu64 " %.4f %.0f %.0f %.0f\n", w->name, w->nstreams,
	       w->first.varbinds, w->first.requests, secs.median, rate.median, rate.min, rate.max);
}

int main(int argc, char **argv)
{
	static struct way ways[2] = {{.name = "one_varbind"}, {.name = "all_columns"}};
	unsigned long column[MAX_COLUMNS];
	struct snmpc_oid table, entry;
	struct snmpc *c;
	unsigned rounds, r, i;
	long per_response;
	size_t ncolumns, j;
	const char *only;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: bench_snmpwalk PEER COMMUNITY TABLE_OID ROUNDS [VARBINDS] "
		                "[one_varbind|all_columns]\n");
		return 2;
	}
	rounds = (unsigned)strtoul(argv[4], NULL, 10);
	per_response = argc > 5 ? strtol(argv[5], NULL, 10) : 50;
	only = argc > 6 ? argv[6] : NULL;
	if (!rounds || rounds > MAX_ROUNDS || per_response < 1 || per_response > MAX_VARBINDS)
		bench_die("bad ROUNDS or VARBINDS");
	snmpc_init();
	if (snmpc_parse(argv[3], &table) != 0 || table.len >= 120)
		bench_die("bad OID %s", argv[3]);
	c = snmpc_open(argv[1], argv[2], 10000);
	if (!c)
		bench_die("cannot open a session to %s", argv[1]);
	entry = child(&table, 1);
	ncolumns = find_columns(c, &entry, column);
	if (!ncolumns)
		bench_die("no column under %s.1", argv[3]);
	ways[0].nstreams = 1;
	ways[0].stream[0].prefix = table;
	ways[1].nstreams = ncolumns;
	for (j = 0; j < ncolumns; j++)
		ways[1].stream[j].prefix = child(&entry, column[j]);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < 2; i++)
			if (!only || !strcmp(only, ways[i].name))
				walk_once(c, &ways[i], r, per_response);
	for (i = 0; i < 2; i++)
		if (!only || !strcmp(only, ways[i].name))
			report(&ways[i], rounds);
	snmpc_close(c);
	if (!only && ways[0].first.varbinds != ways[1].first.varbinds)
		bench_die("the two ways returned %" PRIu64 " and %" PRIu64 " varbinds",
		          ways[0].first.varbinds, ways[1].first.varbinds);
	return 0;
}
