/* SPDX-License-Identifier: Apache-2.0 */
/* The CUPTI activity client the simulator's tests share: every record delivered, kept in memory. */
#ifndef GPSIM_SIM_TEST_H
#define GPSIM_SIM_TEST_H

/*
 * A test enables kinds with sim_recs_start() and reads what was delivered
 * (after cuptiActivityFlushAll) with sim_recs_find() and friends, or
 * through sim_recs directly. Records are copied as delivered, each cut to
 * SIM_REC_SIZE bytes (more than any record kind the simulator writes);
 * past SIM_RECS_MAX they are only counted (nseen). Buffers are requested
 * and completed on CUPTI's worker thread: every field is under lock.
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cupti.h>

#define SIM_RECS_MAX 4096
#define SIM_REC_SIZE 512

struct sim_recs {
	pthread_mutex_t lock;
	unsigned char recs[SIM_RECS_MAX][SIM_REC_SIZE];
	size_t nrecs;
	size_t nseen; /* records delivered, all of them */
	/* buffers: how many were asked for and handed back, and on which thread */
	int requested, completed;
	pid_t req_tid, comp_tid;
	/* knobs: decline buffers (NULL), their size */
	int decline;
	size_t bufsize;
	/* hold: the next bufferCompleted waits (held = 1) until hold is cleared */
	pthread_cond_t hold_cond;
	int hold, held;
};

extern struct sim_recs sim_recs;

/* Forgets every record and resets the knobs (1 MiB buffers, none declined). */
void sim_recs_reset(void);
/* sim_recs_reset(), registers the buffer callbacks and enables kinds[0..n) (cmocka asserts). */
void sim_recs_start(const CUpti_ActivityKind *kinds, size_t n);
/* The nth record of kind (0-based), or NULL. */
const unsigned char *sim_recs_find(CUpti_ActivityKind kind, size_t nth);
size_t sim_recs_count(CUpti_ActivityKind kind);
/* The nth API record of kind (RUNTIME or DRIVER) with callback id cbid, or NULL. */
const CUpti_ActivityAPI *sim_recs_api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, size_t nth);

#endif /* GPSIM_SIM_TEST_H */
