// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: stream-ordered memory (pools) and managed memory, in host memory. */

/*
 * Device memory is host memory here, so a pool is a list of host blocks.
 * cuMemAllocAsync takes a block the pool may reuse, else a new one;
 * cuMemFreeAsync gives it back at the point of its stream where the free
 * runs (the stream's ready time when it is issued). A freed block is
 * reused only where the headers say it is safe:
 *
 *   - by an allocation on the stream that freed it (stream order);
 *   - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: by a stream whose
 *     next work cannot start before the free has run;
 *   - CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: once the free has run.
 *
 * The simulator never inserts a dependency to reuse a block
 * (CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES only permits it): it
 * takes a new block instead. Blocks go back to the system when a
 * synchronize finds the pool above its release threshold, on
 * cuMemPoolTrimTo, and when a pool is destroyed; only blocks whose free
 * has run are released.
 *
 * Managed memory (cuMemAllocManaged) is host memory the program uses
 * directly; prefetches and advice are checked and ordered, but migrate
 * nothing and take no device time.
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cupti_activity.h>
#include <generated_cuda_meta.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim_drv.h"
#include "sim_internal.h"

#define ALLOC_ALIGN 256u

struct block {
	uintptr_t base;
	size_t cap;		/* bytes reserved */
	size_t size;		/* bytes of the live allocation (0 when free) */
	int live;
	struct CUstream_st *free_stream; /* where it was freed */
	uint64_t free_done;	/* when that free runs on the device timeline */
	struct block *next;
};

struct CUmemPoolHandle_st {
	int is_default, dead, managed;
	uint64_t release_threshold;
	int follow_events, opportunistic, internal_deps;
	uint64_t reserved_high, used_high;
	struct block *blocks;
	struct CUmemPoolHandle_st *next;
};

/* A cuMemAllocManaged allocation. */
struct managed {
	uintptr_t base;
	size_t size;
	unsigned int attach;	/* CU_MEM_ATTACH_* */
	struct CUstream_st *stream; /* CU_MEM_ATTACH_SINGLE: the stream it is attached to */
	struct managed *next;
};

static struct {
	pthread_mutex_t lock;
	struct CUmemPoolHandle_st def;	/* the device's default pool */
	struct CUmemPoolHandle_st *current; /* cuDeviceSetMemPool */
	struct CUmemPoolHandle_st *pools;	/* the created ones */
	struct managed *managed;
	int def_created;			/* the default pool's creation reported */
	struct CUmemPoolHandle_st graph;	/* graphs' allocations (cuGraphAddMemAllocNode) */
	int graph_created;
	_Atomic(const struct gpsim_mem_hooks *) hooks;
} M = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.def = { .is_default = 1, .follow_events = 1, .opportunistic = 1, .internal_deps = 1 },
};

static void pool_event(int op, struct CUmemPoolHandle_st *p, uint64_t keep);

/*
 * Real CUPTI (H200, CUDA 13.0, driver 580) reports the default pool
 * created at its first use, a query (cudaDeviceGetDefaultMemPool) or an
 * allocation, and not before: so does this. Under M.lock.
 */
static struct CUmemPoolHandle_st *default_pool(void)
{
	if (!M.def_created) {
		M.def_created = 1;
		pool_event(GPSIM_POOL_CREATE, &M.def, 0);
	}
	return &M.def;
}

static struct CUmemPoolHandle_st *current_pool(void)
{
	return M.current ? M.current : default_pool();
}

static uint64_t pool_reserved(const struct CUmemPoolHandle_st *p)
{
	const struct block *b;
	uint64_t n = 0;

	for (b = p->blocks; b; b = b->next)
		n += b->cap;
	return n;
}

static uint64_t pool_used(const struct CUmemPoolHandle_st *p)
{
	const struct block *b;
	uint64_t n = 0;

	for (b = p->blocks; b; b = b->next)
		if (b->live)
			n += b->size;
	return n;
}

static void report(struct gpsim_mem_ev *ev, const struct CUmemPoolHandle_st *pool)
{
	static const char *const ops[] = { "", "alloc", "free", "pool_create", "pool_destroy",
					   "pool_trim" };
	const struct gpsim_mem_hooks *h = atomic_load(&M.hooks);
	char line[384];

	if (!ev->corr)
		ev->corr = gpsim__corr();
	if (!ev->context_id)
		ev->context_id = gpsim__ctx_id(gpsim__ctx_top());
	ev->ts = gpsim__stamp(&ev->own_ts);
	if (pool) {
		ev->pool_type = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
		ev->pool_managed = pool->managed;
		ev->pool_address = pool->blocks ? (uint64_t)pool->blocks->base : 0;
		ev->pool_size = pool_reserved(pool);
		ev->pool_used = pool_used(pool);
		ev->pool_release_threshold = pool->release_threshold;
	}
	snprintf(line, sizeof(line),
		 "{\"type\":\"mem\",\"op\":\"%s\",\"kind\":%d,\"corr\":%u,\"tid\":%u"
		 ",\"context\":%u,\"stream\":%d,\"address\":%" PRIu64 ",\"bytes\":%" PRIu64
		 ",\"pool_size\":%" PRIu64 ",\"pool_used\":%" PRIu64 ",\"graph_node\":%" PRIu64
		 ",\"ts\":%" PRIu64 "}",
		 ops[ev->op], ev->memory_kind, ev->corr, gpsim_gettid(), ev->context_id,
		 ev->stream_id == UINT32_MAX ? -1 : (int)ev->stream_id, ev->address, ev->bytes,
		 ev->pool_size, ev->pool_used, ev->graph_node_id, ev->ts);
	gpsim_log_line(line);
	if (h && h->mem)
		h->mem(ev);
}

