// SPDX-License-Identifier: Apache-2.0
// Kernels for test_sim_memory's module tests, built by nvcc into a cubin and a fatbin.

// Globals for cuModuleGetGlobal: initialized, zero-initialized and constant.
__device__ int sim_counter = 42;
__device__ float sim_buf[64];
__constant__ float sim_coef[4] = { 1.0f, 2.0f, 3.0f, 4.0f };

extern "C" __global__ void vadd(const float *a, float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		b[i] += a[i] + sim_buf[i & 63];
}

__global__ void scale(float *b, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i == 0)
		atomicAdd(&sim_counter, 1);
	if (i < n)
		b[i] *= s * sim_coef[i & 3];
}
