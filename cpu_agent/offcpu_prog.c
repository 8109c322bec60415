// SPDX-License-Identifier: Apache-2.0
/* offcpu_prog: load and attach bpf/offcpu.bpf.c (in agent.bpf.o: sched_switch spans), drain its events. */
#include "offcpu_prog.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "agent_bpf.h"
#include "offcpu.h"

#define OFFCPU_DEF_MIN_BLOCK_US		1000
#define OFFCPU_DEF_RINGBUF_BYTES	(4u * 1024 * 1024)
#define OFFCPU_DEF_MAX_SHORT		16384
/*
 * Preempted threads whose user stack copy (16 KiB each) is kept until they
 * run again: the runnable, not running, followed threads at any moment.
 */
#define OFFCPU_DEF_UCOPIES		256

struct offcpu_prog {
	struct agent_bpf *skel;
	bool own_skel;			/* opened by __new, not the agent's */
	struct task_filter_opts filter;	/* its tids go into the map once loaded */
	struct ring_buffer *rb;
	bool tp_btf;
	bool iters;	/* the task iterators usable (oc_seed loaded; oc_open at stop) */
	/*
	 * oc_open, in an instance of its own sharing skel's maps, loaded at
	 * the first __for_each_open: it is the costliest program to verify
	 * (15k instructions processed), and a recording whose processes have
	 * all exited has no block in progress to read.
	 */
	struct agent_bpf *open_skel;
	offcpu_event_fn on_event;
	offcpu_copy_fn on_copy;
	void *ctx;
};

static int offcpu_rb_event(void *ctx, void *data, size_t size)
{
	struct offcpu_prog *p = ctx;
	const struct offcpu_event *ev = data;

	if (size >= offsetof(struct offcpu_event, ips) && (ev->flags & OFFCPU_COPY)) {
		const struct offcpu_copy_event *c = data;

		if (!p->on_copy || size < offsetof(struct offcpu_copy_event, u.stack) ||
		    c->nr_kernel > GP_BPF_STACK_DEPTH || c->u.len > GP_BPF_USTACK_MAX ||
		    size < offsetof(struct offcpu_copy_event, u.stack) + (size_t)c->u.len)
			return -EPROTO;
		return p->on_copy(p->ctx, c);
	}
	if (size < offsetof(struct offcpu_event, ips) ||
	    size < offsetof(struct offcpu_event, ips) + 8 * ((size_t)ev->nr_user + ev->nr_kernel))
		return -EPROTO;
	return p->on_event(p->ctx, ev);
}

/* Configure @skel (not loaded) with tp_btf or raw_tp programs, with or without oc_seed: 0 or -errno. */
static int configure(struct agent_bpf *skel, const struct offcpu_opts *opts, bool tp_btf, bool iters)
{
	uint32_t min_us = opts->min_block_us ? opts->min_block_us : OFFCPU_DEF_MIN_BLOCK_US;
	int err;

	skel->rodata->want_user = !opts->no_user;
	skel->rodata->want_kernel = !opts->no_kernel;
	skel->rodata->user_copy = opts->on_copy && !opts->no_user;
	skel->rodata->use_btf = tp_btf;
	skel->rodata->min_block_ns = (uint64_t)min_us * 1000;
	skel->rodata->max_block_ns = (uint64_t)opts->max_block_us * 1000;
	skel->rodata->sum_short = !opts->no_short_sum;
	skel->rodata->fault = opts->fault;
	skel->rodata->fault_every = opts->fault_every;
	task_filter_prog__set_cpus(&skel->rodata->oc_filter, &opts->filter);
	err = task_filter_prog__setup(&skel->rodata->oc_filter, skel->maps.oc_tgids,
				      skel->maps.oc_tids, &opts->filter);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.oc_events,
					       opts->ringbuf_bytes ? opts->ringbuf_bytes
								   : OFFCPU_DEF_RINGBUF_BYTES);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.oc_short, opts->max_short ?
						       opts->max_short : OFFCPU_DEF_MAX_SHORT);
	if (!err && skel->rodata->user_copy)
		err = bpf_map__set_max_entries(skel->maps.oc_ucopy, OFFCPU_DEF_UCOPIES);
	/* tp_btf keeps the switch-outs in task storage: the raw_tp map is never used (3 MiB) */
	if (!err && tp_btf)
		err = bpf_map__set_max_entries(skel->maps.oc_start, 1);
	/* a thread's entry when it first blocks briefly, not 1.7 MiB made at load */
	if (!err)
		err = bpf_map__set_map_flags(skel->maps.oc_short, BPF_F_NO_PREALLOC);
	if (err)
		return err;
	bpf_program__set_autoload(skel->progs.oc_switch, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_waking, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_sys_exit, tp_btf);
	bpf_program__set_autoload(skel->progs.oc_switch_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.oc_waking_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.oc_sys_exit_raw, !tp_btf);
	/* run on demand (bpf_iter_create), never attached by the skeleton */
	bpf_program__set_autoload(skel->progs.oc_seed, iters);
	bpf_program__set_autoload(skel->progs.oc_open, false); /* load_open() */
	bpf_program__set_autoattach(skel->progs.oc_seed, false);
	bpf_program__set_autoattach(skel->progs.oc_open, false);
	/* the sys_exit program only completes pending spans' user stacks */
	if (opts->no_user) {
		bpf_program__set_autoload(skel->progs.oc_sys_exit, false);
		bpf_program__set_autoload(skel->progs.oc_sys_exit_raw, false);
	}
	return 0;
}

