// SPDX-License-Identifier: Apache-2.0
// Checked driver-API calls for the samples that use libcuda directly.
#ifndef GPUPERF_SAMPLE_DRV_H
#define GPUPERF_SAMPLE_DRV_H

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

// A failed driver call prints the call and the driver's error string, and exits 1.
#define CU_CHECK(call)                                                                     \
	do {                                                                               \
		CUresult cu_err_ = (call);                                                 \
		if (cu_err_ != CUDA_SUCCESS) {                                             \
			const char *cu_msg_ = NULL;                                        \
			if (cuGetErrorString(cu_err_, &cu_msg_) != CUDA_SUCCESS)           \
				cu_msg_ = "unknown error";                                 \
			fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, \
				#call, cu_msg_, (int)cu_err_);                             \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

#endif
