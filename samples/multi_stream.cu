// SPDX-License-Identifier: Apache-2.0
// multi_stream: several host threads, each with its own stream, copying and
// launching concurrently, so a profile has one launch stack per thread.
//
// main -> run_workers -> std::thread(worker_main) -> worker_iteration
//                                                     -> launch_scale (scale_kernel)
//                                                     -> launch_offset (offset_kernel)
#include "sample_util.h"

#include <thread>
#include <vector>

static const char *const SAMPLE = "multi_stream";
static const size_t ELEMS = 1 << 16;

__global__ void scale_kernel(float *x, float factor, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= factor;
}

__global__ void offset_kernel(float *x, float offset, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += offset;
}

struct worker {
	unsigned id;
	unsigned long iters;
	unsigned long launches;
	unsigned long mismatches;
	bool simulated;
};

static SAMPLE_NOINLINE void launch_scale(cudaStream_t stream, float *x, float factor)
{
	scale_kernel<<<(unsigned)((ELEMS + 255) / 256), 256, 0, stream>>>(x, factor, ELEMS);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_offset(cudaStream_t stream, float *x, float offset)
{
	offset_kernel<<<(unsigned)((ELEMS + 255) / 256), 256, 0, stream>>>(x, offset, ELEMS);
	CHECK_LAUNCH();
}

// x = x * 2 + id, round trip through the device on this worker's stream.
static SAMPLE_NOINLINE void worker_iteration(struct worker *w, cudaStream_t stream, float *host,
					      float *dev)
{
	size_t bytes = ELEMS * sizeof(float);
	CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream));
	launch_scale(stream, dev, 2.0f);
	launch_offset(stream, dev, (float)w->id);
	w->launches += 2;
	CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream));
	CHECK(cudaStreamSynchronize(stream));
}

static SAMPLE_NOINLINE void worker_main(struct worker *w)
{
	cudaStream_t stream;
	float *host = NULL, *dev = NULL;

	// The runtime's current device is per thread.
	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMallocHost(&host, ELEMS * sizeof(float)));
	CHECK(cudaMalloc(&dev, ELEMS * sizeof(float)));

	std::vector<float> expect(ELEMS);
	for (size_t i = 0; i < ELEMS; i++)
		expect[i] = host[i] = (float)(i % 8);
	for (unsigned long it = 0; it < w->iters; it++) {
		worker_iteration(w, stream, host, dev);
		// Values stay small integers, so float arithmetic is exact;
		// reset before they would outgrow 2^24.
		for (size_t i = 0; i < ELEMS; i++)
			expect[i] = expect[i] * 2.0f + (float)w->id;
		if (!w->simulated) {
			for (size_t i = 0; i < ELEMS; i++)
				if (host[i] != expect[i])
					w->mismatches++;
		}
		if (it % 8 == 7)
			for (size_t i = 0; i < ELEMS; i++)
				expect[i] = host[i] = (float)(i % 8);
	}

	CHECK(cudaFree(dev));
	CHECK(cudaFreeHost(host));
	CHECK(cudaStreamDestroy(stream));
}

static SAMPLE_NOINLINE void run_workers(std::vector<struct worker> &workers)
{
	std::vector<std::thread> threads;
	threads.reserve(workers.size());
	for (struct worker &w : workers)
		threads.emplace_back(worker_main, &w);
	for (std::thread &t : threads)
		t.join();
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[THREADS [ITERS]]   (default 4 threads, 16 iterations each)");
	unsigned long nthreads = sample_arg(argc, argv, 1, "THREADS", 4, 1, 256);
	unsigned long iters = sample_arg(argc, argv, 2, "ITERS", 16, 1, 1000000);

	bool simulated = sample_on_simulator();
	std::vector<struct worker> workers(nthreads);
	for (unsigned i = 0; i < nthreads; i++)
		workers[i] = {i, iters, 0, 0, simulated};
	run_workers(workers);

	unsigned long launches = 0, bad = 0;
	for (const struct worker &w : workers) {
		launches += w.launches;
		if (w.mismatches)
			fprintf(stderr, "%s: thread %u: %lu wrong values\n", SAMPLE, w.id,
				w.mismatches);
		bad += w.mismatches;
	}
	if (simulated)
		sample_note_skipped(SAMPLE);
	if (bad)
		return 1;
	printf("%s: threads=%lu launches=%lu ok\n", SAMPLE, nthreads, launches);
	return 0;
}
