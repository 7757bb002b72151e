/*
 * carry.h - carry_over's counts (struct agg_carry, which a result's segments
 * refer to: aggregate.h) and the
 * state file that keeps them across agent restarts, STATE_FILE.carry
 * (docs/agent.md, "Counters across writer restarts").
 *
 * The file holds one record per segment: its name, a hash of its
 * declaration (the cells' meaning), the generation (number and creation
 * time) the carry applies to, the carry, and the next generation's carry
 * when the agent saw that generation's final counts.  It is written with
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
 */
struct agg_carry {
	unsigned refs;
	uint32_t ncells;
	uint64_t *disc; /* per cell: the discontinuity served before, 0: the library's */
	/* per cell: the earlier generations' counts (counters of static tables, and the
	 * sum and buckets of their histograms in the cells of their bucket blocks) */
	uint64_t v[];
};

/* The carry values: one reference, zeros; NULL when out of memory. */
struct agg_carry *carry_new(uint32_t ncells);
const struct agg_carry *carry_hold(const struct agg_carry *c);
void carry_drop(const struct agg_carry *c);
/* A copy of @from with one reference, or NULL (@from NULL, or out of memory). */
struct agg_carry *carry_copy(const struct agg_carry *from);

/* The hash of what @d's cells mean: tables, rows, columns, kinds, buckets. */
uint64_t carry_decl_hash(const struct statctr_segment_decl *d);

/*
 * One value carried over, and how a snapshot gives it.  A counter's or a
 * gauge's cell, a histogram's own cell (its discontinuity time) and the
 * cells of its bucket block: its sum and each bucket (id: the block's
 * cell, where the carry keeps them; hist: the histogram's id).
 */
enum carry_what { CARRY_COUNTER, CARRY_GAUGE, CARRY_HIST, CARRY_HIST_SUM, CARRY_HIST_BUCKET };

struct carry_cell {
	enum carry_what what;
	statctr_id id, hist;
	uint32_t bucket;
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
 * carry_each() - calls @fn for each value @d carries over, those of its
 * static tables (a dynamic row name's counts may land in another row next
 * generation): the counters, the histograms (their sums and buckets count;
 * their own cell keeps their discontinuity time), and the gauges, whose
 * discontinuity time a restart does not move either.  @hist_only: the
 * histograms' alone.
 */
void carry_each(const struct statctr_segment_decl *d, bool hist_only,
                void (*fn)(const struct carry_cell *cv, void *arg), void *arg);

/*
 * carry_hist_block() - where the carry of histogram @id of @d lives: the
 * first cell of its bucket block (its sum; bucket b at 1 + b), with *@nb
 * its finite buckets; 0 when @id is no histogram of a static table.
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
