# Integration tests: real snmpd, statctr-agentx and the example writer
# (tests/integration/fixture.sh).  Each test skips loudly (exit 77) when a
# tool is missing, and fails instead when CI=true.
INTEGRATION_TESTS = \
	tests/integration/smilint.sh \
	tests/integration/values.sh \
	tests/integration/reset.sh \
	tests/integration/restart.sh \
	tests/integration/embedded.sh \
	tests/integration/standalone.sh \
	tests/integration/options.sh \
	tests/integration/ops.sh \
	tests/integration/rows.sh
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS)
EXTRA_DIST += \
	tests/integration/fixture.sh \
	tests/integration/perf.sh \
	scripts/get-smi-mibs.sh
# Walk speed of the agent through snmpd, as its own master and of snmpd's
# native objects (docs/agent.md); not part of `make check`.
perf-agent: all
	$(AM_TESTS_ENVIRONMENT) bash $(srcdir)/tests/integration/perf.sh
.PHONY: perf-agent
