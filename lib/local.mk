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
