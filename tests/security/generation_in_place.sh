#!/bin/bash
# A forged writer restart (found by tests/security/corrupt_live.sh under
# load): the writer's own user rewrites the `generation` field of its live
# segment's header in place (docs/segment-format.md: offset 24, 8 bytes), to
# a valid value.  A real restart makes a new file; the same file with a new
# generation number is its header rewritten.  Before, the agent took it for
# a restart and, with carry_over, added what it had served to the same
# counts: totals.packets read 4000 of the writer's 2000.  Proves: the agent
# logs the rewrite, serves the writer's own counts (never more), does not
# count a generation; with the field restored, the same; a real restart
# afterwards is still carried (the sum of both generations).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget python3
fx_config "interval_ms = 100;"
fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
fx_agent
fx_wait_pass
PKT=$DATA.3.1.10.1 GENS=$ROOT.1.2.1.10.1 # statctrSegmentGenerations.1
[ "$(snmp_value "$PKT")" = 2000 ] || fail "totals.packets $(snmp_value "$PKT"), not 2000 at start"
gens0=$(snmp_value "$GENS")

# set_generation VALUE: VALUE (decimal) at offset 24 of the segment, in place.
set_generation() {
	python3 - "$SEGMENT" "$1" <<'EOF' || fail "cannot rewrite the generation field"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(24)
    f.write(struct.pack("<Q", int(sys.argv[2])))
EOF
}
old=$(python3 -c 'import struct, sys; f = open(sys.argv[1], "rb"); f.seek(24); print(struct.unpack("<Q", f.read(8))[0])' "$SEGMENT")
[ "$old" != 0 ] || fail "the segment's generation field reads 0"

served_is_own() { # WHAT
	fx_wait_pass
	fx_wait_pass
	local got
	got=$(snmp_value "$PKT")
	[ "$got" = 2000 ] || fail "$1: totals.packets $got, the writer counted 2000"
	[ "$(snmp_value "$GENS")" = "$gens0" ] || fail "$1: statctrSegmentGenerations $gens0 -> $(snmp_value "$GENS")"
}

new=$(python3 -c 'import sys; print(int(sys.argv[1]) ^ 1)' "$old") # past bash's int64
log "the generation field rewritten in place: $old -> $new"
set_generation "$new"
# Noticed either way (the code before this fix took it for a restart).
wait_log "$(fx_loaded 5)" "segment dataplane: (its header's generation changed in place|writer restarted)"
served_is_own "after the rewrite"
grep -q "segment dataplane: its header's generation changed in place" "$TMP/agent.log" ||
	fail "the agent did not say the generation changed in place: $(tail -n 2 "$TMP/agent.log")"
log "the field restored"
set_generation "$old"
fx_wait_pass
served_is_own "after the restore"

log "a real restart is still carried"
dead=$WRITER_PID
fx_kill "$WRITER_PID" KILL
wait_log "$(fx_loaded 5)" "segment dataplane: writer pid $dead died without closing it"
fx_wait_pass
fx_writer -t 2 -n 500
fx_writer_settled
fx_wait "$(fx_loaded 5)" bash -c "[ \"\$(snmpget -v2c -c $COMMUNITY -Oqv 127.0.0.1:$PORT $PKT)\" = 3000 ]" ||
	fail "after a real restart: totals.packets $(snmp_value "$PKT"), not 2000 + 1000"
log "pass"
exit 0
