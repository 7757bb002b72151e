# libstatctr: the shared-memory counter library.  Everything is built once
# into a convenience library; the installed library exports only statctr_*,
# while the unit tests link the convenience library to reach internals.
noinst_LTLIBRARIES += lib/libstatctr_core.la
lib_libstatctr_core_la_SOURCES = \
	lib/statctr.h lib/layout.h lib/internal.h \
	common/errmsg.h common/errmsg.c lib/error.c lib/guard.c lib/confread.h lib/confread.c lib/config.c lib/proc.c lib/meta.c \
	lib/confhist.c lib/hist.c lib/segment.c lib/slot.c lib/cpuslot.c lib/numa.c lib/mapfile.c lib/rows.c lib/view.c lib/snapshot.c lib/reset.c lib/epochfile.h lib/epochfile.c lib/epoch.c
lib_libstatctr_core_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
lib_libstatctr_core_la_LIBADD = $(LIBCONFIG_LIBS)

lib_LTLIBRARIES += lib/libstatctr.la
include_HEADERS += lib/statctr.h
# statctr.h's inline machinery, installed beside it as <statctr/...> and
# included by it alone (as librseq's per-architecture headers).
statctrincludedir = $(includedir)/statctr
statctrinclude_HEADERS = lib/statctr/slot.h lib/statctr/hist.h lib/statctr/cpu.h \
	lib/statctr/rseq-x86_64.h
lib_libstatctr_la_SOURCES = lib/statctr.h
lib_libstatctr_la_LIBADD = lib/libstatctr_core.la $(LIBCONFIG_LIBS)
# The exported symbols and their versions: lib/libstatctr.map (docs/abi.md).
lib_libstatctr_la_LDFLAGS = -version-info 1:0:0 -Wl,--version-script=$(srcdir)/lib/libstatctr.map
lib_libstatctr_la_DEPENDENCIES = lib/libstatctr_core.la $(srcdir)/lib/libstatctr.map
EXTRA_DIST += lib/libstatctr.map

# -export-symbols-regex shapes only the shared object: libtool puts the
# convenience library's objects into lib/.libs/libstatctr.a as they are,
# with every internal helper global (errmsg_set, meta_init, ...), free to
# collide with a static user's own names.  So, once libstatctr.la is built,
# its archive becomes one object, partially linked (ld -r) from all of them
# and with every global but statctr_* made local; `make install` copies
# that archive, and tests/style/exports.sh checks both libraries' symbols.
OBJCOPY = objcopy
CLEANFILES += lib/libstatctr-a.stamp
all-local: lib/libstatctr-a.stamp
lib/libstatctr-a.stamp: lib/libstatctr.la
	$(AM_V_GEN)set -e; a=lib/.libs/libstatctr.a; o=lib/.libs/libstatctr-prefix.o; \
	if test -f $$a; then \
		rm -f $$o $$a.new; \
		$(LD) -r -o $$o --whole-archive $$a; \
		$(OBJCOPY) -w --keep-global-symbol='statctr_*' $$o; \
		$(AR) cr $$a.new $$o; $(RANLIB) $$a.new; mv -f $$a.new $$a; rm -f $$o; \
	fi; touch $@

# The installed header and statctr.pc must be enough to build a program
# (make distcheck runs this against its temporary prefix).
installcheck-local:
	$(AM_V_CC)PKG_CONFIG_PATH='$(DESTDIR)$(libdir)/pkgconfig' PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)' && \
	export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR && \
	$(CC) -std=gnu11 -Wall -Wextra -Werror -o installcheck-reader \
		$(srcdir)/examples/reader.c `$(PKG_CONFIG) --cflags --libs statctr` && \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' ./installcheck-reader -h && \
	rm -f installcheck-reader
