// SPDX-License-Identifier: Apache-2.0
/* Test injection library: proves InitializeInjection is called once and CUPTI records join up. */

/*
 * Loaded by the simulated libcuda through CUDA_INJECTION64_PATH. Each call of
 * InitializeInjection appends a line to $GPSIM_PROBE_OUT; it then acts as a
 * minimal CUPTI client (SYSTEM thread ids, RUNTIME + DRIVER +
 * CONCURRENT_KERNEL activity) and at exit writes how many kernel records
 * arrived and how many of them joined an API record by correlation id.
 */

#include <cupti.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_IDS 65536

static struct {
	pthread_mutex_t lock;
	uint32_t api_ids[MAX_IDS], kernel_ids[MAX_IDS];
	size_t napi, nkernel;
	int init_calls;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

int InitializeInjection(void);

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max)
{
	*size = 64 * 1024;
	*buffer = aligned_alloc(8, *size);
	*max = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	CUpti_Activity *r = NULL;

	pthread_mutex_lock(&P.lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && P.nkernel < MAX_IDS)
			P.kernel_ids[P.nkernel++] = ((CUpti_ActivityKernel10 *)(void *)r)->correlationId;
		else if ((r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
			  r->kind == CUPTI_ACTIVITY_KIND_DRIVER) &&
			 P.napi < MAX_IDS)
			P.api_ids[P.napi++] = ((CUpti_ActivityAPI *)(void *)r)->correlationId;
	}
	pthread_mutex_unlock(&P.lock);
	free(buffer);
}

static void at_exit(void)
{
	const char *out = getenv("GPSIM_PROBE_OUT");
	size_t i, j, matched = 0;
	size_t dropped = 0;
	FILE *f;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
	pthread_mutex_lock(&P.lock);
	for (i = 0; i < P.nkernel; i++)
		for (j = 0; j < P.napi; j++)
			if (P.api_ids[j] == P.kernel_ids[i]) {
				matched++;
				break;
			}
	if (out && (f = fopen(out, "a"))) {
		fprintf(f, "kernels=%zu matched=%zu api=%zu dropped=%zu\n", P.nkernel, matched,
			P.napi, dropped);
		fclose(f);
	}
	pthread_mutex_unlock(&P.lock);
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	const char *out = getenv("GPSIM_PROBE_OUT");
	FILE *f;

	if (out && (f = fopen(out, "a"))) {
		fprintf(f, "InitializeInjection pid=%d tid=%ld\n", (int)getpid(),
			(long)syscall(SYS_gettid));
		fclose(f);
	}
	if (P.init_calls++)
		return 1;
	cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS)
		return 0;
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	atexit(at_exit);
	return 1;
}
