/*
 * test_corrupt.c - crafted, truncated and hostile segment files are rejected
 * with the right error and never crash a reader.
 */
#include "internal.h"
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *seg_path;
static uint8_t *image; /* bytes of a valid segment */
static size_t image_size;

/* Captures the bytes of a freshly created segment (runs before CUnit). */
static int make_image(void)
{
	struct statctr_seg *seg;
	FILE *f;
	const char *conf =
	    tu_config(2,
	              "{ name = \"named\"; rows = [\"a\", \"b\"]; "
	              "columns = ( { name = \"c\"; kind = \"counter\"; } ); }, " TU_SIMPLE_TABLE(3),
	              &seg_path);

	if (statctr_seg_create(conf, "seg", &seg) != 0)
		return -1;
	f = fopen(seg_path, "rb");
	if (f && fseek(f, 0, SEEK_END) == 0) {
		image_size = (size_t)ftell(f);
		rewind(f);
		image = malloc(image_size);
		if (image && fread(image, 1, image_size, f) != image_size) {
			free(image);
			image = NULL;
		}
	}
	if (f)
		fclose(f);
	statctr_seg_destroy(seg);
	return image ? 0 : -1;
}

/* Writes @size bytes of @bytes as a segment file and opens a view of it. */
static int open_bytes(const uint8_t *bytes, size_t size)
{
	char path[300];
	struct statctr_view *view;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/crafted", tu_tmpdir());
	f = fopen(path, "wb");
	fwrite(bytes, 1, size, f);
	fclose(f);
	err = statctr_view_open(path, &view);
	if (err == 0) {
		struct statctr_snap *snap;

		if (statctr_snap_take(view, &snap) == 0)
			statctr_snap_free(snap);
		statctr_view_close(view);
	}
	unlink(path);
	return err;
}

/* Opens the image with the u32 or u64 at @off replaced by @value. */
static int open_patched(size_t off, uint64_t value, int width)
{
	uint8_t *copy = malloc(image_size);
	int err;

	memcpy(copy, image, image_size);
	if (width == 4) {
		uint32_t v = (uint32_t)value;

		memcpy(copy + off, &v, 4);
	} else {
		memcpy(copy + off, &value, 8);
	}
	err = open_bytes(copy, image_size);
	free(copy);
	return err;
}

static void valid_image_opens(void)
{
	CU_ASSERT_EQUAL(open_bytes(image, image_size), 0);
}

static void header_fields_are_checked(void)
{
	CU_ASSERT_EQUAL(open_patched(0, 0x4b4b4b4b, 4), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "bad magic"));
	CU_ASSERT_EQUAL(open_patched(8, 2, 4), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "version 2"));
	CU_ASSERT_EQUAL(open_patched(12, 128, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(16, image_size + 64, 8), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "file_size"));
	CU_ASSERT_EQUAL(open_patched(24, 0, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(56, 0, 4), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "nslots"));
	CU_ASSERT_EQUAL(open_patched(56, 1u << 20, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(60, 1u << 30, 4), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(64, 1000000, 4), -EPROTO);
}

static void region_offsets_are_checked(void)
{
	CU_ASSERT_EQUAL(open_patched(88, image_size - 8, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(88, 8, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(112, UINT64_MAX - 10, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(120, UINT64_MAX / 2, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(128, image_size, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(128, 100, 8), -EPROTO);
	CU_ASSERT_EQUAL(open_patched(136, 64, 8), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "slot"));
}

static void records_are_checked(void)
{
	size_t table0 = HEADER_SIZE, column0 = HEADER_SIZE + 2 * sizeof(struct seg_table);

	CU_ASSERT_EQUAL(open_patched(table0 + 0, 1u << 30, 4), -EPROTO); /* name */
	CU_ASSERT_EQUAL(open_patched(table0 + 12, 0, 4), -EPROTO);       /* nrows */
	CU_ASSERT_EQUAL(open_patched(table0 + 16, 99, 4), -EPROTO);      /* ncolumns */
	CU_ASSERT_EQUAL(open_patched(table0 + 24, 77, 4), -EPROTO);      /* first_rowname */
	CU_ASSERT_EQUAL(open_patched(table0 + 28, 5, 4), -EPROTO);       /* overlaps table 1 */
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "overlaps"));
	CU_ASSERT_EQUAL(open_patched(column0 + 12, 7, 4), -EPROTO); /* kind */
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "kind 7"));
}

static void truncated_files_are_rejected(void)
{
	size_t cut[] = {0, 1, 100, HEADER_SIZE, HEADER_SIZE + 40, image_size / 2, image_size - 1};
	unsigned i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		CU_ASSERT_EQUAL(open_bytes(image, cut[i]), -EPROTO);
}

static void random_corruption_never_crashes(void)
{
	uint8_t *copy = malloc(image_size);
	uint64_t seed = 12345;
	unsigned i, j, opened = 0, rejected = 0;

	for (i = 0; i < 2000; i++) {
		memcpy(copy, image, image_size);
		for (j = 0; j < 1 + i % 8; j++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			/* Mostly the header and metadata, where the structure is. */
			copy[seed % (i % 2 ? 1024 : image_size)] = (uint8_t)(seed >> 32);
		}
		if (open_bytes(copy, image_size) == 0)
			opened++;
		else
			rejected++;
	}
	free(copy);
	CU_ASSERT_EQUAL(opened + rejected, 2000);
	CU_ASSERT(rejected > 0);
}

