/*
 * exporter_relabel.c - `statctl exporter-config --relabel`: the
 * metric_relabel_configs of the Prometheus job that scrapes snmp_exporter,
 * which give its samples the names and labels of `statctl show -f
 * prometheus` (docs/fleet.md, "One metric naming").  The generator of
 * Debian's snmp_exporter 0.21 cannot rename a metric, so Prometheus does,
 * after the scrape.  Per declared table, in this order:
 *
 *   - each column's metric (<seg><Table><Column>) is renamed to its
 *     family (prom_column_names(): "_total" after a counter's);
 *   - the Discontinuity column to prom_discontinuity_name() (the SNMP
 *     path's own family: a TimeStamp, which statctl has not);
 *   - a histogram: its column's sample (the count, again in the summary
 *     table) is dropped, BucketCount, Count and Sum become _bucket,
 *     _count and _sum, and the bucket's bound label becomes "le";
 *   - a sample labelled with the table's row name gets segment and table
 *     (the declared names) and row (the row name), and loses the row
 *     name's own label.
 *
 * Every name comes from mib/names.c (the MIB's descriptors, as in the
 * generator's module) and mib/promnames.c (statctl's); this file derives
 * none.  Never reads a segment.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"
#include "promnames.h"

/* Relabel rules, one list item each: what the rule matches, then what it does. */
static void rename_rule(FILE *f, const char *from, const char *to)
{
	fprintf(f,
	        "      - source_labels: [__name__]\n        regex: %s\n"
	        "        target_label: __name__\n        replacement: %s\n",
	        from, to);
}

static void drop_rule(FILE *f, const char *name)
{
	fprintf(f, "      - source_labels: [__name__]\n        regex: %s\n        action: drop\n",
	        name);
}

/* @label's value, when it has one, copied to @target. */
static void copy_rule(FILE *f, const char *label, const char *target)
{
	fprintf(f, "      - source_labels: [%s]\n        regex: (.+)\n        target_label: %s\n",
	        label, target);
}

/* @target set to @value on the samples that have the label @label. */
static void set_rule(FILE *f, const char *label, const char *target, const char *value)
{
	fprintf(f,
	        "      - source_labels: [%s]\n        regex: .+\n        target_label: %s\n"
	        "        replacement: \"%s\"\n",
	        label, target, value);
}

static void labeldrop_rule(FILE *f, const char *label)
{
	fprintf(f, "      - regex: %s\n        action: labeldrop\n", label);
}

static void histogram_rules(FILE *f, const char *column, const struct mib_hist_names *h,
                            const struct prom_column *pc)
{
	drop_rule(f, column);
	rename_rule(f, h->bucket_count, pc->names[PROM_BUCKET]);
	rename_rule(f, h->count, pc->names[PROM_COUNT]);
	rename_rule(f, h->sum, pc->names[PROM_SUM]);
	copy_rule(f, h->bucket_bound, "le");
	labeldrop_rule(f, h->bucket_bound);
}

static void table_rules(FILE *f, const struct statctr_segment_decl *seg,
                        const struct statctr_table_decl *td, const struct mib_table_names *n)
{
	char disc[PROM_NAME_MAX];
	struct prom_column pc;

	fprintf(f, "      # %s.%s\n", seg->name, td->name);
	for (uint32_t c = 0; c < td->ncolumns; c++) {
		/* check-config refused any name prom_column_names() refuses */
		prom_column_names(&pc, seg->name, td->name, td->columns[c].name,
		                  td->columns[c].kind);
		if (td->columns[c].kind == STATCTR_KIND_HISTOGRAM && n->hists != NULL)
			histogram_rules(f, n->columns[c], &n->hists[c], &pc);
		else
			rename_rule(f, n->columns[c], pc.names[PROM_FAMILY]);
	}
	prom_discontinuity_name(disc, sizeof(disc), seg->name, td->name);
	rename_rule(f, n->disc, disc);
	set_rule(f, n->row_name, "segment", seg->name);
	set_rule(f, n->row_name, "table", td->name);
	copy_rule(f, n->row_name, "row");
	labeldrop_rule(f, n->row_name);
}

void exporter_relabel_write(FILE *f, const char *module, const struct statctr_config *cfg,
                            const struct mib_module_names *names)
{
	fprintf(f,
	        "# Prometheus metric_relabel_configs, written by statctl exporter-config\n"
	        "# --relabel: in the scrape job of snmp_exporter's module %s, they\n"
	        "# give each sample the name and labels of statctl show -f prometheus\n"
	        "# (docs/fleet.md, \"One metric naming\").  Indented to follow the job's keys.\n"
	        "    metric_relabel_configs:\n",
	        module);
	for (uint32_t s = 0; s < cfg->nsegments; s++)
		for (uint32_t t = 0; t < cfg->segments[s].ntables; t++)
			table_rules(f, &cfg->segments[s], &cfg->segments[s].tables[t],
			            &names->segs[s].tables[t]);
}
