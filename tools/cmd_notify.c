/*
 * cmd_notify.c - statctl notifications: the agent's notification counters,
 * as it keeps them for statctl in STATE_FILE.notifications (docs/agent.md,
 * "Notification counters").
 *
 * Owns the reading of that file: once, through safefile_read_shown() (a
 * regular file, not a link, not group- or other-writable, of root, this
 * user or the owner of its directory), parsed in private memory; a line
 * that is not "KEY NUMBER" is an error naming FILE:LINE.  Never writes,
 * never talks SNMP, never opens a segment.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "safefile.h"
#include "settings.h"
#include "statctl.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FILE 4096 /* five short lines; more is not the agent's file */

static const char notify_help[] =
    "\nPrints the notification counters of the statctr-agentx whose agent.state_file\n"
    "is STATE_FILE, or that of the configuration given with -c: notifications sent\n"
    "(to the master, or with -M to the trap sinks), suppressed by a hold-down, and\n"
    "lost (due while no master or sink could take them); and the agent's pid.\n"
    "The same counters as STATCTR-MIB's statctrNotificationsSent, -Suppressed and\n"
    "-Lost, as of the agent's last aggregation pass.\n";

/* The file's keys: where each value goes, and whether it was seen. */
struct agent_counts {
	uint64_t pid, started, sent, suppressed, lost;
};

static const struct {
	const char *key;
	size_t offset;
} count_keys[] = {
    {"pid", offsetof(struct agent_counts, pid)},
    {"started", offsetof(struct agent_counts, started)},
    {"sent", offsetof(struct agent_counts, sent)},
    {"suppressed", offsetof(struct agent_counts, suppressed)},
    {"lost", offsetof(struct agent_counts, lost)},
};
#define NKEYS (sizeof(count_keys) / sizeof(count_keys[0]))

/* One "KEY NUMBER" line into @c; unknown keys are left for later versions. */
static int parse_line(const char *file, unsigned line, char *text, struct agent_counts *c,
                      unsigned *seen)
{
	char *space = strchr(text, ' '), *end;
	unsigned long long v;

	if (!space || space[1] < '0' || space[1] > '9')
		goto bad;
	*space = '\0';
	errno = 0;
	v = strtoull(space + 1, &end, 10);
	if (errno || *end != '\0')
		goto bad;
	for (size_t k = 0; k < NKEYS; k++) {
		if (strcmp(text, count_keys[k].key) != 0)
			continue;
		*(uint64_t *)((char *)c + count_keys[k].offset) = v;
		*seen |= 1u << k;
	}
	return 0;
bad:
	error_msg("%s:%u: not a line \"KEY NUMBER\" of the agent's counters", file, line);
	return -EINVAL;
}

static int parse_counts(const char *file, char *buf, struct agent_counts *c)
{
	unsigned line = 0, seen = 0;

	for (char *p = buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			error_msg("%s:%u: the last line is cut (no newline)", file, line + 1);
			return -EINVAL;
		}
		*nl = '\0';
		if (parse_line(file, ++line, p, c, &seen) < 0)
			return -EINVAL;
	}
	for (size_t k = 0; k < NKEYS; k++)
		if (!(seen & (1u << k))) {
			error_msg("%s: no \"%s\" line: not the agent's counters", file,
			          count_keys[k].key);
			return -EINVAL;
		}
	return 0;
}

static int read_counts(const char *state_file, struct agent_counts *c)
{
	char path[4096], *buf;
	const char *why = "cannot read";
	size_t len;
	int err;

	snprintf(path, sizeof(path), "%s.notifications", state_file);
	err = safefile_read_shown(path, MAX_FILE, &buf, &len, &why);
	if (err == -ENOENT) {
		error_msg("%s: absent: no agent with agent.state_file \"%s\" has counted yet", path,
		          state_file);
		return err;
	}
	if (err < 0) {
		error_msg("%s: %s: %s", path, why, strerror(-err));
		return err;
	}
	if (strlen(buf) != len) {
		error_msg("%s: holds a NUL byte: not the agent's counters", path);
		err = -EINVAL;
	} else {
		err = parse_counts(path, buf, c);
	}
	free(buf);
	return err;
}

