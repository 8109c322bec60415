// SPDX-License-Identifier: Apache-2.0
/* The simulator's capture across streams, child graphs and node parameters, against the CUDA
 * headers. */

/*
 * Each test quotes (DOC) the sentence of cuda.h / cuda_runtime_api.h (or
 * of cupti_activity.h for what the records carry) it checks. Kernel
 * durations are fixed by GPUPERF_SIM_KERNEL_NS before the first CUDA call,
 * so the order of work on the simulated device can be asserted exactly.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test.h"

/* nvcc-generated host code calls these; C test code registers kernels by hand. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
		       int ext, size_t size, int constant, int global);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

#define DOC(s)	    static const char doc_sentence[] __attribute__((unused)) = s
#define KERNEL_A    "_Z7kernelAPf"
#define KERNEL_B    "_Z7kernelBPf"
#define KERNEL_A_NS 50000ULL
#define KERNEL_B_NS 80000ULL

/* Stand-ins for host stubs: only their addresses matter. */
static const char stub_a, stub_b;
/* A __device__ variable's host shadow, registered in main() as nvcc's host code would. */
static int device_var[16];

#define MAX_RES	 512

static struct {
	pthread_mutex_t lock;
	/* resource-domain graph callbacks */
	struct {
		CUpti_CallbackId cbid;
		uint64_t node, orig;
		CUgraphExec exec;
	} res[MAX_RES];
	size_t nres;
} G = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_ResourceData *rd = data;
	const CUpti_GraphData *gd;

	if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid < CUPTI_CBID_RESOURCE_GRAPH_CREATED ||
	    cbid > CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS)
		return;
	gd = rd->resourceDescriptor;
	pthread_mutex_lock(&G.lock);
	if (G.nres < MAX_RES) {
		G.res[G.nres].cbid = cbid;
		G.res[G.nres].node = G.res[G.nres].orig = 0;
		if (gd->node)
			cuptiGetGraphNodeId(gd->node, &G.res[G.nres].node);
		if (gd->originalNode)
			cuptiGetGraphNodeId(gd->originalNode, &G.res[G.nres].orig);
		G.res[G.nres].exec = gd->graphExec;
		G.nres++;
	}
	pthread_mutex_unlock(&G.lock);
}

static CUpti_SubscriberHandle start(void)
{
	static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_RUNTIME,
						   CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						   CUPTI_ACTIVITY_KIND_MEMSET};
	CUpti_SubscriberHandle sub;

	G.nres = 0;
	assert_int_equal(cuptiSubscribe(&sub, on_callback, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE), CUPTI_SUCCESS);
	sim_recs_start(kinds, sizeof(kinds) / sizeof(kinds[0]));
	return sub;
}

static void stop(CUpti_SubscriberHandle sub)
{
	assert_int_equal(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
}

static int teardown(void **state)
{
	cuptiFinalize();
	return 0;
}

static const CUpti_ActivityKernel10 *kernel_by_node(uint64_t node, size_t nth)
{
	const CUpti_ActivityKernel10 *k;
	size_t i;

	for (i = 0; (k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i)); i++)
		if (k->graphNodeId == node && nth-- == 0)
			return k;
	return NULL;
}

/* The id of the executable graph x's clone of node orig (GRAPHNODE_CLONED at instantiation). */
static uint64_t clone_of(uint64_t orig, CUgraphExec x)
{
	size_t i;

	for (i = 0; i < G.nres; i++)
		if (G.res[i].cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED &&
		    G.res[i].orig == orig && G.res[i].exec == x)
			return G.res[i].node;
	return 0;
}

static uint64_t node_id(cudaGraphNode_t n)
{
	uint64_t id = 0;

	assert_int_equal(cuptiGetGraphNodeId(n, &id), CUPTI_SUCCESS);
	return id;
}

static void launch(const char *stub, cudaStream_t s)
{
	float *arg = NULL;
	void *args[] = {&arg};

	assert_int_equal(cudaLaunchKernel(stub, (dim3){4, 1, 1}, (dim3){128, 1, 1}, args, 0, s),
			 cudaSuccess);
}

static int has_node(const cudaGraphNode_t *nodes, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (node_id(nodes[i]) == id)
			return 1;
	return 0;
}

/* The node id of the last node captured on s (its only capture dependency). */
static uint64_t last_captured(cudaStream_t s)
{
	enum cudaStreamCaptureStatus st;
	const cudaGraphNode_t *deps = NULL;
	size_t n = 0;

	assert_int_equal(cudaStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &n),
			 cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusActive);
	assert_int_equal(n, 1);
	return node_id(deps[0]);
}

static void test_capture_across_streams(void **state)
{
	DOC("The next node to be captured in the stream will depend on this set of nodes, absent "
	    "operations such as event wait which modify this set.");
	enum cudaStreamCaptureStatus st;
	const cudaGraphNode_t *deps = NULL;
	const CUpti_ActivityKernel10 *k_first, *k_b1, *k_b2, *k_last;
	const CUpti_ActivityAPI *gl;
	unsigned long long id0 = 0, id1 = 0;
	uint64_t n_first, n_b1, n_b2, n_last;
	cudaStream_t s0, s1, s2;
	cudaEvent_t fork, j1, j2;
	cudaGraph_t g, got = NULL;
	cudaGraphExec_t x;
	size_t ndeps = 0;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s0), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&s1), cudaSuccess);
	assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaEventCreate(&fork), cudaSuccess);
	assert_int_equal(cudaEventCreate(&j1), cudaSuccess);
	assert_int_equal(cudaEventCreate(&j2), cudaSuccess);

	/* A on s0, forked to B on s1 and B on s2, joined back into A on s0. */
	assert_int_equal(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal), cudaSuccess);
	launch(&stub_a, s0);
	n_first = last_captured(s0);
	assert_int_equal(cudaEventRecord(fork, s0), cudaSuccess);
	assert_int_equal(cudaStreamIsCapturing(s1, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusNone);
	assert_int_equal(cudaStreamWaitEvent(s1, fork, 0), cudaSuccess);
	assert_int_equal(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
	/* The streams joined the capture sequence: the same id, and A is what they depend on. */
	assert_int_equal(cudaStreamIsCapturing(s1, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusActive);
	assert_int_equal(cudaStreamGetCaptureInfo(s0, &st, &id0, &got, NULL, NULL, NULL),
			 cudaSuccess);
	assert_int_equal(cudaStreamGetCaptureInfo(s1, &st, &id1, NULL, NULL, NULL, NULL),
			 cudaSuccess);
	assert_int_not_equal(id0, 0);
	assert_int_equal(id0, id1);
	assert_int_equal(last_captured(s2), n_first);
	/* "If edgeData_out is non-NULL then dependencies_out must be as well." */
	assert_int_equal(cudaStreamGetCaptureInfo(s1, &st, NULL, NULL, NULL,
						  (const cudaGraphEdgeData **)&deps, NULL),
			 cudaErrorInvalidValue);
	launch(&stub_b, s1);
	n_b1 = last_captured(s1);
	launch(&stub_b, s2);
	n_b2 = last_captured(s2);
	assert_int_equal(cudaEventRecord(j1, s1), cudaSuccess);
	assert_int_equal(cudaEventRecord(j2, s2), cudaSuccess);
	assert_int_equal(cudaStreamWaitEvent(s0, j1, 0), cudaSuccess);
	assert_int_equal(cudaStreamWaitEvent(s0, j2, 0), cudaSuccess);
	assert_int_equal(cudaStreamGetCaptureInfo(s0, &st, NULL, NULL, &deps, NULL, &ndeps),
			 cudaSuccess);
	/* Both branches' last nodes are among what the joining node depends on. */
	assert_true(ndeps >= 2);
	assert_true(has_node(deps, ndeps, n_b1) && has_node(deps, ndeps, n_b2));
	launch(&stub_a, s0);
	n_last = last_captured(s0);
	/* "Capture must be ended on the same stream in which it was initiated" */
	assert_int_equal(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnmatched);
	assert_int_equal(cudaStreamEndCapture(s0, &g), cudaSuccess);
	assert_ptr_equal(g, got);
	assert_int_equal(cudaStreamIsCapturing(s1, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusNone);
	assert_int_equal(cudaStreamIsCapturing(s2, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusNone);

	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s0), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s0), cudaSuccess);
	stop(sub);

	/* Captured, nothing ran; launched, each node ran once with its node's id. */
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 4);
	k_first = kernel_by_node(clone_of(n_first, x), 0);
	k_b1 = kernel_by_node(clone_of(n_b1, x), 0);
	k_b2 = kernel_by_node(clone_of(n_b2, x), 0);
	k_last = kernel_by_node(clone_of(n_last, x), 0);
	assert_true(k_first && k_b1 && k_b2 && k_last);
	gl = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 0);
	assert_non_null(gl);
	assert_int_equal(k_b1->correlationId, gl->correlationId);
	assert_int_equal(k_b2->correlationId, gl->correlationId);
	assert_int_equal(k_b1->graphId, k_first->graphId);
	/* The fork: both branches after A, side by side; the join: the last A after both. */
	assert_true(k_b1->start >= k_first->end && k_b2->start >= k_first->end);
	assert_true(k_b1->start < k_b2->end && k_b2->start < k_b1->end);
	assert_true(k_last->start >= k_b1->end && k_last->start >= k_b2->end);
	assert_int_equal(k_b1->end - k_b1->start, KERNEL_B_NS);

	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaEventDestroy(fork), cudaSuccess);
	assert_int_equal(cudaEventDestroy(j1), cudaSuccess);
	assert_int_equal(cudaEventDestroy(j2), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s0), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
}

