"""statctr - read libstatctr counter segments from Python.

A thin binding over libstatctr's C reader API (lib/statctr.h), through
ctypes: every open, snapshot, consistency check, wait budget and reset is
the library's own code.  See docs/python.md.

    import statctr

    for path in statctr.segments():
        with statctr.View(path) as v:
            s = v.snapshot()
            print(path, s.table("ifStats"))

Owns: the Python names of views, snapshots and cells (table, column and
row by name or index), and arrays of a snapshot's tables.  Never does:
read the segment's bytes itself, or wait on a writer (a busy writer costs
the library's budget, once, and shows in Snapshot.stats.busy_slots).

Threads: a View and the snapshots taken from it are used by one thread at
a time (as in C); View serialises its own calls with a lock.
"""

from __future__ import annotations

import array
import ctypes
import enum
import glob
import os
import stat
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, TypeVar, Union

from . import _clib

try:  # numpy arrays when numpy is installed (python3-numpy), else array/memoryview
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the system
    _np = None

__all__ = [
    "Error",
    "Kind",
    "Status",
    "SegmentInfo",
    "Column",
    "Table",
    "SnapshotStats",
    "Histogram",
    "View",
    "Snapshot",
    "segments",
    "prometheus_name",
    "HAVE_NUMPY",
]

HAVE_NUMPY: bool = _np is not None
"""Whether Snapshot.table() gives numpy arrays by default."""

Row = Union[int, str]
"""A row: its index (from 0) or its name (declared, or a dynamic row's)."""

_lib = _clib.load()


class Error(Exception):
    """A libstatctr call failed.

    errno is the positive errno value (the C call returned -errno) and
    message is statctr_errmsg(), the library's words for the cause (the
    file, field and value).
    """

    def __init__(self, errno: int, message: str) -> None:
        super().__init__(message)
        self.errno = errno
        self.message = message


def _check(rc: int) -> int:
    """rc from a C call returning int: itself when >= 0, else raise Error."""
    if rc < 0:
        raise Error(-rc, _lib.statctr_errmsg().decode(errors="replace"))
    return rc


def _text(b: Optional[bytes]) -> str:
    return "" if b is None else b.decode(errors="replace")


class Kind(enum.IntEnum):
    """enum statctr_kind."""

    COUNTER = 1
    GAUGE = 2
    HISTOGRAM = 3


class Status(enum.IntEnum):
    """enum statctr_seg_status; str() gives statctl's word."""

    ACTIVE = 1
    CLOSED = 2
    GONE = 3
    STALE = 4

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class SegmentInfo:
    """struct statctr_seg_info, read when View.info() is called."""

    name: str
    path: str
    generation: int
    created_ns: int
    creator_pid: int
    oid: int
    nslots: int
    ncells: int
    ntables: int
    size: int
    status: Status
    can_reset: bool
    writer_flags: int


@dataclass(frozen=True)
class Column:
    """A column: its name, kind, texts, and a histogram's bucket bounds
    (ascending inclusive upper bounds; +Inf is one more bucket)."""

    index: int
    name: str
    kind: Kind
    description: str
    units: str
    bounds: Tuple[int, ...] = ()


@dataclass(frozen=True)
class Table:
    """A table of a segment.  Row r, column c is cell first_cell + r *
    len(columns) + c (statctr_table_info).  row_names: the declared names,
    or None for numbered rows and dynamic tables (whose names are each
    snapshot's: Snapshot.rows())."""

    index: int
    name: str
    description: str
    oid: int
    nrows: int
    first_cell: int
    dynamic: bool
    columns: Tuple[Column, ...]
    row_names: Optional[Tuple[str, ...]]

    def column(self, name: str) -> Column:
        """The column called name; KeyError if there is none."""
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"table {self.name} has no column {name!r}")


