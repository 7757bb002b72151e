# Fuzz targets (libFuzzer, built and run by tests/fuzz/run.sh with clang)
# and their regression replays: `make check` runs every committed corpus
# input through each target, built here with the normal compiler (and
# under ASan/UBSan in the sanitizer build).  See docs/reliability.md.
FUZZ_REPLAYS = tests/fuzz/replay_config tests/fuzz/replay_view tests/fuzz/replay_set \
	tests/fuzz/replay_mutate
check_PROGRAMS += $(FUZZ_REPLAYS)
TESTS += tests/fuzz/replay.sh
dist_check_SCRIPTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/make_view_seeds.sh tests/fuzz/lsan.supp \
	tests/fuzz/corpus

FUZZ_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/agent -I$(srcdir)/mib
FUZZ_LDADD = mib/libstatctr_mib.la lib/libstatctr_core.la $(LIBCONFIG_LIBS) $(SNMP_LIBS)
FUZZ_AGENT = agent/agent.h agent/oidmap.h agent/oidmap.c
tests_fuzz_replay_config_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_config.c $(FUZZ_AGENT)
tests_fuzz_replay_config_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_replay_config_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_replay_config_LDADD = $(FUZZ_LDADD)
tests_fuzz_replay_view_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_view.c
tests_fuzz_replay_view_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_replay_view_LDADD = lib/libstatctr_core.la $(LIBCONFIG_LIBS)
tests_fuzz_replay_set_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_set.c $(FUZZ_AGENT) \
	agent/aggregate.h agent/aggregate_int.h agent/aggregate.c agent/aggreset.c agent/aggcarry.c \
	agent/aggepoch.h agent/aggepoch.c \
	agent/carry.h agent/carry.c agent/carryrows.c agent/setcheck.h agent/setcheck.c agent/worker.h
tests_fuzz_replay_set_CPPFLAGS = $(FUZZ_CPPFLAGS) -I$(srcdir)/common
tests_fuzz_replay_set_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_replay_set_LDADD = common/libstatctr_common.la $(FUZZ_LDADD)
tests_fuzz_replay_mutate_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_mutate.c
tests_fuzz_replay_mutate_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_replay_mutate_LDADD = lib/libstatctr_core.la $(LIBCONFIG_LIBS)
