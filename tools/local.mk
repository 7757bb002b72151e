# libstatctl_walk: the walk over a snapshot's tables, the Prometheus
# renderer and the quoting, which statctl (show/list -f prometheus) and
# statctr-exporter share so that both print the same series (walk.h).
noinst_LTLIBRARIES += tools/libstatctl_walk.la
tools_libstatctl_walk_la_SOURCES = tools/walk.h tools/walk.c tools/render_prom.c tools/escape.c
tools_libstatctl_walk_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/mib -I$(srcdir)/common

# statctl: the operator's command line, its tests, its man pages and the
# systemd unit of the agent.
bin_PROGRAMS += tools/statctl
tools_statctl_SOURCES = \
	tools/statctl.h tools/statctl.c tools/discover.c \
	tools/render_text.c tools/render_json.c \
	tools/cmd_show.c tools/watch.c tools/cmd_reset.c tools/cmd_config.c \
	tools/cmd_exporter.c tools/exporter.h tools/exporter_relabel.c \
	tools/exporter_ifmib.c tools/cmd_epoch.c tools/cmd_notify.c
tools_statctl_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/mib -I$(srcdir)/common
tools_statctl_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
tools_statctl_LDADD = tools/libstatctl_walk.la mib/libstatctr_mib.la common/libstatctr_common.la \
	lib/libstatctr.la $(LIBCONFIG_LIBS)

dist_man_MANS += docs/man/statctl.1 docs/man/statctr.3 docs/man/statctr.conf.5

# Where bash-completion loads completions on demand (pkg-config
# bash-completion's completionsdir, under $(datadir) so that distcheck
# stays inside its prefix).
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = dist/bash-completion/statctl

# Tests of statctl (tests/tools/*.sh), run from the top build directory.
TOOLS_TESTS = \
	tests/tools/cli.sh tests/tools/show.sh tests/tools/reset.sh \
	tests/tools/watch.sh tests/tools/check_config.sh tests/tools/mib.sh \
	tests/tools/verdicts.sh \
	tests/tools/snmptable.sh tests/tools/textfile.sh tests/tools/exporter_config.sh \
	tests/tools/completion.sh tests/tools/rows.sh tests/tools/hist.sh tests/tools/hist_epochs.sh tests/tools/cpuslots.sh \
	tests/tools/epochs.sh tests/tools/notifications.sh tests/tools/fields.sh
TESTS += $(TOOLS_TESTS)
# promtool's style lint against check-config's warnings (tests/integration/ifwriter writes).
TESTS += tests/tools/promlint.sh
dist_check_SCRIPTS += tests/tools/promlint.sh
# A writer of known histogram values (hist.sh).
check_PROGRAMS += tests/tools/hist_rec
tests_tools_hist_rec_SOURCES = tests/tools/hist_rec.c
tests_tools_hist_rec_LDADD = lib/libstatctr.la
# A writer of known counts in CPU slots (cpuslots.sh).
check_PROGRAMS += tests/tools/cpu_rec
tests_tools_cpu_rec_SOURCES = tests/tools/cpu_rec.c
tests_tools_cpu_rec_LDADD = lib/libstatctr.la
dist_check_SCRIPTS += $(TOOLS_TESTS)
EXTRA_DIST += \
	tests/tools/lib.sh tests/tools/formats.py tests/tools/watch_tty.py tests/tools/corpus \
	tests/tools/tricky.conf \
	docs/statctl.md docs/fleet.md dist/statctr-agentx.service.in

# The agent's systemd unit, with the configured paths.  Installed under
# $(prefix) so that `make distcheck` stays inside its prefix; packagers set
# systemdunitdir=/lib/systemd/system (or use pkg-config systemd).
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = dist/statctr-agentx.service
CLEANFILES += dist/statctr-agentx.service
# A unit from its template $(srcdir)/$@.in, with the configured paths (exporter/local.mk's too).
subst_unit = $(MKDIR_P) dist && sed \
	-e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	$(srcdir)/$@.in >$@.tmp && mv $@.tmp $@
dist/statctr-agentx.service: $(srcdir)/dist/statctr-agentx.service.in Makefile
	$(AM_V_GEN)$(subst_unit)
