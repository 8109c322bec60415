// SPDX-License-Identifier: Apache-2.0
/* Test program: 8 threads launching at once, each from a call chain of its own depth; prints the stacks to expect. */

/*
 * usage: stress_stacks [LAUNCHES_PER_THREAD [THREADS]]
 *
 * Thread t (0..THREADS-1, 8 by default) descends 6 + 3t frames of
 * descend() (t % 8 for the ninth and later) and from there
 * launches kernel k<t % 8> LAUNCHES_PER_THREAD times with cuLaunchKernel (and
 * one cuMemsetD8Async), all threads at once: none starts launching before
 * every one is ready, none ends before every one is done. Before its first launch it
 * prints, from glibc's backtrace() at the launch site, the return
 * addresses of the launching function's callers:
 *	thread T tid TID kernel kT callers 0x... 0x...
 * A launch stack taken for that thread must hold exactly those frames
 * after its first two (the CUDA entry point, the return address into
 * launch()): check_stress.py compares every one.
 */
#include <cuda.h>

#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 256

static const char ptx[] = ".entry k0 ( ) { }\n.entry k1 ( ) { }\n.entry k2 ( ) { }\n"
			  ".entry k3 ( ) { }\n.entry k4 ( ) { }\n.entry k5 ( ) { }\n"
			  ".entry k6 ( ) { }\n.entry k7 ( ) { }\n";
static CUmodule mod;
static CUcontext ctx;
static unsigned long launches = 2000;
static int nthreads = 8;
static pthread_barrier_t start_line, finish_line;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) int launch(int t)
{
	void *bt[128];
	char name[8];
	CUfunction f;
	CUstream s;
	CUdeviceptr p;
	unsigned long i;
	int n, k, err = 0;

	snprintf(name, sizeof(name), "k%d", t % 8);
	if (cuModuleGetFunction(&f, mod, name) || cuStreamCreate(&s, 0) || cuMemAlloc(&p, 4096)) {
		pthread_barrier_wait(&start_line); /* the others must not wait for this one */
		pthread_barrier_wait(&finish_line);
		return 1;
	}
	n = backtrace(bt, 128);
	/* from the frame after launch()'s own (a sanitizer's backtrace() adds one of its own first) */
	for (k = 0; k < n && !((char *)bt[k] > (char *)launch && (char *)bt[k] < (char *)launch + 4096);
	     k++)
		;
	pthread_mutex_lock(&print_lock);
	printf("thread %d tid %d kernel %s callers", t, (int)gettid(), name);
	for (k++; k < n; k++)
		printf(" %p", bt[k]);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
	pthread_barrier_wait(&start_line);
	for (i = 0; i < launches && !err; i++)
		err = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL) != CUDA_SUCCESS;
	err |= cuMemsetD8Async(p, 0, 4096, s) != CUDA_SUCCESS;
	err |= cuStreamSynchronize(s) != CUDA_SUCCESS;
	/*
	 * Freed while every thread still holds its ring: a thread gone past the
	 * finish line gives its ring back, and a late free could take it.
	 */
	err |= cuMemFree(p) != CUDA_SUCCESS;
	pthread_barrier_wait(&finish_line);
	cuStreamDestroy(s);
	return err;
}

/* A chain of its own depth per thread: stacks that differ thread by thread. */
static __attribute__((noinline)) int descend(int t, int depth)
{
	int r = depth ? descend(t, depth - 1) : launch(t);

	__asm__ volatile("" ::: "memory"); /* no tail call: every level keeps its frame */
	return r;
}

static void *thread_main(void *arg)
{
	int t = (int)(long)arg;

	if (cuCtxSetCurrent(ctx))
		return (void *)1L;
	return (void *)(long)descend(t, 6 + 3 * (t % 8));
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	CUdevice dev;
	void *ret;
	int t, err = 0;

	if (argc > 1)
		launches = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
	pthread_barrier_init(&finish_line, NULL, (unsigned)nthreads);
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx) || cuModuleLoadData(&mod, ptx)) {
		fprintf(stderr, "stress_stacks: CUDA setup failed\n");
		return 1;
	}
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, thread_main, (void *)(long)t))
			return 1;
	for (t = 0; t < nthreads; t++) {
		pthread_join(th[t], &ret);
		err |= ret != NULL;
	}
	cuModuleUnload(mod);
	printf("stress_stacks: threads=%d launches=%lu %s\n", nthreads, launches,
	       err ? "FAILED" : "ok");
	return err;
}
