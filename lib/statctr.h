/*
 * statctr.h - per-core counters and gauges in shared memory.
 *
 * A writer process creates a *segment* from a libconfig declaration.  Each of
 * its worker threads acquires a *slot*: a private slice of the segment holding
 * one 8-byte cell per declared counter or gauge.  Other processes open a
 * read-only *view* of the segment and take *snapshots*: per-cell totals summed
 * over all slots.  See docs/segment-format.md for the bytes and
 * docs/design.md for why the protocol is what it is.
 *
 * THE PROTOCOL
 *
 * Writers (one thread per slot; nobody else ever stores to a slot's cells):
 *   statctr_add()/statctr_inc()/statctr_gauge_add() are a relaxed atomic
 *   load, a plain add and a relaxed atomic store on the slot's own cell.  No
 *   locked instruction, no fence; on x86-64 they compile to load/add/store.
 *
 *   statctr_txn_begin() stores seq+1 (odd, relaxed) and issues a release
 *   fence, so no cell store of the transaction can become visible before the
 *   odd sequence.  statctr_txn_end() stores seq+2 with release, so every cell
 *   store of the transaction is visible before the even sequence.  Every
 *   16th transaction (a test of the sequence already in a register) it
 *   compares the sequence with the slot's copy_resume (same line); once the
 *   sequence has reached it, the out-of-line statctr_slot_serve_copy() loads
 *   the slot's copy-request word (in the control file, memory readers may
 *   write), copies the cells into the exchange buffer if a reader asked,
 *   records the copy's ticket and check in its own slot header (which
 *   readers cannot write, and check the copy against), publishes
 *   completion with a release store, and moves copy_resume on by
 *   the writer's own copy budget (docs/design.md): whatever readers store,
 *   copies take at most ~1/40 of the writer's time.  The fast path
 *   itself never touches the control file.
 *
 * Readers (any process; the segment is mapped PROT_READ):
 *   per slot: acquire-load seq; odd means a transaction is open, retry;
 *   load every cell once (a relaxed or volatile load, or a vector load
 *   whose register is pinned: the row and the sum take the same value);
 *   acquire fence (pairs with the writer's release fence in txn_begin);
 *   relaxed re-load seq; equal means the copy holds no partial
 *   transaction, and only then is the read added to the committed sums.
 *   A reader that keeps failing (a writer running transactions back to
 *   back) raises the slot's copy request and sleeps
 *   until the writer has served it; it never spins on a slot.  Retries and
 *   waits are bounded: a slot whose writer is stuck or died inside a
 *   transaction is reported in the snapshot, never waited on forever.
 *
 * What is guaranteed: each slot is read at a transaction boundary of its
 * writer, so every transaction is seen whole or not at all in the totals,
 * however far apart its cells are - for every slot not counted in the
 * snapshot's busy_slots (a live writer that held one transaction open past
 * the whole wait budget).  What is NOT guaranteed: the slots are
 * read at slightly different instants (a snapshot is not a global cut
 * across writers), and updates made with statctr_add() outside a
 * transaction are individually atomic but carry no grouping.
 *
 * Resets never store to writer memory: a reset records the current total of
 * each cell as its baseline (in the control file) and stamps a discontinuity
 * time; readers report total - baseline.  Counts arriving during or after a
 * reset are never lost.
 *
 * Dynamic rows (statctr_row_add()): each row of a dynamic table has an
 * incarnation number `gen` in the row directory, odd while present.  The
 * writer (under the table's mutex) changes a row's name, add time and
 * incarnation bases only while gen is even, after a release fence, then
 * publishes with a release store of gen + 1.  A reader acquire-loads gen
 * before the slots, copies name, time and bases, acquire fence, loads gen
 * again; after the slots an acquire fence and a third load.  A row whose
 * gen was odd and equal in all three is present with that name and those
 * values; any other is absent from the snapshot.  A counter's new counts
 * become visible to that third load through the release fence of the
 * writer's statctr_txn_begin(): counts added to a re-added row outside a
 * transaction are ordered only by the hardware (x86-64: always).  No
 * global epoch: a change of one row costs readers of other rows nothing.
 *
 * USAGE CONSTRAINTS (what the guarantees above assume)
 *
 * No use after destroy: a slot handle points into the writer's mapping.
 *   Every thread must be done with its slots (joined, or past its last
 *   statctr_add() and statctr_txn_end()) before statctr_seg_destroy(), which
 *   unmaps them; a later update writes to unmapped memory (SIGSEGV) or to
 *   whatever was mapped there since.  The same holds for a view and the
 *   snapshots taken from it after statctr_view_close()/statctr_snap_free().
 *
 * fork(): the child shares both mappings (MAP_SHARED), the descriptors and
 *   the flock() that makes its parent the only writer.  A slot handle in the
 *   child names the parent's slot: updating it makes two threads write one
 *   slot and loses counts.  The child must not update through inherited
 *   slots, must not acquire slots of its parent's segment (its threads are
 *   not threads of the creator process, so readers take them for dead and
 *   read their cells as final) and must not call statctr_seg_destroy() on the
 *   inherited handle (it would close and remove the parent's files).  It
 *   may create a segment of its own under another name, or exec (every
 *   statctr descriptor is close-on-exec).  Until it execs or exits, it holds
 *   the writer lock too, so a restarted parent gets -EEXIST.  A view used in
 *   the child and the parent at once is a view used by two threads (its
 *   open-file-description locks are shared): open a new one in the child.
 *
 * Signal handlers: statctr_add() is a load and a store, not a
 *   read-modify-write.  A handler that updates the slot of the thread it
 *   interrupted may lose the interrupted update (or its own), and a
 *   transaction opened in the handler while the thread is inside one breaks
 *   the sequence protocol (readers see a closed transaction that is not).
 *   In a handler use statctr_shared_add()/statctr_shared_gauge_add(): a
 *   lock-free atomic add, async-signal-safe.  Nothing else is
 *   async-signal-safe (reader calls allocate; segment calls take locks and
 *   do I/O).
 *
 * A writer preempted (or stopped) inside a transaction: its slot reads odd,
 *   and it cannot serve copy requests until it closes the transaction.  A
 *   snapshot then spends, on that slot, 4 sequence reads (1 for a slot of
 *   more than 512 cells, none when the view's last read of such a slot came
 *   from a copy), then - with a copy request raised - naps starting
 *   at 20 us and doubling to about 1 ms while watching the sequence, for at
 *   most 100 ms per slot and 1 s per snapshot (all slots together); a
 *   writer that resumes within that budget is read whole (by a sequence
 *   read or its copy).  Past it, or at once for a reader that may not write
 *   the control file, the slot is included as last read (possibly part of
 *   a transaction) and counted in busy_slots, and the view does not wait on
 *   it again until its sequence moves: a stopped writer costs one budget,
 *   not one per snapshot.  A writer that dies inside a transaction costs no
 *   wait: its slot is read as final and counted in dead_torn_slots.
 *   Readers cost the writer at most ~1/40 of its time in copies, whatever
 *   they do (the copy budget above).
 *
 * CPU slots (statctr_cpu_add(), "CPU slots" below): any thread of the
 *   writer process, with or without a slot of its own.  A CPU add may be
 *   mixed with statctr_add() and statctr_shared_add() on the same id (the
 *   totals sum every slot), and called while the thread has a transaction
 *   open, but it is never part of that transaction (readers may see it
 *   before or after the transaction's cells).  Transactions and histograms
 *   need a thread slot.  On a segment without CPU slots an add is not lost
 *   (the shared slot takes it) and statctr_seg_health() reports -ENOTSUP:
 *   check statctr_cpu_mode() at setup.
 *
 * Errors: calls returning int return 0 (or a documented positive value) on
 * success and a negative errno on failure; statctr_errmsg() then describes
 * the cause (with file:line for configuration errors).
 */
#ifndef STATCTR_H
#define STATCTR_H

/*
 * C11, or C++23, whose <stdatomic.h> makes _Atomic(T) a std::atomic<T> of
 * the same size and alignment (hence _Atomic(T), never the C-only
 * qualifier form, in this header).
 */
#if defined(__cplusplus) && __cplusplus <= 202002L
#error "statctr.h needs C++23 (<stdatomic.h>) when included from C++: use -std=c++23"
#endif

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CPU slots' restartable sequences: the rseq glibc registers (2.35 and
 * later: <sys/rseq.h>), x86-64 only (other targets take the locked add;
 * see "CPU slots" below).  <stdint.h> above defined __GLIBC__. */
#if defined(__x86_64__) && defined(__GLIBC__) &&                                                   \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define STATCTR_CPU_RSEQ 1
#else
#define STATCTR_CPU_RSEQ 0
#endif

#if ATOMIC_LLONG_LOCK_FREE != 2
#error "statctr needs lock-free 64-bit atomics: readers load from read-only mappings"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Names one counter or gauge cell of a segment (dense, from 0). */
typedef uint32_t statctr_id;

