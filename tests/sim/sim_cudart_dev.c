// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: device and stream queries, peers, IPC, function and graph memory attributes. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_dev.c, sim_cuda.c), traced inside
 * it. Device numbers are checked here, as the runtime names devices and
 * the driver contexts.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_rt.h"

_Static_assert((int)cudaFuncAttributeMaxDynamicSharedMemorySize ==
		       (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	       "function attribute");
_Static_assert((int)cudaFuncAttributePreferredSharedMemoryCarveout ==
		       (int)CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
	       "function attribute");
_Static_assert((int)cudaFuncCachePreferEqual == (int)CU_FUNC_CACHE_PREFER_EQUAL, "cache config");
_Static_assert((int)cudaDriverEntryPointSymbolNotFound == (int)CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
	       "entry point status");
_Static_assert((int)cudaGraphMemAttrReservedMemHigh == (int)CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
	       "graph memory attribute");

cudaError_t CUDARTAPI cudaMemcpyPeerAsync_ptsz(void *dst, int ddev, const void *src, int sdev,
					       size_t n, cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int *flags);
cudaError_t CUDARTAPI cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src);
cudaError_t CUDARTAPI cudaStreamGetPriority_ptsz(cudaStream_t s, int *priority);
cudaError_t CUDARTAPI cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long *id);
cudaError_t CUDARTAPI cudaStreamGetDevice_ptsz(cudaStream_t s, int *dev);
/* The driver's per-thread-stream form, which cuda.h declares only for its own per-thread build. */
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
					CUcontext sctx, size_t n, CUstream s);

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static CUstream pts(cudaStream_t s)
{
	return s ? (CUstream)s : gpsim_stream_per_thread();
}

static int device_ok(int d)
{
	return d == GPSIM_DEVICE_ID;
}

#pragma GCC visibility push(default)

/* ---- device and stream queries ---- */

/*
 * "Returns in *attributes the attributes of the pointer ptr": host memory
 * the runtime does not know is cudaMemoryTypeUnregistered ("If pointer
 * was not allocated in, mapped by or registered with context supporting
 * unified addressing"), as since CUDA 11, not an error.
 */
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
	cudaPointerGetAttributes_v4000_params p = { attr, ptr };
	CUpointer_attribute want[] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
				       CU_POINTER_ATTRIBUTE_IS_MANAGED,
				       CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
				       CU_POINTER_ATTRIBUTE_HOST_POINTER };
	unsigned int type = 0;
	bool managed = false;
	CUdeviceptr dev = 0;
	void *host = NULL, *data[] = { &type, &managed, &dev, &host };
	CUresult r;
	RT_ENTER(cudaPointerGetAttributes_v4000, &p, NULL);

	if (!attr)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuPointerGetAttributes(4, want, data, DP(ptr));
	if (r != CUDA_SUCCESS)
		RT_CU(r);
	memset(attr, 0, sizeof(*attr));
	attr->type = managed			   ? cudaMemoryTypeManaged :
		     type == CU_MEMORYTYPE_HOST	   ? cudaMemoryTypeHost :
		     type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice :
						    cudaMemoryTypeUnregistered;
	attr->device = GPSIM_DEVICE_ID;
	attr->devicePointer = (void *)(uintptr_t)dev;
	attr->hostPointer = host;
	/* "CUDA doesn't check if unregistered memory is allocated so this field may contain invalid pointer" */
	if (attr->type == cudaMemoryTypeUnregistered)
		attr->hostPointer = (void *)(uintptr_t)ptr;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t s, unsigned int *flags)
{
	cudaStreamGetFlags_v5050_params p = { s, flags };
	RT_ENTER(cudaStreamGetFlags_v5050, &p, NULL);
	RT_CU(cuStreamGetFlags(s, flags));
}

cudaError_t CUDARTAPI cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int *flags)
{
	cudaStreamGetFlags_ptsz_v7000_params p = { s, flags };
	RT_ENTER(cudaStreamGetFlags_ptsz_v7000, &p, NULL);
	RT_CU(cuStreamGetFlags(pts(s), flags));
}

cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t s, int *priority)
{
	cudaStreamGetPriority_v5050_params p = { s, priority };
	RT_ENTER(cudaStreamGetPriority_v5050, &p, NULL);
	RT_CU(cuStreamGetPriority(s, priority));
}

cudaError_t CUDARTAPI cudaStreamGetPriority_ptsz(cudaStream_t s, int *priority)
{
	cudaStreamGetPriority_ptsz_v7000_params p = { s, priority };
	RT_ENTER(cudaStreamGetPriority_ptsz_v7000, &p, NULL);
	RT_CU(cuStreamGetPriority(pts(s), priority));
}

