/* SPDX-License-Identifier: Apache-2.0 */
/*
 * act_buf.h - the bounded pool of CUPTI activity buffers and the queue of
 * completed ones.
 *
 * All buffers are carved out of one anonymous mapping made at start-up, so
 * bufferRequested never allocates and memory stays bounded by
 * size * count however many records the program produces (pages are only
 * resident once CUPTI has written to them; free buffers are reused LIFO, so
 * a program that CUPTI keeps up with touches one or two).
 *
 * `count` is sized for bursts (CUPTI hands over a backlog at once, or the
 * writer is descheduled for a while): declining a buffer loses records
 * (with 8 buffers a launch-bound loop on a busy machine lost a third of
 * its records; the default reserves 64 MiB, inject_config.c). So
 * that a burst does not leave its memory resident for the rest of the run,
 * the writer gives back to the kernel (MADV_DONTNEED) each buffer that falls
 * below the `keep` most recently freed ones: in steady state at most
 * `keep` free buffers stay resident.
 *
 * Threads: requested()/completed() run on CUPTI's threads, take()/put() on
 * the writer thread. They share one mutex, held for a few instructions and
 * never across a CUPTI call, so neither side can deadlock the other. When
 * the pool is empty, requested() declines (CUPTI then drops and counts the
 * records) and the decline is counted here.
 */
#ifndef GPUPERF_ACT_BUF_H
#define GPUPERF_ACT_BUF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct act_buf_done {
	uint8_t *buf;
	size_t valid;	 /* bytes of records CUPTI wrote */
	uint32_t stream; /* CUPTI's streamId argument (0 for the global queue) */
};

struct act_buf {
	pthread_mutex_t lock;
	uint8_t *mem;		 /* count * size bytes */
	size_t size;
	unsigned count;
	uint8_t **free;		 /* stack of free buffers */
	unsigned nfree;
	unsigned keep;		 /* free buffers at the top of the stack kept resident */
	uint8_t *resident;	 /* per buffer: written since its pages were last released */
	struct act_buf_done *done; /* ring of completed buffers */
	unsigned head, ndone;
	int wake_fd;		 /* eventfd written when a buffer completes; -1: none */
	atomic_uint_fast64_t declined;
	atomic_uint_fast64_t completed_total;
};

/* 0 or -errno. `size` must be a multiple of 8; keep <= count (see above). */
int act_buf__init(struct act_buf *p, size_t size, unsigned count, unsigned keep, int wake_fd);
/* Unmap everything. The pool must no longer be registered with CUPTI. */
void act_buf__release(struct act_buf *p);

/* CUPTI bufferRequested: a free buffer, or NULL/0 (a counted decline). */
void act_buf__requested(struct act_buf *p, uint8_t **buffer, size_t *size, size_t *max_records);
/* CUPTI bufferCompleted: queue the buffer for the writer and wake it. */
void act_buf__completed(struct act_buf *p, uint8_t *buffer, size_t valid, uint32_t stream);

/*
 * Writer side: the oldest completed buffer (1) or none (0). *waiting (when
 * not NULL): how many more completed buffers are queued behind it.
 */
int act_buf__take(struct act_buf *p, struct act_buf_done *out, unsigned *waiting);
/*
 * Writer side: give a buffer back once its records are converted; may
 * release the pages of an older free buffer (a syscall, outside the lock).
 */
void act_buf__put(struct act_buf *p, uint8_t *buffer);
/*
 * Whether the writer should store its chunks uncompressed (gp_writer__set_stored)
 * while converting a buffer with `waiting` more queued behind it: from
 * ACT_BUF_BEHIND waiting on, until none waits. Compressing is a third of
 * the writer's CPU per record; a writer that has fallen behind (no idle
 * core, a launch-bound program) catches up sooner instead of holding a
 * growing backlog of buffers resident until the pool runs out.
 */
#define ACT_BUF_BEHIND 2u
static inline int act_buf__behind(int was_behind, unsigned waiting)
{
	return waiting >= ACT_BUF_BEHIND || (was_behind && waiting > 0);
}

/* Declined requests since the previous call. */
uint64_t act_buf__take_declined(struct act_buf *p);

#endif /* GPUPERF_ACT_BUF_H */
