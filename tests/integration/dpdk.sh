#!/bin/bash
# A real DPDK application counting with statctr (examples/dpdk,
# docs/dpdk.md), end to end through a real snmpd and statctr-agentx.
# EAL runs without hugepages or PCI (--no-huge --no-pci --no-shconf) with
# two net_pcap vdevs: net_pcap0 reads a pcap file of a known number of
# packets and octets, generated here; net_pcap1 reads an empty one.  The
# forwarder (l2fwd pairs) sends net_pcap0's packets out of net_pcap1.
# Checks, exactly: the IF-MIB counters of both ports (ifHCInUcastPkts,
# ifHCInOctets, ifHCOutUcastPkts, ifHCOutOctets, their 32-bit twins),
# ifOperStatus up, ifHighSpeed, ifMtu and ifAlias from the port; the NIC's
# own counts (xstats) in the "nic" table over SNMP; the pcap written by
# net_pcap1; a vdev attached at run time (rte_dev_probe()) appears as an
# interface, follows its link down and up (ifOperStatus, ifHighSpeed,
# ifLastChange) and disappears when detached (rte_dev_remove()); statctl shows
# the burst-cycles histogram; with net_pcap1's tx capped (-q), the drops
# equal what it did not write, and every refused mbuf is freed.  Without
# DPDK (configure found no libdpdk) it skips loudly, and fails under
# CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk
FWD=$top_builddir/examples/dpdk/statctr-dpdk-fwd
STATCTL=$top_builddir/tools/statctl
[ -x "$FWD" ] || skip "examples/dpdk/statctr-dpdk-fwd not built: configure found no libdpdk (Debian: apt-get install libdpdk-dev, then re-run configure)"
IF=.1.3.6.1.2.1.2.2.1
IFX=.1.3.6.1.2.1.31.1.1.1
NIC=$ROOT.3.1.3.1 # statctrData.<segment 1>.<table nic 3>.entry
NPKTS=1000

# The input: NPKTS Ethernet frames of 60..1514 octets (a classic pcap).
OCTETS=$(python3 - "$TMP/in.pcap" "$TMP/empty.pcap" "$NPKTS" <<'PY'
import struct, sys
header = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
open(sys.argv[2], 'wb').write(header)
total = 0
with open(sys.argv[1], 'wb') as f:
    f.write(header)
    for i in range(int(sys.argv[3])):
        n = 60 + (i * 97) % 1455
        frame = bytes.fromhex('020000000001' '020000000002' '0800') + bytes(n - 14)
        f.write(struct.pack('<IIII', 1, i, n, n) + frame)
        total += n
print(total)
PY
) || fail "cannot write the pcap files"
log "input: $NPKTS packets, $OCTETS octets"
# The frames and octets of the classic pcap file $1, on one line.
pcap_frames() {
	python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
o, n, octets = 24, 0, 0
while o < len(d):
    length = struct.unpack_from("<IIII", d, o)[2]
    o, n, octets = o + 16 + length, n + 1, octets + length
print(n, octets)' "$1"
}

