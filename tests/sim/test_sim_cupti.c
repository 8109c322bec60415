// SPDX-License-Identifier: Apache-2.0
/* The simulator against the sentences of CUPTI's header documentation it implements. */

/*
 * Each test quotes (DOC) the sentence of cupti_activity.h / cupti_callbacks.h
 * or cuda_runtime_api.h it checks, so a failure names the promise broken.
 * CUPTI state is process-wide, so tests run in order and cuptiFinalize()
 * detaches between them. GPUPERF_SIM_KERNEL_NS is set before the first CUDA
 * call so kernel durations are known exactly.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim_test.h"

/* nvcc-generated host code calls these; C test code registers kernels by hand. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

#define DOC(s) static const char doc_sentence[] __attribute__((unused)) = s
#define KERNEL_A "_Z7kernelAPf"
#define KERNEL_B "_Z7kernelBPf"
#define KERNEL_SLOW "_Z10slowKernelv"
#define KERNEL_A_NS 50000ULL
#define KERNEL_SLOW_NS 20000000ULL

/* Stand-ins for host stubs: only their addresses matter. */
static const char stub_a, stub_b, stub_slow, stub_none;

/* What the test's CUPTI client saw besides activity records (sim_test.h). */
#define MAX_CBS 256

struct cb_seen {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	CUpti_ApiCallbackSite site;
	uint32_t corr;
	const char *name;
	char symbol[64];
	uint64_t corr_data;
	int ret;
	CUcontext ctx;
};

static struct {
	pthread_mutex_t lock;
	struct cb_seen cbs[MAX_CBS];
	size_t ncbs;
	/* resource-domain graph callbacks: cbid, node id, original node id */
	struct {
		CUpti_CallbackId cbid;
		uint64_t node, orig;
		CUgraphExec exec;
	} res[MAX_CBS];
	size_t nres;
} G = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t CUPTIAPI mono_ts(void)
{
	return mono_ns();
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_CallbackData *d = data;
	struct cb_seen *s;

	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		const CUpti_GraphData *gd = rd->resourceDescriptor;

		pthread_mutex_lock(&G.lock);
		if (G.nres < MAX_CBS) {
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
		return;
	}
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	pthread_mutex_lock(&G.lock);
	if (G.ncbs < MAX_CBS) {
		s = &G.cbs[G.ncbs++];
		s->domain = domain;
		s->cbid = cbid;
		s->site = d->callbackSite;
		s->corr = d->correlationId;
		s->name = d->functionName;
		snprintf(s->symbol, sizeof(s->symbol), "%s", d->symbolName ? d->symbolName : "");
		s->ctx = d->context;
		if (d->callbackSite == CUPTI_API_ENTER)
			*d->correlationData = 0xC0FFEE00ULL + d->correlationId;
		s->corr_data = *d->correlationData;
		s->ret = d->functionReturnValue ? *(const int *)d->functionReturnValue : -1;
	}
	pthread_mutex_unlock(&G.lock);
}

static void reset_seen(void)
{
	pthread_mutex_lock(&G.lock);
	G.ncbs = 0;
	G.nres = 0;
	pthread_mutex_unlock(&G.lock);
	sim_recs_reset();
}

static void start_activity(const CUpti_ActivityKind *kinds, size_t n)
{
	reset_seen();
	sim_recs_start(kinds, n);
}

static int teardown(void **state)
{
	cuptiFinalize();
	return 0;
}

/* The API record (runtime or driver) with correlation id corr, or NULL. */
static const CUpti_ActivityAPI *api_by_corr(CUpti_ActivityKind kind, uint32_t corr)
{
	const unsigned char *r;
	size_t i;

	for (i = 0; (r = sim_recs_find(kind, i)); i++) {
		const CUpti_ActivityAPI *a = (const void *)r;

		if (a->correlationId == corr)
			return a;
	}
	return NULL;
}

static CUcontext primary_ctx(void)
{
	CUcontext ctx = NULL;

	cuCtxGetCurrent(&ctx);
	return ctx;
}

static void launch_a(cudaStream_t s)
{
	float *arg = NULL;
	void *args[] = { &arg };

	assert_int_equal(cudaLaunchKernel(&stub_a, (dim3){ 4, 1, 1 }, (dim3){ 128, 1, 1 }, args, 0,
					  s),
			 cudaSuccess);
}

/* ---- callback API --------------------------------------------------------- */

