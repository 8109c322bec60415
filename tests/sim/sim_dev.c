// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: peers, IPC, device identity, entry points, function attributes, cuLink. */

/*
 * The simulated machine has one device, so it has no peers: every peer
 * query says so and every peer call fails as the header says it does when
 * the devices cannot reach each other. Sharing memory or events with
 * another process (IPC) is not simulated: each call is
 * CUDA_ERROR_NOT_SUPPORTED. Function attributes are checked and kept per
 * function; nothing is compiled, so a cache or carveout preference changes
 * nothing. Texture and surface objects are handles to a resource checked
 * when they are made. The JIT linker (cuLink*) links by concatenation: its output is
 * the PTX it was given (or the one cubin or fatbin), which the module
 * loader reads as it reads any image (sim_module.c).
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <generated_cuda_meta.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_drv.h"
#include "sim_internal.h"

/* ---- peers ---- */

#pragma GCC visibility push(default)

/*
 * "Returns in *canAccessPeer a value of 1 if contexts on dev are capable of
 * directly accessing memory from contexts on peerDev and 0 otherwise": 0,
 * a device is not its own peer, and there is no other.
 */
CUresult CUDAAPI cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
	cuDeviceCanAccessPeer_params p = { can, dev, peer };
	DRV_ENTER(cuDeviceCanAccessPeer, &p, NULL);
	NEED_INIT();
	if (!can)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != GPSIM_DEVICE_ID || peer != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*can = 0;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not valid or if they represent the same device." */
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attr, CUdevice src,
					 CUdevice dst)
{
	cuDeviceGetP2PAttribute_params p = { value, attr, src, dst };
	DRV_ENTER(cuDeviceGetP2PAttribute, &p, NULL);
	NEED_INIT();
	if (!value)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
}

/*
 * "Returns CUDA_ERROR_PEER_ACCESS_UNSUPPORTED if cuDeviceCanAccessPeer()
 * indicates that the CUdevice of the current context cannot directly
 * access memory from the CUdevice of peerContext." "flags - Reserved for
 * future use and must be set to 0".
 */
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
	cuCtxEnablePeerAccess_params p = { peer, flags };
	DRV_ENTER(cuCtxEnablePeerAccess, &p, NULL);
	NEED_CTX();
	if (flags)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!peer)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
}

