#!/bin/sh
# Dynamic rows (rows = { max = N; }) in statctl: show (text, JSON,
# Prometheus) and watch list the rows present in the snapshot, by name, and
# never an absent one; JSON carries each row's index; a row re-added under
# its name has a new index (first-in first-out), starts at zero, counts
# from its add and gets no delta across the re-add; during churn every row
# shown has its name and values from one incarnation.
#
# The writer is examples/pipeline -R vfStats:3:MS:STEPS (its usage): rows
# vf0..vf2, add number j is vf<j % 3> with incarnation N = j / 3 + 1 at
# index j % 64, gauges N and counters multiples of N.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command jq
need_program "$PIPELINE"
need_program "$READER"

show() { "$STATCTL" show "$@"; }

# stop_writer: ends the writer of the phase before.
stop_writer() {
	kill "$writer_pid" && wait "$writer_pid" || true
	writer_pid=
}

# adds_logged N: whether the churning writer has logged N adds.
adds_logged() { [ "$(grep -c '^add ' "$workdir/churn.log")" -ge "$1" ]; }

# --- No row added: the table is shown empty in every format.
settled_writer "stctl_rows_$$" 1 10
check_status "show text, no row present" 0 show "$segment" vfStats
check "title says how many rows are present" 1 \
	"$(printf "%s\n" "$out" | grep -c '^vfStats - .*; 0 of 64 rows present$')"
check "no row is listed" "row rxPackets rxOctets txPackets queueDepth" \
	"$(printf "%s\n" "$out" | sed -n '/^row /,$p' | tr -s ' ' | sed '/^$/d')"
check_status "show json, no row present" 0 show -f json "$segment" vfStats
check "json: dynamic, room for 64, no rows" "true 64 0" \
	"$(printf "%s\n" "$out" | jq -r '.segments[0].tables[0] | "\(.dynamic) \(.nrows) \(.rows | length)"')"
check_status "show prometheus, no row present" 0 show -f prometheus "$segment" vfStats
printf "%s\n" "$out" >"$workdir/empty.prom"
valid=no
$FORMATS prom "$workdir/empty.prom" >/dev/null && valid=yes
check "prometheus families without samples are valid" yes "$valid"
check "no vfStats sample" 0 "$(grep -v '^statctr_segment_readable' "$workdir/empty.prom" | grep -c '^statctr_' || true)"

# --- Four churn steps, then stable: vf1 at 4 (N=2), vf2 at 5 (N=2), vf0 at 6 (N=3).
stop_writer
settled_writer "$segment" 1 10 -R vfStats:3:20:4 >"$workdir/churn.log"
for _ in $(seq 1 100); do adds_logged 7 && break; sleep 0.1; done
"$READER" -1 "$segment" >"$workdir/reader.2" 2>/dev/null
check "the writer's adds" "0 1 2 3 4 5 6" \
	"$(sed -n 's/^add vf[0-9] row \([0-9]*\) .*/\1/p' "$workdir/churn.log" | tr '\n' ' ' | sed 's/ $//')"

check_status "show text" 0 show "$segment" vfStats
printf "%s\n" "$out" >"$workdir/show.txt"
check "text: present rows by name, in index order" "vf1 4 2 vf2 2 2 vf0 0 3" \
	"$(awk '/^vf[0-9]/ { printf "%s%s %s %s", sep, $1, $2, $5; sep = " " }' "$workdir/show.txt")"
check "text: 3 of 64 rows present" 1 "$(grep -c '; 3 of 64 rows present$' "$workdir/show.txt")"

check_status "show json" 0 show -f json "$segment"
printf "%s\n" "$out" >"$workdir/show.json"
check "json: index, name, counter, gauge of each present row" \
	"4 vf1 4 2,5 vf2 2 2,6 vf0 0 3" \
	"$(jq -r '[.segments[0].tables[] | select(.name == "vfStats") | .rows[] |
		"\(.index) \(.name) \(.values.rxPackets) \(.values.queueDepth)"] | join(",")' "$workdir/show.json")"
check "json: static tables say dynamic false" "false false false false" \
	"$(jq -r '[.segments[0].tables[] | select(.name != "vfStats") | .dynamic] | join(" ")' "$workdir/show.json")"
# A re-added row's discontinuity is its add: after the segment's creation,
# and vf0 (added last) is the newest.
check "json: discontinuities are the adds, in add order" yes \
	"$(jq -r '.segments[0] as $s | [$s.tables[] | select(.name == "vfStats") | .rows[] |
		.discontinuity_ns.rxPackets] | if .[0] > $s.created_ns and .[0] <= .[1] and .[1] <= .[2]
		then "yes" else "no \(.) \($s.created_ns)" end' "$workdir/show.json")"

# Every format shows what examples/reader sees, absent rows in none of them.
$FORMATS reader "$workdir/reader.2" >"$workdir/expect"
$FORMATS text "$workdir/show.txt" >"$workdir/text"
check "reader lists the present rows only" "vf0 vf1 vf2" \
	"$(sed -n 's/^vfStats\.rxPackets\.\([^ ]*\) .*/\1/p' "$workdir/expect" | tr '\n' ' ' | sed 's/ $//')"
check "show text equals reader (vfStats)" "" \
	"$(grep '^vfStats' "$workdir/expect" | diff - "$workdir/text")"
