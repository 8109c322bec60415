/* SPDX-License-Identifier: Apache-2.0 */
/* cpu_sample_prog: load bpf/cpu_sample.bpf.c, attach it to per-CPU perf events, drain its samples. */
#ifndef GPUPERF_CPU_AGENT_CPU_SAMPLE_PROG_H
#define GPUPERF_CPU_AGENT_CPU_SAMPLE_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "task_filter_prog.h"

struct cpu_sample_prog;
struct cpu_sample_event; /* bpf/cpu_sample.h */

/*
 * Called on the polling thread once per sample; @ev (and its nr_user +
 * nr_kernel addresses) is valid only during the call. Return 0 or -errno to
 * stop the poll with that value.
 */
typedef int (*cpu_sample_event_fn)(void *ctx, const struct cpu_sample_event *ev);
struct cpu_sample_copy_event;
/* With user_copy: a user thread's sample, its registers and stack copy (valid during the call). */
typedef int (*cpu_sample_copy_fn)(void *ctx, const struct cpu_sample_copy_event *ev);

struct cpu_sample_opts {
	uint32_t freq_hz;	/* per CPU; 0: 99 */
	bool no_user;		/* drop user stacks */
	bool no_kernel;		/* drop kernel stacks */
	/* which threads; filter.cpus: perf events only on these CPUs (NULL/0: every online CPU) */
	struct task_filter_opts filter;
	uint32_t ringbuf_bytes;	/* power of 2; 0: 4 MiB */
	bool force_sw_clock;	/* see perf_event_set_opts */
	cpu_sample_event_fn on_event; /* required */
	/*
	 * Set: user threads' samples carry their registers and the top of
	 * their stack (bpf/cpu_sample.h) to on_copy, for unwinding with CFI,
	 * instead of a frame-pointer walk to on_event.
	 */
	cpu_sample_copy_fn on_copy;
	void *ctx;
};

struct cpu_sample_stats {
	uint64_t lost_events;	/* ring buffer full */
	uint64_t stack_errors;	/* a user stack could not be read */
};

/* Open, configure and load. NULL + errno (EPERM, EOPNOTSUPP, EINVAL, libbpf's). */
struct cpu_sample_prog *cpu_sample_prog__new(const struct cpu_sample_opts *opts);
/*
 * The same in two steps, on the agent's one object (agent_bpf.h): configure
 * @skel, not loaded yet (NULL and errno on bad options), then, once the
 * caller has loaded it, take over (0 or -errno). The caller destroys @skel
 * after cpu_sample_prog__free().
 */
struct agent_bpf;
struct cpu_sample_prog *cpu_sample_prog__prepare(struct agent_bpf *skel,
						 const struct cpu_sample_opts *opts);
int cpu_sample_prog__loaded(struct cpu_sample_prog *p);
/*
 * Open the perf events and attach. -errno, with nothing left attached, on
 * failure: -EPERM/-EACCES without CAP_PERFMON, -EINVAL for a frequency above
 * kernel.perf_event_max_sample_rate.
 */
int cpu_sample_prog__attach(struct cpu_sample_prog *p);
/* Detach and close the perf events (the ring buffer can still be drained). */
void cpu_sample_prog__detach(struct cpu_sample_prog *p);
int cpu_sample_prog__poll(struct cpu_sample_prog *p, int timeout_ms);
int cpu_sample_prog__consume(struct cpu_sample_prog *p);
int cpu_sample_prog__epoll_fd(const struct cpu_sample_prog *p);
/* true when the software CPU clock is sampled (no hardware PMU); valid after attach. */
bool cpu_sample_prog__uses_sw_clock(const struct cpu_sample_prog *p);
uint32_t cpu_sample_prog__freq(const struct cpu_sample_prog *p);
void cpu_sample_prog__stats(const struct cpu_sample_prog *p, struct cpu_sample_stats *st);
void cpu_sample_prog__free(struct cpu_sample_prog *p);

#endif /* GPUPERF_CPU_AGENT_CPU_SAMPLE_PROG_H */
