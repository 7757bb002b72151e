/*
 * meta.c - validate a segment's header and metadata; answer questions about
 * its tables.
 *
 * Everything a reader learns from a segment passes through here.  The
 * header and the metadata [0, slots_off) are copied into private memory
 * (pread by readers, before anything is mapped; memcpy by the writer from
 * the file it has just built) and every rule of docs/segment-format.md is
 * checked on that copy: the counts against the library limits, every offset
 * and the file size against the canonical layout of the counts, every
 * record and string.  Histograms: their bounds are part of the copy
 * (checked ascending), and the numbering of their bucket cells is recomputed
 * and required (map_histograms()), so that readers and the writer's
 * descriptors (hist.c) find every block from the copy alone.  Afterwards
 * offsets, counts, strings and bounds come from the copy only; the mapping
 * is read for the live header fields and the slots.
 * The row directory and the incarnation bases (between the metadata and the
 * slots) are live, stored by the writer: they are read from the mapping,
 * by snapshot.c, with the per-row protocol, never copied here.
 * A hostile file yields -EPROTO/-EINVAL with the field and value, never a
 * read outside the copy, and costs at most what a valid segment of its
 * declared shape costs.  This module never writes to a mapping or a file.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the header and metadata come from: a mapping, or a descriptor. */
struct source {
	const uint8_t *base; /* the writer's own mapping, or NULL: pread from fd */
	int fd;
	const char *path;
};

int meta_pread(int fd, void *dst, uint64_t n, uint64_t off, const char *path)
{
	uint8_t *p = dst;

	while (n > 0) {
		ssize_t got = pread(fd, p, n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errmsg_set(errno, "%s: cannot read %llu bytes at %llu: %s", path,
			                  (unsigned long long)n, (unsigned long long)off,
			                  strerror(errno));
		if (got == 0)
			return errmsg_set(EPROTO, "%s: file shrank while read (no data at %llu)",
			                  path, (unsigned long long)off);
		p += got;
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

static int fetch(const struct source *src, void *dst, uint64_t n)
{
	if (src->base) {
		memcpy(dst, src->base, n);
		return 0;
	}
	return meta_pread(src->fd, dst, n, 0, src->path);
}

/* The most string bytes names of maximum length could fill (the doc's bound). */
static uint64_t strings_bound(const struct seg_header *h)
{
	uint64_t records = (uint64_t)h->ntables + h->ncolumns;

	return 1 + (uint64_t)(STATCTR_MAX_NAME + 1) * (1 + records) +
	       (uint64_t)(STATCTR_MAX_TEXT + 1) * 2 * records +
	       (uint64_t)(STATCTR_MAX_ROWNAME + 1) * h->nrownames;
}

static int check_identity(const struct seg_header *h, uint64_t size, const char *path)
{
	if (memcmp(h->magic, SEG_MAGIC, 8) != 0)
		return errmsg_set(EPROTO, "%s: not a statctr segment (bad magic)", path);
	if (h->version != LAYOUT_VERSION)
		return errmsg_set(EINVAL, "%s: segment version %u, this library reads %u", path,
		                  h->version, LAYOUT_VERSION);
	if (h->header_size != HEADER_SIZE)
		return errmsg_set(EPROTO, "%s: header_size %u, expected %u", path, h->header_size,
		                  HEADER_SIZE);
	if (h->file_size != size)
		return errmsg_set(EPROTO, "%s: file_size field %llu but the file has %llu bytes",
		                  path, (unsigned long long)h->file_size, (unsigned long long)size);
	if (h->generation == 0)
		return errmsg_set(EPROTO, "%s: generation is 0", path);
	if ((int32_t)h->creator_pid <= 0)
		return errmsg_set(EPROTO, "%s: creator_pid %u is not a process id", path,
		                  h->creator_pid);
	if (!meta_state_ok(atomic_load_explicit(&h->state, memory_order_relaxed)))
		return errmsg_set(EPROTO, "%s: state %u, expected 1 (active) or 2 (closed)", path,
		                  atomic_load_explicit(&h->state, memory_order_relaxed));
	return 0;
}

/* A header count and its bounds; @hi_name names the field @hi comes from, or NULL. */
struct range {
	const char *name;
	uint32_t value, lo, hi;
	const char *hi_name;
};

/* -EPROTO, naming the first count of @r out of its bounds; else 0. */
static int check_ranges(const char *path, const struct range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].value >= r[i].lo && r[i].value <= r[i].hi)
			continue;
		if (r[i].hi_name != NULL)
			return errmsg_set(EPROTO, "%s: %s %u out of range %u..%s (%u)", path,
			                  r[i].name, r[i].value, r[i].lo, r[i].hi_name, r[i].hi);
		return errmsg_set(EPROTO, "%s: %s %u out of range %u..%u", path, r[i].name,
		                  r[i].value, r[i].lo, r[i].hi);
	}
	return 0;
}

