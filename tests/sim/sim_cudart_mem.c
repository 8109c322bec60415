// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: stream-ordered allocation, memory pools and managed memory. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_mem.c), traced inside it. The
 * runtime's pool, location and attribute types are the driver's with
 * other names: the same layouts and values.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include <stdint.h>

#include "sim_internal.h"
#include "sim_rt.h"

_Static_assert(sizeof(struct cudaMemPoolProps) == sizeof(CUmemPoolProps), "pool props");
_Static_assert(sizeof(struct cudaMemLocation) == sizeof(CUmemLocation), "mem location");
_Static_assert(sizeof(void *) == sizeof(CUdeviceptr), "device pointer arrays");
_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == sizeof(CUmemPoolPtrExportData),
	       "pool export data");
_Static_assert((int)cudaMemPoolAttrUsedMemHigh == (int)CU_MEMPOOL_ATTR_USED_MEM_HIGH, "pool attr");
_Static_assert((int)cudaMemAdviseUnsetAccessedBy == (int)CU_MEM_ADVISE_UNSET_ACCESSED_BY, "advice");
_Static_assert((int)cudaMemLocationTypeHostNumaCurrent ==
		       (int)CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, "location type");

/* The per-thread-stream variants the headers only declare under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t s);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *ptr, cudaStream_t s);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
						   cudaStream_t s);
cudaError_t CUDARTAPI cudaMemPrefetchAsync_ptsz(const void *ptr, size_t count,
						struct cudaMemLocation loc, unsigned int flags,
						cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamAttachMemAsync_ptsz(cudaStream_t s, void *ptr, size_t length,
						    unsigned int flags);
cudaError_t CUDARTAPI cudaMemPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
						     struct cudaMemLocation *locs, size_t *loc_idxs,
						     size_t nlocs, unsigned long long flags,
						     cudaStream_t s);
cudaError_t CUDARTAPI cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
						    unsigned long long flags, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemDiscardAndPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes,
							       size_t count,
							       struct cudaMemLocation *locs,
							       size_t *loc_idxs, size_t nlocs,
							       unsigned long long flags,
							       cudaStream_t s);

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static CUstream pts(cudaStream_t s)
{
	return s ? (CUstream)s : gpsim_stream_per_thread();
}

static CUmemLocation cu_loc(struct cudaMemLocation l)
{
	CUmemLocation c = { (CUmemLocationType)l.type, l.id };

	return c;
}

static cudaError_t malloc_async(void **ptr, size_t size, cudaMemPool_t pool, CUstream s)
{
	CUdeviceptr d = 0;
	CUresult r;

	if (!ptr)
		return cudaErrorInvalidValue;
	r = pool ? cuMemAllocFromPoolAsync(&d, size, (CUmemoryPool)pool, s) :
		   cuMemAllocAsync(&d, size, s);
	*ptr = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
	return from_cu(r);
}

#pragma GCC visibility push(default)

cudaError_t CUDARTAPI cudaMallocAsync(void **ptr, size_t size, cudaStream_t s)
{
	cudaMallocAsync_v11020_params p = { ptr, size, s };
	RT_ENTER(cudaMallocAsync_v11020, &p, NULL);
	RT_RETURN(malloc_async(ptr, size, NULL, s));
}

cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t s)
{
	cudaMallocAsync_ptsz_v11020_params p = { ptr, size, s };
	RT_ENTER(cudaMallocAsync_ptsz_v11020, &p, NULL);
	RT_RETURN(malloc_async(ptr, size, NULL, pts(s)));
}

cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
					      cudaStream_t s)
{
	cudaMallocFromPoolAsync_v11020_params p = { ptr, size, pool, s };
	RT_ENTER(cudaMallocFromPoolAsync_v11020, &p, NULL);
	if (!pool)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(malloc_async(ptr, size, pool, s));
}

cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
						   cudaStream_t s)
{
	cudaMallocFromPoolAsync_ptsz_v11020_params p = { ptr, size, pool, s };
	RT_ENTER(cudaMallocFromPoolAsync_ptsz_v11020, &p, NULL);
	if (!pool)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(malloc_async(ptr, size, pool, pts(s)));
}

cudaError_t CUDARTAPI cudaFreeAsync(void *ptr, cudaStream_t s)
{
	cudaFreeAsync_v11020_params p = { ptr, s };
	RT_ENTER(cudaFreeAsync_v11020, &p, NULL);
	RT_CU(cuMemFreeAsync(DP(ptr), s));
}

cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *ptr, cudaStream_t s)
{
	cudaFreeAsync_ptsz_v11020_params p = { ptr, s };
	RT_ENTER(cudaFreeAsync_ptsz_v11020, &p, NULL);
	RT_CU(cuMemFreeAsync(DP(ptr), pts(s)));
}

cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
	cudaMemPoolCreate_v11020_params p = { pool, props };
	RT_ENTER(cudaMemPoolCreate_v11020, &p, NULL);
	RT_CU(cuMemPoolCreate((CUmemoryPool *)pool, (const CUmemPoolProps *)props));
}

cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t pool)
{
	cudaMemPoolDestroy_v11020_params p = { pool };
	RT_ENTER(cudaMemPoolDestroy_v11020, &p, NULL);
	RT_CU(cuMemPoolDestroy((CUmemoryPool)pool));
}

cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep)
{
	cudaMemPoolTrimTo_v11020_params p = { pool, keep };
	RT_ENTER(cudaMemPoolTrimTo_v11020, &p, NULL);
	RT_CU(cuMemPoolTrimTo((CUmemoryPool)pool, keep));
}

cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr,
					      void *value)
{
	cudaMemPoolSetAttribute_v11020_params p = { pool, attr, value };
	RT_ENTER(cudaMemPoolSetAttribute_v11020, &p, NULL);
	RT_CU(cuMemPoolSetAttribute((CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr,
					      void *value)
{
	cudaMemPoolGetAttribute_v11020_params p = { pool, attr, value };
	RT_ENTER(cudaMemPoolGetAttribute_v11020, &p, NULL);
	RT_CU(cuMemPoolGetAttribute((CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaMemPoolSetAccess(cudaMemPool_t pool,
					   const struct cudaMemAccessDesc *descs, size_t count)
{
	_Static_assert(sizeof(struct cudaMemAccessDesc) == sizeof(CUmemAccessDesc), "access desc");
	RT_ENTER(cudaMemPoolSetAccess_v11020, NULL, NULL);
	RT_CU(cuMemPoolSetAccess((CUmemoryPool)pool, (const CUmemAccessDesc *)descs, count));
}

cudaError_t CUDARTAPI cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t pool,
					   struct cudaMemLocation *loc)
{
	RT_ENTER(cudaMemPoolGetAccess_v11020, NULL, NULL);
	RT_CU(cuMemPoolGetAccess((CUmemAccess_flags *)flags, (CUmemoryPool)pool,
				 (CUmemLocation *)loc));
}

/*
 * CUDA 13.0's pools by location: CUPTI has no runtime cbid for these, so
 * only their driver calls are traced.
 */
