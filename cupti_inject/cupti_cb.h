/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cupti_cb.h - what the injection library asks of CUPTI's callback API, and
 * which API calls CUPTI's activity API records.
 *
 * API records come from the RUNTIME/DRIVER activity kinds, not from our own
 * callbacks: CUPTI fills start, end, thread id, correlation id and return
 * value itself, and recording them runs no code of ours on the launch path.
 * The subscription exists for three things: to claim CUPTI (a second
 * subscriber, i.e. another profiler, is refused, and we then stay out), to
 * hear about device resets, whose records must be on disk before the
 * context goes away, and, with launch stacks on (GPUPERF_STACKS), to take
 * the stack of every call that issues GPU work as it enters
 * (launch_stack.h): the only code of ours on the launch path. With memory
 * records on, the resource callback of each node cloned into an executable
 * graph also names the graph's memory nodes (graph_mem.h).
 */
#ifndef GPUPERF_CUPTI_CB_H
#define GPUPERF_CUPTI_CB_H

#include <cupti.h>

/* Called on the application thread around cudaDeviceReset and friends. */
typedef void (*cupti_cb_reset_fn)(int enter);

struct launch_stack;

/*
 * Subscribe and enable the reset callbacks. Returns CUPTI's status
 * (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED when another client holds
 * CUPTI); on success *sub is set. ls: where launch stacks go (the
 * callbacks' user data), NULL when they are off.
 */
CUptiResult cupti_cb__subscribe(CUpti_SubscriberHandle *sub, cupti_cb_reset_fn on_reset,
				struct launch_stack *ls);

/*
 * Enable the API-enter (and exit) callbacks of every recorded call that
 * issues GPU work: kernel and graph launches, copies, fills (runtime and
 * driver). Returns how many cbids CUPTI enabled.
 */
int cupti_cb__enable_launches(CUpti_SubscriberHandle sub);

struct vmm_mem;
/*
 * Enable the exit callbacks of cuMemCreate, cuMemRetainAllocationHandle,
 * cuMemRelease, cuMemMap and cuMemUnmap, which tell vm virtual memory's
 * allocations and frees
 * (vmm_mem.h). Once, before the program runs; CUPTI's status.
 */
CUptiResult cupti_cb__enable_vmm_mem(CUpti_SubscriberHandle sub, struct vmm_mem *vm);

struct graph_mem;
/*
 * Enable the resource callback GRAPHNODE_CLONED, which tells gm each
 * executable graph's allocation and free nodes (graph_mem.h). Once, before
 * graphs are instantiated; CUPTI's status.
 */
CUptiResult cupti_cb__enable_graph_mem(CUpti_SubscriberHandle sub, struct graph_mem *gm);

/*
 * With the RUNTIME/DRIVER kinds enabled: keep only the calls api_filter
 * lists, where this CUPTI can filter by cbid (records of other calls would
 * be skipped by act_parse anyway, at the cost of producing them).
 * Returns 1 when CUPTI filters, 0 when it cannot.
 */
int cupti_cb__filter_api(void);

#endif /* GPUPERF_CUPTI_CB_H */
