/*
 * meta.c - validate a mapped segment and answer questions about its tables.
 *
 * Everything a reader learns from a segment passes through meta_init(),
 * which checks every offset, count and string against the file size before
 * anything is dereferenced (docs/segment-format.md lists the rules).  A
 * hostile or truncated file yields -EPROTO/-EINVAL, never a wild read.
 * The metadata (everything before the slots) is validated and used as a
 * private copy, so a file changed after validation cannot mislead us.
 * This module never writes to a mapping.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Is [off, off + count * size) inside the file and past the header? */
static bool region_ok(uint64_t file_size, uint64_t off, uint64_t count, uint64_t size)
{
	uint64_t bytes;

	if (off < HEADER_SIZE || off > file_size)
		return false;
	if (size != 0 && count > (file_size - off) / size)
		return false;
	bytes = count * size;
	return bytes <= file_size - off;
}

static bool string_ok(const struct meta *m, uint32_t off, size_t max_len)
{
	const struct seg_header *h = m->hdr;
	const char *s;
	size_t room;

	if (off >= h->strings_size)
		return false;
	s = m->strings + off;
	room = h->strings_size - off;
	return memchr(s, '\0', room < max_len + 1 ? room : max_len + 1) != NULL;
}

static int check_header(const struct meta *m, const char *path)
{
	const struct seg_header *h = m->hdr;

	if (m->size < HEADER_SIZE || memcmp(h->magic, SEG_MAGIC, 8) != 0)
		return set_error(EPROTO, "%s: not a statctr segment (bad magic or too short)",
		                 path);
	if (h->version != LAYOUT_VERSION)
		return set_error(EINVAL, "%s: segment version %u, this library reads %u", path,
		                 h->version, LAYOUT_VERSION);
	if (h->header_size != HEADER_SIZE)
		return set_error(EPROTO, "%s: header_size %u, expected %u", path, h->header_size,
		                 HEADER_SIZE);
	if (h->file_size != m->size)
		return set_error(EPROTO, "%s: file_size field %llu but the file has %llu bytes",
		                 path, (unsigned long long)h->file_size,
		                 (unsigned long long)m->size);
	if (h->generation == 0 || h->creator_pid == 0)
		return set_error(EPROTO, "%s: generation or creator_pid is 0", path);
	if (h->nslots < 1 || h->nslots > STATCTR_MAX_SLOTS)
		return set_error(EPROTO, "%s: nslots %u out of range 1..%u", path, h->nslots,
		                 STATCTR_MAX_SLOTS);
	if (h->ncells < 1 || h->ncells > STATCTR_MAX_CELLS)
		return set_error(EPROTO, "%s: ncells %u out of range 1..%u", path, h->ncells,
		                 STATCTR_MAX_CELLS);
	if (h->ntables < 1 || h->ncolumns < 1)
		return set_error(EPROTO, "%s: no tables or no columns", path);
	return 0;
}

static int check_regions(const struct meta *m, const char *path)
{
	const struct seg_header *h = m->hdr;
	uint64_t size = m->size;

	if (!region_ok(size, h->tables_off, h->ntables, sizeof(struct seg_table)) ||
	    !region_ok(size, h->columns_off, h->ncolumns, sizeof(struct seg_column)) ||
	    !region_ok(size, h->rownames_off, h->nrownames, sizeof(uint32_t)) ||
	    !region_ok(size, h->strings_off, h->strings_size, 1) || h->strings_size < 1)
		return set_error(EPROTO, "%s: a metadata region lies outside the file", path);
	if ((h->tables_off | h->columns_off | h->rownames_off) % 4 != 0)
		return set_error(EPROTO, "%s: misaligned metadata region", path);
	if (h->slot_stride != slot_stride_for(h->ncells) || h->slots_off % LINE != 0 ||
	    !region_ok(size, h->slots_off, (uint64_t)h->nslots + 1, h->slot_stride))
		return set_error(EPROTO, "%s: slot region (offset %llu, stride %llu) invalid", path,
		                 (unsigned long long)h->slots_off,
		                 (unsigned long long)h->slot_stride);
	if (h->tables_off + h->ntables * sizeof(struct seg_table) > h->slots_off ||
	    h->columns_off + h->ncolumns * sizeof(struct seg_column) > h->slots_off ||
	    h->rownames_off + h->nrownames * 4ull > h->slots_off ||
	    h->strings_off + h->strings_size > h->slots_off)
		return set_error(EPROTO, "%s: metadata overlaps the slots", path);
	return 0;
}

static int check_name(const struct meta *m, const char *path)
{
	if (m->strings[0] != '\0' || !string_ok(m, m->hdr->name, STATCTR_MAX_NAME) ||
	    m->strings[m->hdr->name] == '\0')
		return set_error(EPROTO, "%s: bad segment name string", path);
	return 0;
}

static int check_column(const struct meta *m, uint32_t c, const char *path)
{
	const struct seg_column *col = &m->columns[c];

	if (!string_ok(m, col->name, STATCTR_MAX_NAME) || m->strings[col->name] == '\0' ||
	    !string_ok(m, col->description, STATCTR_MAX_TEXT) ||
	    !string_ok(m, col->units, STATCTR_MAX_TEXT))
		return set_error(EPROTO, "%s: column record %u has a bad string", path, c);
	if (col->kind != STATCTR_COUNTER && col->kind != STATCTR_GAUGE)
		return set_error(EPROTO, "%s: column record %u has kind %u", path, c, col->kind);
	return 0;
}

