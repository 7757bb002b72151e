# Sustained load test (tests/load/load.sh): writers, 8 pollers and resets
# for LOAD_SECONDS (default 60) against snmpd and the agent.  Part of `make
# check`; `make load-test LOAD_SECONDS=600` runs it longer.
TESTS += tests/load/load.sh
dist_check_SCRIPTS += tests/load/load.sh
EXTRA_DIST += tests/load/poll.py tests/load/check.py
load-test: all
	$(AM_TESTS_ENVIRONMENT) bash $(srcdir)/tests/load/load.sh
.PHONY: load-test