struct statctr_seg;  /* writer side: a segment this process created */
struct statctr_slot; /* one writer thread's exclusive slice of a segment */
struct statctr_view; /* reader side: a read-only mapping of a segment */
struct statctr_snap; /* a snapshot taken from a view, summed over slots */

enum statctr_kind {
	STATCTR_KIND_COUNTER = 1,   /* u64, wraps mod 2^64, resettable */
	STATCTR_KIND_GAUGE = 2,     /* signed level: sum of per-slot deltas */
	STATCTR_KIND_HISTOGRAM = 3, /* buckets and a sum; see "Histograms" below */
};

/**
 * statctr_kind_name() - the configuration's name of @kind: "counter",
 * "gauge" or "histogram" (the one vocabulary of the config file, statctl
 * and the agent); NULL for a value that is no kind.  Pure; thread-safe.
 */
const char *statctr_kind_name(enum statctr_kind kind);

/* Deprecated names of the kinds (the same values; macros, so #ifdef works):
 * kept for programs written against 0.x, removed in a later release. */
#define STATCTR_COUNTER   STATCTR_KIND_COUNTER
#define STATCTR_GAUGE     STATCTR_KIND_GAUGE
#define STATCTR_HISTOGRAM STATCTR_KIND_HISTOGRAM

/**
 * Limits enforced by the configuration parser and by readers.  Every string
 * below is served by statctr-agentx as a DisplayString, whose SIZE is
 * 0..255 (SNMPv2-TC): the limits keep them within it, so nothing is cut.
 */
#define STATCTR_MAX_SLOTS   4096u
#define STATCTR_MAX_CELLS   (1u << 24)
#define STATCTR_MAX_NAME    63u   /* segment, table and column names */
#define STATCTR_MAX_ROWNAME 255u  /* statctrCellRowName, rowName */
#define STATCTR_MAX_TEXT    255u  /* descriptions and units: statctrCellDescription, Units */
#define STATCTR_MAX_PATH    255u  /* a segment's path: statctrSegmentPath */
#define STATCTR_MAX_BUCKETS 64u   /* finite buckets of a histogram (+Inf is one more) */
#define STATCTR_MAX_CPUS    4096u /* CPUs that CPU slots cover (cpu_slots) */

/**
 * statctr_errmsg() - the calling thread's last error message.
 *
 * Thread-safe (the message is thread-local).  Valid until the thread's next
 * statctr call that fails.  Never NULL.
 */
const char *statctr_errmsg(void);

/* ------------------------------------------------------------------------
 * Configuration: the one declaration of segments, tables and columns.
 * The parsed form is read-only; free it with statctr_config_free().
 */

struct statctr_column_decl {
	const char *name;
	const char *description; /* "" when not given */
	const char *units;       /* "" when not given */
	enum statctr_kind kind;
	int line; /* line of the column's group in the config file */
	/* Histograms: nbuckets (1..STATCTR_MAX_BUCKETS) ascending finite
	 * inclusive upper bounds; 0 and NULL for other kinds. */
	uint32_t nbuckets;
	const uint64_t *bounds;
};

struct statctr_table_decl {
	const char *name;
	const char *description;      /* "" when not given */
	uint32_t oid;                 /* sub-identifier under the segment; unique */
	uint32_t nrows;               /* dynamic: the rows it has room for (max) */
	const char *const *row_names; /* nrows names, or NULL for rows = N or dynamic */
	int dynamic;                  /* rows = { max = N; }: rows named at run time */
	uint32_t ncolumns;
	const struct statctr_column_decl *columns;
	statctr_id first_cell; /* cell of row 0, column 0; row-major */
	int line;
};

struct statctr_segment_decl {
	const char *name;
	const char *path;  /* default "/dev/shm/statctr.<name>" */
	uint32_t nslots;   /* default: online CPUs */
	uint32_t oid;      /* sub-identifier for the agent; unique */
	mode_t mode;       /* segment file mode, default 0640 */
	mode_t ctl_mode;   /* control file (resets, copy requests), default 0660 */
	const char *group; /* owner group of both files, NULL: creator's */
	uint32_t ntables;
	const struct statctr_table_decl *tables;
	uint32_t ncells; /* cells per slot: nrows x ncolumns per table, plus
	                  * nrows x (nbuckets + 2) per histogram column */
	int line;
	uint32_t cpu_collapse; /* cpu_slots: CPUs per CPU slot; 0: no CPU slots */
	/* epochs (docs/epochs.md): epochs kept, 0: none; the agent's interval
	 * epoch period in seconds, 0: none. */
	uint32_t epoch_keep;
	uint32_t epoch_interval_s;
};

struct statctr_config {
	const char *file;
	uint32_t nsegments;
	const struct statctr_segment_decl *segments;
};

/**
 * statctr_config_load() - parse and validate a libconfig file.
 *
 * @path must be a regular file (not a symbolic link) of at most 1 MiB with
 * no control byte but tab, LF and CR, and no @include (docs/config.md, "The
 * file as bytes").  Reads every integer in 64 bits.  Rejects syntax errors,
 * unknown settings, wrong types, unknown kinds, duplicate names or OIDs,
 * zero rows, too many cells and out-of-range integers, naming file:line and
 * the setting (file:line:column for a byte).  The top-level "agent" group
 * and a table's "ifmib" group (the IF-MIB settings, mib/'s) are accepted
 * unread: statctr_config_group() hands the tree to their reader.
 * Thread-safe.  Returns 0 or -EINVAL/-ENOENT/-ELOOP/-EISDIR/-EFBIG/-ENOMEM.
 */
int statctr_config_load(const char *path, struct statctr_config **cfgp);
void statctr_config_free(struct statctr_config *cfg);

/**
 * statctr_config_group() - the top-level setting @name of the file @cfg was
 * read from, as parsed by statctr_config_load() (every integer in 64 bits),
 * or NULL when the file has none.
 *
 * For the reader of the "agent" group, the one top-level setting besides
 * "segments" the library does not read (statctr-agentx and statctl,
 * through mib/settings.c), so that the file is read once, with the
 * library's checks.  The result is a libconfig `const config_setting_t *`
 * (void here: this header does not include libconfig.h), valid until
 * statctr_config_free(@cfg).  Read-only; thread-safe.
 */
const void *statctr_config_group(const struct statctr_config *cfg, const char *name);

/**
 * statctr_config_error() - report a bad setting of such a group in the
 * library's words: statctr_errmsg() becomes "FILE:LINE: PATH: <fmt...>"
 * (PATH as "agent.interval_ms"), or "FILE: <fmt...>" when @setting (a
 * libconfig setting of @cfg's file) is NULL.  Returns -@err.  Thread-safe.
 */
