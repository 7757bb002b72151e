# libstatctr_mib: declaration -> SNMP, linked by statctr-agentx and statctl
# (and the fuzz targets): the OID layout and the fixed objects (oids.h), the
# agent group's settings and check-config (settings.c), the SMI names of a
# configuration's objects (names.c), the generated module (gen.c), the
# notifications the agent sends and their varbinds (notifications.c), and the
# Prometheus names of its columns (promnames.c: statctl's exposition and
# check-config share the rule, as the MIB and check-config do).  No
# Net-SNMP; it reads the libconfig tree libstatctr parsed, never the file.
noinst_LTLIBRARIES += mib/libstatctr_mib.la
mib_libstatctr_mib_la_SOURCES = \
	mib/oids.h mib/objects.h mib/objects.c mib/settings.h mib/settings.c \
	mib/names.h mib/names.c mib/gen.h mib/gen.c \
	mib/ifmib.h mib/ifmib.c mib/ifmibconf.c mib/promnames.h mib/promnames.c \
	mib/notifications.h mib/notifications.c
mib_libstatctr_mib_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)

# STATCTR-MIB: installed in configure's --with-mibdir (default
# $(datadir)/snmp/mibs, Net-SNMP's own directory when the prefix is /usr);
# linted by tests/integration.
dist_mib_DATA = mib/STATCTR-MIB.txt
# RFC 2863's ifTable/ifXTable columns, for tests/unit/test_ifmib.c; its
# linkDown and linkUp with the SNMPv2-MIB nodes they hang from, for
# tests/unit/test_mib.c.
EXTRA_DIST += mib/IF-MIB-objects.list mib/IF-MIB-notifications.excerpt

# The MIB imports SMIv2 base modules that Debian ships only in non-free
# snmp-mibs-downloader; the helper that provides them is installed next to
# the MIB's users, not only kept in the source tree (docs/agent.md).
dist_pkgdata_SCRIPTS = scripts/get-smi-mibs.sh
