/* SPDX-License-Identifier: Apache-2.0 */
/* Private ABI between the simulator's libcuda, libcudart and libcupti (test equipment only). */
#ifndef GPSIM_INTERNAL_H
#define GPSIM_INTERNAL_H

/*
 * libcuda.so.1 owns the simulated device: streams, the device timeline,
 * correlation ids and the API call stack of every thread. libcudart.so.13
 * and libcupti.so.13 link it and reach it through the gpsim_* functions
 * below, exported from libcuda next to the (unversioned) driver API.
 * CUPTI is a client of the driver, as in reality: it registers one hook
 * table and sees every API entry/exit and every piece of GPU work.
 *
 * All times here are CLOCK_MONOTONIC nanoseconds (the ground-truth clock);
 * CUPTI converts them to its own clock when it writes records.
 */

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>

#define GPSIM_API __attribute__((visibility("default")))

/* One traced API invocation; lives on the caller's stack. */
struct gpsim_call {
	int domain;		/* CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API */
	uint32_t cbid;		/* CUPTI_RUNTIME_TRACE_CBID_* / CUPTI_DRIVER_TRACE_CBID_* */
	const char *name;	/* exported symbol name, a global constant */
	const char *symbol;	/* kernel name for launches, else NULL */
	const void *params;	/* generated_*_meta.h params struct, or NULL */
	int ret;		/* cudaError_t or CUresult, valid at exit */
	uint32_t corr;		/* correlation id */
	uint32_t tid;		/* gettid() */
	uint64_t pthread;	/* pthread_self() */
	uint64_t start, end;	/* CLOCK_MONOTONIC ns */
	struct gpsim_call *parent;
	/* Scratch owned by the hook client (CUPTI): kept from enter to exit. */
	uint64_t hook_data[4];
	int hook_flags;
};

enum gpsim_op_kind { GPSIM_OP_KERNEL = 1, GPSIM_OP_MEMCPY, GPSIM_OP_MEMSET };

/* One piece of GPU work, reported when it is issued (its times are known). */
struct gpsim_op {
	int kind;
	uint32_t corr;		/* what GPU records carry: runtime id if any, else driver */
	uint32_t runtime_corr;	/* enclosing runtime call, 0 if none */
	uint32_t driver_corr;	/* innermost driver call */
	uint32_t tid;		/* issuing thread (gettid) */
	uint32_t device_id, context_id, stream_id;
	uint64_t issued;	/* when the API call queued it */
	uint64_t start, end;	/* CLOCK_MONOTONIC ns */
	/* kernel */
	const char *name;	/* mangled, owned by libcuda for the process lifetime */
	int32_t grid[3], block[3];
	int32_t dyn_shmem;
	int launch_type;	/* CUpti_ActivityLaunchType */
	int64_t grid_id;
	/* memcpy / memset */
	uint64_t bytes;
	int copy_kind;		/* CUpti_ActivityMemcpyKind */
	int src_kind, dst_kind;	/* CUpti_ActivityMemoryKind */
	int async;
	uint32_t value;
	/* graphs */
	uint32_t graph_id;
	uint64_t graph_node_id;
};

/* A host thread blocked on the device (cu*Synchronize, cuStreamWaitEvent). */
struct gpsim_sync {
	int type;		/* CUpti_ActivitySynchronizationType */
	uint32_t corr;
	uint32_t context_id;
	uint32_t stream_id;	/* UINT32_MAX when not applicable */
	uint32_t event_id;	/* UINT32_MAX when not applicable */
	uint64_t start, end;	/* CLOCK_MONOTONIC */
	uint64_t own_start, own_end; /* the same instants on the tracer's clock (hooks.clock) */
};

/* A graph event for CUPTI's resource domain (CUpti_GraphData's fields). */
struct gpsim_graph_ev {
	CUgraph graph, original_graph;
	CUgraphNode node, original_node;
	int node_type; /* CUgraphNodeType of node */
	CUgraphNode dependency;
	CUgraphExec exec;
};

/* A context or module event for CUPTI's resource domain. */
struct gpsim_res_ev {
	CUcontext ctx;		/* the context created or going; a module's context */
	uint32_t module_id;	/* modules: CUpti_ModuleResourceData's */
	const void *image;	/* modules: the image loaded (a copy the module keeps) */
	size_t image_size;
};

struct gpsim_hooks {
	void (*api_enter)(struct gpsim_call *call);
	void (*api_exit)(struct gpsim_call *call);
	void (*gpu_op)(const struct gpsim_op *op);
	void (*sync)(const struct gpsim_sync *sync);
	/* The primary context is about to be reset (cudaDeviceReset). */
	void (*ctx_reset)(void);
	/* The tracer's clock, read beside CLOCK_MONOTONIC for CPU-side records. */
	uint64_t (*clock)(void);
	/* A graph, node or executable graph was created, cloned, updated or is going. */
	void (*graph)(uint32_t cbid, const struct gpsim_graph_ev *ev); /* CUPTI_CBID_RESOURCE_* */
	/* A context was created or is going, a module was loaded or is going (CUPTI_CBID_RESOURCE_*). */
	void (*resource)(uint32_t cbid, const struct gpsim_res_ev *ev);
};

/* Device description shared by cudaGetDeviceProperties and CUPTI's DEVICE record. */
#define GPSIM_DEVICE_NAME "gpuperf CUDA simulator (simulated GPU)"
#define GPSIM_CC_MAJOR 7
#define GPSIM_CC_MINOR 5
#define GPSIM_SM_COUNT 40
#define GPSIM_GLOBAL_MEM (16ULL << 30)
#define GPSIM_DEVICE_ID 0
#define GPSIM_CONTEXT_ID 1
#define GPSIM_LEGACY_STREAM_ID 7
#define GPSIM_DRIVER_VERSION 13000

