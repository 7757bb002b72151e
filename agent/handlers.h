/*
 * handlers.h - the STATCTR-MIB backend of the engine (engine.h): one region
 * per oidmap region (statctrObjects, each declared table, each histogram),
 * each answering GET, GETNEXT and the reset SETs for its whole subtree,
 * never one registration per cell.
 */
#ifndef STATCTR_AGENT_HANDLERS_H
#define STATCTR_AGENT_HANDLERS_H

#include "aggregate.h"
#include "engine.h"
#include "oidmap.h"
#include "settings.h"

struct handlers;

/*
 * handlers_add() - adds every region of @map to @e; @set and @map must
 * outlive the engine's registrations.  *@hp is set even on failure (free it
 * with handlers_free()).  0 or -ENOMEM (agent_errmsg()).
 */
int handlers_add(struct engine *e, const struct agent_settings *set, const struct oidmap *map,
                 struct handlers **hp);

/* Frees (NULL: nothing); the engine's regions must be gone first. */
void handlers_free(struct handlers *h);

#endif /* STATCTR_AGENT_HANDLERS_H */
