// SPDX-License-Identifier: Apache-2.0
/* cpu_spin: fixed CPU-bound work on N threads; prints its wall time (the profilers' slowdown is measured on it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Usage: cpu_spin [THREADS [MILLION_ITERS]]  (2, 2000) */

#define NOINLINE __attribute__((noinline))

static unsigned long iters;

NOINLINE static unsigned long spin_hot(unsigned long x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static void *spin_thread(void *arg)
{
	unsigned long x = (unsigned long)arg;

	for (unsigned long m = 0; m < iters; m++)
		x = spin_hot(x, 1000000);
	return (void *)x;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	struct timespec a, b;
	struct rusage ru;
	pthread_t t[64];

	iters = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
	if (threads < 1 || threads > 64)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, spin_thread, (void *)(unsigned long)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &ru);
	/*
	 * CPU time is the measure that other load on the machine does not
	 * inflate; without IRQ time accounting it includes the sampling
	 * interrupts (and the BPF programs they run) that hit this process.
	 */
	printf("cpu_spin: %.3f s wall, %.3f s cpu\n",
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6);
	return 0;
}
