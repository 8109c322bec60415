/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/* task_filter.bpf.h - which tasks a BPF program traces: its knobs, maps and checks. */
#ifndef GPUPERF_BPF_TASK_FILTER_BPF_H
#define GPUPERF_BPF_TASK_FILTER_BPF_H

/*
 * How to use: before including it, a program names its maps with its own
 * prefix (the names tests and bpftool find, bpf/README.md):
 *
 *	#define TASK_FILTER_TGIDS	oc_tgids	(required)
 *	#define TASK_FILTER_TIDS	oc_tids		(only to filter by thread)
 *	#define TASK_FILTER_KNOBS	oc_filter	(required: its knobs' rodata)
 *
 * TASK_FILTER_TGIDS is the followed-tgid hash: proc_track's own, which the
 * other programs' loaders make theirs (bpf_map__reuse_fd), so a child
 * forked by a followed process is seen by all of them before it runs.
 * TASK_FILTER_TIDS is filled by the loader with the tids to follow. The
 * knobs are one rodata struct (task_filter.h), set by the loader
 * (cpu_agent/task_filter_prog.h); the verifier drops the branches of
 * filters left off. The programs are linked into one object (agent.bpf.o):
 * each names its own.
 */

#include "task_filter.h"

#ifndef TASK_FILTER_TGIDS
#error "define TASK_FILTER_TGIDS (the program's followed-tgid map) before task_filter.bpf.h"
#endif
#ifndef TASK_FILTER_KNOBS
#error "define TASK_FILTER_KNOBS (the program's filter knobs) before task_filter.bpf.h"
#endif

#ifndef PF_KTHREAD
#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#endif

const volatile struct task_filter_knobs TASK_FILTER_KNOBS = { .filter_tgids = 1 };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* loader: bpf_map__set_max_entries */
	__type(key, __u32);		/* tgid */
	__type(value, __u32);		/* the tgid that made it followed (itself for a seed) */
} TASK_FILTER_TGIDS SEC(".maps");

/* Is @tgid followed: in the tgids map, or every one without filter_tgids? */
static __always_inline bool task_filter__tgid(__u32 tgid)
{
	if (!TASK_FILTER_KNOBS.filter_tgids)
		return true;
	return bpf_map_lookup_elem(&TASK_FILTER_TGIDS, &tgid) != NULL;
}

#ifdef TASK_FILTER_TIDS
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* loader: the number of tids */
	__type(key, __u32);		/* tid */
	__type(value, __u32);
} TASK_FILTER_TIDS SEC(".maps");

/* By id: a named tid, else a followed tgid, else any tgid not excluded. */
static __always_inline bool task_filter__ids(__u32 tgid, __u32 tid)
{
	if (TASK_FILTER_KNOBS.filter_tids)
		return bpf_map_lookup_elem(&TASK_FILTER_TIDS, &tid) != NULL;
	if (TASK_FILTER_KNOBS.filter_tgids)
		return bpf_map_lookup_elem(&TASK_FILTER_TGIDS, &tgid) != NULL;
	return tgid != TASK_FILTER_KNOBS.exclude_tgid[0] && tgid != TASK_FILTER_KNOBS.exclude_tgid[1];
}

/* By kind: is @task a thread of the kind traced (read only when one kind is chosen)? */
static __always_inline bool task_filter__kind(struct task_struct *task)
{
	bool kt;

	if (TASK_FILTER_KNOBS.kthreads == TASK_FILTER_ALL_THREADS)
		return true;
	kt = BPF_CORE_READ(task, flags) & PF_KTHREAD;
	return kt == (TASK_FILTER_KNOBS.kthreads == TASK_FILTER_KERNEL_THREADS);
}

/* By CPU: is @cpu (< 0: this CPU) one traced? */
static __always_inline bool task_filter__cpu(int cpu)
{
	__u32 c;

	if (!TASK_FILTER_KNOBS.filter_cpus)
		return true;
	/* only here: without a CPU filter no helper call is paid for */
	c = cpu < 0 ? bpf_get_smp_processor_id() : (__u32)cpu;
	if (c >= TASK_FILTER_MAX_CPUS)
		return false;
	/*
	 * The bound again, where the verifier sees it: clang checked one copy
	 * of c and indexed with another, and the task iterators (which read a
	 * task's CPU from memory) were refused with a CPU filter.
	 */
	asm volatile("%[c] &= %[m]" : [c] "+r"(c) : [m] "i"(TASK_FILTER_MAX_CPUS - 1));
	return (TASK_FILTER_KNOBS.cpu_mask[c / 64] >> (c % 64)) & 1;
}

/*
 * The current task, thread @tid of process @tgid (on-CPU programs): by id
 * and kind; the task is looked up only when a kind is chosen.
 */
static __always_inline bool task_filter__current(__u32 tgid, __u32 tid)
{
	if (!task_filter__ids(tgid, tid))
		return false;
	return TASK_FILTER_KNOBS.kthreads == TASK_FILTER_ALL_THREADS ||
	       task_filter__kind((struct task_struct *)bpf_get_current_task());
}

/* @task, thread @tid of process @tgid, on @cpu (< 0: this CPU): by id, kind and CPU. */
static __always_inline bool task_filter__task(struct task_struct *task, __u32 tgid, __u32 tid,
					      int cpu)
{
	return task_filter__ids(tgid, tid) && task_filter__kind(task) && task_filter__cpu(cpu);
}
#endif /* TASK_FILTER_TIDS */

#endif /* GPUPERF_BPF_TASK_FILTER_BPF_H */
