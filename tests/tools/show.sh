#!/bin/sh
# statctl show in each format agrees with examples/reader on a stopped writer;
# 64-bit values come out exact; --slots adds up; --raw ignores nothing here.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command jq

# A gauge beyond 2^53 tells an exact printer from one that goes through double.
big=-9007199254740993
settled_writer "stctl_show_$$" 2 1500 -g "totals.inFlight.0=$big"

$FORMATS reader "$workdir/reader.1" >"$workdir/expect"
check "reader output is not empty" yes "$([ -s "$workdir/expect" ] && echo yes)"

check_status "show text" 0 "$STATCTL" show "$segment"
$FORMATS text "$workdir/out" >"$workdir/text"
check "show text equals reader" "" "$(diff "$workdir/expect" "$workdir/text")"

check_status "show json" 0 "$STATCTL" show --format json "$segment"
cp "$workdir/out" "$workdir/show.json"
check "jq parses the document" 1 "$(jq '.version' "$workdir/show.json")"
check "jq: segment name" "\"$segment\"" "$(jq '.segments[0].name' "$workdir/show.json")"
check "jq: tables in order" "ifStats flowStats totals vfStats stages" \
	"$(jq -r '[.segments[0].tables[].name] | join(" ")' "$workdir/show.json")"
check "jq: escaped row name" 'eth"1 eth\2' \
	"$(jq -r '.segments[0].tables[0].rows[1,2].name' "$workdir/show.json" | tr '\n' ' ' | sed 's/ $//')"
check "jq: numbered rows have a null name" null \
	"$(jq '.segments[0].tables[1].rows[5].name' "$workdir/show.json")"
$FORMATS json "$workdir/show.json" >"$workdir/json"
check "show json equals reader" "" "$(diff "$workdir/expect" "$workdir/json")"
check "json keeps a gauge beyond 2^53 exact" "$big" \
	"$(grep -o '"inFlight":-[0-9]*' "$workdir/show.json" | head -1 | cut -d: -f2)"

check_status "show prometheus" 0 "$STATCTL" show --format prometheus "$segment"
cp "$workdir/out" "$workdir/show.prom"
$FORMATS prom "$workdir/show.prom" >"$workdir/prom"
$FORMATS reader "$workdir/reader.1" "$segment" >"$workdir/expect.prom"
check "show prometheus equals reader" "" "$(diff "$workdir/expect.prom" "$workdir/prom")"
check "prometheus escapes label values" 1 \
	"$(grep -c '^statctr_stctl_show_[0-9]*_if_stats_rx_packets_total{segment="stctl_show_[0-9]*",table="ifStats",row="eth\\\\2"} ' "$workdir/show.prom")"
check "prometheus HELP from the description" 1 \
	"$(grep -c '^# HELP statctr_.*_if_stats_drops_total Packets "dropped" by a\\\\b$' "$workdir/show.prom")"
check "prometheus gauge type" 1 \
	"$(grep -c '^# TYPE statctr_.*_totals_in_flight gauge$' "$workdir/show.prom")"

check_status "show one table" 0 "$STATCTL" show -f json "$segment" totals
check "only the table asked for" totals "$(printf "%s\n" "$out" | jq -r '[.segments[0].tables[].name] | join(" ")')"

# Per-slot values: the slots (writers + shared) add up to the raw total.
check_status "show --slots" 0 "$STATCTL" show --slots -f json "$segment" flowStats
sums=$(printf "%s\n" "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
seg = doc["segments"][0]
bad = 0
for row in seg["tables"][0]["rows"]:
    for col, slots in row["slots"].items():
        if len(slots) != seg["nslots"] + 1 or sum(slots) % 2**64 != row["values"][col]:
            bad += 1
print(bad)')
check "slot values add up to every total" 0 "$sums"
# Without --slots statctl takes sums-only snapshots: the same values, no slots.
with_slots=$(printf "%s\n" "$out" | jq -c '[.segments[0].tables[0].rows[].values]')
check_status "show json, sums only" 0 "$STATCTL" show -f json "$segment" flowStats
check "sums-only values equal the full snapshot's" "$with_slots" \
	"$(printf "%s\n" "$out" | jq -c '[.segments[0].tables[0].rows[].values]')"
check "no slot breakdown without --slots" 0 \
	"$(printf "%s\n" "$out" | jq '[.segments[0].tables[0].rows[] | select(has("slots"))] | length')"
check_status "show --slots text" 0 "$STATCTL" show --slots "$segment" totals
check "text --slots lists the shared slot" 1 "$(printf "%s\n" "$out" | grep -c '^  shared ')"
check_status "show --slots prometheus" 0 "$STATCTL" show --slots -f prometheus "$segment" totals
printf "%s\n" "$out" >"$workdir/slots.prom"
valid=no
$FORMATS prom "$workdir/slots.prom" >/dev/null && valid=yes
check "prometheus per-slot families are valid" yes "$valid"
check "prometheus per-slot samples" $((3 * (4 + 1))) "$(grep -c 'slot="' "$workdir/slots.prom")"

check_status "show all segments" 0 "$STATCTL" show -f json
check "all segments include ours" 1 \
	"$(printf "%s\n" "$out" | jq "[.segments[] | select(.name == \"$segment\")] | length")"

check_status "show unknown table" 1 "$STATCTL" show "$segment" nosuch
check "error names the table" 1 "$(printf "%s\n" "$err" | grep -c "segment '$segment': no table 'nosuch'")"
check_status "show unknown segment" 1 "$STATCTL" show "stctl_none_$$"
check "error names the segment" 1 "$(printf "%s\n" "$err" | grep -c "segment 'stctl_none_$$'")"
finish
