#!/bin/bash
# Issue 9, defect 13: with -M the agent listens on exactly the addresses it
# is given.  Started as root (where Net-SNMP would also open SMUX on TCP
# 0.0.0.0:199), with one transport and with two (UDP and TCP), before and
# after dropping to an unprivileged user: the process's listening sockets,
# as `ss` lists them, are exactly the given ones, and it holds no other
# socket (no :199, no :161, no 0.0.0.0, no AgentX master).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need ss snmpget
sec_config "interval_ms = 100; community = \"$COMMUNITY\";"

# The agent's listening sockets as sorted "proto local-address" lines.
listening() {
	ss -Hlnp -A inet,unix 2>/dev/null | awk -v p="pid=$AGENT_PID," 'index($0, p) { print $1, $5 }' | sort
}

# Sockets among the agent's descriptors.
socket_fds() { find "/proc/$AGENT_PID/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' | wc -l; }

# embedded SPEC OPTIONS...: starts the -M agent on SPEC (PORT and PORT2 in it
# are replaced by two free ports), retrying on other ports if taken.
embedded() {
	local spec=$1 addresses
	shift
	for _ in 1 2 3 4 5; do
		PORT=$((20000 + (RANDOM * 7 + $$) % 40000))
		PORT2=$((PORT + 1))
		addresses=${spec//PORT2/$PORT2}
		addresses=${addresses//PORT/$PORT}
		"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "$addresses" "$@" >>"$TMP/agent.log" 2>&1 &
		AGENT_PID=$!
		fx_track "$AGENT_PID"
		# Another test's snmpd may answer on a port we could not bind:
		# the answer counts only if this agent lives and listens.
		if fx_wait 3 fx_agent_answers && sleep 0.3 && kill -0 "$AGENT_PID" 2>/dev/null &&
			[ -n "$(listening)" ]; then
			return 0
		fi
		fx_agent_stop
	done
	fail "the embedded master did not answer on any of 5 ports ($spec)"
}

# exactly NAME LINE...: the agent listens on these and holds no other socket.
exactly() {
	local name=$1
	shift
	printf '%s\n' "$@" | sort >"$TMP/want"
	listening >"$TMP/got"
	same_lines "$TMP/want" "$TMP/got" "$name: the agent listens on more or other addresses than -M gave"
	[ "$(socket_fds)" = $# ] || fail "$name: the agent holds $(socket_fds) sockets, not the $# it listens on"
	log "$name: listens on exactly $(tr '\n' ';' <"$TMP/got")"
}

log "one transport, as root"
embedded "udp:127.0.0.1:PORT"
exactly "udp, root" "udp 127.0.0.1:$PORT"
agent_exit_clean 10

log "two transports, as root, then dropped to $SEC_OTHER"
embedded "udp:127.0.0.1:PORT,tcp:127.0.0.1:PORT2"
exactly "udp+tcp, root" "udp 127.0.0.1:$PORT" "tcp 127.0.0.1:$PORT2"
snmpget -v2c -c "$COMMUNITY" -t 1 -r 1 -Oqv "tcp:127.0.0.1:$PORT2" "$ROOT.1.1.1.0" >/dev/null ||
	fail "the agent does not answer on tcp:127.0.0.1:$PORT2"
agent_exit_clean 10
embedded "udp:127.0.0.1:PORT,tcp:127.0.0.1:PORT2" -u "$SEC_OTHER"
grep -q "as uid $(id -u "$SEC_OTHER") " "$TMP/agent.log" || fail "the agent did not drop to $SEC_OTHER"
exactly "udp+tcp, dropped" "udp 127.0.0.1:$PORT" "tcp 127.0.0.1:$PORT2"
agent_exit_clean 10
log "pass"
exit 0
