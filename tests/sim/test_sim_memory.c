// SPDX-License-Identifier: Apache-2.0
/* The simulator's pools, managed memory, contexts and module images against the CUDA and CUPTI headers. */

/*
 * Each test quotes (DOC) the header sentence it checks. argv[1] is a cubin
 * and argv[2] a fatbin, both made by nvcc from test_sim_kernels.cu (kernels
 * "vadd", extern "C", and "_Z5scalePffi"), so module loading is tested on
 * what nvcc really writes.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_test.h"

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
			    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

#define DOC(s) static const char doc_sentence[] __attribute__((unused)) = s
#define KERNEL_SLOW "_Z10slowKernelv"
#define KERNEL_SLOW_NS 20000000ULL

static const char stub_slow;
static const char *cubin_path, *fatbin_path;

static int teardown(void **state)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cuptiFinalize();
	return 0;
}

static const CUpti_ActivityMemory4 *mem_rec(CUpti_ActivityMemoryOperationType op, uint64_t addr,
					   int nth)
{
	size_t i;

	for (i = 0; i < sim_recs.nrecs; i++) {
		const CUpti_ActivityMemory4 *m = (const void *)sim_recs.recs[i];

		if (m->kind == CUPTI_ACTIVITY_KIND_MEMORY2 && m->memoryOperationType == op &&
		    m->address == addr && nth-- == 0)
			return m;
	}
	return NULL;
}

static uint64_t pool_u64(cudaMemPool_t pool, enum cudaMemPoolAttr attr)
{
	cuuint64_t v = 0;

	assert_int_equal(cudaMemPoolGetAttribute(pool, attr, &v), cudaSuccess);
	return v;
}

static void test_stream_ordered_reuse(void **state)
{
	DOC("CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: Allow reuse of already completed frees "
	    "when there is no dependency between the free and allocation.");
	cudaStream_t s1, s2;
	cudaMemPool_t def;
	cuuint64_t keep = UINT64_MAX;
	void *a, *b, *c, *d;
	dim3 one = { 1, 1, 1 };

	int attr = 0;
	struct cudaDeviceProp prop;

	/* "Device supports using the cudaMallocAsync and cudaMemPool family of APIs" */
	assert_int_equal(cudaDeviceGetAttribute(&attr, cudaDevAttrMemoryPoolsSupported, 0),
			 cudaSuccess);
	assert_int_equal(attr, 1);
	assert_int_equal(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
	assert_int_equal(prop.memoryPoolsSupported, 1);
	assert_int_equal(prop.managedMemory, 1);
	/* Keep freed memory across synchronizes (the default threshold, 0, releases it). */
	assert_int_equal(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
	assert_int_equal(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep),
			 cudaSuccess);
	assert_int_equal(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaMallocAsync(&a, 4096, s1), cudaSuccess);
	memset(a, 0x5a, 4096); /* device memory is host memory here */
	assert_int_equal(cudaFreeAsync(a, s1), cudaSuccess);
	/* The same stream may reuse it at once: stream order makes that safe. */
	assert_int_equal(cudaMallocAsync(&b, 4096, s1), cudaSuccess);
	assert_ptr_equal(a, b);
	/* A free behind a 20 ms kernel has not run: another stream must not get its memory. */
	assert_int_equal(cudaLaunchKernel(&stub_slow, one, one, NULL, 0, s1), cudaSuccess);
	assert_int_equal(cudaFreeAsync(b, s1), cudaSuccess);
	assert_int_equal(cudaMallocAsync(&c, 4096, s2), cudaSuccess);
	assert_ptr_not_equal(c, b);
	/* Once the free has run, it may. */
	assert_int_equal(cudaStreamSynchronize(s1), cudaSuccess);
	assert_int_equal(cudaMallocAsync(&d, 4096, s2), cudaSuccess);
	assert_ptr_equal(d, b);
	assert_int_equal(cudaFreeAsync(c, s2), cudaSuccess);
	assert_int_equal(cudaFreeAsync(d, s2), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s2), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
	assert_int_equal(cudaFreeAsync((char *)d + 8, 0), cudaErrorInvalidValue);
	keep = 0;
	assert_int_equal(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep),
			 cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(pool_u64(def, cudaMemPoolAttrReservedMemCurrent), 0);
}

static void test_release_threshold_and_trim(void **state)
{
	DOC("When more than the release threshold bytes of memory are held by the memory pool, "
	    "the allocator will try to release memory back to the OS on the next call to stream, "
	    "event or context synchronize.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMORY_POOL,
					     CUPTI_ACTIVITY_KIND_RUNTIME };
	struct cudaMemPoolProps props = { .allocType = cudaMemAllocationTypePinned,
					   .location = { cudaMemLocationTypeDevice, 0 } };
	cudaMemPool_t pool;
	cuuint64_t big = 1 << 20;
	void *p;
	size_t i, ncreate = 0, ntrim = 0, ndestroy = 0;

	sim_recs_start(kinds, 2);
	assert_int_equal(cudaMemPoolCreate(&pool, &props), cudaSuccess);
	assert_int_equal(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big),
			 cudaSuccess);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrReleaseThreshold), big);
	assert_int_equal(cudaMallocFromPoolAsync(&p, 1000, pool, 0), cudaSuccess);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrUsedMemCurrent), 1000);
	assert_int_equal(cudaFreeAsync(p, 0), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	/* Below the threshold: kept. */
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrUsedMemCurrent), 0);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrReservedMemCurrent), 1024);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrUsedMemHigh), 1000);
	/* "Releases memory back to the OS until the pool contains fewer than minBytesToKeep reserved bytes" */
	assert_int_equal(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrReservedMemCurrent), 0);
	/* A zero threshold: released at the next synchronize. */
	big = 0;
	assert_int_equal(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big),
			 cudaSuccess);
	assert_int_equal(cudaMallocFromPoolAsync(&p, 1000, pool, 0), cudaSuccess);
	assert_int_equal(cudaFreeAsync(p, 0), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
	assert_int_equal(pool_u64(pool, cudaMemPoolAttrReservedMemCurrent), 0);
	/* "High watermark can only be reset to zero." */
	big = 5;
	assert_int_equal(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &big),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemPoolDestroy(pool), cudaSuccess);
	assert_int_equal(cudaMallocFromPoolAsync(&p, 8, pool, 0), cudaErrorInvalidValue);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	for (i = 0; i < sim_recs.nrecs; i++) {
		const CUpti_ActivityMemoryPool3 *m = (const void *)sim_recs.recs[i];

		if (m->kind != CUPTI_ACTIVITY_KIND_MEMORY_POOL)
			continue;
		ncreate += m->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED;
		ndestroy += m->memoryPoolOperationType ==
			    CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED;
		if (m->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED) {
			ntrim++;
			assert_int_equal(m->minBytesToKeep, 0);
			/* "identical to the correlation ID in the driver and runtime API activity record" */
			assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
						    CUPTI_RUNTIME_TRACE_CBID_cudaMemPoolTrimTo_v11020, 0));
			assert_int_equal(m->correlationId,
					 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
						     CUPTI_RUNTIME_TRACE_CBID_cudaMemPoolTrimTo_v11020,
						     0)->correlationId);
		}
	}
	assert_int_equal(ncreate, 1);
	assert_int_equal(ntrim, 1);
	assert_int_equal(ndestroy, 1);
}

static void test_memory2_records(void **state)
{
	DOC("CUpti_ActivityMemory4 provides separate records for memory allocation and memory "
	    "release operations. This allows to correlate the corresponding driver and runtime API "
	    "activity record with the memory operation.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMORY2,
					     CUPTI_ACTIVITY_KIND_RUNTIME };
	const CUpti_ActivityMemory4 *m;
	const CUpti_ActivityAPI *api;
	cudaStream_t s;
	uint32_t sid;
	void *p, *q;

	sim_recs_start(kinds, 2);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cuptiGetStreamId(NULL, (CUstream)s, &sid), CUPTI_SUCCESS);
	assert_int_equal(cudaMallocAsync(&p, 3000, s), cudaSuccess);
	assert_int_equal(cudaFreeAsync(p, s), cudaSuccess);
	assert_int_equal(cudaMalloc(&q, 512), cudaSuccess);
	assert_int_equal(cudaFree(q), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)p, 0);
	assert_non_null(m);
	api = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
			  0);
	assert_non_null(api);
	assert_int_equal(m->correlationId, api->correlationId);
	assert_int_equal(m->bytes, 3000);
	assert_int_equal(m->isAsync, 1);
	assert_int_equal(m->streamId, sid);
	assert_int_equal(m->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	assert_int_equal(m->memoryPoolConfig.memoryPoolType, CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL);
	assert_true(m->timestamp >= api->start && m->timestamp <= api->end);
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)p, 0);
	assert_non_null(m);
	assert_int_equal(m->bytes, 3000);
	assert_int_equal(m->correlationId,
			 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, 0)->correlationId);
	/* "If memory operation is not async, streamId is set to CUPTI_INVALID_STREAM_ID." */
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)q, 0);
	assert_non_null(m);
	assert_int_equal(m->isAsync, 0);
	assert_int_equal(m->streamId, CUPTI_INVALID_STREAM_ID);
	assert_int_equal(m->bytes, 512);
	assert_non_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)q, 0));
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_graph_memory_nodes(void **state)
{
	DOC("When cudaGraphAddMemAllocNode creates an allocation node, it returns the address of "
	    "the allocation in nodeParams.dptr. The allocation's address remains fixed across "
	    "instantiations and launches.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMORY2,
					     CUPTI_ACTIVITY_KIND_RUNTIME };
	struct cudaMemAllocNodeParams ap;
	cudaGraphNode_t alloc, fill, freen, alloc2, other, clone_node;
	cudaGraph_t g, g2, clone;
	cudaGraphExec_t x, x2, x3;
	const CUpti_ActivityMemory4 *m;
	const CUpti_ActivityAPI *launch;
	cudaStream_t s;
	uint32_t sid;
	void *p, *q, *got = NULL;
	int local;

	sim_recs_start(kinds, 2);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cuptiGetStreamId(NULL, (CUstream)s, &sid), CUPTI_SUCCESS);
	memset(&ap, 0, sizeof(ap));
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.poolProps.location.id = 0;
	ap.bytesize = 4096;
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &ap), cudaSuccess);
	p = ap.dptr;
	assert_non_null(p);
	assert_int_equal(cudaGraphAddMemsetNode(&fill, g, &alloc, 1,
						&(struct cudaMemsetParams){ .dst = p, .value = 7,
									    .elementSize = 1,
									    .width = 4096,
									    .height = 1 }),
			 cudaSuccess);
	assert_int_equal(cudaGraphAddMemFreeNode(&freen, g, &fill, 1, p), cudaSuccess);
	assert_int_equal(cudaGraphMemFreeNodeGetParams(freen, &got), cudaSuccess);
	assert_ptr_equal(got, p);
	/* "an allocation twice in the same graph", "an address that was not returned by an allocation node" */
	assert_int_equal(cudaGraphAddMemFreeNode(&other, g, &freen, 1, p), cudaErrorInvalidValue);
	assert_int_equal(cudaGraphAddMemFreeNode(&other, g, NULL, 0, &local), cudaErrorInvalidValue);
	/* "The graph cannot be cloned." "Nodes and edges of the graph cannot be deleted." */
	assert_int_equal(cudaGraphClone(&clone, g), cudaErrorNotSupported);
	assert_int_equal(cudaGraphDestroyNode(fill), cudaErrorNotSupported);
	(void)clone_node;
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	/* "there can be at most one executable graph in existence for that graph at a time" */
	assert_int_not_equal(cudaGraphInstantiate(&x2, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(((unsigned char *)p)[4095], 7);

	/*
	 * Not freed in its graph: "If any allocations created by hGraphExec remain unfreed
	 * (from a previous launch) and hGraphExec was not instantiated with
	 * CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, the launch will fail".
	 */
	assert_int_equal(cudaGraphCreate(&g2, 0), cudaSuccess);
	ap.bytesize = 1000;
	assert_int_equal(cudaGraphAddMemAllocNode(&alloc2, g2, NULL, 0, &ap), cudaSuccess);
	q = ap.dptr;
	assert_int_equal(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x2, s), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x2, s), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeAsync(q, s), cudaSuccess); /* "passing the allocation to cudaFreeAsync" */
	assert_int_equal(cudaGraphLaunch(x2, s), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x2), cudaSuccess);
	assert_int_equal(cudaGraphInstantiateWithFlags(&x3, g2,
						       cudaGraphInstantiateFlagAutoFreeOnLaunch),
			 cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x3, s), cudaSuccess); /* frees the one left, allocates again */
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	/* each launch of g allocates and frees p, in the launch's call, on its stream */
	launch = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
			     1);
	assert_non_null(launch);
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)p, 1);
	assert_non_null(m);
	assert_int_equal(m->correlationId, launch->correlationId);
	assert_int_equal(m->bytes, 4096);
	assert_int_equal(m->isAsync, 1);
	assert_int_equal(m->streamId, sid);
	assert_int_equal(m->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)p, 1);
	assert_non_null(m);
	assert_int_equal(m->correlationId, launch->correlationId);
	assert_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)p, 2));
	/* q: three allocations (three successful launches), three frees (cudaFreeAsync, the auto-free, ...) */
	assert_non_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)q, 2));
	assert_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)q, 3));
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)q, 0);
	assert_non_null(m);
	assert_int_equal(m->correlationId,
			 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, 0)->correlationId);
	assert_non_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)q, 1));
	assert_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)q, 2));
	assert_int_equal(cudaFree(q), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x3), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

