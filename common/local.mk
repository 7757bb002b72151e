# libstatctr_common: code statctl and the agent share that is not SNMP
# (mib/) and not the counter library (lib/): the error channel (which the
# library compiles in too, hidden behind statctr_errmsg()); the safe-file module through
# which every file either writes, and the agent reads back, goes; the
# service manager's readiness protocol the daemons speak.
noinst_LTLIBRARIES += common/libstatctr_common.la
common_libstatctr_common_la_SOURCES = common/errmsg.h common/errmsg.c \
	common/safefile.h common/safefile.c \
	common/sdnotify.h common/sdnotify.c
