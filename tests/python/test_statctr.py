"""The Python reader (python/statctr) against live writers.

tests/python/pytest.sh runs it with PYTHONPATH at python/, STATCTR_LIBRARY
at the build's libstatctr.so.1 and STATCTR_TEST_BUILDDIR/SRCDIR at the
trees.  Writers: tests/python/py_writer (known values; -t: transactions
flat out) and tests/fault/txn_writer (stops inside a transaction).  Every
wait polls against a deadline that allows for a loaded 2-CPU machine.
"""

from __future__ import annotations

import errno
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest

import statctr

BUILD = Path(os.environ.get("STATCTR_TEST_BUILDDIR", "."))
SRC = Path(os.environ.get("STATCTR_TEST_SRCDIR", Path(__file__).resolve().parents[2]))
CI = os.environ.get("CI") == "true"

CONFIG = """segments = ( {
  name = "pytest"; oid = 7; slots = 2; path = "%(path)s";
  tables = (
    { name = "ports"; oid = 1; description = "Per-port counts"; rows = [ "dp0", "dp1", "dp2" ];
      columns = (
        { name = "rxPackets"; kind = "counter"; units = "packets"; description = "Packets received"; },
        { name = "rxOctets"; kind = "counter"; units = "octets"; },
        { name = "queue"; kind = "gauge"; units = "packets"; } ); },
    { name = "cpus"; oid = 2; rows = 4; columns = ( { name = "ticks"; kind = "counter"; } ); },
    { name = "vfs"; oid = 3; rows = { max = 4; };
      columns = ( { name = "bytes"; kind = "counter"; },
                  { name = "lat"; kind = "histogram"; units = "us"; buckets = [ 1, 10 ]; } ); },
    { name = "pair"; oid = 4; rows = 1;
      columns = ( { name = "a"; kind = "counter"; }, { name = "b"; kind = "counter"; } ); } );
} );
"""


def need_numpy() -> None:
    if statctr.HAVE_NUMPY:
        return
    if CI:
        pytest.fail("numpy missing (Debian: python3-numpy), and CI=true")
    pytest.skip("numpy missing (Debian: python3-numpy)")


class Writer:
    """A writer process: started, awaited (a line on its stdout), stopped."""

    def __init__(self, argv: List[str], ready: bytes, timeout: float = 20.0) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        out = b""
        while ready not in out:
            left = deadline - time.monotonic()
            assert left > 0, f"{argv[0]} did not print {ready!r} in {timeout} s: {out!r}"
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                assert chunk, f"{argv[0]} exited: {self.proc.wait()} {self.proc.stderr.read()!r}"
                out += chunk

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                return self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait()


@pytest.fixture
def seg(tmp_path: Path) -> Iterator[Path]:
    """py_writer's segment, values set, writer idle."""
    yield from _py_writer(tmp_path, txn=False)


@pytest.fixture
def txn_seg(tmp_path: Path) -> Iterator[Path]:
    """py_writer's segment with transactions running flat out."""
    yield from _py_writer(tmp_path, txn=True)


def _py_writer(tmp_path: Path, txn: bool) -> Iterator[Path]:
    path = tmp_path / "statctr.pyseg"
    conf = tmp_path / "py.conf"
    conf.write_text(CONFIG % {"path": path})
    argv = [str(BUILD / "tests/python/py_writer"), "-c", str(conf), "-s", "pytest"]
    w = Writer(argv + (["-t"] if txn else []), b"ready\n")
    try:
        yield path
    finally:
        assert w.stop() == 0


