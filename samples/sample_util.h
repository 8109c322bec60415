// SPDX-License-Identifier: Apache-2.0
// Shared helpers for the samples: checked CUDA calls, argument parsing, simulator detection.
#ifndef GPUPERF_SAMPLE_UTIL_H
#define GPUPERF_SAMPLE_UTIL_H

#include <cuda_runtime.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

// The samples exist to be profiled: every named host function must keep its
// own frame so the launch shows up under the function that made it.
#define SAMPLE_NOINLINE __attribute__((noinline))

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t check_err_ = (call);                                           \
		if (check_err_ != cudaSuccess) {                                           \
			fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(check_err_),                     \
				cudaGetErrorName(check_err_));                             \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

// A launch reports configuration errors through cudaGetLastError().
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// Parses argv[idx] as a count in [min, max]; the default when absent.
// A bad value is a usage error: message and exit status 2.
static inline unsigned long sample_arg(int argc, char **argv, int idx, const char *what,
				       unsigned long def, unsigned long min, unsigned long max)
{
	if (idx >= argc)
		return def;
	const char *s = argv[idx];
	char *end = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "%s: invalid %s '%s' (expected %lu..%lu)\n", argv[0], what, s,
			min, max);
		exit(2);
	}
	return v;
}

// Prints the usage line and exits 0 when the first argument is -h/--help.
static inline void sample_usage(int argc, char **argv, const char *usage)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s %s\n", argv[0], usage);
		exit(0);
	}
}

// gpuperf's CUDA simulator names its device "gpuperf CUDA simulator ...".
// Its kernels only take time and compute nothing, so values a kernel
// produces are checked only on a real device.
static inline bool sample_on_simulator(void)
{
	int dev = 0;
	cudaDeviceProp prop;
	CHECK(cudaGetDevice(&dev));
	CHECK(cudaGetDeviceProperties(&prop, dev));
	return strstr(prop.name, "simulator") != NULL;
}

static inline void sample_note_skipped(const char *sample)
{
	printf("%s: verification skipped (simulated device)\n", sample);
}

static inline double sample_now_ms(void)
{
	using clk = std::chrono::steady_clock;
	return std::chrono::duration<double, std::milli>(clk::now().time_since_epoch()).count();
}

/* CPU time of the calling thread: what launching cost this thread, whatever other threads did. */
static inline double sample_thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif
