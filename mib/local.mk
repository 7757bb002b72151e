# STATCTR-MIB: installed in configure's --with-mibdir (default
# $(datadir)/snmp/mibs, Net-SNMP's own directory when the prefix is /usr);
# linted by tests/integration.
dist_mib_DATA = mib/STATCTR-MIB.txt

# The MIB imports SMIv2 base modules that Debian ships only in non-free
# snmp-mibs-downloader; the helper that provides them is installed next to
# the MIB's users, not only kept in the source tree (docs/agent.md).
dist_pkgdata_SCRIPTS = scripts/get-smi-mibs.sh
