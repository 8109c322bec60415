// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: pitched memory, 2D and 3D copies and memsets, batches of copies. */

/*
 * Each call is traced in the RUNTIME domain and does its work through the
 * driver's call of the same meaning (sim_cuda.c), traced inside it: a
 * pitched allocation is cuMemAllocPitch's, a 2D copy cuMemcpy2D's, a 2D
 * memset cuMemsetD2D8's. Arrays are not simulated.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include <stdint.h>

#include "sim_internal.h"
#include "sim_rt.h"

/* The per-thread-stream variants the headers only declare under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
					size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
					     size_t spitch, size_t width, size_t height,
					     enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemset2D_ptds(void *p, size_t pitch, int v, size_t w, size_t h);
cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void *p, size_t pitch, int v, size_t w, size_t h,
					     cudaStream_t s);
cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p);
cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
						 cudaStream_t s);
cudaError_t CUDARTAPI cudaMemset3D_ptds(struct cudaPitchedPtr p, int v, struct cudaExtent e);
cudaError_t CUDARTAPI cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int v, struct cudaExtent e,
					     cudaStream_t s);
cudaError_t CUDARTAPI cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs,
					       const size_t *sizes, size_t count,
					       struct cudaMemcpyAttributes *attrs, size_t *idxs,
					       size_t nattrs, cudaStream_t s);
/* The driver's per-thread-stream forms, which cuda.h declares only for its own per-thread build. */
CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
					    size_t count, CUmemcpyAttributes *attrs, size_t *idxs,
					    size_t nattrs, CUstream h);
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream s);
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *c, CUstream s);
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
					size_t h, CUstream s);

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

_Static_assert(sizeof(struct cudaMemcpyAttributes) == sizeof(CUmemcpyAttributes), "copy attributes");
_Static_assert((int)cudaMemcpySrcAccessOrderAny == (int)CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
	       "source access order");

static CUstream pts(cudaStream_t s)
{
	return s ? (CUstream)s : gpsim_stream_per_thread();
}

/*
 * "Allocates at least width (in bytes) * height bytes of linear memory on
 * the device and returns in *devPtr a pointer to the allocated memory. The
 * function may pad the allocation to ensure that corresponding pointers in
 * any given row will continue to meet the alignment requirements for
 * coalescing as the address is updated from row to row."
 */
static cudaError_t malloc_pitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	CUdeviceptr d = 0;
	CUresult r;

	if (!ptr || !pitch)
		return cudaErrorInvalidValue;
	r = cuMemAllocPitch(&d, pitch, width, height, 4);
	*ptr = (void *)(uintptr_t)d;
	return from_cu(r);
}

/* A runtime 2D copy as the driver takes it: each side's memory type from kind. */
static CUDA_MEMCPY2D copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch,
			     size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return (CUDA_MEMCPY2D){ .srcMemoryType = rt_side_type(kind, 1),
				.srcHost = src,
				.srcDevice = DP(src),
				.srcPitch = spitch,
				.dstMemoryType = rt_side_type(kind, 0),
				.dstHost = dst,
				.dstDevice = DP(dst),
				.dstPitch = dpitch,
				.WidthInBytes = width,
				.Height = height };
}

/* "cudaErrorInvalidPitchValue": a pitch narrower than a row (not read for one row). */
static int pitches_ok(size_t dpitch, size_t spitch, size_t width, size_t height)
{
	return height <= 1 || (dpitch >= width && spitch >= width);
}

/*
 * A 3D memset is a 2D one over every slice's rows when the slices are
 * contiguous ("p.ysize", the rows a slice holds, is the extent's height);
 * slices with gaps are not simulated.
 */
static cudaError_t memset_3d_rows(struct cudaPitchedPtr p, struct cudaExtent e, size_t *rows)
{
	if (!p.ptr || (e.depth > 1 && p.ysize != e.height))
		return e.depth > 1 && p.ptr ? cudaErrorNotSupported : cudaErrorInvalidValue;
	*rows = e.height * e.depth;
	return cudaSuccess;
}

#pragma GCC visibility push(default)

