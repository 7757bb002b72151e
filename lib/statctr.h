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
 * THE PROTOCOL, in short (docs/design.md states it whole, with its model;
 * <statctr/slot.h> next to the code).  Writers: one thread per slot stores
 * to its cells, each update a relaxed load, a plain add and a relaxed
 * store (no locked instruction, no fence); a transaction makes the slot's
 * sequence odd, then even again.  Readers: per slot, the sequence, every
 * cell once, the sequence again; equal and even, the read holds whole
 * transactions only.  A reader that keeps failing asks the writer for a
 * copy and sleeps, never spins; its waits are bounded.  Guaranteed: every
 * transaction is seen whole or not at all in the totals, for every slot
 * not counted in busy_slots; not a global cut across writers.  Resets
 * record baselines in the control file, never store to writer memory and
 * lose no count.  A dynamic row's name and values come from one incarnation.
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
 *   and it serves no copy request until it closes the transaction.  A
 *   snapshot waits on that slot (a few sequence reads, then naps of 20 us
 *   to 1 ms with a copy request raised; docs/design.md) for at most
 *   100 ms, and 1 s for all slots together; a writer that resumes within
 *   that budget is read whole.  Past it, or at once for a reader that may
 *   not write the control file, the slot is included as last read and
 *   counted in busy_slots, and the view does not wait on it again until
 *   its sequence moves.  A writer that dies inside a transaction costs no
 *   wait: its slot is read as final and counted in dead_torn_slots.
 *   Readers cost the writer at most ~1/40 of its time in copies.
 *
 * CPU slots (statctr_cpu_add()): any thread of the writer process; an add
 *   is never part of a transaction.  "CPU slots" below says the rest.
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

/* Deprecated names of the kinds (macros, so #ifdef works), for 0.x programs. */
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
 * A file already at the path is judged through statctr_view_open(), as
 * any reader would: a live creator gives -EEXIST naming its pid; a file
 * that is no valid segment (corrupt, planted, a symlink) gives -EEXIST and
 * is left for the operator; a segment whose creator died or closed it is
 * replaced.  Every creation installs the readers' SIGBUS handler (see
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
 * rewritten, unlinked, replaced): the library's SIGBUS handler (the
 * readers', see statctr_view_open()) replaces a mapping whose file shrank
 * with private zeroed memory, and the faulting access repeats.  A lost
 * control file ends copy assistance and resets for this generation
 * (readers see STATCTR_WRITER_CTL_LOST in statctr_seg_info.writer_flags);
 * after a lost segment file the writer counts into memory readers no
 * longer see.  Counts already in the segment are never touched.  A SIGBUS
 * handler the application installs later replaces the library's.
 * Returns 0 while every file is the one created, at its size, and nothing
 * was lost; -ESTALE otherwise, with statctr_errmsg() naming what (and
 * when).  A few stat() calls; thread-safe; poll it, not on the fast path.
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
 * interface, a VF, a tenant), and looks up and updates their cells as any.
 * Each row has its own incarnation number (docs/segment-format.md): readers
 * see a row's name and values from one incarnation, and a change to one
 * row never makes a reader of another retry, relist or wait.  These calls
 * take the table's mutex and cost O(1) (a hash of the name), plus
 * O(columns x slots) for an add (docs/PERFORMANCE.md).
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

/**
 * statctr_add() - add @n to counter @id of @slot.
 *
 * Owning thread only.  A relaxed load, an add and a relaxed store: atomic
 * for readers (no torn value), no ordering with other cells.  @id must come
 * from a lookup on this segment; it is not range-checked here.
 */
static inline void statctr_add(struct statctr_slot *slot, statctr_id id, uint64_t n);

/** statctr_inc() - statctr_add(slot, id, 1). */
static inline void statctr_inc(struct statctr_slot *slot, statctr_id id);

/**
 * statctr_gauge_add() - move gauge @id by @delta (may be negative).
 * Same contract as statctr_add(); the level is the sum over slots.
 */
static inline void statctr_gauge_add(struct statctr_slot *slot, statctr_id id, int64_t delta);

/**
 * statctr_txn_begin() - open a transaction on @slot.
 *
 * Owning thread only; transactions do not nest.  Keep transactions short: readers retry while one
 * is open, and a writer preempted inside one costs readers their wait budget (USAGE CONSTRAINTS).
 */
static inline void statctr_txn_begin(struct statctr_slot *slot);

/**
 * statctr_txn_end() - close the transaction opened by statctr_txn_begin().
 *
 * Readers see every cell store of the transaction together, or none.
 * Now and then (<statctr/slot.h>) it serves a reader's copy request.
 */
static inline void statctr_txn_end(struct statctr_slot *slot);

/*
 * Histograms (docs/segment-format.md, "Histogram cells").  Each row's
 * histogram has a *bucket block* of nbuckets + 2 cells, past every table's
 * cells: the sum of the values recorded, then one count per bucket, the
 * last for values above every finite bound (+Inf).  The count is the sum
 * of the buckets, so they never disagree.  The machinery: <statctr/hist.h>.
 */

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
 */
static inline __attribute__((always_inline)) void
statctr_hist_record(struct statctr_slot *slot, statctr_id id, uint64_t value);

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
 * How an add works (a restartable sequence, or a locked add): <statctr/cpu.h>.
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

/**
 * statctr_cpu_mode() - how statctr_cpu_add() adds on @seg: 1, restartable
 * sequences (collapse 1, rseq registered, x86-64); 0, a locked add into
 * the slot of the thread's CPU (collapse > 1, or rseq unavailable here;
 * still exact); -ENOTSUP, the segment has no CPU slots (statctr_errmsg()
 * says so).  Fixed at creation; thread-safe.
 */
