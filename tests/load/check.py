#!/usr/bin/env python3
"""check.py - the verdict on the pollers' logs of tests/load/load.sh.

check.py ROOT LOG...: each log starts with "MODE get" or "MODE walk", then
per poll "P n ms" and "OID TYPE VALUE" lines; "ERROR ..." lines are failed
polls.  Fails (exit 1) on any ERROR line, and on any Counter64 that went
down between two consecutive polls of a poller unless its discontinuity
TimeStamp changed:
- get pollers read a counter and its discontinuity in one PDU (one
  aggregation pass), so the discontinuity must differ between the two
  polls themselves;
- walk pollers read them in different PDUs, possibly across passes and a
  reset, so a change in any of the walks k-2..k+1 around a decrease from
  walk k-1 to walk k justifies it.  A walk reads a counter's column before
  its discontinuity's, so walk k-1 may show the value before a reset and
  the discontinuity after it: only walk k-2 shows the discontinuity before
  the reset for sure, and a decrease from the first walk is not judged
  (counted as "unjudged").  Nor is one in the last walk: a walk of
  statctrData reads the row's discontinuity (column 3) before its counters
  (columns 10 and up), so a reset between the two shows in walk k+1.
The discontinuity of statctrData R.3.s.t.1.(10+c).r is R.3.s.t.1.3.r (the
row's); of statctrCellCounter R.1.3.1.8.s.c it is R.1.3.1.11.s.c.
Prints what it checked.
"""
import sys


def disc_oid(root, oid):
    rel = oid[len(root) + 1:].split('.')
    if rel[0] == '3' and len(rel) == 6 and int(rel[4]) >= 10:
        return '.'.join([root, '3', rel[1], rel[2], '1', '3', rel[5]])
    if rel[:4] == ['1', '3', '1', '8'] and len(rel) == 6:
        return '.'.join([root, '1', '3', '1', '11', rel[4], rel[5]])
    return None


def read(path):
    mode, polls, errors = None, [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == 'MODE':
                mode = parts[1]
            elif parts[0] == 'P':
                polls.append({})
            elif parts[0] == 'ERROR':
                errors.append(line.strip())
            elif len(parts) >= 3 and polls:
                polls[-1][parts[0]] = (parts[1], parts[2])
    return mode, polls, errors


def check(root, path):
    mode, polls, errors = read(path)
    bad, checked, drops, unjudged = [], 0, 0, 0
    window = (0, 0) if mode == "get" else (1, 1)
    for k in range(1, len(polls)):
        prev, cur = polls[k - 1], polls[k]
        for oid, (kind, value) in cur.items():
            if kind != 'Counter64' or oid not in prev or prev[oid][0] != 'Counter64':
                continue
            d = disc_oid(root, oid)
            if d is None or d not in cur or d not in prev:
                continue
            checked += 1
            if int(value) >= int(prev[oid][1]):
                continue
            drops += 1
            if k - 1 - window[0] < 0 or k + window[1] > len(polls) - 1:
                unjudged += 1  # its window runs past the first or last poll
                continue
            lo, hi = k - 1 - window[0], min(len(polls) - 1, k + window[1])
            seen = {polls[i][d][1] for i in range(lo, hi + 1) if d in polls[i]}
            if len(seen) < 2:
                bad.append(f"{oid}: {prev[oid][1]} -> {value} at poll {k + 1}, "
                           f"discontinuity {cur[d][1]} unchanged")
    return mode, len(polls), checked, drops, unjudged, errors, bad


def main():
    root, failed = sys.argv[1], False
    for path in sys.argv[2:]:
        mode, npolls, checked, drops, unjudged, errors, bad = check(root, path)
        name = path.rsplit('/', 1)[-1]
        print(f"{name}: {mode}, {npolls} polls, {checked} counter pairs, "
              f"{drops} drops ({len(bad)} without a discontinuity, {unjudged} unjudged), "
              f"{len(errors)} errors")
        for line in errors[:5] + bad[:10]:
            print(f"  {line}")
        if errors or bad or npolls < 2 or checked == 0:
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
