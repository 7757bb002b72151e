# Integration tests: real snmpd, statctr-agentx and the example writer
# (tests/integration/fixture.sh).  Each test skips loudly (exit 77) when a
# tool is missing, and fails instead when CI=true.
INTEGRATION_TESTS = \
	tests/integration/smilint.sh \
	tests/integration/values.sh \
	tests/integration/reset.sh \
	tests/integration/restart.sh \
	tests/integration/daemon.sh \
	tests/integration/daemon_restart.sh \
	tests/integration/daemon_ifmib.sh \
	tests/integration/confdir.sh \
	tests/integration/fresh.sh \
	tests/integration/embedded.sh \
	tests/integration/standalone.sh \
	tests/integration/options.sh \
	tests/integration/ops.sh \
	tests/integration/netsnmp_text.sh \
	tests/integration/rows.sh \
	tests/integration/hist.sh \
	tests/integration/ifmib.sh \
	tests/integration/ifgrow.sh \
	tests/integration/linktraps.sh \
	tests/integration/linkstorm.sh \
	tests/integration/msinks.sh \
	tests/integration/disman.sh \
	tests/integration/dpdk.sh \
	tests/integration/cpuslots.sh \
	tests/integration/epochs.sh
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS)
EXTRA_DIST += \
	tests/integration/fixture.sh \
	tests/integration/trapstamp.py \
	tests/integration/trapd.sh \
	tests/integration/perf.sh \
	scripts/get-smi-mibs.sh
# A writer recording known values into histograms (hist.sh).
check_PROGRAMS += tests/integration/hist_writer
tests_integration_hist_writer_SOURCES = tests/integration/hist_writer.c
tests_integration_hist_writer_LDADD = lib/libstatctr.la
# A writer setting exact values by command, for the IF-MIB tables (ifmib.sh).
check_PROGRAMS += tests/integration/ifwriter
tests_integration_ifwriter_SOURCES = tests/integration/ifwriter.c
tests_integration_ifwriter_LDADD = lib/libstatctr.la

# Walk speed of the agent through snmpd, as its own master and of snmpd's
# native objects (docs/agent.md); not part of `make check`.
perf-agent: all
	$(AM_TESTS_ENVIRONMENT) bash $(srcdir)/tests/integration/perf.sh
.PHONY: perf-agent
