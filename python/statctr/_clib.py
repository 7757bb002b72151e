"""The C reader API of libstatctr.so.1, declared for ctypes.

Owns: loading the library and the prototypes and structures of the part of
lib/statctr.h that readers use, field for field.  Never does: parse a
segment, or decide anything the library decides (every read, wait and
check is the library's; this module only names its functions).

ctypes releases the GIL for the length of each call, so a snapshot that
waits out a stuck writer's budget (statctr.h, USAGE CONSTRAINTS) blocks
only the calling thread.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_int,
    c_int32,
    c_int64,
    c_uint32,
    c_uint64,
    c_void_p,
)

# The library's SONAME; STATCTR_LIBRARY names another file (a build tree's
# lib/.libs/libstatctr.so.1) for tests and benchmarks.
SONAME = "libstatctr.so.1"

statctr_id = c_uint32


class SegInfo(Structure):
    """struct statctr_seg_info."""

    _fields_ = [
        ("name", c_char_p),
        ("path", c_char_p),
        ("generation", c_uint64),
        ("created_ns", c_uint64),
        ("creator_pid", c_int32),  # pid_t
        ("oid", c_uint32),
        ("nslots", c_uint32),
        ("ncells", c_uint32),
        ("ntables", c_uint32),
        ("size", c_uint64),
        ("status", c_int),
        ("can_reset", c_int),
        ("writer_flags", c_uint32),
    ]


class TableInfo(Structure):
    """struct statctr_table_info."""

    _fields_ = [
        ("name", c_char_p),
        ("description", c_char_p),
        ("oid", c_uint32),
        ("nrows", c_uint32),
        ("ncolumns", c_uint32),
        ("first_cell", statctr_id),
        ("dynamic", c_int),
    ]


class ColumnInfo(Structure):
    """struct statctr_column_info."""

    _fields_ = [
        ("name", c_char_p),
        ("description", c_char_p),
        ("units", c_char_p),
        ("kind", c_int),
    ]


class SnapStats(Structure):
    """struct statctr_snap_stats."""

    _fields_ = [
        ("generation", c_uint64),
        ("taken_ns", c_uint64),
        ("nslots", c_uint32),
        ("ncells", c_uint32),
        ("retries", c_uint32),
        ("assisted_slots", c_uint32),
        ("busy_slots", c_uint32),
        ("dead_torn_slots", c_uint32),
        ("rows_present", c_uint32),
        ("rows_changed", c_uint32),
        ("rows_corrupt", c_uint32),
    ]


class SegmentDecl(Structure):
    """struct statctr_segment_decl (only name and path are read)."""

    _fields_ = [
        ("name", c_char_p),
        ("path", c_char_p),
        ("nslots", c_uint32),
        ("oid", c_uint32),
        ("mode", c_uint32),  # mode_t
        ("ctl_mode", c_uint32),
        ("group", c_char_p),
        ("ntables", c_uint32),
        ("tables", c_void_p),
        ("ncells", c_uint32),
        ("line", c_int),
        ("cpu_collapse", c_uint32),
        ("epoch_keep", c_uint32),
        ("epoch_interval_s", c_uint32),
    ]


class Config(Structure):
    """struct statctr_config."""

    _fields_ = [
        ("file", c_char_p),
        ("nsegments", c_uint32),
        ("segments", POINTER(SegmentDecl)),
    ]


# (name, result type, argument types) of every function used.
_PROTOTYPES = [
    ("statctr_errmsg", c_char_p, []),
    ("statctr_config_load", c_int, [c_char_p, POINTER(POINTER(Config))]),
    ("statctr_config_free", None, [POINTER(Config)]),
    ("statctr_view_open", c_int, [c_char_p, POINTER(c_void_p)]),
    ("statctr_view_open_owned", c_int, [c_char_p, c_uint32, POINTER(c_void_p)]),
    ("statctr_view_close", None, [c_void_p]),
    ("statctr_view_refresh", c_int, [c_void_p]),
    ("statctr_view_info", None, [c_void_p, POINTER(SegInfo)]),
    ("statctr_view_table", c_int, [c_void_p, c_uint32, POINTER(TableInfo)]),
    ("statctr_view_column", c_int, [c_void_p, c_uint32, c_uint32, POINTER(ColumnInfo)]),
    ("statctr_view_row_name", c_char_p, [c_void_p, c_uint32, c_uint32]),
    (
        "statctr_view_hist_buckets",
        c_uint32,
        [c_void_p, statctr_id, POINTER(POINTER(c_uint64))],
    ),
    ("statctr_snap_take", c_int, [c_void_p, POINTER(c_void_p)]),
    ("statctr_snap_retake", c_int, [c_void_p, POINTER(c_void_p)]),
    ("statctr_snap_free", None, [c_void_p]),
    ("statctr_snap_counter", c_uint64, [c_void_p, statctr_id]),
    ("statctr_snap_counter_raw", c_uint64, [c_void_p, statctr_id]),
    ("statctr_snap_gauge", c_int64, [c_void_p, statctr_id]),
    ("statctr_snap_hist_bucket", c_uint64, [c_void_p, statctr_id, c_uint32]),
    ("statctr_snap_hist_count", c_uint64, [c_void_p, statctr_id]),
    ("statctr_snap_hist_sum", c_uint64, [c_void_p, statctr_id]),
    ("statctr_snap_discontinuity", c_uint64, [c_void_p, statctr_id]),
    ("statctr_snap_row_name", c_char_p, [c_void_p, c_uint32, c_uint32]),
    ("statctr_snap_stats", None, [c_void_p, POINTER(SnapStats)]),
    ("statctr_snap_values", c_int, [c_void_p, statctr_id, c_uint32, c_void_p]),
    ("statctr_reset_range", c_int, [c_void_p, statctr_id, c_uint32]),
]


def _open() -> ctypes.CDLL:
    """STATCTR_LIBRARY, else the SONAME where the dynamic linker looks, else
    the library `make install` put beside this module: PREFIX/lib for
    PREFIX/lib/python3/dist-packages/statctr (a prefix the linker does not
    search, README.md "Into another prefix")."""
    if os.environ.get("STATCTR_LIBRARY"):
        return ctypes.CDLL(os.environ["STATCTR_LIBRARY"])
    try:
        return ctypes.CDLL(SONAME)
    except OSError:
        here = os.path.dirname(os.path.abspath(__file__))
        beside = os.path.normpath(os.path.join(here, "..", "..", "..", SONAME))
        if not os.path.isfile(beside):
            raise
        return ctypes.CDLL(beside)


def load() -> ctypes.CDLL:
    """Load libstatctr (_open()) and declare its reader functions.  Raises
    OSError when the library cannot be loaded and AttributeError when it
    lacks one of them (an older libstatctr1)."""
    lib = _open()
    for name, restype, argtypes in _PROTOTYPES:
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib
