/*
 * carry.h - carry_over's counts (struct agg_carry, which a result's segments
 * refer to: aggregate.h) and the
 * state file that keeps them across agent restarts, STATE_FILE.carry
 * (docs/agent.md, "Counters across writer restarts").
 *
 * The file holds one record per segment: its name, a hash of its
 * declaration (the cells' meaning), the generation (number and creation
 * time) the carry applies to, the carry, and the next generation's carry
 * when the agent saw that generation's final counts: each the static
 * tables' cells and the dynamic rows' values by name.  It is written with
 * safefile_write() (a new file renamed over the old: never through a link,
 * never over anything but a regular file) and read back with
 * safefile_read() (only a file of the agent's user or root, not writable
 * by group or others, at most the size the configuration allows), then
 * parsed strictly: one bad line and the whole file is doubted.
 */
#ifndef STATCTR_AGENT_CARRY_H
#define STATCTR_AGENT_CARRY_H

#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The counts of a segment's earlier generations (docs/agent.md, "Counters
 * across writer restarts"), added to what the current generation counted
 * so that a served counter never goes backwards when a writer restarts.
 * Immutable once a result refers to it; the aggregation thread alone
 * counts its references.
 *
 * A static table's cell carries at its own id (v, disc).  A dynamic row's
 * cells carry by the row's name: rows holds the names the previous
 * generation ended with and their values, and src binds each dynamic
 * cell of this generation to the value of its row's name (CARRY_UNBOUND:
 * none), as the pass that first saw the row found it (aggcarry.c).
 */
#define CARRY_STATIC  UINT32_MAX       /* src: a static table's cell, carried at its id */
#define CARRY_UNBOUND (UINT32_MAX - 1) /* src: a dynamic row's cell that carries nothing */

struct carry_rows;

struct agg_carry {
	unsigned refs;
	uint32_t ncells;
	uint64_t *disc; /* per cell: the discontinuity served before, 0: the library's */
	/* per cell: CARRY_STATIC, CARRY_UNBOUND or its value in rows; NULL: all static */
	uint32_t *src;
	struct carry_rows *rows; /* the dynamic rows carried by name; NULL: none */
	uint64_t floor_ns;       /* a dynamic row's discontinuity is at least this (0: none) */
	/* per cell: the earlier generations' counts (counters of static tables, and the
	 * sum and buckets of their histograms in the cells of their bucket blocks) */
	uint64_t v[];
};

/*
 * The dynamic rows a generation carries by name (carryrows.c): each row's
 * table, name and first value; its values in the order carry_each_row()
 * gives their offsets.
 */
struct carry_row {
	uint32_t table, first;
	const char *name; /* in text */
};

struct carry_rows {
	uint32_t n, nvalues;
	size_t textlen;
	struct carry_row *row; /* sorted by table, then name (carry_rows_sort()) */
	char *text;            /* the names, each NUL-terminated */
	uint64_t *v, *disc;    /* each value's count and discontinuity carried */
	/* each value's: the discontinuity its cell had when its name's row was
	 * first bound this generation; 0: not bound yet */
	uint64_t *since;
};

/* Rows for @n names (@textlen bytes of them, NULs included) and @nvalues values, zeroed. */
struct carry_rows *carry_rows_new(uint32_t n, uint32_t nvalues, size_t textlen);
struct carry_rows *carry_rows_copy(const struct carry_rows *from);
void carry_rows_free(struct carry_rows *r);
/* Sorts the rows by table, then name, for carry_rows_find(). */
void carry_rows_sort(struct carry_rows *r);
/*
 * carry_rows_check() - NULL when sorted rows @r fit @d (their tables
 * valid and dynamic), else the rule they break: a name twice in a table,
 * more rows than a table has.
 */
const char *carry_rows_check(const struct carry_rows *r, const struct statctr_segment_decl *d);
/* The row named @name of table @table, or NULL. */
const struct carry_row *carry_rows_find(const struct carry_rows *r, uint32_t table,
                                        const char *name);

/* The carry of @d's cells: one reference, zeros, nothing bound; NULL when out of memory. */
struct agg_carry *carry_new(const struct statctr_segment_decl *d);
const struct agg_carry *carry_hold(const struct agg_carry *c);
void carry_drop(const struct agg_carry *c);
/* A copy of @from with one reference, or NULL (@from NULL, or out of memory). */
struct agg_carry *carry_copy(const struct agg_carry *from);

/* carry_unbind() - no dynamic row of @c bound: a new generation binds its own. */
void carry_unbind(struct agg_carry *c);

