# statctr-exporter: the native Prometheus / OpenMetrics endpoint
# (docs/exporter.md): libmicrohttpd for HTTP and TLS, GnuTLS to verify
# client certificates, zlib for gzip, libcrypt for bcrypt.  It links the
# walk and renderer statctl prints with (tools/libstatctl_walk.la) and the
# agent's settings code (mib/), so that its series and its configuration's
# verdict are theirs.
sbin_PROGRAMS += exporter/statctr-exporter
exporter_statctr_exporter_SOURCES = \
	exporter/exporter.h exporter/main.c exporter/collect.c exporter/http.c \
	exporter/webconfig.c
exporter_statctr_exporter_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/tools -I$(srcdir)/mib \
	-I$(srcdir)/common \
	-DSTATCTR_VERSION='"$(PACKAGE_VERSION)"' \
	-DSTATCTR_DEFAULT_CONFIG='"$(sysconfdir)/statctr.conf"'
exporter_statctr_exporter_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS) $(MHD_CFLAGS) \
	$(GNUTLS_CFLAGS) $(ZLIB_CFLAGS)
exporter_statctr_exporter_LDADD = tools/libstatctl_walk.la mib/libstatctr_mib.la \
	common/libstatctr_common.la lib/libstatctr.la $(LIBCONFIG_LIBS) $(MHD_LIBS) \
	$(GNUTLS_LIBS) $(ZLIB_LIBS) $(CRYPT_LIBS)
dist_man_MANS += exporter/statctr-exporter.8

# Its systemd unit, with the configured paths (as the agent's).
systemdunit_DATA += dist/statctr-exporter.service
CLEANFILES += dist/statctr-exporter.service
EXTRA_DIST += dist/statctr-exporter.service.in docs/exporter.md \
	debian/statctr-exporter.install debian/statctr-exporter.docs \
	debian/statctr-exporter.sysusers debian/statctr-exporter.lintian-overrides
dist/statctr-exporter.service: $(srcdir)/dist/statctr-exporter.service.in Makefile
	$(AM_V_GEN)$(subst_unit)

# Its tests (tests/exporter/*.sh), run from the top build directory.
EXPORTER_TESTS = tests/exporter/scrape.sh tests/exporter/prometheus.sh tests/exporter/security.sh \
	tests/exporter/rules.sh tests/exporter/dashboard.sh tests/exporter/epochs.sh
TESTS += $(EXPORTER_TESTS)
dist_check_SCRIPTS += $(EXPORTER_TESTS)
EXTRA_DIST += tests/exporter/lib.sh tests/exporter/rules_test.yml bench/exporter.sh

# Its alert rules and Grafana dashboard, where rule_files can name them.
exporterdatadir = $(datadir)/statctr-exporter
dist_exporterdata_DATA = contrib/prometheus/statctr.rules.yml contrib/grafana/statctr-dashboard.json
