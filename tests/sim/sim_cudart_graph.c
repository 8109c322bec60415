// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: capture across streams, child graphs, node and instantiation
 * parameters, graph queries, stream attributes and limits. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_cuda.c), traced inside it. The
 * runtime's capture, edge and instantiation types are the driver's with
 * other names: the same layouts and values.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <stdint.h>

#include "sim_internal.h"
#include "sim_rt.h"

_Static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "edge data");
_Static_assert(sizeof(cudaGraphInstantiateParams) == sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS),
	       "instantiate params");
_Static_assert((int)cudaGraphInstantiateInvalidStructure ==
		   (int)CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE,
	       "instantiate result");
_Static_assert((int)cudaStreamCaptureModeRelaxed == (int)CU_STREAM_CAPTURE_MODE_RELAXED,
	       "capture mode");
_Static_assert((int)cudaStreamCaptureStatusInvalidated == (int)CU_STREAM_CAPTURE_STATUS_INVALIDATED,
	       "capture status");
_Static_assert((int)cudaStreamSetCaptureDependencies == (int)CU_STREAM_SET_CAPTURE_DEPENDENCIES,
	       "capture dependency flags");
_Static_assert(sizeof(cudaStreamAttrValue) == sizeof(CUstreamAttrValue), "stream attribute value");
_Static_assert(sizeof(struct cudaAccessPolicyWindow) == sizeof(CUaccessPolicyWindow),
	       "access policy window");
_Static_assert((int)cudaLaunchAttributeMemSyncDomain == (int)CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN,
	       "stream attribute ids");
_Static_assert((int)cudaLimitPersistingL2CacheSize == (int)CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
	       "limits");

/* The per-thread-stream variants the headers only declare under CUDA_API_PER_THREAD_DEFAULT_STREAM.
 */
cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t g,
							 const cudaGraphNode_t *deps,
							 const cudaGraphEdgeData *edges,
							 size_t ndeps,
							 enum cudaStreamCaptureMode mode);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_ptsz(cudaStream_t s,
						    enum cudaStreamCaptureStatus *status,
						    unsigned long long *id, cudaGraph_t *graph,
						    const cudaGraphNode_t **deps,
						    const cudaGraphEdgeData **edges, size_t *ndeps);
cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t s,
							       cudaGraphNode_t *deps,
							       const cudaGraphEdgeData *edges,
							       size_t n, unsigned int flags);
cudaError_t CUDARTAPI cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *x, cudaGraph_t g,
							  cudaGraphInstantiateParams *p);
cudaError_t CUDARTAPI cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
						  cudaStreamAttrValue *v);
cudaError_t CUDARTAPI cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
						  const cudaStreamAttrValue *v);

static CUstream pts(cudaStream_t s)
{
	return s ? (CUstream)s : gpsim_stream_per_thread();
}

#pragma GCC visibility push(default)

cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
						    const cudaGraphNode_t *deps,
						    const cudaGraphEdgeData *edges, size_t ndeps,
						    enum cudaStreamCaptureMode mode)
{
	RT_ENTER(cudaStreamBeginCaptureToGraph_v12030, NULL, NULL);
	RT_CU(cuStreamBeginCaptureToGraph(s, g, deps, (const CUgraphEdgeData *)edges, ndeps,
					  (CUstreamCaptureMode)mode));
}

cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t g,
							 const cudaGraphNode_t *deps,
							 const cudaGraphEdgeData *edges,
							 size_t ndeps,
							 enum cudaStreamCaptureMode mode)
{
	RT_ENTER(cudaStreamBeginCaptureToGraph_ptsz_v12030, NULL, NULL);
	RT_CU(cuStreamBeginCaptureToGraph(pts(s), g, deps, (const CUgraphEdgeData *)edges, ndeps,
					  (CUstreamCaptureMode)mode));
}

cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(cudaStream_t s, enum cudaStreamCaptureStatus *status,
					       unsigned long long *id, cudaGraph_t *graph,
					       const cudaGraphNode_t **deps,
					       const cudaGraphEdgeData **edges, size_t *ndeps)
{
	RT_ENTER(cudaStreamGetCaptureInfo_v12030, NULL, NULL);
	RT_CU(cuStreamGetCaptureInfo_v3(s, (CUstreamCaptureStatus *)status, (cuuint64_t *)id, graph,
					deps, (const CUgraphEdgeData **)edges, ndeps));
}

cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_ptsz(cudaStream_t s,
						    enum cudaStreamCaptureStatus *status,
						    unsigned long long *id, cudaGraph_t *graph,
						    const cudaGraphNode_t **deps,
						    const cudaGraphEdgeData **edges, size_t *ndeps)
{
	RT_ENTER(cudaStreamGetCaptureInfo_ptsz_v12030, NULL, NULL);
	RT_CU(cuStreamGetCaptureInfo_v3(pts(s), (CUstreamCaptureStatus *)status, (cuuint64_t *)id,
					graph, deps, (const CUgraphEdgeData **)edges, ndeps));
}

cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
							  const cudaGraphEdgeData *edges, size_t n,
							  unsigned int flags)
{
	RT_ENTER(cudaStreamUpdateCaptureDependencies_v12030, NULL, NULL);
	RT_CU(cuStreamUpdateCaptureDependencies_v2(s, deps, (const CUgraphEdgeData *)edges, n,
						   flags));
}

cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t s,
							       cudaGraphNode_t *deps,
							       const cudaGraphEdgeData *edges,
							       size_t n, unsigned int flags)
{
	RT_ENTER(cudaStreamUpdateCaptureDependencies_ptsz_v12030, NULL, NULL);
	RT_CU(cuStreamUpdateCaptureDependencies_v2(pts(s), deps, (const CUgraphEdgeData *)edges, n,
						   flags));
}

cudaError_t CUDARTAPI cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	RT_ENTER(cudaThreadExchangeStreamCaptureMode_v10010, NULL, NULL);
	RT_CU(cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
}

cudaError_t CUDARTAPI cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g,
						 const cudaGraphNode_t *deps, size_t ndeps,
						 cudaGraph_t child)
{
	RT_ENTER(cudaGraphAddChildGraphNode_v10000, NULL, NULL);
	RT_CU(cuGraphAddChildGraphNode(out, g, deps, ndeps, child));
}

cudaError_t CUDARTAPI cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *out)
{
	RT_ENTER(cudaGraphChildGraphNodeGetGraph_v10000, NULL, NULL);
	RT_CU(cuGraphChildGraphNodeGetGraph(node, out));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
						   struct cudaKernelNodeParams *p)
{
	CUDA_KERNEL_NODE_PARAMS d;
	CUresult r;
	RT_ENTER(cudaGraphKernelNodeGetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphKernelNodeGetParams(node, &d);
	if (r != CUDA_SUCCESS)
		RT_CU(r);
	/* The runtime names a kernel by its host stub, as cudaGraphAddKernelNode took it. */
	*p = (struct cudaKernelNodeParams){.func = (void *)(uintptr_t)rt_host_fun_of(d.func),
					   .gridDim = {d.gridDimX, d.gridDimY, d.gridDimZ},
					   .blockDim = {d.blockDimX, d.blockDimY, d.blockDimZ},
					   .sharedMemBytes = d.sharedMemBytes,
					   .kernelParams = d.kernelParams,
					   .extra = d.extra};
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
						   const struct cudaKernelNodeParams *p)
{
	CUfunction f = p ? rt_func_of(p->func) : NULL;
	CUDA_KERNEL_NODE_PARAMS d;
	RT_ENTER(cudaGraphKernelNodeSetParams_v10000, NULL, f ? gpsim_func_name(f) : NULL);

	if (!f)
		RT_RETURN(p ? cudaErrorInvalidDeviceFunction : cudaErrorInvalidValue);
	d = (CUDA_KERNEL_NODE_PARAMS){.func = f,
				      .gridDimX = p->gridDim.x,
				      .gridDimY = p->gridDim.y,
				      .gridDimZ = p->gridDim.z,
				      .blockDimX = p->blockDim.x,
				      .blockDimY = p->blockDim.y,
				      .blockDimZ = p->blockDim.z,
				      .sharedMemBytes = p->sharedMemBytes,
				      .kernelParams = p->kernelParams,
				      .extra = p->extra};
	RT_CU(cuGraphKernelNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithParams(cudaGraphExec_t *x, cudaGraph_t g,
						     cudaGraphInstantiateParams *p)
{
	RT_ENTER(cudaGraphInstantiateWithParams_v12000, NULL, NULL);
	RT_CU(cuGraphInstantiateWithParams(x, g, (CUDA_GRAPH_INSTANTIATE_PARAMS *)p));
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *x, cudaGraph_t g,
							  cudaGraphInstantiateParams *p)
{
	RT_ENTER(cudaGraphInstantiateWithParams_ptsz_v12000, NULL, NULL);
	RT_CU(cuGraphInstantiateWithParams(x, g, (CUDA_GRAPH_INSTANTIATE_PARAMS *)p));
}

cudaError_t CUDARTAPI cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *roots, size_t *num)
{
	RT_ENTER(cudaGraphGetRootNodes_v10000, NULL, NULL);
	RT_CU(cuGraphGetRootNodes(g, roots, num));
}

cudaError_t CUDARTAPI cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
					cudaGraphEdgeData *edges, size_t *num)
{
	RT_ENTER(cudaGraphGetEdges_v12030, NULL, NULL);
	RT_CU(cuGraphGetEdges_v2(g, from, to, (CUgraphEdgeData *)edges, num));
}

cudaError_t CUDARTAPI cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps,
						   cudaGraphEdgeData *edges, size_t *num)
{
	RT_ENTER(cudaGraphNodeGetDependencies_v12030, NULL, NULL);
	RT_CU(cuGraphNodeGetDependencies_v2(node, deps, (CUgraphEdgeData *)edges, num));
}

