// SPDX-License-Identifier: Apache-2.0
/* pingpong: two threads bounce a byte over two pipes on one CPU -- two context switches per round trip. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Usage: pingpong [ROUND_TRIPS [CPU]]  (500000, 0). Prints switches per second. */

static int ab[2], ba[2];
static long rounds;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int cpu_arg;

static void *pong(void *arg)
{
	char c;

	pin(cpu_arg);
	for (long i = 0; i < rounds; i++) {
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			abort();
	}
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	pthread_t t;
	double s;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 500000;
	cpu_arg = argc > 2 ? atoi(argv[2]) : 0;
	if (pipe(ab) || pipe(ba))
		return 2;
	pin(cpu_arg);
	pthread_create(&t, NULL, pong, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < rounds; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			abort();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	getrusage(RUSAGE_SELF, &ru);
	printf("pingpong: %.3f s wall, %.3f s cpu, %.0f switches/s\n", s,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
	       2.0 * (double)rounds / s);
	return 0;
}
