/* SPDX-License-Identifier: Apache-2.0 */
/* offcpu_prog: load and attach bpf/offcpu.bpf.c (sched_switch spans), drain its events. */
#ifndef GPUPERF_CPU_AGENT_OFFCPU_PROG_H
#define GPUPERF_CPU_AGENT_OFFCPU_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "task_filter_prog.h"

struct offcpu_prog;
struct offcpu_event; /* bpf/offcpu.h */
struct offcpu_short; /* bpf/offcpu.h */

/* Called on the polling thread per span; @ev is valid only during the call. */
typedef int (*offcpu_event_fn)(void *ctx, const struct offcpu_event *ev);
struct offcpu_copy_event; /* bpf/offcpu.h */
/* With on_copy: a span with its user registers and stack copy (valid during the call). */
typedef int (*offcpu_copy_fn)(void *ctx, const struct offcpu_copy_event *ev);

struct offcpu_opts {
	uint32_t min_block_us;	/* shorter spans are only summed per thread; 0: 1000 */
	uint32_t max_block_us;	/* longer spans are dropped (not summed); 0: no limit */
	bool no_short_sum;	/* do not sum the short spans (oc_short) */
	bool no_user;
	bool no_kernel;
	/* which threads; filter.cpus: only switch-outs on these CPUs (NULL/0: all) */
	struct task_filter_opts filter;
	uint32_t max_short;	/* threads whose short spans are summed; 0: 16384 */
	uint32_t ringbuf_bytes;	/* power of 2; 0: 4 MiB */
	bool force_raw_tp;
	bool force_no_iters;	/* load without the task iterators (tests of the fallback) */
	uint8_t fault;		/* tests only: OFFCPU_FAULT_* (bpf/offcpu.h) */
	uint32_t fault_every;	/* one in this many, at random */
	offcpu_event_fn on_event; /* required */
	/*
	 * Set: spans' user stacks come as registers + a stack copy (bpf/offcpu.h)
	 * to on_copy, for unwinding with CFI, instead of a frame-pointer walk;
	 * preempted threads' spans get one too, taken as they switch out, and
	 * blocks in progress at stop (__for_each_open), read from the
	 * blocked thread's memory.
	 */
	offcpu_copy_fn on_copy;
	void *ctx;
};

struct offcpu_stats {
	uint64_t lost_events;	/* ring buffer full */
	uint64_t stack_errors;
	uint64_t short_lost;	/* short spans not summed: the per-thread map was full */
	uint64_t ustack_lost;	/* with on_copy: preempted spans sent without user stack */
	uint64_t missed_switch_ins; /* switch-ins the tracepoint did not show, repaired */
	uint64_t missed_switch_outs; /* switch-outs the tracepoint did not show: blocks lost */
	uint64_t prog_misses;	/* runs of the switch, wake-up and sys_exit programs the kernel skipped */
};

/* One thread's sum of short spans; return 0 to go on. */
typedef int (*offcpu_short_fn)(void *ctx, const struct offcpu_short *s);

struct offcpu_prog *offcpu_prog__new(const struct offcpu_opts *opts);
/*
 * The same in two steps, on the agent's one object (agent_bpf.h): configure
 * @skel, not loaded yet, with the tp_btf programs or their raw_tp twins and
 * with or without the task iterators (NULL and errno on bad options); once
 * the caller has loaded it, take over (0 or -errno). The caller destroys
 * @skel after offcpu_prog__free().
 */
struct agent_bpf;
struct offcpu_prog *offcpu_prog__prepare(struct agent_bpf *skel, const struct offcpu_opts *opts,
					 bool tp_btf, bool iters);
int offcpu_prog__loaded(struct offcpu_prog *p);
int offcpu_prog__attach(struct offcpu_prog *p);
void offcpu_prog__detach(struct offcpu_prog *p);
int offcpu_prog__consume(struct offcpu_prog *p);
int offcpu_prog__epoll_fd(const struct offcpu_prog *p);
bool offcpu_prog__uses_tp_btf(const struct offcpu_prog *p);
/* Were the task iterators (blocks in progress at start and stop) loaded? */
bool offcpu_prog__has_iters(const struct offcpu_prog *p);
/* Whether __for_each_open loaded its iterator (and so could read blocks in progress). */
bool offcpu_prog__open_loaded(const struct offcpu_prog *p);
void offcpu_prog__stats(const struct offcpu_prog *p, struct offcpu_stats *st);
/*
 * Call @fn for every thread's sum of spans shorter than min_block_us (read
 * it after detaching, for final sums). 0 or the first error.
 */
int offcpu_prog__for_each_short(struct offcpu_prog *p, offcpu_short_fn fn, void *ctx);
/*
 * Right after __attach, when following processes that already run: each
 * followed thread that is switched out now (blocked, or runnable but not
 * running) is treated as if it had switched out now, so the span of that
 * block, from now on, is written when it switches in (or by
 * __for_each_open). 0, or -EOPNOTSUPP without task iterators.
 */
int offcpu_prog__seed(struct offcpu_prog *p);
/*
 * After __detach: the blocks still in progress, as spans ending at @end_ns
 * (bpf_ktime_get_ns() when the switch programs were detached) with the
 * blocked thread's user and kernel stacks and OFFCPU_OPEN in flags (with
 * opts.on_copy, to @on_copy, its user registers and stack copied instead
 * of walked); spans still waiting for their user stack, without it, to
 * @on_span; and each thread's blocks below min_block_us that were not yet
 * in the per-thread map, to @on_short (optional). The iterator that reads
 * them is loaded by the first call (not at __new: it is the costliest
 * program to verify). 0, the first callback error, -EOPNOTSUPP without
 * task iterators, or the iterator's load error.
 */
int offcpu_prog__for_each_open(struct offcpu_prog *p, uint64_t end_ns, offcpu_event_fn on_span,
			       offcpu_copy_fn on_copy, offcpu_short_fn on_short, void *ctx);
void offcpu_prog__free(struct offcpu_prog *p);

#endif /* GPUPERF_CPU_AGENT_OFFCPU_PROG_H */
