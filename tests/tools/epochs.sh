#!/bin/sh
# statctl epoch list|start, show --since/--epoch, diff, the epochs in JSON
# and the Prometheus _created families, across a clean writer restart and a
# writer killed with SIGKILL (both captured: the counts stay exact); an
# epoch start changes no value and no discontinuity time.
. "${srcdir:-.}/tests/tools/lib.sh"

seg="stctl_epochs_$$"
epochs_file="/dev/shm/statctr.$seg.epochs"
cleanup_epochs() {
	cleanup
	rm -f "$epochs_file"
}
trap cleanup_epochs EXIT

stop_writer() { # SIGNAL
	kill "-${1:-TERM}" "$writer_pid"
	wait "$writer_pid" 2>/dev/null || true
	writer_pid=
}

# A writer of 2 x 1000 packets on $config, idle once they are counted.
start_writer_again() {
	"$PIPELINE" -c "$config" -s "$seg" -t 2 -n 1000 2>"$workdir/writer.log" &
	writer_pid=$!
	for _ in $(seq 1 300); do
		if "$READER" -1 "$seg" >"$workdir/reader.1" 2>/dev/null &&
		   grep -qx "totals.packets.all 2000" "$workdir/reader.1"; then
			return 0
		fi
		kill -0 "$writer_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$workdir/writer.log" >&2
	fail "the writer did not reach 2000 packets"
}

# json EXPR [show options]: a Python expression over the show JSON document d.
json() {
	expr=$1
	shift
	"$STATCTL" show -f json "$@" "$seg" totals | python3 -c "
import json, sys
d = json.load(sys.stdin)
print($expr)"
}
packets='d["segments"][0]["tables"][0]["rows"][0]["values"]["packets"]'
disc='d["segments"][0]["tables"][0]["rows"][0]["discontinuity_ns"]["packets"]'

need_program "$PIPELINE"
need_program "$READER"
config=$workdir/statctr.conf
make_config "$config" "$seg"
sed -i "s/name = \"$seg\";/name = \"$seg\"; epochs = { keep = 8; interval_s = 900; };/" "$config"
start_writer_again
check "epochs declared" yes "$(grep -q 'keep = 8' "$config" && echo yes)"
check_status "epoch list, none yet" 0 "$STATCTL" epoch list "$seg"
check "no epoch listed" "" "$out"

before=$(json "$packets, $disc")
check_status "epoch start" 0 "$STATCTL" epoch start "since noon" "$seg"
check "start says its number" "$seg: epoch 1 \"since noon\" started" "$out"
check "a start moves no value and no discontinuity time" "$before" "$(json "$packets, $disc")"
check "since epoch 1: nothing yet" 0 "$(json "$packets" --since 1)"

# A clean restart: the writer's destroy captures its final counts.
stop_writer TERM
start_writer_again
check "since 1 across a clean restart" 2000 "$(json "$packets" --since 1)"
check "raw total of the new generation" 2000 "$(json "$packets" --raw)"
check_status "epoch start 2" 0 "$STATCTL" epoch start second "$seg"

# SIGKILL: the next writer captures the dead one's slots before replacing them.
stop_writer KILL
start_writer_again
check "since 1 across a crash" 4000 "$(json "$packets" --since 1)"
check "since 2 across a crash" 2000 "$(json "$packets" --since 2)"
check "epoch 1's interval (to epoch 2)" 2000 "$(json "$packets" --epoch 1)"
check "epoch 2's interval (to now)" 2000 "$(json "$packets" --epoch 2)"

check_status "reset the table" 0 "$STATCTL" reset "$seg" totals
check "a reset changes no epoch count" 4000 "$(json "$packets" --since 1)"

check_status "epoch list" 0 "$STATCTL" epoch list "$seg"
check "two epochs listed" "1 since noon|2 second" \
	"$(printf '%s\n' "$out" | awk 'NR > 1 { n = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); printf "%s%s %s", sep, n, $0; sep = "|" }')"
check "JSON carries the epochs" "[(1, 'since noon'), (2, 'second')]" \
	"$(json '[(e["number"], e["name"]) for e in d["segments"][0]["epochs"]]')"
check_status "epoch list JSON" 0 "$STATCTL" -f json epoch list "$seg"
check "epoch list JSON numbers" "[1, 2]" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; print([e["number"] for e in json.load(sys.stdin)["segments"][0]["epochs"]])')"

check_status "diff 1 2 --all" 0 "$STATCTL" diff -a 1 2 "$seg" totals
check "diff: the row by name, equal intervals, ratio 1, not flagged" "all 2000 2000 1.000 7" \
	"$(printf '%s\n' "$out" | awk '$2 == "totals" && $4 == "packets" { print $3, $5, $6, $7, NF }')"
check_status "diff 1 2 flags nothing" 0 "$STATCTL" diff 1 2 "$seg"
check "diff prints its header only" 1 "$(printf '%s\n' "$out" | wc -l)"

check_status "show prometheus" 0 "$STATCTL" show -f prometheus "$seg" totals
disc_s=$(json "$disc" | python3 -c 'import sys; n = int(sys.stdin.read()); print("%d.%09d" % (n // 10**9, n % 10**9))')
check "_created is the discontinuity time" \
	"statctr_${seg}_totals_packets_created{segment=\"$seg\",table=\"totals\",row=\"all\"} $disc_s" \
	"$(printf '%s\n' "$out" | grep "^statctr_${seg}_totals_packets_created{")"
check "_created is a gauge family" "# TYPE statctr_${seg}_totals_packets_created gauge" \
	"$(printf '%s\n' "$out" | grep "^# TYPE statctr_${seg}_totals_packets_created ")"
if command -v promtool >/dev/null 2>&1; then
	printf '%s\n' "$out" >"$workdir/prom.txt"
	check_status "promtool accepts it" 0 sh -c "promtool check metrics <'$workdir/prom.txt'"
fi

check_status "a bad name is refused" 1 "$STATCTL" epoch start "$(printf 'bell\a')" "$seg"
check "the name's byte is named" yes "$(printf '%s' "$err" | grep -q 'not printable' && echo yes)"
check_status "an epoch not kept" 1 "$STATCTL" show --since 99 "$seg"
check "it says which" yes "$(printf '%s' "$err" | grep -q 'epoch 99' && echo yes)"
check_status "diff needs two epochs" 2 "$STATCTL" diff 1
check_status "epoch needs a verb" 2 "$STATCTL" epoch
check_status "--since needs a number" 2 "$STATCTL" show --since x "$seg"
finish