int statctr_config_error(const struct statctr_config *cfg, const void *setting, int err,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/** The declaration of segment @name, or NULL (and a message) if absent. */
const struct statctr_segment_decl *statctr_config_find(const struct statctr_config *cfg,
                                                       const char *name);

/* ------------------------------------------------------------------------
 * Writer side.
 */

/**
 * statctr_seg_create() - create segment @segment declared in @config_path.
 *
 * Builds the segment and its control file in temporary files and renames
 * them into place, so a reader never sees a half-built segment.  A segment
 * left by a writer that died is replaced (readers see a new generation); one
 * whose creator is alive gives -EEXIST.  Files are created O_EXCL|O_NOFOLLOW
 * with the configured modes and group.  Not thread-safe against itself.
 *
 * To judge a file already at the path, the writer goes through the reader
 * API, as any reader would: statctr_view_open() (with all its checks) and
 * statctr_view_info() of the old segment.  A live creator gives -EEXIST
 * naming its pid; a file that does not open as a valid segment (corrupt,
 * planted, a symlink) gives -EEXIST and is left for the operator to remove;
 * a segment whose creator died or closed it is replaced.  That is the only
 * reader call the writer makes.  The process-wide SIGBUS handler readers
 * use is installed by every creation, replacing or not (see
 * statctr_seg_health()).
 */
int statctr_seg_create(const char *config_path, const char *segment, struct statctr_seg **segp);

/**
 * statctr_seg_destroy() - mark the segment closed, unmap it, remove its files.
 *
 * No statctr call on @seg or its slots may run concurrently or follow: slot
 * handles dangle once it returns (USAGE CONSTRAINTS above).  Readers that
 * still map the segment see it closed, with its final counts.
 */
void statctr_seg_destroy(struct statctr_seg *seg);

/**
 * statctr_seg_health() - has the writer lost anything this generation?
 *
 * The writer survives whatever is done to its files (truncated, grown,
 * rewritten, unlinked, replaced): statctr_seg_create() registers both
 * mappings with the library's process-wide SIGBUS handler (the one readers
 * use, see statctr_view_open()), which replaces a mapping whose file shrank
 * with private zeroed memory, so the faulting access repeats and succeeds.
 * A lost control file ends copy assistance (and resets readers could see)
 * for this generation, and readers see STATCTR_WRITER_CTL_LOST in
 * statctr_seg_info.writer_flags; a lost segment file means the writer counts
 * into private memory that readers no longer see.  Counts already in the
 * segment are never touched.  A SIGBUS handler the application installs
 * later replaces the library's: a truncation then kills the process, as it
 * would without statctr.
 *
 * Returns 0 while every file is the one created, at its size, and nothing
 * was lost; -ESTALE otherwise, with statctr_errmsg() naming what (and when a
 * mapping was lost).  A few system calls (stat); thread-safe; poll it, not
 * on the fast path.
 */
int statctr_seg_health(const struct statctr_seg *seg);

/**
 * statctr_seg_lookup() - the cell of @table.@column at @row (from 0).
 * Returns 0 or -ENOENT (unknown table or column, row out of range).
 * Thread-safe.
 */
int statctr_seg_lookup(const struct statctr_seg *seg, const char *table, const char *column,
                       uint32_t row, statctr_id *idp);

/*
 * Dynamic rows.  A table declared with rows = { max = N; } has room for N
 * rows, none present at creation; the writer names rows at run time (an
 * interface, a VF, a tenant).  statctr_seg_lookup() gives a dynamic row's
 * cells as for any row, and the fast path updates them as any cell.  Each
 * row has its own incarnation number in the segment's row directory
 * (docs/segment-format.md): readers see a row's name and its values from
 * the same incarnation, and a change to one row never makes a reader of
 * another row or table retry, relist or wait.  None of these calls is on
 * the fast path; each takes the table's mutex and costs O(1) (expected:
 * a hash of the name) plus O(columns x slots) for an add
 * (docs/PERFORMANCE.md).
 *
 * Writers must stop updating a row before it is removed.  The library
 * cannot check that on the fast path; counts a thread adds to a removed
 * row are served under no name while it is absent and are absorbed into
 * the row's incarnation base at the next add of that index, so they
 * appear under another name only if the thread is still updating when the
 * index comes back (first-in first-out: after every other free index).
 */

/**
 * statctr_row_add() - add row @name to dynamic table @table.
 *
 * Takes the free index of the table that has been free longest
 * (first-in, first-out: an index comes back only after every other free
 * index has been used), records the row's current totals as its
 * incarnation base, so readers see it start at zero with the add as its
 * discontinuity time, then publishes it.  @name: 1..255 bytes of
 * printable ASCII (0x20..0x7e, as declared row names), unique among the table's
 * present rows.  Sets *@rowp to the row.  Writer process; thread-safe;
 * not on the fast path.  Returns 0, -EEXIST (@name is present), -ENOSPC
 * (every row of the table is present), -EINVAL (a static table or a bad
 * name), -ENOENT (no table @table).
 */
int statctr_row_add(struct statctr_seg *seg, const char *table, const char *name, uint32_t *rowp);

/**
 * statctr_row_remove() - remove row @row of dynamic table @table.
 *
 * Readers stop seeing it from their next snapshot (a snapshot taken
 * meanwhile shows it whole or not at all); its index goes to the back of
 * the table's free list.  Stop updating the row first (above).  Writer
 * process; thread-safe.  Returns 0, -ENOENT (no such present row, or no
 * table @table), -EINVAL (a static table).
 */
int statctr_row_remove(struct statctr_seg *seg, const char *table, uint32_t row);

/**
 * statctr_row_find() - the present row named @name of dynamic table
 * @table, in *@rowp.  Writer process; thread-safe.  Returns 0, -ENOENT (no
 * such row or table), -EINVAL (a static table).
 */
int statctr_row_find(const struct statctr_seg *seg, const char *table, const char *name,
                     uint32_t *rowp);

/**
 * statctr_slot_acquire() - take a free slot for the calling thread.
 *
 * The slot belongs to this thread until statctr_slot_release(); only this
 * thread may update through it.  A slot released earlier, or left by a thread
 * that exited, is reused and its counts continue.  Returns -EBUSY when every
 * slot is owned by a live thread.  Thread-safe.
 */
int statctr_slot_acquire(struct statctr_seg *seg, struct statctr_slot **slotp);

/** Gives the slot back; its counts stay in the totals. Owning thread only. */
void statctr_slot_release(struct statctr_slot *slot);

/* statctr_txn_end() compares seq with copy_resume when (seq & this) == 0. */
#define STATCTR_COPY_CHECK_MASK 0x1eu

/** Out-of-line part of statctr_txn_end(); not called directly. */
void statctr_slot_serve_copy(struct statctr_slot *slot);

/*
 * A slot handle is the slot itself: its header line in the segment, with
 * the cells right after it, so the fast path finds a cell at a constant
 * offset from the handle and loads nothing else (docs/segment-format.md
 * gives the bytes).  The fields are public only so that the fast path can
 * be inline; treat them as private.  The writer-private ones are offsets,
 * never pointers, so readers of the segment learn no addresses.
 */
struct statctr_slot {
	_Atomic(uint64_t) seq;          /* odd while a transaction is open */
	_Atomic(uint32_t) owner_tid;    /* 0 when free */
	_Atomic(uint32_t) owner_state;  /* 0 free, 1 owned */
	_Atomic(uint64_t) owner_start;  /* owner's start time, clock ticks */
	_Atomic(uint64_t) acquisitions; /* times the slot was acquired */
	/* The writer's record of its last copy (docs/design.md): readers
	 * check a copy against it, since the buffer is in memory they may
	 * write. */
	_Atomic(uint64_t) copy_check;  /* copy_check_of() the copied cells */
	uint64_t copy_served;          /* writer-private: last request looked at */
	_Atomic(uint64_t) copy_ticket; /* ticket of the last copy; release, after copy_check */
	uint64_t copy_resume;          /* writer-private: no request check before this sequence */
	_Atomic(uint64_t) cells[];     /* one per declared counter or gauge */
};

/* The fast path's one update, on a cell given by its address: a relaxed
 * load, an add and a relaxed store (statctr_add(), statctr_hist_record()). */
static inline void statctr_cell_add(_Atomic(uint64_t) *cell, uint64_t n)
{
	atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

/**
 * statctr_add() - add @n to counter @id of @slot.
 *
 * Owning thread only.  A relaxed load, an add and a relaxed store: atomic
 * for readers (no torn value), no ordering with other cells.  @id must come
 * from a lookup on this segment; it is not range-checked here.
 */
static inline void statctr_add(struct statctr_slot *slot, statctr_id id, uint64_t n)
{
	statctr_cell_add(&slot->cells[id], n);
}

/** statctr_inc() - statctr_add(slot, id, 1). */
static inline void statctr_inc(struct statctr_slot *slot, statctr_id id)
{
	statctr_add(slot, id, 1);
}

/**
 * statctr_gauge_add() - move gauge @id by @delta (may be negative).
 * Same contract as statctr_add(); the level is the sum over slots.
 */
static inline void statctr_gauge_add(struct statctr_slot *slot, statctr_id id, int64_t delta)
{
	statctr_add(slot, id, (uint64_t)delta);
}

/**
 * statctr_txn_begin() - open a transaction on @slot.
 *
 * Owning thread only; transactions do not nest.  Stores the odd sequence,
 * then a release fence orders it before the transaction's cell stores (the
 * acquire fence in the reader's seq_read() pairs with it).  Keep
 * transactions short: readers retry while one is open, and a writer
 * preempted inside one costs readers their wait budget (USAGE CONSTRAINTS).
 */
static inline void statctr_txn_begin(struct statctr_slot *slot)
{
	uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);

	atomic_store_explicit(&slot->seq, seq + 1, memory_order_relaxed);
	/* Pairs with the acquire fence in seq_read() (lib/snapshot.c). */
	atomic_thread_fence(memory_order_release);
}

/**
 * statctr_txn_end() - close the transaction opened by statctr_txn_begin().
 *
 * The even sequence is stored with release: readers that acquire it (the
 * first load in seq_read()) see every cell store of the transaction.
 * Every 16th transaction it then compares the sequence with copy_resume,
 * in the slot's own line; once it is reached, the out-of-line call looks
 * for a reader's copy request and sets the next copy_resume by the
 * writer's copy budget.
 */
static inline void statctr_txn_end(struct statctr_slot *slot)
{
	uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed) + 1;

	/* Pairs with the acquire load of seq in seq_read() (lib/snapshot.c). */
	atomic_store_explicit(&slot->seq, seq, memory_order_release);
	if (__builtin_expect((seq & STATCTR_COPY_CHECK_MASK) == 0 && seq >= slot->copy_resume, 0))
		statctr_slot_serve_copy(slot);
}

/*
 * Histograms (docs/segment-format.md, "Histogram cells").  Each row's
 * histogram has a *bucket block* of nbuckets + 2 cells, past every table's
 * cells: first the sum of the values recorded, then one count per bucket,
 * the last for values above every finite bound (+Inf).  The count is the
 * sum of the buckets, so count and buckets never disagree.
 *
 * The histogram's own cell (its id) counts nothing.  In every writer slot
 * it holds the writer's private *descriptor* of the histogram, stored by
 * statctr_seg_create() before the segment is published: where its block
 * is, how deep the bucket search goes and where its bounds are in this
 * process's bounds pool - integers, never an address.  So the fast path
 * finds all it needs with one load from the slot, next to the row's other
 * cells, and never reads a bound from a file.  Readers ignore descriptors
 * (statctr_snap_hist_*() read the block).  The descriptor's bits:
 *   0..31   the block's byte offset from the slot's first cell (8 x its
 *           first cell; cells are < STATCTR_MAX_CELLS = 2^24)
 *   32..46  0
 *   47..63  the *key*: the index of the column's padded bounds in
 *           statctr_hist_pool.  lib/hist.c puts every column's bounds at an
 *           index whose low byte is *half*, half the padded number of
 *           bounds (1..64) and the search's first step, so the key alone
 *           gives both.  Half 0 (a slot line the SIGBUS guard replaced by
 *           zeroes, or no descriptor) records nothing.
 * Public only for the inline statctr_hist_record(); treat as private.
 */
#define STATCTR_HIST_POOL      131072u /* padded bounds per writer process: a 17-bit key */
#define STATCTR_HIST_KEY_SHIFT 47      /* bits 47..63: the key */

/* The descriptor of a block at byte offset @block_off whose bounds are at
 * pool index @key (lib/hist.c writes it; statctr_hist_record() reads it). */
static inline uint64_t statctr_hist_desc(uint32_t block_off, uint64_t key)
{
	return (uint64_t)block_off | key << STATCTR_HIST_KEY_SHIFT;
}

/* The key of descriptor @desc: its bounds' index in statctr_hist_pool. */
static inline uint64_t statctr_hist_desc_key(uint64_t desc)
{
	return desc >> STATCTR_HIST_KEY_SHIFT;
}

/* The byte offset of descriptor @desc's block from the slot's first cell. */
static inline uint32_t statctr_hist_desc_block(uint64_t desc)
{
	return (uint32_t)desc;
}

/* The search's first step of key @key: its low byte (lib/hist.c's pool_find()
 * places bounds so); 0 records nothing. */
static inline uint32_t statctr_hist_key_half(uint64_t key)
{
	return (uint8_t)key;
}

/*
 * STATCTR_OPTIMIZER_HIDE_VAR() - makes the compiler forget what it knows of
 * @var's value (it must sit in a register) without emitting an instruction,
 * as Linux's OPTIMIZER_HIDE_VAR().
 */
#define STATCTR_OPTIMIZER_HIDE_VAR(var) __asm__("" : "+r"(var))

/* The padded bounds of this process's writer histograms (lib/hist.c): each
 * histogram's bounds, then UINT64_MAX up to 2 x half entries.  The slack
 * keeps any 17-bit key plus any 8-bit half's search inside the array. */
extern uint64_t statctr_hist_pool[STATCTR_HIST_POOL + 512];

/* The key of the last histogram this thread recorded in: the guess with
 * which statctr_hist_record() starts its search (see there).  The compiler
 * picks its TLS model: in a program, one %fs-relative load (initial-exec);
 * in a shared object, which may be dlopen()ed, a __tls_get_addr() call it
 * can hoist out of a loop (global-dynamic). */
extern __thread uint64_t statctr_hist_guess;

/**
 * statctr_hist_bucket_of() - the bucket of @value among @bounds (padded
 * with UINT64_MAX to 2 x @half entries): the first b whose bound is >=
 * @value, which is nbuckets (+Inf) past every finite bound.  A branch-free
 * binary search: log2(2 x half) comparisons, 7 for 64 buckets, each a
 * load, a compare and a conditional move (a search that moves a pointer
 * instead compiles to a branch, which random values mispredict).  Pure.
 */
static inline uint32_t statctr_hist_bucket_of(const uint64_t *bounds, uint32_t half, uint64_t value)
{
	uint32_t b = 0;

	for (uint32_t step = half; step != 0; step >>= 1)
		b += bounds[b + step - 1] < value ? step : 0;
	return b;
}

/**
 * statctr_hist_record() - record @value in histogram @id of @slot.
 *
 * Owning thread only, inside or outside a transaction.  Adds 1 to the
 * value's bucket and @value to the sum (mod 2^64), each a relaxed load and
 * store as statctr_add().  Outside a transaction it opens and closes one
 * around the two, so that every snapshot sees the sum and the buckets of
 * the same records; inside one, they are part of it.  No locked
 * instruction; no load of shared memory but the slot's own line and
 * cells.  @id must be a histogram's id from a lookup on this segment (it
 * is not checked, as for statctr_add()); a descriptor whose half is 0
 * records nothing.
 *
 * How it finds the bounds.  The descriptor is one load from the slot, but
 * a search that waited for it would start that load's latency later than
 * a hand-written histogram whose bounds pointer is at hand.  So the search
 * starts from this thread's *guess*, the key it recorded with last (a load
 * whose address depends on nothing), while the descriptor's key is loaded
 * and compared beside it.  The bounds and half are a function of the key
 * alone, so when the two keys are equal - always, for a thread that
 * records in one histogram column, whatever its rows - the guessed values
 * are exactly the descriptor's.  When they differ, a predictable or
 * mispredicted branch takes the descriptor's and makes it the next guess
 * (docs/PERFORMANCE.md, section 8, measures both cases).
 */
/* Always inlined: GCC -O2 calls it out of line from a loop that records
 * four times, which costs more than the record (docs/PERFORMANCE.md, §8). */
static inline __attribute__((always_inline)) void statctr_hist_record(struct statctr_slot *slot,
                                                                      statctr_id id, uint64_t value)
{
	uint64_t desc = atomic_load_explicit(&slot->cells[id], memory_order_relaxed);
	uint64_t key = statctr_hist_desc_key(desc), guess = statctr_hist_guess;
	const uint64_t *bounds = &statctr_hist_pool[guess];
	uint32_t half = statctr_hist_key_half(guess);
	/* The block's cells by one pointer: the sum at [0], bucket b at [1 + b]. */
	_Atomic(uint64_t) *block =
	    (_Atomic(uint64_t) *)((char *)slot->cells + statctr_hist_desc_block(desc));
	uint64_t seq, b;

	/* Hides where bounds and half come from, so that the compiler can
	 * neither rebuild them from the descriptor's key once it knows the two
	 * keys equal (that would put the descriptor's load back in front of the
	 * search) nor fold the pool's address into every probe of the search. */
	STATCTR_OPTIMIZER_HIDE_VAR(bounds);
	STATCTR_OPTIMIZER_HIDE_VAR(half);
	if (__builtin_expect(key != guess, 0)) {
		statctr_hist_guess = key;
		bounds = &statctr_hist_pool[key];
		half = statctr_hist_key_half(key);
	}
	if (__builtin_expect(half == 0, 0))
		return;
	b = statctr_hist_bucket_of(bounds, half, value);
	seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);
	if (seq & 1) { /* the caller's transaction */
		statctr_cell_add(&block[1 + b], 1);
		statctr_cell_add(&block[0], value);
		return;
	}
	/* statctr_txn_begin() and statctr_txn_end(), with the sequence kept in
	 * a register: the same stores and the same fences. */
	atomic_store_explicit(&slot->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release); /* pairs as in statctr_txn_begin() */
	statctr_cell_add(&block[1 + b], 1);
	statctr_cell_add(&block[0], value);
	seq += 2;
	atomic_store_explicit(&slot->seq, seq, memory_order_release); /* as statctr_txn_end() */
	if (__builtin_expect((seq & STATCTR_COPY_CHECK_MASK) == 0 && seq >= slot->copy_resume, 0))
		statctr_slot_serve_copy(slot);
}

/**
 * statctr_shared_add() - add to counter @id from a thread without a slot.
 *
 * For control threads: an atomic fetch-add on the segment's shared slot
 * (a locked instruction; do not use it on a hot path).  Thread-safe.
 */
void statctr_shared_add(struct statctr_seg *seg, statctr_id id, uint64_t n);

/** statctr_shared_gauge_add() - move gauge @id by @delta; as above. */
void statctr_shared_gauge_add(struct statctr_seg *seg, statctr_id id, int64_t delta);

/**
 * statctr_gauge_set() - make readers see gauge @id at @value.
 *
 * Sets the shared slot's delta to @value minus the sum of the writer slots'
 * deltas at the time of the call; later statctr_gauge_add() calls move the
 * level from there.  Thread-safe, but not atomic with respect to a
 * concurrent statctr_shared_gauge_add() on the same gauge.
 */
void statctr_gauge_set(struct statctr_seg *seg, statctr_id id, int64_t value);