$FORMATS json "$workdir/show.json" >"$workdir/json"
check "show json equals reader" "" "$(diff "$workdir/expect" "$workdir/json")"
check_status "show prometheus" 0 show -f prometheus "$segment"
printf "%s\n" "$out" >"$workdir/show.prom"
$FORMATS prom "$workdir/show.prom" >"$workdir/prom"
$FORMATS reader "$workdir/reader.2" "$segment" >"$workdir/expect.prom"
check "show prometheus equals reader" "" "$(diff "$workdir/expect.prom" "$workdir/prom")"
check "prometheus: vfStats rows by name only" "vf0 vf1 vf2" \
	"$(sed -n 's/.*_vf_stats_rx_packets_total{.*row="\([^"]*\)"}.*/\1/p' "$workdir/show.prom" | sort | tr '\n' ' ' | sed 's/ $//')"
check_status "show --slots prometheus" 0 show --slots -f prometheus "$segment" vfStats
check "per-slot samples of present rows only" $((3 * (4 + 1))) \
	"$(printf "%s\n" "$out" | grep -c '^statctr_.*_vf_stats_rx_packets_by_slot_total{')"

# A stopped writer: every present row has deltas (0), in JSON and text.
check_status "watch json" 0 "$STATCTL" watch -f json -n 2 -i 0.1 "$segment" vfStats
check "watch: the second document has deltas 0 for each row" "vf1:0 vf2:0 vf0:0" \
	"$(printf "%s\n" "$out" | tail -1 | jq -r '[.segments[0].tables[0].rows[] |
		"\(.name):\(.deltas.rxPackets)"] | join(" ")')"
check_status "watch text" 0 "$STATCTL" watch -n 1 "$segment" vfStats
check "watch text: one line per column of each present row" 12 \
	"$(printf "%s\n" "$out" | grep -c '^  vf[0-2]\.')"

# reset names a dynamic row by the name it has now (vf2 is index 5; vf0 has
# counted nothing yet, vf1 4 and vf2 2 packets).
check_status "reset a dynamic row by name" 0 "$STATCTL" reset "$segment" vfStats vf2
check "the reset names the row" "reset $segment vfStats vf2 (4 cells)" "$out"
check_status "show json after the reset" 0 show -f json "$segment" vfStats
check "only vf2's counters are zero" "vf1:4 vf2:0 vf0:0" \
	"$(printf "%s\n" "$out" | jq -r '[.segments[0].tables[0].rows[] |
		"\(.name):\(.values.rxPackets)"] | join(" ")')"
check_status "reset of an absent row name" 1 "$STATCTL" reset "$segment" vfStats vf9

# --- Fast churn: snapshots read in the middle of adds and removes.
stop_writer
"$PIPELINE" -c "$config" -s "$segment" -t 1 -n 10 -R vfStats:3:1:0 >"$workdir/churn.log" \
	2>"$workdir/writer.log" &
writer_pid=$!
for _ in $(seq 1 100); do adds_logged 20 && break; sleep 0.05; done
adds_logged 20 || fail_later "the writer does not churn"
: >"$workdir/churn.json"
for _ in $(seq 1 40); do
	show -f json "$segment" vfStats >>"$workdir/churn.json"
done
verdict=$(python3 - "$workdir/churn.json" <<'EOF'
import json, sys
docs = [json.loads(line) for line in open(sys.argv[1])]
rows = seen = 0
for doc in docs:
    table = doc["segments"][0]["tables"][0]
    names = [r["name"] for r in table["rows"]]
    if len(set(names)) != len(names) or len(names) > 3:
        sys.exit("bad row set %r" % names)
    for r in table["rows"]:
        k, v = int(r["name"][2:]), r["values"]
        n = v["queueDepth"]
        if n < 1 or any(v[c] % n for c in ("rxPackets", "rxOctets", "txPackets")):
            sys.exit("values of two incarnations: %r" % r)
        # add j = 3 (N - 1) + K took index j % 64 (first-in first-out)
        if (3 * (n - 1) + k) % 64 != r["index"]:
            sys.exit("name and index of two incarnations: %r" % r)
        rows += 1
        seen = max(seen, n)
print("ok" if rows >= 40 and seen > 2 else "too few rows (%d) or adds (%d)" % (rows, seen))
EOF
)
check "every row shown during churn is one incarnation" ok "$verdict"

# watch during churn: a delta only between two snapshots of one incarnation.
check_status "watch json during churn" 0 "$STATCTL" watch -f json -n 4 -i 0.2 "$segment" vfStats
printf "%s\n" "$out" >"$workdir/watch.json"
verdict=$(python3 - "$workdir/watch.json" <<'EOF'
import json, sys
prev, new_rows = {}, 0
for line in open(sys.argv[1]):
    rows = json.loads(line)["segments"][0]["tables"][0]["rows"]
    cur = {r["index"]: r for r in rows}
    for i, r in cur.items():
        same = i in prev and prev[i]["name"] == r["name"] and \
            prev[i]["discontinuity_ns"] == r["discontinuity_ns"]
        if bool(r.get("deltas")) != same and prev:
            sys.exit("row %r: deltas %r, same incarnation %r" % (r["name"], r.get("deltas"), same))
        new_rows += prev != {} and not same
    prev = cur
print("ok" if new_rows > 0 else "no row was re-added between snapshots")
EOF
)
check "watch gives deltas within one incarnation only" ok "$verdict"
finish
