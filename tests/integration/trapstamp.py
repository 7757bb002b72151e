#!/usr/bin/env python3
"""trapstamp.py - stamps each notification snmptrapd prints with its arrival time.

Reads snmptrapd's output (-On -F 'TRAP %P\\t%v\\n': one line per
notification, its PDU and security, then its varbinds, separated by tabs)
on stdin and appends one line per notification to the file given as
argument, flushed at once:

    ARRIVAL_MS NAME IFINDEX OPER HOW  linkDown/linkUp (RFC 2863 varbinds);
                                      HOW: trap-v2c, inform-v2c, inform-v3...
    ARRIVAL_MS OID VALUE...            any other notification: its snmpTrapOID,
                                      then its varbinds' values (quotes removed,
                                      TimeTicks as a number)

for tests/integration/linktraps.sh, which polls the file with deadlines.
"""
import re
import sys
import time

NAMES = {".1.3.6.1.6.3.1.1.5.3": "linkDown", ".1.3.6.1.6.3.1.1.5.4": "linkUp"}
VB = re.compile(r"^(\S+) = (?:[A-Za-z0-9 -]+: )?(.*)$")


def parse(line):
    trap, values = None, []
    fields = line[len("TRAP "):].rstrip("\n").split("\t")
    pdu = fields[0].replace(",", "").split()  # TRAP2 SNMP v2c community public
    how = "%s-%s" % ("inform" if pdu[0] == "INFORM" else "trap", pdu[2] if len(pdu) > 2 else "?")
    for vb in fields[1:]:
        m = VB.match(vb.strip())
        if not m:
            continue
        name, value = m.group(1), m.group(2).strip()
        if value.startswith("("):  # Timeticks: "(1414) 0:00:14.14"
            value = value[1:value.index(")")]
        if name == ".1.3.6.1.6.3.1.1.4.1.0":
            trap = value
        elif name != ".1.3.6.1.2.1.1.3.0":  # sysUpTime.0
            values.append((name, value))
    if trap not in NAMES:
        return " ".join([trap] + [v.replace('"', "") for _, v in values])
    ifindex = oper = "-"
    for name, value in values:
        if name.startswith(".1.3.6.1.2.1.2.2.1.1."):
            ifindex = value
        elif name.startswith(".1.3.6.1.2.1.2.2.1.8."):
            oper = value
    return "%s %s %s %s" % (NAMES[trap], ifindex, oper, how)


def main():
    with open(sys.argv[1], "a") as out:
        for line in sys.stdin:
            now_ms = int(time.time() * 1000)
            if line.startswith("TRAP "):
                out.write("%d %s\n" % (now_ms, parse(line)))
                out.flush()


main()