@dataclass(frozen=True)
class SnapshotStats:
    """struct statctr_snap_stats: how the snapshot was read.  busy_slots
    counts slots whose live writer held one transaction open past the
    library's budget (read as they were, possibly mid-transaction)."""

    generation: int
    taken_ns: int
    nslots: int
    ncells: int
    retries: int
    assisted_slots: int
    busy_slots: int
    dead_torn_slots: int
    rows_present: int
    rows_changed: int
    rows_corrupt: int


@dataclass(frozen=True)
class Histogram:
    """One histogram cell of a snapshot.  buckets are per bucket, not
    cumulative: len(bounds) + 1 of them, the last for values above every
    bound (+Inf).  count == sum(buckets); total is the sum of the values
    recorded (mod 2**64), all since discontinuity_ns."""

    bounds: Tuple[int, ...]
    buckets: Tuple[int, ...]
    count: int
    total: int
    discontinuity_ns: int


class _Schema:
    """A segment generation's tables, read once when a view maps it (the
    declaration never changes within a generation).  Immutable; snapshots
    keep the one they were taken with, so they outlive View.close()."""

    def __init__(self, handle: int, ntables: int) -> None:
        self.tables: List[Table] = [self._table(handle, t) for t in range(ntables)]
        self.by_name: Dict[str, Table] = {tb.name: tb for tb in self.tables}
        self.row_index: Dict[str, Dict[str, int]] = {
            tb.name: {n: r for r, n in enumerate(tb.row_names)}
            for tb in self.tables
            if tb.row_names is not None
        }

    @staticmethod
    def _table(handle: int, t: int) -> Table:
        ti = _clib.TableInfo()
        _check(_lib.statctr_view_table(handle, t, ctypes.byref(ti)))
        columns = []
        for c in range(ti.ncolumns):
            ci = _clib.ColumnInfo()
            _check(_lib.statctr_view_column(handle, t, c, ctypes.byref(ci)))
            bounds: Tuple[int, ...] = ()
            if ci.kind == Kind.HISTOGRAM:
                ptr = ctypes.POINTER(ctypes.c_uint64)()
                n = _lib.statctr_view_hist_buckets(handle, ti.first_cell + c, ctypes.byref(ptr))
                bounds = tuple(ptr[:n])
            columns.append(
                Column(c, _text(ci.name), Kind(ci.kind), _text(ci.description), _text(ci.units), bounds)
            )
        # Row 0 tells: declared names are all there or none (numbered, dynamic).
        row_names = None
        if not ti.dynamic and _lib.statctr_view_row_name(handle, t, 0) is not None:
            row_names = tuple(_text(_lib.statctr_view_row_name(handle, t, r)) for r in range(ti.nrows))
        return Table(
            t,
            _text(ti.name),
            _text(ti.description),
            ti.oid,
            ti.nrows,
            ti.first_cell,
            bool(ti.dynamic),
            tuple(columns),
            row_names,
        )

    def table(self, name: str) -> Table:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(f"no table {name!r}") from None


_Self = TypeVar("_Self", bound="_Closing")


class _Closing:
    """What View and Snapshot share: a context manager that close()s on exit,
    and close() when collected while _RESOURCE (the attribute that holds
    the library's handle) is still set."""

    _RESOURCE = ""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, self._RESOURCE, None) is not None:
            try:
                self.close()
            except Exception:  # pragma: no cover - interpreter shutdown
                pass


