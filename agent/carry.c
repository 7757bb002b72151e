/*
 * carry.c - carry_over's counts and their state file (see carry.h).
 *
 * Owns struct agg_carry's memory (reference counted by the aggregation
 * thread alone), the declaration hash, which cells carry over and where
 * (carry_each(), carry_hist_block()), and the text of STATE_FILE.carry:
 *
 *   statctr-agentx carry 3
 *   segment NAME HASH GENERATION CREATED_NS   (HASH: 16 hex digits)
 *   carry N | carry none                      (N lines "ID VALUE DISC" follow)
 *   rows R FLOOR                              (after "carry N": R row lines follow)
 *   next N | next none                        (idem, with its "rows")
 *   ...                                       (one group per segment)
 *   end RECORDS
 *
 * Only the static tables' cells with a value or a discontinuity are
 * written: a counter's, a gauge's (its discontinuity), a histogram's (its
 * discontinuity) and the cells of a histogram's bucket block (its sum, its
 * buckets' counts).  A dynamic row carried by name is one line, "TABLE
 * NAME" (NAME's bytes outside '!'..'~', and '%', as %HH) and a "VALUE DISC
 * SINCE" triple per value of its table's rows (carry_each_row()'s offsets);
 * FLOOR is the carry's floor_ns.
 * Version 1 (magic "statctr-agentx carry 1") was written before histograms
 * were carried: it is still read, its histograms carrying nothing, as its
 * agent served them.  Version 2 (no "rows" line) carried no dynamic row:
 * it is still read.  Each version has its own magic so that an older
 * agent refuses a newer file (and moves its discontinuity times) rather
 * than serve a carried discontinuity time with counts that start again.
 * Never decides what a record means (aggregate.c does) and never logs: a
 * read's failure is returned with the line it names.
 */
#include "config.h"

#include "carry.h"
#include "safefile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC        "statctr-agentx carry 3"
#define MAGIC_V2     "statctr-agentx carry 2" /* read only: no "rows" line, none carried */
#define MAGIC_V1     "statctr-agentx carry 1" /* read only: nor any histogram */
#define LINE_MAX_SZ  64 /* "ID VALUE DISC": 10 + 20 + 20 digits and two spaces */
#define HEADER_BYTES 4096
/* a row line's "TABLE NAME": 10 digits, a name of %HH, two spaces */
#define ROW_HEAD_SZ (10 + 3 * STATCTR_MAX_ROWNAME + 2)
#define VALUE_SZ    63 /* " VALUE DISC SINCE": 3 x 20 digits and three spaces */

/* A carry of @ncells cells, zeros, with room for src if @src (filled by the caller). */
static struct agg_carry *carry_alloc(uint32_t ncells, bool src)
{
	size_t n = ncells ? ncells : 1;
	struct agg_carry *c = calloc(1, sizeof(*c) + (size_t)ncells * sizeof(c->v[0]));

	if (c) {
		c->refs = 1;
		c->ncells = ncells;
		c->disc = calloc(n, sizeof(c->disc[0]));
		c->src = src ? malloc(n * sizeof(c->src[0])) : NULL;
	}
	if (c && (!c->disc || (src && !c->src))) {
		carry_drop(c);
		return NULL;
	}
	return c;
}

static bool has_dynamic(const struct statctr_segment_decl *d)
{
	for (uint32_t t = 0; t < d->ntables; t++)
		if (d->tables[t].dynamic)
			return true;
	return false;
}

static void unbind_cell(const struct carry_cell *cv, void *arg)
{
	uint32_t *src = arg;

	src[cv->id] = CARRY_UNBOUND;
}

struct agg_carry *carry_new(const struct statctr_segment_decl *d)
{
	struct agg_carry *c = carry_alloc(d->ncells, has_dynamic(d));

