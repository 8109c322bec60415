// SPDX-License-Identifier: Apache-2.0
// Kernels for test_sim_memory's module tests, built by nvcc into a cubin and a fatbin.

extern "C" __global__ void vadd(const float *a, float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		b[i] += a[i];
}

__global__ void scale(float *b, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		b[i] *= s;
}
