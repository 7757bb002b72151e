/*
 * statctl.c - the command line: global options, the command table and the
 * option parsing every command shares.
 *
 * Owns exit codes and the shape of error messages (escaped for a terminal:
 * they quote segment strings); never touches a segment itself (the
 * commands do, through libstatctr).
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "safefile.h"
#include "statctl.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One command: its name, a one-line summary and its entry point. */
struct command {
	const char *name;
	const char *synopsis;
	const char *summary;
	int (*run)(const struct common_opts *common, int argc, char **argv);
};

static const struct command commands[] = {
    {"list", "list [-c CONFIG]", "list segments with their writer and state", cmd_list},
    {"show",
     "show [--slots] [--raw] [--since E | --epoch N] [-F GLOB]... [-o FILE] [SEGMENT [TABLE]]",
     "print tables of counters", cmd_show},
    {"watch", "watch [-i SECONDS] [-n COUNT] [-F GLOB]... [SEGMENT [TABLE]]",
     "live view: counters with deltas and rates, gauges' levels", cmd_watch},
    {"reset", "reset SEGMENT [TABLE [ROW [COLUMN]]]", "reset counters through baselines",
     cmd_reset},
    {"epoch", "epoch list [SEGMENT] | epoch start NAME [SEGMENT]",
     "list or start epochs (points whose counts are kept)", cmd_epoch},
    {"diff", "diff [-t RATIO] [-a] [-F GLOB]... E1 E2 [SEGMENT [TABLE]]",
     "compare the counts of two epochs' intervals per cell", cmd_diff},
    {"notifications", "notifications [-c CONFIG] [STATE_FILE]",
     "the agent's notification counters: sent, suppressed, lost", cmd_notifications},
    {"check-config", "check-config FILE", "validate a configuration file", cmd_check_config},
    {"mib", "mib FILE [-o OUT]", "generate the SMIv2 MIB module of a configuration", cmd_mib},
    {"exporter-config", "exporter-config [--relabel | --if-mib] FILE [-o OUT]",
     "generate the snmp_exporter generator.yml module of a configuration", cmd_exporter_config},
};

static const char common_help[] =
    "  -c, --config=FILE    resolve segment names and find segments through FILE\n"
    "  -f, --format=FORMAT  output format: text (default), json or prometheus\n"
    "  -h, --help           show this help\n";

void error_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("statctl: ", stderr);
	va_start(ap, fmt);
	text_vprint(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "statctl%s%s: ", cmd[0] ? " " : "", cmd);
	va_start(ap, fmt);
	text_vprint(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'statctl%s%s --help'.\n", cmd[0] ? " " : "", cmd);
	return EXIT_USAGE;
}

static int parse_format(const char *arg, enum out_format *fmt)
{
	if (strcmp(arg, "text") == 0)
		*fmt = FORMAT_TEXT;
	else if (strcmp(arg, "json") == 0)
		*fmt = FORMAT_JSON;
	else if (strcmp(arg, "prometheus") == 0 || strcmp(arg, "prom") == 0)
		*fmt = FORMAT_PROM;
	else
		return -EINVAL;
	return 0;
}

