// SPDX-License-Identifier: Apache-2.0
// launch_loop: back-to-back launches of a one-thread kernel; launch overhead is
// all there is, which makes it the profiler's overhead benchmark.
//
// main -> launch_loop -> launch_tick (tick_kernel) x LAUNCHES
#include "sample_util.h"

static const char *const SAMPLE = "launch_loop";

__global__ void tick_kernel(unsigned long long *counter)
{
	counter[0]++;
}

static SAMPLE_NOINLINE void launch_tick(cudaStream_t s, unsigned long long *counter)
{
	tick_kernel<<<1, 1, 0, s>>>(counter);
	CHECK_LAUNCH();
}

static SAMPLE_NOINLINE void launch_loop(cudaStream_t s, unsigned long long *counter,
					 unsigned long launches)
{
	for (unsigned long i = 0; i < launches; i++)
		launch_tick(s, counter);
	CHECK(cudaStreamSynchronize(s));
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[LAUNCHES]   (default 100000)");
	unsigned long launches = sample_arg(argc, argv, 1, "LAUNCHES", 100000, 1, 1UL << 32);

	bool simulated = sample_on_simulator();
	cudaStream_t s;
	unsigned long long *counter = NULL, count = 0;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&counter, sizeof(*counter)));
	CHECK(cudaMemset(counter, 0, sizeof(*counter)));
	CHECK(cudaDeviceSynchronize());

	double t0 = sample_now_ms(), c0 = sample_thread_cpu_ms();
	launch_loop(s, counter, launches);
	double ms = sample_now_ms() - t0, cpu_ms = sample_thread_cpu_ms() - c0;

	CHECK(cudaMemcpy(&count, counter, sizeof(count), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(counter));
	CHECK(cudaStreamDestroy(s));

	if (simulated) {
		sample_note_skipped(SAMPLE);
	} else if (count != launches) {
		fprintf(stderr, "%s: counter is %llu after %lu launches\n", SAMPLE, count,
			launches);
		return 1;
	}
	printf("%s: launches=%lu elapsed_ms=%.1f thread_cpu_ms=%.1f per_launch_us=%.3f ok\n",
	       SAMPLE, launches, ms, cpu_ms, ms * 1000.0 / (double)launches);
	return 0;
}
