// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: arrays, copies to and from them, texture and surface objects. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_cuda.c, sim_dev.c), traced inside
 * it. A cudaArray_t is the driver's CUarray. A channel format is the
 * driver's array format and channel count: 8, 16 or 32 bits, signed,
 * unsigned or float (16-bit float is half), 1, 2 or 4 channels of one
 * size; the other kinds (normalized, block-compressed, video) are not
 * simulated (cudaErrorInvalidChannelDescriptor).
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include <stdint.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_rt.h"

_Static_assert((int)cudaArraySurfaceLoadStore == CUDA_ARRAY3D_SURFACE_LDST, "array flags");
_Static_assert((int)cudaArrayLayered == CUDA_ARRAY3D_LAYERED, "array flags");
_Static_assert((int)cudaArrayCubemap == CUDA_ARRAY3D_CUBEMAP, "array flags");
_Static_assert((int)cudaArrayTextureGather == CUDA_ARRAY3D_TEXTURE_GATHER, "array flags");

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))
#define ARR(a) ((CUarray)(uintptr_t)(a))

/* The driver's format and channels of d; 0 if d is not one this simulates. */
static int format_of(const struct cudaChannelFormatDesc *d, CUarray_format *f, unsigned int *n)
{
	int bits;

	if (!d || d->x <= 0)
		return 0;
	bits = d->x;
	/* channels x, y, z, w in that order, each of x's size: 1, 2 or 4 of them */
	if (!d->y && !d->z && !d->w)
		*n = 1;
	else if (d->y == bits && !d->z && !d->w)
		*n = 2;
	else if (d->y == bits && d->z == bits && d->w == bits)
		*n = 4;
	else
		return 0;
	switch (d->f) {
	case cudaChannelFormatKindSigned:
		*f = bits == 8 ? CU_AD_FORMAT_SIGNED_INT8 :
		     bits == 16 ? CU_AD_FORMAT_SIGNED_INT16 :
		     bits == 32 ? CU_AD_FORMAT_SIGNED_INT32 : 0;
		break;
	case cudaChannelFormatKindUnsigned:
		*f = bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 :
		     bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 :
		     bits == 32 ? CU_AD_FORMAT_UNSIGNED_INT32 : 0;
		break;
	case cudaChannelFormatKindFloat:
		*f = bits == 16 ? CU_AD_FORMAT_HALF : bits == 32 ? CU_AD_FORMAT_FLOAT : 0;
		break;
	default:
		return 0;
	}
	return *f != 0;
}

/* The channel format of an array of driver format f, n channels. */
static struct cudaChannelFormatDesc desc_of(CUarray_format f, unsigned int n)
{
	struct cudaChannelFormatDesc d = { 0 };
	int bits;

	switch (f) {
	case CU_AD_FORMAT_SIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT32: d.f = cudaChannelFormatKindSigned; break;
	case CU_AD_FORMAT_HALF:
	case CU_AD_FORMAT_FLOAT: d.f = cudaChannelFormatKindFloat; break;
	default: d.f = cudaChannelFormatKindUnsigned;
	}
	bits = f == CU_AD_FORMAT_SIGNED_INT8 || f == CU_AD_FORMAT_UNSIGNED_INT8	    ? 8 :
	       f == CU_AD_FORMAT_SIGNED_INT16 || f == CU_AD_FORMAT_UNSIGNED_INT16 ||
			       f == CU_AD_FORMAT_HALF ?
								     16 :
								     32;
	d.x = bits;
	d.y = n >= 2 ? bits : 0;
	d.z = d.w = n == 4 ? bits : 0;
	return d;
}

/* cudaMalloc3DArray's extent (Height 0: 1D, Depth 0: 2D) as the driver's descriptor. */
static cudaError_t malloc_array(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
				size_t w, size_t h, size_t depth, unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { .Width = w, .Height = h, .Depth = depth, .Flags = flags };
	CUarray a = NULL;
	CUresult r;

	if (!out)
		return cudaErrorInvalidValue;
	if (!format_of(desc, &d.Format, &d.NumChannels))
		return cudaErrorInvalidChannelDescriptor;
	r = cuArray3DCreate(&a, &d);
	*out = (cudaArray_t)(void *)a;
	return from_cu(r);
}

