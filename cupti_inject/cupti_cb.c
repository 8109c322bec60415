// SPDX-License-Identifier: Apache-2.0
/* CUPTI subscription (reset callbacks) and per-cbid selection of the recorded API calls. */

#include "cupti_cb.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <string.h>

#include "api_filter.h"
#include "cupti_call.h"
#include "cupti_clock.h"
#include "gp_record.h"
#include "gp_util.h"
#include "graph_mem.h"
#include "launch_stack.h"
#include "vmm_mem.h"

static cupti_cb_reset_fn reset_fn;
static struct graph_mem *graph_mem; /* set before its callback is enabled */
static struct vmm_mem *vmm_mem;	    /* likewise */

/* By cbid: the call issues GPU work, its stack is taken (set before the callbacks are enabled). */
static uint8_t launch_rt[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t launch_drv[CUPTI_DRIVER_TRACE_CBID_SIZE];

/*
 * Kernel launches (every variant), graph launches, copies and fills, sync
 * and async: the calls GPU records carry the correlation id of; host
 * functions enqueued on a stream (cudaLaunchHostFunc is a cudaLaunch*),
 * whose stack says where the stream was made to wait for the host; and
 * the calls that allocate and free memory, whose memory records carry
 * their correlation id (allocation sites). None of the latter is on a
 * launch path: their callbacks cost a launch nothing.
 */
static int issues_work(uint32_t domain, uint32_t cbid)
{
	static const char *const rt[] = { "__cudaLaunch", "cudaLaunch", "cudaGraphLaunch",
					  "cudaMemcpy", "cudaMemset", "cudaStreamAddCallback",
					  "cudaMalloc", "cudaFree", "cudaHostAlloc" };
	static const char *const drv[] = { "cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset",
					   "cuStreamAddCallback", "cuMemAlloc", "cuMemFree",
					   "cuMemHostAlloc", "cuArrayCreate", "cuArray3DCreate",
					   "cuArrayDestroy", "cuMipmappedArrayCreate",
					   "cuMipmappedArrayDestroy", "cuMemCreate",
					   "cuMemRelease" };
	const char *name = api_filter__name(domain, cbid);
	const char *const *p = domain == GP_API_RUNTIME ? rt : drv;
	size_t i, n = domain == GP_API_RUNTIME ? ARRAY_SIZE(rt) :
						 ARRAY_SIZE(drv);

	for (i = 0; name && i < n; i++)
		if (!strncmp(name, p[i], strlen(p[i])))
			return 1;
	return 0;
}

/*
 * At the exit of a virtual memory call that succeeded: its allocation, extra
 * reference, release, mapping or unmapping. The parameters were the driver's to check, and it
 * took them.
 */
static void vmm_call(CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
	const CUresult *ret = d->functionReturnValue;
	uint64_t ts = 0;

	if (!ret || *ret != CUDA_SUCCESS || !d->functionParams)
		return;
	/*
	 * As the call returns: the memory is there (or gone) by then. "a
	 * timestamp normalized to correspond with the start and end timestamps
	 * reported in the CUPTI activity records"
	 */
	if (gp_cupti.GetTimestamp(&ts) != CUPTI_SUCCESS)
		ts = cupti_clock__monotonic_ns();
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate) {
		const cuMemCreate_params *p = d->functionParams;
		int host = p->prop && p->prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE;

		if (p->handle && p->prop)
			vmm_mem__created(vmm_mem, *p->handle, p->size,
					 host ? UINT32_MAX : (uint32_t)p->prop->location.id,
					 host ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED :
						CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
					 d->correlationId, ts);
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemRetainAllocationHandle) {
		const cuMemRetainAllocationHandle_params *p = d->functionParams;

		if (p->handle)
			vmm_mem__retained(vmm_mem, *p->handle);
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemRelease) {
		const cuMemRelease_params *p = d->functionParams;

		vmm_mem__released(vmm_mem, p->handle, d->correlationId, ts);
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemMap) {
		const cuMemMap_params *p = d->functionParams;

		vmm_mem__mapped(vmm_mem, p->ptr, p->size, p->handle);
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemUnmap) {
		const cuMemUnmap_params *p = d->functionParams;

		vmm_mem__unmapped(vmm_mem, p->ptr, p->size, d->correlationId, ts);
	}
}

