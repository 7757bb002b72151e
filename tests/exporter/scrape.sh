#!/bin/bash
# statctr-exporter serves what statctl shows (issue 38): with the example
# writer settled on a known count, a scrape of /metrics in text 0.0.4 is,
# line for line, `statctl show -f prometheus` of the same file followed by
# the segments' state under `statctl list -f prometheus`'s names; promtool
# check metrics finds nothing in it; OpenMetrics (asked by Accept) has the
# same values, counter families without _total, each _created right after
# its _total, and # EOF; gzip (asked by Accept-Encoding) is the same body.
# Then HTTP's rules (405, 404, HEAD), a killed writer (statctr_segment_up 0
# at the next scrape), a restarted one (followed: up 1, a new generation,
# values from zero), SIGHUP (a new segments list served), --check-config,
# and READY=1 on $NOTIFY_SOCKET.
. "$(dirname "$0")/lib.sh"
ex_need promtool python3

fx_config
cat >>"$TMP/statctr.conf" <<'CONF'
exporter = { max_scrapes = 2; timeout_s = 5; };
CONF
fx_writer -t 2 -n 20000
fx_writer_settled

# ---- readiness: READY=1 to $NOTIFY_SOCKET once it listens
python3 - "$TMP/notify.sock" >"$TMP/notify.out" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
print(s.recv(4096).decode().replace("\n", " "), flush=True)
PY
fx_track $!
fx_wait 5 test -S "$TMP/notify.sock" || fail "the notify listener did not start"
NOTIFY_SOCKET=$TMP/notify.sock ex_start
fx_wait "$(fx_loaded 5)" grep -q READY=1 "$TMP/notify.out" || fail_later "no READY=1 on NOTIFY_SOCKET"
check "READY names the address" 1 "$(grep -c "STATUS=serving on 127.0.0.1:$EX_PORT" "$TMP/notify.out")"

# ---- 0.0.4: statctl's exposition, then the state
ex_get /metrics >"$TMP/plain.prom" || fail "GET /metrics failed"
"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus >"$TMP/statctl.prom" ||
	fail "statctl show failed"
"$STATCTL" -c "$TMP/statctr.conf" list -f prometheus >"$TMP/list.prom" ||
	fail "statctl list failed"
nshow=$(wc -l <"$TMP/statctl.prom")
nlist=$(wc -l <"$TMP/list.prom")
head -n "$nshow" "$TMP/plain.prom" >"$TMP/plain.head"
if cmp -s "$TMP/plain.head" "$TMP/statctl.prom"; then
	log "ok: the scrape's first $nshow lines are statctl show -f prometheus's"
else
	diff "$TMP/statctl.prom" "$TMP/plain.head" | head -20 >&2
	fail_later "the scrape differs from statctl show -f prometheus"
fi
# list's families, same names and labels (created and pid are the writer's: equal too)
tail -n +"$((nshow + 1))" "$TMP/plain.prom" | head -n "$nlist" >"$TMP/plain.list"
cmp -s "$TMP/plain.list" "$TMP/list.prom" || {
	diff "$TMP/list.prom" "$TMP/plain.list" | head >&2
	fail_later "the state differs from statctl list -f prometheus"
}
nseries=$(grep -vc '^#' "$TMP/statctl.prom")
[ "$nseries" -gt 100 ] || fail_later "only $nseries series in statctl's output"
check "up" 1 "$(ex_sample statctr_segment_up "segment=\"dataplane\",path=\"$TMP/dataplane\",status=\"active\"" <"$TMP/plain.prom")"
grep -q '^statctr_exporter_segments_read 1$' "$TMP/plain.prom" || fail_later "segments_read is not 1"
grep -q '^statctr_segment_busy_slots{segment="dataplane"} 0$' "$TMP/plain.prom" ||
	fail_later "busy slots of a settled writer are not 0"
if promtool check metrics <"$TMP/plain.prom" >"$TMP/promtool.out" 2>&1; then
	log "ok: promtool check metrics: clean"
else
	cat "$TMP/promtool.out" >&2
	fail_later "promtool check metrics reports the 0.0.4 scrape"