static void test_subscribe_single(void **state)
{
	DOC("Only a single subscriber can be registered at a time. ... In case profiling session "
	    "is already started by another CUPTI client, this function returns the error code "
	    "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED.");
	CUpti_SubscriberHandle a, b;

	assert_int_equal(cuptiSubscribe(&a, on_callback, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiSubscribe(&b, on_callback, NULL),
			 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
	assert_int_equal(cuptiUnsubscribe(a), CUPTI_SUCCESS);
	assert_int_equal(cuptiSubscribe(&b, on_callback, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiUnsubscribe(b), CUPTI_SUCCESS);
}

static void test_callbacks_launch(void **state)
{
	DOC("symbolName: Name of the symbol operated on by the runtime or driver API function "
	    "which issued the callback. This entry is valid only for driver and runtime launch "
	    "callbacks, where it returns the name of the kernel.");
	CUpti_SubscriberHandle sub;
	size_t i, rt_enter = SIZE_MAX, rt_exit = SIZE_MAX, drv_enter = SIZE_MAX,
		  drv_exit = SIZE_MAX;

	reset_seen();
	assert_int_equal(cuptiSubscribe(&sub, on_callback, NULL), CUPTI_SUCCESS);
	/* "This function does not enable any callbacks." */
	launch_a(NULL);
	assert_int_equal(G.ncbs, 0);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
	launch_a(NULL);
	assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);

	for (i = 0; i < G.ncbs; i++) {
		struct cb_seen *s = &G.cbs[i];

		if (s->domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
		    s->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
			*(s->site == CUPTI_API_ENTER ? &rt_enter : &rt_exit) = i;
		if (s->domain == CUPTI_CB_DOMAIN_DRIVER_API &&
		    s->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
			*(s->site == CUPTI_API_ENTER ? &drv_enter : &drv_exit) = i;
	}
	assert_true(rt_enter < drv_enter);
	assert_true(drv_enter < drv_exit);
	assert_true(drv_exit < rt_exit);
	assert_string_equal(G.cbs[rt_enter].symbol, KERNEL_A);
	assert_string_equal(G.cbs[drv_enter].symbol, KERNEL_A);
	assert_string_equal(G.cbs[rt_enter].name, "cudaLaunchKernel");
	assert_string_equal(G.cbs[drv_enter].name, "cuLaunchKernel");
	/* Runtime and nested driver call have correlation ids of their own. */
	assert_int_equal(G.cbs[rt_enter].corr, G.cbs[rt_exit].corr);
	assert_int_not_equal(G.cbs[rt_enter].corr, G.cbs[drv_enter].corr);
	/* "correlationData: Pointer to data shared between the entry and exit callbacks" */
	assert_int_equal(G.cbs[rt_exit].corr_data, 0xC0FFEE00ULL + G.cbs[rt_enter].corr);
	/* "functionReturnValue ... This field is only valid within the exit::CUPTI_API_EXIT callback." */
	assert_int_equal(G.cbs[rt_exit].ret, cudaSuccess);
	assert_int_equal(G.cbs[rt_enter].ret, -1);
	assert_non_null(G.cbs[rt_enter].ctx);
}

/* ---- activity API ---------------------------------------------------------- */

static void test_correlation(void **state)
{
	DOC("correlationId: The correlation ID of the kernel. Each kernel execution is assigned a "
	    "unique correlation ID that is identical to the correlation ID in the driver or "
	    "runtime API activity record that launched the kernel.");
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_MEMSET
	};
	const CUpti_ActivityKernel10 *k0, *k1;
	const CUpti_ActivityMemcpy6 *m;
	const CUpti_ActivityMemset4 *ms;
	const CUpti_ActivityAPI *rt, *drv;
	cudaFunction_t f;
	float *d = NULL, host[64] = { 0 };
	void *args[] = { &d };

	start_activity(kinds, sizeof(kinds) / sizeof(kinds[0]));
	assert_int_equal(cudaMalloc((void **)&d, sizeof(host)), cudaSuccess);
	assert_int_equal(cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice), cudaSuccess);
	launch_a(NULL);
	assert_int_equal(cudaGetFuncBySymbol(&f, &stub_b), cudaSuccess);
	assert_int_equal(cuLaunchKernel((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_SUCCESS);
	assert_int_equal(cudaMemset(d, 0, sizeof(host)), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cudaFree(d), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	/* Runtime launch: kernel carries the runtime API's id, not the nested driver call's. */
	k0 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	k1 = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1);
	assert_non_null(k0);
	assert_non_null(k1);
	if (strcmp(k0->name, KERNEL_A)) {
		const CUpti_ActivityKernel10 *t = k0;

		k0 = k1;
		k1 = t;
	}
	assert_string_equal(k0->name, KERNEL_A);
	rt = api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, k0->correlationId);
	assert_non_null(rt);
	assert_int_equal(rt->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
	drv = sim_recs_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0);
	assert_non_null(drv);
	assert_int_not_equal(drv->correlationId, k0->correlationId);
	/* The nested driver call lies within the runtime call. */
	assert_true(drv->start >= rt->start && drv->end <= rt->end);
	assert_int_equal(k0->gridX, 4);
	assert_int_equal(k0->blockX, 128);
	assert_int_equal(k0->end - k0->start, KERNEL_A_NS);

	/* Direct driver launch: kernel carries the driver API's id. */
	assert_string_equal(k1->name, KERNEL_B);
	drv = api_by_corr(CUPTI_ACTIVITY_KIND_DRIVER, k1->correlationId);
	assert_non_null(drv);
	assert_int_equal(drv->cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
	assert_null(api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, k1->correlationId));

	m = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	assert_non_null(m);
	assert_int_equal(m->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	assert_int_equal(m->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
	assert_int_equal(m->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	assert_int_equal(m->bytes, sizeof(host));
	/* "runtimeCorrelationId ... identical to the correlation ID in the runtime API activity
	 * record that launched the memory copy." */
	rt = api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, m->runtimeCorrelationId);
	assert_non_null(rt);
	assert_int_equal(rt->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);

	ms = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMSET, 0);
	assert_non_null(ms);
	assert_int_equal(ms->bytes, sizeof(host));
	assert_non_null(api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, ms->correlationId));
}

static void test_graph_correlation(void **state)
{
	DOC("graphId: The unique ID of the graph that launched this kernel through graph launch "
	    "APIs. This field will be 0 if the kernel is not launched through graph launch APIs.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	const CUpti_ActivityKernel10 *k[3];
	const CUpti_ActivityAPI *gl;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t x;
	size_t i;

	start_activity(kinds, 2);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	launch_a(s);
	launch_a(s);
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	launch_a(s); /* not captured: graphId 0 */
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	/* Capturing issues no work: exactly three kernels ran. */
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
	for (i = 0; i < 3; i++)
		k[i] = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i);
	gl = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
			 0);
	assert_non_null(gl);
	assert_int_equal(k[0]->graphId, 0);
	assert_int_equal(k[1]->correlationId, gl->correlationId);
	assert_int_equal(k[2]->correlationId, gl->correlationId);
	assert_int_not_equal(k[1]->graphId, 0);
	assert_int_equal(k[1]->graphId, k[2]->graphId);
	assert_int_not_equal(k[1]->graphNodeId, k[2]->graphNodeId);
	assert_true(k[1]->start >= k[0]->end); /* in order on the stream */
}

static void test_default_clock_and_thread_id(void **state)
{
	DOC("By default CUPTI uses different methods, based on the underlying platform, to "
	    "retrieve the timestamp Linux (x86_64, aarch64 sbsa, aarch64) uses "
	    "clock_gettime(CLOCK_REALTIME)");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME };
	const CUpti_ActivityAPI *a;
	struct timespec ts;
	uint64_t before, after;
	int n;

	start_activity(kinds, 1);
	/* "CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT ... Linux ... use POSIX pthread API pthread_self()" */
	assert_int_equal(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT), CUPTI_SUCCESS);
	clock_gettime(CLOCK_REALTIME, &ts);
	before = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	assert_int_equal(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), CUPTI_SUCCESS);
	assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	clock_gettime(CLOCK_REALTIME, &ts);
	after = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	a = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
			CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, 0);
	assert_non_null(a);
	assert_true(a->start >= before && a->end <= after);
	assert_int_equal(a->threadId, (uint32_t)pthread_self());
	assert_int_equal(a->processId, (uint32_t)getpid());
	/* "CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ... Linux uses syscall SYS_gettid" */
	a = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
			CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, 1);
	assert_non_null(a);
	assert_int_equal(a->threadId, (uint32_t)my_tid());
}

