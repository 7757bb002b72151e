#!/bin/sh
# statctl show --since/--epoch on histograms (docs/statctl.md, "Epochs"):
# the buckets, count and sum of an epoch's interval, from
# statctr_snap_epoch_bucket(), against a writer of known values
# (hist_rec.c: each SIGUSR1 records 7 in a.latency); without the options,
# the values since the reset as before.
. "${srcdir:-.}/tests/tools/lib.sh"

HIST_REC=${HIST_REC:-$top_builddir/tests/tools/hist_rec}
need_program "$HIST_REC"

segment=stctl_hep_$$
config=$workdir/hist.conf
cat >"$config" <<EOC
segments = ( { name = "$segment"; path = "$workdir/seg"; oid = 1; slots = 2;
  epochs = { keep = 4; };
  tables = ( { name = "lat"; oid = 1; rows = [ "a", "b" ];
    columns = (
      { name = "ops"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us"; buckets = [ 10, 20, 50, 100 ]; },
      { name = "size"; kind = "histogram"; buckets = { start = 1; factor = 2; count = 20; }; } ); } ); } );
EOC

"$HIST_REC" "$config" "$segment" >"$workdir/rec.out" 2>"$workdir/rec.err" &
writer_pid=$!
stop_rec() { kill "$writer_pid" 2>/dev/null; wait "$writer_pid" 2>/dev/null; cleanup; }
trap stop_rec EXIT
record() { # N: one more 7 in a.latency, the Nth batch
	kill -USR1 "$writer_pid"
	wait_recorded "$1"
}
# a.latency as "count sum buckets inf cell", OPTIONS...
alat() {
	"$STATCTL" -c "$config" show -f json "$@" "$segment" lat | python3 -c "
import json, sys
r = json.load(sys.stdin)['segments'][0]['tables'][0]['rows'][0]
h = r['histograms']['latency']
print(h['count'], h['sum'], ','.join(map(str, h['buckets'])), h['inf'], r['values']['latency'])"
}

wait_recorded 1
check "since the reset: the first batch" "100 3493 10,60,21,7 2 100" "$(alat)"
check_status "epoch 1" 0 "$STATCTL" -c "$config" epoch start one "$segment"
check "epoch 1's interval: nothing yet" "0 0 0,0,0,0 0 0" "$(alat --epoch 1)"
record 2
record 3
record 4
check "epoch 1's interval: three 7s" "3 21 3,0,0,0 0 3" "$(alat --epoch 1)"
check "since epoch 1: the same" "3 21 3,0,0,0 0 3" "$(alat --since 1)"
check "without an option: since the reset" "103 3514 13,60,21,7 2 103" "$(alat)"
check_status "epoch 2" 0 "$STATCTL" -c "$config" epoch start two "$segment"
record 5
check "epoch 1's interval ends at epoch 2" "3 21 3,0,0,0 0 3" "$(alat --epoch 1)"
check "epoch 2's interval: one 7" "1 7 1,0,0,0 0 1" "$(alat --epoch 2)"
check "since epoch 1: four 7s" "4 28 4,0,0,0 0 4" "$(alat --since 1)"
check_status "show --epoch 1, text with buckets" 0 "$STATCTL" -c "$config" show --epoch 1 --buckets "$segment" lat
check "the text's count is the interval's" "a 3" \
	"$(printf '%s\n' "$out" | sed -n '/^  lat\.latency /,/^$/p' | awk '$1 == "a" { print $1, $2; exit }')"
check_status "a reset changes no epoch's histogram" 0 "$STATCTL" -c "$config" reset "$segment" lat
check "after the reset: epoch 2 still one 7" "1 7 1,0,0,0 0 1" "$(alat --epoch 2)"
check "after the reset: nothing since it" "0 0 0,0,0,0 0 0" "$(alat)"
finish