/* The side of a copy that kind names, for host or device memory p. */
static void side_set(CUmemorytype *type, const void **host, CUdeviceptr *dev, const void *p,
		     enum cudaMemcpyKind kind, int src)
{
	*type = rt_side_type(kind, src);
	*host = p;
	*dev = DP(p);
}

/*
 * A 2D copy with an array on one side or both: width bytes by height rows,
 * an array's side from (wOffset bytes, hOffset rows).
 */
static CUDA_MEMCPY2D copy_2d(cudaArray_t dst_a, void *dst, size_t dpitch, size_t dw, size_t dh,
			     cudaArray_const_t src_a, const void *src, size_t spitch, size_t sw,
			     size_t sh, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	CUDA_MEMCPY2D c = { .WidthInBytes = width, .Height = height };

	if (src_a) {
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = ARR(src_a);
		c.srcXInBytes = sw;
		c.srcY = sh;
	} else {
		side_set(&c.srcMemoryType, &c.srcHost, &c.srcDevice, src, kind, 1);
		c.srcPitch = spitch;
	}
	if (dst_a) {
		c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c.dstArray = ARR(dst_a);
		c.dstXInBytes = dw;
		c.dstY = dh;
	} else {
		const void *host;

		side_set(&c.dstMemoryType, &host, &c.dstDevice, dst, kind, 0);
		c.dstHost = (void *)(uintptr_t)host;
		c.dstPitch = dpitch;
	}
	return c;
}

/*
 * The deprecated linear copies ("count bytes [...] starting at hOffset
 * rows and wOffset bytes from the upper left corner"): the array's bytes
 * row after row from there.
 */
static CUresult linear_to_array(cudaArray_t a, size_t w, size_t h, const void *src, size_t n,
				enum cudaMemcpyKind kind, CUstream s, int async)
{
	size_t off = h * gpsim_array_pitch(ARR(a)) + w;

	if (rt_side_type(kind, 1) == CU_MEMORYTYPE_DEVICE ||
	    (kind == cudaMemcpyDefault && gpsim_is_device(src)))
		return cuMemcpyDtoA(ARR(a), off, DP(src), n); /* the driver has no async form */
	return async ? cuMemcpyHtoAAsync(ARR(a), off, src, n, s) : cuMemcpyHtoA(ARR(a), off, src, n);
}

static CUresult linear_from_array(void *dst, cudaArray_const_t a, size_t w, size_t h, size_t n,
				  enum cudaMemcpyKind kind, CUstream s, int async)
{
	size_t off = h * gpsim_array_pitch(ARR(a)) + w;

	if (rt_side_type(kind, 0) == CU_MEMORYTYPE_DEVICE ||
	    (kind == cudaMemcpyDefault && gpsim_is_device(dst)))
		return cuMemcpyAtoD(DP(dst), ARR(a), off, n); /* the driver has no async form */
	return async ? cuMemcpyAtoHAsync(dst, ARR(a), off, n, s) : cuMemcpyAtoH(dst, ARR(a), off, n);
}

/* A runtime resource as the driver's: the same kinds, channel formats converted. */
static cudaError_t res_of(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *d)
{
	memset(d, 0, sizeof(*d));
	if (!r)
		return cudaErrorInvalidValue;
	d->flags = r->flags;
	switch (r->resType) {
	case cudaResourceTypeArray:
		d->resType = CU_RESOURCE_TYPE_ARRAY;
		d->res.array.hArray = ARR(r->res.array.array);
		return cudaSuccess;
	case cudaResourceTypeLinear:
		d->resType = CU_RESOURCE_TYPE_LINEAR;
		d->res.linear.devPtr = DP(r->res.linear.devPtr);
		d->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
		return format_of(&r->res.linear.desc, &d->res.linear.format,
				 &d->res.linear.numChannels) ?
			       cudaSuccess :
			       cudaErrorInvalidChannelDescriptor;
	case cudaResourceTypePitch2D:
		d->resType = CU_RESOURCE_TYPE_PITCH2D;
		d->res.pitch2D.devPtr = DP(r->res.pitch2D.devPtr);
		d->res.pitch2D.width = r->res.pitch2D.width;
		d->res.pitch2D.height = r->res.pitch2D.height;
		d->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
		return format_of(&r->res.pitch2D.desc, &d->res.pitch2D.format,
				 &d->res.pitch2D.numChannels) ?
			       cudaSuccess :
			       cudaErrorInvalidChannelDescriptor;
	case cudaResourceTypeMipmappedArray:
		return cudaErrorNotSupported;
	default:
		return cudaErrorInvalidValue;
	}
}