cudaError_t CUDARTAPI cudaMemGetDefaultMemPool(cudaMemPool_t *pool, struct cudaMemLocation *loc,
					       enum cudaMemAllocationType type)
{
	rt_init();
	return from_cu(cuMemGetDefaultMemPool(pool, (CUmemLocation *)loc, (CUmemAllocationType)type));
}

cudaError_t CUDARTAPI cudaMemGetMemPool(cudaMemPool_t *pool, struct cudaMemLocation *loc,
					enum cudaMemAllocationType type)
{
	rt_init();
	return from_cu(cuMemGetMemPool(pool, (CUmemLocation *)loc, (CUmemAllocationType)type));
}

cudaError_t CUDARTAPI cudaMemSetMemPool(struct cudaMemLocation *loc, enum cudaMemAllocationType type,
					cudaMemPool_t pool)
{
	rt_init();
	return from_cu(cuMemSetMemPool((CUmemLocation *)loc, (CUmemAllocationType)type, pool));
}

cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
	RT_ENTER(cudaDeviceGetDefaultMemPool_v11020, NULL, NULL);
	RT_CU(cuDeviceGetDefaultMemPool((CUmemoryPool *)pool, device));
}

cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *pool, int device)
{
	RT_ENTER(cudaDeviceGetMemPool_v11020, NULL, NULL);
	RT_CU(cuDeviceGetMemPool((CUmemoryPool *)pool, device));
}

cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
	RT_ENTER(cudaDeviceSetMemPool_v11020, NULL, NULL);
	RT_CU(cuDeviceSetMemPool(device, (CUmemoryPool)pool));
}

/* ---- managed memory -------------------------------------------------------- */

