#!/bin/sh
# statctl on histograms, against a writer of known values (hist_rec.c):
# show's count, mean and quantile estimates to the digit; --buckets; JSON
# buckets; Prometheus _bucket/_sum/_count through promtool and formats.py
# (cumulative, le ascending, +Inf == _count); a row reset zeroes buckets,
# count and sum, and later values count from zero; watch's live columns.
. "${srcdir:-.}/tests/tools/lib.sh"

HIST_REC=${HIST_REC:-$top_builddir/tests/tools/hist_rec}
need_program "$HIST_REC"
need_command promtool
need_command jq

segment=stctl_hist_$$
config=$workdir/hist.conf
cat >"$config" <<EOF
segments = ( { name = "$segment"; oid = 1; slots = 2;
  tables = ( { name = "lat"; oid = 1; rows = [ "a", "b" ];
    columns = (
      { name = "ops"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us";
        description = "Time per operation"; buckets = [ 10, 20, 50, 100 ]; },
      { name = "size"; kind = "histogram"; units = "octets";
        buckets = { start = 1; factor = 2; count = 20; }; } ); } ); } );
EOF

# The writer prints "recorded N" after its Nth batch (wait_recorded, lib.sh).
"$HIST_REC" "$config" "$segment" >"$workdir/rec.out" 2>"$workdir/rec.err" &
writer_pid=$!
wait_recorded 1

# Text: a.latency's buckets get 10, 60, 21, 7 and 2 values (sum 3493).
# p50: rank 50 in (10, 20]: 10 + 10 x (50 - 10) / 60 = 16.7; p90: rank 90
# in (20, 50]: 20 + 30 x (90 - 70) / 21 = 48.6; p99: rank 99 in +Inf: >100.
# b.latency holds one 0: its quantiles spread over (0, 10]: 5.0, 9.0, 9.9.
check_status "show text" 0 "$STATCTL" show "$segment"
cp "$workdir/out" "$workdir/show.txt"
cat "$workdir/show.txt"
line() { sed -n "/^  lat\.$1 /,/^\$/p" "$workdir/show.txt" | awk -v r="$2" '$1 == r'; }
check "a.latency: count mean p50 p90 p99" "a 100 34.9 16.7 48.6 >100" \
	"$(line latency a | tr -s ' ' | sed 's/^ //')"
check "b.latency: one value of 0" "b 1 0.0 5.0 9.0 9.9" "$(line latency b | tr -s ' ' | sed 's/^ //')"
check "b.size: nothing recorded" "b 0 - - - -" "$(line size b | tr -s ' ' | sed 's/^ //')"
check "the title names table, column, units" 1 \
	"$(grep -c '^  lat\.latency (us) - count, mean and quantiles estimated within buckets$' "$workdir/show.txt")"
check "the table's histogram cell is its count" "a 47 100 3" \
	"$(awk '$1 == "a" && NF == 4' "$workdir/show.txt" | tr -s ' ')"
$FORMATS text "$workdir/show.txt" >"$workdir/text.cells"
check "formats.py reads the cells, not the estimates" \
	"lat.latency.a 100 lat.latency.b 1 lat.ops.a 47 lat.ops.b 0 lat.size.a 3 lat.size.b 0" \
	"$(tr '\n' ' ' <"$workdir/text.cells" | sed 's/ $//')"

check_status "show --buckets" 0 "$STATCTL" show --buckets "$segment" lat
printf '%s\n' "$out" | sed -n '/^  lat\.latency (us) - buckets/,/^$/p' | tr -s ' ' | sed 's/^ //' >"$workdir/buckets"
check "buckets of a: le, count, cumulative" \
	"a 10 10 10|a 20 60 70|a 50 21 91|a 100 7 98|a +Inf 2 100" \
	"$(awk '$1 == "a"' "$workdir/buckets" | tr '\n' '|' | sed 's/|$//')"