/*
 * CPU slots (cpu_slots in the configuration; docs/segment-format.md, "CPU
 * slots").  For pools of many threads on few CPUs: a slot per CPU (or per
 * `collapse` CPUs) that any thread of the writer process adds to, so that
 * memory and snapshot cost follow CPUs rather than threads.
 *
 * THE PROTOCOL.  With collapse 1 and the thread's rseq registered by glibc
 * (x86-64), an add is a restartable sequence (docs/design.md, "CPU slots:
 * a restartable sequence per add").  Each call site has its descriptor
 * (start, length, abort address) in section __rseq_cs.  The add stores the
 * descriptor's address in the thread's rseq_cs (in its struct rseq), and
 * from the next instruction, the start, loads its CPU number from that
 * area, computes the cell of that CPU's slot and adds to it with one plain
 * `add` to memory, the commit.  If the kernel preempts, migrates or
 * signals the thread between the start and the commit, it resumes the
 * thread at the abort address instead, which counts the abort (a locked
 * add to the slot's `aborts`, in its header line; the slow path) and
 * starts again from the store.  The partners of rseq_cs are this thread,
 * which stores it, and the kernel, which reads it at each preemption,
 * migration or signal of this thread (include/uapi/linux/rseq.h), aborts
 * the sequence it names when the thread's IP is inside it, and clears it
 * otherwise.  The store is one instruction before the start: an event
 * before it sees another descriptor (or none) and at most clears it; an
 * event after it, up to the commit, sees ours with the IP inside.  The
 * store is made on every add, whether or not rseq_cs already names the
 * site (a compare first costs a taken branch or a store-to-load round trip
 * per add; docs/PERFORMANCE.md, section 11).  So only threads running on
 * CPU k store to slot k's cells, one instruction at a time: every add is
 * exact with no locked instruction.  What the asm tells the compiler: it
 * reads the CPU slots' cells (a memory input) and declares no memory
 * output.  The add is left undeclared on purpose: GCC takes a declared
 * write through a pointer as a write to any memory, and reloaded the
 * handle's fields and the caller's data after every add (1.7x the
 * per-thread cost instead of 1.2x).  No code of this header reads a CPU
 * slot's cell after an add: the library reads them out of line, behind a
 * call, which the compiler keeps after the asm (the call may write memory
 * the asm reads), and other threads and processes read them with no
 * ordering promised.  With collapse > 1, or without rseq
 * (GLIBC_TUNABLES=glibc.pthread.rseq=0, another architecture), an add is
 * a locked add to the slot of the CPU the thread found itself on (exact
 * even if it migrated meanwhile).  A segment uses one or the other for all
 * its adds (statctr_cpu_mode()): plain and locked adds never meet on a
 * cell.  Readers copy a CPU slot's cells with relaxed loads, no sequence
 * protocol: each add is one atomic 8-byte read-modify-write, so a cell is
 * never torn, and a CPU slot is never busy or dead.  No ordering between
 * cells is promised (as statctr_add() outside a transaction).
 *
 * USAGE CONSTRAINTS.  Only threads of the process that created @seg.  Not
 * inside a transaction's grouping: a CPU add is never part of one (it goes
 * to another slot), and transactions and histograms need a thread slot
 * (a histogram record is two stores, which one restartable sequence cannot
 * commit together).  @id must be a counter's or a gauge's from a lookup on
 * this segment (not range-checked, as for statctr_add()).  Mixing a CPU add
 * with statctr_add() on the same id is allowed: the total is the sum over
 * all slots.  A CPU add is async-signal-safe (the kernel restarts a
 * sequence the signal interrupted; the locked add is atomic).  On a segment
 * without CPU slots, statctr_cpu_mode() gives -ENOTSUP: check it at setup.
 * An add there anyway is not lost: it goes to the shared slot with a
 * locked add, and statctr_seg_health() reports the misuse (-ENOTSUP) from
 * then on.  A thread whose rseq registration failed (cpu_id not valid) on
 * a segment in mode 1 adds to the shared slot too (a locked add; exact).
 * Sanitizers: ThreadSanitizer and AddressSanitizer do not see the `add`
 * inside the asm (the cell is the CPU's, never another thread's plain
 * store); the abort count and the locked paths are ordinary atomics.
 * Unloading: an add leaves its call site's descriptor named in the
 * thread's rseq_cs after the commit (until the kernel next handles a
 * preemption or signal of the thread, and clears it), and the descriptor
 * lies in the object that inlined the add, not in libstatctr.  So a
 * shared object that calls statctr_cpu_add() (inc, gauge_add) must stay
 * mapped while the threads that ran its adds live: link it with
 * -Wl,-z,nodelete, or never dlclose() it.  Unmapped, the kernel would
 * read a descriptor that is gone at such a thread's next preemption and
 * kill the process with SIGSEGV.
 */

/* The part of the writer's handle the inline adds read: the first member
 * of struct statctr_seg, public only so that the adds can be inline; treat
 * it as private. */
struct statctr_cpu_slots {
	char *cells;             /* CPU slot 0's first cell; NULL: no CPU slots */
	uint32_t stride;         /* bytes from one CPU slot to the next (< 2^28) */
	uint32_t rseq_ncpus;     /* mode 1: ncpus; else 0, which sends every add
	                          * to statctr_cpu_add_locked() */
	uint32_t ncpus;          /* CPU numbers below this have a slot */
	int32_t mode;            /* statctr_cpu_mode() */
	const uint16_t *slot_of; /* per CPU number: its CPU slot */
};

/** Out of line parts of statctr_cpu_add(); not called directly.  The
 * sequence now counts its aborts itself (in the asm); statctr_cpu_aborted()
 * stays for objects compiled against the earlier header. */
void statctr_cpu_add_locked(struct statctr_seg *seg, statctr_id id, uint64_t n);
void statctr_cpu_aborted(struct statctr_seg *seg);

/**
 * statctr_cpu_mode() - how statctr_cpu_add() adds on @seg: 1, restartable
 * sequences (collapse 1, rseq registered, x86-64); 0, a locked add into
 * the slot of the thread's CPU (collapse > 1, or rseq unavailable here;
 * still exact); -ENOTSUP, the segment has no CPU slots (statctr_errmsg()
 * says so).  Fixed at creation; thread-safe.
 */
int statctr_cpu_mode(const struct statctr_seg *seg);

#if STATCTR_CPU_RSEQ
/* The memory an add's asm reads (its memory input, "THE PROTOCOL"): from
 * CPU slot 0's first cell on, bounded by the largest CPU slots can span
 * (strides below 2^28 bytes, STATCTR_MAX_CPUS slots). */
#define STATCTR_CPU_CELLS(cells)                                                                   \
	(*(const uint64_t(*)[(uint64_t)STATCTR_MAX_CPUS << 25])(const void *)(cells))
#ifdef __AVX512F__
#define STATCTR_CLOBBER_AVX512                                                                     \
	, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",         \
	    "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", "k3", \
	    "k4", "k5", "k6", "k7"
#else
#define STATCTR_CLOBBER_AVX512
#endif
/*
 * statctr_cpu_add_locked() called from an asm, for the slow path of
 * statctr_cpu_add().  A call the compiler sees, even on that cold path,
 * makes it reload @seg's fields (and the caller's data) on every add, as
 * the callee may write any memory, and keep the loop's values out of the
 * registers a callee may change.  So the asm saves the general registers
 * the x86-64 ABI lets a callee change (but rax, declared clobbered) and
 * restores them, and declares the vector registers clobbered; it reads
 * the CPU slots' cells, as the add's asm does ("THE PROTOCOL": the memory
 * the callee writes is read only by the library, out of line).  It steps
 * past the red zone (the compiler may keep data below %rsp in a function
 * it thinks makes no call) and aligns the stack to 16 bytes for the call:
 * rsp is rounded down, then 9 saved words and one of padding.  The
 * caller's unwind information does not describe that stack, so a
 * backtrace taken inside the call may be wrong past the caller.
 */
static inline __attribute__((always_inline)) void statctr_cpu_call_locked(struct statctr_seg *seg,
                                                                          statctr_id id, uint64_t n)
{
	const struct statctr_cpu_slots *cs = (const struct statctr_cpu_slots *)(const void *)seg;

	__asm__ volatile(
	    "movq %%rsp, %%rax\n\t"
	    "leaq -128(%%rsp), %%rsp\n\t"
	    "andq $-16, %%rsp\n\t"
	    "pushq %%rax\n\t"
	    "pushq %%rcx\n\t"
	    "pushq %%rdx\n\t"
	    "pushq %%rsi\n\t"
	    "pushq %%rdi\n\t"
	    "pushq %%r8\n\t"
	    "pushq %%r9\n\t"
	    "pushq %%r10\n\t"
	    "pushq %%r11\n\t"
	    "pushq %[seg]\n\t"
	    "pushq %q[id]\n\t"
	    "pushq %[n]\n\t"
	    "popq %%rdx\n\t"
	    "popq %%rsi\n\t"
	    "popq %%rdi\n\t"
	    "subq $8, %%rsp\n\t"
	    "call statctr_cpu_add_locked@PLT\n\t"
	    "addq $8, %%rsp\n\t"
	    "popq %%r11\n\t"
	    "popq %%r10\n\t"
	    "popq %%r9\n\t"
	    "popq %%r8\n\t"
	    "popq %%rdi\n\t"
	    "popq %%rsi\n\t"
	    "popq %%rdx\n\t"
	    "popq %%rcx\n\t"
	    "popq %%rsp"
	    :
	    : [seg] "r"(seg), [id] "r"(id), [n] "r"(n), "m"(STATCTR_CPU_CELLS(cs->cells))
	    : "cc", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
	      "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15" STATCTR_CLOBBER_AVX512);
}
#endif

