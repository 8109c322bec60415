// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap). */

/*
 * Device memory is host memory here, so the driver's virtual memory calls
 * are the kernel's: a physical allocation (cuMemCreate) is a memfd of its
 * size; a reserved range (cuMemAddressReserve) is an inaccessible mapping;
 * cuMemMap maps the memfd over part of it and cuMemSetAccess opens it. A
 * mapped range is device memory to the rest of the simulator (copies,
 * CUPTI's memory kinds). Exporting a handle as a POSIX file descriptor
 * hands out a duplicate of the memfd, which another process imports and
 * maps to share the memory, as it would on a GPU.
 *
 * Whether CUPTI reports these calls in memory records is not documented:
 * the simulator reports nothing for them (README.md).
 *
 * The calls name their device and need no current context, only cuInit
 * (NVIDIA's memMapIPCDrv creates and shares its memory before it makes one).
 *
 * The granularity is 2 MiB, minimum and recommended: sizes, addresses and
 * offsets must be multiples of it ("size - Size of the allocation
 * requested [...] must be a multiple of the granularity").
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <generated_cuda_meta.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_drv.h"
#include "sim_internal.h"

#define GRANULE (2u << 20)

/* A physical allocation: alive while its handle or a mapping holds it. */
struct vmm_alloc {
	int fd;
	size_t size;
	CUmemAllocationProp prop;
	unsigned refs; /* the handle (until cuMemRelease), retained handles, mappings */
	struct vmm_alloc *next;
};

/* A reserved range, and the mappings in it. */
struct vmm_map {
	uintptr_t va;
	size_t size, offset;
	struct vmm_alloc *a;
	unsigned long long access; /* CUmemAccess_flags for device 0 */
	struct vmm_map *next;
};

struct vmm_range {
	uintptr_t va;
	size_t size;
	struct vmm_range *next;
};

static struct {
	pthread_mutex_t lock;
	struct vmm_alloc *allocs;
	struct vmm_range *ranges;
	struct vmm_map *maps;
} V = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int granular(uint64_t x)
{
	return x % GRANULE == 0;
}

/* The allocation a handle names, under V.lock; NULL if none. */
static struct vmm_alloc *alloc_of(CUmemGenericAllocationHandle h)
{
	struct vmm_alloc *a;

	for (a = V.allocs; a && (uintptr_t)a != h; a = a->next)
		;
	return a;
}

/* One reference fewer; the last frees it. V.lock held. */
static void alloc_put(struct vmm_alloc *a)
{
	struct vmm_alloc **pa;

	if (--a->refs)
		return;
	for (pa = &V.allocs; *pa != a; pa = &(*pa)->next)
		;
	*pa = a->next;
	close(a->fd);
	free(a);
}

static CUresult alloc_new(int fd, size_t size, const CUmemAllocationProp *prop,
			  CUmemGenericAllocationHandle *out)
{
	struct vmm_alloc *a = calloc(1, sizeof(*a));

	if (!a) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->fd = fd;
	a->size = size;
	a->prop = *prop;
	a->refs = 1;
	pthread_mutex_lock(&V.lock);
	a->next = V.allocs;
	V.allocs = a;
	pthread_mutex_unlock(&V.lock);
	*out = (uintptr_t)a;
	return CUDA_SUCCESS;
}

/* Device memory of this device, pinned: the only kind cuMemCreate makes here. */
static int prop_ok(const CUmemAllocationProp *p)
{
	return p && p->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
	       p->location.type == CU_MEM_LOCATION_TYPE_DEVICE && p->location.id == GPSIM_DEVICE_ID;
}

/* The reserved range wholly holding [va, va + size), under V.lock. */
static struct vmm_range *range_of(uintptr_t va, size_t size)
{
	struct vmm_range *r;

	for (r = V.ranges; r; r = r->next)
		if (va >= r->va && size <= r->size && va - r->va <= r->size - size)
			return r;
	return NULL;
}

/*
 * The log's account of what the program did with its handles (no CUPTI
 * record: the simulator reports none for these calls): a creation with its
 * size, a retained handle, a release, a mapping, an unmapping. A
 * profiler's count of the memory made this way checks against it.
 */
