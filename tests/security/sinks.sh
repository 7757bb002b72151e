#!/bin/bash
# Trap receivers cannot take the embedded master (-M) off the air (issue 40,
# items 1 and 2; docs/security.md, "Trap receivers"): the agent is given
# five sinks, four of them hostile or dead from the start:
# - a TCP receiver that accepts and never reads (its receive buffer 4 KB);
# - a refused TCP port (nothing listens);
# - a blackholed TCP port: a listener whose backlog is full and which never
#   accepts, so the kernel drops every SYN (nothing answers them);
# - an SNMPv3 inform sink whose receiver is down (nothing on the UDP port);
# - and a real snmptrapd on UDP (v2c traps), which must keep receiving.
# Proves: the agent starts and serves with them (logging each unreachable
# sink once); during a storm of linkUp/linkDown (every row of a 200-row
# table flipping each pass), every GET of the agent is answered and their
# p99 stays below 100 ms plus twice the p99 of a reference snmpd's own
# sysUpTime.0, polled in turn with them; the snmptrapd sink receives; the
# dead sinks' notifications are counted in statctrNotificationsLost (each
# of the three dead sinks loses every one, the stalled one some), and
# STATE_FILE.notifications says the same; SIGTERM ends the agent within 5 s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmptrap snmptrapd python3
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
. "$top_srcdir/tests/integration/trapd.sh"
IF=.1.3.6.1.2.1.2.2.1
ROWS=200
BASE=1000
FLIPS=30
P99_MS=100
[ "${SANITIZER:-none}" = none ] || P99_MS=300
SENT=$ROOT.1.1.11.0 # statctrNotificationsSent, Suppressed, Lost
LOST=$ROOT.1.1.13.0

# The hostile receivers, one process: prints "stall PORT", "blackhole PORT",
# "refused PORT", "v3down PORT", then "ready" once the blackhole is proven
# (a connect to it stays unanswered for 1 s), and counts what the stalled
# receiver was sent (never reading: only its buffer's worth) until killed.
cat >"$TMP/receivers.py" <<'EOF'
import socket, sys, time

def listener(rcvbuf=None, backlog=16):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind(('127.0.0.1', 0))
    s.listen(backlog)
    return s

def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port

stall = listener(rcvbuf=4096)
hole = listener(backlog=0)
fill = []
for _ in range(3):  # fill the accept queue: later SYNs are dropped
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.setblocking(False)
    try:
        c.connect(('127.0.0.1', hole.getsockname()[1]))
    except BlockingIOError:
        pass
    fill.append(c)
time.sleep(0.3)
probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
probe.settimeout(1.0)
try:
    probe.connect(('127.0.0.1', hole.getsockname()[1]))
    print('blackhole-failed', flush=True)
except (socket.timeout, OSError):
    pass
probe.close()
print('stall', stall.getsockname()[1])
print('blackhole', hole.getsockname()[1])
print('refused', free_port(socket.SOCK_STREAM))
print('v3down', free_port(socket.SOCK_DGRAM))
print('ready', flush=True)
conns = []
while True:
    c, _ = stall.accept()
    conns.append(c)  # accepted, never read
    print('accepted', flush=True)
EOF

# GETs of the agent (an IF-MIB row) and of snmpd (sysUpTime.0) in turn, raw
# BER over UDP, until STOPFILE exists: "agent|snmpd ms ok|error|timeout".
cat >"$TMP/poll.py" <<'EOF'
import os, socket, sys, time
aport, sport, community, oid, stop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4], sys.argv[5]

def tlv(tag, body):
    n = len(body)
    size = bytes([n]) if n < 128 else bytes([0x82, n >> 8, n & 0xff])
    return bytes([tag]) + size + body

def integer(v):
    return tlv(0x02, v.to_bytes(4, 'big', signed=True))

def objid(text):
    parts = [int(p) for p in text.strip('.').split('.')]
    out = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7f]
        while p > 0x7f:
            p >>= 7
            chunk.insert(0, 0x80 | (p & 0x7f))
        out += bytes(chunk)
    return tlv(0x06, out)

def get(reqid, name):
    pdu = integer(reqid) + integer(0) + integer(0) + tlv(0x30, tlv(0x30, objid(name) + b'\x05\x00'))
    return tlv(0x30, integer(1) + tlv(0x04, community) + tlv(0xa0, pdu))

