/*
 * cmd_config.c - the commands that read a configuration file rather than a
 * segment: check-config (validation, errors naming file:line) and mib (the
 * SMIv2 module of its tables, see mibgen.c).
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "safefile.h"
#include "statctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char check_help[] =
    "\nValidates FILE as the library and the MIB generator read it: syntax, settings,\n"
    "kinds, names, OIDs, sizes, and the agent group's mib_module and root_oid.\n"
    "Exit status 0 when valid, 1 (with file:line) when not.\n";

static const char mib_help[] =
    "  -o, --output=OUT     write the module to OUT instead of stdout (a new file\n"
    "                       renamed over OUT; a device or FIFO is written in place;\n"
    "                       a symbolic link or a directory is refused)\n"
    "\nThe module name is agent.mib_module (default STATCTR-<SEGMENTS>-MIB),\n"
    "the root agent.root_oid (default " STATCTR_DEFAULT_ROOT_OID ").\n"
    "LAST-UPDATED is $SOURCE_DATE_EPOCH, else FILE's modification time.\n";

/* Loads both the library's declaration and the MIB settings of @path. */
static int load_all(const char *path, struct statctr_config **cfgp, struct mib_settings *set)
{
	if (statctr_config_load(path, cfgp) < 0) {
		error_msg("%s", statctr_errmsg());
		return EXIT_FAIL;
	}
	if (mib_settings_load(path, set) < 0) {
		statctr_config_free(*cfgp);
		return EXIT_FAIL;
	}
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
	struct statctr_config *cfg;
	struct mib_settings set;
	const char *file = NULL;
	uint32_t ntables = 0, ncells = 0;

	if (cmd_getopt(&p, argc, argv) != -1)
		return p.status;
	if (one_file_arg(&p, argc, argv, &file) != EXIT_OK)
		return EXIT_USAGE;
	if (load_all(file, &cfg, &set) != EXIT_OK)
		return EXIT_FAIL;
	for (uint32_t s = 0; s < cfg->nsegments; s++) {
		ntables += cfg->segments[s].ntables;
		ncells += cfg->segments[s].ncells;
	}
	printf("%s: valid: %" PRIu32 " segments, %" PRIu32 " tables, %" PRIu32 " cells\n", file,
	       cfg->nsegments, ntables, ncells);
	mib_settings_free(&set);
	statctr_config_free(cfg);
	return EXIT_OK;
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

/* OUT is written as safefile_write() says: never half written, never through a link. */
static int generate_to_file(const char *out, const struct mib_job *job)
{
	const char *why;
	int err = safefile_write(out, 0644, fill_mib, (void *)job, &why);

	if (err < 0)
		error_msg("%s: %s: %s", out, why, strerror(-err));
	return err;
}

int cmd_mib(const struct common_opts *common, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {NULL, 0, NULL, 0},
	};
	struct common_opts opts = *common;
	struct cmd_parser p = {.cmd = "mib",
	                       .shortopts = "o:",
	                       .longopts = longopts,
	                       .help = mib_help,
	                       .common = &opts};
	struct statctr_config *cfg;
	struct mib_settings set;
	const char *file = NULL, *out = NULL;
	struct mib_job job;
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
	job.cfg = cfg;
	job.set = &set;
	job.when = revision_time(file);
	if (out != NULL)
		err = generate_to_file(out, &job);
	else
		err = mib_generate(stdout, cfg, &set, job.when);
	mib_settings_free(&set);
	statctr_config_free(cfg);
	return err < 0 ? EXIT_FAIL : EXIT_OK;
}