/* The hash of what @d's cells mean: tables, rows, columns, kinds, buckets. */
uint64_t carry_decl_hash(const struct statctr_segment_decl *d);

/*
 * One value carried over, and how a snapshot gives it.  A counter's or a
 * gauge's cell, a histogram's own cell (its discontinuity time) and the
 * cells of its bucket block: its sum and each bucket (id: the block's
 * cell, where the carry keeps them; hist: the histogram's id).  off: its
 * place among its row's values (a dynamic row's carry by name).
 */
enum carry_what { CARRY_COUNTER, CARRY_GAUGE, CARRY_HIST, CARRY_HIST_SUM, CARRY_HIST_BUCKET };

struct carry_cell {
	enum carry_what what;
	statctr_id id, hist;
	uint32_t bucket, off;
};

/* Whether @cv counts (its carry adds up); else only its discontinuity time is carried. */
static inline bool carry_counts(const struct carry_cell *cv)
{
	return cv->what != CARRY_GAUGE && cv->what != CARRY_HIST;
}

/* Whether @cv's cell has a discontinuity time: a bucket block's cells have none of their own. */
static inline bool carry_has_disc(const struct carry_cell *cv)
{
	return cv->what != CARRY_HIST_SUM && cv->what != CARRY_HIST_BUCKET;
}

/*
 * carry_each() - calls @fn for each value @d carries over at its own id,
 * those of its static tables (a dynamic row's carry by name: carry_each_row()):
 * the counters, the histograms (their sums and buckets count;
 * their own cell keeps their discontinuity time), and the gauges, whose
 * discontinuity time a restart does not move either.
 */
void carry_each(const struct statctr_segment_decl *d,
                void (*fn)(const struct carry_cell *cv, void *arg), void *arg);

/* carry_each_row() - the same for row @r of table @t of @d alone, any table. */
void carry_each_row(const struct statctr_segment_decl *d, uint32_t t, uint32_t r,
                    void (*fn)(const struct carry_cell *cv, void *arg), void *arg);

/* The values carry_each_row() gives for each row of @td: their offsets are 0 to this. */
uint32_t carry_row_values(const struct statctr_table_decl *td);

/*
 * Where a carry keeps one cell's: its count and discontinuity, the latest
 * discontinuity of the library's that they stand for (0: the generation's
 * creation), and whether the cell is a dynamic row's (the floor applies).
 */
struct carry_slot {
	uint64_t *v, *disc;
	uint64_t since;
	bool dynamic;
};

/* carry_at() - where @c keeps cell @id's carry: false when it keeps none (@at->v NULL). */
bool carry_at(const struct agg_carry *c, statctr_id id, struct carry_slot *at);

/*
 * carry_hist_block() - where the carry of histogram @id of @d lives: the
 * first cell of its bucket block (its sum; bucket b at 1 + b, each
 * carry_at() that cell), with *@nb its finite buckets; 0 when @id is no
 * histogram.
 */
statctr_id carry_hist_block(const struct statctr_segment_decl *d, statctr_id id, uint32_t *nb);

/*
 * One segment's record.  generation 0: the carry is doubted (no carry;
 * the discontinuity times move), @doubt says why when it was read.
 */
struct carry_record {
	const char *name; /* the configuration's */
	const char *doubt;
	uint32_t seg; /* its index in the configuration */
	uint64_t decl_hash;
	uint64_t generation, created_ns;
	const struct agg_carry *carry, *next; /* NULL: none */
	/* what the carries' cells mean, their rows' values' count: written with
	 * them; NULL in a record read doubted */
	const struct statctr_segment_decl *decl;
};

/*
 * carry_file_write() - writes @n records to @path.  Returns 0 or a negative
 * errno with *@whyp saying what failed.
 */
int carry_file_write(const char *path, const struct carry_record *recs, uint32_t n,
                     const char **whyp);

/*
 * carry_file_read() - the records of @path for @cfg's segments, in
 * @recs[0..cfg->nsegments-1] by segment index; a segment the file has no
 * record of gets .name NULL.  Every record read is checked: a segment of
 * @cfg by name, of the same declaration (hash), cell ids within it.
 * Returns 0; -ENOENT (no file); or another negative errno with @why
 * saying which rule the file or which line broke (then no record is kept).
 * The caller drops the carries of the records.
 */
int carry_file_read(const char *path, const struct statctr_config *cfg, struct carry_record *recs,
                    char *why, size_t whysize);

#endif /* STATCTR_AGENT_CARRY_H */
