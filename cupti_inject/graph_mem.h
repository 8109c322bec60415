/* SPDX-License-Identifier: Apache-2.0 */
/*
 * graph_mem.h - which graph node made each graph allocation: CUPTI's
 * memory record (CUpti_ActivityMemory4) has no graph node field.
 *
 * A graph's allocation has one address for all its instantiations and
 * launches ("The allocation's address remains fixed"), and a graph with
 * memory nodes has at most one executable graph at a time. So when CUPTI
 * reports an executable graph's node cloned (the resource callback
 * GRAPHNODE_CLONED, on the instantiating thread), an allocation or free
 * node's address (cuGraphMemAllocNodeGetParams / cuGraphMemFreeNodeGetParams
 * of the driver) and op name that clone's id, the id its launches' other
 * records carry, from that time on. The writer thread asks for the node of
 * a memory record by address, op and time.
 *
 * Entries live in a fixed ring (no allocation in the callback); the
 * oldest are overwritten past GRAPH_MEM_MAX, counted in `overwritten`.
 * Thread-safe: one mutex, never held across a CUDA or CUPTI call.
 */
#ifndef GPUPERF_GRAPH_MEM_H
#define GPUPERF_GRAPH_MEM_H

#include <cuda.h>
#include <pthread.h>
#include <stdint.h>

#define GRAPH_MEM_MAX 4096u

struct graph_mem_ent {
	uint64_t ts;	  /* CLOCK_MONOTONIC ns of the instantiation */
	uint64_t address;
	uint64_t node_id; /* cuptiGetGraphNodeId of the executable graph's node */
	uint32_t op;	  /* GP_MEM_ALLOC / GP_MEM_FREE */
	uint32_t pad;
};

struct graph_mem {
	pthread_mutex_t lock;
	uint64_t n; /* entries ever added; the last min(n, GRAPH_MEM_MAX) are kept */
	uint64_t overwritten;
	struct graph_mem_ent e[GRAPH_MEM_MAX];
	/* the driver's, found in the mapped libcuda when first needed (under lock) */
	__typeof__(&cuGraphMemAllocNodeGetParams) alloc_params;
	__typeof__(&cuGraphMemFreeNodeGetParams) free_params;
};

/*
 * An empty table. The driver calls it needs are looked up in the mapped
 * libcuda at the first clone of a memory node (a node whose address cannot
 * be had is left out: its records get node 0).
 */
void graph_mem__init(struct graph_mem *gm);

/*
 * The resource callback GRAPHNODE_CLONED: `graph_data` is its
 * CUpti_GraphData. Only clones into an executable graph of allocation and
 * free nodes are kept.
 */
void graph_mem__node_cloned(struct graph_mem *gm, const void *graph_data);

/* The node of the graph allocation or free (op) at address made at ts, or 0. */
uint64_t graph_mem__node_of(struct graph_mem *gm, uint64_t address, uint32_t op, uint64_t ts);

#endif /* GPUPERF_GRAPH_MEM_H */