#pragma GCC visibility push(default)

/* "Returns a channel descriptor with format f and number of bits of each component x, y, z, and w." */
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
							     enum cudaChannelFormatKind f)
{
	struct cudaChannelFormatDesc d = { x, y, z, w, f };
	RT_ENTER(cudaCreateChannelDesc_v3020, NULL, NULL);

	rt_exit(&call__, cudaSuccess);
	return d;
}

cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t *a, const struct cudaChannelFormatDesc *desc,
				      size_t width, size_t height, unsigned int flags)
{
	cudaMallocArray_v3020_params p = { a, desc, width, height, flags };
	RT_ENTER(cudaMallocArray_v3020, &p, NULL);
	RT_RETURN(malloc_array(a, desc, width, height, 0, flags));
}

cudaError_t CUDARTAPI cudaMalloc3DArray(cudaArray_t *a, const struct cudaChannelFormatDesc *desc,
					struct cudaExtent e, unsigned int flags)
{
	cudaMalloc3DArray_v3020_params p = { a, desc, e, flags };
	RT_ENTER(cudaMalloc3DArray_v3020, &p, NULL);
	RT_RETURN(malloc_array(a, desc, e.width, e.height, e.depth, flags));
}

/* "If array is 0, no operation is performed." */
cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t a)
{
	cudaFreeArray_v3020_params p = { a };
	RT_ENTER(cudaFreeArray_v3020, &p, NULL);
	if (!a)
		RT_RETURN(cudaSuccess);
	RT_CU(cuArrayDestroy(ARR(a)));
}

