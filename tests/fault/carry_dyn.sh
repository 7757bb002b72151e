#!/bin/bash
# carry_over of dynamic tables' rows, by name (docs/agent.md, "Counters
# across writer restarts"): tests/integration/ifwriter adds rows to
# dyn.ports (a counter and a histogram) in another order each generation, so
# that a name's index changes, and is killed (-9) and restarted while a
# poller reads row a's counter and discontinuity time by name.  Proves:
# - after each restart the agent saw (writerGone), every served value of
#   each named row (the counter by index and by name, the histogram's
#   count, sum and cumulative buckets) is the sum of that name's
#   generations, at its new index, and its discontinuity time did not move;
# - a name that takes another name's old index inherits nothing (its own
#   counts, its add as discontinuity);
# - a name added later in a generation gets its carry when its row is added;
# - a name absent when a generation ends carries nothing into the next;
# - a row reset zeroes the row (counter and histogram), moves its
#   discontinuity, and a restart after it carries from 0;
# - the agent killed (-9) while the writer runs, stopped (SIGTERM) and
#   restarted as a daemon, and killed (-9) while the writer is dead (the
#   writer restarted after it) continues every named row exactly from the
#   carry file (version 3: each name's counts): the sums, no discontinuity
#   move; a name with a space, '*' and '%' planted in it comes back escaped
#   (x%20y*%25);
# - the poller never saw row a's counter go backwards without its
#   discontinuity time changing, which changed at the reset only;
# - a carry file whose row line has a bad name, another count of values, a
#   table that is not dynamic, or a name twice is refused, its cause
#   logged, and the discontinuity moves.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk snmpset
[ -x "$top_builddir/tests/integration/ifwriter" ] || skip "tests/integration/ifwriter not built (make check builds it)"

S=7                # the segment's oid
D=$ROOT.3.$S.1.1   # ports' entry: discontinuity .3, reset .4, rx .10, lat's count .11
H=$ROOT.4.$S.1.11  # ports.lat: cumulative buckets .1.1.3.row.bucket, count and sum .2.1.{1,2}.row
BN=$ROOT.6.$S.1.1  # ports by name: index .2, discontinuity .3, rx .10
STATE=$TMP/agent.state
cat >"$TMP/statctr.conf" <<EOF
segments = ( {
  name = "dyn"; oid = $S; slots = 2; path = "$TMP/dyn";
  tables = ( {
    name = "ports"; oid = 1; rows = { max = 4; };
    columns = (
      { name = "rx"; kind = "counter"; },
      { name = "lat"; kind = "histogram"; units = "us"; buckets = [ 10, 100 ]; } );
  } );
} );
agent = { interval_ms = 100; allow_reset = true; state_file = "$STATE"; };
EOF

