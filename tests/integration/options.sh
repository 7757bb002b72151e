#!/bin/bash
# statctr-agentx's command line (statctr-agentx(8), OPTIONS):
# - every option has a short and a long name; --help lists each pair on
#   stdout (exit 0, nothing on stderr), and the manual page documents each;
# - --version prints the version (exit 0), like -V;
# - the long names act: --config/--check-config give -c/-n's verdict, and
#   --foreground --log --embedded --pidfile start an agent that answers,
#   writes its pid file and exits 0 on SIGTERM;
# - wrong arguments (unknown option, missing or unexpected argument, extra
#   word, bad --log, -L stderr without -f): usage on stderr, nothing on stdout, exit 2.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

fx_need snmpget
fx_config "interval_ms = 100;"
LONG_NAMES="config check-config master embedded foreground log pidfile user group help version"

# Runs the agent with "$@" under a time limit; sets rc, out, err.
agent() {
	rc=0
	timeout 10 "$AGENT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

log "--help: every option's short and long name, on stdout, exit 0"
agent --help
[ "$rc" = 0 ] || fail "--help: exit status $rc"
[ -z "$err" ] || fail "--help wrote to stderr: $err"
grep -q "^usage: statctr-agentx " <<<"$out" || fail "--help prints no usage line: $out"
pairs=$(grep -Eo -- '^  -[A-Za-z], --[a-z-]+' <<<"$out" | sed 's/^  //')
[ "$(wc -l <<<"$pairs")" = "$(wc -w <<<"$LONG_NAMES")" ] || fail "--help lists: $pairs"
for name in $LONG_NAMES; do
	pair=$(grep -- "--$name\$" <<<"$pairs") || fail "--help does not list --$name"
	# The manual's entry of each option names both: .BR \-c ", " \-\-config
	head=".BR \\-${pair:1:1} \", \" \\-\\-${name//-/\\-}"
	H=$head awk 'index($0, ENVIRON["H"]) == 1 { found = 1 } END { exit !found }' \
		"$top_srcdir/agent/statctr-agentx.8" || fail "statctr-agentx(8) has no entry '$head'"
done
agent -h
[ "$rc" = 0 ] && [ "$out" = "$(cat "$TMP/out")" ] || fail "-h: exit status $rc"

log "--version and -V"
agent --version
[ "$rc" = 0 ] && grep -Eq '^statctr-agentx [0-9]+\.[0-9]+' <<<"$out" && [ -z "$err" ] ||
	fail "--version: status $rc: $out $err"
version=$out
agent -V
[ "$rc" = 0 ] && [ "$out" = "$version" ] || fail "-V: status $rc: $out"

log "the long names act"
agent --check-config --config "$TMP/statctr.conf"
[ "$rc" = 0 ] && grep -q "^$TMP/statctr.conf: valid: 1 segments" <<<"$out" ||
	fail "--check-config --config: status $rc: $out $err"
long_out=$out
agent -n -c "$TMP/statctr.conf"
[ "$out" = "$long_out" ] || fail "-n -c says '$out', --check-config --config '$long_out'"
agent --check-config "--config=$TMP/none.conf"
[ "$rc" = 1 ] && grep -q "$TMP/none.conf" <<<"$err" || fail "--config=MISSING: status $rc: $err"
fx_on_free_port agent 3 fx_agent_answers_on \
	"$AGENT" --foreground --log stderr --config "$TMP/statctr.conf" \
	"--embedded=udp:127.0.0.1:@PORT@" --pidfile "$TMP/agent.pid"
PORT=$FREE_PORT AGENT_PID=$FREE_PID
[ "$(cat "$TMP/agent.pid")" = "$AGENT_PID" ] || fail "--pidfile holds $(cat "$TMP/agent.pid"), not $AGENT_PID"
kill -TERM "$AGENT_PID"
rc=0
wait "$AGENT_PID" || rc=$?
fx_untrack "$AGENT_PID"
[ "$rc" = 0 ] || fail "the agent exited with status $rc on SIGTERM"
[ ! -e "$TMP/agent.pid" ] || fail "the pid file is left after the exit"

log "wrong arguments: usage on stderr, exit 2"
# Each case: the arguments, separated by '|'.
for args in "--bogus" "-q" "--config" "-c" "--help=yes" "--check-config|extra" \
	"--log=file|-n" "--foreground|--embedded" "-L|stderr|-n"; do
	IFS='|' read -r -a argv <<<"$args"
	agent "${argv[@]}"
	[ "$rc" = 2 ] || fail "$args: exit status $rc, not 2"
	[ -z "$out" ] || fail "$args: wrote to stdout: $out"
	grep -q "^usage: statctr-agentx " <<<"$err" || fail "$args: no usage on stderr: $err"
	log "$args: exit 2: $(head -n 1 <<<"$err")"
done
log "pass"
exit 0