static void test_worker_thread_and_late_delivery(void **state)
{
	DOC("Periodic flush can return only those activity buffers which are full and have all "
	    "the activity records completed.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	struct timespec nap = { 0, 150 * 1000000L };

	start_activity(kinds, 2);
	assert_int_equal(cuptiActivityFlushPeriod(10), CUPTI_SUCCESS);
	launch_a(NULL);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	nanosleep(&nap, NULL);
	/* Complete records, but a buffer far from full: nothing is handed back yet. */
	assert_int_equal(sim_recs.completed, 0);
	assert_int_equal(sim_recs.nrecs, 0);
	/* "This function returns the activity records associated with all contexts/streams ...
	 * to the CUPTI client using the callback registered in cuptiActivityRegisterCallbacks." */
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(sim_recs.completed, 1);
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 1);
	/* Buffers are requested and completed on a thread CUPTI owns. */
	assert_int_not_equal(sim_recs.req_tid, my_tid());
	assert_int_not_equal(sim_recs.comp_tid, my_tid());
	assert_int_equal(cuptiActivityFlushPeriod(0), CUPTI_SUCCESS);
}

static void test_full_buffers_delivered(void **state)
{
	DOC("If > 0 the buffer is filled with at most that many records before it is returned.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME };
	struct timespec nap = { 0, 300 * 1000000L };
	int i, n;

	start_activity(kinds, 1);
	/* Small buffers fill up: full buffers come back without any flush. */
	sim_recs.bufsize = 4 * sizeof(CUpti_ActivityAPI);
	for (i = 0; i < 20; i++)
		assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	nanosleep(&nap, NULL);
	assert_true(sim_recs.completed >= 4);
	assert_true(sim_recs.nrecs >= 16);
	sim_recs.bufsize = 1 << 20;
}

/* Waits up to ms for cond (evaluated under sim_recs.lock); its last value. */
#define WAIT_FOR(cond, ms)                                                         \
	({                                                                         \
		bool ok_ = false;                                                  \
		for (int t_ = 0; t_ <= (ms) && !ok_; t_++) {                       \
			pthread_mutex_lock(&sim_recs.lock);                        \
			ok_ = (cond);                                              \
			pthread_mutex_unlock(&sim_recs.lock);                      \
			if (!ok_)                                                  \
				nanosleep(&(struct timespec){ 0, 1000000L }, NULL); \
		}                                                                  \
		ok_;                                                               \
	})

static void test_backlog_while_busy(void **state)
{
	DOC("(the simulator's worker, tests/sim/README.md) Records go into the client's buffers "
	    "as work completes, not only once a flush period: the worker also wakes for every "
	    "4096 records staged, including ones staged while it was busy delivering.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME };
	const size_t per_buf = 64, wake = 4096;
	size_t i;
	int n;

	start_activity(kinds, 1);
	sim_recs.bufsize = per_buf * sizeof(CUpti_ActivityAPI);
	/* A period far beyond the test: only the wake-up mark delivers anything. */
	assert_int_equal(cuptiActivityFlushPeriod(60000), CUPTI_SUCCESS);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	pthread_mutex_lock(&sim_recs.lock);
	sim_recs.nseen = 0;
	sim_recs.hold = 1;
	pthread_mutex_unlock(&sim_recs.lock);
	for (i = 0; i < wake; i++)
		assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	/* The worker woke for them and is now held in the first full buffer's callback... */
	assert_true(WAIT_FOR(sim_recs.held, 5000));
	/* ...while twice as many more are staged: their wake-up signal finds it busy. */
	for (i = 0; i < 2 * wake; i++)
		assert_int_equal(cudaGetDeviceCount(&n), cudaSuccess);
	pthread_mutex_lock(&sim_recs.lock);
	sim_recs.hold = 0;
	pthread_cond_broadcast(&sim_recs.hold_cond);
	pthread_mutex_unlock(&sim_recs.lock);
	/* All but a partly filled last buffer arrive without a flush, long before the period. */
	assert_true(WAIT_FOR(sim_recs.nseen >= 3 * wake - per_buf, 3000));
	assert_int_equal(cuptiActivityFlushPeriod(0), CUPTI_SUCCESS);
	sim_recs.bufsize = 1 << 20;
}

static void test_forced_flush_incomplete(void **state)
{
	DOC("For forced flush i.e. when flag CUPTI_ACTIVITY_FLAG_FLUSH_FORCED is passed to the "
	    "function, it returns all the activity buffers including the ones which have one or "
	    "more incomplete activity records.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	const CUpti_ActivityKernel10 *k;

	start_activity(kinds, 1);
	assert_int_equal(cudaLaunchKernel(&stub_slow, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0,
					  NULL),
			 cudaSuccess);
	/* Default flush: the kernel is still running, so its record is not complete. */
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 0);
	assert_int_equal(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	assert_non_null(k);
	/* "A value of 0 for both the start and end timestamps indicates that timestamp
	 * information could not be collected for the kernel." */
	assert_int_equal(k->start, 0);
	assert_int_equal(k->end, 0);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
}

static void test_drops(void **state)
{
	DOC("The callback function can decline the request by setting *buffer to NULL. In this "
	    "case CUPTI may drop activity records.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	size_t dropped = 0, on_stream = 0;

	start_activity(kinds, 2);
	sim_recs.decline = 1;
	launch_a(NULL);
	launch_a(NULL);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_true(sim_recs.requested > 0);
	assert_int_equal(sim_recs.nrecs, 0);
	/* "Get the number of records that were dropped because of insufficient buffer space." */
	assert_int_equal(cuptiActivityGetNumDroppedRecords(primary_ctx(), 7, &on_stream),
			 CUPTI_SUCCESS);
	assert_int_equal(on_stream, 2);
	assert_int_equal(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
	assert_int_equal(dropped, 5); /* 2 kernels + 3 runtime calls */
	/* "The dropped count maintained for the queue is reset to zero when this function is called." */
	assert_int_equal(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
	assert_int_equal(dropped, 0);
	sim_recs.decline = 0;
}

static void test_timestamp_callback(void **state)
{
	DOC("This function registers a callback function to obtain timestamp of user's choice "
	    "instead of using CUPTI provided timestamp.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION };
	const CUpti_ActivityKernel10 *k;
	const CUpti_ActivityAPI *a;
	const CUpti_ActivitySynchronization2 *sy;
	uint64_t before, after, ts;
	cudaStream_t s;

	assert_int_equal(cuptiActivityRegisterTimestampCallback(NULL), CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(cuptiActivityRegisterTimestampCallback(mono_ts), CUPTI_SUCCESS);
	start_activity(kinds, 3);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	before = mono_ns();
	assert_int_equal(cudaLaunchKernel(&stub_slow, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0,
					  s),
			 cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	after = mono_ns();
	/* "Synchronize" really blocks until the simulated work's end. */
	assert_true(after - before >= KERNEL_SLOW_NS);
	assert_int_equal(cuptiGetTimestamp(&ts), CUPTI_SUCCESS);
	assert_true(ts >= after);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	assert_non_null(k);
	assert_int_equal(k->end - k->start, KERNEL_SLOW_NS);
	/* GPU times are converted from the device clock: allow the conversion's bracket. */
	assert_true(k->start + 5000 >= before && k->end <= after + 5000);
	a = api_by_corr(CUPTI_ACTIVITY_KIND_RUNTIME, k->correlationId);
	assert_non_null(a);
	assert_true(a->start >= before && a->start <= k->start);
	sy = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 0);
	assert_non_null(sy);
	assert_int_equal(sy->type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
	assert_int_equal(sy->streamId, k->streamId);
	assert_int_equal(sy->cudaEventId, CUPTI_SYNCHRONIZATION_INVALID_VALUE);
	assert_true(sy->end + 5000 >= k->end);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_stream_order_across_deliveries(void **state)
{
	DOC("(tests/sim/README.md, timing rules) work on one stream runs in order; "
	    "cudaStreamSynchronize: Blocks until stream has completed all operations.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	enum { N = 40 };
	const CUpti_ActivityKernel10 *k[N];
	cudaEvent_t ev;
	cudaStream_t s;
	size_t i;

	/* A clock of the client's: GPU times are converted to it, pass by pass. */
	assert_int_equal(cuptiActivityRegisterTimestampCallback(mono_ts), CUPTI_SUCCESS);
	start_activity(kinds, 1);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaEventCreate(&ev), cudaSuccess);
	/*
	 * Each kernel (about 320 us) is queued while the one before it runs, so
	 * the two touch on the device; the one before is then delivered in a
	 * flush of its own. Every pass must convert with the same offset.
	 */
	for (i = 0; i < N; i++) {
		assert_int_equal(cudaEventRecord(ev, s), cudaSuccess);
		assert_int_equal(cudaLaunchKernel(&stub_b, (dim3){ 10000, 1, 1 },
						  (dim3){ 1024, 1, 1 }, NULL, 0, s),
				 cudaSuccess);
		assert_int_equal(cudaEventSynchronize(ev), cudaSuccess);
		assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	}
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(cudaEventDestroy(ev), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);

	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), N);
	for (i = 0; i < N; i++) {
		k[i] = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i);
		assert_int_equal(k[i]->end - k[i]->start, 2000 + 10000 * 1024 / 32);
	}
	/* Delivered in completion order, which on one stream is issue order. */
	for (i = 1; i < N; i++) {
		if (k[i]->start < k[i - 1]->end)
			fail_msg("kernel %zu starts %llu ns before the end of kernel %zu", i,
				 (unsigned long long)(k[i - 1]->end - k[i]->start), i - 1);
		assert_true(k[i]->correlationId > k[i - 1]->correlationId);
	}
}

/* ---- host functions, host memory, profiler control, occupancy -------------- */

struct host_seen {
	uint64_t start, end;
	pid_t tid;
	int calls;
	cudaStream_t stream;
	cudaError_t status;
};

static void CUDART_CB host_fn(void *arg)
{
	struct host_seen *h = arg;

	h->start = mono_ns();
	h->tid = my_tid();
	/* Long enough that work issued behind it would overlap it if it did not wait. */
	usleep(2000);
	h->calls++;
	h->end = mono_ns();
}

static void CUDART_CB stream_cb(cudaStream_t s, cudaError_t status, void *arg)
{
	struct host_seen *h = arg;

	host_fn(arg);
	h->stream = s;
	h->status = status;
}

static void test_host_functions(void **state)
{
	DOC("cuLaunchHostFunc: Enqueues a host function to run in a stream. The function will be "
	    "called after currently enqueued work and will block work added after it.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	struct host_seen h1 = { 0 }, h2 = { 0 };
	const CUpti_ActivityKernel10 *k[3];
	cudaStream_t s;
	size_t i;

	assert_int_equal(cuptiActivityRegisterTimestampCallback(mono_ts), CUPTI_SUCCESS);
	start_activity(kinds, 2);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	launch_a(s);
	assert_int_equal(cudaLaunchHostFunc(s, host_fn, &h1), cudaSuccess);
	launch_a(s);
	/* "flags: Reserved for future use, must be 0." */
	assert_int_equal(cudaStreamAddCallback(s, stream_cb, &h2, 1), cudaErrorInvalidValue);
	assert_int_equal(cudaStreamAddCallback(s, stream_cb, &h2, 0), cudaSuccess);
	launch_a(s);
	/* "Blocks until stream has completed all operations", host functions included. */
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(h1.calls, 1);
	assert_int_equal(h2.calls, 1);
	assert_ptr_equal(h2.stream, s);
	assert_int_equal(h2.status, cudaSuccess);
	/* On a thread of the driver's, not the caller's. */
	assert_int_not_equal(h1.tid, my_tid());
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	/* CUPTI has no activity kind for a host function: the API records, and the kernels. */
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, 0));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				    CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000, 0));
	for (i = 0; i < 3; i++)
		k[i] = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, i);
	/* After the work before it (times converted: allow 1 us), and the work after waits. */
	assert_true(h1.start + 1000 >= k[0]->end);
	assert_true(k[1]->start + 1000 >= h1.end);
	assert_true(h2.start + 1000 >= k[1]->end);
	assert_true(k[2]->start + 1000 >= h2.end);
}

static void test_host_function_captured(void **state)
{
	DOC("cuStreamAddCallback: this function is not supported with ::cuStreamBeginCapture and "
	    "::cuStreamEndCapture, unlike ::cuLaunchHostFunc.");
	struct host_seen h = { 0 };
	enum cudaGraphNodeType type;
	cudaGraphNode_t node;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaGraph_t g;
	size_t n = 1;

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaLaunchHostFunc(s, host_fn, &h), cudaSuccess);
	assert_int_equal(cudaStreamAddCallback(s, stream_cb, &h, 0),
			 cudaErrorStreamCaptureUnsupported);
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
	assert_int_equal(h.calls, 0); /* captured, not run */
	assert_int_equal(cudaGraphGetNodes(g, &node, &n), cudaSuccess);
	assert_int_equal(n, 1);
	assert_int_equal(cudaGraphNodeGetType(node, &type), cudaSuccess);
	assert_int_equal(type, cudaGraphNodeTypeHost);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(h.calls, 1);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_host_register(void **state)
{
	DOC("cudaHostRegister: Page-locks the memory range specified by ptr and size and maps it "
	    "for the device(s) as specified by flags.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY };
	static char host[1 << 16];
	const CUpti_ActivityMemcpy6 *m[2];
	cudaStream_t s;
	void *dev = NULL;

	start_activity(kinds, 1);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMalloc(&dev, sizeof(host)), cudaSuccess);
	assert_int_equal(cudaHostRegister(host, sizeof(host), cudaHostRegisterDefault), cudaSuccess);
	assert_int_equal(cudaHostRegister(host + 4096, 4096, 0),
			 cudaErrorHostMemoryAlreadyRegistered);
	assert_int_equal(cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToDevice, s),
			 cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	/* "The base address must be the same one specified to cuMemHostRegister()." */
	assert_int_equal(cudaHostUnregister(host + 4096), cudaErrorHostMemoryNotRegistered);
	assert_int_equal(cudaHostUnregister(host), cudaSuccess);
	assert_int_equal(cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToDevice, s),
			 cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	m[0] = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	m[1] = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 1);
	assert_non_null(m[0]);
	assert_non_null(m[1]);
	assert_int_equal(m[0]->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
	assert_int_equal(m[1]->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
	/* Pinned copies run at 20 GB/s, pageable ones at 8 (README.md). */
	assert_int_equal(m[0]->end - m[0]->start, 1000 + sizeof(host) * 1000 / 20000);
	assert_int_equal(m[1]->end - m[1]->start, 1000 + sizeof(host) * 1000 / 8000);
}

static void test_profiler_and_occupancy(void **state)
{
	DOC("cudaProfilerStart: Enables profile collection by the active profiling tool for the "
	    "current context. If profiling is already enabled, then cudaProfilerStart() has no "
	    "effect.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_DRIVER,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	int n = -1, min_grid = 0, block = 0;
	CUfunction f = NULL;

	start_activity(kinds, 3);
	assert_int_equal(cudaProfilerStart(), cudaSuccess);
	assert_int_equal(cudaProfilerStart(), cudaSuccess);
	launch_a(NULL);
	assert_int_equal(cudaProfilerStop(), cudaSuccess);
	/* CUPTI's activity API is not what it gates: work after Stop is recorded too. */
	launch_a(NULL);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);

	/* 1024 threads and 16 blocks per SM; 32 registers a thread, 65536 per SM. */
	assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &stub_a, 256, 0),
			 cudaSuccess);
	assert_int_equal(n, 4);
	assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, &stub_a, 32, 0,
										 0),
			 cudaSuccess);
	assert_int_equal(n, 16);
	assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &stub_a, 256, 32768),
			 cudaSuccess);
	assert_int_equal(n, 2);
	assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &stub_none, 256, 0),
			 cudaErrorInvalidDeviceFunction);
	assert_int_equal(cudaGetFuncBySymbol((cudaFunction_t *)&f, &stub_a), cudaSuccess);
	assert_int_equal(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, NULL, 0, 0),
			 CUDA_SUCCESS);
	assert_int_equal(block, 1024);
	assert_int_equal(min_grid, 40); /* one 1024-thread block on each of 40 SMs */
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 2);
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, 1));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, 0));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_DRIVER,
				    CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, 0));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				    CUPTI_RUNTIME_TRACE_CBID_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000,
				    0));
}

