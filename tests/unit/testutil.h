/*
 * testutil.h - shared by the CUnit suites: temp dirs, config files, main().
 */
#ifndef STATCTR_TESTUTIL_H
#define STATCTR_TESTUTIL_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_case {
	const char *name;
	CU_TestFunc fn;
};

/* A fresh directory under $TMPDIR (or /tmp), removed by tu_cleanup(). */
static char tu_dir[256];

static inline const char *tu_tmpdir(void)
{
	if (tu_dir[0] == '\0') {
		const char *base = getenv("TMPDIR");

		snprintf(tu_dir, sizeof(tu_dir), "%s/statctr-test.XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tu_dir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tu_dir;
}

/* Writes @text to <tmpdir>/@name and returns the path (static buffer). */
static inline const char *tu_write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

/*
 * Writes a one-segment config "seg" with @nslots slots and the extra segment
 * settings @extra, whose files live in the test's temp dir, tables given by
 * @tables (libconfig text); returns the config's path (static buffer).
 * *seg_path receives the segment path.
 */
static inline const char *tu_config_ex(unsigned nslots, const char *extra, const char *tables,
                                       const char **seg_path)
{
	static char seg[300], text[8192];

	snprintf(seg, sizeof(seg), "%s/seg", tu_tmpdir());
	snprintf(text, sizeof(text),
	         "segments = ( { name = \"seg\"; path = \"%s\"; slots = %u; %s\n"
	         "  tables = ( %s ); } );\n",
	         seg, nslots, extra, tables);
	if (seg_path)
		*seg_path = seg;
	return tu_write_file("seg.conf", text);
}

static inline const char *tu_config(unsigned nslots, const char *tables, const char **seg_path)
{
	return tu_config_ex(nslots, "", tables, seg_path);
}

/* Two counters and a gauge per row, rows numbered. */
#define TU_SIMPLE_TABLE(rows)                                                                      \
	"{ name = \"t\"; rows = " #rows "; columns = ( "                                           \
	"{ name = \"pkts\"; kind = \"counter\"; }, { name = \"bytes\"; kind = \"counter\"; }, "    \
	"{ name = \"level\"; kind = \"gauge\"; } ); }"

static inline void tu_cleanup(void)
{
	char cmd[300];

	if (tu_dir[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tu_dir);
}

/* Runs one suite; the exit status is the number of failures (0: all passed). */
static inline int tu_run(const char *suite_name, const struct test_case *cases)
{
	CU_pSuite suite;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	suite = CU_add_suite(suite_name, NULL, NULL);
	for (; cases->name; cases++)
		CU_add_test(suite, cases->name, cases->fn);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
	CU_cleanup_registry();
	tu_cleanup();
	return failed ? 1 : 0;
}

#endif /* STATCTR_TESTUTIL_H */
