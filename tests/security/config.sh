#!/bin/bash
# The configuration is input (issue 9, defects 3, 8 and 12): a NUL byte
# before an @include, integers that 32 bits would wrap, a community with a
# space.  Each is refused, bounded in time, naming file:line, by `statctl
# check-config`, by the agent at start and, for the @include, by a running
# agent on SIGHUP, which keeps serving its previous configuration.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need snmpget mkfifo python3
sec_config "interval_ms = 100;"
cp "$TMP/statctr.conf" "$TMP/good.conf"
sed '$d' "$TMP/good.conf" >"$TMP/base.conf" # without the agent group
mkfifo "$TMP/fifo"
mkdir "$TMP/dir"
C=$TMP/bad.conf
AS_OTHER=(setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups)

# with_agent LINE: base.conf plus LINE as its last line, into $C; sets $line.
with_agent() {
	cp "$TMP/base.conf" "$C"
	line=$(($(wc -l <"$TMP/base.conf") + 1))
	printf '%s\n' "$1" >>"$C"
}

# with_nul_include TARGET: a comment holding a NUL on one line, an @include of TARGET on the next.
with_nul_include() {
	cp "$TMP/base.conf" "$C"
	line=$(($(wc -l <"$TMP/base.conf") + 1))
	python3 -c 'import sys; sys.stdout.buffer.write(b"# \0\n@include \"" + sys.argv[1].encode() + b"\"\n")' "$1" >>"$C"
}

# refused_by_statctl WHAT REGEXP: check-config ends within 10 s, exit 1, stderr matches REGEXP.
refused_by_statctl() {
	local rc=0
	sec_bounded 10 "${AS_OTHER[@]}" env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" check-config "$C" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 1 ] || fail "$1: statctl check-config exited $rc, not 1: $(cat "$TMP/err")"
	grep -Eq "$2" "$TMP/err" || fail "$1: statctl said '$(cat "$TMP/err")', not /$2/"
	[ ! -s "$TMP/out" ] || fail "$1: statctl printed '$(cat "$TMP/out")'"
	log "$1: statctl: $(cat "$TMP/err")"
}

# refused_by_agent WHAT REGEXP: the agent, started on $C, exits 1 within 10 s, logging REGEXP.
refused_by_agent() {
	local rc=0
	sec_bounded 10 "$AGENT" -f -L stderr -c "$C" -x "$TMP/agentx.sock" \
		-p "$TMP/bad.pid" >"$TMP/start.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "$1: the agent exited $rc, not 1: $(cat "$TMP/start.log")"
	grep -Eq "$2" "$TMP/start.log" || fail "$1: the agent logged '$(cat "$TMP/start.log")', not /$2/"
	log "$1: agent: $(grep -E "$2" "$TMP/start.log" | head -1)"
}

Q=$(echo "$C" | sed 's/[.]/[.]/g')
chmod 0644 "$TMP/base.conf"

log "defect 3: a NUL before @include"
with_nul_include "$TMP/dir"
refused_by_statctl "NUL, then @include of a directory" "$Q:$((line)):3: control byte 0x00"
refused_by_agent "NUL, then @include of a directory" "$Q:$((line)):3: control byte 0x00"
with_nul_include "$TMP/fifo"
chmod 0644 "$C"
refused_by_statctl "NUL, then @include of a FIFO" "$Q:$((line)):3: control byte 0x00"
refused_by_agent "NUL, then @include of a FIFO" "$Q:$((line)):3: control byte 0x00"

log "defect 8: integers that 32 bits would wrap"
sed 's/slots = 4;/slots = 4294967298;/' "$TMP/base.conf" >"$C"
line=$(grep -n 'slots = 4294967298' "$C" | cut -d: -f1)
refused_by_statctl "slots = 2^32 + 2" "$Q:$line: segments[.]\[0\][.]slots: 4294967298 is out of range \(1[.][.]4096\)"
sed 's/slots = 4294967298;/slots = 4; oid = 4294967297;/; s/^    oid = 1; /    /' "$C" >"$TMP/oid.conf"
mv "$TMP/oid.conf" "$C"
refused_by_statctl "oid = 2^32 + 1" "$Q:$line: segments[.]\[0\][.]oid: 4294967297 is out of range \(1[.][.]2147483647\)"
refused_by_agent "oid = 2^32 + 1" "$Q:$line: segments[.]\[0\][.]oid: 4294967297 is out of range"
with_agent 'agent = { interval_ms = 4294967306; };'
refused_by_statctl "agent.interval_ms = 2^32 + 10" "$Q:$line: agent[.]interval_ms: 4294967306 is out of range"
refused_by_agent "agent.interval_ms = 2^32 + 10" "$Q:$line: agent[.]interval_ms: 4294967306 is out of range"
with_agent 'agent = { interval_ms = 3600001; };'
refused_by_agent "agent.interval_ms one above its bound" "$Q:$line: agent[.]interval_ms: 3600001 is out of range 10[.][.]3600000"
with_agent 'agent = { ping_interval = -1; };'
refused_by_agent "agent.ping_interval negative" "$Q:$line: agent[.]ping_interval: -1 is out of range 1[.][.]3600"

log "defect 12: communities are single snmpd.conf tokens"
for community in 'pub lic' 'pub	lic' '' 'pub\"lic' "$(printf 'x%.0s' $(seq 256))"; do
	for key in community write_community; do
		with_agent "agent = { $key = \"$community\"; };"
		refused_by_statctl "$key = \"$community\"" "$Q:$line: agent[.]$key: must be"
		refused_by_agent "$key = \"$community\"" "$Q:$line: agent[.]$key: must be"
	done
done
with_agent "agent = { community = \"$(printf 'x%.0s' $(seq 255))\"; write_community = \"a-b_c.d!\"; };"
sec_bounded 10 "${AS_OTHER[@]}" env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" check-config "$C" >/dev/null ||
	fail "255 characters and punctuation were refused"

log "defect 3 against a running agent: SIGHUP keeps the old configuration"
cp "$TMP/good.conf" "$TMP/statctr.conf"
fx_snmpd
fx_agent
CONF=$(echo "$TMP/statctr.conf" | sed 's/[.]/[.]/g')
for target in "$TMP/dir" "$TMP/fifo"; do
	with_nul_include "$target"
	cp "$C" "$TMP/statctr.conf"
	seen=$(wc -l <"$TMP/agent.log")
	kill -HUP "$AGENT_PID"
	fx_wait 5 bash -c "tail -n +$((seen + 1)) '$TMP/agent.log' | grep -q 'still serving'" ||
		fail "@include of $target: no 'still serving' in the log"
	tail -n +$((seen + 1)) "$TMP/agent.log" | grep -Eq "$CONF:$line:3: control byte 0x00" ||
		fail "@include of $target: the refusal is not logged with file:line:column"
	kill -0 "$AGENT_PID" || fail "@include of $target: the agent died"
	fx_agent_answers || fail "@include of $target: the agent does not answer"
	[ "$(snmp_value "$ROOT.1.1.2.0")" = 100 ] || fail "@include of $target: statctrAggInterval changed"
	cp "$TMP/good.conf" "$TMP/statctr.conf"
	log "SIGHUP with a NUL, then @include of $target: refused, still serving"
done
log "pass"
exit 0