/*
 * An allocation, a free or a memory pool event, for CUPTI's MEMORY2 and
 * MEMORY_POOL records. Reported on the thread whose API call made it,
 * inside that call.
 */
enum gpsim_mem_op {
	GPSIM_MEM_ALLOC = 1,
	GPSIM_MEM_FREE,
	GPSIM_POOL_CREATE,
	GPSIM_POOL_DESTROY,
	GPSIM_POOL_TRIM,
};

struct gpsim_mem_ev {
	int op;			/* enum gpsim_mem_op */
	int memory_kind;	/* CUpti_ActivityMemoryKind */
	uint32_t corr;		/* the API call's: runtime id if any, else the driver call's
				 * (a graph launch's for its memory nodes) */
	uint32_t context_id;
	uint32_t stream_id;	/* UINT32_MAX when not stream ordered */
	int is_async;
	uint64_t address, bytes;
	uint64_t ts;		/* CLOCK_MONOTONIC */
	uint64_t own_ts;	/* the same instant on the tracer's clock (gpsim__stamp) */
	/* the pool: stream-ordered allocations and pool events (pool_type 0: none) */
	int pool_type;		/* CUpti_ActivityMemoryPoolType */
	int pool_managed;
	uint64_t pool_address, pool_size, pool_used, pool_release_threshold;
	uint64_t min_bytes_to_keep; /* GPSIM_POOL_TRIM */
	uint64_t graph_node_id;	/* a graph allocation or free node's (executable graph's clone), else 0 */
};

struct gpsim_mem_hooks {
	void (*mem)(const struct gpsim_mem_ev *ev);
};

/* libcuda: hooks and tracing */
GPSIM_API int gpsim_hooks_set(const struct gpsim_hooks *hooks);
GPSIM_API int gpsim_mem_hooks_set(const struct gpsim_mem_hooks *hooks);
/* CUPTI's id of a context (cuptiGetContextId); 0 for NULL. */
GPSIM_API uint32_t gpsim_ctx_id(CUcontext ctx);
GPSIM_API void gpsim_call_enter(struct gpsim_call *call, int domain, uint32_t cbid,
				const char *name, const void *params, const char *symbol);
GPSIM_API int gpsim_call_exit(struct gpsim_call *call, int ret);
GPSIM_API uint64_t gpsim_now(void);
/*
 * One instant on two clocks: clock() read between two reads of
 * CLOCK_MONOTONIC, from the narrowest of up to tries brackets (stopping
 * at one narrower than width ns), so that a preemption between the reads
 * does not set them apart. Returns the MONOTONIC midpoint, *other the
 * clock's reading.
 */
GPSIM_API uint64_t gpsim_bracket(uint64_t (*clock)(void), unsigned tries, uint64_t width,
				 uint64_t *other);
GPSIM_API uint32_t gpsim_gettid(void);
GPSIM_API uint32_t gpsim_getpid(void);
GPSIM_API void gpsim_log_line(const char *json);
/* Opens the log (GPUPERF_SIM_LOG) for a library whose first call is not the driver's. */
GPSIM_API void gpsim_log_open(void);
/* Appends @s to buf[*pos..size) as a JSON string, quoted and escaped. */
GPSIM_API void gpsim_json_str(char *buf, size_t size, size_t *pos, const char *s);
/* libcuda: kernels (CUfunction == struct CUfunc_st *) */
GPSIM_API CUfunction gpsim_func_register(const char *mangled_name);
GPSIM_API const char *gpsim_func_name(CUfunction f);
/* libcuda: streams; NULL resolves to the legacy stream */
GPSIM_API CUstream gpsim_stream_per_thread(void);
GPSIM_API uint32_t gpsim_stream_id(CUstream s);
GPSIM_API int gpsim_is_pinned(const void *p);
GPSIM_API int gpsim_is_device(const void *p);
/* Bytes of one row of array a (its Width elements), of one element; 0 if a is not an array. */
GPSIM_API size_t gpsim_array_pitch(CUarray a);
GPSIM_API size_t gpsim_array_elem(CUarray a);
GPSIM_API CUcontext gpsim_primary_ctx(void);
/* The calling thread's current context, untraced (NULL if none). */
GPSIM_API CUcontext gpsim_ctx_current(void);

/* libcuda: graph ids as CUPTI reports them (cuptiGetGraphNodeId, ...) */
GPSIM_API uint64_t gpsim_graph_node_id(CUgraphNode n);
GPSIM_API uint32_t gpsim_graph_id(CUgraph g);
GPSIM_API uint32_t gpsim_graph_exec_id(CUgraphExec x);

/* Per-thread-stream driver entry points the headers name but declare only
 * under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
				     unsigned int gz, unsigned int bx, unsigned int by,
				     unsigned int bz, unsigned int shmem, CUstream s,
				     void **params, void **extra);
/* Versioned entry points the driver's own build (__CUDA_API_VERSION_INTERNAL) leaves undeclared. */
CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					 size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec x, CUgraphNode node,
						   const CUDA_KERNEL_NODE_PARAMS *p);
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g,
				      CUgraphExecUpdateResultInfo *info);
CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from,
					   const CUgraphNode *to, const CUgraphEdgeData *edges,
					   size_t num);
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *user);
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *user,
					  unsigned int flags);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec x, CUstream h);

#endif /* GPSIM_INTERNAL_H */
