/*
 * replay.c - runs a fuzz target's LLVMFuzzerTestOneInput() on files, without
 * libFuzzer.
 *
 * replay_TARGET FILE|DIR...: each file, and each regular file in each
 * directory, is passed once to the target.  `make check` replays every
 * committed corpus input this way (tests/fuzz/replay.sh) with the normal
 * compiler and, in the sanitizer build, under ASan and UBSan, so that every
 * input that ever crashed a target stays a regression test.  Prints the
 * number of inputs replayed; exits 0 unless an input cannot be read (a
 * crashing input crashes the program, as it should).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *bigger = realloc(data, cap ? cap * 2 : 4096);

			if (!bigger) {
				free(data);
				fclose(f);
				return -1;
			}
			data = bigger;
			cap = cap ? cap * 2 : 4096;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	fclose(f);
	/* An exact-size copy: ASan catches a read one byte past the input. */
	{
		uint8_t *exact = malloc(size ? size : 1);

		if (!exact) {
			free(data);
			return -1;
		}
		memcpy(exact, data, size);
		free(data);
		LLVMFuzzerTestOneInput(exact, size);
		free(exact);
	}
	return 0;
}

static int replay_dir(const char *dir, unsigned *count)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			rc |= replay_dir(argv[i], &count) < 0;
		} else if (replay_file(argv[i]) < 0) {
			rc = 1;
		} else {
			count++;
		}
	}
	printf("replayed %u inputs\n", count);
	return rc;
}
