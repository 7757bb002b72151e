/*
 * test_numa.c - lib/numa.c: the node of a CPU is the one /sys lists it
 * under, a CPU that does not exist has none, the nodes with CPUs are at
 * least 1 and at most the CPUs, and a placement - done, refused by the
 * kernel, or nothing to do - never changes a byte of the range.
 */
#include "internal.h"
#include "testutil.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>

static void a_cpu_is_on_the_node_that_lists_it(void)
{
	int cpu = sched_getcpu(), node;
	char path[128];
	struct stat st;

	CU_ASSERT_FATAL(cpu >= 0);
	CU_ASSERT_EQUAL(cpu_node(1u << 20), -1);
	node = cpu_node((uint32_t)cpu);
	if (node < 0) {
		/* No node directory for it: no node in /sys at all. */
		CU_ASSERT_NOT_EQUAL(stat("/sys/devices/system/node/node0", &st), 0);
		return;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu%d", node, cpu);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
}

static void nodes_with_cpus_are_between_1_and_the_cpus(void)
{
	uint32_t n = numa_nodes();

	CU_ASSERT(n >= 1);
	CU_ASSERT(n <= (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
}

/* Four pages of a pattern, placed on @node: the result, every byte kept. */
static int place_keeps_the_bytes(int node, uint64_t off, uint64_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	uint8_t *p =
	    mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err;

	CU_ASSERT_FATAL(p != MAP_FAILED);
	for (i = 0; i < 4 * page; i++)
		p[i] = (uint8_t)(i * 7);
	err = numa_place(p + off, len, node);
	for (i = 0; i < 4 * page && p[i] == (uint8_t)(i * 7); i++)
		;
	CU_ASSERT_EQUAL(i, 4 * page);
	munmap(p, 4 * page);
	return err;
}

static void placement_never_changes_a_byte(void)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int node = cpu_node(0), err;

	/* Nothing to do: no node, a node beyond the mask, no whole page. */
	CU_ASSERT_EQUAL(place_keeps_the_bytes(-1, 0, 4 * page), 0);
	CU_ASSERT_EQUAL(place_keeps_the_bytes(1024, 0, 4 * page), 0);
	CU_ASSERT_EQUAL(place_keeps_the_bytes(0, 1, page), 0);
	/* Done, or refused by the kernel (mbind may be filtered): bytes kept. */
	err = place_keeps_the_bytes(node < 0 ? 0 : node, 1, 3 * page);
	CU_ASSERT(err == 0 || err == -EPERM || err == -ENOSYS);
	/* A node that does not exist: the kernel refuses, nothing moves. */
	err = place_keeps_the_bytes(1000, 0, 4 * page);
	CU_ASSERT(err == -EINVAL || err == -EPERM || err == -ENOSYS);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"a_cpu_is_on_the_node_that_lists_it", a_cpu_is_on_the_node_that_lists_it},
	    {"nodes_with_cpus_are_between_1_and_the_cpus",
	     nodes_with_cpus_are_between_1_and_the_cpus},
	    {"placement_never_changes_a_byte", placement_never_changes_a_byte},
	    {NULL, NULL},
	};

	return tu_run("numa", cases);
}
