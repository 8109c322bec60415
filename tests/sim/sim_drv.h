/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the simulated libcuda.so.1: what its source files share (never exported). */
#ifndef GPSIM_DRV_H
#define GPSIM_DRV_H

/*
 * sim_cuda.c keeps the device (streams, timeline, tracing); sim_ctx.c the
 * contexts, sim_mem.c stream-ordered and managed memory, sim_module.c
 * module images. They meet through these hidden functions, so that none
 * of them is an export of libcuda.
 */

#include <stdint.h>
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>

#include "sim_internal.h"

#define GPSIM_HIDDEN __attribute__((visibility("hidden")))

/* A context: the primary one (id GPSIM_CONTEXT_ID) or one of cuCtxCreate's. */
struct CUctx_st {
	uint32_t id;
	int created; /* by cuCtxCreate; the primary context is not */
	int dead;    /* cuCtxDestroy'ed: kept, so a stale handle is still recognized */
	struct CUctx_st *next; /* every created context, dead or alive */
	/* cuCtxSetLimit: the values set (limit_set), else each limit's default */
	size_t limit[CU_LIMIT_MAX];
	unsigned char limit_set[CU_LIMIT_MAX];
	unsigned int flags;	/* cuCtxCreate's, cuCtxSetFlags, cuDevicePrimaryCtxSetFlags */
	CUfunc_cache cache;	/* cuCtxSetCacheConfig */
};

/* sim_cuda.c */
GPSIM_HIDDEN struct CUstream_st *gpsim__stream(CUstream h);
/* When work issued to s now could start at the earliest (its queue, legacy barriers). */
GPSIM_HIDDEN uint64_t gpsim__stream_dep(struct CUstream_st *s);
/* Work issued to s does not start before t (a stream-ordered operation with no GPU record). */
GPSIM_HIDDEN void gpsim__stream_after(struct CUstream_st *s, uint64_t t);
/* Zeroed device memory that is no allocation of the program's (a module's globals): no MEMORY2 record. */
GPSIM_HIDDEN void *gpsim__static_alloc(size_t size);
GPSIM_HIDDEN void gpsim__static_free(void *p);
GPSIM_HIDDEN uint32_t gpsim__stream_id(struct CUstream_st *s);
GPSIM_HIDDEN int gpsim__stream_capturing(struct CUstream_st *s);
/* The ids records of work issued now carry (runtime call's id if any, else the driver call's). */
GPSIM_HIDDEN uint32_t gpsim__corr(void);
/*
 * A CPU-side instant on both clocks: CLOCK_MONOTONIC (returned, for the log)
 * and the tracer's (*own; 0 without one), read so that they agree.
 */
GPSIM_HIDDEN uint64_t gpsim__stamp(uint64_t *own);
GPSIM_HIDDEN int gpsim__inited(void);
GPSIM_HIDDEN void gpsim__wait_until(uint64_t t);
/* All work issued so far has finished by this time. */
GPSIM_HIDDEN uint64_t gpsim__device_ready(void);
GPSIM_HIDDEN CUcontext gpsim__primary(void);
GPSIM_HIDDEN int gpsim__primary_alive(void);
/* Tells CUPTI a context goes away (its records are delivered first). */
GPSIM_HIDDEN void gpsim__ctx_going(void);
/* Delivers a resource-domain event (CUPTI_CBID_RESOURCE_*) to the hook client. */
GPSIM_HIDDEN void gpsim__resource(uint32_t cbid, const struct gpsim_res_ev *ev);

/* sim_ctx.c: the calling thread's context stack */
GPSIM_HIDDEN CUcontext gpsim__ctx_top(void);
GPSIM_HIDDEN void gpsim__ctx_bind_primary(void);
GPSIM_HIDDEN int gpsim__ctx_usable(CUcontext c);
GPSIM_HIDDEN uint32_t gpsim__ctx_id(CUcontext c);

/* sim_cuda.c: [p, p + size) is device memory mapped by the program (cuMemMap); 0 or -EINVAL (overlap). */
GPSIM_HIDDEN int gpsim__mem_track(void *p, size_t size);
/*
 * IPC (sim_ipc.c). A page another process can map: its memfd in *fd, the
 * page zeroed; NULL on failure. _put unmaps it and closes fd (>= 0).
 */