/*
 * Counts within the limits.  Every table covers at least one cell of its
 * own and every column and row name belongs to a table, so none of the
 * record counts can exceed ncells in a segment a writer built.
 */
/* CPU slots (docs/segment-format.md, "CPU slots"): all three fields agree. */
static int check_cpu_slots(const struct seg_header *h, const char *path)
{
	const struct range r[] = {
	    {"ncpus", h->ncpus, 1, STATCTR_MAX_CPUS, NULL},
	    {"cpu_collapse", h->cpu_collapse, 1, h->ncpus, "ncpus"},
	};
	int err;

	if (h->cpu_collapse == 0 && h->ncpus == 0 && h->ncpuslots == 0)
		return 0;
	err = check_ranges(path, r, sizeof(r) / sizeof(r[0]));
	if (err)
		return err;
	if (h->ncpuslots != cpu_slots_for(h->ncpus, h->cpu_collapse))
		return errmsg_set(EPROTO, "%s: ncpuslots %u, but %u CPUs by %u make %u", path,
		                  h->ncpuslots, h->ncpus, h->cpu_collapse,
		                  cpu_slots_for(h->ncpus, h->cpu_collapse));
	return 0;
}

static int check_counts(const struct seg_header *h, const char *path)
{
	const struct range r[] = {
	    {"nslots", h->nslots, h->ncpuslots > 0 ? 0 : 1, STATCTR_MAX_SLOTS, NULL},
	    {"ncells", h->ncells, 1, STATCTR_MAX_CELLS, NULL},
	    {"ntables", h->ntables, 1, h->ncells, "ncells"},
	    {"ncolumns", h->ncolumns, 1, h->ncells, "ncells"},
	};
	int err = check_cpu_slots(h, path);

	if (!err)
		err = check_ranges(path, r, sizeof(r) / sizeof(r[0]));
	if (err)
		return err;
	if (h->nrownames > h->ncells)
		return errmsg_set(EPROTO, "%s: nrownames %u exceeds ncells (%u)", path,
		                  h->nrownames, h->ncells);
	if (h->nrowdir > h->ncells)
		return errmsg_set(EPROTO, "%s: nrowdir %u exceeds ncells (%u)", path, h->nrowdir,
		                  h->ncells);
	if (h->nbounds > (uint64_t)STATCTR_MAX_BUCKETS * h->ncolumns)
		return errmsg_set(EPROTO, "%s: nbounds %u exceeds %u per column record (%u)", path,
		                  h->nbounds, STATCTR_MAX_BUCKETS, h->ncolumns);
	if (h->strings_size < 1 || h->strings_size > strings_bound(h))
		return errmsg_set(EPROTO, "%s: strings_size %llu out of range 1..%llu", path,
		                  (unsigned long long)h->strings_size,
		                  (unsigned long long)strings_bound(h));
	return 0;
}

