/*
 * test_guard.c - lib/guard.c: a segment truncated under a reader's mapping
 * gives -ESTALE, never SIGBUS: the snapshot's size check, and a fault
 * inside guard_run() on a mapping past the end of its file.
 */
#include "corruptutil.h"

static void file_shrunk_under_mapping_gives_estale_not_sigbus(void)
{
	struct statctr_seg *seg;
	struct statctr_view *view;
	struct statctr_snap *snap;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	CU_ASSERT_EQUAL(truncate(seg_path, HEADER_SIZE), 0);
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), -ESTALE);
	CU_ASSERT(tu_says_changed_size(statctr_errmsg()));
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

/* Reads the first cell of slot 0 of a mapping, bypassing every size check. */
static int read_first_cell(void *arg)
{
	const struct statctr_view *view = arg;

	return (int)atomic_load(
	    (const _Atomic uint64_t *)(view->base + view->meta->hdr->slots_off + LINE));
}

static void fault_on_a_truncated_mapping_becomes_estale(void)
{
	struct statctr_view *view;
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	char ctl[320];

	tu_config(2, TU_SIMPLE_TABLE(3), &seg_path);
	create_in_child();
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
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

int main(void)
{
	static const struct test_case cases[] = {
	    {"file_shrunk_under_mapping_gives_estale_not_sigbus",
	     file_shrunk_under_mapping_gives_estale_not_sigbus},
	    {"fault_on_a_truncated_mapping_becomes_estale",
	     fault_on_a_truncated_mapping_becomes_estale},
	    {NULL, NULL},
	};

	return cu_run_both("guard", cases);
}