static void test_capture_errors(void **state)
{
	DOC("CUDA_ERROR_STREAM_CAPTURE_UNJOINED: This error indicates that the capture sequence "
	    "contains a fork that was not joined to the primary stream.");
	enum cudaStreamCaptureStatus st;
	cudaStream_t s0, s1;
	cudaEvent_t fork, outside;
	cudaGraph_t g = (cudaGraph_t)1;

	assert_int_equal(cudaStreamCreate(&s0), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&s1), cudaSuccess);
	assert_int_equal(cudaEventCreate(&fork), cudaSuccess);
	assert_int_equal(cudaEventCreate(&outside), cudaSuccess);

	/* A fork with work never joined: no graph, and every stream leaves capture mode. */
	assert_int_equal(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal), cudaSuccess);
	launch(&stub_a, s0);
	assert_int_equal(cudaEventRecord(fork, s0), cudaSuccess);
	assert_int_equal(cudaStreamWaitEvent(s1, fork, 0), cudaSuccess);
	launch(&stub_b, s1);
	assert_int_equal(cudaStreamEndCapture(s0, &g), cudaErrorStreamCaptureUnjoined);
	assert_null(g);
	assert_int_equal(cudaStreamIsCapturing(s1, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusNone);

	/* "It is invalid to synchronize or query the execution status of a stream which is being
	 * captured" */
	assert_int_equal(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s0), cudaErrorStreamCaptureUnsupported);
	/* "CU_STREAM_CAPTURE_STATUS_INVALIDATED: The stream was capturing but an error has
	 * invalidated the capture sequence." */
	assert_int_equal(cudaStreamIsCapturing(s0, &st), cudaSuccess);
	assert_int_equal(st, cudaStreamCaptureStatusInvalidated);
	/* "If capture was invalidated, due to a violation of the rules of stream capture, then a
	 * NULL graph will be returned." */
	g = (cudaGraph_t)1;
	assert_int_equal(cudaStreamEndCapture(s0, &g), cudaErrorStreamCaptureInvalidated);
	assert_null(g);

	/* Waiting for work outside the capture (no cudaEventWaitExternal) isolates it. */
	assert_int_equal(cudaEventRecord(outside, s1), cudaSuccess);
	assert_int_equal(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaStreamWaitEvent(s0, outside, 0), cudaErrorStreamCaptureIsolation);
	assert_int_equal(cudaStreamEndCapture(s0, &g), cudaErrorStreamCaptureInvalidated);
	/* "Capture may not be initiated if stream is CU_STREAM_LEGACY." */
	assert_int_not_equal(cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal),
			     cudaSuccess);
	/* "while a blocking stream in the same context is capturing, it will return
	 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT" */
	assert_int_equal(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaStreamIsCapturing(NULL, &st), cudaErrorStreamCaptureImplicit);
	assert_int_equal(cudaStreamEndCapture(s0, &g), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	/* "Returns CUDA_ERROR_ILLEGAL_STATE if the stream is not capturing." */
	assert_int_equal(cudaStreamUpdateCaptureDependencies(s0, NULL, NULL, 0, 0),
			 cudaErrorIllegalState);

	assert_int_equal(cudaEventDestroy(fork), cudaSuccess);
	assert_int_equal(cudaEventDestroy(outside), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s0), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
}

struct other_capture {
	cudaStream_t s;
	enum cudaStreamCaptureMode mode;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int begun, done;
};

static void *capture_elsewhere(void *arg)
{
	struct other_capture *o = arg;
	cudaGraph_t g;

	assert_int_equal(cudaStreamBeginCapture(o->s, o->mode), cudaSuccess);
	pthread_mutex_lock(&o->lock);
	o->begun = 1;
	pthread_cond_broadcast(&o->cond);
	while (!o->done)
		pthread_cond_wait(&o->cond, &o->lock);
	pthread_mutex_unlock(&o->lock);
	cudaStreamEndCapture(o->s, &g);
	if (g)
		cudaGraphDestroy(g);
	return NULL;
}