/**
 * statctr_cpu_add() - add @n to counter @id in the slot of the CPU the
 * calling thread runs on.
 *
 * Any thread of the creating process, no slot needed, not inside a
 * transaction: add to counter @id (move gauge @id) in the slot of the CPU
 * the thread runs on.  With collapse 1, no locked instruction: a
 * restartable sequence.  With collapse > 1, the CPUs sharing a slot use a
 * locked add (docs/PERFORMANCE.md measures both).  See "CPU slots" above.
 */
static inline __attribute__((always_inline)) void statctr_cpu_add(struct statctr_seg *seg,
                                                                  statctr_id id, uint64_t n)
{
	const struct statctr_cpu_slots *cs = (const struct statctr_cpu_slots *)(const void *)seg;

#if STATCTR_CPU_RSEQ
	{
		char *cell0 = cs->cells + (uint64_t)id * 8; /* @id's cell in CPU slot 0 */

		/* The sequence, as "THE PROTOCOL" above says.  0: load the
		 * address of this call site's descriptor 3 (struct rseq_cs:
		 * version, flags, start_ip, post_commit_offset, abort_ip) and
		 * store it in the thread's rseq_cs (offset 8 of its struct
		 * rseq).  1, the start: load cpu_id (offset 4), which must be
		 * below rseq_ncpus (0 unless mode 1; an unregistered thread's
		 * is -1 or -2), else out to the locked path; the plain add to
		 * that CPU's cell is the commit, and 2 the end.  4, the abort
		 * handler, after the signature the kernel checks (RSEQ_SIG,
		 * registered by glibc), counts the abort in the header line
		 * of the CPU slot it now runs on (aborts, 48 bytes before the
		 * slot's cells; a locked add, as other CPUs' aborts may land
		 * there) and starts again at 0.  The handler is in the asm so
		 * that an add has no path through a call, which would make
		 * the compiler reload @seg's fields after every add.  The
		 * cells are a memory input, their add undeclared ("THE
		 * PROTOCOL": what the asm tells the compiler). */
		__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		             ".balign 32\n"
		             "3:\n\t"
		             ".long 0, 0\n\t"
		             ".quad 1f, 2f - 1f, 4f\n\t"
		             ".popsection\n"
		             "0:\n\t"
		             "leaq 3b(%%rip), %%rax\n\t"
		             "movq %%rax, %%fs:8(%[off])\n"
		             "1:\n\t"
		             "movl %%fs:4(%[off]), %%eax\n\t"
		             "cmpl %[ncpus], %%eax\n\t"
		             "jae %l[unregistered]\n\t"
		             "imulq %[stride], %%rax\n\t"
		             "addq %[n], (%[cell0], %%rax)\n"
		             "2:\n\t"
		             ".pushsection __rseq_failure, \"ax\"\n\t"
		             ".long %c[sig]\n"
		             "4:\n\t"
		             "movl %%fs:4(%[off]), %%eax\n\t"
		             "cmpl %[ncpus], %%eax\n\t"
		             "jae 0b\n\t"
		             "imulq %[stride], %%rax\n\t"
		             "addq %[cells], %%rax\n\t"
		             "lock incq -48(%%rax)\n\t"
		             "jmp 0b\n\t"
		             ".popsection"
		             : /* no declared output: see above */
		             : [off] "r"(__rseq_offset), [ncpus] "r"(cs->rseq_ncpus),
		               [stride] "r"((uint64_t)cs->stride), [n] "er"(n), [cell0] "r"(cell0),
		               [cells] "m"(cs->cells), [sig] "i"(RSEQ_SIG),
		               "m"(STATCTR_CPU_CELLS(cs->cells))
		             : "cc", "rax"
		             : unregistered);
		return;
	}
unregistered:
	statctr_cpu_call_locked(seg, id, n);
#else
	statctr_cpu_add_locked(seg, id, n);
#endif
}

/** statctr_cpu_inc() - statctr_cpu_add(seg, id, 1). */
static inline __attribute__((always_inline)) void statctr_cpu_inc(struct statctr_seg *seg,
                                                                  statctr_id id)
{
	statctr_cpu_add(seg, id, 1);
}

/** statctr_cpu_gauge_add() - move gauge @id by @delta; as statctr_cpu_add(). */
static inline __attribute__((always_inline)) void
statctr_cpu_gauge_add(struct statctr_seg *seg, statctr_id id, int64_t delta)
{
	statctr_cpu_add(seg, id, (uint64_t)delta);
}

/* ------------------------------------------------------------------------
 * Reader side.  A view and the snapshots taken from it are used by one
 * thread at a time; different views may be used concurrently.
 */

/**
 * statctr_view_open() - map segment @segment read-only.
 *
 * Readers survive a segment file truncated under their mapping: on first
 * use the library installs a SIGBUS handler (chained to any previous one)
 * that turns a fault inside a statctr reader call into -ESTALE.  A handler
 * installed later by the application replaces it.
 * @segment is a path (contains '/') or a name (-> /dev/shm/statctr.<name>).
 * The path may name anything another local user planted, so the open never
 * blocks and never follows a link (a symlink gives -ELOOP), and fstat must
 * show a regular file of at least 256 bytes with every byte allocated
 * (else -EPROTO: a FIFO, a device, a short or a sparse file is refused
 * before a byte is read in bulk).  The header and metadata are then read
 * into private memory and checked against every rule of
 * docs/segment-format.md, offsets against the canonical layout of the
 * counts, before the file is mapped: a corrupt segment gives -EPROTO, an
 * unsupported one -EINVAL, a missing one -ENOENT, each with a message
 * naming the field and value.  A planted file costs at most what a valid
 * segment of its declared shape costs.  The control file is checked the
 * same way (its offsets must equal ctl_layout_for(); only the computed ones
 * are ever used) and mapped read-write when permitted (copy requests,
 * resets), else read-only (snapshots may then report busy slots; resets
 * give -EACCES); a missing or invalid one leaves a view without resets.
 */
int statctr_view_open(const char *segment, struct statctr_view **viewp);

/**
 * statctr_view_open_owned() - statctr_view_open(), requiring that the
 * segment and its control file belong to uid @owner (-EPERM otherwise), so
 * that a file planted in a shared directory by another user is refused.
 * statctr_view_refresh() keeps the requirement.
 */
int statctr_view_open_owned(const char *segment, uid_t owner, struct statctr_view **viewp);

void statctr_view_close(struct statctr_view *view);

/**
 * statctr_view_refresh() - follow a writer restart.
 *
 * Returns 0 when the path still names the mapped generation, 1 after
 * switching to a new generation (the caller should record a
 * discontinuity), or a negative errno (the old mapping stays usable; -ENOENT
 * when the segment was removed; -EPROTO when it was rewritten in place into
 * something invalid, such as a state other than active or closed).  A control
 * file that was rewritten, truncated, grown or replaced since it was
 * validated is validated again from scratch; if it no longer passes, the
 * view goes on without it (no resets, no copy requests; can_reset 0).
 */
int statctr_view_refresh(struct statctr_view *view);

int statctr_view_lookup(const struct statctr_view *view, const char *table, const char *column,
                        uint32_t row, statctr_id *idp);

/*
 * A segment's status, in the words statctl prints and STATCTR-MIB uses
 * (docs/statctl.md, "Segment status"; a missing file, "absent", is -ENOENT
 * from statctr_view_open()).
 */
enum statctr_seg_status {
	STATCTR_SEG_ACTIVE = 1, /* "active": creator process alive */
	STATCTR_SEG_CLOSED = 2, /* "closed": creator destroyed it (file still mapped) */
	STATCTR_SEG_GONE = 3,   /* "gone": creator died without closing (MIB writerGone) */
	STATCTR_SEG_STALE = 4,  /* "stale": changed under the mapping, or corrupt: refresh */
};

struct statctr_seg_info {
	const char *name;
	const char *path;
	uint64_t generation;
	uint64_t created_ns; /* CLOCK_REALTIME */
	pid_t creator_pid;
	uint32_t oid;
	uint32_t nslots; /* writer slots; the shared slot has index nslots */
	uint32_t ncells;
	uint32_t ntables;
	uint64_t size; /* bytes of the segment file */
	enum statctr_seg_status status;
	int can_reset;         /* control file writable by this process */
	uint32_t writer_flags; /* STATCTR_WRITER_* bits: what the writer lost */
};

/* statctr_seg_info.writer_flags: the writer's control-file mapping faulted
 * (the file was truncated): it serves no copy requests this generation. */
#define STATCTR_WRITER_CTL_LOST 1u

