# statctr-agentx: the AgentX subagent serving libstatctr segments (see docs/agent.md).
sbin_PROGRAMS += agent/statctr-agentx
agent_statctr_agentx_SOURCES = \
	agent/agent.h \
	agent/aggregate.h agent/aggregate_int.h agent/aggregate.c agent/aggreset.c agent/aggcarry.c \
	agent/carry.h agent/carry.c agent/carryrows.c \
	agent/aggepoch.h agent/aggepoch.c \
	agent/oidmap.h agent/oidmap.c \
	agent/setcheck.h agent/setcheck.c \
	agent/timebase.h agent/timebase.c \
	agent/bisect.h agent/encode.h agent/encode.c \
	agent/register.h agent/register.c \
	agent/engine.h agent/engine.c \
	agent/backend_statctr.h agent/backend_statctr.c agent/backend_byname.h agent/backend_byname.c \
	agent/ifindex.h agent/ifindex.c agent/worker.h \
	agent/backend_ifmib.h agent/backend_ifmib.c \
	agent/notify_state.h agent/notify_state.c agent/traps.h agent/traps.c \
	agent/notify.h agent/notify.c \
	agent/privileges.h agent/privileges.c \
	agent/standalone.h agent/standalone.c \
	agent/sinks.h agent/sinks.c \
	agent/serve.h agent/serve.c \
	agent/daemon.h agent/daemon.c \
	agent/readiness.h agent/readiness.c \
	agent/main.c
agent_statctr_agentx_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/mib -I$(srcdir)/common \
	-DSTATCTR_VERSION='"$(PACKAGE_VERSION)"' \
	-DSTATCTR_DEFAULT_CONFIG='"$(sysconfdir)/statctr.conf"'
agent_statctr_agentx_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
agent_statctr_agentx_LDADD = mib/libstatctr_mib.la common/libstatctr_common.la lib/libstatctr.la $(LIBCONFIG_LIBS) \
	$(SNMP_LIBS)
dist_man_MANS += agent/statctr-agentx.8