cudaError_t CUDARTAPI cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	cudaMallocPitch_v3020_params p = { ptr, pitch, width, height };
	RT_ENTER(cudaMallocPitch_v3020, &p, NULL);
	RT_RETURN(malloc_pitch(ptr, pitch, width, height));
}

/* "Allocates at least width * height * depth bytes of linear memory on the device and returns a cudaPitchedPtr" */
cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr *pp, struct cudaExtent e)
{
	cudaMalloc3D_v3020_params p = { pp, e };
	void *ptr = NULL;
	size_t pitch = 0;
	cudaError_t err;
	RT_ENTER(cudaMalloc3D_v3020, &p, NULL);

	if (!pp)
		RT_RETURN(cudaErrorInvalidValue);
	err = malloc_pitch(&ptr, &pitch, e.width, e.height * e.depth);
	*pp = (struct cudaPitchedPtr){ ptr, pitch, e.width, e.height };
	RT_RETURN(err);
}

cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaMemcpy2D_v3020_params p = { dst, dpitch, src, spitch, width, height, kind };
	CUDA_MEMCPY2D c = copy_2d(dst, dpitch, src, spitch, width, height, kind);
	RT_ENTER(cudaMemcpy2D_v3020, &p, NULL);

	if (!pitches_ok(dpitch, spitch, width, height))
		RT_RETURN(cudaErrorInvalidPitchValue);
	RT_CU(cuMemcpy2D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
					size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaMemcpy2D_ptds_v7000_params p = { dst, dpitch, src, spitch, width, height, kind };
	CUDA_MEMCPY2D c = copy_2d(dst, dpitch, src, spitch, width, height, kind);
	RT_ENTER(cudaMemcpy2D_ptds_v7000, &p, NULL);

	if (!pitches_ok(dpitch, spitch, width, height))
		RT_RETURN(cudaErrorInvalidPitchValue);
	RT_CU(cuMemcpy2D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
					size_t width, size_t height, enum cudaMemcpyKind kind,
					cudaStream_t s)
{
	cudaMemcpy2DAsync_v3020_params p = { dst, dpitch, src, spitch, width, height, kind, s };
	CUDA_MEMCPY2D c = copy_2d(dst, dpitch, src, spitch, width, height, kind);
	RT_ENTER(cudaMemcpy2DAsync_v3020, &p, NULL);

	if (!pitches_ok(dpitch, spitch, width, height))
		RT_RETURN(cudaErrorInvalidPitchValue);
	RT_CU(cuMemcpy2DAsync(&c, s));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
					     size_t spitch, size_t width, size_t height,
					     enum cudaMemcpyKind kind, cudaStream_t s)
{
	cudaMemcpy2DAsync_ptsz_v7000_params p = { dst,	 dpitch, src,  spitch,
						  width, height, kind, s };
	CUDA_MEMCPY2D c = copy_2d(dst, dpitch, src, spitch, width, height, kind);
	RT_ENTER(cudaMemcpy2DAsync_ptsz_v7000, &p, NULL);

	if (!pitches_ok(dpitch, spitch, width, height))
		RT_RETURN(cudaErrorInvalidPitchValue);
	RT_CU(cuMemcpy2DAsync_v2_ptsz(&c, pts(s)));
}

/* "Sets to the specified value value a matrix (height rows of width bytes each) pointed to by dstPtr." */
cudaError_t CUDARTAPI cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
	cudaMemset2D_v3020_params p = { ptr, pitch, value, width, height };
	RT_ENTER(cudaMemset2D_v3020, &p, NULL);
	RT_CU(cuMemsetD2D8(DP(ptr), pitch, (unsigned char)value, width, height));
}

cudaError_t CUDARTAPI cudaMemset2D_ptds(void *ptr, size_t pitch, int value, size_t width,
					size_t height)
{
	cudaMemset2D_ptds_v7000_params p = { ptr, pitch, value, width, height };
	RT_ENTER(cudaMemset2D_ptds_v7000, &p, NULL);
	RT_CU(cuMemsetD2D8(DP(ptr), pitch, (unsigned char)value, width, height));
}