/* ---- graphs built node by node ---------------------------------------------- */

/* The record among kinds `kind` whose graphNodeId is node, nth of them. */
static const unsigned char *rec_by_node(CUpti_ActivityKind kind, uint64_t node, size_t nth)
{
	const unsigned char *r;
	size_t i;

	for (i = 0; (r = sim_recs_find(kind, i)); i++) {
		uint64_t id;

		switch (kind) {
		case CUPTI_ACTIVITY_KIND_MEMCPY:
			id = ((const CUpti_ActivityMemcpy6 *)(const void *)r)->graphNodeId;
			break;
		case CUPTI_ACTIVITY_KIND_MEMSET:
			id = ((const CUpti_ActivityMemset4 *)(const void *)r)->graphNodeId;
			break;
		default:
			id = ((const CUpti_ActivityKernel10 *)(const void *)r)->graphNodeId;
		}
		if (id == node && nth-- == 0)
			return r;
	}
	return NULL;
}

/* The id of the executable graph's clone of graph node `orig` (GRAPHNODE_CLONED), or 0. */
static uint64_t clone_of(uint64_t orig, CUgraphExec x)
{
	size_t i;

	for (i = 0; i < G.nres; i++)
		if (G.res[i].cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && G.res[i].orig == orig &&
		    G.res[i].exec == x)
			return G.res[i].node;
	return 0;
}