fi
grep -q 'packets' "$TMP/plain.prom" || fail_later "no packet counter in the scrape"
want_rx=$(grep '^statctr_dataplane_if_stats_rx_packets_total{' "$TMP/statctl.prom" | awk '{ s += $2 } END { print s }')
check "rx packets = 2 threads x 20000" 40000 "$want_rx"

# ---- OpenMetrics: same values, its own shape
OM='Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
ex_get /metrics -H "$OM" -D "$TMP/om.headers" >"$TMP/om.prom" || fail "GET /metrics (OpenMetrics) failed"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$TMP/om.headers" ||
	fail_later "OpenMetrics content type missing: $(grep -i content-type "$TMP/om.headers")"
check "# EOF last" "# EOF" "$(tail -n 1 "$TMP/om.prom")"
check "one # EOF" 1 "$(grep -c '^# EOF' "$TMP/om.prom")"
grep -q '^# TYPE statctr_dataplane_if_stats_rx_packets counter$' "$TMP/om.prom" ||
	fail_later "OpenMetrics counter family not named without _total"
grep -q '^# UNIT statctr_dataplane_if_stats_rx_octets octets$' "$TMP/om.prom" ||
	fail_later "no # UNIT for a family ending with its units"
grep -q '_created gauge$' "$TMP/om.prom" && fail_later "OpenMetrics output has 0.0.4's _created gauges"
# every _total sample is followed by its _created, same labels
awk '/_total\{/ && !/^statctr_exporter/ { n = $1; sub(/_total\{/, "_created{", n); want = n; next }
     want != "" { if (index($0, want " ") != 1) { print "after " want ": " $0; bad++ } want = "" }
     END { exit bad > 0 }' "$TMP/om.prom" || fail_later "a _total not followed by its _created"
# the values: every sample of 0.0.4 but the _created gauges and the exporter's own is in OM
grep -v '^#' "$TMP/statctl.prom" | grep -v '_created{' | sort >"$TMP/plain.values"
grep -v '^#' "$TMP/om.prom" | grep -v '_created{' | grep -v '^statctr_exporter' | sort >"$TMP/om.values"
missing=$(comm -23 "$TMP/plain.values" "$TMP/om.values" | wc -l)
check "0.0.4 samples missing from OpenMetrics" 0 "$missing"

# ---- gzip
ex_get /metrics -H 'Accept-Encoding: gzip' -D "$TMP/gz.headers" >"$TMP/plain.gz" || fail "GET gzip failed"
grep -qi '^content-encoding: gzip' "$TMP/gz.headers" || fail_later "no Content-Encoding: gzip"
gunzip -c "$TMP/plain.gz" | head -n "$nshow" >"$TMP/gz.head" || fail_later "not gzip"
cmp -s "$TMP/gz.head" "$TMP/statctl.prom" || fail_later "the gzipped body differs"
check "no gzip when q=0" 0 "$(ex_get /metrics -H 'Accept-Encoding: gzip;q=0' -D - -o /dev/null | grep -ci '^content-encoding')"

# ---- HTTP rules
check "POST" 405 "$(ex_status /metrics -X POST -d x=1)"
check "PUT" 405 "$(ex_status /metrics -X PUT -d x)"
check "DELETE" 405 "$(ex_status /metrics -X DELETE)"
check "unknown path" 404 "$(ex_status /metricz)"
check "index" 200 "$(ex_status /)"
grep -q 'href="/metrics"' <(ex_get /) || fail_later "the index does not link /metrics"
check "HEAD" 200 "$(ex_status /metrics -I)"
check "HEAD has no body" 0 "$(curl -s -I "http://127.0.0.1:$EX_PORT/metrics" | grep -c '^statctr_')"
check "query string ignored" 200 "$(ex_status '/metrics?x=1')"

