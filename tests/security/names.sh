#!/bin/bash
# Names unique where they land, and strings Net-SNMP's parser reads as they
# were meant (issue 19, defects 5, 9 and 10).  The parties: an operator
# (SEC_OTHER) checking configurations with both check-config commands, and
# a writer (SEC_WRITER) that creates a segment from a configuration
# check-config was never asked about, read by root's statctl.
#  - tables t-x and t_x (one Prometheus name), 120 columns folding to one
#    SMI descriptor, a v3 user named -e, a community -c: each refused by
#    `statctl check-config` and `statctr-agentx --check-config` (exit 1,
#    FILE:LINE naming the objects); `statctl mib` refuses the descriptors
#    (exit 1, nothing on stdout);
#  - the writer's segment with colliding names: `statctl show -f
#    prometheus --slots` declares each family once, promtool accepts it,
#    and the left-out columns are named on stderr.
SEC_PROGRAMS="tests/security/any_writer"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need promtool
[ -x "$TMP/bin/any_writer" ] || skip "tests/security/any_writer not built (make check builds it)"
export LD_LIBRARY_PATH=$TMP/bin
CONFS=$TMP/confs
mkdir -m 0755 "$CONFS"

# conf NAME TEXT: $CONFS/NAME.conf holding TEXT, the operator's, mode 0600.
conf() {
	printf '%s\n' "$2" >"$CONFS/$1.conf"
	chown "$SEC_OTHER" "$CONFS/$1.conf"
	chmod 0600 "$CONFS/$1.conf"
}

# refused NAME LINE PATTERN: both check-config commands, as the operator,
# exit 1 with "NAME.conf:LINE: " and PATTERN (grep -E) in their message.
refused() {
	local cmd rc
	for cmd in "statctl check-config" "statctr-agentx --check-config -c"; do
		rc=0
		# shellcheck disable=SC2086 # the command and its option
		sec_bounded 10 setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups \
			"$TMP/bin/"$cmd "$CONFS/$1.conf" >"$TMP/out" 2>"$TMP/err" || rc=$?
		[ "$rc" = 1 ] || fail "$cmd $1.conf: exit $rc, not 1: $(cat "$TMP/out" "$TMP/err")"
		grep -Eq "$1.conf:$2: .*$3" "$TMP/err" ||
			fail "$cmd $1.conf: no '$1.conf:$2: ...$3' in: $(cat "$TMP/err")"
	done
	log "$1: refused: $(head -c 300 "$TMP/err")"
}

# segment TABLES: a segment "seg" at $SEC_SHM/seg with TABLES (not "s":
# promtool's lint takes _s_ in a metric name for an abbreviated unit).
segment() {
	printf 'segments = ( { name = "seg"; path = "%s/seg"; slots = 2; group = "%s";\n  tables = (\n%s\n  ); } );' \
		"$SEC_SHM" "$SEC_GROUP" "$1"
}

log "defect 5: tables t-x and t_x give one Prometheus family name"
conf prom "$(segment '    { name = "t-x"; oid = 1; rows = 1; columns = ( { name = "c"; kind = "counter"; } ); },
    { name = "t_x"; oid = 2; rows = 1; columns = ( { name = "c"; kind = "gauge"; } ); }')"
refused prom 4 'table "t_x" .* is also that of table "t-x"'

log "defect 5: a gauge named like a histogram's series, a column like another's per-slot family"
conf suffix "$(segment '    { name = "t"; oid = 1; rows = 1; columns = ( { name = "lat_count"; kind = "gauge"; } ); }')"
refused suffix 3 'Prometheus name "statctr_seg_t_lat_count" of column "lat_count": a gauge'
conf byslot "$(segment '    { name = "t"; oid = 1; rows = 1; columns = ( { name = "a"; kind = "counter"; },
      { name = "a_by_slot"; kind = "counter"; } ); }')"
refused byslot 4 'Prometheus name "statctr_seg_t_a_by_slot_total" of column "a_by_slot" .* is also that of column "a"'