def reqid_of(msg):
    # SEQUENCE { version, community, PDU { request-id ... } }: request-id's 4 bytes
    i = msg.rfind(b'\xa2')
    return int.from_bytes(msg[i + 4:i + 4 + msg[i + 3]], 'big', signed=True) if i >= 0 else -1

socks = {}
for who, port in (('agent', aport), ('snmpd', sport)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(('127.0.0.1', port))
    s.settimeout(5.0)
    socks[who] = s
reqid, end = 1000, time.monotonic() + 120
while not os.path.exists(stop) and time.monotonic() < end:
    for who, name in (('agent', oid), ('snmpd', '.1.3.6.1.2.1.1.3.0')):
        reqid += 1
        t0 = time.monotonic()
        socks[who].send(get(reqid, name))
        state = 'timeout'
        try:
            while True:
                msg = socks[who].recv(65535)
                if msg.find(b'\xa2') >= 0:
                    state = 'ok'
                    break
        except socket.timeout:
            pass
        print(f"{who} {(time.monotonic() - t0) * 1000:.2f} {state}", flush=True)
        time.sleep(0.01)
EOF

# p50, p99, max of the latencies of WHO in FILE.
pct() { # WHO FILE
	awk -v w="$1" '$1 == w { print $2 }' "$2" | sort -n |
		awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1
		      printf "p50 %.1f p99 %.1f max %.1f n %d", v[int((NR + 1) / 2)], v[i], v[NR], NR }'
}
p99() { pct "$1" "$2" | awk '{ print $4 }'; }

python3 "$TMP/receivers.py" >"$TMP/receivers.out" 2>&1 &
RECV_PID=$!
fx_track "$RECV_PID"
fx_wait 10 grep -q '^ready' "$TMP/receivers.out" || fail "the receivers did not start: $(cat "$TMP/receivers.out")"
! grep -q blackhole-failed "$TMP/receivers.out" ||
	skip "a full accept queue does not drop SYNs here: no blackholed port to test"
port_of() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/receivers.out"; }
STALL=$(port_of stall) HOLE=$(port_of blackhole) REFUSED=$(port_of refused) V3DOWN=$(port_of v3down)
log "receivers: stalled tcp:$STALL, blackholed tcp:$HOLE, refused tcp:$REFUSED, v3 inform down udp:$V3DOWN"

start_trapd
fx_snmpd
SNMPD_PORT=$PORT

cat >"$TMP/statctr.conf" <<CONF
segments = ( {
  name = "ifseg"; path = "$TMP/ifseg"; oid = 7; slots = 1;
  tables = (
    { name = "ports"; oid = 1; rows = $ROWS;
      columns = (
        { name = "rxOctets"; kind = "counter"; },
        { name = "oper";     kind = "gauge"; } );
      ifmib = { ifindex_base = $BASE; ifindex_range = $ROWS;
                columns = { rxOctets = "ifHCInOctets"; oper = "ifOperStatus"; }; }; }
  );
} );
agent = { interval_ms = 100; link_holddown_ms = 0; community = "$COMMUNITY";
          state_file = "$TMP/state"; engine_boots_file = "$TMP/boots";
          v3_users = ( { name = "nms"; auth = "SHA-256"; auth_pass = "sink-auth-pass";
                         priv = "AES"; priv_pass = "sink-priv-pass"; } );
          trap_sinks = (
            { address = "tcp:127.0.0.1:$STALL"; community = "public"; },
            { address = "tcp:127.0.0.1:$REFUSED"; community = "public"; },
            { address = "tcp:127.0.0.1:$HOLE"; community = "public"; },
            { address = "udp:127.0.0.1:$V3DOWN"; user = "nms"; },
            { address = "udp:127.0.0.1:$TPORT"; community = "public"; } ); };
CONF
chmod 600 "$TMP/statctr.conf"

all_rows() { # STATE
	local r cmds=()
	for r in $(seq 0 $((ROWS - 1))); do cmds+=("set ports oper $r $1"); done
	fx_ifcmd "${cmds[@]}"
}
value_is() { [ "$(snmp_value "$1")" = "$2" ]; }