cudaError_t CUDARTAPI cudaStreamGetId(cudaStream_t s, unsigned long long *id)
{
	cudaStreamGetId_v12000_params p = { s, id };
	RT_ENTER(cudaStreamGetId_v12000, &p, NULL);
	RT_CU(cuStreamGetId(s, id));
}

cudaError_t CUDARTAPI cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long *id)
{
	cudaStreamGetId_ptsz_v12000_params p = { s, id };
	RT_ENTER(cudaStreamGetId_ptsz_v12000, &p, NULL);
	RT_CU(cuStreamGetId(pts(s), id));
}

cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t s, int *dev)
{
	cudaStreamGetDevice_v12080_params p = { s, dev };
	RT_ENTER(cudaStreamGetDevice_v12080, &p, NULL);
	RT_CU(cuStreamGetDevice(s, (CUdevice *)dev));
}

cudaError_t CUDARTAPI cudaStreamGetDevice_ptsz(cudaStream_t s, int *dev)
{
	cudaStreamGetDevice_ptsz_v12080_params p = { s, dev };
	RT_ENTER(cudaStreamGetDevice_ptsz_v12080, &p, NULL);
	RT_CU(cuStreamGetDevice(pts(s), (CUdevice *)dev));
}

cudaError_t CUDARTAPI cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
	cudaStreamCopyAttributes_v11000_params p = { dst, src };
	RT_ENTER(cudaStreamCopyAttributes_v11000, &p, NULL);
	RT_CU(cuStreamCopyAttributes(dst, src));
}

cudaError_t CUDARTAPI cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
	cudaStreamCopyAttributes_ptsz_v11000_params p = { dst, src };
	RT_ENTER(cudaStreamCopyAttributes_ptsz_v11000, &p, NULL);
	RT_CU(cuStreamCopyAttributes(pts(dst), pts(src)));
}

/* "Returns in flags the flags for the current device": the primary context's (cudaSetDeviceFlags). */
cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags)
{
	unsigned int f = 0;
	int active = 0;
	CUresult r;
	RT_ENTER(cudaGetDeviceFlags_v7000, NULL, NULL);

	if (!flags)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuDevicePrimaryCtxGetState(GPSIM_DEVICE_ID, &f, &active);
	*flags = f;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
	RT_ENTER(cudaDeviceGetCacheConfig_v3020, NULL, NULL);
	RT_CU(cuCtxGetCacheConfig((CUfunc_cache *)config));
}

cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
	RT_ENTER(cudaDeviceSetCacheConfig_v3020, NULL, NULL);
	RT_CU(cuCtxSetCacheConfig((CUfunc_cache)config));
}

cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *id, int len, int dev)
{
	RT_ENTER(cudaDeviceGetPCIBusId_v4010, NULL, NULL);
	RT_CU(cuDeviceGetPCIBusId(id, len, dev));
}

cudaError_t CUDARTAPI cudaDeviceGetByPCIBusId(int *dev, const char *id)
{
	RT_ENTER(cudaDeviceGetByPCIBusId_v4010, NULL, NULL);
	RT_CU(cuDeviceGetByPCIBusId((CUdevice *)dev, id));
}

/* "Returns in *device the device which has properties that best match *prop": the only one. */
cudaError_t CUDARTAPI cudaChooseDevice(int *dev, const struct cudaDeviceProp *prop)
{
	RT_ENTER(cudaChooseDevice_v3020, NULL, NULL);
	if (!dev || !prop)
		RT_RETURN(cudaErrorInvalidValue);
	*dev = GPSIM_DEVICE_ID;
	RT_RETURN(cudaSuccess);
}

/* "This function will initialize the CUDA Runtime structures and primary context on device": done already. */
cudaError_t CUDARTAPI cudaInitDevice(int dev, unsigned int dflags, unsigned int flags)
{
	RT_ENTER(cudaInitDevice_v12000, NULL, NULL);
	if (!device_ok(dev))
		RT_RETURN(cudaErrorInvalidDevice);
	if (flags)
		RT_RETURN(cudaErrorInvalidValue);
	RT_CU(dflags ? cuDevicePrimaryCtxSetFlags(GPSIM_DEVICE_ID, dflags) : CUDA_SUCCESS);
}

/*
 * The driver's function for symbol (cuGetProcAddress): "cudaVersion" the
 * runtime's own for cudaGetDriverEntryPoint. driverStatus says why none.
 */
static cudaError_t entry_point(const char *symbol, void **fn, int version,
			       unsigned long long flags,
			       enum cudaDriverEntryPointQueryResult *status)
{
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult r = cuGetProcAddress(symbol, fn, version, flags, &st);

