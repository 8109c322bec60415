/* SPDX-License-Identifier: Apache-2.0 */
/* offcpu_prog: load and attach bpf/offcpu.bpf.c (sched_switch spans), drain its events. */
#ifndef GPUPERF_CPU_AGENT_OFFCPU_PROG_H
#define GPUPERF_CPU_AGENT_OFFCPU_PROG_H

#include <stdbool.h>
#include <stdint.h>

struct offcpu_prog;
struct offcpu_event; /* bpf/offcpu.h */

/* Called on the polling thread per span; @ev is valid only during the call. */
typedef int (*offcpu_event_fn)(void *ctx, const struct offcpu_event *ev);

struct offcpu_opts {
	uint32_t min_block_us;	/* spans shorter than this are dropped in the kernel; 0: 1000 */
	bool no_user;
	bool no_kernel;
	int tgids_fd;		/* proc_track_prog__tgids_fd(); < 0: every thread of the machine */
	uint32_t tgids_max;
	uint32_t ringbuf_bytes;	/* power of 2; 0: 4 MiB */
	bool force_raw_tp;
	offcpu_event_fn on_event; /* required */
	void *ctx;
};

struct offcpu_stats {
	uint64_t lost_events;	/* ring buffer full */
	uint64_t stack_errors;
};

struct offcpu_prog *offcpu_prog__new(const struct offcpu_opts *opts);
int offcpu_prog__attach(struct offcpu_prog *p);
void offcpu_prog__detach(struct offcpu_prog *p);
int offcpu_prog__consume(struct offcpu_prog *p);
int offcpu_prog__epoll_fd(const struct offcpu_prog *p);
bool offcpu_prog__uses_tp_btf(const struct offcpu_prog *p);
void offcpu_prog__stats(const struct offcpu_prog *p, struct offcpu_stats *st);
void offcpu_prog__free(struct offcpu_prog *p);

#endif /* GPUPERF_CPU_AGENT_OFFCPU_PROG_H */