# ---- a killed writer: up 0 at the next scrape, its last values still shown
fx_kill "$WRITER_PID" KILL
ex_get /metrics >"$TMP/gone.prom" || fail "GET after the kill failed"
check "up after SIGKILL" 0 "$(ex_sample statctr_segment_up "segment=\"dataplane\",path=\"$TMP/dataplane\",status=\"gone\"" <"$TMP/gone.prom")"
check "values kept" "$want_rx" "$(grep '^statctr_dataplane_if_stats_rx_packets_total{' "$TMP/gone.prom" | awk '{ s += $2 } END { print s }')"
gen1=$(ex_sample statctr_segment_generation 'segment="dataplane"' <"$TMP/gone.prom")

# ---- a restarted writer: followed to its new generation
fx_writer -t 1 -n 500
fx_writer_settled
ex_get /metrics >"$TMP/again.prom" || fail "GET after the restart failed"
check "up after restart" 1 "$(ex_sample statctr_segment_up "segment=\"dataplane\",path=\"$TMP/dataplane\",status=\"active\"" <"$TMP/again.prom")"
gen2=$(ex_sample statctr_segment_generation 'segment="dataplane"' <"$TMP/again.prom")
[ -n "$gen2" ] && [ "$gen1" != "$gen2" ] || fail_later "generation did not change ($gen1, $gen2)"
check "values of the new writer" 500 "$(grep '^statctr_dataplane_if_stats_rx_packets_total{' "$TMP/again.prom" | awk '{ s += $2 } END { print s }')"
"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus >"$TMP/statctl2.prom"
head -n "$(wc -l <"$TMP/statctl2.prom")" "$TMP/again.prom" | cmp -s - "$TMP/statctl2.prom" ||
	fail_later "after the restart the scrape differs from statctl show"

# ---- SIGHUP: a configuration listing a segment that does not exist
sed -i 's/^exporter = .*/exporter = { segments = ["dataplane"]; max_scrapes = 3; };/' "$TMP/statctr.conf"
kill -HUP "$EX_PID"
fx_wait "$(fx_loaded 5)" grep -q 'SIGHUP: configuration .* reloaded' "$TMP/exporter.log" ||
	fail_later "no reload logged"
check "served after SIGHUP" 200 "$(ex_status /metrics)"
echo 'exporter = { nonsense = 1; };' >>"$TMP/statctr.conf"
kill -HUP "$EX_PID"
fx_wait "$(fx_loaded 5)" grep -q 'still serving the previous configuration' "$TMP/exporter.log" ||
	fail_later "a bad reload not refused"
check "served after a bad SIGHUP" 200 "$(ex_status /metrics)"
kill -0 "$EX_PID" || fail "the exporter died"

# ---- --check-config: the agent's verdict, the exporter group's rules
sed -i '$d' "$TMP/statctr.conf"
"$EXPORTER" --check-config -c "$TMP/statctr.conf" >"$TMP/check.out" 2>&1 ||
	fail_later "--check-config refused a valid file: $(cat "$TMP/check.out")"
cp "$TMP/statctr.conf" "$TMP/bad.conf"
echo 'exporter = { listen_address = "nocolon"; };' >>"$TMP/bad.conf"
sed -i '0,/^exporter = { segments/{/^exporter = { segments/d}' "$TMP/bad.conf"
if "$EXPORTER" --check-config -c "$TMP/bad.conf" >"$TMP/bad.out" 2>&1; then
	fail_later "--check-config accepted listen_address \"nocolon\""
fi
grep -q "bad.conf:[0-9]*: exporter.listen_address: must be HOST:PORT" "$TMP/bad.out" ||
	fail_later "--check-config's message: $(cat "$TMP/bad.out")"
"$STATCTL" check-config "$TMP/bad.conf" >/dev/null 2>&1 && fail_later "statctl check-config accepted it"
sed -i 's/^exporter = { listen_address.*/exporter = { segments = ["nosuch"]; };/' "$TMP/bad.conf"
"$EXPORTER" --check-config -c "$TMP/bad.conf" >"$TMP/bad.out" 2>&1 && fail_later "an undeclared segment accepted"
grep -q 'no segment "nosuch" is declared' "$TMP/bad.out" || fail_later "message: $(cat "$TMP/bad.out")"

ex_stop
grep -q 'stopped' "$TMP/exporter.log" || fail_later "no clean stop logged"
test_finish