cudaError_t CUDARTAPI cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *e,
				       unsigned int *flags, cudaArray_t a)
{
	cudaArrayGetInfo_v4010_params p = { desc, e, flags, a };
	CUDA_ARRAY3D_DESCRIPTOR d;
	CUresult r;
	RT_ENTER(cudaArrayGetInfo_v4010, &p, NULL);

	r = cuArray3DGetDescriptor(&d, ARR(a));
	if (r == CUDA_SUCCESS) {
		if (desc)
			*desc = desc_of(d.Format, d.NumChannels);
		if (e)
			*e = (struct cudaExtent){ d.Width, d.Height, d.Depth };
		if (flags)
			*flags = d.Flags;
	}
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t a)
{
	cudaGetChannelDesc_v3020_params p = { desc, a };
	CUDA_ARRAY3D_DESCRIPTOR d;
	CUresult r;
	RT_ENTER(cudaGetChannelDesc_v3020, &p, NULL);

	if (!desc)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuArray3DGetDescriptor(&d, ARR(a));
	if (r == CUDA_SUCCESS)
		*desc = desc_of(d.Format, d.NumChannels);
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t w, size_t h, const void *src,
					  size_t spitch, size_t width, size_t height,
					  enum cudaMemcpyKind kind)
{
	cudaMemcpy2DToArray_v3020_params p = { dst, w, h, src, spitch, width, height, kind };
	CUDA_MEMCPY2D c = copy_2d(dst, NULL, 0, w, h, NULL, src, spitch, 0, 0, width, height, kind);
	RT_ENTER(cudaMemcpy2DToArray_v3020, &p, NULL);
	RT_CU(cuMemcpy2D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w, size_t h,
					       const void *src, size_t spitch, size_t width,
					       size_t height, enum cudaMemcpyKind kind, cudaStream_t s)
{
	cudaMemcpy2DToArrayAsync_v3020_params p = { dst, w, h, src, spitch, width, height, kind, s };
	CUDA_MEMCPY2D c = copy_2d(dst, NULL, 0, w, h, NULL, src, spitch, 0, 0, width, height, kind);
	RT_ENTER(cudaMemcpy2DToArrayAsync_v3020, &p, NULL);
	RT_CU(cuMemcpy2DAsync(&c, s));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
					    size_t w, size_t h, size_t width, size_t height,
					    enum cudaMemcpyKind kind)
{
	cudaMemcpy2DFromArray_v3020_params p = { dst, dpitch, src, w, h, width, height, kind };
	CUDA_MEMCPY2D c = copy_2d(NULL, dst, dpitch, 0, 0, src, NULL, 0, w, h, width, height, kind);
	RT_ENTER(cudaMemcpy2DFromArray_v3020, &p, NULL);
	RT_CU(cuMemcpy2D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
						 size_t w, size_t h, size_t width, size_t height,
						 enum cudaMemcpyKind kind, cudaStream_t s)
{
	cudaMemcpy2DFromArrayAsync_v3020_params p = { dst, dpitch, src, w,
						      h,   width,  height, kind, s };
	CUDA_MEMCPY2D c = copy_2d(NULL, dst, dpitch, 0, 0, src, NULL, 0, w, h, width, height, kind);
	RT_ENTER(cudaMemcpy2DFromArrayAsync_v3020, &p, NULL);
	RT_CU(cuMemcpy2DAsync(&c, s));
}

cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wd, size_t hd,
					       cudaArray_const_t src, size_t ws, size_t hs,
					       size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaMemcpy2DArrayToArray_v3020_params p = { dst, wd, hd, src, ws, hs, width, height, kind };
	CUDA_MEMCPY2D c = copy_2d(dst, NULL, 0, wd, hd, src, NULL, 0, ws, hs, width, height, kind);
	RT_ENTER(cudaMemcpy2DArrayToArray_v3020, &p, NULL);
	RT_CU(cuMemcpy2D(&c));
}

cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t w, size_t h, const void *src,
					size_t n, enum cudaMemcpyKind kind)
{
	cudaMemcpyToArray_v3020_params p = { dst, w, h, src, n, kind };
	RT_ENTER(cudaMemcpyToArray_v3020, &p, NULL);
	RT_CU(linear_to_array(dst, w, h, src, n, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w, size_t h,
					     const void *src, size_t n, enum cudaMemcpyKind kind,
					     cudaStream_t s)
{
	cudaMemcpyToArrayAsync_v3020_params p = { dst, w, h, src, n, kind, s };
	RT_ENTER(cudaMemcpyToArrayAsync_v3020, &p, NULL);
	RT_CU(linear_to_array(dst, w, h, src, n, kind, s, 1));
}

cudaError_t CUDARTAPI cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w, size_t h,
					  size_t n, enum cudaMemcpyKind kind)
{
	cudaMemcpyFromArray_v3020_params p = { dst, src, w, h, n, kind };
	RT_ENTER(cudaMemcpyFromArray_v3020, &p, NULL);
	RT_CU(linear_from_array(dst, src, w, h, n, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t w,
					       size_t h, size_t n, enum cudaMemcpyKind kind,
					       cudaStream_t s)
{
	cudaMemcpyFromArrayAsync_v3020_params p = { dst, src, w, h, n, kind, s };
	RT_ENTER(cudaMemcpyFromArrayAsync_v3020, &p, NULL);
	RT_CU(linear_from_array(dst, src, w, h, n, kind, s, 1));
}

cudaError_t CUDARTAPI cudaMemcpyArrayToArray(cudaArray_t dst, size_t wd, size_t hd,
					     cudaArray_const_t src, size_t ws, size_t hs, size_t n,
					     enum cudaMemcpyKind kind)
{
	cudaMemcpyArrayToArray_v3020_params p = { dst, wd, hd, src, ws, hs, n, kind };
	RT_ENTER(cudaMemcpyArrayToArray_v3020, &p, NULL);
	RT_CU(cuMemcpyAtoA(ARR(dst), hd * gpsim_array_pitch(ARR(dst)) + wd, ARR(src),
			   hs * gpsim_array_pitch(ARR(src)) + ws, n));
}

/* ---- texture and surface objects ---- */

/*
 * "pTexDesc - Texture descriptor": required, and read by kernels only,
 * which compute nothing here: the driver gets it zeroed. "pResViewDesc"
 * is optional.
 */
cudaError_t CUDARTAPI cudaCreateTextureObject(cudaTextureObject_t *tex,
					      const struct cudaResourceDesc *res,
					      const struct cudaTextureDesc *td,
					      const struct cudaResourceViewDesc *rv)
{
	cudaCreateTextureObject_v5000_params p = { tex, res, td, rv };
	CUDA_RESOURCE_DESC d;
	CUDA_TEXTURE_DESC dt = { 0 };
	cudaError_t e = res_of(res, &d);
	RT_ENTER(cudaCreateTextureObject_v5000, &p, NULL);

	if (!tex || !td)
		RT_RETURN(cudaErrorInvalidValue);
	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuTexObjectCreate(tex, &d, &dt, NULL));
}

cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t tex)
{
	cudaDestroyTextureObject_v5000_params p = { tex };
	RT_ENTER(cudaDestroyTextureObject_v5000, &p, NULL);
	RT_CU(cuTexObjectDestroy(tex));
}

cudaError_t CUDARTAPI cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *res,
						       cudaTextureObject_t tex)
{
	cudaGetTextureObjectResourceDesc_v5000_params p = { res, tex };
	CUDA_RESOURCE_DESC d;
	CUresult r;
	RT_ENTER(cudaGetTextureObjectResourceDesc_v5000, &p, NULL);

	if (!res)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuTexObjectGetResourceDesc(&d, tex);
	if (r == CUDA_SUCCESS) {
		memset(res, 0, sizeof(*res));
		switch (d.resType) {
		case CU_RESOURCE_TYPE_ARRAY:
			res->resType = cudaResourceTypeArray;
			res->res.array.array = (cudaArray_t)(void *)d.res.array.hArray;
			break;
		case CU_RESOURCE_TYPE_LINEAR:
			res->resType = cudaResourceTypeLinear;
			res->res.linear.devPtr = (void *)(uintptr_t)d.res.linear.devPtr;
			res->res.linear.desc = desc_of(d.res.linear.format,
						       d.res.linear.numChannels);
			res->res.linear.sizeInBytes = d.res.linear.sizeInBytes;
			break;
		default:
			res->resType = cudaResourceTypePitch2D;
			res->res.pitch2D.devPtr = (void *)(uintptr_t)d.res.pitch2D.devPtr;
			res->res.pitch2D.desc = desc_of(d.res.pitch2D.format,
							d.res.pitch2D.numChannels);
			res->res.pitch2D.width = d.res.pitch2D.width;
			res->res.pitch2D.height = d.res.pitch2D.height;
			res->res.pitch2D.pitchInBytes = d.res.pitch2D.pitchInBytes;
		}
	}
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaCreateSurfaceObject(cudaSurfaceObject_t *surf,
					      const struct cudaResourceDesc *res)
{
	cudaCreateSurfaceObject_v5000_params p = { surf, res };
	CUDA_RESOURCE_DESC d;
	cudaError_t e = res_of(res, &d);
	RT_ENTER(cudaCreateSurfaceObject_v5000, &p, NULL);

	if (!surf)
		RT_RETURN(cudaErrorInvalidValue);
	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuSurfObjectCreate(surf, &d));
}

cudaError_t CUDARTAPI cudaDestroySurfaceObject(cudaSurfaceObject_t surf)
{
	cudaDestroySurfaceObject_v5000_params p = { surf };
	RT_ENTER(cudaDestroySurfaceObject_v5000, &p, NULL);
	RT_CU(cuSurfObjectDestroy(surf));
}

#pragma GCC visibility pop