static void test_capture_modes(void **state)
{
	DOC("CU_STREAM_CAPTURE_MODE_GLOBAL: This is the default mode. If the local thread has an "
	    "ongoing capture sequence that was not initiated with CU_STREAM_CAPTURE_MODE_RELAXED "
	    "at "
	    "cuStreamBeginCapture, or if any other thread has a concurrent capture sequence "
	    "initiated with CU_STREAM_CAPTURE_MODE_GLOBAL, this thread is prohibited from "
	    "potentially unsafe API calls.");
	struct other_capture o = {.mode = cudaStreamCaptureModeGlobal,
				  .lock = PTHREAD_MUTEX_INITIALIZER,
				  .cond = PTHREAD_COND_INITIALIZER};
	enum cudaStreamCaptureMode mode;
	cudaStream_t s;
	cudaGraph_t g;
	pthread_t t;
	void *p = NULL;

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&o.s), cudaSuccess);
	/* Own capture, global: cudaMalloc is refused and the capture is invalidated. */
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
	/* Relaxed: "The local thread is not prohibited from potentially unsafe API calls." */
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
	assert_int_equal(cudaMalloc(&p, 64), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);

	/* Another thread's global capture: prohibited in global mode, not in thread-local mode. */
	assert_int_equal(pthread_create(&t, NULL, capture_elsewhere, &o), 0);
	pthread_mutex_lock(&o.lock);
	while (!o.begun)
		pthread_cond_wait(&o.cond, &o.lock);
	pthread_mutex_unlock(&o.lock);
	assert_int_equal(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
	mode = cudaStreamCaptureModeThreadLocal;
	/* "Sets the calling thread's stream capture interaction mode to the value contained in
	 * *mode, and overwrites *mode with the previous mode for the thread." */
	assert_int_equal(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
	assert_int_equal(mode, cudaStreamCaptureModeGlobal);
	assert_int_equal(cudaMalloc(&p, 64), cudaSuccess);
	assert_int_equal(cudaFree(p), cudaSuccess);
	assert_int_equal(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
	assert_int_equal(mode, cudaStreamCaptureModeThreadLocal);
	pthread_mutex_lock(&o.lock);
	o.done = 1;
	pthread_cond_broadcast(&o.cond);
	pthread_mutex_unlock(&o.lock);
	pthread_join(t, NULL);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(o.s), cudaSuccess);
}

static void test_capture_to_graph(void **state)
{
	DOC("Begin graph capture on hStream, placing new nodes into an existing graph.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_b, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	const CUpti_ActivityKernel10 *kb, *ka, *ka2;
	cudaGraphNode_t nb, nodes[4];
	cudaGraph_t g, got = NULL;
	cudaGraphExec_t x;
	cudaStream_t s;
	uint64_t n_a, n_a2;
	size_t num = 4;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&nb, g, NULL, 0, &kp), cudaSuccess);
	/* "dependencies - Dependencies of the first node captured in the stream." */
	assert_int_equal(
	    cudaStreamBeginCaptureToGraph(s, g, &nb, NULL, 1, cudaStreamCaptureModeGlobal),
	    cudaSuccess);
	launch(&stub_a, s);
	n_a = last_captured(s);
	/* CU_STREAM_SET_CAPTURE_DEPENDENCIES: the next node depends on nothing captured so far. */
	assert_int_equal(
	    cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 0, cudaStreamSetCaptureDependencies),
	    cudaSuccess);
	launch(&stub_a, s);
	n_a2 = last_captured(s);
	assert_int_equal(cudaStreamEndCapture(s, &got), cudaSuccess);
	assert_ptr_equal(got, g);
	assert_int_equal(cudaGraphGetNodes(g, nodes, &num), cudaSuccess);
	assert_int_equal(num, 3);

	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);
	kb = kernel_by_node(clone_of(node_id(nb), x), 0);
	ka = kernel_by_node(clone_of(n_a, x), 0);
	ka2 = kernel_by_node(clone_of(n_a2, x), 0);
	assert_true(kb && ka && ka2);
	assert_true(ka->start >= kb->end);
	assert_true(ka2->start < kb->end); /* no dependency: beside B */
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_child_graph(void **state)
{
	DOC("Creates a new node which executes an embedded graph, and adds it to graph with "
	    "numDependencies dependencies specified via pDependencies. [...] The node executes an "
	    "embedded child graph. The child graph is cloned in this call.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	struct cudaMemsetParams ms = {.value = 1, .elementSize = 1, .width = 256, .height = 1};
	const CUpti_ActivityKernel10 *k_ca, *k_cb, *k_after;
	const CUpti_ActivityMemset4 *set;
	cudaGraphNode_t c_a, c_b, extra, n_set, n_child, n_after, inner[4];
	cudaGraph_t child, parent, embedded;
	cudaGraphExec_t x;
	cudaStream_t s;
	uint32_t gid = 0;
	size_t num = 4;
	void *dev = NULL;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMalloc(&dev, 256), cudaSuccess);
	/* child: A -> B */
	assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&c_a, child, NULL, 0, &kp), cudaSuccess);
	kp.func = (void *)&stub_b;
	assert_int_equal(cudaGraphAddKernelNode(&c_b, child, &c_a, 1, &kp), cudaSuccess);
	/* parent: memset -> child -> A */
	assert_int_equal(cudaGraphCreate(&parent, 0), cudaSuccess);
	ms.dst = dev;
	assert_int_equal(cudaGraphAddMemsetNode(&n_set, parent, NULL, 0, &ms), cudaSuccess);
	assert_int_equal(cudaGraphAddChildGraphNode(&n_child, parent, &n_set, 1, child),
			 cudaSuccess);
	kp.func = (void *)&stub_a;
	assert_int_equal(cudaGraphAddKernelNode(&n_after, parent, &n_child, 1, &kp), cudaSuccess);
	/* Cloned: a node added to the child afterwards is not in the parent. */
	assert_int_equal(cudaGraphAddKernelNode(&extra, child, &c_b, 1, &kp), cudaSuccess);
	/* "This call does not clone the graph." */
	assert_int_equal(cudaGraphChildGraphNodeGetGraph(n_child, &embedded), cudaSuccess);
	assert_ptr_not_equal(embedded, child);
	assert_int_equal(cudaGraphGetNodes(embedded, inner, &num), cudaSuccess);
	assert_int_equal(num, 2);
	assert_int_equal(cudaGraphChildGraphNodeGetGraph(n_after, &embedded),
			 cudaErrorInvalidValue);
	assert_int_equal(cuptiGetGraphId(parent, &gid), CUPTI_SUCCESS);

	assert_int_equal(cudaGraphInstantiate(&x, parent, 0), cudaSuccess);
	/* The inner nodes are instantiated like the parent's own: a clone each, reported. */
	assert_int_not_equal(clone_of(node_id(inner[0]), x), 0);
	assert_int_not_equal(clone_of(node_id(inner[1]), x), 0);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);

	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
	k_ca = kernel_by_node(clone_of(node_id(inner[0]), x), 0);
	k_cb = kernel_by_node(clone_of(node_id(inner[1]), x), 0);
	k_after = kernel_by_node(clone_of(node_id(n_after), x), 0);
	set = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMSET, 0);
	assert_true(k_ca && k_cb && k_after && set);
	/* "graphId: The unique ID of the graph that launched this kernel through graph launch
	 * APIs." */
	assert_int_equal(k_ca->graphId, gid);
	assert_int_equal(k_cb->graphId, gid);
	assert_int_not_equal(k_ca->graphNodeId, k_cb->graphNodeId);
	assert_string_equal(k_cb->name, KERNEL_B);
	/* The child starts after the memset, and what follows the child after its last node. */
	assert_true(k_ca->start >= set->end);
	assert_true(k_cb->start >= k_ca->end);
	assert_true(k_after->start >= k_cb->end);

	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(parent), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_graph_launch_captured(void **state)
{
	DOC("CU_GRAPH_NODE_TYPE_GRAPH: Node which executes an embedded graph. [...] The child "
	    "graph is cloned in this call. (a cudaGraphLaunch into a capturing stream is captured "
	    "as such a node)");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_b, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	struct cudaMemAllocNodeParams ap = {
	    .poolProps = {.allocType = cudaMemAllocationTypePinned,
			  .location = {cudaMemLocationTypeDevice, 0}},
	    .bytesize = 256};
	const CUpti_ActivityKernel10 *first, *inner, *last;
	cudaGraphNode_t kb, nodes[4], child_nodes[2], mem;
	enum cudaGraphNodeType type;
	cudaGraph_t g_inner, g_outer, embedded, g_mem;
	cudaGraphExec_t x_inner, x_outer, x_mem;
	cudaStream_t s;
	uint32_t gid = 0;
	size_t n = 4;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g_inner, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&kb, g_inner, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x_inner, g_inner, 0), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g_mem, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddMemAllocNode(&mem, g_mem, NULL, 0, &ap), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x_mem, g_mem, 0), cudaSuccess);

	/* A, launch of the inner graph (B), A */
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	launch(&stub_a, s);
	assert_int_equal(cudaGraphLaunch(x_inner, s), cudaSuccess);
	/* "The graph can only be used in a child node if the ownership is moved to the parent." */
	assert_int_equal(cudaGraphLaunch(x_mem, s), cudaErrorNotSupported);
	launch(&stub_a, s);
	assert_int_equal(cudaStreamEndCapture(s, &g_outer), cudaSuccess);
	/* Captured, not run. */
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 0);

	assert_int_equal(cudaGraphGetNodes(g_outer, nodes, &n), cudaSuccess);
	assert_int_equal(n, 3);
	assert_int_equal(cudaGraphNodeGetType(nodes[1], &type), cudaSuccess);
	assert_int_equal(type, cudaGraphNodeTypeGraph);
	assert_int_equal(cudaGraphChildGraphNodeGetGraph(nodes[1], &embedded), cudaSuccess);
	assert_ptr_not_equal(embedded, g_inner);
	n = 2;
	assert_int_equal(cudaGraphGetNodes(embedded, child_nodes, &n), cudaSuccess);
	assert_int_equal(n, 1);
	assert_int_equal(cudaGraphNodeGetType(child_nodes[0], &type), cudaSuccess);
	assert_int_equal(type, cudaGraphNodeTypeKernel);
	/* A copy: changing x_inner afterwards does not change what was captured. */
	kp.func = (void *)&stub_a;
	assert_int_equal(cudaGraphExecKernelNodeSetParams(x_inner, kb, &kp), cudaSuccess);

	assert_int_equal(cudaGraphInstantiate(&x_outer, g_outer, 0), cudaSuccess);
	assert_int_equal(cuptiGetGraphId(g_outer, &gid), CUPTI_SUCCESS);
	assert_int_equal(cudaGraphLaunch(x_outer, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);

	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
	first = kernel_by_node(clone_of(node_id(nodes[0]), x_outer), 0);
	inner = kernel_by_node(clone_of(node_id(child_nodes[0]), x_outer), 0);
	last = kernel_by_node(clone_of(node_id(nodes[2]), x_outer), 0);
	assert_true(first && inner && last);
	assert_string_equal(inner->name, KERNEL_B);
	/* The embedded graph's work is the outer graph's, in stream order between the two. */
	assert_int_equal(inner->graphId, gid);
	assert_true(inner->start >= first->end);
	assert_true(last->start >= inner->end);

	assert_int_equal(cudaGraphExecDestroy(x_outer), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x_inner), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x_mem), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g_outer), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g_inner), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g_mem), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_kernel_node_attributes(void **state)
{
	DOC("Sets attribute attr on node hNode from corresponding attribute of value. [...] "
	    "Queries attribute attr from node hNode and stores it in corresponding member of "
	    "value_out. [...] Copies attributes from source node src to destination node dst.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	cudaGraphNode_t a, b, m, in_clone;
	cudaKernelNodeAttrValue v, got;
	struct cudaMemsetParams mp = { .value = 1, .elementSize = 4, .width = 16, .height = 1 };
	cudaGraph_t g, clone;
	cudaGraphExec_t x;
	void *buf;

	(void)state;
	assert_int_equal(cudaMalloc(&buf, 64), cudaSuccess);
	mp.dst = buf;
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&a, g, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&b, g, &a, 1, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddMemsetNode(&m, g, NULL, 0, &mp), cudaSuccess);
	/* never set: each attribute's default, zero ("By default, kernels are launched in domain 0") */
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &got),
			 cudaSuccess);
	assert_int_equal(got.priority, 0);
	memset(&v, 0, sizeof(v));
	v.priority = -3;
	assert_int_equal(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributePriority, &v),
			 cudaSuccess);
	memset(&v, 0, sizeof(v));
	v.accessPolicyWindow.base_ptr = buf;
	v.accessPolicyWindow.num_bytes = 64;
	v.accessPolicyWindow.hitRatio = 0.5f;
	v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	assert_int_equal(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeAccessPolicyWindow, &v),
			 cudaSuccess);
	/* "hitRatio specifies percentage of lines assigned hitProp": over 1 is refused */
	v.accessPolicyWindow.hitRatio = 1.5f;
	assert_int_equal(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeAccessPolicyWindow, &v),
			 cudaErrorInvalidValue);
	/* "Valid for streams" only, or for launches only: not a node's */
	memset(&v, 0, sizeof(v));
	assert_int_equal(cudaGraphKernelNodeSetAttribute(
				 a, cudaLaunchAttributeSynchronizationPolicy, &v),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGraphKernelNodeSetAttribute(
				 a, cudaLaunchAttributeProgrammaticStreamSerialization, &v),
			 cudaErrorInvalidValue);
	/* a memset node has no kernel attributes */
	assert_int_equal(cudaGraphKernelNodeGetAttribute(m, cudaLaunchAttributePriority, &got),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeAccessPolicyWindow,
							 &got),
			 cudaSuccess);
	assert_ptr_equal(got.accessPolicyWindow.base_ptr, buf);
	assert_true(got.accessPolicyWindow.hitRatio == 0.5f);
	assert_int_equal(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
	/* copied to b; a clone of the graph keeps them */
	assert_int_equal(cudaGraphKernelNodeCopyAttributes(b, a), cudaSuccess);
	assert_int_equal(cudaGraphKernelNodeCopyAttributes(m, a), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphKernelNodeGetAttribute(b, cudaLaunchAttributePriority, &got),
			 cudaSuccess);
	assert_int_equal(got.priority, -3);
	assert_int_equal(cudaGraphClone(&clone, g), cudaSuccess);
	assert_int_equal(cudaGraphNodeFindInClone(&in_clone, a, clone), cudaSuccess);
	assert_int_equal(cudaGraphKernelNodeGetAttribute(in_clone, cudaLaunchAttributePriority, &got),
			 cudaSuccess);
	assert_int_equal(got.priority, -3);
	/* and the graph still runs */
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(clone), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaFree(buf), cudaSuccess);
}

