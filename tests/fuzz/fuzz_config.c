/*
 * fuzz_config.c - libFuzzer target: every parser a configuration goes
 * through before the agent serves it.
 *
 * Input: the bytes of a configuration file, written to a regular file in a
 * private directory (mkdtemp(), 0700) made at the first input and reused:
 * the loader refuses what is not a regular file reached without a link,
 * and a /proc/self/fd/N path is a link (such a target covered 44 edges,
 * never the parser; it now traps when the loader refuses the file itself,
 * so that make check's replay fails).  Runs statctr_config_load(); on success checks
 * that statctr_config_find() finds every declared segment, then runs the
 * agent's settings_load() (the "agent" group) and oidmap_create() (OID
 * collisions), and frees everything.
 *
 * Inputs with an @include line are skipped: libconfig 1.5 follows them
 * with no way to refuse, exit()s the process on a directory and blocks on a
 * FIFO (the agent refuses such files, see settings.c; the library does not
 * yet: see docs/reliability.md).
 */
#include "oidmap.h"
#include "settings.h"
#include "statctr.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has_include(const uint8_t *data, size_t size)
{
	bool line_start = true;

	for (size_t i = 0; i < size; i++) {
		if (line_start) {
			size_t j = i;

			while (j < size && (data[j] == ' ' || data[j] == '\t'))
				j++;
			if (size - j >= 8 && memcmp(data + j, "@include", 8) == 0)
				return true;
		}
		line_start = data[i] == '\n';
	}
	return false;
}

/*
 * The OID map is built in time that grows with the cells (agent/oidmap.c):
 * a valid 9M-cell table takes 1.7 s, and over 10 s instrumented on a
 * loaded machine, which libFuzzer would report as a hang.  Larger
 * configurations are parsed and checked, not mapped.
 */
#define MAX_MAPPED_CELLS (1u << 20)

static uint64_t cells_of(const struct statctr_config *cfg)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < cfg->nsegments; i++)
		n += cfg->segments[i].ncells;
	return n;
}

static void parse(const char *path)
{
	struct statctr_config *cfg;
	struct agent_settings *set;
	struct oidmap *map;
	int err = statctr_config_load(path, &cfg);

	/* Refused as a file (a link, not a regular file, gone): the harness is broken, not the
	 * input. */
	if (err == -ELOOP || err == -ENOENT || err == -EISDIR || err == -EACCES)
		__builtin_trap();
	if (err == 0) {
		for (uint32_t i = 0; i < cfg->nsegments; i++)
			if (statctr_config_find(cfg, cfg->segments[i].name) != &cfg->segments[i])
				__builtin_trap();
		statctr_config_free(cfg);
	}
	if (settings_load(path, &set) == 0) {
		if (cells_of(set->cfg) <= MAX_MAPPED_CELLS &&
		    oidmap_create(set->cfg, set->root, set->root_len, &map) == 0)
			oidmap_free(map);
		settings_free(set);
	}
}

/* The directory and file removed at exit (a crash leaves them for the reproducer's sake). */
static char dir[PATH_MAX - 16], path[PATH_MAX];

static void remove_input(void)
{
	unlink(path);
	rmdir(dir);
}

/* The file every input is written to; aborts when none can be made (nothing would be fuzzed). */
static const char *input_path(void)
{
	const char *tmp = getenv("TMPDIR");

	if (path[0] != '\0')
		return path;
	snprintf(dir, sizeof(dir), "%s/statctr-fuzz-config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		abort();
	}
	snprintf(path, sizeof(path), "%s/input.conf", dir);
	atexit(remove_input);
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file;
	int fd;

	if (has_include(data, size))
		return 0;
	file = input_path();
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror(file);
		abort();
	}
	close(fd);
	parse(file);
	return 0;
}
