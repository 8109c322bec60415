// SPDX-License-Identifier: Apache-2.0
/*
 * block_prog: two threads that block through libc until killed, built
 * without frame pointers: main -> wait_cond -> pthread_cond_wait, and
 * thread_main -> wait_read -> read of stdin. Prints "ready" once both
 * are on their way to blocking. For the blocks still in progress when a
 * recording stops (test_cfi_offcpu).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;

NOIPA void wait_cond(void)
{
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

NOIPA int wait_read(int fd)
{
	char c;

	return (int)read(fd, &c, 1);
}

NOIPA void *thread_main(void *arg)
{
	wait_read(0);
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	wait_cond();
	return 0;
}
