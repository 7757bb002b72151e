/*
 * ifindex.h - the ifIndex of each IF-MIB row name, stable across writer
 * and agent restarts (docs/agent.md, "Show up in your NMS as interfaces").
 *
 * A name gets the lowest ifIndex of its table's range above every one the
 * table's names hold, and keeps it: an ifIndex is never given to another
 * name, neither while the agent runs nor later, as long as the store file
 * lives.  The store file (agent.state_file with ".ifindex" appended) holds
 * one line per name, "IFINDEX SEGMENT TABLE ROWNAME".  It is read back with
 * safefile_read() (only a file of the agent's user or root, not writable by
 * group or others: a planted file would swap interfaces) in O(n log n), and
 * rewritten with safefile_write() (never through a link, never a FIFO) by
 * the store's own thread, at most every WRITE_DELAY_MS after names were
 * added: the SNMP thread never does file I/O for it.  A name added less
 * than that before a crash may get another ifIndex at the next start.
 * Without a file, the numbering lives as long as the process.  Only the
 * SNMP thread calls these functions.
 */
#ifndef STATCTR_AGENT_IFINDEX_H
#define STATCTR_AGENT_IFINDEX_H

#include <stdint.h>

struct ifindex_store;

/*
 * ifindex_open() - the store kept in @path (NULL: in memory only), with
 * the names the file holds.  A missing file is an empty store; an
 * unreadable one or a bad line is logged and skipped (the names it held
 * get new values).  Returns 0 or -ENOMEM.
 */
int ifindex_open(const char *path, struct ifindex_store **sp);
void ifindex_close(struct ifindex_store *s);

/*
 * ifindex_start() - starts the store's writer thread (once; none without a
 * file); the names marked before are written then.  Called after a
 * daemon's fork, which keeps no thread.  Returns 0 or a negative errno.
 */
int ifindex_start(struct ifindex_store *s);

/*
 * ifindex_get() - the ifIndex of row @row of table @table of segment
 * @segment, in @base..@base+@n-1; a new name is given the next free one
 * and written to the file.  Returns 0, or -ENOSPC when the range is used
 * up (the row gets none), or -ENOMEM.
 */
int ifindex_get(struct ifindex_store *s, const char *segment, const char *table, const char *row,
                uint32_t base, uint32_t n, uint32_t *ifindexp);

/*
 * ifindex_reach() - how far into @base..@base+@n-1 the names of table
 * @table of segment @segment reach: one above the highest ifIndex they hold
 * there, less @base (0: none, @n: the range is used up).  The next new
 * name gets @base plus this.  Returns it, or -ENOMEM.
 */
int64_t ifindex_reach(struct ifindex_store *s, const char *segment, const char *table,
                      uint32_t base, uint32_t n);

#endif /* STATCTR_AGENT_IFINDEX_H */
