// SPDX-License-Identifier: Apache-2.0
/*
 * wallprog: threads with known roles for the wall-clock analysis test.
 *
 *   spinner  burns CPU in hot_spin()                        -> cpu-bound
 *   sleeper  20 ms nanosleeps in sleepy_wait()              -> sleeping
 *   locker   waits on a futex in lock_wait(), woken / 10 ms -> lock-wait
 *   reader   reads a pipe in io_wait(), fed a byte / 10 ms  -> io-blocked
 *   poller   epoll_wait on nothing, 200 ms timeouts         -> idle
 *   stuck    reads a pipe nobody writes in stuck_wait(): blocked from
 *            before any recording to after it                 -> io-blocked
 *   feeder   wakes the locker and feeds the reader (nanosleep between)
 *
 * The blocking system calls are issued right in the named functions (no libc
 * wrapper, which has no frame pointer), so the frame-pointer walk of the
 * user stack finds them. Prints "PID SPINNER SLEEPER LOCKER READER POLLER"
 * (thread ids) once every thread runs, then runs for argv[1] seconds [10].
 *
 * Built with -O1 -g -fno-omit-frame-pointer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gp_util.h"

#if defined(__x86_64__)
/* always inlined: the system call's address is in the calling function */
static inline __attribute__((always_inline)) long sys4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
#define sys4(n, a, b, c, d) syscall(n, a, b, c, d)
#endif

static int pipefd[2];
static int stuckfd[2];
static atomic_uint futex_word;
static int epfd;
static atomic_int ready;
static pid_t tids[6];
static volatile unsigned long sink;

static __attribute__((noinline)) void hot_spin(void)
{
	unsigned long x = sink;
	int i;

	for (i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static __attribute__((noinline)) void sleepy_wait(void)
{
	struct timespec ts = {0, 20 * 1000 * 1000};

	sys4(SYS_nanosleep, (long)&ts, 0, 0, 0);
}

static __attribute__((noinline)) void lock_wait(unsigned seen)
{
	sys4(SYS_futex, (long)&futex_word, FUTEX_WAIT_PRIVATE, (long)seen, 0);
}

static __attribute__((noinline)) void io_wait(void)
{
	char c;

	sys4(SYS_read, pipefd[0], (long)&c, 1, 0);
}

static __attribute__((noinline)) void poll_wait(void)
{
	struct epoll_event ev;

	sys4(SYS_epoll_wait, epfd, (long)&ev, 1, 200);
}

static __attribute__((noinline)) void stuck_wait(void)
{
	char c;

	sys4(SYS_read, stuckfd[0], (long)&c, 1, 0);
}

static void start(int i, const char *name)
{
	pthread_setname_np(pthread_self(), name);
	tids[i] = (pid_t)syscall(SYS_gettid);
	atomic_fetch_add(&ready, 1);
}

static void *spinner(void *arg)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	(void)arg;
	/*
	 * On one CPU. Each CPU's sampling clock takes whatever runs on it at
	 * its tick, so a thread that bounces between CPUs under load is
	 * sampled by several clocks with independent phases: its on-CPU
	 * estimate stays unbiased, but its spread grows past the binomial one
	 * check_wallclock.py allows for (a 100%-busy thread split evenly over
	 * two CPUs: a 7% standard deviation over 2 s at 99 Hz, against ~0).
	 */
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	start(0, "spinner");
	for (;;)
		hot_spin();
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	start(1, "sleeper");
	for (;;)
		sleepy_wait();
	return NULL;
}

static void *locker(void *arg)
{
	(void)arg;
	start(2, "locker");
	for (;;) {
		unsigned seen = atomic_load(&futex_word);

		lock_wait(seen);
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	start(3, "reader");
	for (;;)
		io_wait();
	return NULL;
}

static void *poller(void *arg)
{
	(void)arg;
	start(4, "poller");
	for (;;)
		poll_wait();
	return NULL;
}

static void *stuck(void *arg)
{
	(void)arg;
	start(5, "stuck");
	for (;;)
		stuck_wait();
	return NULL;
}

static void *feeder(void *arg)
{
	struct timespec ts = {0, 10 * 1000 * 1000};

	(void)arg;
	pthread_setname_np(pthread_self(), "feeder");
	for (;;) {
		nanosleep(&ts, NULL);
		atomic_fetch_add(&futex_word, 1);
		syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		if (write(pipefd[1], "x", 1) != 1)
			abort();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = {spinner, sleeper, locker, reader, poller, stuck, feeder};
	double secs = argc > 1 ? atof(argv[1]) : 10;
	struct timespec end, now, nap = {0, 50 * 1000 * 1000};
	pthread_t th;
	size_t i;

	if (pipe(pipefd) || pipe(stuckfd) || (epfd = epoll_create1(0)) < 0)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		if (pthread_create(&th, NULL, fn[i], NULL))
			return 1;
	while (atomic_load(&ready) < 6)
		nanosleep(&nap, NULL);
	printf("%d %d %d %d %d %d %d\n", (int)getpid(), tids[0], tids[1], tids[2], tids[3], tids[4],
	       tids[5]);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	do {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
