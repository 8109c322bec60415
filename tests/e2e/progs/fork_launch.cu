// SPDX-License-Identifier: Apache-2.0
/* fork_launch: forks before any CUDA call, then parent and child each launch kernels (record's multi-process test). */

/*
 * usage: fork_launch [KERNELS]
 * Both processes launch KERNELS (3) kernels and synchronize; the parent
 * waits for the child and exits with its status. Prints
 * "fork_launch: parent P child C ok".
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t e_ = (call);                                              \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

__global__ void fork_tick_kernel(int *p)
{
	if (p)
		p[threadIdx.x] += 1;
}

static __attribute__((noinline)) void launch_some(int n)
{
	int *d = NULL;

	CHECK(cudaMalloc(&d, 32 * sizeof(int)));
	for (int i = 0; i < n; i++)
		fork_tick_kernel<<<1, 32>>>(d);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(d));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, status = 0;
	pid_t child;

	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	launch_some(n);
	if (child == 0)
		return 0;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fork_launch: child failed (status 0x%x)\n", status);
		return 1;
	}
	printf("fork_launch: parent %d child %d ok\n", (int)getpid(), (int)child);
	return 0;
}
