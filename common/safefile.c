/*
 * safefile.c - output and state files written, and state files read back,
 * without trusting what their names point at (the rules are in safefile.h).
 * Owns no file: every descriptor it opens is closed before it returns.
 * Never follows a link, never renames over anything but a regular file,
 * never waits without bound.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Runs @fill on @fd, then flushes, fsync()s, and closes @fd whatever happens. */
static int write_stream(int fd, int (*fill)(FILE *f, void *arg), void *arg, const char **whyp)
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
	if (err == 0 && fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	return err;
}

/* What @fill writes, in memory (a FIFO is written only once it is all there). */
static int render(int (*fill)(FILE *f, void *arg), void *arg, char **bufp, size_t *lenp)
{
	FILE *f = open_memstream(bufp, lenp);
	int err;

	if (f == NULL)
		return -errno;
	err = fill(f, arg);
	if (fclose(f) != 0 && err == 0)
		err = -ENOMEM;
	if (err < 0) {
		free(*bufp);
		*bufp = NULL;
	}
	return err;
}

static long long monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* All of @buf to non-blocking @fd, giving up after SAFEFILE_STALL_MS without progress. */
static int write_bounded(int fd, const char *buf, size_t len, const char **whyp)
{
	long long stall_at = monotonic_ms() + SAFEFILE_STALL_MS;

	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		long long left;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			stall_at = monotonic_ms() + SAFEFILE_STALL_MS;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			*whyp = "cannot write";
			return -errno;
		}
		left = stall_at - monotonic_ms();
		if (left <= 0) {
			*whyp = "has a reader that takes nothing (gave up after "
			        "SAFEFILE_STALL_MS = 5 s)";
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			*whyp = "cannot wait for its reader";
			return -errno;
		}
	}
	return 0;
}

/* Root or the caller: a FIFO or device of anyone else would receive what it is given. */
static bool owned_by_us(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* A character device or a FIFO (@type), written where it is. */
static int write_in_place(const char *path, mode_t type, int (*fill)(FILE *f, void *arg), void *arg,
                          const char **whyp)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, err;

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
	if (!owned_by_us(&st)) {
		close(fd);
		*whyp = "belongs to another user (refused: it would receive the output)";
		return -EPERM;
	}
	err = render(fill, arg, &buf, &len);
	*whyp = "cannot write";
	if (err == 0)
		err = write_bounded(fd, buf, len, whyp);
	free(buf);
	close(fd);
	return err;
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
		err = write_stream(fd, fill, arg, whyp);
	else
		close(fd);
	if (err == 0)
		err = replace(tmp, path, whyp);
	if (err < 0)
		unlink(tmp);
	free(tmp);
	return err;
}

int safefile_write(const char *path, enum safefile_kind kind, mode_t mode,
                   int (*fill)(FILE *f, void *arg), void *arg, const char **whyp)
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
	case S_IFREG: /* the caller's own file keeps its bits; anyone else's (a planter's) does not
	               */
		return write_replacing(path, st.st_uid == geteuid() ? st.st_mode : mode, fill, arg,
		                       whyp);
	case S_IFCHR:
	case S_IFIFO:
		if (kind == SAFEFILE_OUTPUT)
			return write_in_place(path, st.st_mode & S_IFMT, fill, arg, whyp);
		*whyp = "is a FIFO or a device, not a regular file (refused for a state file)";
		return -EINVAL;
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

/* Why @st may not be trusted as a state file of ours, or NULL. */
static const char *untrusted(const struct stat *st, size_t max, uid_t also)
{
	if (!S_ISREG(st->st_mode))
		return "is not a regular file (refused)";
	if (!owned_by_us(st) && st->st_uid != also)
		return also == (uid_t)-1 ? "belongs to another user (refused: only root's or this "
		                           "user's files are read back)"
		                         : "belongs to another user (refused: only root's, this "
		                           "user's or its directory owner's files are read)";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others (refused: chmod go-w)";
	if ((unsigned long long)st->st_size > max)
		return "is larger than such a file can be (refused)";
	return NULL;
}

/* Reads @fd's @size bytes (the size fstat() gave) into a new buffer. */
static int read_whole(int fd, size_t size, char **bufp, size_t *lenp)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	if (buf == NULL)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* truncated meanwhile: what was there */
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*bufp = buf;
	*lenp = got;
	return 0;
}

static int read_checked(const char *path, size_t max, uid_t also, char **bufp, size_t *lenp,
                        const char **whyp)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	int err;

	*bufp = NULL;
	*lenp = 0;
	if (fd < 0) {
		err = -errno;
		*whyp =
		    err == -ELOOP ? "is a symbolic link (refused: never followed)" : "cannot open";
		return err;
	}
	if (fstat(fd, &st) != 0) {
		err = -errno;
		close(fd);
		*whyp = "cannot look at it";
		return err;
	}
	*whyp = untrusted(&st, max, also);
	if (*whyp) {
		close(fd);
		return -EPERM;
	}
	err = read_whole(fd, (size_t)st.st_size, bufp, lenp);
	close(fd);
	*whyp = "cannot read";
	return err;
}

int safefile_read(const char *path, size_t max, char **bufp, size_t *lenp, const char **whyp)
{
	return read_checked(path, max, (uid_t)-1, bufp, lenp, whyp);
}

/*
 * The owner of @path's directory, when nobody else may create files there
 * (not group- or other-writable): whoever it is could already put anything
 * at @path.  (uid_t)-1 otherwise.
 */
static uid_t directory_owner(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return (uid_t)-1;
	return st.st_uid;
}

int safefile_read_shown(const char *path, size_t max, char **bufp, size_t *lenp, const char **whyp)
{
	return read_checked(path, max, directory_owner(path), bufp, lenp, whyp);
}
