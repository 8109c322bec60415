// SPDX-License-Identifier: Apache-2.0
// cuda_graph: three kernels captured once into a CUDA graph and replayed, so
// a profile shows graph kernels under cudaGraphLaunch rather than the capture.
//
// main -> build_graph -> capture_step -> launch_add_one    (add_one_kernel)
//                                     -> launch_double     (double_kernel)
//                                     -> launch_accumulate (accumulate_kernel)
//      -> replay_graph (cudaGraphLaunch x REPLAYS)
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "cuda_graph";
static const unsigned KERNELS = 3;

// x += 1
__global__ void add_one_kernel(float *x, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

// y = 2 x
__global__ void double_kernel(const float *x, float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}

// acc += y
__global__ void accumulate_kernel(float *acc, const float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		acc[i] += y[i];
}

struct buffers {
	float *x, *y, *acc;
	unsigned n;
};

static unsigned grid_for(unsigned n)
{
	return (n + 255) / 256;
}

static SAMPLE_NOINLINE void launch_add_one(cudaStream_t s, const struct buffers *b)
{
	add_one_kernel<<<grid_for(b->n), 256, 0, s>>>(b->x, b->n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_double(cudaStream_t s, const struct buffers *b)
{
	double_kernel<<<grid_for(b->n), 256, 0, s>>>(b->x, b->y, b->n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_accumulate(cudaStream_t s, const struct buffers *b)
{
	accumulate_kernel<<<grid_for(b->n), 256, 0, s>>>(b->acc, b->y, b->n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void capture_step(cudaStream_t s, const struct buffers *b)
{
	launch_add_one(s, b);
	launch_double(s, b);
	launch_accumulate(s, b);
}

static SAMPLE_NOINLINE cudaGraphExec_t build_graph(cudaStream_t s, const struct buffers *b)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	capture_step(s, b);
	CHECK(cudaStreamEndCapture(s, &graph));

	size_t nodes = 0;
	CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
	if (nodes != KERNELS) {
		fprintf(stderr, "%s: captured graph has %zu nodes, expected %u\n", SAMPLE, nodes,
			KERNELS);
		exit(1);
	}
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphDestroy(graph)); // the executable graph is independent of it
	return exec;
}

static SAMPLE_NOINLINE void replay_graph(cudaStream_t s, cudaGraphExec_t exec,
					  unsigned long replays)
{
	for (unsigned long r = 0; r < replays; r++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[REPLAYS]   (graph launches, default 20)");
	unsigned long replays = sample_arg(argc, argv, 1, "REPLAYS", 20, 1, 100000);
	const unsigned n = 1 << 16;

	bool simulated = sample_on_simulator();
	std::vector<float> x0(n);
	for (unsigned i = 0; i < n; i++)
		x0[i] = (float)(i % 100);

	struct buffers b = {NULL, NULL, NULL, n};
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&b.x, n * sizeof(float)));
	CHECK(cudaMalloc(&b.y, n * sizeof(float)));
	CHECK(cudaMalloc(&b.acc, n * sizeof(float)));
	CHECK(cudaMemcpy(b.x, x0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(b.acc, 0, n * sizeof(float)));

	cudaGraphExec_t exec = build_graph(s, &b);
	replay_graph(s, exec, replays);

	std::vector<float> x(n), acc(n);
	CHECK(cudaMemcpy(x.data(), b.x, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(acc.data(), b.acc, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaFree(b.acc));
	CHECK(cudaFree(b.y));
	CHECK(cudaFree(b.x));
	CHECK(cudaStreamDestroy(s));

	if (simulated) {
		sample_note_skipped(SAMPLE);
	} else {
		// After R replays: x = x0 + R, acc = sum_{r=1..R} 2 (x0 + r) = 2 R x0 + R (R + 1).
		// acc is exact in float only below 2^24: past that only x is checked.
		double rr = (double)replays;
		unsigned long bad = 0;
		for (unsigned i = 0; i < n; i++) {
			double want_x = x0[i] + rr;
			double want_acc = 2.0 * rr * x0[i] + rr * (rr + 1.0);
			bool acc_exact = want_acc < (double)(1 << 24);
			if (x[i] != (float)want_x || (acc_exact && acc[i] != (float)want_acc)) {
				if (!bad)
					fprintf(stderr, "%s: [%u] x=%g acc=%g, expected %g %g\n",
						SAMPLE, i, x[i], acc[i], want_x, want_acc);
				bad++;
			}
		}
		if (bad) {
			fprintf(stderr, "%s: %lu of %u elements wrong\n", SAMPLE, bad, n);
			return 1;
		}
	}
	printf("%s: kernels=%u replays=%lu ok\n", SAMPLE, KERNELS, replays);
	return 0;
}
