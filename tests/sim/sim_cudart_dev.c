// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: peers, IPC, function attributes and graph memory attributes. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_dev.c, sim_cuda.c), traced inside
 * it. Device numbers are checked here, as the runtime names devices and
 * the driver contexts.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

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
_Static_assert((int)cudaGraphMemAttrReservedMemHigh == (int)CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
	       "graph memory attribute");

cudaError_t CUDARTAPI cudaMemcpyPeerAsync_ptsz(void *dst, int ddev, const void *src, int sdev,
					       size_t n, cudaStream_t s);
/* The driver's per-thread-stream form, which cuda.h declares only for its own per-thread build. */
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
					CUcontext sctx, size_t n, CUstream s);

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static int device_ok(int d)
{
	return d == GPSIM_DEVICE_ID;
}

#pragma GCC visibility push(default)

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