static void test_event_nodes(void **state)
{
	DOC("Sets the event of event record node hNode to event. [...] Sets the event of an event "
	    "record node in an executable graph hGraphExec. The node is identified by the "
	    "corresponding node hNode in the non-executable graph, from which the executable graph "
	    "was instantiated. The modifications only affect future launches of hGraphExec. [...] "
	    "hNode is also not modified by this call.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	cudaEvent_t e0, e1, e2, e3, got;
	cudaGraphNode_t k, rec, wait;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaGraph_t g;
	float ms = -1;

	(void)state;
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e0), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e1), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e2), cudaSuccess);
	assert_int_equal(cudaEventCreate(&e3), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddEventWaitNode(&wait, g, NULL, 0, e1), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&k, g, &wait, 1, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddEventRecordNode(&rec, g, &k, 1, e1), cudaSuccess);
	assert_int_equal(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
	assert_ptr_equal(got, e1);
	assert_int_equal(cudaGraphEventRecordNodeSetEvent(rec, e2), cudaSuccess);
	assert_int_equal(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
	assert_ptr_equal(got, e2);
	assert_int_equal(cudaGraphEventWaitNodeSetEvent(wait, e0), cudaSuccess);
	assert_int_equal(cudaGraphEventWaitNodeGetEvent(wait, &got), cudaSuccess);
	assert_ptr_equal(got, e0);
	/* the other kind of node, or none */
	assert_int_equal(cudaGraphEventWaitNodeGetEvent(rec, &got), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphEventRecordNodeSetEvent(k, e2), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphExecEventRecordNodeSetEvent(x, rec, e3), cudaSuccess);
	assert_int_equal(cudaGraphExecEventWaitNodeSetEvent(x, rec, e3), cudaErrorInvalidValue);
	/* the graph's node keeps e2; the launch records e3 after the kernel */
	assert_int_equal(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
	assert_ptr_equal(got, e2);
	assert_int_equal(cudaEventRecord(e0, s), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, e3), cudaSuccess);
	assert_true(ms >= KERNEL_A_NS / 1e6);
	assert_int_equal(cudaEventElapsedTime(&ms, e0, e2), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e0), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e1), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e2), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e3), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_graph_queries(void **state)
{
	DOC("Returns a list of graph's root nodes. [...] If pNumRootNodes is higher than the "
	    "actual number of root nodes, the remaining entries in pRootNodes will be set to NULL, "
	    "and the number of nodes actually obtained will be returned in pNumRootNodes. [...] "
	    "the node in to[i] has a dependency on the node in from[i] with data edgeData[i].");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	cudaGraphNode_t a, b, c, d, ab[2], out[6], from[4], to[4];
	cudaGraphEdgeData ed[4];
	cudaGraph_t g;
	size_t n, i;
	int seen_a = 0, seen_b = 0, seen_c = 0;

	/* a, b -> c -> d */
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&a, g, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddEmptyNode(&b, g, NULL, 0), cudaSuccess);
	ab[0] = a;
	ab[1] = b;
	assert_int_equal(cudaGraphAddKernelNode(&c, g, ab, 2, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddEmptyNode(&d, g, &c, 1), cudaSuccess);

	n = 0;
	assert_int_equal(cudaGraphGetRootNodes(g, NULL, &n), cudaSuccess);
	assert_int_equal(n, 2);
	n = 4;
	memset(out, 0xff, sizeof(out));
	assert_int_equal(cudaGraphGetRootNodes(g, out, &n), cudaSuccess);
	assert_int_equal(n, 2);
	assert_true((out[0] == a && out[1] == b) || (out[0] == b && out[1] == a));
	assert_null(out[2]);
	assert_null(out[3]);
	/* "Otherwise, pNumRootNodes entries will be filled in." */
	n = 1;
	assert_int_equal(cudaGraphGetRootNodes(g, out, &n), cudaSuccess);
	assert_int_equal(n, 1);
	n = 6;
	assert_int_equal(cudaGraphGetNodes(g, out, &n), cudaSuccess);
	assert_int_equal(n, 4);
	assert_null(out[4]);
	assert_null(out[5]);

	n = 0;
	assert_int_equal(cudaGraphGetEdges(g, NULL, NULL, NULL, &n), cudaSuccess);
	assert_int_equal(n, 3);
	n = 4;
	memset(ed, 0xff, sizeof(ed));
	assert_int_equal(cudaGraphGetEdges(g, from, to, ed, &n), cudaSuccess);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		seen_a += from[i] == a && to[i] == c;
		seen_b += from[i] == b && to[i] == c;
		seen_c += from[i] == c && to[i] == d;
		assert_int_equal(ed[i].type, 0);
		assert_int_equal(ed[i].from_port, 0);
	}
	assert_true(seen_a == 1 && seen_b == 1 && seen_c == 1);
	assert_null(from[3]);
	assert_null(to[3]);
	/* "from and to may both be NULL": not one of them. */
	assert_int_equal(cudaGraphGetEdges(g, from, NULL, NULL, &n), cudaErrorInvalidValue);

	n = 4;
	assert_int_equal(cudaGraphNodeGetDependencies(c, out, NULL, &n), cudaSuccess);
	assert_int_equal(n, 2);
	assert_true((out[0] == a && out[1] == b) || (out[0] == b && out[1] == a));
	assert_null(out[2]);
	n = 4;
	assert_int_equal(cudaGraphNodeGetDependencies(a, out, NULL, &n), cudaSuccess);
	assert_int_equal(n, 0);
	/* "If edgeData is non-NULL, then pDependencies must be as well." */
	assert_int_equal(cudaGraphNodeGetDependencies(c, NULL, ed, &n), cudaErrorInvalidValue);
	n = 4;
	assert_int_equal(cudaGraphNodeGetDependentNodes(a, out, ed, &n), cudaSuccess);
	assert_int_equal(n, 1);
	assert_ptr_equal(out[0], c);
	n = 0;
	assert_int_equal(cudaGraphNodeGetDependentNodes(d, NULL, NULL, &n), cudaSuccess);
	assert_int_equal(n, 0);
	/* "This operation also severs any dependencies of other nodes on node and vice versa." */
	assert_int_equal(cudaGraphDestroyNode(c), cudaSuccess);
	n = 4;
	assert_int_equal(cudaGraphNodeGetDependentNodes(a, out, NULL, &n), cudaSuccess);
	assert_int_equal(n, 0);
	n = 4;
	assert_int_equal(cudaGraphGetRootNodes(g, out, &n), cudaSuccess);
	assert_int_equal(n, 3);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_exec_child_graph_params(void **state)
{
	DOC("Updates the work represented by hNode in hGraphExec as though the nodes contained in "
	    "hNode's graph had the parameters contained in childGraph's nodes at instantiation. "
	    "[...] The topology of childGraph, as well as the node insertion order, must match "
	    "that of the graph contained in node.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	const CUpti_ActivityKernel10 *k0, *k1;
	cudaGraphNode_t ka, kb, n_child, n_after, extra;
	cudaGraph_t child, child2, child3, parent;
	cudaGraphExec_t x;
	cudaStream_t s;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&child, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&ka, child, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&parent, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddChildGraphNode(&n_child, parent, NULL, 0, child), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&n_after, parent, &n_child, 1, &kp), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x, parent, 0), cudaSuccess);

	/* the same topology, another kernel and grid */
	kp.func = (void *)&stub_b;
	kp.gridDim.x = 8;
	assert_int_equal(cudaGraphCreate(&child2, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&kb, child2, NULL, 0, &kp), cudaSuccess);
	/* another topology */
	assert_int_equal(cudaGraphCreate(&child3, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&kb, child3, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&extra, child3, &kb, 1, &kp), cudaSuccess);
	assert_int_equal(cudaGraphExecChildGraphNodeSetParams(x, n_child, child3),
			 cudaErrorInvalidValue);
	/* not a child graph node */
	assert_int_equal(cudaGraphExecChildGraphNodeSetParams(x, n_after, child2),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaGraphExecChildGraphNodeSetParams(x, n_child, child2), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);

	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 2);
	k0 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	k1 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1);
	if (k0->start > k1->start) {
		const CUpti_ActivityKernel10 *t = k0;

		k0 = k1;
		k1 = t;
	}
	/* the child's node runs with child2's parameters; the parent's own node is unchanged */
	assert_string_equal(k0->name, KERNEL_B);
	assert_int_equal(k0->gridX, 8);
	assert_int_not_equal(k0->graphNodeId, k1->graphNodeId);
	assert_string_equal(k1->name, KERNEL_A);
	assert_int_equal(k1->gridX, 4);

	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(parent), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(child), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(child2), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(child3), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_kernel_node_params(void **state)
{
	DOC("Sets the parameters of kernel node node to pNodeParams.");
	struct cudaKernelNodeParams kp = {.func = (void *)&stub_a,
					  .gridDim = {4, 2, 1},
					  .blockDim = {128, 1, 1},
					  .sharedMemBytes = 256};
	struct cudaKernelNodeParams got;
	const CUpti_ActivityKernel10 *k1, *k2;
	cudaGraphNode_t n;
	cudaGraph_t g;
	cudaGraphExec_t x1, x2;
	cudaStream_t s;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&n, g, NULL, 0, &kp), cudaSuccess);
	/* "Returns the parameters of kernel node node in pNodeParams." */
	assert_int_equal(cudaGraphKernelNodeGetParams(n, &got), cudaSuccess);
	assert_ptr_equal(got.func, &stub_a);
	assert_int_equal(got.gridDim.y, 2);
	assert_int_equal(got.blockDim.x, 128);
	assert_int_equal(got.sharedMemBytes, 256);
	assert_int_equal(cudaGraphInstantiate(&x1, g, 0), cudaSuccess);
	kp.func = (void *)&stub_b;
	kp.gridDim = (dim3){7, 1, 1};
	assert_int_equal(cudaGraphKernelNodeSetParams(n, &kp), cudaSuccess);
	assert_int_equal(cudaGraphKernelNodeGetParams(n, &got), cudaSuccess);
	assert_ptr_equal(got.func, &stub_b);
	/* Changes to a graph do not reach the executable graphs instantiated from it before. */
	assert_int_equal(cudaGraphInstantiate(&x2, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x1, s), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x2, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);
	k1 = kernel_by_node(clone_of(node_id(n), x1), 0);
	k2 = kernel_by_node(clone_of(node_id(n), x2), 0);
	assert_true(k1 && k2);
	assert_string_equal(k1->name, KERNEL_A);
	assert_int_equal(k1->gridX, 4);
	assert_string_equal(k2->name, KERNEL_B);
	assert_int_equal(k2->gridX, 7);
	assert_int_equal(cudaGraphKernelNodeGetParams(n, NULL), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphExecDestroy(x1), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x2), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void never_runs(void *user)
{
	(void)user;
	fail();
}

