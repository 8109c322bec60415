/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_thread.h - the writer thread: drains completed CUPTI buffers,
 * converts their records and writes them to $GPUPERF_DIR/gpu-<pid>.trace
 * (gpu-<pid>.<n>.trace for the n-th later image of the pid, after exec).
 *
 * Every flush period it also asks CUPTI for the records it holds
 * (cuptiActivityFlushAll(0)), writes drop counters and a clock pair and
 * pushes the current chunk to disk, which bounds what a SIGKILL or crash
 * can lose to one period. Stopping flushes CUPTI (completed records, then
 * forced), writes the last records and GP_REC_END and closes the file.
 *
 * Threads: the writer (gp_writer) is touched only by the writer thread,
 * except before it starts (__open) and after it has finished (__stop, the
 * fork child). __sync may be called from any application thread;
 * __stop_async and __wait_finished only touch atomics, an eventfd and
 * nanosleep, so they are async-signal-safe.
 */
#ifndef GPUPERF_TRACE_THREAD_H
#define GPUPERF_TRACE_THREAD_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "act_parse.h"

struct act_buf;
struct gp_writer;
struct launch_stack;
struct vmm_mem;

struct trace_thread_opts {
	const char *dir;
	uint32_t flush_ms;
	int zlevel;	   /* deflate level 1..9; 0: chunks stored uncompressed */
	int nice;	   /* the writer thread's nice value (0: the process's) */
	uint16_t clock_id; /* GP_CLOCK_*: what CUPTI's timestamps are in */
};

struct trace_thread {
	struct gp_writer *w;
	struct act_buf *pool;
	struct launch_stack *ls; /* launch stacks to write, or NULL (GPUPERF_STACKS=0) */
	struct graph_mem *gm;	 /* graph memory nodes by address, or NULL */
	struct vmm_mem *vm;	 /* virtual memory's allocations and frees, or NULL */
	int efd;		/* eventfd: buffers completed, sync or stop requested */
	uint32_t pid;
	uint32_t flush_ms;
	int nice;
	int cupti_ok;		/* 0 in a fork child: CUPTI belongs to the parent */
	pthread_t thread;
	int running;
	pthread_mutex_t lock;	/* guards sync_req/sync_done only */
	pthread_cond_t cond;
	uint64_t sync_req, sync_done;
	atomic_int stop;
	atomic_int finished;
	struct act_parse_stats st;
	int behind;		/* a backlog of buffers: chunks stored uncompressed (act_buf.h) */
	int uncompressed;	/* GPUPERF_ZLEVEL=0: every chunk stored uncompressed */
	unsigned max_waiting;	/* the longest backlog seen (debug log) */
	unsigned image;		/* n of gpu-<pid>.<n>.trace: earlier images of the pid; 0: the first */
	char path[PATH_MAX];
};

/*
 * Create gpu-<pid>.trace in o->dir, or the first free gpu-<pid>.<n>.trace
 * (O_EXCL, O_NOFOLLOW: an existing file is never replaced), and write the
 * opening records (process: INFO, EXEC for a later image; clock pair). `pool` is drained by the thread. 0 or -errno (t->path names
 * the file for the caller's message).
 */
int trace_thread__open(struct trace_thread *t, const struct trace_thread_opts *o,
		       struct act_buf *pool);
/* The eventfd the pool wakes the thread with. */
static inline int trace_thread__wake_fd(const struct trace_thread *t)
{
	return t->efd;
}
/* Start the thread (all catchable signals blocked in it). 0 or -errno. */
int trace_thread__start(struct trace_thread *t);
/*
 * Have the thread write everything CUPTI has delivered so far to disk;
 * wait up to timeout_ms. 0, or -ETIMEDOUT.
 */
int trace_thread__sync(struct trace_thread *t, unsigned timeout_ms);
/* Final flush, GP_REC_END, close, join. Idempotent. */
void trace_thread__stop(struct trace_thread *t);
/* Async-signal-safe: ask the thread to finish the trace; returns at once. */
void trace_thread__stop_async(struct trace_thread *t);
/* Async-signal-safe: wait until the trace is closed. 1 when it is, 0 on timeout. */
int trace_thread__wait_finished(struct trace_thread *t, unsigned timeout_ms);

/*
 * In the child of fork(): drop the parent's writer without writing to its
 * file, open gpu-<childpid>.trace with a fork record. No thread runs in the
 * child and CUPTI is not called there.
 */
void trace_thread__fork_child(struct trace_thread *t, const struct trace_thread_opts *o,
			      uint32_t ppid);
/* In a fork child: close its trace (GP_REC_END). */
void trace_thread__child_close(struct trace_thread *t);

#endif /* GPUPERF_TRACE_THREAD_H */
