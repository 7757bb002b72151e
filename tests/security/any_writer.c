/*
 * any_writer.c - a writer of any configuration's segment, for
 * tests/security/names.sh: the library creates segments from files
 * check-config was never asked about, and statctl must still print them
 * safely.
 *
 * usage: any_writer CONFIG SEGMENT
 * Creates SEGMENT as CONFIG declares it, prints "created" and waits;
 * SIGTERM or SIGINT removes it and ends.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "statctr.h"

int main(int argc, char **argv)
{
	struct statctr_seg *seg;
	sigset_t stop;
	int sig;

	if (argc != 3) {
		fprintf(stderr, "usage: any_writer CONFIG SEGMENT\n");
		return 2;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (statctr_seg_create(argv[1], argv[2], &seg) != 0) {
		fprintf(stderr, "any_writer: %s\n", statctr_errmsg());
		return 1;
	}
	printf("created\n");
	fflush(stdout);
	sigwait(&stop, &sig);
	statctr_seg_destroy(seg);
	return 0;
}