/**
 * Describes the mapped segment (checks the creator's liveness).  status is
 * STATCTR_SEG_STALE also when the live header holds a state no writer
 * stores (neither active nor closed): the segment is corrupt, and
 * snapshots of it give -EPROTO until statctr_view_refresh() succeeds.
 */
void statctr_view_info(const struct statctr_view *view, struct statctr_seg_info *info);

struct statctr_table_info {
	const char *name;
	const char *description;
	uint32_t oid;
	uint32_t nrows; /* dynamic: rows it has room for, present or not */
	uint32_t ncolumns;
	statctr_id first_cell; /* row r, column c is first_cell + r * ncolumns + c */
	int dynamic;           /* rows named at run time: statctr_snap_row_name() */
};

struct statctr_column_info {
	const char *name;
	const char *description;
	const char *units;
	enum statctr_kind kind;
};

/** Table @t (0..ntables-1); -ENOENT when out of range. */
int statctr_view_table(const struct statctr_view *view, uint32_t t,
                       struct statctr_table_info *info);

/** Column @c of table @t; -ENOENT when out of range. */
int statctr_view_column(const struct statctr_view *view, uint32_t t, uint32_t c,
                        struct statctr_column_info *info);

/** Name of row @r of table @t, or NULL when the table's rows are numbered or
 * dynamic (a dynamic row's name is a snapshot's: statctr_snap_row_name()). */
const char *statctr_view_row_name(const struct statctr_view *view, uint32_t t, uint32_t r);

/** The kind of cell @id (0 when out of range, or a cell of a histogram's
 * bucket block: those have no id of their own). */
enum statctr_kind statctr_view_cell_kind(const struct statctr_view *view, statctr_id id);

/**
 * statctr_view_hist_buckets() - the finite buckets of histogram @id: their
 * number (1..STATCTR_MAX_BUCKETS), with *@bounds set to the ascending
 * inclusive upper bounds (the view's private copy, valid until it is
 * closed); 0, *@bounds untouched, when @id is not a histogram's.
 */
uint32_t statctr_view_hist_buckets(const struct statctr_view *view, statctr_id id,
                                   const uint64_t **bounds);

enum statctr_slot_state {
	STATCTR_SLOT_FREE = 0, /* never acquired or released */
	STATCTR_SLOT_LIVE = 1, /* owned by a live thread */
	STATCTR_SLOT_DEAD = 2, /* owner thread or process gone: values final */
	STATCTR_SLOT_CPU = 3,  /* a CPU slot (cpu_slots): no owner, never busy or dead */
};

/** The state of slot @s now (reads /proc for liveness; the shared slot and
 * indexes past the CPU slots: STATCTR_SLOT_FREE). */
enum statctr_slot_state statctr_view_slot_state(const struct statctr_view *view, uint32_t s);

/**
 * statctr_snap_take() - take a snapshot of every cell, summed over slots.
 *
 * Each slot is read at one of its writer's transaction boundaries (see THE
 * PROTOCOL); baselines are read consistently with the totals.  Bounded: a
 * slot that cannot be read consistently within the budget (a writer stuck
 * or dead inside a transaction) is included as read and counted in
 * statctr_snap_stats().busy_slots.  A slot whose live writer was found
 * inside one transaction for the whole budget is not waited on again by
 * this view until its sequence moves: later snapshots count it busy at
 * once.  Returns 0, -ENOMEM, -ESTALE when the segment or control file
 * changed size under the mapping (refresh), or -EPROTO when the segment's
 * state is neither active nor closed; on error *@snapp is NULL.
 * One thread per view.
 */
int statctr_snap_take(struct statctr_view *view, struct statctr_snap **snapp);

/**
 * statctr_snap_retake() - take a snapshot again, in the memory of *@snapp.
 *
 * With *@snapp NULL it is statctr_snap_take(); otherwise
 * the new snapshot replaces *@snapp's contents, in its buffers (from any
 * view; they are reallocated only when the number of slots or cells
 * differs).  Same reads, guarantees and errors as statctr_snap_take().  For
 * a reader that snapshots periodically: a fresh snapshot's cost is mostly
 * page faults on its new buffers (docs/PERFORMANCE.md).  Nobody may read
 * *@snapp meanwhile.  On error the snapshot is freed and *@snapp set to
 * NULL: no stale values can pass for new ones.
 */
int statctr_snap_retake(struct statctr_view *view, struct statctr_snap **snapp);
void statctr_snap_free(struct statctr_snap *snap);

/**
 * statctr_view_set_sums_only() - choose what snapshots of @view keep.
 *
 * From now on, snapshots taken through @view keep only sums (and what sums
 * need: baselines, discontinuities, row names). statctr_snap_slot_value() on
 * such a snapshot returns 0, and statctr_snap_stats() says so
 * (STATCTR_SNAP_SUMS_ONLY in flags). 0 or -EINVAL.
 *
 * @on is 1 (sums only) or 0 (the default: every slot's values too); any
 * other value, or a NULL @view, gives -EINVAL.  A sums-only snapshot is
 * exactly as consistent as a full one (every slot read whole at a
 * transaction boundary, the same busy, dead and torn reporting, the same
 * rows); it reads each slot's cells once, into the sums, and holds 4 values
 * per cell instead of (slots + 4).  A snapshot retaken through a
 * view of the other mode is reshaped (its buffers reallocated).  Same
 * thread rule as the view's other calls.
 */
int statctr_view_set_sums_only(struct statctr_view *view, int on);

/**
 * Counter value: (sum over slots - baseline) mod 2^64.  For a cell of a
 * dynamic row present in the snapshot, the baseline is the row's
 * incarnation base (its totals when it was added: it starts at zero),
 * or the cell's reset baseline when the reset is newer than the add; for
 * a dynamic row absent from the snapshot, 0.
 */
uint64_t statctr_snap_counter(const struct statctr_snap *snap, statctr_id id);

/** Counter value ignoring any reset (the raw sum over slots). */
uint64_t statctr_snap_counter_raw(const struct statctr_snap *snap, statctr_id id);

/** Gauge level: the signed sum over slots of their deltas (for a present
 * dynamic row, since its add; for an absent one, 0). */
int64_t statctr_snap_gauge(const struct statctr_snap *snap, statctr_id id);

/*
 * Histogram @id in a snapshot: each value after its reset baseline (or its
 * dynamic row's incarnation base), as statctr_snap_counter(), so buckets,
 * count and sum of one snapshot always agree: count == the sum of the
 * buckets, and sum == the sum of the values recorded since the reset
 * (mod 2^64).  0 for an id that is not a histogram's.
 */

/** Bucket @b (0..nbuckets; nbuckets: +Inf) of histogram @id; not cumulative. */
uint64_t statctr_snap_hist_bucket(const struct statctr_snap *snap, statctr_id id, uint32_t b);

/** The number of values recorded: the sum of every bucket, +Inf included. */
uint64_t statctr_snap_hist_count(const struct statctr_snap *snap, statctr_id id);

/** The sum of the values recorded, mod 2^64 (statctr_snap_counter() of @id). */
uint64_t statctr_snap_hist_sum(const struct statctr_snap *snap, statctr_id id);

/**
 * statctr_snap_values() - cells @first..@first+@count-1 of @snap as one
 * array, for a reader that wants a table (one contiguous range, see
 * statctr_table_info) without a call per cell.  @out[i] is, for cell
 * @first+i: a counter's statctr_snap_counter(), a gauge's
 * statctr_snap_gauge() (its two's-complement bits), a histogram's
 * statctr_snap_hist_count(), as statctl shows them.  Reads the snapshot
 * only; @out must hold @count values.  Returns 0, or -EINVAL (and a
 * message naming the range) when the range passes the snapshot's cells.
 */
int statctr_snap_values(const struct statctr_snap *snap, statctr_id first, uint32_t count,
                        uint64_t *out);

/** Slot @s's own raw value of cell @id (@s == nslots: the shared slot;
 * nslots + 1 + k: CPU slot k, statctr_snap_cpu_slots()); 0 in a sums-only
 * snapshot (statctr_view_set_sums_only()). */
uint64_t statctr_snap_slot_value(const struct statctr_snap *snap, uint32_t s, statctr_id id);

/**
 * statctr_snap_cpu_slots() - the CPU slots of the snapshot's segment:
 * their number (0: none), slots nslots + 1 .. nslots + that number for
 * statctr_snap_slot_value().  With @aborts non-NULL, *@aborts is the
 * number of restartable sequences the kernel aborted (and the writer
 * retried) in them since creation, read live with the slots.  Pure.
 */
uint32_t statctr_snap_cpu_slots(const struct statctr_snap *snap, uint64_t *aborts);

/**
 * statctr_snap_slot_name() - the name of slot @s (0 .. nslots + CPU slots)
 * in @buf of @size bytes, as snprintf(): a writer slot's number ("3"),
 * "shared", or a CPU slot's CPUs, "cpuN" or "cpuA-B" when collapsed.
 * Returns the length of the name, or -EINVAL for a slot out of range.
 */
