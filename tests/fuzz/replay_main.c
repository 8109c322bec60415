/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_main.c - runs files through LLVMFuzzerTestOneInput without
 * libFuzzer, so the seed corpus (and any crash reproducer) is replayed by
 * CTest under gcc, ASan or valgrind.
 *
 *	fuzz_reader_replay FILE|DIR...
 *
 * Each directory is read one level deep (regular files only, sorted so runs
 * are repeatable). Exit status 0 when every input ran, 1 when an input could
 * not be read or none was given; a harness failure aborts the process.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are not fuzz inputs; refuse rather than guess. */
#define REPLAY_MAX_INPUT (64u << 20)

static int run_file(const char *path)
{
	FILE *f = NULL;
	uint8_t *buf = NULL;
	struct stat sb;
	size_t size;
	int err = 0;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &sb) < 0) {
		err = -errno;
		fprintf(stderr, "fuzz_reader_replay: cannot open '%s': %s\n", path, strerror(errno));
		goto cleanup;
	}
	if (sb.st_size < 0 || (uint64_t)sb.st_size > REPLAY_MAX_INPUT) {
		err = -EFBIG;
		fprintf(stderr, "fuzz_reader_replay: '%s' is larger than %u bytes\n", path,
			REPLAY_MAX_INPUT);
		goto cleanup;
	}
	size = (size_t)sb.st_size;
	/* An exact-size copy, so ASan sees any read past the input's end. */
	buf = malloc(size ? size : 1);
	if (!buf) {
		err = -ENOMEM;
		fprintf(stderr, "fuzz_reader_replay: '%s': out of memory\n", path);
		goto cleanup;
	}
	if (size && fread(buf, 1, size, f) != size) {
		err = -EIO;
		fprintf(stderr, "fuzz_reader_replay: cannot read '%s'\n", path);
		goto cleanup;
	}
	LLVMFuzzerTestOneInput(buf, size);
	printf("ok %s (%zu bytes)\n", path, size);
cleanup:
	free(buf);
	if (f)
		fclose(f);
	return err;
}

static int run_dir(const char *dir, int *nrun)
{
	struct dirent **list = NULL;
	int n, err = 0;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "fuzz_reader_replay: cannot list '%s': %s\n", dir, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat sb;

		if (list[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name) < (int)sizeof(path) &&
		    stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (run_file(path) < 0)
				err = -EIO;
			(*nrun)++;
		}
		free(list[i]);
	}
	free(list);
	return err;
}

int main(int argc, char **argv)
{
	int nrun = 0, err = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (run_dir(argv[i], &nrun) < 0)
				err = 1;
		} else {
			if (run_file(argv[i]) < 0)
				err = 1;
			nrun++;
		}
	}
	if (nrun == 0) {
		fprintf(stderr, "usage: fuzz_reader_replay FILE|DIR...  (no input given or found)\n");
		return 1;
	}
	printf("fuzz_reader_replay: %d input(s)\n", nrun);
	return err;
}