	for (uint32_t i = 0; c && c->src && i < c->ncells; i++)
		c->src[i] = CARRY_STATIC;
	for (uint32_t t = 0; c && c->src && t < d->ntables; t++)
		for (uint32_t r = 0; d->tables[t].dynamic && r < d->tables[t].nrows; r++)
			carry_each_row(d, t, r, unbind_cell, c->src);
	return c;
}

const struct agg_carry *carry_hold(const struct agg_carry *c)
{
	if (c)
		((struct agg_carry *)c)->refs++;
	return c;
}

void carry_drop(const struct agg_carry *cc)
{
	struct agg_carry *c = (struct agg_carry *)cc;

	if (c && --c->refs == 0) {
		carry_rows_free(c->rows);
		free(c->src);
		free(c->disc);
		free(c);
	}
}

struct agg_carry *carry_copy(const struct agg_carry *from)
{
	struct agg_carry *c = from ? carry_alloc(from->ncells, from->src != NULL) : NULL;

	if (c && from->rows && !(c->rows = carry_rows_copy(from->rows))) {
		carry_drop(c);
		return NULL;
	}
	if (c) {
		memcpy(c->v, from->v, from->ncells * sizeof(c->v[0]));
		memcpy(c->disc, from->disc, from->ncells * sizeof(c->disc[0]));
		if (c->src)
			memcpy(c->src, from->src, from->ncells * sizeof(c->src[0]));
		c->floor_ns = from->floor_ns;
	}
	return c;
}

bool carry_at(const struct agg_carry *c, statctr_id id, struct carry_slot *at)
{
	uint32_t s = c->src && id < c->ncells ? c->src[id] : CARRY_STATIC;

	*at = (struct carry_slot){NULL, NULL, 0, s != CARRY_STATIC};
	if (id >= c->ncells) {
		return false;
	} else if (s == CARRY_STATIC) {
		at->v = (uint64_t *)&c->v[id];
		at->disc = &c->disc[id];
	} else if (s != CARRY_UNBOUND && c->rows && s < c->rows->nvalues) {
		at->v = &c->rows->v[s];
		at->disc = &c->rows->disc[s];
		at->since = c->rows->since[s];
	}
	return at->v != NULL;
}

void carry_unbind(struct agg_carry *c)
{
	for (uint32_t i = 0; c->src && i < c->ncells; i++)
		if (c->src[i] != CARRY_STATIC)
			c->src[i] = CARRY_UNBOUND;
	if (c->rows)
		memset(c->rows->since, 0, c->rows->nvalues * sizeof(c->rows->since[0]));
}

/* ------------------------------------------------------------------------
 * The declaration's hash: FNV-1a over every field that gives a cell its meaning.
 */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	return fnv(h, &v, sizeof(v));
}

static uint64_t hash_table(uint64_t h, const struct statctr_table_decl *td)
{
	h = fnv_str(h, td->name);
	h = fnv_u64(h, td->oid);
	h = fnv_u64(h, td->nrows);
	h = fnv_u64(h, (uint64_t)td->dynamic);
	h = fnv_u64(h, td->ncolumns);
	h = fnv_u64(h, td->first_cell);
	for (uint32_t r = 0; td->row_names && r < td->nrows; r++)
		h = fnv_str(h, td->row_names[r]);
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		const struct statctr_column_decl *cd = &td->columns[c];

		h = fnv_str(h, cd->name);
		h = fnv_u64(h, (uint64_t)cd->kind);
		h = fnv_u64(h, cd->nbuckets);
		if (cd->nbuckets)
			h = fnv(h, cd->bounds, cd->nbuckets * sizeof(cd->bounds[0]));
	}
	return h;
}

uint64_t carry_decl_hash(const struct statctr_segment_decl *d)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv_str(h, d->name);
	h = fnv_u64(h, d->ncells);
	h = fnv_u64(h, d->ntables);
	for (uint32_t t = 0; t < d->ntables; t++)
		h = hash_table(h, &d->tables[t]);
	return h;
}

