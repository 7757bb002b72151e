/*
 * test_view.c - lib/view.c: what a view does with files rewritten after it
 * opened them: a segment rewritten in place (refresh), a state no writer
 * stores, and every rule of the control file's header - a corrupt, sparse,
 * foreign, replaced, truncated or rewritten control file leaves the view
 * without resets (or is revalidated), and its offsets are never used.
 */
#include "corruptutil.h"

#include <fcntl.h>
#include <sys/stat.h>

static void rewrite_in_place_is_noticed_by_refresh(void)
{
	struct statctr_view *view;
	struct statctr_seg_info info;
	int fd;

	tu_config(2, TU_SIMPLE_TABLE(3), &seg_path);
	create_in_child();
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
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
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 0);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), -EACCES);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

/* Stores @size bytes of @bytes at @off of the file @path. */
static void poke(const char *path, uint64_t off, const void *bytes, size_t size)
{
	int fd = open(path, O_WRONLY);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, bytes, size, (off_t)off), (ssize_t)size);
	close(fd);
}

static void ctl_path_of(char *ctl, size_t size)
{
	snprintf(ctl, size, "%s.ctl", seg_path);
}

/* The state is read live: a value no writer stores makes the segment corrupt. */
static void state_outside_1_2_makes_the_view_report_corruption(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	uint32_t bad = 7, active = SEG_STATE_ACTIVE;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	poke(seg_path, offsetof(struct seg_header, state), &bad, 4);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.status, STATCTR_SEG_STALE);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "state 7"));
	CU_ASSERT_EQUAL(statctr_view_refresh(view), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "state 7"));
	poke(seg_path, offsetof(struct seg_header, state), &active, 4);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.status, STATCTR_SEG_ACTIVE);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

/* Every rule of the control file's header, each leaving a view without resets. */
static void control_header_must_match_the_segment_and_its_layout(void)
{
	static const struct {
		size_t off;
		uint64_t value;
		int width;
		const char *why;
	} patch[] = {
	    {offsetof(struct ctl_header, magic), 0x58585858, 4, "not a version-1 control file"},
	    {offsetof(struct ctl_header, version), 2, 4, "not a version-1 control file"},
	    {offsetof(struct ctl_header, header_size), 64, 4, "not a version-1 control file"},
	    {offsetof(struct ctl_header, file_size), 1 << 20, 8, "not a version-1 control file"},
	    {offsetof(struct ctl_header, generation), 42, 8, "another generation"},
	    {offsetof(struct ctl_header, nslots), 3, 4, "3 slots"},
	    {offsetof(struct ctl_header, ncells), 8, 4, "8 cells"},
	    {offsetof(struct ctl_header, reqs_off), 0x4141414141414141ull, 8, "reqs_off is"},
	    {offsetof(struct ctl_header, baselines_off), 320, 8, "baselines_off is"},
	    {offsetof(struct ctl_header, disc_off), 0, 8, "disc_off is"},
	    {offsetof(struct ctl_header, buf_off), 1 << 30, 8, "buf_off is"},
	};
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct ctl_header good;
	char ctl[320];
	size_t i;
	int fd;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	ctl_path_of(ctl, sizeof(ctl));
	fd = open(ctl, O_RDONLY);
	CU_ASSERT_EQUAL_FATAL(pread(fd, &good, sizeof(good), 0), (ssize_t)sizeof(good));
	close(fd);
	for (i = 0; i < sizeof(patch) / sizeof(patch[0]); i++) {
		poke(ctl, patch[i].off, &patch[i].value, (size_t)patch[i].width);
		CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
		statctr_view_info(view, &info);
		CU_ASSERT_EQUAL(info.can_reset, 0);
		if (!strstr(statctr_errmsg(), patch[i].why))
			fprintf(stderr, "\n    ctl patch %zu: \"%s\"\n", i, statctr_errmsg());
		CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), patch[i].why));
		CU_ASSERT_EQUAL(statctr_reset(view, 0), -EACCES);
		statctr_view_close(view);
		poke(ctl, 0, &good, sizeof(good));
	}
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 1);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static void sparse_or_foreign_control_file_is_not_used(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct stat st;
	char ctl[320], copy[330];
	uint8_t header[HEADER_SIZE];
	int fd;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(300), &seg_path), "seg", &seg), 0);
	ctl_path_of(ctl, sizeof(ctl));
	snprintf(copy, sizeof(copy), "%s.new", ctl);
	/* The same header over a hole: a control file nobody paid for. */
	CU_ASSERT_EQUAL_FATAL(stat(ctl, &st), 0);
	fd = open(ctl, O_RDONLY);
	CU_ASSERT_EQUAL(pread(fd, header, sizeof(header), 0), (ssize_t)sizeof(header));
	close(fd);
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_EQUAL(write(fd, header, sizeof(header)), (ssize_t)sizeof(header));
	CU_ASSERT_EQUAL(ftruncate(fd, st.st_size), 0);
	close(fd);
	CU_ASSERT_EQUAL(rename(copy, ctl), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "sparse"));
	statctr_view_close(view);
	/* A control file of another owner than the required one (root can plant
	 * it): the whole open fails, as for the segment. */
	if (getuid() == 0) {
		CU_ASSERT_EQUAL(chown(ctl, 1, (gid_t)-1), 0);
		CU_ASSERT_EQUAL(statctr_view_open_owned(seg_path, 0, &view), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), ".ctl is owned by uid 1"));
	}
	statctr_seg_destroy(seg);
}