struct offcpu_prog *offcpu_prog__prepare(struct agent_bpf *skel, const struct offcpu_opts *opts,
					 bool tp_btf, bool iters)
{
	struct offcpu_prog *p = NULL;
	uint32_t rb;
	int err;

	if (!opts || !opts->on_event || (opts->no_user && opts->no_kernel) ||
	    task_filter_prog__check(&opts->filter)) {
		err = -EINVAL;
		goto fail;
	}
	/* the program checks the CPU in BPF, on a mask of TASK_FILTER_MAX_CPUS bits */
	for (size_t i = 0; i < opts->filter.nr_cpus; i++) {
		if (opts->filter.cpus[i] < 0 || opts->filter.cpus[i] >= TASK_FILTER_MAX_CPUS) {
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
	p->skel = skel;
	p->filter = opts->filter;
	p->on_event = opts->on_event;
	p->on_copy = opts->on_copy;
	p->ctx = opts->ctx;
	p->tp_btf = tp_btf;
	p->iters = iters && !opts->force_no_iters;
	err = configure(skel, opts, p->tp_btf, p->iters);
	if (err)
		goto fail;
	return p;

fail:
	offcpu_prog__free(p);
	errno = -err;
	return NULL;
}

int offcpu_prog__loaded(struct offcpu_prog *p)
{
	int err = task_filter_prog__fill(p->skel->maps.oc_tids, &p->filter);

	if (err)
		return err;
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.oc_events), offcpu_rb_event, p, NULL);
	return p->rb ? 0 : -errno;
}

struct offcpu_prog *offcpu_prog__new(const struct offcpu_opts *opts)
{
	int err = -EINVAL;

	/*
	 * Without BTF for these tracepoints (or no tp_btf at all): the raw_tp
	 * twins; without task iterators (or a verifier that rejects them): no
	 * spans for blocks in progress at start and stop.
	 */
	for (int i = opts && opts->force_raw_tp ? 2 : 0; i < 4 && err != -EPERM; i++) {
		struct agent_bpf *skel = agent_bpf__open_part(AGENT_BPF_OFFCPU);
		struct offcpu_prog *p;

		if (!skel)
			return NULL;
		p = offcpu_prog__prepare(skel, opts, i < 2, !(i & 1));
		if (!p) {
			err = -errno;
			agent_bpf__destroy(skel);
			break; /* bad options */
		}
		p->own_skel = true;
		err = agent_bpf__load(skel);
		if (!err)
			err = offcpu_prog__loaded(p);
		if (!err)
			return p;
		offcpu_prog__free(p);
	}
	errno = -err;
	return NULL;
}

int offcpu_prog__attach(struct offcpu_prog *p)
{
	return agent_bpf__attach_part(p->skel, AGENT_BPF_OFFCPU);
}

