/*
 * integrity.h - is the file at a segment's path still the segment we map?
 *
 * Readers work from a private, validated copy of a segment's metadata, so
 * a file overwritten in place (same inode, same size) goes unnoticed by
 * statctr_view_refresh() and statctr_snap_take().  The header of a valid
 * segment never changes after creation except for its state word; this
 * compares it with what the view was opened on.
 */
#ifndef STATCTR_AGENT_INTEGRITY_H
#define STATCTR_AGENT_INTEGRITY_H

#include "statctr.h"

#include <stdbool.h>

/*
 * integrity_header_matches() - whether the header of the file at @path
 * equals the one @info was taken from (magic, version, sizes, generation,
 * creation, creator, counts).  One open and one pread of 256 bytes; the file
 * is opened O_NOFOLLOW like the library does.  True when @path is gone (the
 * next refresh reports the removal).
 */
bool integrity_header_matches(const char *path, const struct statctr_seg_info *info);

#endif /* STATCTR_AGENT_INTEGRITY_H */