#pragma GCC visibility push(default)

int gpsim_mem_hooks_set(const struct gpsim_mem_hooks *h)
{
	atomic_store(&M.hooks, h);
	return 0;
}

#pragma GCC visibility pop

void gpsim__mem_event(int op, const void *p, uint64_t bytes, int memory_kind)
{
	struct gpsim_mem_ev ev = { .op = op, .memory_kind = memory_kind,
				   .stream_id = UINT32_MAX, .address = (uintptr_t)p,
				   .bytes = bytes };

	report(&ev, NULL);
}

void gpsim__graph_mem_event(int op, const void *p, uint64_t bytes, uint32_t stream_id,
			    uint32_t corr, uint32_t context_id, uint64_t graph_node_id)
{
	struct gpsim_mem_ev ev = { .op = op, .memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
				   .is_async = 1, .stream_id = stream_id, .corr = corr,
				   .context_id = context_id, .address = (uintptr_t)p,
				   .bytes = bytes, .graph_node_id = graph_node_id };

	/* cuMemFree of one: not stream-ordered */
	ev.is_async = stream_id != UINT32_MAX;
	report(&ev, NULL);
}

static struct block *block_of(const void *p, struct CUmemPoolHandle_st **pool)
{
	uintptr_t a = (uintptr_t)p;
	struct CUmemPoolHandle_st *pl;
	struct block *b;

	for (pl = &M.def; pl; pl = pl == &M.def ? M.pools : pl->next) {
		for (b = pl->blocks; b; b = b->next) {
			if (b->live && a >= b->base && a < b->base + (b->size ? b->size : 1)) {
				if (pool)
					*pool = pl;
				return b;
			}
		}
	}
	return NULL;
}

static struct managed *managed_of(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	struct managed *m;

	for (m = M.managed; m; m = m->next)
		if (a >= m->base && a < m->base + (m->size ? m->size : 1))
			return m;
	return NULL;
}

int gpsim__mem_kind(const void *p)
{
	int kind = CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;

	pthread_mutex_lock(&M.lock);
	if (block_of(p, NULL))
		kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	else if (managed_of(p))
		kind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	pthread_mutex_unlock(&M.lock);
	return kind;
}

int gpsim__mem_range(const void *p, uintptr_t *base, size_t *size)
{
	struct block *b;
	struct managed *m;
	int kind = CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;

	pthread_mutex_lock(&M.lock);
	if ((b = block_of(p, NULL))) {
		*base = b->base;
		*size = b->size;
		kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	} else if ((m = managed_of(p))) {
		*base = m->base;
		*size = m->size;
		kind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	}
	pthread_mutex_unlock(&M.lock);
	return kind;
}

/* Releases pool p's free blocks whose free has run, while it holds more than keep bytes. Lock held. */
static void pool_shrink(struct CUmemPoolHandle_st *p, uint64_t keep)
{
	uint64_t reserved = pool_reserved(p), now = gpsim_now();
	struct block **pp, *b;

	for (pp = &p->blocks; (b = *pp) && reserved > keep;) {
		if (!b->live && b->free_done <= now) {
			*pp = b->next;
			reserved -= b->cap;
			free((void *)b->base);
			free(b);
		} else {
			pp = &b->next;
		}
	}
}

/*
 * "When more than the release threshold bytes of memory are held by the
 * memory pool, the allocator will try to release memory back to the OS on
 * the next call to stream, event or context synchronize."
 */
void gpsim__pools_on_sync(void)
{
	struct CUmemPoolHandle_st *p;

	pthread_mutex_lock(&M.lock);
	pool_shrink(&M.def, M.def.release_threshold);
	for (p = M.pools; p; p = p->next)
		pool_shrink(p, p->release_threshold);
	pthread_mutex_unlock(&M.lock);
}

/* A freed block of pool p that an allocation of size bytes on stream s may reuse now. Lock held. */
static struct block *reusable(struct CUmemPoolHandle_st *p, size_t size, struct CUstream_st *s)
{
	uint64_t now = gpsim_now(), dep = gpsim__stream_dep(s);
	struct block *b, *best = NULL;

