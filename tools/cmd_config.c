/*
 * cmd_config.c - the commands that read a configuration file rather than a
 * segment: check-config (mib/settings.c's settings_check(), the verdict
 * statctr-agentx --check-config gives too) and mib (the SMIv2 module of its
 * tables, see mib/gen.c).  The file is read once, as the agent reads it.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

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

/* Reads @path once, as the agent does; keeps the declaration and what the MIB needs. */
static int load_all(const char *path, struct statctr_config **cfgp, struct mib_settings *set)
{
	struct agent_settings *all;

	if (settings_load(path, &all) < 0) {
		error_msg("%s", statctr_errmsg());
		return EXIT_FAIL;
	}
	*cfgp = all->cfg;
	all->cfg = NULL;
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

static int generate_mib(const char *out, const char *file, const struct statctr_config *cfg,
                        const struct mib_settings *set)
{
	struct mib_job job = {.cfg = cfg, .set = set, .when = revision_time(file)};

	return write_output(out, fill_mib, &job);
}

int cmd_mib(const struct common_opts *common, int argc, char **argv)
{
	return generate_command(common, argc, argv, "mib", mib_help, generate_mib);
}

int generate_command(const struct common_opts *common, int argc, char **argv, const char *cmd,
                     const char *help, generate_fn *generate)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {NULL, 0, NULL, 0},
	};
	struct common_opts opts = *common;
	struct cmd_parser p = {
	    .cmd = cmd, .shortopts = "o:", .longopts = longopts, .help = help, .common = &opts};
	struct statctr_config *cfg;
	struct mib_settings set;
	const char *file = NULL, *out = NULL;
	int c, err;

	while ((c = cmd_getopt(&p, argc, argv)) != -1) {
		if (c == '?')
			return p.status;
		out = optarg;
	}
	if (one_file_arg(&p, argc, argv, &file) != EXIT_OK)
		return EXIT_USAGE;
	if (load_all(file, &cfg, &set) != EXIT_OK)
		return EXIT_FAIL;
	err = generate(out, file, cfg, &set);
	if (err < 0 && !out) /* write_output() names the file it could not write */
		error_msg("%s: %s: %s", cmd, file, strerror(-err));
	mib_settings_free(&set);
	statctr_config_free(cfg);
	return err < 0 ? EXIT_FAIL : EXIT_OK;
}
