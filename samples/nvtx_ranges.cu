// SPDX-License-Identifier: Apache-2.0
// nvtx_ranges: NVTX ranges around GPU work, nested, in three domains, from
// two threads. NVTX calls reach a tool only when NVTX_INJECTION64_PATH names
// one (CUPTI, nsys); otherwise they do nothing, and the program is the same.
//
// main -> nvtxRangeStartA("run") ............................ nvtxRangeEnd
//      -> worker x 2 (std::thread)
//           nvtxNameOsThreadA("worker N")
//           run_step x STEPS:   push "step" (default domain; color, payload = step)
//             load_batch:         push "load" (domain "loader")
//                                   -> stage_in (cudaMemcpyAsync HtoD)
//             compute:            push "forward" (domain "compute")
//                                   -> launch_forward (forward_kernel)
//                                   push "activation" (nested, same domain)
//                                     -> launch_activation (activation_kernel)
//                                 nvtxDomainMarkEx "step done" (domain "compute")
//           cudaStreamSynchronize
#include "sample_util.h"

#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>
#include <vector>

static const char *const SAMPLE = "nvtx_ranges";
static const unsigned WORKERS = 2;
static const unsigned THREADS = 256;

__global__ void forward_kernel(const float *in, float *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 3.0f * in[i];
}

__global__ void activation_kernel(float *x, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static nvtxDomainHandle_t loader, compute;

struct worker {
	unsigned id;
	cudaStream_t s;
	std::vector<float> host;
	float *d_in, *d_out;
	unsigned ranges, marks, launches;
	unsigned long bad;
};

static nvtxEventAttributes_t attributes(const char *name, uint32_t color, uint64_t payload)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = color;
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = payload;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	return a;
}

static unsigned grid_for(size_t n)
{
	return (unsigned)((n + THREADS - 1) / THREADS);
}

static SAMPLE_NOINLINE void stage_in(struct worker *w)
{
	CHECK(cudaMemcpyAsync(w->d_in, w->host.data(), w->host.size() * sizeof(float),
			      cudaMemcpyHostToDevice, w->s));
}

static SAMPLE_NOINLINE void launch_forward(struct worker *w)
{
	unsigned n = (unsigned)w->host.size();
	forward_kernel<<<grid_for(n), THREADS, 0, w->s>>>(w->d_in, w->d_out, n);
	CHECK_LAUNCH();
	w->launches++;
}

static SAMPLE_NOINLINE void launch_activation(struct worker *w)
{
	unsigned n = (unsigned)w->host.size();
	activation_kernel<<<grid_for(n), THREADS, 0, w->s>>>(w->d_out, n);
	CHECK_LAUNCH();
	w->launches++;
}

static SAMPLE_NOINLINE void load_batch(struct worker *w, unsigned step)
{
	nvtxEventAttributes_t a = attributes("load", 0xff2060c0u, step);

	nvtxDomainRangePushEx(loader, &a);
	stage_in(w);
	nvtxDomainRangePop(loader);
	w->ranges++;
}

static SAMPLE_NOINLINE void run_compute(struct worker *w, unsigned step)
{
	nvtxEventAttributes_t fwd = attributes("forward", 0xffc02020u, step);
	nvtxEventAttributes_t act = attributes("activation", 0xffe08020u, step);
	nvtxEventAttributes_t done = attributes("step done", 0xff20c020u, step);

	nvtxDomainRangePushEx(compute, &fwd);
	launch_forward(w);
	nvtxDomainRangePushEx(compute, &act);
	launch_activation(w);
	nvtxDomainRangePop(compute);
	nvtxDomainRangePop(compute);
	nvtxDomainMarkEx(compute, &done);
	w->ranges += 2;
	w->marks++;
}

static SAMPLE_NOINLINE void run_step(struct worker *w, unsigned step)
{
	nvtxEventAttributes_t a = attributes("step", 0xff808080u, step);

	nvtxRangePushEx(&a);
	load_batch(w, step);
	run_compute(w, step);
	nvtxRangePop();
	w->ranges++;
}

static void run_worker(struct worker *w, unsigned long steps)
{
	char name[32];

	snprintf(name, sizeof(name), "worker %u", w->id);
	nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), name);
	for (unsigned long step = 0; step < steps; step++)
		run_step(w, (unsigned)step);
	CHECK(cudaStreamSynchronize(w->s));
}

// out = max(0, 3 in), on a real device; the simulator's kernels compute nothing.
static SAMPLE_NOINLINE void verify(struct worker *w)
{
	std::vector<float> out(w->host.size());

	CHECK(cudaMemcpy(out.data(), w->d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t k = 0; k < out.size(); k++) {
		float want = 3.0f * w->host[k] > 0.0f ? 3.0f * w->host[k] : 0.0f;

		if (out[k] != want)
			w->bad++;
	}
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[STEPS]   (steps per worker thread, default 4)");
	unsigned long steps = sample_arg(argc, argv, 1, "STEPS", 4, 1, 100000);
	const size_t n = 1 << 14;
	bool simulated = sample_on_simulator();

	loader = nvtxDomainCreateA("loader");
	compute = nvtxDomainCreateA("compute");
	nvtxRangeId_t run = nvtxRangeStartA("run");

	static struct worker workers[WORKERS];
	for (unsigned i = 0; i < WORKERS; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		w->host.assign(n, (float)i - 0.5f);
		CHECK(cudaStreamCreateWithFlags(&w->s, cudaStreamNonBlocking));
		CHECK(cudaMalloc(&w->d_in, n * sizeof(float)));
		CHECK(cudaMalloc(&w->d_out, n * sizeof(float)));
	}
	std::vector<std::thread> threads;
	for (unsigned i = 0; i < WORKERS; i++)
		threads.emplace_back(run_worker, &workers[i], steps);
	for (auto &t : threads)
		t.join();
	nvtxRangeEnd(run);

	unsigned ranges = 1, marks = 0, launches = 0;
	unsigned long bad = 0;
	for (unsigned i = 0; i < WORKERS; i++) {
		struct worker *w = &workers[i];

		if (!simulated)
			verify(w);
		bad += w->bad;
		ranges += w->ranges;
		marks += w->marks;
		launches += w->launches;
		CHECK(cudaFree(w->d_out));
		CHECK(cudaFree(w->d_in));
		CHECK(cudaStreamDestroy(w->s));
	}
	nvtxDomainDestroy(compute);
	nvtxDomainDestroy(loader);
	if (bad) {
		fprintf(stderr, "%s: %lu wrong results\n", SAMPLE, bad);
		return 1;
	}
	if (simulated)
		sample_note_skipped(SAMPLE);
	printf("%s: threads=%u steps=%lu ranges=%u marks=%u launches=%u ok\n", SAMPLE, WORKERS,
	       steps, ranges, marks, launches);
	return 0;
}