	for (b = p->blocks; b; b = b->next) {
		if (b->live || b->cap < size)
			continue;
		if (b->free_stream != s && !(p->follow_events && dep >= b->free_done) &&
		    !(p->opportunistic && now >= b->free_done))
			continue;
		if (!best || b->cap < best->cap)
			best = b;
	}
	return best;
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, struct CUmemPoolHandle_st *p,
			    CUstream h)
{
	struct CUstream_st *s = gpsim__stream(h);
	struct gpsim_mem_ev ev = { .op = GPSIM_MEM_ALLOC, .is_async = 1,
				   .memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE };
	struct block *b;
	uint64_t reserved, used;

	if (!dptr || !size || !p)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&M.lock);
	if (p->dead) {
		pthread_mutex_unlock(&M.lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	/*
	 * "During stream capture, this function results in the creation of an
	 * allocation node. [...] The memory pool's properties are used to set
	 * the node's creation parameters": a managed pool's would be refused
	 * by cuGraphAddMemAllocNode (pinned device memory only), so it is here.
	 */
	if (gpsim__stream_capturing(s)) {
		int managed = p->managed;

		pthread_mutex_unlock(&M.lock);
		return managed ? CUDA_ERROR_INVALID_VALUE : gpsim__capture_mem_alloc(s, size, dptr);
	}
	b = reusable(p, size, s);
	if (!b) {
		void *mem = NULL;
		size_t cap = (size + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;

		b = calloc(1, sizeof(*b));
		if (!b || posix_memalign(&mem, ALLOC_ALIGN, cap)) {
			free(b);
			pthread_mutex_unlock(&M.lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		b->base = (uintptr_t)mem;
		b->cap = cap;
		b->next = p->blocks;
		p->blocks = b;
	}
	b->live = 1;
	b->size = size;
	b->free_stream = NULL;
	reserved = pool_reserved(p);
	used = pool_used(p);
	if (reserved > p->reserved_high)
		p->reserved_high = reserved;
	if (used > p->used_high)
		p->used_high = used;
	*dptr = (CUdeviceptr)b->base;
	ev.address = b->base;
	ev.bytes = size;
	ev.stream_id = gpsim__stream_id(s);
	report(&ev, p);
	pthread_mutex_unlock(&M.lock);
	return CUDA_SUCCESS;
}

/* "Inserts a free operation into hStream. The allocation must not be accessed after stream execution reaches the free." */
static CUresult free_async(CUdeviceptr dptr, CUstream h)
{
	struct CUstream_st *s = gpsim__stream(h);
	struct gpsim_mem_ev ev = { .op = GPSIM_MEM_FREE, .is_async = 1,
				   .memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE };
	struct CUmemPoolHandle_st *p = NULL;
	struct block *b;

	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	/* "During stream capture, this function results in the creation of a free node" */
	if (gpsim__stream_capturing(s))
		return gpsim__capture_mem_free(s, dptr);
	pthread_mutex_lock(&M.lock);
	b = block_of((const void *)(uintptr_t)dptr, &p);
	/* Only the start of a stream-ordered allocation can be freed this way here. */
	if (!b || b->base != (uintptr_t)dptr) {
		pthread_mutex_unlock(&M.lock);
		/* or a graph's ("passing the allocation to cuMemFreeAsync") */
		if (!b && !gpsim__graph_mem_free((const void *)(uintptr_t)dptr, gpsim__stream_id(s)))
			return CUDA_SUCCESS;
		return CUDA_ERROR_INVALID_VALUE;
	}
	ev.address = b->base;
	ev.bytes = b->size;
	ev.stream_id = gpsim__stream_id(s);
	b->live = 0;
	b->size = 0;
	b->free_stream = s;
	b->free_done = gpsim__stream_dep(s);
	report(&ev, p);
	pthread_mutex_unlock(&M.lock);
	return CUDA_SUCCESS;
}

int gpsim__pool_free(const void *ptr)
{
	struct gpsim_mem_ev ev = { .op = GPSIM_MEM_FREE, .stream_id = UINT32_MAX,
				   .memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE };
	struct CUmemPoolHandle_st *p = NULL;
	struct block *b;

	pthread_mutex_lock(&M.lock);
	b = block_of(ptr, &p);
	if (!b || b->base != (uintptr_t)ptr) {
		pthread_mutex_unlock(&M.lock);
		return -EINVAL;
	}
	ev.address = b->base;
	ev.bytes = b->size;
	b->live = 0;
	b->size = 0;
	b->free_stream = NULL;
	b->free_done = gpsim_now();
	report(&ev, p);
	pthread_mutex_unlock(&M.lock);
	return 0;
}

static int pool_known(const struct CUmemPoolHandle_st *p)
{
	const struct CUmemPoolHandle_st *q;

	if (p == &M.def)
		return 1;
	for (q = M.pools; q; q = q->next)
		if (q == p)
			return !q->dead;
	return 0;
}

/* The current pool (else the default one), taken under the lock. */
static struct CUmemPoolHandle_st *pool_get(int current)
{
	struct CUmemPoolHandle_st *pool;

	pthread_mutex_lock(&M.lock);
	pool = current ? current_pool() : default_pool();
	pthread_mutex_unlock(&M.lock);
	return pool;
}

/* @pool as the current pool: one the driver made, and not the managed one. */
static CUresult pool_set_current(struct CUmemPoolHandle_st *pool)
{
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&M.lock);
	if (!pool || !pool_known(pool) || pool->managed)
		r = CUDA_ERROR_INVALID_VALUE;
	else
		M.current = pool == &M.def ? NULL : pool;
	pthread_mutex_unlock(&M.lock);
	return r;
}

static void pool_event(int op, struct CUmemPoolHandle_st *p, uint64_t keep)
{
	struct gpsim_mem_ev ev = { .op = op, .stream_id = UINT32_MAX,
				   .min_bytes_to_keep = keep };

	report(&ev, p);
}

/*
 * Graphs' allocations come from a pool of their own, which real CUPTI
 * (H200, CUDA 13.0, driver 580) reports created at the first allocation
 * node (cudaGraphAddMemAllocNode, or cudaMallocAsync in a capture).
 */
void gpsim__graph_pool_used(void)
{
	pthread_mutex_lock(&M.lock);
	if (!M.graph_created) {
		M.graph_created = 1;
		pool_event(GPSIM_POOL_CREATE, &M.graph, 0);
	}
	pthread_mutex_unlock(&M.lock);
}

#pragma GCC visibility push(default)

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream h)
{
	cuMemAllocAsync_params p = { dptr, size, h };
	CUresult r;
	DRV_ENTER(cuMemAllocAsync, &p, NULL);

	NEED_CTX();
	r = alloc_async(dptr, size, pool_get(1), h);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream h)
{
	cuMemAllocAsync_ptsz_params p = { dptr, size, h };
	DRV_ENTER(cuMemAllocAsync_ptsz, &p, NULL);

	NEED_CTX();
	DRV_RETURN(alloc_async(dptr, size, pool_get(1), h ? h : gpsim_stream_per_thread()));
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
					 CUstream h)
{
	cuMemAllocFromPoolAsync_params p = { dptr, size, pool, h };
	int known;
	DRV_ENTER(cuMemAllocFromPoolAsync, &p, NULL);

	NEED_CTX();
	pthread_mutex_lock(&M.lock);
	known = pool_known(pool);
	pthread_mutex_unlock(&M.lock);
	if (!known)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(alloc_async(dptr, size, pool, h));
}

CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
					      CUstream h)
{
	cuMemAllocFromPoolAsync_ptsz_params p = { dptr, size, pool, h };
	int known;
	DRV_ENTER(cuMemAllocFromPoolAsync_ptsz, &p, NULL);

	NEED_CTX();
	pthread_mutex_lock(&M.lock);
	known = pool_known(pool);
	pthread_mutex_unlock(&M.lock);
	if (!known)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(alloc_async(dptr, size, pool, h ? h : gpsim_stream_per_thread()));
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream h)
{
	cuMemFreeAsync_params p = { dptr, h };
	DRV_ENTER(cuMemFreeAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(free_async(dptr, h));
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream h)
{
	cuMemFreeAsync_ptsz_params p = { dptr, h };
	DRV_ENTER(cuMemFreeAsync_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(free_async(dptr, h ? h : gpsim_stream_per_thread()));
}

/* "Currently must be specified as CU_MEM_ALLOCATION_TYPE_PINNED" (or MANAGED), on this device. */
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	cuMemPoolCreate_params p = { pool, props };
	struct CUmemPoolHandle_st *np;
	DRV_ENTER(cuMemPoolCreate, &p, NULL);

	NEED_INIT();
	if (!pool || !props)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED &&
	    props->allocType != CU_MEM_ALLOCATION_TYPE_MANAGED)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (props->allocType == CU_MEM_ALLOCATION_TYPE_PINNED &&
	    (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->location.id != 0))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/*
	 * "Specifying CU_MEM_HANDLE_TYPE_NONE creates a memory pool that will
	 * not support IPC": the simulated device supports no other
	 * (CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES is 0).
	 */
	if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	np = calloc(1, sizeof(*np));
	if (!np)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	np->managed = props->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED;
	np->follow_events = np->opportunistic = np->internal_deps = 1;
	pthread_mutex_lock(&M.lock);
	np->next = M.pools;
	M.pools = np;
	pool_event(GPSIM_POOL_CREATE, np, 0);
	pthread_mutex_unlock(&M.lock);
	*pool = np;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "If any pointers obtained from this pool haven't been freed or the pool
 * has free operations that haven't completed when cuMemPoolDestroy is
 * invoked, the function will return immediately and the resources
 * associated with the pool will be released automatically once there are
 * no more outstanding allocations." Here the pool's blocks whose free has
 * run go now, the rest stay with the dead pool (so their pointers keep
 * their kind). "Destroying the current mempool of a device sets the
 * default mempool of that device as the current mempool for that device."
 */
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
	cuMemPoolDestroy_params p = { pool };
	DRV_ENTER(cuMemPoolDestroy, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&M.lock);
	if (!pool || pool == &M.def || !pool_known(pool)) {
		pthread_mutex_unlock(&M.lock);
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	pool_event(GPSIM_POOL_DESTROY, pool, 0);
	pool->dead = 1;
	pool_shrink(pool, 0);
	if (M.current == pool)
		M.current = NULL;
	pthread_mutex_unlock(&M.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Releases memory back to the OS until the pool contains fewer than
 * minBytesToKeep reserved bytes, or there is no more memory that the
 * allocator can safely release. The allocator cannot release OS
 * allocations that back outstanding asynchronous allocations."
 */
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
	cuMemPoolTrimTo_params p = { pool, keep };
	DRV_ENTER(cuMemPoolTrimTo, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&M.lock);
	if (!pool || !pool_known(pool)) {
		pthread_mutex_unlock(&M.lock);
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	pool_shrink(pool, keep);
	pool_event(GPSIM_POOL_TRIM, pool, keep);
	pthread_mutex_unlock(&M.lock);
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult pool_attr(struct CUmemPoolHandle_st *pool, CUmemPool_attribute attr, void *value,
			  int set)
{
	int *iv = value;
	cuuint64_t *uv = value;

	if (!pool || !value || !pool_known(pool))
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
		if (set)
			pool->follow_events = *iv != 0;
		else
			*iv = pool->follow_events;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
		if (set)
			pool->opportunistic = *iv != 0;
		else
			*iv = pool->opportunistic;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		if (set)
			pool->internal_deps = *iv != 0;
		else
			*iv = pool->internal_deps;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		if (set)
			pool->release_threshold = *uv;
		else
			*uv = pool->release_threshold;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
		if (set)
			return CUDA_ERROR_INVALID_VALUE;
		*uv = attr == CU_MEMPOOL_ATTR_USED_MEM_CURRENT ? pool_used(pool) :
								   pool_reserved(pool);
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH: {
		uint64_t *high = attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? &pool->used_high :
									  &pool->reserved_high;

		/* "High watermark can only be reset to zero." */
		if (set && *uv)
			return CUDA_ERROR_INVALID_VALUE;
		if (set)
			*high = attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? pool_used(pool) :
									 pool_reserved(pool);
		else
			*uv = *high;
		return CUDA_SUCCESS;
	}
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	cuMemPoolSetAttribute_params p = { pool, attr, value };
	CUresult r;
	DRV_ENTER(cuMemPoolSetAttribute, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&M.lock);
	r = pool_attr(pool, attr, value, 1);
	pthread_mutex_unlock(&M.lock);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	cuMemPoolGetAttribute_params p = { pool, attr, value };
	CUresult r;
	DRV_ENTER(cuMemPoolGetAttribute, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&M.lock);
	r = pool_attr(pool, attr, value, 0);
	pthread_mutex_unlock(&M.lock);
	DRV_RETURN(r);
}

/* One device: its memory is always accessible from it, and from nothing else. */
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
	size_t i;
	DRV_ENTER(cuMemPoolSetAccess, NULL, NULL);

	NEED_INIT();
	if (!pool || (count && !map))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < count; i++)
		if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || map[i].location.id != 0)
			DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool pool,
				    CUmemLocation *location)
{
	DRV_ENTER(cuMemPoolGetAccess, NULL, NULL);
	NEED_INIT();
	if (!flags || !pool || !location)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*flags = location->type == CU_MEM_LOCATION_TYPE_DEVICE && location->id == 0 ?
			 CU_MEM_ACCESS_FLAGS_PROT_READWRITE :
			 CU_MEM_ACCESS_FLAGS_PROT_NONE;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
	DRV_ENTER(cuDeviceGetDefaultMemPool, NULL, NULL);
	NEED_INIT();
	if (!pool)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*pool = pool_get(0);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	DRV_ENTER(cuDeviceGetMemPool, NULL, NULL);
	NEED_INIT();
	if (!pool)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*pool = pool_get(1);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
	DRV_ENTER(cuDeviceSetMemPool, NULL, NULL);

	NEED_INIT();
	if (dev != 0)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	DRV_RETURN(pool_set_current(pool));
}

/*
 * CUDA 13's pools by location and allocation type: "The memory location
 * can be of one of CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_HOST
 * or CU_MEM_LOCATION_TYPE_HOST_NUMA. The allocation type can be one of
 * CU_MEM_ALLOCATION_TYPE_PINNED or CU_MEM_ALLOCATION_TYPE_MANAGED. When the
 * allocation type is CU_MEM_ALLOCATION_TYPE_MANAGED, the location type can
 * also be CU_MEM_LOCATION_TYPE_NONE [...] In all other cases, the call
 * return CUDA_ERROR_INVALID_VALUE". Device 0's pinned pools are the
 * device's (cuDeviceGetDefaultMemPool, ...: "the equivalent of calling
 * cuDeviceSetMemPool with the location id as the device"); host and
 * managed pools by location are not simulated: CUDA_ERROR_NOT_SUPPORTED.
 */
static CUresult location_pool(const CUmemLocation *loc, CUmemAllocationType type)
{
	if (!loc || (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED))
		return CUDA_ERROR_INVALID_VALUE;
	if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE && loc->type != CU_MEM_LOCATION_TYPE_HOST &&
	    loc->type != CU_MEM_LOCATION_TYPE_HOST_NUMA &&
	    !(type == CU_MEM_ALLOCATION_TYPE_MANAGED && loc->type == CU_MEM_LOCATION_TYPE_NONE))
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_ALLOCATION_TYPE_PINNED || loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_NOT_SUPPORTED;
	return loc->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc,
					CUmemAllocationType type)
{
	cuMemGetDefaultMemPool_params p = { pool, loc, type };
	CUresult r;
	DRV_ENTER(cuMemGetDefaultMemPool, &p, NULL);

	NEED_INIT();
	r = pool ? location_pool(loc, type) : CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*pool = pool_get(0);
	DRV_RETURN(r);
}

/*
 * "Returns the last pool provided to cuMemSetMemPool or cuDeviceSetMemPool
 * for this location and allocation type or the location's default memory
 * pool if cuMemSetMemPool or cuDeviceSetMemPool for that allocType and
 * location has never been called."
 */
CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, CUmemAllocationType type)
{
	cuMemGetMemPool_params p = { pool, loc, type };
	CUresult r;
	DRV_ENTER(cuMemGetMemPool, &p, NULL);

	NEED_INIT();
	r = pool ? location_pool(loc, type) : CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*pool = pool_get(1);
	DRV_RETURN(r);
}