def test_values_names_kinds(seg: Path) -> None:
    with statctr.View(str(seg)) as v:
        info = v.info()
        assert (info.name, info.status, info.nslots, info.can_reset) == (
            "pytest", statctr.Status.ACTIVE, 2, True)
        assert str(info.status) == "active"
        assert [t.name for t in v.tables] == ["ports", "cpus", "vfs", "pair"]
        ports = v.table("ports")
        assert ports.description == "Per-port counts"
        assert ports.row_names == ("dp0", "dp1", "dp2")
        assert [(c.name, c.kind, c.units) for c in ports.columns] == [
            ("rxPackets", statctr.Kind.COUNTER, "packets"),
            ("rxOctets", statctr.Kind.COUNTER, "octets"),
            ("queue", statctr.Kind.GAUGE, "packets")]
        assert ports.column("rxPackets").description == "Packets received"
        assert v.table("cpus").row_names is None and not v.table("cpus").dynamic
        lat = v.table("vfs").column("lat")
        assert (lat.kind, lat.bounds, lat.units) == (statctr.Kind.HISTOGRAM, (1, 10), "us")

        s = v.snapshot()
        assert s.stats.busy_slots == 0 and s.stats.rows_present == 1
        for r, name in enumerate(["dp0", "dp1", "dp2"]):
            assert s.counter("ports", "rxPackets", name) == 1000 * (r + 1)
            assert s.counter("ports", "rxPackets", r) == 1000 * (r + 1)
            # Above 2^53: exact only as integers, never through a float.
            assert s.counter("ports", "rxOctets", name) == 2**63 + r
            assert s.gauge("ports", "queue", name) == -5 * (r + 1)
            assert s.value("ports", "queue", name) == -5 * (r + 1)
            assert info.created_ns <= s.discontinuity("ports", "rxPackets", r) <= time.time_ns()
        assert [s.counter("cpus", "ticks", r) for r in range(4)] == [1, 2, 5, 10]
        assert s.counter("cpus", "ticks", "2") == 5

        assert s.rows("vfs") == [None, "vf-b", None, None]
        assert s.rows("ports") == ["dp0", "dp1", "dp2"]
        assert s.counter("vfs", "bytes", "vf-b") == 77 == s.counter("vfs", "bytes", 1)
        assert s.counter("vfs", "bytes", 0) == 0  # absent: 0, as in C
        h = s.histogram("vfs", "lat", "vf-b")  # recorded 0 5 5 50
        assert (h.bounds, h.buckets, h.count, h.total) == ((1, 10), (1, 2, 1), 4, 60)
        assert h.discontinuity_ns >= info.created_ns

        with pytest.raises(KeyError):
            s.counter("vfs", "bytes", "vf-a")  # removed
        with pytest.raises(KeyError):
            s.counter("nope", "bytes", 0)
        with pytest.raises(KeyError):
            s.counter("ports", "nope", 0)
        with pytest.raises(IndexError):
            s.counter("ports", "rxPackets", 3)
        with pytest.raises(TypeError):
            s.gauge("ports", "rxPackets", 0)
        with pytest.raises(TypeError):
            s.counter("vfs", "lat", 1)


@pytest.mark.parametrize("use_numpy", [True, False])
def test_table_arrays_equal_cells(seg: Path, use_numpy: bool) -> None:
    if use_numpy:
        need_numpy()
    with statctr.View(str(seg)) as v, v.snapshot() as s:
        for tb in v.tables:
            cols = s.table(tb.name, use_numpy=use_numpy)
            assert list(cols) == [c.name for c in tb.columns]
            for c in tb.columns:
                assert len(cols[c.name]) == tb.nrows
                assert list(cols[c.name]) == [s.value(tb.name, c.name, r) for r in range(tb.nrows)]
        t = s.table("ports", use_numpy=use_numpy)
        assert list(t["rxOctets"]) == [2**63, 2**63 + 1, 2**63 + 2]
        assert list(t["queue"]) == [-5, -10, -15]
        assert list(s.table("vfs", use_numpy=use_numpy)["lat"]) == [0, 4, 0, 0]
        if use_numpy:
            import numpy

            assert t["rxOctets"].dtype == numpy.uint64 and t["queue"].dtype == numpy.int64
        else:
            assert (t["rxOctets"].format, t["queue"].format) == ("Q", "q")