static void symlink_and_directory_are_refused(void)
{
	char link_path[300], dir_path[300];
	struct statctr_view *view;

	snprintf(link_path, sizeof(link_path), "%s/link", tu_tmpdir());
	snprintf(dir_path, sizeof(dir_path), "%s/dir", tu_tmpdir());
	CU_ASSERT_EQUAL(symlink("/etc/passwd", link_path), 0);
	CU_ASSERT_EQUAL(statctr_view_open(link_path, &view), -ELOOP);
	CU_ASSERT_EQUAL(mkdir(dir_path, 0700), 0);
	CU_ASSERT_EQUAL(statctr_view_open(dir_path, &view), -EPROTO);
}

static void file_shrunk_under_mapping_gives_estale_not_sigbus(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_snap *snap;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &view), 0);
	CU_ASSERT_EQUAL(truncate(seg_path, HEADER_SIZE), 0);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), -ESTALE);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "changed size"));
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

/* Reads the first cell of slot 0 of a mapping, bypassing every size check. */
static int read_first_cell(void *arg)
{
	const struct statctr_view *view = arg;

	return (int)atomic_load(
	    (const _Atomic uint64_t *)(view->base + view->meta.hdr->slots_off + LINE));
}

/* A writer that creates the segment and exits (its files stay). */
static void create_in_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct statctr_seg *seg;

		_exit(statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg",
		                         &seg) != 0);
	}
	waitpid(pid, &status, 0);
	CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void fault_on_a_truncated_mapping_becomes_estale(void)
{
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	char ctl[320];

	tu_config(2, TU_SIMPLE_TABLE(3), &seg_path);
	create_in_child();
	CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &view), 0);
	CU_ASSERT_EQUAL(guard_run(read_first_cell, view, "x"), 0);
	CU_ASSERT_EQUAL(truncate(seg_path, 0), 0);
	CU_ASSERT_EQUAL(guard_run(read_first_cell, view, "x"), -ESTALE);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "truncated while mapped"));
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.status, STATCTR_SEG_STALE);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_DEAD);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), -ESTALE);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), -ESTALE);
	statctr_view_close(view);
	snprintf(ctl, sizeof(ctl), "%s.ctl", seg_path);
	unlink(seg_path);
	unlink(ctl);
}

static void rewrite_in_place_is_noticed_by_refresh(void)
{
	struct statctr_view *view;
	struct statctr_seg_info info;
	int fd;

	tu_config(2, TU_SIMPLE_TABLE(3), &seg_path);
	create_in_child();
	CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &view), 0);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	/* Garbage over the header, same inode and size. */
	fd = open(seg_path, O_WRONLY);
	CU_ASSERT_EQUAL(pwrite(fd, "garbage!", 8, 0), 8);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "rewritten in place"));
	/* A valid segment written back in place: the view follows it. */
	CU_ASSERT_EQUAL(pwrite(fd, image, image_size, 0), (ssize_t)image_size);
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)image_size), 0);
	close(fd);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 1);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.ncells, 2 + 9);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_close(view);
	unlink(seg_path);
}

static void corrupt_control_file_leaves_a_view_without_resets(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	char ctl[320];
	int fd;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	snprintf(ctl, sizeof(ctl), "%s.ctl", seg_path);
	fd = open(ctl, O_WRONLY);
	CU_ASSERT_EQUAL(pwrite(fd, "XXXXXXXX", 8, 0), 8);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 0);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), -EACCES);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"valid_image_opens", valid_image_opens},
	    {"header_fields_are_checked", header_fields_are_checked},
	    {"region_offsets_are_checked", region_offsets_are_checked},
	    {"records_are_checked", records_are_checked},
	    {"truncated_files_are_rejected", truncated_files_are_rejected},
	    {"random_corruption_never_crashes", random_corruption_never_crashes},
	    {"symlink_and_directory_are_refused", symlink_and_directory_are_refused},
	    {"file_shrunk_under_mapping_gives_estale_not_sigbus",
	     file_shrunk_under_mapping_gives_estale_not_sigbus},
	    {"fault_on_a_truncated_mapping_becomes_estale",
	     fault_on_a_truncated_mapping_becomes_estale},
	    {"rewrite_in_place_is_noticed_by_refresh", rewrite_in_place_is_noticed_by_refresh},
	    {"corrupt_control_file_leaves_a_view_without_resets",
	     corrupt_control_file_leaves_a_view_without_resets},
	    {NULL, NULL},
	};
	int rc;

	if (make_image() != 0) {
		fprintf(stderr, "test_corrupt: cannot build the reference segment: %s\n",
		        statctr_errmsg());
		return 1;
	}
	rc = tu_run("corrupt", cases);
	free(image);
	return rc;
}
