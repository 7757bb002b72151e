# Attack tests (tests/security/*.sh): each plays one party of the threat
# model in docs/security.md (a resetter, a local user, a reader, an SNMP
# client) against real processes and asserts the safe outcome.  They need
# root to create the parties' users; under CI=true a skip is a failure.
SECURITY_READER_TESTS = tests/security/planted.sh tests/security/statread.sh tests/security/epochs.sh
SECURITY_WRITER_TESTS = tests/security/copy_flood.sh tests/security/resetter.sh
SECURITY_CONFIG_TESTS = tests/security/config.sh tests/security/output.sh tests/security/escape.sh \
	tests/security/statefiles.sh tests/security/names.sh
SECURITY_AGENT_TESTS = tests/security/stuck.sh tests/security/epochfile.sh tests/security/sinks.sh
SECURITY_SNMP_TESTS = tests/security/setorder.sh tests/security/listen.sh tests/security/privdrop.sh \
	tests/security/resetstorm.sh
SECURITY_LIVE_TESTS = tests/security/corrupt_live.sh tests/security/generation_in_place.sh
SECURITY_TESTS = $(SECURITY_READER_TESTS) $(SECURITY_WRITER_TESTS) \
	$(SECURITY_CONFIG_TESTS) $(SECURITY_AGENT_TESTS) $(SECURITY_SNMP_TESTS) \
	$(SECURITY_LIVE_TESTS)
TESTS += $(SECURITY_TESTS)
dist_check_SCRIPTS += $(SECURITY_TESTS)
EXTRA_DIST += tests/security/lib.sh tests/security/getlat.py

# Test programs, one block per area (readers, writer, live corruption).
# --- reader programs ---
# A reader that requires the segment's owner, as the agent may (planted.sh).
check_PROGRAMS += tests/security/open_owned
tests_security_open_owned_SOURCES = tests/security/open_owned.c
tests_security_open_owned_LDADD = lib/libstatctr.la
# --- writer programs ---
# A writer of any configuration's segment (names.sh).
check_PROGRAMS += tests/security/any_writer
tests_security_any_writer_SOURCES = tests/security/any_writer.c
tests_security_any_writer_LDADD = lib/libstatctr.la
check_PROGRAMS += tests/security/copy_flood
tests_security_copy_flood_SOURCES = tests/security/copy_flood.c
tests_security_copy_flood_LDADD = lib/libstatctr.la
# --- live programs ---
# A library reader that keeps one view open under attack (corrupt_live.sh).
check_PROGRAMS += tests/security/live_reader
tests_security_live_reader_SOURCES = tests/security/live_reader.c
tests_security_live_reader_LDADD = lib/libstatctr.la
