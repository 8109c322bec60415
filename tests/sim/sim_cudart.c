// SPDX-License-Identifier: Apache-2.0
/* Simulated libcudart.so.13: nvcc host-stub entry points and the common runtime API over libcuda. */

/*
 * Like the real runtime, this one initializes lazily: the first API call
 * that needs the device calls cuInit (which loads CUDA_INJECTION64_PATH) and
 * binds the primary context, *then* issues its own runtime ENTER callback,
 * so a profiler injected during that cuInit still sees the call. Each
 * runtime call is traced in the RUNTIME domain and does its work through
 * exported driver calls, which are traced in the DRIVER domain nested inside
 * it, with their own correlation ids.
 *
 * Registration entry points (__cudaRegister*) run from static constructors,
 * before main and before any profiler exists, and are not traced.
 */

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <cudaProfiler.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim_deep.h"
#include "sim_internal.h"
#include "sim_rt.h"

/* A registered kernel: cudaKernel_t and the host stub's address map to it. */
struct CUkern_st {
	const void *host_fun;
	CUfunction func;
	void **module; /* the fat binary handle it came from */
	struct CUkern_st *next;
};

struct rt_var {
	const char *host_var;
	size_t size;
	void **module;
	struct rt_var *next;
};

struct call_config {
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
};

/* The one process-wide state the runtime keeps: the registration tables. */
static struct {
	pthread_mutex_t lock;
	struct CUkern_st *kernels;
	struct rt_var *vars;
	atomic_int inited;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define MAX_CONFIG_DEPTH 16
static __thread struct call_config tls_cfg[MAX_CONFIG_DEPTH];
static __thread int tls_ncfg;
static __thread cudaError_t tls_last_error;

/* The per-thread-stream variants the headers only declare under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM; programs built with
 * --default-stream per-thread call these names. */
cudaError_t CUDARTAPI cudaMemcpy_ptds(void *dst, const void *src, size_t n,
				      enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n,
					   enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemset_ptds(void *p, int v, size_t n);
cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *p, int v, size_t n, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t n,
						   size_t offset, enum cudaMemcpyKind kind,
						   cudaStream_t s);
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t n,
						     size_t offset, enum cudaMemcpyKind kind,
						     cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int f);
cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s);
cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s,
						    unsigned int flags);
cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
					    size_t shmem, cudaStream_t s);
cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
					       void **args);
cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block,
						       void **args, size_t shmem, cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode m);
cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t *g);
cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t s,
						 enum cudaStreamCaptureStatus *status);
cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t s);
cudaError_t CUDARTAPI cudaGraphUpload_ptsz(cudaGraphExec_t x, cudaStream_t s);
cudaError_t CUDARTAPI cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void *user);
cudaError_t CUDARTAPI cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb,
						 void *user, unsigned int flags);
/* nvcc host stubs (crt/host_runtime.h and crt/device_functions.h declare these only for C++) */
void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd(void **handle);
void CUDARTAPI __cudaUnregisterFatBinary(void **handle);
void CUDARTAPI __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
				      const char *deviceName, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void CUDARTAPI __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
				 const char *deviceName, int ext, size_t size, int constant,
				 int global);
void CUDARTAPI __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
					char *deviceAddress, const char *deviceName, int ext,
					size_t size, int constant, int global);
char CUDARTAPI __cudaInitModule(void **handle);
unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					       struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
						 size_t *sharedMem, void *stream);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
					 size_t shmem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
					      void **args, size_t shmem, cudaStream_t stream);

cudaError_t from_cu(CUresult r)
{
	switch (r) {
	case CUDA_SUCCESS: return cudaSuccess;
	case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
	case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
	case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
	case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
	case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
	case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
	case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
	case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
	case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
	case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
	case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return cudaErrorStreamCaptureInvalidated;
	case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return cudaErrorStreamCaptureUnmatched;
	case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return cudaErrorStreamCaptureUnjoined;
	case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return cudaErrorStreamCaptureIsolation;
	case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return cudaErrorStreamCaptureImplicit;
	case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return cudaErrorStreamCaptureWrongThread;
	case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
	case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return cudaErrorHostMemoryAlreadyRegistered;
	case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return cudaErrorHostMemoryNotRegistered;
	case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: return cudaErrorGraphExecUpdateFailure;
	case CUDA_ERROR_UNSUPPORTED_LIMIT: return cudaErrorUnsupportedLimit;
	case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return cudaErrorPeerAccessUnsupported;
	case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return cudaErrorPeerAccessNotEnabled;
	case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return cudaErrorPeerAccessAlreadyEnabled;
	case CUDA_ERROR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
	case CUDA_ERROR_FILE_NOT_FOUND: return cudaErrorFileNotFound;
	default: return cudaErrorUnknown;
	}
}

void rt_init(void)
{
	if (!atomic_load(&R.inited)) {
		/* Traced as a driver call of its own, like the real runtime's. */
		cuInit(0);
		atomic_store(&R.inited, 1);
	}
	gpsim_primary_ctx();
}

cudaError_t rt_exit(struct gpsim_call *c, cudaError_t e)
{
	/* Not-ready is a status, not an error: the real runtime does not latch it. */
	if (e != cudaSuccess && e != cudaErrorNotReady)
		tls_last_error = e;
	return (cudaError_t)gpsim_call_exit(c, (int)e);
}

/* A runtime call enters the driver's tracing through frames of the runtime's own (sim_deep.h). */
struct rt_enter_args {
	struct gpsim_call *c;
	uint32_t cbid;
	const char *name;
	const void *params;
	const char *sym;
};

static void rt_enter_deep(void *arg)
{
	struct rt_enter_args *a = arg;

	gpsim_call_enter(a->c, CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, a->name, a->params, a->sym);
}

void rt_trace(struct gpsim_call *c, uint32_t cbid, const char *name, const void *params,
	      const char *sym)
{
	struct rt_enter_args a = { c, cbid, name, params, sym };

	gpsim_deep(rt_enter_deep, &a);
}


static CUstream pts(cudaStream_t s)
{
	return s ? (CUstream)s : gpsim_stream_per_thread();
}

static struct CUkern_st *kern_by_host(const void *host_fun)
{
	struct CUkern_st *k;

	pthread_mutex_lock(&R.lock);
	for (k = R.kernels; k; k = k->next)
		if (k->host_fun == host_fun)
			break;
	pthread_mutex_unlock(&R.lock);
	return k;
}

CUfunction rt_func_of(const void *host_fun)
{
	struct CUkern_st *k = kern_by_host(host_fun);

	return k ? k->func : NULL;
}

const void *rt_host_fun_of(CUfunction f)
{
	struct CUkern_st *k;

	pthread_mutex_lock(&R.lock);
	for (k = R.kernels; k; k = k->next)
		if (k->func == f)
			break;
	pthread_mutex_unlock(&R.lock);
	return k ? k->host_fun : NULL;
}

#pragma GCC visibility push(default)

/* ---- nvcc host stubs ---------------------------------------------------- */

void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin)
{
	/* The handle only has to be unique; its slot remembers the fat binary. */
	void **h = calloc(1, sizeof(void *));

	if (h)
		*h = fatCubin;
	return h;
}

void CUDARTAPI __cudaRegisterFatBinaryEnd(void **handle)
{
}

void CUDARTAPI __cudaUnregisterFatBinary(void **handle)
{
	struct CUkern_st **pk, *k;
	struct rt_var **pv, *v;

	pthread_mutex_lock(&R.lock);
	for (pk = &R.kernels; (k = *pk);) {
		if (k->module == handle) {
			*pk = k->next;
			free(k);
		} else {
			pk = &k->next;
		}
	}
	for (pv = &R.vars; (v = *pv);) {
		if (v->module == handle) {
			*pv = v->next;
			free(v);
		} else {
			pv = &v->next;
		}
	}
	pthread_mutex_unlock(&R.lock);
	free(handle);
}

void CUDARTAPI __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
				      const char *deviceName, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
	struct CUkern_st *k = calloc(1, sizeof(*k));

	if (!k)
		return;
	k->host_fun = hostFun;
	k->module = handle;
	k->func = gpsim_func_register(deviceName ? deviceName : deviceFun);
	if (!k->func) {
		free(k);
		return;
	}
	pthread_mutex_lock(&R.lock);
	k->next = R.kernels;
	R.kernels = k;
	pthread_mutex_unlock(&R.lock);
}

void CUDARTAPI __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
				 const char *deviceName, int ext, size_t size, int constant,
				 int global)
{
	struct rt_var *v = calloc(1, sizeof(*v));

	if (!v)
		return;
	v->host_var = hostVar;
	v->size = size;
	v->module = handle;
	pthread_mutex_lock(&R.lock);
	v->next = R.vars;
	R.vars = v;
	pthread_mutex_unlock(&R.lock);
}

