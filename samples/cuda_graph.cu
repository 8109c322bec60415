// SPDX-License-Identifier: Apache-2.0
// cuda_graph: four kernels captured once into a CUDA graph from three streams
// (forked from the capturing stream with events and joined back) and
// replayed, so a profile shows every graph kernel, whichever stream it was
// captured from, under cudaGraphLaunch rather than the capture.
//
// main -> build_graph -> capture_step -> launch_add_one    (add_one_kernel, stream s)
//                                     -> fork: launch_double (double_kernel, stream side[0])
//                                              launch_square (square_kernel, stream side[1])
//                                     -> join: launch_accumulate (accumulate_kernel, stream s)
//      -> replay_graph (cudaGraphLaunch x REPLAYS)
#include "sample_util.h"

#include <vector>

static const char *const SAMPLE = "cuda_graph";
static const unsigned KERNELS = 4;

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

// z = x * x
__global__ void square_kernel(const float *x, float *z, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = x[i] * x[i];
}

// acc += y + z
__global__ void accumulate_kernel(float *acc, const float *y, const float *z, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		acc[i] += y[i] + z[i];
}

struct buffers {
	float *x, *y, *z, *acc;
	unsigned n;
};

// The streams a capture forks onto, and the events that fork and join them.
struct side_streams {
	cudaStream_t s[2];
	cudaEvent_t fork, join[2];
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

static SAMPLE_NOINLINE void launch_square(cudaStream_t s, const struct buffers *b)
{
	square_kernel<<<grid_for(b->n), 256, 0, s>>>(b->x, b->z, b->n);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_accumulate(cudaStream_t s, const struct buffers *b)
{
	accumulate_kernel<<<grid_for(b->n), 256, 0, s>>>(b->acc, b->y, b->z, b->n);
	CHECK_LAUNCH();
}

// Waiting for an event recorded in the capture brings a stream into it (a
// fork); the capturing stream waiting for the others' events joins them.
static SAMPLE_NOINLINE void capture_step(cudaStream_t s, const struct buffers *b,
					 const struct side_streams *side)
{
	launch_add_one(s, b);
	CHECK(cudaEventRecord(side->fork, s));
	for (unsigned i = 0; i < 2; i++)
		CHECK(cudaStreamWaitEvent(side->s[i], side->fork, 0));
	launch_double(side->s[0], b);
	launch_square(side->s[1], b);
	for (unsigned i = 0; i < 2; i++) {
		CHECK(cudaEventRecord(side->join[i], side->s[i]));
		CHECK(cudaStreamWaitEvent(s, side->join[i], 0));
	}
	launch_accumulate(s, b);
}

static SAMPLE_NOINLINE cudaGraphExec_t build_graph(cudaStream_t s, const struct buffers *b,
						   const struct side_streams *side)
{
	cudaGraph_t graph = NULL;
	cudaGraphExec_t exec = NULL;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	capture_step(s, b, side);
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

	struct buffers b = {NULL, NULL, NULL, NULL, n};
	struct side_streams side;
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&side.fork, cudaEventDisableTiming));
	for (unsigned i = 0; i < 2; i++) {
		CHECK(cudaStreamCreateWithFlags(&side.s[i], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&side.join[i], cudaEventDisableTiming));
	}
	CHECK(cudaMalloc(&b.x, n * sizeof(float)));
	CHECK(cudaMalloc(&b.y, n * sizeof(float)));
	CHECK(cudaMalloc(&b.z, n * sizeof(float)));
	CHECK(cudaMalloc(&b.acc, n * sizeof(float)));
	CHECK(cudaMemcpy(b.x, x0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(b.acc, 0, n * sizeof(float)));
	// The copy from pageable memory may still be in flight when it returns
	// and the memset is asynchronous, both on the legacy stream; the graph
	// runs on non-blocking streams, which do not wait for it.
	CHECK(cudaDeviceSynchronize());

	cudaGraphExec_t exec = build_graph(s, &b, &side);
	replay_graph(s, exec, replays);

	std::vector<float> x(n), acc(n);
	CHECK(cudaMemcpy(x.data(), b.x, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(acc.data(), b.acc, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaFree(b.acc));
	CHECK(cudaFree(b.z));
	CHECK(cudaFree(b.y));
	CHECK(cudaFree(b.x));
	for (unsigned i = 0; i < 2; i++) {
		CHECK(cudaEventDestroy(side.join[i]));
		CHECK(cudaStreamDestroy(side.s[i]));
	}
	CHECK(cudaEventDestroy(side.fork));
	CHECK(cudaStreamDestroy(s));

	if (simulated) {
		sample_note_skipped(SAMPLE);
	} else {
		// After R replays: x = x0 + R, acc = sum_{r=1..R} 2 (x0 + r) + (x0 + r)^2
		// = 2 R x0 + R (R + 1) + R x0^2 + x0 R (R + 1) + R (R + 1) (2 R + 1) / 6.
		// acc is exact in float only below 2^24: past that only x is checked.
		double rr = (double)replays;
		unsigned long bad = 0;
		for (unsigned i = 0; i < n; i++) {
			double x0i = x0[i];
			double want_x = x0i + rr;
			double want_acc = 2.0 * rr * x0i + rr * (rr + 1.0) + rr * x0i * x0i +
					  x0i * rr * (rr + 1.0) + rr * (rr + 1.0) * (2.0 * rr + 1.0) / 6.0;
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
