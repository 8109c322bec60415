// SPDX-License-Identifier: Apache-2.0
/*
 * bench_cfi_cache: the agent's start-up cost of CFI tables for a CUDA
 * program's libraries (libcudart, libcupti, libstdc++, libc by default),
 * cold (each file's key, then its table built from .eh_frame, as on a
 * cache miss) and warm (the key, then the table read from the on-disk
 * cache, unwind/cfi_cache.h), in one run: the median of N rounds of all
 * files each way, and their ratio. The cache is a fresh temporary
 * directory, filled by one cold round first; the page cache is warm for
 * both (the libraries are mapped by the program anyway).
 *
 *	bench_cfi_cache [-n ROUNDS] [FILE...]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfi_cache.h"
#include "cfi_file.h"
#include "cfi_table.h"
#include "gp_util.h"

static const char *const def_files[] = {
	"/usr/local/cuda-13.0/lib64/libcudart.so.13",
	"/usr/local/cuda-13.0/lib/libcupti.so.13",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/lib/x86_64-linux-gnu/libc.so.6",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One file's table, the way the agent gets it: 0 or -errno. */
static int one(const char *path, struct cfi_cache *c, uint32_t *rows)
{
	char key[CFI_FILE_KEY_MAX];
	struct cfi_table *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = cfi_file__key(fd, key);
	if (!err && (!c || cfi_cache__get(c, key, &t))) {
		err = cfi_table__from_fd(fd, &t);
		if (!err && c)
			err = cfi_cache__put(c, key, t);
	}
	close(fd);
	if (t)
		cfi_table__rows(t, rows);
	cfi_table__free(t);
	return err;
}

int main(int argc, char **argv)
{
	const char *const *files = def_files;
	size_t nfiles = ARRAY_SIZE(def_files), i;
	char dir[] = "/tmp/bench_cfi_cache.XXXXXX", cmd[64];
	struct cfi_cache_stats cs;
	struct cfi_cache *c = NULL;
	uint64_t *cold, *warm, t0, rows_all = 0;
	int rounds = 21, opt, dfd, r, err;
	uint32_t rows;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (rounds = atoi(optarg)) < 1) {
			fprintf(stderr, "usage: %s [-n ROUNDS] [FILE...]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		files = (const char *const *)argv + optind;
		nfiles = (size_t)(argc - optind);
	}
	cold = calloc((size_t)rounds, sizeof(*cold));
	warm = calloc((size_t)rounds, sizeof(*warm));
	if (!cold || !warm || !mkdtemp(dir))
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || cfi_cache__open(dfd, NULL, &c)) {
		fprintf(stderr, "bench_cfi_cache: cannot use %s\n", dir);
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		/* fills the cache; a missing library is an error, not a faster run */
		err = one(files[i], c, &rows);
		if (err) {
			fprintf(stderr, "bench_cfi_cache: '%s': %s\n", files[i], strerror(-err));
			return 1;
		}
		printf("%-48s %7u rows\n", files[i], rows);
		rows_all += rows;
	}
	for (r = 0; r < rounds; r++) {
		t0 = now_ns();
		for (i = 0; i < nfiles; i++)
			one(files[i], NULL, &rows);
		cold[r] = now_ns() - t0;
		t0 = now_ns();
		for (i = 0; i < nfiles; i++)
			one(files[i], c, &rows);
		warm[r] = now_ns() - t0;
	}
	cfi_cache__stats(c, &cs);
	qsort(cold, (size_t)rounds, sizeof(*cold), cmp_u64);
	qsort(warm, (size_t)rounds, sizeof(*warm), cmp_u64);
	printf("%zu files, %llu rows, %d rounds; cache hits %llu, misses %llu\n", nfiles,
	       (unsigned long long)rows_all, rounds, (unsigned long long)cs.hits,
	       (unsigned long long)cs.misses);
	printf("cold (built):     p50 %8.2f ms  max %8.2f ms\n", cold[rounds / 2] / 1e6,
	       cold[rounds - 1] / 1e6);
	printf("warm (cache):     p50 %8.2f ms  max %8.2f ms\n", warm[rounds / 2] / 1e6,
	       warm[rounds - 1] / 1e6);
	printf("warm / cold:      %.3f  (goal: warm <= 500 ms)\n",
	       (double)warm[rounds / 2] / (double)cold[rounds / 2]);
	cfi_cache__free(c);
	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench_cfi_cache: cannot remove %s\n", dir);
	free(cold);
	free(warm);
	return cs.hits == (uint64_t)rounds * nfiles ? 0 : 1;
}