def test_segments_where_statctl_looks(seg: Path) -> None:
    d = seg.parent
    # The control file and the lock beside the segment are not segments.
    assert any(p.name.startswith("statctr.pyseg.") for p in d.iterdir())
    assert statctr.segments(str(d)) == [str(seg)]
    assert statctr.segments(str(d), config=str(d / "py.conf")) == [str(seg)]
    (d / "other.conf").write_text(CONFIG % {"path": d / "elsewhere"})
    assert statctr.segments(str(d), config=str(d / "other.conf")) == [str(d / "elsewhere"), str(seg)]
    assert all(p.startswith("/dev/shm/statctr.") for p in statctr.segments())
    with pytest.raises(statctr.Error) as e:
        statctr.segments(config=str(d / "missing.conf"))
    assert e.value.errno == errno.ENOENT and "missing.conf" in e.value.message
    # A symbolic link is never a segment; another user's file only with any_owner (statctl's rule).
    (d / "statctr.link").symlink_to(seg)
    assert statctr.segments(str(d)) == [str(seg)]
    planted = d / "statctr.planted"
    planted.write_bytes(seg.read_bytes())
    if os.getuid() != 0:
        print("SKIP: another user's segment needs root (CI runs as root)")
        return
    os.chown(planted, 65534, 65534)
    assert statctr.segments(str(d)) == [str(seg)]
    assert statctr.segments(str(d), any_owner=True) == [str(planted), str(seg)]


def test_segments_of_a_config_with_several(tmp_path: Path) -> None:
    # struct statctr_segment_decl is mirrored field for field: a wrong size
    # reads every segment after the first at the wrong offset.
    table = 'tables = ( { name = "t"; rows = 1; columns = ( { name = "c"; kind = "counter"; } ); } );'
    conf = tmp_path / "several.conf"
    conf.write_text(
        "segments = (\n"
        + ",\n".join(
            '  { name = "s%d"; path = "%s"; oid = %d; slots = 1; %s %s }'
            % (i, tmp_path / ("seg%d" % i), i + 1, "cpu_slots = true;" if i == 0 else "", table)
            for i in range(3)
        )
        + "\n);\n"
    )
    assert statctr.segments(str(tmp_path / "none"), config=str(conf)) == [
        str(tmp_path / ("seg%d" % i)) for i in range(3)
    ]


def test_reset(seg: Path) -> None:
    with statctr.View(str(seg)) as v:
        before = v.snapshot()
        v.reset("ports", "dp0")
        v.reset("ports", "dp1", "rxOctets")
        v.reset("cpus")
        s = v.snapshot()
        assert s.counter("ports", "rxPackets", "dp0") == 0
        assert s.counter("ports", "rxPackets", "dp0", raw=True) == 1000
        assert s.counter("ports", "rxOctets", "dp1") == 0
        assert s.counter("ports", "rxPackets", "dp1") == 2000  # not in the reset cell
        assert s.gauge("ports", "queue", "dp0") == -5  # a level has nothing to reset
        assert [s.counter("cpus", "ticks", r) for r in range(4)] == [0, 0, 0, 0]
        assert s.discontinuity("ports", "rxPackets", "dp0") > before.discontinuity(
            "ports", "rxPackets", "dp0")
        assert before.counter("ports", "rxPackets", "dp0") == 1000  # an older snapshot is kept
        with pytest.raises(ValueError):
            v.reset("ports", column="rxPackets")
        v.reset()
        assert v.snapshot().counter("ports", "rxPackets", "dp2") == 0


def test_transaction_invariant_over_1000_snapshots(txn_seg: Path) -> None:
    """pair.a += 1 and pair.b += 3 in one transaction, flat out: every
    snapshot reads b == 3 a, over 1000 snapshots and until the writer was
    seen at 3 values at least (so that the check is not vacuous)."""
    seen = set()
    # At load 20 the writer got the CPU once in 1000 snapshots (round 12):
    # past 1000, each snapshot yields first, within a deadline for liveness.
    deadline = time.monotonic() + 60 * max(1.0, os.getloadavg()[0] / os.cpu_count())
    i = 0
    with statctr.View(str(txn_seg)) as v:
        while i < 1000 or len(seen) < 3:
            assert time.monotonic() < deadline, f"the writer moved to {sorted(seen)} only"
            if i >= 1000:
                time.sleep(0.001)
            s = v.snapshot()
            if i % 2:
                a, b = s.counter("pair", "a", 0), s.counter("pair", "b", 0)
            else:
                t = s.table("pair")
                a, b = int(t["a"][0]), int(t["b"][0])
            assert s.stats.busy_slots == 0, s.stats
            assert b == 3 * a, f"snapshot {i}: a {a}, b {b}: a torn transaction"
            seen.add(a)
            i += 1


