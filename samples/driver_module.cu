// SPDX-License-Identifier: Apache-2.0
// driver_module: the driver API the way framework launchers use it: two
// threads, each with a context of its own made current around its work
// with push/pop, running kernels loaded by name from a cubin (cuModuleLoad)
// and from a fatbin (cuLibraryLoadData), both made by nvcc at build time.
//
// main -> run_threads -> std::thread(worker_main) -> worker_iteration
//            thread 0:   -> launch_from_cubin (cuLaunchKernel: scale_rows)
//            thread 1:   -> launch_from_fatbin (cuLaunchKernel: add_bias)
// The images are driver_module_kernels.{cubin,fatbin} next to the executable.
#include "sample_util.h"

#include "sample_drv.h"

#include <climits>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

static const char *const SAMPLE = "driver_module";
static const unsigned ELEMS = 1 << 14;

struct worker {
	unsigned id;
	unsigned long iters;
	std::string image;
	unsigned long launches;
	long bad;
	bool simulated;
};

// The directory of this executable, where the build put the images.
static std::string image_path(const char *suffix)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		fprintf(stderr, "%s: cannot find its own executable\n", SAMPLE);
		exit(1);
	}
	self[n] = '\0';
	std::string dir(self);
	return dir.substr(0, dir.rfind('/') + 1) + "driver_module_kernels." + suffix;
}

static std::vector<char> read_file(const std::string &path)
{
	FILE *f = fopen(path.c_str(), "rb");
	std::vector<char> buf;

	if (!f) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", SAMPLE, path.c_str(), strerror(errno));
		exit(1);
	}
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf.insert(buf.end(), chunk, chunk + got);
	fclose(f);
	return buf;
}

static SAMPLE_NOINLINE void launch_from_cubin(CUfunction fn, CUstream s, CUdeviceptr x, float f)
{
	unsigned n = ELEMS;
	void *args[] = {&x, &f, &n};
	CU_CHECK(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
}

static SAMPLE_NOINLINE void launch_from_fatbin(CUfunction fn, CUstream s, CUdeviceptr x, float b)
{
	unsigned n = ELEMS;
	void *args[] = {&x, &b, &n};
	CU_CHECK(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL));
}

// One push/pop of the worker's context around a launch.
static SAMPLE_NOINLINE void worker_iteration(worker *w, CUcontext ctx, CUfunction fn, CUstream s,
					     CUdeviceptr x)
{
	CU_CHECK(cuCtxPushCurrent(ctx));
	if (w->id == 0)
		launch_from_cubin(fn, s, x, 2.0f);
	else
		launch_from_fatbin(fn, s, x, 1.0f);
	w->launches++;
	CUcontext popped = NULL;
	CU_CHECK(cuCtxPopCurrent(&popped));
	if (popped != ctx) {
		fprintf(stderr, "%s: popped another context\n", SAMPLE);
		exit(1);
	}
}

static SAMPLE_NOINLINE void worker_main(worker *w)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod = NULL;
	CUlibrary lib = NULL;
	CUfunction fn;
	CUstream s;
	CUdeviceptr x;

	CU_CHECK(cuDeviceGet(&dev, 0));
	CU_CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
	if (w->id == 0) {
		CU_CHECK(cuModuleLoad(&mod, w->image.c_str()));
		CU_CHECK(cuModuleGetFunction(&fn, mod, "scale_rows"));
	} else {
		std::vector<char> fatbin = read_file(w->image);
		CUkernel k;
		CU_CHECK(cuLibraryLoadData(&lib, fatbin.data(), NULL, NULL, 0, NULL, NULL, 0));
		CU_CHECK(cuLibraryGetKernel(&k, lib, "add_bias"));
		CU_CHECK(cuKernelGetFunction(&fn, k));
	}
	CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	std::vector<float> host(ELEMS, 1.0f);
	CU_CHECK(cuMemAlloc(&x, ELEMS * sizeof(float)));
	CU_CHECK(cuMemcpyHtoD(x, host.data(), ELEMS * sizeof(float)));
	// "For transfers from pageable host memory to device memory [...] the DMA
	// to final destination may not have completed" when it returns, and the
	// launches go to a non-blocking stream: wait for the copy (a real GPU ran
	// the first kernels on the old contents, once in four runs).
	CU_CHECK(cuCtxSynchronize());
	CUcontext popped;
	CU_CHECK(cuCtxPopCurrent(&popped)); // from here on, current only around each launch

	for (unsigned long i = 0; i < w->iters; i++)
		worker_iteration(w, ctx, fn, s, x);

	CU_CHECK(cuCtxPushCurrent(ctx));
	CU_CHECK(cuStreamSynchronize(s));
	CU_CHECK(cuMemcpyDtoH(host.data(), x, ELEMS * sizeof(float)));
	if (!w->simulated) {
		float want = 1.0f;
		for (unsigned long i = 0; i < w->iters; i++)
			want = w->id == 0 ? want * 2.0f : want + 1.0f;
		for (unsigned j = 0; j < ELEMS; j++)
			w->bad += host[j] != want;
	}
	CU_CHECK(cuMemFree(x));
	CU_CHECK(cuStreamDestroy(s));
	if (mod)
		CU_CHECK(cuModuleUnload(mod));
	if (lib)
		CU_CHECK(cuLibraryUnload(lib));
	CU_CHECK(cuCtxDestroy(ctx));
}

static SAMPLE_NOINLINE int run_threads(unsigned long iters, bool simulated)
{
	worker w[2] = {{0, iters, image_path("cubin"), 0, 0, simulated},
		       {1, iters, image_path("fatbin"), 0, 0, simulated}};
	std::vector<std::thread> threads;

	for (auto &x : w)
		threads.emplace_back(worker_main, &x);
	for (auto &t : threads)
		t.join();
	if (simulated)
		sample_note_skipped(SAMPLE);
	for (auto &x : w) {
		if (x.bad) {
			fprintf(stderr, "%s: thread %u: %ld elements wrong\n", SAMPLE, x.id, x.bad);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	sample_usage(argc, argv, "[ITERS]   (default 10 launches per thread)");
	unsigned long iters = sample_arg(argc, argv, 1, "ITERS", 10, 1, 100);
	char name[256];
	CUdevice dev;

	CU_CHECK(cuInit(0));
	CU_CHECK(cuDeviceGet(&dev, 0));
	CU_CHECK(cuDeviceGetName(name, sizeof(name), dev));
	if (run_threads(iters, strstr(name, "simulator") != NULL))
		return 1;
	printf("%s: threads=2 contexts=2 launches=%lu ok\n", SAMPLE, iters * 2);
	return 0;
}
