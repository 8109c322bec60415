// SPDX-License-Identifier: Apache-2.0
/* The recorded API calls: cbid -> name tables generated from the CUPTI headers. */

#include "api_filter.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "gp_record.h"

static const char *const runtime_names[CUPTI_RUNTIME_TRACE_CBID_SIZE] = {
#include "api_list_runtime.inc"
};

static const char *const driver_names[CUPTI_DRIVER_TRACE_CBID_SIZE] = {
#include "api_list_driver.inc"
};

const char *api_filter__name(uint32_t domain, uint32_t cbid)
{
	if (domain == GP_API_RUNTIME && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		return runtime_names[cbid];
	if (domain == GP_API_DRIVER && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		return driver_names[cbid];
	return 0;
}

uint32_t api_filter__cbid_limit(uint32_t domain)
{
	return domain == GP_API_RUNTIME ? CUPTI_RUNTIME_TRACE_CBID_SIZE :
	       domain == GP_API_DRIVER	? CUPTI_DRIVER_TRACE_CBID_SIZE :
					  0;
}