void CUDARTAPI __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
					char *deviceAddress, const char *deviceName, int ext,
					size_t size, int constant, int global)
{
}

char CUDARTAPI __cudaInitModule(void **handle)
{
	return 1;
}

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					       struct CUstream_st *stream)
{
	if (tls_ncfg >= MAX_CONFIG_DEPTH)
		return 1;
	tls_cfg[tls_ncfg++] = (struct call_config){ gridDim, blockDim, sharedMem, stream };
	return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
						 size_t *sharedMem, void *stream)
{
	struct call_config *c;

	if (!tls_ncfg)
		return cudaErrorMissingConfiguration;
	c = &tls_cfg[--tls_ncfg];
	*gridDim = c->grid;
	*blockDim = c->block;
	*sharedMem = c->shmem;
	*(cudaStream_t *)stream = c->stream;
	return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	struct CUkern_st *k = kern_by_host(hostFun);

	if (!kernel)
		return cudaErrorInvalidValue;
	*kernel = k;
	return k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

/*
 * cudaErrorInvalidConfiguration: "a kernel launch is requesting resources
 * that can never be satisfied by the current device. [...] requesting too
 * many threads or blocks" (an empty grid or block is none the device can
 * run either): the runtime refuses it before the driver sees it.
 */
static int config_ok(dim3 grid, dim3 block)
{
	return grid.x && grid.y && grid.z && grid.y <= 65535 && grid.z <= 65535 && block.x &&
	       block.y && block.z && block.z <= 64 &&
	       (uint64_t)block.x * block.y * block.z <= 1024;
}

static cudaError_t launch(CUfunction f, dim3 grid, dim3 block, size_t shmem, CUstream s,
			  int coop)
{
	if (!f)
		return cudaErrorInvalidDeviceFunction;
	if (!config_ok(grid, block))
		return cudaErrorInvalidConfiguration;
	if (coop)
		return from_cu(cuLaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x,
							 block.y, block.z, (unsigned int)shmem, s,
							 NULL));
	return from_cu(cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
				      (unsigned int)shmem, s, NULL, NULL));
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
					 size_t shmem, cudaStream_t stream)
{
	CUfunction f = kernel ? kernel->func : NULL;
	RT_ENTER(__cudaLaunchKernel_v13000, NULL, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, stream, 0));
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
					      void **args, size_t shmem, cudaStream_t stream)
{
	CUfunction f = kernel ? kernel->func : NULL;
	RT_ENTER(__cudaLaunchKernel_ptsz_v13000, NULL, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, pts(stream), 0));
}

/* ---- launches ----------------------------------------------------------- */

static CUfunction func_of(const void *host_fun)
{
	struct CUkern_st *k = kern_by_host(host_fun);

	return k ? k->func : NULL;
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
				       size_t shmem, cudaStream_t s)
{
	cudaLaunchKernel_v7000_params p = { func, grid, block, args, shmem, s };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchKernel_v7000, &p, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, s, 0));
}

cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
					    size_t shmem, cudaStream_t s)
{
	cudaLaunchKernel_ptsz_v7000_params p = { func, grid, block, args, shmem, s };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchKernel_ptsz_v7000, &p, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, pts(s), 0));
}

static int config_coop(const cudaLaunchConfig_t *c)
{
	unsigned int i;

	for (i = 0; i < c->numAttrs; i++)
		if (c->attrs[i].id == cudaLaunchAttributeCooperative && c->attrs[i].val.cooperative)
			return 1;
	return 0;
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
					  void **args)
{
	cudaLaunchKernelExC_v11060_params p = { config, func, args };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchKernelExC_v11060, &p, gpsim_func_name(f));
	if (!config)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(launch(f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
			 config->stream, config_coop(config)));
}

cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
					       void **args)
{
	cudaLaunchKernelExC_ptsz_v11060_params p = { config, func, args };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchKernelExC_ptsz_v11060, &p, gpsim_func_name(f));
	if (!config)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(launch(f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
			 pts(config->stream), config_coop(config)));
}

cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
						  void **args, size_t shmem, cudaStream_t s)
{
	cudaLaunchCooperativeKernel_v9000_params p = { func, grid, block, args, shmem, s };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchCooperativeKernel_v9000, &p, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, s, 1));
}

cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block,
						       void **args, size_t shmem, cudaStream_t s)
{
	cudaLaunchCooperativeKernel_ptsz_v9000_params p = { func, grid, block, args, shmem, s };
	CUfunction f = func_of(func);
	RT_ENTER(cudaLaunchCooperativeKernel_ptsz_v9000, &p, gpsim_func_name(f));
	RT_RETURN(launch(f, grid, block, shmem, pts(s), 1));
}

cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *out, const void *sym)
{
	cudaGetFuncBySymbol_v11000_params p = { out, sym };
	CUfunction f = func_of(sym);
	RT_ENTER(cudaGetFuncBySymbol_v11000, &p, NULL);
	if (!out)
		RT_RETURN(cudaErrorInvalidValue);
	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	/* cudaFunction_t and CUfunction are the same object, as in reality. */
	*out = (cudaFunction_t)f;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	RT_ENTER(cudaFuncGetAttributes_v3020, NULL, NULL);
	if (!attr)
		RT_RETURN(cudaErrorInvalidValue);
	if (!func_of(func))
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	memset(attr, 0, sizeof(*attr));
	attr->maxThreadsPerBlock = 1024;
	attr->numRegs = 32;
	attr->binaryVersion = GPSIM_CC_MAJOR * 10 + GPSIM_CC_MINOR;
	attr->ptxVersion = attr->binaryVersion;
	RT_RETURN(cudaSuccess);
}

/* ---- memory --------------------------------------------------------------- */