/*
 * "When a memory pool is set as the current memory pool, the location
 * parameter should be the same as the location of the pool [...] The type
 * of memory pool should also match the parameter allocType."
 */
CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *loc, CUmemAllocationType type, CUmemoryPool pool)
{
	cuMemSetMemPool_params p = { loc, type, pool };
	CUresult r;
	DRV_ENTER(cuMemSetMemPool, &p, NULL);

	NEED_INIT();
	r = location_pool(loc, type);
	if (r == CUDA_SUCCESS)
		r = pool_set_current(pool);
	DRV_RETURN(r);
}

/* ---- managed memory ------------------------------------------------------ */

/*
 * "Allocates bytesize bytes of managed memory on the device [...] The
 * pointer is valid on the CPU and on all GPUs in the system that support
 * managed memory." flags: "must be one of CU_MEM_ATTACH_GLOBAL or
 * CU_MEM_ATTACH_HOST"; "If bytesize is 0, cuMemAllocManaged returns
 * CUDA_ERROR_INVALID_VALUE."
 */
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	cuMemAllocManaged_params p = { dptr, size, flags };
	struct managed *m;
	void *mem = NULL;
	DRV_ENTER(cuMemAllocManaged, &p, NULL);

	NEED_CTX();
	if (!dptr || !size || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	m = calloc(1, sizeof(*m));
	if (!m || posix_memalign(&mem, ALLOC_ALIGN, size)) {
		free(m);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
	m->base = (uintptr_t)mem;
	m->size = size;
	m->attach = flags;
	pthread_mutex_lock(&M.lock);
	m->next = M.managed;
	M.managed = m;
	pthread_mutex_unlock(&M.lock);
	*dptr = (CUdeviceptr)m->base;
	gpsim__mem_event(GPSIM_MEM_ALLOC, mem, size, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
	DRV_RETURN(CUDA_SUCCESS);
}

/* cuMemFree of managed memory: called by sim_cuda.c's cuMemFree when the pointer is not its own. */
int gpsim__managed_free(const void *p)
{
	struct managed **pp, *m;
	size_t size = 0;
	int err = -EINVAL;

	pthread_mutex_lock(&M.lock);
	for (pp = &M.managed; (m = *pp); pp = &m->next) {
		if (m->base == (uintptr_t)p) {
			*pp = m->next;
			size = m->size;
			free((void *)m->base);
			free(m);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&M.lock);
	if (!err)
		gpsim__mem_event(GPSIM_MEM_FREE, p, size, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
	return err;
}

/* The managed allocation [p, p + count) lies in (count 0: p is its start); NULL if none. Lock held. */
static struct managed *managed_range(const void *p, size_t count)
{
	struct managed *m = managed_of(p);
	uintptr_t a = (uintptr_t)p;

	if (!m || (count && count > m->size - (a - m->base)))
		return NULL;
	return m;
}

static int location_ok(CUmemLocation loc)
{
	switch (loc.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE: return loc.id == 0;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return 1;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA: return loc.id == 0;
	default: return 0;
	}
}

/*
 * "Prefetches memory to the specified destination location. [...] The
 * prefetch operation is enqueued in the given stream." Nothing moves (it
 * is all host memory) and the prefetch takes no device time, but it is
 * still checked ("devPtr must point to [...] memory allocated via
 * cuMemAllocManaged") and does not overtake the stream.
 */
static CUresult prefetch(CUdeviceptr dptr, size_t count, CUmemLocation loc, unsigned int flags,
			 CUstream h)
{
	struct CUstream_st *s = gpsim__stream(h);
	struct managed *m;

	if (!dptr || !count || flags || !location_ok(loc))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&M.lock);
	m = managed_range((const void *)(uintptr_t)dptr, count);
	pthread_mutex_unlock(&M.lock);
	if (!m)
		return CUDA_ERROR_INVALID_VALUE;
	gpsim__stream_after(s, gpsim__stream_dep(s));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr dptr, size_t count, CUmemLocation loc,
				       unsigned int flags, CUstream h)
{
	cuMemPrefetchAsync_v2_params p = { dptr, count, loc, flags, h };
	DRV_ENTER(cuMemPrefetchAsync_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(prefetch(dptr, count, loc, flags, h));
}

CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr dptr, size_t count, CUmemLocation loc,
					    unsigned int flags, CUstream h)
{
	cuMemPrefetchAsync_v2_ptsz_params p = { dptr, count, loc, flags, h };
	DRV_ENTER(cuMemPrefetchAsync_v2_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(prefetch(dptr, count, loc, flags, h ? h : gpsim_stream_per_thread()));
}

/*
 * The batch calls (CUDA 13): "The batch as a whole executes in stream
 * order but operations within a batch are not guaranteed to execute in any
 * specific order." Each range is checked as cuMemPrefetchAsync checks one
 * ("must refer to managed memory allocated via cuMemAllocManaged"; the
 * simulated device has no CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS), and
 * "hStream [...] Must not be legacy NULL stream". Locations: "the first
 * entry in prefetchLocIdxs must always be 0. Also, each entry must be
 * greater than the previous entry and the last entry should be less than
 * count. Furthermore, numPrefetchLocs must be lesser than or equal to
 * count." Discarded memory keeps its bytes ("Reading from a discarded
 * range [...] will return an indeterminate value"). Like a prefetch, the
 * batch takes no device time and does not overtake the stream.
 */
static CUresult batch(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs,
		      size_t *loc_idxs, size_t nlocs, int prefetch, unsigned long long flags,
		      CUstream h)
{
	struct CUstream_st *s;
	size_t i;
	int ok = 1;

	if (!dptrs || !sizes || !count || flags || !h || h == CU_STREAM_LEGACY)
		return CUDA_ERROR_INVALID_VALUE;
	if (prefetch) {
		if (!locs || !loc_idxs || !nlocs || nlocs > count || loc_idxs[0] != 0)
			return CUDA_ERROR_INVALID_VALUE;
		for (i = 0; i < nlocs; i++)
			if ((i && loc_idxs[i] <= loc_idxs[i - 1]) || loc_idxs[i] >= count ||
			    !location_ok(locs[i]))
				return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&M.lock);
	for (i = 0; i < count && ok; i++)
		ok = dptrs[i] && sizes[i] &&
		     managed_range((const void *)(uintptr_t)dptrs[i], sizes[i]);
	pthread_mutex_unlock(&M.lock);
	if (!ok)
		return CUDA_ERROR_INVALID_VALUE;
	s = gpsim__stream(h);
	gpsim__stream_after(s, gpsim__stream_dep(s));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
					 CUmemLocation *locs, size_t *loc_idxs, size_t nlocs,
					 unsigned long long flags, CUstream h)
{
	cuMemPrefetchBatchAsync_params p = { dptrs, sizes, count, locs, loc_idxs, nlocs, flags, h };
	DRV_ENTER(cuMemPrefetchBatchAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, locs, loc_idxs, nlocs, 1, flags, h));
}

CUresult CUDAAPI cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
					      CUmemLocation *locs, size_t *loc_idxs, size_t nlocs,
					      unsigned long long flags, CUstream h)
{
	cuMemPrefetchBatchAsync_ptsz_params p = { dptrs, sizes, count, locs, loc_idxs, nlocs,
						  flags, h };
	DRV_ENTER(cuMemPrefetchBatchAsync_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, locs, loc_idxs, nlocs, 1, flags,
			 h ? h : gpsim_stream_per_thread()));
}

CUresult CUDAAPI cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
					unsigned long long flags, CUstream h)
{
	cuMemDiscardBatchAsync_params p = { dptrs, sizes, count, flags, h };
	DRV_ENTER(cuMemDiscardBatchAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, NULL, NULL, 0, 0, flags, h));
}

