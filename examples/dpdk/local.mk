# examples/dpdk: statctr-dpdk-fwd, an l2fwd-style DPDK forwarder counting
# with statctr (docs/dpdk.md), built when configure found libdpdk (Debian:
# libdpdk-dev); -nocount is the same source with counting compiled out,
# for bench/dpdk.sh.  tests/integration/dpdk.sh runs it end to end.
DPDK_FWD_SOURCES = examples/dpdk/fwd.h examples/dpdk/main.c examples/dpdk/conf.c \
	examples/dpdk/ports.c examples/dpdk/worker.c
if HAVE_DPDK
noinst_PROGRAMS += examples/dpdk/statctr-dpdk-fwd examples/dpdk/statctr-dpdk-fwd-nocount
endif
examples_dpdk_statctr_dpdk_fwd_SOURCES = $(DPDK_FWD_SOURCES)
examples_dpdk_statctr_dpdk_fwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/common
examples_dpdk_statctr_dpdk_fwd_CFLAGS = $(AM_CFLAGS) $(DPDK_CFLAGS)
# -static: libstatctr linked in (no libtool wrapper: valgrind sees the program).
examples_dpdk_statctr_dpdk_fwd_LDFLAGS = -static
examples_dpdk_statctr_dpdk_fwd_LDADD = common/libstatctr_common.la lib/libstatctr.la $(DPDK_LIBS)
examples_dpdk_statctr_dpdk_fwd_nocount_SOURCES = $(DPDK_FWD_SOURCES)
examples_dpdk_statctr_dpdk_fwd_nocount_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/common -DSTATCTR_DPDK_NO_COUNT
examples_dpdk_statctr_dpdk_fwd_nocount_CFLAGS = $(AM_CFLAGS) $(DPDK_CFLAGS)
examples_dpdk_statctr_dpdk_fwd_nocount_LDFLAGS = -static
examples_dpdk_statctr_dpdk_fwd_nocount_LDADD = common/libstatctr_common.la lib/libstatctr.la $(DPDK_LIBS)
# bench/dpdk.sh: cycles per packet, counting against not counting
# (docs/PERFORMANCE.md); docs/dpdk.md: how the example maps DPDK to statctr.
EXTRA_DIST += bench/dpdk.sh docs/dpdk.md
