/*
 * proc.c - is a process or thread still the one that owned a slot?
 *
 * A pid or tid alone can be reused; the pair (id, start time in clock ticks
 * since boot, field 22 of /proc/PID/task/TID/stat) cannot.  Reads /proc
 * only; never signals anything.
 */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Field 22 (starttime) of a stat line; the comm field may hold spaces. */
static uint64_t parse_start_time(const char *line)
{
	const char *p = strrchr(line, ')');
	int field;

	if (!p)
		return 0;
	p++;
	/* After ')' comes field 3; skip to field 22. */
	for (field = 2; field < 21 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	return strtoull(p + 1, NULL, 10);
}

uint64_t proc_start_time(pid_t pid, pid_t tid)
{
	char path[64], line[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = '\0';
	/* A zombie thread has exited: its slot is no longer written. */
	if (strstr(line, ") Z ") || strstr(line, ") X "))
		return 0;
	return parse_start_time(line);
}

/*
 * Start 0 with a tid means the owner is between its compare-and-swap of the
 * tid and its store of the start time (or between the two stores of a
 * release): alive as long as that thread exists.  Taking it for dead would
 * let a second thread steal a slot being claimed.
 */
bool proc_alive(pid_t pid, pid_t tid, uint64_t start)
{
	uint64_t now;

	if (pid <= 0 || tid <= 0)
		return false;
	now = proc_start_time(pid, tid);
	return now != 0 && (start == 0 || now == start);
}

uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
