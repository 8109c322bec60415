// SPDX-License-Identifier: Apache-2.0
/* Converts CUPTI activity records (API, kernel, memcpy, memset, sync, device, memory) to gp_record structs. */

#include "act_parse.h"

#include <errno.h>
#include <string.h>

#include "api_filter.h"
#include "gp_record.h"
#include "gp_writer.h"
#include "graph_mem.h"

/* CUPTI's records are 8-byte aligned inside its buffers; reading through the struct is safe. */
#define AS(type, a) ((const type *)(const void *)(a))

/* What a GPU record shares with the others (gp_rec_gpu), from a CUPTI kernel, memcpy or memset record. */
#define GPU_FIELDS(r, pid_)                                                                         \
	((struct gp_rec_gpu){ .start = (r)->start,                                                 \
			      .end = (r)->end,                                                     \
			      .graph_node_id = (r)->graphNodeId,                                   \
			      .correlation_id = (r)->correlationId,                                \
			      .pid = (pid_),                                                       \
			      .device_id = (r)->deviceId,                                          \
			      .context_id = (r)->contextId,                                        \
			      .stream_id = (r)->streamId,                                          \
			      .graph_id = (r)->graphId })

static int api(struct gp_writer *w, const CUpti_ActivityAPI *r, uint32_t domain,
	       struct act_parse_stats *st)
{
	const char *name = api_filter__name(domain, r->cbid);
	struct gp_rec_api *o;

	if (!name) {
		st->api_skipped++;
		return 0;
	}
	o = gp_writer__reserve(w, GP_REC_API, sizeof(*o));
	if (!o)
		return -errno;
	o->name_str = gp_writer__intern(w, name);
	o->start = r->start;
	o->end = r->end;
	o->correlation_id = r->correlationId;
	o->pid = r->processId;
	o->tid = r->threadId;
	o->domain = domain;
	o->cbid = r->cbid;
	o->return_value = (int32_t)r->returnValue;
	gp_writer__commit(w);
	st->api++;
	return 1;
}

static int kernel(struct gp_writer *w, const CUpti_ActivityKernel10 *r, uint32_t pid,
		  struct act_parse_stats *st)
{
	struct gp_rec_kernel *o = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*o));

	if (!o)
		return -errno;
	o->name_str = gp_writer__intern(w, r->name);
	if (r->graphId)
		o->hdr.flags |= GP_KERNEL_IN_GRAPH;
	if (r->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE ||
	    r->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE)
		o->hdr.flags |= GP_KERNEL_COOPERATIVE;
	gp_rec_gpu__set(&o->hdr, &GPU_FIELDS(r, pid));
	o->grid[0] = (uint32_t)r->gridX;
	o->grid[1] = (uint32_t)r->gridY;
	o->grid[2] = (uint32_t)r->gridZ;
	o->block[0] = (uint32_t)r->blockX;
	o->block[1] = (uint32_t)r->blockY;
	o->block[2] = (uint32_t)r->blockZ;
	o->static_shared_mem = (uint32_t)r->staticSharedMemory;
	o->dynamic_shared_mem = (uint32_t)r->dynamicSharedMemory;
	o->registers_per_thread = r->registersPerThread;
	gp_writer__commit(w);
	st->kernel++;
	return 1;
}

static int memcpy_rec(struct gp_writer *w, const CUpti_ActivityMemcpy6 *r, uint32_t pid,
		      struct act_parse_stats *st)
{
	struct gp_rec_memcpy *o = gp_writer__reserve(w, GP_REC_MEMCPY, sizeof(*o));

	if (!o)
		return -errno;
	gp_rec_gpu__set(&o->hdr, &GPU_FIELDS(r, pid));
	o->bytes = r->bytes;
	o->copy_kind = r->copyKind;
	o->src_kind = r->srcKind;
	o->dst_kind = r->dstKind;
	o->is_async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
	gp_writer__commit(w);
	st->memcpy++;
	return 1;
}

static int memset_rec(struct gp_writer *w, const CUpti_ActivityMemset4 *r, uint32_t pid,
		      struct act_parse_stats *st)
{
	struct gp_rec_memset *o = gp_writer__reserve(w, GP_REC_MEMSET, sizeof(*o));

	if (!o)
		return -errno;
	gp_rec_gpu__set(&o->hdr, &GPU_FIELDS(r, pid));
	o->bytes = r->bytes;
	o->value = r->value;
	o->memory_kind = r->memoryKind;
	o->is_async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0;
	gp_writer__commit(w);
	st->memset++;
	return 1;
}

static int sync_rec(struct gp_writer *w, const CUpti_ActivitySynchronization2 *r, uint32_t pid,
		    struct act_parse_stats *st)
{
	struct gp_rec_sync *o = gp_writer__reserve(w, GP_REC_SYNC, sizeof(*o));