cudaError_t CUDARTAPI cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	cudaMallocManaged_v6000_params p = { ptr, size, flags };
	CUdeviceptr d = 0;
	CUresult r;
	RT_ENTER(cudaMallocManaged_v6000, &p, NULL);

	if (!ptr)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuMemAllocManaged(&d, size, flags);
	*ptr = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t s, void *ptr, size_t length,
					       unsigned int flags)
{
	cudaStreamAttachMemAsync_v6000_params p = { s, ptr, length, flags };
	RT_ENTER(cudaStreamAttachMemAsync_v6000, &p, NULL);
	RT_CU(cuStreamAttachMemAsync(s, DP(ptr), length, flags));
}

cudaError_t CUDARTAPI cudaStreamAttachMemAsync_ptsz(cudaStream_t s, void *ptr, size_t length,
						    unsigned int flags)
{
	cudaStreamAttachMemAsync_ptsz_v7000_params p = { s, ptr, length, flags };
	RT_ENTER(cudaStreamAttachMemAsync_ptsz_v7000, &p, NULL);
	RT_CU(cuStreamAttachMemAsync(pts(s), DP(ptr), length, flags));
}

/* CUDA 13: "cudaMemPrefetchAsync(devPtr, count, location, flags, stream)". */
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *ptr, size_t count,
					   struct cudaMemLocation loc, unsigned int flags,
					   cudaStream_t s)
{
	cudaMemPrefetchAsync_v12020_params p = { ptr, count, loc, flags, s };
	RT_ENTER(cudaMemPrefetchAsync_v12020, &p, NULL);
	RT_CU(cuMemPrefetchAsync(DP(ptr), count, cu_loc(loc), flags, s));
}

cudaError_t CUDARTAPI cudaMemPrefetchAsync_ptsz(const void *ptr, size_t count,
						struct cudaMemLocation loc, unsigned int flags,
						cudaStream_t s)
{
	cudaMemPrefetchAsync_ptsz_v12020_params p = { ptr, count, loc, flags, s };
	RT_ENTER(cudaMemPrefetchAsync_ptsz_v12020, &p, NULL);
	RT_CU(cuMemPrefetchAsync(DP(ptr), count, cu_loc(loc), flags, pts(s)));
}

/* CUDA 13: "cudaMemAdvise(devPtr, count, advice, location)". */
cudaError_t CUDARTAPI cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice,
				    struct cudaMemLocation loc)
{
	cudaMemAdvise_v12020_params p = { ptr, count, advice, loc };
	RT_ENTER(cudaMemAdvise_v12020, &p, NULL);
	RT_CU(cuMemAdvise(DP(ptr), count, (CUmem_advise)advice, cu_loc(loc)));
}

/* CUDA 13's batches: the driver's calls, pointer arrays as CUdeviceptr arrays. */
cudaError_t CUDARTAPI cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
						struct cudaMemLocation *locs, size_t *loc_idxs,
						size_t nlocs, unsigned long long flags,
						cudaStream_t s)
{
	cudaMemPrefetchBatchAsync_v13000_params p = { dptrs, sizes, count, locs, loc_idxs, nlocs,
						      flags, s };
	RT_ENTER(cudaMemPrefetchBatchAsync_v13000, &p, NULL);
	RT_CU(cuMemPrefetchBatchAsync((CUdeviceptr *)dptrs, sizes, count, (CUmemLocation *)locs,
				      loc_idxs, nlocs, flags, s));
}

cudaError_t CUDARTAPI cudaMemPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
						     struct cudaMemLocation *locs, size_t *loc_idxs,
						     size_t nlocs, unsigned long long flags,
						     cudaStream_t s)
{
	cudaMemPrefetchBatchAsync_ptsz_v13000_params p = { dptrs, sizes, count, locs, loc_idxs,
							   nlocs, flags, s };
	RT_ENTER(cudaMemPrefetchBatchAsync_ptsz_v13000, &p, NULL);
	RT_CU(cuMemPrefetchBatchAsync((CUdeviceptr *)dptrs, sizes, count, (CUmemLocation *)locs,
				      loc_idxs, nlocs, flags, pts(s)));
}

cudaError_t CUDARTAPI cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
					       unsigned long long flags, cudaStream_t s)
{
	cudaMemDiscardBatchAsync_v13000_params p = { dptrs, sizes, count, flags, s };
	RT_ENTER(cudaMemDiscardBatchAsync_v13000, &p, NULL);
	RT_CU(cuMemDiscardBatchAsync((CUdeviceptr *)dptrs, sizes, count, flags, s));
}