static size_t count_res(CUpti_CallbackId cbid)
{
	size_t i, n = 0;

	for (i = 0; i < G.nres; i++)
		n += G.res[i].cbid == cbid;
	return n;
}

static void test_graph_nodes(void **state)
{
	DOC("graphNodeId: The unique ID of the graph node that launched this kernel through graph "
	    "launch APIs. This field will be 0 if the kernel is not launched through graph launch "
	    "APIs.");
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						    CUPTI_ACTIVITY_KIND_MEMCPY,
						    CUPTI_ACTIVITY_KIND_MEMSET };
	static char host[4096];
	struct host_seen h = { 0 }, first;
	cudaGraphNode_t n_set, n_a, n_b, n_host, n_copy, n_empty, nodes[8];
	struct cudaMemsetParams ms = { 0 };
	struct cudaKernelNodeParams kp = { 0 };
	struct cudaHostNodeParams hp = { host_fn, &h };
	cudaGraphExecUpdateResultInfo info;
	const CUpti_ActivityKernel10 *ka, *kb, *ka2;
	const CUpti_ActivityMemset4 *set;
	const CUpti_ActivityMemcpy6 *cp;
	const CUpti_ActivityAPI *gl;
	uint64_t id_a = 0, id_b = 0, id_set = 0, id_copy = 0, x_a, x_b, x_set, x_copy;
	uint32_t gid = 0;
	cudaGraph_t g, g2;
	cudaGraphExec_t x;
	cudaStream_t s;
	void *dev = NULL;
	size_t num = 0;
	CUpti_SubscriberHandle sub;

	assert_int_equal(cuptiSubscribe(&sub, on_callback, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE), CUPTI_SUCCESS);
	assert_int_equal(cuptiActivityRegisterTimestampCallback(mono_ts), CUPTI_SUCCESS);
	start_activity(kinds, 4);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMalloc(&dev, sizeof(host)), cudaSuccess);

	/* memset -> (kernel A | kernel B) -> host -> copy DtoH: a fork and a join. */
	assert_int_equal(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	ms = (struct cudaMemsetParams){ .dst = dev, .value = 7, .elementSize = 1,
					.width = sizeof(host), .height = 1 };
	assert_int_equal(cudaGraphAddMemsetNode(&n_set, g, NULL, 0, &ms), cudaSuccess);
	kp = (struct cudaKernelNodeParams){ .func = (void *)&stub_a, .gridDim = { 4, 1, 1 },
					    .blockDim = { 128, 1, 1 } };
	assert_int_equal(cudaGraphAddKernelNode(&n_a, g, &n_set, 1, &kp), cudaSuccess);
	kp.func = (void *)&stub_b;
	kp.gridDim = (dim3){ 10000, 1, 1 };
	kp.blockDim = (dim3){ 1024, 1, 1 };
	assert_int_equal(cudaGraphAddKernelNode(&n_b, g, &n_set, 1, &kp), cudaSuccess);
	assert_int_equal(cudaGraphAddHostNode(&n_host, g, NULL, 0, &hp), cudaSuccess);
	assert_int_equal(cudaGraphAddDependencies(g, (cudaGraphNode_t[]){ n_a, n_b },
						  (cudaGraphNode_t[]){ n_host, n_host }, NULL, 2),
			 cudaSuccess);
	assert_int_equal(cudaGraphAddMemcpyNode1D(&n_copy, g, &n_host, 1, host, dev, sizeof(host),
						  cudaMemcpyDeviceToHost),
			 cudaSuccess);
	/* "Removes node from its graph": an empty node, added and taken out again. */
	assert_int_equal(cudaGraphAddEmptyNode(&n_empty, g, &n_copy, 1), cudaSuccess);
	assert_int_equal(cudaGraphDestroyNode(n_empty), cudaSuccess);
	assert_int_equal(cudaGraphGetNodes(g, nodes, &(size_t){ 8 }), cudaSuccess);
	assert_int_equal(cudaGraphGetNodes(g, NULL, &num), cudaSuccess);
	assert_int_equal(num, 5);
	cuptiGetGraphNodeId(n_a, &id_a);
	cuptiGetGraphNodeId(n_b, &id_b);
	cuptiGetGraphNodeId(n_set, &id_set);
	cuptiGetGraphNodeId(n_copy, &id_copy);
	assert_int_equal(cuptiGetGraphId(g, &gid), CUPTI_SUCCESS);
	assert_int_equal(count_res(CUPTI_CBID_RESOURCE_GRAPH_CREATED), 1);
	assert_int_equal(count_res(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED), 6);
	assert_int_equal(count_res(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED), 2);
	assert_int_equal(count_res(CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING), 1);

	assert_int_equal(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagUpload),
			 cudaSuccess);
	assert_int_equal(cudaGraphUpload(x, s), cudaSuccess);
	/* The executable graph's nodes are clones, and the records carry their ids. */
	x_a = clone_of(id_a, x);
	x_b = clone_of(id_b, x);
	x_set = clone_of(id_set, x);
	x_copy = clone_of(id_copy, x);
	assert_true(x_a && x_b && x_set && x_copy);
	assert_int_not_equal(x_a, id_a);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	first = h;
	/* Kernel B four times longer, in the executable graph only. */
	kp = (struct cudaKernelNodeParams){ .func = (void *)&stub_b, .gridDim = { 40000, 1, 1 },
					    .blockDim = { 1024, 1, 1 } };
	assert_int_equal(cudaGraphExecKernelNodeSetParams(x, n_b, &kp), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(h.calls, 2);

	/* A clone with a node more no longer updates the executable graph. */
	assert_int_equal(cudaGraphClone(&g2, g), cudaSuccess);
	assert_int_equal(count_res(CUPTI_CBID_RESOURCE_GRAPH_CLONED), 1);
	assert_int_equal(cudaGraphExecUpdate(x, g2, &info), cudaSuccess);
	assert_int_equal(cudaGraphAddEmptyNode(&n_empty, g2, NULL, 0), cudaSuccess);
	assert_int_equal(cudaGraphExecUpdate(x, g2, &info), cudaErrorGraphExecUpdateFailure);
	assert_int_equal(info.result, cudaGraphExecUpdateErrorTopologyChanged);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaFree(dev), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);

	/* Two launches: every node once per launch, no more. */
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 4);
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_MEMSET), 2);
	assert_int_equal(sim_recs_count(CUPTI_ACTIVITY_KIND_MEMCPY), 2);
	ka = (const void *)rec_by_node(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, x_a, 0);
	kb = (const void *)rec_by_node(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, x_b, 0);
	set = (const void *)rec_by_node(CUPTI_ACTIVITY_KIND_MEMSET, x_set, 0);
	cp = (const void *)rec_by_node(CUPTI_ACTIVITY_KIND_MEMCPY, x_copy, 0);
	assert_true(ka && kb && set && cp);
	gl = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
			 0);
	assert_non_null(gl);
	assert_int_equal(ka->correlationId, gl->correlationId);
	assert_int_equal(set->correlationId, gl->correlationId);
	assert_int_equal(cp->correlationId, gl->correlationId);
	assert_int_equal(ka->graphId, gid);
	assert_int_equal(set->graphId, gid);
	assert_int_equal(cp->graphId, gid);
	/* Dependent nodes wait; the two branches run side by side, each on a stream of its own. */
	assert_true(ka->start >= set->end && kb->start >= set->end);
	assert_true(ka->start < kb->end && kb->start < ka->end);
	assert_int_not_equal(ka->streamId, kb->streamId);
	assert_int_equal(first.calls, 1);
	assert_true(first.start + 1000 >= kb->end);
	assert_true(cp->start + 1000 >= first.end);
	assert_int_equal(cp->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
	assert_int_equal(memchr(host, 0, sizeof(host)), NULL); /* the memset's 7s arrived */
	/* The second launch runs kernel B with the parameters set on the executable graph. */
	ka2 = (const void *)rec_by_node(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, x_b, 1);
	assert_non_null(ka2);
	assert_int_equal(ka2->gridX, 40000);
	assert_int_equal(ka2->end - ka2->start, 2000 + 40000 * 1024 / 32);
	assert_true(ka2->start >= cp->end); /* launches of one graph do not overlap */
}

