// SPDX-License-Identifier: Apache-2.0
/* Virtual memory management's physical allocations as memory records (vmm_mem.h). */

#include "vmm_mem.h"

#include <errno.h>

#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"

#define MASK (VMM_MEM_HANDLES - 1)
/* A handle's key once released while mapped: no handle the driver gives has it set. */
#define RELEASED (1ull << 63)

void vmm_mem__init(struct vmm_mem *vm)
{
	/* the tables stay as they are: zero, and not resident until a program uses them */
	pthread_mutex_init(&vm->lock, NULL);
	vm->head = vm->tail = vm->lost = vm->released = 0;
	vm->nr_maps = 0;
}

static size_t home(uint64_t handle)
{
	return (size_t)gp_mix64(handle) & MASK;
}

/* The slot of handle, or of the empty slot where it would go; under lock. */
static size_t find(const struct vmm_mem *vm, uint64_t handle)
{
	size_t i = home(handle), n;

	for (n = 0; n < VMM_MEM_HANDLES; n++, i = (i + 1) & MASK)
		if (vm->h[i].handle == handle || !vm->h[i].handle)
			return i;
	return VMM_MEM_HANDLES; /* full, and not there */
}

/* Empty slot i, moving back the entries its probe sequence passed (linear probing). */
static void remove_at(struct vmm_mem *vm, size_t i)
{
	size_t j = i, k, n;

	/* to the next empty slot; a full table has none: every other slot, once */
	for (n = 1; n < VMM_MEM_HANDLES; n++) {
		j = (j + 1) & MASK;
		if (!vm->h[j].handle)
			break;
		k = home(vm->h[j].handle);
		/* j's entry may fill i when its home is not cyclically in (i, j] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			vm->h[i] = vm->h[j];
			i = j;
		}
	}
	vm->h[i].handle = 0;
}

/* Queue an event; under lock. */
static void queue(struct vmm_mem *vm, const struct vmm_mem_ev *e)
{
	if (vm->head - vm->tail >= VMM_MEM_RING) {
		vm->lost++;
		return;
	}
	vm->ev[vm->head++ % VMM_MEM_RING] = *e;
}

void vmm_mem__created(struct vmm_mem *vm, uint64_t handle, uint64_t bytes, uint32_t device,
		      uint8_t kind, uint32_t corr, uint64_t ts)
{
	struct vmm_mem_ev e = { .ts = ts, .handle = handle, .bytes = bytes, .corr = corr,
				.device = device, .op = GP_MEM_ALLOC, .kind = kind };
	size_t i;

	if (!handle || (handle & RELEASED))
		return;
	pthread_mutex_lock(&vm->lock);
	i = find(vm, handle);
	if (i == VMM_MEM_HANDLES || vm->h[i].handle) {
		/* no room to see its free (or a handle the driver gave twice) */
		vm->lost++;
	} else {
		vm->h[i] = (struct vmm_mem_handle){ .handle = handle, .made = handle, .bytes = bytes,
						    .device = device, .refs = 1, .kind = kind };
		queue(vm, &e);
	}
	pthread_mutex_unlock(&vm->lock);
}

void vmm_mem__retained(struct vmm_mem *vm, uint64_t handle)
{
	size_t i;

	if (!handle || (handle & RELEASED))
		return;
	pthread_mutex_lock(&vm->lock);
	i = find(vm, handle);
	if (i < VMM_MEM_HANDLES && vm->h[i].handle)
		vm->h[i].refs++;
	pthread_mutex_unlock(&vm->lock);
}

/* The free of the allocation in slot i, which nothing holds any more; under lock. */
static void freed(struct vmm_mem *vm, size_t i, uint32_t corr, uint64_t ts)
{
	struct vmm_mem_ev e = { .ts = ts, .handle = vm->h[i].made,
				.bytes = vm->h[i].bytes, .corr = corr,
				.device = vm->h[i].device, .op = GP_MEM_FREE, .kind = vm->h[i].kind };

	remove_at(vm, i);
	queue(vm, &e);
}

void vmm_mem__released(struct vmm_mem *vm, uint64_t handle, uint32_t corr, uint64_t ts)
{
	struct vmm_mem_handle moved;
	uint64_t key;
	size_t i, k;

	if (!handle || (handle & RELEASED))
		return;
	pthread_mutex_lock(&vm->lock);
	i = find(vm, handle);
	/* not ours: imported from another process, or made before the library started */
	if (i < VMM_MEM_HANDLES && vm->h[i].handle && !--vm->h[i].refs) {
		if (!vm->h[i].maps) {
			freed(vm, i, corr, ts);
		} else {
			/*
			 * Released while mapped: it lives on under a key of its own
			 * (the driver may give its handle to a new allocation), to be
			 * freed by the unmap that ends its last mapping.
			 */
			moved = vm->h[i];
			key = RELEASED | ++vm->released;
			for (k = 0; k < vm->nr_maps; k++)
				if (vm->m[k].handle == handle)
					vm->m[k].handle = key;
			remove_at(vm, i);
			i = find(vm, key);
			if (i < VMM_MEM_HANDLES && !vm->h[i].handle) {
				moved.handle = key;
				vm->h[i] = moved;
			} else {
				vm->lost++; /* its free will go unseen */
			}
		}
	}
	pthread_mutex_unlock(&vm->lock);
}

void vmm_mem__mapped(struct vmm_mem *vm, uint64_t va, uint64_t size, uint64_t handle)
{
	size_t i;

	if (!handle || (handle & RELEASED))
		return;
	pthread_mutex_lock(&vm->lock);
	i = find(vm, handle);
	if (i < VMM_MEM_HANDLES && vm->h[i].handle) {
		if (vm->nr_maps == VMM_MEM_MAPS) {
			vm->lost++; /* it counts as freed at its release */
		} else {
			vm->m[vm->nr_maps++] = (struct vmm_mem_map){ .va = va, .size = size,
								     .handle = handle };
			vm->h[i].maps++;
		}
	}
	pthread_mutex_unlock(&vm->lock);
}

void vmm_mem__unmapped(struct vmm_mem *vm, uint64_t va, uint64_t size, uint32_t corr, uint64_t ts)
{
	size_t k = 0, i;

	pthread_mutex_lock(&vm->lock);
	while (k < vm->nr_maps) {
		struct vmm_mem_map *m = &vm->m[k];

		if (m->va < va || m->va - va >= size) {
			k++;
			continue;
		}
		i = find(vm, m->handle);
		*m = vm->m[--vm->nr_maps]; /* this slot again: it holds the last one now */
		if (i < VMM_MEM_HANDLES && vm->h[i].handle && !--vm->h[i].maps && !vm->h[i].refs)
			freed(vm, i, corr, ts);
	}
	pthread_mutex_unlock(&vm->lock);
}

int vmm_mem__drain(struct vmm_mem *vm, struct gp_writer *w, uint32_t pid)
{
	struct vmm_mem_ev e;
	int n = 0;

	for (;;) {
		struct gp_rec_memory *o;

		pthread_mutex_lock(&vm->lock);
		if (vm->tail == vm->head) {
			pthread_mutex_unlock(&vm->lock);
			return n;
		}
		e = vm->ev[vm->tail++ % VMM_MEM_RING];
		pthread_mutex_unlock(&vm->lock);
		o = gp_writer__reserve(w, GP_REC_MEMORY, sizeof(*o));
		if (!o)
			return -errno;
		o->hdr.flags = GP_MEMORY_FROM_CALL;
		o->ts = e.ts;
		o->address = e.handle;
		o->bytes = e.bytes;
		o->correlation_id = e.corr;
		o->pid = pid;
		o->device_id = e.device;
		o->context_id = UINT32_MAX;
		o->stream_id = UINT32_MAX;
		o->op = e.op;
		o->memory_kind = e.kind;
		gp_writer__commit(w);
		n++;
	}
}

uint64_t vmm_mem__take_lost(struct vmm_mem *vm)
{
	uint64_t n;

	pthread_mutex_lock(&vm->lock);
	n = vm->lost;
	vm->lost = 0;
	pthread_mutex_unlock(&vm->lock);
	return n;
}
