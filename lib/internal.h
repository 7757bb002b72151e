/*
 * internal.h - what the library's modules share and users never see.
 */
#ifndef STATCTR_INTERNAL_H
#define STATCTR_INTERNAL_H

#include "config.h" /* _GNU_SOURCE and friends: must come before system headers */

#include "errmsg.h" /* errmsg_set(): the thread's message, returns -err (common/) */
#include "layout.h"
#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define STATCTR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* 1 where data under a sequence protocol (slot cells, epoch bases) is read
 * and written with plain, vectorisable loads and stores: x86-64 and arm64
 * (an aligned 8-byte access, and each 8-byte element of a vector access,
 * is single-copy atomic), outside ThreadSanitizer, which keeps the relaxed
 * atomics so that its reports stay meaningful (docs/design.md, "Plain
 * loads of slot cells"). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STATCTR_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define STATCTR_TSAN 1
#endif
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(STATCTR_TSAN)
#define PLAIN_SEQ_ACCESS 1
#else
#define PLAIN_SEQ_ACCESS 0
#endif

/*
 * Once-accessors for memory another party writes (slot cells, sequences,
 * the copy buffer, control words).  C lets the compiler load a plain
 * object twice and use the two values for two purposes; for memory another
 * thread stores to, that turns one consistent-looking read into two
 * different ones (issue 35: a row took one load of a cell, the sum another).
 *   - load_once(): one 8-byte load through a volatile lvalue, never
 *     repeated, never merged (Linux READ_ONCE()).
 *   - load_once_pair(): two cells, 16 bytes at an 8-byte-aligned address,
 *     in one vector load (movdqu on x86-64, ldr q on arm64: each 8-byte
 *     half single-copy atomic), for the snapshot's vector loop; the
 *     register it fills is what both the row and the sum take.  An asm
 *     statement, not a volatile vector lvalue: the compiler cannot repeat
 *     it (it does not know it is a load), yet, unlike the volatile form,
 *     folds the address into it and keeps the loop's pointers in registers
 *     (the volatile form cost 3-5% at 10,000 cells, PERFORMANCE.md §2).
 */
static inline uint64_t load_once(const void *p)
{
	return *(const volatile uint64_t *)p;
}

/* Two cells in a vector register; aligned(8): cells are 8-byte aligned. */
typedef uint64_t cells2 __attribute__((vector_size(16)));
typedef uint64_t cells2_u8 __attribute__((vector_size(16), aligned(8)));

static inline cells2 load_once_pair(const uint64_t *p)
{
	cells2 y;

#if defined(__x86_64__)
	__asm__ volatile("movdqu %1, %0" : "=x"(y) : "m"(*(const cells2_u8 *)p));
#elif defined(__aarch64__)
	__asm__ volatile("ldr %q0, %1" : "=w"(y) : "m"(*(const cells2_u8 *)p));
#else
	y = *(const volatile cells2_u8 *)p;
#endif
	return y;
}

/*
 * guard.c: runs fn(arg); a SIGBUS from a shrunk mapping during it makes it
 * return -ESTALE (naming @path) instead of killing the process.  Whatever
 * fn allocated or locked before the fault must be released by the caller.
 */
int guard_run(int (*fn)(void *), void *arg, const char *path);

/*
 * guard.c, writer side: a fixed registry of the writer's own mappings, read
 * lock-free by the same SIGBUS handler.  A fault inside a registered
 * mapping replaces memory in place with private zeroed pages (the whole
 * control mapping; the faulting page of a segment mapping), records the loss
 * in seg->lost, and returns: the faulting access repeats and succeeds.
 */
enum writer_mapping { WRITER_MAP_SEGMENT = 1, WRITER_MAP_CONTROL = 2 };

int guard_register(struct statctr_seg *seg, void *base, uint64_t size, enum writer_mapping kind);
void guard_unregister(const struct statctr_seg *seg);  /* every mapping of @seg */
struct statctr_seg *guard_writer_of(const void *addr); /* whose segment holds @addr */

/*
 * confhist.c: a column's `buckets` (docs/config.md, "Histograms"), read
 * after its kind: required for a histogram, refused for other kinds; sets
 * col->nbuckets and col->bounds (allocated: the declaration frees it).
 * @column is a libconfig setting (config_setting_t).
 */
struct config_setting_t;
int conf_get_buckets(const char *path, const struct config_setting_t *column,
                     struct statctr_column_decl *col);
/* The block cells of table @t: nrows x (nbuckets + 2) per histogram column. */
uint64_t conf_hist_cells(const struct statctr_table_decl *t);

/* proc.c: liveness through /proc, robust against pid and tid reuse. */
uint64_t proc_start_time(pid_t pid, pid_t tid); /* 0 when gone */
bool proc_alive(pid_t pid, pid_t tid, uint64_t start);
uint64_t realtime_ns(void);

/*
 * meta.c: a validated, read-only description of a mapped segment, shared by
 * the writer (struct statctr_seg) and readers (struct statctr_view).  A
 * reader's is reference-counted: its snapshots keep the one they were taken
 * against (row names, the cells of dynamic rows) past a refresh or close
 * of the view, and never use its mapping.
 */
/* Per cell of a segment with histograms (meta.hist): column is the column
 * record of a histogram's id, or NO_HIST (any other cell, block cells too);
 * block is that id's bucket block (its row's: the sum, then the buckets). */
#define NO_HIST UINT32_MAX
struct meta_hist {
	uint32_t column, block;
};

struct meta {
	const uint8_t *base; /* start of the mapping */
	uint64_t size;
	uint8_t *copy; /* private copy of [0, rowdir_off): what the fields below point into */
	const struct seg_header *hdr;
	const struct seg_table *tables;
	const struct seg_column *columns;
	const uint64_t *bounds; /* nbounds, validated ascending per histogram */
	const uint32_t *rownames;
	const char *strings;
	uint8_t *cell_kind;     /* ncells entries, enum statctr_kind */
	uint32_t *table_order;  /* table indexes sorted by name: O(log n) lookups */
	uint32_t *cell_rowdir;  /* nrowdir > 0: per cell (block cells too), its row's
	                         * directory entry or NO_ROWDIR (static); else NULL */
	struct meta_hist *hist; /* nbounds > 0: ncells entries; else NULL */
	_Atomic uint32_t refs;  /* readers: the view and its snapshots */
};

/* The writer validates the segment it built, from its own mapping at @base. */
int meta_init(struct meta *m, const void *base, uint64_t size, const char *path);
/*
 * Readers pread the header and metadata of the @size-byte file @fd into a
 * new private copy (one reference) and validate them before anything is
 * mapped; meta_attach() then names the mapping that meta_slot(),
 * meta_rowdir(), meta_bases() and meta_live_header() read.
 */
int meta_read(struct meta **mp, int fd, uint64_t size, const char *path);
void meta_attach(struct meta *m, const void *base);
void meta_fini(struct meta *m);
struct meta *meta_ref(struct meta *m);
void meta_unref(struct meta *m); /* the last reference frees a meta_read() copy */
/* Reads exactly @n bytes at @off of @fd; -EPROTO when the file is shorter. */
int meta_pread(int fd, void *dst, uint64_t n, uint64_t off, const char *path);
bool meta_state_ok(uint32_t state); /* 1 active or 2 closed */
const char *meta_string(const struct meta *m, uint32_t off);
int meta_lookup(const struct meta *m, const char *table, const char *column, uint32_t row,
                statctr_id *idp);
/* Index of table @name, or -ENOENT with a message. */
int meta_table_index(const struct meta *m, const char *name, uint32_t *tp);
const struct statctr_slot *meta_slot(const struct meta *m, uint32_t s);
const struct seg_rowdir *meta_rowdir(const struct meta *m, uint32_t entry);
const _Atomic uint64_t *meta_bases(const struct meta *m);
/* The column record of histogram @id (with *@blockp its bucket block), or
 * NULL when @id is not a histogram's. */
const struct seg_column *meta_hist_of(const struct meta *m, statctr_id id, uint32_t *blockp);
/* The cell holding @id's value: a histogram's sum (its block's first cell;
 * its own cell holds the writer's descriptor), else @id itself. */
statctr_id meta_value_cell(const struct meta *m, statctr_id id);

/*
 * The one rule for a byte of a name or text a reader may print: printable
 * ASCII, space included (config.c checks declared names and texts with it,
 * rows.c dynamic row names).
 */
static inline bool text_byte_ok(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/*
 * rows.c: the rule for a row's name, for the writer of a dynamic row and
 * its readers: 1..255 bytes for which text_byte_ok() holds, as declared
 * row names.  At most @len bytes are looked at; a valid name has its NUL
 * within them.
 */
bool row_name_ok(const char *name, size_t len);

/*
 * hist.c, writer side: each histogram column's padded bounds in
 * statctr_hist_pool, from the segment's validated metadata, and every
 * writer slot's descriptor of every histogram id (statctr.h,
 * "Histograms"), stored before the rename; the ranges are given back at
 * destroy, after the slots are unmapped.
 */
int hist_claim(struct statctr_seg *seg);
void hist_release(struct statctr_seg *seg);

/* rows.c, writer side: the dynamic tables' private state (struct rows). */
int rows_init(struct statctr_seg *seg);
void rows_fini(struct statctr_seg *seg);
const struct seg_header *meta_live_header(const struct meta *m);

struct file_id {
	uint64_t ino, dev;
	uid_t uid;
};

/* seg->lost bits besides WRITER_CTL_LOST: the segment file faulted under us. */
#define WRITER_SEG_LOST 2u

/* A slot's copy budget (slot.c): its owner thread's alone, one line each. */
struct copy_budget {
	_Alignas(64) uint64_t last_ns; /* CLOCK_MONOTONIC at the end of the last copy, 0: none */
	uint64_t last_seq;             /* the slot's sequence then */
};

/*
 * The writer's handle.  Everything the writer needs after creation is in
 * here, computed by the writer itself: nothing it does reads a size or an
 * offset from either file (both may be rewritten by others; the control
 * file by every resetter).
 */
struct statctr_seg {
	struct statctr_cpu_slots cpu; /* first: statctr_cpu_add() reads it (cpuslot.c) */
	_Atomic uint64_t cpu_misuse;  /* CPU adds on a segment without CPU slots */
	uint32_t nnodes;              /* NUMA nodes with CPUs (cpuslot.c): > 1, placement */
	char *path;
	char *ctl_path;
	struct file_id id, ctl_id; /* the files we created, to remove only those */
	int lock_fd;               /* <path>.lock, flock()ed while we live */
	struct file_id lock_id;
	uint32_t nslots, ncells;
	struct seg_layout layout;     /* seg_layout_for() of the declaration */
	struct ctl_layout ctl_layout; /* ctl_layout_for(nslots, ncells) */
	uint8_t *base;                /* read-write mapping of the segment, layout.size bytes */
	struct ctl_header *ctl;       /* read-write mapping of the control file, ctl_layout.size */
	struct copy_budget *budget;   /* nslots entries */
	struct meta meta;
	uint32_t epoch_keep; /* the declaration's: captures at destroy when > 0 */
	struct rows **rows;  /* per table: its row state when dynamic, else NULL (rows.c) */
	uint32_t *hist_pool; /* per column record: its bounds' index in statctr_hist_pool
	                      * (hist.c), or NO_HIST (not a histogram); NULL: none */
	/* Stored by the SIGBUS handler (guard.c) when a mapping was replaced. */
	_Atomic uint32_t lost;                     /* WRITER_CTL_LOST | WRITER_SEG_LOST */
	_Atomic uint64_t ctl_lost_ns, seg_lost_ns; /* CLOCK_REALTIME of the first fault */
};

_Static_assert(offsetof(struct statctr_seg, cpu) == 0, "statctr_cpu_add() casts the handle");

/* Slot @s's header line in @seg's mapping (nslots: the shared slot; then the CPU slots). */
static inline struct statctr_slot *seg_slot_header(struct statctr_seg *seg, uint32_t s)
{
	return (void *)(seg->base + seg->layout.slots_off + (uint64_t)s * seg->layout.stride);
}

/*
 * cpuslot.c: CPU slots, writer side.  cpu_possible() is the CPU count a
 * segment's CPU slots cover; cpu_slots_init() fills seg->cpu from the
 * validated header (before the rename); cpu_slots_check() is
 * statctr_seg_health()'s part.
 */
uint32_t cpu_possible(void);
/* numa.c: the node of a CPU (-1: unknown), the nodes with CPUs, and the
 * placement of a range's whole pages on a node (best effort, -errno). */
int cpu_node(uint32_t cpu);
uint32_t numa_nodes(void);
int numa_place(void *addr, uint64_t len, int node);
/* At acquire: a thread slot's pages on its new owner's node (> 1 node). */
void cpu_place_thread_slot(struct statctr_seg *seg, struct statctr_slot *slot);
int cpu_slots_init(struct statctr_seg *seg);
void cpu_slots_fini(struct statctr_seg *seg);
int cpu_slots_check(const struct statctr_seg *seg);

/* The reader's handle. */
struct statctr_view {
	char *path;
	char *ctl_path;
	int fd, ctl_fd;
	struct file_id id;
	struct file_id ctl_id;
	uid_t owner; /* required owner of both files, or (uid_t)-1 */
	const uint8_t *base;
	uint64_t size;
	struct ctl_header *ctl; /* NULL when the control file is unusable */
	uint64_t ctl_serial;    /* this mapping of it: unique in the process, 0 without */
	uint64_t ctl_size;
	/* ctl_layout_for() the private header: the only control-file offsets
	 * used; those stored in the file are anybody's who may reset. */
	struct ctl_layout ctl_layout;
	bool ctl_writable;
	/* Per writer slot: the odd sequence it was found stuck at (budget spent,
	 * owner live), 0 if none; not waited on again until it moves. */
	uint64_t *stuck_seq;
	/* Per writer slot: the sequence its last whole sequence read saw
	 * (snapshot.c groups the slots that have not moved since). */
	uint64_t *read_seq;
	/* Per writer slot: its last read came from its writer's copy (a large
	 * slot's next read then asks for one first: snapshot.c, read_slot()). */
	bool *copy_first;
	struct meta *meta;
	bool sums_only;        /* snapshots keep no slot values (statctr_view_set_sums_only()) */
	struct epochs *epochs; /* the validated epoch file, or NULL (epochfile.c) */
	struct statctr_snap *epoch_snap; /* retaken by statctr_epoch_start() */
	/* epoch.c's free of epoch_snap, set with it: view.c calls no snapshot.c. */
	void (*epoch_snap_free)(struct statctr_snap *snap);
	/* CLOCK_MONOTONIC_COARSE at the last size check that passed (snapshot.c). */
	uint64_t sizes_checked_tick;
};

int view_ctl_lock(struct statctr_view *view, int byte, unsigned wait_ms);
void view_ctl_unlock(struct statctr_view *view, int byte);

#define CTL_LOCK_COPY  0
#define CTL_LOCK_RESET 1

/*
 * snapshot.c, for reset.c: cell @id of @snap, a snapshot whose sums just
 * became @id's baseline at time @now, reads as after that reset.
 */
void snap_note_reset(struct statctr_snap *snap, statctr_id id, uint64_t now);
/* snapshot.c, for epoch.c: the metadata and the epoch file a snapshot was taken with. */
const struct meta *snap_meta(const struct statctr_snap *snap);
struct epochs *snap_epochs(const struct statctr_snap *snap);
const uint64_t *snap_sums(const struct statctr_snap *snap); /* ncells raw totals */
/* Full snapshots: passes spoiled by a failed in-place group read and read
 * again, over the snapshot's life (its retakes): tests see the path ran. */
uint32_t snap_spoiled(const struct statctr_snap *snap);
/*
 * A sums-only retake of @view into *@snapp, whatever the view's mode (as
 * statctr_snap_retake() otherwise), whose final pass over the sums writes
 * them to @dest (ncells; NULL: none) instead of the snapshot's own, each
 * with the cell of @add (ncells, read like a slot's; NULL: none) added.
 * When it did, *@in_destp is true and @dest holds the snapshot's raw totals
 * plus @add, which snap_sums() then does not: the snapshot is fit only to
 * be retaken.  Else (a group of its final pass moved meanwhile, or an
 * error) @dest may hold anything and snap_sums() has the totals, without
 * @add.
 */
int snap_retake_sums_into(struct statctr_view *view, struct statctr_snap **snapp, uint64_t *dest,
                          const _Atomic uint64_t *add, bool *in_destp);

/*
 * mapfile.c, for view.c and epochfile.c: the open-time checks every shared file passes
 * (docs/segment-format.md, "Opening").
 */
int view_open_nofollow(const char *path, int flags, int *fdp);
int view_open_rw_or_ro(const char *path, int *fdp, bool *writablep);
int view_check_stat(const struct statctr_view *v, const char *path, int fd, struct stat *st);

/* mapfile.c, for segment.c and epochfile.c: a new moded, fully allocated, mapped temporary
 * file. */
int create_mapped(const char *path, uint64_t size, mode_t mode, const char *group, char **tmp_path,
                  uint8_t **basep);

/*
 * epochfile.c (epochfile.h) and epoch.c (docs/epochs.md).  epochs_open()
 * validates and maps @v's epoch file (v->epochs; NULL with a message when
 * there is none usable); a snapshot keeps a reference to the one it was
 * taken with (epochfile.c, below view.c and snapshot.c).  The writer
 * side: epochs_capture() of the dead predecessor before build and of its
 * own segment in destroy (final counts), epochs_adopt() after the rename.
 */
struct epochs;
int epochs_open(struct statctr_view *v);
struct epochs *epochs_ref(struct epochs *e);
void epochs_unref(struct epochs *e);
void epochs_capture(const char *path);
int epochs_adopt(const char *path, const struct statctr_segment_decl *d);

#endif /* STATCTR_INTERNAL_H */
