/*
 * layout.h - the on-disk layout of segment and control files, version 4.
 *
 * docs/segment-format.md is the specification; these structs mirror it and
 * the _Static_asserts freeze every offset.  Fields that several processes
 * store to concurrently are _Atomic; the rest are written once, before the
 * file is renamed into place, and are plain.
 */
#ifndef STATCTR_LAYOUT_H
#define STATCTR_LAYOUT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "statctr.h"

#define SEG_MAGIC      "STCTRSEG"
#define CTL_MAGIC      "STCTRCTL"
#define LAYOUT_VERSION 4u /* segment files */
#define CTL_VERSION    1u /* control files: unchanged by versions 2 to 4 */
#define HEADER_SIZE    256u
#define LINE           64u
#define NO_ROWNAMES    UINT32_MAX
#define NO_ROWDIR      UINT32_MAX /* seg_table.first_rowdir of a static table */
#define TABLE_DYNAMIC  1u         /* seg_table.flags: rows named at run time */
#define ROWDIR_SIZE    320u
#define ROWNAME_WORDS  32u /* a row directory name: 256 bytes as 8-byte words */

enum seg_state { SEG_STATE_ACTIVE = 1, SEG_STATE_CLOSED = 2 };
enum owner_state { OWNER_FREE = 0, OWNER_OWNED = 1 };

/* seg_header.writer_flags: what the writer lost during this generation. */
#define WRITER_CTL_LOST STATCTR_WRITER_CTL_LOST /* control file faulted: no copy service */

struct seg_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t file_size;
	uint64_t generation;
	uint64_t created_ns;
	uint64_t creator_start;
	uint32_t creator_pid;
	_Atomic uint32_t state;
	uint32_t nslots;
	uint32_t ncells;
	uint32_t ntables;
	uint32_t ncolumns;
	uint32_t nrownames;
	uint32_t oid;
	uint32_t name;
	_Atomic uint32_t writer_flags; /* WRITER_* bits, stored by the writer after the rename */
	uint64_t tables_off;
	uint64_t columns_off;
	uint64_t rownames_off;
	uint64_t strings_off;
	uint64_t strings_size;
	uint64_t slots_off;
	uint64_t slot_stride;
	uint64_t rowdir_off;
	uint32_t nrowdir;
	uint32_t reserved1;
	uint64_t bases_off;
	uint64_t bounds_off;
	uint32_t nbounds;
	uint32_t ncpuslots;    /* CPU slots, after the shared slot */
	uint32_t cpu_collapse; /* CPUs per CPU slot; 0: no CPU slots */
	uint32_t ncpus;        /* CPUs the CPU slots cover */
	uint8_t reserved2[64];
};

struct seg_table {
	uint32_t name;
	uint32_t description;
	uint32_t oid;
	uint32_t nrows;
	uint32_t ncolumns;
	uint32_t first_column;
	uint32_t first_rowname;
	uint32_t first_cell;
	uint32_t flags; /* TABLE_DYNAMIC */
	uint32_t first_rowdir;
	uint64_t reserved;
};

/*
 * A row directory entry (docs/segment-format.md, "Row directory"), stored
 * by the writer process only, read by readers concurrently: a seqlock per
 * row whose sequence is `gen`.  The name is stored and loaded as relaxed
 * 8-byte atomics, as the cells are, so a reader racing a change reads some
 * bytes (then discarded by the gen check), never undefined behaviour.
 */
struct seg_rowdir {
	_Atomic uint64_t gen; /* odd: present; stored last, with release */
	_Atomic uint64_t added_ns;
	uint8_t reserved[48];
	_Atomic uint64_t name[ROWNAME_WORDS]; /* NUL-terminated, zero-padded */
};

struct seg_column {
	uint32_t name;
	uint32_t description;
	uint32_t units;
	uint32_t kind;
	uint32_t nbuckets;    /* histogram: finite buckets; else 0 */
	uint32_t first_bound; /* histogram: index of its first bound; else 0 */
	uint32_t first_block; /* histogram: row 0's bucket block; else 0 */
	uint32_t reserved;
};

/*
 * The cells of a histogram row's bucket block (docs/segment-format.md,
 * "Histogram cells"): block + 0 the sum, block + 1 + b bucket b, the last
 * (b = nbuckets) +Inf.
 */
static inline uint32_t hist_block_cells(uint32_t nbuckets)
{
	return nbuckets + 2;
}