/* The nodes of g of type t, in creation order. */
static size_t nodes_of_type(cudaGraph_t g, enum cudaGraphNodeType t, cudaGraphNode_t *out,
			    size_t max)
{
	cudaGraphNode_t nodes[16];
	enum cudaGraphNodeType type;
	size_t n = 16, i, k = 0;

	assert_int_equal(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
	for (i = 0; i < n; i++) {
		assert_int_equal(cudaGraphNodeGetType(nodes[i], &type), cudaSuccess);
		if (type == t && k < max)
			out[k++] = nodes[i];
	}
	return k;
}

static void test_captured_allocation(void **state)
{
	DOC("During stream capture, this function results in the creation of an allocation node. "
	    "In this case, the allocation is owned by the graph instead of the memory pool. "
	    "(cudaMallocAsync) During stream capture, this function results in the creation of a "
	    "free node and must therefore be passed the address of a graph allocation. "
	    "(cudaFreeAsync)");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMORY2,
					     CUPTI_ACTIVITY_KIND_RUNTIME,
					     CUPTI_ACTIVITY_KIND_MEMSET };
	struct cudaMemPoolProps mprops = { .allocType = cudaMemAllocationTypeManaged };
	struct cudaMemAllocNodeParams ap;
	cudaGraphNode_t alloc[2], freen[2], memset_node;
	cudaGraph_t g, g2, clone;
	cudaGraphExec_t x, x2;
	const CUpti_ActivityMemory4 *m;
	const CUpti_ActivityMemset4 *ms = NULL;
	const CUpti_ActivityAPI *launch;
	cudaMemPool_t managed;
	cudaStream_t s;
	uint32_t sid, gid;
	void *p, *q, *before, *r = NULL, *got = NULL;
	size_t i, nmemset = 0;

	sim_recs_start(kinds, 3);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cuptiGetStreamId(NULL, (CUstream)s, &sid), CUPTI_SUCCESS);
	assert_int_equal(cudaMallocAsync(&before, 64, s), cudaSuccess);
	assert_int_equal(cudaMemPoolCreate(&managed, &mprops), cudaSuccess);

	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaMallocAsync(&p, 4096, s), cudaSuccess);
	assert_non_null(p);
	assert_int_equal(cudaMemsetAsync(p, 9, 4096, s), cudaSuccess);
	assert_int_equal(cudaMallocAsync(&q, 1000, s), cudaSuccess);
	/* "must therefore be passed the address of a graph allocation" */
	assert_int_equal(cudaFreeAsync(before, s), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeAsync((char *)p + 8, s), cudaErrorInvalidValue);
	/* "The memory pool's properties are used to set the node's creation parameters." */
	assert_int_equal(cudaMallocFromPoolAsync(&r, 64, managed, s), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeAsync(p, s), cudaSuccess);
	assert_int_equal(cudaFreeAsync(p, s), cudaErrorInvalidValue); /* "an allocation twice" */
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
	assert_non_null(g);

	/* The nodes cudaGraphAddMemAllocNode/FreeNode would have made. */
	assert_int_equal(nodes_of_type(g, cudaGraphNodeTypeMemAlloc, alloc, 2), 2);
	assert_int_equal(nodes_of_type(g, cudaGraphNodeTypeMemFree, freen, 2), 1);
	assert_int_equal(nodes_of_type(g, cudaGraphNodeTypeMemset, &memset_node, 1), 1);
	memset(&ap, 0, sizeof(ap));
	assert_int_equal(cudaGraphMemAllocNodeGetParams(alloc[0], &ap), cudaSuccess);
	assert_ptr_equal(ap.dptr, p);
	assert_int_equal(ap.bytesize, 4096);
	assert_int_equal(ap.poolProps.location.type, cudaMemLocationTypeDevice);
	assert_int_equal(cudaGraphMemAllocNodeGetParams(alloc[1], &ap), cudaSuccess);
	assert_ptr_equal(ap.dptr, q);
	assert_int_equal(cudaGraphMemFreeNodeGetParams(freen[0], &got), cudaSuccess);
	assert_ptr_equal(got, p);
	/* "The graph cannot be cloned." */
	assert_int_equal(cudaGraphClone(&clone, g), cudaErrorNotSupported);

	/* q is not freed in g: a second capture frees it ("launching a graph with a free node for that allocation"). */
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaFreeAsync(q, s), cudaSuccess);
	assert_int_equal(cudaStreamEndCapture(s, &g2), cudaSuccess);

	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
	for (i = 0; i < 2; i++) {
		assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
		assert_int_equal(cudaGraphLaunch(x2, s), cudaSuccess);
	}
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(((unsigned char *)p)[4095], 9);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);

	/* Capturing allocated nothing: the first records of p are the first launch's. */
	launch = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
			     0);
	assert_non_null(launch);
	for (i = 0; i < 2; i++) {
		m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)p, (int)i);
		assert_non_null(m);
		assert_int_equal(m->correlationId,
				 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
					     CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
					     (int)(2 * i))->correlationId);
		assert_int_equal(m->bytes, 4096);
		assert_int_equal(m->isAsync, 1);
		assert_int_equal(m->streamId, sid);
		assert_int_equal(m->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
		assert_non_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)p,
					(int)i));
		/* q: allocated by x, freed by x2's free node, in x2's launch */
		m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)q, (int)i);
		assert_non_null(m);
		assert_int_equal(m->correlationId,
				 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
					     CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
					     (int)(2 * i + 1))->correlationId);
	}
	assert_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)p, 2));
	/* The captured memset is a graph node's work: graphId is the captured graph's. */
	assert_int_equal(cuptiGetGraphId((CUgraph)g, &gid), CUPTI_SUCCESS);
	for (i = 0; i < sim_recs.nrecs; i++) {
		const CUpti_ActivityMemset4 *r4 = (const void *)sim_recs.recs[i];

		if (r4->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
			ms = r4;
			nmemset++;
		}
	}
	assert_int_equal(nmemset, 2);
	assert_int_equal(ms->graphId, gid);
	assert_int_not_equal(ms->graphNodeId, 0);
	assert_int_equal(ms->correlationId,
			 sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 2)->correlationId);

	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphExecDestroy(x2), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g2), cudaSuccess);
	assert_int_equal(cudaFreeAsync(before, s), cudaSuccess);
	assert_int_equal(cudaMemPoolDestroy(managed), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_managed_memory(void **state)
{
	DOC("Allocates memory that will be automatically managed by the Unified Memory system. "
	    "[...] The pointer is valid on the CPU and on all GPUs in the system that support "
	    "managed memory.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMORY2 };
	struct cudaMemLocation dev = { cudaMemLocationTypeDevice, 0 };
	struct cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
	struct cudaMemLocation bad = { cudaMemLocationTypeDevice, 3 };
	const CUpti_ActivityMemory4 *m;
	cudaStream_t s;
	int *x, local[4] = { 0 };

	sim_recs_start(kinds, 1);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMallocManaged((void **)&x, 64 * sizeof(int), cudaMemAttachGlobal),
			 cudaSuccess);
	x[63] = 42; /* from host code directly */
	assert_int_equal(x[63], 42);
	assert_int_equal(cudaMallocManaged((void **)&x, 0, cudaMemAttachGlobal) == cudaSuccess, 0);
	assert_int_equal(cudaMallocManaged((void **)&x, 64 * sizeof(int), 0), cudaErrorInvalidValue);
	assert_int_equal(cudaMallocManaged((void **)&x, 64 * sizeof(int), cudaMemAttachHost),
			 cudaSuccess);
	/* CUDA 13's signatures: a cudaMemLocation, and flags for the prefetch. */
	assert_int_equal(cudaMemPrefetchAsync(x, 64 * sizeof(int), dev, 0, s), cudaSuccess);
	assert_int_equal(cudaMemPrefetchAsync(x, 65 * sizeof(int), dev, 0, s), cudaErrorInvalidValue);
	assert_int_equal(cudaMemPrefetchAsync(local, sizeof(local), dev, 0, s),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemPrefetchAsync(x, 64 * sizeof(int), bad, 0, s), cudaErrorInvalidValue);
	assert_int_equal(cudaMemAdvise(x, 64 * sizeof(int), cudaMemAdviseSetPreferredLocation, host),
			 cudaSuccess);
	assert_int_equal(cudaMemAdvise(x, 64 * sizeof(int), cudaMemAdviseSetAccessedBy, bad),
			 cudaErrorInvalidDevice);
	/* "length must be zero, to indicate that the entire allocation's stream association is being changed" */
	assert_int_equal(cudaStreamAttachMemAsync(s, x, 0, cudaMemAttachSingle), cudaSuccess);
	assert_int_equal(cudaStreamAttachMemAsync(s, x, 8, cudaMemAttachSingle),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaStreamAttachMemAsync(NULL, x, 0, cudaMemAttachSingle),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaFree(x), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	m = mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, (uintptr_t)x, 0);
	assert_non_null(m);
	assert_int_equal(m->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
	assert_non_null(mem_rec(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uintptr_t)x, 0));
}

static void test_managed_batches(void **state)
{
	DOC("Performs a batch of memory prefetches. The batch as a whole executes in stream order "
	    "[...] Each memory range specified must refer to managed memory allocated via "
	    "::cuMemAllocManaged [...] hStream - The stream to enqueue the operations in. Must not "
	    "be legacy NULL stream.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME };
	struct cudaMemLocation locs[2] = { { cudaMemLocationTypeDevice, 0 },
					   { cudaMemLocationTypeHost, 0 } };
	size_t sizes[3] = { 256, 64, 128 }, idx[2] = { 0, 2 }, bad_idx[2] = { 0, 0 };
	void *p[3], *local[1];
	int on_stack[4];
	cudaStream_t s;
	int i;

	(void)state;
	sim_recs_start(kinds, 1);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	for (i = 0; i < 3; i++)
		assert_int_equal(cudaMallocManaged(&p[i], 256, cudaMemAttachGlobal), cudaSuccess);
	/* prefetches 0 and 1 to the device, 2 to the host */
	assert_int_equal(cudaMemPrefetchBatchAsync(p, sizes, 3, locs, idx, 2, 0, s), cudaSuccess);
	assert_int_equal(cudaMemDiscardBatchAsync(p, sizes, 3, 0, s), cudaSuccess);
	assert_int_equal(cudaMemDiscardAndPrefetchBatchAsync(p, sizes, 3, locs, idx, 2, 0, s),
			 cudaSuccess);
	/* "the first entry in prefetchLocIdxs must always be 0. Also, each entry must be greater than the previous entry" */
	assert_int_equal(cudaMemPrefetchBatchAsync(p, sizes, 3, locs, bad_idx, 2, 0, s),
			 cudaErrorInvalidValue);
	/* "numPrefetchLocs must be lesser than or equal to count" */
	assert_int_equal(cudaMemPrefetchBatchAsync(p, sizes, 1, locs, idx, 2, 0, s),
			 cudaErrorInvalidValue);
	/* "Flags reserved for future use. Must be zero." */
	assert_int_equal(cudaMemDiscardBatchAsync(p, sizes, 3, 1, s), cudaErrorInvalidValue);
	assert_int_equal(cudaMemDiscardBatchAsync(p, sizes, 3, 0, NULL), cudaErrorInvalidValue);
	/* a range past its allocation, memory that is not managed */
	sizes[0] = 257;
	assert_int_equal(cudaMemDiscardBatchAsync(p, sizes, 1, 0, s), cudaErrorInvalidValue);
	local[0] = on_stack;
	sizes[0] = sizeof(on_stack);
	assert_int_equal(cudaMemDiscardBatchAsync(local, sizes, 1, 0, s), cudaErrorInvalidValue);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	for (i = 0; i < 3; i++)
		assert_int_equal(cudaFree(p[i]), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	/* each call is an API record of its own */
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchBatchAsync_v13000, 0));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaMemDiscardBatchAsync_v13000, 0));
	assert_non_null(sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
				     CUPTI_RUNTIME_TRACE_CBID_cudaMemDiscardAndPrefetchBatchAsync_v13000,
				     0));
}

