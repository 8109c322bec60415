// SPDX-License-Identifier: Apache-2.0
/* proc_track_prog: load, attach and drain bpf/proc_track.bpf.c (fork/exec/exit of a process tree). */
#include "proc_track_prog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "agent_bpf.h"
#include "gp_util.h"
#include "proc_track.h"

#define PROC_TRACK_DEF_MAX_PROCS	8192
#define PROC_TRACK_DEF_RINGBUF_BYTES	(256u * 1024)

struct proc_track_prog {
	struct agent_bpf *skel;
	bool own_skel;			/* opened by __new, not the agent's */
	pid_t *tgids;			/* followed once loaded */
	size_t nr_tgids;
	struct ring_buffer *rb;
	proc_track_event_fn on_event;
	void *ctx;
	bool tp_btf;
	bool all;
	bool mmap_exec;			/* opts.mmap_exec */
	struct bpf_link *mmap_link;	/* ptrack_mmap, attached apart: it may be missing */
};

static const char *const proc_track_tps[] = {
	"sched_process_fork",
	"sched_process_exec",
	"sched_process_exit",
};

/*
 * Can this kernel load a tp_btf program for @tp? Load the smallest such
 * program ("return 0") against btf_trace_<tp> and close it again.
 * Returns 1 yes, 0 no, -EPERM when loading BPF is not allowed at all.
 */
static int probe_tp_btf(const struct btf *vmlinux, const char *tp)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char name[64];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return 0;

	LIBBPF_OPTS(bpf_prog_load_opts, lopts, .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = (__u32)id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			   ARRAY_SIZE(insns), &lopts);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return fd == -EPERM ? -EPERM : 0;
}

/* Pick tp_btf or raw_tp for all three tracepoints together: 1, 0 or -errno. */
static int choose_tp_btf(const struct proc_track_opts *opts)
{
	struct btf *vmlinux;
	size_t i;
	int ret = 1;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -EOPNOTSUPP; /* CO-RE needs it as much as tp_btf does */
	if (opts->force_raw_tp) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(proc_track_tps) && ret == 1; i++)
		ret = probe_tp_btf(vmlinux, proc_track_tps[i]);
out:
	btf__free(vmlinux);
	return ret;
}

static int check_opts(const struct proc_track_opts *opts)
{
	uint32_t rb;

	if (!opts || !opts->on_event)
		return -EINVAL;
	if (opts->nr_tgids && !opts->tgids)
		return -EINVAL;
	if (opts->all && opts->nr_tgids)
		return -EINVAL;
	rb = opts->ringbuf_bytes;
	if (rb && ((rb & (rb - 1)) || rb < (uint32_t)sysconf(_SC_PAGESIZE)))
		return -EINVAL;
	for (size_t i = 0; i < opts->nr_tgids; i++)
		if (opts->tgids[i] <= 0)
			return -EINVAL;
	return 0;
}

static int proc_track_rb_event(void *ctx, void *data, size_t size)
{
	struct proc_track_prog *p = ctx;

	if (size < sizeof(struct proc_track_event))
		return -EPROTO; /* BPF and user space built from different headers */
	return p->on_event(p->ctx, data);
}

int proc_track_prog__wants_tp_btf(const struct proc_track_opts *opts)
{
	/* the kernel's BTF where tp_btf needs it: tried by loading; else looked for and probed */
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		return !opts->force_raw_tp;
	return choose_tp_btf(opts);
}

struct proc_track_prog *proc_track_prog__prepare(struct agent_bpf *skel,
						 const struct proc_track_opts *opts, bool tp_btf)
{
	struct proc_track_prog *p = NULL;
	uint32_t max = opts && opts->max_procs ? opts->max_procs : PROC_TRACK_DEF_MAX_PROCS;
	int err, fd;

	err = check_opts(opts);
	if (err)
		goto fail;
	p = calloc(1, sizeof(*p));
	if (!p || (opts->nr_tgids && !(p->tgids = calloc(opts->nr_tgids, sizeof(*p->tgids))))) {
		err = -ENOMEM;
		goto fail;
	}
	p->skel = skel;
	p->on_event = opts->on_event;
	p->ctx = opts->ctx;
	p->tp_btf = tp_btf;
	p->all = opts->all;
	p->mmap_exec = opts->mmap_exec;
	if (opts->nr_tgids)
		memcpy(p->tgids, opts->tgids, opts->nr_tgids * sizeof(*p->tgids));
	p->nr_tgids = opts->nr_tgids;

	skel->rodata->ptrack_filter.filter_tgids = !opts->all;
	skel->rodata->thread_exits = opts->thread_exits;
	/*
	 * The followed-tgid map, made now: the sampler and the off-CPU tracer
	 * take it over before the object is loaded (task_filter.bpf.h).
	 */
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ptrack_tgids", sizeof(__u32), sizeof(__u32), max,
			    NULL);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	err = bpf_map__reuse_fd(skel->maps.ptrack_tgids, fd);
	close(fd); /* reuse_fd holds its own */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.ptrack_events,
					       opts->ringbuf_bytes ? opts->ringbuf_bytes :
								     PROC_TRACK_DEF_RINGBUF_BYTES);
	if (err)
		goto fail;
	bpf_program__set_autoload(skel->progs.ptrack_fork, tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_exec, tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_exit, tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_fork_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_exec_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_exit_raw, !tp_btf);
	bpf_program__set_autoload(skel->progs.ptrack_mmap, opts->mmap_exec && tp_btf);
	bpf_program__set_autoattach(skel->progs.ptrack_mmap, false); /* optional: attach() */
	return p;

