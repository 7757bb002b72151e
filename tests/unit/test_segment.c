/*
 * test_segment.c - segment life cycle, metadata, views, generations.
 */
#include "internal.h"
#include "testutil.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *seg_path;

static const char *config(void)
{
	return tu_config(3,
	                 "{ name = \"ifStats\"; oid = 7; description = \"per interface\"; "
	                 "rows = [ \"dp0\", \"dp1\" ]; columns = ( "
	                 "{ name = \"rx\"; kind = \"counter\"; units = \"packets\"; description = "
	                 "\"received\"; }, "
	                 "{ name = \"depth\"; kind = \"gauge\"; } ); }, " TU_SIMPLE_TABLE(5),
	                 &seg_path);
}

static void create_then_view_sees_metadata(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct statctr_table_info t;
	struct statctr_column_info c;
	statctr_id a, b;
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_STRING_EQUAL(info.name, "seg");
	CU_ASSERT_EQUAL(info.nslots, 3);
	CU_ASSERT_EQUAL(info.ncells, 2 * 2 + 5 * 3);
	CU_ASSERT_EQUAL(info.ntables, 2);
	CU_ASSERT_EQUAL(info.status, STATCTR_SEG_ACTIVE);
	CU_ASSERT_EQUAL(info.creator_pid, getpid());
	CU_ASSERT_NOT_EQUAL(info.generation, 0);
	CU_ASSERT_EQUAL(info.can_reset, 1);
	CU_ASSERT_EQUAL(statctr_view_table(view, 0, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.name, "ifStats");
	CU_ASSERT_STRING_EQUAL(t.description, "per interface");
	CU_ASSERT_EQUAL(t.oid, 7);
	CU_ASSERT_EQUAL(t.nrows, 2);
	CU_ASSERT_EQUAL(t.first_cell, 0);
	CU_ASSERT_EQUAL(statctr_view_column(view, 0, 0, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.units, "packets");
	CU_ASSERT_STRING_EQUAL(c.description, "received");
	CU_ASSERT_EQUAL(c.kind, STATCTR_KIND_COUNTER);
	CU_ASSERT_EQUAL(statctr_view_column(view, 0, 1, &c), 0);
	CU_ASSERT_EQUAL(c.kind, STATCTR_KIND_GAUGE);
	CU_ASSERT_STRING_EQUAL(statctr_view_row_name(view, 0, 1), "dp1");
	CU_ASSERT_PTR_NULL(statctr_view_row_name(view, 1, 0));
	CU_ASSERT_EQUAL(statctr_view_table(view, 1, &t), 0);
	CU_ASSERT_EQUAL(t.first_cell, 4);
	CU_ASSERT_EQUAL(statctr_view_table(view, 2, &t), -ENOENT);
	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, "t", "bytes", 4, &a), 0);
	CU_ASSERT_EQUAL(statctr_view_lookup(view, "t", "bytes", 4, &b), 0);
	CU_ASSERT_EQUAL(a, 4 + 4 * 3 + 1);
	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_EQUAL(statctr_view_cell_kind(view, 1), STATCTR_KIND_GAUGE);
	CU_ASSERT_EQUAL(stat(seg_path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
	CU_ASSERT_EQUAL(stat(seg_path, &st), -1);
}

static void lookup_errors_name_the_cause(void)
{
	struct statctr_seg *seg;
	statctr_id id;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, "nope", "rx", 0, &id), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "no table nope"));
	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, "ifStats", "tx", 0, &id), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "no column tx"));
	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, "ifStats", "rx", 2, &id), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "row 2 is out of range"));
	statctr_seg_destroy(seg);
}

static void create_refuses_a_live_segment(void)
{
	struct statctr_seg *seg, *again;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL(statctr_seg_create(config(), "seg", &again), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "in use by pid"));
	CU_ASSERT_EQUAL(statctr_seg_create(config(), "missing", &again), -ENOENT);
	statctr_seg_destroy(seg);
}

/* A child creates the segment and dies without destroying it. */
static void create_in_child_and_die(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct statctr_seg *seg;
		struct statctr_slot *slot;

		if (statctr_seg_create(config(), "seg", &seg) != 0 ||
		    statctr_slot_acquire(seg, &slot) != 0)
			_exit(1);
		statctr_add(slot, 0, 42);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void dead_writer_segment_is_replaced_with_new_generation(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_seg_info before, after;
	struct statctr_snap *snap;

	create_in_child_and_die();
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &before);
	CU_ASSERT_EQUAL(before.status, STATCTR_SEG_GONE);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_DEAD);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 42);
	statctr_snap_free(snap);

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 1);
	statctr_view_info(view, &after);
	CU_ASSERT_NOT_EQUAL(after.generation, before.generation);
	CU_ASSERT_EQUAL(after.status, STATCTR_SEG_ACTIVE);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 0);
	statctr_snap_free(snap);
	statctr_seg_destroy(seg);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), -ENOENT);
	statctr_view_info(view, &after);
	CU_ASSERT_EQUAL(after.status, STATCTR_SEG_CLOSED);
	statctr_view_close(view);
}

static void view_of_missing_segment_is_enoent(void)
{
	struct statctr_view *view;

	CU_ASSERT_EQUAL(tu_view_open("no-such-segment-xyz", &view), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "/dev/shm/statctr.no-such-segment-xyz"));
}