/* ------------------------------------------------------------------------
 * What a declaration carries, cell by cell (canonical numbering,
 * docs/segment-format.md "Histogram cells": the tables' grids, then the
 * bucket blocks, tables and histogram columns in order, nrows blocks each).
 */

/* The cells of @d's tables, before the bucket blocks (docs/segment-format.md). */
static statctr_id grid_cells(const struct statctr_segment_decl *d)
{
	statctr_id n = 0;

	for (uint32_t t = 0; t < d->ntables; t++)
		n += d->tables[t].nrows * d->tables[t].ncolumns;
	return n;
}

/* The cells of the bucket blocks of column @c of @td: one block per row. */
static statctr_id block_cells(const struct statctr_table_decl *td, uint32_t c)
{
	const struct statctr_column_decl *cd = &td->columns[c];

	return cd->kind == STATCTR_KIND_HISTOGRAM ? td->nrows * (cd->nbuckets + 2) : 0;
}

/* Where column @c's bucket block is among a row's values: after the columns
 * and the blocks of the histogram columns before it. */
static uint32_t block_off(const struct statctr_table_decl *td, uint32_t c)
{
	uint32_t off = td->ncolumns;

	for (uint32_t k = 0; k < c; k++)
		if (td->columns[k].kind == STATCTR_KIND_HISTOGRAM)
			off += td->columns[k].nbuckets + 2;
	return off;
}

uint32_t carry_row_values(const struct statctr_table_decl *td)
{
	return block_off(td, td->ncolumns);
}

/* Histogram column @c of @td at row @r, its blocks from @block: its id, sum and buckets. */
static void hist_row_value(const struct statctr_table_decl *td, uint32_t c, statctr_id block,
                           uint32_t r, void (*fn)(const struct carry_cell *cv, void *arg),
                           void *arg)
{
	uint32_t nb = td->columns[c].nbuckets, off = block_off(td, c);
	statctr_id h = td->first_cell + (statctr_id)r * td->ncolumns + c;
	statctr_id b = block + (statctr_id)r * (nb + 2);
	struct carry_cell cv = {CARRY_HIST, h, h, 0, c};

	fn(&cv, arg);
	cv = (struct carry_cell){CARRY_HIST_SUM, b, h, 0, off};
	fn(&cv, arg);
	for (uint32_t k = 0; k <= nb; k++) {
		cv = (struct carry_cell){CARRY_HIST_BUCKET, b + 1 + k, h, k, off + 1 + k};
		fn(&cv, arg);
	}
}

/* Column @c of @td at row @r (its blocks from @block): its values carried. */
static void column_row_value(const struct statctr_table_decl *td, uint32_t c, statctr_id block,
                             uint32_t r, void (*fn)(const struct carry_cell *cv, void *arg),
                             void *arg)
{
	enum statctr_kind k = td->columns[c].kind;
	struct carry_cell cv = {k == STATCTR_KIND_COUNTER ? CARRY_COUNTER : CARRY_GAUGE,
	                        td->first_cell + (statctr_id)r * td->ncolumns + c, 0, 0, c};

	if (k == STATCTR_KIND_HISTOGRAM)
		hist_row_value(td, c, block, r, fn, arg);
	else if (k == STATCTR_KIND_COUNTER || k == STATCTR_KIND_GAUGE)
		fn(&cv, arg);
}

/* The first bucket block of table @t of @d. */
static statctr_id first_block(const struct statctr_segment_decl *d, uint32_t t)
{
	statctr_id block = grid_cells(d);

	for (uint32_t u = 0; u < t; u++)
		for (uint32_t c = 0; c < d->tables[u].ncolumns; c++)
			block += block_cells(&d->tables[u], c);
	return block;
}

