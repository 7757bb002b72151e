/*
 * backend_statctr.h - the STATCTR-MIB backend of the engine (engine.h): one region
 * per oidmap region (statctrObjects, each declared table, each histogram),
 * each answering GET, GETNEXT and the reset SETs for its whole subtree,
 * never one registration per cell.
 */
#ifndef STATCTR_AGENT_BACKEND_STATCTR_H
#define STATCTR_AGENT_BACKEND_STATCTR_H

#include "aggregate.h"
#include "engine.h"
#include "oidmap.h"
#include "settings.h"

struct handlers;

/*
 * handlers_add() - adds every region of @map to @e; @set and @map must
 * outlive the engine's registrations.  *@hp is set even on failure (free it
 * with handlers_free()).  0 or -ENOMEM (errmsg_get()).
 */
int handlers_add(struct engine *e, const struct agent_settings *set, const struct oidmap *map,
                 struct handlers **hp);

/*
 * handlers_segment_value() - sets @vb's value to what a GET of column
 * @what (a MIB_SEG_* object) of @as's statctrSegmentTable row reads: the
 * varbinds of STATCTR-MIB's notifications (traps.c).
 */
void handlers_segment_value(const struct agg_segment *as, enum mib_object_id what,
                            netsnmp_variable_list *vb);

/*
 * handlers_row_value(), handlers_row_discontinuity() - what a GET of
 * declared column @c, or of the discontinuity column, of row @row of table
 * @t of @as reads (@as has a snapshot and the row is present): the values
 * of the by-name tables (backend_byname.c).
 */
void handlers_row_value(const struct agg_segment *as, uint32_t t, uint32_t row, uint32_t c,
                        netsnmp_variable_list *vb);
void handlers_row_discontinuity(const struct agg_segment *as, uint32_t t, uint32_t row,
                                netsnmp_variable_list *vb);

/* Frees (NULL: nothing); the engine's regions must be gone first. */
void handlers_free(struct handlers *h);

#endif /* STATCTR_AGENT_BACKEND_STATCTR_H */
