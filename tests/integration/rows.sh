#!/bin/bash
# Dynamic rows through a real snmpd: the agent serves the rows of vfStats
# (rows = { max = 64; }) present in its snapshot only, at index row + 1,
# with their names; indexes come back first-in first-out and a re-added
# index counts from zero; GET of an absent row is noSuchInstance and GETNEXT
# skips it (also in statctrCellTable); a row re-added under its name has
# its add as discontinuity TimeStamp; a row reset zeroes that row only; and
# while rows churn, every row a request returns has its name and values
# from one incarnation; the by-name table (statctrRowsByName) serves the
# same rows at their names, follows a re-add to its new index, walks in
# name order, and has no instance for an absent name.
#
# The writer is examples/pipeline -R vfStats:ROWS:MS:STEPS (its usage):
# rows vf0..vf<ROWS-1>; add number j is vf<j % ROWS> with incarnation
# N = j / ROWS + 1, gauge N, counters multiples of N.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpgetnext snmpwalk snmpset snmptable python3
fx_config "interval_ms = 100; allow_reset = true;"
# Each writer's own counts here: the churn below restarts the writer, and
# carry_over would add the names' counts of the one before (carry_dyn.sh tests it).
sed -i 's|name = "dataplane";|name = "dataplane"; carry_over = false;|' "$TMP/statctr.conf"
VF=$DATA.4 # vfStats
BN=$ROOT.6.1.4.1 # its by-name table's entry (statctrRowsByName.dataplane.vfStats)
# The IMPLIED index of a name: its bytes, ".118.102.48" for vf0.
key() {
	local i out=
	for ((i = 0; i < ${#1}; i++)); do out+=".$(printf '%d' "'${1:i:1}")"; done
	echo "$out"
}
fx_snmpd
fx_agent

# The writer's state after STEPS steps of -R vfStats:ROWS:MS:STEPS, as
# "index name rxPackets queueDepth" lines sorted by index (first-in
# first-out over 64 indexes; each step counts N on every row, then re-adds
# the next row).
model() {
	python3 - "$1" "$2" <<'EOF'
import collections, sys
nrows, steps = int(sys.argv[1]), int(sys.argv[2])
free = collections.deque(range(64))
rows = [[free.popleft(), 1, 0] for _ in range(nrows)]  # index, N, count
for step in range(steps):
    for r in rows:
        r[2] += r[1]
    r = rows[step % nrows]
    free.append(r[0])
    r[:] = [free.popleft(), r[1] + 1, 0]
for k, (i, n, c) in sorted(enumerate(rows), key=lambda x: x[1][0]):
    print(i + 1, "vf%d" % k, c, n)
EOF
}

# "index name rxPackets queueDepth" of the rows the agent serves, by walks.
served() {
	join <(snmp_walk "$VF.1.2" | sed "s|^$VF\.1\.2\.||" | sort) \
		<(snmp_walk "$VF.1.10" | sed "s|^$VF\.1\.10\.||" | sort) |
		join - <(snmp_walk "$VF.1.13" | sed "s|^$VF\.1\.13\.||" | sort) | sort -n
}

log "rows after 70 churn steps: 3 present, indexes reused first-in first-out"
fx_writer -t 1 -n 10 -R vfStats:3:1:70
fx_writer_settled
fx_wait_pass
model 3 70 >"$TMP/model"
[ "$(grep -c . "$TMP/model")" = 3 ] || fail "model: $(cat "$TMP/model")"
# Add j = 3 (N - 1) + K took index j % 64: every present row's was used before.
[ "$(awk '3 * ($4 - 1) >= 64' "$TMP/model" | grep -c .)" = 3 ] || fail "indexes not reused: $(cat "$TMP/model")"
served >"$TMP/served"
same_lines "$TMP/model" "$TMP/served" "the served rows differ from the writer's"
reader_lines latch >"$TMP/expect"
cell_lines snmp_walk >"$TMP/cells"
same_lines "$TMP/expect" "$TMP/cells" "statctrCellTable differs from the reader (present rows only)"

log "GET of an absent row: noSuchInstance; GETNEXT skips absent rows"
absent=$(awk 'NR == 1 { print $1 - 1 }' "$TMP/model")
[ "$absent" -ge 1 ] || absent=64
snmp_get "$VF.1.2.$absent" | grep -q 'No Such Instance' || fail "absent row $absent has a name"
snmp_get "$VF.1.10.$absent" | grep -q 'No Such Instance' || fail "absent row $absent has a value"
snmp_get "$VF.1.10.65" | grep -q 'No Such Instance' || fail "row 65 of 64 exists"
first=$(awk 'NR == 1 { print $1 }' "$TMP/model")
last=$(awk 'END { print $1 }' "$TMP/model")
# "FROM EXPECTED" pairs; statctrCellTable: vfStats' cells are 160..415
# (row r, column c: 160 + 4r + c).
while read -r from want; do
	got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$from" | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "GETNEXT $from gave $got, expected $want"
done <<EOF
$VF.1.2 $VF.1.2.$first
$VF.1.2.0 $VF.1.2.$first
$VF.1.10.$last $VF.1.11.$first
$ROOT.1.3.1.2.1.159 $ROOT.1.3.1.2.1.$((160 + 4 * (first - 1)))
$ROOT.1.3.1.2.1.418 $ROOT.1.3.1.3.1.1
EOF
got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$VF.1.13.$last" | cut -d' ' -f1)
case $got in "$VF".*) fail "GETNEXT past the last row gave $got" ;; esac
snmp_get "$ROOT.1.3.1.2.1.$((160 + 4 * (absent - 1)))" | grep -q 'No Such Instance' ||
	fail "a cell of absent row $absent is in statctrCellTable"

log "snmptable with the generated MIB lists the present rows"
smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") || skip "SMI modules unavailable: $(cat "$TMP/smi.log")"
"$top_builddir/tools/statctl" mib "$TMP/statctr.conf" -o "$TMP/STATCTR-DATAPLANE-MIB.txt" ||
	fail "statctl mib"
snmptable -M "+$TMP:$top_srcdir/mib:$smi" -m STATCTR-MIB:STATCTR-DATAPLANE-MIB -v2c \
	-c "$COMMUNITY" -Ci -Cf '|' -CH -Cb "127.0.0.1:$PORT" dataplaneVfStatsTable \
	>"$TMP/table" 2>"$TMP/table.err" || fail "snmptable: $(cat "$TMP/table.err")"
awk -F'|' '{ print $1, $2, $5 + 0, $8 + 0 }' "$TMP/table" >"$TMP/table.lines"
same_lines "$TMP/model" "$TMP/table.lines" "snmptable dataplaneVfStatsTable differs from the writer's rows"

log "by name: each row's index and values at its name, walked in name order"
while read -r index name rx depth; do
	[ "$(snmp_value "$BN.2$(key "$name")")" = "$index" ] ||
		fail "$name by name: index $(snmp_value "$BN.2$(key "$name")"), expected $index"
	[ "$(snmp_value "$BN.10$(key "$name")")" = "$rx" ] ||
		fail "$name by name: rxPackets $(snmp_value "$BN.10$(key "$name")"), expected $rx"
	[ "$(snmp_value "$BN.13$(key "$name")")" = "$depth" ] ||
		fail "$name by name: queueDepth $(snmp_value "$BN.13$(key "$name")"), expected $depth"
	[ "$(snmp_value "$BN.3$(key "$name")")" = "$(snmp_value "$VF.1.3.$index")" ] ||
		fail "$name by name: a discontinuity other than its row's"
done <"$TMP/model"
[ "$(snmp_walk "$BN.2" | sed "s|^$BN\.2||" | tr '\n' ' ')" = \
	"$(sort -k2 "$TMP/model" | while read -r i n _; do printf '%s %s ' "$(key "$n")" "$i"; done)" ] ||
	fail "walk of the by-name row indexes: $(snmp_walk "$BN.2")"
snmp_get "$BN.10$(key vf9)" | grep -q 'No Such Instance' || fail "absent vf9 has a value by name"
snmp_get "$BN.10$(key vf)" | grep -q 'No Such Instance' || fail "a prefix of a name has a value"
got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$BN.13$(key vf2)" | cut -d' ' -f1)
case $got in "$BN".*) fail "GETNEXT past the last name gave $got" ;; esac
got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$BN.10$(key vf0)")
[ "$got" = "$BN.10$(key vf1) $(snmp_value "$BN.10$(key vf1)")" ] ||
	fail "GETNEXT from vf0's rxPackets by name gave '$got', not vf1's"
snmptable -M "+$TMP:$top_srcdir/mib:$smi" -m STATCTR-MIB:STATCTR-DATAPLANE-MIB -v2c \
	-c "$COMMUNITY" -Ci -Cf '|' -CH -Cb "127.0.0.1:$PORT" dataplaneVfStatsByNameTable \
	>"$TMP/bytable" 2>"$TMP/table.err" || fail "snmptable by name: $(cat "$TMP/table.err")"
awk -F'|' '{ gsub(/["\047]/, "", $1); print $2, $1, $4 + 0, $7 + 0 }' "$TMP/bytable" | sort -n >"$TMP/bytable.lines"
same_lines "$TMP/model" "$TMP/bytable.lines" "snmptable dataplaneVfStatsByNameTable differs from the writer's rows"

log "a row reset zeroes that row only"
rw="-v2c -c $WCOMMUNITY -On -Oq -t 2 -r 0 127.0.0.1:$PORT"
second=$(awk 'NR == 2 { print $1 }' "$TMP/model")
before=$(snmp_value "$VF.1.3.$first")
keep=$(snmp_value "$VF.1.10.$second")
[ "$(snmp_value "$VF.1.10.$first")" != 0 ] || fail "row $first counts nothing to reset"
sleep 0.1
snmpset $rw "$VF.1.4.$first" i 2 >/dev/null || fail "row reset of $first"
[ "$(snmp_value "$VF.1.10.$first")" = 0 ] || fail "row $first not zero after its reset"
[ "$(snmp_value "$VF.1.10.$second")" = "$keep" ] || fail "the reset of $first changed row $second"
[ "$(snmp_value "$VF.1.3.$first")" -gt "$before" ] || fail "row $first: discontinuity did not move"
expect=$(snmpset $rw "$VF.1.4.$absent" i 2 2>&1) && fail "a reset of absent row $absent succeeded"
echo "$expect" | grep -q noCreation || fail "reset of absent row $absent: $expect"
fx_writer_stop
: >"$TMP/writer.log"

log "vf0 removed and added again after 3 s: new index, zero, its add as discontinuity"
uptime() { snmp_value .1.3.6.1.2.1.1.3.0; }
# The writer re-adds vf0 3 s after its first adds at the earliest: after t0 + 3 s.
t0=$(uptime)
fx_writer -t 1 -n 10 -R vfStats:2:3000:1
fx_wait 10 grep -q '^add vf1 row 1 gen 1' "$TMP/writer.log" || fail "the writer added no rows"
fx_wait_pass
old=$(snmp_value "$VF.1.3.1")
while ! grep -q '^add vf0 row 2 gen 2$' "$TMP/writer.log"; do
	kill -0 "$WRITER_PID" || fail "the writer died"
	sleep 0.05
done
after=$(uptime)
fx_wait_pass
snmp_get "$VF.1.2.1" | grep -q 'No Such Instance' || fail "vf0's old index 1 is still served"
[ "$(snmp_value "$VF.1.2.3")" = vf0 ] || fail "vf0 is not at index 3"
[ "$(snmp_value "$VF.1.10.3")" = 0 ] || fail "vf0 does not start at zero"
[ "$(snmp_value "$VF.1.13.3")" = 2 ] || fail "vf0's gauge is not its incarnation's"
disc=$(snmp_value "$VF.1.3.3")
log "discontinuity: first add $old, re-add $disc; uptime $t0 before the writer, $after once the re-add was logged"
# The agent converts a library time to sysUpTime with an offset it keeps
# within 1 s (docs/agent.md, TimeStamps): 100 cs of slack each way.  At
# load 30 the writer logged the add 2 s after it made it, so the bounds are
# the writer's start and the log line, not the last look before the line.
[ "$disc" -ge $((t0 + 300 - 100)) ] && [ "$disc" -le $((after + 100)) ] ||
	fail "vf0's discontinuity $disc is not its re-add ($((t0 + 200))..$((after + 100)); load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$disc" -ge $((old + 100)) ] || fail "vf0's discontinuity $disc is not after its first add $old"