static void test_pool_ipc(void **state)
{
	DOC("Specifying CU_MEM_HANDLE_TYPE_NONE creates a memory pool that will not support IPC. "
	    "[...] To create an IPC capable mempool, create a mempool with a "
	    "CUmemAllocationHandleType other than CU_MEM_HANDLE_TYPE_NONE.");
	struct cudaMemPoolProps props = { 0 };
	struct cudaMemPoolPtrExportData data;
	cudaMemPool_t pool, imported = (cudaMemPool_t)1;
	cudaStream_t s;
	void *ptr, *back = (void *)1;
	int fd = -1, types = -1;

	(void)state;
	assert_int_equal(cudaDeviceGetAttribute(&types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0),
			 cudaSuccess);
	assert_int_equal(types, cudaMemHandleTypeNone);
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
	assert_int_equal(cudaMemPoolCreate(&pool, &props), cudaErrorNotSupported);
	props.handleTypes = cudaMemHandleTypeNone;
	assert_int_equal(cudaMemPoolCreate(&pool, &props), cudaSuccess);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMallocFromPoolAsync(&ptr, 256, pool, s), cudaSuccess);
	/* a pool that is not IPC capable exports nothing, and nothing names one to import */
	assert_int_equal(cudaMemPoolExportToShareableHandle(&fd, pool,
							    cudaMemHandleTypePosixFileDescriptor, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemPoolExportPointer(&data, ptr), cudaErrorInvalidValue);
	assert_int_equal(cudaMemPoolImportFromShareableHandle(&imported, (void *)(intptr_t)0,
							      cudaMemHandleTypePosixFileDescriptor, 0),
			 cudaErrorInvalidValue);
	assert_null(imported);
	memset(&data, 0, sizeof(data));
	assert_int_equal(cudaMemPoolImportPointer(&back, pool, &data), cudaErrorInvalidValue);
	assert_null(back);
	assert_int_equal(cudaFreeAsync(ptr, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaMemPoolDestroy(pool), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

struct other_thread {
	CUcontext seen;
	CUresult r;
};

static void *other_main(void *arg)
{
	struct other_thread *o = arg;

	o->r = cuCtxGetCurrent(&o->seen);
	return NULL;
}

static void test_contexts(void **state)
{
	DOC("Pushes the given context ctx onto the CPU thread's stack of current contexts.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	CUcontext primary, c1, c2, popped, cur;
	struct other_thread o = { NULL, CUDA_ERROR_UNKNOWN };
	unsigned long long id1, id2;
	CUmodule mod;
	CUfunction f;
	CUstream s;
	pthread_t t;
	size_t i;
	int found = 0;

	sim_recs_start(kinds, 1);
	assert_int_equal(cudaFree(NULL), cudaSuccess); /* the runtime binds the primary context */
	assert_int_equal(cuCtxGetCurrent(&primary), CUDA_SUCCESS);
	assert_non_null(primary);
	/* "If a context is already current to the thread, it is supplanted by the newly created context" */
	assert_int_equal(cuCtxCreate(&c1, NULL, 0, 0), CUDA_SUCCESS);
	assert_int_equal(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	assert_ptr_equal(cur, c1);
	assert_int_equal(cuCtxGetId(c1, &id1), CUDA_SUCCESS);
	assert_int_not_equal(id1, 1);
	/* Another thread's stack is its own. */
	assert_int_equal(pthread_create(&t, NULL, other_main, &o), 0);
	pthread_join(t, NULL);
	assert_int_equal(o.r, CUDA_SUCCESS);
	assert_null(o.seen);
	/* Work issued in a created context carries its id. */
	assert_int_equal(cuModuleLoad(&mod, cubin_path), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&f, mod, "vadd"), CUDA_SUCCESS);
	assert_int_equal(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuStreamSynchronize(s), CUDA_SUCCESS);
	assert_int_equal(cuStreamDestroy(s), CUDA_SUCCESS);
	assert_int_equal(cuCtxCreate(&c2, NULL, 0, 0), CUDA_SUCCESS);
	assert_int_equal(cuCtxGetId(c2, &id2), CUDA_SUCCESS);
	assert_int_not_equal(id1, id2);
	/* "Pops the current CUDA context from the CPU thread and passes back the old context handle" */
	assert_int_equal(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
	assert_ptr_equal(popped, c2);
	assert_int_equal(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	assert_ptr_equal(cur, c1);
	assert_int_equal(cuCtxPushCurrent(c2), CUDA_SUCCESS);
	/* "If ctx is current to the calling thread then ctx will also be popped" */
	assert_int_equal(cuCtxDestroy(c2), CUDA_SUCCESS);
	assert_int_equal(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	assert_ptr_equal(cur, c1);
	assert_int_equal(cuCtxPushCurrent(c2), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(cuModuleUnload(mod), CUDA_SUCCESS);
	assert_int_equal(cuCtxDestroy(c1), CUDA_SUCCESS);
	assert_int_equal(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	assert_ptr_equal(cur, primary);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	for (i = 0; i < sim_recs.nrecs; i++) {
		const CUpti_ActivityKernel10 *k = (const void *)sim_recs.recs[i];

		if (k->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && !strcmp(k->name, "vadd")) {
			assert_int_equal(k->contextId, id1);
			found++;
		}
	}
	assert_int_equal(found, 1);
}

static void test_limits_and_stream_attributes(void **state)
{
	DOC("Setting limit to value is a request by the application to update the current limit "
	    "maintained by the device. The driver is free to modify the requested value to meet h/w "
	    "requirements [...]. The application can use cudaDeviceGetLimit() to find out exactly "
	    "what the limit has been set to. (cudaDeviceSetLimit) Sets attribute attr on hStream "
	    "from corresponding attribute of value. (cudaStreamSetAttribute)");
	cudaStreamAttrValue v, got;
	CUcontext c;
	cudaStream_t s;
	size_t lim = 0;
	float x;

	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitStackSize), cudaSuccess);
	assert_int_equal(lim, 1024);
	assert_int_equal(cudaDeviceSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitStackSize), cudaSuccess);
	assert_int_equal(lim, 4096);
	assert_int_equal(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20), cudaSuccess);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize), cudaSuccess);
	assert_int_equal(lim, 64 << 20);
	/* "This limit can be set smaller than the default or up the maximum launch depth of 24." */
	assert_int_equal(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 100), cudaSuccess);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitDevRuntimeSyncDepth), cudaSuccess);
	assert_int_equal(lim, 24);
	/* "Values can range from 0B to 128B. This is purely a performance hint" */
	assert_int_equal(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 1000), cudaSuccess);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitMaxL2FetchGranularity), cudaSuccess);
	assert_int_equal(lim, 128);
	/* "purely a performance hint and it can be ignored or clamped": no persisting L2 on this device */
	assert_int_equal(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20), cudaSuccess);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitPersistingL2CacheSize), cudaSuccess);
	assert_int_equal(lim, 0);
	assert_int_equal(cudaDeviceSetLimit((enum cudaLimit)0x40, 1), cudaErrorUnsupportedLimit);
	assert_int_equal(cudaCtxResetPersistingL2Cache(), cudaSuccess);
	/* "the current limit maintained by the context": another context has its own. */
	assert_int_equal(cuCtxCreate(&c, NULL, 0, 0), CUDA_SUCCESS);
	assert_int_equal(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
	assert_int_equal(lim, 1024);
	assert_int_equal(cuCtxDestroy(c), CUDA_SUCCESS);
	assert_int_equal(cudaDeviceGetLimit(&lim, cudaLimitStackSize), cudaSuccess);
	assert_int_equal(lim, 4096);
	assert_int_equal(cudaDeviceSetLimit(cudaLimitStackSize, 1024), cudaSuccess);

	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got),
			 cudaSuccess);
	assert_int_equal(got.accessPolicyWindow.num_bytes, 0);
	memset(&v, 0, sizeof(v));
	v.accessPolicyWindow.base_ptr = &x;
	v.accessPolicyWindow.num_bytes = sizeof(x);
	v.accessPolicyWindow.hitRatio = 0.5f;
	v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	assert_int_equal(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v),
			 cudaSuccess);
	assert_int_equal(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got),
			 cudaSuccess);
	assert_ptr_equal(got.accessPolicyWindow.base_ptr, &x);
	assert_int_equal(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
	/* missProp "Must be either NORMAL or STREAMING" */
	v.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
	assert_int_equal(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &got),
			 cudaSuccess);
	assert_int_equal(got.syncPolicy, cudaSyncPolicyAuto);
	v.syncPolicy = cudaSyncPolicyYield;
	assert_int_equal(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v),
			 cudaSuccess);
	assert_int_equal(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &got),
			 cudaSuccess);
	assert_int_equal(got.syncPolicy, cudaSyncPolicyYield);
	v.priority = -1;
	assert_int_equal(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v), cudaSuccess);
	assert_int_equal(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &got), cudaSuccess);
	assert_int_equal(got.priority, -1);
	/* a launch attribute that is not a stream's */
	assert_int_equal(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_modules(void **state)
{
	DOC("Takes a pointer image and loads the corresponding module module into the current "
	    "context. The image may be a cubin or fatbin as output by nvcc, or a NULL-terminated "
	    "PTX, either as output by nvcc or hand-written.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	char *fatbin = slurp(fatbin_path), *cubin = slurp(cubin_path);
	static const char junk[] = "\x7f" "ELF not really";
	unsigned int count = 0;
	CUmodule m1, m2;
	CUlibrary lib;
	CUkernel k;
	CUfunction f, g;
	const char *name;
	size_t i;
	int scale = 0, vadd = 0;

	sim_recs_start(kinds, 1);
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuModuleLoadData(&m1, fatbin), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunctionCount(&count, m1), CUDA_SUCCESS);
	assert_int_equal(count, 2);
	assert_int_equal(cuModuleGetFunction(&f, m1, "_Z5scalePffi"), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&g, m1, "scale"), CUDA_ERROR_NOT_FOUND);
	assert_int_equal(cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuModuleLoadDataEx(&m2, cubin, 0, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&g, m2, "vadd"), CUDA_SUCCESS);
	assert_int_equal(cuLaunchKernel(g, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuLibraryLoadFromFile(&lib, fatbin_path, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	assert_int_equal(cuLibraryGetKernel(&k, lib, "vadd"), CUDA_SUCCESS);
	assert_int_equal(cuKernelGetName(&name, k), CUDA_SUCCESS);
	assert_string_equal(name, "vadd");
	assert_int_equal(cuKernelGetFunction(&f, k), CUDA_SUCCESS);
	assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuLibraryUnload(lib), CUDA_SUCCESS);
	assert_int_equal(cuLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
	assert_int_equal(cuLibraryGetKernel(&k, lib, "_Z5scalePffi"), CUDA_SUCCESS);
	assert_int_equal(cuLibraryUnload(lib), CUDA_SUCCESS);
	assert_int_equal(cuModuleUnload(m1), CUDA_SUCCESS);
	assert_int_equal(cuModuleUnload(m2), CUDA_SUCCESS);
	assert_int_equal(cuModuleLoadData(&m2, junk), CUDA_ERROR_INVALID_IMAGE);
	assert_int_equal(cuModuleLoad(&m2, "/nonexistent/k.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
	assert_int_equal(cuCtxSynchronize(), CUDA_SUCCESS);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	for (i = 0; i < sim_recs.nrecs; i++) {
		const CUpti_ActivityKernel10 *r = (const void *)sim_recs.recs[i];

		if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			continue;
		scale += !strcmp(r->name, "_Z5scalePffi") && r->gridX == 2 && r->blockX == 64;
		vadd += !strcmp(r->name, "vadd");
	}
	assert_int_equal(scale, 1);
	assert_int_equal(vadd, 2);
	free(fatbin);
	free(cubin);
}

static void test_module_globals(void **state)
{
	DOC("Returns in *dptr and *bytes the base pointer and size of the global of name name "
	    "located in module hmod. If no variable of that name exists, cuModuleGetGlobal() "
	    "returns CUDA_ERROR_NOT_FOUND.");
	char *fatbin = slurp(fatbin_path), *cubin = slurp(cubin_path);
	const float coef[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
	CUdeviceptr counter = 0, buf = 0, coef_dev = 0, again = 0;
	size_t bytes = 0;
	CUmodule m, m2;
	CUlibrary lib;
	float got[4];
	int v = 0;

	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuModuleLoadData(&m, cubin), CUDA_SUCCESS);
	/* __device__ int sim_counter = 42: its initial value is in device memory. */
	assert_int_equal(cuModuleGetGlobal(&counter, &bytes, m, "sim_counter"), CUDA_SUCCESS);
	assert_int_equal(bytes, sizeof(int));
	assert_int_equal(cuMemcpyDtoH(&v, counter, sizeof(v)), CUDA_SUCCESS);
	assert_int_equal(v, 42);
	v = 7;
	assert_int_equal(cuMemcpyHtoD(counter, &v, sizeof(v)), CUDA_SUCCESS);
	/* "One of the parameters dptr or bytes (not both) can be NULL in which case it is ignored." */
	assert_int_equal(cuModuleGetGlobal(&again, NULL, m, "sim_counter"), CUDA_SUCCESS);
	assert_int_equal(again, counter);
	assert_int_equal(cuModuleGetGlobal(NULL, NULL, m, "sim_counter"), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuModuleGetGlobal(NULL, &bytes, m, "sim_buf"), CUDA_SUCCESS);
	assert_int_equal(bytes, 64 * sizeof(float));
	assert_int_equal(cuModuleGetGlobal(&buf, NULL, m, "sim_buf"), CUDA_SUCCESS);
	assert_int_equal(cuMemsetD32(buf, 0, 64), CUDA_SUCCESS);
	/* __constant__ too, with its initializer. */
	assert_int_equal(cuModuleGetGlobal(&coef_dev, &bytes, m, "sim_coef"), CUDA_SUCCESS);
	assert_int_equal(bytes, sizeof(coef));
	assert_int_equal(cuMemcpyDtoH(got, coef_dev, sizeof(got)), CUDA_SUCCESS);
	assert_memory_equal(got, coef, sizeof(coef));
	assert_int_equal(cuModuleGetGlobal(&again, &bytes, m, "vadd"), CUDA_ERROR_NOT_FOUND);
	assert_int_equal(cuModuleGetGlobal(&again, &bytes, m, "no_such"), CUDA_ERROR_NOT_FOUND);
	/* Each module has its own: a second load starts from the initial value again. */
	assert_int_equal(cuModuleLoadData(&m2, fatbin), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetGlobal(&again, NULL, m2, "sim_counter"), CUDA_SUCCESS);
	assert_int_not_equal(again, counter);
	assert_int_equal(cuMemcpyDtoH(&v, again, sizeof(v)), CUDA_SUCCESS);
	assert_int_equal(v, 42);
	assert_int_equal(cuMemcpyDtoH(&v, counter, sizeof(v)), CUDA_SUCCESS);
	assert_int_equal(v, 7);
	assert_int_equal(cuLibraryLoadData(&lib, fatbin, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	assert_int_equal(cuLibraryGetGlobal(&again, &bytes, lib, "sim_coef"), CUDA_SUCCESS);
	assert_int_equal(bytes, sizeof(coef));
	assert_int_equal(cuLibraryUnload(lib), CUDA_SUCCESS);
	assert_int_equal(cuModuleUnload(m2), CUDA_SUCCESS);
	assert_int_equal(cuModuleUnload(m), CUDA_SUCCESS);
	free(fatbin);
	free(cubin);
}

/* What the resource callbacks saw. */
#define MAX_RES 32
static struct res_seen {
	CUpti_CallbackId cbid;
	CUcontext ctx;
	uint32_t module_id;
	size_t size;
	char head[4];
} res[MAX_RES];
static size_t nres;

static void CUPTIAPI on_resource(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_ResourceData *rd = data;
	struct res_seen *r;

	if (domain != CUPTI_CB_DOMAIN_RESOURCE || nres == MAX_RES)
		return;
	r = &res[nres++];
	r->cbid = cbid;
	r->ctx = rd->context;
	if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED ||
	    cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
		const CUpti_ModuleResourceData *m = rd->resourceDescriptor;

		r->module_id = m->moduleId;
		r->size = m->cubinSize;
		memcpy(r->head, m->pCubin, sizeof(r->head));
	}
}

static void test_resource_callbacks(void **state)
{
	DOC("CUPTI_CBID_RESOURCE_CONTEXT_CREATED: A new context has been created. "
	    "CUPTI_CBID_RESOURCE_MODULE_LOADED: A module has been loaded.");
	CUpti_SubscriberHandle sub;
	char *cubin = slurp(cubin_path);
	CUcontext c;
	CUmodule m;
	FILE *f = fopen(cubin_path, "rb");
	long cubin_size;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	cubin_size = ftell(f);
	fclose(f);
	nres = 0;
	assert_int_equal(cuptiSubscribe(&sub, on_resource, NULL), CUPTI_SUCCESS);
	assert_int_equal(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE), CUPTI_SUCCESS);
	assert_int_equal(cuCtxCreate(&c, NULL, 0, 0), CUDA_SUCCESS);
	assert_int_equal(cuModuleLoadData(&m, cubin), CUDA_SUCCESS);
	free(cubin); /* "you must make a copy": CUPTI's is its own */
	assert_int_equal(cuModuleUnload(m), CUDA_SUCCESS);
	assert_int_equal(cuCtxDestroy(c), CUDA_SUCCESS);
	assert_int_equal(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
	assert_int_equal(nres, 4);
	assert_int_equal(res[0].cbid, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
	assert_ptr_equal(res[0].ctx, c);
	assert_int_equal(res[1].cbid, CUPTI_CBID_RESOURCE_MODULE_LOADED);
	assert_ptr_equal(res[1].ctx, c);
	assert_int_not_equal(res[1].module_id, 0);
	assert_int_equal(res[1].size, (size_t)cubin_size);
	assert_memory_equal(res[1].head, "\x7f" "ELF", 4);
	assert_int_equal(res[2].cbid, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
	assert_int_equal(res[2].module_id, res[1].module_id);
	assert_int_equal(res[2].size, (size_t)cubin_size);
	assert_int_equal(res[3].cbid, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	assert_ptr_equal(res[3].ctx, c);
}

static void test_pools_by_location(void **state)
{
	DOC("Returns the last pool provided to cudaMemSetMemPool or cudaDeviceSetMemPool for this "
	    "location and allocation type or the location's default memory pool if "
	    "cudaMemSetMemPool or cudaDeviceSetMemPool for that allocType and location has never "
	    "been called. [...] In all other cases, the call return cudaErrorInvalidValue");
	struct cudaMemLocation dev0 = { .type = cudaMemLocationTypeDevice, .id = 0 };
	struct cudaMemLocation dev1 = { .type = cudaMemLocationTypeDevice, .id = 1 };
	struct cudaMemLocation host = { .type = cudaMemLocationTypeHost };
	struct cudaMemLocation none = { .type = cudaMemLocationTypeNone };
	struct cudaMemPoolProps props = { .allocType = cudaMemAllocationTypePinned,
				   .location = { .type = cudaMemLocationTypeDevice, .id = 0 } };
	cudaMemPool_t def, by_loc, mine, cur;

	(void)state;
	assert_int_equal(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
	assert_int_equal(cudaMemGetDefaultMemPool(&by_loc, &dev0, cudaMemAllocationTypePinned),
			 cudaSuccess);
	assert_ptr_equal(by_loc, def);
	assert_int_equal(cudaMemGetMemPool(&cur, &dev0, cudaMemAllocationTypePinned), cudaSuccess);
	assert_ptr_equal(cur, def);
	/* "the equivalent of calling cudaDeviceSetMemPool with the location id as the device" */
	assert_int_equal(cudaMemPoolCreate(&mine, &props), cudaSuccess);
	assert_int_equal(cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, mine), cudaSuccess);
	assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
	assert_ptr_equal(cur, mine);
	assert_int_equal(cudaMemGetMemPool(&cur, &dev0, cudaMemAllocationTypePinned), cudaSuccess);
	assert_ptr_equal(cur, mine);
	assert_int_equal(cudaMemGetDefaultMemPool(&by_loc, &dev0, cudaMemAllocationTypePinned),
			 cudaSuccess);
	assert_ptr_equal(by_loc, def);
	/* a location of no pinned pool; no such device; host and managed pools not simulated */
	assert_int_equal(cudaMemGetMemPool(&cur, &none, cudaMemAllocationTypePinned),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemGetMemPool(&cur, &dev1, cudaMemAllocationTypePinned),
			 cudaErrorInvalidDevice);
	assert_int_equal(cudaMemGetDefaultMemPool(&cur, &host, cudaMemAllocationTypePinned),
			 cudaErrorNotSupported);
	assert_int_equal(cudaMemGetDefaultMemPool(&cur, &none, cudaMemAllocationTypeManaged),
			 cudaErrorNotSupported);
	assert_int_equal(cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, def), cudaSuccess);
	assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
	assert_ptr_equal(cur, def);
	/* no pool is no pool to make current, by location or by device; the current one stays */
	assert_int_equal(cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, NULL),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaDeviceSetMemPool(0, NULL), cudaErrorInvalidValue);
	assert_int_equal(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
	assert_ptr_equal(cur, def);
	assert_int_equal(cudaMemPoolDestroy(mine), cudaSuccess);
}

static char *self_exe;

static void hex_put(char *out, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void hex_get(void *p, const char *s, size_t n)
{
	unsigned char *b = p;
	unsigned v;
	size_t i;

	for (i = 0; i < n && sscanf(s + 2 * i, "%2x", &v) == 1; i++)
		b[i] = (unsigned char)v;
}

#define IPC_BYTES (3 * 4096 + 100)
#define IPC_SLOW_LAUNCHES 10 /* 200 ms of simulated work before the child's record */

/*
 * The other process of test_ipc (this program, run with --ipc-child MEM
 * EVENT): opens both handles, checks and rewrites the memory, records the
 * event behind 200 ms of work, and exits without waiting for it. Its exit
 * status says what failed.
 */
static int ipc_child(const char *mem_hex, const char *event_hex)
{
	cudaIpcMemHandle_t mh;
	cudaIpcEventHandle_t eh;
	cudaEvent_t e;
	cudaStream_t s;
	char *p, *q, host[IPC_BYTES];
	dim3 one = { 1, 1, 1 };
	int i;

	hex_get(&mh, mem_hex, sizeof(mh));
	hex_get(&eh, event_hex, sizeof(eh));
	if (cudaIpcOpenMemHandle((void **)&p, mh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
		return 10;
	/* "the reference count on the handle is incremented by 1 and the existing device pointer is returned" */
	if (cudaIpcOpenMemHandle((void **)&q, mh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess ||
	    q != p)
		return 11;
	if (cudaMemcpy(host, p, IPC_BYTES, cudaMemcpyDeviceToHost) != cudaSuccess ||
	    host[0] != 5 || host[IPC_BYTES - 1] != 5)
		return 12;
	if (cudaMemset(p, 9, IPC_BYTES) != cudaSuccess)
		return 13;
	if (cudaIpcCloseMemHandle(p) != cudaSuccess || cudaIpcCloseMemHandle(p) != cudaSuccess ||
	    cudaIpcCloseMemHandle(p) != cudaErrorInvalidValue)
		return 14;
	if (cudaIpcOpenEventHandle(&e, eh) != cudaSuccess)
		return 15;
	if (cudaStreamCreate(&s) != cudaSuccess)
		return 16;
	for (i = 0; i < IPC_SLOW_LAUNCHES; i++)
		if (cudaLaunchKernel(&stub_slow, one, one, NULL, 0, s) != cudaSuccess)
			return 17;
	if (cudaEventRecord(e, s) != cudaSuccess || cudaEventQuery(e) != cudaErrorNotReady)
		return 18;
	if (cudaEventDestroy(e) != cudaSuccess)
		return 19;
	return 0;
}

static void test_ipc(void **state)
{
	DOC("Takes a pointer to the base of an existing device memory allocation created with "
	    "cuMemAlloc and exports it for use in another process. [...] After the event has been "
	    "opened in the importing process, cuEventRecord, cuEventSynchronize, cuStreamWaitEvent "
	    "and cuEventQuery may be used in either process.");
	cudaIpcMemHandle_t mh, mh2;
	cudaIpcEventHandle_t eh;
	cudaEvent_t e, plain, bad;
	CUipcMemHandle cmh;
	CUdeviceptr d;
	char *a, host[IPC_BYTES], mem_hex[2 * sizeof(mh) + 1], event_hex[2 * sizeof(eh) + 1];
	int attr = 0, status = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(cudaDeviceGetAttribute(&attr, cudaDevAttrIpcEventSupport, 0), cudaSuccess);
	assert_int_equal(attr, 1);
	assert_int_equal(cudaMalloc((void **)&a, IPC_BYTES), cudaSuccess);
	assert_int_equal(cudaMemset(a, 4, IPC_BYTES), cudaSuccess);
	/* "dptr - Base pointer to previously allocated device memory" */
	assert_int_equal(cudaIpcGetMemHandle(&mh, a + 256), cudaErrorInvalidValue);
	assert_int_equal(cudaIpcGetMemHandle(&mh, a), cudaSuccess);
	assert_int_equal(cudaIpcGetMemHandle(&mh2, a), cudaSuccess);
	assert_memory_equal(&mh, &mh2, sizeof(mh));
	/* exported: the same address, the same bytes, and what is written there now is shared */
	assert_int_equal(cudaMemcpy(host, a, IPC_BYTES, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(host[IPC_BYTES - 1], 4);
	assert_int_equal(cudaMemset(a, 5, IPC_BYTES), cudaSuccess);
	/* "may only be opened by one context per device per other process" */
	memcpy(&cmh, &mh, sizeof(cmh));
	assert_int_equal(cuIpcOpenMemHandle(&d, cmh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_CONTEXT);
	/* "CU_EVENT_INTERPROCESS ... CU_EVENT_DISABLE_TIMING must be set" */
	assert_int_equal(cudaEventCreateWithFlags(&bad, cudaEventInterprocess), cudaErrorInvalidValue);
	assert_int_equal(cudaEventCreateWithFlags(&plain, cudaEventDisableTiming), cudaSuccess);
	assert_int_equal(cudaIpcGetEventHandle(&eh, plain), cudaErrorInvalidValue);
	assert_int_equal(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming),
			 cudaSuccess);
	assert_int_equal(cudaIpcGetEventHandle(&eh, e), cudaSuccess);
	assert_int_equal(cudaEventQuery(e), cudaSuccess); /* not recorded yet */

	hex_put(mem_hex, &mh, sizeof(mh));
	hex_put(event_hex, &eh, sizeof(eh));
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execl(self_exe, self_exe, "--ipc-child", mem_hex, event_hex, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the child's writes, here */
	assert_int_equal(cudaMemcpy(host, a, IPC_BYTES, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(host[0], 9);
	assert_int_equal(host[IPC_BYTES - 1], 9);
	/* the child's record, here: its work still running, then waited for */
	assert_int_equal(cudaEventQuery(e), cudaErrorNotReady);
	assert_int_equal(cudaEventSynchronize(e), cudaSuccess);
	assert_int_equal(cudaEventQuery(e), cudaSuccess);
	assert_int_equal(cudaEventDestroy(e), cudaSuccess);
	assert_int_equal(cudaEventDestroy(plain), cudaSuccess);
	assert_int_equal(cudaFree(a), cudaSuccess);
}

static void test_peers_and_ipc(void **state)
{
	DOC("Returns in *canAccessPeer a value of 1 if device device is capable of directly "
	    "accessing memory from peerDevice and 0 otherwise. [...] Returns "
	    "cudaErrorInvalidDevice if cudaDeviceCanAccessPeer() indicates that the current device "
	    "cannot directly access memory from peerDevice.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY };
	const CUpti_ActivityMemcpy6 *c;
	cudaIpcMemHandle_t h;
	char *a, *b, host[64];
	void *opened = (void *)1;
	int can = -1;

	(void)state;
	sim_recs_start(kinds, 1);
	/* one device: not its own peer, and no other */
	assert_int_equal(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
	assert_int_equal(can, 0);
	assert_int_equal(cudaDeviceCanAccessPeer(&can, 0, 1), cudaErrorInvalidDevice);
	assert_int_equal(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
	assert_int_equal(cudaDeviceEnablePeerAccess(0, 1), cudaErrorInvalidValue);
	assert_int_equal(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
	/* a peer copy from device 0 to itself is a device-to-device copy */
	assert_int_equal(cudaMalloc((void **)&a, 64), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&b, 64), cudaSuccess);
	assert_int_equal(cudaMemset(a, 7, 64), cudaSuccess);
	assert_int_equal(cudaMemcpyPeer(b, 0, a, 0, 64), cudaSuccess);
	assert_int_equal(cudaMemcpyPeerAsync(b, 0, a, 0, 32, NULL), cudaSuccess);
	assert_int_equal(cudaMemcpyPeer(b, 1, a, 0, 64), cudaErrorInvalidDevice);
	assert_int_equal(cudaMemcpy(host, b, 64, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_int_equal(host[63], 7);
	/* a 3D peer copy, device 0 to itself: 4 rows of 16 bytes from a into the rows of b */
	{
		struct cudaMemcpy3DPeerParms pp = {
			.srcPtr = { .ptr = a, .pitch = 16, .xsize = 16, .ysize = 4 }, .srcDevice = 0,
			.dstPtr = { .ptr = b, .pitch = 16, .xsize = 16, .ysize = 4 }, .dstDevice = 0,
			.extent = { .width = 16, .height = 4, .depth = 1 } };

		assert_int_equal(cudaMemset(a, 9, 64), cudaSuccess);
		assert_int_equal(cudaMemcpy3DPeer(&pp), cudaSuccess);
		assert_int_equal(cudaMemcpy(host, b, 64, cudaMemcpyDeviceToHost), cudaSuccess);
		assert_int_equal(host[0], 9);
		assert_int_equal(host[63], 9);
		assert_int_equal(cudaMemset(a, 3, 64), cudaSuccess);
		assert_int_equal(cudaMemcpy3DPeerAsync(&pp, NULL), cudaSuccess);
		assert_int_equal(cudaStreamSynchronize(NULL), cudaSuccess);
		assert_int_equal(cudaMemcpy(host, b, 64, cudaMemcpyDeviceToHost), cudaSuccess);
		assert_int_equal(host[40], 3);
		pp.dstDevice = 1;
		assert_int_equal(cudaMemcpy3DPeer(&pp), cudaErrorInvalidDevice);
	}
	/* a handle that names no export (test_ipc shares one) */
	memset(&h, 0, sizeof(h));
	assert_int_equal(cudaIpcOpenMemHandle(&opened, h, cudaIpcMemLazyEnablePeerAccess),
			 cudaErrorInvalidValue);
	assert_null(opened);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
	assert_int_equal(c->bytes, 64);
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 1);
	assert_non_null(c);
	assert_int_equal(c->bytes, 32);
	assert_int_equal(cudaFree(a), cudaSuccess);
	assert_int_equal(cudaFree(b), cudaSuccess);
}

static void test_function_attributes(void **state)
{
	DOC("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: The maximum size in bytes of "
	    "dynamically-allocated shared memory. The value should contain the requested maximum "
	    "size of dynamically-allocated shared memory.");
	char *cubin = slurp(cubin_path);
	CUmodule m;
	CUfunction f;
	int v = 0;

	(void)state;
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuModuleLoadData(&m, cubin), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
	assert_int_equal(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
			 CUDA_SUCCESS);
	assert_int_equal(v, 1024);
	assert_int_equal(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
					    60000),
			 CUDA_SUCCESS);
	assert_int_equal(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
			 CUDA_SUCCESS);
	assert_int_equal(v, 60000);
	/* past the device's opt-in limit (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) */
	assert_int_equal(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
					      0),
			 CUDA_SUCCESS);
	assert_int_equal(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
					    v + 1),
			 CUDA_ERROR_INVALID_VALUE);
	/* "in percent of the total shared memory" */
	assert_int_equal(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
					    101),
			 CUDA_ERROR_INVALID_VALUE);
	/* not an attribute a program sets */
	assert_int_equal(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 8),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
	assert_int_equal(cuFuncSetCacheConfig(f, (CUfunc_cache)9), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cudaFuncSetCacheConfig((const void *)&v, cudaFuncCachePreferL1),
			 cudaErrorInvalidDeviceFunction);
	assert_int_equal(cuModuleUnload(m), CUDA_SUCCESS);
	free(cubin);
}

static void test_jit_link(void **state)
{
	DOC("Completes the pending linker actions and returns the cubin image for the linked "
	    "device code, which can be used with cuModuleLoadData.");
	static const char ptx_a[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
				    ".visible .entry linked_a()\n{\n\tret;\n}\n";
	static const char ptx_b[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
				    ".visible .entry linked_b()\n{\n\tret;\n}\n";
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	const CUpti_ActivityKernel10 *k;
	CUlinkState st;
	CUmodule m;
	CUfunction fa, fb;
	void *image;
	size_t size = 0;

	(void)state;
	sim_recs_start(kinds, 1);
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuLinkCreate(0, NULL, NULL, &st), CUDA_SUCCESS);
	assert_int_equal(cuLinkComplete(st, &image, &size), CUDA_ERROR_INVALID_IMAGE);
	/* a string's NUL counted or not */
	assert_int_equal(cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx_a, sizeof(ptx_a), "a", 0,
				       NULL, NULL),
			 CUDA_SUCCESS);
	assert_int_equal(cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx_b, strlen(ptx_b), "b", 0,
				       NULL, NULL),
			 CUDA_SUCCESS);
	assert_int_equal(cuLinkComplete(st, &image, &size), CUDA_SUCCESS);
	assert_true(size > 0);
	assert_int_equal(cuModuleLoadData(&m, image), CUDA_SUCCESS);
	assert_int_equal(cuLinkDestroy(st), CUDA_SUCCESS);
	/* both inputs' kernels, launched by name */
	assert_int_equal(cuModuleGetFunction(&fa, m, "linked_a"), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&fb, m, "linked_b"), CUDA_SUCCESS);
	assert_int_equal(cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS);
	assert_int_equal(cuCtxSynchronize(), CUDA_SUCCESS);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	k = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
	assert_non_null(k);
	assert_string_equal(k->name, "linked_b");
	assert_int_equal(cuModuleUnload(m), CUDA_SUCCESS);
	/* a cubin is linked when it is the only input */
	assert_int_equal(cuLinkCreate(0, NULL, NULL, &st), CUDA_SUCCESS);
	assert_int_equal(cuLinkAddFile(st, CU_JIT_INPUT_CUBIN, cubin_path, 0, NULL, NULL),
			 CUDA_SUCCESS);
	assert_int_equal(cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx_a, sizeof(ptx_a), "a", 0,
				       NULL, NULL),
			 CUDA_ERROR_NOT_SUPPORTED);
	assert_int_equal(cuLinkComplete(st, &image, &size), CUDA_SUCCESS);
	assert_int_equal(cuModuleLoadData(&m, image), CUDA_SUCCESS);
	assert_int_equal(cuModuleGetFunction(&fa, m, "vadd"), CUDA_SUCCESS);
	assert_int_equal(cuModuleUnload(m), CUDA_SUCCESS);
	assert_int_equal(cuLinkDestroy(st), CUDA_SUCCESS);
}

static uint64_t graph_mem(enum cudaGraphMemAttributeType attr)
{
	uint64_t v = UINT64_MAX;

	assert_int_equal(cudaDeviceGetGraphMemAttribute(0, attr, &v), cudaSuccess);
	return v;
}

static void test_graph_memory_attributes(void **state)
{
	DOC("cudaGraphMemAttrUsedMemCurrent: Amount of memory, in bytes, currently associated with "
	    "graphs. [...] cudaGraphMemAttrReservedMemCurrent: Amount of memory, in bytes, "
	    "currently allocated for use by the CUDA graphs asynchronous allocator. [...] High "
	    "watermark can only be reset to zero.");
	struct cudaMemAllocNodeParams ap;
	cudaGraphNode_t alloc;
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaStream_t s;
	uint64_t used0, reserved0, zero = 0, one = 1;

	(void)state;
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	used0 = graph_mem(cudaGraphMemAttrUsedMemCurrent);
	reserved0 = graph_mem(cudaGraphMemAttrReservedMemCurrent);
	memset(&ap, 0, sizeof(ap));
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.bytesize = 1 << 20;
	assert_int_equal(cudaGraphCreate(&g, 0), cudaSuccess);
	assert_int_equal(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &ap), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	/* held for the graph from the node on, used once a launch allocates it */
	assert_int_equal(graph_mem(cudaGraphMemAttrReservedMemCurrent), reserved0 + (1 << 20));
	assert_int_equal(graph_mem(cudaGraphMemAttrUsedMemCurrent), used0);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(graph_mem(cudaGraphMemAttrUsedMemCurrent), used0 + (1 << 20));
	assert_int_equal(cudaFreeAsync(ap.dptr, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(graph_mem(cudaGraphMemAttrUsedMemCurrent), used0);
	assert_true(graph_mem(cudaGraphMemAttrUsedMemHigh) >= used0 + (1 << 20));
	assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero),
			 cudaSuccess);
	assert_int_equal(graph_mem(cudaGraphMemAttrUsedMemHigh), used0);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
}

static void test_pitched_memory(void **state)
{
	DOC("Copies a matrix (height rows of width bytes each) from the memory area pointed to by "
	    "src to the memory area pointed to by dst [...] dpitch and spitch are the widths in "
	    "memory in bytes of the 2D arrays pointed to by dst and src, including any padding "
	    "added to the end of each row.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET };
	const CUpti_ActivityMemcpy6 *c;
	const CUpti_ActivityMemset4 *m;
	struct cudaPitchedPtr pp;
	struct cudaExtent ext = { 40, 3, 2 };
	struct cudaMemcpy3DParms p3;
	unsigned char host[8][100], back[6][40];
	char *d = NULL, *row;
	size_t pitch = 0, r, i;
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaStream_t s;

	(void)state;
	sim_recs_start(kinds, 2);
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	/* "The function may pad the allocation": each row at least width, aligned */
	assert_int_equal(cudaMallocPitch((void **)&d, &pitch, 100, 8), cudaSuccess);
	assert_non_null(d);
	assert_true(pitch >= 100 && pitch % 32 == 0);
	assert_int_equal(cudaMemset(d, 0xee, pitch * 8), cudaSuccess);
	/* a 2D memset leaves each row's padding alone */
	assert_int_equal(cudaMemset2D(d, pitch, 1, 100, 8), cudaSuccess);
	for (r = 0; r < 8; r++) {
		row = d + r * pitch; /* device memory is host memory here */
		assert_int_equal(row[0], 1);
		assert_int_equal(row[99], 1);
		assert_int_equal((unsigned char)row[100], 0xee);
	}
	for (r = 0; r < 8; r++)
		for (i = 0; i < 100; i++)
			host[r][i] = (unsigned char)(r * 10 + i);
	assert_int_equal(cudaMemcpy2D(d, pitch, host, 100, 100, 8, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal((unsigned char)d[3 * pitch + 5], 35);
	assert_int_equal((unsigned char)d[3 * pitch + 100], 0xee);
	memset(host, 0, sizeof(host));
	assert_int_equal(cudaMemcpy2DAsync(host, 100, d, pitch, 100, 8, cudaMemcpyDeviceToHost, s),
			 cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(host[7][99], 169);
	/* "cudaErrorInvalidPitchValue": a pitch narrower than a row */
	assert_int_equal(cudaMemcpy2D(d, 50, host, 100, 100, 8, cudaMemcpyHostToDevice),
			 cudaErrorInvalidPitchValue);
	/* captured: a memcpy node of rows */
	assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
	assert_int_equal(cudaMemcpy2DAsync(d, pitch, host, 100, 100, 8, cudaMemcpyHostToDevice, s),
			 cudaSuccess);
	assert_int_equal(cudaMemset2DAsync(d, pitch, 2, 10, 8, s), cudaSuccess);
	assert_int_equal(cudaStreamEndCapture(s, &g), cudaSuccess);
	assert_int_equal(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	assert_int_equal(cudaGraphLaunch(x, s), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(d[7 * pitch + 9], 2);
	assert_int_equal((unsigned char)d[7 * pitch + 10], 80);
	assert_int_equal((unsigned char)d[7 * pitch + 100], 0xee);
	assert_int_equal(cudaGraphExecDestroy(x), cudaSuccess);
	assert_int_equal(cudaGraphDestroy(g), cudaSuccess);
	assert_int_equal(cudaFree(d), cudaSuccess);
	/* 3D: depth slices of height rows, set and copied back to a packed host array */
	assert_int_equal(cudaMalloc3D(&pp, ext), cudaSuccess);
	assert_true(pp.pitch >= ext.width);
	assert_int_equal(pp.xsize, ext.width);
	assert_int_equal(pp.ysize, ext.height);
	assert_int_equal(cudaMemset3D(pp, 9, ext), cudaSuccess);
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = pp;
	p3.dstPtr = (struct cudaPitchedPtr){ back, 40, 40, 3 };
	p3.extent = ext;
	p3.kind = cudaMemcpyDeviceToHost;
	assert_int_equal(cudaMemcpy3D(&p3), cudaSuccess);
	assert_int_equal(back[0][0], 9);
	assert_int_equal(back[5][39], 9);
	assert_int_equal(cudaFree(pp.ptr), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	/* one record per copy, its bytes those of the rows copied */
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	assert_int_equal(c->bytes, 800);
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 1);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
	m = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMSET, 1);
	assert_non_null(m);
	assert_int_equal(m->bytes, 800);
}

static void test_arrays_and_textures(void **state)
{
	DOC("Allocates a CUDA array according to the cudaChannelFormatDesc structure desc and "
	    "returns a handle to the new CUDA array in *array. [...] Copies a matrix (height rows "
	    "of width bytes each) from the memory area pointed to by src to the CUDA array dst "
	    "starting at hOffset rows and wOffset bytes from the upper left corner");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMORY2 };
	struct cudaChannelFormatDesc f1 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	struct cudaChannelFormatDesc f3 = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
	struct cudaChannelFormatDesc got;
	struct cudaExtent ext;
	struct cudaResourceDesc rd, back;
	struct cudaTextureDesc td;
	struct cudaMemcpy3DParms p3;
	cudaTextureObject_t tex = 0;
	cudaSurfaceObject_t surf = 0;
	cudaArray_t a = NULL, layered = NULL, surf_a = NULL;
	const CUpti_ActivityMemcpy6 *c;
	const CUpti_ActivityMemory4 *m;
	float host[4][16], out[4][16], layers[3][2][8], lout[8];
	unsigned int flags = 99;
	size_t r, i;

	(void)state;
	sim_recs_start(kinds, 2);
	for (r = 0; r < 4; r++)
		for (i = 0; i < 16; i++)
			host[r][i] = (float)(r * 100 + i);
	/* 16 x 4 floats */
	assert_int_equal(cudaMallocArray(&a, &f1, 16, 4, 0), cudaSuccess);
	assert_non_null(a);
	assert_int_equal(cudaArrayGetInfo(&got, &ext, &flags, a), cudaSuccess);
	assert_int_equal(got.x, 32);
	assert_int_equal(got.f, cudaChannelFormatKindFloat);
	assert_int_equal(ext.width, 16);
	assert_int_equal(ext.height, 4);
	assert_int_equal(flags, 0);
	/* "x, y, z, w": three channels are not a format an array takes */
	assert_int_equal(cudaMallocArray(&surf_a, &f3, 16, 4, 0), cudaErrorInvalidChannelDescriptor);
	/* rows 1-2, from byte 8 (float 2) of each row */
	memset(out, 0, sizeof(out));
	assert_int_equal(cudaMemcpy2DToArray(a, 0, 0, host, sizeof(host[0]), sizeof(host[0]), 4,
					     cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaMemcpy2DFromArray(out, sizeof(out[0]), a, 8, 1, 8 * sizeof(float), 2,
					       cudaMemcpyDeviceToHost),
			 cudaSuccess);
	assert_true(out[0][0] == 102.0f && out[0][7] == 109.0f && out[1][0] == 202.0f);
	/* past the array's rows or row */
	assert_int_equal(cudaMemcpy2DFromArray(out, sizeof(out[0]), a, 0, 3, sizeof(out[0]), 2,
					       cudaMemcpyDeviceToHost),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpy2DFromArray(out, sizeof(out[0]), a, 4, 0, sizeof(out[0]), 1,
					       cudaMemcpyDeviceToHost),
			 cudaErrorInvalidValue);
	/* the deprecated linear copy: count bytes from (wOffset bytes, hOffset rows) on */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(cudaMemcpyFromArray(lout, a, 4, 3, sizeof(lout), cudaMemcpyDeviceToHost),
			 cudaSuccess);
#pragma GCC diagnostic pop
	assert_true(lout[0] == 301.0f && lout[7] == 308.0f);
	/* a layered array: 3 layers of 2 x 8, positions and extent in elements */
	for (r = 0; r < 3; r++)
		for (i = 0; i < 16; i++)
			layers[r][i / 8][i % 8] = (float)(r * 1000 + i);
	assert_int_equal(cudaMalloc3DArray(&layered, &f1, (struct cudaExtent){ 8, 2, 3 },
					   cudaArrayLayered),
			 cudaSuccess);
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = (struct cudaPitchedPtr){ layers, 8 * sizeof(float), 8, 2 };
	p3.dstArray = layered;
	p3.extent = (struct cudaExtent){ 8, 2, 3 };
	p3.kind = cudaMemcpyHostToDevice;
	assert_int_equal(cudaMemcpy3D(&p3), cudaSuccess);
	memset(&p3, 0, sizeof(p3));
	p3.srcArray = layered;
	p3.srcPos = (struct cudaPos){ 2, 1, 2 };
	p3.dstPtr = (struct cudaPitchedPtr){ lout, sizeof(lout), 6, 1 };
	p3.extent = (struct cudaExtent){ 6, 1, 1 };
	p3.kind = cudaMemcpyDeviceToHost;
	assert_int_equal(cudaMemcpy3D(&p3), cudaSuccess);
	assert_true(lout[0] == 2010.0f && lout[5] == 2015.0f);
	/* a texture object over the array, its resource read back */
	memset(&rd, 0, sizeof(rd));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	memset(&td, 0, sizeof(td));
	assert_int_equal(cudaCreateTextureObject(&tex, &rd, NULL, NULL), cudaErrorInvalidValue);
	assert_int_equal(cudaCreateTextureObject(&tex, &rd, &td, NULL), cudaSuccess);
	assert_int_not_equal(tex, 0);
	assert_int_equal(cudaGetTextureObjectResourceDesc(&back, tex), cudaSuccess);
	assert_int_equal(back.resType, cudaResourceTypeArray);
	assert_ptr_equal(back.res.array.array, a);
	/* "pResDesc->res.array.array must be set to a valid CUDA array handle" made for surface load/store */
	assert_int_equal(cudaCreateSurfaceObject(&surf, &rd), cudaErrorInvalidValue);
	assert_int_equal(cudaMallocArray(&surf_a, &f1, 16, 4, cudaArraySurfaceLoadStore), cudaSuccess);
	rd.res.array.array = surf_a;
	assert_int_equal(cudaCreateSurfaceObject(&surf, &rd), cudaSuccess);
	assert_int_equal(cudaDestroySurfaceObject(surf), cudaSuccess);
	assert_int_equal(cudaDestroySurfaceObject(surf), cudaErrorInvalidValue);
	assert_int_equal(cudaDestroyTextureObject(tex), cudaSuccess);
	assert_int_equal(cudaDestroyTextureObject(tex), cudaErrorInvalidValue);
	assert_int_equal(cudaFreeArray(surf_a), cudaSuccess);
	assert_int_equal(cudaFreeArray(layered), cudaSuccess);
	assert_int_equal(cudaFreeArray(a), cudaSuccess);
	assert_int_equal(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
	assert_int_equal(cudaFreeArray(NULL), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	/* CUPTI: host to array, array to host; the array's allocation is of kind ARRAY */
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA);
	assert_int_equal(c->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
	assert_int_equal(c->bytes, sizeof(host));
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 1);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH);
	assert_int_equal(c->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
	assert_int_equal(c->bytes, 2 * 8 * sizeof(float));
	m = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMORY2, 0);
	assert_non_null(m);
	assert_int_equal(m->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
	assert_int_equal(m->bytes, sizeof(host));
}

static void test_virtual_memory(void **state)
{
	DOC("Maps an allocation handle to a reserved virtual address range. [...] Given a CUDA "
	    "memory handle, create a shareable memory allocation handle that can be used to share "
	    "the memory with other processes.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY };
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
				     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
	CUmemAccessDesc rw = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemGenericAllocationHandle h, shared, imported, again;
	const CUpti_ActivityMemcpy6 *c;
	CUdeviceptr va, va2;
	unsigned long long access = 0;
	size_t g = 0;
	int fd = -1, v = 0;
	char host[64];

	(void)state;
	sim_recs_start(kinds, 1);
	assert_int_equal(cudaFree(NULL), cudaSuccess);
	assert_int_equal(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
					      0),
			 CUDA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
			 CUDA_SUCCESS);
	assert_true(g > 0);
	/* sizes are multiples of the granularity */
	assert_int_equal(cuMemCreate(&h, g + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuMemCreate(&h, 2 * g, &prop, 0), CUDA_SUCCESS);
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	assert_int_equal(cuMemCreate(&shared, g, &prop, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemAddressReserve(&va, 4 * g, 0, 0, 0), CUDA_SUCCESS);
	assert_int_equal(va % g, 0);
	/* the two allocations side by side, then opened */
	assert_int_equal(cuMemMap(va, 2 * g, 0, h, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemMap(va + 2 * g, g, 0, shared, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemMap(va + g, g, 0, shared, 0), CUDA_ERROR_INVALID_VALUE); /* mapped */
	assert_int_equal(cuMemSetAccess(va, 3 * g, &rw, 1), CUDA_SUCCESS);
	assert_int_equal(cuMemGetAccess(&access, &rw.location, va + g), CUDA_SUCCESS);
	assert_int_equal(access, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	/* mapped memory is device memory: a copy into it is host to device */
	memset(host, 7, sizeof(host));
	assert_int_equal(cudaMemcpy((void *)(uintptr_t)(va + 2 * g), host, sizeof(host),
				    cudaMemcpyDefault),
			 cudaSuccess);
	/* shared through a file descriptor: the same bytes at another address */
	assert_int_equal(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
						      0),
			 CUDA_ERROR_INVALID_VALUE); /* not made shareable */
	assert_int_equal(cuMemExportToShareableHandle(&fd, shared,
						      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			 CUDA_SUCCESS);
	assert_true(fd >= 0);
	assert_int_equal(cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
							CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
			 CUDA_SUCCESS);
	close(fd);
	assert_int_equal(cuMemAddressReserve(&va2, g, 0, 0, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemMap(va2, g, 0, imported, 0), CUDA_SUCCESS);
	assert_int_equal(cuMemSetAccess(va2, g, &rw, 1), CUDA_SUCCESS);
	assert_int_equal(((char *)(uintptr_t)va2)[63], 7);
	((char *)(uintptr_t)va2)[0] = 42;
	assert_int_equal(((char *)(uintptr_t)(va + 2 * g))[0], 42);
	/* "The handle is guaranteed to be the same handle value used to map the memory" */
	assert_int_equal(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(va + g + 5)),
			 CUDA_SUCCESS);
	assert_true(again == h);
	assert_int_equal(cuMemRelease(again), CUDA_SUCCESS);
	/* "The range must be the entire contiguous address range that was mapped to" */
	assert_int_equal(cuMemUnmap(va, g), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(cuMemAddressFree(va, 4 * g), CUDA_ERROR_INVALID_VALUE); /* still mapped */
	assert_int_equal(cuMemUnmap(va, 3 * g), CUDA_SUCCESS);
	assert_int_equal(cuMemUnmap(va2, g), CUDA_SUCCESS);
	assert_int_equal(cuMemRelease(h), CUDA_SUCCESS);
	assert_int_equal(cuMemRelease(shared), CUDA_SUCCESS);
	assert_int_equal(cuMemRelease(imported), CUDA_SUCCESS);
	assert_int_equal(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE); /* gone */
	assert_int_equal(cuMemAddressFree(va, 4 * g), CUDA_SUCCESS);
	assert_int_equal(cuMemAddressFree(va2, g), CUDA_SUCCESS);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 0);
	assert_non_null(c);
	assert_int_equal(c->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	assert_int_equal(c->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}

static void test_copy_batches(void **state)
{
	DOC("Performs a batch of memory copies asynchronously. [...] Note that the first entry in "
	    "attrsIdxs must always be 0. [...] Each memcpy operation in the batch must have a valid "
	    "CUmemcpyAttributes corresponding to it including the appropriate srcAccessOrder "
	    "setting, otherwise the API will return CUDA_ERROR_INVALID_VALUE.");
	const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_RUNTIME };
	struct cudaMemcpyAttributes attrs[2] = { { .srcAccessOrder = cudaMemcpySrcAccessOrderStream },
						 { .srcAccessOrder = cudaMemcpySrcAccessOrderAny } };
	cudaStreamAttrValue v = { 0 };
	const CUpti_ActivityMemcpy6 *c;
	const CUpti_ActivityAPI *api;
	size_t idxs[2] = { 0, 1 }, sizes[3] = { 32, 32, 32 }, i;
	char a[64], b[64], *d1, *d2;
	void *dsts[3], *srcs[3];
	cudaStream_t s, s2;

	(void)state;
	sim_recs_start(kinds, 2);
	memset(a, 3, sizeof(a));
	memset(b, 0, sizeof(b));
	assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&d1, 64), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&d2, 64), cudaSuccess);
	/* host to device, device to device, device to host */
	dsts[0] = d1, srcs[0] = a;
	dsts[1] = d2, srcs[1] = d1;
	dsts[2] = b, srcs[2] = d2;
	assert_int_equal(cudaMemcpyBatchAsync(dsts, (const void *const *)srcs, sizes, 3, attrs, idxs,
					      2, s),
			 cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(b[31], 3);
	assert_int_equal(b[32], 0);
	/* the attribute indices, the access order, the stream */
	idxs[1] = 0;
	assert_int_equal(cudaMemcpyBatchAsync(dsts, (const void *const *)srcs, sizes, 3, attrs, idxs,
					      2, s),
			 cudaErrorInvalidValue);
	idxs[1] = 1;
	attrs[1].srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
	assert_int_equal(cudaMemcpyBatchAsync(dsts, (const void *const *)srcs, sizes, 3, attrs, idxs,
					      2, s),
			 cudaErrorInvalidValue);
	assert_int_equal(cudaMemcpyBatchAsync(dsts, (const void *const *)srcs, sizes, 3, attrs, idxs,
					      1, NULL),
			 cudaErrorInvalidValue);
	/* "Copies attributes from source stream src to destination stream dst." */
	assert_int_equal(cudaStreamCreate(&s2), cudaSuccess);
	v.priority = -3;
	assert_int_equal(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v), cudaSuccess);
	assert_int_equal(cudaStreamCopyAttributes(s2, s), cudaSuccess);
	memset(&v, 0, sizeof(v));
	assert_int_equal(cudaStreamGetAttribute(s2, cudaStreamAttributePriority, &v), cudaSuccess);
	assert_int_equal(v.priority, -3);
	assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
	assert_int_equal(cudaFree(d1), cudaSuccess);
	assert_int_equal(cudaFree(d2), cudaSuccess);
	assert_int_equal(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	/* a record per copy, each under the batch's correlation id */
	api = sim_recs_api(CUPTI_ACTIVITY_KIND_RUNTIME,
			   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, 0);
	assert_non_null(api);
	for (i = 0; i < 3; i++) {
		c = (const void *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, i);
		assert_non_null(c);
		assert_int_equal(c->correlationId, api->correlationId);
	}
	assert_int_equal(((const CUpti_ActivityMemcpy6 *)sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 1))
				 ->copyKind,
			 CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
	assert_null(sim_recs_find(CUPTI_ACTIVITY_KIND_MEMCPY, 3));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stream_ordered_reuse, teardown),
		cmocka_unit_test_teardown(test_release_threshold_and_trim, teardown),
		cmocka_unit_test_teardown(test_memory2_records, teardown),
		cmocka_unit_test_teardown(test_graph_memory_nodes, teardown),
		cmocka_unit_test_teardown(test_captured_allocation, teardown),
		cmocka_unit_test_teardown(test_managed_memory, teardown),
		cmocka_unit_test_teardown(test_managed_batches, teardown),
		cmocka_unit_test_teardown(test_pool_ipc, teardown),
		cmocka_unit_test_teardown(test_peers_and_ipc, teardown),
		cmocka_unit_test_teardown(test_ipc, teardown),
		cmocka_unit_test_teardown(test_pools_by_location, teardown),
		cmocka_unit_test_teardown(test_function_attributes, teardown),
		cmocka_unit_test_teardown(test_jit_link, teardown),
		cmocka_unit_test_teardown(test_graph_memory_attributes, teardown),
		cmocka_unit_test_teardown(test_pitched_memory, teardown),
		cmocka_unit_test_teardown(test_arrays_and_textures, teardown),
		cmocka_unit_test_teardown(test_virtual_memory, teardown),
		cmocka_unit_test_teardown(test_copy_batches, teardown),
		cmocka_unit_test_teardown(test_contexts, teardown),
		cmocka_unit_test(test_limits_and_stream_attributes),
		cmocka_unit_test_teardown(test_modules, teardown),
		cmocka_unit_test_teardown(test_module_globals, teardown),
		cmocka_unit_test_teardown(test_resource_callbacks, teardown),
	};
	char rules[128];
	void **h;

	self_exe = argv[0];
	if (argc == 4 && !strcmp(argv[1], "--ipc-child")) {
		snprintf(rules, sizeof(rules), "%s=%llu", KERNEL_SLOW, KERNEL_SLOW_NS);
		setenv("GPUPERF_SIM_KERNEL_NS", rules, 1);
		h = __cudaRegisterFatBinary((void *)&stub_slow);
		__cudaRegisterFunction(h, &stub_slow, (char *)KERNEL_SLOW, KERNEL_SLOW, -1, NULL,
				       NULL, NULL, NULL, NULL);
		__cudaRegisterFatBinaryEnd(h);
		return ipc_child(argv[2], argv[3]);
	}
	if (argc < 3) {
		fprintf(stderr, "usage: %s KERNELS.cubin KERNELS.fatbin\n", argv[0]);
		return 2;
	}
	cubin_path = argv[1];
	fatbin_path = argv[2];
	snprintf(rules, sizeof(rules), "%s=%llu", KERNEL_SLOW, KERNEL_SLOW_NS);
	setenv("GPUPERF_SIM_KERNEL_NS", rules, 1);
	h = __cudaRegisterFatBinary((void *)&stub_slow);
	__cudaRegisterFunction(h, &stub_slow, (char *)KERNEL_SLOW, KERNEL_SLOW, -1, NULL, NULL, NULL,
			       NULL, NULL);
	__cudaRegisterFatBinaryEnd(h);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
