/*
 * test_epochfile.c - the epoch file (lib/epochfile.c): crafted files refused
 * as segments are, the bounded read of a seq left odd and its repair, and
 * the writer's takeover of a lock another process holds.
 */
#include "epochutil.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- an odd seq left behind ---- */

static uint64_t seq_in_file(void)
{
	uint64_t seq = 0;
	int fd = open(epoch_path(), O_RDONLY);

	CU_ASSERT_EQUAL(pread(fd, &seq, sizeof(seq), 64), sizeof(seq));
	close(fd);
	return seq;
}

/*
 * A seq left odd (a starter killed between its stores, or one 8-byte store
 * by a resetter): a read gives up within its budget saying why, the reads
 * after it fail at once (50 deltas, as a GETBULK of interval varbinds,
 * within 50 ms), and once nobody holds the lock a view that may store
 * repairs it and reads again.
 */
static void odd_seq_costs_one_budget_then_is_repaired(void)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_snap *snap;
	struct statctr_epoch e[4];
	uint64_t odd, d, t0;
	int fd, rc = 0;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(EPOCHS(4)), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "a", NULL), 0);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "b", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	odd = seq_in_file() + 1;
	fd = open(epoch_path(), O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(flock(fd, LOCK_EX), 0); /* a stopped starter: the lock is held */
	CU_ASSERT_EQUAL(pwrite(fd, &odd, sizeof(odd), 64), sizeof(odd));

	t0 = (uint64_t)mono_ns();
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 4), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "seq stayed odd"));
	CU_ASSERT((uint64_t)mono_ns() - t0 < 1000000000ull);
	t0 = (uint64_t)mono_ns();
	for (int i = 0; i < 50; i++)
		rc |= statctr_snap_epoch_delta(snap, 0, 1, 2, &d) != -EBUSY;
	CU_ASSERT_EQUAL(rc, 0);
	printf("\n  50 deltas with seq odd: %.1f ms ", ((uint64_t)mono_ns() - t0) / 1e6);
	/* Each tries once (about 1 ms idle); one that spent the 100 ms budget
	 * again would make it 5 s: half that is a bound no load reaches. */
	CU_ASSERT((uint64_t)mono_ns() - t0 < 2500000000ull);
	CU_ASSERT_EQUAL(seq_in_file(), odd); /* the lock was held: nobody repaired */

	CU_ASSERT_EQUAL(flock(fd, LOCK_UN), 0); /* the starter is gone */
	t0 = (uint64_t)mono_ns();
	while (statctr_view_epochs(v, e, 4) != 2 && (uint64_t)mono_ns() - t0 < 5000000000ull)
		usleep(10000);
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 4), 2);
	CU_ASSERT_EQUAL(seq_in_file(), odd + 1);
	CU_ASSERT_EQUAL(statctr_snap_epoch_delta(snap, 0, 1, 2, &d), 0);
	close(fd);
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

/* ---- the writer's start and exit against a held lock ---- */

/*
 * Another process holds the epoch file's flock() for ever (any reader may:
 * flock() needs only a read-only descriptor): the writer's exit still
 * captures its final counts and its restart still starts, each within 1 s
 * (they used to wait 2 s, then lose the counts or fail).
 */
