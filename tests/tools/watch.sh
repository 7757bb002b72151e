#!/bin/sh
# statctl watch: on a terminal it redraws without full clears, fits a narrow
# terminal, and q or Ctrl-C end it with exit 0 and the terminal restored;
# in a pipe it prints frames with deltas (text) or one JSON document each.
. "${srcdir:-.}/tests/tools/lib.sh"

start_writer "stctl_watch_$$" 1 500
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
check_status "watch json" 0 "$STATCTL" watch -f json -n 2 -i 0.1 "$segment" totals
check "two documents" 2 "$(printf "%s\n" "$out" | wc -l)"
check "second has deltas" 0 "$(printf "%s\n" "$out" | tail -1 | python3 -c '
import json, sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["deltas"]["packets"])')"
check_status "watch prometheus" 0 "$STATCTL" watch -f prometheus -n 1 "$segment" totals
printf "%s\n" "$out" >"$workdir/w.prom"
valid=no
$FORMATS prom "$workdir/w.prom" >/dev/null && valid=yes
check "prometheus frame is valid" yes "$valid"
check_status "bad interval" 2 "$STATCTL" watch -i 0 "$segment"
check_status "bad count" 2 "$STATCTL" watch -n x "$segment"
finish
