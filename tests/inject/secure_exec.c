// SPDX-License-Identifier: Apache-2.0
/* A CUDA driver-API program for the setuid test: the simulated libcuda loads CUDA_INJECTION64_PATH in cuInit, as the driver does. */

/*
 * The test makes a root-owned setuid copy and runs it as nobody, so the
 * injection library starts in a secure-execution process. Prints
 * "secure=S euid=E" (the test checks that the setuid bit took effect), then
 * "cuInit=R"; exits 0 when cuInit succeeded. Linked with an absolute
 * RUNPATH to the simulator: the loader ignores LD_LIBRARY_PATH here.
 */
#include <cuda.h>

#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

int main(void)
{
	CUresult r;

	printf("secure=%lu euid=%u\n", getauxval(AT_SECURE), (unsigned)geteuid());
	fflush(stdout);
	r = cuInit(0);
	printf("cuInit=%d\n", (int)r);
	return r == CUDA_SUCCESS ? 0 : 1;
}