/* "Returns CUDA_ERROR_PEER_ACCESS_NOT_ENABLED if direct peer access has not yet been enabled" */
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peer)
{
	cuCtxDisablePeerAccess_params p = { peer };
	DRV_ENTER(cuCtxDisablePeerAccess, &p, NULL);
	NEED_CTX();
	if (!peer)
		DRV_RETURN(CUDA_ERROR_INVALID_CONTEXT);
	DRV_RETURN(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}

/* ---- the device's identity ---- */

#define PCI_BUS_ID "0000:01:00.0" /* "[domain]:[bus]:[device].[function]" */

/* "Returns an ASCII string identifying the device dev in the NULL-terminated string pointed to by pciBusId." */
CUresult CUDAAPI cuDeviceGetPCIBusId(char *id, int len, CUdevice dev)
{
	cuDeviceGetPCIBusId_params p = { id, len, dev };
	DRV_ENTER(cuDeviceGetPCIBusId, &p, NULL);

	NEED_INIT();
	if (!id || len <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	snprintf(id, (size_t)len, "%s", PCI_BUS_ID);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *id)
{
	cuDeviceGetByPCIBusId_params p = { dev, id };
	DRV_ENTER(cuDeviceGetByPCIBusId, &p, NULL);

	NEED_INIT();
	if (!dev || !id)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	/* the bus id with or without its domain */
	if (strcasecmp(id, PCI_BUS_ID) && strcasecmp(id, PCI_BUS_ID + 5))
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	*dev = GPSIM_DEVICE_ID;
	DRV_RETURN(CUDA_SUCCESS);
}

/* "Returns 16-octets identifying the device dev in the structure pointed by the uuid." */
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	cuDeviceGetUuid_v2_params p = { uuid, dev };
	static const char bytes[16] = "gpuperf-sim-dev0";
	DRV_ENTER(cuDeviceGetUuid_v2, &p, NULL);

	NEED_INIT();
	if (!uuid)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (dev != GPSIM_DEVICE_ID)
		DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
	memcpy(uuid->bytes, bytes, sizeof(uuid->bytes));
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * "Returns in **pfn the address of the CUDA driver function for the
 * requested CUDA version and flags." The simulator exports one version of
 * each function, the one this toolkit's headers name: the symbol's
 * highest versioned name (_v3, _v2, then the plain one) is taken, which is
 * the ABI a program built against these headers asks for. "If a
 * per-thread version is not found, the API will return the legacy
 * version": with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, the
 * _ptsz (then _ptds) form comes first. "The API will return CUDA_SUCCESS
 * and set the returned pfn to NULL if [...] the driver symbol is invalid."
 */
static CUresult proc_address(const char *symbol, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	static const char *const vers[] = { "_v3", "_v2", "" };
	static const char *const pts[] = { "_ptsz", "_ptds", "" };
	int per_thread = !!(flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	Dl_info di;
	void *self, *f = NULL;
	char name[160];
	size_t v, t;

	if (!symbol || !pfn ||
	    (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
		return CUDA_ERROR_INVALID_VALUE;
	/* "If the specified CUDA version is greater than the driver version, the API will return CUDA_ERROR_INVALID_VALUE." */
	if (version > CUDA_VERSION)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (!dladdr((void *)proc_address, &di) ||
	    !(self = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		return CUDA_ERROR_NOT_SUPPORTED;
	for (v = 0; !f && v < sizeof(vers) / sizeof(vers[0]); v++)
		for (t = per_thread ? 0 : 2; !f && t < sizeof(pts) / sizeof(pts[0]); t++)
			if ((size_t)snprintf(name, sizeof(name), "%s%s%s", symbol, vers[v], pts[t]) <
			    sizeof(name))
				f = dlsym(self, name);
	dlclose(self);
	*pfn = f;
	if (status)
		*status = f ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
				     CUdriverProcAddressQueryResult *status)
{
	cuGetProcAddress_v2_params p = { symbol, pfn, version, flags, status };
	DRV_ENTER(cuGetProcAddress_v2, &p, NULL);
	DRV_RETURN(proc_address(symbol, pfn, version, flags, status));
}

/* CUDA 11.3's form, without the status, for programs built then. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	cuGetProcAddress_params p = { symbol, pfn, version, flags };
	DRV_ENTER(cuGetProcAddress, &p, NULL);
	DRV_RETURN(proc_address(symbol, pfn, version, flags, NULL));
}

#pragma GCC visibility pop

/* ---- function attributes ---- */

/* What a program set on a function; the rest has its default. */
struct func_attrs {
	CUfunction f;
	int max_dyn_shmem, carveout, cache_config;
	struct func_attrs *next;
};

static struct {
	pthread_mutex_t lock;
	struct func_attrs *attrs;
} F = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* f's attributes, made on first use (carveout -1: "no preference"); NULL if out of memory. Lock held. */
static struct func_attrs *attrs_of(CUfunction f)
{
	struct func_attrs *a;

	for (a = F.attrs; a; a = a->next)
		if (a->f == f)
			return a;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->f = f;
	a->carveout = -1;
	a->next = F.attrs;
	F.attrs = a;
	return a;
}

/* The limits a Turing SM (compute capability 7.5) gives, as cuDeviceGetAttribute does. */
#define SHMEM_PER_BLOCK	      49152
#define SHMEM_PER_BLOCK_OPTIN 65536

#pragma GCC visibility push(default)

CUresult CUDAAPI cuFuncGetAttribute(int *value, CUfunction_attribute attr, CUfunction f)
{
	cuFuncGetAttribute_params p = { value, attr, f };
	struct func_attrs *a;
	CUresult r = CUDA_SUCCESS;
	DRV_ENTER(cuFuncGetAttribute, &p, NULL);

	NEED_CTX();
	if (!value)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!f)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	pthread_mutex_lock(&F.lock);
	a = attrs_of(f);
	switch (attr) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = GPSIM_CC_MAJOR * 10 + GPSIM_CC_MINOR; break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*value = a && a->max_dyn_shmem ? a->max_dyn_shmem : SHMEM_PER_BLOCK;
		break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a ? a->carveout : -1; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
	default:
		if ((int)attr < 0 || attr >= CU_FUNC_ATTRIBUTE_MAX)
			r = CUDA_ERROR_INVALID_VALUE;
		else
			*value = 0;
	}
	pthread_mutex_unlock(&F.lock);
	DRV_RETURN(r);
}

/*
 * "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: The maximum size in
 * bytes of dynamically-allocated shared memory." (up to the opt-in limit
 * less the static size, 0 here) "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
 * On devices where the L1 cache and shared memory use the same hardware
 * resources, this sets the shared memory carveout preference, in percent
 * of the total shared memory." Other attributes cannot be set.
 */
CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value)
{
	cuFuncSetAttribute_params p = { f, attr, value };
	struct func_attrs *a;
	CUresult r = CUDA_SUCCESS;
	DRV_ENTER(cuFuncSetAttribute, &p, NULL);

	NEED_CTX();
	if (!f)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
	    (value < 0 || value > SHMEM_PER_BLOCK_OPTIN))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (attr == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT && (value < -1 || value > 100))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
	    attr != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&F.lock);
	a = attrs_of(f);
	if (!a)
		r = CUDA_ERROR_OUT_OF_MEMORY;
	else if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
		a->max_dyn_shmem = value;
	else
		a->carveout = value;
	pthread_mutex_unlock(&F.lock);
	DRV_RETURN(r);
}

/* "Sets through config the preferred cache configuration for the device function hfunc." */
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction f, CUfunc_cache config)
{
	cuFuncSetCacheConfig_params p = { f, config };
	struct func_attrs *a;
	DRV_ENTER(cuFuncSetCacheConfig, &p, NULL);

	NEED_CTX();
	if (!f)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	pthread_mutex_lock(&F.lock);
	a = attrs_of(f);
	if (a)
		a->cache_config = config;
	pthread_mutex_unlock(&F.lock);
	DRV_RETURN(a ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

#pragma GCC visibility pop

/* ---- texture and surface objects ---- */

/*
 * A texture or surface object is a handle to a resource; kernels read
 * nothing here, so it is the resource checked and kept. Handles are an
 * index + 1 into this table (under O.lock); a destroyed one is not reused.
 */
struct res_object {
	CUDA_RESOURCE_DESC res;
	int surface, live;
};

static struct {
	pthread_mutex_t lock;
	struct res_object *v;
	size_t n, cap;
} O = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * "CU_RESOURCE_TYPE_ARRAY: hArray must be set to a valid CUDA array handle";
 * LINEAR: "devPtr must be set to a valid device pointer [...] sizeInBytes
 * specifies the size of the array in terms of number of bytes"; PITCH2D:
 * "pitchInBytes specifies the pitch between two rows in bytes". Mipmapped
 * arrays are not simulated.
 */
static CUresult res_check(const CUDA_RESOURCE_DESC *r, unsigned int *array_flags)
{
	if (!r || r->flags)
		return CUDA_ERROR_INVALID_VALUE;
	switch (r->resType) {
	case CU_RESOURCE_TYPE_ARRAY:
		return gpsim__array_ok(r->res.array.hArray, array_flags) ?
			       CUDA_SUCCESS :
			       CUDA_ERROR_INVALID_HANDLE;
	case CU_RESOURCE_TYPE_LINEAR:
		return r->res.linear.devPtr && r->res.linear.sizeInBytes ?
			       CUDA_SUCCESS :
			       CUDA_ERROR_INVALID_VALUE;
	case CU_RESOURCE_TYPE_PITCH2D:
		return r->res.pitch2D.devPtr && r->res.pitch2D.width && r->res.pitch2D.height &&
				       r->res.pitch2D.pitchInBytes >= r->res.pitch2D.width ?
			       CUDA_SUCCESS :
			       CUDA_ERROR_INVALID_VALUE;
	case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult object_new(unsigned long long *out, const CUDA_RESOURCE_DESC *r, int surface)
{
	CUresult err = CUDA_SUCCESS;

	pthread_mutex_lock(&O.lock);
	if (O.n == O.cap) {
		size_t cap = O.cap * 2 + 16;
		struct res_object *v = realloc(O.v, cap * sizeof(*v));

		if (v) {
			O.v = v;
			O.cap = cap;
		} else {
			err = CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	if (err == CUDA_SUCCESS) {
		O.v[O.n] = (struct res_object){ .res = *r, .surface = surface, .live = 1 };
		*out = ++O.n;
	}
	pthread_mutex_unlock(&O.lock);
	return err;
}

/* The object h of the kind asked ends; CUDA_ERROR_INVALID_VALUE if it is not a live one. */
static CUresult object_end(unsigned long long h, int surface, CUDA_RESOURCE_DESC *res, int keep)
{
	CUresult err = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&O.lock);
	if (h && h <= O.n && O.v[h - 1].live && O.v[h - 1].surface == surface) {
		if (res)
			*res = O.v[h - 1].res;
		if (!keep)
			O.v[h - 1].live = 0;
		err = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&O.lock);
	return err;
}

#pragma GCC visibility push(default)

CUresult CUDAAPI cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *res,
				   const CUDA_TEXTURE_DESC *td, const CUDA_RESOURCE_VIEW_DESC *rv)
{
	cuTexObjectCreate_params p = { out, res, td, rv };
	CUresult r;
	DRV_ENTER(cuTexObjectCreate, &p, NULL);

	NEED_CTX();
	/* "pTexDesc - Texture descriptor" is not optional; the view is */
	if (!out || !td)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = res_check(res, NULL);
	if (r == CUDA_SUCCESS)
		r = object_new(out, res, 0);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject tex)
{
	cuTexObjectDestroy_params p = { tex };
	DRV_ENTER(cuTexObjectDestroy, &p, NULL);
	NEED_CTX();
	DRV_RETURN(object_end(tex, 0, NULL, 0));
}

CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUtexObject tex)
{
	cuTexObjectGetResourceDesc_params p = { res, tex };
	DRV_ENTER(cuTexObjectGetResourceDesc, &p, NULL);
	NEED_CTX();
	if (!res)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(object_end(tex, 0, res, 1));
}

/*
 * "pResDesc->resType must be CU_RESOURCE_TYPE_ARRAY and
 * pResDesc->res.array.hArray must be set to a valid CUDA array handle",
 * one made with CUDA_ARRAY3D_SURFACE_LDST.
 */
CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *res)
{
	cuSurfObjectCreate_params p = { out, res };
	unsigned int flags = 0;
	CUresult r;
	DRV_ENTER(cuSurfObjectCreate, &p, NULL);

	NEED_CTX();
	if (!out || !res || res->resType != CU_RESOURCE_TYPE_ARRAY)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = res_check(res, &flags);
	if (r == CUDA_SUCCESS && !(flags & CUDA_ARRAY3D_SURFACE_LDST))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = object_new(out, res, 1);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surf)
{
	cuSurfObjectDestroy_params p = { surf };
	DRV_ENTER(cuSurfObjectDestroy, &p, NULL);
	NEED_CTX();
	DRV_RETURN(object_end(surf, 1, NULL, 0));
}

#pragma GCC visibility pop

/* ---- the JIT linker ---- */

/* A link in progress: the PTX added so far, or the one binary image. */
struct CUlinkState_st {
	char *ptx;
	size_t ptx_len;
	void *bin;
	size_t bin_len;
	int nbin;
};

/*
 * Adds one input. PTX text is appended; a cubin or fatbin is kept when it
 * is the only input, as the loader reads one image (several binaries, or
 * binaries and PTX together, are not linked here: CUDA_ERROR_NOT_SUPPORTED).
 */
static CUresult link_add(struct CUlinkState_st *st, CUjitInputType type, const void *data,
			 size_t size)
{
	char *grown;

	if (!st || !data || !size)
		return CUDA_ERROR_INVALID_VALUE;
	switch (type) {
	case CU_JIT_INPUT_PTX:
		if (st->nbin)
			return CUDA_ERROR_NOT_SUPPORTED;
		/* the text may or may not count its NUL */
		size = strnlen(data, size);
		grown = realloc(st->ptx, st->ptx_len + size + 2);
		if (!grown)
			return CUDA_ERROR_OUT_OF_MEMORY;
		st->ptx = grown;
		memcpy(st->ptx + st->ptx_len, data, size);
		st->ptx_len += size;
		st->ptx[st->ptx_len++] = '\n';
		st->ptx[st->ptx_len] = '\0';
		return CUDA_SUCCESS;
	case CU_JIT_INPUT_CUBIN:
	case CU_JIT_INPUT_FATBINARY:
		if (st->nbin || st->ptx_len)
			return CUDA_ERROR_NOT_SUPPORTED;
		st->bin = malloc(size);
		if (!st->bin)
			return CUDA_ERROR_OUT_OF_MEMORY;
		memcpy(st->bin, data, size);
		st->bin_len = size;
		st->nbin = 1;
		return CUDA_SUCCESS;
	case CU_JIT_INPUT_OBJECT:
	case CU_JIT_INPUT_LIBRARY:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* A file's contents for link_add(). */
static CUresult link_add_file(struct CUlinkState_st *st, CUjitInputType type, const char *path)
{
	char *img = NULL;
	size_t size = 0;
	CUresult r = gpsim__read_image(path, &img, &size);

	if (r == CUDA_SUCCESS)
		r = link_add(st, type, img, size);
	free(img);
	return r;
}

#pragma GCC visibility push(default)

/* JIT options steer compiling, which nothing here does: they are checked, not used. */
CUresult CUDAAPI cuLinkCreate_v2(unsigned int nopts, CUjit_option *opts, void **vals,
				 CUlinkState *out)
{
	cuLinkCreate_v2_params p = { nopts, opts, vals, out };
	DRV_ENTER(cuLinkCreate_v2, &p, NULL);

	NEED_CTX();
	if (!out || (nopts && (!opts || !vals)))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*out = calloc(1, sizeof(**out));
	DRV_RETURN(*out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState st, CUjitInputType type, void *data, size_t size,
				  const char *name, unsigned int nopts, CUjit_option *opts,
				  void **vals)
{
	cuLinkAddData_v2_params p = { st, type, data, size, name, nopts, opts, vals };
	DRV_ENTER(cuLinkAddData_v2, &p, NULL);

	NEED_CTX();
	if (nopts && (!opts || !vals))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(link_add(st, type, data, size));
}

CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState st, CUjitInputType type, const char *path,
				  unsigned int nopts, CUjit_option *opts, void **vals)
{
	cuLinkAddFile_v2_params p = { st, type, path, nopts, opts, vals };
	DRV_ENTER(cuLinkAddFile_v2, &p, NULL);

	NEED_CTX();
	if (!st || (nopts && (!opts || !vals)))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(link_add_file(st, type, path));
}

/* "cubinOut - On success, this will point to the output image"; "owned by state" until cuLinkDestroy. */
CUresult CUDAAPI cuLinkComplete(CUlinkState st, void **image, size_t *size)
{
	cuLinkComplete_params p = { st, image, size };
	DRV_ENTER(cuLinkComplete, &p, NULL);

	NEED_CTX();
	if (!st || !image || !size)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	if (!st->nbin && !st->ptx_len)
		DRV_RETURN(CUDA_ERROR_INVALID_IMAGE); /* nothing to link */
	*image = st->nbin ? st->bin : st->ptx;
	*size = st->nbin ? st->bin_len : st->ptx_len + 1;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState st)
{
	cuLinkDestroy_params p = { st };
	DRV_ENTER(cuLinkDestroy, &p, NULL);

	if (!st)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	free(st->ptx);
	free(st->bin);
	free(st);
	DRV_RETURN(CUDA_SUCCESS);
}

#pragma GCC visibility pop