	if (status)
		*status = (enum cudaDriverEntryPointQueryResult)st;
	return from_cu(r);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPoint(const char *symbol, void **fn,
					      unsigned long long flags,
					      enum cudaDriverEntryPointQueryResult *status)
{
	RT_ENTER(cudaGetDriverEntryPoint_v11030, NULL, NULL);
	RT_RETURN(entry_point(symbol, fn, CUDART_VERSION, flags, status));
}

cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
						       unsigned int version,
						       unsigned long long flags,
						       enum cudaDriverEntryPointQueryResult *status)
{
	RT_ENTER(cudaGetDriverEntryPointByVersion_v12050, NULL, NULL);
	RT_RETURN(entry_point(symbol, fn, (int)version, flags, status));
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *flags, void *p)
{
	cudaHostGetFlags_v3020_params prm = { flags, p };
	RT_ENTER(cudaHostGetFlags_v3020, &prm, NULL);
	RT_CU(cuMemHostGetFlags(flags, p));
}

cudaError_t CUDARTAPI cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, const void *func,
								int nblocks, int bs)
{
	CUfunction f = rt_func_of(func);
	RT_ENTER(cudaOccupancyAvailableDynamicSMemPerBlock_v10200, NULL, NULL);

	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuOccupancyAvailableDynamicSMemPerBlock(smem, f, nblocks, bs));
}

/* "Returns the function name": the name nvcc registered for it. */
cudaError_t CUDARTAPI cudaFuncGetName(const char **name, const void *func)
{
	CUfunction f = rt_func_of(func);
	RT_ENTER(cudaFuncGetName_v12030, NULL, NULL);

	if (!name)
		RT_RETURN(cudaErrorInvalidValue);
	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuFuncGetName(name, f));
}

/* ---- peers ---- */

cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *can, int dev, int peer)
{
	cudaDeviceCanAccessPeer_v4000_params p = { can, dev, peer };
	RT_ENTER(cudaDeviceCanAccessPeer_v4000, &p, NULL);
	RT_CU(cuDeviceCanAccessPeer(can, dev, peer));
}

/*
 * "Returns cudaErrorInvalidDevice if cudaDeviceCanAccessPeer() indicates
 * that the current device cannot directly access memory from peerDevice."
 * "Returns cudaErrorInvalidValue if flags is not 0."
 */
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	cudaDeviceEnablePeerAccess_v4000_params p = { peer, flags };
	int can = 0;
	CUresult r;
	RT_ENTER(cudaDeviceEnablePeerAccess_v4000, &p, NULL);

	if (flags)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuDeviceCanAccessPeer(&can, GPSIM_DEVICE_ID, peer);
	if (r != CUDA_SUCCESS || !can)
		RT_RETURN(cudaErrorInvalidDevice);
	RT_CU(cuCtxEnablePeerAccess(gpsim_primary_ctx(), flags));
}

/* "Returns cudaErrorPeerAccessNotEnabled if direct access to memory on peerDevice has not yet been enabled" */
cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peer)
{
	cudaDeviceDisablePeerAccess_v4000_params p = { peer };
	RT_ENTER(cudaDeviceDisablePeerAccess_v4000, &p, NULL);

	if (!device_ok(peer))
		RT_RETURN(cudaErrorInvalidDevice);
	RT_CU(cuCtxDisablePeerAccess(gpsim_primary_ctx()));
}

cudaError_t CUDARTAPI cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int src,
						int dst)
{
	cudaDeviceGetP2PAttribute_v8000_params p = { value, attr, src, dst };
	RT_ENTER(cudaDeviceGetP2PAttribute_v8000, &p, NULL);
	RT_CU(cuDeviceGetP2PAttribute(value, (CUdevice_P2PAttribute)attr, src, dst));
}

/* "Copies memory from one device to memory on another device": here from device 0 to itself. */
cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n)
{
	cudaMemcpyPeer_v4000_params p = { dst, ddev, src, sdev, n };
	RT_ENTER(cudaMemcpyPeer_v4000, &p, NULL);

	if (!device_ok(ddev) || !device_ok(sdev))
		RT_RETURN(cudaErrorInvalidDevice);
	RT_CU(cuMemcpyPeer(DP(dst), gpsim_primary_ctx(), DP(src), gpsim_primary_ctx(), n));
}

cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n,
					  cudaStream_t s)
{
	cudaMemcpyPeerAsync_v4000_params p = { dst, ddev, src, sdev, n, s };
	RT_ENTER(cudaMemcpyPeerAsync_v4000, &p, NULL);

	if (!device_ok(ddev) || !device_ok(sdev))
		RT_RETURN(cudaErrorInvalidDevice);
	RT_CU(cuMemcpyPeerAsync(DP(dst), gpsim_primary_ctx(), DP(src), gpsim_primary_ctx(), n, s));
}

