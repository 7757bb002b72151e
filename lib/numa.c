/*
 * numa.c - NUMA placement of a writer's slot pages: which node a CPU is on,
 * how many nodes have CPUs, and binding a range's whole pages to a node.
 *
 * Owns the placement only: the bytes are the same on every node, so a
 * placement that fails or is wrong changes speed, never a count.  Never
 * reads or writes a cell, never fails a caller (best effort, -errno at
 * most), never knows a slot's layout beyond the range it is given.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The node of CPU @cpu (its /sys directory holds "nodeN"), or -1. */
int cpu_node(uint32_t cpu)
{
	char path[64];
	struct dirent *e;
	int node = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while (node < 0 && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' &&
		    e->d_name[4] <= '9')
			node = atoi(e->d_name + 4);
	closedir(d);
	return node;
}

/* Nodes with memory and CPUs: more than one makes placement worth it. */
uint32_t numa_nodes(void)
{
	FILE *f = fopen("/sys/devices/system/node/has_cpu", "r");
	unsigned a, b;
	uint32_t n = 0;
	int c;

	if (!f)
		return 1;
	/* A list such as "0-1,3": count its members. */
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-' && fscanf(f, "%u", &b) == 1)
			c = fgetc(f);
		n += b >= a ? b - a + 1 : 1;
		if (c != ',')
			break;
	}
	fclose(f);
	return n ? n : 1;
}

/*
 * Binds the whole pages of [@addr, @addr + @len) to @node and moves those
 * already there (MPOL_MF_MOVE: every page of a segment is allocated at
 * creation).  A page shared with a neighbour slot is left where it is.
 * Best effort: placement changes speed, never counts.  Returns 0 or -errno.
 */
int numa_place(void *addr, uint64_t len, int node)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)addr + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)addr + len) & ~(uintptr_t)(page - 1);
	unsigned long mask[16] = {0}; /* nodes 0..1023 */

	if (node < 0 || node >= 1024 || end <= start)
		return 0;
	mask[node / 64] = 1ul << (node % 64);
	if (syscall(SYS_mbind, start, end - start, MPOL_PREFERRED, mask, 1024ul, MPOL_MF_MOVE) != 0)
		return -errno;
	return 0;
}

/* The CPU the calling thread runs on (it may move right after). */
static uint32_t current_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu;
}

/* A thread slot's pages on the node of the CPU its new owner runs on. */
void cpu_place_thread_slot(struct statctr_seg *seg, struct statctr_slot *slot)
{
	if (seg->nnodes > 1)
		numa_place(slot, seg->layout.stride, cpu_node(current_cpu()));
}
