// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: interprocess memory and events (cuIpc*). */

/*
 * Device memory is host memory here, so sharing it with another process is
 * the kernel's business. cuIpcGetMemHandle turns a cuMemAlloc allocation's
 * pages into a memfd's, mapped at the same address with the same bytes
 * (gpsim__mem_export); the handle names the exporting process and that
 * descriptor, and cuIpcOpenMemHandle maps it through /proc/PID/fd/FD, as
 * a process of the same user may. An interprocess event
 * (CU_EVENT_INTERPROCESS) keeps its completion time in a page of its own,
 * shared the same way: a record in either process is seen by a query, a
 * synchronize or a stream wait in the other, which waits until that time
 * (CLOCK_MONOTONIC, the machine's).
 *
 * Whether CUPTI reports an opened handle's memory in memory records is not
 * documented: nothing is reported here.
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <generated_cuda_meta.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_drv.h"
#include "sim_internal.h"

#define MEM_NAME "gpsim-ipc-mem"
#define EVENT_NAME "gpsim-ipc-event"

/* What a handle's 64 opaque bytes hold. */
struct ipc_handle {
	char magic[8]; /* "gpsimipc" */
	uint32_t kind; /* 1 memory, 2 event */
	uint32_t pid;  /* the exporting process */
	int32_t fd;    /* its memfd there */
	uint32_t pad;
	uint64_t size; /* memory: bytes mapped */
};
_Static_assert(sizeof(struct ipc_handle) <= CU_IPC_HANDLE_SIZE, "ipc_handle fits a handle");

enum { IPC_MEM = 1, IPC_EVENT = 2 };

/* A handle this process opened: mapped once, counted ("the reference count on the handle"). */
struct opened {
	uint32_t pid;
	int32_t fd;
	void *p;
	size_t size;
	unsigned refs;
	struct opened *next;
};

static struct {
	pthread_mutex_t lock;
	struct opened *opened;
} I = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void put_handle(char *out, uint32_t kind, int fd, uint64_t size)
{
	struct ipc_handle h = { .kind = kind, .pid = (uint32_t)getpid(), .fd = fd, .size = size };

	memcpy(h.magic, "gpsimipc", sizeof(h.magic));
	memset(out, 0, CU_IPC_HANDLE_SIZE);
	memcpy(out, &h, sizeof(h));
}

/*
 * The memfd named name that handle h names, opened in this process: its
 * descriptor, or -1 (not such a handle, the exporter gone or the
 * descriptor closed since). *r: why not.
 */
static int open_handle(const char *raw, uint32_t kind, const char *name, struct ipc_handle *h,
		       CUresult *r)
{
	char path[64], link[128];
	ssize_t n;
	int fd;

	memcpy(h, raw, sizeof(*h));
	*r = CUDA_ERROR_INVALID_VALUE;
	if (memcmp(h->magic, "gpsimipc", sizeof(h->magic)) || h->kind != kind || h->fd < 0)
		return -1;
	/* "may only be opened by one context per device per other process" */
	if (h->pid == (uint32_t)getpid()) {
		*r = CUDA_ERROR_INVALID_CONTEXT;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%u/fd/%d", h->pid, h->fd);
	/* the descriptor still the exporter's memfd, not a file opened since under its number */
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	if (strncmp(link, "/memfd:", 7) || strncmp(link + 7, name, strlen(name)))
		return -1;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		*r = CUDA_ERROR_MAP_FAILED;
	return fd;
}

_Atomic uint64_t *gpsim__ipc_page(int *fd)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	*fd = memfd_create(EVENT_NAME, MFD_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (ftruncate(*fd, (off_t)pg) ||
	    (p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0)) == MAP_FAILED) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return p;
}

void gpsim__ipc_page_put(_Atomic uint64_t *page, int fd)
{
	if (page)
		munmap((void *)page, (size_t)sysconf(_SC_PAGESIZE));
	if (fd >= 0)
		close(fd);
}

#pragma GCC visibility push(default)

/*
 * "Takes a pointer to the base of an existing device memory allocation
 * created with cuMemAlloc and exports it for use in another process."
 */
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr)
{
	cuIpcGetMemHandle_params p = { handle, dptr };
	size_t size;
	CUresult r;
	int fd;
	DRV_ENTER(cuIpcGetMemHandle, &p, NULL);

	NEED_CTX();
	if (!handle)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = gpsim__mem_export(dptr, &fd, &size);
	if (r == CUDA_SUCCESS)
		put_handle(handle->reserved, IPC_MEM, fd, size);
	DRV_RETURN(r);
}

