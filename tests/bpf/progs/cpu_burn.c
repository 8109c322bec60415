// SPDX-License-Identifier: Apache-2.0
/* cpu_burn: a CPU-bound program with a known call structure, for the on-CPU sampler's tests. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * main -> run_burn -> [thread] burn_worker -> burn_outer -> burn_hot
 * Usage: cpu_burn [-t THREADS] [-s SECONDS] [-f]   (-f: do it in a forked child)
 * Prints "tid N" for every burning thread, and "child N" with -f.
 */

#define NOINLINE __attribute__((noinline))

static double seconds = 1.0;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOINLINE unsigned long burn_hot(unsigned long x)
{
	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

NOINLINE void burn_outer(void)
{
	double end = now() + seconds;
	unsigned long x = 1;

	while (now() < end)
		x = burn_hot(x);
	sink = x;
}

NOINLINE void *burn_worker(void *arg)
{
	printf("tid %d\n", gettid());
	fflush(stdout);
	burn_outer();
	return arg;
}

NOINLINE void run_burn(int threads)
{
	pthread_t t[64];

	if (threads <= 1) {
		burn_worker(NULL);
		return;
	}
	for (int i = 0; i < threads && i < 64; i++)
		pthread_create(&t[i], NULL, burn_worker, NULL);
	for (int i = 0; i < threads && i < 64; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int threads = 1, fork_child = 0, c;

	while ((c = getopt(argc, argv, "t:s:f")) != -1) {
		if (c == 't')
			threads = atoi(optarg);
		else if (c == 's')
			seconds = atof(optarg);
		else if (c == 'f')
			fork_child = 1;
	}
	if (fork_child) {
		pid_t pid = fork();

		if (pid == 0) {
			run_burn(threads);
			fflush(stdout);
			_exit(0);
		}
		printf("child %d\n", pid);
		fflush(stdout);
		waitpid(pid, NULL, 0);
		return 0;
	}
	run_burn(threads);
	return 0;
}