static void log_vmm(const char *op, CUmemGenericAllocationHandle h, uintptr_t va, uint64_t bytes)
{
	char line[320];
	uint64_t own;

	snprintf(line, sizeof(line),
		 "{\"type\":\"vmm\",\"op\":\"%s\",\"handle\":%" PRIu64 ",\"address\":%" PRIu64
		 ",\"bytes\":%" PRIu64 ",\"corr\":%u,\"tid\":%u,\"ts\":%" PRIu64 "}",
		 op, (uint64_t)h, (uint64_t)va, bytes, gpsim__corr(), gpsim_gettid(),
		 gpsim__stamp(&own));
	gpsim_log_line(line);
}

#pragma GCC visibility push(default)

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
					       CUmemAllocationGranularity_flags option)
{
	cuMemGetAllocationGranularity_params p = { g, prop, option };
	DRV_ENTER(cuMemGetAllocationGranularity, &p, NULL);

	NEED_INIT();
	if (!g || !prop_ok(prop) ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
	     option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*g = GRANULE;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Create a CUDA memory handle representing a memory allocation of a given
 * size described by the given properties." "flags - flags for future use,
 * must be zero now." A POSIX file descriptor is the one shareable handle
 * type (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED).
 */
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
			     const CUmemAllocationProp *prop, unsigned long long flags)
{
	cuMemCreate_params p = { h, size, prop, flags };
	int fd;
	DRV_ENTER(cuMemCreate, &p, NULL);

	NEED_INIT();
	if (!h || !size || !granular(size) || flags || !prop_ok(prop))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (prop->requestedHandleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	fd = memfd_create("gpsim-vmm", MFD_CLOEXEC);
	if (fd < 0)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	}
	if (alloc_new(fd, size, prop, h) != CUDA_SUCCESS)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	log_vmm("create", *h, 0, size);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "The memory allocation will be freed when all outstanding mappings to
 * the memory are unmapped and when all outstanding references to the
 * handle (including it's shareable counterparts) are also released."
 */
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle h)
{
	cuMemRelease_params p = { h };
	struct vmm_alloc *a;
	DRV_ENTER(cuMemRelease, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&V.lock);
	a = alloc_of(h);
	if (a)
		alloc_put(a);
	pthread_mutex_unlock(&V.lock);
	if (a)
		log_vmm("release", h, 0, 0);
	DRV_RETURN(a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							CUmemGenericAllocationHandle h)
{
	cuMemGetAllocationPropertiesFromHandle_params p = { prop, h };
	struct vmm_alloc *a;
	DRV_ENTER(cuMemGetAllocationPropertiesFromHandle, &p, NULL);

	NEED_INIT();
	if (!prop)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&V.lock);
	a = alloc_of(h);
	if (a)
		*prop = a->prop;
	pthread_mutex_unlock(&V.lock);
	DRV_RETURN(a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/*
 * "Reserves a virtual address range based on the given parameters, giving
 * the starting address of the range in ptr." "addr - Fixed starting
 * address range requested": a hint, taken when it is free.
 */
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align,
				     CUdeviceptr addr, unsigned long long flags)
{
	cuMemAddressReserve_params p = { ptr, size, align, addr, flags };
	struct vmm_range *r;
	uintptr_t base, va;
	void *m;
	DRV_ENTER(cuMemAddressReserve, &p, NULL);

	NEED_INIT();
	if (!align)
		align = GRANULE;
	if (!ptr || !size || !granular(size) || !granular(addr) || flags || (align & (align - 1)) ||
	    align % GRANULE || size > SIZE_MAX - align)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = calloc(1, sizeof(*r));
	if (!r)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	m = MAP_FAILED;
	if (addr && addr % align == 0)
		m = mmap((void *)(uintptr_t)addr, size, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != MAP_FAILED) {
		va = (uintptr_t)m;
	} else {
		/* over-reserve, then keep the aligned part */
		m = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
		if (m == MAP_FAILED) {
			free(r);
			DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
		}
		base = (uintptr_t)m;
		va = (base + align - 1) & ~(uintptr_t)(align - 1);
		if (va > base)
			munmap(m, va - base);
		if (base + size + align > va + size)
			munmap((void *)(va + size), base + size + align - (va + size));
	}
	r->va = va;
	r->size = size;
	pthread_mutex_lock(&V.lock);
	r->next = V.ranges;
	V.ranges = r;
	pthread_mutex_unlock(&V.lock);
	*ptr = va;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Frees a virtual address range reserved by cuMemAddressReserve": the whole range, nothing mapped in it. */
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	cuMemAddressFree_params p = { ptr, size };
	struct vmm_range **pr, *r;
	struct vmm_map *mp;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	DRV_ENTER(cuMemAddressFree, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&V.lock);
	for (pr = &V.ranges; (r = *pr); pr = &r->next)
		if (r->va == ptr && r->size == size)
			break;
	for (mp = V.maps; r && mp; mp = mp->next)
		if (mp->va >= r->va && mp->va < r->va + r->size)
			break;
	if (r && !mp) {
		*pr = r->next;
		munmap((void *)r->va, r->size);
		free(r);
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&V.lock);
	DRV_RETURN(res);
}

/*
 * "Maps an allocation handle to a reserved virtual address range." "ptr -
 * Address where memory will be mapped", "offset - Offset into the memory
 * represented by handle from which to start mapping", "flags - flags for
 * future use, must be zero now". The range is not accessible until
 * cuMemSetAccess opens it.
 */
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle h, unsigned long long flags)
{
	cuMemMap_params p = { ptr, size, offset, h, flags };
	struct vmm_alloc *a;
	struct vmm_map *mp, *m = NULL;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	DRV_ENTER(cuMemMap, &p, NULL);

	NEED_INIT();
	if (!size || flags || !granular(ptr) || !granular(size) || !granular(offset))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&V.lock);
	a = alloc_of(h);
	/* inside a reserved range, nothing mapped there yet, inside the allocation */
	for (mp = V.maps; mp; mp = mp->next)
		if (ptr < mp->va + mp->size && mp->va < ptr + size)
			break;
	if (a && !mp && range_of(ptr, size) && offset <= a->size && size <= a->size - offset) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		m = calloc(1, sizeof(*m));
	}
	if (m && mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, a->fd,
		      (off_t)offset) != MAP_FAILED) {
		if (!gpsim__mem_track((void *)(uintptr_t)ptr, size)) {
			*m = (struct vmm_map){ .va = ptr, .size = size, .offset = offset, .a = a,
					       .next = V.maps };
			V.maps = m;
			a->refs++;
			m = NULL;
			res = CUDA_SUCCESS;
		} else {
			mmap((void *)(uintptr_t)ptr, size, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		}
	}
	free(m);
	pthread_mutex_unlock(&V.lock);
	if (res == CUDA_SUCCESS)
		log_vmm("map", h, ptr, size);
	DRV_RETURN(res);
}