cudaError_t CUDARTAPI cudaMalloc(void **ptr, size_t size)
{
	cudaMalloc_v3020_params p = { ptr, size };
	CUdeviceptr d = 0;
	CUresult r;
	RT_ENTER(cudaMalloc_v3020, &p, NULL);
	if (!ptr)
		RT_RETURN(cudaErrorInvalidValue);
	if (!size) {
		*ptr = NULL;
		RT_RETURN(cudaSuccess);
	}
	r = cuMemAlloc_v2(&d, size);
	*ptr = r == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaFree(void *ptr)
{
	cudaFree_v3020_params p = { ptr };
	RT_ENTER(cudaFree_v3020, &p, NULL);
	if (!ptr)
		RT_RETURN(cudaSuccess);
	RT_CU(cuMemFree_v2((CUdeviceptr)(uintptr_t)ptr));
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
	cudaMallocHost_v3020_params p = { ptr, size };
	RT_ENTER(cudaMallocHost_v3020, &p, NULL);
	RT_CU(cuMemAllocHost_v2(ptr, size));
}

cudaError_t CUDARTAPI cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	cudaHostAlloc_v3020_params p = { ptr, size, flags };
	RT_ENTER(cudaHostAlloc_v3020, &p, NULL);
	RT_CU(cuMemHostAlloc(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
	cudaFreeHost_v3020_params p = { ptr };
	RT_ENTER(cudaFreeHost_v3020, &p, NULL);
	RT_CU(cuMemFreeHost(ptr));
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pdev, void *host, unsigned int flags)
{
	RT_ENTER(cudaHostGetDevicePointer_v3020, NULL, NULL);
	if (!pdev || !gpsim_is_pinned(host))
		RT_RETURN(cudaErrorInvalidValue);
	*pdev = host;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaHostRegister_v4000_params p = { ptr, size, flags };
	RT_ENTER(cudaHostRegister_v4000, &p, NULL);
	RT_CU(cuMemHostRegister(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
	cudaHostUnregister_v4000_params p = { ptr };
	RT_ENTER(cudaHostUnregister_v4000, &p, NULL);
	RT_CU(cuMemHostUnregister(ptr));
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free_b, size_t *total)
{
	RT_ENTER(cudaMemGetInfo_v3020, NULL, NULL);
	if (free_b)
		*free_b = (size_t)(GPSIM_GLOBAL_MEM / 2);
	if (total)
		*total = (size_t)GPSIM_GLOBAL_MEM;
	RT_RETURN(cudaSuccess);
}

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

static enum cudaMemcpyKind resolve_kind(const void *dst, const void *src, enum cudaMemcpyKind k)
{
	int ds, dd;

	if (k != cudaMemcpyDefault)
		return k;
	ds = gpsim_is_device(src);
	dd = gpsim_is_device(dst);
	return ds ? (dd ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost) :
		    (dd ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
}

static cudaError_t copy_sync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	switch (resolve_kind(dst, src, kind)) {
	case cudaMemcpyHostToDevice: return from_cu(cuMemcpyHtoD_v2(DP(dst), src, n));
	case cudaMemcpyDeviceToHost: return from_cu(cuMemcpyDtoH_v2(dst, DP(src), n));
	case cudaMemcpyDeviceToDevice: return from_cu(cuMemcpyDtoD_v2(DP(dst), DP(src), n));
	case cudaMemcpyHostToHost: return from_cu(cuMemcpy(DP(dst), DP(src), n));
	default: return cudaErrorInvalidMemcpyDirection;
	}
}

static cudaError_t copy_async(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			      CUstream s)
{
	switch (resolve_kind(dst, src, kind)) {
	case cudaMemcpyHostToDevice: return from_cu(cuMemcpyHtoDAsync_v2(DP(dst), src, n, s));
	case cudaMemcpyDeviceToHost: return from_cu(cuMemcpyDtoHAsync_v2(dst, DP(src), n, s));
	case cudaMemcpyDeviceToDevice:
		return from_cu(cuMemcpyDtoDAsync_v2(DP(dst), DP(src), n, s));
	case cudaMemcpyHostToHost: return from_cu(cuMemcpyAsync(DP(dst), DP(src), n, s));
	default: return cudaErrorInvalidMemcpyDirection;
	}
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	cudaMemcpy_v3020_params p = { dst, src, n, kind };
	RT_ENTER(cudaMemcpy_v3020, &p, NULL);
	RT_RETURN(copy_sync(dst, src, n, kind));
}

cudaError_t CUDARTAPI cudaMemcpy_ptds(void *dst, const void *src, size_t n,
				      enum cudaMemcpyKind kind)
{
	cudaMemcpy_ptds_v7000_params p = { dst, src, n, kind };
	RT_ENTER(cudaMemcpy_ptds_v7000, &p, NULL);
	RT_RETURN(copy_sync(dst, src, n, kind));
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t n,
				      enum cudaMemcpyKind kind, cudaStream_t s)
{
	cudaMemcpyAsync_v3020_params p = { dst, src, n, kind, s };
	RT_ENTER(cudaMemcpyAsync_v3020, &p, NULL);
	RT_RETURN(copy_async(dst, src, n, kind, s));
}

cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n,
					   enum cudaMemcpyKind kind, cudaStream_t s)
{
	cudaMemcpyAsync_ptsz_v7000_params p = { dst, src, n, kind, s };
	RT_ENTER(cudaMemcpyAsync_ptsz_v7000, &p, NULL);
	RT_RETURN(copy_async(dst, src, n, kind, pts(s)));
}

static struct rt_var *var_of(const void *symbol)
{
	struct rt_var *v;

	pthread_mutex_lock(&R.lock);
	for (v = R.vars; v; v = v->next)
		if (v->host_var == symbol)
			break;
	pthread_mutex_unlock(&R.lock);
	return v;
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n,
					 size_t offset, enum cudaMemcpyKind kind)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyToSymbol_v3020, NULL, NULL);
	/* The host shadow of a __device__ variable stands in for its device copy. */
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_CU(cuMemcpyHtoD_v2(DP(v->host_var + offset), src, n));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n,
					   size_t offset, enum cudaMemcpyKind kind)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyFromSymbol_v3020, NULL, NULL);
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_CU(cuMemcpyDtoH_v2(dst, DP(v->host_var + offset), n));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t n,
					      size_t offset, enum cudaMemcpyKind kind,
					      cudaStream_t s)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyToSymbolAsync_v3020, NULL, NULL);
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_RETURN(copy_async((void *)(uintptr_t)(v->host_var + offset), src, n,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyHostToDevice, s));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t n,
						   size_t offset, enum cudaMemcpyKind kind,
						   cudaStream_t s)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyToSymbolAsync_ptsz_v7000, NULL, NULL);
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_RETURN(copy_async((void *)(uintptr_t)(v->host_var + offset), src, n,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyHostToDevice,
			     pts(s)));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t n,
						size_t offset, enum cudaMemcpyKind kind,
						cudaStream_t s)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyFromSymbolAsync_v3020, NULL, NULL);
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_RETURN(copy_async(dst, v->host_var + offset, n,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDeviceToHost, s));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t n,
						     size_t offset, enum cudaMemcpyKind kind,
						     cudaStream_t s)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaMemcpyFromSymbolAsync_ptsz_v7000, NULL, NULL);
	if (!v || offset + n > v->size)
		RT_RETURN(cudaErrorInvalidSymbol);
	RT_RETURN(copy_async(dst, v->host_var + offset, n,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDeviceToHost,
			     pts(s)));
}

/* "Returns in *devPtr the address of symbol symbol on the device": its host shadow here. */
cudaError_t CUDARTAPI cudaGetSymbolAddress(void **dev, const void *symbol)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaGetSymbolAddress_v3020, NULL, NULL);
	if (!dev)
		RT_RETURN(cudaErrorInvalidValue);
	if (!v)
		RT_RETURN(cudaErrorInvalidSymbol);
	*dev = (void *)(uintptr_t)v->host_var;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol)
{
	struct rt_var *v = var_of(symbol);
	RT_ENTER(cudaGetSymbolSize_v3020, NULL, NULL);
	if (!size)
		RT_RETURN(cudaErrorInvalidValue);
	if (!v)
		RT_RETURN(cudaErrorInvalidSymbol);
	*size = v->size;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMemset(void *ptr, int value, size_t n)
{
	cudaMemset_v3020_params p = { ptr, value, n };
	RT_ENTER(cudaMemset_v3020, &p, NULL);
	RT_CU(cuMemsetD8_v2(DP(ptr), (unsigned char)value, n));
}

cudaError_t CUDARTAPI cudaMemset_ptds(void *ptr, int value, size_t n)
{
	cudaMemset_ptds_v7000_params p = { ptr, value, n };
	RT_ENTER(cudaMemset_ptds_v7000, &p, NULL);
	RT_CU(cuMemsetD8_v2(DP(ptr), (unsigned char)value, n));
}

cudaError_t CUDARTAPI cudaMemsetAsync(void *ptr, int value, size_t n, cudaStream_t s)
{
	cudaMemsetAsync_v3020_params p = { ptr, value, n, s };
	RT_ENTER(cudaMemsetAsync_v3020, &p, NULL);
	RT_CU(cuMemsetD8Async(DP(ptr), (unsigned char)value, n, s));
}

cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *ptr, int value, size_t n, cudaStream_t s)
{
	cudaMemsetAsync_ptsz_v7000_params p = { ptr, value, n, s };
	RT_ENTER(cudaMemsetAsync_ptsz_v7000, &p, NULL);
	RT_CU(cuMemsetD8Async(DP(ptr), (unsigned char)value, n, pts(s)));
}

/* ---- streams, events, synchronization ----------------------------------- */

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *s)
{
	cudaStreamCreate_v3020_params p = { s };
	RT_ENTER(cudaStreamCreate_v3020, &p, NULL);
	RT_CU(cuStreamCreate(s, 0));
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
	cudaStreamCreateWithFlags_v5000_params p = { s, flags };
	RT_ENTER(cudaStreamCreateWithFlags_v5000, &p, NULL);
	RT_CU(cuStreamCreate(s, flags));
}

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags,
						   int priority)
{
	cudaStreamCreateWithPriority_v5050_params p = { s, flags, priority };
	RT_ENTER(cudaStreamCreateWithPriority_v5050, &p, NULL);
	RT_CU(cuStreamCreateWithPriority(s, flags, priority));
}

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	RT_ENTER(cudaDeviceGetStreamPriorityRange_v5050, NULL, NULL);
	if (least)
		*least = 0;
	if (greatest)
		*greatest = -5;
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t s)
{
	cudaStreamDestroy_v5050_params p = { s };
	RT_ENTER(cudaStreamDestroy_v5050, &p, NULL);
	RT_CU(cuStreamDestroy_v2(s));
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t s)
{
	cudaStreamSynchronize_v3020_params p = { s };
	RT_ENTER(cudaStreamSynchronize_v3020, &p, NULL);
	RT_CU(cuStreamSynchronize(s));
}

cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t s)
{
	cudaStreamSynchronize_ptsz_v7000_params p = { s };
	RT_ENTER(cudaStreamSynchronize_ptsz_v7000, &p, NULL);
	RT_CU(cuStreamSynchronize(pts(s)));
}

cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t s)
{
	RT_ENTER(cudaStreamQuery_v3020, NULL, NULL);
	RT_CU(cuStreamQuery(s));
}

cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t s)
{
	RT_ENTER(cudaStreamQuery_ptsz_v7000, NULL, NULL);
	RT_CU(cuStreamQuery(pts(s)));
}

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
	RT_ENTER(cudaStreamWaitEvent_v3020, NULL, NULL);
	RT_CU(cuStreamWaitEvent(s, e, flags));
}

cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
	RT_ENTER(cudaStreamWaitEvent_ptsz_v7000, NULL, NULL);
	RT_CU(cuStreamWaitEvent(pts(s), e, flags));
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *e)
{
	cudaEventCreate_v3020_params p = { e };
	RT_ENTER(cudaEventCreate_v3020, &p, NULL);
	RT_CU(cuEventCreate(e, 0));
}

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
	cudaEventCreateWithFlags_v3020_params p = { e, flags };
	RT_ENTER(cudaEventCreateWithFlags_v3020, &p, NULL);
	RT_CU(cuEventCreate(e, flags));
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	cudaEventRecord_v3020_params p = { e, s };
	RT_ENTER(cudaEventRecord_v3020, &p, NULL);
	RT_CU(cuEventRecord(e, s));
}

cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s)
{
	cudaEventRecord_ptsz_v7000_params p = { e, s };
	RT_ENTER(cudaEventRecord_ptsz_v7000, &p, NULL);
	RT_CU(cuEventRecord(e, pts(s)));
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags)
{
	RT_ENTER(cudaEventRecordWithFlags_v11010, NULL, NULL);
	RT_CU(cuEventRecordWithFlags(e, s, flags));
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s,
						    unsigned int flags)
{
	RT_ENTER(cudaEventRecordWithFlags_ptsz_v11010, NULL, NULL);
	RT_CU(cuEventRecordWithFlags(e, pts(s), flags));
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t e)
{
	cudaEventSynchronize_v3020_params p = { e };
	RT_ENTER(cudaEventSynchronize_v3020, &p, NULL);
	RT_CU(cuEventSynchronize(e));
}

cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t e)
{
	RT_ENTER(cudaEventQuery_v3020, NULL, NULL);
	RT_CU(cuEventQuery(e));
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	RT_ENTER(cudaEventElapsedTime_v3020, NULL, NULL);
	RT_CU(cuEventElapsedTime_v2(ms, a, b));
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t e)
{
	RT_ENTER(cudaEventDestroy_v3020, NULL, NULL);
	RT_CU(cuEventDestroy_v2(e));
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void)
{
	RT_ENTER(cudaDeviceSynchronize_v3020, NULL, NULL);
	RT_CU(cuCtxSynchronize());
}

/* ---- graphs --------------------------------------------------------------- */

cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	RT_ENTER(cudaStreamBeginCapture_v10000, NULL, NULL);
	RT_CU(cuStreamBeginCapture_v2(s, (CUstreamCaptureMode)mode));
}

cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	RT_ENTER(cudaStreamBeginCapture_ptsz_v10000, NULL, NULL);
	RT_CU(cuStreamBeginCapture_v2(pts(s), (CUstreamCaptureMode)mode));
}

cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
	RT_ENTER(cudaStreamEndCapture_v10000, NULL, NULL);
	RT_CU(cuStreamEndCapture(s, g));
}

cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t *g)
{
	RT_ENTER(cudaStreamEndCapture_ptsz_v10000, NULL, NULL);
	RT_CU(cuStreamEndCapture(pts(s), g));
}

cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status)
{
	RT_ENTER(cudaStreamIsCapturing_v10000, NULL, NULL);
	RT_CU(cuStreamIsCapturing(s, (CUstreamCaptureStatus *)status));
}

cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t s,
						 enum cudaStreamCaptureStatus *status)
{
	RT_ENTER(cudaStreamIsCapturing_ptsz_v10000, NULL, NULL);
	RT_CU(cuStreamIsCapturing(pts(s), (CUstreamCaptureStatus *)status));
}

cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g,
					   unsigned long long flags)
{
	RT_ENTER(cudaGraphInstantiate_v12000, NULL, NULL);
	RT_CU(cuGraphInstantiateWithFlags(x, g, flags));
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *x, cudaGraph_t g,
						    unsigned long long flags)
{
	RT_ENTER(cudaGraphInstantiateWithFlags_v11040, NULL, NULL);
	RT_CU(cuGraphInstantiateWithFlags(x, g, flags));
}

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
	cudaGraphLaunch_v10000_params p = { x, s };
	RT_ENTER(cudaGraphLaunch_v10000, &p, NULL);
	RT_CU(cuGraphLaunch(x, s));
}

cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t s)
{
	cudaGraphLaunch_ptsz_v10000_params p = { x, s };
	RT_ENTER(cudaGraphLaunch_ptsz_v10000, &p, NULL);
	RT_CU(cuGraphLaunch(x, pts(s)));
}

cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *num)
{
	RT_ENTER(cudaGraphGetNodes_v10000, NULL, NULL);
	RT_CU(cuGraphGetNodes(g, (CUgraphNode *)nodes, num));
}

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t g)
{
	RT_ENTER(cudaGraphDestroy_v10000, NULL, NULL);
	RT_CU(cuGraphDestroy(g));
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t x)
{
	RT_ENTER(cudaGraphExecDestroy_v10000, NULL, NULL);
	RT_CU(cuGraphExecDestroy(x));
}

/* ---- host functions ------------------------------------------------------- */

/* A runtime stream callback, called through the driver's (its status is a CUresult). */
struct rt_stream_cb {
	cudaStreamCallback_t cb;
	void *user;
};

static void CUDA_CB rt_stream_cb(CUstream s, CUresult status, void *arg)
{
	struct rt_stream_cb c = *(struct rt_stream_cb *)arg;

	free(arg);
	c.cb((cudaStream_t)s, from_cu(status), c.user);
}

static cudaError_t add_callback(cudaStream_t s, cudaStreamCallback_t cb, void *user,
				unsigned int flags, int ptsz)
{
	struct rt_stream_cb *c;
	CUresult r;

	if (!cb)
		return cudaErrorInvalidValue;
	c = malloc(sizeof(*c));
	if (!c)
		return cudaErrorMemoryAllocation;
	*c = (struct rt_stream_cb){ cb, user };
	r = ptsz ? cuStreamAddCallback_ptsz(s, rt_stream_cb, c, flags) :
		   cuStreamAddCallback(s, rt_stream_cb, c, flags);
	if (r != CUDA_SUCCESS)
		free(c);
	return from_cu(r);
}

cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *user,
					    unsigned int flags)
{
	cudaStreamAddCallback_v5000_params p = { s, cb, user, flags };
	RT_ENTER(cudaStreamAddCallback_v5000, &p, NULL);
	RT_RETURN(add_callback(s, cb, user, flags, 0));
}

cudaError_t CUDARTAPI cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb,
						 void *user, unsigned int flags)
{
	cudaStreamAddCallback_ptsz_v7000_params p = { s, cb, user, flags };
	RT_ENTER(cudaStreamAddCallback_ptsz_v7000, &p, NULL);
	RT_RETURN(add_callback(s, cb, user, flags, 1));
}

cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user)
{
	cudaLaunchHostFunc_v10000_params p = { s, fn, user };
	RT_ENTER(cudaLaunchHostFunc_v10000, &p, NULL);
	RT_CU(cuLaunchHostFunc(s, fn, user));
}

cudaError_t CUDARTAPI cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void *user)
{
	cudaLaunchHostFunc_ptsz_v10000_params p = { s, fn, user };
	RT_ENTER(cudaLaunchHostFunc_ptsz_v10000, &p, NULL);
	RT_CU(cuLaunchHostFunc_ptsz(s, fn, user));
}

/* ---- profiler control, occupancy ------------------------------------------ */

cudaError_t CUDARTAPI cudaProfilerStart(void)
{
	RT_ENTER(cudaProfilerStart_v4000, NULL, NULL);
	RT_CU(cuProfilerStart());
}

cudaError_t CUDARTAPI cudaProfilerStop(void)
{
	RT_ENTER(cudaProfilerStop_v4000, NULL, NULL);
	RT_CU(cuProfilerStop());
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num, const void *func,
								    int block_size,
								    size_t smem)
{
	CUfunction f = func_of(func);
	RT_ENTER(cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6000, NULL, NULL);
	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(num, f, block_size, smem));
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *num, const void *func, int block_size, size_t smem, unsigned int flags)
{
	CUfunction f = func_of(func);
	RT_ENTER(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000, NULL, NULL);
	if (!f)
		RT_RETURN(cudaErrorInvalidDeviceFunction);
	RT_CU(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(num, f, block_size, smem,
								   flags));
}

/* ---- graphs built node by node ----------------------------------------------- */

cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *g, unsigned int flags)
{
	RT_ENTER(cudaGraphCreate_v10000, NULL, NULL);
	RT_CU(cuGraphCreate(g, flags));
}

static int kernel_node_params(const struct cudaKernelNodeParams *p, CUDA_KERNEL_NODE_PARAMS *d)
{
	CUfunction f = p ? func_of(p->func) : NULL;

	if (!f)
		return 0;
	*d = (CUDA_KERNEL_NODE_PARAMS){ .func = f,
					.gridDimX = p->gridDim.x, .gridDimY = p->gridDim.y,
					.gridDimZ = p->gridDim.z, .blockDimX = p->blockDim.x,
					.blockDimY = p->blockDim.y, .blockDimZ = p->blockDim.z,
					.sharedMemBytes = p->sharedMemBytes,
					.kernelParams = p->kernelParams, .extra = p->extra };
	return 1;
}