CUresult CUDAAPI cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
					     unsigned long long flags, CUstream h)
{
	cuMemDiscardBatchAsync_ptsz_params p = { dptrs, sizes, count, flags, h };
	DRV_ENTER(cuMemDiscardBatchAsync_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, NULL, NULL, 0, 0, flags,
			 h ? h : gpsim_stream_per_thread()));
}

/* "semantically equivalent to calling cuMemDiscardBatchAsync followed by cuMemPrefetchBatchAsync" */
CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
						   CUmemLocation *locs, size_t *loc_idxs,
						   size_t nlocs, unsigned long long flags, CUstream h)
{
	cuMemDiscardAndPrefetchBatchAsync_params p = { dptrs, sizes, count, locs, loc_idxs, nlocs,
						       flags, h };
	DRV_ENTER(cuMemDiscardAndPrefetchBatchAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, locs, loc_idxs, nlocs, 1, flags, h));
}

CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes,
							size_t count, CUmemLocation *locs,
							size_t *loc_idxs, size_t nlocs,
							unsigned long long flags, CUstream h)
{
	cuMemDiscardAndPrefetchBatchAsync_ptsz_params p = { dptrs, sizes, count, locs, loc_idxs,
							    nlocs, flags, h };
	DRV_ENTER(cuMemDiscardAndPrefetchBatchAsync_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(batch(dptrs, sizes, count, locs, loc_idxs, nlocs, 1, flags,
			 h ? h : gpsim_stream_per_thread()));
}

/*
 * Pool IPC. "To create an IPC capable mempool, create a mempool with a
 * CUmemAllocationHandleType other than CU_MEM_HANDLE_TYPE_NONE", which the
 * simulated device refuses (cuMemPoolCreate): no pool here can be
 * exported, no pointer of one either, and no handle or export data names
 * a pool another process exported. Each is CUDA_ERROR_INVALID_VALUE, after
 * the arguments are checked ("flags - must be 0").
 */
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
						  CUmemAllocationHandleType type,
						  unsigned long long flags)
{
	cuMemPoolExportToShareableHandle_params p = { handle_out, pool, type, flags };
	DRV_ENTER(cuMemPoolExportToShareableHandle, &p, NULL);
	NEED_INIT();
	(void)handle_out;
	(void)pool;
	(void)type;
	(void)flags;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
						    CUmemAllocationHandleType type,
						    unsigned long long flags)
{
	cuMemPoolImportFromShareableHandle_params p = { pool_out, handle, type, flags };
	DRV_ENTER(cuMemPoolImportFromShareableHandle, &p, NULL);
	NEED_INIT();
	(void)handle;
	(void)type;
	(void)flags;
	if (pool_out)
		*pool_out = NULL;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr ptr)
{
	cuMemPoolExportPointer_params p = { out, ptr };
	DRV_ENTER(cuMemPoolExportPointer, &p, NULL);
	NEED_INIT();
	(void)out;
	(void)ptr;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
				       CUmemPoolPtrExportData *data)
{
	cuMemPoolImportPointer_params p = { ptr_out, pool, data };
	DRV_ENTER(cuMemPoolImportPointer, &p, NULL);
	NEED_INIT();
	(void)pool;
	(void)data;
	if (ptr_out)
		*ptr_out = 0;
	DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
}