cudaError_t CUDARTAPI cudaMemcpyPeerAsync_ptsz(void *dst, int ddev, const void *src, int sdev,
					       size_t n, cudaStream_t s)
{
	cudaMemcpyPeerAsync_v4000_params p = { dst, ddev, src, sdev, n, s };
	RT_ENTER(cudaMemcpyPeerAsync_v4000, &p, NULL);

	if (!device_ok(ddev) || !device_ok(sdev))
		RT_RETURN(cudaErrorInvalidDevice);
	RT_CU(cuMemcpyPeerAsync_ptsz(DP(dst), gpsim_primary_ctx(), DP(src), gpsim_primary_ctx(), n,
				     s));
}

/* ---- IPC: not simulated (sim_dev.c) ---- */

cudaError_t CUDARTAPI cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *ptr)
{
	cudaIpcGetMemHandle_v4010_params p = { handle, ptr };
	RT_ENTER(cudaIpcGetMemHandle_v4010, &p, NULL);
	RT_CU(cuIpcGetMemHandle((CUipcMemHandle *)handle, DP(ptr)));
}

cudaError_t CUDARTAPI cudaIpcOpenMemHandle(void **ptr, cudaIpcMemHandle_t handle,
					   unsigned int flags)
{
	cudaIpcOpenMemHandle_v4010_params p = { ptr, handle, flags };
	CUipcMemHandle h;
	CUdeviceptr d = 0;
	CUresult r;
	RT_ENTER(cudaIpcOpenMemHandle_v4010, &p, NULL);

	if (!ptr)
		RT_RETURN(cudaErrorInvalidValue);
	_Static_assert(sizeof(h) == sizeof(handle), "IPC handle");
	memcpy(&h, &handle, sizeof(h));
	r = cuIpcOpenMemHandle(&d, h, flags);
	*ptr = (void *)(uintptr_t)d;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaIpcCloseMemHandle(void *ptr)
{
	cudaIpcCloseMemHandle_v4010_params p = { ptr };
	RT_ENTER(cudaIpcCloseMemHandle_v4010, &p, NULL);
	RT_CU(cuIpcCloseMemHandle(DP(ptr)));
}

cudaError_t CUDARTAPI cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t e)
{
	cudaIpcGetEventHandle_v4010_params p = { handle, e };
	RT_ENTER(cudaIpcGetEventHandle_v4010, &p, NULL);
	RT_CU(cuIpcGetEventHandle((CUipcEventHandle *)handle, e));
}

cudaError_t CUDARTAPI cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t handle)
{
	cudaIpcOpenEventHandle_v4010_params p = { e, handle };
	CUipcEventHandle h;
	RT_ENTER(cudaIpcOpenEventHandle_v4010, &p, NULL);

	_Static_assert(sizeof(h) == sizeof(handle), "IPC handle");
	memcpy(&h, &handle, sizeof(h));
	RT_CU(cuIpcOpenEventHandle(e, h));
}

/* ---- function attributes ---- */

cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
	cudaFuncSetCacheConfig_v3020_params p = { func, config };
	CUfunction f = rt_func_of(func);
	RT_ENTER(cudaFuncSetCacheConfig_v3020, &p, NULL);

	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuFuncSetCacheConfig(f, (CUfunc_cache)config));
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	cudaFuncSetAttribute_v9000_params p = { func, attr, value };
	CUfunction f = rt_func_of(func);
	RT_ENTER(cudaFuncSetAttribute_v9000, &p, NULL);

	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuFuncSetAttribute(f, (CUfunction_attribute)attr, value));
}

/* ---- graph memory ---- */

cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int dev, enum cudaGraphMemAttributeType attr,
						     void *value)
{
	cudaDeviceGetGraphMemAttribute_v11040_params p = { dev, attr, value };
	RT_ENTER(cudaDeviceGetGraphMemAttribute_v11040, &p, NULL);
	RT_CU(cuDeviceGetGraphMemAttribute(dev, (CUgraphMem_attribute)attr, value));
}

cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int dev, enum cudaGraphMemAttributeType attr,
						     void *value)
{
	cudaDeviceSetGraphMemAttribute_v11040_params p = { dev, attr, value };
	RT_ENTER(cudaDeviceSetGraphMemAttribute_v11040, &p, NULL);
	RT_CU(cuDeviceSetGraphMemAttribute(dev, (CUgraphMem_attribute)attr, value));
}

#pragma GCC visibility pop