/* Every stored offset and the file size must equal the canonical layout. */
static int check_layout(const struct seg_header *h, const char *path)
{
	struct seg_layout l =
	    seg_layout_for(h->ntables, h->ncolumns, h->nbounds, h->nrownames, h->strings_size,
	                   h->nrowdir, h->nslots, h->ncpuslots, h->ncells);
	const struct {
		const char *name;
		uint64_t stored, expected;
	} field[] = {
	    {"tables_off", h->tables_off, l.tables_off},
	    {"columns_off", h->columns_off, l.columns_off},
	    {"bounds_off", h->bounds_off, l.bounds_off},
	    {"rownames_off", h->rownames_off, l.rownames_off},
	    {"strings_off", h->strings_off, l.strings_off},
	    {"rowdir_off", h->rowdir_off, l.rowdir_off},
	    {"bases_off", h->bases_off, l.bases_off},
	    {"slots_off", h->slots_off, l.slots_off},
	    {"slot_stride", h->slot_stride, l.stride},
	    {"file_size", h->file_size, l.size},
	};
	size_t i;

	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (field[i].stored != field[i].expected)
			return errmsg_set(EPROTO, "%s: %s is %llu, the canonical layout says %llu",
			                  path, field[i].name, (unsigned long long)field[i].stored,
			                  (unsigned long long)field[i].expected);
	return 0;
}

static int check_header(const struct seg_header *h, uint64_t size, const char *path)
{
	int err = check_identity(h, size, path);

	if (!err)
		err = check_counts(h, path);
	if (!err)
		err = check_layout(h, path);
	return err;
}

/*
 * A valid string of min_len..max_len printable ASCII bytes
 * (docs/segment-format.md, "Strings"): what the configuration lets a writer
 * store, and all that readers print to a terminal or a log or serve as a
 * DisplayString.
 */
static bool string_ok(const struct meta *m, uint32_t off, size_t min_len, size_t max_len)
{
	const char *s, *nul;
	uint64_t room;

	if (off >= m->hdr->strings_size)
		return false;
	s = m->strings + off;
	room = m->hdr->strings_size - off;
	nul = memchr(s, '\0', room < max_len + 1 ? room : max_len + 1);
	if (!nul || (size_t)(nul - s) < min_len)
		return false;
	for (; s < nul; s++)
		if (!text_byte_ok((unsigned char)*s))
			return false;
	return true;
}

static int check_strings(const struct meta *m, const char *path)
{
	if (m->strings[0] != '\0')
		return errmsg_set(EPROTO, "%s: string region does not start with a NUL", path);
	if (!string_ok(m, m->hdr->name, 1, STATCTR_MAX_NAME))
		return errmsg_set(EPROTO,
		                  "%s: segment name (string %u) is not 1..%u printable bytes", path,
		                  m->hdr->name, STATCTR_MAX_NAME);
	return 0;
}

/*
 * A histogram record's buckets: 1..STATCTR_MAX_BUCKETS, its bounds at the
 * canonical index @bound (the buckets of the records before it) and
 * strictly ascending.  Other kinds have none.
 */
static int check_buckets(const struct meta *m, uint32_t c, uint64_t bound, const char *path)
{
	const struct seg_column *col = &m->columns[c];
	uint32_t b;

	if (col->reserved != 0)
		return errmsg_set(EPROTO, "%s: column record %u: reserved 0x%x not 0", path, c,
		                  col->reserved);
	if (col->kind != STATCTR_KIND_HISTOGRAM) {
		if (col->nbuckets != 0 || col->first_bound != 0 || col->first_block != 0)
			return errmsg_set(
			    EPROTO,
			    "%s: column record %u of kind %u: nbuckets %u, first_bound "
			    "%u, first_block %u, expected 0",
			    path, c, col->kind, col->nbuckets, col->first_bound, col->first_block);
		return 0;
	}
	if (col->nbuckets < 1 || col->nbuckets > STATCTR_MAX_BUCKETS)
		return errmsg_set(EPROTO, "%s: column record %u: nbuckets %u out of range 1..%u",
		                  path, c, col->nbuckets, STATCTR_MAX_BUCKETS);
	if (col->first_bound != bound || bound + col->nbuckets > m->hdr->nbounds)
		return errmsg_set(EPROTO,
		                  "%s: column record %u: first_bound %u..+%u, expected %llu within "
		                  "nbounds %u",
		                  path, c, col->first_bound, col->nbuckets,
		                  (unsigned long long)bound, m->hdr->nbounds);
	for (b = 1; b < col->nbuckets; b++)
		if (m->bounds[bound + b] <= m->bounds[bound + b - 1])
			return errmsg_set(
			    EPROTO,
			    "%s: column record %u: bound %u (%llu) is not above bound "
			    "%u (%llu)",
			    path, c, b, (unsigned long long)m->bounds[bound + b], b - 1,
			    (unsigned long long)m->bounds[bound + b - 1]);
	return 0;
}

