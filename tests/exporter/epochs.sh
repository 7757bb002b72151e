#!/bin/bash
# /metrics?epoch=N (docs/exporter.md, "Epochs"): the counts of epoch N's
# interval, as `statctl show -f prometheus --epoch=N` prints them, line for
# line, for a writer of known histogram values (tests/tools/hist_rec: each
# SIGUSR1 records one 7 in lat.a.latency): three 7s after epoch 1 started
# give a count of 3 there, and 103 in the plain scrape.  An epoch the
# segment does not keep leaves it unread (statctr_segment_readable 0),
# and a malformed one gets 400.
. "$(dirname "$0")/lib.sh"
ex_need
HIST_REC=$top_builddir/tests/tools/hist_rec
[ -x "$HIST_REC" ] || skip "$HIST_REC not built"

cat >"$TMP/statctr.conf" <<CONF
segments = ( { name = "lat"; path = "$TMP/lat"; slots = 2; epochs = { keep = 4; };
  tables = ( { name = "lat"; rows = [ "a", "b" ];
    columns = (
      { name = "ops"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us"; buckets = [ 10, 20, 50, 100 ]; },
      { name = "size"; kind = "histogram"; buckets = { start = 1; factor = 2; count = 20; }; } ); } ); } );
CONF
"$HIST_REC" "$TMP/statctr.conf" lat >"$TMP/rec.out" 2>"$TMP/rec.log" &
writer_pid=$!
fx_track "$writer_pid"
recorded() { grep -qx "recorded $1" "$TMP/rec.out"; }
fx_wait 10 recorded 1 || fail "hist_rec did not record its first batch"
"$STATCTL" -c "$TMP/statctr.conf" epoch start one lat >/dev/null || fail "epoch start failed"
for n in 2 3 4; do
	kill -USR1 "$writer_pid"
	fx_wait 10 recorded "$n" || fail "hist_rec did not record batch $n"
done
ex_start

ex_get '/metrics?epoch=1' >"$TMP/epoch.prom" || fail "GET ?epoch=1 failed"
"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus --epoch 1 >"$TMP/statctl.prom" ||
	fail "statctl show --epoch 1 failed"
head -n "$(wc -l <"$TMP/statctl.prom")" "$TMP/epoch.prom" | cmp -s - "$TMP/statctl.prom" || {
	diff "$TMP/statctl.prom" <(head -n "$(wc -l <"$TMP/statctl.prom")" "$TMP/epoch.prom") | head >&2
	fail_later "?epoch=1 differs from statctl show --epoch 1"
}
check "epoch 1's count of a.latency" 3 "$(ex_sample statctr_lat_lat_latency_count 'segment="lat",table="lat",row="a"' <"$TMP/epoch.prom")"
ex_get /metrics >"$TMP/plain.prom"
check "the plain scrape: since the reset" 103 "$(ex_sample statctr_lat_lat_latency_count 'segment="lat",table="lat",row="a"' <"$TMP/plain.prom")"
check "the next plain scrape forgets the epoch" 103 "$(ex_get /metrics | ex_sample statctr_lat_lat_latency_count 'segment="lat",table="lat",row="a"')"
check "an epoch not kept: unread" 0 "$(ex_get '/metrics?epoch=9' | ex_sample statctr_segment_readable "segment=\"lat\",path=\"$TMP/lat\"")"
check "?epoch=abc" 400 "$(ex_status '/metrics?epoch=abc')"
check "?epoch=0" 400 "$(ex_status '/metrics?epoch=0')"
check "?epoch=4294967296" 400 "$(ex_status '/metrics?epoch=4294967296')"
test_finish
