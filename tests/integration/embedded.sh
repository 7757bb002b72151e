#!/bin/bash
# Embedded master mode (-M): the agent serves SNMP itself, no snmpd; values
# equal the library's snapshot; the read-only community cannot reset.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk snmpbulkwalk snmpset
fx_config "interval_ms = 100; allow_reset = true; community = \"$COMMUNITY\"; write_community = \"$WCOMMUNITY\";"
fx_writer -t 2 -n 4000

fx_on_free_port agent 3 fx_agent_answers_on \
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:@PORT@"
PORT=$FREE_PORT AGENT_PID=$FREE_PID
log "statctr-agentx -M udp:127.0.0.1:$PORT pid $AGENT_PID"
fx_writer_settled
fx_wait_pass

reader_lines latch >"$TMP/expect"
bulk() { snmpbulkwalk $V2 -Cr50 "127.0.0.1:$PORT" "$@" | tr -d '"'; }
cell_lines bulk >"$TMP/cells"
same_lines "$TMP/expect" "$TMP/cells" "embedded: statctrCellTable differs from the reader"
data_lines snmp_walk >"$TMP/data"
same_lines "$TMP/expect" "$TMP/data" "embedded: statctrData differs from the reader"

snmpset -v2c -c "$COMMUNITY" -t 1 -r 0 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null 2>&1 &&
	fail "the read-only community could reset"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null ||
	fail "the write community could not reset"
[ "$(snmp_value "$DATA.3.1.10.1")" = 0 ] || fail "reset in embedded mode"
snmpget -v2c -c nosuchcommunity -t 0.5 -r 0 "127.0.0.1:$PORT" "$ROOT.1.1.1.0" >/dev/null 2>&1 &&
	fail "an unknown community got an answer"
log "pass"
exit 0