static int check_columns(const struct meta *m, const char *path)
{
	uint64_t bound = 0;
	uint32_t c;
	int err;

	for (c = 0; c < m->hdr->ncolumns; c++) {
		const struct seg_column *col = &m->columns[c];

		if (!string_ok(m, col->name, 1, STATCTR_MAX_NAME))
			return errmsg_set(EPROTO,
			                  "%s: column record %u: name is not 1..%u printable bytes",
			                  path, c, STATCTR_MAX_NAME);
		if (!string_ok(m, col->description, 0, STATCTR_MAX_TEXT) ||
		    !string_ok(m, col->units, 0, STATCTR_MAX_TEXT))
			return errmsg_set(EPROTO, "%s: column record %u: bad description or units",
			                  path, c);
		if (col->kind != STATCTR_KIND_COUNTER && col->kind != STATCTR_KIND_GAUGE &&
		    col->kind != STATCTR_KIND_HISTOGRAM)
			return errmsg_set(EPROTO, "%s: column record %u has kind %u", path, c,
			                  col->kind);
		err = check_buckets(m, c, bound, path);
		if (err)
			return err;
		bound += col->nbuckets;
	}
	if (bound != m->hdr->nbounds)
		return errmsg_set(EPROTO, "%s: nbounds %u, but the histograms have %llu buckets",
		                  path, m->hdr->nbounds, (unsigned long long)bound);
	return 0;
}

static int check_rownames(const struct meta *m, const char *path)
{
	uint32_t r;

	for (r = 0; r < m->hdr->nrownames; r++)
		if (!string_ok(m, m->rownames[r], 1, STATCTR_MAX_ROWNAME))
			return errmsg_set(EPROTO,
			                  "%s: row-name record %u is not 1..%u printable bytes",
			                  path, r, STATCTR_MAX_ROWNAME);
	return 0;
}

/* Table t's own fields; its strings are known valid. */
static int check_table_ranges(const struct meta *m, uint32_t t, const char *path)
{
	const struct seg_header *h = m->hdr;
	const struct seg_table *tb = &m->tables[t];
	const char *name = m->strings + tb->name;

	if (tb->nrows < 1 || tb->ncolumns < 1)
		return errmsg_set(EPROTO, "%s: table %s has %u rows and %u columns", path, name,
		                  tb->nrows, tb->ncolumns);
	if ((uint64_t)tb->first_column + tb->ncolumns > h->ncolumns)
		return errmsg_set(EPROTO, "%s: table %s: columns %u..+%u beyond %u column records",
		                  path, name, tb->first_column, tb->ncolumns, h->ncolumns);
	if (tb->first_rowname != NO_ROWNAMES &&
	    (uint64_t)tb->first_rowname + tb->nrows > h->nrownames)
		return errmsg_set(EPROTO, "%s: table %s: row names %u..+%u beyond %u records", path,
		                  name, tb->first_rowname, tb->nrows, h->nrownames);
	if ((uint64_t)tb->first_cell + (uint64_t)tb->nrows * tb->ncolumns > h->ncells)
		return errmsg_set(EPROTO, "%s: table %s: cells %u..+%llu beyond %u cells", path,
		                  name, tb->first_cell,
		                  (unsigned long long)tb->nrows * tb->ncolumns, h->ncells);
	return 0;
}

