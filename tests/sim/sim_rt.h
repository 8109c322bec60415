/* SPDX-License-Identifier: Apache-2.0 */
/* Private to the simulated libcudart.so.13: what its source files share (never exported). */
#ifndef GPSIM_RT_H
#define GPSIM_RT_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>

#include "sim_internal.h"

/* The runtime error a driver result becomes. */
cudaError_t from_cu(CUresult r);
/* Lazy initialization: cuInit (once) and the thread's context, before a call is traced. */
void rt_init(void);
/* The kernel an nvcc host stub launches, and the other way round; NULL if none registered. */
CUfunction rt_func_of(const void *host_fun);
const void *rt_host_fun_of(CUfunction f);
/* One side of a copy of kind k as the driver takes it: its memory type, or unified for Default. */
CUmemorytype rt_side_type(enum cudaMemcpyKind k, int src);
/* A runtime 3D copy as the driver takes it: positions and an extent in the elements of each side. */
cudaError_t rt_memcpy3d(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out);
/* Traces a runtime call's entry from beneath the runtime's own frames (sim_deep.h). */
void rt_trace(struct gpsim_call *c, uint32_t cbid, const char *name, const void *params,
	      const char *sym);
/* Traces its exit; latches an error for cudaGetLastError. */
cudaError_t rt_exit(struct gpsim_call *c, cudaError_t e);

/* A traced runtime entry point: RT_ENTER first, every return through RT_RETURN or RT_CU. */
#define RT_TRACE(cb, params, sym)  \
	struct gpsim_call call__; \
	rt_trace(&call__, CUPTI_RUNTIME_TRACE_CBID_##cb, __func__, params, sym)
#define RT_ENTER(cb, params, sym) \
	rt_init();                \
	RT_TRACE(cb, params, sym)
#define RT_RETURN(e) return rt_exit(&call__, (e))
#define RT_CU(expr) RT_RETURN(from_cu(expr))

#endif /* GPSIM_RT_H */