bool parse_u32(const char *arg, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (arg[0] < '0' || arg[0] > '9')
		return false;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

int write_output(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	const char *why;
	int err;

	if (path == NULL)
		return fill(stdout, arg);
	err = safefile_write(path, SAFEFILE_OUTPUT, 0644, fill, arg, &why);
	if (err < 0)
		error_msg("%s: %s: %s", path, why, strerror(-err));
	return err;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void print_command_help(const struct command *cmd, const char *help)
{
	printf("Usage: statctl %s\n%c%s.\n\nOptions:\n%s%s", cmd->synopsis,
	       toupper((unsigned char)cmd->summary[0]), cmd->summary + 1, common_help, help);
}

#define ANY_OWNER_CHAR 0x100

static void build_options(struct cmd_parser *p)
{
	static const struct option common_long[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	};
	static const struct option field_long = {"field", required_argument, NULL, 'F'};
	static const struct option any_owner_long = {"any-owner", no_argument, NULL,
	                                             ANY_OWNER_CHAR};
	size_t n = 0;

	snprintf(p->all_short, sizeof(p->all_short), "c:f:h%s%s", p->shortopts ? p->shortopts : "",
	         p->shared & CMD_FIELD ? "F:" : "");
	for (; p->longopts && p->longopts[n].name && n < MAX_CMD_OPTIONS - 2 - 3 - 1; n++)
		p->all_long[n] = p->longopts[n];
	if (p->shared & CMD_FIELD)
		p->all_long[n++] = field_long;
	if (p->shared & CMD_ANY_OWNER)
		p->all_long[n++] = any_owner_long;
	for (size_t i = 0; i < 3; i++)
		p->all_long[n++] = common_long[i];
	memset(&p->all_long[n], 0, sizeof(p->all_long[n]));
}

/* -F GLOB: one more of common->fields; false (a usage error) when refused. */
static bool add_field(struct cmd_parser *p, const char *glob)
{
	struct field_globs *f = &p->common->fields;

	if (glob[0] == '\0' || strcmp(glob, "!") == 0) {
		p->status = usage_error(p->cmd, "-F needs a glob, not '%s'", glob);
		return false;
	}
	if (f->n == MAX_FIELD_GLOBS) {
		p->status = usage_error(p->cmd, "at most %d -F globs", MAX_FIELD_GLOBS);
		return false;
	}
	f->glob[f->n++] = glob;
	return true;
}

int cmd_getopt(struct cmd_parser *p, int argc, char **argv)
{
	int c;

	if (p->all_short[0] == '\0') {
		build_options(p);
		optind = 0; /* GNU: re-initialise for the command's own argv */
		opterr = 0;
	}
	for (;;) {
		c = getopt_long(argc, argv, p->all_short, p->all_long, NULL);
		if (c == 'c') {
			p->common->config = optarg;
		} else if (c == 'f') {
			if (parse_format(optarg, &p->common->format) != 0) {
				p->status = usage_error(p->cmd, "unknown format '%s'", optarg);
				return '?';
			}
		} else if (c == 'h') {
			print_command_help(find_command(p->cmd), p->help);
			p->status = EXIT_OK;
			return '?';
		} else if (c == ANY_OWNER_CHAR) {
			p->common->any_owner = true;
		} else if (c == 'F') {
			if (!add_field(p, optarg))
				return '?';
		} else if (c == '?' || c == ':') {
			p->status = usage_error(p->cmd, "bad option '%s'", argv[optind - 1]);
			return '?';
		} else if (c == -1 && p->common->any_owner && p->common->config) {
			p->status = usage_error(p->cmd, "--any-owner is for /dev/shm: with -c, the "
			                                "configuration's segments are read");
			return '?';
		} else {
			return c;
		}
	}
}

static void print_main_help(void)
{
	printf("Usage: statctl [-c CONFIG] [-f FORMAT] COMMAND [ARGS]\n"
	       "Read, reset and describe statctr counter segments.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-16s %s\n", commands[i].name, commands[i].summary);
	printf("\nOptions (also accepted after the command):\n%s"
	       "  -V, --version        show the version\n"
	       "\n'statctl COMMAND --help' describes a command.  Exit status: 0 success,\n"
	       "1 operational error, 2 usage error.\n",
	       common_help);
}

static int parse_global(int argc, char **argv, struct common_opts *common)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    OPTIONS_END,
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+c:f:hV", longopts, NULL)) != -1) {
		if (c == 'c') {
			common->config = optarg;
		} else if (c == 'f') {
			if (parse_format(optarg, &common->format) != 0)
				return usage_error("", "unknown format '%s'", optarg);
		} else if (c == 'h') {
			print_main_help();
			return EXIT_OK;
		} else if (c == 'V') {
			printf("statctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return EXIT_OK;
		} else {
			return usage_error("", "bad option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct common_opts common = {.config = NULL, .format = FORMAT_TEXT};
	const struct command *cmd;
	int status = parse_global(argc, argv, &common);

	if (status >= 0)
		return status;
	if (optind >= argc) {
		fputs("statctl: no command given\nTry 'statctl --help'.\n", stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (cmd == NULL) {
		error_msg("unknown command '%s'", argv[optind]);
		fputs("Try 'statctl --help'.\n", stderr);
		return EXIT_USAGE;
	}
	status = cmd->run(&common, argc - optind, argv + optind);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error_msg("writing the output: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return status;
}