/*
 * Table t's dynamic-row fields.  @rowdir is the number of directory entries
 * the tables before it took: a dynamic table's entries follow them, so the
 * tables' ranges are disjoint and in table order.
 */
static int check_table_rows(const struct meta *m, uint32_t t, uint64_t rowdir, const char *path)
{
	const struct seg_table *tb = &m->tables[t];
	const char *name = m->strings + tb->name;

	if ((tb->flags & ~TABLE_DYNAMIC) != 0 || tb->reserved != 0)
		return errmsg_set(EPROTO, "%s: table %s: flags 0x%x or reserved 0x%llx not 0", path,
		                  name, tb->flags, (unsigned long long)tb->reserved);
	if (!(tb->flags & TABLE_DYNAMIC)) {
		if (tb->first_rowdir != NO_ROWDIR)
			return errmsg_set(EPROTO, "%s: static table %s: first_rowdir %u, not 0x%x",
			                  path, name, tb->first_rowdir, NO_ROWDIR);
		return 0;
	}
	if (tb->first_rowname != NO_ROWNAMES)
		return errmsg_set(EPROTO, "%s: dynamic table %s has declared row names", path,
		                  name);
	if (tb->first_rowdir != rowdir || rowdir + tb->nrows > m->hdr->nrowdir)
		return errmsg_set(
		    EPROTO,
		    "%s: dynamic table %s: first_rowdir %u..+%u, expected %llu within "
		    "nrowdir %u",
		    path, name, tb->first_rowdir, tb->nrows, (unsigned long long)rowdir,
		    m->hdr->nrowdir);
	return 0;
}

/* Marks table t's cells with their kinds; a cell already marked overlaps. */
static int mark_cells(struct meta *m, uint32_t t, const char *path)
{
	const struct seg_table *tb = &m->tables[t];
	uint64_t cell = tb->first_cell;
	uint32_t r, c;

	for (r = 0; r < tb->nrows; r++)
		for (c = 0; c < tb->ncolumns; c++, cell++) {
			if (m->cell_kind[cell] != 0)
				return errmsg_set(
				    EPROTO, "%s: table %s overlaps another at cell %llu", path,
				    m->strings + tb->name, (unsigned long long)cell);
			m->cell_kind[cell] = (uint8_t)m->columns[tb->first_column + c].kind;
		}
	return 0;
}

static int compare_names(const void *a, const void *b, void *arg)
{
	const struct meta *m = arg;

	return strcmp(m->strings + m->tables[*(const uint32_t *)a].name,
	              m->strings + m->tables[*(const uint32_t *)b].name);
}

/* Table names are unique: sorted, no two neighbours are equal. */
static int check_unique_tables(struct meta *m, const char *path)
{
	uint32_t n = m->hdr->ntables, t, *order = malloc((size_t)n * sizeof(*order));

	if (!order)
		return errmsg_set(ENOMEM, "%s: out of memory for %u tables", path, n);
	m->table_order = order;
	for (t = 0; t < n; t++)
		order[t] = t;
	qsort_r(order, n, sizeof(*order), compare_names, (void *)m);
	for (t = 1; t < n; t++)
		if (compare_names(&order[t - 1], &order[t], (void *)m) == 0)
			return errmsg_set(EPROTO, "%s: duplicate table name %s", path,
			                  m->strings + m->tables[order[t]].name);
	return 0;
}

/*
 * Histogram column @c (record @col) of table @tb: its rows' bucket blocks
 * start at the canonical *@next, lie inside ncells and overlap no grid.
 */
