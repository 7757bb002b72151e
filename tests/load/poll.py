#!/usr/bin/env python3
"""poll.py - a pysnmp poller for tests/load/load.sh.

poll.py PORT MODE STOPFILE OID...: until STOPFILE exists (at most 10000
polls), either GETs all OIDs in one PDU (MODE get) or GETBULK-walks each
OID's subtree (MODE walk), pausing $LOAD_POLL_PAUSE seconds (default 0.2)
between polls.  Writes the log format of load.sh to stdout:
"MODE get|walk", then per poll "P n ms" and one "OID TYPE VALUE" line per
varbind; a failed poll (timeout, error status, missing instance) is an
"ERROR ..." line.  Numeric OIDs only, no MIB lookups.  Each request may
take 5 s times the load per CPU (1 to 10), as fx_loaded allows load.sh's
Net-SNMP pollers.
"""
import os
import sys
import time

from pysnmp.hlapi import (CommunityData, ContextData, ObjectIdentity, ObjectType,
                          SnmpEngine, UdpTransportTarget, bulkCmd, getCmd)


def emit(oid, value):
    kind = type(value).__name__
    if kind == 'TimeTicks':
        kind = 'Timeticks'
    print(f".{oid} {kind} {value.prettyPrint()}")


def poll_get(engine, auth, target, oids):
    err, status, _, binds = next(getCmd(
        engine, auth, target, ContextData(),
        *[ObjectType(ObjectIdentity(o)) for o in oids], lookupMib=False))
    if err or status:
        print(f"ERROR get: {err or status.prettyPrint()}")
        return
    for oid, value in binds:
        if type(value).__name__ in ('NoSuchInstance', 'NoSuchObject', 'EndOfMibView'):
            print(f"ERROR get: {oid}: {type(value).__name__}")
        else:
            emit(oid, value)


def poll_walk(engine, auth, target, oids):
    for root in oids:
        for err, status, _, binds in bulkCmd(
                engine, auth, target, ContextData(), 0, 25,
                ObjectType(ObjectIdentity(root)), lexicographicMode=False,
                lookupMib=False):
            if err or status:
                print(f"ERROR walk {root}: {err or status.prettyPrint()}")
                return
            for oid, value in binds:
                emit(oid, value)


def timeout():
    """5 s stretched by the 1-minute load per CPU (1 to 10): fx_loaded."""
    per_cpu = os.getloadavg()[0] / (os.cpu_count() or 1)
    return 5 * min(10, max(1, per_cpu))


def main():
    port, mode, stopfile, oids = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    pause = float(os.environ.get('LOAD_POLL_PAUSE', '0.2'))
    engine = SnmpEngine()
    auth = CommunityData('public', mpModel=1)
    print(f"MODE {mode}")
    for n in range(1, 10001):
        if os.path.exists(stopfile):
            break
        print(f"P {n} {int(time.time() * 1000)}")
        target = UdpTransportTarget(('127.0.0.1', port), timeout=timeout(), retries=0)
        (poll_get if mode == 'get' else poll_walk)(engine, auth, target, oids)
        sys.stdout.flush()
        time.sleep(pause)


if __name__ == '__main__':
    main()