# Lcore 0 (main) and 1 (worker) on the first two CPUs this test may use
# (both on one when it has one): a CI container's CPU set need not hold
# CPUs 0 and 1.
LCORES=$(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print("0@%d,1@%d" % (c[0], c[1 % len(c)]))') ||
	fail "cannot read the CPU affinity"
log "EAL --lcores $LCORES"

fx_snmpd
# A symbolic link planted at the old fixed temporary name CONFIG.tmp: never
# written through (the declaration goes through common/safefile.c).
echo precious >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/statctr.conf.tmp"
# The forwarder writes the declaration from its ports, then creates the
# segment; the agent reads the same file.
"$FWD" --no-huge --no-pci --no-shconf --no-telemetry -m 256 --lcores "$LCORES" \
	--log-level=lib.eal:notice --file-prefix "statctr-test-$$" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$TMP/statctr.conf" -P "$TMP/dpdk" -C "$TMP/control" -i 50 -y 1000 >>"$TMP/fwd.log" 2>&1 &
FWD_PID=$!
fx_track "$FWD_PID"
fx_wait 30 grep -q '^ready' "$TMP/fwd.log" || fail "the forwarder did not start within 30 s"
[ "$(cat "$TMP/victim")" = precious ] && [ -L "$TMP/statctr.conf.tmp" ] && [ -f "$TMP/statctr.conf" ] &&
	[ ! -L "$TMP/statctr.conf" ] || fail "the declaration went through the link at statctr.conf.tmp"
printf 'agent = { interval_ms = 100; };\n' >>"$TMP/statctr.conf"
fx_agent

# ifIndex of the interface named $1 (ifName), or nothing.
ifindex_of() { snmp_walk "$IFX.1" | awk -v n="$1" '$2 == n { sub(/.*\./, "", $1); print $1 }'; }
is_if() { [ -n "$(ifindex_of "$1")" ]; }
not_if() { [ -z "$(ifindex_of "$1")" ]; }
expect() { # OID VALUE
	local got
	got=$(snmp_value "$1")
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}
fx_wait 10 is_if net_pcap1 || fail "net_pcap0 and net_pcap1 are not interfaces within 10 s"
IN=$(ifindex_of net_pcap0)
OUT=$(ifindex_of net_pcap1)
log "net_pcap0 is ifIndex $IN, net_pcap1 is ifIndex $OUT"

log "the IF-MIB counters equal the pcap's count exactly"
counted() { [ "$(snmp_value "$IFX.6.$IN")" = "$OCTETS" ] && [ "$(snmp_value "$IFX.10.$OUT")" = "$OCTETS" ]; }
fx_wait 30 counted || fail "ifHCInOctets.$IN/ifHCOutOctets.$OUT did not reach $OCTETS within 30 s"
fx_wait_pass
expect "$IFX.7.$IN" "$NPKTS"    # ifHCInUcastPkts
expect "$IFX.6.$IN" "$OCTETS"   # ifHCInOctets
expect "$IF.11.$IN" "$NPKTS"    # ifInUcastPkts
expect "$IF.10.$IN" "$OCTETS"   # ifInOctets (below 2^32)
expect "$IFX.11.$OUT" "$NPKTS"  # ifHCOutUcastPkts
expect "$IFX.10.$OUT" "$OCTETS" # ifHCOutOctets
expect "$IF.19.$OUT" 0          # ifOutDiscards
expect "$IFX.7.$OUT" 0          # nothing came in on net_pcap1
expect "$IFX.11.$IN" 0          # nor went out of net_pcap0

log "link state, speed, MTU and alias come from the port"
for i in "$IN" "$OUT"; do
	expect "$IF.8.$i" 1       # ifOperStatus up (rte_eth_link_get_nowait)
	expect "$IFX.15.$i" 10000 # ifHighSpeed: net_pcap's 10G, in Mb/s
	expect "$IF.4.$i" 1500    # ifMtu: rte_eth_dev_get_mtu()
done
expect "$IFX.18.$IN" net_pcap0 # ifAlias: the device name
expect "$IF.2.$OUT" "DPDK net_pcap"

log "the NIC's own counts (xstats) beside the application's, over SNMP"
nic_row() { snmp_walk "$NIC.2" | awk -v n="$1" '$2 == n { sub(/.*\./, "", $1); print $1 }'; }
ROW=$(nic_row net_pcap0)
[ -n "$ROW" ] || fail "no row net_pcap0 in the nic table"
nic_col() { # COLUMN-NAME: its sub-identifier 10+c, from the declaration's order
	awk '/name = "nic"/ { t = 1 } t && /kind = "counter"/ { c++ } t && $0 ~ "\"" n "\"" { print 9 + c; exit }' \
		n="$1" "$TMP/statctr.conf"
}
expect "$NIC.$(nic_col rx_good_packets).$ROW" "$NPKTS"
expect "$NIC.$(nic_col rx_good_bytes).$ROW" "$OCTETS"
ROW=$(nic_row net_pcap1)
expect "$NIC.$(nic_col tx_good_packets).$ROW" "$NPKTS"
expect "$NIC.$(nic_col tx_good_bytes).$ROW" "$OCTETS"

log "a vdev attached at run time is an interface until it is detached"
control() { printf '%s\n' "$1" >"$TMP/control.tmp" && mv "$TMP/control.tmp" "$TMP/control"; }
control "attach net_ring7"
fx_wait 15 grep -q '^attached net_ring7' "$TMP/fwd.log" || fail "net_ring7 was not attached within 15 s"
fx_wait 10 is_if net_ring7 || fail "net_ring7 is no interface within 10 s"
HOT=$(ifindex_of net_ring7)
log "net_ring7 is ifIndex $HOT"
[ "$HOT" != "$IN" ] && [ "$HOT" != "$OUT" ] || fail "net_ring7 took ifIndex $HOT of another port"
hot_up() { [ "$(snmp_value "$IF.8.$HOT")" = 1 ]; }
fx_wait 5 hot_up || fail "net_ring7 is not up (ifOperStatus $(snmp_value "$IF.8.$HOT"))"
expect "$IFX.15.$HOT" 10000
log "its link goes down and up (rte_eth_dev_set_link_down/up): ifOperStatus, ifHighSpeed, ifLastChange follow"
before=$(snmp_value "$IF.9.$HOT")
control "link-down net_ring7"
hot_down() { [ "$(snmp_value "$IF.8.$HOT")" = 2 ]; }
fx_wait 10 hot_down || fail "net_ring7 is not down (ifOperStatus $(snmp_value "$IF.8.$HOT"))"
expect "$IFX.15.$HOT" 0
after=$(snmp_value "$IF.9.$HOT")
[ "$after" -gt "$before" ] || fail "ifLastChange did not move at link down: $before, then $after"
control "link-up net_ring7"
fx_wait 10 hot_up || fail "net_ring7 did not come back up"
expect "$IFX.15.$HOT" 10000
control "detach net_ring7"
fx_wait 15 grep -q '^detached net_ring7' "$TMP/fwd.log" || fail "net_ring7 was not detached within 15 s"
fx_wait 10 not_if net_ring7 || fail "net_ring7 is still an interface 10 s after its removal"
control "detach net_pcap0"
fx_wait 15 grep -q '^error: detach net_pcap0' "$TMP/fwd.log" || fail "a forwarded port's detach was not refused"
is_if net_pcap0 || fail "net_pcap0 is gone after a refused detach"
control "attach net_nosuchdriver0"
fx_wait 15 grep -q '^error: attach net_nosuchdriver0' "$TMP/fwd.log" || fail "a bad attach was not refused"

log "a control file is obeyed only when it is a regular file of the forwarder's user, writable by it alone"
# refused_control WHAT: the control file now in place is refused (said, not
# obeyed: net_pcap9 would truncate $TMP/victim), then removed.
refused_control() {
	fx_wait 15 grep -q "^error: control file $TMP/control: $2" "$TMP/fwd.log" ||
		fail "$1: not refused: $(tail -3 "$TMP/fwd.log")"
	fx_wait_pass # polls of the forwarder meanwhile (-i 50)
	! grep -q 'attached net_pcap9' "$TMP/fwd.log" || fail "$1: obeyed"
	[ "$(cat "$TMP/victim")" = precious ] || fail "$1: $TMP/victim was written"
	rm -f "$TMP/control"
	log "$1: $(grep -m 1 "^error: control file $TMP/control: $2" "$TMP/fwd.log")"
}
evil="attach net_pcap9,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/victim"
printf '%s\n' "$evil" >"$TMP/control.tmp"
chmod 0666 "$TMP/control.tmp"
mv "$TMP/control.tmp" "$TMP/control"
refused_control "a control file others may write" "is writable by group or others"
if [ "$(id -u)" = 0 ]; then
	printf '%s\n' "$evil" >"$TMP/control.tmp"
	chown nobody "$TMP/control.tmp"
	mv "$TMP/control.tmp" "$TMP/control"
	refused_control "another user's control file" "belongs to another user"
else
	log "not root: another user's control file is not tried (the 0666 one was)"
fi
ln -s "$TMP/in.pcap" "$TMP/control"
refused_control "a symbolic link at the control path" "is a symbolic link"
control "attach net_nosuchdriver1"
fx_wait 15 grep -q '^error: attach net_nosuchdriver1' "$TMP/fwd.log" ||
	fail "a good control file is not obeyed after the refusals"
# A FIFO at the control path, left there: never opened blocking, so the
# SIGTERM below still ends the forwarder (it used to hang the main lcore).
mkfifo "$TMP/control"
fx_wait 15 grep -q "^error: control file $TMP/control: is not a regular file" "$TMP/fwd.log" ||
	fail "a FIFO at the control path was not refused: $(tail -3 "$TMP/fwd.log")"

log "statctl shows the burst-cycles histogram"
"$STATCTL" show "$TMP/dpdk" queues --buckets >"$TMP/statctl.out" 2>&1 || fail "statctl show failed: $(cat "$TMP/statctl.out")"
grep -q 'queues.burstCycles (cycles)' "$TMP/statctl.out" || fail "no histogram in: $(cat "$TMP/statctl.out")"
"$STATCTL" show -f json "$TMP/dpdk" queues >"$TMP/queues.json" || fail "statctl show -f json failed"
# The queue net_pcap0/rxq0 moved every packet and octet, none dropped, in
# at least NPKTS/32 bursts (32 a burst at most), each in the histogram.
bursts=$(python3 - "$TMP/queues.json" "$NPKTS" "$OCTETS" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
npkts, octets = int(sys.argv[2]), int(sys.argv[3])
rows = [r for r in doc["segments"][0]["tables"][0]["rows"] if r["name"] == "net_pcap0/rxq0"]
assert len(rows) == 1, "no row net_pcap0/rxq0"
v, h = rows[0]["values"], rows[0]["histograms"]["burstCycles"]
assert (v["packets"], v["octets"], v["drops"]) == (npkts, octets, 0), v
assert h["count"] == sum(h["buckets"]) + h["inf"], h
assert -(-npkts // 32) <= h["count"] <= npkts, h
print(h["count"])
PY
) || fail "the queues table disagrees: $(cat "$TMP/queues.json")"
grep -q "^  net_pcap0/rxq0 *$bursts " "$TMP/statctl.out" || fail "statctl's text does not show $bursts bursts: $(cat "$TMP/statctl.out")"
log "histogram: $bursts bursts moved net_pcap0's packets"

# SIGTERM: the forwarder stops its workers, reports and exits 0 (under
# ASan, also without a leak or an error report).
kill -TERM "$FWD_PID"
fwd_gone() { ! kill -0 "$FWD_PID" 2>/dev/null; }
fx_wait 20 fwd_gone || fail "the forwarder did not exit within 20 s of SIGTERM"
rc=0
wait "$FWD_PID" || rc=$?
fx_untrack "$FWD_PID"
[ "$rc" -eq 0 ] || fail "the forwarder exited $rc after SIGTERM"
grep -q '^cycles/packet: ' "$TMP/fwd.log" || fail "the forwarder did not report its cycles per packet"
read -r sent sent_octets <<<"$(pcap_frames "$TMP/out1.pcap")"
[ "$sent" = "$NPKTS" ] || fail "net_pcap1 wrote $sent packets, expected $NPKTS"

log "-t 4: one burst in 4 timed (net_null: every burst 32 packets); -t 0 refused"
tfwd() { # -t VALUE [-d SECONDS]: two net_null ports; the caller's (sub)shell becomes it
	exec "$FWD" --no-huge --no-pci --no-shconf --no-telemetry -m 256 --lcores "$LCORES" \
		--log-level=lib.eal:notice --file-prefix "statctr-t-$$" --vdev net_null0 --vdev net_null1 \
		-- -c "$TMP/t.conf" -P "$TMP/t" -t "$@" >"$TMP/t.log" 2>&1
}
rc=0
(tfwd 0 -d 1) || rc=$?
[ "$rc" -eq 2 ] || fail "-t 0 gave exit $rc, expected 2: $(cat "$TMP/t.log")"
tfwd 4 -d 60 &
T_PID=$!
fx_track "$T_PID"
# Read while it runs (the segment goes with it): a queue's counts lag its
# bursts by at most 15 (FLUSH_BURSTS - 1), the histogram not at all.
t_busy() {
	"$STATCTL" show -f json "$TMP/t" queues >"$TMP/t.json" 2>/dev/null &&
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["segments"][0]["tables"][0]["rows"]; sys.exit(not r or min(x["values"]["packets"] for x in r) < 32 * 400)' "$TMP/t.json"
}
fx_wait 20 t_busy || fail "-t 4: no 400 bursts per queue within 20 s: $(cat "$TMP/t.log")"
kill -TERM "$T_PID"
wait "$T_PID" || fail "the forwarder with -t 4 exited $?: $(cat "$TMP/t.log")"
fx_untrack "$T_PID"
python3 - "$TMP/t.json" <<'PY' || fail "-t 4: the histogram does not hold one burst in 4: $(cat "$TMP/t.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["segments"][0]["tables"][0]["rows"]
for r in rows:
    bursts, timed = r["values"]["packets"] // 32, r["histograms"]["burstCycles"]["count"]
    assert bursts // 4 - 1 <= timed <= (bursts + 15) // 4 + 1, (r["name"], bursts, timed)
    print("%s: %d bursts, %d timed" % (r["name"], bursts, timed))
PY
log "-q 20: a congested tx port takes 20 packets of a burst; the rest are drops, counted and freed"
# The same pcap, net_pcap1's tx capped by a tx callback (rte_eth_add_tx_callback):
# rte_eth_tx_burst() returns what the port refused, as from a full tx ring.
"$FWD" --no-huge --no-pci --no-shconf --no-telemetry -m 256 --lcores "$LCORES" \
	--log-level=lib.eal:notice --file-prefix "statctr-q-$$" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,tx_pcap=$TMP/q0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/q1.pcap" \
	-- -c "$TMP/q.conf" -P "$TMP/q" -q 20 -i 50 -y 1000 >"$TMP/q.log" 2>&1 &
Q_PID=$!
fx_track "$Q_PID"
# Done when the queue counted every packet and the main lcore mirrored
# net_pcap1's own count (its xstats lag by a poll).
q_done() {
	"$STATCTL" show -f json "$TMP/q" >"$TMP/q.json" 2>/dev/null &&
		python3 - "$TMP/q.json" "$NPKTS" <<'PY'
import json, sys
t = {x["name"]: {r["name"]: r["values"] for r in x["rows"]} for x in json.load(open(sys.argv[1]))["segments"][0]["tables"]}
q, n = t["queues"]["net_pcap0/rxq0"], int(sys.argv[2])
sys.exit(not (q["packets"] == n and t["nic"]["net_pcap1"]["tx_good_packets"] == n - q["drops"]))
PY
}
fx_wait 30 q_done || fail "-q 20: the counts did not settle within 30 s: $(cat "$TMP/q.log" "$TMP/q.json")"
kill -TERM "$Q_PID"
q_gone() { ! kill -0 "$Q_PID" 2>/dev/null; }
fx_wait 20 q_gone || fail "the forwarder with -q 20 did not exit within 20 s of SIGTERM"
wait "$Q_PID" || fail "the forwarder with -q 20 exited $?: $(cat "$TMP/q.log")"
fx_untrack "$Q_PID"
grep -q '^mbufs in use: 0$' "$TMP/q.log" || fail "-q 20: refused mbufs leaked: $(grep mbufs "$TMP/q.log")"
# What net_pcap1 wrote is what the port took: the counts must match it exactly.
read -r sent sent_octets <<<"$(pcap_frames "$TMP/q1.pcap")"
python3 - "$TMP/q.json" "$sent" "$sent_octets" "$NPKTS" "$OCTETS" <<'PY' || fail "-q 20: the drops disagree with what net_pcap1 sent"
import json, sys
t = {x["name"]: {r["name"]: r["values"] for r in x["rows"]} for x in json.load(open(sys.argv[1]))["segments"][0]["tables"]}
sent, sent_octets, npkts, octets = (int(a) for a in sys.argv[2:6])
q, rx, tx = t["queues"]["net_pcap0/rxq0"], t["ports"]["net_pcap0"], t["ports"]["net_pcap1"]
assert 0 < sent < npkts, ("nothing or everything was refused", sent)
assert (q["packets"], q["octets"], q["drops"]) == (npkts, octets, npkts - sent), q
assert (rx["rxPackets"], rx["rxOctets"]) == (npkts, octets), rx
assert (tx["txPackets"], tx["txOctets"], tx["txDrops"]) == (sent, sent_octets, npkts - sent), tx
print("sent %d packets, %d octets; %d refused" % (sent, sent_octets, npkts - sent))
PY
log "PASS: $NPKTS packets, $OCTETS octets counted exactly; hot-plug row added and removed; drops counted exactly"