check "b's +Inf bucket" "b +Inf 0 1" "$(awk '$1 == "b" && $2 == "+Inf"' "$workdir/buckets")"

# JSON: bounds per column, per-bucket (not cumulative) counts, inf, count, sum.
check_status "show json" 0 "$STATCTL" show -f json "$segment" lat
printf '%s\n' "$out" >"$workdir/show.json"
j() { jq -c "$1" "$workdir/show.json"; }
check "json: kind" '"histogram"' "$(j '.segments[0].tables[0].columns[1].kind')"
check "json: bounds" "[10,20,50,100]" "$(j '.segments[0].tables[0].columns[1].bounds')"
check "json: exponential bounds" "20 1 524288" \
	"$(j '.segments[0].tables[0].columns[2].bounds | "\(length) \(.[0]) \(.[-1])"' | tr -d '"')"
check "json: a.latency" '{"count":100,"sum":3493,"buckets":[10,60,21,7],"inf":2}' \
	"$(j '.segments[0].tables[0].rows[0].histograms.latency')"
check "json: the value is the count" 100 "$(j '.segments[0].tables[0].rows[0].values.latency')"
check "json: a.size, 1000000 in +Inf" "3 1000004 1 1 1" \
	"$(j '.segments[0].tables[0].rows[0].histograms.size | "\(.count) \(.sum) \(.buckets[0]) \(.buckets[2]) \(.inf)"' | tr -d '"')"
check "json: no per-slot values for histograms" '["ops"]' \
	"$("$STATCTL" show --slots -f json "$segment" lat | jq -c '.segments[0].tables[0].rows[0].slots | keys')"
$FORMATS json "$workdir/show.json" >"$workdir/json.cells"
check "json cells equal text cells" "" "$(diff "$workdir/text.cells" "$workdir/json.cells")"

# Prometheus: promtool's parser and formats.py's strict one.
check_status "show prometheus" 0 "$STATCTL" show -f prometheus "$segment"
printf '%s\n' "$out" >"$workdir/show.prom"
check "promtool check metrics accepts it" "" \
	"$(promtool check metrics <"$workdir/show.prom" 2>&1)"
family=statctr_$(printf '%s' "$segment" | tr -c 'a-z0-9\n' _)_lat_latency
check "TYPE histogram" 1 "$(grep -c "^# TYPE $family histogram\$" "$workdir/show.prom")"
check "HELP with the units" 1 "$(grep -c "^# HELP $family Time per operation (us)\$" "$workdir/show.prom")"
check "integer le, +Inf last" '10 20 50 100 +Inf' \
	"$(grep "^${family}_bucket{.*row=\"a\"" "$workdir/show.prom" | sed 's/.*le="\([^"]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')"
$FORMATS hist "$workdir/show.prom" >"$workdir/hist" ||
	fail_later "formats.py hist refuses the histograms"
h() { grep -F "lat.$family.$1" "$workdir/hist" | sed 's/^[^ ]* //' | tr '\n' '|' | sed 's/|$//'; }
check "a: cumulative buckets, sum, count" \
	"count 100|le=+Inf 100|le=10 10|le=100 98|le=20 70|le=50 91|sum 3493" "$(h a)"
check "b: +Inf == _count" "count 1|le=+Inf 1|le=10 1|le=100 1|le=20 1|le=50 1|sum 0" "$(h b)"
$FORMATS prom "$workdir/show.prom" >"$workdir/prom.cells"
check "prometheus _count equals the text cells" "" \
	"$(sed "s/^lat\.statctr_[a-z0-9_]*_lat_\([a-z]*\)\(_total\)*\./lat.\1./" "$workdir/prom.cells" | diff "$workdir/text.cells" -)"

