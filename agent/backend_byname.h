/*
 * backend_byname.h - the by-name tables of dynamic tables (statctrRowsByName.S.T):
 * an engine backend (engine.h) serving each present row of a dynamic table
 * at an index made of its name, so that a manager that knows a row by its
 * name needs no index that changes when the row is added again.
 */
#ifndef STATCTR_AGENT_BACKEND_BYNAME_H
#define STATCTR_AGENT_BACKEND_BYNAME_H

#include "engine.h"
#include "settings.h"

struct byname;

/*
 * byname_add() - adds a region per dynamic table of @set to @e; @set must
 * outlive the engine's registrations.  *@bp is set even on failure (free
 * it with byname_free()).  0 or -ENOMEM (errmsg_get()).
 */
int byname_add(struct engine *e, const struct agent_settings *set, struct byname **bp);

/* Frees (NULL: nothing); the engine's regions must be gone first. */
void byname_free(struct byname *b);

#endif /* STATCTR_AGENT_BACKEND_BYNAME_H */
