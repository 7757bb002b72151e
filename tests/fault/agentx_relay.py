#!/usr/bin/env python3
"""agentx_relay.py LISTEN MASTER LOG HOLD [DELAY]: an AgentX relay for tests.

Accepts subagents on the unix socket LISTEN and connects each to the master
at the unix socket MASTER.  Every PDU a subagent sends is logged to LOG as
"TYPE PACKETID" (RFC 2741 6.1: the header's h.type and h.packetID) when it
arrives, then forwarded.  While the file HOLD exists nothing is forwarded in
either direction: a master that answers nothing, with the subagent's PDUs
still counted as they come.  While the file DELAY exists, what the master
sends reaches the subagent that many seconds (the file's content, a decimal
number) after it came, in order: a master whose every message, each with its
sysUpTime, is late.  With DELAY given, each PDU of the master is logged to LOG
when it was handed on, as "< TYPE PACKETID SECONDS-LATE".
"""
import os
import queue
import socket
import struct
import sys
import threading
import time

HEADER = 20  # version, type, flags, reserved, sessionID, transactionID, packetID, length
NETWORK_BYTE_ORDER = 0x10


def held(hold):
    while os.path.exists(hold):
        time.sleep(0.01)


def pdus(buf):
    """The whole PDUs at the start of buf, and the rest."""
    out = []
    while len(buf) >= HEADER:
        order = ">" if buf[2] & NETWORK_BYTE_ORDER else "<"
        length = struct.unpack(order + "I", buf[16:20])[0]
        if len(buf) < HEADER + length:
            break
        out.append(buf[:HEADER + length])
        buf = buf[HEADER + length:]
    return out, buf


def from_subagent(sub, master, log, hold):
    buf = b""
    while True:
        data = sub.recv(65536)
        if not data:
            master.shutdown(socket.SHUT_WR)
            return
        whole, buf = pdus(buf + data)
        for pdu in whole:
            order = ">" if pdu[2] & NETWORK_BYTE_ORDER else "<"
            packet_id = struct.unpack(order + "I", pdu[12:16])[0]
            log.write("%d %d\n" % (pdu[1], packet_id))
            log.flush()
        for pdu in whole:
            held(hold)
            master.sendall(pdu)


def delay_of(delay):
    try:
        with open(delay, encoding="ascii") as f:
            return float(f.read())
    except (OSError, ValueError):
        return 0.0


def from_master(master, sub, log, hold, delay):
    line = queue.Queue()
    threading.Thread(target=to_subagent, args=(line, sub, log, hold, delay), daemon=True).start()
    buf = b""
    while True:
        data = master.recv(65536)
        late = delay_of(delay) if delay else 0.0
        if not data:
            line.put((time.monotonic() + late, late, b""))
            return
        whole, buf = pdus(buf + data)
        for pdu in whole:
            line.put((time.monotonic() + late, late, pdu))


def to_subagent(line, sub, log, hold, delay):
    while True:
        due, late, pdu = line.get()
        time.sleep(max(0.0, due - time.monotonic()))
        if not pdu:
            sub.shutdown(socket.SHUT_WR)
            return
        held(hold)
        sub.sendall(pdu)
        if delay:
            order = ">" if pdu[2] & NETWORK_BYTE_ORDER else "<"
            log.write("< %d %d %.1f\n" % (pdu[1], struct.unpack(order + "I", pdu[12:16])[0], late))
            log.flush()


def main():
    listen, master_path, log_path, hold = sys.argv[1:5]
    delay = sys.argv[5] if len(sys.argv) > 5 else None
    log = open(log_path, "a", encoding="ascii")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(listen)
    server.listen(4)
    while True:
        sub, _ = server.accept()
        master = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        master.connect(master_path)
        threading.Thread(target=from_subagent, args=(sub, master, log, hold), daemon=True).start()
        threading.Thread(target=from_master, args=(master, sub, log, hold, delay), daemon=True).start()


if __name__ == "__main__":
    main()
