# libstatctr: the shared-memory counter library.
lib_LTLIBRARIES += lib/libstatctr.la
include_HEADERS += lib/statctr.h
lib_libstatctr_la_SOURCES = \
	lib/statctr.h lib/layout.h lib/internal.h \
	lib/error.c lib/config.c lib/proc.c lib/meta.c \
	lib/segment.c lib/slot.c lib/view.c lib/snapshot.c lib/reset.c
lib_libstatctr_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
lib_libstatctr_la_LIBADD = $(LIBCONFIG_LIBS)
lib_libstatctr_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^statctr_'
