// SPDX-License-Identifier: Apache-2.0
/* thread_prog: threads that spin, sleep or block in known ways, for the agent's filter tests. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Usage: thread_prog MODE. Creates its threads, prints their tids and
 * "ready", then waits for a byte on stdin before doing anything, so that a
 * test can start the agent on those tids first. Modes:
 * A spinner spins until it used 1 s of CPU time (4 s of wall time at most),
 * so a loaded machine gives it as many samples, only later.
 *   spin_sleep  "spin_tid N": spins in spin_here(); "sleep_tid N":
 *               sleeps 20 ms 40 times in sleep_here(); then "sleep_ns N",
 *               the time measured around the sleeps.
 *   pinned      "cpu0_tid N", "cpu1_tid N": each spins pinned to that CPU.
 *   procs       forks; parent and child spin; "child N".
 *   blocks      "long_tid N": sleeps 50 ms x 10; "short_tid N": 5 ms x 60
 *               in short_sleeper(); "tiny_tid N": 100 us x 300, then
 *               "tiny_ns N". All three exit before the process does.
 */

#define NOINLINE __attribute__((noinline))

static pthread_barrier_t go, printed;
static volatile unsigned long sink;
static uint64_t sleep_ns, tiny_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void print_tid(const char *what)
{
	printf("%s %ld\n", what, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&printed);
}

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin until this thread has used @seconds of CPU (at most 4 s of wall time). */
NOINLINE void spin_here(double seconds)
{
	uint64_t end = cpu_ns() + (uint64_t)(seconds * 1e9), wall = now_ns() + 4000000000ull;
	unsigned long x = 1;

	while (cpu_ns() < end && now_ns() < wall)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

NOINLINE void sleep_here(long us)
{
	nap_us(us);
}

NOINLINE void short_sleeper(long us)
{
	nap_us(us);
}

static void *spinner(void *arg)
{
	print_tid("spin_tid");
	pthread_barrier_wait(&go);
	spin_here(1.0);
	return arg;
}

static void *sleeper(void *arg)
{
	print_tid("sleep_tid");
	pthread_barrier_wait(&go);
	for (int i = 0; i < 40; i++) {
		uint64_t t = now_ns();

		sleep_here(20000);
		sleep_ns += now_ns() - t;
	}
	return arg;
}

static void *pinned(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;
	char name[32];

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		abort();
	snprintf(name, sizeof(name), "cpu%d_tid", cpu);
	print_tid(name);
	pthread_barrier_wait(&go);
	spin_here(1.0);
	return NULL;
}

static void *long_blocks(void *arg)
{
	print_tid("long_tid");
	pthread_barrier_wait(&go);
	for (int i = 0; i < 10; i++)
		sleep_here(50000);
	return arg;
}

static void *short_blocks(void *arg)
{
	print_tid("short_tid");
	pthread_barrier_wait(&go);
	for (int i = 0; i < 60; i++)
		short_sleeper(5000);
	return arg;
}

static void *tiny_blocks(void *arg)
{
	print_tid("tiny_tid");
	pthread_barrier_wait(&go);
	for (int i = 0; i < 300; i++) {
		uint64_t t = now_ns();

		nap_us(100);
		tiny_ns += now_ns() - t;
	}
	return arg;
}

static void wait_go(void)
{
	char c;

	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		exit(2);
}

int main(int argc, char **argv)
{
	void *(*fn[3])(void *) = { NULL };
	void *arg[3] = { NULL };
	pthread_t t[3];
	int n = 0;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "spin_sleep")) {
		fn[n++] = spinner;
		fn[n++] = sleeper;
	} else if (!strcmp(argv[1], "pinned")) {
		fn[n] = pinned, arg[n++] = (void *)0;
		fn[n] = pinned, arg[n++] = (void *)1;
	} else if (!strcmp(argv[1], "blocks")) {
		fn[n++] = long_blocks;
		fn[n++] = short_blocks;
		fn[n++] = tiny_blocks;
	} else if (!strcmp(argv[1], "procs")) {
		pid_t c;

		wait_go();
		c = fork();
		if (c < 0)
			return 1;
		if (c == 0) {
			spin_here(1.0);
			_exit(0);
		}
		printf("child %d\n", (int)c);
		fflush(stdout);
		spin_here(1.0);
		waitpid(c, NULL, 0);
		return 0;
	} else {
		return 2;
	}
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	pthread_barrier_init(&printed, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn[i], arg[i]);
	pthread_barrier_wait(&printed); /* every thread printed its tid */
	wait_go();
	pthread_barrier_wait(&go);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (sleep_ns)
		printf("sleep_ns %llu\n", (unsigned long long)sleep_ns);
	if (tiny_ns)
		printf("tiny_ns %llu\n", (unsigned long long)tiny_ns);
	/* keep the process alive a little so the exited threads' records come first */
	nap_us(50000);
	return 0;
}
