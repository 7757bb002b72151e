# Fault-injection tests (tests/fault/*.sh): the fixture's snmpd, agent and
# writers, with one component killed, stopped, truncated or misconfigured
# at a time.  Each asserts outcomes within bounded time; see
# docs/reliability.md.
FAULT_TESTS = \
	tests/fault/snmpd_restarts.sh \
	tests/fault/writer_torn.sh \
	tests/fault/writer_restarts.sh \
	tests/fault/carry_over.sh \
	tests/fault/carry_hist.sh \
	tests/fault/carry_dyn.sh \
	tests/fault/carry_restart.sh \
	tests/fault/daemon_carry_restart.sh \
	tests/fault/truncate.sh \
	tests/fault/agent_restart.sh \
	tests/fault/sighup.sh \
	tests/fault/daemon_agent_restart.sh \
	tests/fault/daemon_sighup.sh \
	tests/fault/sigstop.sh \
	tests/fault/send_once.sh \
	tests/fault/slow_reset.sh \
	tests/fault/timebase_latency.sh \
	tests/fault/vanish.sh \
	tests/fault/privileges.sh \
	tests/fault/valgrind.sh
TESTS += $(FAULT_TESTS)
dist_check_SCRIPTS += $(FAULT_TESTS)
EXTRA_DIST += tests/fault/lib.sh tests/fault/valgrind.supp tests/fault/lsan.supp \
	tests/fault/agentx_relay.py

# A writer that stops inside a transaction (writer_torn.sh).
check_PROGRAMS += tests/fault/txn_writer
tests_fault_txn_writer_SOURCES = tests/fault/txn_writer.c
tests_fault_txn_writer_LDADD = lib/libstatctr.la

# An LD_PRELOAD fault for the agent: a reset that stalls once (slow_reset.sh).
# -rpath makes libtool build it shared (tests/fault/.libs/slowlock.so).
check_LTLIBRARIES = tests/fault/slowlock.la
tests_fault_slowlock_la_SOURCES = tests/fault/slowlock.c
tests_fault_slowlock_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)
tests_fault_slowlock_la_LIBADD = -ldl

# An LD_PRELOAD fault for readers: a segment removed as it is opened (vanish.sh).
check_LTLIBRARIES += tests/fault/vanish.la
tests_fault_vanish_la_SOURCES = tests/fault/vanish.c
tests_fault_vanish_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)
tests_fault_vanish_la_LIBADD = -ldl