statctr_id carry_hist_block(const struct statctr_segment_decl *d, statctr_id id, uint32_t *nb)
{
	for (uint32_t t = 0; t < d->ntables; t++) {
		const struct statctr_table_decl *td = &d->tables[t];
		statctr_id block = first_block(d, t);

		if (id < td->first_cell || id - td->first_cell >= td->nrows * td->ncolumns)
			continue;
		for (uint32_t c = 0; c < td->ncolumns; c++) {
			if (block_cells(td, c) && (id - td->first_cell) % td->ncolumns == c) {
				*nb = td->columns[c].nbuckets;
				return block + (id - td->first_cell) / td->ncolumns * (*nb + 2);
			}
			block += block_cells(td, c);
		}
	}
	return 0;
}

void carry_each_row(const struct statctr_segment_decl *d, uint32_t t, uint32_t r,
                    void (*fn)(const struct carry_cell *cv, void *arg), void *arg)
{
	const struct statctr_table_decl *td = &d->tables[t];
	statctr_id block = first_block(d, t);

	for (uint32_t c = 0; c < td->ncolumns; c++) {
		column_row_value(td, c, block, r, fn, arg);
		block += block_cells(td, c);
	}
}

void carry_each(const struct statctr_segment_decl *d,
                void (*fn)(const struct carry_cell *cv, void *arg), void *arg)
{
	for (uint32_t t = 0; t < d->ntables; t++)
		for (uint32_t r = 0; !d->tables[t].dynamic && r < d->tables[t].nrows; r++)
			carry_each_row(d, t, r, fn, arg);
}

/* ------------------------------------------------------------------------
 * Writing.
 */

struct records {
	const struct carry_record *v;
	uint32_t n;
};

static int put_cells(FILE *f, const char *what, const struct agg_carry *c)
{
	uint32_t n = 0;

	for (uint32_t i = 0; c && i < c->ncells; i++)
		n += c->v[i] || c->disc[i];
	if (!c)
		return fprintf(f, "%s none\n", what) < 0 ? -EIO : 0;
	if (fprintf(f, "%s %" PRIu32 "\n", what, n) < 0)
		return -EIO;
	for (uint32_t i = 0; i < c->ncells; i++)
		if ((c->v[i] || c->disc[i]) &&
		    fprintf(f, "%" PRIu32 " %" PRIu64 " %" PRIu64 "\n", i, c->v[i], c->disc[i]) < 0)
			return -EIO;
	return 0;
}

/* @name, its bytes outside '!'..'~', and '%', as %HH. */
static int put_name(FILE *f, const char *name)
{
	for (const unsigned char *b = (const unsigned char *)name; *b; b++) {
		int err =
		    *b > ' ' && *b <= '~' && *b != '%' ? fputc(*b, f) : fprintf(f, "%%%02X", *b);

		if (err < 0)
			return -EIO;
	}
	return 0;
}

/* @r's row lines: "TABLE NAME" and a "VALUE DISC SINCE" triple per value of its table in @d. */
static int put_row_lines(FILE *f, const struct carry_rows *r, const struct statctr_segment_decl *d)
{
	for (uint32_t i = 0; i < r->n; i++) {
		const struct carry_row *row = &r->row[i];
		uint32_t nv =
		    row->table < d->ntables ? carry_row_values(&d->tables[row->table]) : 0;

		if (fprintf(f, "%" PRIu32 " ", row->table) < 0 || put_name(f, row->name) < 0)
			return -EIO;
		for (uint32_t k = row->first; k < row->first + nv; k++)
			if (fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64, r->v[k], r->disc[k],
			            r->since[k]) < 0)
				return -EIO;
		if (fputc('\n', f) == EOF)
			return -EIO;
	}
	return 0;
}

/* "carry N" or "next N", its cells, "rows R FLOOR" and its rows (@d: what they mean). */
static int put_carry(FILE *f, const char *what, const struct agg_carry *c,
                     const struct statctr_segment_decl *d)
{
	int err = put_cells(f, what, c);

	if (err || !c)
		return err;
	if (c->rows && !d)
		return -EINVAL;
	if (fprintf(f, "rows %" PRIu32 " %" PRIu64 "\n", c->rows ? c->rows->n : 0, c->floor_ns) < 0)
		return -EIO;
	return c->rows ? put_row_lines(f, c->rows, d) : 0;
}

