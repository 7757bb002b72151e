/*
 * rows.c - dynamic rows: names given and taken back at run time (writer).
 *
 * Owns the writer's private state of each dynamic table (a first-in
 * first-out list of free indexes, a name -> row hash map, the names and
 * incarnation numbers it published, a mutex) and the only stores to the row
 * directory and the incarnation bases (docs/segment-format.md).  The
 * protocol, per row, is a seqlock whose sequence is the entry's gen:
 *   add:    (gen even) release fence; store the bases, added_ns and the
 *           name; release store gen + 1 (odd: present);
 *   remove: release store gen + 1 (even: absent); nothing else.
 * Readers (snapshot.c, read_rowdir()) acquire-load gen around their copy
 * and around the slot reads.  Nothing here is on the fast path, nothing
 * touches a slot's cells (the base is computed from them, read-only), and
 * nothing is read back from the file: the gens and names are the writer's
 * own copies.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct rows {
	pthread_mutex_t lock;
	uint32_t nrows, ncolumns, first_cell, first_rowdir;
	uint32_t *free_fifo; /* ring of nrows free indexes, oldest at free_head */
	uint32_t free_head, free_count;
	char **names;      /* per row: its name while present, else NULL */
	uint64_t *gen;     /* per row: the gen last stored */
	uint32_t *buckets; /* open addressing, linear probing: row + 1, 0 empty */
	uint32_t mask;     /* buckets - 1; at least twice nrows buckets */
};

bool row_name_ok(const char *name, size_t len)
{
	size_t n = strnlen(name, len), i;

	if (n == 0 || n > STATCTR_MAX_ROWNAME || n == len)
		return false;
	for (i = 0; i < n; i++)
		if (!text_byte_ok((unsigned char)name[i]))
			return false;
	return true;
}

