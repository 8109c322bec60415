// SPDX-License-Identifier: Apache-2.0
/*
 * cfi_prog: CPU time spent under qsort's comparator, on the main thread and
 * on a second one, built without frame pointers anywhere (-O2
 * -fomit-frame-pointer), so only CFI unwinding reaches main and
 * thread_main: main -> sort_outer -> qsort (libc) -> ... -> cmp_slow.
 * Usage: cfi_prog SECONDS (of work per thread; time is checked rarely, so
 * few samples land in clock_gettime).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;
static double seconds = 1.0;

NOIPA int cmp_slow(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	for (int i = 0; i < 40; i++)
		sink += (unsigned long)(x ^ i);
	return (x > y) - (x < y);
}

NOIPA void sort_outer(int *v, int n, unsigned int *seed)
{
	for (int i = 0; i < n; i++)
		v[i] = rand_r(seed);
	qsort(v, (size_t)n, sizeof(*v), cmp_slow);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOIPA void work(unsigned int seed)
{
	static __thread int v[2048];
	double end = now() + seconds;

	while (now() < end)
		sort_outer(v, 2048, &seed);
}

NOIPA void *thread_main(void *arg)
{
	work(2);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	work(1);
	pthread_join(t, NULL);
	return 0;
}