# The name's bytes as sub-identifiers (the by-name table's IMPLIED index).
key() {
	local s=$1 out="" i
	for ((i = 0; i < ${#s}; i++)); do out="$out.$(printf '%d' "'${s:i:1}")"; done
	echo "$out"
}
# What each name should serve: rx, and lat's values at most 10, at most 100, count, sum.
declare -A RX LE10 LE100 CNT SUM PRESENT DISC
add() {
	fx_ifcmd "add ports rx $1 $2"
	RX[$1]=$((${RX[$1]:-0} + $2))
}
rec() {
	fx_ifcmd "rec ports lat $1 $2"
	[ "$2" -le 10 ] && LE10[$1]=$((${LE10[$1]:-0} + 1))
	[ "$2" -le 100 ] && LE100[$1]=$((${LE100[$1]:-0} + 1))
	CNT[$1]=$((${CNT[$1]:-0} + 1)) SUM[$1]=$((${SUM[$1]:-0} + $2))
}
row_add() {
	local name
	for name; do
		fx_ifcmd "row+ ports $name"
		PRESENT[$name]=1
	done
}
index_of() { snmp_value "$BN.2$(key "$1")"; }
disc_of() { snmp_value "$D.3.$(index_of "$1")"; }

# served_is WHAT: every present name serves its sums, by index and by name.
served_is() {
	local what=$1 name i v
	for name in "${!PRESENT[@]}"; do
		i=$(index_of "$name")
		[[ "$i" =~ ^[0-9]+$ ]] || fail "$what: row $name is not served ($i)"
		for v in "$D.10.$i ${RX[$name]:-0}" "$BN.10$(key "$name") ${RX[$name]:-0}" \
			"$D.11.$i ${CNT[$name]:-0}" "$H.2.1.1.$i ${CNT[$name]:-0}" \
			"$H.2.1.2.$i ${SUM[$name]:-0}" "$H.1.1.3.$i.1 ${LE10[$name]:-0}" \
			"$H.1.1.3.$i.2 ${LE100[$name]:-0}" "$H.1.1.3.$i.3 ${CNT[$name]:-0}"; do
			[ "$(snmp_value "${v% *}")" = "${v#* }" ] ||
				fail "$what: row $name (index $i): ${v% *} is $(snmp_value "${v% *}"), not ${v#* }"
		done
	done
	log "$what: $(for n in $(printf '%s\n' "${!PRESENT[@]}" | sort); do
		printf '%s@%s rx %s lat %s; ' "$n" "$(index_of "$n")" "${RX[$n]:-0}" "${CNT[$n]:-0}"
	done)exact"
}
# disc_kept WHAT NAME...: each name's discontinuity is the one recorded.
disc_kept() {
	local what=$1 name
	shift
	for name; do
		[ "$(disc_of "$name")" = "${DISC[$name]}" ] ||
			fail "$what: row $name's discontinuity moved (${DISC[$name]} -> $(disc_of "$name")) though no count was lost"
	done
}
note_disc() {
	local name
	for name; do DISC[$name]=$(disc_of "$name"); done
}

writer_starts() {
	sleep 0.1 # a generation's creation time is in ms; TimeStamps in cs
	fx_ifwriter dyn
	[ -z "${AGENT_PID:-}" ] || wait_status "$(fx_loaded 5)" "$S" "$ST_ACTIVE"
}
# writer_dies: kill -9; the agent sees it gone.  A name absent at the end carries nothing.
writer_dies() {
	local dead=$WRITER_PID name
	fx_kill "$WRITER_PID" KILL
	exec 7>&-
	wait_status "$(fx_loaded 5)" "$S" "$ST_GONE"
	wait_log "$(fx_loaded 5)" "segment dyn: writer pid $dead died without closing it: its values are final \(writerGone\); the next writer's counts continue them"
	fx_wait_pass
	served_is "writer gone"
	for name in "${!RX[@]}"; do
		[ -n "${PRESENT[$name]:-}" ] && continue
		RX[$name]=0 LE10[$name]=0 LE100[$name]=0 CNT[$name]=0 SUM[$name]=0
	done
	PRESENT=()
}

fx_snmpd
writer_starts
fx_agent
wait_log "$(fx_loaded 5)" "carry file $STATE.carry: none yet"

log "generation 1: a, b, c at indexes 1, 2, 3"
row_add a b c
add a 100
add b 200
add c 300
rec a 5
rec b 50
rec c 500
fx_wait_pass
served_is "generation 1"
note_disc a b c
c_index=$(index_of c)
poller_start "$BN.10$(key a)" "$BN.3$(key a)"

log "generation 2: c, a, d (d at c's old index, a at b's); b added later"
writer_dies
writer_starts
row_add c a d
add a 10
add c 30
add d 7
rec a 50
rec d 1
fx_wait_pass
served_is "generation 2"
disc_kept "generation 2" a c
[ "$(index_of a)" = 2 ] && [ "$(index_of c)" = 1 ] || fail "the rows did not change indexes"
[ "$(index_of d)" = "$c_index" ] || fail "d is not at c's old index $c_index"
[ "$(disc_of d)" != "${DISC[c]}" ] || fail "d, at c's old index, serves c's discontinuity"
snmp_value "$BN.2$(key b)" | grep -q 'No Such' || fail "b is served though not added yet"
note_disc d
row_add b
add b 1
fx_wait_pass
served_is "b added later in generation 2"
disc_kept "b added later" b

log "generation 3: b, a, c; d, present when generation 2 ended, not added: dropped"
writer_dies
writer_starts
row_add b a c
add b 1000
rec b 7
fx_wait_pass
served_is "generation 3"
disc_kept "generation 3" a b c

log "a row reset zeroes a (counter and histogram); a restart after it carries from 0"
fx_expect_set ok "$D.4.$(index_of a)" i 2
RX[a]=0 LE10[a]=0 LE100[a]=0 CNT[a]=0 SUM[a]=0
fx_wait_pass
served_is "after the reset of a"
[ "$(disc_of a)" -gt "${DISC[a]}" ] || fail "the reset did not move a's discontinuity"
note_disc a
add a 5

log "generation 4: d, a, b; d starts from its own counts"
writer_dies
writer_starts
row_add d a b
add d 3
fx_wait_pass
served_is "generation 4"
disc_kept "generation 4" a b
[ "$(disc_of d)" -gt "${DISC[d]}" ] || fail "d, dropped and added again, kept its old discontinuity"
grep -q '^statctr-agentx carry 3$' "$STATE.carry" || fail "the carry file is not version 3"
# generation 4's carry: a, b and c (c not added yet), a row line each of 6 values' triples
# (rx, lat, lat's sum and its 3 buckets: 10, 100, +Inf)
fx_wait "$(fx_loaded 5)" grep -q '^rows 3 0$' "$STATE.carry" || fail "the carry file has no \"rows 3 0\""
[ "$(grep -Ec '^0 [abc]( [0-9]+){18}$' "$STATE.carry")" = 3 ] ||
	fail "the carry file does not keep the 3 rows carried by name: $(cat "$STATE.carry")"

# continued WHAT: after an agent restart every named row serves its sums, its
# discontinuity unmoved, and counts go on from there.
continued() {
	fx_wait_pass
	served_is "$1"
	disc_kept "$1" "${!PRESENT[@]}"
	no_log "no carried counts to continue \((the carry file|its decl|already)|while the agent was not running|before the agent saw|carry file .*refused" \
		"$1: the agent did not continue the carry"
	add a 1
	rec b 20
	fx_wait_pass
	served_is "$1, counting on"
}

log "the agent killed (-9) while the writer runs: the rows continue exactly"
note_disc a b d
fx_kill "$AGENT_PID" KILL
fx_agent
continued "agent restarted (-9)"

log "the agent stopped (SIGTERM), a row \"x y*%\" planted, restarted as a daemon: the same"
agent_exit_clean 10
zeros=$(printf ' 0%.0s' $(seq 18))
awk -v row="0 x%20y%2A%25$zeros" '/^rows / && !seen { seen = 1; $2 = $2 + 1; print; print row; next } { print }' \
	"$STATE.carry" >"$TMP/planted" && cat "$TMP/planted" >"$STATE.carry"
FX_DAEMON=1
fx_agent
continued "agent restarted (SIGTERM, daemon)"
fx_wait "$(fx_loaded 5)" grep -q "^0 x%20y\*%25$zeros\$" "$STATE.carry" ||
	fail "the name \"x y*%\" did not come back as x%20y*%25: $(grep '^0 x' "$STATE.carry")"

log "the agent (a daemon) killed (-9) while the writer is dead, the writer restarted after it: exact"
note_disc a b
writer_dies
fx_wait "$(fx_loaded 5)" grep -q '^next [0-9]' "$STATE.carry" || fail "the carry file keeps no final counts"
[ "$(awk '/^next / { n = 1 } n && /^0 [abd] /' "$STATE.carry" | wc -l)" = 3 ] ||
	fail "the final counts do not keep a, b and d: $(cat "$STATE.carry")"
fx_kill "$AGENT_PID" KILL
fx_agent
wait_status "$(fx_loaded 5)" "$S" "$ST_GONE"
writer_starts
row_add b a
add b 4
continued "writer restarted after the agent (-9)"

poller_stop
poller_never_backwards 1 10 "row a's counter"

# refused CAUSE ON_ROWS ON_ROW: the agent restarted on the good carry file
# changed by the awk actions ON_ROWS (on its first "rows" line) and ON_ROW (on
# the row line after it) refuses it, logging CAUSE, and moves a's discontinuity.
cp "$STATE.carry" "$TMP/good.carry"
refused() {
	local before after
	before=$(disc_of a)
	agent_exit_clean 10
	awk "/^rows / && !seen { seen = 1; n = NR + 1; $2 } NR == n { $3 } { print }" \
		"$TMP/good.carry" >"$TMP/planted" && cat "$TMP/planted" >"$STATE.carry"
	fx_agent
	wait_log "$(fx_loaded 5)" "carry file $STATE.carry: line [0-9]+: $1: refused"
	fx_wait_pass
	after=$(disc_of a)
	[ "$after" -gt "$before" ] || fail "$1: a's discontinuity did not move ($before -> $after)"
	log "refused: $1 (a's discontinuity $before -> $after)"
}
refused "a dynamic row's name that is not 1..255 bytes of 0x20..0x7e" '' 'sub(/^0 [^ ]*/, "0 a%0A")'
refused "a dynamic row with another count of values than its table's" '' 'sub(/ [0-9]+$/, "")'
refused "a row of a table that is not dynamic" '' 'sub(/^0 /, "1 ")'
refused "a dynamic row named twice" '$2 = $2 + 1' 'print'

kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
fx_ifwriter_stop
log "pass"
exit 0