static int fill(FILE *f, void *arg)
{
	const struct records *r = arg;
	int err = fprintf(f, MAGIC "\n") < 0 ? -EIO : 0;

	for (uint32_t i = 0; !err && i < r->n; i++) {
		const struct carry_record *rec = &r->v[i];

		if (fprintf(f, "segment %s %016" PRIx64 " %" PRIu64 " %" PRIu64 "\n", rec->name,
		            rec->decl_hash, rec->generation, rec->created_ns) < 0)
			err = -EIO;
		if (!err)
			err = put_carry(f, "carry", rec->carry, rec->decl);
		if (!err)
			err = put_carry(f, "next", rec->next, rec->decl);
	}
	if (!err && fprintf(f, "end %" PRIu32 "\n", r->n) < 0)
		err = -EIO;
	return err;
}

int carry_file_write(const char *path, const struct carry_record *recs, uint32_t n,
                     const char **whyp)
{
	struct records r = {recs, n};

	return safefile_write(path, SAFEFILE_STATE, 0644, fill, &r, whyp);
}

/* ------------------------------------------------------------------------
 * Reading: the whole file into private memory, then line by line.
 */

struct parser {
	char *at, *end; /* what is left of the buffer */
	uint32_t lineno;
	const struct statctr_config *cfg;
	bool rows; /* version 3: each carry has a "rows" line */
	char *why;
	size_t whysize;
};

static int bad(struct parser *p, const char *what)
{
	snprintf(p->why, p->whysize, "line %" PRIu32 ": %s", p->lineno, what);
	return -EINVAL;
}

/* The next line, NUL-terminated, or NULL at the end. */
static char *next_line(struct parser *p)
{
	char *line = p->at, *nl;

	if (p->at >= p->end)
		return NULL;
	nl = memchr(p->at, '\n', (size_t)(p->end - p->at));
	if (!nl)
		return NULL; /* the writer ends every line: a cut file */
	*nl = '\0';
	p->at = nl + 1;
	p->lineno++;
	return line;
}

/* A decimal (or, @base 16, hex) number ending at a space or the line's end. */
static int number(char **s, int base, uint64_t *v)
{
	char *end;

	if (**s < '0' || **s > (base == 16 ? 'f' : '9'))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*s, &end, base);
	if (errno || end == *s || (*end != ' ' && *end != '\0'))
		return -EINVAL;
	*s = *end ? end + 1 : end;
	return 0;
}

