/*
 * fuzz_config.c - libFuzzer target: every parser a configuration goes
 * through before the agent serves it.
 *
 * Input: the bytes of a configuration file (put in a memfd, parsed through
 * its /proc/self/fd path).  Runs statctr_config_load(); on success checks
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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

static void parse(const char *path)
{
	struct statctr_config *cfg;
	struct agent_settings *set;
	struct oidmap *map;

	if (statctr_config_load(path, &cfg) == 0) {
		for (uint32_t i = 0; i < cfg->nsegments; i++)
			if (statctr_config_find(cfg, cfg->segments[i].name) != &cfg->segments[i])
				__builtin_trap();
		statctr_config_free(cfg);
	}
	if (settings_load(path, &set) == 0) {
		if (oidmap_create(set->cfg, set->root, set->root_len, &map) == 0)
			oidmap_free(map);
		settings_free(set);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (has_include(data, size))
		return 0;
	fd = memfd_create("statctr-fuzz-config", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		parse(path);
	}
	close(fd);
	return 0;
}