int statctr_snap_slot_name(const struct statctr_snap *snap, uint32_t s, char *buf, size_t size);

/**
 * Time (CLOCK_REALTIME ns) since which cell @id has counted without a
 * discontinuity: the latest of its last reset, the segment's creation
 * and, for a cell of a dynamic row present in the snapshot, the row's add.
 */
uint64_t statctr_snap_discontinuity(const struct statctr_snap *snap, statctr_id id);

/**
 * statctr_snap_row_name() - row @row of table @table (indexes as in
 * statctr_view_table()) in this snapshot.
 *
 * For a dynamic table: the row's name, read in the same instant as the
 * row's values (a removed and re-added index never shows one incarnation's
 * name with another's counts), or NULL when the row is absent from the
 * snapshot.  For a static table: the declared name, or NULL for numbered
 * rows.  Valid until the snapshot is freed or retaken (it outlives a
 * refresh or close of the view).
 */
const char *statctr_snap_row_name(const struct statctr_snap *snap, uint32_t table, uint32_t row);

struct statctr_snap_stats {
	uint64_t generation; /* of the segment the snapshot was taken from */
	uint64_t taken_ns;   /* CLOCK_REALTIME when it completed */
	uint32_t nslots;     /* writer slots (the shared slot not counted) */
	uint32_t ncells;
	uint32_t retries;         /* failed sequence reads, all slots */
	uint32_t assisted_slots;  /* slots copied by their writer on request */
	uint32_t busy_slots;      /* slots not read consistently (live writer) */
	uint32_t dead_torn_slots; /* dead writers' slots left mid-transaction */
	uint32_t rows_present;    /* dynamic rows present in the snapshot */
	uint32_t rows_changed;    /* dynamic rows added or removed while read: absent */
	uint32_t rows_corrupt;    /* dynamic rows with an invalid name: absent */
	uint32_t flags;           /* STATCTR_SNAP_* */
};

/* statctr_snap_stats.flags: the snapshot keeps sums only (no slot values). */
#define STATCTR_SNAP_SUMS_ONLY 1u

void statctr_snap_stats(const struct statctr_snap *snap, struct statctr_snap_stats *stats);

/**
 * statctr_reset_range() - reset counters @first..@first+@count-1.
 *
 * Takes a snapshot, records each counter's total as its baseline and stamps
 * its discontinuity time, all in one step readers see whole.  Gauges in the
 * range are left alone (a level has nothing to reset).  Never stores to
 * writer slots; counts arriving meanwhile are kept.  Returns 0, -EACCES (the
 * control file is not writable by this process), -EINVAL (range), -EBUSY
 * (another resetter held the lock too long).  A row, a table and the whole
 * segment are each one contiguous range (see statctr_table_info).  A
 * histogram in the range is reset whole: its sum and its bucket block, in
 * the same step, with the same discontinuity time.
 */
int statctr_reset_range(struct statctr_view *view, statctr_id first, uint32_t count);

/** A run of cells: @first..@first+@count-1. */
struct statctr_range {
	statctr_id first;
	uint32_t count;
};

/**
 * statctr_reset_ranges() - reset every range of @ranges (@n of them, in any
 * order, overlapping or not) in one step: one snapshot, one discontinuity
 * time, one change readers see whole.  What statctr_reset_range() does for
 * one range, for the cost of one.
 *
 * @snapp: NULL, or a snapshot pointer as for statctr_snap_retake() (*@snapp
 * NULL or a snapshot of @view to reuse).  On success *@snapp is the
 * snapshot the reset was taken from, with the new baselines and times
 * applied: it reads exactly as a snapshot taken right after the reset, so
 * the caller need not read the slots again.  On failure it is left as a
 * snapshot of @view the caller still owns, or NULL.
 *
 * Returns 0, -EINVAL (a range out of the segment, or @n == 0), or what
 * statctr_reset_range() returns.
 */
int statctr_reset_ranges(struct statctr_view *view, const struct statctr_range *ranges, uint32_t n,
                         struct statctr_snap **snapp);

/** statctr_reset() - reset one counter: statctr_reset_range(view, id, 1). */
int statctr_reset(struct statctr_view *view, statctr_id id);

/*
 * Epochs (docs/epochs.md): named points in time whose lifetime raw totals
 * are kept in <segment path>.epochs, so that the counts between two of them
 * (or between one and a snapshot) are exact across resets and across
 * writer restarts whose final counts were captured.  Starting one stores
 * nothing in writer memory or the control file: no value that
 * statctr_snap_counter() returns and no discontinuity time moves.
 */
#define STATCTR_MAX_EPOCHS           1024u  /* keep: 1..1024 */
#define STATCTR_MAX_EPOCH_INTERVAL_S 86400u /* interval_s: 1..86400 */
#define STATCTR_MAX_EPOCH_NAME       63u

struct statctr_epoch {
	uint32_t number;   /* 1, 2, ... for the life of the segment name; never reused,
	                      also across writer restarts */
	uint64_t start_ns; /* CLOCK_REALTIME when its base was taken */
	char name[64];     /* printable ASCII; scheduled intervals get a generated name */
};

/**
 * statctr_epoch_start() - start an epoch: one consistent snapshot's raw
 * totals become its base.  It changes no value that statctr_snap_counter()
 * returns and no discontinuity time.  Needs the rights a reset needs.
 * Serialised with other starts by the epoch file's lock.  When keep epochs
 * are kept, the oldest is dropped before the snapshot is taken (its base
 * is where the new one goes): while the start runs, and after a start that
 * fails in its snapshot, one fewer epoch is listed.
 *
 * Returns 0 (*@numberp, when not NULL, is its number), -EACCES (the control
 * or epoch file not writable), -EINVAL (@name not 1..63 printable ASCII
 * bytes), -EBUSY (the epoch file's lock not had in 500 ms), -ENOENT (the
 * segment declares no epochs), -ESTALE (the epoch file follows another
 * generation than @view: refresh it), or what statctr_snap_retake() does.
 */
int statctr_epoch_start(struct statctr_view *view, const char *name, uint32_t *numberp);

/**
 * statctr_view_epochs() - the epochs kept, oldest first: writes at most
 * @max to @out, returns how many are kept (0 also when the segment has no
 * usable epoch file; statctr_errmsg() then says why).
 */
uint32_t statctr_view_epochs(struct statctr_view *view, struct statctr_epoch *out, uint32_t max);

/**
 * statctr_snap_epoch_delta() - counts of counter @id from the start of epoch
 * @from to the start of epoch @to, or to this snapshot when @to is 0.  A
 * histogram's id gives its sum, a cell of its bucket block that bucket.
 *
 * Returns 0 (exact), -ENOENT (an epoch not kept, or no epochs), -ESTALE (the
 * interval spans a writer restart whose final counts were not captured:
 * never a silently wrong number), -EINVAL (@id out of range or a gauge),
 * -EBUSY (epoch starts kept the file changing through 1000 reads).
 */
int statctr_snap_epoch_delta(const struct statctr_snap *snap, statctr_id id, uint32_t from,
                             uint32_t to, uint64_t *delta);

/**
 * statctr_snap_epoch_bucket() - statctr_snap_epoch_delta() of bucket @b
 * (0..nbuckets; nbuckets: +Inf) of histogram @id: its per-epoch count.
 * Returns as statctr_snap_epoch_delta(); -EINVAL when @id is not a
 * histogram's or @b is out of range.
 */
int statctr_snap_epoch_bucket(const struct statctr_snap *snap, statctr_id id, uint32_t b,
                              uint32_t from, uint32_t to, uint64_t *delta);

/**
 * statctr_epoch_capture() - a reader that sees @view's writer gone (status
 * "gone" or "closed") adds that generation's final counts, as @view's
 * mapping still holds them, to the epoch file's carry, so that intervals
 * across the restart stay exact even if the dead writer's files are removed
 * before the next writer starts.  At most once per generation, whoever
 * captures first (the next writer captures too).  Needs the rights a reset
 * needs.  Returns 0 (also when it was captured already), -EBUSY (the writer
 * still runs, or the file's lock not had in 500 ms), -EACCES, -ENOENT.
 */
int statctr_epoch_capture(struct statctr_view *view);

/* What the agent needs for its interval tables and its schedule. */
struct statctr_epoch_status {
	uint32_t keep;        /* epochs the file has room for */
	uint32_t nkept;       /* epochs kept */
	uint32_t next_number; /* the number the next start gets */
	uint32_t era;         /* +1 each time a generation's final counts were lost */
	int current;          /* 1: the file follows the view's generation (deltas to
	                       * now are served), 0: not (yet) */
};

/**
 * statctr_view_epoch_status() - the state of @view's epoch file.  Returns 0,
 * -ENOENT (no epochs), or -EBUSY as statctr_snap_epoch_delta().
 */
int statctr_view_epoch_status(struct statctr_view *view, struct statctr_epoch_status *status);

#ifdef __cplusplus
}
#endif

#endif /* STATCTR_H */