/*
 * "Maps memory exported from another process with cuIpcGetMemHandle into
 * the current device address space." "If the memory handle has already
 * been opened by the current context, the reference count on the handle
 * is incremented by 1 and the existing device pointer is returned."
 * "Flags - Flags for this operation. Must be specified as
 * CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS"
 */
CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
				       unsigned int flags)
{
	cuIpcOpenMemHandle_v2_params p = { dptr, handle, flags };
	struct ipc_handle h;
	struct opened *o;
	struct stat st;
	CUresult r;
	void *m;
	int fd;
	DRV_ENTER(cuIpcOpenMemHandle_v2, &p, NULL);

	NEED_CTX();
	if (!dptr || flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&I.lock);
	memcpy(&h, handle.reserved, sizeof(h));
	for (o = I.opened; o && !(o->pid == h.pid && o->fd == h.fd); o = o->next)
		;
	if (o && !memcmp(h.magic, "gpsimipc", sizeof(h.magic)) && h.kind == IPC_MEM) {
		o->refs++;
		*dptr = (CUdeviceptr)(uintptr_t)o->p;
		pthread_mutex_unlock(&I.lock);
		DRV_RETURN(CUDA_SUCCESS);
	}
	fd = open_handle(handle.reserved, IPC_MEM, MEM_NAME, &h, &r);
	if (fd < 0) {
		pthread_mutex_unlock(&I.lock);
		DRV_RETURN(r);
	}
	m = MAP_FAILED;
	o = calloc(1, sizeof(*o));
	if (o && !fstat(fd, &st) && (uint64_t)st.st_size >= h.size && h.size)
		m = mmap(NULL, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED || gpsim__mem_track(m, h.size)) {
		if (m != MAP_FAILED)
			munmap(m, h.size);
		free(o);
		pthread_mutex_unlock(&I.lock);
		DRV_RETURN(CUDA_ERROR_MAP_FAILED);
	}
	*o = (struct opened){ .pid = h.pid, .fd = h.fd, .p = m, .size = h.size, .refs = 1,
			      .next = I.opened };
	I.opened = o;
	pthread_mutex_unlock(&I.lock);
	*dptr = (CUdeviceptr)(uintptr_t)m;
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Decrements the reference count of the memory returned by
 * cuIpcOpenMemHandle by 1. When the reference count reaches 0, this API
 * unmaps the memory."
 */
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	cuIpcCloseMemHandle_params p = { dptr };
	struct opened **po, *o;
	DRV_ENTER(cuIpcCloseMemHandle, &p, NULL);

	NEED_CTX();
	pthread_mutex_lock(&I.lock);
	for (po = &I.opened; (o = *po) && (uintptr_t)o->p != dptr; po = &o->next)
		;
	if (o && !--o->refs) {
		*po = o->next;
		gpsim__mem_untrack(o->p);
		munmap(o->p, o->size);
		free(o);
	}
	pthread_mutex_unlock(&I.lock);
	DRV_RETURN(o ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/*
 * "Takes as input a previously allocated event. This event must have been
 * created with the CU_EVENT_INTERPROCESS and CU_EVENT_DISABLE_TIMING flags
 * set."
 */
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *handle, CUevent event)
{
	cuIpcGetEventHandle_params p = { handle, event };
	int fd;
	DRV_ENTER(cuIpcGetEventHandle, &p, NULL);

	NEED_CTX();
	if (!handle)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!event)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	fd = gpsim__event_shared_fd(event);
	if (fd < 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	put_handle(handle->reserved, IPC_EVENT, fd, 0);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Opens an interprocess event handle exported from another process with
 * cuIpcGetEventHandle. This function returns a CUevent that behaves like a
 * locally created event with the CU_EVENT_DISABLE_TIMING flag specified."
 */
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *event, CUipcEventHandle handle)
{
	cuIpcOpenEventHandle_params p = { event, handle };
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct ipc_handle h;
	CUresult r;
	void *m;
	int fd;
	DRV_ENTER(cuIpcOpenEventHandle, &p, NULL);

	NEED_CTX();
	if (!event)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	fd = open_handle(handle.reserved, IPC_EVENT, EVENT_NAME, &h, &r);
	if (fd < 0)
		DRV_RETURN(r);
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		DRV_RETURN(CUDA_ERROR_MAP_FAILED);
	r = gpsim__event_import(event, m);
	if (r != CUDA_SUCCESS)
		munmap(m, pg);
	DRV_RETURN(r);
}

#pragma GCC visibility pop
