// SPDX-License-Identifier: Apache-2.0
/* Benchmark floor: a minimal CUPTI client that enables the same activity kinds as gpuperf and discards every buffer. */

/*
 * Loaded through CUDA_INJECTION64_PATH like libgpuperf_inject.so. It does
 * what any CUPTI activity client must (SYSTEM thread ids, buffer callbacks,
 * the same kinds, a final flush) and nothing else: no timestamp callback,
 * no parsing, no file. bench_inject compares against it.
 *
 * It asks CUPTI for the same API records as gpuperf (the recorded-API list
 * of api_filter.h, through cuptiActivityEnableRuntimeApi/DriverApi): a
 * floor that also took a record for every cudaGetLastError would make
 * CUPTI stage a third more records per launch, and gpuperf would look
 * cheaper than nothing.
 */
#include <cupti.h>

#include <stdlib.h>

#include "api_filter.h"
#include "gp_record.h"
#include "gp_util.h"

#define BUF_SIZE (1u << 20)

int InitializeInjection(void) __attribute__((visibility("default")));

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	free(buffer);
}

static void at_exit(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

int InitializeInjection(void)
{
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_DEVICE,	       CUPTI_ACTIVITY_KIND_RUNTIME,
		CUPTI_ACTIVITY_KIND_DRIVER,	       CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
		CUPTI_ACTIVITY_KIND_MEMCPY,	       CUPTI_ACTIVITY_KIND_MEMSET,
		CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	};
	size_t i;

	cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS)
		return 1;
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		cuptiActivityEnable(kinds[i]);
	for (i = 1; i < api_filter__cbid_limit(GP_API_RUNTIME); i++)
		cuptiActivityEnableRuntimeApi((CUpti_CallbackId)i,
					      (uint8_t)api_filter__wanted(GP_API_RUNTIME, (uint32_t)i));
	for (i = 1; i < api_filter__cbid_limit(GP_API_DRIVER); i++)
		cuptiActivityEnableDriverApi((CUpti_CallbackId)i,
					     (uint8_t)api_filter__wanted(GP_API_DRIVER, (uint32_t)i));
	atexit(at_exit);
	return 1;
}
