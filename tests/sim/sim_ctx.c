// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: contexts, created and primary, and each thread's stack of them. */

/*
 * Every thread has a stack of current contexts ("Pushes the given context
 * ctx onto the CPU thread's stack of current contexts", cuCtxPushCurrent);
 * its top is the context the thread's calls use. A context made by
 * cuCtxCreate gets the next id after the primary context's (CUPTI's
 * contextId); work issued in it carries that id. Destroyed contexts are
 * kept, marked dead, so that a handle another thread still holds is
 * refused with CUDA_ERROR_INVALID_CONTEXT instead of read after a free.
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <generated_cuda_meta.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_drv.h"
#include "sim_internal.h"

/* Deep enough for any program that pushes what it pops. */
#define CTX_STACK_MAX 64

static struct {
	pthread_mutex_t lock;
	uint32_t next_id;
	struct CUctx_st *all;
} X = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = GPSIM_CONTEXT_ID + 1 };

static __thread CUcontext tls_stack[CTX_STACK_MAX];
static __thread int tls_depth;

CUcontext gpsim__ctx_top(void)
{
	return tls_depth ? tls_stack[tls_depth - 1] : NULL;
}

void gpsim__ctx_bind_primary(void)
{
	if (!tls_depth) {
		tls_stack[0] = gpsim__primary();
		tls_depth = 1;
	}
}

int gpsim__ctx_usable(CUcontext c)
{
	if (!c)
		return 0;
	if (c == gpsim__primary())
		return gpsim__primary_alive();
	return !c->dead;
}

uint32_t gpsim__ctx_id(CUcontext c)
{
	return c ? c->id : 0;
}

static CUresult push(CUcontext c)
{
	if (tls_depth == CTX_STACK_MAX)
		return CUDA_ERROR_OUT_OF_MEMORY;
	tls_stack[tls_depth++] = c;
	return CUDA_SUCCESS;
}

/* A context is ours if it is the primary one or one cuCtxCreate returned (alive or not). */
static int ctx_known(CUcontext c)
{
	struct CUctx_st *k;

	if (c == gpsim__primary())
		return 1;
	pthread_mutex_lock(&X.lock);
	for (k = X.all; k && k != c; k = k->next)
		;
	pthread_mutex_unlock(&X.lock);
	return k != NULL;
}

#pragma GCC visibility push(default)

uint32_t gpsim_ctx_id(CUcontext c)
{
	return gpsim__ctx_id(c);
}

CUcontext gpsim_ctx_current(void)
{
	CUcontext c = gpsim__ctx_top();

	return gpsim__ctx_usable(c) ? c : NULL;
}

/*
 * "Creates a new CUDA context and associates it with the calling thread
 * [...] If a context is already current to the thread, it is supplanted by
 * the newly created context and may be restored by a subsequent call to
 * cuCtxPopCurrent()."
 */
CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
				CUdevice dev)
{
	cuCtxCreate_v4_params p = { pctx, params, flags, dev };
	CUcontext c;
	CUresult r;
	DRV_ENTER(cuCtxCreate_v4, &p, NULL);

	NEED_INIT();
	if (!pctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	/* "Either execAffinityParams or cigParams can be set": neither exists here. */
	if (params && (params->execAffinityParams || params->cigParams))
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	c = calloc(1, sizeof(*c));
	if (!c)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	c->created = 1;
	c->flags = flags;
	pthread_mutex_lock(&X.lock);
	r = push(c);
	if (r != CUDA_SUCCESS) {
		pthread_mutex_unlock(&X.lock);
		free(c);
		DRV_RETURN(r);
	}
	c->id = X.next_id++;
	c->next = X.all;
	X.all = c;
	pthread_mutex_unlock(&X.lock);
	*pctx = c;
	{
		struct gpsim_res_ev ev = { .ctx = c };

		gpsim__resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &ev);
	}
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Destroys the CUDA context specified by ctx. [...] If ctx is current to
 * the calling thread then ctx will also be popped from the current
 * thread's context stack (as though cuCtxPopCurrent() were called)." Its
 * work finishes first and CUPTI hands over its records, as on a reset.
 */
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	cuCtxDestroy_v2_params p = { ctx };
	DRV_ENTER(cuCtxDestroy_v2, &p, NULL);

	NEED_INIT();
	if (!ctx_known(ctx) || !gpsim__ctx_usable(ctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	/* The primary context is released (cuDevicePrimaryCtxRelease), not destroyed. */
	if (ctx == gpsim__primary())
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	gpsim__wait_until(gpsim__device_ready());
	{
		struct gpsim_res_ev ev = { .ctx = ctx };

		gpsim__resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &ev);
	}
	gpsim__ctx_going();
	ctx->dead = 1;
	if (gpsim__ctx_top() == ctx)
		tls_depth--;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
	cuCtxPushCurrent_v2_params p = { ctx };
	DRV_ENTER(cuCtxPushCurrent_v2, &p, NULL);

	NEED_INIT();
	if (!ctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!ctx_known(ctx) || !gpsim__ctx_usable(ctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(push(ctx));
}

/* "Pops the current CUDA context from the CPU thread and passes back the old context handle in *pctx." */
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
	cuCtxPopCurrent_v2_params p = { pctx };
	CUcontext c;
	DRV_ENTER(cuCtxPopCurrent_v2, &p, NULL);

	NEED_INIT();
	c = gpsim__ctx_top();
	if (!c)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	tls_depth--;
	if (pctx)
		*pctx = c;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	DRV_ENTER(cuCtxGetCurrent, NULL, NULL);
	NEED_INIT();
	if (!pctx)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*pctx = gpsim__ctx_top();
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "If there exists a CUDA context stack on the calling CPU thread, this
 * will replace the top of that stack with ctx. If ctx is NULL then this
 * will be equivalent to popping the top of the calling CPU thread's CUDA
 * context stack (or a no-op if the calling CPU thread's CUDA context stack
 * is empty)."
 */
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	DRV_ENTER(cuCtxSetCurrent, NULL, NULL);
	NEED_INIT();
	if (!ctx) {
		if (tls_depth)
			tls_depth--;
		DRV_RETURN(CUDA_SUCCESS);
	}
	if (!ctx_known(ctx) || !gpsim__ctx_usable(ctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	if (tls_depth)
		tls_stack[tls_depth - 1] = ctx;
	else
		tls_stack[tls_depth++] = ctx;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns the unique Id associated with the context supplied" (NULL: the current one). */
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *id)
{
	DRV_ENTER(cuCtxGetId, NULL, NULL);
	NEED_INIT();
	if (!id)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!ctx)
		ctx = gpsim__ctx_top();
	if (!ctx_known(ctx) || !gpsim__ctx_usable(ctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	*id = ctx->id;
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- flags, cache preference, versions ---- */

/* The calling thread's context, usable; NULL if none. */
static CUcontext current(void)
{
	CUcontext c = gpsim__ctx_top();

	return c && gpsim__ctx_usable(c) ? c : NULL;
}

/* "Returns the flags for the current context": the scheduling and mapping ones it was made with. */
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
	cuCtxGetFlags_params p = { flags };
	CUcontext c;
	DRV_ENTER(cuCtxGetFlags, &p, NULL);

	NEED_CTX();
	c = current();
	if (!flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*flags = c->flags;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Sets the flags for the current context overwriting previously set ones": CU_CTX_FLAGS_MASK only. */
CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
	cuCtxSetFlags_params p = { flags };
	DRV_ENTER(cuCtxSetFlags, &p, NULL);

	NEED_CTX();
	if (flags & ~(unsigned int)CU_CTX_FLAGS_MASK)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	current()->flags = flags;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "On devices where the L1 cache and shared memory use the same hardware resources, this sets through config the preferred cache configuration": kept, changes nothing here. */
CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
	cuCtxSetCacheConfig_params p = { config };
	DRV_ENTER(cuCtxSetCacheConfig, &p, NULL);

	NEED_CTX();
	if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	current()->cache = config;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *config)
{
	cuCtxGetCacheConfig_params p = { config };
	DRV_ENTER(cuCtxGetCacheConfig, &p, NULL);

	NEED_CTX();
	if (!config)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*config = current()->cache;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns a version number in version corresponding to the capabilities of the context": 3020, as every context made since CUDA 3.2. */
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	cuCtxGetApiVersion_params p = { ctx, version };
	DRV_ENTER(cuCtxGetApiVersion, &p, NULL);

	NEED_INIT();
	if (!version)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!ctx)
		ctx = current();
	if (!ctx || !ctx_known(ctx) || !gpsim__ctx_usable(ctx))
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	*version = 3020;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Returns in *leastPriority and *greatestPriority the numerical values
 * that correspond to the least and greatest stream priorities": 0 and -5,
 * as cudaDeviceGetStreamPriorityRange answers.
 */
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
	cuCtxGetStreamPriorityRange_params p = { least, greatest };
	DRV_ENTER(cuCtxGetStreamPriorityRange, &p, NULL);

	NEED_CTX();
	if (least)
		*least = 0;
	if (greatest)
		*greatest = -5;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns in *flags the flags of the primary context of dev, and in *active whether it is active." */
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	cuDevicePrimaryCtxGetState_params p = { dev, flags, active };
	DRV_ENTER(cuDevicePrimaryCtxGetState, &p, NULL);

	NEED_INIT();
	if (!flags || !active)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*flags = gpsim__primary()->flags;
	*active = gpsim__primary_alive();
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	cuDevicePrimaryCtxSetFlags_v2_params p = { dev, flags };
	DRV_ENTER(cuDevicePrimaryCtxSetFlags_v2, &p, NULL);

	NEED_INIT();
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	if (flags & ~(unsigned int)CU_CTX_FLAGS_MASK)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	gpsim__primary()->flags = flags;
	DRV_RETURN(CUDA_SUCCESS);
}

/* ---- limits and the L2 cache ---------------------------------------------- */

/*
 * The simulated device's defaults (compute capability 7.5): what
 * cuCtxGetLimit gives until cuCtxSetLimit sets it. "The driver is free to
 * modify the requested value to meet h/w requirements (this could be
 * clamping to minimum or maximum values ...). The application can use
 * cuCtxGetLimit() to find out exactly what the limit has been set to."
 */
static size_t limit_default(CUlimit l)
{
	switch (l) {
	case CU_LIMIT_STACK_SIZE: return 1024;
	case CU_LIMIT_PRINTF_FIFO_SIZE: return 1 << 20;
	case CU_LIMIT_MALLOC_HEAP_SIZE: return 8 << 20;
	/* "above the default sync depth, two levels of grids" */
	case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: return 2;
	/* "the default (2048 launches)" */
	case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: return 2048;
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: return 64;
	default: return 0;
	}
}

/* The value a request becomes; SIZE_MAX: the limit cannot be set. */
static size_t limit_clamp(CUlimit l, size_t v)
{
	switch (l) {
	/* "This limit can be set smaller than the default or up the maximum launch depth of 24." */
	case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: return v < 24 ? v : 24;
	/* "A value between 0 and 128 that indicates the maximum fetch granularity of L2 (in Bytes). This is a hint" */
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: return v < 128 ? v : 128;
	/*
	 * "This is purely a performance hint and it can be ignored or clamped":
	 * clamped to the device's CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
	 * 0 here (no persisting L2 before compute capability 8.0).
	 */
	case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: return 0;
	/* "Can only be queried, cannot be set" */
	case CU_LIMIT_SHMEM_SIZE:
	case CU_LIMIT_CIG_ENABLED: return SIZE_MAX;
	default: return v;
	}
}

/* CIG contexts are not simulated (cuCtxCreate refuses CIG parameters): their limits are not this device's. */
static int limit_supported(CUlimit l)
{
	return (unsigned)l < CU_LIMIT_MAX && l != CU_LIMIT_SHMEM_SIZE &&
	       l != CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED;
}

CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
	CUcontext c;
	size_t v;
	DRV_ENTER(cuCtxSetLimit, NULL, NULL);

	NEED_CTX();
	if ((unsigned)limit < CU_LIMIT_MAX && limit_clamp(limit, value) == SIZE_MAX)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!limit_supported(limit))
		DRV_RETURN(CUDA_ERROR_UNSUPPORTED_LIMIT);
	c = gpsim__ctx_top();
	v = limit_clamp(limit, value);
	pthread_mutex_lock(&X.lock);
	c->limit[limit] = v;
	c->limit_set[limit] = 1;
	pthread_mutex_unlock(&X.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetLimit(size_t *value, CUlimit limit)
{
	CUcontext c;
	DRV_ENTER(cuCtxGetLimit, NULL, NULL);

	NEED_CTX();
	if (!value)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!limit_supported(limit))
		DRV_RETURN(CUDA_ERROR_UNSUPPORTED_LIMIT);
	c = gpsim__ctx_top();
	pthread_mutex_lock(&X.lock);
	*value = c->limit_set[limit] ? c->limit[limit] : limit_default(limit);
	pthread_mutex_unlock(&X.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Resets all persisting lines in cache to normal status. Takes effect on function return." No L2 here: nothing to reset. */
CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
	DRV_ENTER(cuCtxResetPersistingL2Cache, NULL, NULL);
	NEED_CTX();
	DRV_RETURN(CUDA_SUCCESS);
}

#pragma GCC visibility pop