cudaError_t CUDARTAPI cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g,
					     const cudaGraphNode_t *deps, size_t ndeps,
					     const struct cudaKernelNodeParams *p)
{
	CUDA_KERNEL_NODE_PARAMS d;
	int ok = kernel_node_params(p, &d);
	RT_ENTER(cudaGraphAddKernelNode_v10000, NULL, ok ? gpsim_func_name(d.func) : NULL);
	if (!ok)
		RT_RETURN(p ? cudaErrorInvalidDeviceFunction : cudaErrorInvalidValue);
	RT_CU(cuGraphAddKernelNode(out, g, deps, ndeps, &d));
}

cudaError_t CUDARTAPI cudaGraphExecKernelNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
						       const struct cudaKernelNodeParams *p)
{
	CUDA_KERNEL_NODE_PARAMS d;
	int ok = kernel_node_params(p, &d);
	RT_ENTER(cudaGraphExecKernelNodeSetParams_v10010, NULL, NULL);
	if (!ok)
		RT_RETURN(p ? cudaErrorInvalidDeviceFunction : cudaErrorInvalidValue);
	RT_CU(cuGraphExecKernelNodeSetParams(x, node, &d));
}

/* One side of a copy as the driver takes it: its kind, or unified (inferred) for Default. */
CUmemorytype rt_side_type(enum cudaMemcpyKind k, int src)
{
	switch (k) {
	case cudaMemcpyHostToHost: return CU_MEMORYTYPE_HOST;
	case cudaMemcpyHostToDevice: return src ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
	case cudaMemcpyDeviceToHost: return src ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
	case cudaMemcpyDeviceToDevice: return CU_MEMORYTYPE_DEVICE;
	default: return CU_MEMORYTYPE_UNIFIED;
	}
}

/* A runtime 3D copy as the driver takes it. */
cudaError_t rt_memcpy3d(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out)
{
	CUDA_MEMCPY3D d = { 0 };
	/*
	 * "If a CUDA array is participating in the copy, the extent is defined
	 * in terms of that array's elements. If no CUDA array is participating
	 * in the copy then the extents are defined in elements of unsigned
	 * char." "The srcPos and dstPos fields [...] are defined in units of
	 * each object's elements."
	 */
	size_t se = p && p->srcArray ? gpsim_array_elem((CUarray)(void *)p->srcArray) : 1;
	size_t de = p && p->dstArray ? gpsim_array_elem((CUarray)(void *)p->dstArray) : 1;
	size_t ext = p && p->srcArray ? se : de;

	if (!p || (unsigned)p->kind > cudaMemcpyDefault || !se || !de)
		return cudaErrorInvalidValue;
	if (p->srcArray) {
		d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		d.srcArray = (CUarray)(void *)p->srcArray;
	} else {
		d.srcMemoryType = rt_side_type(p->kind, 1);
		d.srcHost = p->srcPtr.ptr;
		d.srcDevice = DP(p->srcPtr.ptr);
		d.srcPitch = p->srcPtr.pitch;
		d.srcHeight = p->srcPtr.ysize;
	}
	d.srcXInBytes = p->srcPos.x * se;
	d.srcY = p->srcPos.y;
	d.srcZ = p->srcPos.z;
	if (p->dstArray) {
		d.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		d.dstArray = (CUarray)(void *)p->dstArray;
	} else {
		d.dstMemoryType = rt_side_type(p->kind, 0);
		d.dstHost = p->dstPtr.ptr;
		d.dstDevice = DP(p->dstPtr.ptr);
		d.dstPitch = p->dstPtr.pitch;
		d.dstHeight = p->dstPtr.ysize;
	}
	d.dstXInBytes = p->dstPos.x * de;
	d.dstY = p->dstPos.y;
	d.dstZ = p->dstPos.z;
	d.WidthInBytes = p->extent.width * ext;
	d.Height = p->extent.height;
	d.Depth = p->extent.depth;
	*out = d;
	return cudaSuccess;
}

/* A 1D copy as a 3D one: "the memory copy of count bytes". */
static struct cudaMemcpy3DParms copy_1d(void *dst, const void *src, size_t count,
					enum cudaMemcpyKind kind)
{
	return (struct cudaMemcpy3DParms){
		.srcPtr = { (void *)(uintptr_t)src, count, count, 1 },
		.dstPtr = { dst, count, count, 1 },
		.extent = { count, 1, 1 },
		.kind = kind,
	};
}

static cudaError_t add_memcpy_node(cudaGraphNode_t *out, cudaGraph_t g,
				   const cudaGraphNode_t *deps, size_t ndeps,
				   const struct cudaMemcpy3DParms *p)
{
	CUDA_MEMCPY3D d;
	cudaError_t e = rt_memcpy3d(p, &d);

	if (e != cudaSuccess)
		return e;
	return from_cu(cuGraphAddMemcpyNode(out, g, deps, ndeps, &d, gpsim_primary_ctx()));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g,
					     const cudaGraphNode_t *deps, size_t ndeps,
					     const struct cudaMemcpy3DParms *p)
{
	RT_ENTER(cudaGraphAddMemcpyNode_v10000, NULL, NULL);
	RT_RETURN(add_memcpy_node(out, g, deps, ndeps, p));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g,
					       const cudaGraphNode_t *deps, size_t ndeps,
					       void *dst, const void *src, size_t count,
					       enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p = copy_1d(dst, src, count, kind);
	RT_ENTER(cudaGraphAddMemcpyNode1D_v11010, NULL, NULL);
	RT_RETURN(add_memcpy_node(out, g, deps, ndeps, &p));
}

cudaError_t CUDARTAPI cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g,
					     const cudaGraphNode_t *deps, size_t ndeps,
					     const struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS d;
	RT_ENTER(cudaGraphAddMemsetNode_v10000, NULL, NULL);
	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = (CUDA_MEMSET_NODE_PARAMS){ DP(p->dst), p->pitch, p->value, p->elementSize, p->width,
				       p->height };
	RT_CU(cuGraphAddMemsetNode(out, g, deps, ndeps, &d, gpsim_primary_ctx()));
}

cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g,
					   const cudaGraphNode_t *deps, size_t ndeps,
					   const struct cudaHostNodeParams *p)
{
	CUDA_HOST_NODE_PARAMS d;
	RT_ENTER(cudaGraphAddHostNode_v10000, NULL, NULL);
	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = (CUDA_HOST_NODE_PARAMS){ p->fn, p->userData };
	RT_CU(cuGraphAddHostNode(out, g, deps, ndeps, &d));
}

cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g,
					    const cudaGraphNode_t *deps, size_t ndeps)
{
	RT_ENTER(cudaGraphAddEmptyNode_v10000, NULL, NULL);
	RT_CU(cuGraphAddEmptyNode(out, g, deps, ndeps));
}

/* cudaMemPoolProps and CUmemPoolProps are the same struct, field for field (as cudaMemPoolCreate takes them). */
cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g,
					       const cudaGraphNode_t *deps, size_t ndeps,
					       struct cudaMemAllocNodeParams *p)
{
	CUDA_MEM_ALLOC_NODE_PARAMS d;
	CUresult r;
	RT_ENTER(cudaGraphAddMemAllocNode_v11040, NULL, NULL);
	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	_Static_assert(sizeof(p->poolProps) == sizeof(d.poolProps), "pool props");
	memset(&d, 0, sizeof(d));
	memcpy(&d.poolProps, &p->poolProps, sizeof(d.poolProps));
	d.accessDescs = (const CUmemAccessDesc *)p->accessDescs;
	d.accessDescCount = p->accessDescCount;
	d.bytesize = p->bytesize;
	r = cuGraphAddMemAllocNode(out, g, deps, ndeps, &d);
	if (r == CUDA_SUCCESS)
		p->dptr = (void *)(uintptr_t)d.dptr;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g,
					      const cudaGraphNode_t *deps, size_t ndeps, void *dptr)
{
	RT_ENTER(cudaGraphAddMemFreeNode_v11040, NULL, NULL);
	RT_CU(cuGraphAddMemFreeNode(out, g, deps, ndeps, (CUdeviceptr)(uintptr_t)dptr));
}

cudaError_t CUDARTAPI cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
						     struct cudaMemAllocNodeParams *out)
{
	CUDA_MEM_ALLOC_NODE_PARAMS d;
	CUresult r;
	RT_ENTER(cudaGraphMemAllocNodeGetParams_v11040, NULL, NULL);
	if (!out)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphMemAllocNodeGetParams(node, &d);
	if (r == CUDA_SUCCESS) {
		memset(out, 0, sizeof(*out));
		memcpy(&out->poolProps, &d.poolProps, sizeof(out->poolProps));
		out->bytesize = d.bytesize;
		out->dptr = (void *)(uintptr_t)d.dptr;
	}
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
	CUdeviceptr d = 0;
	CUresult r;
	RT_ENTER(cudaGraphMemFreeNodeGetParams_v11040, NULL, NULL);
	if (!dptr_out)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphMemFreeNodeGetParams(node, &d);
	if (r == CUDA_SUCCESS)
		*(void **)dptr_out = (void *)(uintptr_t)d;
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device)
{
	RT_ENTER(cudaDeviceGraphMemTrim_v11040, NULL, NULL);
	RT_CU(cuDeviceGraphMemTrim(device));
}

