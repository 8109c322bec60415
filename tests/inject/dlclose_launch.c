// SPDX-License-Identifier: Apache-2.0
/* Test program: kernels launched from a library that is dlopen'ed, used and dlclose'd, then from main. */

/*
 * usage: dlclose_launch PLUGIN.so LAUNCHES
 * main launches kernel pk LAUNCHES/4 times, then dlopen(PLUGIN), plugin_run()
 * launches it LAUNCHES times, dlclose; then main launches it once more.
 * The report must still name plugin_launch_kernels, from the module record
 * the injection library wrote while the plugin was mapped.
 */
#include <cuda.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static const char ptx[] = ".entry pk ( ) { }\n";

int main(int argc, char **argv)
{
	int (*run)(CUfunction, CUstream, int);
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUdevice dev;
	CUstream s;
	void *h;
	int err;

	if (argc != 3)
		return 2;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx) || cuModuleLoadData(&mod, ptx) ||
	    cuModuleGetFunction(&f, mod, "pk") || cuStreamCreate(&s, 0))
		return 1;
	/* launches from main first: the library's writer has looked at the modules by then */
	for (err = 0; err < atoi(argv[2]) / 4; err++)
		if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL))
			return 1;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlclose_launch: %s\n", dlerror());
		return 1;
	}
	*(void **)&run = dlsym(h, "plugin_run");
	err = !run || run(f, s, atoi(argv[2]));
	err |= dlclose(h) != 0;
	err |= cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL) != CUDA_SUCCESS;
	err |= cuStreamSynchronize(s) != CUDA_SUCCESS;
	cuStreamDestroy(s);
	cuModuleUnload(mod);
	printf("dlclose_launch: %s\n", err ? "FAILED" : "ok");
	return err;
}