/* A slot's header line is struct statctr_slot (statctr.h); its cells follow. */

/* A CPU slot's header line (docs/segment-format.md, "CPU slots"). */
struct cpu_slot_header {
	uint64_t reserved0[2];
	_Atomic uint64_t aborts; /* aborted restartable sequences, retried */
	uint64_t reserved1[5];
};

/* CPU slots for @ncpus CPUs, @collapse per slot (0: none). */
static inline uint32_t cpu_slots_for(uint32_t ncpus, uint32_t collapse)
{
	return collapse == 0 ? 0 : (ncpus + collapse - 1) / collapse;
}

struct ctl_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t file_size;
	uint64_t generation;
	uint32_t nslots;
	uint32_t ncells;
	uint64_t reqs_off;
	uint64_t baselines_off;
	uint64_t disc_off;
	uint64_t buf_off;
	uint8_t reserved0[56];
	/* line 2: stored by readers */
	_Atomic uint64_t ticket;
	_Atomic uint64_t reset_seq;
	uint8_t reserved1[48];
	/* line 3: stored by the writer that holds buf_lock */
	_Atomic uint64_t buf_lock; /* 0 free, else copy_lock_word() of the holder */
	_Atomic uint64_t buf_seq;
	_Atomic uint32_t buf_slot;
	uint32_t reserved2;
	_Atomic uint64_t buf_ticket;
	uint8_t reserved3[32];
};

struct ctl_request {
	_Atomic uint64_t req;  /* stored by readers */
	_Atomic uint64_t done; /* stored by the slot's writer, release */
	uint8_t reserved[48];
};

/*
 * The copy buffer's lock word names its holder uniquely: the slot index + 1
 * in the low half, the low 32 bits of the slot's acquisitions count (as of
 * the holder's claim) in the high half.  A reader that finds the holder's
 * slot re-acquired or no longer live clears the lock with a CAS from this
 * very word, which a later owner of the same slot can never hold again
 * (until 2^32 more claims of that slot).
 */
static inline uint64_t copy_lock_word(uint32_t slot_index, uint64_t acquisitions)
{
	return (uint64_t)(uint32_t)acquisitions << 32 | ((uint64_t)slot_index + 1);
}

/*
 * The copy check: a writer stores copy_check_of() its cells in its slot
 * header (memory only it may write) when it copies them to the buffer (in
 * memory readers may write); a reader accepts a buffer only when its own
 * private copy of it has the same check.  Four lanes, each a chain of
 * xor, rotate and multiply by an odd constant (a bijection of the lane for
 * each cell, so one changed cell always changes its lane), folded at the
 * end with the count.  It catches a buffer written by two copiers or
 * rewritten by a reader of the control file; it is no MAC (docs/security.md).
 */
static inline uint64_t copy_check_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h = h << 23 | h >> 41;
	return h * 0x9e3779b97f4a7c15ull;
}

static inline uint64_t copy_check_of(const uint64_t *cells, uint32_t n)
{
	uint64_t lane[4] = {1, 2, 3, 4};
	uint32_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		lane[0] = copy_check_mix(lane[0], cells[i]);
		lane[1] = copy_check_mix(lane[1], cells[i + 1]);
		lane[2] = copy_check_mix(lane[2], cells[i + 2]);
		lane[3] = copy_check_mix(lane[3], cells[i + 3]);
	}
	for (; i < n; i++)
		lane[i & 3] = copy_check_mix(lane[i & 3], cells[i]);
	return copy_check_mix(copy_check_mix(copy_check_mix(lane[0], lane[1]), lane[2]) ^ n,
	                      lane[3]);
}