cudaError_t CUDARTAPI cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
						    unsigned long long flags, cudaStream_t s)
{
	cudaMemDiscardBatchAsync_ptsz_v13000_params p = { dptrs, sizes, count, flags, s };
	RT_ENTER(cudaMemDiscardBatchAsync_ptsz_v13000, &p, NULL);
	RT_CU(cuMemDiscardBatchAsync((CUdeviceptr *)dptrs, sizes, count, flags, pts(s)));
}

cudaError_t CUDARTAPI cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
							  struct cudaMemLocation *locs,
							  size_t *loc_idxs, size_t nlocs,
							  unsigned long long flags, cudaStream_t s)
{
	cudaMemDiscardAndPrefetchBatchAsync_v13000_params p = { dptrs, sizes, count, locs,
								loc_idxs, nlocs, flags, s };
	RT_ENTER(cudaMemDiscardAndPrefetchBatchAsync_v13000, &p, NULL);
	RT_CU(cuMemDiscardAndPrefetchBatchAsync((CUdeviceptr *)dptrs, sizes, count,
						(CUmemLocation *)locs, loc_idxs, nlocs, flags, s));
}

cudaError_t CUDARTAPI cudaMemDiscardAndPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes,
							       size_t count,
							       struct cudaMemLocation *locs,
							       size_t *loc_idxs, size_t nlocs,
							       unsigned long long flags,
							       cudaStream_t s)
{
	cudaMemDiscardAndPrefetchBatchAsync_ptsz_v13000_params p = { dptrs, sizes, count, locs,
								     loc_idxs, nlocs, flags, s };
	RT_ENTER(cudaMemDiscardAndPrefetchBatchAsync_ptsz_v13000, &p, NULL);
	RT_CU(cuMemDiscardAndPrefetchBatchAsync((CUdeviceptr *)dptrs, sizes, count,
						(CUmemLocation *)locs, loc_idxs, nlocs, flags,
						pts(s)));
}

/* Pool IPC: the driver's calls (none is possible on the simulated device, see sim_mem.c). */
cudaError_t CUDARTAPI cudaMemPoolExportToShareableHandle(void *handle, cudaMemPool_t pool,
							 enum cudaMemAllocationHandleType type,
							 unsigned int flags)
{
	cudaMemPoolExportToShareableHandle_v11020_params p = { handle, pool, type, flags };
	RT_ENTER(cudaMemPoolExportToShareableHandle_v11020, &p, NULL);
	RT_CU(cuMemPoolExportToShareableHandle(handle, (CUmemoryPool)pool,
					       (CUmemAllocationHandleType)type, flags));
}

cudaError_t CUDARTAPI cudaMemPoolImportFromShareableHandle(cudaMemPool_t *pool, void *handle,
							   enum cudaMemAllocationHandleType type,
							   unsigned int flags)
{
	cudaMemPoolImportFromShareableHandle_v11020_params p = { pool, handle, type, flags };
	RT_ENTER(cudaMemPoolImportFromShareableHandle_v11020, &p, NULL);
	RT_CU(cuMemPoolImportFromShareableHandle((CUmemoryPool *)pool, handle,
						 (CUmemAllocationHandleType)type, flags));
}

cudaError_t CUDARTAPI cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *data, void *ptr)
{
	cudaMemPoolExportPointer_v11020_params p = { data, ptr };
	RT_ENTER(cudaMemPoolExportPointer_v11020, &p, NULL);
	RT_CU(cuMemPoolExportPointer((CUmemPoolPtrExportData *)data, DP(ptr)));
}

cudaError_t CUDARTAPI cudaMemPoolImportPointer(void **ptr, cudaMemPool_t pool,
					       struct cudaMemPoolPtrExportData *data)
{
	cudaMemPoolImportPointer_v11020_params p = { ptr, pool, data };
	CUdeviceptr d = 0;
	CUresult r;
	RT_ENTER(cudaMemPoolImportPointer_v11020, &p, NULL);

	if (!ptr)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuMemPoolImportPointer(&d, (CUmemoryPool)pool, (CUmemPoolPtrExportData *)data);
	*ptr = (void *)(uintptr_t)d;
	RT_CU(r);
}

#pragma GCC visibility pop
