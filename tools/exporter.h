/*
 * exporter.h - what `statctl exporter-config` writes besides the
 * generator's module (cmd_exporter.c): the scrape job's relabelling that
 * gives snmp_exporter's samples statctl's names (exporter_relabel.c), and
 * an snmp.yml module of the IF-MIB objects statctr serves
 * (exporter_ifmib.c).  docs/fleet.md describes both.
 */
#ifndef STATCTL_EXPORTER_H
#define STATCTL_EXPORTER_H

#include "ifmib.h"
#include "names.h"
#include "statctr.h"

#include <stdio.h>

/* The snmp.yml module exporter_ifmib_write() writes. */
#define EXPORTER_IF_MIB_MODULE "statctr_if_mib"

/*
 * Writes the `metric_relabel_configs:` of the Prometheus scrape job of
 * snmp_exporter's module @module for @cfg, whose MIB descriptors are
 * @names (mib_module_names_init()): every sample of a declared column
 * gets the name and the labels `statctl show -f prometheus` gives it
 * (mib/promnames.h).  Indented to follow a job's keys (4 spaces).
 */
void exporter_relabel_write(FILE *f, const char *module, const struct statctr_config *cfg,
                            const struct mib_module_names *names);

/*
 * Writes the snmp_exporter 0.21 module EXPORTER_IF_MIB_MODULE (snmp.yml
 * form, numeric OIDs) of the IF-MIB objects the tables of @ic serve
 * (ifmib_columns()), labelled by ifIndex and by ifDescr, ifName and
 * ifAlias through lookups.  @ic has at least one table.
 */
void exporter_ifmib_write(FILE *f, const struct ifmib_config *ic);

#endif /* STATCTL_EXPORTER_H */