/*
 * "Unmap the backing memory of a given address range. The range must be
 * the entire contiguous address range that was mapped to." The range goes
 * back to reserved.
 */
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	cuMemUnmap_params p = { ptr, size };
	struct vmm_map **pm, *m;
	size_t covered = 0;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	DRV_ENTER(cuMemUnmap, &p, NULL);

	NEED_INIT();
	pthread_mutex_lock(&V.lock);
	/* every mapping it touches lies wholly inside it, and they fill it */
	for (m = V.maps; m; m = m->next) {
		if (!(ptr < m->va + m->size && m->va < ptr + size))
			continue;
		if (m->va < ptr || m->va + m->size > ptr + size)
			break;
		covered += m->size;
	}
	if (!m && size && covered == size) {
		for (pm = &V.maps; (m = *pm);) {
			if (m->va >= ptr && m->va < ptr + size) {
				*pm = m->next;
				mmap((void *)m->va, m->size, PROT_NONE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
				gpsim__mem_untrack((void *)m->va);
				alloc_put(m->a);
				free(m);
			} else {
				pm = &m->next;
			}
		}
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&V.lock);
	if (res == CUDA_SUCCESS)
		log_vmm("unmap", 0, ptr, size);
	DRV_RETURN(res);
}

/*
 * "Set the access flags for each location specified in desc for the given
 * virtual address range": this device's READ or READWRITE opens the
 * mapped pages, NONE closes them; other locations are not simulated.
 */
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				size_t count)
{
	cuMemSetAccess_params p = { ptr, size, desc, count };
	struct vmm_map *m;
	size_t i, covered = 0;
	CUresult res = CUDA_SUCCESS;
	DRV_ENTER(cuMemSetAccess, &p, NULL);

	NEED_INIT();
	if (!size || !desc || !count)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
		if (desc[i].location.id != GPSIM_DEVICE_ID)
			DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
		if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
		    desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		    desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	}
	pthread_mutex_lock(&V.lock);
	for (m = V.maps; m; m = m->next)
		if (m->va >= ptr && m->va - ptr < size && m->size <= size - (m->va - ptr))
			covered += m->size;
	if (covered != size) {
		res = CUDA_ERROR_INVALID_VALUE; /* not all of it mapped */
	} else {
		unsigned long long fl = desc[count - 1].flags;
		int prot = fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE :
			   fl == CU_MEM_ACCESS_FLAGS_PROT_READ	    ? PROT_READ :
								      PROT_NONE;

		if (mprotect((void *)(uintptr_t)ptr, size, prot))
			res = CUDA_ERROR_INVALID_VALUE;
		for (m = V.maps; m && res == CUDA_SUCCESS; m = m->next)
			if (m->va >= ptr && m->va - ptr < size)
				m->access = fl;
	}
	pthread_mutex_unlock(&V.lock);
	DRV_RETURN(res);
}