static int map_blocks(struct meta *m, const struct seg_table *tb, uint32_t c, uint64_t *next,
                      const char *path)
{
	uint32_t column = tb->first_column + c, r, i;
	const struct seg_column *col = &m->columns[column];
	uint64_t size = hist_block_cells(col->nbuckets), end = *next + tb->nrows * size;

	if (col->first_block != *next || end > m->hdr->ncells)
		return errmsg_set(EPROTO,
		                  "%s: table %s column %s: first_block %u, expected %llu with %llu "
		                  "bucket cells within ncells %u",
		                  path, m->strings + tb->name, m->strings + col->name,
		                  col->first_block, (unsigned long long)*next,
		                  (unsigned long long)(end - *next), m->hdr->ncells);
	for (i = (uint32_t)*next; i < end; i++)
		if (m->cell_kind[i] != 0)
			return errmsg_set(EPROTO, "%s: bucket cell %u overlaps a table's cell",
			                  path, i);
	for (r = 0; r < tb->nrows; r++) {
		statctr_id id = tb->first_cell + r * tb->ncolumns + c;

		m->hist[id].column = column;
		m->hist[id].block = (uint32_t)(*next + r * size);
	}
	*next = end;
	return 0;
}

/*
 * The canonical numbering of bucket blocks (docs/segment-format.md,
 * "Histogram cells"): after every grid, tables in order, histogram columns
 * in order, and the last block ends at ncells.
 */
static int map_histograms(struct meta *m, const char *path)
{
	uint64_t next = 0;
	uint32_t t, c;
	int err;

	m->hist = malloc((size_t)m->hdr->ncells * sizeof(*m->hist));
	if (!m->hist)
		return errmsg_set(ENOMEM, "%s: out of memory for %u cells", path, m->hdr->ncells);
	memset(m->hist, 0xff, (size_t)m->hdr->ncells * sizeof(*m->hist));
	for (t = 0; t < m->hdr->ntables; t++)
		next += (uint64_t)m->tables[t].nrows * m->tables[t].ncolumns;
	for (t = 0; t < m->hdr->ntables; t++)
		for (c = 0; c < m->tables[t].ncolumns; c++) {
			if (m->columns[m->tables[t].first_column + c].kind !=
			    STATCTR_KIND_HISTOGRAM)
				continue;
			err = map_blocks(m, &m->tables[t], c, &next, path);
			if (err)
				return err;
		}
	if (next != m->hdr->ncells)
		return errmsg_set(EPROTO, "%s: ncells %u, but the tables and buckets have %llu",
		                  path, m->hdr->ncells, (unsigned long long)next);
	return 0;
}

/* A dynamic row's cells of histogram @id's block belong to the row too. */
static void map_dynamic_block(struct meta *m, statctr_id id, uint32_t entry)
{
	uint32_t block, b;
	const struct seg_column *col = meta_hist_of(m, id, &block);

	for (b = 0; col && b < hist_block_cells(col->nbuckets); b++)
		m->cell_rowdir[block + b] = entry;
}

/* Per cell of a dynamic row, its directory entry: what snapshots serve by. */
static int map_dynamic_cells(struct meta *m, const char *path)
{
	uint32_t t, r, c;

	m->cell_rowdir = malloc((size_t)m->hdr->ncells * sizeof(*m->cell_rowdir));
	if (!m->cell_rowdir)
		return errmsg_set(ENOMEM, "%s: out of memory for %u cells", path, m->hdr->ncells);
	memset(m->cell_rowdir, 0xff, (size_t)m->hdr->ncells * sizeof(*m->cell_rowdir));
	for (t = 0; t < m->hdr->ntables; t++) {
		const struct seg_table *tb = &m->tables[t];

		for (r = 0; (tb->flags & TABLE_DYNAMIC) && r < tb->nrows; r++)
			for (c = 0; c < tb->ncolumns; c++) {
				statctr_id id = tb->first_cell + r * tb->ncolumns + c;

				m->cell_rowdir[id] = tb->first_rowdir + r;
				map_dynamic_block(m, id, tb->first_rowdir + r);
			}
	}
	return 0;
}