static void read_only_mapping_faults_on_write(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	pid_t pid;
	int status;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	pid = fork();
	if (pid == 0) {
		volatile uint8_t *cell =
		    (volatile uint8_t *)view->base + view->meta->hdr->slots_off + LINE;

		signal(SIGSEGV, SIG_DFL);
		*cell = 1;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

enum { CREATORS = 4 };

/* One creator, forked: waits on @go until the parent closes it (all start
 * together), tries to create "seg", reports on @done, and a winner holds its
 * segment until the parent closes @release, once every creator has tried.
 * Exit status 0: won; 3: refused as in use; 4: another error. */
static void creator(const char *conf, const int go[2], const int done[2], const int release[2])
{
	struct statctr_seg *seg;
	char c;
	int rc;

	close(go[1]);
	close(done[0]);
	close(release[1]);
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	rc = statctr_seg_create(conf, "seg", &seg);
	if (rc != 0 && !strstr(statctr_errmsg(), "in use"))
		fprintf(stderr, "%s\n", statctr_errmsg());
	if (write(done[1], "x", 1) != 1)
		_exit(5);
	close(done[1]);
	if (rc != 0)
		_exit(strstr(statctr_errmsg(), "in use") ? 3 : 4);
	while (read(release[0], &c, 1) < 0 && errno == EINTR)
		;
	statctr_seg_destroy(seg);
	_exit(0);
}

/* One round: CREATORS processes released at once by a start barrier (a pipe
 * they wait on); a winner keeps its segment until all have tried, so a late
 * starter meets it whatever the machine's load. */
static void creators_round(const char *conf, int *winners, int *losers)
{
	int go[2], done[2], release[2], i, status, got = 0;
	pid_t pids[CREATORS];
	char buf[CREATORS];
	ssize_t n;

	CU_ASSERT_FATAL(pipe(go) == 0 && pipe(done) == 0 && pipe(release) == 0);
	for (i = 0; i < CREATORS; i++) {
		pids[i] = fork();
		CU_ASSERT_FATAL(pids[i] >= 0);
		if (pids[i] == 0)
			creator(conf, go, done, release);
	}
	close(go[0]);
	close(done[1]);
	close(release[0]);
	close(go[1]); /* all go */
	while (got < CREATORS) {
		n = read(done[0], buf, sizeof buf);
		if (n > 0)
			got += (int)n;
		else if (n == 0 || errno != EINTR)
			break; /* a creator died before reporting */
	}
	CU_ASSERT_EQUAL(got, CREATORS);
	close(done[0]);
	close(release[1]); /* winners may go */
	for (i = 0; i < CREATORS; i++) {
		CU_ASSERT_EQUAL(waitpid(pids[i], &status, 0), pids[i]);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			(*winners)++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
			(*losers)++;
	}
}

/* Writers racing to create the same segment: exactly one may win. */
static void concurrent_creators_exactly_one_wins(void)
{
	int winners = 0, losers = 0, round;
	const char *conf = config();

	for (round = 0; round < 5; round++)
		creators_round(conf, &winners, &losers);
	CU_ASSERT_EQUAL(winners, 5);
	CU_ASSERT_EQUAL(losers, 5 * (CREATORS - 1));
}

static void reader_can_require_the_owner(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL(statctr_view_open_owned(seg_path, getuid(), &view), 0);
	CU_ASSERT_EQUAL(statctr_view_refresh(view), 0);
	statctr_view_close(view);
	CU_ASSERT_EQUAL(statctr_view_open_owned(seg_path, getuid() + 1, &view), -EPERM);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "not the expected uid"));
	statctr_seg_destroy(seg);
}

static void cell_layout_is_dense_and_line_aligned(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	const struct seg_header *h;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	h = view->meta->hdr;
	CU_ASSERT_EQUAL(h->slots_off % 64, 0);
	CU_ASSERT_EQUAL(h->slot_stride, 64 + round_up_line(19 * 8));
	CU_ASSERT_EQUAL(h->file_size, h->slots_off + 4 * h->slot_stride);
	CU_ASSERT_EQUAL((uintptr_t)seg_slot_header(seg, 1) - (uintptr_t)seg_slot_header(seg, 0),
	                h->slot_stride);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"create_then_view_sees_metadata", create_then_view_sees_metadata},
	    {"lookup_errors_name_the_cause", lookup_errors_name_the_cause},
	    {"create_refuses_a_live_segment", create_refuses_a_live_segment},
	    {"dead_writer_segment_is_replaced_with_new_generation",
	     dead_writer_segment_is_replaced_with_new_generation},
	    {"view_of_missing_segment_is_enoent", view_of_missing_segment_is_enoent},
	    {"read_only_mapping_faults_on_write", read_only_mapping_faults_on_write},
	    {"concurrent_creators_exactly_one_wins", concurrent_creators_exactly_one_wins},
	    {"reader_can_require_the_owner", reader_can_require_the_owner},
	    {"cell_layout_is_dense_and_line_aligned", cell_layout_is_dense_and_line_aligned},
	    {NULL, NULL},
	};

	return tu_run_both("segment", cases);
}
