/*
 * test_safefile.c - common/safefile.c: what each kind of thing planted at a
 * name gets, for writes and for reads back.  The attacks as another user
 * are in tests/security/statefiles.sh; here the rules, one by one.
 */
#include "config.h"

#include "safefile.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>

static int fill_hello(FILE *f, void *arg)
{
	(void)arg;
	return fputs("hello\n", f) < 0 ? -EIO : 0;
}

static const char *path_of(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	return path;
}

static void a_new_file_gets_the_mode_and_an_own_file_keeps_its_own(void)
{
	const char *p = path_of("out");
	const char *why = NULL;
	struct stat st;

	unlink(p);
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_OUTPUT, 0640, fill_hello, NULL, &why), 0);
	CU_ASSERT_EQUAL_FATAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
	CU_ASSERT_EQUAL(chmod(p, 0600), 0);
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_STATE, 0644, fill_hello, NULL, &why), 0);
	CU_ASSERT_EQUAL_FATAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(st.st_size, 6);
}

static void links_and_directories_are_refused(void)
{
	const char *p = path_of("link"), *why = NULL;

	unlink(p);
	CU_ASSERT_EQUAL_FATAL(symlink("/etc/passwd", p), 0);
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_OUTPUT, 0644, fill_hello, NULL, &why), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "symbolic link"));
	p = path_of("dir");
	CU_ASSERT_EQUAL_FATAL(mkdir(p, 0700), 0);
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_STATE, 0644, fill_hello, NULL, &why), -EISDIR);
}

static void fifos_never_block(void)
{
	const char *p = path_of("fifo"), *why = NULL;
	char buf[16] = "";
	int rd;

	CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0600), 0);
	/* No reader: an error at once. */
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_OUTPUT, 0644, fill_hello, NULL, &why), -ENXIO);
	/* A state file may not be a FIFO, reader or not. */
	rd = open(p, O_RDONLY | O_NONBLOCK);
	CU_ASSERT_FATAL(rd >= 0);
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_STATE, 0644, fill_hello, NULL, &why), -EINVAL);
	/* An output to our own FIFO with a reader: written in place. */
	CU_ASSERT_EQUAL(safefile_write(p, SAFEFILE_OUTPUT, 0644, fill_hello, NULL, &why), 0);
	CU_ASSERT_EQUAL(read(rd, buf, sizeof(buf) - 1), 6);
	CU_ASSERT_STRING_EQUAL(buf, "hello\n");
	close(rd);
}

/* What safefile_read() says of @path: its errno, with the text in @buf. */
static int read_back(const char *path, size_t max, char *text, size_t size)
{
	const char *why;
	char *buf;
	size_t len;
	int err = safefile_read(path, max, &buf, &len, &why);

	text[0] = '\0';
	if (err == 0) {
		snprintf(text, size, "%s", buf);
		free(buf);
	} else if (why) {
		snprintf(text, size, "%s", why);
	}
	return err;
}

static void reads_back_only_trusted_regular_files(void)
{
	char text[256], fifo[512], link[512], target[512];
	const char *p;

	/* path_of() and tu_write_file() return static buffers: copied before the next call. */
	snprintf(fifo, sizeof(fifo), "%s", path_of("state.fifo"));
	snprintf(link, sizeof(link), "%s", path_of("state.link"));
	snprintf(target, sizeof(target), "%s", tu_write_file("target", "1\n"));
	p = tu_write_file("state", "42\n");

	CU_ASSERT_EQUAL(chmod(p, 0644), 0);
	CU_ASSERT_EQUAL(read_back(p, 64, text, sizeof(text)), 0);
	CU_ASSERT_STRING_EQUAL(text, "42\n");
	CU_ASSERT_EQUAL(read_back(p, 2, text, sizeof(text)), -EPERM); /* larger than it can be */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "larger"));
	CU_ASSERT_EQUAL(chmod(p, 0664), 0);
	CU_ASSERT_EQUAL(read_back(p, 64, text, sizeof(text)), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "writable by group or others"));
	CU_ASSERT_EQUAL(chmod(p, 0646), 0);
	CU_ASSERT_EQUAL(read_back(p, 64, text, sizeof(text)), -EPERM);
	CU_ASSERT_EQUAL(chmod(p, 0644), 0);
	if (geteuid() == 0) { /* a file of another user: only root can make one here */
		CU_ASSERT_EQUAL(chown(p, 65534, 65534), 0);
		CU_ASSERT_EQUAL(read_back(p, 64, text, sizeof(text)), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "another user"));
	} else {
		fprintf(stderr, "\nSKIP: the other-owner case needs root (CI runs as root)\n");
	}
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	CU_ASSERT_EQUAL(read_back(fifo, 64, text, sizeof(text)), -EPERM); /* no writer: no block */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "not a regular file"));
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	CU_ASSERT_EQUAL(read_back(link, 64, text, sizeof(text)), -ELOOP);
	CU_ASSERT_EQUAL(read_back(path_of("absent"), 64, text, sizeof(text)), -ENOENT);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"a_new_file_gets_the_mode_and_an_own_file_keeps_its_own",
	     a_new_file_gets_the_mode_and_an_own_file_keeps_its_own},
	    {"links_and_directories_are_refused", links_and_directories_are_refused},
	    {"fifos_never_block", fifos_never_block},
	    {"reads_back_only_trusted_regular_files", reads_back_only_trusted_regular_files},
	    {NULL, NULL},
	};

	return tu_run("safefile", cases);
}
