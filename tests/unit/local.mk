# CUnit suites, one per library module.
UNIT_TESTS = \
	tests/unit/test_config \
	tests/unit/test_segment \
	tests/unit/test_writer \
	tests/unit/test_snapshot \
	tests/unit/test_tear \
	tests/unit/test_reset \
	tests/unit/test_epoch \
	tests/unit/test_epochfile \
	tests/unit/test_meta \
	tests/unit/test_mapfile \
	tests/unit/test_view \
	tests/unit/test_guard \
	tests/unit/test_slot \
	tests/unit/test_confread \
	tests/unit/test_confhist \
	tests/unit/test_error \
	tests/unit/test_proc \
	tests/unit/test_numa \
	tests/unit/test_stress \
	tests/unit/test_hostile \
	tests/unit/test_rows \
	tests/unit/test_hist \
	tests/unit/test_cpuslots \
	tests/unit/test_mib \
	tests/unit/test_ifmib \
	tests/unit/test_safefile
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
# What a package build runs (debian/rules' dh_auto_test): the suites whose
# outcome depends on nothing but the code - no thread or process racing
# another for a time, no rate or share measured - so that a build on a
# loaded build host is never a coin toss.  The others run in the project's
# CI, beside CPU hogs too (scripts/test.sh --busy).
PACKAGE_TESTS = \
	tests/unit/test_config \
	tests/unit/test_segment \
	tests/unit/test_writer \
	tests/unit/test_mib \
	tests/unit/test_ifmib \
	tests/unit/test_safefile
UNIT_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
UNIT_LDADD = lib/libstatctr_core.la $(CUNIT_LIBS)
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/testutil.h
tests_unit_test_config_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_config_LDADD = $(UNIT_LDADD)
tests_unit_test_segment_SOURCES = tests/unit/test_segment.c tests/unit/testutil.h
tests_unit_test_segment_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_segment_LDADD = $(UNIT_LDADD)
tests_unit_test_writer_SOURCES = tests/unit/test_writer.c tests/unit/testutil.h
tests_unit_test_writer_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_writer_LDADD = $(UNIT_LDADD)
tests_unit_test_snapshot_SOURCES = tests/unit/test_snapshot.c tests/unit/testutil.h
tests_unit_test_snapshot_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_snapshot_LDADD = $(UNIT_LDADD)
tests_unit_test_tear_SOURCES = tests/unit/test_tear.c tests/unit/testutil.h
tests_unit_test_tear_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tear_LDADD = $(UNIT_LDADD)
tests_unit_test_reset_SOURCES = tests/unit/test_reset.c tests/unit/testutil.h
tests_unit_test_reset_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_reset_LDADD = $(UNIT_LDADD)
tests_unit_test_epoch_SOURCES = tests/unit/test_epoch.c tests/unit/epochutil.h tests/unit/testutil.h
tests_unit_test_epoch_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_epoch_LDADD = $(UNIT_LDADD)
tests_unit_test_epochfile_SOURCES = tests/unit/test_epochfile.c tests/unit/epochutil.h tests/unit/testutil.h
tests_unit_test_epochfile_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_epochfile_LDADD = $(UNIT_LDADD)
tests_unit_test_meta_SOURCES = tests/unit/test_meta.c tests/unit/corruptutil.h tests/unit/testutil.h
tests_unit_test_meta_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_meta_LDADD = $(UNIT_LDADD)
tests_unit_test_mapfile_SOURCES = tests/unit/test_mapfile.c tests/unit/corruptutil.h tests/unit/testutil.h
tests_unit_test_mapfile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mapfile_LDADD = $(UNIT_LDADD)
tests_unit_test_view_SOURCES = tests/unit/test_view.c tests/unit/corruptutil.h tests/unit/testutil.h
tests_unit_test_view_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_view_LDADD = $(UNIT_LDADD)
tests_unit_test_guard_SOURCES = tests/unit/test_guard.c tests/unit/corruptutil.h tests/unit/testutil.h
tests_unit_test_guard_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_guard_LDADD = $(UNIT_LDADD)
tests_unit_test_slot_SOURCES = tests/unit/test_slot.c tests/unit/testutil.h
tests_unit_test_slot_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_slot_LDADD = $(UNIT_LDADD)
tests_unit_test_stress_SOURCES = tests/unit/test_stress.c tests/unit/testutil.h
tests_unit_test_stress_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stress_LDADD = $(UNIT_LDADD)
tests_unit_test_hostile_SOURCES = tests/unit/test_hostile.c tests/unit/testutil.h
tests_unit_test_hostile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_hostile_LDADD = $(UNIT_LDADD)
tests_unit_test_rows_SOURCES = tests/unit/test_rows.c tests/unit/testutil.h
tests_unit_test_rows_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rows_LDADD = $(UNIT_LDADD)
tests_unit_test_hist_SOURCES = tests/unit/test_hist.c tests/unit/testutil.h
tests_unit_test_hist_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_hist_LDADD = $(UNIT_LDADD)
tests_unit_test_cpuslots_SOURCES = tests/unit/test_cpuslots.c tests/unit/testutil.h
tests_unit_test_cpuslots_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cpuslots_LDADD = $(UNIT_LDADD)