cudaError_t CUDARTAPI cudaMemset2DAsync(void *ptr, size_t pitch, int value, size_t width,
					size_t height, cudaStream_t s)
{
	cudaMemset2DAsync_v3020_params p = { ptr, pitch, value, width, height, s };
	RT_ENTER(cudaMemset2DAsync_v3020, &p, NULL);
	RT_CU(cuMemsetD2D8Async(DP(ptr), pitch, (unsigned char)value, width, height, s));
}

cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void *ptr, size_t pitch, int value, size_t width,
					     size_t height, cudaStream_t s)
{
	cudaMemset2DAsync_ptsz_v7000_params p = { ptr, pitch, value, width, height, s };
	RT_ENTER(cudaMemset2DAsync_ptsz_v7000, &p, NULL);
	RT_CU(cuMemsetD2D8Async_ptsz(DP(ptr), pitch, (unsigned char)value, width, height, pts(s)));
}

cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms *p3)
{
	cudaMemcpy3D_v3020_params p = { p3 };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d(p3, &c);
	RT_ENTER(cudaMemcpy3D_v3020, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p3)
{
	cudaMemcpy3D_ptds_v7000_params p = { p3 };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d(p3, &c);
	RT_ENTER(cudaMemcpy3D_ptds_v7000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p3, cudaStream_t s)
{
	cudaMemcpy3DAsync_v3020_params p = { p3, s };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d(p3, &c);
	RT_ENTER(cudaMemcpy3DAsync_v3020, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3DAsync(&c, s));
}

cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p3, cudaStream_t s)
{
	cudaMemcpy3DAsync_ptsz_v7000_params p = { p3, s };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d(p3, &c);
	RT_ENTER(cudaMemcpy3DAsync_ptsz_v7000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3DAsync_v2_ptsz(&c, pts(s)));
}

/*
 * "Perform a 3D memory copy according to the parameters specified in p" [...]
 * "srcDevice" and "dstDevice": one device, so a copy from device 0 to
 * itself (as cudaMemcpyPeer's), and any other is cudaErrorInvalidDevice.
 */
static cudaError_t rt_memcpy3d_peer(const struct cudaMemcpy3DPeerParms *pp, CUDA_MEMCPY3D *c)
{
	struct cudaMemcpy3DParms p3;

	if (!pp)
		return cudaErrorInvalidValue;
	if (pp->srcDevice != 0 || pp->dstDevice != 0)
		return cudaErrorInvalidDevice;
	p3 = (struct cudaMemcpy3DParms){ .srcArray = pp->srcArray, .srcPos = pp->srcPos,
					 .srcPtr = pp->srcPtr, .dstArray = pp->dstArray,
					 .dstPos = pp->dstPos, .dstPtr = pp->dstPtr,
					 .extent = pp->extent, .kind = cudaMemcpyDefault };
	return rt_memcpy3d(&p3, c);
}

cudaError_t CUDARTAPI cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *pp)
{
	cudaMemcpy3DPeer_v4000_params p = { pp };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d_peer(pp, &c);
	RT_ENTER(cudaMemcpy3DPeer_v4000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *pp)
{
	cudaMemcpy3DPeer_ptds_v7000_params p = { pp };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d_peer(pp, &c);
	RT_ENTER(cudaMemcpy3DPeer_ptds_v7000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3D(&c));
}

cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *pp, cudaStream_t s)
{
	cudaMemcpy3DPeerAsync_v4000_params p = { pp, s };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d_peer(pp, &c);
	RT_ENTER(cudaMemcpy3DPeerAsync_v4000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3DAsync(&c, s));
}

cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *pp,
						 cudaStream_t s)
{
	cudaMemcpy3DPeerAsync_ptsz_v7000_params p = { pp, s };
	CUDA_MEMCPY3D c;
	cudaError_t e = rt_memcpy3d_peer(pp, &c);
	RT_ENTER(cudaMemcpy3DPeerAsync_ptsz_v7000, &p, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuMemcpy3DAsync_v2_ptsz(&c, pts(s)));
}

