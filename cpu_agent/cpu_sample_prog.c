// SPDX-License-Identifier: Apache-2.0
/* cpu_sample_prog: load bpf/cpu_sample.bpf.c (in agent.bpf.o), attach it to per-CPU perf events, drain its samples. */
#include "cpu_sample_prog.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "agent_bpf.h"
#include "cpu_sample.h"
#include "perf_event.h"

#define CPU_SAMPLE_DEF_HZ		99
#define CPU_SAMPLE_DEF_RINGBUF_BYTES	(4u * 1024 * 1024)

struct cpu_sample_prog {
	struct agent_bpf *skel;
	bool own_skel;			/* opened by __new, not the agent's */
	struct task_filter_opts filter;	/* its tids go into the map once loaded */
	struct ring_buffer *rb;
	struct perf_event_set *events;
	struct bpf_link **links;
	int nr_links;
	int *cpus;
	size_t nr_cpus;
	uint32_t freq;
	bool force_sw;
	cpu_sample_event_fn on_event;
	cpu_sample_copy_fn on_copy;
	void *ctx;
};

static int cpu_sample_rb_event(void *ctx, void *data, size_t size)
{
	struct cpu_sample_prog *p = ctx;
	const struct cpu_sample_event *ev = data;

	if (size >= offsetof(struct cpu_sample_event, ips) && (ev->flags & CPU_SAMPLE_COPY)) {
		const struct cpu_sample_copy_event *c = data;

		if (!p->on_copy || size < offsetof(struct cpu_sample_copy_event, stack) ||
		    c->nr_kernel > GP_BPF_STACK_DEPTH || c->stack_len > GP_BPF_USTACK_MAX ||
		    size < offsetof(struct cpu_sample_copy_event, stack) + (size_t)c->stack_len)
			return -EPROTO;
		return p->on_copy(p->ctx, c);
	}
	if (size < offsetof(struct cpu_sample_event, ips) ||
	    size < offsetof(struct cpu_sample_event, ips) +
			   8 * ((size_t)ev->nr_user + ev->nr_kernel))
		return -EPROTO;
	return p->on_event(p->ctx, ev);
}

struct cpu_sample_prog *cpu_sample_prog__prepare(struct agent_bpf *skel,
						 const struct cpu_sample_opts *opts)
{
	struct cpu_sample_prog *p = NULL;
	uint32_t rb;
	int err;

	if (!opts || !opts->on_event || (opts->no_user && opts->no_kernel) ||
	    task_filter_prog__check(&opts->filter)) {
		err = -EINVAL;
		goto fail;
	}
	rb = opts->ringbuf_bytes ? opts->ringbuf_bytes : CPU_SAMPLE_DEF_RINGBUF_BYTES;
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
	p->freq = opts->freq_hz ? opts->freq_hz : CPU_SAMPLE_DEF_HZ;
	p->force_sw = opts->force_sw_clock;
	p->on_event = opts->on_event;
	p->on_copy = opts->on_copy;
	p->ctx = opts->ctx;
	if (opts->filter.nr_cpus) {
		p->cpus = calloc(opts->filter.nr_cpus, sizeof(*p->cpus));
		if (!p->cpus) {
			err = -ENOMEM;
			goto fail;
		}
		memcpy(p->cpus, opts->filter.cpus, opts->filter.nr_cpus * sizeof(*p->cpus));
		p->nr_cpus = opts->filter.nr_cpus;
	}

	skel->rodata->cs_want_user = !opts->no_user;
	skel->rodata->cs_want_kernel = !opts->no_kernel;
	skel->rodata->cs_user_copy = opts->on_copy != NULL;
	/* the CPUs are the perf events': the program does not check them */
	err = task_filter_prog__setup(&skel->rodata->cs_filter, skel->maps.cs_tgids,
				      skel->maps.cs_tids, &opts->filter);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.cs_events, rb);
	if (err)
		goto fail;
	return p;

fail:
	cpu_sample_prog__free(p);
	errno = -err;
	return NULL;
}

int cpu_sample_prog__loaded(struct cpu_sample_prog *p)
{
	int err = task_filter_prog__fill(p->skel->maps.cs_tids, &p->filter);

	if (err)
		return err;
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.cs_events), cpu_sample_rb_event, p, NULL);
	return p->rb ? 0 : -errno;
}

struct cpu_sample_prog *cpu_sample_prog__new(const struct cpu_sample_opts *opts)
{
	struct agent_bpf *skel = agent_bpf__open_part(AGENT_BPF_CPU_SAMPLE);
	struct cpu_sample_prog *p;
	int err;

	if (!skel)
		return NULL;
	p = cpu_sample_prog__prepare(skel, opts);
	if (!p) {
		err = -errno;
		agent_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	p->own_skel = true;
	err = agent_bpf__load(skel);
	if (!err)
		err = cpu_sample_prog__loaded(p);
	if (err) {
		cpu_sample_prog__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

int cpu_sample_prog__attach(struct cpu_sample_prog *p)
{
	struct perf_event_set_opts eo = { .freq_hz = p->freq, .force_sw_clock = p->force_sw,
					  .cpus = p->cpus, .nr_cpus = p->nr_cpus };
	int err = 0, n;

	if (p->events)
		return -EALREADY;
	p->events = perf_event_set__open(&eo);
	if (!p->events)
		return -errno;
	n = perf_event_set__count(p->events);
	p->links = calloc((size_t)n, sizeof(*p->links));
	if (!p->links) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		struct bpf_link *l;

		l = bpf_program__attach_perf_event(p->skel->progs.cs_sample,
						   perf_event_set__fd(p->events, i));
		if (!l) {
			err = -errno;
			goto fail;
		}
		p->links[p->nr_links++] = l;
	}
	return 0;

fail:
	cpu_sample_prog__detach(p);
	return err;
}

void cpu_sample_prog__detach(struct cpu_sample_prog *p)
{
	for (int i = 0; i < p->nr_links; i++)
		bpf_link__destroy(p->links[i]);
	free(p->links);
	p->links = NULL;
	p->nr_links = 0;
	perf_event_set__free(p->events);
	p->events = NULL;
}

int cpu_sample_prog__poll(struct cpu_sample_prog *p, int timeout_ms)
{
	return ring_buffer__poll(p->rb, timeout_ms);
}

int cpu_sample_prog__consume(struct cpu_sample_prog *p)
{
	return ring_buffer__consume(p->rb);
}

int cpu_sample_prog__epoll_fd(const struct cpu_sample_prog *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

bool cpu_sample_prog__uses_sw_clock(const struct cpu_sample_prog *p)
{
	return p->events && perf_event_set__is_sw(p->events);
}

uint32_t cpu_sample_prog__freq(const struct cpu_sample_prog *p)
{
	return p->freq;
}

void cpu_sample_prog__stats(const struct cpu_sample_prog *p, struct cpu_sample_stats *st)
{
	st->lost_events = __atomic_load_n(&p->skel->bss->cs_lost_events, __ATOMIC_RELAXED);
	st->stack_errors = __atomic_load_n(&p->skel->bss->cs_stack_errors, __ATOMIC_RELAXED);
}

void cpu_sample_prog__free(struct cpu_sample_prog *p)
{
	if (!p)
		return;
	cpu_sample_prog__detach(p);
	ring_buffer__free(p->rb);
	if (p->own_skel)
		agent_bpf__destroy(p->skel);
	free(p->cpus);
	free(p);
}
