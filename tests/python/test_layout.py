"""The Python reader's ctypes mirrors against the C layout (issue 39).

python/statctr/_clib.py copies, field for field, the structs of
lib/statctr.h that the reader passes to the library.  A copy that drifted
(a field added, moved or resized in C) would make the library write past
or beside what Python reads.  Here the C compiler says where each field
is: a tiny program, generated from the mirrors' own field lists, prints
offsetof() and sizeof() of every mirrored field and of each struct, and
each must equal ctypes' .offset, .size and sizeof().
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from statctr import _clib

SRCDIR = os.environ.get("STATCTR_TEST_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def mirrors():
    """(Python class, C struct name) of every Structure in _clib."""
    out = []
    for name in sorted(dir(_clib)):
        cls = getattr(_clib, name)
        if isinstance(cls, type) and issubclass(cls, ctypes.Structure) and cls is not ctypes.Structure:
            m = re.match(r"struct (statctr_\w+)", cls.__doc__ or "")
            assert m, f"_clib.{name}: its docstring must name its C struct ('struct statctr_...')"
            out.append((cls, m.group(1)))
    return out


def c_layout(tmp_path):
    """{(struct, field or ''): (offset, size)} as the C compiler lays them out."""
    cc = os.environ.get("CC", "cc").split()
    if not shutil.which(cc[0]):
        pytest.fail(f"no C compiler {cc[0]} (Debian: apt-get install gcc)")
    lines = ["#include <statctr.h>", "#include <stdio.h>", "#include <stddef.h>", "int main(void)", "{"]
    for cls, struct in mirrors():
        lines.append(f'\tprintf("{struct} - 0 %zu\\n", sizeof(struct {struct}));')
        for field, _ in cls._fields_:
            lines.append(
                f'\tprintf("{struct} {field} %zu %zu\\n", offsetof(struct {struct}, {field}),'
                f" sizeof(((struct {struct} *)0)->{field}));"
            )
    lines += ["\treturn 0;", "}", ""]
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text("\n".join(lines))
    cflags = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(SRCDIR, "lib")]
    build = subprocess.run(cc + cflags + ["-o", str(exe), str(src)], capture_output=True, text=True)
    assert build.returncode == 0, f"the layout program does not build:\n{build.stderr}"
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    layout = {}
    for line in run.stdout.splitlines():
        struct, field, offset, size = line.split()
        layout[(struct, "" if field == "-" else field)] = (int(offset), int(size))
    return layout


def test_mirrors_found():
    """The module has the mirrors this test is about (a rename would hide them)."""
    names = {struct for _, struct in mirrors()}
    assert {"statctr_seg_info", "statctr_snap_stats", "statctr_config"} <= names


def test_mirrors_match_c(tmp_path):
    layout = c_layout(tmp_path)
    bad = []
    for cls, struct in mirrors():
        want = layout[(struct, "")][1]
        if ctypes.sizeof(cls) != want:
            bad.append(f"sizeof(struct {struct}) is {want}, _clib.{cls.__name__} {ctypes.sizeof(cls)}")
        for field, _ in cls._fields_:
            off, size = layout[(struct, field)]
            got = getattr(cls, field)
            if (got.offset, got.size) != (off, size):
                bad.append(
                    f"struct {struct}.{field}: C offset {off} size {size}, "
                    f"_clib.{cls.__name__} offset {got.offset} size {got.size}"
                )
    assert not bad, "the ctypes mirrors differ from the C layout:\n" + "\n".join(bad)


def test_mismatch_is_caught(tmp_path):
    """Positive control: a mirror with two fields swapped is reported."""
    layout = c_layout(tmp_path)
    fields = list(_clib.SegInfo._fields_)
    fields[2], fields[4] = fields[4], fields[2]  # generation <-> creator_pid

    class Swapped(ctypes.Structure):
        _fields_ = fields

    off, size = layout[("statctr_seg_info", "generation")]
    assert (Swapped.generation.offset, Swapped.generation.size) != (off, size)
