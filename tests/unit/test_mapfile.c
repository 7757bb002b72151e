/*
 * test_mapfile.c - lib/mapfile.c: docs/segment-format.md, "Opening": what
 * fstat must say of a segment before a byte of it is read - a regular file
 * (no FIFO, directory or link), of the expected owner, writable by nobody
 * else, not sparse - each refused with the right error.
 */
#include "corruptutil.h"

#include <fcntl.h>
#include <sys/stat.h>

/* ---- Opening: what fstat must say before a byte is read. ---- */

static void fifo_is_refused_without_blocking(void)
{
	char path[300];
	struct statctr_view *view;

	snprintf(path, sizeof(path), "%s/fifo", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	alarm(10); /* an open that blocks fails the test instead of hanging it */
	CU_ASSERT_EQUAL(tu_view_open(path, &view), -EPROTO);
	alarm(0);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "not a regular file"));
	unlink(path);
}

/* Writes the reference image to <tmpdir>/@name; @path receives its path. */
static void write_image(const char *name, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", tu_tmpdir(), name);
	f = fopen(path, "wb");
	CU_ASSERT_FATAL(f && fwrite(image, 1, image_size, f) == image_size);
	fclose(f);
}

static void file_of_another_owner_is_refused(void)
{
	char path[300];
	struct statctr_view *view;

	write_image("owned", path, sizeof(path));
	CU_ASSERT_EQUAL(statctr_view_open_owned(path, getuid() + 1, &view), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "expected uid"));
	CU_ASSERT_EQUAL_FATAL(statctr_view_open_owned(path, getuid(), &view), 0);
	statctr_view_close(view);
	unlink(path);
}

/* Anybody could rewrite such a file under its readers; the config refuses the mode too. */
static void world_writable_file_is_refused(void)
{
	char path[300];
	struct statctr_view *view;

	write_image("world", path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(chmod(path, 0646), 0);
	CU_ASSERT_EQUAL(tu_view_open(path, &view), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "writable by every user"));
	CU_ASSERT_EQUAL_FATAL(chmod(path, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(path, &view), 0);
	statctr_view_close(view);
	unlink(path);
}

/* A header claiming 4097 slots of 11 cells over a hole: a planted file. */
static void sparse_file_is_refused_before_any_bulk_read(void)
{
	struct seg_header h;
	uint8_t *copy = malloc(image_size);
	char path[300];
	struct statctr_view *view;
	struct seg_layout l;
	int fd;

	memcpy(copy, image, image_size);
	memcpy(&h, image, sizeof(h));
	h.nslots = STATCTR_MAX_SLOTS;
	l = seg_layout_for(h.ntables, h.ncolumns, h.nbounds, h.nrownames, h.strings_size, h.nrowdir,
	                   h.nslots, h.ncpuslots, h.ncells);
	h.file_size = l.size;
	memcpy(copy, &h, sizeof(h));
	snprintf(path, sizeof(path), "%s/sparse", tu_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_EQUAL(write(fd, copy, image_size), (ssize_t)image_size);
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)l.size), 0);
	close(fd);
	CU_ASSERT_EQUAL(tu_view_open(path, &view), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "sparse"));
	unlink(path);
	free(copy);
}

static void symlink_and_directory_are_refused(void)
{
	char link_path[300], dir_path[300];
	struct statctr_view *view;

	snprintf(link_path, sizeof(link_path), "%s/link", tu_tmpdir());
	snprintf(dir_path, sizeof(dir_path), "%s/dir", tu_tmpdir());
	CU_ASSERT_EQUAL(symlink("/etc/passwd", link_path), 0);
	CU_ASSERT_EQUAL(tu_view_open(link_path, &view), -ELOOP);
	CU_ASSERT_EQUAL(mkdir(dir_path, 0700), 0);
	CU_ASSERT_EQUAL(tu_view_open(dir_path, &view), -EPROTO);
	/* The suite runs once per snapshot mode, in one directory. */
	CU_ASSERT_EQUAL(unlink(link_path), 0);
	CU_ASSERT_EQUAL(rmdir(dir_path), 0);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"symlink_and_directory_are_refused", symlink_and_directory_are_refused},
	    {"fifo_is_refused_without_blocking", fifo_is_refused_without_blocking},
	    {"file_of_another_owner_is_refused", file_of_another_owner_is_refused},
	    {"world_writable_file_is_refused", world_writable_file_is_refused},
	    {"sparse_file_is_refused_before_any_bulk_read",
	     sparse_file_is_refused_before_any_bulk_read},
	    {NULL, NULL},
	};

	return cu_run_both("mapfile", cases);
}
