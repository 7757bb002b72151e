/*
 * internal.h - what the library's modules share and users never see.
 */
#ifndef STATCTR_INTERNAL_H
#define STATCTR_INTERNAL_H

#include "config.h" /* _GNU_SOURCE and friends: must come before system headers */

#include "layout.h"
#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATCTR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* error.c: set the thread's message and return -err (err > 0). */
int set_error(int err, const char *fmt, ...) STATCTR_PRINTF(2, 3);

/*
 * guard.c: runs fn(arg); a SIGBUS from a shrunk mapping during it makes it
 * return -ESTALE (naming @path) instead of killing the process.  Whatever
 * fn allocated or locked before the fault must be released by the caller.
 */
int guard_run(int (*fn)(void *), void *arg, const char *path);

/* proc.c: liveness through /proc, robust against pid and tid reuse. */
uint64_t proc_start_time(pid_t pid, pid_t tid); /* 0 when gone */
bool proc_alive(pid_t pid, pid_t tid, uint64_t start);
uint64_t realtime_ns(void);

/*
 * meta.c: a validated, read-only description of a mapped segment, shared by
 * the writer (struct statctr_seg) and readers (struct statctr_view).
 */
struct meta {
	const uint8_t *base; /* start of the mapping */
	uint64_t size;
	uint8_t *copy; /* private copy of [0, slots_off): what the fields below point into */
	const struct seg_header *hdr;
	const struct seg_table *tables;
	const struct seg_column *columns;
	const uint32_t *rownames;
	const char *strings;
	uint8_t *cell_kind; /* ncells entries, enum statctr_kind */
};

int meta_init(struct meta *m, const void *base, uint64_t size, const char *path);
void meta_fini(struct meta *m);
const char *meta_string(const struct meta *m, uint32_t off);
int meta_lookup(const struct meta *m, const char *table, const char *column, uint32_t row,
                statctr_id *idp);
const struct slot_header *meta_slot(const struct meta *m, uint32_t s);
const struct seg_header *meta_live_header(const struct meta *m);

struct file_id {
	uint64_t ino, dev;
	uid_t uid;
};

/* The writer's handle. */
struct statctr_seg {
	char *path;
	char *ctl_path;
	struct file_id id, ctl_id; /* the files we created, to remove only those */
	int lock_fd;               /* <path>.lock, flock()ed while we live */
	struct file_id lock_id;
	uint8_t *base; /* read-write mapping of the segment */
	uint64_t size;
	struct ctl_header *ctl; /* read-write mapping of the control file */
	uint64_t ctl_size;
	struct meta meta;
};

struct statctr_slot *seg_slot_header(struct statctr_seg *seg, uint32_t s);

/* The reader's handle. */
struct statctr_view {
	char *path;
	char *ctl_path;
	int fd, ctl_fd;
	struct file_id id;
	uid_t owner; /* required owner of both files, or (uid_t)-1 */
	const uint8_t *base;
	uint64_t size;
	struct ctl_header *ctl; /* NULL when the control file is unusable */
	uint64_t ctl_size;
	bool ctl_writable;
	struct meta meta;
};

int view_ctl_lock(struct statctr_view *view, int byte, unsigned wait_ms);
void view_ctl_unlock(struct statctr_view *view, int byte);

#define CTL_LOCK_COPY  0
#define CTL_LOCK_RESET 1

#endif /* STATCTR_INTERNAL_H */