/* Checks table t and marks its cells' kinds; cells already marked overlap. */
static int check_table(struct meta *m, uint32_t t, const char *path)
{
	const struct seg_header *h = m->hdr;
	const struct seg_table *tb = &m->tables[t];
	uint64_t ncells = (uint64_t)tb->nrows * tb->ncolumns;
	uint32_t r, c;

	if (!string_ok(m, tb->name, STATCTR_MAX_NAME) || m->strings[tb->name] == '\0' ||
	    !string_ok(m, tb->description, STATCTR_MAX_TEXT))
		return set_error(EPROTO, "%s: table record %u has a bad string", path, t);
	if (tb->nrows < 1 || tb->ncolumns < 1 ||
	    (uint64_t)tb->first_column + tb->ncolumns > h->ncolumns ||
	    (uint64_t)tb->first_cell + ncells > h->ncells)
		return set_error(EPROTO, "%s: table %s: rows, columns or cells out of range", path,
		                 m->strings + tb->name);
	if (tb->first_rowname != NO_ROWNAMES) {
		if ((uint64_t)tb->first_rowname + tb->nrows > h->nrownames)
			return set_error(EPROTO, "%s: table %s: row names out of range", path,
			                 m->strings + tb->name);
		for (r = 0; r < tb->nrows; r++)
			if (!string_ok(m, m->rownames[tb->first_rowname + r], STATCTR_MAX_ROWNAME))
				return set_error(EPROTO, "%s: table %s: row %u has a bad name",
				                 path, m->strings + tb->name, r);
	}
	for (c = 0; c < tb->ncolumns; c++) {
		int err = check_column(m, tb->first_column + c, path);

		if (err)
			return err;
	}
	for (r = 0; r < tb->nrows; r++)
		for (c = 0; c < tb->ncolumns; c++) {
			uint8_t *kind =
			    &m->cell_kind[tb->first_cell + (uint64_t)r * tb->ncolumns + c];

			if (*kind != 0)
				return set_error(EPROTO, "%s: table %s overlaps another table",
				                 path, m->strings + tb->name);
			*kind = (uint8_t)m->columns[tb->first_column + c].kind;
		}
	return 0;
}

/* Copies the header and metadata out of the mapping; validates nothing else. */
static int copy_metadata(struct meta *m, const void *base, uint64_t size, const char *path)
{
	struct seg_header h;
	uint8_t *copy;

	if (size < HEADER_SIZE)
		return set_error(EPROTO, "%s: %llu bytes, too short for a segment", path,
		                 (unsigned long long)size);
	memcpy(&h, base, sizeof(h));
	if (h.slots_off < HEADER_SIZE || h.slots_off > size)
		return set_error(EPROTO, "%s: slots_off %llu outside the file", path,
		                 (unsigned long long)h.slots_off);
	copy = malloc(h.slots_off);
	if (!copy)
		return set_error(ENOMEM, "%s: out of memory", path);
	memcpy(copy, base, h.slots_off);
	m->copy = copy;
	m->hdr = (const void *)copy;
	return 0;
}

int meta_init(struct meta *m, const void *base, uint64_t size, const char *path)
{
	const struct seg_header *h;
	uint32_t t;
	int err;

	memset(m, 0, sizeof(*m));
	m->base = base;
	m->size = size;
	err = copy_metadata(m, base, size, path);
	if (err)
		return err;
	h = m->hdr;
	err = check_header(m, path);
	if (err)
		goto fail;
	err = check_regions(m, path);
	if (err)
		goto fail;
	/* Only now are the offsets known to lie inside the copy. */
	m->tables = (const void *)(m->copy + h->tables_off);
	m->columns = (const void *)(m->copy + h->columns_off);
	m->rownames = (const void *)(m->copy + h->rownames_off);
	m->strings = (const char *)(m->copy + h->strings_off);
	err = check_name(m, path);
	if (err)
		goto fail;
	m->cell_kind = calloc(h->ncells, 1);
	if (!m->cell_kind) {
		err = set_error(ENOMEM, "%s: out of memory for %u cells", path, h->ncells);
		goto fail;
	}
	for (t = 0; t < h->ntables; t++) {
		err = check_table(m, t, path);
		if (err)
			goto fail;
	}
	return 0;
fail:
	meta_fini(m);
	return err;
}

void meta_fini(struct meta *m)
{
	free(m->cell_kind);
	free(m->copy);
	m->cell_kind = NULL;
	m->copy = NULL;
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

const struct slot_header *meta_slot(const struct meta *m, uint32_t s)
{
	return (const void *)(m->base + m->hdr->slots_off + (uint64_t)s * m->hdr->slot_stride);
}

static const struct seg_table *find_table(const struct meta *m, const char *name)
{
	uint32_t t;

	for (t = 0; t < m->hdr->ntables; t++)
		if (strcmp(meta_string(m, m->tables[t].name), name) == 0)
			return &m->tables[t];
	return NULL;
}

int meta_lookup(const struct meta *m, const char *table, const char *column, uint32_t row,
                statctr_id *idp)
{
	const struct seg_table *tb = find_table(m, table);
	uint32_t c;

	if (!tb)
		return set_error(ENOENT, "segment %s has no table %s", meta_string(m, m->hdr->name),
		                 table);
	if (row >= tb->nrows)
		return set_error(ENOENT, "table %s has %u rows; row %u is out of range", table,
		                 tb->nrows, row);
	for (c = 0; c < tb->ncolumns; c++) {
		if (strcmp(meta_string(m, m->columns[tb->first_column + c].name), column) == 0) {
			*idp = tb->first_cell + row * tb->ncolumns + c;
			return 0;
		}
	}
	return set_error(ENOENT, "table %s has no column %s", table, column);
}
