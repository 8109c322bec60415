// SPDX-License-Identifier: Apache-2.0
/*
 * wait_prog: blocks through Debian's libc and libstdc++ (no frame pointers
 * there) from functions of its own, built with frame pointers (-O2
 * -fno-omit-frame-pointer), for the off-CPU CFI test; and two threads
 * spinning on one CPU, preempted by each other.
 *
 * main -> wait_sleep -> nanosleep
 *      -> wait_pipe -> read (a helper writes after a delay)
 *      -> wait_cond -> pthread_cond_wait (a helper signals after a delay)
 *      -> wait_cxx -> std::condition_variable::wait (a helper notifies)
 * then spin_main -> spin_loop on two threads pinned to one CPU.
 * Prints "win KIND START END" (CLOCK_MONOTONIC ns) around each wait of the
 * main thread, "main TID", and "spin TID" for each spinning thread.
 */
#include <condition_variable>
#include <mutex>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))
#define REPS 4
#define DELAY_MS 20

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int pfd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static std::mutex xmu;
static std::condition_variable xcv;
static bool xready;

NOIPA void wait_sleep(void)
{
	sleep_ms(DELAY_MS);
}

NOIPA void wait_pipe(void)
{
	char c;

	if (read(pfd[0], &c, 1) != 1)
		abort();
}

NOIPA void wait_cond(void)
{
	pthread_mutex_lock(&mu);
	while (!ready)
		pthread_cond_wait(&cv, &mu);
	ready = 0;
	pthread_mutex_unlock(&mu);
}

NOIPA void wait_cxx(void)
{
	std::unique_lock<std::mutex> lk(xmu);

	xcv.wait(lk, [] { return xready; });
	xready = false;
}

/* the other side of each wait, after DELAY_MS */
static void *waker(void *arg)
{
	long kind = (long)arg;
	char c = 'x';

	sleep_ms(DELAY_MS);
	if (kind == 1) {
		if (write(pfd[1], &c, 1) != 1)
			abort();
	} else if (kind == 2) {
		pthread_mutex_lock(&mu);
		ready = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	} else if (kind == 3) {
		{
			std::lock_guard<std::mutex> g(xmu);
			xready = true;
		}
		xcv.notify_one();
	}
	return NULL;
}

static volatile unsigned long sink;
static int spin_cpu = -1;

NOIPA void spin_loop(uint64_t end)
{
	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

NOIPA void *spin_main(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(spin_cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		abort();
	printf("spin %d\n", gettid());
	spin_loop(*(const uint64_t *)arg);
	return NULL;
}

int main(void)
{
	static const char *const kinds[] = { "sleep", "pipe", "cond", "cxx" };
	void (*const waits[])(void) = { wait_sleep, wait_pipe, wait_cond, wait_cxx };
	pthread_t t[2];
	cpu_set_t set;
	uint64_t end;

	if (pipe(pfd) || sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (int c = 0; c < CPU_SETSIZE && spin_cpu < 0; c++)
		if (CPU_ISSET(c, &set))
			spin_cpu = c;
	printf("main %d\n", gettid());
	for (int r = 0; r < REPS; r++) {
		for (long k = 0; k < 4; k++) {
			uint64_t t0;

			if (k && pthread_create(&t[0], NULL, waker, (void *)k))
				return 1;
			t0 = now_ns();
			waits[k]();
			printf("win %s %llu %llu\n", kinds[k], (unsigned long long)t0,
			       (unsigned long long)now_ns());
			if (k)
				pthread_join(t[0], NULL);
		}
	}
	fflush(stdout);
	end = now_ns() + 300000000ull;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin_main, &end))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