static int check_tables(struct meta *m, const char *path)
{
	uint64_t rowdir = 0;
	uint32_t t;
	int err;

	for (t = 0; t < m->hdr->ntables; t++) {
		const struct seg_table *tb = &m->tables[t];

		if (!string_ok(m, tb->name, 1, STATCTR_MAX_NAME) ||
		    !string_ok(m, tb->description, 0, STATCTR_MAX_TEXT))
			return errmsg_set(EPROTO, "%s: table record %u: bad name or description",
			                  path, t);
		err = check_table_ranges(m, t, path);
		if (!err)
			err = check_table_rows(m, t, rowdir, path);
		if (!err)
			err = mark_cells(m, t, path);
		if (err)
			return err;
		rowdir += (tb->flags & TABLE_DYNAMIC) ? tb->nrows : 0;
	}
	if (rowdir != m->hdr->nrowdir)
		return errmsg_set(EPROTO, "%s: nrowdir %u, but the dynamic tables have %llu rows",
		                  path, m->hdr->nrowdir, (unsigned long long)rowdir);
	err = check_unique_tables(m, path);
	if (!err && m->hdr->nbounds > 0)
		err = map_histograms(m, path);
	if (!err && m->hdr->nrowdir > 0)
		err = map_dynamic_cells(m, path);
	return err;
}

/* Validates the records of the copy, whose header is already valid. */
static int check_metadata(struct meta *m, const char *path)
{
	const struct seg_header *h = m->hdr;
	int err;

	m->tables = (const void *)(m->copy + h->tables_off);
	m->columns = (const void *)(m->copy + h->columns_off);
	m->bounds = (const void *)(m->copy + h->bounds_off);
	m->rownames = (const void *)(m->copy + h->rownames_off);
	m->strings = (const char *)(m->copy + h->strings_off);
	m->cell_kind = calloc(h->ncells, 1);
	if (!m->cell_kind)
		return errmsg_set(ENOMEM, "%s: out of memory for %u cells", path, h->ncells);
	err = check_strings(m, path);
	if (!err)
		err = check_columns(m, path);
	if (!err)
		err = check_rownames(m, path);
	if (!err)
		err = check_tables(m, path);
	return err;
}

/*
 * Copies and checks the header, then copies the metadata [0, rowdir_off) -
 * only now known to lie inside the file and to be no larger than the
 * declared shape needs - and checks every record.
 */
static int meta_load(struct meta *m, const struct source *src, uint64_t size)
{
	struct seg_header h;
	int err;

	memset(m, 0, sizeof(*m));
	m->size = size;
	if (size < HEADER_SIZE)
		return errmsg_set(EPROTO, "%s: %llu bytes, too short for a segment", src->path,
		                  (unsigned long long)size);
	err = fetch(src, &h, sizeof(h));
	if (!err)
		err = check_header(&h, size, src->path);
	if (err)
		return err;
	m->copy = malloc(h.rowdir_off);
	if (!m->copy)
		return errmsg_set(ENOMEM, "%s: out of memory for %llu bytes of metadata", src->path,
		                  (unsigned long long)h.rowdir_off);
	m->hdr = (const void *)m->copy;
	err = fetch(src, m->copy, h.rowdir_off);
	/* The file may have changed since: the records are checked against the
	 * header that was validated, never against a second reading of it. */
	memcpy(m->copy, &h, sizeof(h));
	if (!err)
		err = check_metadata(m, src->path);
	if (err)
		meta_fini(m);
	return err;
}

int meta_init(struct meta *m, const void *base, uint64_t size, const char *path)
{
	struct source src = {.base = base, .fd = -1, .path = path};
	int err = meta_load(m, &src, size);

	if (!err)
		m->base = base;
	return err;
}

