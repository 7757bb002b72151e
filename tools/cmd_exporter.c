/*
 * cmd_exporter.c - exporter-config: the module of Prometheus snmp_exporter's
 * generator (generator.yml) for the tables a configuration declares.
 *
 * Every declared table is walked; its rowName column labels the samples
 * through a lookup that replaces the row index; the reset column and the
 * row name's own sample are dropped.  Counters and gauges get their metric
 * types from the MIB (Counter64, Gauge32), the discontinuity column stays
 * as a gauge (a TimeStamp).  A histogram column's count is its column in
 * the table; its bucket table (cumulative Counter64 per bound) and summary
 * table (count, sum) are walked too, the bound labelling each bucket
 * through a second lookup (docs/fleet.md: snmp_exporter has no histogram
 * type, so these are counters a relabelling can turn into _bucket{le}).
 * Every descriptor comes from
 * mib_module_names_init(), the call that names the objects of the MIB
 * `statctl mib` writes, so the generator finds each one there; this file
 * derives no name itself.  --relabel writes the scrape job's relabelling
 * instead (exporter_relabel.c), --if-mib an snmp.yml module of the IF-MIB
 * tables (exporter_ifmib.c).
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"
#include "names.h"
#include "statctl.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static const char exporter_help[] =
    "  -o, --output=OUT     write the module to OUT instead of stdout (a new file\n"
    "                       renamed over OUT; a device or FIFO is written in place;\n"
    "                       a symbolic link or a directory is refused)\n"
    "      --relabel        write instead the metric_relabel_configs of the Prometheus\n"
    "                       job scraping that module: statctl show -f prometheus's\n"
    "                       names and labels\n"
    "      --if-mib         write instead the snmp.yml module " EXPORTER_IF_MIB_MODULE " of\n"
    "                       FILE's IF-MIB tables, by numeric OID\n"
    "\nThe names are those of the MIB module `statctl mib FILE` writes; give the\n"
    "generator both (docs/fleet.md).  The snmp_exporter module is that MIB\n"
    "module's name in lowercase, '_' for '-', without '-MIB' (statctr_dataplane).\n";

enum exporter_mode { EXPORTER_RELABEL = GENERATE_MODE, EXPORTER_IF_MIB };

static const struct option exporter_modes[] = {
    {"relabel", no_argument, NULL, EXPORTER_RELABEL},
    {"if-mib", no_argument, NULL, EXPORTER_IF_MIB},
    OPTIONS_END,
};

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

typedef void table_fn(FILE *f, const struct statctr_table_decl *td,
                      const struct mib_table_names *n);

/* Calls @fn for every declared table and its names, in declaration order. */
static void for_each_table(FILE *f, const struct exporter_job *job, table_fn *fn)
{
	for (uint32_t s = 0; s < job->cfg->nsegments; s++)
		for (uint32_t t = 0; t < job->cfg->segments[s].ntables; t++)
			fn(f, &job->cfg->segments[s].tables[t], &job->names->segs[s].tables[t]);
}

/* The names of @td's histogram column @c, or NULL when it is not one. */
static const struct mib_hist_names *hist_names(const struct statctr_table_decl *td,
                                               const struct mib_table_names *n, uint32_t c)
{
	if (td->columns[c].kind != STATCTR_KIND_HISTOGRAM || n->hists == NULL)
		return NULL;
	return &n->hists[c];
}

static void emit_walk(FILE *f, const struct statctr_table_decl *td, const struct mib_table_names *n)
{
	const struct mib_hist_names *h;

	fprintf(f, "      - %s\n", n->table);
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if ((h = hist_names(td, n, c)) != NULL)
			fprintf(f, "      - %s\n      - %s\n", h->bucket_table, h->summary_table);
}

static void emit_index_lookup(FILE *f, const char *indexes, const char *lookup)
{
	fprintf(f, "      - source_indexes: [%s]\n", indexes);
	fprintf(f, "        lookup: %s\n", lookup);
	fputs("        drop_source_indexes: true\n", f);
}

/*
 * The row name replaces the index: row names are unique within a table
 * (a histogram's bucket and summary rows are indexed by the same row
 * index, so they get the same label).  A bucket's bound ("10", "+Inf")
 * replaces the bucket index: the bounds are unique within a histogram.
 */
static void emit_lookup(FILE *f, const struct statctr_table_decl *td,
                        const struct mib_table_names *n)
{
	const struct mib_hist_names *h;
	char indexes[2 * 80];

	emit_index_lookup(f, n->row_index, n->row_name);
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		if ((h = hist_names(td, n, c)) == NULL)
			continue;
		snprintf(indexes, sizeof(indexes), "%s, %s", n->row_index, h->bucket_index);
		emit_index_lookup(f, indexes, h->bucket_bound);
	}
}

/* No samples for the indexes (not readable), the names and bounds (labels)
 * and the reset (an action). */
static void emit_overrides(FILE *f, const struct statctr_table_decl *td,
                           const struct mib_table_names *n)
{
	const char *ignored[] = {n->row_index, n->row_name, n->reset};
	const struct mib_hist_names *h;

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		fprintf(f, "      %s:\n        ignore: true\n", ignored[i]);
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if ((h = hist_names(td, n, c)) != NULL)
			fprintf(
			    f, "      %s:\n        ignore: true\n      %s:\n        ignore: true\n",
			    h->bucket_index, h->bucket_bound);
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

static int fill_relabel(FILE *f, void *arg)
{
	const struct exporter_job *job = arg;
	char module[sizeof(job->mib_module)];

	exporter_module_name(job->mib_module, module, sizeof(module));
	exporter_relabel_write(f, module, job->cfg, job->names);
	return 0;
}

static int fill_if_mib(FILE *f, void *arg)
{
	exporter_ifmib_write(f, arg);
	return 0;
}

static int generate_if_mib(const char *out, const struct generate_input *in)
{
	if (in->ifmib->ntables == 0) {
		error_msg("%s: no table has an ifmib group: no IF-MIB module to write", in->file);
		return -EINVAL;
	}
	return write_output(out, fill_if_mib, (void *)in->ifmib);
}

static int generate(const char *out, const struct generate_input *in)
{
	struct mib_module_names names;
	struct exporter_job job = {.cfg = in->cfg, .names = &names};
	int err;

	if (in->cfg->nsegments == 0) {
		error_msg("%s: declares no segment: nothing to export", in->file);
		return -EINVAL;
	}
	if (in->mode == EXPORTER_IF_MIB)
		return generate_if_mib(out, in);
	mib_module_name(in->cfg, in->set->module, job.mib_module, sizeof(job.mib_module));
	if (!mib_module_names_init(&names, in->cfg)) {
		mib_module_names_free(&names, in->cfg);
		error_msg("out of memory");
		return -ENOMEM;
	}
	err = write_output(out, in->mode == EXPORTER_RELABEL ? fill_relabel : fill_exporter, &job);
	mib_module_names_free(&names, in->cfg);
	return err;
}

int cmd_exporter_config(const struct common_opts *common, int argc, char **argv)
{
	return generate_command(common, argc, argv, "exporter-config", exporter_help,
	                        exporter_modes, generate);
}