log "defect 9: 120 column names folding to one SMI descriptor"
cols=$(for i in $(seq 0 119); do
	name=x; [ $((i % 3)) = 1 ] && name=X; [ $((i % 3)) = 2 ] && name=x_
	printf '{ name = "%s%d"; kind = "counter"; }%s' "$name" "$((i / 3))" "$([ "$i" -lt 119 ] && echo ,)"
done)
conf smi "$(segment "    { name = \"t\"; oid = 1; rows = 1; columns = ( $cols ); }")"
refused smi 3 'SMI descriptor "segTX0" of column "X0" of table "t" of segment "seg" is also that of column "x0"'
rc=0
sec_as "$SEC_OTHER" statctl mib "$CONFS/smi.conf" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "statctl mib of colliding descriptors: exit $rc, not 1"
[ ! -s "$TMP/out" ] || fail "statctl mib of colliding descriptors wrote $(wc -c <"$TMP/out") bytes"
grep -q "smi.conf:3: .*is also that of" "$TMP/err" || fail "statctl mib: $(cat "$TMP/err")"
# The project's config, copied where the operator can read it: the tree may
# sit in a directory only root can enter.
cp "$top_srcdir/conf/statctr.conf" "$CONFS/statctr.conf"
chmod 0644 "$CONFS/statctr.conf"
sec_as "$SEC_OTHER" statctl mib "$CONFS/statctr.conf" >"$TMP/mib" 2>"$TMP/err" ||
	fail "statctl mib conf/statctr.conf: $(cat "$TMP/err")"
dups=$(grep -Eo '^[a-z][A-Za-z0-9]* +(OBJECT-TYPE|OBJECT IDENTIFIER|OBJECT-GROUP|MODULE-IDENTITY|MODULE-COMPLIANCE)' "$TMP/mib" |
	awk '{ print tolower($1) }' | sort | uniq -d)
[ -z "$dups" ] || fail "statctl mib defines twice: $dups"

log "defect 10: a v3 user -e, a community -c: Net-SNMP would read them as options"
agent_users() { # agent_users NAME COMMUNITY: an agent group, then one segment
	printf 'agent = { engine_boots_file = "%s/boots";\n  community = "%s";\n  v3_users = ( { name = "%s"; auth_pass = "12345678"; priv_pass = "12345678"; } ); };\n%s' \
		"$TMP" "$2" "$1" "$(segment '    { name = "t"; oid = 1; rows = 1; columns = ( { name = "c"; kind = "counter"; } ); }')"
}
conf user "$(agent_users -e public)"
refused user 3 'agent.v3_users.\[0\].name: must be 1..32 printable ASCII .*the first neither # nor -'
conf community "$(agent_users ops -c)"
refused community 2 'agent.community: must be 1..255 printable ASCII .*the first neither # nor -'
conf fine "$(agent_users ops-e public)"
sec_as "$SEC_OTHER" statctl check-config "$CONFS/fine.conf" >"$TMP/out" 2>&1 ||
	fail "a user ops-e (the '-' not first) is refused: $(cat "$TMP/out")"

log "a segment made from a configuration nobody checked: statctl's output stays valid"
conf unchecked "$(segment '    { name = "t-x"; oid = 1; rows = 2; columns = ( { name = "c"; kind = "counter"; },
      { name = "lat_count"; kind = "gauge"; }, { name = "a"; kind = "counter"; }, { name = "a_by_slot"; kind = "counter"; } ); },
    { name = "t_x"; oid = 2; rows = 2; columns = ( { name = "c"; kind = "counter"; } ); }')"
chmod 0644 "$CONFS/unchecked.conf"
sec_spawn "$SEC_WRITER" "$TMP/writer.log" any_writer "$CONFS/unchecked.conf" seg
fx_wait 5 grep -q created "$TMP/writer.log" || fail "any_writer: $(cat "$TMP/writer.log")"
rc=0
sec_bounded 10 "$TMP/bin/statctl" -f prometheus show --slots "$SEC_SHM/seg" >"$TMP/s.prom" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || fail "statctl show of the unchecked segment: exit $rc: $(cat "$TMP/err")"
promtool check metrics <"$TMP/s.prom" >"$TMP/promtool" 2>&1 ||
	fail "promtool rejects the unchecked segment's output: $(head -n 5 "$TMP/promtool")"
[ "$(grep -c '^# TYPE statctr_seg_t_x_c_total ' "$TMP/s.prom")" = 1 ] || fail "statctr_seg_t_x_c_total not declared once"
for left in "table 't_x' column 'c'" "table 't-x' column 'lat_count'" "table 't-x' column 'a_by_slot'"; do
	grep -q "$left left out of the Prometheus output" "$TMP/err" || fail "not reported: $left: $(cat "$TMP/err")"
done
log "stderr: $(head -n 3 "$TMP/err")"
log "pass"
exit 0
