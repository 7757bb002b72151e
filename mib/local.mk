# STATCTR-MIB: installed for managers and snmpd's MIB path; linted by tests/integration.
mibdir = $(datadir)/snmp/mibs
dist_mib_DATA = mib/STATCTR-MIB.txt
