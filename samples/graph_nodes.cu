// SPDX-License-Identifier: Apache-2.0
// graph_nodes: a CUDA graph built node by node (copies, a memset, kernels on
// two branches that join, a host node, and y allocated and freed by the
// graph itself), replayed, then retuned in place: a profile shows every
// node's work under cudaGraphLaunch, the branches side by side, the
// retuned kernel's new launch configuration, and y's allocation and free
// in each launch.
//
//                  copy HtoD (x) --> scale_kernel  --.
//                                                     +--> sum_kernel --> copy DtoH --> host: count_replay
//   alloc y --> memset (y=0)  --> offset_kernel --'        `--> free y
//
// main -> build_graph -> add_inputs, add_branches, add_join, add_outputs
//      -> replay_graph (cudaGraphLaunch x REPLAYS)
//      -> retune_graph (cudaGraphExecKernelNodeSetParams: scale_kernel, half the blocks)
//      -> replay_graph (cudaGraphLaunch x REPLAYS)
#include "sample_util.h"

#include <atomic>
#include <vector>

static const char *const SAMPLE = "graph_nodes";
static const unsigned THREADS = 256;

// x *= factor, over a grid-stride loop so any grid covers n
__global__ void scale_kernel(float *x, float factor, unsigned n)
{
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] *= factor;
}

// y += 1
__global__ void offset_kernel(float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += 1.0f;
}

// z = x + y
__global__ void sum_kernel(const float *x, const float *y, float *z, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = x[i] + y[i];
}

struct state {
	unsigned n;
	float *in, *out; // pinned host memory
	float *x, *y, *z; // device memory; y is the graph's own (an allocation node)
	float factor;
	void *scale_args[3];
	void *offset_args[2];
	void *sum_args[4];
	std::atomic<unsigned> replays;
	bool simulated;
	unsigned long bad;
};

// The graph's last node: runs on a CUDA thread once the result is back in host memory.
static void CUDART_CB count_replay(void *arg)
{
	struct state *st = (struct state *)arg;

	st->replays++;
	if (st->simulated)
		return; // kernels compute nothing there
	for (unsigned i = 0; i < st->n; i++)
		if (st->out[i] != st->in[i] * st->factor + 1.0f)
			st->bad++;
}

struct nodes {
	cudaGraphNode_t alloc, h2d, fill, scale, offset, sum, d2h, host, release;
};

static const size_t NODES = 9;

static unsigned grid_for(unsigned n)
{
	return (n + THREADS - 1) / THREADS;
}

// y lives from its allocation node to its free node, in each launch; its address does not change.
static SAMPLE_NOINLINE void add_inputs(cudaGraph_t g, struct state *st, struct nodes *nd)
{
	CHECK(cudaGraphAddMemcpyNode1D(&nd->h2d, g, NULL, 0, st->x, st->in, st->n * sizeof(float),
				       cudaMemcpyHostToDevice));
	struct cudaMemAllocNodeParams ap = {};
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.poolProps.location.id = 0;
	ap.bytesize = st->n * sizeof(float);
	CHECK(cudaGraphAddMemAllocNode(&nd->alloc, g, NULL, 0, &ap));
	st->y = (float *)ap.dptr;
	struct cudaMemsetParams ms = {};
	ms.dst = st->y;
	ms.value = 0;
	ms.elementSize = 4;
	ms.width = st->n;
	ms.height = 1;
	CHECK(cudaGraphAddMemsetNode(&nd->fill, g, &nd->alloc, 1, &ms));
}

// The fork: each branch waits for its own input only.
static SAMPLE_NOINLINE void add_branches(cudaGraph_t g, struct state *st, struct nodes *nd)
{
	struct cudaKernelNodeParams kp = {};
	kp.func = (void *)scale_kernel;
	kp.gridDim = dim3(grid_for(st->n));
	kp.blockDim = dim3(THREADS);
	kp.kernelParams = st->scale_args;
	CHECK(cudaGraphAddKernelNode(&nd->scale, g, &nd->h2d, 1, &kp));
	kp.func = (void *)offset_kernel;
	kp.kernelParams = st->offset_args;
	CHECK(cudaGraphAddKernelNode(&nd->offset, g, &nd->fill, 1, &kp));
}

// The join: the sum waits for both branches.
static SAMPLE_NOINLINE void add_join(cudaGraph_t g, struct state *st, struct nodes *nd)
{
	struct cudaKernelNodeParams kp = {};
	kp.func = (void *)sum_kernel;
	kp.gridDim = dim3(grid_for(st->n));
	kp.blockDim = dim3(THREADS);
	kp.kernelParams = st->sum_args;
	cudaGraphNode_t deps[2] = {nd->scale, nd->offset};
	CHECK(cudaGraphAddKernelNode(&nd->sum, g, deps, 2, &kp));
}

