/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_filter.h - which runtime/driver API calls become GP_REC_API records,
 * and their names. The list is generated at build time from the CUPTI
 * headers (api_list.cmake) and documented in README.md.
 *
 * Pure and read-only: safe from any thread, including CUPTI callbacks.
 */
#ifndef GPUPERF_API_FILTER_H
#define GPUPERF_API_FILTER_H

#include <stdint.h>

/* domain: GP_API_RUNTIME or GP_API_DRIVER (gp_record.h). */

/* The recorded call's name (e.g. "__cudaLaunchKernel"), or NULL when `cbid` is not recorded. */
const char *api_filter__name(uint32_t domain, uint32_t cbid);

static inline int api_filter__wanted(uint32_t domain, uint32_t cbid)
{
	return api_filter__name(domain, cbid) != 0;
}

/* One past the largest cbid of `domain` (CUPTI_*_TRACE_CBID_SIZE). */
uint32_t api_filter__cbid_limit(uint32_t domain);

#endif /* GPUPERF_API_FILTER_H */
