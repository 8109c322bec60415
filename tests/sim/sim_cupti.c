// SPDX-License-Identifier: Apache-2.0
/* Simulated libcupti.so.13: callback API and asynchronous activity buffers over the simulated driver. */

/*
 * How it works. At load time this library registers a hook table with the
 * simulated libcuda (CUPTI is a client of the driver). The hooks run on the
 * application's threads and do two things:
 *
 *  - issue CUpti_CallbackData ENTER/EXIT callbacks to the one subscriber;
 *  - stage activity records: API records (their timestamps are taken from
 *    the clock at the time of the call, through the timestamp callback if
 *    one is registered), GPU records (kernel/memcpy/memset) and
 *    synchronization records, whose CLOCK_MONOTONIC times are converted to
 *    CUPTI's clock only when the worker writes them out, like CUPTI's
 *    post-processing of GPU timestamps.
 *
 * A CUPTI-owned worker thread moves staged records whose work has completed
 * into client buffers, in completion order (so not issue order across
 * streams), asks the client for buffers (bufferRequested) and hands back
 * only full buffers (bufferCompleted); a partly filled buffer is delivered
 * only by cuptiActivityFlushAll (or cuptiFinalize / context reset). Without
 * a buffer, records are dropped and counted. Both client callbacks only
 * ever run on that worker thread.
 */

#include <cupti.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_deep.h"
#include "sim_internal.h"
#include "sim_nvtx.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define DEFAULT_WAKE_MS 100
/*
 * The worker also wakes once this many records are staged, so a launch-bound
 * program does not pile up a period's worth of records in the simulator:
 * real CUPTI writes records into the client's buffers as work completes.
 */
#define STAGED_WAKE 4096
#define MAX_DROP_KEYS 256

union rec {
	CUpti_Activity a;
	CUpti_ActivityAPI api;
	CUpti_ActivityKernel10 kernel;
	CUpti_ActivityMemcpy6 memcpy;
	CUpti_ActivityMemset4 memset;
	CUpti_ActivitySynchronization2 sync;
	CUpti_ActivityDevice5 device;
	CUpti_ActivityMemory4 mem;
	CUpti_ActivityMemoryPool3 pool;
	CUpti_ActivityMarker2 marker;
	CUpti_ActivityMarkerData2 marker_data;
	CUpti_ActivityName name;
};

/* A record waiting for its work to complete and for buffer space. */
struct pend {
	struct pend *next;	/* on the free list */
	uint64_t ready;		/* CLOCK_MONOTONIC ns at which it is complete */
	bool convert;		/* its timestamps are CLOCK_MONOTONIC, convert at delivery */
	uint32_t ctx_id, stream_id; /* where a drop is counted; 0/0 is the global queue */
	size_t size;
	union rec r;
};

/*
 * A staged record: its sort key beside the pointer, so that the worker
 * finds and orders the complete ones without touching the records (a
 * launch-bound program stages two a launch; chasing a list of them, and
 * dereferencing them to compare, made the worker slower than the program's
 * launches, and once behind it fell further behind).
 */
struct staged {
	uint64_t ready, seq;
	struct pend *p;
};

struct staged_vec {
	struct staged *v;
	size_t n, cap;
};

struct drop_key {
	uint32_t ctx_id, stream_id;
	size_t n;
};

struct CUpti_Subscriber_st {
	CUpti_CallbackFunc cb;
	void *userdata;
};

