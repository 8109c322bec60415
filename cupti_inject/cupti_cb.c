// SPDX-License-Identifier: Apache-2.0
/* CUPTI subscription (reset callbacks) and per-cbid selection of the recorded API calls. */

#include "cupti_cb.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "api_filter.h"
#include "cupti_call.h"
#include "gp_record.h"

static cupti_cb_reset_fn reset_fn;

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
				 CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *d = data;
	cupti_cb_reset_fn fn = reset_fn;

	if (!fn || !d)
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

CUptiResult cupti_cb__subscribe(CUpti_SubscriberHandle *sub, cupti_cb_reset_fn on_reset)
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
	r = gp_cupti.Subscribe(sub, on_callback, NULL);
	if (r != CUPTI_SUCCESS)
		return r;
	/* Only these few: a callback on every launch would cost every launch. */
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
		GP_CUPTI_CALL(EnableCallback, (1, *sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i]));
	for (i = 0; i < sizeof(drv) / sizeof(drv[0]); i++)
		GP_CUPTI_CALL(EnableCallback, (1, *sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i]));
	return CUPTI_SUCCESS;
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