/* "Advise the Unified Memory subsystem about the usage pattern for the memory range": checked, remembered nowhere. */
CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr dptr, size_t count, CUmem_advise advice,
				CUmemLocation loc)
{
	cuMemAdvise_v2_params p = { dptr, count, advice, loc };
	struct managed *m;
	DRV_ENTER(cuMemAdvise_v2, &p, NULL);

	NEED_CTX();
	if (!dptr || !count || advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
	    advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* The location is ignored for the read-mostly advice and the unsetting of a preferred location. */
	if (advice != CU_MEM_ADVISE_SET_READ_MOSTLY && advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY &&
	    advice != CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION && !location_ok(loc))
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	pthread_mutex_lock(&M.lock);
	m = managed_range((const void *)(uintptr_t)dptr, count);
	pthread_mutex_unlock(&M.lock);
	DRV_RETURN(m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/*
 * "Enqueues an operation in hStream to specify stream association of
 * length bytes of memory starting from dptr." "length must be zero, to
 * indicate that the entire allocation's stream association is being
 * changed"; flags "must be one of CUmemAttach_flags"; CU_MEM_ATTACH_SINGLE
 * needs a stream other than the NULL stream.
 */
static CUresult attach(CUstream h, CUdeviceptr dptr, size_t length, unsigned int flags)
{
	struct CUstream_st *s = gpsim__stream(h);
	struct managed *m;
	CUresult r = CUDA_SUCCESS;

	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
	    flags != CU_MEM_ATTACH_SINGLE)
		return CUDA_ERROR_INVALID_VALUE;
	if (flags == CU_MEM_ATTACH_SINGLE && (!h || h == CU_STREAM_LEGACY))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&M.lock);
	m = managed_of((const void *)(uintptr_t)dptr);
	if (!m || m->base != (uintptr_t)dptr || (length && length != m->size)) {
		r = CUDA_ERROR_INVALID_VALUE;
	} else {
		m->attach = flags;
		m->stream = flags == CU_MEM_ATTACH_SINGLE ? s : NULL;
	}
	pthread_mutex_unlock(&M.lock);
	if (r == CUDA_SUCCESS)
		gpsim__stream_after(s, gpsim__stream_dep(s));
	return r;
}

CUresult CUDAAPI cuStreamAttachMemAsync(CUstream h, CUdeviceptr dptr, size_t length,
					unsigned int flags)
{
	cuStreamAttachMemAsync_params p = { h, dptr, length, flags };
	DRV_ENTER(cuStreamAttachMemAsync, &p, NULL);
	NEED_CTX();
	DRV_RETURN(attach(h, dptr, length, flags));
}

CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream h, CUdeviceptr dptr, size_t length,
					     unsigned int flags)
{
	cuStreamAttachMemAsync_ptsz_params p = { h, dptr, length, flags };
	DRV_ENTER(cuStreamAttachMemAsync_ptsz, &p, NULL);
	NEED_CTX();
	DRV_RETURN(attach(h ? h : gpsim_stream_per_thread(), dptr, length, flags));
}

#pragma GCC visibility pop
