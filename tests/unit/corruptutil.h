/*
 * corruptutil.h - shared by the suites that attack a segment's files
 * (test_meta, test_mapfile, test_view, test_guard): the reference image of
 * a valid segment, a segment left by a writer that exited, and main().
 */
#ifndef STATCTR_CORRUPTUTIL_H
#define STATCTR_CORRUPTUTIL_H

#include "internal.h"
#include "testutil.h"

#include <sys/wait.h>

static const char *seg_path;
static uint8_t *image; /* bytes of a valid segment: tables "named" and "t" */
static size_t image_size;

/* 255 bytes: the longest description, too long for a name (63). */
#define TEXT_60   "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh"
#define LONG_TEXT TEXT_60 TEXT_60 TEXT_60 TEXT_60 "abcdefghijklmno"

/* Captures the bytes of a freshly created segment of @tables. */
static inline int capture(const char *tables, uint8_t **imagep, size_t *sizep)
{
	struct statctr_seg *seg;
	uint8_t *bytes = NULL;
	FILE *f;

	if (statctr_seg_create(tu_config(2, tables, &seg_path), "seg", &seg) != 0)
		return -1;
	f = fopen(seg_path, "rb");
	if (f && fseek(f, 0, SEEK_END) == 0) {
		*sizep = (size_t)ftell(f);
		rewind(f);
		bytes = malloc(*sizep);
		if (bytes && fread(bytes, 1, *sizep, f) != *sizep) {
			free(bytes);
			bytes = NULL;
		}
	}
	if (f)
		fclose(f);
	statctr_seg_destroy(seg);
	*imagep = bytes;
	return bytes ? 0 : -1;
}

/* A writer that creates the segment and exits (its files stay). */
static inline void create_in_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct statctr_seg *seg;

		_exit(statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg",
		                         &seg) != 0);
	}
	waitpid(pid, &status, 0);
	CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Builds the reference image (before CUnit runs), then runs @cases with
 * full snapshots and again with sums-only ones (tu_run_both()). */
static inline int cu_run_both(const char *suite_name, const struct test_case *cases)
{
	int rc;

	if (capture(
	        "{ name = \"named\"; rows = [\"a\", \"b\"]; description = \"" LONG_TEXT
	        "\"; columns = ( { name = \"c\"; kind = \"counter\"; } ); }, " TU_SIMPLE_TABLE(3),
	        &image, &image_size) != 0) {
		fprintf(stderr, "test_%s: cannot build the reference segment: %s\n", suite_name,
		        statctr_errmsg());
		return 1;
	}
	rc = tu_run_both(suite_name, cases);
	free(image);
	return rc;
}

#endif /* STATCTR_CORRUPTUTIL_H */
