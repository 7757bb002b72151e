/*
 * safefile.h - every file statctl and the agent write, and every file the
 * agent reads back, goes through here (docs/security.md, "Files in shared
 * directories").  A shared directory (a sticky /tmp, /dev/shm, a state
 * directory) lets another user plant a symbolic link, a FIFO, a device or a
 * file of their own at the name, or at any fixed temporary name next to it.
 *
 * Rules, for writes:
 *   - nothing is followed: a symbolic link is refused (-ELOOP);
 *   - nothing blocks without bound: a FIFO or character device is opened
 *     O_NONBLOCK and written with a bounded wait (SAFEFILE_STALL_MS without
 *     progress gives -ETIMEDOUT); a state file may not be one at all;
 *   - a FIFO or device of another user (not the caller, not root) is
 *     refused: writing it would hand them the output;
 *   - a regular file is never written in place: a new file, created
 *     O_EXCL under a random name in the same directory, fsync()ed, is
 *     renamed over it, and only over a regular file.  It gets the mode
 *     given here, or the permission bits of the file it replaces when that
 *     was the caller's own: never those of another user's (a planter's
 *     0666 would let the planter edit the output).
 * For reads back (state files): the file must be regular, not a link, owned
 * by the caller's effective user or root, not writable by group or others,
 * and at most the size the caller expects; it is read whole, once, into
 * private memory.
 * Compiled into a convenience library both statctl and the agent link.
 */
#ifndef STATCTR_SAFEFILE_H
#define STATCTR_SAFEFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What a written path may be. */
enum safefile_kind {
	SAFEFILE_OUTPUT, /* an operator's output (-o): regular file, own FIFO or device */
	SAFEFILE_STATE,  /* a file read back later (pid, ifIndex, boots, time base): regular only */
};

/* A FIFO's reader that takes nothing for this long makes the write fail. */
#define SAFEFILE_STALL_MS 5000

/*
 * safefile_write() - writes what @fill(f, @arg) writes to @path under the
 * rules above; a new regular file, or one replacing another user's, gets
 * permission bits @mode.
 * @fill returns 0 or a negative errno.  Returns 0 or a negative errno, with
 * *@whyp saying what failed ("is a symbolic link (refused: never
 * followed)", ...).  Not thread-safe against other writers of @path.
 */
int safefile_write(const char *path, enum safefile_kind kind, mode_t mode,
                   int (*fill)(FILE *f, void *arg), void *arg, const char **whyp);

/*
 * safefile_read() - the whole of state file @path, at most @max bytes, in a
 * malloc()ed buffer *@bufp (NUL-terminated; *@lenp bytes before the NUL).
 * Returns 0, -ENOENT (absent: not an error for most callers), or a negative
 * errno with *@whyp naming the rule the file broke.  Never blocks in open.
 */
int safefile_read(const char *path, size_t max, char **bufp, size_t *lenp, const char **whyp);

/*
 * safefile_read_shown() - safefile_read() for a file another user's
 * program keeps for this one to show (statctl reading the agent's
 * STATE_FILE.notifications): it may also belong to the owner of its
 * directory, when that directory is not group- or other-writable.
 */
int safefile_read_shown(const char *path, size_t max, char **bufp, size_t *lenp, const char **whyp);

#endif /* STATCTR_SAFEFILE_H */