static SAMPLE_NOINLINE void add_outputs(cudaGraph_t g, struct state *st, struct nodes *nd)
{
	CHECK(cudaGraphAddMemcpyNode1D(&nd->d2h, g, &nd->sum, 1, st->out, st->z,
				       st->n * sizeof(float), cudaMemcpyDeviceToHost));
	struct cudaHostNodeParams hp = {};
	hp.fn = count_replay;
	hp.userData = st;
	CHECK(cudaGraphAddHostNode(&nd->host, g, &nd->d2h, 1, &hp));
	CHECK(cudaGraphAddMemFreeNode(&nd->release, g, &nd->sum, 1, st->y));
}

static SAMPLE_NOINLINE cudaGraph_t build_graph(struct state *st, struct nodes *nd)
{
	cudaGraph_t g = NULL;
	CHECK(cudaGraphCreate(&g, 0));
	add_inputs(g, st, nd);
	add_branches(g, st, nd);
	add_join(g, st, nd);
	add_outputs(g, st, nd);
	size_t count = 0;
	CHECK(cudaGraphGetNodes(g, NULL, &count));
	if (count != NODES) {
		fprintf(stderr, "%s: graph has %zu nodes, expected %zu\n", SAMPLE, count, NODES);
		exit(1);
	}
	return g;
}

static SAMPLE_NOINLINE void replay_graph(cudaStream_t s, cudaGraphExec_t exec,
					  unsigned long replays)
{
	for (unsigned long r = 0; r < replays; r++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
}

// The executable graph changes in place: scale_kernel by 3, on half the blocks.
static SAMPLE_NOINLINE void retune_graph(cudaGraphExec_t exec, struct state *st,
					  const struct nodes *nd)
{
	st->factor = 3.0f;
	struct cudaKernelNodeParams kp = {};
	kp.func = (void *)scale_kernel;
	kp.gridDim = dim3((grid_for(st->n) + 1) / 2);
	kp.blockDim = dim3(THREADS);
	kp.kernelParams = st->scale_args;
	CHECK(cudaGraphExecKernelNodeSetParams(exec, nd->scale, &kp));
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[REPLAYS]   (graph launches before and after the retune, default 10)");
	unsigned long replays = sample_arg(argc, argv, 1, "REPLAYS", 10, 1, 100000);

	static struct state st;
	st.n = 1 << 16;
	st.factor = 2.0f;
	st.simulated = sample_on_simulator();
	CHECK(cudaMallocHost(&st.in, st.n * sizeof(float)));
	CHECK(cudaMallocHost(&st.out, st.n * sizeof(float)));
	for (unsigned i = 0; i < st.n; i++)
		st.in[i] = (float)(i % 100);
	CHECK(cudaMalloc(&st.x, st.n * sizeof(float)));
	CHECK(cudaMalloc(&st.z, st.n * sizeof(float)));
	st.scale_args[0] = &st.x;
	st.scale_args[1] = &st.factor;
	st.scale_args[2] = &st.n;
	st.offset_args[0] = &st.y;
	st.offset_args[1] = &st.n;
	st.sum_args[0] = &st.x;
	st.sum_args[1] = &st.y;
	st.sum_args[2] = &st.z;
	st.sum_args[3] = &st.n;

	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	struct nodes nd = {};
	cudaGraph_t g = build_graph(&st, &nd);
	cudaGraphExec_t exec = NULL;
	CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
	CHECK(cudaGraphUpload(exec, s));

	replay_graph(s, exec, replays);
	retune_graph(exec, &st, &nd);
	replay_graph(s, exec, replays);

	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(st.z));
	CHECK(cudaFree(st.x));
	CHECK(cudaFreeHost(st.out));
	CHECK(cudaFreeHost(st.in));

	if (st.replays != 2 * replays) {
		fprintf(stderr, "%s: the host node ran %u times, expected %lu\n", SAMPLE,
			st.replays.load(), 2 * replays);
		return 1;
	}
	if (st.simulated) {
		sample_note_skipped(SAMPLE);
	} else if (st.bad) {
		fprintf(stderr, "%s: %lu wrong elements over all replays\n", SAMPLE, st.bad);
		return 1;
	}
	printf("%s: nodes=%zu replays=%lu host_nodes=%u ok\n", SAMPLE, NODES, 2 * replays,
	       st.replays.load());
	return 0;
}
