// SPDX-License-Identifier: Apache-2.0
// driver_api: the same kernel launched through the driver API (cuLaunchKernel,
// as frameworks with their own launchers do) and through the runtime.
//
// main -> run_saxpy -> launch_saxpy_driver  (cuLaunchKernel: saxpy_kernel)
//                   -> launch_saxpy_runtime (<<<>>>: saxpy_kernel)
// The CUfunction comes from cudaGetFuncBySymbol.
#include "sample_util.h"

#include "sample_drv.h"

#include <vector>

static const char *const SAMPLE = "driver_api";

// y = a * x + y
__global__ void saxpy_kernel(float a, const float *x, float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

static SAMPLE_NOINLINE void launch_saxpy_driver(CUfunction fn, CUstream stream, float a,
						 const float *x, float *y, unsigned n)
{
	void *args[] = {&a, &x, &y, &n};
	CU_CHECK(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, NULL));
}

static SAMPLE_NOINLINE void launch_saxpy_runtime(cudaStream_t stream, float a, const float *x,
						  float *y, unsigned n)
{
	saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, x, y, n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE int run_saxpy(unsigned n, unsigned long launches, bool simulated)
{
	std::vector<float> x(n), y(n);
	for (unsigned i = 0; i < n; i++) {
		x[i] = (float)(i % 16);
		y[i] = (float)(i % 100);
	}

	cudaFunction_t rt_fn = NULL;
	CHECK(cudaGetFuncBySymbol(&rt_fn, (const void *)saxpy_kernel));
	// cudaFunction_t and CUfunction name the same driver object.
	CUfunction fn = (CUfunction)rt_fn;

	cudaStream_t stream;
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	float *d_x = NULL, *d_y = NULL;
	CHECK(cudaMalloc(&d_x, n * sizeof(float)));
	CHECK(cudaMalloc(&d_y, n * sizeof(float)));
	CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	// A copy from pageable memory may still be in flight when it returns, and
	// the launches go to a non-blocking stream, which does not wait for it.
	CHECK(cudaDeviceSynchronize());

	// Alternate the two paths: each adds 2x, so y ends at y0 + 2 * 2 * launches * x.
	for (unsigned long i = 0; i < launches; i++) {
		launch_saxpy_driver(fn, (CUstream)stream, 2.0f, d_x, d_y, n);
		launch_saxpy_runtime(stream, 2.0f, d_x, d_y, n);
	}
	CHECK(cudaStreamSynchronize(stream));

	std::vector<float> out(n);
	CHECK(cudaMemcpy(out.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d_y));
	CHECK(cudaFree(d_x));
	CHECK(cudaStreamDestroy(stream));

	if (simulated) {
		sample_note_skipped(SAMPLE);
		return 0;
	}
	unsigned long bad = 0;
	for (unsigned i = 0; i < n; i++) {
		// Exact: small integers throughout.
		float want = y[i] + 4.0f * (float)launches * x[i];
		if (out[i] != want) {
			if (!bad)
				fprintf(stderr, "%s: y[%u] = %g, expected %g\n", SAMPLE, i, out[i],
					want);
			bad++;
		}
	}
	if (bad) {
		fprintf(stderr, "%s: %lu of %u elements wrong\n", SAMPLE, bad, n);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[N [LAUNCHES]]   (default 65536 elements, 10 launches per API)");
	unsigned n = (unsigned)sample_arg(argc, argv, 1, "N", 1UL << 16, 1, 1UL << 26);
	unsigned long launches = sample_arg(argc, argv, 2, "LAUNCHES", 10, 1, 10000);

	bool simulated = sample_on_simulator();
	if (run_saxpy(n, launches, simulated))
		return 1;
	printf("%s: n=%u driver_launches=%lu runtime_launches=%lu ok\n", SAMPLE, n, launches,
	       launches);
	return 0;
}