	if (!o)
		return -errno;
	gp_rec_gpu__set(&o->hdr, &(struct gp_rec_gpu){ .start = r->start,
							.end = r->end,
							.correlation_id = r->correlationId,
							.pid = pid,
							.context_id = r->contextId,
							.stream_id = r->streamId });
	o->sync_type = (uint32_t)r->type;
	o->event_id = r->cudaEventId;
	gp_writer__commit(w);
	st->sync++;
	return 1;
}

static int device(struct gp_writer *w, const CUpti_ActivityDevice5 *r, struct act_parse_stats *st)
{
	struct gp_rec_device *o = gp_writer__reserve(w, GP_REC_DEVICE, sizeof(*o));

	if (!o)
		return -errno;
	o->name_str = gp_writer__intern(w, r->name);
	o->global_memory_bytes = r->globalMemorySize;
	o->device_id = r->id;
	o->cc_major = r->computeCapabilityMajor;
	o->cc_minor = r->computeCapabilityMinor;
	o->sm_count = r->numMultiprocessors;
	_Static_assert(sizeof(o->uuid) == sizeof(r->uuid), "uuid sizes");
	memcpy(o->uuid, &r->uuid, sizeof(o->uuid));
	gp_writer__commit(w);
	st->device++;
	return 1;
}

static int memory(struct gp_writer *w, const CUpti_ActivityMemory4 *r, uint32_t pid,
		  struct graph_mem *gm, struct act_parse_stats *st)
{
	struct gp_rec_memory *o = gp_writer__reserve(w, GP_REC_MEMORY, sizeof(*o));

	if (!o)
		return -errno;
	o->ts = r->timestamp;
	o->address = r->address;
	o->bytes = r->bytes;
	o->correlation_id = r->correlationId;
	o->pid = r->processId ? r->processId : pid;
	o->device_id = r->deviceId;
	o->context_id = r->contextId;
	o->stream_id = r->streamId;
	o->op = r->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE ? GP_MEM_FREE :
										    GP_MEM_ALLOC;
	o->memory_kind = (uint8_t)r->memoryKind;
	o->is_async = r->isAsync ? 1 : 0;
	if (r->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID) {
		o->pool_type = (uint8_t)r->memoryPoolConfig.memoryPoolType;
		o->pool_address = r->memoryPoolConfig.address;
		/* "size ... is valid if memoryPoolType is CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL" */
		if (r->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL) {
			o->pool_size = r->memoryPoolConfig.pool.size;
			o->pool_used = r->memoryPoolConfig.utilizedSize;
		}
	} else if (gm && r->isAsync) {
		/* stream-ordered and from no pool of the program's: a graph's memory node, if any */
		o->graph_node_id = graph_mem__node_of(gm, o->address, o->op, o->ts);
	}
	gp_writer__commit(w);
	st->memory++;
	return 1;
}

/* A pool event: the pool's base and size where an allocation has its own. */
static int memory_pool(struct gp_writer *w, const CUpti_ActivityMemoryPool3 *r, uint32_t pid,
		       struct act_parse_stats *st)
{
	struct gp_rec_memory *o = gp_writer__reserve(w, GP_REC_MEMORY, sizeof(*o));

	if (!o)
		return -errno;
	o->ts = r->timestamp;
	o->correlation_id = r->correlationId;
	o->pid = r->processId ? r->processId : pid;
	o->device_id = r->deviceId;
	o->stream_id = UINT32_MAX;
	o->op = r->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED ?
			GP_MEM_POOL_CREATE :
		r->memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED ?
			GP_MEM_POOL_DESTROY :
			GP_MEM_POOL_TRIM;
	o->address = r->address;
	o->bytes = o->op == GP_MEM_POOL_TRIM ? r->minBytesToKeep : r->size;
	o->pool_type = (uint8_t)r->memoryPoolType;
	o->pool_address = r->address;
	o->pool_size = r->size;
	o->pool_used = r->utilizedSize;
	gp_writer__commit(w);
	st->memory++;
	return 1;
}

int act_parse__record(struct gp_writer *w, const CUpti_Activity *a, uint32_t pid,
		      struct graph_mem *gm, struct act_parse_stats *st)
{
	int r;

	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		r = api(w, AS(CUpti_ActivityAPI, a), GP_API_RUNTIME, st);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
		r = api(w, AS(CUpti_ActivityAPI, a), GP_API_DRIVER, st);
		break;
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		r = kernel(w, AS(CUpti_ActivityKernel10, a), pid, st);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		r = memcpy_rec(w, AS(CUpti_ActivityMemcpy6, a), pid, st);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		r = memset_rec(w, AS(CUpti_ActivityMemset4, a), pid, st);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		r = sync_rec(w, AS(CUpti_ActivitySynchronization2, a), pid, st);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		r = device(w, AS(CUpti_ActivityDevice5, a), st);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		r = memory(w, AS(CUpti_ActivityMemory4, a), pid, gm, st);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		r = memory_pool(w, AS(CUpti_ActivityMemoryPool3, a), pid, st);
		break;
	default:
		st->unknown++;
		return 0;
	}
	if (r < 0)
		st->failed++;
	return r;
}
