/*
 * open_owned.c - a library reader that requires the segment's owner, as the
 * agent does with agent.segment_owner (tests/security/planted.sh).
 *
 * open_owned UID SEGMENT: statctr_view_open_owned(SEGMENT, UID), then one
 * snapshot.  Exits 0 and prints "ok" when both succeed; else prints the
 * library's message to stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "statctr.h"

int main(int argc, char **argv)
{
	struct statctr_view *view;
	struct statctr_snap *snap;
	char *end;
	unsigned long uid;

	if (argc != 3 || (uid = strtoul(argv[1], &end, 10), *end != '\0')) {
		fprintf(stderr, "usage: open_owned UID SEGMENT\n");
		return 2;
	}
	if (statctr_view_open_owned(argv[2], (uid_t)uid, &view) != 0) {
		fprintf(stderr, "open_owned: %s\n", statctr_errmsg());
		return 1;
	}
	if (statctr_snap_take(view, &snap) != 0) {
		fprintf(stderr, "open_owned: %s\n", statctr_errmsg());
		statctr_view_close(view);
		return 1;
	}
	statctr_snap_free(snap);
	statctr_view_close(view);
	puts("ok");
	return 0;
}
