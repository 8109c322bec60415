// SPDX-License-Identifier: Apache-2.0
// stream_alloc: stream-ordered allocation in a loop on two streams, from the
// device's default pool and from a pool of the program's own, so a profile
// shows the kernels between each cudaMallocAsync and its cudaFreeAsync; then
// the same kind of step captured into a graph (the allocation and the free
// become the graph's memory nodes) and replayed, so each replay allocates and
// frees under its cudaGraphLaunch.
//
// main -> run_streams -> stream_iteration -> alloc_scratch (cudaMallocFromPoolAsync,
//                                                           cudaMallocAsync)
//                                         -> launch_fill (fill_kernel)
//                                         -> launch_square (square_kernel)
//                                         -> free_scratch (cudaFreeAsync)
//                     -> capture_scratch_step (cudaMallocAsync, offset_kernel, cudaFreeAsync
//                                              captured)
//                     -> replay_scratch_graph (cudaGraphLaunch x GRAPH_REPLAYS)
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "stream_alloc";
static const unsigned ELEMS = 1 << 14;
static const unsigned GRAPH_REPLAYS = 4;

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

// x[i] = v + i
__global__ void offset_kernel(float *x, float v, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = v + (float)i;
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

// One step captured from s: a scratch buffer allocated, written, copied out and
// freed, in stream order. During capture the allocation is a graph's
// allocation node (its address fixed for every replay), the free its free node.
static SAMPLE_NOINLINE cudaGraphExec_t capture_scratch_step(cudaStream_t s, float *out)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	float *t = NULL;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK(cudaMallocAsync((void **)&t, ELEMS * sizeof(float), s));
	offset_kernel<<<(ELEMS + 255) / 256, 256, 0, s>>>(t, 3.0f, ELEMS);
	CHECK_LAUNCH();
	CHECK(cudaMemcpyAsync(out, t, ELEMS * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaFreeAsync(t, s));
	CHECK(cudaStreamEndCapture(s, &graph));

	size_t nodes = 0;
	CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
	if (nodes != 4) {
		fprintf(stderr, "%s: captured graph has %zu nodes, expected 4\n", SAMPLE, nodes);
		exit(1);
	}
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphDestroy(graph));
	return exec;
}

static SAMPLE_NOINLINE void replay_scratch_graph(cudaStream_t s, cudaGraphExec_t exec)
{
	for (unsigned r = 0; r < GRAPH_REPLAYS; r++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
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

	cudaGraphExec_t exec = capture_scratch_step(s[0], out[0]);
	replay_scratch_graph(s[0], exec);
	CHECK(cudaGraphExecDestroy(exec));
	if (!simulated)
		for (unsigned j = 0; j < ELEMS; j++)
			bad += out[0][j] != 3.0f + (float)j;
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
	printf("%s: iters=%lu streams=2 launches=%lu graph_replays=%u ok\n", SAMPLE, iters,
	       iters * 4, GRAPH_REPLAYS);
	return 0;
}