# exporter-config: each histogram's bucket and summary tables are walked,
# the bucket's bound labels it, the index and bound give no sample.
check_status "exporter-config" 0 "$STATCTL" exporter-config "$config"
printf '%s\n' "$out" >"$workdir/gen.yml"
for table in LatencyBucketTable LatencySummaryTable SizeBucketTable SizeSummaryTable; do
	check "walks $table" 1 "$(grep -c "^      - [a-zA-Z0-9]*Lat$table\$" "$workdir/gen.yml")"
done
check "the bound replaces row and bucket index" 1 "$(grep -c \
	'^      - source_indexes: \[[a-zA-Z0-9]*LatRowIndex, [a-zA-Z0-9]*LatLatencyBucketIndex\]$' "$workdir/gen.yml")"
check "the lookup is the bound" 1 "$(grep -c '^        lookup: [a-zA-Z0-9]*LatLatencyBucketBound$' "$workdir/gen.yml")"
check "index and bound ignored" 4 "$(grep -c '^      [a-zA-Z0-9]*Lat[A-Z][a-z]*Bucket\(Index\|Bound\):$' "$workdir/gen.yml")"

# A row reset zeroes buckets, count and sum at once; later values count from zero.
check_status "reset the row" 0 "$STATCTL" reset "$segment" lat a
check_status "show json after the reset" 0 "$STATCTL" show -f json "$segment" lat
printf '%s\n' "$out" >"$workdir/reset.json"
check "a.latency reset" '{"count":0,"sum":0,"buckets":[0,0,0,0],"inf":0}' \
	"$(jq -c '.segments[0].tables[0].rows[0].histograms.latency' "$workdir/reset.json")"
check "b.latency untouched" 1 \
	"$(jq -c '.segments[0].tables[0].rows[1].histograms.latency.count' "$workdir/reset.json")"
check "one discontinuity for the row" yes "$(jq -r '.segments[0].tables[0].rows[0].discontinuity_ns |
	if .latency == .ops and .size == .ops and .ops > 0 then "yes" else "no" end' "$workdir/reset.json")"
check_status "reset one histogram cell" 0 "$STATCTL" reset "$segment" lat b latency
check "b.latency reset whole" '{"count":0,"sum":0,"buckets":[0,0,0,0],"inf":0}' \
	"$("$STATCTL" show -f json "$segment" lat | jq -c '.segments[0].tables[0].rows[1].histograms.latency')"
kill -USR1 "$writer_pid"
wait_recorded 2
check_status "show after a new value" 0 "$STATCTL" show "$segment" lat
check "a.latency counts from zero: one 7" "a 1 7.0 5.0 9.0 9.9" \
	"$(printf '%s\n' "$out" | sed -n '/^  lat\.latency /,/^$/p' | awk '$1 == "a"' | tr -s ' ' | sed 's/^ //')"
check "--raw: a histogram stays since its reset (no raw buckets)" 1 \
	"$("$STATCTL" show --raw -f json "$segment" lat | jq '.segments[0].tables[0].rows[0].values.latency')"

# watch in a pipe: the first frame shows the distribution since the reset,
# the second the values of its interval (none: "-").
check_status "watch" 0 "$STATCTL" watch -n 2 -i 0.2 "$segment" lat
printf '%s\n' "$out" >"$workdir/watch.txt"
check "watch heads" "lat value delta per second mean p50 p90 p99" \
	"$(grep -m1 '^lat ' "$workdir/watch.txt" | tr -s ' ')"
check "watch frame 1: since the reset" "a.latency 1 - - 7.0 5.0 9.0 9.9" \
	"$(grep '^  a\.latency ' "$workdir/watch.txt" | head -1 | tr -s ' ' | sed 's/^ //')"
check "watch frame 2: nothing in the interval" "a.latency 1 0 0.0 - - - -" \
	"$(grep '^  a\.latency ' "$workdir/watch.txt" | sed -n 2p | tr -s ' ' | sed 's/^ //')"
check "a counter's line has no trailing blanks" 2 "$(grep -c '^  a\.ops  *0  *[-0-9.]*  *[-0-9.]*$' "$workdir/watch.txt")"
finish