class View(_Closing):
    """A read-only view of one segment: statctr_view_open().

    path_or_name is a path (contains '/') or a segment name
    (/dev/shm/statctr.<name>).  owner: require that the segment and its
    control file belong to this uid (statctr_view_open_owned()).  Raises
    Error (ENOENT missing, EPROTO corrupt, EINVAL unsupported, ELOOP a
    symbolic link, ...) with the library's message.  A context manager:
    close() on exit.
    """

    _RESOURCE = "_handle"

    def __init__(self, path_or_name: Union[str, "os.PathLike[str]"], *,
                 owner: Optional[int] = None) -> None:
        self._lock = threading.Lock()
        self._handle: Optional[int] = None
        self._spare: List[ctypes.c_void_p] = []  # freed snapshots' buffers, for retakes
        h = ctypes.c_void_p()
        arg = os.fsencode(path_or_name)
        if owner is None:
            _check(_lib.statctr_view_open(arg, ctypes.byref(h)))
        else:
            _check(_lib.statctr_view_open_owned(arg, owner, ctypes.byref(h)))
        self._handle = h.value
        try:
            self._schema = _Schema(self._handle, self.info().ntables)
        except BaseException:
            self.close()
            raise

    # -- life cycle

    def close(self) -> None:
        """statctr_view_close(); idempotent.  Snapshots taken from the view
        stay readable."""
        with self._lock:
            for snap in self._spare:
                _lib.statctr_snap_free(snap)
            self._spare = []
            if self._handle is not None:
                _lib.statctr_view_close(self._handle)
                self._handle = None

    def _h(self) -> int:
        if self._handle is None:
            raise ValueError("the view is closed")
        return self._handle

    # -- the segment

    def info(self) -> SegmentInfo:
        """statctr_view_info(): the segment now (its writer's liveness checked)."""
        si = _clib.SegInfo()
        _lib.statctr_view_info(self._h(), ctypes.byref(si))
        return SegmentInfo(
            _text(si.name),
            _text(si.path),
            si.generation,
            si.created_ns,
            si.creator_pid,
            si.oid,
            si.nslots,
            si.ncells,
            si.ntables,
            si.size,
            Status(si.status),
            bool(si.can_reset),
            si.writer_flags,
        )

    @property
    def tables(self) -> Tuple[Table, ...]:
        """The segment's tables, in declaration order."""
        return tuple(self._schema.tables)

    def table(self, name: str) -> Table:
        """The table called name (KeyError if none)."""
        return self._schema.table(name)

    def refresh(self) -> bool:
        """statctr_view_refresh(): follow a writer restart.  True after
        switching to a new generation (its values count from zero: record a
        discontinuity), False when the path still names the mapped one."""
        with self._lock:
            switched = _check(_lib.statctr_view_refresh(self._h())) == 1
            if switched:
                for snap in self._spare:
                    _lib.statctr_snap_free(snap)
                self._spare = []
                self._schema = _Schema(self._h(), self.info().ntables)
            return switched

    # -- snapshots

    def snapshot(self) -> "Snapshot":
        """A consistent snapshot of every cell: statctr_snap_take(), or
        statctr_snap_retake() into the buffers of a snapshot already
        released (closed, or no longer referenced), so that a reader
        polling in a loop retakes from its third snapshot on.  Raises Error
        (ESTALE: the segment changed size, refresh(); EPROTO: corrupt).
        A busy writer costs the library's budget and shows in
        stats.busy_slots; it never makes this call spin."""
        with self._lock:
            h = self._h()
            snap = self._spare.pop() if self._spare else ctypes.c_void_p()
            rc = _lib.statctr_snap_retake(h, ctypes.byref(snap))
            _check(rc)  # on error the library freed the snapshot
            return Snapshot(self, snap, self._schema)

    def _give_back(self, snap: ctypes.c_void_p) -> None:
        """A released snapshot's buffers: kept for one retake, else freed."""
        lock = self._lock
        if lock.acquire(blocking=False):
            try:
                if self._handle is not None and not self._spare:
                    self._spare.append(snap)
                    return
            finally:
                lock.release()
        _lib.statctr_snap_free(snap)

    # -- resets

    def reset(self, table: Optional[str] = None, row: Optional[Row] = None,
              column: Optional[str] = None) -> None:
        """Reset counters (statctr_reset_range()): the whole segment, a
        table, a row of it, or one cell (table, row and column), in one
        step readers see whole; gauges are left alone, histograms reset
        whole.  A column across rows is not one range: reset each cell.
        A dynamic table's row is given by index (its names are a
        snapshot's: Snapshot.rows()).
        Raises Error (EACCES: the control file is not writable by this
        process; EBUSY: another resetter held the lock too long)."""
        schema = self._schema
        if table is None:
            if row is not None or column is not None:
                raise ValueError("a row or column needs its table")
            first, count = 0, self.info().ncells
        else:
            tb = schema.table(table)
            ncols = len(tb.columns)
            if row is None:
                if column is not None:
                    raise ValueError("a column across rows is not one range: give the row too")
                first, count = tb.first_cell, tb.nrows * ncols
            else:
                r = _row_index(schema, tb, row, None)
                first, count = tb.first_cell + r * ncols, ncols
                if column is not None:
                    first, count = first + tb.column(column).index, 1
        with self._lock:
            _check(_lib.statctr_reset_range(self._h(), first, count))


