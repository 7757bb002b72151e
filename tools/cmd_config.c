/*
 * cmd_config.c - the commands that read a configuration file rather than a
 * segment: check-config (mib/settings.c's settings_check(), the verdict
 * statctr-agentx --check-config gives too) and mib (the SMIv2 module of its
 * tables, see mib/gen.c).  The file is read once, as the agent reads it.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "ifmib.h"
#include "settings.h"
#include "statctl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char check_help[] =
    "\nValidates FILE as statctr-agentx does when it starts (the same code as\n"
    "statctr-agentx --check-config): syntax, settings, kinds, names, OIDs, sizes\n"
    "and the agent group (docs/config.md).  Prints FILE: valid: ... and exits 0,\n"
    "or prints the error (FILE:LINE: ...) and exits 1.\n";

static const char mib_help[] =
    "  -o, --output=OUT     write the module to OUT instead of stdout (a new file\n"
    "                       renamed over OUT; a device or FIFO is written in place;\n"
    "                       a symbolic link or a directory is refused)\n"
    "\nThe module name is agent.mib_module (default STATCTR-<SEGMENTS>-MIB),\n"
    "the root agent.root_oid (default " MIB_ROOT_DEFAULT ").\n"
    "LAST-UPDATED is $SOURCE_DATE_EPOCH, else FILE's modification time.\n";

/*
 * Reads @path once, as the agent does; keeps the declaration, what the
 * MIB needs and the IF-MIB settings (which point into the declaration:
 * free them first).
 */
static int load_all(const char *path, struct statctr_config **cfgp, struct mib_settings *set,
                    struct ifmib_config **icp)
{
	struct agent_settings *all;

	if (settings_load(path, &all) < 0) {
		error_msg("%s", statctr_errmsg());
		return EXIT_FAIL;
	}
	*cfgp = all->cfg;
	all->cfg = NULL;
	*icp = all->ifmib;
	all->ifmib = NULL;
	set->module = all->module;
	all->module = NULL;
	set->root_oid = all->root_oid;
	all->root_oid = NULL;
	settings_free(all);
	return EXIT_OK;
}

static int one_file_arg(struct cmd_parser *p, int argc, char **argv, const char **filep)
{
	if (optind >= argc)
		return usage_error(p->cmd, "missing FILE");
	if (argc - optind > 1)
		return usage_error(p->cmd, "unexpected argument '%s'", argv[optind + 1]);
	*filep = argv[optind];
	return EXIT_OK;
}

int cmd_check_config(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "check-config", .help = check_help, .common = &opts};
	const char *file = NULL;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	if (one_file_arg(&p, argc, argv, &file) != EXIT_OK)
		return EXIT_USAGE;
	return settings_check(file, stdout, stderr) == 0 ? EXIT_OK : EXIT_FAIL;
}

static long long revision_time(const char *path)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	struct stat st;

	if (epoch != NULL && *epoch != '\0')
		return strtoll(epoch, NULL, 10);
	if (stat(path, &st) == 0)
		return (long long)st.st_mtime;
	return 0;
}

struct mib_job {
	const struct statctr_config *cfg;
	const struct mib_settings *set;
	long long when;
};

static int fill_mib(FILE *f, void *arg)
{
	const struct mib_job *job = arg;

	return mib_generate(f, job->cfg, job->set, job->when);
}

static int generate_mib(const char *out, const struct generate_input *in)
{
	struct mib_job job = {.cfg = in->cfg, .set = in->set, .when = revision_time(in->file)};

	return write_output(out, fill_mib, &job);
}

int cmd_mib(const struct common_opts *common, int argc, char **argv)
{
	return generate_command(common, argc, argv, "mib", mib_help, NULL, generate_mib);
}

/* The options of generate_command(): -o and the command's @modes. */
static void generate_options(const struct option *modes, struct option *longopts, size_t size)
{
	size_t n = 0;

	longopts[n++] = (struct option){"output", required_argument, NULL, 'o'};
	for (; modes && modes[n - 1].name && n + 1 < size; n++)
		longopts[n] = modes[n - 1];
	longopts[n] = (struct option)OPTIONS_END;
}

/* The option of @modes whose val is @mode. */
static const char *mode_name(const struct option *modes, int mode)
{
	while (modes->val != mode)
		modes++;
	return modes->name;
}

/* Parses the options: -o to *@outp, a mode option to *@modep.  Returns -1, or a status. */
static int generate_getopt(struct cmd_parser *p, const struct option *modes, int argc, char **argv,
                           const char **outp, int *modep)
{
	int c;

	while ((c = cmd_getopt(p, argc, argv)) != -1) {
		if (c == '?')
			return p->status;
		if (c == 'o') {
			*outp = optarg;
		} else if (*modep != 0 && *modep != c) {
			return usage_error(p->cmd, "--%s and --%s exclude each other",
			                   mode_name(modes, *modep), mode_name(modes, c));
		} else {
			*modep = c;
		}
	}
	return -1;
}

int generate_command(const struct common_opts *common, int argc, char **argv, const char *cmd,
                     const char *help, const struct option *modes, generate_fn *generate)
{
	struct option longopts[MAX_CMD_OPTIONS - 4];
	struct common_opts opts = *common;
	struct cmd_parser p = CMD_PARSER(cmd, "o:", longopts, 0, help, &opts);
	struct generate_input in = {.mode = 0};
	struct statctr_config *cfg;
	struct ifmib_config *ifmib;
	struct mib_settings set;
	const char *out = NULL;
	int status, err;

	generate_options(modes, longopts, sizeof(longopts) / sizeof(longopts[0]));
	status = generate_getopt(&p, modes, argc, argv, &out, &in.mode);
	if (status != -1)
		return status;
	if (one_file_arg(&p, argc, argv, &in.file) != EXIT_OK)
		return EXIT_USAGE;
	if (load_all(in.file, &cfg, &set, &ifmib) != EXIT_OK)
		return EXIT_FAIL;
	in.cfg = cfg;
	in.set = &set;
	in.ifmib = ifmib;
	err = generate(out, &in);
	if (err < 0 && !out) /* write_output() names the file it could not write */
		error_msg("%s: %s: %s", cmd, in.file, strerror(-err));
	mib_settings_free(&set);
	ifmib_config_free(ifmib);
	statctr_config_free(cfg);
	return err < 0 ? EXIT_FAIL : EXIT_OK;
}
