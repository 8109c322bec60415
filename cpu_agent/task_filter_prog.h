/* SPDX-License-Identifier: Apache-2.0 */
/* task_filter_prog: set up bpf/task_filter.bpf.h in a program before and after its load. */
#ifndef GPUPERF_CPU_AGENT_TASK_FILTER_PROG_H
#define GPUPERF_CPU_AGENT_TASK_FILTER_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_map;
struct task_filter_knobs; /* bpf/task_filter.h */

/* Which tasks a program traces: one struct in every loader's options. */
struct task_filter_opts {
	/*
	 * The followed-tgid map to share (proc_track_prog__tgids_fd()), and its
	 * max entries; tgids_fd < 0: every process on the machine.
	 */
	int tgids_fd;
	uint32_t tgids_max;
	/* With tgids_fd < 0: processes not traced (the recorder itself); 0: none. */
	pid_t exclude_tgid[2];
	/* Only these threads (the tgid map is then not used); NULL/0: by tgid. */
	const pid_t *tids;
	size_t nr_tids;
	/*
	 * Only on these CPUs (each < TASK_FILTER_MAX_CPUS for a program that
	 * checks the CPU in BPF); NULL/0: all.
	 */
	const int *cpus;
	size_t nr_cpus;
	bool user_threads_only;	/* skip kernel threads (PF_KTHREAD) */
	bool kernel_threads_only; /* skip user threads */
};

/* -EINVAL for options that contradict themselves, else 0. */
int task_filter_prog__check(const struct task_filter_opts *o);
/*
 * Before load: set the program's knobs (its rodata task_filter) from @o,
 * without the CPUs (task_filter_prog__set_cpus), make @tgids (its
 * TASK_FILTER_TGIDS) the very map proc_track fills, so a child forked by a
 * followed process is seen by every program before it runs, or shrink it
 * to one entry when unused, and size @tids (its TASK_FILTER_TIDS) for
 * @o's tids. 0 or -errno.
 */
int task_filter_prog__setup(struct task_filter_knobs *k, struct bpf_map *tgids,
			    struct bpf_map *tids, const struct task_filter_opts *o);
/* Before load, for a program that checks the CPU in BPF: @o's CPUs in the knobs. */
void task_filter_prog__set_cpus(struct task_filter_knobs *k, const struct task_filter_opts *o);
/* After load: put @o's tids in @tids. 0 or -errno. */
int task_filter_prog__fill(struct bpf_map *tids, const struct task_filter_opts *o);

#endif /* GPUPERF_CPU_AGENT_TASK_FILTER_PROG_H */