def _row_index(schema: _Schema, tb: Table, row: Row, snap: Optional["Snapshot"]) -> int:
    """row (an index, or a name: declared, numbered as digits, or a dynamic
    row's in snap) as an index; KeyError/IndexError when there is none."""
    if isinstance(row, int):
        if not 0 <= row < tb.nrows:
            raise IndexError(f"table {tb.name} has rows 0..{tb.nrows - 1}, not {row}")
        return row
    names = schema.row_index.get(tb.name)
    if names is not None:
        if row in names:
            return names[row]
    elif tb.dynamic:
        if snap is None:
            raise KeyError(f"table {tb.name} is dynamic: its row names are a snapshot's")
        r = snap._dynamic_rows(tb).get(row)
        if r is not None:
            return r
        raise KeyError(f"table {tb.name} has no row {row!r} in this snapshot")
    elif row.isdigit():
        return _row_index(schema, tb, int(row), snap)
    raise KeyError(f"table {tb.name} has no row {row!r}")


class Snapshot(_Closing):
    """Every cell of a segment at one time, summed over its writers' slots
    (statctr_snap_take()): each slot read at a transaction boundary of its
    writer, except those counted in stats.busy_slots.  Read-only; valid
    until close() (or until it is no longer referenced), even after its
    view is closed.  A context manager.

    Cells are named by table and column names and a row: its index or its
    name.  A dynamic row absent from the snapshot reads 0 by index, and is
    not found by name.
    """

    _RESOURCE = "_snap"

    def __init__(self, view: View, snap: ctypes.c_void_p, schema: _Schema) -> None:
        self._view: Optional[View] = view
        self._snap: Optional[ctypes.c_void_p] = snap
        self._schema = schema
        self._dyn: Dict[str, Dict[str, int]] = {}
        st = _clib.SnapStats()
        _lib.statctr_snap_stats(snap, ctypes.byref(st))
        self.stats = SnapshotStats(*(getattr(st, f) for f, _ in _clib.SnapStats._fields_))

    def close(self) -> None:
        """Release the snapshot (its buffers serve the view's next
        snapshot); idempotent."""
        snap, self._snap = self._snap, None
        view, self._view = self._view, None
        if snap is None:
            return
        if view is not None:
            view._give_back(snap)
        else:
            _lib.statctr_snap_free(snap)

    def _s(self) -> ctypes.c_void_p:
        if self._snap is None:
            raise ValueError("the snapshot is closed")
        return self._snap

    # -- naming

    @property
    def tables(self) -> Tuple[Table, ...]:
        """The tables of the segment generation the snapshot was taken from."""
        return tuple(self._schema.tables)

    def _dynamic_rows(self, tb: Table) -> Dict[str, int]:
        rows = self._dyn.get(tb.name)
        if rows is None:
            rows = {n: r for r, n in enumerate(self.rows(tb.name)) if n is not None}
            self._dyn[tb.name] = rows
        return rows

    def rows(self, table: str) -> List[Optional[str]]:
        """Row names by index (statctr_snap_row_name()): declared names;
        for a dynamic table the names present in this snapshot, None for
        absent rows; for numbered rows None each."""
        tb = self._schema.table(table)
        s = self._s()
        if tb.row_names is not None:
            return list(tb.row_names)
        if not tb.dynamic:
            return [None] * tb.nrows
        names = (_lib.statctr_snap_row_name(s, tb.index, r) for r in range(tb.nrows))
        return [None if n is None else _text(n) for n in names]

    def _cell(self, table: str, column: str, row: Row, kinds: Sequence[Kind]) -> Tuple[int, Column]:
        tb = self._schema.table(table)
        col = tb.column(column)
        if col.kind not in kinds:
            raise TypeError(f"{table}.{column} is a {col.kind.name.lower()}")
        r = _row_index(self._schema, tb, row, self)
        return tb.first_cell + r * len(tb.columns) + col.index, col

    # -- values

    def counter(self, table: str, column: str, row: Row, *, raw: bool = False) -> int:
        """A counter's value since its last reset (statctr_snap_counter()),
        mod 2**64; raw=True: ignoring resets (statctr_snap_counter_raw())."""
        cell, _ = self._cell(table, column, row, (Kind.COUNTER,))
        if raw:
            return int(_lib.statctr_snap_counter_raw(self._s(), cell))
        return int(_lib.statctr_snap_counter(self._s(), cell))

    def gauge(self, table: str, column: str, row: Row) -> int:
        """A gauge's signed level (statctr_snap_gauge())."""
        cell, _ = self._cell(table, column, row, (Kind.GAUGE,))
        return int(_lib.statctr_snap_gauge(self._s(), cell))

    def value(self, table: str, column: str, row: Row) -> int:
        """A cell's value by its kind: counter(), gauge(), or a histogram's
        count, as in the arrays of table()."""
        cell, col = self._cell(table, column, row, tuple(Kind))
        out = ctypes.c_uint64()
        _check(_lib.statctr_snap_values(self._s(), cell, 1, ctypes.byref(out)))
        v = out.value
        return v - (1 << 64) if col.kind == Kind.GAUGE and v >= 1 << 63 else v

    def discontinuity(self, table: str, column: str, row: Row) -> int:
        """CLOCK_REALTIME ns since the epoch since which the cell has
        counted without a discontinuity: its last reset, the segment's
        creation or its dynamic row's add (statctr_snap_discontinuity())."""
        cell, _ = self._cell(table, column, row, tuple(Kind))
        return int(_lib.statctr_snap_discontinuity(self._s(), cell))

    def histogram(self, table: str, column: str, row: Row) -> Histogram:
        """A histogram cell: bounds, per-bucket counts (+Inf last), count and
        sum, and its discontinuity time."""
        cell, col = self._cell(table, column, row, (Kind.HISTOGRAM,))
        s = self._s()
        buckets = tuple(
            int(_lib.statctr_snap_hist_bucket(s, cell, b)) for b in range(len(col.bounds) + 1)
        )
        return Histogram(
            col.bounds,
            buckets,
            int(_lib.statctr_snap_hist_count(s, cell)),
            int(_lib.statctr_snap_hist_sum(s, cell)),
            int(_lib.statctr_snap_discontinuity(s, cell)),
        )

    def table(self, table: str, *, use_numpy: Optional[bool] = None) -> Dict[str, Sequence[int]]:
        """{column name: its values per row index}, in one library call
        (statctr_snap_values()) and no per-cell Python loop: counters as
        uint64, gauges as int64 (their signed levels), histograms as their
        counts.  Absent dynamic rows read 0 (rows() names the present ones).

        With numpy (use_numpy None and numpy installed, or True) each
        column is a numpy array (a view, strided, of one array of the
        table); else a memoryview of format 'Q' (counters, histograms) or
        'q' (gauges), strided likewise.
        """
        tb = self._schema.table(table)
        ncols = len(tb.columns)
        n = tb.nrows * ncols
        if use_numpy is None:
            use_numpy = HAVE_NUMPY
        if use_numpy:
            if _np is None:
                raise RuntimeError("numpy is not installed (Debian: python3-numpy)")
            buf = _np.empty(n, dtype=_np.uint64)
            _check(_lib.statctr_snap_values(self._s(), tb.first_cell, n, buf.ctypes.data))
            grid = buf.reshape(tb.nrows, ncols)
            return {
                col.name: grid[:, col.index].view(_np.int64) if col.kind == Kind.GAUGE else grid[:, col.index]
                for col in tb.columns
            }
        arr = array.array("Q", [0]) * n
        addr, _ = arr.buffer_info()
        _check(_lib.statctr_snap_values(self._s(), tb.first_cell, n, addr))
        unsigned = memoryview(arr)
        signed = unsigned.cast("B").cast("q")
        return {
            col.name: (signed if col.kind == Kind.GAUGE else unsigned)[col.index :: ncols]
            for col in tb.columns
        }