fx_ifwriter ifseg
all_rows 1
log "the agent starts with a refused, a blackholed, a stalled and a dead v3 inform sink"
t0=$(fx_now_ms)
fx_on_free_port agent 10 fx_agent_answers_on \
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:@PORT@"
PORT=$FREE_PORT AGENT_PID=$FREE_PID
log "serving $(($(fx_now_ms) - t0)) ms after its start"
fx_wait 10 value_is "$IF.8.$BASE" 1 || fail "no IF-MIB rows within 10 s"
for what in "tcp:127.0.0.1:$REFUSED: cannot connect" "tcp:127.0.0.1:$HOLE: cannot connect" \
	"udp:127.0.0.1:$V3DOWN: no answer to the engineID probe"; do
	fx_wait 10 grep -q "$what" "$TMP/agent.log" || fail "not logged: '$what': $(cat "$TMP/agent.log")"
done
fx_wait 10 grep -q '^accepted' "$TMP/receivers.out" || fail "the agent never connected to the stalled receiver"
fx_wait_pass

log "a storm: $ROWS rows flip $FLIPS times, GETs of the agent and of snmpd meanwhile"
rm -f "$TMP/stop"
python3 "$TMP/poll.py" "$PORT" "$SNMPD_PORT" "$COMMUNITY" "$IF.8.$((BASE + ROWS / 2))" "$TMP/stop" \
	>"$TMP/gets.out" 2>&1 &
POLL_PID=$!
fx_track "$POLL_PID"
for i in $(seq "$FLIPS"); do
	all_rows $((i % 2 ? 2 : 1))
	fx_wait_pass
done
all_rows 2
fx_wait_pass
sleep 1 # GETs after the storm's last notifications too (not a wait for the agent)
touch "$TMP/stop"
fx_wait 10 sh -c "! kill -0 $POLL_PID 2>/dev/null" || fail "the poller did not stop"
fx_untrack "$POLL_PID"

agent_n=$(awk '$1 == "agent"' "$TMP/gets.out" | grep -c . || true)
[ "$agent_n" -ge 50 ] || fail "only $agent_n GETs of the agent: $(tail -3 "$TMP/gets.out")"
bad=$(awk '$1 == "agent" && $3 != "ok"' "$TMP/gets.out" | grep -c . || true)
[ "$bad" -eq 0 ] || fail "$bad of $agent_n GETs of the agent were not answered"
a99=$(p99 agent "$TMP/gets.out") s99=$(p99 snmpd "$TMP/gets.out")
limit=$(awk -v s="$s99" -v b="$P99_MS" 'BEGIN { printf "%.1f", b + 2 * s }')
log "GETs of the agent: $(pct agent "$TMP/gets.out") ms; snmpd's own: $(pct snmpd "$TMP/gets.out") ms; bound $limit ms"
awk -v a="$a99" -v l="$limit" 'BEGIN { exit !(a < l) }' ||
	fail "GET p99 $a99 ms of the agent, not below $limit ms (100 + 2 x snmpd's $s99)"

log "losses are counted; the healthy sink received"
fx_wait 10 sh -c "[ \$(grep -c ' link' '$TRAPS' || true) -gt 0 ]" || fail "the snmptrapd sink received nothing"
sent=$(snmp_value "$SENT")
lost_above() { [ "$(snmp_value "$LOST")" -gt "$1" ]; }
fx_wait 10 lost_above $((3 * sent)) ||
	fail "statctrNotificationsLost $(snmp_value "$LOST") for $sent sent: the three dead sinks lose $((3 * sent)), the stalled one more"
lost=$(snmp_value "$LOST")
log "sent $sent, lost $lost (3 dead sinks: $((3 * sent)); the stalled one: $((lost - 3 * sent))); snmptrapd received $(grep -c ' link' "$TRAPS")"
fx_wait 5 grep -qx "lost $lost" "$TMP/state.notifications" ||
	fail "$TMP/state.notifications says $(grep lost "$TMP/state.notifications"), statctrNotificationsLost $lost"

log "SIGTERM: the agent exits within 5 s, whatever its sinks do"
t0=$(fx_now_ms)
kill -TERM "$AGENT_PID"
fx_wait 5 sh -c "! kill -0 $AGENT_PID 2>/dev/null" || fail "the agent still runs 5 s after SIGTERM"
fx_untrack "$AGENT_PID"
log "exited $(($(fx_now_ms) - t0)) ms after SIGTERM"
log "PASS"
