/* SPDX-License-Identifier: Apache-2.0 */
/*
 * correlate.h - joins each GPU record to the API call that issued it and to
 * the CPU stack of that call.
 *
 * GPU record -> API record: same process, same correlation id (kernels of a
 * graph launch carry the graph launch's id, so they all join to it).
 *
 * API record -> launch stack: where the process's GPU trace carries its
 * own launch stacks (api_stack records, format 2.3), loading has bound
 * each call to its stack by correlation id, exactly (timeline.h), and that
 * binding is kept: no window, no launch-site hit for that process. A
 * nested call without a stack of its own takes its enclosing call's.
 *
 * Otherwise (older traces, GPUPERF_STACKS=0), API record -> launch-site
 * stack of the CPU agent: the launch uprobe fires at the entry of
 * the CUDA call, before CUPTI takes the call's start time, so the hit of a
 * call lies on the same thread after the end of the thread's previous
 * outermost API call and before the end of this one. Of the hits in that
 * window, the earliest belongs to the outermost probed function (e.g.
 * __cudaLaunchKernel before the cudaLaunchKernel it jumps to, the runtime
 * call before the driver call it makes). A nested API call (the driver call
 * inside a runtime call) takes the stack of its enclosing call. Each hit
 * serves one outermost call at most, so back-to-back launches never share.
 *
 * Unjoined records keep index -1 and are counted.
 */
#ifndef GPUPERF_CORRELATE_H
#define GPUPERF_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

struct timeline;

/*
 * The join is stored in the timeline itself, so it costs no memory per
 * record: each tl_api's `launch` (its launch-site hit's stack; loading sets
 * it where it could bind the hits as they came, tl->launches_bound) and
 * each joined tl_gpu's `corr`, which becomes the index of its API call
 * (TL_GPU_JOINED; read through timeline__gpu_api(), _gpu_corr(),
 * _gpu_launch_stack()). What is
 * left here are the counts, and which API calls start flows to GPU work
 * (what the timeline writers draw as arrows). Indices are 32-bit: a
 * timeline of more than INT32_MAX API calls or launch hits is refused
 * (-EOVERFLOW).
 */
struct correlation {
	size_t nr_gpu;
	size_t gpu_with_api;   /* GPU records joined to an API record */
	size_t gpu_with_stack; /* ... and through it to a launch stack */
	/* The same three counts for device work alone (kernels, memcpys, memsets; no syncs). */
	size_t nr_work, work_with_api, work_with_stack;
	/* By API call index, a bit each: device work joins to it; more than one record does (a graph). */
	uint64_t *flows, *multi;
};

/* Whether API call i has device work joined to it (flows) / several records of it (multi). */
static inline int correlation__flow(const struct correlation *c, size_t i)
{
	return c->flows[i / 64] >> (i % 64) & 1;
}

static inline int correlation__multi(const struct correlation *c, size_t i)
{
	return c->multi[i / 64] >> (i % 64) & 1;
}

/*
 * Needs timeline__finish() first; may be run again (correlate__release() c
 * before). 0, -ENOMEM or -EOVERFLOW.
 */
int correlate__run(struct timeline *tl, struct correlation *c);
void correlate__release(struct correlation *c);

#endif /* GPUPERF_CORRELATE_H */
