// SPDX-License-Identifier: Apache-2.0
// graph_conditional: a CUDA graph whose control flow is decided on the GPU
// by conditional nodes: a WHILE loop whose body runs until a counter in
// device memory reaches zero, then an IF/ELSE on how the loop ended. A
// profile shows the body's kernels under cudaGraphLaunch, once per trip
// around the loop, each with the graph node it came from, and which
// branch of the IF ran.
//
//   reset_kernel --> WHILE loop [ step_kernel --> count_kernel ] --> verdict_kernel
//                --> IF done [ pass_kernel ] ELSE [ fail_kernel ]
//
// count_kernel ends the loop (cudaGraphSetConditional) when the counter
// reaches zero; verdict_kernel sets `done` when it did.
//
// main -> build_graph -> add_loop (the body captured), add_check (nodes added one by one)
//      -> replay_graph (cudaGraphLaunch x REPLAYS)
#include "sample_util.h"

static const char *const SAMPLE = "graph_conditional";
static const unsigned THREADS = 256;
static const unsigned STEPS = 4;

__global__ void reset_kernel(unsigned *counter, unsigned steps)
{
	*counter = steps;
}

// x += 1, over a grid-stride loop
__global__ void step_kernel(float *x, unsigned n)
{
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] += 1.0f;
}

__global__ void count_kernel(unsigned *counter, cudaGraphConditionalHandle loop)
{
	if (--*counter == 0)
		cudaGraphSetConditional(loop, 0);
}

__global__ void verdict_kernel(const unsigned *counter, cudaGraphConditionalHandle done)
{
	cudaGraphSetConditional(done, *counter == 0);
}

__global__ void pass_kernel(unsigned *tally)
{
	tally[0]++;
}

__global__ void fail_kernel(unsigned *tally)
{
	tally[1]++;
}

struct state {
	unsigned n, steps;
	float *x;
	unsigned *counter, *tally; // device memory
	cudaGraphConditionalHandle loop, done;
	cudaGraphNode_t reset, loop_node, verdict, check_node;
};

static unsigned grid_for(unsigned n)
{
	return (n + THREADS - 1) / THREADS;
}

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t *dep, void *func,
				  unsigned grid, void **args)
{
	cudaGraphNodeParams p = {};
	p.type = cudaGraphNodeTypeKernel;
	p.kernel.func = func;
	p.kernel.gridDim = dim3(grid);
	p.kernel.blockDim = dim3(grid > 1 ? THREADS : 1);
	p.kernel.kernelParams = args;
	cudaGraphNode_t node;
	CHECK(cudaGraphAddNode(&node, g, dep, NULL, dep ? 1 : 0, &p));
	return node;
}

static cudaGraphNode_t add_conditional(cudaGraph_t g, const cudaGraphNode_t *dep,
				       cudaGraphConditionalHandle h,
				       cudaGraphConditionalNodeType type, unsigned size,
				       cudaGraph_t *body)
{
	cudaGraphNodeParams p = {};
	p.type = cudaGraphNodeTypeConditional;
	p.conditional.handle = h;
	p.conditional.type = type;
	p.conditional.size = size;
	cudaGraphNode_t node;
	CHECK(cudaGraphAddNode(&node, g, dep, NULL, dep ? 1 : 0, &p));
	for (unsigned i = 0; i < size; i++)
		body[i] = p.conditional.phGraph_out[i];
	return node;
}

// The loop: its handle starts at 1 in each launch (a do-while), and its body is captured
// from a stream into the graph the conditional node owns.
static SAMPLE_NOINLINE void add_loop(cudaGraph_t g, struct state *st)
{
	void *reset_args[] = {&st->counter, &st->steps};
	st->reset = add_kernel(g, NULL, (void *)reset_kernel, 1, reset_args);
	CHECK(cudaGraphConditionalHandleCreate(&st->loop, g, 1, cudaGraphCondAssignDefault));
	cudaGraph_t body;
	st->loop_node = add_conditional(g, &st->reset, st->loop, cudaGraphCondTypeWhile, 1, &body);

	cudaStream_t cs;
	CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
	CHECK(cudaStreamBeginCaptureToGraph(cs, body, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal));
	step_kernel<<<grid_for(st->n), THREADS, 0, cs>>>(st->x, st->n);
	count_kernel<<<1, 1, 0, cs>>>(st->counter, st->loop);
	CHECK(cudaStreamEndCapture(cs, NULL));
	CHECK(cudaStreamDestroy(cs));
}

// The check: the verdict kernel sets `done`, the IF runs one of its two bodies.
static SAMPLE_NOINLINE void add_check(cudaGraph_t g, struct state *st)
{
	CHECK(cudaGraphConditionalHandleCreate(&st->done, g, 0, 0));
	void *verdict_args[] = {&st->counter, &st->done};
	st->verdict = add_kernel(g, &st->loop_node, (void *)verdict_kernel, 1, verdict_args);
	cudaGraph_t body[2];
	st->check_node = add_conditional(g, &st->verdict, st->done, cudaGraphCondTypeIf, 2, body);
	void *tally_args[] = {&st->tally};
	add_kernel(body[0], NULL, (void *)pass_kernel, 1, tally_args);
	add_kernel(body[1], NULL, (void *)fail_kernel, 1, tally_args);
}

static SAMPLE_NOINLINE cudaGraph_t build_graph(struct state *st)
{
	cudaGraph_t g = NULL;
	CHECK(cudaGraphCreate(&g, 0));
	add_loop(g, st);
	add_check(g, st);
	return g;
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
	sample_usage(argc, argv, "[REPLAYS]   (graph launches, default 10)");
	unsigned long replays = sample_arg(argc, argv, 1, "REPLAYS", 10, 1, 100000);

	static struct state st;
	st.n = 1 << 16;
	st.steps = STEPS;
	bool simulated = sample_on_simulator();
	CHECK(cudaMalloc(&st.x, st.n * sizeof(float)));
	CHECK(cudaMemset(st.x, 0, st.n * sizeof(float)));
	CHECK(cudaMalloc(&st.counter, sizeof(unsigned)));
	CHECK(cudaMalloc(&st.tally, 2 * sizeof(unsigned)));
	CHECK(cudaMemset(st.tally, 0, 2 * sizeof(unsigned)));
	CHECK(cudaDeviceSynchronize());

	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	cudaGraph_t g = build_graph(&st);
	cudaGraphExec_t exec = NULL;
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	replay_graph(s, exec, replays);

	float x0 = 0;
	unsigned tally[2] = {0, 0};
	CHECK(cudaMemcpy(&x0, st.x, sizeof(x0), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(tally, st.tally, sizeof(tally), cudaMemcpyDeviceToHost));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(st.tally));
	CHECK(cudaFree(st.counter));
	CHECK(cudaFree(st.x));

	if (simulated) {
		sample_note_skipped(SAMPLE);
	} else if (x0 != (float)(STEPS * replays) || tally[0] != replays || tally[1]) {
		fprintf(stderr, "%s: x[0]=%g (expected %lu), %u passes, %u fails\n", SAMPLE, x0,
			STEPS * replays, tally[0], tally[1]);
		return 1;
	}
	printf("%s: steps=%u replays=%lu ok\n", SAMPLE, STEPS, replays);
	return 0;
}
