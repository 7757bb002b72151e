#!/usr/bin/env python3
"""getlat.py - SNMP timings for tests/security/resetstorm.sh.

getlat.py get PORT COMMUNITY STOPFILE OID: GETs OID back to back (a 5 ms
pause between), until STOPFILE exists or 60 s have passed, each with a 5 s
timeout and no retry; creates STOPFILE.ready after the first.  Prints
"n N p50 MS p99 MS max MS errors E", where an error is a timeout, an error
status or a missing instance.

getlat.py set PORT COMMUNITY OID...: one SET PDU giving each OID the
INTEGER 2 (reset), with a 30 s timeout.  Prints "ms MS status STATUS"
(STATUS noError, an error name, or the transport error).
"""
import os
import sys
import time

from pysnmp.hlapi import (CommunityData, ContextData, Integer32, ObjectIdentity, ObjectType,
                          SnmpEngine, UdpTransportTarget, getCmd, setCmd)


def set_all(port, community, oids):
    target = UdpTransportTarget(('127.0.0.1', int(port)), timeout=30, retries=0)
    engine, auth = SnmpEngine(), CommunityData(community, mpModel=1)
    varbinds = [ObjectType(ObjectIdentity(o), Integer32(2)) for o in oids]
    start = time.monotonic()
    err, status, _, _ = next(setCmd(engine, auth, target, ContextData(), *varbinds,
                                    lookupMib=False))
    ms = (time.monotonic() - start) * 1000
    print(f"ms {ms:.0f} status {err or (status.prettyPrint() if status else 'noError')}")


def get_loop(port, community, stopfile, oid):
    engine = SnmpEngine()
    auth = CommunityData(community, mpModel=1)
    target = UdpTransportTarget(('127.0.0.1', int(port)), timeout=5, retries=0)
    lat, errors, deadline = [], 0, time.monotonic() + 60
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        start = time.monotonic()
        err, status, _, binds = next(getCmd(engine, auth, target, ContextData(),
                                            ObjectType(ObjectIdentity(oid)), lookupMib=False))
        lat.append((time.monotonic() - start) * 1000)
        if err or status or type(binds[0][1]).__name__ in ('NoSuchInstance', 'NoSuchObject'):
            errors += 1
        if len(lat) == 1:
            open(stopfile + ".ready", "w").close()
        time.sleep(0.005)
    lat.sort()
    if not lat:
        print("n 0 p50 0 p99 0 max 0 errors 0")
        return
    p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"n {len(lat)} p50 {p50:.1f} p99 {p99:.1f} max {lat[-1]:.1f} errors {errors}")


if sys.argv[1] == "set":
    set_all(sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    get_loop(*sys.argv[2:6])
