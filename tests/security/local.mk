# Attack tests (tests/security/*.sh): each plays one party of the threat
# model in docs/security.md (a resetter, a local user, a reader, an SNMP
# client) against real processes and asserts the safe outcome.  They need
# root to create the parties' users; under CI=true a skip is a failure.
SECURITY_TESTS =
TESTS += $(SECURITY_TESTS)
dist_check_SCRIPTS += $(SECURITY_TESTS)
EXTRA_DIST += tests/security/lib.sh
