/*
 * cmd_exporter.c - exporter-config: the module of Prometheus snmp_exporter's
 * generator (generator.yml) for the tables a configuration declares.
 *
 * Every declared table is walked; its rowName column labels the samples
 * through a lookup that replaces the row index; the reset column and the
 * row name's own sample are dropped.  Counters and gauges get their metric
 * types from the MIB (Counter64, Gauge32), the discontinuity column stays
 * as a gauge (a TimeStamp).  Every descriptor comes from
 * mib_module_names_init(), the call that names the objects of the MIB
 * `statctl mib` writes, so the generator finds each one there; this file
 * derives no name itself.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "names.h"
#include "statctl.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static const char exporter_help[] =
    "  -o, --output=OUT     write the module to OUT instead of stdout (a new file\n"
    "                       renamed over OUT; a device or FIFO is written in place;\n"
    "                       a symbolic link or a directory is refused)\n"
    "\nThe names are those of the MIB module `statctl mib FILE` writes; give the\n"
    "generator both (docs/fleet.md).  The snmp_exporter module is that MIB\n"
    "module's name in lowercase, '_' for '-', without '-MIB' (statctr_dataplane).\n";

struct exporter_job {
	const struct statctr_config *cfg;
	const struct mib_module_names *names;
	char mib_module[80];
};

/* "STATCTR-DATAPLANE-MIB" -> "statctr_dataplane": a word YAML and URLs take as is. */
static void exporter_module_name(const char *mib_module, char *buf, size_t size)
{
	size_t len = strlen(mib_module), i;

	if (len > 4 && strcmp(mib_module + len - 4, "-MIB") == 0)
		len -= 4;
	for (i = 0; i < len && i + 1 < size; i++)
		buf[i] = mib_module[i] == '-' ? '_' : (char)tolower((unsigned char)mib_module[i]);
	buf[i] = '\0';
}

/* Calls @fn for the names of every declared table, in declaration order. */
static void for_each_table(FILE *f, const struct exporter_job *job,
                           void (*fn)(FILE *f, const struct mib_table_names *n))
{
	for (uint32_t s = 0; s < job->cfg->nsegments; s++)
		for (uint32_t t = 0; t < job->cfg->segments[s].ntables; t++)
			fn(f, &job->names->segs[s].tables[t]);
}

static void emit_walk(FILE *f, const struct mib_table_names *n)
{
	fprintf(f, "      - %s\n", n->table);
}

/* The row name replaces the index: row names are unique within a table. */
static void emit_lookup(FILE *f, const struct mib_table_names *n)
{
	fprintf(f, "      - source_indexes: [%s]\n", n->row_index);
	fprintf(f, "        lookup: %s\n", n->row_name);
	fputs("        drop_source_indexes: true\n", f);
}

/* No samples for the index (not readable), the name (a label) and the reset (an action). */
static void emit_overrides(FILE *f, const struct mib_table_names *n)
{
	const char *ignored[] = {n->row_index, n->row_name, n->reset};

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		fprintf(f, "      %s:\n        ignore: true\n", ignored[i]);
}

static int fill_exporter(FILE *f, void *arg)
{
	const struct exporter_job *job = arg;
	char module[sizeof(job->mib_module)];

	exporter_module_name(job->mib_module, module, sizeof(module));
	fprintf(f,
	        "# snmp_exporter generator.yml, written by statctl exporter-config: the names\n"
	        "# are those of %s (statctl mib).  With that MIB, STATCTR-MIB\n"
	        "# and the SMI modules in MIBDIRS: prometheus-snmp-generator generate\n"
	        "modules:\n  %s:\n    walk:\n",
	        job->mib_module, module);
	for_each_table(f, job, emit_walk);
	fputs("    lookups:\n", f);
	for_each_table(f, job, emit_lookup);
	fputs("    overrides:\n", f);
	for_each_table(f, job, emit_overrides);
	return 0;
}

static int generate(const char *out, const char *file, const struct statctr_config *cfg,
                    const struct mib_settings *set)
{
	struct mib_module_names names;
	struct exporter_job job = {.cfg = cfg, .names = &names};
	int err;

	if (cfg->nsegments == 0) {
		error_msg("%s: declares no segment: nothing to export", file);
		return -EINVAL;
	}
	mib_module_name(cfg, set->module, job.mib_module, sizeof(job.mib_module));
	if (!mib_module_names_init(&names, cfg)) {
		mib_module_names_free(&names, cfg);
		error_msg("out of memory");
		return -ENOMEM;
	}
	err = write_output(out, fill_exporter, &job);
	mib_module_names_free(&names, cfg);
	return err;
}

int cmd_exporter_config(const struct common_opts *common, int argc, char **argv)
{
	return generate_command(common, argc, argv, "exporter-config", exporter_help, generate);
}
