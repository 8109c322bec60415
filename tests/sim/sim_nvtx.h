/* SPDX-License-Identifier: Apache-2.0 */
/* What sim_cupti.c lends sim_nvtx.c, both inside the simulated libcupti.so.13. */
#ifndef GPSIM_NVTX_H
#define GPSIM_NVTX_H

#include <cupti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPSIM_CUPTI_HIDDEN __attribute__((visibility("hidden")))

/* The CUPTI_CB_DOMAIN_NVTX callback of @cbid, when the subscriber enabled it. */
GPSIM_CUPTI_HIDDEN void cupti__nvtx_callback(uint32_t cbid, const char *name, const void *params,
					     const void *ret);
GPSIM_CUPTI_HIDDEN bool cupti__kind_on(CUpti_ActivityKind k);
/* CUPTI's clock: the client's timestamp callback, else CLOCK_REALTIME. */
GPSIM_CUPTI_HIDDEN uint64_t cupti__now(void);
/* This thread's id as CUPTI_ACTIVITY_ATTR thread id type asks. */
GPSIM_CUPTI_HIDDEN uint32_t cupti__thread_id(void);
/* A copy of @rec (its times on CUPTI's clock) for the client's buffers. */
GPSIM_CUPTI_HIDDEN void cupti__stage_record(const void *rec, size_t size);

#endif /* GPSIM_NVTX_H */