def test_held_snapshot_is_not_overwritten(txn_seg: Path) -> None:
    """Retakes go into released snapshots only, never one still held."""
    with statctr.View(str(txn_seg)) as v:
        first = v.snapshot()
        a0 = first.counter("pair", "a", 0)
        deadline, taken, later = time.monotonic() + 20, 0, a0
        while taken < 20 or later == a0:
            assert time.monotonic() < deadline, "the writer did not move"
            later = v.snapshot().counter("pair", "a", 0)
            taken += 1
        assert first.counter("pair", "a", 0) == a0 and later > a0
        v.close()
        assert first.counter("pair", "a", 0) == a0  # outlives its view
        with pytest.raises(ValueError):
            v.snapshot()
        first.close()
        with pytest.raises(ValueError):
            first.counter("pair", "a", 0)


def _dataplane_conf(tmp_path: Path) -> Path:
    path = tmp_path / "dataplane"
    text = (SRC / "conf/statctr.conf").read_text()
    text = text.replace('name = "dataplane";', f'name = "dataplane"; path = "{path}";', 1)
    assert str(path) in text
    conf = tmp_path / "dataplane.conf"
    conf.write_text(text)
    return conf


def test_stopped_writer_is_busy_not_a_hang(tmp_path: Path) -> None:
    """txn_writer runs 1000 transactions, opens one more, and is stopped
    with SIGSTOP inside it: a snapshot comes back within the library's
    budget with busy_slots 1, naps rather than spins (this process's CPU
    time stays well under the wait), leaves other Python threads running,
    and the next snapshot does not wait again."""
    conf = _dataplane_conf(tmp_path)
    w = Writer([str(BUILD / "tests/fault/txn_writer"), "-c", str(conf), "-s", "dataplane",
                "-n", "1000"], b"in-transaction")
    done = threading.Event()
    try:
        os.kill(w.proc.pid, signal.SIGSTOP)
        ticks = [0]

        def tick() -> None:
            while not done.is_set():
                ticks[0] += 1
                time.sleep(0.001)

        ticker = threading.Thread(target=tick, daemon=True)  # a failure must not keep it
        with statctr.View(str(tmp_path / "dataplane")) as v:
            ticker.start()
            wall, cpu = time.monotonic(), time.process_time()
            s = v.snapshot()
            wall, cpu = time.monotonic() - wall, time.process_time() - cpu
            done.set()
            ticker.join()
            assert s.stats.busy_slots == 1, s.stats
            assert wall < 10, f"a snapshot of a stopped writer took {wall:.1f} s"
            assert cpu < 0.05 + wall / 2, f"{cpu:.3f} s CPU in {wall:.3f} s: spinning"
            assert ticks[0] > 0 or wall < 0.01, "the GIL was held through the wait"
            # The torn transaction as read: the flow row moved, totals not.
            assert s.counter("flowStats", "packets", 0) == 1001
            assert s.counter("totals", "packets", "all") == 1000
            again = time.monotonic()
            s2 = v.snapshot()
            again = time.monotonic() - again
            assert s2.stats.busy_slots == 1 and again < 5
            os.kill(w.proc.pid, signal.SIGKILL)
            w.proc.wait()
            deadline = time.monotonic() + 20
            while True:
                st = v.snapshot().stats
                if st.dead_torn_slots == 1 and st.busy_slots == 0:
                    break
                assert time.monotonic() < deadline, f"dead writer not seen: {st}"
                time.sleep(0.05)
    finally:
        done.set()
        w.stop()