/* FNV-1a: names are short, and a writer's own names are not an attack. */
static uint32_t name_hash(const char *name)
{
	uint64_t h = 14695981039346656037ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* The bucket holding @name, or the empty bucket where it would go. */
static uint32_t *bucket_of(const struct rows *rt, const char *name)
{
	uint32_t i = name_hash(name) & rt->mask;

	while (rt->buckets[i] != 0 && strcmp(rt->names[rt->buckets[i] - 1], name) != 0)
		i = (i + 1) & rt->mask;
	return &rt->buckets[i];
}

/* Empties bucket @i, shifting back the entries its removal would cut off. */
static void bucket_delete(struct rows *rt, uint32_t i)
{
	uint32_t j = i, home;

	for (;;) {
		j = (j + 1) & rt->mask;
		if (rt->buckets[j] == 0)
			break;
		home = name_hash(rt->names[rt->buckets[j] - 1]) & rt->mask;
		/* Entry j may move to i unless its home lies cyclically in (i, j]. */
		if (((j - home) & rt->mask) >= ((j - i) & rt->mask)) {
			rt->buckets[i] = rt->buckets[j];
			i = j;
		}
	}
	rt->buckets[i] = 0;
}

static struct rows *rows_new(const struct seg_table *tb)
{
	struct rows *rt = calloc(1, sizeof(*rt));
	uint64_t nbuckets = 2;
	uint32_t r;

	if (!rt)
		return NULL;
	while (nbuckets < 2 * (uint64_t)tb->nrows)
		nbuckets *= 2;
	rt->nrows = tb->nrows;
	rt->ncolumns = tb->ncolumns;
	rt->first_cell = tb->first_cell;
	rt->first_rowdir = tb->first_rowdir;
	rt->mask = (uint32_t)(nbuckets - 1);
	rt->free_fifo = malloc((size_t)tb->nrows * sizeof(*rt->free_fifo));
	rt->names = calloc(tb->nrows, sizeof(*rt->names));
	rt->gen = calloc(tb->nrows, sizeof(*rt->gen));
	rt->buckets = calloc(nbuckets, sizeof(*rt->buckets));
	pthread_mutex_init(&rt->lock, NULL);
	for (r = 0; rt->free_fifo && r < tb->nrows; r++)
		rt->free_fifo[r] = r;
	rt->free_count = tb->nrows;
	return rt;
}

static void rows_free(struct rows *rt)
{
	uint32_t r;

	if (!rt)
		return;
	for (r = 0; rt->names && r < rt->nrows; r++)
		free(rt->names[r]);
	pthread_mutex_destroy(&rt->lock);
	free(rt->free_fifo);
	free(rt->names);
	free(rt->gen);
	free(rt->buckets);
	free(rt);
}

int rows_init(struct statctr_seg *seg)
{
	const struct meta *m = &seg->meta;
	uint32_t t;

	seg->rows = calloc(m->hdr->ntables, sizeof(*seg->rows));
	if (!seg->rows)
		return errmsg_set(ENOMEM, "out of memory for %u tables", m->hdr->ntables);
	for (t = 0; t < m->hdr->ntables; t++) {
		struct rows *rt;

		if (!(m->tables[t].flags & TABLE_DYNAMIC))
			continue;
		rt = seg->rows[t] = rows_new(&m->tables[t]);
		if (!rt || !rt->free_fifo || !rt->names || !rt->gen || !rt->buckets)
			return errmsg_set(ENOMEM, "out of memory for the %u rows of table %s",
			                  m->tables[t].nrows, meta_string(m, m->tables[t].name));
	}
	return 0;
}

void rows_fini(struct statctr_seg *seg)
{
	uint32_t t;

	for (t = 0; seg->rows && t < seg->meta.hdr->ntables; t++)
		rows_free(seg->rows[t]);
	free(seg->rows);
	seg->rows = NULL;
}

/* The row state of dynamic table @table: -ENOENT unknown, -EINVAL static. */
static int dynamic_table(const struct statctr_seg *seg, const char *table, struct rows **rtp)
{
	uint32_t t;
	int err = meta_table_index(&seg->meta, table, &t);

	if (err)
		return err;
	if (!seg->rows[t])
		return errmsg_set(EINVAL, "table %s is static: its rows are declared", table);
	*rtp = seg->rows[t];
	return 0;
}

static struct seg_rowdir *rowdir_entry(struct statctr_seg *seg, const struct rows *rt, uint32_t r)
{
	return (void *)(seg->base + seg->layout.rowdir_off +
	                (uint64_t)(rt->first_rowdir + r) * ROWDIR_SIZE);
}

/*
 * The incarnation base of cell @id: its raw total now, over every slot and
 * the shared slot.  Relaxed loads: nobody should be updating the row
 * (statctr.h), and a reader that sees the new gen sees at least these
 * values in the slots (read-read coherence through the release of gen).
 */
static void store_base(struct statctr_seg *seg, statctr_id id)
{
	_Atomic uint64_t *bases = (void *)(seg->base + seg->layout.bases_off);
	uint64_t total = 0;
	uint32_t s;

	for (s = 0; s <= seg->nslots + seg->meta.hdr->ncpuslots; s++) /* shared and CPU slots too */
		total +=
		    atomic_load_explicit(&seg_slot_header(seg, s)->cells[id], memory_order_relaxed);
	atomic_store_explicit(&bases[id], total, memory_order_relaxed);
}

/*
 * Row @r's bases: its cells', and for a histogram its whole block's (the
 * sum and the buckets start at zero too; its own cell holds descriptors,
 * whose base nobody serves).
 */
static void store_bases(struct statctr_seg *seg, const struct rows *rt, uint32_t r)
{
	statctr_id id = rt->first_cell + r * rt->ncolumns, end = id + rt->ncolumns;
	uint32_t block, b;

	for (; id < end; id++) {
		const struct seg_column *col = meta_hist_of(&seg->meta, id, &block);

		if (!col) {
			store_base(seg, id);
			continue;
		}
		for (b = 0; b < hist_block_cells(col->nbuckets); b++)
			store_base(seg, block + b);
	}
}

/* Publishes row @r as @name: the add half of the protocol above. */
static void publish(struct statctr_seg *seg, struct rows *rt, uint32_t r, const char *name)
{
	struct seg_rowdir *e = rowdir_entry(seg, rt, r);
	uint64_t words[ROWNAME_WORDS] = {0};
	uint32_t w;

	memcpy(words, name, strlen(name) + 1);
	/* gen is even (stored by the remove, or 0): order it before the stores
	 * below; pairs with the acquire fence in read_entry() (snapshot.c),
	 * so a reader whose copy saw any of them sees gen moved on. */
	atomic_thread_fence(memory_order_release);
	store_bases(seg, rt, r);
	atomic_store_explicit(&e->added_ns, realtime_ns(), memory_order_relaxed);
	for (w = 0; w < ROWNAME_WORDS; w++)
		atomic_store_explicit(&e->name[w], words[w], memory_order_relaxed);
	rt->gen[r]++;
	/* Pairs with the acquire load of gen in read_entry() (snapshot.c): a
	 * reader that sees this odd gen sees the bases, time and name above. */
	atomic_store_explicit(&e->gen, rt->gen[r], memory_order_release);
}

static int add_locked(struct statctr_seg *seg, struct rows *rt, const char *table, const char *name,
                      uint32_t *rowp)
{
	uint32_t *bucket = bucket_of(rt, name), r;
	char *copy;

	if (*bucket != 0)
		return errmsg_set(EEXIST, "table %s already has a row %s (row %u)", table, name,
		                  *bucket - 1);
	if (rt->free_count == 0)
		return errmsg_set(ENOSPC, "table %s is full: all %u rows are present", table,
		                  rt->nrows);
	copy = strdup(name);
	if (!copy)
		return errmsg_set(ENOMEM, "out of memory");
	r = rt->free_fifo[rt->free_head];
	rt->free_head = (rt->free_head + 1) % rt->nrows;
	rt->free_count--;
	rt->names[r] = copy;
	*bucket = r + 1;
	publish(seg, rt, r, name);
	*rowp = r;
	return 0;
}

int statctr_row_add(struct statctr_seg *seg, const char *table, const char *name, uint32_t *rowp)
{
	struct rows *rt = NULL;
	int err = dynamic_table(seg, table, &rt);

	if (err)
		return err;
	if (!row_name_ok(name, STATCTR_MAX_ROWNAME + 1))
		return errmsg_set(EINVAL,
		                  "table %s: a row name is 1..%u bytes of printable ASCII "
		                  "(0x20..0x7e)",
		                  table, STATCTR_MAX_ROWNAME);
	pthread_mutex_lock(&rt->lock);
	err = add_locked(seg, rt, table, name, rowp);
	pthread_mutex_unlock(&rt->lock);
	return err;
}

static int remove_locked(struct statctr_seg *seg, struct rows *rt, const char *table, uint32_t r)
{
	if (r >= rt->nrows || !rt->names[r])
		return errmsg_set(ENOENT, "table %s has no present row %u", table, r);
	rt->gen[r]++;
	/* Pairs with the acquire load of gen in read_entry() and the acquire
	 * fence before check_rowdir()'s reload of it (snapshot.c): the row is
	 * absent from here on. */
	atomic_store_explicit(&rowdir_entry(seg, rt, r)->gen, rt->gen[r], memory_order_release);
	bucket_delete(rt, (uint32_t)(bucket_of(rt, rt->names[r]) - rt->buckets));
	free(rt->names[r]);
	rt->names[r] = NULL;
	rt->free_fifo[(rt->free_head + rt->free_count) % rt->nrows] = r;
	rt->free_count++;
	return 0;
}

int statctr_row_remove(struct statctr_seg *seg, const char *table, uint32_t row)
{
	struct rows *rt = NULL;
	int err = dynamic_table(seg, table, &rt);

	if (err)
		return err;
	pthread_mutex_lock(&rt->lock);
	err = remove_locked(seg, rt, table, row);
	pthread_mutex_unlock(&rt->lock);
	return err;
}

int statctr_row_find(const struct statctr_seg *seg, const char *table, const char *name,
                     uint32_t *rowp)
{
	struct rows *rt = NULL;
	uint32_t found;
	int err = dynamic_table(seg, table, &rt);

	if (err)
		return err;
	pthread_mutex_lock(&rt->lock);
	found = *bucket_of(rt, name);
	pthread_mutex_unlock(&rt->lock);
	if (found == 0)
		return errmsg_set(ENOENT, "table %s has no row %s", table, name);
	*rowp = found - 1;
	return 0;
}