GPSIM_HIDDEN _Atomic uint64_t *gpsim__ipc_page(int *fd);
GPSIM_HIDDEN void gpsim__ipc_page_put(_Atomic uint64_t *page, int fd);
/* The memfd of an interprocess event's page (-1: not an interprocess event). */
GPSIM_HIDDEN int gpsim__event_shared_fd(CUevent e);
GPSIM_HIDDEN CUresult gpsim__event_import(CUevent *pe, _Atomic uint64_t *page);
/*
 * The device allocation based at p as a memfd another process can map
 * (made shared on the first call): its fd and size. CUDA_ERROR_INVALID_VALUE
 * when p is no cuMemAlloc base.
 */
GPSIM_HIDDEN CUresult gpsim__mem_export(CUdeviceptr p, int *fd, size_t *size);
GPSIM_HIDDEN void gpsim__mem_untrack(const void *p);
/* sim_cuda.c: h is an array (cuArrayCreate), and *flags its CUDA_ARRAY3D_* flags (NULL: not wanted). */
GPSIM_HIDDEN int gpsim__array_ok(CUarray h, unsigned int *flags);

/* sim_module.c: a whole file into memory, NUL-terminated; *size its bytes (NULL: not wanted). */
GPSIM_HIDDEN CUresult gpsim__read_image(const char *path, char **out, size_t *size);

/* sim_mem.c */
/* CUpti_ActivityMemoryKind of p if sim_mem.c owns it, else CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN. */
GPSIM_HIDDEN int gpsim__mem_kind(const void *p);
/* The pool block or managed allocation holding p: its kind (UNKNOWN if none), start and size. */
GPSIM_HIDDEN int gpsim__mem_range(const void *p, uintptr_t *base, size_t *size);
/* A cuMemAlloc/cuMemFree/host allocation, for CUPTI's MEMORY2 records. */
GPSIM_HIDDEN void gpsim__mem_event(int op, const void *p, uint64_t bytes, int memory_kind);
/* cuMemFree of managed memory, or of a pool's allocation ("Callers must ensure that all accesses [...] have completed"); 0 or -EINVAL. */
GPSIM_HIDDEN int gpsim__managed_free(const void *p);
GPSIM_HIDDEN int gpsim__pool_free(const void *p);
/* sim_cuda.c: cuMemFree(Async) of a graph allocation; 0 or -EINVAL (not a live one). */
GPSIM_HIDDEN int gpsim__graph_mem_free(const void *p, uint32_t stream_id);
/*
 * sim_mem.c: a graph allocation made or freed, reported as a stream-ordered one on
 * stream_id, in the call corr (0: the current call's) and context (0: the
 * current one's), with the graph node that made it (0: none).
 */
GPSIM_HIDDEN void gpsim__graph_mem_event(int op, const void *p, uint64_t bytes,
					 uint32_t stream_id, uint32_t corr, uint32_t context_id,
					 uint64_t graph_node_id);
/*
 * sim_cuda.c: cuMemAllocAsync/cuMemFreeAsync on a capturing stream s: an
 * allocation (free) node captured into s's graph, as cuGraphAddMemAllocNode
 * (cuGraphAddMemFreeNode) makes it.
 */
GPSIM_HIDDEN CUresult gpsim__capture_mem_alloc(struct CUstream_st *s, size_t size,
					       CUdeviceptr *dptr);
GPSIM_HIDDEN CUresult gpsim__capture_mem_free(struct CUstream_st *s, CUdeviceptr dptr);
/* sim_mem.c: an allocation node was made; the graphs' pool is reported created once. */
GPSIM_HIDDEN void gpsim__graph_pool_used(void);
/* A stream, event or context synchronize: pools above their release threshold shrink. */
GPSIM_HIDDEN void gpsim__pools_on_sync(void);

/* A traced driver entry point: DRV_ENTER first, every return through DRV_RETURN. */
#define DRV_ENTER(cb, params, sym)                                                       \
	struct gpsim_call call__;                                                          \
	gpsim_call_enter(&call__, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##cb, \
			 __func__, params, sym)
#define DRV_RETURN(r) return (CUresult)gpsim_call_exit(&call__, (int)(r))

#define NEED_INIT()                                           \
	do {                                                  \
		if (!gpsim__inited())                         \
			DRV_RETURN(CUDA_ERROR_NOT_INITIALIZED); \
	} while (0)
#define NEED_CTX()                                            \
	do {                                                  \
		NEED_INIT();                                  \
		if (!gpsim__ctx_usable(gpsim__ctx_top()))     \
			DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT); \
	} while (0)

#endif /* GPSIM_DRV_H */
