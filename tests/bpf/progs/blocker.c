// SPDX-License-Identifier: Apache-2.0
/* blocker: blocks in known ways for known times, for the off-CPU tests. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/*
 * main -> do_sleep -> sleep_inner -> nanosleep
 *      -> do_pipe -> pipe_inner -> read (a helper thread writes after a delay)
 *      -> do_condvar -> cond_inner -> pthread_cond_wait (a helper signals after a delay)
 *      -> do_fullpipe -> fullpipe_inner -> write of four pipe capacities
 *         into a full pipe, which a helper drains one capacity every 20 ms:
 *         one system call that blocks three times
 * Each is repeated REPS times; the measured blocked time of each kind is
 * printed as "sleep NS", "pipe NS", "cond NS", "fullpipe NS", and the main tid
 * as "tid N";
 * "condwin START END" (CLOCK_MONOTONIC) is each condition-variable wait.
 * The *_inner frames exist because the kernel's frame-pointer walk loses
 * the caller of a libc function without frame pointers.
 */

#define NOINLINE __attribute__((noinline))
#define REPS 5

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

NOINLINE void sleep_inner(long ms)
{
	sleep_ms(ms);
}

NOINLINE uint64_t do_sleep(void)
{
	uint64_t t = now_ns();

	sleep_inner(40);
	return now_ns() - t;
}

static int pfd[2];

static void *pipe_writer(void *arg)
{
	char c = 'x';

	sleep_ms(30);
	if (write(pfd[1], &c, 1) != 1)
		abort();
	return arg;
}

NOINLINE void pipe_inner(void)
{
	char c;

	if (read(pfd[0], &c, 1) != 1)
		abort();
}

NOINLINE uint64_t do_pipe(void)
{
	pthread_t t;
	uint64_t t0;

	pthread_create(&t, NULL, pipe_writer, NULL);
	t0 = now_ns();
	pipe_inner();
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	return t0;
}

static int wfd[2];
static int wcap;
static char *wbuf;

/* Read one pipe capacity from the full-pipe test's pipe. */
static void drain_one(void)
{
	for (int got = 0; got < wcap;) {
		ssize_t n = read(wfd[0], wbuf + wcap * 4, (size_t)(wcap - got));

		if (n <= 0)
			abort();
		got += (int)n;
	}
}

static void *pipe_drainer(void *arg)
{
	for (int i = 0; i < 3; i++) {
		sleep_ms(20);
		drain_one();
	}
	return arg;
}

NOINLINE void fullpipe_inner(void)
{
	/* the first capacity fills the pipe at once; the other three wait for the drainer */
	if (write(wfd[1], wbuf, (size_t)wcap * 4) != wcap * 4)
		abort();
}

NOINLINE uint64_t do_fullpipe(void)
{
	pthread_t t;
	uint64_t t0;

	pthread_create(&t, NULL, pipe_drainer, NULL);
	t0 = now_ns();
	fullpipe_inner();
	t0 = now_ns() - t0;
	pthread_join(t, NULL);
	drain_one(); /* empty the pipe for the next round */
	return t0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;

static void *cond_signaler(void *arg)
{
	sleep_ms(20);
	pthread_mutex_lock(&mu);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return arg;
}

NOINLINE void cond_inner(void)
{
	pthread_mutex_lock(&mu);
	while (!ready)
		pthread_cond_wait(&cv, &mu);
	ready = 0;
	pthread_mutex_unlock(&mu);
}

static uint64_t cond_win[2 * 16];

NOINLINE uint64_t do_condvar(int rep)
{
	pthread_t t;
	uint64_t t0, t1;

	pthread_create(&t, NULL, cond_signaler, NULL);
	t0 = now_ns();
	cond_inner();
	t1 = now_ns();
	pthread_join(t, NULL);
	cond_win[2 * rep] = t0;
	cond_win[2 * rep + 1] = t1;
	return t1 - t0;
}

int main(void)
{
	uint64_t s = 0, p = 0, c = 0, w = 0;

	if (pipe(pfd) || pipe(wfd))
		return 1;
	wcap = fcntl(wfd[1], F_GETPIPE_SZ);
	wbuf = calloc(5, (size_t)wcap);
	if (wcap <= 0 || !wbuf)
		return 1;
	for (int i = 0; i < REPS; i++) {
		s += do_sleep();
		p += do_pipe();
		c += do_condvar(i);
		w += do_fullpipe();
	}
	printf("tid %d\nsleep %llu\npipe %llu\ncond %llu\nfullpipe %llu\n", gettid(),
	       (unsigned long long)s, (unsigned long long)p, (unsigned long long)c,
	       (unsigned long long)w);
	for (int i = 0; i < REPS; i++)
		printf("condwin %llu %llu\n", (unsigned long long)cond_win[2 * i],
		       (unsigned long long)cond_win[2 * i + 1]);
	return 0;
}