/* What a resetter stores into the control file's header after open is never used. */
static void control_offsets_rewritten_after_open_are_never_used(void)
{
	const uint64_t wild = 0x4141414141414141ull;
	const uint64_t wild4[4] = {wild, wild, wild, wild};
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	struct statctr_view *view;
	struct statctr_snap *snap;
	uint64_t lock = UINT64_MAX, bufslot = UINT32_MAX;
	char ctl[320];

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	statctr_add(slot, 0, 10);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	ctl_path_of(ctl, sizeof(ctl));
	poke(ctl, offsetof(struct ctl_header, reqs_off), wild4, sizeof(wild4));
	poke(ctl, offsetof(struct ctl_header, nslots), &wild, 8);
	poke(ctl, offsetof(struct ctl_header, buf_lock), &lock, 8);
	poke(ctl, offsetof(struct ctl_header, buf_slot), &bufslot, 4);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), 0);
	statctr_add(slot, 0, 5);
	statctr_txn_begin(slot); /* makes the snapshot ask for a copy */
	statctr_add(slot, 1, 1);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 5);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 0), 15);
	statctr_snap_free(snap);
	statctr_txn_end(slot);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static void refresh_revalidates_a_replaced_or_truncated_control_file(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	char ctl[320], saved[330];
	uint8_t *bytes;
	struct stat st;
	int fd;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	ctl_path_of(ctl, sizeof(ctl));
	snprintf(saved, sizeof(saved), "%s.saved", ctl);
	CU_ASSERT_EQUAL_FATAL(stat(ctl, &st), 0);
	bytes = malloc((size_t)st.st_size);
	fd = open(ctl, O_RDONLY);
	CU_ASSERT_EQUAL(read(fd, bytes, (size_t)st.st_size), st.st_size);
	close(fd);
	/* Truncated: snapshots say stale until a refresh drops the file. */
	CU_ASSERT_EQUAL(truncate(ctl, 0), 0);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), -ESTALE);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 0);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_free(snap);
	/* A valid control file renamed into place is validated and used. */
	fd = open(saved, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_EQUAL(write(fd, bytes, (size_t)st.st_size), st.st_size);
	close(fd);
	CU_ASSERT_EQUAL(rename(saved, ctl), 0);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 1);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), 0);
	/* Rewritten in place with another layout: not used any more. */
	poke(ctl, offsetof(struct ctl_header, disc_off), "AAAAAAAA", 8);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.can_reset, 0);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), -EACCES);
	free(bytes);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"rewrite_in_place_is_noticed_by_refresh", rewrite_in_place_is_noticed_by_refresh},
	    {"corrupt_control_file_leaves_a_view_without_resets",
	     corrupt_control_file_leaves_a_view_without_resets},
	    {"state_outside_1_2_makes_the_view_report_corruption",
	     state_outside_1_2_makes_the_view_report_corruption},
	    {"control_header_must_match_the_segment_and_its_layout",
	     control_header_must_match_the_segment_and_its_layout},
	    {"sparse_or_foreign_control_file_is_not_used",
	     sparse_or_foreign_control_file_is_not_used},
	    {"control_offsets_rewritten_after_open_are_never_used",
	     control_offsets_rewritten_after_open_are_never_used},
	    {"refresh_revalidates_a_replaced_or_truncated_control_file",
	     refresh_revalidates_a_replaced_or_truncated_control_file},
	    {NULL, NULL},
	};

	return cu_run_both("view", cases);
}