/* "Initializes each element of a 3D array to the specified value value": every slice's rows. */
cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pp, int value, struct cudaExtent e)
{
	cudaMemset3D_v3020_params p = { pp, value, e };
	size_t rows = 0;
	cudaError_t err = memset_3d_rows(pp, e, &rows);
	RT_ENTER(cudaMemset3D_v3020, &p, NULL);

	if (err != cudaSuccess)
		RT_RETURN(err);
	RT_CU(cuMemsetD2D8(DP(pp.ptr), pp.pitch, (unsigned char)value, e.width, rows));
}

cudaError_t CUDARTAPI cudaMemset3D_ptds(struct cudaPitchedPtr pp, int value, struct cudaExtent e)
{
	cudaMemset3D_ptds_v7000_params p = { pp, value, e };
	size_t rows = 0;
	cudaError_t err = memset_3d_rows(pp, e, &rows);
	RT_ENTER(cudaMemset3D_ptds_v7000, &p, NULL);

	if (err != cudaSuccess)
		RT_RETURN(err);
	RT_CU(cuMemsetD2D8(DP(pp.ptr), pp.pitch, (unsigned char)value, e.width, rows));
}

cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pp, int value, struct cudaExtent e,
					cudaStream_t s)
{
	cudaMemset3DAsync_v3020_params p = { pp, value, e, s };
	size_t rows = 0;
	cudaError_t err = memset_3d_rows(pp, e, &rows);
	RT_ENTER(cudaMemset3DAsync_v3020, &p, NULL);

	if (err != cudaSuccess)
		RT_RETURN(err);
	RT_CU(cuMemsetD2D8Async(DP(pp.ptr), pp.pitch, (unsigned char)value, e.width, rows, s));
}

cudaError_t CUDARTAPI cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pp, int value,
					     struct cudaExtent e, cudaStream_t s)
{
	cudaMemset3DAsync_ptsz_v7000_params p = { pp, value, e, s };
	size_t rows = 0;
	cudaError_t err = memset_3d_rows(pp, e, &rows);
	RT_ENTER(cudaMemset3DAsync_ptsz_v7000, &p, NULL);

	if (err != cudaSuccess)
		RT_RETURN(err);
	RT_CU(cuMemsetD2D8Async_ptsz(DP(pp.ptr), pp.pitch, (unsigned char)value, e.width, rows,
				     pts(s)));
}

/* "Performs a batch of memory copies asynchronously": the driver's, pointers as device pointers. */
cudaError_t CUDARTAPI cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs,
					   const size_t *sizes, size_t count,
					   struct cudaMemcpyAttributes *attrs, size_t *idxs,
					   size_t nattrs, cudaStream_t s)
{
	cudaMemcpyBatchAsync_v13000_params p = { dsts, srcs, sizes, count, attrs, idxs, nattrs, s };
	RT_ENTER(cudaMemcpyBatchAsync_v13000, &p, NULL);
	RT_CU(cuMemcpyBatchAsync((CUdeviceptr *)(uintptr_t)dsts, (CUdeviceptr *)(uintptr_t)srcs,
				 (size_t *)(uintptr_t)sizes, count, (CUmemcpyAttributes *)attrs, idxs,
				 nattrs, s));
}

cudaError_t CUDARTAPI cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs,
						const size_t *sizes, size_t count,
						struct cudaMemcpyAttributes *attrs, size_t *idxs,
						size_t nattrs, cudaStream_t s)
{
	cudaMemcpyBatchAsync_ptsz_v13000_params p = { dsts,  srcs, sizes,  count,
						      attrs, idxs, nattrs, s };
	RT_ENTER(cudaMemcpyBatchAsync_ptsz_v13000, &p, NULL);
	RT_CU(cuMemcpyBatchAsync_v2_ptsz((CUdeviceptr *)(uintptr_t)dsts,
					 (CUdeviceptr *)(uintptr_t)srcs, (size_t *)(uintptr_t)sizes,
					 count, (CUmemcpyAttributes *)attrs, idxs, nattrs, pts(s)));
}

#pragma GCC visibility pop
