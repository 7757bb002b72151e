# libstatctr: the shared-memory counter library.  Everything is built once
# into a convenience library; the installed library exports only statctr_*,
# while the unit tests link the convenience library to reach internals.
noinst_LTLIBRARIES += lib/libstatctr_core.la
lib_libstatctr_core_la_SOURCES = \
	lib/statctr.h lib/layout.h lib/internal.h \
	lib/error.c lib/guard.c lib/config.c lib/proc.c lib/meta.c \
	lib/segment.c lib/slot.c lib/view.c lib/snapshot.c lib/reset.c
lib_libstatctr_core_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
lib_libstatctr_core_la_LIBADD = $(LIBCONFIG_LIBS)

lib_LTLIBRARIES += lib/libstatctr.la
include_HEADERS += lib/statctr.h
lib_libstatctr_la_SOURCES = lib/statctr.h
lib_libstatctr_la_LIBADD = lib/libstatctr_core.la $(LIBCONFIG_LIBS)
lib_libstatctr_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^statctr_'

# The installed header and statctr.pc must be enough to build a program
# (make distcheck runs this against its temporary prefix).
installcheck-local:
	$(AM_V_CC)PKG_CONFIG_PATH='$(DESTDIR)$(libdir)/pkgconfig' PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)' && \
	export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR && \
	$(CC) -std=gnu11 -Wall -Wextra -Werror -o installcheck-reader \
		$(srcdir)/examples/reader.c `$(PKG_CONFIG) --cflags --libs statctr` && \
	LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' ./installcheck-reader -h && \
	rm -f installcheck-reader