/* "WORD N" or "WORD none": *@np, or UINT32_MAX for none. */
static int count_line(struct parser *p, const char *word, uint32_t *np)
{
	char *line = next_line(p), *s;
	size_t len = strlen(word);
	uint64_t n;

	if (!line || strncmp(line, word, len) != 0 || line[len] != ' ')
		return bad(p, word);
	s = line + len + 1;
	if (strcmp(s, "none") == 0) {
		*np = UINT32_MAX;
		return 0;
	}
	if (number(&s, 10, &n) < 0 || *s || n >= UINT32_MAX)
		return bad(p, "a count expected");
	*np = (uint32_t)n;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A row's name ending at a space or the line's end, its %HH decoded, into
 * @name (its length *@len): 1..STATCTR_MAX_ROWNAME bytes of 0x20..0x7e, as
 * the library's names, else -EINVAL.
 */
static int row_name(char **s, char *name, size_t *len)
{
	char *at = *s;
	size_t n = 0;

	while (*at && *at != ' ') {
		int c = (unsigned char)*at++;

		if (c == '%') {
			int hi = hex_digit(at[0]), lo = hi < 0 ? -1 : hex_digit(at[1]);

			if (lo < 0)
				return -EINVAL;
			c = hi * 16 + lo;
			at += 2;
		} else if (c < '!' || c > '~') {
			return -EINVAL; /* a raw byte of a name is '!'..'~' */
		}
		if (c < ' ' || c > '~' || n == STATCTR_MAX_ROWNAME)
			return -EINVAL;
		name[n++] = (char)c;
	}
	if (!n)
		return -EINVAL;
	name[n] = '\0';
	*len = n;
	*s = *at ? at + 1 : at;
	return 0;
}

/*
 * Row lines read: twice for a carry kept, once to size its rows (rows
 * NULL), once to fill them; once for a carry skipped (d NULL: checked).
 */
struct rows_in {
	const struct statctr_segment_decl *d;
	struct carry_rows *rows;
	uint32_t n, nvalues; /* the rows and values read so far */
	size_t textlen;      /* their names', NULs included */
};

/* Value @i of the row line being read (a triple per value), into z->rows. */
static void row_value(struct rows_in *z, uint32_t i, uint64_t v)
{
	uint64_t *to[3] = {z->rows->v, z->rows->disc, z->rows->since};

	if (z->nvalues + i / 3 < z->rows->nvalues)
		to[i % 3][z->nvalues + i / 3] = v;
}

/* The row line's table @t and name @name (@len bytes), into z->rows. */
static void row_named(struct rows_in *z, uint32_t t, const char *name, size_t len)
{
	char *text = z->rows->text + z->textlen;

	if (z->n >= z->rows->n || z->textlen + len + 1 > z->rows->textlen)
		return;
	memcpy(text, name, len + 1);
	z->rows->row[z->n] = (struct carry_row){t, z->nvalues, text};
}

/* A row line "TABLE NAME VALUE DISC SINCE ...": NULL, or the rule it breaks. */
static const char *row_line(char *s, struct rows_in *z)
{
	char name[STATCTR_MAX_ROWNAME + 1];
	uint64_t t, v;
	size_t len;
	uint32_t i = 0, nv = UINT32_MAX / 3; /* a carry skipped: any count */

	if (number(&s, 10, &t) < 0)
		return "not \"TABLE NAME VALUE DISC SINCE ...\"";
	if (row_name(&s, name, &len) < 0)
		return "a dynamic row's name that is not 1..255 bytes of 0x20..0x7e";
	if (z->d && (t >= z->d->ntables || !z->d->tables[t].dynamic))
		return "a row of a table that is not dynamic";
	if (z->d)
		nv = carry_row_values(&z->d->tables[t]);
	for (; *s && i < 3 * nv; i++) {
		if (number(&s, 10, &v) < 0)
			return "a dynamic row's value that is not a number";
		if (z->rows)
			row_value(z, i, v);
	}
	if (*s || i % 3 || (z->d && i != 3 * nv))
		return "a dynamic row with another count of values than its table's";
	if (z->rows)
		row_named(z, (uint32_t)t, name, len);
	z->n++;
	z->nvalues += i / 3;
	z->textlen += len + 1;
	return NULL;
}

/* The dynamic rows @d's tables have room for. */
static uint64_t dynamic_rows(const struct statctr_segment_decl *d)
{
	uint64_t n = 0;

	for (uint32_t t = 0; t < d->ntables; t++)
		n += d->tables[t].dynamic ? d->tables[t].nrows : 0;
	return n;
}

/*
 * Fills c->rows from the row lines at @at, read once already into @sized
 * (each NUL-terminated now).  A rule of the rows together is named at the
 * "rows" line, line @head.
 */
static int rows_fill(struct parser *p, struct agg_carry *c, const struct rows_in *sized, char *at,
                     uint32_t head)
{
	struct rows_in z = {sized->d, carry_rows_new(sized->n, sized->nvalues, sized->textlen), 0,
	                    0, 0};
	const char *why;

	if (!z.rows) {
		snprintf(p->why, p->whysize, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sized->n; i++, at += strlen(at) + 1)
		(void)row_line(at, &z); /* checked by the first pass */
	c->rows = z.rows;
	carry_rows_sort(c->rows);
	why = carry_rows_check(c->rows, z.d);
	if (why)
		p->lineno = head; /* the file is refused: no line is read after it */
	return why ? bad(p, why) : 0;
}

/* "rows R FLOOR" and R row lines, into @c; @d NULL: checked and skipped. */
static int rows(struct parser *p, const struct statctr_segment_decl *d, struct agg_carry *c)
{
	char *s = next_line(p), *line, *at = p->at; /* the row lines */
	struct rows_in z = {d, NULL, 0, 0, 0};
	uint32_t head = p->lineno;
	uint64_t n, floor_ns;
	const char *why;

	if (!s || strncmp(s, "rows ", 5) != 0)
		return bad(p, "\"rows R FLOOR\" expected");
	s += 5;
	if (number(&s, 10, &n) < 0 || number(&s, 10, &floor_ns) < 0 || *s)
		return bad(p, "not \"rows R FLOOR\"");
	if (d && n > dynamic_rows(d))
		return bad(p, "more dynamic rows than the segment has");
	for (uint64_t i = 0; i < n; i++) {
		if (!(line = next_line(p)))
			return bad(p, "a dynamic row's line expected (cut short)");
		if ((why = row_line(line, &z)) != NULL)
			return bad(p, why);
	}
	if (c)
		c->floor_ns = floor_ns;
	return c && n ? rows_fill(p, c, &z, at, head) : 0;
}

/*
 * "carry N" or "next N" and N lines of cells of @d, and (version 3) its
 * rows, into *@cp (NULL: none); @d NULL: checked and skipped.
 */
static int cells(struct parser *p, const char *word, const struct statctr_segment_decl *d,
                 const struct agg_carry **cp)
{
	struct agg_carry *c = NULL;
	uint32_t n;
	int err = count_line(p, word, &n);

	*cp = NULL;
	if (err < 0 || n == UINT32_MAX)
		return err;
	if (d && n > d->ncells)
		return bad(p, "more cells than the segment has");
	if (d && !(c = carry_new(d))) {
		snprintf(p->why, p->whysize, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n && !err; i++) {
		char *s = next_line(p);
		uint64_t id, v, disc;

		if (!s || number(&s, 10, &id) < 0 || number(&s, 10, &v) < 0 ||
		    number(&s, 10, &disc) < 0 || *s)
			err = bad(p, "not \"CELL VALUE DISCONTINUITY\"");
		else if (d && id >= d->ncells)
			err = bad(p, "a cell beyond the segment's");
		else if (c) {
			c->v[id] = v;
			c->disc[id] = disc;
		}
	}
	if (!err && p->rows)
		err = rows(p, d, c);
	if (err < 0)
		carry_drop(c);
	else
		*cp = c;
	return err;
}

static int segment_of(const struct statctr_config *cfg, const char *name, size_t len)
{
	for (uint32_t i = 0; i < cfg->nsegments; i++)
		if (strlen(cfg->segments[i].name) == len &&
		    strncmp(cfg->segments[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* A record's lines after "segment": its carry and next. */
static int record_lines(struct parser *p, const struct statctr_segment_decl *d,
                        struct carry_record *r)
{
	int err = cells(p, "carry", d, &r->carry);

	if (!err)
		err = cells(p, "next", d, &r->next);
	if (err < 0) {
		carry_drop(r->carry);
		carry_drop(r->next);
	}
	return err;
}

/*
 * "segment NAME HASH GENERATION CREATED_NS" and its cells.  A segment the
 * configuration no longer has is skipped; one it declares otherwise gets a
 * doubted record (generation 0, no cells).
 */
static int record(struct parser *p, char *line, struct carry_record *recs)
{
	char *s = line + strlen("segment "), *sp = strchr(s, ' ');
	struct carry_record r = {0};
	const struct statctr_segment_decl *d = NULL;
	int seg, err;

	if (!sp)
		return bad(p, "not \"segment NAME HASH GENERATION CREATED\"");
	seg = segment_of(p->cfg, s, (size_t)(sp - s));
	s = sp + 1;
	if (number(&s, 16, &r.decl_hash) < 0 || number(&s, 10, &r.generation) < 0 ||
	    number(&s, 10, &r.created_ns) < 0 || *s)
		return bad(p, "not \"segment NAME HASH GENERATION CREATED\"");
	if (seg >= 0 && recs[seg].name)
		return bad(p, "a segment named twice");
	if (seg >= 0 && carry_decl_hash(&p->cfg->segments[seg]) == r.decl_hash)
		d = &p->cfg->segments[seg];
	err = record_lines(p, d, &r);
	if (err < 0 || seg < 0)
		return err;
	r.name = p->cfg->segments[seg].name;
	r.seg = (uint32_t)seg;
	r.decl = d;
	if (!d) { /* its cells meant something else */
		r = (struct carry_record){.name = r.name, .seg = r.seg};
		r.doubt = "declared otherwise when the file was written";
	} else if (!r.generation) {
		r.doubt = "already doubted by the agent that wrote the file";
	}
	recs[seg] = r;
	return 0;
}

static int parse(struct parser *p, struct carry_record *recs)
{
	char *line = next_line(p);
	uint32_t n = 0;
	uint64_t end;
	int err = 0;

	if (!line || (strcmp(line, MAGIC) != 0 && strcmp(line, MAGIC_V2) != 0 &&
	              strcmp(line, MAGIC_V1) != 0))
		return bad(p, "not \"" MAGIC "\"");
	p->rows = strcmp(line, MAGIC) == 0;
	while (!err && (line = next_line(p)) != NULL && strncmp(line, "end ", 4) != 0) {
		if (strncmp(line, "segment ", 8) != 0)
			return bad(p, "\"segment\" or \"end\" expected");
		err = record(p, line, recs);
		n++;
	}
	if (err < 0)
		return err;
	if (!line)
		return bad(p, "no \"end\" line (cut short)");
	line += 4;
	if (number(&line, 10, &end) < 0 || *line || end != n)
		return bad(p, "\"end\" does not count the records");
	if (p->at != p->end)
		return bad(p, "text after \"end\"");
	return 0;
}

/* The largest row lines of @d's dynamic rows, a carry's. */
static size_t row_bytes(const struct statctr_segment_decl *d)
{
	size_t n = 0;

	for (uint32_t t = 0; t < d->ntables; t++)
		if (d->tables[t].dynamic)
			n += (size_t)d->tables[t].nrows *
			     (ROW_HEAD_SZ + (size_t)carry_row_values(&d->tables[t]) * VALUE_SZ);
	return n;
}

/* The largest file an agent of @cfg writes. */
static size_t max_size(const struct statctr_config *cfg)
{
	size_t max = HEADER_BYTES;

	for (uint32_t i = 0; i < cfg->nsegments; i++)
		max += HEADER_BYTES + 2 * ((size_t)cfg->segments[i].ncells * LINE_MAX_SZ +
		                           row_bytes(&cfg->segments[i]));
	return max;
}

int carry_file_read(const char *path, const struct statctr_config *cfg, struct carry_record *recs,
                    char *why, size_t whysize)
{
	const char *rule = "";
	char *buf = NULL;
	size_t len = 0;
	int err = safefile_read(path, max_size(cfg), &buf, &len, &rule);
	struct parser p = {buf, buf + len, 0, cfg, false, why, whysize};

	memset(recs, 0, cfg->nsegments * sizeof(*recs));
	if (err < 0) {
		snprintf(why, whysize, "%s: %s", rule, strerror(-err));
		return err;
	}
	err = parse(&p, recs);
	free(buf);
	for (uint32_t i = 0; err < 0 && i < cfg->nsegments; i++) {
		carry_drop(recs[i].carry);
		carry_drop(recs[i].next);
		recs[i] = (struct carry_record){0};
	}
	return err;
}
