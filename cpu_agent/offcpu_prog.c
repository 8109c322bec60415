// SPDX-License-Identifier: Apache-2.0
/* offcpu_prog: load and attach bpf/offcpu.bpf.c (sched_switch spans), drain its events. */
#include "offcpu_prog.h"
#include "tgid_filter.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "offcpu.h"
#include "offcpu.skel.h"

#define OFFCPU_DEF_MIN_BLOCK_US		1000
#define OFFCPU_DEF_RINGBUF_BYTES	(4u * 1024 * 1024)
#define OFFCPU_DEF_MAX_SHORT		16384

struct offcpu_prog {
	struct offcpu_bpf *skel;
	struct ring_buffer *rb;
	bool tp_btf;
	offcpu_event_fn on_event;
	void *ctx;
};

static int offcpu_rb_event(void *ctx, void *data, size_t size)
{
	struct offcpu_prog *p = ctx;
	const struct offcpu_event *ev = data;

	if (size < offsetof(struct offcpu_event, ips) ||
	    size < offsetof(struct offcpu_event, ips) + 8 * ((size_t)ev->nr_user + ev->nr_kernel))
		return -EPROTO;
	return p->on_event(p->ctx, ev);
}

/* Open and load with tp_btf or raw_tp programs; 0 or -errno. */
static int load(struct offcpu_prog *p, const struct offcpu_opts *opts, bool tp_btf)
{
	struct offcpu_bpf *skel;
	uint32_t min_us = opts->min_block_us ? opts->min_block_us : OFFCPU_DEF_MIN_BLOCK_US;
	int err;

	p->skel = skel = offcpu_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->filter_tgids = opts->tgids_fd >= 0;
	skel->rodata->want_user = !opts->no_user;
	skel->rodata->want_kernel = !opts->no_kernel;
	skel->rodata->use_btf = tp_btf;
	skel->rodata->min_block_ns = (uint64_t)min_us * 1000;
	skel->rodata->max_block_ns = (uint64_t)opts->max_block_us * 1000;
	skel->rodata->sum_short = !opts->no_short_sum;
	skel->rodata->filter_tids = opts->nr_tids > 0;
	skel->rodata->kthreads = opts->user_threads_only     ? OFFCPU_USER_THREADS
				 : opts->kernel_threads_only ? OFFCPU_KERNEL_THREADS
							     : OFFCPU_ALL_THREADS;
	skel->rodata->filter_cpus = opts->nr_cpus > 0;
	for (size_t i = 0; i < opts->nr_cpus; i++)
		skel->rodata->cpu_mask[opts->cpus[i] / 64] |= 1ull << (opts->cpus[i] % 64);
	err = bpf_map__set_max_entries(skel->maps.oc_events, opts->ringbuf_bytes ?
					       opts->ringbuf_bytes : OFFCPU_DEF_RINGBUF_BYTES);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.oc_short, opts->max_short ?
						       opts->max_short : OFFCPU_DEF_MAX_SHORT);
	if (!err && opts->nr_tids)
		err = bpf_map__set_max_entries(skel->maps.oc_tids, (uint32_t)opts->nr_tids);
	if (err)
		return err;
	err = tgid_filter__share(skel->maps.oc_tgids, opts->tgids_fd, opts->tgids_max);
	if (err)
		return err;
	bpf_program__set_autoload(skel->progs.oc_switch, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_waking, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_sys_exit, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_switch_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.oc_waking_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.oc_sys_exit_raw, !tp_btf);
	/* the sys_exit program only completes pending spans' user stacks */
	if (opts->no_user) {
		bpf_program__set_autoload(skel->progs.oc_sys_exit, false);
		bpf_program__set_autoload(skel->progs.oc_sys_exit_raw, false);
	}
	err = offcpu_bpf__load(skel);
	for (size_t i = 0; !err && i < opts->nr_tids; i++) {
		uint32_t tid = (uint32_t)opts->tids[i];

		err = bpf_map__update_elem(skel->maps.oc_tids, &tid, sizeof(tid), &tid, sizeof(tid),
					   BPF_ANY);
	}
	return err;
}

struct offcpu_prog *offcpu_prog__new(const struct offcpu_opts *opts)
{
	struct offcpu_prog *p = NULL;
	uint32_t rb;
	int err;

	if (!opts || !opts->on_event || (opts->no_user && opts->no_kernel) ||
	    (opts->user_threads_only && opts->kernel_threads_only) ||
	    (opts->nr_tids && !opts->tids) || (opts->nr_cpus && !opts->cpus)) {
		err = -EINVAL;
		goto fail;
	}
	for (size_t i = 0; i < opts->nr_cpus; i++) {
		if (opts->cpus[i] < 0 || opts->cpus[i] >= OFFCPU_MAX_CPUS) {
			err = -EINVAL;
			goto fail;
		}
	}
	rb = opts->ringbuf_bytes;
	if (rb & (rb - 1)) {
		err = -EINVAL;
		goto fail;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto fail;
	}
	p->on_event = opts->on_event;
	p->ctx = opts->ctx;
	p->tp_btf = !opts->force_raw_tp;
	err = load(p, opts, p->tp_btf);
	if (err && err != -EPERM && p->tp_btf) {
		/* no BTF for these tracepoints (or no tp_btf at all): the raw_tp twins */
		offcpu_bpf__destroy(p->skel);
		p->tp_btf = false;
		err = load(p, opts, false);
	}
	if (err)
		goto fail;
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.oc_events), offcpu_rb_event, p, NULL);
	if (!p->rb) {
		err = -errno;
		goto fail;
	}
	return p;

fail:
	offcpu_prog__free(p);
	errno = -err;
	return NULL;
}

int offcpu_prog__attach(struct offcpu_prog *p)
{
	int err = offcpu_bpf__attach(p->skel);

	if (err)
		offcpu_bpf__detach(p->skel);
	return err;
}

void offcpu_prog__detach(struct offcpu_prog *p)
{
	offcpu_bpf__detach(p->skel);
}

int offcpu_prog__consume(struct offcpu_prog *p)
{
	return ring_buffer__consume(p->rb);
}

int offcpu_prog__epoll_fd(const struct offcpu_prog *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

bool offcpu_prog__uses_tp_btf(const struct offcpu_prog *p)
{
	return p->tp_btf;
}

void offcpu_prog__stats(const struct offcpu_prog *p, struct offcpu_stats *st)
{
	st->lost_events = __atomic_load_n(&p->skel->bss->lost_events, __ATOMIC_RELAXED);
	st->stack_errors = __atomic_load_n(&p->skel->bss->stack_errors, __ATOMIC_RELAXED);
	st->short_lost = __atomic_load_n(&p->skel->bss->short_lost, __ATOMIC_RELAXED);
}

int offcpu_prog__for_each_short(struct offcpu_prog *p, offcpu_short_fn fn, void *ctx)
{
	const struct bpf_map *m = p->skel->maps.oc_short;
	uint32_t key, next;
	struct offcpu_short v;
	const void *prev = NULL;
	int err;

	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(m, &key, sizeof(key), &v, sizeof(v), 0))
			continue; /* deleted meanwhile */
		err = fn(ctx, &v);
		if (err)
			return err;
	}
	return 0;
}

void offcpu_prog__free(struct offcpu_prog *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	offcpu_bpf__destroy(p->skel);
	free(p);
}