static void held_lock_blocks_no_writer_start_or_exit(void)
{
	const char *conf = epoch_conf(EPOCHS(4));
	struct statctr_seg *seg;
	struct statctr_view *v;
	int64_t t0;
	uint64_t d;
	int fd, rc;

	counted_generation(conf, 10, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	fd = open(epoch_path(), O_RDONLY);
	CU_ASSERT_EQUAL_FATAL(flock(fd, LOCK_EX), 0);
	t0 = mono_ns();
	counted_generation(conf, 10, &rc); /* a start and an exit under the held lock */
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	printf("\n  a writer's start and exit, the lock held: %.0f ms ", (mono_ns() - t0) / 1e6);
	/* It waits 250 ms for the lock, twice (start, exit), then works
	 * around it; one that waited for the lock would not return at all. */
	CU_ASSERT(mono_ns() - t0 < 10000000000);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	d = delta_of(v, 0, 1, 0, &rc); /* both generations' counts after epoch 1 */
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(d, 30);
	d = delta_of(v, 0, 1, 2, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(d, 20);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

/* ---- crafted epoch files ---- */

static int refused_with(const char *why)
{
	struct statctr_view *v;
	int rc;

	CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &v), 0);
	rc = statctr_epoch_start(v, "x", NULL);
	if (!strstr(statctr_errmsg(), why))
		printf("\n  message: %s (wanted %s)\n", statctr_errmsg(), why);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), why));
	CU_ASSERT_EQUAL(statctr_view_epochs(v, NULL, 0), 0);
	statctr_view_close(v);
	return rc;
}

static void copy_file(const char *from, const char *to, off_t patch_at, uint32_t patch)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	if (patch_at >= 0) {
		int fd = open(to, O_WRONLY);

		CU_ASSERT_EQUAL(pwrite(fd, &patch, sizeof(patch), patch_at), sizeof(patch));
		close(fd);
	}
}

static void crafted_epoch_files_are_refused_as_segments_are(void)
{
	struct statctr_seg *seg;
	char saved[420], cmd[1200];
	int fd;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(EPOCHS(4)), "seg", &seg), 0);
	snprintf(saved, sizeof(saved), "%s.saved", epoch_path());
	CU_ASSERT_EQUAL_FATAL(rename(epoch_path(), saved), 0);

	CU_ASSERT_EQUAL(symlink(saved, epoch_path()), 0);
	CU_ASSERT_EQUAL(refused_with("symbolic link"), -ELOOP);
	unlink(epoch_path());

	CU_ASSERT_EQUAL(mkfifo(epoch_path(), 0600), 0);
	CU_ASSERT_EQUAL(refused_with("not a regular file"), -EPROTO);
	unlink(epoch_path());

	fd = open(epoch_path(), O_CREAT | O_WRONLY, 0600);
	CU_ASSERT(fd >= 0 && ftruncate(fd, 1 << 20) == 0);
	close(fd);
	CU_ASSERT_EQUAL(refused_with("sparse"), -EPROTO);
	unlink(epoch_path());

	copy_file(saved, epoch_path(), 24, 1000); /* keep: the size no longer fits */
	CU_ASSERT_EQUAL(refused_with("the layout says"), -EPROTO);
	copy_file(saved, epoch_path(), 28, 13); /* ncells */
	CU_ASSERT_EQUAL(refused_with("cells"), -EPROTO);
	copy_file(saved, epoch_path(), 0, 0x41414141); /* magic */
	CU_ASSERT_EQUAL(refused_with("not a version-1 epoch file"), -EPROTO);
	copy_file(saved, epoch_path(), 32, 1); /* layout_hash */
	CU_ASSERT_EQUAL(refused_with("another layout"), -EPROTO);
	copy_file(saved, epoch_path(), 76, 99); /* nkept > keep: read live */
	CU_ASSERT_EQUAL(refused_with("corrupt"), -EPROTO);
	copy_file(saved, epoch_path(), -1, 0);
	chmod(epoch_path(), 0666);
	CU_ASSERT_EQUAL(refused_with("writable by every user"), -EPERM);
	snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s'", epoch_path(), saved);
	CU_ASSERT_EQUAL(system(cmd), 0);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"odd_seq_costs_one_budget_then_is_repaired",
	     odd_seq_costs_one_budget_then_is_repaired},
	    {"held_lock_blocks_no_writer_start_or_exit", held_lock_blocks_no_writer_start_or_exit},
	    {"crafted_epoch_files_are_refused_as_segments_are",
	     crafted_epoch_files_are_refused_as_segments_are},
	    {NULL, NULL},
	};

	return tu_run_both("epochfile", cases);
}
