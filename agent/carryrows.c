/*
 * carryrows.c - the dynamic rows a carry keeps by name (struct carry_rows,
 * carry.h; docs/agent.md, "Counters across writer restarts").
 *
 * Owns their memory (one block: rows, values, names), their order (by
 * table, then name), the lookup of a name and whether rows fit a
 * declaration (a carry file's: carry.c).  Never decides which row
 * gets which name's counts (aggcarry.c binds them) and never reads a
 * snapshot.
 */
#include "config.h"

#include "carry.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct carry_rows *carry_rows_new(uint32_t n, uint32_t nvalues, size_t textlen)
{
	size_t rows = (size_t)n * sizeof(struct carry_row),
	       values = (size_t)nvalues * sizeof(uint64_t);
	struct carry_rows *r = calloc(1, sizeof(*r) + rows + 3 * values + textlen);

	if (!r)
		return NULL;
	r->n = n;
	r->nvalues = nvalues;
	r->textlen = textlen;
	r->row = (struct carry_row *)(r + 1);
	r->v = (uint64_t *)((char *)r->row + rows);
	r->disc = r->v + nvalues;
	r->since = r->disc + nvalues;
	r->text = (char *)(r->since + nvalues);
	return r;
}

struct carry_rows *carry_rows_copy(const struct carry_rows *from)
{
	struct carry_rows *r = carry_rows_new(from->n, from->nvalues, from->textlen);

	if (!r)
		return NULL;
	memcpy(r->v, from->v, from->nvalues * 3 * sizeof(uint64_t)); /* v, disc, since */
	memcpy(r->text, from->text, from->textlen);
	for (uint32_t i = 0; i < from->n; i++) {
		r->row[i] = from->row[i];
		r->row[i].name = r->text + (from->row[i].name - from->text);
	}
	return r;
}

void carry_rows_free(struct carry_rows *r)
{
	free(r);
}

static int by_table_then_name(const void *a, const void *b)
{
	const struct carry_row *x = a, *y = b;

	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return strcmp(x->name, y->name);
}

void carry_rows_sort(struct carry_rows *r)
{
	qsort(r->row, r->n, sizeof(r->row[0]), by_table_then_name);
}

const struct carry_row *carry_rows_find(const struct carry_rows *r, uint32_t table,
                                        const char *name)
{
	struct carry_row key = {table, 0, name};

	return r ? bsearch(&key, r->row, r->n, sizeof(r->row[0]), by_table_then_name) : NULL;
}

const char *carry_rows_check(const struct carry_rows *r, const struct statctr_segment_decl *d)
{
	uint32_t run = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		bool same = i && r->row[i].table == r->row[i - 1].table;

		if (same && strcmp(r->row[i].name, r->row[i - 1].name) == 0)
			return "a dynamic row named twice";
		run = same ? run + 1 : 1;
		if (run > d->tables[r->row[i].table].nrows)
			return "more dynamic rows than their table has";
	}
	return NULL;
}