/* "Get the access flags set for the given location and ptr." */
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc,
				CUdeviceptr ptr)
{
	cuMemGetAccess_params p = { flags, loc, ptr };
	struct vmm_map *m;
	DRV_ENTER(cuMemGetAccess, &p, NULL);

	NEED_INIT();
	if (!flags || !loc || loc->type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    loc->id != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&V.lock);
	for (m = V.maps; m && !(ptr >= m->va && ptr < m->va + m->size); m = m->next)
		;
	if (m)
		*flags = m->access;
	pthread_mutex_unlock(&V.lock);
	DRV_RETURN(m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/*
 * "Given a CUDA memory handle, create a shareable memory allocation handle
 * that can be used to share the memory with other processes." A POSIX file
 * descriptor, when the allocation asked for that type.
 */
CUresult CUDAAPI cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h,
					      CUmemAllocationHandleType type,
					      unsigned long long flags)
{
	cuMemExportToShareableHandle_params p = { out, h, type, flags };
	struct vmm_alloc *a;
	int fd = -1;
	DRV_ENTER(cuMemExportToShareableHandle, &p, NULL);

	NEED_INIT();
	if (!out || flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	pthread_mutex_lock(&V.lock);
	a = alloc_of(h);
	/* "The type of handle requested here must match the requestedHandleTypes" it was made with */
	if (a && !(a->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
		a = NULL;
	if (a)
		fd = dup(a->fd); /* the program's, to pass on */
	pthread_mutex_unlock(&V.lock);
	if (!a)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (fd < 0)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	memcpy(out, &fd, sizeof(fd));
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Imports an allocation from a requested shareable handle type": a file
 * descriptor cuMemExportToShareableHandle gave, here or in another
 * process ("osHandle - Shareable Handle representing the memory
 * allocation"; for POSIX file descriptors the descriptor itself, cast).
 */
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os_handle,
						CUmemAllocationHandleType type)
{
	cuMemImportFromShareableHandle_params p = { h, os_handle, type };
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
				     .requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
				     .location = { CU_MEM_LOCATION_TYPE_DEVICE, GPSIM_DEVICE_ID } };
	int fd = (int)(intptr_t)os_handle, own;
	struct stat st;
	DRV_ENTER(cuMemImportFromShareableHandle, &p, NULL);

	NEED_INIT();
	if (!h)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    !granular((uint64_t)st.st_size))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0)
		DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
	DRV_RETURN(alloc_new(own, (size_t)st.st_size, &prop, h));
}

/*
 * "Given an address addr, returns the allocation handle of the backing
 * memory allocation. The handle is guaranteed to be the same handle value
 * used to map the memory." It must be released as cuMemCreate's is.
 */
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr)
{
	cuMemRetainAllocationHandle_params p = { h, addr };
	struct vmm_map *m;
	uintptr_t va = (uintptr_t)addr;
	DRV_ENTER(cuMemRetainAllocationHandle, &p, NULL);

	NEED_INIT();
	if (!h)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&V.lock);
	for (m = V.maps; m && !(va >= m->va && va < m->va + m->size); m = m->next)
		;
	if (m) {
		m->a->refs++;
		*h = (uintptr_t)m->a;
	}
	pthread_mutex_unlock(&V.lock);
	if (m)
		log_vmm("retain", *h, 0, 0);
	DRV_RETURN(m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

#pragma GCC visibility pop
