/* SPDX-License-Identifier: Apache-2.0 */
/* cpu_sample: the on-CPU sample record shared by cpu_sample.bpf.c and its loader. */
#ifndef GPUPERF_BPF_CPU_SAMPLE_H
#define GPUPERF_BPF_CPU_SAMPLE_H

#include "stack_event.h"

/* cpu_sample_event.flags */
#define CPU_SAMPLE_USER_ERR	0x1	/* the user stack could not be read */
#define CPU_SAMPLE_KERN_ERR	0x2	/* the kernel stack could not be read */

/* One perf-event sample of a followed thread; sent cut after ips[nr_user + nr_kernel - 1]. */
struct cpu_sample_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 cpu;
	__u16 nr_user;
	__u16 nr_kernel;
	__u32 flags;		/* CPU_SAMPLE_* */
	__u32 pad;
	__u64 ips[GP_BPF_STACK_SLOTS];
};

_Static_assert(sizeof(struct cpu_sample_event) == 32 + 8 * GP_BPF_STACK_SLOTS,
	       "cpu_sample_event layout changed");

/* cpu_sample_event.flags: a cpu_sample_copy_event (rodata user_copy) */
#define CPU_SAMPLE_COPY		0x4

/* cpu_sample_copy_event.stack_flags */
#define CPU_SAMPLE_STACK_CUT	0x1	/* the copy stopped at its size limit, not at an unreadable page */
#define CPU_SAMPLE_NO_REGS	0x2	/* no user registers (a kernel thread, an exiting task) */

/*
 * With user_copy, a sample of a user thread carries, instead of user
 * addresses, the thread's user registers and a copy of its stack from rsp
 * up, for the agent to unwind with CFI (unwind/remote.h). Sent cut after
 * stack[stack_len - 1]; the kernel stack has fixed room (kips).
 */
struct cpu_sample_copy_event {
	__u64 ts_ns;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u16 nr_user;		/* 0 */
	__u16 nr_kernel;	/* addresses in kips */
	__u32 flags;		/* CPU_SAMPLE_COPY | CPU_SAMPLE_* */
	__u32 pad;
	__u64 rip, rsp, rbp;	/* user registers */
	__u64 rbx;		/* too: ld.so's lazy-binding trampoline keeps its CFA in it */
	__u32 stack_len;	/* bytes in stack[] */
	__u32 stack_flags;	/* CPU_SAMPLE_STACK_* */
	__u64 kips[GP_BPF_STACK_DEPTH + 1];
	__u8 stack[GP_BPF_USTACK_MAX];
};

_Static_assert(__builtin_offsetof(struct cpu_sample_copy_event, stack) ==
		   72 + 8 * (GP_BPF_STACK_DEPTH + 1),
	       "cpu_sample_copy_event layout changed");

#endif /* GPUPERF_BPF_CPU_SAMPLE_H */