[ "$(snmp_value "$BN.2$(key vf0)")" = 3 ] || fail "vf0 by name is not at its new index 3"
[ "$(snmp_value "$BN.10$(key vf0)")" = 0 ] || fail "vf0 by name does not start at zero"
[ "$(snmp_value "$BN.3$(key vf0)")" = "$disc" ] || fail "vf0 by name: not its re-add's discontinuity"
log "by name: vf0 re-added reads index 3, zero, its add's discontinuity at the same OID"
fx_writer_stop
: >"$TMP/writer.log"

log "requests during fast churn: name and values of one incarnation, absent rows never"
fx_writer -t 1 -n 10 -R vfStats:3:1:0
fx_wait 10 grep -q 'gen 30$' "$TMP/writer.log" || fail "the writer does not churn"
# Row by row, every column of a row in one GETNEXT (one aggregation).
for walk in 1 2 3 4 5 6 7 8; do
	i=0
	while :; do
		line=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$VF.1.2.$i" "$VF.1.10.$i" "$VF.1.11.$i" \
			"$VF.1.12.$i" "$VF.1.13.$i" | tr -d '"' | tr '\n' ' ')
		case $line in "$VF.1.2."*) ;; *) break ;; esac
		echo "$line"
		i=${line%% *}
		i=${i##*.}
	done
done >"$TMP/churn"
snmp_walk "$VF.1.2" >"$TMP/names"
verdict=$(python3 - "$TMP/churn" "$TMP/names" <<'EOF'
import re, sys
rows = 0
for line in open(sys.argv[1]):
    f = line.split()
    oids, vals = f[0::2], f[1::2]
    idx = {o.rsplit(".", 1)[1] for o in oids}
    if len(idx) != 1:
        sys.exit("one GETNEXT, several rows: %s" % line)
    index, k = int(idx.pop()), int(re.fullmatch(r"vf([0-2])", vals[0]).group(1))
    n = int(vals[4])
    if n < 1 or any(int(v) % n for v in vals[1:4]):
        sys.exit("values of two incarnations: %s" % line)
    if (3 * (n - 1) + k) % 64 != index - 1:
        sys.exit("name and index of two incarnations: %s" % line)
    rows += 1
for line in open(sys.argv[2]):
    if not re.fullmatch(r"\S+ vf[0-2]", line.strip()):
        sys.exit("a walk returned %r" % line)
print("ok" if rows >= 8 else "only %d rows" % rows)
EOF
)
[ "$verdict" = ok ] || fail "during churn: $verdict"
log "$(grep -c . "$TMP/churn") rows read during churn, each one incarnation"
log "ok"
