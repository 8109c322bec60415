// SPDX-License-Identifier: Apache-2.0
// managed_memory: managed (unified) memory written and read by host code
// directly, with advice, per-stream attachment and prefetches around
// kernels on two streams.
//
// main -> run_managed -> prepare (cudaMallocManaged, cudaMemAdvise)
//                     -> stream_pass -> attach_and_prefetch (cudaStreamAttachMemAsync,
//                                                            cudaMemPrefetchAsync)
//                                    -> launch_increment (increment_kernel)  stream 0
//                                    -> launch_scale (scale_kernel)          stream 1
//                                    -> prefetch_to_host (cudaMemPrefetchAsync)
#include "sample_util.h"

static const char *const SAMPLE = "managed_memory";
static const unsigned ELEMS = 1 << 15;

__global__ void increment_kernel(int *x, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1;
}

__global__ void scale_kernel(int *x, int f, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= f;
}

static cudaMemLocation device_loc(void)
{
	cudaMemLocation l = {};
	l.type = cudaMemLocationTypeDevice;
	l.id = 0;
	return l;
}

static cudaMemLocation host_loc(void)
{
	cudaMemLocation l = {};
	l.type = cudaMemLocationTypeHost;
	return l;
}

static SAMPLE_NOINLINE void prepare(int **a, int **b)
{
	CHECK(cudaMallocManaged((void **)a, ELEMS * sizeof(int), cudaMemAttachGlobal));
	CHECK(cudaMallocManaged((void **)b, ELEMS * sizeof(int), cudaMemAttachGlobal));
	for (unsigned i = 0; i < ELEMS; i++) { // host code writes managed memory directly
		(*a)[i] = (int)i;
		(*b)[i] = (int)(i % 10);
	}
	CHECK(cudaMemAdvise(*a, ELEMS * sizeof(int), cudaMemAdviseSetPreferredLocation,
			    device_loc()));
	CHECK(cudaMemAdvise(*b, ELEMS * sizeof(int), cudaMemAdviseSetAccessedBy, device_loc()));
}

static SAMPLE_NOINLINE void attach_and_prefetch(cudaStream_t s, int *x)
{
	CHECK(cudaStreamAttachMemAsync(s, x, 0, cudaMemAttachSingle));
	CHECK(cudaMemPrefetchAsync(x, ELEMS * sizeof(int), device_loc(), 0, s));
}

static SAMPLE_NOINLINE void launch_increment(cudaStream_t s, int *x)
{
	increment_kernel<<<(ELEMS + 255) / 256, 256, 0, s>>>(x, ELEMS);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_scale(cudaStream_t s, int *x, int f)
{
	scale_kernel<<<(ELEMS + 255) / 256, 256, 0, s>>>(x, f, ELEMS);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void prefetch_to_host(cudaStream_t s, int *x)
{
	CHECK(cudaMemPrefetchAsync(x, ELEMS * sizeof(int), host_loc(), 0, s));
}

static SAMPLE_NOINLINE void stream_pass(cudaStream_t s[2], int *a, int *b, unsigned long passes)
{
	attach_and_prefetch(s[0], a);
	attach_and_prefetch(s[1], b);
	for (unsigned long p = 0; p < passes; p++) {
		launch_increment(s[0], a);
		launch_scale(s[1], b, 2);
	}
	prefetch_to_host(s[0], a);
	prefetch_to_host(s[1], b);
	CHECK(cudaStreamSynchronize(s[0]));
	CHECK(cudaStreamSynchronize(s[1]));
}

static SAMPLE_NOINLINE int run_managed(unsigned long passes, bool simulated)
{
	cudaStream_t s[2];
	int *a = NULL, *b = NULL;
	long bad = 0;

	for (int k = 0; k < 2; k++)
		CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
	prepare(&a, &b);
	stream_pass(s, a, b, passes);
	if (!simulated) {
		// host code reads the results directly, after the streams' work
		for (unsigned i = 0; i < ELEMS; i++) {
			bad += a[i] != (int)(i + passes);
			bad += b[i] != (int)((i % 10) << passes);
		}
	}
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	for (int k = 0; k < 2; k++)
		CHECK(cudaStreamDestroy(s[k]));
	if (simulated)
		sample_note_skipped(SAMPLE);
	if (bad) {
		fprintf(stderr, "%s: %ld elements wrong\n", SAMPLE, bad);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[PASSES]   (default 8 kernels per stream)");
	unsigned long passes = sample_arg(argc, argv, 1, "PASSES", 8, 1, 20);
	bool simulated = sample_on_simulator();

	if (run_managed(passes, simulated))
		return 1;
	printf("%s: passes=%lu streams=2 launches=%lu ok\n", SAMPLE, passes, passes * 2);
	return 0;
}