tests_unit_test_confread_SOURCES = tests/unit/test_confread.c tests/unit/confutil.h tests/unit/testutil.h
tests_unit_test_confread_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_confread_LDADD = $(UNIT_LDADD)
tests_unit_test_confhist_SOURCES = tests/unit/test_confhist.c tests/unit/confutil.h tests/unit/testutil.h
tests_unit_test_confhist_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_confhist_LDADD = $(UNIT_LDADD)
tests_unit_test_error_SOURCES = tests/unit/test_error.c tests/unit/testutil.h
tests_unit_test_error_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_error_LDADD = $(UNIT_LDADD)
tests_unit_test_proc_SOURCES = tests/unit/test_proc.c tests/unit/testutil.h
tests_unit_test_proc_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_proc_LDADD = $(UNIT_LDADD)
tests_unit_test_numa_SOURCES = tests/unit/test_numa.c tests/unit/testutil.h
tests_unit_test_numa_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_numa_LDADD = $(UNIT_LDADD)

# mib/: the fixed-object table against STATCTR-MIB.txt, the agent group's keys.
tests_unit_test_mib_SOURCES = tests/unit/test_mib.c tests/unit/testutil.h
tests_unit_test_mib_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/mib
tests_unit_test_mib_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_mib_LDADD = mib/libstatctr_mib.la $(UNIT_LDADD)
# mib/ifmib.c: the IF-MIB object table and the mapping rules of check-config.
tests_unit_test_ifmib_SOURCES = tests/unit/test_ifmib.c tests/unit/testutil.h
tests_unit_test_ifmib_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/mib
tests_unit_test_ifmib_CFLAGS = $(UNIT_CFLAGS) $(LIBCONFIG_CFLAGS)
tests_unit_test_ifmib_LDADD = mib/libstatctr_mib.la $(UNIT_LDADD)

# statctr.h from C++23: the fast path and a snapshot, against the shared library.
check_PROGRAMS += tests/unit/test_cxx
TESTS += tests/unit/test_cxx
tests_unit_test_cxx_SOURCES = tests/unit/test_cxx.cc
tests_unit_test_cxx_CXXFLAGS = -std=c++23 -Wall -Wextra -Werror $(SAN_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_cxx_LDADD = lib/libstatctr.la
# common/safefile.c (linked by statctl and the agent).
tests_unit_test_safefile_SOURCES = tests/unit/test_safefile.c tests/unit/testutil.h
tests_unit_test_safefile_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/common
tests_unit_test_safefile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_safefile_LDADD = common/libstatctr_common.la $(UNIT_LDADD)
