/*
 * epochfile.h - the epoch file as epochfile.c keeps it, for epoch.c: the
 * handle, its live header fields, the bounded consistent reads, and the
 * lock and odd/even seq bracket of stores (docs/epochs.md, "The epoch
 * file" and "Protocol").  epochs_open(), epochs_ref() and epochs_unref(),
 * which view.c and snapshot.c use too, are declared in internal.h.
 */
#ifndef STATCTR_EPOCHFILE_H
#define STATCTR_EPOCHFILE_H

#include "internal.h"

struct epochs {
	_Atomic uint32_t refs; /* the view and its snapshots */
	int fd;
	bool writable;
	uint8_t *base;
	struct epoch_layout layout;
	uint32_t keep, ncells;
	char *path;
	/* CLOCK_MONOTONIC ns until which reads try once (a read gave up). */
	_Atomic uint64_t busy_until_ns;
};

/* A consistent copy of the live header fields. */
struct epoch_live {
	uint32_t next_number, nkept, oldest, era;
	uint64_t generation;
};

static inline struct epoch_header *epochs_hdr(const struct epochs *e)
{
	return (struct epoch_header *)e->base;
}

static inline struct epoch_record *epochs_record(const struct epochs *e, uint32_t i)
{
	return (struct epoch_record *)(e->base + e->layout.records_off +
	                               (uint64_t)i * EPOCH_RECORD_SIZE);
}

static inline _Atomic uint64_t *epochs_carry(const struct epochs *e)
{
	return (_Atomic uint64_t *)(e->base + e->layout.carry_off);
}

static inline _Atomic uint64_t *epochs_bases(const struct epochs *e, uint32_t i)
{
	return (_Atomic uint64_t *)(e->base + e->layout.bases_off + (uint64_t)i * e->layout.stride);
}

/* A new epoch file for @v's segment as @d declares it, renamed into place. */
int epochs_create(struct statctr_view *v, const struct statctr_segment_decl *d);

/* The live header fields, loaded relaxed: stable only under the lock or in a read. */
struct epoch_live epochs_load_live(const struct epochs *e);
/* 0 when @l's ring indexes are in range, else -EPROTO. */
int epochs_check_live(const struct epochs *e, const struct epoch_live *l);

/*
 * Runs @fn (loads only) on a consistent view of the file, retried while seq
 * is odd or moved, for a bounded time: its result, or -EBUSY, -ESTALE or
 * -EPROTO with a message naming the file.
 */
int epochs_read_stable(const struct epochs *e,
                       int (*fn)(const struct epochs *e, const struct epoch_live *l, void *arg),
                       void *arg);
/* The ring index of epoch @number, or -ENOENT. */
int epochs_find(const struct epochs *e, const struct epoch_live *l, uint32_t number,
                uint32_t *indexp);
/* Record @i into @out; -EPROTO for a name that is not printable text. */
int epochs_copy_record(const struct epochs *e, uint32_t i, struct statctr_epoch *out);

/*
 * Stores hold the file's lock: epochs_lock() waits @wait_ms at most;
 * epochs_writer_lock(), the segment's writer's, replaces @v->epochs with a
 * locked copy when another holder keeps it longer.  Between
 * epochs_store_begin() and epochs_store_end(), seq is odd.
 */
int epochs_lock(const struct epochs *e, unsigned wait_ms);
int epochs_writer_lock(struct statctr_view *v);
void epochs_unlock(const struct epochs *e);
void epochs_store_begin(struct epochs *e);
void epochs_store_end(struct epochs *e);

#endif /* STATCTR_EPOCHFILE_H */