_Static_assert(sizeof(struct seg_header) == HEADER_SIZE, "segment header size");
_Static_assert(offsetof(struct seg_header, generation) == 24, "generation offset");
_Static_assert(offsetof(struct seg_header, state) == 52, "state offset");
_Static_assert(offsetof(struct seg_header, nslots) == 56, "nslots offset");
_Static_assert(offsetof(struct seg_header, oid) == 76, "oid offset");
_Static_assert(offsetof(struct seg_header, writer_flags) == 84, "writer_flags offset");
_Static_assert(offsetof(struct seg_header, tables_off) == 88, "tables_off offset");
_Static_assert(offsetof(struct seg_header, slot_stride) == 136, "slot_stride offset");
_Static_assert(offsetof(struct seg_header, rowdir_off) == 144, "rowdir_off offset");
_Static_assert(offsetof(struct seg_header, nrowdir) == 152, "nrowdir offset");
_Static_assert(offsetof(struct seg_header, bases_off) == 160, "bases_off offset");
_Static_assert(offsetof(struct seg_header, bounds_off) == 168, "bounds_off offset");
_Static_assert(offsetof(struct seg_header, nbounds) == 176, "nbounds offset");
_Static_assert(offsetof(struct seg_header, ncpuslots) == 180, "ncpuslots offset");
_Static_assert(offsetof(struct seg_header, cpu_collapse) == 184, "cpu_collapse offset");
_Static_assert(offsetof(struct seg_header, ncpus) == 188, "ncpus offset");
_Static_assert(offsetof(struct seg_header, reserved2) == 192, "reserved2 offset");
_Static_assert(sizeof(struct seg_table) == 48, "table record size");
_Static_assert(offsetof(struct seg_table, flags) == 32, "table flags offset");
_Static_assert(offsetof(struct seg_table, first_rowdir) == 36, "first_rowdir offset");
_Static_assert(sizeof(struct seg_rowdir) == ROWDIR_SIZE, "row directory entry size");
_Static_assert(offsetof(struct seg_rowdir, added_ns) == 8, "added_ns offset");
_Static_assert(offsetof(struct seg_rowdir, name) == 64, "row name offset");
_Static_assert(ROWNAME_WORDS * 8 == STATCTR_MAX_ROWNAME + 1, "a row name and its NUL");
_Static_assert(sizeof(struct seg_column) == 32, "column record size");
_Static_assert(offsetof(struct seg_column, nbuckets) == 16, "nbuckets offset");
_Static_assert(offsetof(struct seg_column, first_block) == 24, "first_block offset");
_Static_assert(sizeof(struct statctr_slot) == LINE, "slot header is one line");
_Static_assert(offsetof(struct statctr_slot, owner_start) == 16, "owner_start offset");
_Static_assert(offsetof(struct statctr_slot, copy_check) == 32, "copy_check offset");
_Static_assert(offsetof(struct statctr_slot, copy_ticket) == 48, "copy_ticket offset");
_Static_assert(offsetof(struct statctr_slot, copy_served) == 40, "copy_served offset");
_Static_assert(offsetof(struct statctr_slot, copy_resume) == 56, "copy_resume offset");
_Static_assert(offsetof(struct statctr_slot, cells) == LINE, "cells follow the header line");
_Static_assert(sizeof(struct cpu_slot_header) == LINE, "a CPU slot's header is one line");
_Static_assert(offsetof(struct cpu_slot_header, aborts) == 16, "aborts offset");
_Static_assert(sizeof(struct ctl_header) == HEADER_SIZE, "control header size");
_Static_assert(offsetof(struct ctl_header, ticket) == 128, "ticket offset");
_Static_assert(offsetof(struct ctl_header, reset_seq) == 136, "reset_seq offset");
_Static_assert(offsetof(struct ctl_header, buf_lock) == 192, "buf_lock offset");
_Static_assert(offsetof(struct ctl_header, buf_ticket) == 216, "buf_ticket offset");
_Static_assert(sizeof(struct ctl_request) == LINE, "request record is one line");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && sizeof(_Atomic uint32_t) == 4,
               "atomics have the size of the plain types");

static inline uint64_t round_up_line(uint64_t n)
{
	return (n + LINE - 1) & ~(uint64_t)(LINE - 1);
}

static inline uint64_t slot_stride_for(uint32_t ncells)
{
	return LINE + round_up_line((uint64_t)ncells * 8);
}

/*
 * The segment's layout, a function of its counts only (docs/segment-format.md,
 * "Canonical layout").  The writer lays a segment out with it; readers
 * require every offset and the file size to equal it, so no offset read from
 * a file is ever trusted on its own.  Counts are 32-bit and strings_size is
 * bounded by the caller, so nothing here overflows 64 bits.
 */
struct seg_layout {
	uint64_t tables_off, columns_off, bounds_off, rownames_off, strings_off, rowdir_off;
	uint64_t bases_off;
	uint64_t slots_off, stride, size;
};

