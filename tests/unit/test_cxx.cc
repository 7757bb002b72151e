/*
 * test_cxx.cc - statctr.h from C++ (C++23: <stdatomic.h> is
 * std::atomic underneath): the inline fast path, a transaction and a
 * snapshot give the same values as in C.  Exit 0 on success, 1 with a
 * message naming the failed check.
 */
#include "statctr.h"

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

/* The C++ view of the slot header must be the segment's bytes (layout.h). */
static_assert(sizeof(statctr_slot) == 64, "slot header is one cache line");
static_assert(offsetof(statctr_slot, cells) == 64, "cells follow the header line");
static_assert(alignof(statctr_slot) == 8, "8-byte aligned atomics");

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "FAIL: %s (%s)\n", what, statctr_errmsg());
		failures++;
	}
}

int main()
{
	char dir[] = "/tmp/statctr-cxx.XXXXXX";

	if (!mkdtemp(dir)) {
		std::perror("mkdtemp");
		return 1;
	}
	std::string seg_path = std::string(dir) + "/seg", conf = std::string(dir) + "/seg.conf";
	std::FILE *f = std::fopen(conf.c_str(), "w");
	if (!f)
		return 1;
	std::fprintf(f,
	             "segments = ( { name = \"seg\"; path = \"%s\"; slots = 2;\n"
	             "  tables = ( { name = \"t\"; rows = 2; columns = (\n"
	             "    { name = \"pkts\"; kind = \"counter\"; },\n"
	             "    { name = \"level\"; kind = \"gauge\"; } ); } ); } );\n",
	             seg_path.c_str());
	std::fclose(f);

	statctr_seg *seg = nullptr;
	statctr_slot *slot = nullptr;
	statctr_view *view = nullptr;
	statctr_snap *snap = nullptr;
	statctr_id pkts = 0, level = 0;

	check(statctr_seg_create(conf.c_str(), "seg", &seg) == 0, "statctr_seg_create");
	if (!seg)
		return 1;
	check(statctr_seg_lookup(seg, "t", "pkts", 1, &pkts) == 0, "lookup pkts");
	check(statctr_seg_lookup(seg, "t", "level", 0, &level) == 0, "lookup level");
	check(statctr_slot_acquire(seg, &slot) == 0, "statctr_slot_acquire");
	for (int i = 0; i < 1000; i++) {
		statctr_txn_begin(slot);
		statctr_inc(slot, pkts);
		statctr_add(slot, pkts, 2);
		statctr_gauge_add(slot, level, i % 2 ? -1 : 2);
		statctr_txn_end(slot);
	}
	check(statctr_view_open(seg_path.c_str(), &view) == 0, "statctr_view_open");
	check(view && statctr_snap_take(view, &snap) == 0, "statctr_snap_take");
	if (snap) {
		check(statctr_snap_counter(snap, pkts) == 3000, "pkts == 3000");
		check(statctr_snap_gauge(snap, level) == 500, "level == 500");
		statctr_snap_free(snap);
	}
	statctr_view_close(view);
	statctr_slot_release(slot);
	statctr_seg_destroy(seg);
	unlink(conf.c_str());
	rmdir(dir);
	if (failures == 0)
		std::printf("C++: pkts 3000, level 500 as in C\n");
	return failures ? 1 : 0;
}
