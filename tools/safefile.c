/*
 * safefile.c - output files written without trusting what their names
 * point at (see safefile.h).  A shared directory (a sticky /tmp, a state
 * directory) lets another user plant a symbolic link or a device at the
 * name, or at any fixed temporary name next to it: nothing here follows a
 * link, and nothing is renamed over anything but a regular file.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs @fill on @fd, then flushes, fsync()s when @sync, and closes @fd whatever happens. */
static int write_stream(int fd, bool sync, int (*fill)(FILE *f, void *arg), void *arg,
                        const char **whyp)
{
	FILE *f = fdopen(fd, "w");
	int err;

	*whyp = "cannot write";
	if (f == NULL) {
		err = -errno;
		close(fd);
		return err;
	}
	err = fill(f, arg);
	if (fflush(f) != 0 && err == 0)
		err = -errno;
	if (sync && err == 0 && fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	return err;
}

/* A character device or a FIFO (@type), written where it is. */
static int write_in_place(const char *path, mode_t type, int (*fill)(FILE *f, void *arg), void *arg,
                          const char **whyp)
{
	struct stat st;
	int fd, err, flags;

	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		*whyp =
		    err == -ENXIO && type == S_IFIFO ? "is a FIFO without a reader" : "cannot open";
		return err;
	}
	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type) {
		close(fd);
		*whyp = "was replaced while being opened";
		return -EAGAIN;
	}
	/* A reader exists: from here a full pipe waits for it rather than failing. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		err = -errno;
		close(fd);
		*whyp = "cannot write";
		return err;
	}
	return write_stream(fd, false, fill, arg, whyp);
}

/* "DIR/.NAME.XXXXXX" for @path "DIR/NAME" (or "NAME"), malloc()ed. */
static char *temp_template(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char *tmp = NULL;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dirlen, path, name) < 0)
		return NULL;
	return tmp;
}

/* Renames @tmp over @path if @path is still absent or a regular file. */
static int replace(const char *tmp, const char *path, const char **whyp)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*whyp = "was replaced by something other than a regular file (refused)";
		return -EEXIST;
	}
	if (rename(tmp, path) != 0) {
		*whyp = "cannot rename the temporary file over it";
		return -errno;
	}
	return 0;
}

/* Absent or a regular file: a new temporary file in the same directory, renamed over it. */
static int write_replacing(const char *path, mode_t mode, int (*fill)(FILE *f, void *arg),
                           void *arg, const char **whyp)
{
	char *tmp = temp_template(path);
	int fd, err;

	*whyp = "cannot create a temporary file next to it";
	if (tmp == NULL)
		return -ENOMEM;
	/* mkostemp() opens with O_CREAT | O_EXCL: a name planted there is never followed. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = fchmod(fd, mode & 0777) != 0 ? -errno : 0;
	if (err == 0)
		err = write_stream(fd, true, fill, arg, whyp);
	else
		close(fd);
	if (err == 0)
		err = replace(tmp, path, whyp);
	if (err < 0)
		unlink(tmp);
	free(tmp);
	return err;
}

int safefile_write(const char *path, mode_t mode, int (*fill)(FILE *f, void *arg), void *arg,
                   const char **whyp)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			*whyp = "cannot look at it";
			return -errno;
		}
		return write_replacing(path, mode, fill, arg, whyp);
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return write_replacing(path, st.st_mode, fill, arg, whyp);
	case S_IFCHR:
	case S_IFIFO:
		return write_in_place(path, st.st_mode & S_IFMT, fill, arg, whyp);
	case S_IFLNK:
		*whyp = "is a symbolic link (refused: never followed)";
		return -ELOOP;
	case S_IFDIR:
		*whyp = "is a directory (refused)";
		return -EISDIR;
	default:
		*whyp = "is neither a regular file, a character device nor a FIFO (refused)";
		return -EINVAL;
	}
}
