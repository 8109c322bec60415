/* SPDX-License-Identifier: Apache-2.0 */
/* offcpu: the off-CPU span record shared by offcpu.bpf.c and its loader. */
#ifndef GPUPERF_BPF_OFFCPU_H
#define GPUPERF_BPF_OFFCPU_H

#include "stack_event.h"

/* offcpu_event.flags */
#define OFFCPU_NO_USER_STACK	0x1	/* no user stack (preempted, or not wanted) */
#define OFFCPU_USER_ERR		0x2	/* the user stack could not be read */
#define OFFCPU_OPEN		0x4	/* still blocked at stop: end_ns is when tracing stopped */
/*
 * Only from the oc_open iterator: not a span but blocks of one thread shorter
 * than min_block_us, not yet in oc_short: start_ns is the first one's
 * switch-out, end_ns - start_ns their sum, state their number. No stack.
 */
#define OFFCPU_SHORT_SUM	0x8
/* an offcpu_copy_event (rodata user_copy): user registers and stack copy, no user addresses */
#define OFFCPU_COPY		0x10

/*
 * A followed thread was switched out at start_ns and back in at end_ns,
 * blocked at least min_block_us. Sent cut after ips[nr_user + nr_kernel - 1].
 */
struct offcpu_event {
	__u64 start_ns;		/* bpf_ktime_get_ns() at switch-out */
	__u64 end_ns;		/* at switch-in */
	__u32 pid;
	__u32 tid;
	__u32 waker_pid;	/* 0 when unknown */
	__u32 waker_tid;
	__u32 cpu;		/* CPU it switched out on */
	__u32 state;		/* prev_state at switch-out (TASK_* bits) */
	__u16 nr_user;
	__u16 nr_kernel;
	__u32 flags;		/* OFFCPU_* */
	__u64 ips[GP_BPF_STACK_SLOTS];
};

_Static_assert(sizeof(struct offcpu_event) == 48 + 8 * GP_BPF_STACK_SLOTS,
	       "offcpu_event layout changed");

/* offcpu_ustack.flags */
#define OFFCPU_USTACK_CUT	0x1	/* the copy stopped at its size limit, not at an unreadable page */
#define OFFCPU_USTACK_NO_REGS	0x2	/* no user registers (a kernel thread, an exiting task) */
#define OFFCPU_USTACK_LOST	0x4	/* preempted: the copy taken at switch-out was evicted */

/*
 * A thread's user registers and its stack from rsp up, read while it is the
 * current task: at the sys_exit of the system call it slept in, at a
 * switch-out inside that same kernel entry, or, for a preempted thread, at
 * the switch-out that preempted it (kept in oc_ucopy until its switch-in).
 * Cut after stack[len - 1] when sent.
 */
struct offcpu_ustack {
	__u64 rip, rsp, rbp;
	__u64 rbx;		/* too: ld.so's lazy-binding trampoline keeps its CFA in it */
	__u32 len;		/* bytes in stack[] */
	__u32 flags;		/* OFFCPU_USTACK_* */
	__u8 stack[GP_BPF_USTACK_MAX];
};

/*
 * With user_copy, a span whose user stack was wanted: the offcpu_event
 * fields, nr_user 0, the kernel stack in kips, then the user registers and
 * stack for the agent to unwind with CFI. Sent cut after u.stack[u.len - 1].
 */
struct offcpu_copy_event {
	__u64 start_ns;
	__u64 end_ns;
	__u32 pid;
	__u32 tid;
	__u32 waker_pid;
	__u32 waker_tid;
	__u32 cpu;
	__u32 state;
	__u16 nr_user;		/* 0 */
	__u16 nr_kernel;	/* addresses in kips */
	__u32 flags;		/* OFFCPU_COPY | OFFCPU_* */
	__u64 kips[GP_BPF_STACK_DEPTH + 1];
	struct offcpu_ustack u;
};

_Static_assert(__builtin_offsetof(struct offcpu_copy_event, kips) == 48,
	       "offcpu_copy_event must start as offcpu_event");
_Static_assert(__builtin_offsetof(struct offcpu_ustack, stack) == 40 &&
		   sizeof(struct offcpu_ustack) == 40 + GP_BPF_USTACK_MAX,
	       "offcpu_ustack layout changed");

/*
 * Fault injection for tests (rodata fault): act as if the sched_switch
 * tracepoint had not shown one in fault_every switch-ins, or switch-outs,
 * of followed threads, chosen at random, as happens now and then on some
 * kernels and VMs, to test the repair and the loss report of those
 * switches.
 */
#define OFFCPU_FAULT_NONE	0
#define OFFCPU_FAULT_SWITCH_IN	1
#define OFFCPU_FAULT_SWITCH_OUT	2

/*
 * The blocks of one thread shorter than min_block_us, summed in the kernel
 * (map oc_short, key: tid) so that off-CPU totals do not miss them. Read by
 * the loader at stop.
 */
struct offcpu_short {
	__u64 first_ns;		/* switch-out of the first block counted */
	__u64 total_ns;		/* sum of the blocks' lengths */
	__u64 count;		/* blocks summed */
	__u32 pid;
	__u32 tid;
};

_Static_assert(sizeof(struct offcpu_short) == 32, "offcpu_short layout changed");

#endif /* GPUPERF_BPF_OFFCPU_H */