cudaError_t CUDARTAPI cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g,
						  const cudaGraphNode_t *deps, size_t ndeps,
						  cudaEvent_t e)
{
	RT_ENTER(cudaGraphAddEventRecordNode_v11010, NULL, NULL);
	RT_CU(cuGraphAddEventRecordNode(out, g, deps, ndeps, e));
}

cudaError_t CUDARTAPI cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g,
						const cudaGraphNode_t *deps, size_t ndeps,
						cudaEvent_t e)
{
	RT_ENTER(cudaGraphAddEventWaitNode_v11010, NULL, NULL);
	RT_CU(cuGraphAddEventWaitNode(out, g, deps, ndeps, e));
}

/* "Creates a conditional handle associated with hGraph." */
cudaError_t CUDARTAPI cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *out,
						       cudaGraph_t g, unsigned int def,
						       unsigned int flags)
{
	cudaGraphConditionalHandleCreate_v12030_params p = { out, g, def, flags };
	CUgraphConditionalHandle h = 0;
	CUresult r;
	RT_ENTER(cudaGraphConditionalHandleCreate_v12030, &p, NULL);

	if (!out)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphConditionalHandleCreate(&h, g, gpsim_primary_ctx(), def, flags);
	if (r == CUDA_SUCCESS)
		*out = h;
	RT_CU(r);
}

/*
 * cudaGraphNodeParams as the driver's CUgraphNodeParams: the same union
 * layout, but the runtime names a kernel by its host stub, a copy by
 * cudaMemcpy3DParms and the rest by pointers the driver takes as
 * CUdeviceptr. Which members are read is the driver's to say (type).
 */
static cudaError_t node_params_of(const struct cudaGraphNodeParams *p, CUgraphNodeParams *d)
{
	memset(d, 0, sizeof(*d));
	if (!p)
		return cudaErrorInvalidValue;
	d->type = (CUgraphNodeType)p->type;
	switch (p->type) {
	case cudaGraphNodeTypeKernel: {
		const struct cudaKernelNodeParamsV2 *k = &p->kernel;

		d->kernel = (CUDA_KERNEL_NODE_PARAMS_v3){
			.func = func_of(k->func), .gridDimX = k->gridDim.x, .gridDimY = k->gridDim.y,
			.gridDimZ = k->gridDim.z, .blockDimX = k->blockDim.x,
			.blockDimY = k->blockDim.y, .blockDimZ = k->blockDim.z,
			.sharedMemBytes = k->sharedMemBytes, .kernelParams = k->kernelParams,
			.extra = k->extra, .ctx = gpsim_primary_ctx()
		};
		return d->kernel.func ? cudaSuccess : cudaErrorInvalidDeviceFunction;
	}
	case cudaGraphNodeTypeMemcpy:
		d->memcpy.flags = p->memcpy.flags;
		d->memcpy.copyCtx = gpsim_primary_ctx();
		return rt_memcpy3d(&p->memcpy.copyParams, &d->memcpy.copyParams);
	case cudaGraphNodeTypeMemset:
		d->memset = (CUDA_MEMSET_NODE_PARAMS_v2){ DP(p->memset.dst), p->memset.pitch,
							  p->memset.value, p->memset.elementSize,
							  p->memset.width, p->memset.height,
							  gpsim_primary_ctx() };
		return cudaSuccess;
	case cudaGraphNodeTypeHost:
		d->host = (CUDA_HOST_NODE_PARAMS_v2){ p->host.fn, p->host.userData };
		return cudaSuccess;
	case cudaGraphNodeTypeGraph:
		d->graph.graph = p->graph.graph;
		d->graph.ownership = (CUgraphChildGraphNodeOwnership)p->graph.ownership;
		return cudaSuccess;
	case cudaGraphNodeTypeEmpty:
		return cudaSuccess;
	case cudaGraphNodeTypeEventRecord:
		d->eventRecord.event = p->eventRecord.event;
		return cudaSuccess;
	case cudaGraphNodeTypeWaitEvent:
		d->eventWait.event = p->eventWait.event;
		return cudaSuccess;
	case cudaGraphNodeTypeMemAlloc:
		memcpy(&d->alloc.poolProps, &p->alloc.poolProps, sizeof(d->alloc.poolProps));
		d->alloc.accessDescs = (const CUmemAccessDesc *)p->alloc.accessDescs;
		d->alloc.accessDescCount = p->alloc.accessDescCount;
		d->alloc.bytesize = p->alloc.bytesize;
		return cudaSuccess;
	case cudaGraphNodeTypeMemFree:
		d->free.dptr = DP(p->free.dptr);
		return cudaSuccess;
	case cudaGraphNodeTypeConditional:
		d->conditional.handle = p->conditional.handle;
		d->conditional.type = (CUgraphConditionalNodeType)p->conditional.type;
		d->conditional.size = p->conditional.size;
		d->conditional.ctx = gpsim_primary_ctx();
		return cudaSuccess;
	default:
		return cudaErrorNotSupported;
	}
}

