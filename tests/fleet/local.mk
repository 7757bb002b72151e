# Fleet integration (tests/fleet/*.sh): statctl's MIB and generator.yml
# through Debian's prometheus-snmp-generator, prometheus-snmp-exporter
# scraping the agent, and a Prometheus server scraping the exporter
# (docs/fleet.md).  Skips loudly without those packages; fails under CI=true.
FLEET_TESTS = tests/fleet/exporter.sh tests/fleet/ifmib.sh tests/fleet/pollers.sh tests/fleet/pollers_restarts.sh \
	tests/fleet/histogram.sh tests/fleet/naming.sh tests/fleet/prom_restarts.sh
TESTS += $(FLEET_TESTS)
dist_check_SCRIPTS += $(FLEET_TESTS)
EXTRA_DIST += tests/fleet/fleet.sh
