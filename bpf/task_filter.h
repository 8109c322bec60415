/* SPDX-License-Identifier: Apache-2.0 */
/* task_filter: the rodata knobs of the task filter, shared by task_filter.bpf.h and the loaders. */
#ifndef GPUPERF_BPF_TASK_FILTER_H
#define GPUPERF_BPF_TASK_FILTER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Highest CPU number the CPU filter (cpu_mask) can name, plus one. */
#define TASK_FILTER_MAX_CPUS	1024

/* task_filter_knobs.kthreads: which kinds of thread */
#define TASK_FILTER_ALL_THREADS		0
#define TASK_FILTER_USER_THREADS	1	/* not PF_KTHREAD */
#define TASK_FILTER_KERNEL_THREADS	2	/* PF_KTHREAD only */

/*
 * Which tasks a program traces, set by its loader before load (rodata
 * task_filter): the first of filter_tids, filter_tgids or exclude_tgid
 * that applies, then kthreads, then filter_cpus for the programs that
 * check the CPU (offcpu; the sampler opens perf events only on the CPUs).
 */
struct task_filter_knobs {
	__u8 filter_tgids;	/* only tgids in the tgids map (proc_track's followed processes) */
	__u8 filter_tids;	/* only tids in the tids map, instead of by tgid */
	__u8 kthreads;		/* TASK_FILTER_*_THREADS */
	__u8 filter_cpus;	/* only on the CPUs in cpu_mask */
	/* without filter_tgids or filter_tids: tgids left out (the recorder); 0: none */
	__u32 exclude_tgid[2];
	__u32 pad;
	__u64 cpu_mask[TASK_FILTER_MAX_CPUS / 64];
};

_Static_assert(sizeof(struct task_filter_knobs) == 16 + TASK_FILTER_MAX_CPUS / 8,
	       "task_filter_knobs layout changed");

#endif /* GPUPERF_BPF_TASK_FILTER_H */
