#!/bin/bash
# Issue 9, defect 10: a SET that is wrong in several ways gets the error
# RFC 3416 4.2.5 ranks first.  Through a real snmpd (v2c), one bad SET per
# rule the agent can produce, and combinations that only the right order
# answers right; each asserts the error-status name and the failed varbind
# (error-index) that snmpset prints:
#   (1) noAccess (snmpd's VACM)  (2) notWritable: no writable object type
#   (3) wrongType  (4) wrongLength, (5) wrongEncoding: not reachable through
#   snmpd, which decodes every INTEGER into a long and drops a PDU it
#   cannot decode (tests/fuzz/fuzz_set.c covers (4))  (6) wrongValue
#   (7) noCreation  (8) inconsistentName: never (no instance is creatable)
#   (9) notWritable: the instance exists, its control file is read-only to
#   the agent  (10) inconsistentValue: reset(2) of a segment without values
#   (11) resourceUnavailable: never (nothing to allocate).
# Segments: dataplane (oid 1), written by SEC_WRITER with group SEC_GROUP,
# resettable by the agent (running as SEC_RESETTER); dataplane2 (oid 2),
# written by SEC_OTHER, readable (0644) but its control file is not
# writable by the agent; later removed, so absent.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need snmpget snmpset snmpwalk
fx_config_two "interval_ms = 100; allow_reset = true;"
sed -i -e "s|path = \"$TMP/dataplane\";|path = \"$SEC_SHM/dataplane\"; group = \"$SEC_GROUP\";|" \
	-e "s|path = \"$TMP/dataplane2\";|path = \"$SEC_SHM/dataplane2\";|" \
	-e 's|mode = "0640";|mode = "0644";|' "$TMP/statctr.conf"
chmod 0644 "$TMP/statctr.conf"
SEGMENT=$SEC_SHM/dataplane
SEGMENT2=$SEC_SHM/dataplane2
fx_snmpd
sec_writer "$SEC_WRITER" -s dataplane -t 2 -n 1000
sec_as "$SEC_OTHER" pipeline -c "$TMP/statctr.conf" -s dataplane2 -t 1 -n 500 >>"$TMP/writer2.log" 2>&1 &
fx_track $!
fx_wait 5 test -e "$SEGMENT2" || fail "$SEC_OTHER's writer did not create $SEGMENT2"
fx_writer_settled
fx_agent -u "$SEC_RESETTER"
wait_status 3 1 "$ST_ACTIVE"
wait_status 3 2 "$ST_ACTIVE"
fx_wait_pass

