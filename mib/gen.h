/*
 * gen.h - the SMIv2 module that names a configuration's tables (gen.c).
 *
 * The layout is mib/oids.h's; the names are mib/names.c's, so statctl's
 * generated module, its generator.yml and what the agent serves agree.
 */
#ifndef STATCTR_MIB_GEN_H
#define STATCTR_MIB_GEN_H

#include "statctr.h"

#include <stdio.h>

/* What the generator needs of the agent group (mib/settings.h). */
struct mib_settings {
	char *module;   /* mib_module, or NULL for the derived name */
	char *root_oid; /* root_oid, canonical dotted text */
};

/* mib_settings_free() - frees what @set holds (not @set) and clears it. */
void mib_settings_free(struct mib_settings *set);

/*
 * mib_generate() - write the module for @cfg to @out, dated @revision_time
 * (seconds since the epoch).  Returns 0 or -ENOMEM; output depends only on
 * the arguments.
 */
int mib_generate(FILE *out, const struct statctr_config *cfg, const struct mib_settings *set,
                 long long revision_time);

#endif /* STATCTR_MIB_GEN_H */