static void test_events_and_errors(void **state)
{
	DOC("cudaEventElapsedTime: Computes the elapsed time between two events (in milliseconds "
	    "with a resolution of around 0.5 microseconds).");
	cudaEvent_t a, b;
	float ms = 0;
	struct cudaDeviceProp prop;
	int v = 0;

	assert_int_equal(cudaEventCreate(&a), cudaSuccess);
	assert_int_equal(cudaEventCreate(&b), cudaSuccess);
	assert_int_equal(cudaEventRecord(a, NULL), cudaSuccess);
	assert_int_equal(cudaLaunchKernel(&stub_slow, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0,
					  NULL),
			 cudaSuccess);
	assert_int_equal(cudaEventRecord(b, NULL), cudaSuccess);
	assert_int_equal(cudaEventQuery(b), cudaErrorNotReady);
	assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
	assert_int_equal(cudaEventQuery(b), cudaSuccess);
	assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
	assert_true(ms >= 20.0f && ms < 20.1f);
	assert_int_equal(cudaEventDestroy(a), cudaSuccess);
	assert_int_equal(cudaEventDestroy(b), cudaSuccess);

	assert_int_equal(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
	assert_non_null(strstr(prop.name, "simulator"));
	assert_int_equal(cudaGetDeviceProperties(&prop, 3), cudaErrorInvalidDevice);
	assert_int_equal(cudaPeekAtLastError(), cudaErrorInvalidDevice);
	assert_int_equal(cudaGetLastError(), cudaErrorInvalidDevice);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_string_equal(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
	assert_int_equal(cudaRuntimeGetVersion(&v), cudaSuccess);
	assert_int_equal(v, CUDART_VERSION);
}

#define QUEUE_DEPTH 8

static void test_launch_queue_full(void **state)
{
	DOC("(the simulator's device model, tests/sim/README.md) A stream holds at most "
	    "GPUPERF_SIM_QUEUE_DEPTH pieces of work issued and not finished; issuing more blocks "
	    "the call until the oldest has finished, as a driver whose push buffer is full.");
	cudaStream_t s;
	uint64_t t0, t1;

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	t0 = mono_ns();
	/* 2 * QUEUE_DEPTH kernels of KERNEL_A_NS: the second half waits for the first. */
	for (int i = 0; i < 2 * QUEUE_DEPTH; i++)
		assert_int_equal(cudaLaunchKernel(&stub_a, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 },
						  NULL, 0, s),
				 cudaSuccess);
	t1 = mono_ns();
	assert_true(t1 - t0 >= QUEUE_DEPTH * KERNEL_A_NS);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_get_next_record(void **state)
{
	DOC("CUPTI_ERROR_MAX_LIMIT_REACHED if no more records in the buffer");
	uint64_t buf[64] = { 0 };
	CUpti_ActivityAPI api = { .kind = CUPTI_ACTIVITY_KIND_RUNTIME };
	CUpti_Activity *r = NULL;

	memcpy(buf, &api, sizeof(api));
	assert_int_equal(cuptiActivityGetNextRecord(NULL, 0, &r), CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(cuptiActivityGetNextRecord((uint8_t *)buf, sizeof(api), &r), CUPTI_SUCCESS);
	assert_ptr_equal(r, buf);
	assert_int_equal(cuptiActivityGetNextRecord((uint8_t *)buf, sizeof(api), &r),
			 CUPTI_ERROR_MAX_LIMIT_REACHED);
	r = NULL;
	/* "CUPTI_ERROR_INVALID_KIND if activity record is either incomplete or invalid" */
	assert_int_equal(cuptiActivityGetNextRecord((uint8_t *)buf, sizeof(api) - 8, &r),
			 CUPTI_ERROR_INVALID_KIND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_subscribe_single, teardown),
		cmocka_unit_test_teardown(test_callbacks_launch, teardown),
		cmocka_unit_test_teardown(test_correlation, teardown),
		cmocka_unit_test_teardown(test_graph_correlation, teardown),
		cmocka_unit_test_teardown(test_default_clock_and_thread_id, teardown),
		cmocka_unit_test_teardown(test_worker_thread_and_late_delivery, teardown),
		cmocka_unit_test_teardown(test_full_buffers_delivered, teardown),
		cmocka_unit_test_teardown(test_backlog_while_busy, teardown),
		cmocka_unit_test_teardown(test_forced_flush_incomplete, teardown),
		cmocka_unit_test_teardown(test_drops, teardown),
		cmocka_unit_test_teardown(test_timestamp_callback, teardown),
		cmocka_unit_test_teardown(test_stream_order_across_deliveries, teardown),
		cmocka_unit_test_teardown(test_host_functions, teardown),
		cmocka_unit_test(test_host_function_captured),
		cmocka_unit_test_teardown(test_host_register, teardown),
		cmocka_unit_test_teardown(test_profiler_and_occupancy, teardown),
		cmocka_unit_test_teardown(test_graph_nodes, teardown),
		cmocka_unit_test(test_events_and_errors),
		cmocka_unit_test(test_launch_queue_full),
		cmocka_unit_test(test_get_next_record),
	};
	char rules[256];
	void **h;

	snprintf(rules, sizeof(rules), "kernelA=%llu,%s=%llu", KERNEL_A_NS, KERNEL_SLOW,
		 KERNEL_SLOW_NS);
	setenv("GPUPERF_SIM_KERNEL_NS", rules, 1);
	setenv("GPUPERF_SIM_QUEUE_DEPTH", "8", 1); /* QUEUE_DEPTH */
	h = __cudaRegisterFatBinary((void *)&stub_a);
	__cudaRegisterFunction(h, &stub_a, (char *)KERNEL_A, KERNEL_A, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterFunction(h, &stub_b, (char *)KERNEL_B, KERNEL_B, -1, NULL, NULL, NULL, NULL,
			       NULL);
	__cudaRegisterFunction(h, &stub_slow, (char *)KERNEL_SLOW, KERNEL_SLOW, -1, NULL, NULL, NULL,
			       NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