static inline struct seg_layout seg_layout_for(uint32_t ntables, uint32_t ncolumns,
                                               uint32_t nbounds, uint32_t nrownames,
                                               uint64_t strings_size, uint32_t nrowdir,
                                               uint32_t nslots, uint32_t ncpuslots, uint32_t ncells)
{
	struct seg_layout l;

	l.tables_off = HEADER_SIZE;
	l.columns_off = l.tables_off + (uint64_t)ntables * sizeof(struct seg_table);
	l.bounds_off = l.columns_off + (uint64_t)ncolumns * sizeof(struct seg_column);
	l.rownames_off = l.bounds_off + (uint64_t)nbounds * 8;
	l.strings_off = l.rownames_off + (uint64_t)nrownames * 4;
	l.rowdir_off = round_up_line(l.strings_off + strings_size);
	l.bases_off = l.rowdir_off + (uint64_t)nrowdir * ROWDIR_SIZE;
	l.slots_off = l.bases_off + (nrowdir > 0 ? round_up_line((uint64_t)ncells * 8) : 0);
	l.stride = slot_stride_for(ncells);
	l.size = l.slots_off + ((uint64_t)nslots + 1 + ncpuslots) * l.stride;
	return l;
}

/*
 * The control file's layout, a function of the segment's sizes only.  The
 * writer uses these, never the offsets stored in the file, which anybody
 * allowed to reset may overwrite.
 */
struct ctl_layout {
	uint64_t reqs_off, baselines_off, disc_off, buf_off, size;
};

static inline struct ctl_layout ctl_layout_for(uint32_t nslots, uint32_t ncells)
{
	struct ctl_layout c;
	uint64_t cells = round_up_line((uint64_t)ncells * 8);

	c.reqs_off = HEADER_SIZE;
	c.baselines_off = c.reqs_off + (uint64_t)nslots * LINE;
	c.disc_off = c.baselines_off + cells;
	c.buf_off = c.disc_off + cells;
	c.size = c.buf_off + cells;
	return c;
}

/*
 * The epoch file, <segment path>.epochs (docs/epochs.md).  The first line
 * of the header is written once before the rename; the second is live,
 * stored by starters and captures under the file's lock and read by
 * readers under seq.
 */
#define EPOCH_MAGIC       "STCTREPO"
#define EPOCH_VERSION     1u
#define EPOCH_RECORD_SIZE 128u

struct epoch_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t file_size;
	uint32_t keep;
	uint32_t ncells;
	uint64_t layout_hash;
	uint8_t reserved1[24];
	_Atomic uint64_t seq; /* odd while a start or a capture stores */
	_Atomic uint32_t next_number;
	_Atomic uint32_t nkept;
	_Atomic uint32_t oldest; /* ring index of the oldest kept epoch */
	_Atomic uint32_t era;
	_Atomic uint64_t generation; /* the generation the carry precedes; 0: none live */
	_Atomic uint32_t carried;    /* 1: the carry may hold non-zero totals; 0: all zero */
	uint8_t reserved2[156];
};

struct epoch_record {
	_Atomic uint32_t number; /* 0: empty */
	_Atomic uint32_t era;
	_Atomic uint64_t start_ns;
	_Atomic uint64_t generation;
	uint8_t reserved[40];
	_Atomic uint64_t name[8]; /* NUL-terminated printable ASCII, as 8-byte words */
};

_Static_assert(sizeof(struct epoch_header) == HEADER_SIZE, "epoch header is 256 bytes");
_Static_assert(offsetof(struct epoch_header, seq) == 64, "epoch seq at 64");
_Static_assert(offsetof(struct epoch_header, generation) == 88, "epoch generation at 88");
_Static_assert(sizeof(struct epoch_record) == EPOCH_RECORD_SIZE, "epoch record is 128 bytes");
_Static_assert(offsetof(struct epoch_record, name) == 64, "epoch name at 64");

struct epoch_layout {
	uint64_t records_off, carry_off, stride, bases_off, size;
};

/* Every offset of the epoch file, from the header's keep and the segment's ncells. */
static inline struct epoch_layout epoch_layout_for(uint32_t keep, uint32_t ncells)
{
	struct epoch_layout l;

	l.records_off = HEADER_SIZE;
	l.carry_off = l.records_off + (uint64_t)keep * EPOCH_RECORD_SIZE;
	l.stride = round_up_line((uint64_t)ncells * 8);
	l.bases_off = l.carry_off + l.stride;
	l.size = l.bases_off + (uint64_t)keep * l.stride;
	return l;
}

#endif /* STATCTR_LAYOUT_H */
