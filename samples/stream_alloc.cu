// SPDX-License-Identifier: Apache-2.0
// stream_alloc: stream-ordered allocation in a loop on two streams, from the
// device's default pool and from a pool of the program's own, so a profile
// shows the kernels between each cudaMallocAsync and its cudaFreeAsync.
//
// main -> run_streams -> stream_iteration -> alloc_scratch (cudaMallocFromPoolAsync,
//                                                           cudaMallocAsync)
//                                         -> launch_fill (fill_kernel)
//                                         -> launch_square (square_kernel)
//                                         -> free_scratch (cudaFreeAsync)
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "stream_alloc";
static const unsigned ELEMS = 1 << 14;

__global__ void fill_kernel(float *x, float v, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = v;
}

__global__ void square_kernel(const float *x, float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * x[i];
}

static SAMPLE_NOINLINE void alloc_scratch(cudaMemPool_t pool, cudaStream_t s, float **x,
					  float **y)
{
	CHECK(cudaMallocFromPoolAsync((void **)x, ELEMS * sizeof(float), pool, s));
	CHECK(cudaMallocAsync((void **)y, ELEMS * sizeof(float), s));
}

static SAMPLE_NOINLINE void launch_fill(cudaStream_t s, float *x, float v)
{
	fill_kernel<<<(ELEMS + 255) / 256, 256, 0, s>>>(x, v, ELEMS);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_square(cudaStream_t s, const float *x, float *y)
{
	square_kernel<<<(ELEMS + 255) / 256, 256, 0, s>>>(x, y, ELEMS);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void free_scratch(cudaStream_t s, float *x, float *y)
{
	CHECK(cudaFreeAsync(x, s));
	CHECK(cudaFreeAsync(y, s));
}

// One iteration on one stream: y = v * v, copied out (the last one is checked).
static SAMPLE_NOINLINE void stream_iteration(cudaMemPool_t pool, cudaStream_t s, float v,
					     float *out)
{
	float *x = NULL, *y = NULL;

	alloc_scratch(pool, s, &x, &y);
	launch_fill(s, x, v);
	launch_square(s, x, y);
	CHECK(cudaMemcpyAsync(out, y, ELEMS * sizeof(float), cudaMemcpyDeviceToHost, s));
	free_scratch(s, x, y);
}

static SAMPLE_NOINLINE int run_streams(unsigned long iters, bool simulated)
{
	cudaMemPool_t pool, def;
	cudaMemPoolProps props = {};
	cudaStream_t s[2];
	float *out[2];
	// Keep freed memory in the pools between iterations instead of returning it at each sync.
	unsigned long long keep = 64ull << 20;

	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	CHECK(cudaMemPoolCreate(&pool, &props));
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
	CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
	for (int k = 0; k < 2; k++) {
		CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
		CHECK(cudaMallocHost((void **)&out[k], ELEMS * sizeof(float)));
	}
	for (unsigned long i = 0; i < iters; i++)
		for (int k = 0; k < 2; k++)
			stream_iteration(pool, s[k], (float)(i % 7 + k), out[k]);
	for (int k = 0; k < 2; k++)
		CHECK(cudaStreamSynchronize(s[k]));

	unsigned long long used = 1;
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
	if (used) {
		fprintf(stderr, "%s: %llu bytes still used after every free\n", SAMPLE,
			used);
		return 1;
	}
	CHECK(cudaMemPoolTrimTo(pool, 0));
	int bad = 0;
	if (!simulated) {
		for (int k = 0; k < 2; k++) {
			float v = (float)((iters - 1) % 7 + k);
			for (unsigned j = 0; j < ELEMS; j++)
				bad += out[k][j] != v * v;
		}
	}
	for (int k = 0; k < 2; k++) {
		CHECK(cudaFreeHost(out[k]));
		CHECK(cudaStreamDestroy(s[k]));
	}
	CHECK(cudaMemPoolDestroy(pool));
	if (simulated)
		sample_note_skipped(SAMPLE);
	if (bad) {
		fprintf(stderr, "%s: %d elements wrong\n", SAMPLE, bad);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[ITERS]   (default 16 iterations per stream)");
	unsigned long iters = sample_arg(argc, argv, 1, "ITERS", 16, 1, 100000);
	bool simulated = sample_on_simulator();

	if (run_streams(iters, simulated))
		return 1;
	printf("%s: iters=%lu streams=2 launches=%lu ok\n", SAMPLE, iters, iters * 4);
	return 0;
}
