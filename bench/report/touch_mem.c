// SPDX-License-Identifier: Apache-2.0
/*
 * touch_mem.c - what this machine charges for memory a process uses once:
 * map N MiB of anonymous memory, write one byte per page (the kernel
 * zeroes and maps each page on that first touch), then unmap it. The report
 * pays the same for every page of its peak RSS, so run.sh prints this next
 * to the report's own time: the part of it no code of ours can shorten
 * short of using fewer pages.
 *
 * usage: touch_mem MIB [REPS]   prints "SECONDS US_PER_PAGE", the best of REPS [3]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t len, i, pages, pg = (size_t)sysconf(_SC_PAGESIZE);
	double best = 0;
	int r, reps;

	if (argc < 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: touch_mem MIB [REPS]\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	reps = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3;
	pages = len / pg;
	for (r = 0; r < reps; r++) {
		double t0 = now(), t;
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
					-1, 0);

		if (p == MAP_FAILED) {
			perror("touch_mem: mmap");
			return 1;
		}
		for (i = 0; i < len; i += pg)
			p[i] = 1;
		munmap((void *)p, len);
		t = now() - t0;
		if (!r || t < best)
			best = t;
	}
	printf("%.3f %.2f\n", best, best / (double)pages * 1e6);
	return 0;
}
