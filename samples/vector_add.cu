// SPDX-License-Identifier: Apache-2.0
// vector_add: the smallest profile there is, one kernel under one host call chain.
//
// main -> run_vector_add -> launch_vector_add -> vector_add_kernel
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "vector_add";

__global__ void vector_add_kernel(const float *a, const float *b, float *c, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

static SAMPLE_NOINLINE void launch_vector_add(const float *a, const float *b, float *c, size_t n)
{
	const unsigned block = 256;
	unsigned grid = (unsigned)((n + block - 1) / block);
	vector_add_kernel<<<grid, block>>>(a, b, c, n);
	CHECK_LAUNCH();
}

// Returns the number of mismatches between c and a + b.
static size_t count_mismatches(const std::vector<float> &a, const std::vector<float> &b,
			       const std::vector<float> &c)
{
	size_t bad = 0;
	for (size_t i = 0; i < c.size(); i++) {
		if (c[i] != a[i] + b[i]) {
			if (!bad)
				fprintf(stderr, "%s: c[%zu] = %g, expected %g\n", SAMPLE, i,
					c[i], a[i] + b[i]);
			bad++;
		}
	}
	return bad;
}

static SAMPLE_NOINLINE int run_vector_add(size_t n, bool simulated)
{
	std::vector<float> a(n), b(n), c(n, -1.0f);
	for (size_t i = 0; i < n; i++) {
		// Small integers: the sum is exact in float.
		a[i] = (float)(i % 1000);
		b[i] = (float)(2 * (i % 777));
	}

	size_t bytes = n * sizeof(float);
	float *d_a = NULL, *d_b = NULL, *d_c = NULL;
	CHECK(cudaMalloc(&d_a, bytes));
	CHECK(cudaMalloc(&d_b, bytes));
	CHECK(cudaMalloc(&d_c, bytes));
	CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));

	launch_vector_add(d_a, d_b, d_c, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));

	CHECK(cudaFree(d_c));
	CHECK(cudaFree(d_b));
	CHECK(cudaFree(d_a));

	if (simulated) {
		sample_note_skipped(SAMPLE);
		return 0;
	}
	size_t bad = count_mismatches(a, b, c);
	if (bad) {
		fprintf(stderr, "%s: %zu of %zu elements wrong\n", SAMPLE, bad, n);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[N]   (N elements, default 1048576)");
	size_t n = sample_arg(argc, argv, 1, "N", 1UL << 20, 1, 1UL << 28);

	bool simulated = sample_on_simulator();
	if (run_vector_add(n, simulated))
		return 1;
	printf("%s: n=%zu launches=1 ok\n", SAMPLE, n);
	return 0;
}