cudaError_t CUDARTAPI cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *out,
						     cudaGraphEdgeData *edges, size_t *num)
{
	RT_ENTER(cudaGraphNodeGetDependentNodes_v12030, NULL, NULL);
	RT_CU(cuGraphNodeGetDependentNodes_v2(node, out, (CUgraphEdgeData *)edges, num));
}

cudaError_t CUDARTAPI cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
							   cudaGraph_t child)
{
	RT_ENTER(cudaGraphExecChildGraphNodeSetParams_v11010, NULL, NULL);
	RT_CU(cuGraphExecChildGraphNodeSetParams(x, node, child));
}

cudaError_t CUDARTAPI cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *e)
{
	RT_ENTER(cudaGraphEventRecordNodeGetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphEventRecordNodeGetEvent(node, e));
}

cudaError_t CUDARTAPI cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t e)
{
	RT_ENTER(cudaGraphEventRecordNodeSetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphEventRecordNodeSetEvent(node, e));
}

cudaError_t CUDARTAPI cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *e)
{
	RT_ENTER(cudaGraphEventWaitNodeGetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphEventWaitNodeGetEvent(node, e));
}

cudaError_t CUDARTAPI cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t e)
{
	RT_ENTER(cudaGraphEventWaitNodeSetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphEventWaitNodeSetEvent(node, e));
}

cudaError_t CUDARTAPI cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t x, cudaGraphNode_t node,
							   cudaEvent_t e)
{
	RT_ENTER(cudaGraphExecEventRecordNodeSetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphExecEventRecordNodeSetEvent(x, node, e));
}

cudaError_t CUDARTAPI cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t x, cudaGraphNode_t node,
							 cudaEvent_t e)
{
	RT_ENTER(cudaGraphExecEventWaitNodeSetEvent_v11010, NULL, NULL);
	RT_CU(cuGraphExecEventWaitNodeSetEvent(x, node, e));
}

cudaError_t CUDARTAPI cudaGraphExecGetFlags(cudaGraphExec_t x, unsigned long long *flags)
{
	RT_ENTER(cudaGraphExecGetFlags_v12000, NULL, NULL);
	RT_CU(cuGraphExecGetFlags(x, (cuuint64_t *)flags));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
						      cudaKernelNodeAttrValue *v)
{
	RT_ENTER(cudaGraphKernelNodeGetAttribute_v11000, NULL, NULL);
	RT_CU(cuGraphKernelNodeGetAttribute(node, (CUkernelNodeAttrID)attr,
					    (CUkernelNodeAttrValue *)v));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
						      const cudaKernelNodeAttrValue *v)
{
	RT_ENTER(cudaGraphKernelNodeSetAttribute_v11000, NULL, NULL);
	RT_CU(cuGraphKernelNodeSetAttribute(node, (CUkernelNodeAttrID)attr,
					    (const CUkernelNodeAttrValue *)v));
}

cudaError_t CUDARTAPI cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src)
{
	RT_ENTER(cudaGraphKernelNodeCopyAttributes_v11000, NULL, NULL);
	RT_CU(cuGraphKernelNodeCopyAttributes(dst, src));
}

cudaError_t CUDARTAPI cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID attr,
					     cudaStreamAttrValue *v)
{
	RT_ENTER(cudaStreamGetAttribute_v11000, NULL, NULL);
	RT_CU(cuStreamGetAttribute(s, (CUstreamAttrID)attr, (CUstreamAttrValue *)v));
}

cudaError_t CUDARTAPI cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
						  cudaStreamAttrValue *v)
{
	RT_ENTER(cudaStreamGetAttribute_ptsz_v11000, NULL, NULL);
	RT_CU(cuStreamGetAttribute(pts(s), (CUstreamAttrID)attr, (CUstreamAttrValue *)v));
}

cudaError_t CUDARTAPI cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID attr,
					     const cudaStreamAttrValue *v)
{
	RT_ENTER(cudaStreamSetAttribute_v11000, NULL, NULL);
	RT_CU(cuStreamSetAttribute(s, (CUstreamAttrID)attr, (const CUstreamAttrValue *)v));
}

cudaError_t CUDARTAPI cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
						  const cudaStreamAttrValue *v)
{
	RT_ENTER(cudaStreamSetAttribute_ptsz_v11000, NULL, NULL);
	RT_CU(cuStreamSetAttribute(pts(s), (CUstreamAttrID)attr, (const CUstreamAttrValue *)v));
}

/* "the current limit maintained by the device": the current context's, here the primary one. */
cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	RT_ENTER(cudaDeviceSetLimit_v3020, NULL, NULL);
	RT_CU(cuCtxSetLimit((CUlimit)limit, value));
}

cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
	RT_ENTER(cudaDeviceGetLimit_v3020, NULL, NULL);
	RT_CU(cuCtxGetLimit(value, (CUlimit)limit));
}

cudaError_t CUDARTAPI cudaCtxResetPersistingL2Cache(void)
{
	RT_ENTER(cudaCtxResetPersistingL2Cache_v11000, NULL, NULL);
	RT_CU(cuCtxResetPersistingL2Cache());
}

#pragma GCC visibility pop