def _declared_paths(config: str) -> List[str]:
    """The segment paths config declares, read by statctr_config_load()."""
    cfg = ctypes.POINTER(_clib.Config)()
    _check(_lib.statctr_config_load(os.fsencode(config), ctypes.byref(cfg)))
    try:
        c = cfg.contents
        return [_text(c.segments[i].path) for i in range(c.nsegments)]
    finally:
        _lib.statctr_config_free(cfg)


def _is_segment_file(path: str, prefix: str, any_owner: bool) -> bool:
    """statctl's rule (tools/discover.c): statctr.<name>, a regular file
    (judged on the name itself: a symbolic link is never a segment), name
    without '.' or '~' (control files, files being built), owned by the
    invoking user or root unless any_owner (statctl --any-owner)."""
    name = os.path.basename(path)[len(prefix):]
    if "." in name or "~" in name or not name:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and (any_owner or st.st_uid in (0, os.getuid()))


def segments(directory: Optional[str] = None, *, config: Optional[str] = None,
             any_owner: bool = False) -> List[str]:
    """Segment paths found where statctl looks: the files statctr.<name> of
    directory (default /dev/shm, where segments named without a path live;
    control files and files still being built excluded; only the invoking
    user's and root's unless any_owner, as statctl), after the paths
    that configuration file config declares, present or not (statctl -c
    CONFIG list), if given.  Each once.  Opens nothing but config; raises
    Error for a config statctr_config_load() rejects."""
    prefix = "statctr."
    found: List[str] = []
    if config is not None:
        found.extend(_declared_paths(config))
    pattern = os.path.join(directory or "/dev/shm", glob.escape(prefix) + "*")
    found.extend(p for p in sorted(glob.glob(pattern)) if _is_segment_file(p, prefix, any_owner))
    seen: Dict[str, None] = {}
    for p in found:
        seen.setdefault(p, None)
    return list(seen)


def _snake(part: str) -> str:
    """statctl's name part (tools/escape.c, prom_name_part()): ASCII
    letters and digits kept, lowercased; '_' before an uppercase letter
    that follows a lowercase one or a digit, and for a run of other bytes
    after one."""
    out: List[str] = []
    after_word = pending = False
    for ch in part:
        if not (ch.isascii() and ch.isalnum()):
            pending, after_word = after_word, False
            continue
        if ch.isupper() and after_word:
            pending = True
        if pending:
            out.append("_")
        out.append(ch.lower())
        pending = False
        after_word = not ch.isupper()
    return "".join(out)


def prometheus_name(segment: str, table: str, column: str, kind: Kind) -> str:
    """The metric family statctl -f prom prints for a column:
    statctr_<segment>_<table>_<column> in snake case, "_total" for a
    counter (a histogram's series add _bucket, _sum and _count)."""
    name = "_".join(["statctr", _snake(segment), _snake(table), _snake(column)])
    return name + "_total" if kind == Kind.COUNTER else name
