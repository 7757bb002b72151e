#!/bin/sh
# statctl watch: on a terminal it redraws without full clears, fits a narrow
# terminal, and q or Ctrl-C end it with exit 0 and the terminal restored;
# in a pipe it prints frames with deltas (text) or one JSON document each,
# a gauge with its level alone (no delta, no rate);
# a writer killed and started again is marked "! TIME SEGMENT: active ->
# gone" and "writer restarted" (on stdout in text, on stderr beside JSON).
. "${srcdir:-.}/tests/tools/lib.sh"

settled_writer "stctl_watch_$$" 1 500
tty="python3 $TOOLS_TESTDIR/watch_tty.py"

for key in q intr; do
	$tty 12 32 $key "$STATCTL" watch -i 0.2 "$segment" totals >"$workdir/tty.$key"
	cat "$workdir/tty.$key"
	r() { sed -n "s/^$1=//p" "$workdir/tty.$key"; }
	check "$key: exit status" 0 "$(r status)"
	check "$key: terminal restored" yes "$(r restored)"
	check "$key: lines fit 32 columns" yes "$([ "$(r widest)" -le 32 ] && echo yes)"
	check "$key: several frames" yes "$([ "$(r frames)" -ge 3 ] && echo yes)"
	check "$key: one full clear, on entry" 1 "$(r full_clears)"
	check "$key: the values fit on screen" yes "$(r shows_value)"
done

check_status "watch in a pipe" 0 "$STATCTL" watch -n 2 -i 0.1 "$segment" totals
check "two frames" 2 "$(printf "%s\n" "$out" | grep -c '^totals ')"
check "deltas of a stopped writer are 0" 1 "$(printf "%s\n" "$out" | grep -c '^  all\.packets  *500  *0  *0\.0$')"
check "a gauge shows its level, no delta, no rate" 2 "$(printf "%s\n" "$out" | grep -c '^  all\.inFlight  *0$')"
check_status "watch json" 0 "$STATCTL" watch -f json -n 2 -i 0.1 "$segment" totals
check "two documents" 2 "$(printf "%s\n" "$out" | wc -l)"
check "second has deltas" 0 "$(printf "%s\n" "$out" | tail -1 | python3 -c '
import json, sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["deltas"]["packets"])')"
check "no delta and no rate for the gauge" "False False" "$(printf "%s\n" "$out" | tail -1 | python3 -c '
import json, sys
row = json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]
print("inFlight" in row["deltas"], "inFlight" in row["rates"])')"
check_status "watch prometheus" 0 "$STATCTL" watch -f prometheus -n 1 "$segment" totals
printf "%s\n" "$out" >"$workdir/w.prom"
valid=no
$FORMATS prom "$workdir/w.prom" >/dev/null && valid=yes
check "prometheus frame is valid" yes "$valid"
# wait_for FILE PATTERN: grep -q PATTERN FILE within 10 s (times the load
# per CPU).
wait_for() {
	fx_wait 10 grep -q "$2" "$1" ||
		fail_later "no '$2' in $1 within $(fx_loaded 10) s (load $(cut -d' ' -f1 /proc/loadavg)): $(cat "$1")"
}
"$STATCTL" watch -i 0.1 -n 600 "$segment" totals >"$workdir/marks.txt" 2>&1 &
watch_pid=$!
"$STATCTL" watch -f json -i 0.1 -n 600 "$segment" totals >"$workdir/marks.json" 2>"$workdir/marks.err" &
json_pid=$!
wait_for "$workdir/marks.txt" '^totals '
old_pid=$writer_pid
kill -9 "$writer_pid"
wait "$writer_pid" 2>/dev/null || true
writer_pid=
wait_for "$workdir/marks.txt" "^! [0-9:]* $segment: active -> gone (pid $old_pid)\$"
settled_writer "$segment" 1 700
wait_for "$workdir/marks.txt" "^! [0-9:]* $segment: writer restarted: pid $old_pid -> $writer_pid, a new generation (deltas blank)\$"
wait_for "$workdir/marks.txt" "^! [0-9:]* $segment: gone -> active (pid $writer_pid)\$"
wait_for "$workdir/marks.err" "^! [0-9:]* $segment: writer restarted: pid $old_pid -> $writer_pid"
kill "$watch_pid" "$json_pid"
wait "$watch_pid" "$json_pid" 2>/dev/null || true
check "json: the marks on stderr, stdout only documents" 0 \
	"$(grep -c '^!' "$workdir/marks.json" || true)"
check "json: every line a document" 0 \
	"$(python3 -c 'import json, sys
bad = 0
for l in open(sys.argv[1]):
    try: json.loads(l)
    except ValueError: bad += 1
print(bad)' "$workdir/marks.json")"
pass "a writer killed and restarted is marked"

check_status "bad interval" 2 "$STATCTL" watch -i 0 "$segment"
check_status "bad count" 2 "$STATCTL" watch -n x "$segment"
finish
