// SPDX-License-Identifier: Apache-2.0
/* task_filter_prog: set up bpf/task_filter.bpf.h in a program before and after its load. */
#include "task_filter_prog.h"

#include <errno.h>

#include <bpf/libbpf.h>

#include "task_filter.h"

int task_filter_prog__check(const struct task_filter_opts *o)
{
	if ((o->nr_tids && !o->tids) || (o->nr_cpus && !o->cpus) ||
	    (o->user_threads_only && o->kernel_threads_only))
		return -EINVAL;
	return 0;
}

int task_filter_prog__setup(struct task_filter_knobs *k, struct bpf_map *tgids,
			    struct bpf_map *tids, const struct task_filter_opts *o)
{
	int err = 0;

	k->filter_tgids = o->tgids_fd >= 0;
	k->exclude_tgid[0] = (uint32_t)o->exclude_tgid[0];
	k->exclude_tgid[1] = (uint32_t)o->exclude_tgid[1];
	k->filter_tids = o->nr_tids > 0;
	k->kthreads = o->user_threads_only     ? TASK_FILTER_USER_THREADS
		      : o->kernel_threads_only ? TASK_FILTER_KERNEL_THREADS
					       : TASK_FILTER_ALL_THREADS;
	if (o->nr_tids)
		err = bpf_map__set_max_entries(tids, (uint32_t)o->nr_tids);
	if (err)
		return err;
	if (o->tgids_fd < 0)
		return bpf_map__set_max_entries(tgids, 1);
	err = bpf_map__set_max_entries(tgids, o->tgids_max);
	return err ? err : bpf_map__reuse_fd(tgids, o->tgids_fd);
}

void task_filter_prog__set_cpus(struct task_filter_knobs *k, const struct task_filter_opts *o)
{
	k->filter_cpus = o->nr_cpus > 0;
	for (size_t i = 0; i < o->nr_cpus; i++)
		k->cpu_mask[o->cpus[i] / 64] |= 1ull << (o->cpus[i] % 64);
}

int task_filter_prog__fill(struct bpf_map *tids, const struct task_filter_opts *o)
{
	for (size_t i = 0; i < o->nr_tids; i++) {
		uint32_t tid = (uint32_t)o->tids[i];
		int err = bpf_map__update_elem(tids, &tid, sizeof(tid), &tid, sizeof(tid), BPF_ANY);

		if (err)
			return err;
	}
	return 0;
}
