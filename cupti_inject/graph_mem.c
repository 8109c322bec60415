// SPDX-License-Identifier: Apache-2.0
/* Graph allocation and free nodes by address, for the memory records of graph launches. */

#include "graph_mem.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "cupti_call.h"
#include "cupti_clock.h"
#include "gp_record.h"

void graph_mem__init(struct graph_mem *gm)
{
	memset(gm, 0, sizeof(*gm));
	pthread_mutex_init(&gm->lock, NULL);
}

/*
 * The driver's calls, from the libcuda already mapped (by then: a graph is
 * being instantiated). 0, or -ENOSYS without them.
 */
static int resolve(struct graph_mem *gm)
{
	void *h = NULL;
	int err = 0;

	pthread_mutex_lock(&gm->lock);
	if (!gm->alloc_params || !gm->free_params) {
		if (gp_cupti.GetGraphNodeId)
			h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			*(void **)&gm->alloc_params = dlsym(h, "cuGraphMemAllocNodeGetParams");
			*(void **)&gm->free_params = dlsym(h, "cuGraphMemFreeNodeGetParams");
			dlclose(h); /* RTLD_NOLOAD: the driver stays mapped; only our reference goes */
		}
		err = gm->alloc_params && gm->free_params ? 0 : -ENOSYS;
	}
	pthread_mutex_unlock(&gm->lock);
	return err;
}

void graph_mem__node_cloned(struct graph_mem *gm, const void *graph_data)
{
	const CUpti_GraphData *d = graph_data;
	struct graph_mem_ent ent = { 0 };
	CUDA_MEM_ALLOC_NODE_PARAMS ap;
	CUdeviceptr dptr = 0;

	if (!d || !d->graphExec || !d->node ||
	    (d->nodeType != CU_GRAPH_NODE_TYPE_MEM_ALLOC &&
	     d->nodeType != CU_GRAPH_NODE_TYPE_MEM_FREE) ||
	    resolve(gm))
		return;
	if (d->nodeType == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
		memset(&ap, 0, sizeof(ap));
		if (gm->alloc_params(d->node, &ap) != CUDA_SUCCESS)
			return;
		ent.address = ap.dptr;
		ent.op = GP_MEM_ALLOC;
	} else if (d->nodeType == CU_GRAPH_NODE_TYPE_MEM_FREE) {
		if (gm->free_params(d->node, &dptr) != CUDA_SUCCESS)
			return;
		ent.address = dptr;
		ent.op = GP_MEM_FREE;
	} else {
		return;
	}
	if (gp_cupti.GetGraphNodeId(d->node, &ent.node_id) != CUPTI_SUCCESS)
		return;
	ent.ts = cupti_clock__monotonic_ns();
	pthread_mutex_lock(&gm->lock);
	if (gm->n >= GRAPH_MEM_MAX)
		gm->overwritten++;
	gm->e[gm->n++ % GRAPH_MEM_MAX] = ent;
	pthread_mutex_unlock(&gm->lock);
}

uint64_t graph_mem__node_of(struct graph_mem *gm, uint64_t address, uint32_t op, uint64_t ts)
{
	uint64_t i, lo, id = 0;

	pthread_mutex_lock(&gm->lock);
	lo = gm->n > GRAPH_MEM_MAX ? gm->n - GRAPH_MEM_MAX : 0;
	/* the newest entry made before the record: an instantiation since names later launches */
	for (i = gm->n; i-- > lo;) {
		const struct graph_mem_ent *e = &gm->e[i % GRAPH_MEM_MAX];

		if (e->address == address && e->op == op && e->ts <= ts) {
			id = e->node_id;
			break;
		}
	}
	pthread_mutex_unlock(&gm->lock);
	return id;
}
