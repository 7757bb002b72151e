/*
 * mibnames.h - SMIv2 module names and descriptors derived from a
 * configuration (mibnames.c).
 */
#ifndef STATCTL_MIBNAMES_H
#define STATCTL_MIBNAMES_H

#include "statctr.h"

#include <stdbool.h>
#include <stddef.h>

/* The descriptors given out so far in one module; owns their storage. */
struct mib_names {
	char **v;
	size_t n;
};

/* A new descriptor from @nparts strings; NULL when out of memory. */
const char *mib_name(struct mib_names *reg, int nparts, ...);
void mib_names_free(struct mib_names *reg);
void mib_module_name(const struct statctr_config *cfg, char *buf, size_t size);

#endif /* STATCTL_MIBNAMES_H */