int meta_read(struct meta **mp, int fd, uint64_t size, const char *path)
{
	struct source src = {.base = NULL, .fd = fd, .path = path};
	struct meta *m = malloc(sizeof(*m));
	int err;

	if (!m)
		return errmsg_set(ENOMEM, "%s: out of memory", path);
	err = meta_load(m, &src, size);
	if (err) {
		free(m);
		return err;
	}
	atomic_init(&m->refs, 1);
	*mp = m;
	return 0;
}

struct meta *meta_ref(struct meta *m)
{
	/* Relaxed: a new reference is taken from one that is already held. */
	atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	return m;
}

void meta_unref(struct meta *m)
{
	/* acq_rel: the last holder frees only after every other holder's
	 * reads of the copy (their release decrement pairs with our acquire). */
	if (m && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1) {
		meta_fini(m);
		free(m);
	}
}

void meta_attach(struct meta *m, const void *base)
{
	m->base = base;
}

/* Frees what @m owns and empties it: no pointer into the freed copy is left, and a
 * second call (a writer whose meta_init() failed, then its seg_free()) frees nothing. */
void meta_fini(struct meta *m)
{
	free(m->cell_kind);
	free(m->copy);
	free(m->table_order);
	free(m->cell_rowdir);
	free(m->hist);
	memset(m, 0, sizeof(*m));
}

bool meta_state_ok(uint32_t state)
{
	return state == SEG_STATE_ACTIVE || state == SEG_STATE_CLOSED;
}

/* The live header in the mapping, for the fields stored after creation. */
const struct seg_header *meta_live_header(const struct meta *m)
{
	return (const void *)m->base;
}

const char *meta_string(const struct meta *m, uint32_t off)
{
	return m->strings + off;
}

const struct statctr_slot *meta_slot(const struct meta *m, uint32_t s)
{
	return (const void *)(m->base + m->hdr->slots_off + (uint64_t)s * m->hdr->slot_stride);
}

const struct seg_rowdir *meta_rowdir(const struct meta *m, uint32_t entry)
{
	return (const void *)(m->base + m->hdr->rowdir_off + (uint64_t)entry * ROWDIR_SIZE);
}

const _Atomic uint64_t *meta_bases(const struct meta *m)
{
	return (const void *)(m->base + m->hdr->bases_off);
}

const struct seg_column *meta_hist_of(const struct meta *m, statctr_id id, uint32_t *blockp)
{
	if (!m->hist || id >= m->hdr->ncells || m->hist[id].column == NO_HIST)
		return NULL;
	*blockp = m->hist[id].block;
	return &m->columns[m->hist[id].column];
}

statctr_id meta_value_cell(const struct meta *m, statctr_id id)
{
	uint32_t block;

	return meta_hist_of(m, id, &block) ? block : id;
}

/* Binary search of the tables sorted by name (check_unique_tables()). */
int meta_table_index(const struct meta *m, const char *name, uint32_t *tp)
{
	uint32_t lo = 0, hi = m->hdr->ntables;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, t = m->table_order[mid];
		int cmp = strcmp(name, meta_string(m, m->tables[t].name));

		if (cmp == 0) {
			*tp = t;
			return 0;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return errmsg_set(ENOENT, "segment %s has no table %s", meta_string(m, m->hdr->name), name);
}

int meta_lookup(const struct meta *m, const char *table, const char *column, uint32_t row,
                statctr_id *idp)
{
	const struct seg_table *tb;
	uint32_t c, t;
	int err = meta_table_index(m, table, &t);

	if (err)
		return err;
	tb = &m->tables[t];
	if (row >= tb->nrows)
		return errmsg_set(ENOENT, "table %s has %u rows; row %u is out of range", table,
		                  tb->nrows, row);
	for (c = 0; c < tb->ncolumns; c++) {
		if (strcmp(meta_string(m, m->columns[tb->first_column + c].name), column) == 0) {
			*idp = tb->first_cell + row * tb->ncolumns + c;
			return 0;
		}
	}
	return errmsg_set(ENOENT, "table %s has no column %s", table, column);
}
