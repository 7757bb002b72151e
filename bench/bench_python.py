#!/usr/bin/python3
"""bench_python.py - the Python reader against the C one, same run
(docs/PERFORMANCE.md, "Python").

    STATCTR_LIBRARY=build/default/lib/.libs/libstatctr.so.1 PYTHONPATH=python \\
        /usr/bin/python3 bench/bench_python.py --build-dir build/default

A segment of CELLS cells (a table "flows" of CELLS/2 rows x 2 counters) x
SLOTS writer slots, every cell of every slot filled, writers idle
(bench_python create).  Per round, in ABBA order (C, Python, Python, C):

  C:      bench_python time: statctr_snap_retake(), then every cell read
          with statctr_snap_counter() into one array (statctl's reads);
  Python: View.snapshot() (a retake into a released snapshot's buffers),
          then Snapshot.table("flows") (numpy arrays, one
          statctr_snap_values() call).

Prints the medians of each side and their ratio (Python / C) for the
retake alone and for retake + values, then "TARGET python_ratio R <= 1.2:
met|NOT met" (with --out DIR, also a row of DIR/targets.csv, as bench/run.sh
collects them; --quick: the smoke test's small segment).  Exit status 0 unless something failed (a missed target is
reported, not an error: timings on a shared machine vary).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple

import statctr

TARGET = 1.2


def c_side(binary: str, path: str, iters: int) -> Tuple[List[float], List[float]]:
    out = subprocess.run([binary, "time", path, str(iters + 2)], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    rows = [tuple(map(float, line.split())) for line in out if line.strip()][2:]  # warm-up
    return [r[0] for r in rows], [r[0] + r[1] for r in rows]


def py_side(path: str, iters: int) -> Tuple[List[float], List[float]]:
    retake, total = [], []
    with statctr.View(path) as v:
        s = None
        for i in range(iters + 3):  # the first two take; retakes from the third on
            t0 = time.perf_counter()
            s = v.snapshot()
            t1 = time.perf_counter()
            cols = s.table("flows")
            t2 = time.perf_counter()
            assert int(cols["packets"][0]) > 0
            if i >= 3:
                retake.append((t1 - t0) * 1e3)
                total.append((t2 - t0) * 1e3)
        del s
    return retake, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build/default")
    ap.add_argument("--cells", type=int, default=1 << 20)
    ap.add_argument("--slots", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--iters", type=int, default=8)
    ap.add_argument("--out", help="bench/run.sh's results directory: a row of targets.csv")
    ap.add_argument("--quick", action="store_true", help="smoke test: 64k cells x 4 slots")
    a = ap.parse_args()
    if a.quick:
        a.cells, a.slots, a.rounds, a.iters = 1 << 16, 4, 1, 2
    if not statctr.HAVE_NUMPY:
        print("bench_python: numpy missing (Debian: python3-numpy)", file=sys.stderr)
        return 1
    binary = os.path.join(a.build_dir, "bench", "bench_python")
    with tempfile.TemporaryDirectory(prefix="statctr-benchpy.") as tmp:
        path = os.path.join(tmp, "bench")
        conf = os.path.join(tmp, "bench.conf")
        with open(conf, "w") as f:
            f.write(f'segments = ( {{ name = "bench"; oid = 1; slots = {a.slots}; path = "{path}";\n'
                    f'  tables = ( {{ name = "flows"; oid = 1; rows = {a.cells // 2};\n'
                    '    columns = ( { name = "packets"; kind = "counter"; },\n'
                    '                { name = "octets"; kind = "counter"; } ); } ); } );\n')
        writer = subprocess.Popen([binary, "create", conf], stdout=subprocess.PIPE)
        try:
            assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
            c_re: List[float] = []
            c_all: List[float] = []
            p_re: List[float] = []
            p_all: List[float] = []
            for r in range(a.rounds):
                order = ("C", "P", "P", "C") if r % 2 == 0 else ("P", "C", "C", "P")
                for side in order:
                    if side == "C":
                        x, y = c_side(binary, path, a.iters)
                        c_re += x
                        c_all += y
                    else:
                        x, y = py_side(path, a.iters)
                        p_re += x
                        p_all += y
        finally:
            writer.terminate()
            writer.wait()
    cm_re, cm_all = statistics.median(c_re), statistics.median(c_all)
    pm_re, pm_all = statistics.median(p_re), statistics.median(p_all)
    print(f"segment: {a.cells} cells x {a.slots} slots, {a.rounds} rounds ABBA x {a.iters} "
          f"iterations per side; load average {os.getloadavg()[0]:.1f}")
    print(f"retake:          C {cm_re:8.2f} ms   Python {pm_re:8.2f} ms   ratio {pm_re / cm_re:.3f}")
    print(f"retake + values: C {cm_all:8.2f} ms   Python {pm_all:8.2f} ms   ratio {pm_all / cm_all:.3f}")
    ratio = pm_all / cm_all
    print(f"TARGET python_ratio {ratio:.3f} <= {TARGET}: {'met' if ratio <= TARGET else 'NOT met'}")
    if a.out:
        what = f"Python retake + table() / C retake + read, {a.cells} cells x {a.slots} slots"
        verdict = "quick" if a.quick else "PASS" if ratio <= TARGET else "FAIL"
        with open(os.path.join(a.out, "targets.csv"), "a") as f:
            f.write(f'python,"{what}",{ratio:.4f},<=,{TARGET:g},{verdict}\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
