#!/usr/bin/env python3
"""getlat.py - SNMP timings for tests/security/resetstorm.sh.

getlat.py get PORT COMMUNITY STOPFILE OID [REF]: GETs OID back to back (a
5 ms pause between; with REF, REF in turn with it), until STOPFILE exists
or 60 s have passed, each with a 5 s timeout; a GET that timed out is sent
once more (as any NMS does), and counted in R.  Creates STOPFILE.ready
after the first.  Prints "n N p50 MS p99 MS max MS errors E retried R" for
OID, and a second such line for REF, where an error is a second timeout,
an error status or a missing instance, and a latency includes the retry.  REF is an object snmpd answers itself
(sysUpTime.0): what delays it too is the machine or snmpd, not the agent.

getlat.py set PORT COMMUNITY OID...: one SET PDU giving each OID the
INTEGER 2 (reset), with a 30 s timeout.  Prints "ms MS status STATUS"
(STATUS noError, an error name, or the transport error).

getlat.py getall PORT COMMUNITY OID...: one GET PDU of every OID, timed and
printed as set does: the same PDU's way through pysnmp, snmpd and AgentX
without the resets, the baseline a SET's time is judged against.
"""
import os
import sys
import time

from pysnmp.hlapi import (CommunityData, ContextData, Integer32, ObjectIdentity, ObjectType,
                          SnmpEngine, UdpTransportTarget, getCmd, setCmd)


def one_pdu(cmd, port, community, oids):
    target = UdpTransportTarget(('127.0.0.1', int(port)), timeout=30, retries=0)
    engine, auth = SnmpEngine(), CommunityData(community, mpModel=1)
    if cmd is setCmd:
        varbinds = [ObjectType(ObjectIdentity(o), Integer32(2)) for o in oids]
    else:
        varbinds = [ObjectType(ObjectIdentity(o)) for o in oids]
    start = time.monotonic()
    err, status, _, _ = next(cmd(engine, auth, target, ContextData(), *varbinds,
                                 lookupMib=False))
    ms = (time.monotonic() - start) * 1000
    print(f"ms {ms:.0f} status {err or (status.prettyPrint() if status else 'noError')}")


def summary(lat, errors, retried):
    lat = sorted(lat)
    if not lat:
        return "n 0 p50 0 p99 0 max 0 errors 0 retried 0"
    p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    return (f"n {len(lat)} p50 {p50:.1f} p99 {p99:.1f} max {lat[-1]:.1f} errors {errors}"
            f" retried {retried}")


def get_once(engine, auth, target, oid):
    """One GET of @oid: (transport error, error status, varbinds)."""
    err, status, _, binds = next(getCmd(engine, auth, target, ContextData(),
                                        ObjectType(ObjectIdentity(oid)), lookupMib=False))
    return err, status, binds


def get_loop(port, community, stopfile, *oids):
    engine = SnmpEngine()
    auth = CommunityData(community, mpModel=1)
    target = UdpTransportTarget(('127.0.0.1', int(port)), timeout=5, retries=0)
    lat = {oid: [] for oid in oids}
    errors = {oid: 0 for oid in oids}
    retried = {oid: 0 for oid in oids}
    deadline, first = time.monotonic() + 60, True
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        for oid in oids:
            start = time.monotonic()
            err, status, binds = get_once(engine, auth, target, oid)
            if err:
                retried[oid] += 1
                err, status, binds = get_once(engine, auth, target, oid)
            lat[oid].append((time.monotonic() - start) * 1000)
            if err or status or type(binds[0][1]).__name__ in ('NoSuchInstance',
                                                                'NoSuchObject'):
                errors[oid] += 1
        if first:
            open(stopfile + ".ready", "w").close()
            first = False
        time.sleep(0.005)
    for oid in oids:
        print(summary(lat[oid], errors[oid], retried[oid]))


if sys.argv[1] in ("set", "getall"):
    one_pdu(setCmd if sys.argv[1] == "set" else getCmd, sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    get_loop(*sys.argv[2:])
