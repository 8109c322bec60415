/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vmm_mem.h - the physical memory a program makes and gives back through
 * the driver's virtual memory management (cuMemCreate, cuMemRelease), as
 * memory records. Allocators that grow a buffer in place (PyTorch's
 * expandable_segments, NCCL) get all their device memory this way; whether
 * CUPTI's memory records report it is not documented, so the library
 * writes its own, from the calls' own callbacks, flagged
 * GP_MEMORY_FROM_CALL: a reader drops one where CUPTI reported the same
 * call (docs/trace-format.md).
 *
 * A successful cuMemCreate is an allocation of its size on the location
 * it names. "The memory allocation will be freed when all outstanding
 * mappings to the memory are unmapped and when all outstanding references
 * to the handle (including its original reference) are also released":
 * the free is the later of a handle's last cuMemRelease and the last
 * cuMemUnmap of its mappings (a cuMemUnmap may end several). A handle
 * cuMemRetainAllocationHandle hands out is one more reference. A handle
 * another process made (cuMemImportFromShareableHandle) is not this
 * process's allocation and is not counted, nor are its mappings.
 *
 * The callbacks queue events in a fixed ring and keep the live handles
 * and their mappings in fixed tables (no allocation in a callback); the
 * writer thread turns the events into records. An event the full ring
 * cannot take, an allocation the full table cannot keep (its free would go
 * unseen) or a mapping (its allocation counts as freed at its release) is
 * counted in `lost`. Thread-safe: one mutex, held for a few instructions,
 * never across a CUDA or CUPTI call.
 */
#ifndef GPUPERF_VMM_MEM_H
#define GPUPERF_VMM_MEM_H

#include <pthread.h>
#include <stdint.h>

#define VMM_MEM_RING 4096u     /* events between two drains of the writer */
#define VMM_MEM_HANDLES 16384u /* live handles (a power of two) */
#define VMM_MEM_MAPS 16384u    /* live mappings of them */

struct gp_writer;

struct vmm_mem_ev {
	uint64_t ts; /* in the clock of CUPTI's records */
	uint64_t handle, bytes;
	uint32_t corr, device;
	uint8_t op;   /* GP_MEM_ALLOC / GP_MEM_FREE */
	uint8_t kind; /* CUpti_ActivityMemoryKind: device, or pinned for host memory */
};

struct vmm_mem_handle {
	uint64_t handle; /* the key: 0 an empty slot; bit 63 set: released, still mapped */
	uint64_t made;	 /* the handle cuMemCreate gave */
	uint64_t bytes;
	uint32_t device, refs, maps;
	uint8_t kind;
};

struct vmm_mem_map {
	uint64_t va, size;
	uint64_t handle; /* its allocation's key in the table of handles */
};

struct vmm_mem {
	pthread_mutex_t lock;
	uint64_t head, tail; /* the events queued: [tail, head) */
	uint64_t lost;	     /* not yet taken by vmm_mem__take_lost() */
	uint64_t released;   /* allocations released while mapped, so far */
	size_t nr_maps;
	struct vmm_mem_ev ev[VMM_MEM_RING];
	struct vmm_mem_handle h[VMM_MEM_HANDLES];
	struct vmm_mem_map m[VMM_MEM_MAPS];
};

/*
 * Ready vm, whose memory must be zero (static storage): its 1.3 MB of
 * tables cost a process nothing until it uses virtual memory.
 */
void vmm_mem__init(struct vmm_mem *vm);

/* A successful cuMemCreate of `bytes` (the call's correlation id, at ts). */
void vmm_mem__created(struct vmm_mem *vm, uint64_t handle, uint64_t bytes, uint32_t device,
		      uint8_t kind, uint32_t corr, uint64_t ts);

/* A successful cuMemRetainAllocationHandle: one more reference, if the handle is ours. */
void vmm_mem__retained(struct vmm_mem *vm, uint64_t handle);

/* A successful cuMemRelease: the allocation's free at its last reference, if nothing maps it. */
void vmm_mem__released(struct vmm_mem *vm, uint64_t handle, uint32_t corr, uint64_t ts);

/* A successful cuMemMap of handle at [va, va + size). */
void vmm_mem__mapped(struct vmm_mem *vm, uint64_t va, uint64_t size, uint64_t handle);

/* A successful cuMemUnmap of [va, va + size): the free of a released allocation it ends. */
void vmm_mem__unmapped(struct vmm_mem *vm, uint64_t va, uint64_t size, uint32_t corr, uint64_t ts);

/* The queued events as GP_REC_MEMORY records of process pid: how many, or -errno. */
int vmm_mem__drain(struct vmm_mem *vm, struct gp_writer *w, uint32_t pid);

/* What was lost since the last call. */
uint64_t vmm_mem__take_lost(struct vmm_mem *vm);

#endif /* GPUPERF_VMM_MEM_H */
