/*
 * minimal.c - the smallest useful statctr writer: one thread counting
 * packets and bytes of "dp0" in conf/statctr.conf's "dataplane" segment.
 * Read it with `statctl show dataplane ifStats` while it runs (10 s).
 */
#include <stdio.h>
#include <unistd.h>

#include "statctr.h"

int main(int argc, char **argv)
{
	const char *config = argc > 1 ? argv[1] : "conf/statctr.conf";
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	statctr_id packets, octets;
	int i;

	if (statctr_seg_create(config, "dataplane", &seg) != 0 ||
	    statctr_seg_lookup(seg, "ifStats", "rxPackets", 0, &packets) != 0 ||
	    statctr_seg_lookup(seg, "ifStats", "rxOctets", 0, &octets) != 0 ||
	    statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "minimal: %s\n", statctr_errmsg());
		return 1;
	}
	for (i = 0; i < 1000; i++) {
		statctr_txn_begin(slot); /* readers see both updates or neither */
		statctr_inc(slot, packets);
		statctr_add(slot, octets, 1500);
		statctr_txn_end(slot);
		usleep(10000);
	}
	statctr_seg_destroy(seg);
	return 0;
}
