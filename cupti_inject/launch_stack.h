/* SPDX-License-Identifier: Apache-2.0 */
/*
 * launch_stack.h - the stack of every call that issues GPU work, taken on
 * the launching thread in CUPTI's API-enter callback, and written as
 * (correlation id -> stack id) by the writer thread.
 *
 * Launch path (launch_stack__enter, on the application's thread): walk the
 * stack with the CFI unwinder (launch_stack__capture, unwind.h), drop the frames of CUPTI, the driver, the
 * runtime and this library but the outermost of them (readers skip frame
 * 0, the CUDA entry point, as they do for the CPU agent's launch stacks),
 * hash the frames and append (correlation id, hash, frames) to the
 * thread's own ring: a single-producer, single-consumer array in memory
 * mapped at start-up. Frames a thread already handed over (a small cache
 * per thread, by hash) are not copied again: a program launches from a few
 * places millions of times. No malloc, lock or system call there, except:
 * a thread's first launch claims a ring (an atomic exchange) and reads its
 * stack bounds (pthread_getattr_np, which allocates once); a ring a quarter
 * full wakes the writer (one eventfd write per quarter). A full ring, a
 * thread past the last ring, or a thread that has begun to exit loses the
 * call's stack, counted (GP_DROP_STACK) and never waited for. A walk that
 * meets code loaded since the unwinder's last refresh (a dlopen) keeps the
 * stack as far as it got (flagged truncated) and wakes the writer, which
 * refreshes the tables and records the new module while it is mapped.
 *
 * A driver call made inside a runtime call (cuLaunchKernel in
 * cudaLaunchKernel) is not walked again. Real CUPTI gives it the runtime
 * call's correlation id (seen with CUDA 13.0, driver 580): its record is
 * the runtime call's, and nothing more is written. Where it has an id of
 * its own (the header's "each function invocation is assigned a unique
 * correlation ID"), it gets the runtime call's stack under that id,
 * flagged GP_API_STACK_NESTED: GPU records join exactly either way.
 *
 * Writer side (launch_stack__drain, __modules, __counters, on the writer
 * thread only): read each ring, keep every distinct stack by hash, write a
 * GP_REC_API_STACK per call (its GP_REC_STACK once per chunk, through
 * gp_writer__intern_stack), and a GP_REC_MODULE for every executable
 * mapping of the process when the loader's module list changes, so the
 * merger symbolizes the frames as it does the CPU agent's.
 */
#ifndef GPUPERF_LAUNCH_STACK_H
#define GPUPERF_LAUNCH_STACK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct gp_unwind;
struct gp_writer;
struct ls_ring;
struct ls_map;

/* CUDA libraries and this one: their frames are not the application's. */
#define LS_SKIP_MAX 16

struct dl_scan;

struct launch_stack {
	/* shared with the launching threads (set before any callback) */
	struct ls_ring *rings;
	unsigned nrings;
	size_t map_bytes;
	pthread_key_t key;
	int wake_fd;
	int fp_only;			/* GPUPERF_STACKS_FP */
	struct gp_unwind *unw;		/* CFI tables; NULL: frame pointers only */
	struct {
		uintptr_t lo, hi;
	} skip[LS_SKIP_MAX];
	unsigned nskip;
	_Atomic uint64_t no_ring;	/* calls of threads that found no free ring */
	_Atomic int refresh_wanted;	/* a walk met code the tables do not cover: the writer was woken */

	/* the writer thread's */
	struct ls_map *map;		/* hash -> frames, every distinct stack */
	uint64_t lost_full, lost_no_ring, lost_unknown;
	uint64_t written, truncated;
	unsigned long long dl_adds, dl_subs;
	int dl_seen;
	struct ls_mod *mods;		/* executable mappings written */
	size_t nmods, cap_mods;
	/*
	 * The loader's list as last scanned: kept here, not on the writer's
	 * stack, so a fork() in the middle of a scan leaves the child nothing
	 * it cannot reach.
	 */
	struct dl_scan *scan;
};

/* Map the rings, create the thread key, note the CUDA libraries' ranges. 0 or -errno. */
int launch_stack__init(struct launch_stack *ls, int wake_fd, int fp_only);
/* After the writer thread has stopped and no callback can run. */
void launch_stack__release(struct launch_stack *ls);

/*
 * CUPTI API-enter callback of a call that issues GPU work, on its thread.
 * runtime: 1 for the runtime domain. Async-signal-safe apart from a
 * thread's first call.
 */
void launch_stack__enter(struct launch_stack *ls, int runtime, uint32_t corr);
/* API-exit of a runtime call entered through launch_stack__enter. */
void launch_stack__exit_runtime(void);

/*
 * The one place a launch stack is taken: at most `max` return addresses of
 * the caller's callers, innermost first, into pcs. Returns how many; *end
 * is 0 when the walk reached the outermost frame, else nonzero (it stopped
 * at a frame it could not read or at `max`). Never faults.
 */
int launch_stack__capture(struct launch_stack *ls, uint64_t *pcs, int max, int *end);

/* Writer thread: write what the rings hold. */
void launch_stack__drain(struct launch_stack *ls, struct gp_writer *w);
/* Writer thread: module records for mappings not written yet, when the loader's list changed. */
void launch_stack__modules(struct launch_stack *ls, struct gp_writer *w, uint64_t ts);
/* Writer thread: distinct stacks seen so far. */
size_t launch_stack__nr_stacks(const struct launch_stack *ls);
/* Writer thread: GP_REC_DROPPED for the stacks lost since the last call. */
void launch_stack__counters(struct launch_stack *ls, struct gp_writer *w, uint64_t ts);

#endif /* GPUPERF_LAUNCH_STACK_H */
