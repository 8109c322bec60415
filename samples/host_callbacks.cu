// SPDX-License-Identifier: Apache-2.0
// host_callbacks: host functions between kernels on two streams, on
// cudaHostRegister'ed buffers, inside a cudaProfilerStart/Stop region: a
// profile shows the host-function calls as API calls of the launching
// thread, and each stream's work waiting for its host function.
//
// main -> register_buffers (cudaHostRegister x 2 per stream)
//      -> cudaProfilerStart
//      -> run_streams -> run_iteration -> stage_in (cudaMemcpyAsync HtoD)
//                                      -> launch_produce (produce_kernel)
//                                      -> cudaLaunchHostFunc (on_produced)
//                                      -> launch_consume (consume_kernel)
//                                      -> stage_out (cudaMemcpyAsync DtoH)
//                                      -> cudaStreamAddCallback (on_done)
//      -> cudaProfilerStop
//      -> unregister_buffers (cudaHostUnregister)
#include "sample_util.h"

#include <cuda_profiler_api.h>

#include <atomic>
#include <vector>

static const char *const SAMPLE = "host_callbacks";
static const unsigned STREAMS = 2;
static const unsigned THREADS = 256;

// x = 2 in
__global__ void produce_kernel(const float *in, float *x, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * in[i];
}

// out = x + 1
__global__ void consume_kernel(const float *x, float *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] + 1.0f;
}

struct lane {
	cudaStream_t s;
	std::vector<float> in, out; // registered with cudaHostRegister
	float *d_in, *d_x, *d_out;
	std::atomic<unsigned> produced, done;
	unsigned long bad;
	bool simulated;
};

// Runs on a CUDA thread once produce_kernel has finished; consume_kernel waits for it.
static void CUDART_CB on_produced(void *arg)
{
	struct lane *l = (struct lane *)arg;

	l->produced++;
}

// Runs once the copy back has finished: the result is in host memory.
static void CUDART_CB on_done(cudaStream_t s, cudaError_t status, void *arg)
{
	struct lane *l = (struct lane *)arg;

	if (status != cudaSuccess || s != l->s)
		l->bad++;
	if (!l->simulated)
		for (size_t i = 0; i < l->out.size(); i++)
			if (l->out[i] != 2.0f * l->in[i] + 1.0f)
				l->bad++;
	l->done++;
}

static unsigned grid_for(size_t n)
{
	return (unsigned)((n + THREADS - 1) / THREADS);
}

static SAMPLE_NOINLINE void register_buffers(struct lane *lanes)
{
	for (unsigned i = 0; i < STREAMS; i++) {
		CHECK(cudaHostRegister(lanes[i].in.data(), lanes[i].in.size() * sizeof(float),
				       cudaHostRegisterDefault));
		CHECK(cudaHostRegister(lanes[i].out.data(), lanes[i].out.size() * sizeof(float),
				       cudaHostRegisterDefault));
	}
}

static SAMPLE_NOINLINE void unregister_buffers(struct lane *lanes)
{
	for (unsigned i = 0; i < STREAMS; i++) {
		CHECK(cudaHostUnregister(lanes[i].out.data()));
		CHECK(cudaHostUnregister(lanes[i].in.data()));
	}
}

static SAMPLE_NOINLINE void stage_in(struct lane *l)
{
	CHECK(cudaMemcpyAsync(l->d_in, l->in.data(), l->in.size() * sizeof(float),
			      cudaMemcpyHostToDevice, l->s));
}

static SAMPLE_NOINLINE void launch_produce(struct lane *l)
{
	unsigned n = (unsigned)l->in.size();
	produce_kernel<<<grid_for(n), THREADS, 0, l->s>>>(l->d_in, l->d_x, n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_consume(struct lane *l)
{
	unsigned n = (unsigned)l->in.size();
	consume_kernel<<<grid_for(n), THREADS, 0, l->s>>>(l->d_x, l->d_out, n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void stage_out(struct lane *l)
{
	CHECK(cudaMemcpyAsync(l->out.data(), l->d_out, l->out.size() * sizeof(float),
			      cudaMemcpyDeviceToHost, l->s));
}

static SAMPLE_NOINLINE void run_iteration(struct lane *l)
{
	stage_in(l);
	launch_produce(l);
	CHECK(cudaLaunchHostFunc(l->s, on_produced, l));
	launch_consume(l);
	stage_out(l);
	CHECK(cudaStreamAddCallback(l->s, on_done, l, 0));
}

static SAMPLE_NOINLINE void run_streams(struct lane *lanes, unsigned long iters)
{
	for (unsigned long it = 0; it < iters; it++)
		for (unsigned i = 0; i < STREAMS; i++)
			run_iteration(&lanes[i]);
	for (unsigned i = 0; i < STREAMS; i++)
		CHECK(cudaStreamSynchronize(lanes[i].s));
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[ITERS]   (iterations per stream, default 8)");
	unsigned long iters = sample_arg(argc, argv, 1, "ITERS", 8, 1, 100000);
	const size_t n = 1 << 16;
	bool simulated = sample_on_simulator();

	static struct lane lanes[STREAMS];
	for (unsigned i = 0; i < STREAMS; i++) {
		struct lane *l = &lanes[i];

		l->in.resize(n);
		l->out.resize(n);
		for (size_t k = 0; k < n; k++)
			l->in[k] = (float)((k + i) % 100);
		l->simulated = simulated;
		CHECK(cudaStreamCreateWithFlags(&l->s, cudaStreamNonBlocking));
		CHECK(cudaMalloc(&l->d_in, n * sizeof(float)));
		CHECK(cudaMalloc(&l->d_x, n * sizeof(float)));
		CHECK(cudaMalloc(&l->d_out, n * sizeof(float)));
	}
	register_buffers(lanes);

	// The region of interest: what a profiler honoring start/stop would keep.
	CHECK(cudaProfilerStart());
	run_streams(lanes, iters);
	CHECK(cudaProfilerStop());

	unregister_buffers(lanes);
	unsigned produced = 0, done = 0;
	unsigned long bad = 0;
	for (unsigned i = 0; i < STREAMS; i++) {
		struct lane *l = &lanes[i];

		produced += l->produced;
		done += l->done;
		bad += l->bad;
		CHECK(cudaFree(l->d_out));
		CHECK(cudaFree(l->d_x));
		CHECK(cudaFree(l->d_in));
		CHECK(cudaStreamDestroy(l->s));
	}
	if (produced != STREAMS * iters || done != STREAMS * iters) {
		fprintf(stderr, "%s: host functions ran %u and %u times, expected %lu each\n",
			SAMPLE, produced, done, STREAMS * iters);
		return 1;
	}
	if (bad) {
		fprintf(stderr, "%s: %lu wrong results\n", SAMPLE, bad);
		return 1;
	}
	if (simulated)
		sample_note_skipped(SAMPLE);
	printf("%s: streams=%u iters=%lu host_funcs=%u callbacks=%u ok\n", SAMPLE, STREAMS, iters,
	       produced, done);
	return 0;
}
