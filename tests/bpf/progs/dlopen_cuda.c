// SPDX-License-Identifier: Apache-2.0
/* dlopen_cuda: loads libcudart.so.13 only after start (as PyTorch does), then copies through it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * main -> copy_loop -> cudaMemcpy x COPIES right after the dlopen: the agent
 * must have attached to the new library before its first call (no pause to
 * let a periodic rescan catch up). Prints "copies N" and "tid N".
 */

#define NOINLINE __attribute__((noinline))
#define COPIES 5

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);

NOINLINE int copy_loop(memcpy_fn cp, void *dev, const void *host, size_t n)
{
	int err = 0;

	for (int i = 0; i < COPIES && !err; i++)
		err = cp(dev, host, n, 1 /* cudaMemcpyHostToDevice */);
	return err;
}

int main(void)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	static char host[4096];
	void *lib, *dev = NULL;
	malloc_fn ma;
	memcpy_fn cp;

	nanosleep(&pause, NULL); /* the agent sees the process without libcudart first */
	lib = dlopen("libcudart.so.13", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	ma = (malloc_fn)dlsym(lib, "cudaMalloc");
	cp = (memcpy_fn)dlsym(lib, "cudaMemcpy");
	if (!ma || !cp || ma(&dev, sizeof(host)))
		return 3;
	if (copy_loop(cp, dev, host, sizeof(host)))
		return 4;
	printf("copies %d\ntid %d\n", COPIES, gettid());
	return 0;
}
