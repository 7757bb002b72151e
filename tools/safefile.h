/*
 * safefile.h - writes an output file without following, or replacing,
 * anything that may have been planted at its name (statctl mib -o, the
 * agent's state_file).  Compiled into both statctl and the agent.
 */
#ifndef STATCTR_SAFEFILE_H
#define STATCTR_SAFEFILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * safefile_write() - writes what @fill(f, @arg) writes to @path, by kind of
 * what @path names now:
 *   absent or a regular file: into a new temporary file in the same
 *     directory (O_CREAT | O_EXCL, random name), fsync()ed, then renamed
 *     over @path, so @path is never half written.  A new file gets @mode,
 *     a replaced one keeps its permission bits;
 *   a character device or a FIFO: written in place, opened non-blocking
 *     and without following links (a FIFO without a reader is an error
 *     (-ENXIO), not a hang);
 *   a symbolic link: refused (-ELOOP), never followed;
 *   a directory or anything else: refused.
 * @fill returns 0 or a negative errno.  Returns 0 or a negative errno, with
 * *@whyp saying what failed ("is a symbolic link (refused)", ...).
 * Not thread-safe against other writers of the same @path.
 */
int safefile_write(const char *path, mode_t mode, int (*fill)(FILE *f, void *arg), void *arg,
                   const char **whyp);

#endif /* STATCTR_SAFEFILE_H */
