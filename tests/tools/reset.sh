#!/bin/sh
# statctl reset: a cell, a row (by name and by number), a table and a whole
# segment restart from 0 in a later show, gauges and other cells stay, --raw
# still sees the totals, and bad targets are refused with the object named.
. "${srcdir:-.}/tests/tools/lib.sh"

settled_writer "stctl_reset_$$" 2 1000 -g "ifStats.queueDepth.1=-7"

# value TABLE COLUMN ROW [--raw]: the cell's value from statctl show JSON.
value() {
	"$STATCTL" show -f json ${4:-} "$segment" "$1" | python3 -c '
import json, sys
table, column, row = sys.argv[1:4]
doc = json.load(sys.stdin)
for r in doc["segments"][0]["tables"][0]["rows"]:
    if (r["name"] if r["name"] is not None else str(r["index"])) == row:
        print(r["values"][column])' "$1" "$2" "$3"
}

# expect TABLE COLUMN ROW: the reader's value before any reset.
expect() {
	grep "^$1\.$2\.$3 " "$workdir/reader.1" | cut -d' ' -f2
}

rx0=$(expect ifStats rxPackets dp0)
check "writer counted on dp0" yes "$([ "$rx0" -gt 0 ] && echo yes)"

check_status "reset one cell" 0 "$STATCTL" reset "$segment" ifStats dp0 rxOctets
check "confirmation" "reset $segment ifStats dp0 rxOctets (1 cell)" "$out"
check "reset cell reads 0" 0 "$(value ifStats rxOctets dp0)"
check "neighbour cell kept" "$rx0" "$(value ifStats rxPackets dp0)"
check "--raw ignores the reset" "$(expect ifStats rxOctets dp0)" "$(value ifStats rxOctets dp0 --raw)"

check_status "reset a row by name" 0 "$STATCTL" reset "$segment" ifStats 'eth"1'
check "row counters read 0" "0 0" "$(value ifStats rxPackets 'eth"1') $(value ifStats txOctets 'eth"1')"
check "row gauge left alone" -7 "$(value ifStats queueDepth 'eth"1')"

check_status "reset a numbered row" 0 "$STATCTL" reset "$segment" flowStats 5
check "flow 5 reads 0" 0 "$(value flowStats packets 5)"
check "flow 6 kept" "$(expect flowStats packets 6)" "$(value flowStats packets 6)"

disc_before=$("$STATCTL" show -f json "$segment" totals | python3 -c '
import json, sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["discontinuity_ns"]["packets"])')
check_status "reset a table" 0 "$STATCTL" reset "$segment" totals
check "table counters read 0" 0 "$(value totals packets all)"
disc_after=$("$STATCTL" show -f json "$segment" totals | python3 -c '
import json, sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["discontinuity_ns"]["packets"])')
check "reset moves the discontinuity time" yes "$([ "$disc_after" -gt "$disc_before" ] && echo yes)"

check_status "reset the segment" 0 "$STATCTL" reset "$segment"
check "every counter reads 0" 0 "$("$STATCTL" show -f json "$segment" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
print(sum(v for t in doc["segments"][0]["tables"] for r in t["rows"]
          for c, v in r["values"].items()
          if {x["name"]: x["kind"] for x in t["columns"]}[c] == "counter"))')"
check "raw totals survive" "$(expect totals packets all)" "$(value totals packets all --raw)"

check_status "reset needs a segment" 2 "$STATCTL" reset
check_status "reset unknown table" 1 "$STATCTL" reset "$segment" nosuch
check "message names it" 1 "$(printf "%s\n" "$err" | grep -c "segment '$segment': no table 'nosuch'")"
check_status "reset unknown row" 1 "$STATCTL" reset "$segment" flowStats 64
check "message names the row" 1 "$(printf "%s\n" "$err" | grep -c "table 'flowStats' has no row '64'")"
check_status "reset unknown column" 1 "$STATCTL" reset "$segment" ifStats dp0 nosuch
check "message names the column" 1 "$(printf "%s\n" "$err" | grep -c "has no column 'nosuch'")"
check_status "reset a gauge" 1 "$STATCTL" reset "$segment" ifStats dp0 queueDepth
check "message says gauge" 1 "$(printf "%s\n" "$err" | grep -c "ifStats.queueDepth is a gauge")"
check_status "reset missing segment" 1 "$STATCTL" reset "stctl_none_$$"
finish
