/*
 * bisect.h - the one bisection of agent/: every sorted array the engine and
 * its backends search by OID arcs (the segments by oid, a region's columns,
 * a segment's tables by first cell, present rows, cell ids, kept epochs,
 * IF-MIB rows by ifIndex, disabled link-trap ifIndexes) goes through
 * BISECT_FIRST, so there is one O(log n) loop to read and get right.
 */
#ifndef STATCTR_AGENT_BISECT_H
#define STATCTR_AGENT_BISECT_H

#include <stddef.h>

/*
 * BISECT_FIRST(n, mid, below) - the first position of 0..@n at which the
 * expression @below, evaluated with size_t @mid set to a position, is
 * false; @n when it is true everywhere.  @below must be true on a prefix
 * of the positions and false after it (the array is sorted by what it
 * compares), as for C++'s std::partition_point.  @below is evaluated
 * O(log n) times, never at @n.
 */
#define BISECT_FIRST(n, mid, below)                                                                \
	__extension__({                                                                            \
		size_t bisect_lo_ = 0, bisect_hi_ = (n);                                           \
		while (bisect_lo_ < bisect_hi_) {                                                  \
			size_t mid = bisect_lo_ + (bisect_hi_ - bisect_lo_) / 2;                   \
			if (below)                                                                 \
				bisect_lo_ = mid + 1;                                              \
			else                                                                       \
				bisect_hi_ = mid;                                                  \
		}                                                                                  \
		bisect_lo_;                                                                        \
	})

#endif /* STATCTR_AGENT_BISECT_H */