# set_result COMMUNITY OID TYPE VALUE [OID TYPE VALUE]...: "ok", or the
# error name and the 1-based index of the failed varbind, "wrongType 2".
set_result() {
	local community=$1 out reason failed i=0
	shift
	if out=$(sec_bounded 10 snmpset -v2c -c "$community" -On -t 2 -r 0 "127.0.0.1:$PORT" "$@" 2>&1); then
		echo ok
		return
	fi
	reason=$(echo "$out" | sed -n 's/^Reason: \([a-zA-Z]*\).*/\1/p')
	failed=$(echo "$out" | sed -n 's/^Failed object: //p')
	while [ $# -ge 3 ]; do
		i=$((i + 1))
		[ "$1" = "$failed" ] && break
		shift 3
	done
	[ $# -ge 3 ] || i="?($failed)"
	echo "${reason:-none: $out} $i"
}
# expect WANT OID TYPE VALUE...: a SET through the write community.
expect() {
	local want=$1 got
	shift
	got=$(set_result "$WCOMMUNITY" "$@")
	[ "$got" = "$want" ] || fail "snmpset $* gave '$got', expected '$want'"
}

SEGRESET=$ROOT.1.2.1.12 # statctrSegmentReset.<segment oid>
CELLRESET=$ROOT.1.3.1.12.1 # statctrCellReset.1.<cell>
TOTALS=$DATA.3.1 # dataplane totals: .2 name, .4 reset, .10 packets; row 1 "all"
gauge=$(snmp_walk "$ROOT.1.3.1.5.1" | awk '$2 == 2 { print $1; exit }')
[ -n "$gauge" ] || fail "no gauge cell in statctrCellKind"
GAUGE=${gauge##*.}

log "(1) noAccess comes from snmpd, before anything the agent checks"
got=$(set_result "$COMMUNITY" "$TOTALS.4.1" i 2)
[ "$got" = "noAccess 1" ] || fail "read-only community: '$got', expected 'noAccess 1'"
got=$(set_result "$COMMUNITY" "$TOTALS.10.1" s x)
[ "$got" = "noAccess 1" ] || fail "read-only community, read-only column, wrong type: '$got'"

log "(2) notWritable: no writable object type there, whatever else is wrong"
expect "notWritable 1" "$TOTALS.10.1" i 2
expect "notWritable 1" "$TOTALS.10.1" i 7        # wrong value too
expect "notWritable 1" "$TOTALS.2.1" s x         # wrong type too
expect "notWritable 1" "$TOTALS.10.99" i 2       # no such instance too
expect "notWritable 1" "$ROOT.1.1.2.0" u 5       # read-only scalar
expect "notWritable 1" "$ROOT.1.1.99.0" i 2      # no such object in statctrObjects
expect "notWritable 1" "$ROOT.1.2.1.99.1" s x    # no such column, wrong type

log "(3) wrongType before wrongValue and noCreation"
expect "wrongType 1" "$TOTALS.4.1" s reset
expect "wrongType 1" "$TOTALS.4.1" u 2
expect "wrongType 1" "$TOTALS.4.99" s x          # no such row: still wrongType
expect "wrongType 1" "$TOTALS.4.1.5" u 7         # malformed index, wrong value too
expect "wrongType 1" "$CELLRESET.$GAUGE" s x     # gauges have no reset instance
expect "wrongType 1" "$SEGRESET.9" x 02          # no segment 9

log "(6) wrongValue before noCreation"
expect "wrongValue 1" "$TOTALS.4.1" i 3
expect "wrongValue 1" "$TOTALS.4.1" i 0
expect "wrongValue 1" "$TOTALS.4.1" i -1
expect "wrongValue 1" "$TOTALS.4.99" i 3         # no such row: still wrongValue
expect "wrongValue 1" "$CELLRESET.$GAUGE" i 0

log "(7) noCreation: no such instance, and none can be created"
expect "noCreation 1" "$TOTALS.4.2" i 2
expect "noCreation 1" "$TOTALS.4.1.1" i 2
expect "noCreation 1" "$DATA.1.1.4.99" i 1
expect "noCreation 1" "$CELLRESET.$GAUGE" i 2
expect "noCreation 1" "$SEGRESET.9" i 2
expect "noCreation 1" "$DATA2.3.1.4.7" i 2       # before (9): the segment is not resettable

log "(9) notWritable: the instance exists, the agent may not write its control file"
[ "$(stat -c '%U %a' "$SEGMENT2.ctl")" = "$SEC_OTHER 660" ] ||
	fail "dataplane2's control file: $(stat -c '%U %G %a' "$SEGMENT2.ctl")"
expect "notWritable 1" "$DATA2.3.1.4.1" i 2
expect "notWritable 1" "$DATA2.3.1.4.1" i 1
expect "notWritable 1" "$SEGRESET.2" i 2
[ "$(snmp_value "$DATA2.3.1.10.1")" = 500 ] || fail "a refused reset changed dataplane2"

log "error-index: the failing varbind of several"
expect "wrongValue 2" "$TOTALS.4.1" i 1 "$SEGRESET.1" i 9
expect "noCreation 3" "$TOTALS.4.1" i 1 "$SEGRESET.1" i 1 "$TOTALS.4.2" i 1
expect "notWritable 2" "$SEGRESET.1" i 1 "$DATA2.3.1.4.1" i 2

log "(10) inconsistentValue: reset(2) of a segment without values; idle(1) is a no-op"
pid2=$(snmp_value "$ROOT.1.2.1.7.2")
[ "$pid2" -gt 1 ] || fail "no writer pid for dataplane2: '$pid2'"
kill -KILL "$pid2"
rm -f "$SEGMENT2" "$SEGMENT2.ctl" "$SEGMENT2.lock"
wait_status 3 2 "$ST_ABSENT"
expect "inconsistentValue 1" "$SEGRESET.2" i 2
expect "ok" "$SEGRESET.2" i 1
expect "noCreation 1" "$DATA2.3.1.4.1" i 2        # its rows are gone with its values

log "a good SET still resets, and resets off is notWritable before wrongType"
[ "$(snmp_value "$TOTALS.10.1")" = 2000 ] || fail "refused SETs changed totals.packets"
expect "ok" "$TOTALS.4.1" i 2
fx_wait_pass
[ "$(snmp_value "$TOTALS.10.1")" = 0 ] || fail "the reset did not apply"
sed -i 's/allow_reset = true;/allow_reset = false;/' "$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
resets_off() { [ "$(snmp_value "$ROOT.1.1.9.0")" = 2 ]; }
fx_wait 10 resets_off || fail "allow_reset = false was not applied"
expect "notWritable 1" "$TOTALS.4.1" i 2
expect "notWritable 1" "$TOTALS.4.1" s x
expect "notWritable 1" "$TOTALS.4.99" i 7
agent_exit_clean 10
log "pass"
exit 0