int statctr_cpu_mode(const struct statctr_seg *seg);

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
                                                                  statctr_id id, uint64_t n);

/** statctr_cpu_inc() - statctr_cpu_add(seg, id, 1). */
static inline __attribute__((always_inline)) void statctr_cpu_inc(struct statctr_seg *seg,
                                                                  statctr_id id);

/** statctr_cpu_gauge_add() - move gauge @id by @delta; as statctr_cpu_add(). */
static inline __attribute__((always_inline)) void
statctr_cpu_gauge_add(struct statctr_seg *seg, statctr_id id, int64_t delta);

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
 * The path may name anything another local user planted: the open never
 * blocks and never follows a link (-ELOOP), and a FIFO, a device, a short
 * or a sparse file is refused (-EPROTO) before a byte is read in bulk.
 * The header and metadata are read into private memory and checked against
 * every rule of docs/segment-format.md ("Opening") before the file is
 * mapped: a corrupt segment gives -EPROTO, an unsupported one -EINVAL, a
 * missing one -ENOENT, each with a message naming the field and value.  A
 * planted file costs at most what a valid segment of its shape costs.  The
 * control file is checked the same way and mapped read-write when
 * permitted (copy requests, resets), else read-only (snapshots may then
 * report busy slots; resets give -EACCES); a missing or invalid one leaves
 * a view without resets.
 */
int statctr_view_open(const char *segment, struct statctr_view **viewp);

/**
 * statctr_view_open_owned() - statctr_view_open(), requiring that the
 * segment and its control file belong to uid @owner (-EPERM otherwise):
 * a file another user planted is refused.  statctr_view_refresh() too.
 */
int statctr_view_open_owned(const char *segment, uid_t owner, struct statctr_view **viewp);

void statctr_view_close(struct statctr_view *view);

/**
 * statctr_view_refresh() - follow a writer restart.
 *
 * Returns 0 when the path still names the mapped generation, 1 after
 * switching to a new one (record a discontinuity), or a negative errno (the
 * old mapping stays usable; -ENOENT: removed; -EPROTO: rewritten in place
 * into something invalid).  A control file changed since it was validated
 * is validated again; if it no longer passes, the view goes on without it
 * (no resets, no copy requests; can_reset 0).
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
 * Each slot is read at one of its writer's transaction boundaries (THE
 * PROTOCOL), baselines consistently with the totals; a slot whose writer
 * is stuck or dead inside a transaction costs a bounded wait (USAGE
 * CONSTRAINTS) and is counted in statctr_snap_stats().busy_slots (or
 * dead_torn_slots).  Returns 0, -ENOMEM, -ESTALE when the segment or
 * control file changed size under the mapping (refresh), or -EPROTO when
 * the segment's state is neither active nor closed; on error *@snapp is
 * NULL.  One thread per view.
 */
int statctr_snap_take(struct statctr_view *view, struct statctr_snap **snapp);

/**
 * statctr_snap_retake() - take a snapshot again, in the memory of *@snapp.
 *
 * With *@snapp NULL it is statctr_snap_take(); otherwise the new snapshot
 * replaces *@snapp's contents in its buffers (from any view; reallocated
 * only when the number of slots or cells differs): for periodic readers,
 * whose fresh snapshots cost mostly page faults (docs/PERFORMANCE.md).
 * Same reads, guarantees and errors as statctr_snap_take().  Nobody may
 * read *@snapp meanwhile.  On error the snapshot is freed and *@snapp set
 * to NULL: no stale values can pass for new ones.
 */
int statctr_snap_retake(struct statctr_view *view, struct statctr_snap **snapp);
void statctr_snap_free(struct statctr_snap *snap);

/**
 * statctr_view_set_sums_only() - choose what snapshots of @view keep.
 *
 * @on 1: from now on, snapshots taken through @view keep only sums (and
 * what sums need: baselines, discontinuities, row names), 4 values per
 * cell instead of (slots + 4); statctr_snap_slot_value() then returns 0
 * and statctr_snap_stats() has STATCTR_SNAP_SUMS_ONLY in flags.  @on 0:
 * the default, every slot's values too.  As consistent as a full snapshot
 * (the same reads, busy, dead and torn reporting, rows).  A snapshot
 * retaken through a view of the other mode is reshaped.  Same thread rule
 * as the view's other calls.  Returns 0, or -EINVAL (another @on, or a
 * NULL @view).
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
 * @snapp: NULL, or as for statctr_snap_retake().  On success *@snapp is
 * the snapshot the reset was taken from, reading exactly as one taken
 * right after the reset (no need to read the slots again); on failure, a
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
 * Serialised by the epoch file's lock.  With keep epochs kept, the oldest
 * is dropped first (its base is where the new one goes): while the start
 * runs, and after one that fails in its snapshot, one fewer is listed.
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
 * mapping holds them, to the epoch file's carry: intervals across the
 * restart stay exact even if the dead writer's files go before the next
 * writer starts.  Once per generation, whoever captures first (the next
 * writer too).  Needs the rights a reset needs.  Returns 0 (also when it was captured already),
 * -EBUSY (the writer still runs, or the file's lock not had in 500 ms), -EACCES, -ENOENT.
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

/* The fast paths' inline machinery, installed beside this header. */
#include "statctr/slot.h"
#include "statctr/hist.h"
#include "statctr/cpu.h"

#endif /* STATCTR_H */