def test_bad_segments_raise(seg: Path, tmp_path: Path) -> None:
    def error_of(path: Path) -> statctr.Error:
        with pytest.raises(statctr.Error) as e:
            statctr.View(str(path))
        assert str(path) in e.value.message, e.value.message
        return e.value

    assert error_of(tmp_path / "missing").errno == errno.ENOENT
    junk = tmp_path / "junk"
    junk.write_bytes(bytes(range(256)) * 16)
    assert error_of(junk).errno == errno.EPROTO
    short = tmp_path / "short"
    short.write_bytes(b"STCTRSEG")
    assert error_of(short).errno == errno.EPROTO
    link = tmp_path / "link"
    link.symlink_to(seg)
    assert error_of(link).errno == errno.ELOOP

    # A real segment with its magic, then its cell count, corrupted.
    bad = tmp_path / "bad"
    shutil.copyfile(seg, bad)
    data = bytearray(bad.read_bytes())
    data[0:8] = b"STCTRXXX"
    bad.write_bytes(bytes(data))
    e = error_of(bad)
    assert e.errno == errno.EPROTO and "magic" in e.message
    assert isinstance(e, Exception) and str(e) == e.message


def test_exporter_example_matches_statctl(seg: Path, tmp_path: Path) -> None:
    """docs/python.md's exporter prints what statctl show -f prom prints."""
    doc = (SRC / "docs/python.md").read_text()
    start = doc.index("## Example: a Prometheus textfile exporter")
    begin = doc.index("```python\n", start) + len("```python\n")
    code = doc[begin : doc.index("\n```", begin)]
    scope: dict = {"__name__": "exporter"}
    exec(compile(code, "docs/python.md", "exec"), scope)
    out = tmp_path / "py.prom"
    with open(out, "w") as f:
        scope["export"]([str(seg)], f)
    statctl = subprocess.run([str(BUILD / "tools/statctl"), "show", "-f", "prom", str(seg)],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert "statctr_pytest_ports_rx_octets_total" in statctl
    assert out.read_text() == statctl
    assert statctr.prometheus_name("a.b", "ifStats", "rxPackets", statctr.Kind.COUNTER) == \
        "statctr_a_b_if_stats_rx_packets_total"


def test_snap_values_range_is_checked(seg: Path) -> None:
    """statctr_snap_values() refuses a range past the snapshot's cells."""
    import ctypes

    with statctr.View(str(seg)) as v, v.snapshot() as s:
        n = v.info().ncells
        buf = (ctypes.c_uint64 * 4)()
        lib = statctr._lib
        assert lib.statctr_snap_values(s._s(), n - 2, 2, buf) == 0
        assert lib.statctr_snap_values(s._s(), n - 1, 2, buf) == -errno.EINVAL
        assert f"the snapshot has {n} cells" in lib.statctr_errmsg().decode()
        assert lib.statctr_snap_values(s._s(), n + 1, 0, buf) == -errno.EINVAL
        assert lib.statctr_snap_values(s._s(), 0xFFFFFFFF, 2, buf) == -errno.EINVAL


def test_refresh_follows_a_restarted_writer(tmp_path: Path) -> None:
    gen = _py_writer(tmp_path, txn=False)
    path = next(gen)
    writer1 = gen  # a failure below must stop this writer now, not at exit
    try:
        with statctr.View(str(path)) as v:
            old = v.snapshot()
            first = v.info().generation
            with pytest.raises(StopIteration):
                next(gen)  # SIGTERM: the writer destroys its segment
            assert v.info().status == statctr.Status.CLOSED
            with pytest.raises(statctr.Error) as e:
                v.refresh()
            assert e.value.errno == errno.ENOENT
            gen = _py_writer(tmp_path, txn=False)
            next(gen)
            try:
                assert v.refresh() is True and v.info().generation != first
                assert v.info().status == statctr.Status.ACTIVE
                s = v.snapshot()
                assert s.stats.generation != old.stats.generation
                assert s.counter("ports", "rxPackets", "dp1") == 2000
                assert old.counter("ports", "rxPackets", "dp1") == 2000  # the old generation's
                assert v.refresh() is False
            finally:
                with pytest.raises(StopIteration):
                    next(gen)
    finally:
        writer1.close()
