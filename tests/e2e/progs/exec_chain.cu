// SPDX-License-Identifier: Apache-2.0
/* exec_chain: launches kernels, then execs another CUDA image that launches more (record's exec test). */

/*
 * usage: exec_chain N [M NEXT]
 * Launches N kernels and synchronizes. With NEXT, it waits until its trace
 * holds them (what an exec keeps: everything older than one flush period),
 * then execs NEXT M: the same program under another name, which launches M
 * kernels, prints "exec_chain: pid P M kernels ok" and exits 0. The pid
 * stays the same throughout.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t e_ = (call);                                              \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

__global__ void exec_tick_kernel(int *p)
{
	if (p)
		p[threadIdx.x] += 1;
}

static void launch_some(int n)
{
	int *d = NULL;

	CHECK(cudaMalloc(&d, 32 * sizeof(int)));
	for (int i = 0; i < n; i++)
		exec_tick_kernel<<<1, 32>>>(d);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(d));
}

/*
 * The library's writer puts a chunk on disk every flush period: two more
 * after the synchronize mean one whole period began after it, and that
 * one wrote the kernels. Bounded (30 s), so a missing trace cannot hang.
 */
static void wait_flushed(void)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	const char *dir = getenv("GPUPERF_DIR");
	char path[4096];
	struct stat st;
	off_t last = -1;
	int grew = 0;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/gpu-%d.trace", dir, (int)getpid());
	for (int i = 0; i < 3000 && grew < 2; i++) {
		if (!stat(path, &st)) {
			if (last >= 0 && st.st_size != last)
				grew++;
			last = st.st_size;
		}
		nanosleep(&tick, NULL);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	launch_some(n);
	if (argc > 3) {
		char *next[] = { argv[3], argv[2], NULL };

		wait_flushed();
		fflush(stdout);
		execv(argv[3], next);
		perror("execv");
		return 1;
	}
	printf("exec_chain: pid %d %d kernels ok\n", (int)getpid(), n);
	return 0;
}