/* A kernel node of stub_a or stub_b in g by the generic cudaGraphAddNode. */
static cudaGraphNode_t add_kernel_node(cudaGraph_t g, const char *stub, cudaGraphNode_t dep)
{
	struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeKernel};
	cudaGraphNode_t n;

	p.kernel.func = (void *)stub;
	p.kernel.gridDim = (dim3){1, 1, 1};
	p.kernel.blockDim = (dim3){32, 1, 1};
	assert_int_equal(cudaGraphAddNode(&n, g, dep ? &dep : NULL, NULL, dep ? 1 : 0, &p),
			 cudaSuccess);
	return n;
}

/* A conditional node of `type` with `size` bodies on handle h after dep; its bodies in body[]. */
static cudaGraphNode_t add_cond_node(cudaGraph_t g, cudaGraphConditionalHandle h,
				     enum cudaGraphConditionalNodeType type, unsigned int size,
				     cudaGraphNode_t dep, cudaGraph_t *body)
{
	struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeConditional};
	cudaGraphNode_t n;
	unsigned int i;

	p.conditional.handle = h;
	p.conditional.type = type;
	p.conditional.size = size;
	assert_int_equal(cudaGraphAddNode(&n, g, dep ? &dep : NULL, NULL, dep ? 1 : 0, &p),
			 cudaSuccess);
	assert_non_null(p.conditional.phGraph_out);
	for (i = 0; i < size; i++)
		body[i] = p.conditional.phGraph_out[i];
	return n;
}

static size_t kernels_of_graph(uint32_t graph_id)
{
	const CUpti_ActivityKernel10 *k;
	size_t i, n = 0;

	for (i = 0; (k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i)); i++)
		n += k->graphId == graph_id;
	return n;
}

