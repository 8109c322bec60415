// SPDX-License-Identifier: Apache-2.0
/*
 * bench_unwind: ns per unwind of a stack 20 frames deep through code built
 * without frame pointers (tests/unwind/chain.c), for gpuperf's unwinder
 * (unwind/), glibc's backtrace() (libgcc's unwinder) and a frame-pointer
 * walk, warm (back to back) and cold (caches flushed by writing 32 MiB
 * before each unwind). p50/p99 per method and the ratio of each p50 to the
 * frame-pointer walk's over the same depth of code built with frame
 * pointers. Timed with CLOCK_MONOTONIC around each unwind; the clock's own
 * cost is printed and not subtracted.
 *
 *	bench_unwind [-n SAMPLES]
 */
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"
#include "unwind.h"

CHAIN_DECLARE(nofp_)
CHAIN_DECLARE(fp_)

#define EVICT_BYTES (32u << 20)

static struct gp_unwind *U;
static uintptr_t stack_lo, stack_hi;
static uint8_t *evict_buf;
static int samples = 20000;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A frame-pointer walk with the same bounds checks as ours. */
__attribute__((noinline, no_sanitize_address)) static int fp_walk(uint64_t *pcs, int max)
{
	uintptr_t bp = (uintptr_t)__builtin_frame_address(0), nbp;
	int n = 0;

	while (n < max && bp >= stack_lo && bp + 16 <= stack_hi && !(bp & 7)) {
		uint64_t ra = ((const uint64_t *)bp)[1];

		if (!ra)
			break;
		pcs[n++] = ra;
		nbp = *(const uintptr_t *)bp;
		if (nbp <= bp)
			break;
		bp = nbp;
	}
	return n;
}

static int do_ours(uint64_t *pcs)
{
	return gp_unwind__here(U, pcs, GP_UNWIND_MAX_DEPTH, NULL);
}

static int do_backtrace(uint64_t *pcs)
{
	return backtrace((void **)pcs, GP_UNWIND_MAX_DEPTH);
}

static int do_fp(uint64_t *pcs)
{
	return fp_walk(pcs, GP_UNWIND_MAX_DEPTH);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	const char *name;
	int frames;
	uint64_t p50, p99;
};

static struct result results[16];
static int nresults;

static void measure(const char *name, int (*fn)(uint64_t *), int cold)
{
	uint64_t pcs[GP_UNWIND_MAX_DEPTH], *t = malloc(sizeof(*t) * (size_t)samples), t0;
	int i, n = 0, count = cold ? samples / 10 + 1 : samples;
	struct result *r = &results[nresults++];

	if (!t)
		exit(1);
	for (i = 0; i < 100; i++) /* tables, libgcc's caches, branch predictors */
		fn(pcs);
	for (i = 0; i < count; i++) {
		if (cold)
			memset(evict_buf, i, EVICT_BYTES);
		t0 = now_ns();
		n = fn(pcs);
		t[i] = now_ns() - t0;
	}
	qsort(t, (size_t)count, sizeof(*t), cmp_u64);
	r->name = name;
	r->frames = n;
	r->p50 = t[count / 2];
	r->p99 = t[count * 99 / 100];
	free(t);
}

static int in_nofp(void *arg)
{
	(void)arg;
	measure("gpuperf unwind, no-fp chain, warm", do_ours, 0);
	measure("gpuperf unwind, no-fp chain, cold", do_ours, 1);
	measure("backtrace(), no-fp chain, warm", do_backtrace, 0);
	measure("backtrace(), no-fp chain, cold", do_backtrace, 1);
	measure("fp walk, no-fp chain (stops early), warm", do_fp, 0);
	return 0;
}

static int in_fp(void *arg)
{
	(void)arg;
	measure("fp walk, fp chain, warm (reference)", do_fp, 0);
	measure("fp walk, fp chain, cold", do_fp, 1);
	measure("gpuperf unwind, fp chain, warm", do_ours, 0);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	uint64_t t0, clk[1000];
	double ref;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n' && atoi(optarg) > 0) {
			samples = atoi(optarg);
		} else {
			fprintf(stderr, "usage: bench_unwind [-n SAMPLES]\n");
			return 2;
		}
	}
	evict_buf = malloc(EVICT_BYTES);
	U = gp_unwind__new();
	if (!evict_buf || !U || gp_unwind__refresh(U) < 0) {
		fprintf(stderr, "bench_unwind: cannot set up the unwinder\n");
		return 1;
	}
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	stack_lo = (uintptr_t)addr;
	stack_hi = stack_lo + size;
	gp_unwind__thread_init();

	for (i = 0; i < 1000; i++) {
		t0 = now_ns();
		clk[i] = now_ns() - t0;
	}
	qsort(clk, 1000, sizeof(clk[0]), cmp_u64);

	nofp_run(in_nofp, NULL);
	fp_run(in_fp, NULL);

	ref = (double)results[5].p50;
	printf("bench_unwind: %d samples (cold: %d), chain of %d frames; clock_gettime pair: %lu ns p50\n",
	       samples, samples / 10 + 1, CHAIN_DEPTH, (unsigned long)clk[500]);
	printf("%-44s %6s %8s %8s %10s\n", "method", "frames", "p50 ns", "p99 ns", "p50 / fp");
	for (i = 0; i < nresults; i++)
		printf("%-44s %6d %8lu %8lu %10.2f\n", results[i].name, results[i].frames,
		       (unsigned long)results[i].p50, (unsigned long)results[i].p99,
		       ref > 0 ? (double)results[i].p50 / ref : 0.0);
	/* backtrace() may count one frame more: ASan's interceptor */
	if (results[0].frames < CHAIN_DEPTH + 2 || results[2].frames - results[0].frames > 1 ||
	    results[2].frames < results[0].frames) {
		fprintf(stderr, "bench_unwind: gpuperf unwind got %d frames, backtrace() %d\n",
			results[0].frames, results[2].frames);
		return 1;
	}
	gp_unwind__free(U);
	free(evict_buf);
	return 0;
}
