// SPDX-License-Identifier: Apache-2.0
/* Test library: launches from code that is dlopen'ed after the profiler started and dlclose'd before the program ends. */
#include <cuda.h>

int plugin_run(CUfunction f, CUstream s, int n) __attribute__((visibility("default")));

static __attribute__((noinline)) int plugin_launch_kernels(CUfunction f, CUstream s, int n)
{
	int i, err = 0;

	for (i = 0; i < n && !err; i++)
		err = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL) != CUDA_SUCCESS;
	__asm__ volatile("" ::: "memory"); /* keeps its frame: no tail call */
	return err;
}

int plugin_run(CUfunction f, CUstream s, int n)
{
	int err = plugin_launch_kernels(f, s, n);

	__asm__ volatile("" ::: "memory");
	return err;
}