/* The one process-wide state CUPTI keeps (its callbacks carry no user data). */
static struct cupti {
	pthread_mutex_t lock;
	pthread_cond_t wake, flushed;
	/* callback API */
	bool subscribed;
	struct CUpti_Subscriber_st sub;
	uint8_t cb_rt[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	uint8_t cb_drv[CUPTI_DRIVER_TRACE_CBID_SIZE];
	uint8_t cb_res[CUPTI_CBID_RESOURCE_SIZE];
	uint8_t cb_nvtx[CUPTI_CBID_NVTX_SIZE];
	const char *name_rt[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	const char *name_drv[CUPTI_DRIVER_TRACE_CBID_SIZE];
	/* activity API */
	_Atomic uint64_t kinds; /* bit per CUpti_ActivityKind below 64 */
	uint8_t act_off_rt[CUPTI_RUNTIME_TRACE_CBID_SIZE];
	uint8_t act_off_drv[CUPTI_DRIVER_TRACE_CBID_SIZE];
	CUpti_BuffersCallbackRequestFunc requested;
	CUpti_BuffersCallbackCompleteFunc completed;
	_Atomic(CUpti_TimestampCallbackFunc) ts_cb;
	atomic_bool offset_stale; /* CUPTI's clock changed: mono_offset() samples again */
	atomic_int tid_type;
	atomic_int latency;
	uint64_t attrs[16];
	struct staged_vec staged; /* the worker sorts them by completion */
	uint64_t seq;
	size_t nnew;		/* staged since the worker last took them */
	/*
	 * Delivered records' pends, reused: malloc per record, freed by the
	 * worker, made the simulator's arena locks and page faults the larger
	 * part of a launch-bound program's time.
	 */
	pthread_mutex_t free_lock;
	struct pend *free_pends;
	/* worker */
	pthread_t worker;
	bool worker_running, stop;
	uint32_t period_ms;
	uint64_t flush_req, flush_done;
	bool flush_forced;
	/* drops */
	size_t drop_global;
	struct drop_key drops[MAX_DROP_KEYS];
	size_t ndrops;
	size_t buffers_given, max_buffers;
	/* the buffer being filled: touched by the worker only */
	uint8_t *buf;
	size_t buf_size, buf_used, buf_max, buf_count;
} C = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.free_lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.flushed = PTHREAD_COND_INITIALIZER,
};

static __thread bool tls_is_worker;

static bool kind_on(CUpti_ActivityKind k)
{
	return (unsigned)k < 64 && (atomic_load(&C.kinds) & (1ULL << (unsigned)k));
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CUPTI's clock now: the client's timestamp callback, else CLOCK_REALTIME. */
static uint64_t cupti_now(void)
{
	CUpti_TimestampCallbackFunc cb = atomic_load(&C.ts_cb);

	return cb ? cb() : clock_ns(CLOCK_REALTIME);
}

/* Offset from CLOCK_MONOTONIC to CUPTI's clock, read as one instant on both (gpsim_bracket). */
static int64_t mono_offset_sample(void)
{
	uint64_t c, m = gpsim_bracket(cupti_now, 20, 200, &c);

	return (int64_t)(c - m);
}

/*
 * The offset GPU times are converted with: one per clock, sampled when the
 * worker first writes records on it, so that work on one stream keeps its
 * order on CUPTI's clock. A new sample per delivery pass moved each pass by
 * its few ns of sampling error, and a kernel delivered in one pass started
 * before the end of the kernel before it, delivered in the pass before.
 * Touched by the worker only; C.offset_stale asks for a new sample.
 */
static int64_t mono_offset(void)
{
	static int64_t offset;
	static bool valid;

	if (atomic_exchange(&C.offset_stale, false) || !valid) {
		offset = mono_offset_sample();
		valid = true;
	}
	return offset;
}

static uint32_t thread_id(const struct gpsim_call *call)
{
	if (atomic_load(&C.tid_type) == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return call->tid;
	return (uint32_t)call->pthread;
}

static bool staged_reserve(struct staged_vec *s, size_t n)
{
	struct staged *v;
	size_t cap;

	if (n <= s->cap)
		return true;
	cap = s->cap ? s->cap : 4096;
	while (cap < n)
		cap *= 2;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return false;
	s->v = v;
	s->cap = cap;
	return true;
}

static void count_drop(const struct pend *p);
static void pends_free(struct pend *first, struct pend **last_next);

/* For the worker; dropped (and counted) when even the staging array cannot grow. */
static void stage(struct pend *p)
{
	bool ok;

	pthread_mutex_lock(&C.lock);
	ok = staged_reserve(&C.staged, C.staged.n + 1);
	if (ok) {
		C.staged.v[C.staged.n++] = (struct staged){ p->ready, ++C.seq, p };
		if (++C.nnew == STAGED_WAKE)
			pthread_cond_signal(&C.wake);
	}
	pthread_mutex_unlock(&C.lock);
	if (!ok) {
		count_drop(p);
		pends_free(p, &p->next);
	}
}

static struct pend *pend_new(size_t size)
{
	struct pend *p;

	pthread_mutex_lock(&C.free_lock);
	p = C.free_pends;
	if (p)
		C.free_pends = p->next;
	pthread_mutex_unlock(&C.free_lock);
	if (p)
		memset(p, 0, sizeof(*p));
	else
		p = calloc(1, sizeof(*p));
	if (p)
		p->size = size;
	return p;
}

/* A fork() while the worker returns pends must not leave the child's free list locked. */
static void free_lock_take(void)
{
	pthread_mutex_lock(&C.free_lock);
}

static void free_lock_give(void)
{
	pthread_mutex_unlock(&C.free_lock);
}

__attribute__((constructor)) static void free_lock_atfork(void)
{
	pthread_atfork(free_lock_take, free_lock_give, free_lock_give);
}

/* Back to the free list, a whole chain at once. */
static void pends_free(struct pend *first, struct pend **last_next)
{
	if (!first)
		return;
	pthread_mutex_lock(&C.free_lock);
	*last_next = C.free_pends;
	C.free_pends = first;
	pthread_mutex_unlock(&C.free_lock);
}

/* ---- hooks called by the simulated driver -------------------------------- */

#define HOOK_CB 1
#define HOOK_REC 2

static uint8_t *cb_table(int domain, uint32_t cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		return &C.cb_rt[cbid];
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		return &C.cb_drv[cbid];
	if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid < CUPTI_CBID_RESOURCE_SIZE)
		return &C.cb_res[cbid];
	if (domain == CUPTI_CB_DOMAIN_NVTX && cbid < CUPTI_CBID_NVTX_SIZE)
		return &C.cb_nvtx[cbid];
	return NULL;
}

static bool api_record_on(const struct gpsim_call *call)
{
	if (call->domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return kind_on(CUPTI_ACTIVITY_KIND_RUNTIME) &&
		       call->cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE && !C.act_off_rt[call->cbid];
	return kind_on(CUPTI_ACTIVITY_KIND_DRIVER) && call->cbid < CUPTI_DRIVER_TRACE_CBID_SIZE &&
	       !C.act_off_drv[call->cbid];
}

/* One callback, delivered from beneath CUPTI's own frames (sim_deep.h). */
struct deliver_args {
	CUpti_CallbackFunc cb;
	void *userdata;
	int domain;
	uint32_t cbid;
	const void *d;
};

static void deliver_callback(void *arg)
{
	struct deliver_args *a = arg;

	a->cb(a->userdata, (CUpti_CallbackDomain)a->domain, a->cbid, a->d);
}

/* The subscriber's callback when it has enabled (domain, cbid); NULL otherwise. */
static CUpti_CallbackFunc subscriber_of(int domain, uint32_t cbid, void **userdata)
{
	uint8_t *on = cb_table(domain, cbid);
	CUpti_CallbackFunc cb;

	pthread_mutex_lock(&C.lock);
	cb = C.subscribed && on && *on ? C.sub.cb : NULL;
	*userdata = C.sub.userdata;
	pthread_mutex_unlock(&C.lock);
	return cb;
}

/*
 * On the thread that made the call, as the call enters and as it returns:
 * "The callback is at the entry of the API call." (CUPTI_API_ENTER) and
 * "The callback is at the exit of the API call." (CUPTI_API_EXIT), with
 * "The activity record correlation ID for this callback. [...] For a
 * runtime domain callback [...] this ID will equal the correlation ID in
 * the CUpti_ActivityAPI record corresponding to the CUDA runtime function
 * call." (CUpti_CallbackData::correlationId, and the same for the driver
 * domain), so a client can key what it takes there (a stack) by the id.
 */
static void issue_callback(struct gpsim_call *call, CUpti_ApiCallbackSite site)
{
	CUpti_CallbackData d;
	CUpti_CallbackFunc cb;
	struct deliver_args a;
	void *userdata;
	CUcontext ctx;

	cb = subscriber_of(call->domain, call->cbid, &userdata);
	if (!cb)
		return;
	ctx = gpsim_ctx_current();
	memset(&d, 0, sizeof(d));
	d.callbackSite = site;
	d.functionName = call->name;
	d.functionParams = call->params;
	d.functionReturnValue = site == CUPTI_API_EXIT ? &call->ret : NULL;
	d.symbolName = call->symbol;
	d.context = ctx;
	d.contextUid = gpsim_ctx_id(ctx);
	d.correlationData = &call->hook_data[0];
	d.correlationId = call->corr;
	a = (struct deliver_args){ cb, userdata, call->domain, call->cbid, &d };
	gpsim_deep(deliver_callback, &a);
}

/*
 * "CUDA graphs data passed into a resource callback function": the
 * CUpti_ResourceData of a graph callback points to it (resourceDescriptor),
 * on the thread whose call made the graph, node or executable graph.
 */
static void hook_graph(uint32_t cbid, const struct gpsim_graph_ev *ev)
{
	CUpti_CallbackFunc cb;
	CUpti_ResourceData rd;
	CUpti_GraphData gd;
	struct deliver_args a;
	void *userdata;

	cb = subscriber_of(CUPTI_CB_DOMAIN_RESOURCE, cbid, &userdata);
	if (!cb)
		return;
	memset(&gd, 0, sizeof(gd));
	gd.graph = ev->graph;
	gd.originalGraph = ev->original_graph;
	gd.node = ev->node;
	gd.originalNode = ev->original_node;
	gd.nodeType = (CUgraphNodeType)ev->node_type;
	gd.dependency = ev->dependency;
	gd.graphExec = ev->exec;
	memset(&rd, 0, sizeof(rd));
	rd.context = gpsim_ctx_current();
	rd.resourceDescriptor = &gd;
	a = (struct deliver_args){ cb, userdata, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd };
	gpsim_deep(deliver_callback, &a);
}

/*
 * Contexts and modules: "For CUPTI_CBID_RESOURCE_CONTEXT_CREATED and
 * CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, the context being created
 * or destroyed"; a module callback's resourceDescriptor is a
 * CUpti_ModuleResourceData, "valid only within the invocation of the
 * callback function".
 */
static void hook_resource(uint32_t cbid, const struct gpsim_res_ev *ev)
{
	CUpti_CallbackFunc cb;
	CUpti_ResourceData rd;
	CUpti_ModuleResourceData md;
	struct deliver_args a;
	void *userdata;

	cb = subscriber_of(CUPTI_CB_DOMAIN_RESOURCE, cbid, &userdata);
	if (!cb)
		return;
	memset(&rd, 0, sizeof(rd));
	rd.context = ev->ctx;
	if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED ||
	    cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
		md.moduleId = ev->module_id;
		md.cubinSize = ev->image_size;
		md.pCubin = ev->image;
		rd.resourceDescriptor = &md;
	}
	a = (struct deliver_args){ cb, userdata, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd };
	gpsim_deep(deliver_callback, &a);
}

/* ---- NVTX, for sim_nvtx.c ---------------------------------------------- */

/*
 * "Data passed into a NVTX callback function as the cbdata argument to
 * CUpti_CallbackFunc. The cbdata will be this type for domain equal to
 * CUPTI_CB_DOMAIN_NVTX." (CUpti_NvtxData), once per call, on the thread
 * that made it, when the subscriber has enabled the call's callback id.
 */
void cupti__nvtx_callback(uint32_t cbid, const char *name, const void *params, const void *ret)
{
	CUpti_NvtxData d = { .functionName = name, .functionParams = params,
			     .functionReturnValue = ret };
	CUpti_CallbackFunc cb;
	struct deliver_args a;
	void *userdata;

	cb = subscriber_of(CUPTI_CB_DOMAIN_NVTX, cbid, &userdata);
	if (!cb)
		return;
	a = (struct deliver_args){ cb, userdata, CUPTI_CB_DOMAIN_NVTX, cbid, &d };
	gpsim_deep(deliver_callback, &a);
}

bool cupti__kind_on(CUpti_ActivityKind k)
{
	return kind_on(k);
}

uint64_t cupti__now(void)
{
	return cupti_now();
}

uint32_t cupti__thread_id(void)
{
	if (atomic_load(&C.tid_type) == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return gpsim_gettid();
	return (uint32_t)pthread_self();
}

/* A record whose times are on CUPTI's clock already: ready for the worker now. */
void cupti__stage_record(const void *rec, size_t size)
{
	struct pend *p;

	if (size > sizeof(p->r))
		return;
	p = pend_new(size);
	if (!p)
		return;
	memcpy(&p->r, rec, size);
	p->ready = gpsim_now();
	stage(p);
}

static void hook_api_enter(struct gpsim_call *call)
{
	uint8_t *on = cb_table(call->domain, call->cbid);

	if (on) {
		const char **names = call->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? C.name_rt :
										   C.name_drv;
		names[call->cbid] = call->name; /* for cuptiGetCallbackName */
	}
	if (C.subscribed && on && *on) {
		call->hook_flags |= HOOK_CB;
		issue_callback(call, CUPTI_API_ENTER);
	}
	if (api_record_on(call)) {
		call->hook_flags |= HOOK_REC;
		call->hook_data[1] = cupti_now();
	}
}

static void hook_api_exit(struct gpsim_call *call)
{
	/*
	 * The call has returned: its record ends here, before the exit callbacks,
	 * so a client's slow callback (or a preemption inside it) does not
	 * lengthen the function's recorded time.
	 */
	uint64_t end = cupti_now();
	struct pend *p;

	/* An exit callback only follows an enter callback of the same call. */
	if (call->hook_flags & HOOK_CB)
		issue_callback(call, CUPTI_API_EXIT);
	if (!(call->hook_flags & HOOK_REC) || !api_record_on(call))
		return;
	p = pend_new(sizeof(CUpti_ActivityAPI));
	if (!p)
		return;
	p->r.api.kind = call->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME :
								    CUPTI_ACTIVITY_KIND_DRIVER;
	p->r.api.cbid = call->cbid;
	p->r.api.start = call->hook_data[1];
	p->r.api.end = end;
	p->r.api.processId = gpsim_getpid();
	p->r.api.threadId = thread_id(call);
	p->r.api.correlationId = call->corr;
	p->r.api.returnValue = (uint32_t)call->ret;
	p->ready = gpsim_now();
	stage(p);
}

static void hook_gpu_op(const struct gpsim_op *op)
{
	struct pend *p;
	bool latency = atomic_load(&C.latency);

	if (op->kind == GPSIM_OP_KERNEL) {
		CUpti_ActivityKernel10 *k;
		CUpti_ActivityKind kind;

		if (kind_on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
			kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		else if (kind_on(CUPTI_ACTIVITY_KIND_KERNEL))
			kind = CUPTI_ACTIVITY_KIND_KERNEL;
		else
			return;
		p = pend_new(sizeof(*k));
		if (!p)
			return;
		k = &p->r.kernel;
		k->kind = kind;
		k->start = op->start;
		k->end = op->end;
		k->completed = op->end;
		k->queued = latency ? op->issued : CUPTI_TIMESTAMP_UNKNOWN;
		k->submitted = latency ? op->issued : CUPTI_TIMESTAMP_UNKNOWN;
		k->deviceId = op->device_id;
		k->contextId = op->context_id;
		k->streamId = op->stream_id;
		k->gridX = op->grid[0];
		k->gridY = op->grid[1];
		k->gridZ = op->grid[2];
		k->blockX = op->block[0];
		k->blockY = op->block[1];
		k->blockZ = op->block[2];
		k->dynamicSharedMemory = op->dyn_shmem;
		k->registersPerThread = 32;
		k->correlationId = op->corr;
		k->gridId = op->grid_id;
		k->name = op->name;
		k->launchType = (uint8_t)op->launch_type;
		k->graphId = op->graph_id;
		k->graphNodeId = op->graph_node_id;
		k->channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
	} else if (op->kind == GPSIM_OP_MEMCPY) {
		CUpti_ActivityMemcpy6 *m;

		if (!kind_on(CUPTI_ACTIVITY_KIND_MEMCPY))
			return;
		p = pend_new(sizeof(*m));
		if (!p)
			return;
		m = &p->r.memcpy;
		m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m->copyKind = (uint8_t)op->copy_kind;
		m->srcKind = (uint8_t)op->src_kind;
		m->dstKind = (uint8_t)op->dst_kind;
		m->flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
		m->bytes = op->bytes;
		m->start = op->start;
		m->end = op->end;
		m->deviceId = op->device_id;
		m->contextId = op->context_id;
		m->streamId = op->stream_id;
		m->correlationId = op->corr;
		m->runtimeCorrelationId = op->runtime_corr;
		m->graphId = op->graph_id;
		m->graphNodeId = op->graph_node_id;
		m->channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
		m->copyCount = 1;
	} else {
		CUpti_ActivityMemset4 *s;

		if (!kind_on(CUPTI_ACTIVITY_KIND_MEMSET))
			return;
		p = pend_new(sizeof(*s));
		if (!p)
			return;
		s = &p->r.memset;
		s->kind = CUPTI_ACTIVITY_KIND_MEMSET;
		s->value = op->value;
		s->bytes = op->bytes;
		s->start = op->start;
		s->end = op->end;
		s->deviceId = op->device_id;
		s->contextId = op->context_id;
		s->streamId = op->stream_id;
		s->correlationId = op->corr;
		s->flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
		s->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		s->graphId = op->graph_id;
		s->graphNodeId = op->graph_node_id;
		s->channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
	}
	p->ready = op->end;
	p->convert = true;
	p->ctx_id = op->context_id;
	p->stream_id = op->stream_id;
	stage(p);
}

static void hook_sync(const struct gpsim_sync *sy)
{
	struct pend *p;

	if (!kind_on(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
		return;
	p = pend_new(sizeof(CUpti_ActivitySynchronization2));
	if (!p)
		return;
	p->r.sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	p->r.sync.type = (CUpti_ActivitySynchronizationType)sy->type;
	/*
	 * "The start timestamp for the function, in ns." (CUpti_ActivitySynchronization2):
	 * the time of a CPU-side call, read on CUPTI's clock like an API record's,
	 * not a device time converted at delivery.
	 */
	p->r.sync.start = sy->own_start;
	p->r.sync.end = sy->own_end;
	p->r.sync.correlationId = sy->corr;
	p->r.sync.contextId = sy->context_id;
	p->r.sync.streamId = sy->stream_id;
	p->r.sync.cudaEventId = sy->event_id;
	p->r.sync.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	p->ready = sy->end;
	stage(p);
}

static CUptiResult flush_all(uint32_t flag);

static void hook_ctx_reset(void)
{
	/* A context's records are handed over before it goes away. */
	if (C.requested)
		flush_all(0);
}

static const struct gpsim_hooks cupti_hooks = {
	.api_enter = hook_api_enter,
	.api_exit = hook_api_exit,
	.gpu_op = hook_gpu_op,
	.sync = hook_sync,
	.ctx_reset = hook_ctx_reset,
	.clock = cupti_now,
	.graph = hook_graph,
	.resource = hook_resource,
};

/*
 * CUpti_ActivityMemory4 ("separate records for memory allocation and
 * memory release operations") and CUpti_ActivityMemoryPool3 ("memory pool
 * creation, destruction and trimming"), stamped on CUPTI's clock when the
 * API call makes them, with "the correlation ID in the driver and runtime
 * API activity record that launched the memory operation".
 */
static void hook_mem(const struct gpsim_mem_ev *ev)
{
	struct pend *p;

	if (ev->op == GPSIM_MEM_ALLOC || ev->op == GPSIM_MEM_FREE) {
		CUpti_ActivityMemory4 *m;

		if (!kind_on(CUPTI_ACTIVITY_KIND_MEMORY2))
			return;
		p = pend_new(sizeof(*m));
		if (!p)
			return;
		m = &p->r.mem;
		m->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
		m->memoryOperationType = ev->op == GPSIM_MEM_ALLOC ?
						 CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION :
						 CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
		m->memoryKind = (CUpti_ActivityMemoryKind)ev->memory_kind;
		m->correlationId = ev->corr;
		m->address = ev->address;
		m->bytes = ev->bytes;
		m->timestamp = ev->own_ts ? ev->own_ts : cupti_now(); /* the logged instant */
		m->processId = gpsim_getpid();
		m->deviceId = GPSIM_DEVICE_ID;
		m->contextId = ev->context_id;
		/* "If memory operation is not async, streamId is set to CUPTI_INVALID_STREAM_ID." */
		m->streamId = ev->is_async ? ev->stream_id : CUPTI_INVALID_STREAM_ID;
		m->isAsync = (uint32_t)ev->is_async;
		m->memoryPoolConfig.memoryPoolType =
			(CUpti_ActivityMemoryPoolType)(ev->pool_type ? ev->pool_type :
					CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID);
		m->memoryPoolConfig.address = ev->pool_address;
		m->memoryPoolConfig.releaseThreshold = ev->pool_release_threshold;
		m->memoryPoolConfig.pool.size = ev->pool_size;
		m->memoryPoolConfig.utilizedSize = ev->pool_used;
	} else {
		CUpti_ActivityMemoryPool3 *m;

		if (!kind_on(CUPTI_ACTIVITY_KIND_MEMORY_POOL))
			return;
		p = pend_new(sizeof(*m));
		if (!p)
			return;
		m = &p->r.pool;
		m->kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
		m->memoryPoolOperationType =
			ev->op == GPSIM_POOL_CREATE ? CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED :
			ev->op == GPSIM_POOL_DESTROY ? CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED :
						       CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
		m->memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
		m->correlationId = ev->corr;
		m->processId = gpsim_getpid();
		m->deviceId = GPSIM_DEVICE_ID;
		m->minBytesToKeep = (size_t)ev->min_bytes_to_keep;
		m->address = ev->pool_address;
		m->size = ev->pool_size;
		m->releaseThreshold = ev->pool_release_threshold;
		m->timestamp = ev->own_ts ? ev->own_ts : cupti_now(); /* the logged instant */
		m->utilizedSize = ev->pool_used;
		m->isManagedPool = (uint8_t)ev->pool_managed;
	}
	p->ready = gpsim_now();
	stage(p);
}

static const struct gpsim_mem_hooks cupti_mem_hooks = {
	.mem = hook_mem,
};

__attribute__((constructor)) static void cupti_attach(void)
{
	gpsim_hooks_set(&cupti_hooks);
	gpsim_mem_hooks_set(&cupti_mem_hooks);
}

/* ---- the worker ------------------------------------------------------------ */

static void count_drop_locked(const struct pend *p)
{
	size_t i;

	C.drop_global++;
	if (p->ctx_id) {
		for (i = 0; i < C.ndrops; i++)
			if (C.drops[i].ctx_id == p->ctx_id && C.drops[i].stream_id == p->stream_id)
				break;
		if (i == C.ndrops && C.ndrops < MAX_DROP_KEYS) {
			C.drops[i] = (struct drop_key){ p->ctx_id, p->stream_id, 0 };
			C.ndrops++;
		}
		if (i < C.ndrops)
			C.drops[i].n++;
	}
}

static void count_drop(const struct pend *p)
{
	pthread_mutex_lock(&C.lock);
	count_drop_locked(p);
	pthread_mutex_unlock(&C.lock);
}

static void complete_buffer(void)
{
	uint8_t *buf = C.buf;

	if (!buf)
		return;
	C.buf = NULL;
	C.completed(NULL, 0, buf, C.buf_size, C.buf_used);
}

/* Asks the client for a buffer; false when it gives none we can use. */
static bool request_buffer(void)
{
	uint8_t *buf = NULL;
	size_t size = 0, max = 0;
	bool limited;

	pthread_mutex_lock(&C.lock);
	limited = C.max_buffers && C.buffers_given >= C.max_buffers;
	if (!limited)
		C.buffers_given++;
	pthread_mutex_unlock(&C.lock);
	if (limited)
		return false;
	C.requested(&buf, &size, &max);
	/* Records are 8-byte aligned structs; an unaligned buffer cannot hold them. */
	if (!buf || !size || ((uintptr_t)buf & 7))
		return false;
	C.buf = buf;
	C.buf_size = size;
	C.buf_used = 0;
	C.buf_count = 0;
	C.buf_max = max;
	return true;
}

static void deliver(struct pend *p, int64_t offset, uint64_t now, bool *declined)
{
	size_t need = ALIGN8(p->size);

	if (p->convert) {
		/* Incomplete work in a forced flush has no timestamps (0), as documented. */
		bool done = p->ready <= now;
		uint64_t *ts[3] = { NULL, NULL, NULL };
		int i;

		switch (p->r.a.kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
			ts[0] = &p->r.kernel.start;
			ts[1] = &p->r.kernel.end;
			ts[2] = &p->r.kernel.completed;
			if (p->r.kernel.queued) {
				p->r.kernel.queued = (uint64_t)((int64_t)p->r.kernel.queued + offset);
				p->r.kernel.submitted = p->r.kernel.queued;
			}
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY:
			ts[0] = &p->r.memcpy.start;
			ts[1] = &p->r.memcpy.end;
			break;
		case CUPTI_ACTIVITY_KIND_MEMSET:
			ts[0] = &p->r.memset.start;
			ts[1] = &p->r.memset.end;
			break;
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			ts[0] = &p->r.sync.start;
			ts[1] = &p->r.sync.end;
			break;
		default:
			break;
		}
		for (i = 0; i < 3; i++)
			if (ts[i])
				*ts[i] = done ? (uint64_t)((int64_t)*ts[i] + offset) : 0;
	}
	if (C.buf && (C.buf_used + need > C.buf_size || (C.buf_max && C.buf_count >= C.buf_max)))
		complete_buffer();
	if (!C.buf && !*declined && !request_buffer())
		*declined = true; /* do not ask again for every record of this pass */
	if (!C.buf || C.buf_used + need > C.buf_size) {
		count_drop(p);
		return;
	}
	memcpy(C.buf + C.buf_used, &p->r, p->size);
	if (need > p->size)
		memset(C.buf + C.buf_used + p->size, 0, need - p->size);
	C.buf_used += need;
	C.buf_count++;
}

static int staged_cmp(const void *a, const void *b)
{
	const struct staged *x = a, *y = b;

	if (x->ready != y->ready)
		return x->ready < y->ready ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Takes the complete records (all, if forced) off the staging array and
 * returns them sorted by completion, in an array that the worker hands back
 * through *spare when it is done with them. Called with the lock held and
 * returns with it held, but sorts without it: the application's threads
 * stage a record per API call and GPU operation, and must not wait while
 * the worker goes through a long backlog.
 */
static struct staged_vec take_ready(struct staged_vec *spare, uint64_t now, bool forced)
{
	struct staged_vec all = C.staged;
	size_t i, n = 0, nkeep;
	bool sorted = true;

	C.staged = *spare;
	C.staged.n = 0;
	C.nnew = 0;
	*spare = (struct staged_vec){ NULL, 0, 0 };
	pthread_mutex_unlock(&C.lock);
	/* The complete ones to the front, in the array's order; the rest after them. */
	for (i = 0; i < all.n; i++) {
		struct staged t = all.v[i];

		if (!forced && t.ready > now)
			continue;
		if (n && staged_cmp(&all.v[n - 1], &t) > 0)
			sorted = false;
		all.v[i] = all.v[n];
		all.v[n++] = t;
	}
	if (!sorted)
		qsort(all.v, n, sizeof(*all.v), staged_cmp);
	nkeep = all.n - n;
	pthread_mutex_lock(&C.lock);
	/* What is not complete is staged again (the order does not matter: it is sorted when taken). */
	if (nkeep && staged_reserve(&C.staged, C.staged.n + nkeep)) {
		memcpy(C.staged.v + C.staged.n, all.v + n, nkeep * sizeof(*all.v));
		C.staged.n += nkeep;
	} else {
		for (i = n; i < all.n; i++) {
			count_drop_locked(all.v[i].p);
			pends_free(all.v[i].p, &all.v[i].p->next);
		}
	}
	all.n = n;
	return all;
}

static void *worker_main(void *arg)
{
	struct staged_vec spare = { NULL, 0, 0 };

	tls_is_worker = true;
	pthread_mutex_lock(&C.lock);
	while (!C.stop) {
		struct staged_vec ready;
		uint64_t gen, now;
		bool forced, declined = false;
		int64_t offset;
		size_t i;

		/*
		 * Records staged while the worker was busy may already be past the
		 * wake-up mark, whose signal then went to no one: not waiting for
		 * them is what keeps a launch-bound program's backlog bounded.
		 */
		if (C.flush_req == C.flush_done && C.nnew < STAGED_WAKE) {
			uint32_t ms = C.period_ms ? C.period_ms : DEFAULT_WAKE_MS;
			struct timespec ts;
			uint64_t t;

			clock_gettime(CLOCK_REALTIME, &ts);
			t = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000ULL;
			ts.tv_sec += (time_t)(t / 1000000000ULL);
			ts.tv_nsec = (long)(t % 1000000000ULL);
			pthread_cond_timedwait(&C.wake, &C.lock, &ts);
		}
		gen = C.flush_req;
		forced = C.flush_forced;
		C.flush_forced = false;
		now = gpsim_now();
		ready = take_ready(&spare, now, forced && gen != C.flush_done);
		pthread_mutex_unlock(&C.lock);

		/* Client callbacks run without our lock held. */
		offset = ready.n ? mono_offset() : 0;
		for (i = 0; i < ready.n; i++) {
			struct pend *p = ready.v[i].p;

			if (C.requested)
				deliver(p, offset, now, &declined);
			p->next = i + 1 < ready.n ? ready.v[i + 1].p : NULL;
		}
		if (ready.n)
			pends_free(ready.v[0].p, &ready.v[ready.n - 1].p->next);
		ready.n = 0;
		spare = ready;
		if (gen != C.flush_done && C.buf && C.buf_used)
			complete_buffer();

		pthread_mutex_lock(&C.lock);
		C.flush_done = gen;
		pthread_cond_broadcast(&C.flushed);
	}
	pthread_mutex_unlock(&C.lock);
	free(spare.v);
	return NULL;
}

static void worker_stop(void);

/*
 * The worker is shut down at exit (records not flushed by then are not
 * delivered, as with real CUPTI); a client flushing later restarts it.
 * Registered after the client's own setup, so it runs before checkers such
 * as LeakSanitizer that cannot cope with a thread parked in a condvar.
 */
static void worker_exit(void)
{
	worker_stop();
}

static CUptiResult worker_start_locked(void)
{
	static bool exit_hook;

	if (C.worker_running)
		return CUPTI_SUCCESS;
	if (pthread_create(&C.worker, NULL, worker_main, NULL))
		return CUPTI_ERROR_UNKNOWN;
	C.worker_running = true;
	if (!exit_hook) {
		exit_hook = true;
		atexit(worker_exit);
	}
	return CUPTI_SUCCESS;
}

static CUptiResult flush_all(uint32_t flag)
{
	uint64_t gen;

	pthread_mutex_lock(&C.lock);
	if (!C.requested || worker_start_locked() != CUPTI_SUCCESS) {
		pthread_mutex_unlock(&C.lock);
		return CUPTI_ERROR_INVALID_OPERATION;
	}
	gen = ++C.flush_req;
	if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
		C.flush_forced = true;
	pthread_cond_broadcast(&C.wake);
	/* From inside a buffer callback the worker cannot wait for itself. */
	while (!tls_is_worker && C.flush_done < gen && C.worker_running)
		pthread_cond_wait(&C.flushed, &C.lock);
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

static void worker_stop(void)
{
	bool join;

	pthread_mutex_lock(&C.lock);
	join = C.worker_running && !tls_is_worker;
	if (join) {
		C.stop = true;
		pthread_cond_broadcast(&C.wake);
	}
	pthread_mutex_unlock(&C.lock);
	if (!join)
		return;
	pthread_join(C.worker, NULL);
	pthread_mutex_lock(&C.lock);
	C.worker_running = false;
	C.stop = false;
	pthread_cond_broadcast(&C.flushed);
	pthread_mutex_unlock(&C.lock);
}

/* ---- API ----------------------------------------------------------------- */

#pragma GCC visibility push(default)

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	if (!version)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSupportedDomains(size_t *count, CUpti_DomainTable *table)
{
	static CUpti_CallbackDomain domains[] = { CUPTI_CB_DOMAIN_DRIVER_API,
						  CUPTI_CB_DOMAIN_RUNTIME_API,
						  CUPTI_CB_DOMAIN_RESOURCE,
						  CUPTI_CB_DOMAIN_NVTX };

	if (!count || !table)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*count = 4;
	*table = domains;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
				    void *userdata)
{
	if (!subscriber)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&C.lock);
	if (C.subscribed) {
		pthread_mutex_unlock(&C.lock);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	C.subscribed = true;
	C.sub.cb = callback;
	C.sub.userdata = userdata;
	/* "This function does not enable any callbacks." */
	memset(C.cb_rt, 0, sizeof(C.cb_rt));
	memset(C.cb_drv, 0, sizeof(C.cb_drv));
	memset(C.cb_res, 0, sizeof(C.cb_res));
	memset(C.cb_nvtx, 0, sizeof(C.cb_nvtx));
	*subscriber = &C.sub;
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
				       CUpti_CallbackFunc callback, void *userdata,
				       CUpti_SubscriberParams *params)
{
	CUptiResult r;

	if (params && !params->structSize)
		return CUPTI_ERROR_INVALID_PARAMETER;
	r = cuptiSubscribe(subscriber, callback, userdata);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params &&
	    params->oldSubscriberName && params->oldSubscriberSize)
		strncpy(params->oldSubscriberName, "CUPTI for an earlier subscriber",
			params->oldSubscriberSize - 1);
	return r;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	CUptiResult r = CUPTI_SUCCESS;

	pthread_mutex_lock(&C.lock);
	if (!subscriber || subscriber != &C.sub || !C.subscribed)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	else
		C.subscribed = false;
	pthread_mutex_unlock(&C.lock);
	return r;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	uint8_t *on;

	if (!subscriber || subscriber != &C.sub || !C.subscribed)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (domain <= CUPTI_CB_DOMAIN_INVALID || domain >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	on = cb_table(domain, cbid);
	if (!on) {
		/* Other domains are accepted but never fire in the simulator. */
		if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API ||
		    domain == CUPTI_CB_DOMAIN_RESOURCE || domain == CUPTI_CB_DOMAIN_NVTX)
			return CUPTI_ERROR_INVALID_PARAMETER;
		return CUPTI_SUCCESS;
	}
	pthread_mutex_lock(&C.lock);
	*on = enable ? 1 : 0;
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
				       CUpti_CallbackDomain domain)
{
	if (!subscriber || subscriber != &C.sub || !C.subscribed)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (domain <= CUPTI_CB_DOMAIN_INVALID || domain >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&C.lock);
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		memset(C.cb_rt, enable ? 1 : 0, sizeof(C.cb_rt));
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		memset(C.cb_drv, enable ? 1 : 0, sizeof(C.cb_drv));
	else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
		memset(C.cb_res, enable ? 1 : 0, sizeof(C.cb_res));
	else if (domain == CUPTI_CB_DOMAIN_NVTX)
		memset(C.cb_nvtx, enable ? 1 : 0, sizeof(C.cb_nvtx));
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber)
{
	CUptiResult r = cuptiEnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);

	if (!r)
		r = cuptiEnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	if (!r)
		r = cuptiEnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_NVTX);
	return r ? r : cuptiEnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
}

CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber,
					   CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	uint8_t *on = cb_table(domain, cbid);

	if (!enable || !subscriber || subscriber != &C.sub || !on)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*enable = *on;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
					  const char **name)
{
	if (!name)
		return CUPTI_ERROR_INVALID_PARAMETER;
	/* Names are known for the calls the simulator has made so far. */
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		*name = C.name_rt[cbid];
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		*name = C.name_drv[cbid];
	else
		*name = NULL;
	return *name ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*timestamp = cupti_now();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *id)
{
	if (!context || !id)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = gpsim_ctx_id(context);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
					uint32_t *id)
{
	if (!id)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = gpsim_stream_id(!stream && per_thread ? gpsim_stream_per_thread() : stream);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t *id)
{
	return cuptiGetStreamIdEx(context, stream, 0, id);
}

/* "Returns the unique ID of the CUDA graph node." (the graphNodeId activity records carry) */
CUptiResult CUPTIAPI cuptiGetGraphNodeId(CUgraphNode node, uint64_t *nodeId)
{
	if (!node || !nodeId)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*nodeId = gpsim_graph_node_id(node);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphId(CUgraph graph, uint32_t *pId)
{
	if (!graph || !pId)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*pId = gpsim_graph_id(graph);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphExecId(CUgraphExec graphExec, uint32_t *pId)
{
	if (!graphExec || !pId)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*pId = gpsim_graph_exec_id(graphExec);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *id)
{
	if (!id)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = GPSIM_DEVICE_ID;
	return CUPTI_SUCCESS;
}

static void stage_device_record(void)
{
	struct pend *p = pend_new(sizeof(CUpti_ActivityDevice5));
	CUpti_ActivityDevice5 *d;

	if (!p)
		return;
	d = &p->r.device;
	d->kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d->globalMemoryBandwidth = 320ULL * 1000 * 1000; /* KB/s */
	d->globalMemorySize = GPSIM_GLOBAL_MEM;
	d->constantMemorySize = 65536;
	d->l2CacheSize = 4 << 20;
	d->numThreadsPerWarp = 32;
	d->coreClockRate = 1500000;
	d->numMemcpyEngines = 2;
	d->numMultiprocessors = GPSIM_SM_COUNT;
	d->maxIPC = 4;
	d->maxWarpsPerMultiprocessor = 32;
	d->maxBlocksPerMultiprocessor = 16;
	d->maxSharedMemoryPerMultiprocessor = 65536;
	d->maxRegistersPerMultiprocessor = 65536;
	d->maxRegistersPerBlock = 65536;
	d->maxSharedMemoryPerBlock = 49152;
	d->maxThreadsPerBlock = 1024;
	d->maxBlockDimX = 1024;
	d->maxBlockDimY = 1024;
	d->maxBlockDimZ = 64;
	d->maxGridDimX = 2147483647;
	d->maxGridDimY = 65535;
	d->maxGridDimZ = 65535;
	d->computeCapabilityMajor = GPSIM_CC_MAJOR;
	d->computeCapabilityMinor = GPSIM_CC_MINOR;
	d->id = GPSIM_DEVICE_ID;
	d->name = GPSIM_DEVICE_NAME;
	d->isCudaVisible = 1;
	p->ready = gpsim_now();
	stage(p);
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	uint64_t old;

	if ((unsigned)kind == 0 || kind >= CUPTI_ACTIVITY_KIND_COUNT || (unsigned)kind >= 64)
		return CUPTI_ERROR_INVALID_KIND;
	/* Kinds the simulator does not produce are accepted and stay silent (README). */
	old = atomic_fetch_or(&C.kinds, 1ULL << (unsigned)kind);
	if (kind == CUPTI_ACTIVITY_KIND_DEVICE && !(old & (1ULL << (unsigned)kind)))
		stage_device_record();
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableAndDump(CUpti_ActivityKind kind)
{
	return cuptiActivityEnable(kind);
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if ((unsigned)kind == 0 || kind >= CUPTI_ACTIVITY_KIND_COUNT || (unsigned)kind >= 64)
		return CUPTI_ERROR_INVALID_KIND;
	atomic_fetch_and(&C.kinds, ~(1ULL << (unsigned)kind));
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableContext(CUcontext context, CUpti_ActivityKind kind)
{
	return cuptiActivityEnable(kind);
}

CUptiResult CUPTIAPI cuptiActivityDisableContext(CUcontext context, CUpti_ActivityKind kind)
{
	return cuptiActivityDisable(kind);
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	if (cbid >= CUPTI_DRIVER_TRACE_CBID_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	C.act_off_drv[cbid] = !enable;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	if (cbid >= CUPTI_RUNTIME_TRACE_CBID_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	C.act_off_rt[cbid] = !enable;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
	atomic_store(&C.latency, enable ? 1 : 0);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableLaunchAttributes(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableAllSyncRecords(uint8_t enable)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						    CUpti_BuffersCallbackCompleteFunc comp)
{
	CUptiResult r;
	const char *limit = getenv("GPUPERF_SIM_CUPTI_MAX_BUFFERS");

	if (!req || !comp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&C.lock);
	C.requested = req;
	C.completed = comp;
	if (limit && *limit)
		C.max_buffers = strtoull(limit, NULL, 10);
	r = worker_start_locked();
	pthread_mutex_unlock(&C.lock);
	return r;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
						CUpti_Activity **record)
{
	size_t off, size;
	CUpti_ActivityKind kind;

	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (*record) {
		switch ((*record)->kind) {
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER: size = sizeof(CUpti_ActivityAPI); break;
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: size = sizeof(CUpti_ActivityKernel10); break;
		case CUPTI_ACTIVITY_KIND_MEMCPY: size = sizeof(CUpti_ActivityMemcpy6); break;
		case CUPTI_ACTIVITY_KIND_MEMSET: size = sizeof(CUpti_ActivityMemset4); break;
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			size = sizeof(CUpti_ActivitySynchronization2);
			break;
		case CUPTI_ACTIVITY_KIND_DEVICE: size = sizeof(CUpti_ActivityDevice5); break;
		case CUPTI_ACTIVITY_KIND_MEMORY2: size = sizeof(CUpti_ActivityMemory4); break;
		case CUPTI_ACTIVITY_KIND_MEMORY_POOL: size = sizeof(CUpti_ActivityMemoryPool3); break;
		case CUPTI_ACTIVITY_KIND_MARKER: size = sizeof(CUpti_ActivityMarker2); break;
		case CUPTI_ACTIVITY_KIND_MARKER_DATA: size = sizeof(CUpti_ActivityMarkerData2); break;
		case CUPTI_ACTIVITY_KIND_NAME: size = sizeof(CUpti_ActivityName); break;
		default: return CUPTI_ERROR_INVALID_KIND;
		}
		off = (size_t)((uint8_t *)*record - buffer) + ALIGN8(size);
	} else {
		off = 0;
	}
	if (off + sizeof(CUpti_Activity) > valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	memcpy(&kind, buffer + off, sizeof(kind));
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: size = sizeof(CUpti_ActivityAPI); break;
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: size = sizeof(CUpti_ActivityKernel10); break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: size = sizeof(CUpti_ActivityMemcpy6); break;
	case CUPTI_ACTIVITY_KIND_MEMSET: size = sizeof(CUpti_ActivityMemset4); break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: size = sizeof(CUpti_ActivitySynchronization2); break;
	case CUPTI_ACTIVITY_KIND_DEVICE: size = sizeof(CUpti_ActivityDevice5); break;
	case CUPTI_ACTIVITY_KIND_MEMORY2: size = sizeof(CUpti_ActivityMemory4); break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL: size = sizeof(CUpti_ActivityMemoryPool3); break;
	case CUPTI_ACTIVITY_KIND_MARKER: size = sizeof(CUpti_ActivityMarker2); break;
	case CUPTI_ACTIVITY_KIND_MARKER_DATA: size = sizeof(CUpti_ActivityMarkerData2); break;
	case CUPTI_ACTIVITY_KIND_NAME: size = sizeof(CUpti_ActivityName); break;
	default: return CUPTI_ERROR_INVALID_KIND;
	}
	if (off + size > valid)
		return CUPTI_ERROR_INVALID_KIND;
	*record = (CUpti_Activity *)(void *)(buffer + off);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	return flush_all(flag);
}

CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext context, uint32_t streamId, uint32_t flag)
{
	/* Deprecated: "CONTEXT and STREAMID will be ignored." */
	return flush_all(flag);
}

CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time)
{
	pthread_mutex_lock(&C.lock);
	C.period_ms = time;
	pthread_cond_broadcast(&C.wake);
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
						       size_t *dropped)
{
	size_t i;

	if (!dropped)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&C.lock);
	if (!context) {
		*dropped = C.drop_global;
		C.drop_global = 0;
	} else {
		*dropped = 0;
		for (i = 0; i < C.ndrops; i++) {
			if (C.drops[i].ctx_id == GPSIM_CONTEXT_ID && C.drops[i].stream_id == streamId) {
				*dropped = C.drops[i].n;
				C.drops[i].n = 0;
			}
		}
	}
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc func)
{
	if (!func)
		return CUPTI_ERROR_INVALID_PARAMETER;
	atomic_store(&C.ts_cb, func);
	atomic_store(&C.offset_stale, true);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetAttribute(CUpti_ActivityAttribute attr, size_t *size,
					       void *value)
{
	if (!size || !value || (unsigned)attr >= 16 || *size < sizeof(uint64_t))
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&C.lock);
	memcpy(value, &C.attrs[attr], sizeof(uint64_t));
	pthread_mutex_unlock(&C.lock);
	*size = sizeof(uint64_t);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size,
					       void *value)
{
	uint64_t v = 0;

	if (!size || !value || (unsigned)attr >= 16 || !*size || *size > sizeof(v))
		return CUPTI_ERROR_INVALID_PARAMETER;
	/* Device-buffer attributes have nothing to size in the simulator; kept for Get. */
	memcpy(&v, value, *size);
	pthread_mutex_lock(&C.lock);
	C.attrs[attr] = v;
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							    uint64_t id)
{
	return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							   uint64_t *lastId)
{
	return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
	    type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return CUPTI_ERROR_NOT_SUPPORTED;
	atomic_store(&C.tid_type, (int)type);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType *type)
{
	if (!type)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*type = (CUpti_ActivityThreadIdType)atomic_load(&C.tid_type);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetLastError(void)
{
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiFinalize(void)
{
	/* Detach: deliver everything, then stop calling the client. */
	if (C.requested && C.worker_running)
		flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	worker_stop();
	pthread_mutex_lock(&C.lock);
	atomic_store(&C.kinds, 0);
	C.subscribed = false;
	pthread_mutex_unlock(&C.lock);
	return CUPTI_SUCCESS;
}

static const struct {
	CUptiResult r;
	const char *s;
} results[] = {
#define R(x) { x, #x }
	R(CUPTI_SUCCESS),
	R(CUPTI_ERROR_INVALID_PARAMETER),
	R(CUPTI_ERROR_INVALID_DEVICE),
	R(CUPTI_ERROR_INVALID_CONTEXT),
	R(CUPTI_ERROR_INVALID_OPERATION),
	R(CUPTI_ERROR_OUT_OF_MEMORY),
	R(CUPTI_ERROR_API_NOT_IMPLEMENTED),
	R(CUPTI_ERROR_MAX_LIMIT_REACHED),
	R(CUPTI_ERROR_NOT_READY),
	R(CUPTI_ERROR_NOT_COMPATIBLE),
	R(CUPTI_ERROR_NOT_INITIALIZED),
	R(CUPTI_ERROR_QUEUE_EMPTY),
	R(CUPTI_ERROR_INVALID_HANDLE),
	R(CUPTI_ERROR_INVALID_STREAM),
	R(CUPTI_ERROR_INVALID_KIND),
	R(CUPTI_ERROR_DISABLED),
	R(CUPTI_ERROR_NOT_SUPPORTED),
	R(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
	R(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
	R(CUPTI_ERROR_UNKNOWN),
#undef R
};

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	size_t i;

	if (!str)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (i = 0; i < sizeof(results) / sizeof(results[0]); i++) {
		if (results[i].r == result) {
			*str = results[i].s;
			return CUPTI_SUCCESS;
		}
	}
	*str = NULL;
	return CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiGetErrorMessage(CUptiResult result, const char **str)
{
	return cuptiGetResultString(result, str);
}

#pragma GCC visibility pop
