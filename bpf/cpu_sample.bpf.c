// SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0
/* cpu_sample: perf-event sampler that sends user + kernel stacks of followed threads to a ring buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "cpu_sample.h"

#define TASK_FILTER_KNOBS	cs_filter
#define TASK_FILTER_TGIDS	cs_tgids	/* proc_track's, shared by the loader */
#define TASK_FILTER_TIDS	cs_tids
#include "task_filter.bpf.h"

/*
 * How it works: the loader opens one perf event per online CPU (cycles in
 * frequency mode, or the software CPU clock) and attaches cs_sample to each.
 * On every sample the current thread passes the task filter
 * (task_filter.bpf.h: its tgid in cs_tgids, proc_track's followed-process
 * map shared via bpf_map__reuse_fd(), or its tid in cs_tids; the kind of
 * thread); a followed thread's stacks are read into a per-CPU scratch
 * record and copied to the ring buffer cut after the last frame, so a
 * shallow stack costs little ring space. The CPUs sampled are the loader's
 * choice of perf events.
 */

const volatile __u8 cs_want_user = 1;
const volatile __u8 cs_want_kernel = 1;
/* user threads: registers + a stack copy (cpu_sample_copy_event) instead of a frame-pointer walk */
const volatile __u8 cs_user_copy = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_sample_event);
} cs_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);	/* loader: bpf_map__set_max_entries */
} cs_events SEC(".maps");

/* the copy event, and room for the last page read to overrun it (never sent) */
struct copy_scratch {
	struct cpu_sample_copy_event e;
	__u8 slack[4096];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct copy_scratch);
} cs_copy SEC(".maps");

__u64 cs_lost_events = 0;	/* ring buffer full */
__u64 cs_stack_errors = 0;	/* a wanted stack could not be read */

/*
 * Wake the agent only when the ring is a quarter full: it polls on a short
 * timeout anyway, and a wakeup per sample costs more than the sample.
 */
static __always_inline __u64 rb_wakeup_flags(void *rb)
{
	return bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >
			       bpf_ringbuf_query(rb, BPF_RB_RING_SIZE) / 4
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
}

/*
 * The user registers of the current task (saved at its entry to the
 * kernel: the interrupted ones for a sample taken in user mode) and its
 * stack from rsp up, page by page: a read stops at the first page that
 * cannot be read (the top of the stack), or at GP_BPF_USTACK_MAX.
 */
static __always_inline int send_copy(struct bpf_perf_event_data *ctx, __u32 tgid, __u32 tid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cpu_sample_copy_event *c;
	struct pt_regs *regs;
	__u32 zero = 0;
	__u64 sp, got = 0, size;
	long nk = 0;

	c = bpf_map_lookup_elem(&cs_copy, &zero);
	if (!c)
		return 0;
	c->ts_ns = bpf_ktime_get_ns();
	c->pid = tgid;
	c->tid = tid;
	c->cpu = bpf_get_smp_processor_id();
	c->nr_user = 0;
	c->flags = CPU_SAMPLE_COPY;
	c->pad = 0;
	c->stack_flags = 0;
	c->rip = c->rsp = c->rbp = c->rbx = 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	/* no mm: an exiting task past exit_mm(), its user memory gone (read, not
	 * walked: a walk to a pointer field costs the verifier a scan of the BTF) */
	if ((task->flags & PF_KTHREAD) || !BPF_CORE_READ(task, mm) || !regs || !(regs->cs & 3)) {
		c->stack_flags |= CPU_SAMPLE_NO_REGS;
	} else {
		c->rip = regs->ip;
		c->rsp = sp = regs->sp;
		c->rbp = regs->bp;
		c->rbx = regs->bx;
		for (int i = 0; i < GP_BPF_USTACK_MAX / 4096 + 1; i++) {
			__u64 chunk = 4096 - ((sp + got) & 4095);

			if (got >= GP_BPF_USTACK_MAX)
				break;
			if (bpf_probe_read_user(&c->stack[got], chunk, (void *)(sp + got)))
				break;
			got += chunk;
		}
		if (got >= GP_BPF_USTACK_MAX) {
			got = GP_BPF_USTACK_MAX;
			c->stack_flags |= CPU_SAMPLE_STACK_CUT;
		}
	}
	c->stack_len = (__u32)got;
	if (cs_want_kernel) {
		nk = bpf_get_stack(ctx, c->kips, GP_BPF_STACK_DEPTH * 8, 0);
		if (nk < 0)
			nk = 0;
		nk /= 8;
	}
	c->nr_kernel = (__u16)(nk & 0xff);
	size = offsetof(struct cpu_sample_copy_event, stack) + got;
	if (size > sizeof(*c))
		size = sizeof(*c);
	if (bpf_ringbuf_output(&cs_events, c, size, rb_wakeup_flags(&cs_events)))
		__sync_fetch_and_add(&cs_lost_events, 1);
	return 0;
}

SEC("perf_event")
int cs_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct cpu_sample_event *e;
	long nu = 0, nk = 0;
	__u64 size;

	if (tgid == 0)
		return 0;	/* idle */
	if (!task_filter__current(tgid, tid))
		return 0;
	if (cs_user_copy && cs_want_user)
		return send_copy(ctx, tgid, (__u32)id);
	e = bpf_map_lookup_elem(&cs_scratch, &zero);
	if (!e)
		return 0;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = tgid;
	e->tid = (__u32)id;
	e->cpu = bpf_get_smp_processor_id();
	e->flags = 0;
	e->pad = 0;
	if (cs_want_user) {
		nu = bpf_get_stack(ctx, e->ips, GP_BPF_STACK_DEPTH * 8, BPF_F_USER_STACK);
		if (nu < 0) {
			e->flags |= CPU_SAMPLE_USER_ERR;
			nu = 0;
		}
		nu /= 8;
	}
	nu &= 0xff;
	if (nu > GP_BPF_STACK_DEPTH)
		nu = GP_BPF_STACK_DEPTH;
	if (cs_want_kernel) {
		nk = bpf_get_stack(ctx, &e->ips[nu], GP_BPF_STACK_DEPTH * 8, 0);
		if (nk < 0) {
			/* a sample taken in user mode has no kernel stack: not an error */
			nk = 0;
		}
		nk /= 8;
	}
	nk &= 0xff;
	if (nk > GP_BPF_STACK_DEPTH)
		nk = GP_BPF_STACK_DEPTH;
	if (e->flags)
		__sync_fetch_and_add(&cs_stack_errors, 1);
	e->nr_user = nu;
	e->nr_kernel = nk;
	size = 32 + 8 * (nu + nk);
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&cs_events, e, size, rb_wakeup_flags(&cs_events)))
		__sync_fetch_and_add(&cs_lost_events, 1);
	return 0;
}

char cs_license[] SEC("license") = "GPL";