fail:
	proc_track_prog__free(p);
	errno = err < 0 ? -err : EINVAL;
	return NULL;
}

int proc_track_prog__loaded(struct proc_track_prog *p)
{
	int err;

	for (size_t i = 0; i < p->nr_tgids; i++) {
		err = proc_track_prog__follow(p, p->tgids[i]);
		if (err)
			return err;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.ptrack_events), proc_track_rb_event, p,
				 NULL);
	return p->rb ? 0 : -errno;
}

struct proc_track_prog *proc_track_prog__new(const struct proc_track_opts *opts)
{
	int tp_btf, err;

	err = check_opts(opts);
	if (err) {
		errno = -err;
		return NULL;
	}
	tp_btf = proc_track_prog__wants_tp_btf(opts);
	if (tp_btf < 0) {
		errno = -tp_btf;
		return NULL;
	}
	/*
	 * tp_btf first, raw_tp when that does not load: the first try is the
	 * probe, rather than a parse of the kernel's BTF of its own (libbpf
	 * parses it again for every object it loads).
	 */
	for (;;) {
		struct agent_bpf *skel = agent_bpf__open_part(AGENT_BPF_PROC_TRACK);
		struct proc_track_prog *p;

		if (!skel)
			return NULL;
		p = proc_track_prog__prepare(skel, opts, tp_btf);
		if (!p) {
			err = -errno;
			agent_bpf__destroy(skel);
			errno = -err;
			return NULL;
		}
		p->own_skel = true;
		err = agent_bpf__load(skel);
		if (!err)
			err = proc_track_prog__loaded(p);
		if (!err)
			return p;
		proc_track_prog__free(p);
		if (err == -EPERM || !tp_btf || opts->force_raw_tp)
			break;
		tp_btf = false;
	}
	errno = -err;
	return NULL;
}

int proc_track_prog__attach(struct proc_track_prog *p)
{
	int err;

	err = agent_bpf__attach_part(p->skel, AGENT_BPF_PROC_TRACK);
	if (err)
		return err; /* none left attached */
	/* a kernel without syscall tracepoints: the agent's timed rescans alone */
	if (p->mmap_exec && !p->mmap_link && bpf_program__autoload(p->skel->progs.ptrack_mmap))
		p->mmap_link = bpf_program__attach(p->skel->progs.ptrack_mmap);
	return 0;
}

bool proc_track_prog__mmap_events(const struct proc_track_prog *p)
{
	return p->mmap_link != NULL;
}

void proc_track_prog__detach(struct proc_track_prog *p)
{
	bpf_link__destroy(p->mmap_link);
	p->mmap_link = NULL;
	agent_bpf__detach_part(p->skel, AGENT_BPF_PROC_TRACK);
}

int proc_track_prog__follow(struct proc_track_prog *p, pid_t tgid)
{
	__u32 key = (__u32)tgid;

	if (p->all || tgid <= 0)
		return -EINVAL;
	return bpf_map__update_elem(p->skel->maps.ptrack_tgids, &key, sizeof(key), &key,
				    sizeof(key), BPF_ANY);
}

int proc_track_prog__poll(struct proc_track_prog *p, int timeout_ms)
{
	return ring_buffer__poll(p->rb, timeout_ms);
}

int proc_track_prog__consume(struct proc_track_prog *p)
{
	return ring_buffer__consume(p->rb);
}

int proc_track_prog__epoll_fd(const struct proc_track_prog *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

int proc_track_prog__tgids_fd(const struct proc_track_prog *p)
{
	if (p->all)
		return -EINVAL;
	return bpf_map__fd(p->skel->maps.ptrack_tgids);
}

uint32_t proc_track_prog__max_procs(const struct proc_track_prog *p)
{
	return bpf_map__max_entries(p->skel->maps.ptrack_tgids);
}

bool proc_track_prog__uses_tp_btf(const struct proc_track_prog *p)
{
	return p->tp_btf;
}

void proc_track_prog__stats(const struct proc_track_prog *p, struct proc_track_stats *st)
{
	/* .bss is mmap'ed: BPF updates these with atomic adds while we read. */
	st->lost_events = __atomic_load_n(&p->skel->bss->ptrack_lost_events, __ATOMIC_RELAXED);
	st->lost_follows = __atomic_load_n(&p->skel->bss->lost_follows, __ATOMIC_RELAXED);
}

void proc_track_prog__free(struct proc_track_prog *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	bpf_link__destroy(p->mmap_link);
	if (p->own_skel)
		agent_bpf__destroy(p->skel);
	free(p->tgids);
	free(p);
}