static void test_conditional_nodes(void **state)
{
	DOC("CU_GRAPH_COND_TYPE_IF: phGraph_out[0] is executed when the condition is non-zero. "
	    "If size == 2, phGraph_out[1] will be executed when the condition is zero. "
	    "CU_GRAPH_COND_TYPE_SWITCH: phGraph_out[n] is executed when the condition is equal "
	    "to n. If the condition >= size, no body graph is executed.");
	cudaGraph_t g, body[3], nested;
	cudaGraphNode_t a, c_if, c_else, c_sw, c_off, k_if, k_else, k_sw[3], k_nested, k_after, bad;
	cudaGraphConditionalHandle one, zero, two;
	cudaGraphExec_t x;
	struct cudaGraphNodeParams hp = {.type = cudaGraphNodeTypeHost};
	const CUpti_ActivityKernel10 *ka, *kc, *kafter;
	cudaStream_t s;
	int i;
	CUpti_SubscriberHandle sub = start();

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	/* "flags - Currently must be cudaGraphCondAssignDefault or 0." */
	assert_int_equal(cudaGraphConditionalHandleCreate(&one, g, 1, 2), cudaErrorInvalidValue);
	/* "Applied at the beginning of each graph execution if cudaGraphCondAssignDefault is set" */
	assert_int_equal(cudaGraphConditionalHandleCreate(&one, g, 1, cudaGraphCondAssignDefault),
			 cudaSuccess);
	assert_int_equal(cudaGraphConditionalHandleCreate(&two, g, 2, cudaGraphCondAssignDefault),
			 cudaSuccess);
	/* without the flag no default is applied: nothing here sets the value (kernels compute nothing) */
	assert_int_equal(cudaGraphConditionalHandleCreate(&zero, g, 7, 0), cudaSuccess);

	a = add_kernel_node(g, &stub_a, NULL);
	/* IF true: its body runs; IF false with an else: the else runs */
	c_if = add_cond_node(g, one, cudaGraphCondTypeIf, 1, a, body);
	k_if = add_kernel_node(body[0], &stub_b, NULL);
	/* a conditional in a body */
	add_cond_node(body[0], one, cudaGraphCondTypeIf, 1, k_if, &nested);
	k_nested = add_kernel_node(nested, &stub_a, NULL);
	c_else = add_cond_node(g, zero, cudaGraphCondTypeIf, 2, c_if, body);
	add_kernel_node(body[0], &stub_a, NULL);
	k_else = add_kernel_node(body[1], &stub_b, NULL);
	/* SWITCH on 2 of 3 bodies */
	c_sw = add_cond_node(g, two, cudaGraphCondTypeSwitch, 3, c_else, body);
	for (i = 0; i < 3; i++)
		k_sw[i] = add_kernel_node(body[i], &stub_a, NULL);
	/* "Allowed values are 1 for CU_GRAPH_COND_TYPE_WHILE, 1 or 2 for CU_GRAPH_COND_TYPE_IF" */
	{
		struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeConditional};

		p.conditional.handle = one;
		p.conditional.type = cudaGraphCondTypeIf;
		p.conditional.size = 3;
		assert_int_equal(cudaGraphAddNode(&bad, g, NULL, NULL, 0, &p), cudaErrorInvalidValue);
		p.conditional.type = cudaGraphCondTypeWhile;
		p.conditional.size = 2;
		assert_int_equal(cudaGraphAddNode(&bad, g, NULL, NULL, 0, &p), cudaErrorInvalidValue);
	}
	/* SWITCH past its bodies: none runs */
	c_off = add_cond_node(g, two, cudaGraphCondTypeSwitch, 2, c_sw, body);
	add_kernel_node(body[0], &stub_b, NULL);
	add_kernel_node(body[1], &stub_b, NULL);
	k_after = add_kernel_node(g, &stub_b, c_off);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);

	/* "Allowed node types are kernel nodes, empty nodes, child graphs, memsets, memcopies, and conditionals." */
	{
		cudaGraph_t g2, b2;
		cudaGraphExec_t x2;

		assert_int_equal(cudaGraphCreate(&g2, 0), cudaSuccess);
		add_cond_node(g2, one, cudaGraphCondTypeIf, 1, NULL, &b2);
		hp.host.fn = never_runs;
		assert_int_equal(cudaGraphAddNode(&bad, b2, NULL, NULL, 0, &hp), cudaSuccess);
		assert_int_not_equal(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
		assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
	}
	stop(sub);

	ka = kernel_by_node(clone_of(node_id(a), x), 0);
	kc = kernel_by_node(clone_of(node_id(k_if), x), 0);
	kafter = kernel_by_node(clone_of(node_id(k_after), x), 0);
	assert_true(ka && kc && kafter);
	/* the graph's own two kernels, and one per body that ran: if, nested, else, switch */
	assert_int_equal(kernels_of_graph(ka->graphId), 6);
	/* a body runs after what the conditional node depends on, and before what depends on it */
	assert_true(kc->start >= ka->end);
	assert_true(kernel_by_node(clone_of(node_id(k_nested), x), 0)->start >= kc->end);
	assert_non_null(kernel_by_node(clone_of(node_id(k_else), x), 0));
	assert_null(kernel_by_node(clone_of(node_id(k_sw[0]), x), 0));
	assert_null(kernel_by_node(clone_of(node_id(k_sw[1]), x), 0));
	assert_non_null(kernel_by_node(clone_of(node_id(k_sw[2]), x), 0));
	assert_true(kafter->start >=
		    kernel_by_node(clone_of(node_id(k_sw[2]), x), 0)->end);
	/* every graph kernel carries its graph's id and a node id of its own */
	assert_int_equal(kc->graphId, ka->graphId);
	assert_int_not_equal(kc->graphNodeId, ka->graphNodeId);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/*
 * "CU_GRAPH_COND_TYPE_WHILE: phGraph_out[0] is executed as long as the
 * condition is non-zero." No kernel here sets it to zero: a WHILE that
 * starts non-zero runs its body once (README.md), one that starts at zero
 * not at all; a body captured into with cudaStreamBeginCaptureToGraph may
 * be ended without asking for the graph.
 */
static void test_conditional_while(void **state)
{
	DOC("CU_GRAPH_COND_TYPE_WHILE: phGraph_out[0] is executed as long as the condition is "
	    "non-zero.");
	cudaGraph_t g, body, body0;
	cudaGraphConditionalHandle one, zero;
	cudaGraphExec_t x;
	cudaStream_t s, cs;
	CUpti_SubscriberHandle sub = start();
	const CUpti_ActivityKernel10 *k;
	size_t i, n_a = 0, n_b = 0;

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&cs), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphConditionalHandleCreate(&one, g, 1, cudaGraphCondAssignDefault),
			 cudaSuccess);
	assert_int_equal(cudaGraphConditionalHandleCreate(&zero, g, 0, cudaGraphCondAssignDefault),
			 cudaSuccess);
	add_cond_node(g, one, cudaGraphCondTypeWhile, 1, NULL, &body);
	add_cond_node(g, zero, cudaGraphCondTypeWhile, 1, NULL, &body0);
	assert_int_equal(cudaStreamBeginCaptureToGraph(cs, body, NULL, NULL, 0,
						       cudaStreamCaptureModeGlobal),
			 cudaSuccess);
	launch(&stub_a, cs);
	launch(&stub_a, cs);
	assert_int_equal(cudaStreamEndCapture(cs, NULL), cudaSuccess);
	add_kernel_node(body0, &stub_b, NULL);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	stop(sub);
	for (i = 0; (k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i)); i++) {
		n_a += !strcmp(k->name, KERNEL_A);
		n_b += !strcmp(k->name, KERNEL_B);
	}
	assert_int_equal(n_a, 4); /* two kernels, once per launch */
	assert_int_equal(n_b, 0);
	/* A normal capture still needs somewhere to put its graph. */
	assert_int_equal(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaStreamEndCapture(cs, NULL), cudaErrorInvalidValue);
	assert_int_equal(cudaStreamEndCapture(cs, &body), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(body), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(cs), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_launch_configuration(void **state)
{
	DOC("cudaErrorInvalidConfiguration: This indicates that a kernel launch is requesting "
	    "resources that can never be satisfied by the current device. [...] requesting too "
	    "many threads or blocks.");
	float *arg = NULL;
	void *args[] = {&arg};
	CUpti_SubscriberHandle sub = start();

	(void)state;
	assert_int_equal(cudaLaunchKernel(&stub_a, (dim3){0, 1, 1}, (dim3){32, 1, 1}, args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
	assert_int_equal(cudaLaunchKernel(&stub_a, (dim3){1, 1, 1}, (dim3){1024, 2, 1}, args, 0,
					  NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaLaunchKernel(&stub_a, (dim3){1, 1, 1}, (dim3){1, 1, 65}, args, 0, NULL),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	stop(sub);
	/* nothing ran */
	assert_null(sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0));
}

static void test_symbol_copy_nodes(void **state)
{
	DOC("Creates a new memcpy node to copy to symbol and adds it to graph [...] Creates a new "
	    "memcpy node to copy from symbol [...] Sets the parameters of memcpy node node to the "
	    "copy described by the provided parameters.");
	int in[16], in2[16], out[16], out2[16], i;
	cudaGraphNode_t to, from;
	cudaGraphExec_t x;
	cudaGraph_t g;

	(void)state;
	for (i = 0; i < 16; i++) {
		in[i] = 100 + i;
		in2[i] = 200 + i;
	}
	memset(out, 0, sizeof(out));
	memset(out2, 0, sizeof(out2));
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	/* 8 ints into the variable at offset 4 ints, then the whole variable back out */
	assert_int_equal(cudaGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, device_var, in,
							8 * sizeof(int), 4 * sizeof(int),
							cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, out, device_var,
							  sizeof(out), 0, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	/* past the variable's end */
	assert_int_equal(cudaGraphMemcpyNodeSetParamsToSymbol(to, device_var, in, 8 * sizeof(int),
							      12 * sizeof(int),
							      cudaMemcpyHostToDevice),
			 cudaErrorInvalidSymbol);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(out[4], 100);
	assert_int_equal(out[11], 107);
	/* the graph's node from in2; the executable graph's copy out into out2 */
	assert_int_equal(cudaGraphMemcpyNodeSetParamsToSymbol(to, device_var, in2, 8 * sizeof(int),
							      4 * sizeof(int), cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaGraphExecMemcpyNodeSetParamsFromSymbol(x, from, out2, device_var,
								    sizeof(out2), 0,
								    cudaMemcpyDeviceToHost),
			 cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	/* the executable graph still copies from in, as instantiated, now into out2 */
	assert_int_equal(out2[4], 100);
	assert_int_equal(cudaGraphExecMemcpyNodeSetParamsToSymbol(x, to, device_var, in2,
								  8 * sizeof(int), 4 * sizeof(int),
								  cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaGraphMemcpyNodeSetParamsFromSymbol(from, out, device_var, sizeof(out), 0,
								cudaMemcpyDeviceToHost),
			 cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, NULL), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(out2[4], 200);
	assert_int_equal(out2[11], 207);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
}

static void test_launch_ex(void **state)
{
	DOC("Invokes the function CUfunction or the kernel CUkernel f with the specified "
	    "launch-time configuration config. [...] Setting CU_LAUNCH_ATTRIBUTE_COOPERATIVE to a "
	    "non-zero value causes the kernel launch to be a cooperative launch, with exactly the "
	    "same usage and semantics of cuLaunchCooperativeKernel.");
	CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE };
	CUlaunchConfig c = { .gridDimX = 2, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 64,
			     .blockDimY = 1, .blockDimZ = 1, .attrs = &attr, .numAttrs = 1 };
	const CUpti_ActivityKernel10 *k0, *k1;
	CUpti_SubscriberHandle sub;
	cudaFunction_t f;

	(void)state;
	assert_int_equal(cudaGetFuncBySymbol(&f, &stub_a), cudaSuccess);
	sub = start();
	attr.value.cooperative = 1;
	assert_int_equal(cuLaunchKernelEx(&c, (CUfunction)f, NULL, NULL), CUDA_SUCCESS);
	c.numAttrs = 0;
	c.attrs = NULL;
	assert_int_equal(cuLaunchKernelEx(&c, (CUfunction)f, NULL, NULL), CUDA_SUCCESS);
	/* "Valid for streams": not a launch's */
	attr.id = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
	attr.value.syncPolicy = CU_SYNC_POLICY_SPIN;
	c.attrs = &attr;
	c.numAttrs = 1;
	assert_int_equal(cuLaunchKernelEx(&c, (CUfunction)f, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	stop(sub);
	k0 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	k1 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1);
	assert_non_null(k0);
	assert_non_null(k1);
	assert_null(sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 2));
	assert_int_equal(k0->launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE);
	assert_int_equal(k0->gridX, 2);
	assert_int_equal(k0->blockX, 64);
	assert_int_equal(k1->launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
}

static void test_queries(void **state)
{
	DOC("Returns in *attributes the attributes of the pointer ptr. [...] Returns in **pfn "
	    "the address of the CUDA driver function for the requested CUDA version and flags.");
	struct cudaPointerAttributes pa;
	enum cudaDriverEntryPointQueryResult st;
	CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
	void *fn = NULL, *pinned = NULL, *dev = NULL, *managed = NULL, *sym = NULL;
	unsigned long long id = 0, id2 = 0;
	unsigned int flags = 99;
	int local = 0, prio = 1, device = -1, host_copy[16], back[4];
	enum cudaFuncCache cfg;
	size_t size = 0;
	cudaStream_t s, s2;
	CUdeviceptr d = 0;
	char bus[32];

	(void)state;
	/* pointers: device, pinned host, managed, and memory CUDA does not know */
	assert_int_equal(cudaMalloc(&dev, 64), cudaSuccess);
	assert_int_equal(cudaMallocHost(&pinned, 64), cudaSuccess);
	assert_int_equal(cudaMallocManaged(&managed, 64, cudaMemAttachGlobal), cudaSuccess);
	assert_int_equal(cudaPointerGetAttributes(&pa, (char *)dev + 8), cudaSuccess);
	assert_int_equal(pa.type, cudaMemoryTypeDevice);
	assert_ptr_equal(pa.devicePointer, (char *)dev + 8);
	assert_null(pa.hostPointer);
	assert_int_equal(cudaPointerGetAttributes(&pa, pinned), cudaSuccess);
	assert_int_equal(pa.type, cudaMemoryTypeHost);
	assert_ptr_equal(pa.hostPointer, pinned);
	assert_int_equal(cudaPointerGetAttributes(&pa, managed), cudaSuccess);
	assert_int_equal(pa.type, cudaMemoryTypeManaged);
	assert_int_equal(cudaPointerGetAttributes(&pa, &local), cudaSuccess);
	assert_int_equal(pa.type, cudaMemoryTypeUnregistered);
	/* "If ptr was not allocated by [...] CUDA_ERROR_INVALID_VALUE is returned" */
	assert_int_equal(cuPointerGetAttribute(&d, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
					       (CUdeviceptr)(uintptr_t)&local),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuPointerGetAttribute(&d, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
					       (CUdeviceptr)(uintptr_t)dev + 8),
			 CUDA_SUCCESS);
	assert_true(d == (CUdeviceptr)(uintptr_t)dev);
	assert_int_equal(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
					       (CUdeviceptr)(uintptr_t)dev),
			 CUDA_SUCCESS);
	assert_int_equal(size, 64);
	/* "the flags pFlags that were specified when allocating the pinned host buffer" */
	assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
	assert_int_equal(cudaHostAlloc(&pinned, 64, cudaHostAllocMapped), cudaSuccess);
	assert_int_equal(cudaHostGetFlags(&flags, pinned), cudaSuccess);
	assert_int_equal(flags, cudaHostAllocMapped);
	assert_int_equal(cudaHostGetFlags(&flags, dev), cudaErrorInvalidValue);
	/* a kernel's name, and the dynamic shared memory n blocks of it may have on an SM */
	{
		const char *name = NULL;

		assert_int_equal(cudaFuncGetName(&name, &stub_a), cudaSuccess);
		assert_string_equal(name, KERNEL_A);
		assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&size, &stub_a, 4, 128),
				 cudaSuccess);
		assert_int_equal(size, 16384);
		assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&size, &stub_a, 1, 128),
				 cudaSuccess);
		assert_int_equal(size, 49152); /* a block's own limit */
		assert_int_equal(cudaOccupancyAvailableDynamicSMemPerBlock(&size, &stub_a, 17, 32),
				 cudaSuccess);
		assert_int_equal(size, 0); /* more blocks than an SM runs */
	}
	/* streams: what they were made with */
	assert_int_equal(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -1), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
	assert_int_equal(cudaStreamGetFlags(s, &flags), cudaSuccess);
	assert_int_equal(flags, cudaStreamNonBlocking);
	assert_int_equal(cudaStreamGetPriority(s, &prio), cudaSuccess);
	assert_int_equal(prio, -1);
	assert_int_equal(cudaStreamGetId(s, &id), cudaSuccess);
	assert_int_equal(cudaStreamGetId(s2, &id2), cudaSuccess);
	assert_int_not_equal(id, id2);
	assert_int_equal(cudaStreamGetDevice(s, &device), cudaSuccess);
	assert_int_equal(device, 0);
	assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
	assert_int_equal(cudaStreamGetFlags(s2, &flags), cudaErrorInvalidResourceHandle);
	/* the device: flags, cache preference and bus id read back */
	assert_int_equal(cudaSetDeviceFlags(cudaDeviceScheduleYield), cudaSuccess);
	assert_int_equal(cudaGetDeviceFlags(&flags), cudaSuccess);
	assert_int_equal(flags, cudaDeviceScheduleYield);
	assert_int_equal(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
	assert_int_equal(cudaDeviceGetCacheConfig(&cfg), cudaSuccess);
	assert_int_equal(cfg, cudaFuncCachePreferShared);
	assert_int_equal(cudaDeviceGetPCIBusId(bus, sizeof(bus), 0), cudaSuccess);
	assert_int_equal(cudaDeviceGetByPCIBusId(&device, bus), cudaSuccess);
	assert_int_equal(device, 0);
	assert_int_equal(cudaDeviceGetByPCIBusId(&device, "0000:42:00.0"), cudaErrorInvalidDevice);
	/* driver entry points: the versioned function the headers name, a per-thread form */
	assert_int_equal(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 13000, cudaEnableDefault, &st),
			 cudaSuccess);
	assert_int_equal(st, cudaDriverEntryPointSuccess);
	assert_ptr_equal(fn, (void *)cuMemAlloc);
	*(void **)&alloc = fn;
	assert_int_equal(alloc(&d, 32), CUDA_SUCCESS);
	assert_int_equal(cuMemFree(d), CUDA_SUCCESS);
	assert_int_equal(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 13000,
							  cudaEnablePerThreadDefaultStream, &st),
			 cudaSuccess);
	assert_ptr_equal(fn, dlsym(RTLD_DEFAULT, "cuLaunchKernel_ptsz"));
	/* "set the returned pfn to NULL if [...] the driver symbol is invalid" */
	assert_int_equal(cudaGetDriverEntryPointByVersion("cuNoSuchCall", &fn, 13000, cudaEnableDefault, &st),
			 cudaSuccess);
	assert_null(fn);
	assert_int_equal(st, cudaDriverEntryPointSymbolNotFound);
	/* a __device__ variable: its address, its size, copies in stream order */
	for (int i = 0; i < 16; i++)
		host_copy[i] = i * 3;
	assert_int_equal(cudaGetSymbolSize(&size, device_var), cudaSuccess);
	assert_int_equal(size, sizeof(device_var));
	assert_int_equal(cudaGetSymbolAddress(&sym, device_var), cudaSuccess);
	assert_non_null(sym);
	assert_int_equal(cudaGetSymbolSize(&size, &local), cudaErrorInvalidSymbol);
	assert_int_equal(cudaMemcpyToSymbolAsync(device_var, host_copy, sizeof(host_copy), 0,
						 cudaMemcpyHostToDevice, s),
			 cudaSuccess);
	assert_int_equal(cudaMemcpyFromSymbolAsync(back, device_var, sizeof(back), 8 * sizeof(int),
						   cudaMemcpyDeviceToHost, s),
			 cudaSuccess);
	assert_int_equal(cudaMemcpyToSymbolAsync(device_var, host_copy, sizeof(host_copy), 4,
						 cudaMemcpyHostToDevice, s),
			 cudaErrorInvalidSymbol);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(back[0], 24);
	assert_int_equal(back[3], 33);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaFree(managed), cudaSuccess);
	assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
}

static int host_runs;

static void count_host(void *user)
{
	host_runs += (int)(intptr_t)user;
}

static void test_node_params(void **state)
{
	DOC("Sets the parameters of memcpy node node in the given graphExec. [...] The "
	    "modifications only affect future launches of hGraphExec. [...] Disabled nodes are "
	    "functionally equivalent to empty nodes until they are reenabled.");
	struct cudaMemcpy3DParms cp;
	struct cudaMemsetParams ms = {.elementSize = 4, .width = 8, .height = 1, .value = 5};
	struct cudaHostNodeParams hp = {count_host, (void *)(intptr_t)1};
	struct cudaGraphNodeParams kp = {.type = cudaGraphNodeTypeKernel};
	const CUpti_ActivityKernel10 *k;
	cudaGraphNode_t copy, fill, host, kern, found;
	cudaGraph_t g, clone;
	cudaGraphExec_t x;
	cudaStream_t s;
	unsigned int enabled = 7;
	int a[8], b[8], *dev;
	CUpti_SubscriberHandle sub = start();

	(void)state;
	for (int i = 0; i < 8; i++)
		a[i] = i, b[i] = 100 + i;
	host_runs = 0;
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&dev, sizeof(a)), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddMemcpyNode1D(&copy, g, NULL, 0, dev, a, sizeof(a),
						  cudaMemcpyHostToDevice),
			 cudaSuccess);
	ms.dst = dev;
	assert_int_equal(cudaGraphAddMemsetNode(&fill, g, &copy, 1, &ms), cudaSuccess);
	assert_int_equal(cudaGraphAddHostNode(&host, g, &fill, 1, &hp), cudaSuccess);
	kern = add_kernel_node(g, &stub_a, host);
	/* what was given comes back */
	assert_int_equal(cudaGraphMemcpyNodeGetParams(copy, &cp), cudaSuccess);
	assert_ptr_equal(cp.srcPtr.ptr, a);
	assert_ptr_equal(cp.dstPtr.ptr, dev);
	assert_int_equal(cp.extent.width, sizeof(a));
	memset(&ms, 0, sizeof(ms));
	assert_int_equal(cudaGraphMemsetNodeGetParams(fill, &ms), cudaSuccess);
	assert_int_equal(ms.value, 5);
	assert_int_equal(ms.width, 8);
	assert_int_equal(cudaGraphHostNodeGetParams(host, &hp), cudaSuccess);
	assert_ptr_equal(hp.fn, count_host);
	/* a node of another kind is not one */
	assert_int_equal(cudaGraphMemsetNodeGetParams(copy, &ms), cudaErrorInvalidValue);
	/* the memset only over the first half, set on the graph before instantiation */
	ms.width = 4;
	assert_int_equal(cudaGraphMemsetNodeSetParams(fill, &ms), cudaSuccess);
	/* a clone's node for a node of the original */
	assert_int_equal(cudaGraphClone(&clone, g), cudaSuccess);
	assert_int_equal(cudaGraphNodeFindInClone(&found, fill, clone), cudaSuccess);
	assert_int_equal(cudaGraphMemsetNodeGetParams(found, &ms), cudaSuccess);
	assert_int_equal(ms.width, 4);
	assert_int_equal(cudaGraphNodeFindInClone(&found, fill, g), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphDestroy(clone), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(dev[0], 5);
	assert_int_equal(dev[6], 6); /* past the memset's four: a's */
	assert_int_equal(host_runs, 1);
	/* the executable graph changes, the graph does not */
	assert_int_equal(cudaGraphExecMemcpyNodeSetParams1D(x, copy, dev, b, sizeof(b),
							    cudaMemcpyHostToDevice),
			 cudaSuccess);
	hp.userData = (void *)(intptr_t)10;
	assert_int_equal(cudaGraphExecHostNodeSetParams(x, host, &hp), cudaSuccess);
	assert_int_equal(cudaGraphNodeSetEnabled(x, fill, 0), cudaSuccess);
	assert_int_equal(cudaGraphNodeGetEnabled(x, fill, &enabled), cudaSuccess);
	assert_int_equal(enabled, 0);
	/* "Currently only kernel, memset and memcpy nodes are supported" */
	assert_int_equal(cudaGraphNodeSetEnabled(x, host, 0), cudaErrorInvalidValue);
	kp.kernel.func = (void *)&stub_a;
	kp.kernel.gridDim = (dim3){9, 1, 1};
	kp.kernel.blockDim = (dim3){32, 1, 1};
	assert_int_equal(cudaGraphExecNodeSetParams(x, kern, &kp), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(dev[0], 100); /* b, and the memset disabled */
	assert_int_equal(dev[7], 107);
	assert_int_equal(host_runs, 11);
	assert_int_equal(cudaGraphHostNodeGetParams(host, &hp), cudaSuccess);
	assert_ptr_equal(hp.userData, (void *)(intptr_t)1);
	/* "Specifying a non-existing dependency will return an error." */
	assert_int_equal(cudaGraphRemoveDependencies(g, &fill, &host, NULL, 1), cudaSuccess);
	assert_int_equal(cudaGraphRemoveDependencies(g, &fill, &host, NULL, 1), cudaErrorInvalidValue);
	stop(sub);
	/* the second launch's kernel with its new grid, and no memset in it */
	assert_non_null(sim_recs_find(CUPTI_ACTIVITY_KIND_MEMSET, 0));
	assert_null(sim_recs_find(CUPTI_ACTIVITY_KIND_MEMSET, 1));
	k = kernel_by_node(clone_of(node_id(kern), x), 1);
	assert_non_null(k);
	assert_int_equal(k->gridX, 9);
	assert_int_equal(kernel_by_node(clone_of(node_id(kern), x), 0)->gridX, 1);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_instantiate_with_params(void **state)
{
	DOC("If instantiation is successful, result_out will be set to "
	    "CUDA_GRAPH_INSTANTIATE_SUCCESS, and hErrNode_out will be set to NULL.");
	struct cudaKernelNodeParams kp = {
	    .func = (void *)&stub_a, .gridDim = {4, 1, 1}, .blockDim = {128, 1, 1}};
	cudaGraphInstantiateParams ip = {.flags = cudaGraphInstantiateFlagUpload};
	unsigned long long flags;
	cudaGraphNode_t a, b;
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaStream_t s;

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&a, g, NULL, 0, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddKernelNode(&b, g, &a, 1, &kp), cudaSuccess);
	ip.uploadStream = s;
	ip.result_out = cudaGraphInstantiateError;
	ip.errNode_out = a;
	assert_int_equal(cudaGraphInstantiateWithParams(&x, g, &ip), cudaSuccess);
	assert_int_equal(ip.result_out, cudaGraphInstantiateSuccess);
	assert_null(ip.errNode_out);
	/* "cudaGraphInstantiateFlagUpload will not be returned by this API" */
	flags = ~0ULL;
	assert_int_equal(cudaGraphExecGetFlags(x, &flags), cudaSuccess);
	assert_int_equal(flags, 0);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch),
			 cudaSuccess);
	assert_int_equal(cudaGraphExecGetFlags(x, &flags), cudaSuccess);
	assert_int_equal(flags, cudaGraphInstantiateFlagAutoFreeOnLaunch);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	/* "CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE, if the graph structure is invalid" (a cycle)
	 */
	assert_int_equal(cudaGraphAddDependencies(g, &b, &a, NULL, 1), cudaSuccess);
	ip.flags = 0;
	assert_int_not_equal(cudaGraphInstantiateWithParams(&x, g, &ip), cudaSuccess);
	assert_int_equal(ip.result_out, cudaGraphInstantiateInvalidStructure);
	/* "CUDA_GRAPH_INSTANTIATE_ERROR, if passed an invalid value" */
	ip.flags = 1ULL << 40;
	assert_int_equal(cudaGraphInstantiateWithParams(&x, g, &ip), cudaErrorInvalidValue);
	assert_int_equal(ip.result_out, cudaGraphInstantiateError);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_capture_across_streams, teardown),
	    cmocka_unit_test(test_capture_errors),
	    cmocka_unit_test(test_capture_modes),
	    cmocka_unit_test_teardown(test_capture_to_graph, teardown),
	    cmocka_unit_test_teardown(test_child_graph, teardown),
	    cmocka_unit_test_teardown(test_graph_launch_captured, teardown),
	    cmocka_unit_test(test_graph_queries),
	    cmocka_unit_test_teardown(test_exec_child_graph_params, teardown),
	    cmocka_unit_test_teardown(test_kernel_node_params, teardown),
	    cmocka_unit_test(test_instantiate_with_params),
	    cmocka_unit_test_teardown(test_launch_configuration, teardown),
	    cmocka_unit_test_teardown(test_conditional_nodes, teardown),
	    cmocka_unit_test_teardown(test_conditional_while, teardown),
	    cmocka_unit_test_teardown(test_queries, teardown),
	    cmocka_unit_test_teardown(test_launch_ex, teardown),
	    cmocka_unit_test_teardown(test_symbol_copy_nodes, teardown),
	    cmocka_unit_test_teardown(test_node_params, teardown),
	    cmocka_unit_test_teardown(test_kernel_node_attributes, teardown),
	    cmocka_unit_test_teardown(test_event_nodes, teardown),
	};
	char rules[128];
	void **h;

	snprintf(rules, sizeof(rules), "kernelA=%llu,kernelB=%llu", KERNEL_A_NS, KERNEL_B_NS);
	setenv("GPUPERF_SIM_KERNEL_NS", rules, 1);
	h = __cudaRegisterFatBinary((void *)&stub_a);
	__cudaRegisterFunction(h, &stub_a, (char *)KERNEL_A, KERNEL_A, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterVar(h, (char *)device_var, (char *)"device_var", "device_var", 0,
			  sizeof(device_var), 0, 0);
	__cudaRegisterFunction(h, &stub_b, (char *)KERNEL_B, KERNEL_B, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterFatBinaryEnd(h);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
