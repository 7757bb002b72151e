/*
 * mapfile.c - the shared files' opening and creation: a file opened without
 * blocking or following a link and judged by fstat before a byte is read
 * (docs/segment-format.md, "Opening"), and a new moded, fully allocated,
 * mapped temporary file.  For the segment and control files (view.c,
 * segment.c) and the epoch file (epochfile.c) alike.
 *
 * Owns those open-time rules, once.  Never reads a file's contents, never
 * renames or publishes a file (its callers do, once it is valid), never
 * knows a segment's, control file's or epoch file's format.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens @path without blocking (FIFO, device) and without following a link. */
int view_open_nofollow(const char *path, int flags, int *fdp)
{
	int fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		*fdp = fd;
		return 0;
	}
	if (errno == ENOENT)
		return errmsg_set(ENOENT, "no file %s", path);
	if (errno == ELOOP)
		return errmsg_set(ELOOP, "%s is a symbolic link: refused", path);
	return errmsg_set(errno, "cannot open %s: %s", path, strerror(errno));
}

/*
 * Opens @path as view_open_nofollow() does, read-write if we may, else
 * read-only (the control and epoch files: a reader without write access
 * still reads them); *@writablep says which.
 */
int view_open_rw_or_ro(const char *path, int *fdp, bool *writablep)
{
	int err = view_open_nofollow(path, O_RDWR, fdp);

	*writablep = err == 0;
	if (err == -EACCES || err == -EROFS || err == -EPERM)
		err = view_open_nofollow(path, O_RDONLY, fdp);
	return err;
}

/* A reader that names the expected owner refuses files planted by others. */
static int check_owner(const struct statctr_view *v, const char *path, uid_t uid)
{
	if (v->owner == (uid_t)-1 || uid == v->owner)
		return 0;
	return errmsg_set(EPERM, "%s is owned by uid %u, not the expected uid %u", path,
	                  (unsigned)uid, (unsigned)v->owner);
}

/*
 * What fstat must say before a byte is read (docs/segment-format.md,
 * "Opening"): a regular file of the expected owner, long enough for a
 * header, and every byte allocated, so that reading it faults in nothing
 * the file's creator did not pay for.
 */
int view_check_stat(const struct statctr_view *v, const char *path, int fd, struct stat *st)
{
	int err;

	if (fstat(fd, st) != 0)
		return errmsg_set(errno, "cannot stat %s: %s", path, strerror(errno));
	if (!S_ISREG(st->st_mode))
		return errmsg_set(EPROTO, "%s is not a regular file (mode 0%o)", path,
		                  (unsigned)st->st_mode);
	err = check_owner(v, path, st->st_uid);
	if (err)
		return err;
	/* The configuration refuses such modes too (docs/config.md). */
	if (st->st_mode & S_IWOTH)
		return errmsg_set(EPERM, "%s is writable by every user (mode 0%o): refused", path,
		                  (unsigned)(st->st_mode & 07777));
	if (st->st_size < (off_t)HEADER_SIZE)
		return errmsg_set(EPROTO, "%s: %lld bytes, shorter than a %u-byte header", path,
		                  (long long)st->st_size, HEADER_SIZE);
	if ((uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size)
		return errmsg_set(EPROTO, "%s is sparse (%llu of %lld bytes allocated): refused",
		                  path, (unsigned long long)st->st_blocks * 512,
		                  (long long)st->st_size);
	return 0;
}

/* A temporary file's name suffix: random, so that names do not collide. */
static uint64_t tmp_suffix(void)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = realtime_ns() ^ ((uint64_t)getpid() << 32);
	return r;
}

static int group_id(const char *group, gid_t *gidp)
{
	struct group gr, *found = NULL;
	char buf[4096];

	if (getgrnam_r(group, &gr, buf, sizeof(buf), &found) != 0 || !found)
		return errmsg_set(EINVAL, "unknown group %s", group);
	*gidp = found->gr_gid;
	return 0;
}

/*
 * Creates a temporary file next to @path, moded and fully allocated, and
 * maps it read-write.  posix_fallocate(), not ftruncate(): a valid segment
 * is never sparse (readers refuse sparse files), and a page the writer
 * touches later can never fault for want of tmpfs space.  On success
 * *tmp_path holds its name (caller frees).
 */
int create_mapped(const char *path, uint64_t size, mode_t mode, const char *group, char **tmp_path,
                  uint8_t **basep)
{
	char *tmp = NULL;
	gid_t gid;
	int fd, err = 0;
	uint64_t rnd = tmp_suffix();

	if (group && (err = group_id(group, &gid)) != 0)
		return err;
	if (asprintf(&tmp, "%s.tmp%016llx", path, (unsigned long long)rnd) < 0)
		return errmsg_set(ENOMEM, "out of memory");
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errmsg_set(errno, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return err;
	}
	if (fchmod(fd, mode) != 0 || (group && fchown(fd, (uid_t)-1, gid) != 0))
		err = errmsg_set(errno, "cannot set mode/group of %s: %s", tmp, strerror(errno));
	else if ((err = posix_fallocate(fd, 0, (off_t)size)) != 0)
		err = errmsg_set(err, "cannot allocate %llu bytes for %s: %s",
		                 (unsigned long long)size, tmp, strerror(err));
	if (!err) {
		void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (base == MAP_FAILED)
			err = errmsg_set(errno, "cannot map %s: %s", tmp, strerror(errno));
		else
			*basep = base;
	}
	close(fd);
	if (err) {
		unlink(tmp);
		free(tmp);
		return err;
	}
	*tmp_path = tmp;
	return 0;
}
