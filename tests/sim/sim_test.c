// SPDX-License-Identifier: Apache-2.0
/* The CUPTI activity client the simulator's tests share (sim_test.h). */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim_test.h"

struct sim_recs sim_recs = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .hold_cond = PTHREAD_COND_INITIALIZER,
			     .bufsize = 1 << 20 };

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max)
{
	size_t want;
	int decline;

	pthread_mutex_lock(&sim_recs.lock);
	sim_recs.requested++;
	sim_recs.req_tid = tid();
	decline = sim_recs.decline;
	want = sim_recs.bufsize;
	pthread_mutex_unlock(&sim_recs.lock);
	*max = 0;
	*buffer = decline ? NULL : aligned_alloc(8, want);
	*size = *buffer ? want : 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				   size_t valid)
{
	CUpti_Activity *r = NULL;

	pthread_mutex_lock(&sim_recs.lock);
	if (sim_recs.hold) {
		sim_recs.held = 1;
		pthread_cond_broadcast(&sim_recs.hold_cond);
		while (sim_recs.hold)
			pthread_cond_wait(&sim_recs.hold_cond, &sim_recs.lock);
	}
	sim_recs.completed++;
	sim_recs.comp_tid = tid();
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
		size_t n = valid - (size_t)((uint8_t *)r - buffer);

		if (sim_recs.nrecs < SIM_RECS_MAX)
			memcpy(sim_recs.recs[sim_recs.nrecs++], r,
			       n < SIM_REC_SIZE ? n : SIM_REC_SIZE);
		sim_recs.nseen++;
	}
	pthread_mutex_unlock(&sim_recs.lock);
	free(buffer);
}

void sim_recs_reset(void)
{
	pthread_mutex_lock(&sim_recs.lock);
	sim_recs.nrecs = sim_recs.nseen = 0;
	sim_recs.requested = sim_recs.completed = 0;
	sim_recs.hold = sim_recs.held = 0;
	sim_recs.decline = 0;
	sim_recs.bufsize = 1 << 20;
	pthread_mutex_unlock(&sim_recs.lock);
}

void sim_recs_start(const CUpti_ActivityKind *kinds, size_t n)
{
	size_t i;

	sim_recs_reset();
	assert_int_equal(cuptiActivityRegisterCallbacks(buf_requested, buf_completed),
			 CUPTI_SUCCESS);
	for (i = 0; i < n; i++)
		assert_int_equal(cuptiActivityEnable(kinds[i]), CUPTI_SUCCESS);
}

const unsigned char *sim_recs_find(CUpti_ActivityKind kind, size_t nth)
{
	size_t i;

	for (i = 0; i < sim_recs.nrecs; i++) {
		CUpti_Activity a;

		memcpy(&a, sim_recs.recs[i], sizeof(a));
		if (a.kind == kind && nth-- == 0)
			return sim_recs.recs[i];
	}
	return NULL;
}

size_t sim_recs_count(CUpti_ActivityKind kind)
{
	size_t n = 0;

	while (sim_recs_find(kind, n))
		n++;
	return n;
}

const CUpti_ActivityAPI *sim_recs_api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, size_t nth)
{
	const CUpti_ActivityAPI *a;
	size_t i;

	for (i = 0; (a = (const void *)sim_recs_find(kind, i)); i++)
		if (a->cbid == cbid && nth-- == 0)
			return a;
	return NULL;
}