/* Whether the agent that wrote the file still runs (EPERM: another user's, alive). */
static bool running(uint64_t pid)
{
	return pid > 0 && pid < INT32_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void print_text(const struct agent_counts *c)
{
	char when[32] = "?";
	time_t t = (time_t)c->started;
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("agent pid %" PRIu64 " (%s), counting since %s\n", c->pid,
	       running(c->pid) ? "running" : "not running", when);
	printf("notifications sent        %" PRIu64 "\n", c->sent);
	printf("notifications suppressed  %" PRIu64 "\n", c->suppressed);
	printf("notifications lost        %" PRIu64 "\n", c->lost);
}

static void print_json(const struct agent_counts *c)
{
	printf("{\"agent\":{\"pid\":%" PRIu64 ",\"running\":%s,\"started\":%" PRIu64
	       ",\"notifications\":{\"sent\":%" PRIu64 ",\"suppressed\":%" PRIu64
	       ",\"lost\":%" PRIu64 "}}}\n",
	       c->pid, running(c->pid) ? "true" : "false", c->started, c->sent, c->suppressed,
	       c->lost);
}

/* A counter family, and its start as OpenMetrics' _created in a gauge family (render_prom.c). */
static void print_prom_counter(const char *what, const char *help, uint64_t v, uint64_t started)
{
	printf("# HELP statctr_agent_notifications_%s_total %s\n", what, help);
	printf("# TYPE statctr_agent_notifications_%s_total counter\n", what);
	printf("statctr_agent_notifications_%s_total %" PRIu64 "\n", what, v);
	printf("# HELP statctr_agent_notifications_%s_created When counting began, seconds "
	       "since the epoch.\n",
	       what);
	printf("# TYPE statctr_agent_notifications_%s_created gauge\n", what);
	printf("statctr_agent_notifications_%s_created %" PRIu64 "\n", what, started);
}

static void print_prom(const struct agent_counts *c)
{
	print_prom_counter("sent", "Notifications statctr-agentx handed to the master or sinks.",
	                   c->sent, c->started);
	print_prom_counter("suppressed", "Link state changes a hold-down kept from being sent.",
	                   c->suppressed, c->started);
	print_prom_counter("lost", "Notifications due while no master or sink could take them.",
	                   c->lost, c->started);
}

/* STATE_FILE: the argument, else agent.state_file of -c's configuration. */
static int state_file_of(const struct common_opts *opts, int argc, char **argv, char **out)
{
	struct agent_settings *set;

	if (argc - optind > 1)
		return usage_error("notifications", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		*out = strdup(argv[optind]);
		return *out ? EXIT_OK : EXIT_FAIL;
	}
	if (!opts->config)
		return usage_error("notifications", "give STATE_FILE, or -c CONFIG");
	if (settings_load(opts->config, &set) < 0) {
		error_msg("%s", statctr_errmsg());
		return EXIT_FAIL;
	}
	*out = set->state_file ? strdup(set->state_file) : NULL;
	settings_free(set);
	if (!*out) {
		error_msg("%s: sets no agent.state_file: the agent keeps its counters only in "
		          "STATCTR-MIB (statctrNotificationsSent, -Suppressed, -Lost)",
		          opts->config);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_notifications(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "notifications", .help = notify_help, .common = &opts};
	struct agent_counts c = {0};
	char *state_file = NULL;
	int status;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	status = state_file_of(&opts, argc, argv, &state_file);
	if (status != EXIT_OK)
		return status;
	status = read_counts(state_file, &c) < 0 ? EXIT_FAIL : EXIT_OK;
	free(state_file);
	if (status != EXIT_OK)
		return status;
	if (opts.format == FORMAT_JSON)
		print_json(&c);
	else if (opts.format == FORMAT_PROM)
		print_prom(&c);
	else
		print_text(&c);
	return EXIT_OK;
}
