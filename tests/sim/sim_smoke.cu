// SPDX-License-Identifier: Apache-2.0
/* nvcc-built (-cudart shared) program that exercises the simulator like the samples do. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <thread>
#include <time.h>

#define CHECK(x)                                                                        \
	do {                                                                            \
		cudaError_t e_ = (x);                                                   \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));        \
			return 1;                                                       \
		}                                                                       \
	} while (0)

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void busy(int *x)
{
	*x = 1;
}

static double now_ms()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int worker(int id)
{
	cudaStream_t s;
	int *d;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&d, sizeof(int)));
	for (int i = 0; i < 4; i++)
		busy<<<1, 32, 0, s>>>(d);
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaFree(d));
	CHECK(cudaStreamDestroy(s));
	return 0;
}

int main()
{
	const int n = 1 << 16;
	float *h, *a, *b, *c;
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s\n", prop.name);
	CHECK(cudaMallocHost(&h, n * sizeof(float)));
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMalloc(&b, n * sizeof(float)));
	CHECK(cudaMalloc(&c, n * sizeof(float)));
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	CHECK(cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemset(b, 0, n * sizeof(float)));
	vectorAdd<<<(n + 255) / 256, 256>>>(a, b, c, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost));
	if (h[7] != 7.0f) {
		fprintf(stderr, "copy round trip lost data\n");
		return 1;
	}

	/* GPUPERF_SIM_KERNEL_NS=busy=5000000: the sync must really wait 5 ms. */
	int *flag;
	CHECK(cudaMalloc(&flag, sizeof(int)));
	double t0 = now_ms();
	busy<<<1, 1>>>(flag);
	CHECK(cudaDeviceSynchronize());
	double waited = now_ms() - t0;
	printf("sync waited %.3f ms\n", waited);
	if (waited < 5.0) {
		fprintf(stderr, "cudaDeviceSynchronize did not block for the kernel\n");
		return 1;
	}

	cudaFunction_t f;
	CHECK(cudaGetFuncBySymbol(&f, (const void *)vectorAdd));
	void *args[] = { &a, &b, &c, (void *)&n };
	if (cuLaunchKernel((CUfunction)f, 1, 1, 1, 64, 1, 1, 0, 0, args, 0) != CUDA_SUCCESS) {
		fprintf(stderr, "cuLaunchKernel failed\n");
		return 1;
	}

	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t x;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	vectorAdd<<<4, 256, 0, s>>>(a, b, c, n);
	CHECK(cudaMemcpyAsync(h, c, 1024, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&x, g, 0));
	CHECK(cudaGraphLaunch(x, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphExecDestroy(x));
	CHECK(cudaGraphDestroy(g));

	std::thread t1(worker, 1), t2(worker, 2);
	t1.join();
	t2.join();

	cudaEvent_t e0, e1;
	float ms;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	CHECK(cudaEventRecord(e0, s));
	busy<<<1, 1, 0, s>>>(flag);
	CHECK(cudaEventRecord(e1, s));
	CHECK(cudaEventSynchronize(e1));
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	printf("event elapsed %.3f ms\n", ms);
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
	CHECK(cudaFree(flag));
	CHECK(cudaFreeHost(h));
	printf("ok\n");
	return 0;
}