cudaError_t CUDARTAPI cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
				       const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
				       size_t ndeps, struct cudaGraphNodeParams *params)
{
	cudaGraphAddNode_v12030_params p = { out, g, deps, edges, ndeps, params };
	CUgraphNodeParams d;
	cudaError_t e = node_params_of(params, &d);
	CUresult r;
	RT_ENTER(cudaGraphAddNode_v12030, &p,
		 e == cudaSuccess && d.type == CU_GRAPH_NODE_TYPE_KERNEL ?
			 gpsim_func_name(d.kernel.func) :
			 NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	r = cuGraphAddNode(out, g, deps, (const CUgraphEdgeData *)edges, ndeps, &d);
	if (r == CUDA_SUCCESS && params->type == cudaGraphNodeTypeMemAlloc)
		params->alloc.dptr = (void *)(uintptr_t)d.alloc.dptr;
	/* "CUDA-owned array populated with conditional node child graphs during creation of the node" */
	if (r == CUDA_SUCCESS && params->type == cudaGraphNodeTypeConditional)
		params->conditional.phGraph_out = d.conditional.phGraph_out;
	RT_CU(r);
}

/* ---- node parameters after the node is made ---- */

/* The driver's copy as the runtime gives it back: in bytes, each side where it is. */
static void copy_back(const CUDA_MEMCPY3D *d, struct cudaMemcpy3DParms *p)
{
	memset(p, 0, sizeof(*p));
	if (d->srcMemoryType == CU_MEMORYTYPE_ARRAY)
		p->srcArray = (cudaArray_t)(void *)d->srcArray;
	else
		p->srcPtr = (struct cudaPitchedPtr){
			d->srcMemoryType == CU_MEMORYTYPE_HOST ? (void *)(uintptr_t)d->srcHost :
								 (void *)(uintptr_t)d->srcDevice,
			d->srcPitch, d->WidthInBytes, d->srcHeight };
	if (d->dstMemoryType == CU_MEMORYTYPE_ARRAY)
		p->dstArray = (cudaArray_t)(void *)d->dstArray;
	else
		p->dstPtr = (struct cudaPitchedPtr){
			d->dstMemoryType == CU_MEMORYTYPE_HOST ? d->dstHost :
								 (void *)(uintptr_t)d->dstDevice,
			d->dstPitch, d->WidthInBytes, d->dstHeight };
	p->srcPos = (struct cudaPos){ d->srcXInBytes, d->srcY, d->srcZ };
	p->dstPos = (struct cudaPos){ d->dstXInBytes, d->dstY, d->dstZ };
	p->extent = (struct cudaExtent){ d->WidthInBytes, d->Height, d->Depth };
	p->kind = cudaMemcpyDefault;
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
						   struct cudaMemcpy3DParms *p)
{
	CUDA_MEMCPY3D d;
	CUresult r;
	RT_ENTER(cudaGraphMemcpyNodeGetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphMemcpyNodeGetParams(node, &d);
	if (r == CUDA_SUCCESS)
		copy_back(&d, p);
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
						   const struct cudaMemcpy3DParms *p)
{
	CUDA_MEMCPY3D d;
	cudaError_t e = rt_memcpy3d(p, &d);
	RT_ENTER(cudaGraphMemcpyNodeSetParams_v10000, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphMemcpyNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
						     const void *src, size_t count,
						     enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p3 = copy_1d(dst, src, count, kind);
	CUDA_MEMCPY3D d;
	cudaError_t e = rt_memcpy3d(&p3, &d);
	RT_ENTER(cudaGraphMemcpyNodeSetParams1D_v11010, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphMemcpyNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
						       const struct cudaMemcpy3DParms *p)
{
	CUDA_MEMCPY3D d;
	cudaError_t e = rt_memcpy3d(p, &d);
	RT_ENTER(cudaGraphExecMemcpyNodeSetParams_v10020, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphExecMemcpyNodeSetParams(x, node, &d, gpsim_primary_ctx()));
}

/*
 * The copies to and from a __device__ variable that the graph calls name by
 * symbol: 1D copies of count bytes at offset into its device copy (its
 * host shadow here, as cudaMemcpyToSymbol's), the kind as a symbol copy
 * takes it; past the variable's end is cudaErrorInvalidSymbol.
 */
static cudaError_t symbol_copy(const void *symbol, size_t count, size_t offset, int to,
			       enum cudaMemcpyKind kind, const void *other,
			       struct cudaMemcpy3DParms *p)
{
	struct rt_var *v = var_of(symbol);

	if (!v || offset > v->size || count > v->size - offset)
		return cudaErrorInvalidSymbol;
	if (to)
		*p = copy_1d((void *)(uintptr_t)(v->host_var + offset), other, count,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyHostToDevice);
	else
		*p = copy_1d((void *)(uintptr_t)other, v->host_var + offset, count,
			     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDeviceToHost);
	return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *out, cudaGraph_t g,
						     const cudaGraphNode_t *deps, size_t ndeps,
						     const void *symbol, const void *src,
						     size_t count, size_t offset,
						     enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p;
	cudaError_t e = symbol_copy(symbol, count, offset, 1, kind, src, &p);
	RT_ENTER(cudaGraphAddMemcpyNodeToSymbol_v11010, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_RETURN(add_memcpy_node(out, g, deps, ndeps, &p));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *out, cudaGraph_t g,
						       const cudaGraphNode_t *deps, size_t ndeps,
						       void *dst, const void *symbol, size_t count,
						       size_t offset, enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p;
	cudaError_t e = symbol_copy(symbol, count, offset, 0, kind, dst, &p);
	RT_ENTER(cudaGraphAddMemcpyNodeFromSymbol_v11010, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_RETURN(add_memcpy_node(out, g, deps, ndeps, &p));
}

/* A symbol copy's parameters for node (x NULL) or for x's copy of it. */
static cudaError_t symbol_copy_set(cudaGraphExec_t x, cudaGraphNode_t node, const void *symbol,
				   const void *other, size_t count, size_t offset, int to,
				   enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p3;
	CUDA_MEMCPY3D d;
	cudaError_t e = symbol_copy(symbol, count, offset, to, kind, other, &p3);

	if (e == cudaSuccess)
		e = rt_memcpy3d(&p3, &d);
	if (e != cudaSuccess)
		return e;
	return from_cu(x ? cuGraphExecMemcpyNodeSetParams(x, node, &d, gpsim_primary_ctx()) :
			   cuGraphMemcpyNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
							   const void *src, size_t count,
							   size_t offset, enum cudaMemcpyKind kind)
{
	RT_ENTER(cudaGraphMemcpyNodeSetParamsToSymbol_v11010, NULL, NULL);
	RT_RETURN(symbol_copy_set(NULL, node, symbol, src, count, offset, 1, kind));
}

cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
							     const void *symbol, size_t count,
							     size_t offset, enum cudaMemcpyKind kind)
{
	RT_ENTER(cudaGraphMemcpyNodeSetParamsFromSymbol_v11010, NULL, NULL);
	RT_RETURN(symbol_copy_set(NULL, node, symbol, dst, count, offset, 0, kind));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t x, cudaGraphNode_t node,
							       const void *symbol, const void *src,
							       size_t count, size_t offset,
							       enum cudaMemcpyKind kind)
{
	RT_ENTER(cudaGraphExecMemcpyNodeSetParamsToSymbol_v11010, NULL, NULL);
	if (!x)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(symbol_copy_set(x, node, symbol, src, count, offset, 1, kind));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t x,
								 cudaGraphNode_t node, void *dst,
								 const void *symbol, size_t count,
								 size_t offset,
								 enum cudaMemcpyKind kind)
{
	RT_ENTER(cudaGraphExecMemcpyNodeSetParamsFromSymbol_v11010, NULL, NULL);
	if (!x)
		RT_RETURN(cudaErrorInvalidValue);
	RT_RETURN(symbol_copy_set(x, node, symbol, dst, count, offset, 0, kind));
}

cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t x, cudaGraphNode_t node,
							 void *dst, const void *src, size_t count,
							 enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms p3 = copy_1d(dst, src, count, kind);
	CUDA_MEMCPY3D d;
	cudaError_t e = rt_memcpy3d(&p3, &d);
	RT_ENTER(cudaGraphExecMemcpyNodeSetParams1D_v11010, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphExecMemcpyNodeSetParams(x, node, &d, gpsim_primary_ctx()));
}

static CUDA_MEMSET_NODE_PARAMS memset_of(const struct cudaMemsetParams *p)
{
	return (CUDA_MEMSET_NODE_PARAMS){ DP(p->dst), p->pitch, p->value, p->elementSize, p->width,
					  p->height };
}

cudaError_t CUDARTAPI cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS d;
	CUresult r;
	RT_ENTER(cudaGraphMemsetNodeGetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphMemsetNodeGetParams(node, &d);
	if (r == CUDA_SUCCESS)
		*p = (struct cudaMemsetParams){ .dst = (void *)(uintptr_t)d.dst,
						.pitch = d.pitch,
						.value = d.value,
						.elementSize = d.elementSize,
						.width = d.width,
						.height = d.height };
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
						   const struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS d;
	RT_ENTER(cudaGraphMemsetNodeSetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = memset_of(p);
	RT_CU(cuGraphMemsetNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
						       const struct cudaMemsetParams *p)
{
	CUDA_MEMSET_NODE_PARAMS d;
	RT_ENTER(cudaGraphExecMemsetNodeSetParams_v10020, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = memset_of(p);
	RT_CU(cuGraphExecMemsetNodeSetParams(x, node, &d, gpsim_primary_ctx()));
}

cudaError_t CUDARTAPI cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
	CUDA_HOST_NODE_PARAMS d;
	CUresult r;
	RT_ENTER(cudaGraphHostNodeGetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	r = cuGraphHostNodeGetParams(node, &d);
	if (r == CUDA_SUCCESS)
		*p = (struct cudaHostNodeParams){ d.fn, d.userData };
	RT_CU(r);
}

cudaError_t CUDARTAPI cudaGraphHostNodeSetParams(cudaGraphNode_t node,
						 const struct cudaHostNodeParams *p)
{
	CUDA_HOST_NODE_PARAMS d;
	RT_ENTER(cudaGraphHostNodeSetParams_v10000, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = (CUDA_HOST_NODE_PARAMS){ p->fn, p->userData };
	RT_CU(cuGraphHostNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphExecHostNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
						     const struct cudaHostNodeParams *p)
{
	CUDA_HOST_NODE_PARAMS d;
	RT_ENTER(cudaGraphExecHostNodeSetParams_v10020, NULL, NULL);

	if (!p)
		RT_RETURN(cudaErrorInvalidValue);
	d = (CUDA_HOST_NODE_PARAMS){ p->fn, p->userData };
	RT_CU(cuGraphExecHostNodeSetParams(x, node, &d));
}

cudaError_t CUDARTAPI cudaGraphNodeSetEnabled(cudaGraphExec_t x, cudaGraphNode_t node,
					      unsigned int enabled)
{
	RT_ENTER(cudaGraphNodeSetEnabled_v11060, NULL, NULL);
	RT_CU(cuGraphNodeSetEnabled(x, node, enabled));
}

cudaError_t CUDARTAPI cudaGraphNodeGetEnabled(cudaGraphExec_t x, cudaGraphNode_t node,
					      unsigned int *enabled)
{
	RT_ENTER(cudaGraphNodeGetEnabled_v11060, NULL, NULL);
	RT_CU(cuGraphNodeGetEnabled(x, node, enabled));
}

cudaError_t CUDARTAPI cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
						  const cudaGraphNode_t *to,
						  const cudaGraphEdgeData *edges, size_t n)
{
	RT_ENTER(cudaGraphRemoveDependencies_v12030, NULL, NULL);
	RT_CU(cuGraphRemoveDependencies(g, from, to, (const CUgraphEdgeData *)edges, n));
}

cudaError_t CUDARTAPI cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t orig,
					       cudaGraph_t clone)
{
	RT_ENTER(cudaGraphNodeFindInClone_v10000, NULL, NULL);
	RT_CU(cuGraphNodeFindInClone(out, orig, clone));
}

cudaError_t CUDARTAPI cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *p)
{
	CUgraphNodeParams d;
	cudaError_t e = node_params_of(p, &d);
	RT_ENTER(cudaGraphNodeSetParams_v12020, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphNodeSetParams(node, &d));
}

cudaError_t CUDARTAPI cudaGraphExecNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
						 struct cudaGraphNodeParams *p)
{
	CUgraphNodeParams d;
	cudaError_t e = node_params_of(p, &d);
	RT_ENTER(cudaGraphExecNodeSetParams_v12020, NULL, NULL);

	if (e != cudaSuccess)
		RT_RETURN(e);
	RT_CU(cuGraphExecNodeSetParams(x, node, &d));
}

cudaError_t CUDARTAPI cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
					       const cudaGraphNode_t *to,
					       const cudaGraphEdgeData *edges, size_t num)
{
	RT_ENTER(cudaGraphAddDependencies_v12030, NULL, NULL);
	RT_CU(cuGraphAddDependencies(g, from, to, (const CUgraphEdgeData *)edges, num));
}

cudaError_t CUDARTAPI cudaGraphDestroyNode(cudaGraphNode_t node)
{
	RT_ENTER(cudaGraphDestroyNode_v10000, NULL, NULL);
	RT_CU(cuGraphDestroyNode(node));
}

cudaError_t CUDARTAPI cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
	RT_ENTER(cudaGraphNodeGetType_v10000, NULL, NULL);
	/* cudaGraphNodeType and CUgraphNodeType share their numbering. */
	RT_CU(cuGraphNodeGetType(node, (CUgraphNodeType *)type));
}

cudaError_t CUDARTAPI cudaGraphClone(cudaGraph_t *out, cudaGraph_t g)
{
	RT_ENTER(cudaGraphClone_v10000, NULL, NULL);
	RT_CU(cuGraphClone(out, g));
}

cudaError_t CUDARTAPI cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g,
					  cudaGraphExecUpdateResultInfo *info)
{
	RT_ENTER(cudaGraphExecUpdate_v10020, NULL, NULL);
	/* The runtime's result info is the driver's, field for field. */
	RT_CU(cuGraphExecUpdate(x, g, (CUgraphExecUpdateResultInfo *)info));
}

cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s)
{
	RT_ENTER(cudaGraphUpload_v10000, NULL, NULL);
	RT_CU(cuGraphUpload(x, s));
}

cudaError_t CUDARTAPI cudaGraphUpload_ptsz(cudaGraphExec_t x, cudaStream_t s)
{
	RT_ENTER(cudaGraphUpload_ptsz_v10000, NULL, NULL);
	RT_CU(cuGraphUpload(x, pts(s)));
}

/* ---- device management ---------------------------------------------------- */

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
	RT_ENTER(cudaGetDeviceCount_v3020, NULL, NULL);
	RT_CU(cuDeviceGetCount(count));
}

cudaError_t CUDARTAPI cudaSetDevice(int device)
{
	RT_ENTER(cudaSetDevice_v3020, NULL, NULL);
	RT_RETURN(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
	RT_ENTER(cudaGetDevice_v3020, NULL, NULL);
	if (!device)
		RT_RETURN(cudaErrorInvalidValue);
	*device = 0;
	RT_RETURN(cudaSuccess);
}

/* "Records flags as the flags for the current device": the primary context's (cudaGetDeviceFlags). */
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags)
{
	RT_ENTER(cudaSetDeviceFlags_v3020, NULL, NULL);
	RT_CU(cuDevicePrimaryCtxSetFlags(GPSIM_DEVICE_ID, flags));
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	RT_ENTER(cudaDeviceGetAttribute_v5000, NULL, NULL);
	/* cudaDeviceAttr and CUdevice_attribute share their numbering. */
	RT_CU(cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device));
}

