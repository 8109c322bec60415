// SPDX-License-Identifier: Apache-2.0
// Kernels driver_module loads by name: built by nvcc into driver_module_kernels.cubin
// and driver_module_kernels.fatbin next to the samples (see CMakeLists.txt).

extern "C" __global__ void scale_rows(float *x, float f, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= f;
}

extern "C" __global__ void add_bias(float *x, float b, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += b;
}
