/* SPDX-License-Identifier: Apache-2.0 */
/*
 * correlate.h - joins each GPU record to the API call that issued it and to
 * the CPU stack of that call.
 *
 * GPU record -> API record: same process, same correlation id (kernels of a
 * graph launch carry the graph launch's id, so they all join to it).
 *
 * API record -> launch stack: loading bound each call to the stack its
 * GPU trace's api_stack record names, by correlation id (format 2.3,
 * timeline.h); a nested call without a stack of its own (the driver call
 * inside a runtime call) takes its enclosing call's. No time window and no
 * thread matching: the launch_site records of older recordings (uprobe
 * hits of the CPU agent) are read and counted, never joined.
 *
 * Memory records (allocations, frees, pool events) join their API call the
 * same way, by correlation id, and through it its launch stack: the
 * allocation site.
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
 * record: each tl_api's `launch` (its launch stack) and each joined
 * tl_gpu's `corr`, which becomes the index of its API call
 * (TL_GPU_JOINED; read through timeline__gpu_api(), _gpu_corr(),
 * _gpu_launch_stack()). What is
 * left here are the counts, and which API calls start flows to GPU work
 * (what the timeline writers draw as arrows). Indices are 32-bit: a
 * timeline of more than INT32_MAX API calls is refused
 * (-EOVERFLOW).
 */
struct correlation {
	size_t nr_gpu;
	size_t gpu_with_api;   /* GPU records joined to an API record */
	size_t gpu_with_stack; /* ... and through it to a launch stack */
	/* The same three counts for device work alone (kernels, memcpys, memsets; no syncs). */
	size_t nr_work, work_with_api, work_with_stack;
	size_t mem_with_api; /* memory records joined to their API call (tl_mem.api) */
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

/*
 * Whether the traces of tl are one recording. Traces of two recordings put
 * in one directory (a cpu.trace copied beside another run's GPU traces)
 * join nothing, and the report would only say that they are one. A process
 * of the GPU traces is foreign to the CPU trace when the CPU trace has no
 * record of it (no sample or off-CPU span) and either no GPU process
 * appears in the CPU trace at all or its API calls lie outside the CPU
 * trace's time. Returns 0 when they are one, 1 with a one-line warning in
 * why (len bytes) when they are not, or -ENOMEM.
 */
int correlate__check_one_recording(const struct timeline *tl, char *why, size_t len);

#endif /* GPUPERF_CORRELATE_H */
