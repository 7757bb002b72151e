#!/bin/bash
# The agent learns that the AgentX master refused a registration only from
# Net-SNMP's log line "registering pdu failed: N!" (agent/register.c,
# "Refusals"): the library the agent runs with must still print exactly
# the text the agent looks for, followed by the error number.  Fails when
# a Net-SNMP upgrade changes the wording, before any refusal goes unseen.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

command -v strings >/dev/null || skip "strings not found (Debian: apt-get install binutils)"
bin=$(dirname "$AGENT")/.libs/$(basename "$AGENT")
[ -x "$bin" ] || bin=$AGENT
lib=$(ldd "$bin" | awk '/libnetsnmpagent/ { print $3 }')
[ -r "$lib" ] || fail "the agent links no libnetsnmpagent: $(ldd "$bin")"
log "agent $bin, Net-SNMP agent library $lib"

text=$(grep -ao 'registering pdu failed: ' "$top_srcdir/agent/register.c" | head -1)
[ "$text" = "registering pdu failed: " ] || fail "agent/register.c no longer names the refusal text"
lines=$(strings -a "$lib" | grep -c "^${text}%ld!\$" || true)
[ "$lines" = 1 ] || fail "$lib prints no \"${text}%ld!\" line: $(strings -a "$lib" | grep -i 'registering' | head -3)"
strings -a "$bin" | grep -qxF "$text" || fail "the agent binary does not look for \"$text\""
log "Net-SNMP still reports a refused registration as \"${text}%ld!\""