static int attr(CUdevice_attribute a)
{
	int v = 0;

	cuDeviceGetAttribute(&v, a, 0);
	return v;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	size_t total = 0;
	RT_ENTER(cudaGetDeviceProperties_v12000, NULL, NULL);
	if (!prop)
		RT_RETURN(cudaErrorInvalidValue);
	if (device != 0)
		RT_RETURN(cudaErrorInvalidDevice);
	memset(prop, 0, sizeof(*prop));
	cuDeviceGetName(prop->name, (int)sizeof(prop->name), 0);
	cuDeviceTotalMem_v2(&total, 0);
	prop->totalGlobalMem = total;
	prop->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	prop->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	prop->multiProcessorCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	prop->warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	prop->maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	prop->maxThreadsPerMultiProcessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	prop->maxThreadsDim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
	prop->maxThreadsDim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
	prop->maxThreadsDim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
	prop->maxGridSize[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
	prop->maxGridSize[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
	prop->maxGridSize[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
	prop->sharedMemPerBlock = (size_t)attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
	prop->regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
	prop->memoryBusWidth = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	prop->concurrentKernels = 1;
	prop->asyncEngineCount = 2;
	prop->unifiedAddressing = 1;
	prop->canMapHostMemory = 1;
	prop->cooperativeLaunch = 1;
	prop->streamPrioritiesSupported = 1;
	prop->managedMemory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
	prop->concurrentManagedAccess = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
	prop->memoryPoolsSupported = attr(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
	RT_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceReset(void)
{
	RT_ENTER(cudaDeviceReset_v3020, NULL, NULL);
	RT_CU(cuDevicePrimaryCtxReset_v2(0));
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int *v)
{
	RT_TRACE(cudaDriverGetVersion_v3020, NULL, NULL);
	RT_CU(cuDriverGetVersion(v));
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *v)
{
	RT_TRACE(cudaRuntimeGetVersion_v3020, NULL, NULL);
	if (!v)
		RT_RETURN(cudaErrorInvalidValue);
	*v = CUDART_VERSION;
	RT_RETURN(cudaSuccess);
}

/* ---- errors --------------------------------------------------------------- */

static const struct {
	cudaError_t e;
	const char *name, *str;
} errtab[] = {
	{ cudaSuccess, "cudaSuccess", "no error" },
	{ cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
	{ cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory" },
	{ cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error" },
	{ cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration",
	  "__global__ function call is not configured" },
	{ cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
	  "invalid device function" },
	{ cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal" },
	{ cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol" },
	{ cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	  "invalid copy direction for memcpy" },
	{ cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized",
	  "invalid device context" },
	{ cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	  "invalid resource handle" },
	{ cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found" },
	{ cudaErrorNotReady, "cudaErrorNotReady", "device not ready" },
	{ cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported" },
	{ cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
	  "operation not permitted when stream is capturing" },
	{ cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
	  "operation failed due to a previous error during capture" },
	{ cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched",
	  "capture was not ended in the same stream as it began" },
	{ cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined",
	  "capturing stream has unjoined work" },
	{ cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
	  "dependency created on uncaptured work in another stream" },
	{ cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
	  "operation would make the legacy stream depend on a capturing blocking stream" },
	{ cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread",
	  "attempt to terminate a thread-local capture sequence from another thread" },
	{ cudaErrorIllegalState, "cudaErrorIllegalState",
	  "the operation cannot be performed in the present state" },
	{ cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected" },
	{ cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
	  "part or all of the requested memory range is already mapped" },
	{ cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
	  "pointer does not correspond to a registered memory region" },
	{ cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure",
	  "the graph update was not performed because it included changes which violated "
	  "constraints specific to instantiated graph update" },
	{ cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	  "invalid configuration argument" },
	{ cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported",
	  "peer access is not supported between these two devices" },
	{ cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled",
	  "peer access is already enabled" },
	{ cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled",
	  "peer access has not been enabled" },
	{ cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage",
	  "device kernel image is invalid" },
	{ cudaErrorFileNotFound, "cudaErrorFileNotFound", "file not found" },
	{ cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument" },
	{ cudaErrorUnknown, "cudaErrorUnknown", "unknown error" },
};

const char *CUDARTAPI cudaGetErrorString(cudaError_t e)
{
	size_t i;

	for (i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++)
		if (errtab[i].e == e)
			return errtab[i].str;
	return "unrecognized error code";
}

const char *CUDARTAPI cudaGetErrorName(cudaError_t e)
{
	size_t i;

	for (i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++)
		if (errtab[i].e == e)
			return errtab[i].name;
	return "cudaErrorUnknown";
}

cudaError_t CUDARTAPI cudaGetLastError(void)
{
	cudaError_t e = tls_last_error;
	RT_TRACE(cudaGetLastError_v3020, NULL, NULL);
	tls_last_error = cudaSuccess;
	return (cudaError_t)gpsim_call_exit(&call__, (int)e);
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void)
{
	RT_TRACE(cudaPeekAtLastError_v3020, NULL, NULL);
	return (cudaError_t)gpsim_call_exit(&call__, (int)tls_last_error);
}

#pragma GCC visibility pop