void offcpu_prog__detach(struct offcpu_prog *p)
{
	agent_bpf__detach_part(p->skel, AGENT_BPF_OFFCPU);
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

bool offcpu_prog__open_loaded(const struct offcpu_prog *p)
{
	return p->open_skel != NULL;
}

bool offcpu_prog__has_iters(const struct offcpu_prog *p)
{
	return p->iters;
}

/*
 * Runs of @prog the kernel skipped because a run of it was already in
 * progress on that CPU (bpf_prog_info.recursion_misses); 0 when not loaded.
 */
static uint64_t prog_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

void offcpu_prog__stats(const struct offcpu_prog *p, struct offcpu_stats *st)
{
	st->lost_events = __atomic_load_n(&p->skel->bss->lost_events, __ATOMIC_RELAXED);
	st->stack_errors = __atomic_load_n(&p->skel->bss->stack_errors, __ATOMIC_RELAXED);
	st->short_lost = __atomic_load_n(&p->skel->bss->short_lost, __ATOMIC_RELAXED);
	st->ustack_lost = __atomic_load_n(&p->skel->bss->ustack_lost, __ATOMIC_RELAXED);
	st->missed_switch_ins =
		__atomic_load_n(&p->skel->bss->missed_switch_ins, __ATOMIC_RELAXED);
	st->missed_switch_outs =
		__atomic_load_n(&p->skel->bss->missed_switch_outs, __ATOMIC_RELAXED);
	st->prog_misses = prog_misses(p->skel->progs.oc_switch) +
			  prog_misses(p->skel->progs.oc_switch_raw) +
			  prog_misses(p->skel->progs.oc_waking) +
			  prog_misses(p->skel->progs.oc_waking_raw) +
			  prog_misses(p->skel->progs.oc_sys_exit) +
			  prog_misses(p->skel->progs.oc_sys_exit_raw);
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

/* Run task iterator @prog to the end; its output in *@out (malloc'ed), *@len bytes. */
static int run_iter(const struct bpf_program *prog, char **out, size_t *len)
{
	struct bpf_link *link;
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd, err = 0;
	ssize_t got;

	link = bpf_program__attach_iter(prog, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		if (cap - n < 65536) {
			char *nb = realloc(buf, cap ? 2 * cap : 262144);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap = cap ? 2 * cap : 262144;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
out:
	bpf_link__destroy(link);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* oc_open in an instance of its own, on the maps of p->skel: 0 or -errno. */
static int load_open(struct offcpu_prog *p)
{
	struct agent_bpf *o = agent_bpf__open();
	const struct bpf_map *mine = NULL;
	struct bpf_program *prog;
	struct bpf_map *m;
	int err = 0;

	if (!o)
		return -errno;
	/*
	 * The same object file: its maps come in the same order. (Not by
	 * name: a map given another's fd takes that map's name, as oc_tgids
	 * takes proc_track's.) Those p->skel left out stay out.
	 */
	bpf_object__for_each_map(m, o->obj) {
		mine = bpf_object__next_map(p->skel->obj, mine);
		if (!mine) {
			err = -ENOENT;
			break;
		}
		err = bpf_map__fd(mine) >= 0 ? bpf_map__reuse_fd(m, bpf_map__fd(mine)) :
					       bpf_map__set_autocreate(m, false);
		if (err)
			break;
	}
	bpf_object__for_each_program(prog, o->obj)
		bpf_program__set_autoload(prog, prog == o->progs.oc_open);
	if (!err)
		err = agent_bpf__load(o);
	if (err) {
		agent_bpf__destroy(o);
		return err;
	}
	p->open_skel = o;
	return 0;
}

int offcpu_prog__seed(struct offcpu_prog *p)
{
	char *buf = NULL;
	size_t len;
	int err;

	if (!p->iters)
		return -EOPNOTSUPP;
	err = run_iter(p->skel->progs.oc_seed, &buf, &len);
	free(buf);
	return err;
}

int offcpu_prog__for_each_open(struct offcpu_prog *p, uint64_t end_ns, offcpu_event_fn on_span,
			       offcpu_copy_fn on_copy, offcpu_short_fn on_short, void *ctx)
{
	const size_t head = offsetof(struct offcpu_event, ips);
	const size_t chead = offsetof(struct offcpu_copy_event, u.stack);
	struct offcpu_copy_event *c = NULL;
	size_t len = 0, off = 0;
	char *buf = NULL;
	int err;

	if (!p->iters)
		return -EOPNOTSUPP;
	if (!p->open_skel && (err = load_open(p)))
		return err;
	p->skel->bss->open_end_ns = end_ns;
	err = run_iter(p->open_skel->progs.oc_open, &buf, &len);
	while (!err && len - off >= head) {
		struct offcpu_event ev;
		size_t size;

		memcpy(&ev, buf + off, head);
		if (ev.flags & OFFCPU_COPY) {
			/* an open span with its user registers and stack (on_copy given at __new) */
			if (!c && !(c = malloc(sizeof(*c)))) {
				err = -ENOMEM;
				break;
			}
			if (len - off < chead) {
				err = -EPROTO;
				break;
			}
			memcpy(c, buf + off, chead);
			size = chead + c->u.len;
			if (!on_copy || c->nr_kernel > GP_BPF_STACK_DEPTH ||
			    c->u.len > GP_BPF_USTACK_MAX || size > len - off) {
				err = -EPROTO;
				break;
			}
			memcpy(c->u.stack, buf + off + chead, c->u.len);
			off += size;
			err = on_copy(ctx, c);
			continue;
		}
		size = head + 8 * ((size_t)ev.nr_user + ev.nr_kernel);
		if (size > sizeof(ev) || size > len - off) {
			err = -EPROTO;
			break;
		}
		memcpy(&ev, buf + off, size);
		off += size;
		if (ev.flags & OFFCPU_SHORT_SUM) {
			struct offcpu_short s = { .first_ns = ev.start_ns,
						  .total_ns = ev.end_ns - ev.start_ns,
						  .count = ev.state,
						  .pid = ev.pid,
						  .tid = ev.tid };

			err = on_short ? on_short(ctx, &s) : 0;
		} else {
			err = on_span(ctx, &ev);
		}
	}
	free(c);
	free(buf);
	return err;
}

void offcpu_prog__free(struct offcpu_prog *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	agent_bpf__destroy(p->open_skel);
	if (p->own_skel)
		agent_bpf__destroy(p->skel);
	free(p);
}