static int is_vmm_call(CUpti_CallbackId cbid)
{
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemRetainAllocationHandle ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemRelease ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemMap ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuMemUnmap;
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
				 CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *d = data;
	cupti_cb_reset_fn fn = reset_fn;

	if (!d)
		return;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		/* on the instantiating thread: CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED only */
		if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && graph_mem)
			graph_mem__node_cloned(graph_mem,
					       ((const CUpti_ResourceData *)data)->resourceDescriptor);
		return;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && vmm_mem && is_vmm_call(cbid) &&
	    d->callbackSite == CUPTI_API_EXIT)
		vmm_call(cbid, d);
	if (userdata && domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	    cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE && launch_rt[cbid]) {
		if (d->callbackSite == CUPTI_API_ENTER)
			launch_stack__enter(userdata, 1, d->correlationId);
		else
			launch_stack__exit_runtime();
		return;
	}
	if (userdata && domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	    cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && launch_drv[cbid]) {
		if (d->callbackSite == CUPTI_API_ENTER)
			launch_stack__enter(userdata, 0, d->correlationId);
		return;
	}
	if (!fn)
		return;
	if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	     (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 ||
	      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaThreadExit_v3020)) ||
	    (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	     (cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset ||
	      cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2 ||
	      cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy ||
	      cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2)))
		fn(d->callbackSite == CUPTI_API_ENTER);
}

CUptiResult cupti_cb__subscribe(CUpti_SubscriberHandle *sub, cupti_cb_reset_fn on_reset,
				struct launch_stack *ls)
{
	static const CUpti_CallbackId rt[] = { CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
					       CUPTI_RUNTIME_TRACE_CBID_cudaThreadExit_v3020 };
	static const CUpti_CallbackId drv[] = { CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
						CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
						CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy,
						CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2 };
	CUptiResult r;
	size_t i;

	reset_fn = on_reset;
	r = gp_cupti.Subscribe(sub, on_callback, ls);
	if (r != CUPTI_SUCCESS)
		return r;
	/* Only these few, unless launch stacks are on: then each call that issues GPU work. */
	for (i = 0; i < ARRAY_SIZE(rt); i++)
		GP_CUPTI_CALL(EnableCallback, (1, *sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i]));
	for (i = 0; i < ARRAY_SIZE(drv); i++)
		GP_CUPTI_CALL(EnableCallback, (1, *sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i]));
	return CUPTI_SUCCESS;
}

int cupti_cb__enable_launches(CUpti_SubscriberHandle sub)
{
	uint32_t cbid;
	int n = 0;

	for (cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
		launch_rt[cbid] = (uint8_t)issues_work(GP_API_RUNTIME, cbid);
	for (cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
		launch_drv[cbid] = (uint8_t)issues_work(GP_API_DRIVER, cbid);
	/* "The callback is at the entry of the API call" (CUPTI_API_ENTER): on the launching thread. */
	for (cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
		if (launch_rt[cbid] &&
		    GP_CUPTI_CALL(EnableCallback, (1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, cbid)) ==
			    CUPTI_SUCCESS)
			n++;
	for (cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
		if (launch_drv[cbid] &&
		    GP_CUPTI_CALL(EnableCallback, (1, sub, CUPTI_CB_DOMAIN_DRIVER_API, cbid)) ==
			    CUPTI_SUCCESS)
			n++;
	return n;
}

CUptiResult cupti_cb__enable_vmm_mem(CUpti_SubscriberHandle sub, struct vmm_mem *vm)
{
	static const CUpti_CallbackId cbids[] = {
		CUPTI_DRIVER_TRACE_CBID_cuMemCreate,
		CUPTI_DRIVER_TRACE_CBID_cuMemRetainAllocationHandle,
		CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
		CUPTI_DRIVER_TRACE_CBID_cuMemMap,
		CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
	};
	CUptiResult r = CUPTI_SUCCESS;
	size_t i;

	vmm_mem = vm;
	for (i = 0; i < ARRAY_SIZE(cbids) && r == CUPTI_SUCCESS; i++)
		r = GP_CUPTI_CALL(EnableCallback, (1, sub, CUPTI_CB_DOMAIN_DRIVER_API, cbids[i]));
	if (r != CUPTI_SUCCESS)
		vmm_mem = NULL;
	return r;
}

CUptiResult cupti_cb__enable_graph_mem(CUpti_SubscriberHandle sub, struct graph_mem *gm)
{
	graph_mem = gm;
	return GP_CUPTI_CALL(EnableCallback, (1, sub, CUPTI_CB_DOMAIN_RESOURCE,
					      CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED));
}

int cupti_cb__filter_api(void)
{
	uint32_t cbid;

	if (!gp_cupti.ActivityEnableRuntimeApi || !gp_cupti.ActivityEnableDriverApi)
		return 0;
	for (cbid = 1; cbid < api_filter__cbid_limit(GP_API_RUNTIME); cbid++)
		if (gp_cupti.ActivityEnableRuntimeApi(cbid, (uint8_t)api_filter__wanted(
								    GP_API_RUNTIME, cbid)) !=
		    CUPTI_SUCCESS)
			return 0;
	for (cbid = 1; cbid < api_filter__cbid_limit(GP_API_DRIVER); cbid++)
		if (gp_cupti.ActivityEnableDriverApi(cbid, (uint8_t)api_filter__wanted(
								   GP_API_DRIVER, cbid)) !=
		    CUPTI_SUCCESS)
			return 0;
	return 1;
}
