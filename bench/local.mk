# bench: `make bench` runs every benchmark (bench/run.sh, docs/PERFORMANCE.md);
# `make bench-quick` (bench/run.sh --quick) is the CI smoke test.  The SNMP
# part needs the agent and the example writer, hence their programs below,
# and compares the agent with bench/ref_subagent on the same snmpd.
# PCP MMV is optional: with HAVE_PCP_MMV (configure) and MMV_LIBS the update
# benchmark compares it, else it says "skipped".
BENCH_BINS = bench/bench_update bench/bench_snapshot bench/bench_memory \
	bench/bench_agent bench/bench_snmpget bench/bench_snmpwalk bench/ref_subagent \
	bench/bench_rows bench/bench_hist bench/bench_epoch
noinst_PROGRAMS += $(BENCH_BINS)
BENCH_HARNESS = bench/harness.h bench/harness.c
# -static: link libstatctr into the program (no libtool wrapper script, so
# valgrind and /proc see the benchmark itself, not a shell).
BENCH_STATIC = -static
bench_bench_update_SOURCES = bench/bench_update.c $(BENCH_HARNESS)
bench_bench_update_LDFLAGS = $(BENCH_STATIC)
bench_bench_update_LDADD = lib/libstatctr.la $(MMV_LIBS) -lm
bench_bench_snapshot_SOURCES = bench/bench_snapshot.c $(BENCH_HARNESS)
bench_bench_snapshot_LDFLAGS = $(BENCH_STATIC)
bench_bench_snapshot_LDADD = lib/libstatctr.la -lm
bench_bench_rows_SOURCES = bench/bench_rows.c $(BENCH_HARNESS)
bench_bench_rows_LDFLAGS = $(BENCH_STATIC)
bench_bench_rows_LDADD = lib/libstatctr.la -lm
bench_bench_epoch_SOURCES = bench/bench_epoch.c $(BENCH_HARNESS)
bench_bench_epoch_LDFLAGS = $(BENCH_STATIC)
bench_bench_epoch_LDADD = lib/libstatctr.la -lm
bench_bench_hist_SOURCES = bench/bench_hist.c $(BENCH_HARNESS)
bench_bench_hist_LDFLAGS = $(BENCH_STATIC)
bench_bench_hist_LDADD = lib/libstatctr.la -lm
bench_bench_memory_SOURCES = bench/bench_memory.c $(BENCH_HARNESS)
bench_bench_memory_LDFLAGS = $(BENCH_STATIC)
bench_bench_memory_LDADD = lib/libstatctr.la -lm
bench_bench_agent_SOURCES = bench/bench_agent.c bench/snmpclient.h bench/snmpclient.c \
	$(BENCH_HARNESS)
bench_bench_agent_LDFLAGS = $(BENCH_STATIC)
bench_bench_agent_LDADD = lib/libstatctr.la $(SNMP_LIBS) -lm
bench_bench_snmpget_SOURCES = bench/bench_snmpget.c bench/snmpclient.h bench/snmpclient.c \
	$(BENCH_HARNESS)
bench_bench_snmpget_LDFLAGS = $(BENCH_STATIC)
bench_bench_snmpget_LDADD = lib/libstatctr.la $(SNMP_LIBS) -lm
bench_bench_snmpwalk_SOURCES = bench/bench_snmpwalk.c bench/snmpclient.h bench/snmpclient.c \
	$(BENCH_HARNESS)
bench_bench_snmpwalk_LDFLAGS = $(BENCH_STATIC)
bench_bench_snmpwalk_LDADD = lib/libstatctr.la $(SNMP_LIBS) -lm
# The reference subagent of the SNMP benchmark: Net-SNMP only, no statctr code.
bench_ref_subagent_SOURCES = bench/ref_subagent.c
bench_ref_subagent_LDADD = $(SNMP_LIBS)
# The Python reader against the C one (bench/bench_python.py): linked with
# the shared library, the one the Python module loads.
noinst_PROGRAMS += bench/bench_python
bench_bench_python_SOURCES = bench/bench_python.c
bench_bench_python_LDADD = lib/libstatctr.la
EXTRA_DIST += bench/bench_python.py
EXTRA_DIST += bench/run.sh bench/snmp.sh bench/ifmib_reach.sh bench/snmp-profile.sh scripts/plot-bench.sh docs/PERFORMANCE.md docs/perf

# The whole suite (< 10 min on 2 CPUs), and the CI smoke test (< 60 s).
bench: $(BENCH_BINS) bench/bench_python examples/pipeline examples/reader $(sbin_PROGRAMS)
	$(SHELL) $(srcdir)/bench/run.sh --build-dir $(abs_top_builddir)
bench-quick: $(BENCH_BINS) bench/bench_python examples/pipeline examples/reader $(sbin_PROGRAMS)
	$(SHELL) $(srcdir)/bench/run.sh --quick --build-dir $(abs_top_builddir)
.PHONY: bench bench-quick
