// SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0
/* offcpu: spans during which followed threads were switched out, with the stacks they blocked at. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "offcpu.h"

#define TASK_FILTER_KNOBS	oc_filter
#define TASK_FILTER_TGIDS	oc_tgids	/* proc_track's, shared by the loader */
#define TASK_FILTER_TIDS	oc_tids
#include "task_filter.bpf.h"

/*
 * How it works, and why it is cheap per switch. Walking stacks is what makes
 * off-CPU tracing expensive (offcputime walks two per switch), and most
 * blocks are far shorter than the minimum anyone keeps. So:
 *
 *  - switch-out of a followed thread: store (time, state, cpu) in oc_start.
 *    No stack walk.
 *  - switch-in: look the thread up; a block shorter than min_block_ns ends
 *    here (a lookup and a delete). A longer one gets its kernel stack now,
 *    with bpf_get_task_stack() on the incoming task, whose saved kernel
 *    stack is still exactly where it blocked (tp_btf only: raw_tp cannot
 *    pass a task pointer to that helper, so the fallback has no kernel
 *    stack).
 *  - the user stack cannot be read for a task that is not current, and a
 *    thread that slept in a syscall has the same user stack when that
 *    syscall returns: the span waits in oc_pending until sys_exit of that
 *    thread, which reads the user stack and sends the span. A thread that was
 *    preempted (state TASK_RUNNING) or slept outside a syscall (a page
 *    fault) has no sys_exit to wait for: preempted spans go out at once
 *    without user stack (OFFCPU_NO_USER_STACK). A pending span still there
 *    when its thread switches out again (a syscall that blocks twice, or is
 *    preempted before it returns) is sent then, with the user stack of
 *    that switch-out: the thread is still in the same kernel entry.
 *    With user_copy (CFI unwinding in the agent) the user stack is sent as
 *    registers + a stack copy (offcpu_copy_event), and a preempted thread's
 *    is copied at the switch-out that preempts it, when it is current,
 *    into oc_ucopy for its span at switch-in.
 *  - sched_waking of a thread in oc_start records the waker and the time.
 *  - switches the tracepoint never showed: a thread that passes sys_exit or
 *    switches out again with its last switch-out unmatched lost a switch-in;
 *    its span is repaired (send_repaired()). A sleeping thread woken off
 *    every CPU with no switch-out recorded lost a switch-out: its block
 *    cannot be rebuilt, so it is counted (missed_switch_outs) and reported.
 *  - blocks shorter than min_block_ns are not lost from the totals: their
 *    lengths are summed per thread (in the task storage, moved to the
 *    oc_short hash whenever a thread's sum reaches min_block_ns or a long
 *    block of it ends; under raw_tp straight into oc_short). The loader
 *    reads oc_short at stop, after oc_open has sent what is still in the
 *    task storage.
 *  - blocks in progress at the ends of the recording: the task iterator
 *    oc_seed (run once after attaching to running processes) gives the
 *    threads switched out then a switch-out time of "now"; oc_open (run
 *    once at stop, after detaching) writes the blocks still in progress as
 *    spans cut at stop, so a thread blocked throughout is covered too.
 *  - which threads: the task filter (task_filter.bpf.h) on the task
 *    switching out: followed tgids (oc_tgids) or, with filter_tids, the
 *    tids in oc_tids; optionally only user or only kernel threads
 *    (PF_KTHREAD) and only switch-outs on the CPUs in cpu_mask. Blocks
 *    longer than max_block_ns are dropped.
 *
 * Per-thread state lives in task-local storage under tp_btf (freed with
 * the task); the raw_tp fallback, whose task pointers are untrusted, uses
 * LRU hash maps keyed by tid instead. oc_pending is LRU either way, so
 * threads that exit never leak entries.
 */

const volatile __u8 want_user = 1;
const volatile __u8 want_kernel = 1;
const volatile __u8 use_btf = 1;
const volatile __u64 min_block_ns = 1000000;
const volatile __u64 max_block_ns = 0;		/* 0: no limit */
const volatile __u8 sum_short = 1;		/* sum blocks below min_block_ns in oc_short */
const volatile __u8 fault = OFFCPU_FAULT_NONE;	/* tests only: see offcpu.h */
const volatile __u32 fault_every = 0;
/* user stacks as registers + a stack copy (offcpu_copy_event) instead of a frame-pointer walk */
const volatile __u8 user_copy = 0;

struct start {
	__u64 ts;
	__u32 state;
	__u32 cpu;
	__u32 waker_pid;
	__u32 waker_tid;
	__u64 wake_ts;		/* sched_waking of this block; 0: none seen */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);		/* tid */
	__type(value, struct start);
} oc_start SEC(".maps");	/* raw_tp fallback only */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* loader: bpf_map__set_max_entries */
	__type(key, __u32);		/* tid */
	__type(value, struct offcpu_short);
} oc_short SEC(".maps");

/* tp_btf: the same per-thread state in task-local storage, without hashing */
struct tstate {
	struct start st;
	__u32 valid;		/* st holds a switch-out not yet matched */
	__u32 pending;		/* oc_pending has a span of this thread */
	__u64 short_first;	/* short blocks not yet moved to oc_short */
	__u64 short_ns;
	__u64 short_n;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstate);
} oc_tstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2048);
	__type(key, __u32);		/* tid */
	__type(value, struct offcpu_event);	/* kernel frames in ips[0..nr_kernel) */
} oc_pending SEC(".maps");

/*
 * A record being built, per CPU: one slot for the switch programs (and the
 * iterators, which run with them detached), one for sys_exit, so a sys_exit
 * program preempted mid-record (a preemptible kernel runs syscall
 * tracepoints preemptible) cannot have its record overwritten by a switch.
 */
#define SCRATCH_SWITCH	0
#define SCRATCH_EXIT	1
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct offcpu_event);
} oc_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);	/* loader: bpf_map__set_max_entries */
} oc_events SEC(".maps");

/*
 * With user_copy: a copy event being built, per CPU, one slot per program
 * kind as oc_scratch, and room for the last page read to overrun it.
 */
struct copy_scratch {
	struct offcpu_copy_event e;
	__u8 slack[4096];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct copy_scratch);
} oc_copy SEC(".maps");

/*
 * With user_copy: the user registers and stack of each preempted thread,
 * taken at the switch-out that preempted it (it is the current task
 * there), for its span at switch-in. LRU: a copy evicted before its
 * switch-in leaves that span without user stack (ustack_lost).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);		/* loader: with user_copy, a few hundred */
	__type(key, __u32);		/* tid */
	__type(value, struct offcpu_ustack);
} oc_ucopy SEC(".maps");

__u64 lost_events = 0;
__u64 stack_errors = 0;
__u64 ustack_lost = 0;	/* preempted spans sent without user stack: no copy kept */
__u64 short_lost = 0;	/* oc_short full: short blocks of a thread not counted */
__u64 missed_switch_ins = 0;	/* switch-ins the tracepoint never showed: see send_repaired() */
__u64 missed_switch_outs = 0;	/* wake-ups of threads whose switch-out the tracepoint never showed */

/*
 * Tests only: is this switch of kind @kind (OFFCPU_FAULT_*) to be ignored?
 * One in fault_every at random: a fixed period can fall in step with a
 * program's own pattern of switches and always miss the same ones.
 */
static __always_inline bool fault_hit(__u8 kind)
{
	if (fault != kind || !fault_every)
		return false;
	return bpf_get_prandom_u32() % fault_every == 0;
}

/* Add @n blocks of @ns in total, the first switched out at @first, to @tid's sum. */
static __always_inline void short_add(__u32 pid, __u32 tid, __u64 first, __u64 ns, __u64 n)
{
	struct offcpu_short *v = bpf_map_lookup_elem(&oc_short, &tid), nv;

	if (!v) {
		nv.first_ns = first;
		nv.total_ns = ns;
		nv.count = n;
		nv.pid = pid;
		nv.tid = tid;
		if (!bpf_map_update_elem(&oc_short, &tid, &nv, BPF_NOEXIST))
			return;
		v = bpf_map_lookup_elem(&oc_short, &tid); /* raced with another CPU */
		if (!v) {
			__sync_fetch_and_add(&short_lost, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->total_ns, ns);
	__sync_fetch_and_add(&v->count, n);
}

/* Move what @t summed to oc_short. */
static __always_inline void short_flush(struct tstate *t, __u32 pid, __u32 tid)
{
	if (!t->short_n)
		return;
	short_add(pid, tid, t->short_first, t->short_ns, t->short_n);
	t->short_ns = 0;
	t->short_n = 0;
}

static __always_inline __u64 rb_wakeup_flags(void)
{
	return bpf_ringbuf_query(&oc_events, BPF_RB_AVAIL_DATA) >
			       bpf_ringbuf_query(&oc_events, BPF_RB_RING_SIZE) / 4
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(struct offcpu_event *e)
{
	__u64 n = (__u64)e->nr_user + e->nr_kernel, size;

	size = 48 + 8 * n;
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&oc_events, e, size, rb_wakeup_flags()))
		__sync_fetch_and_add(&lost_events, 1);
}

/* The current thread's user stack into e->ips (flag on error): 0..GP_BPF_STACK_DEPTH frames. */
static __always_inline long current_user_stack(void *ctx, struct offcpu_event *e)
{
	long nu = bpf_get_stack(ctx, e->ips, GP_BPF_STACK_DEPTH * 8, BPF_F_USER_STACK);

	if (nu < 0) {
		__sync_fetch_and_add(&stack_errors, 1);
		e->flags |= OFFCPU_USER_ERR;
		return 0;
	}
	nu /= 8;
	return nu > GP_BPF_STACK_DEPTH ? GP_BPF_STACK_DEPTH : nu;
}

/*
 * The user registers of the current task (saved at its entry to the
 * kernel) and its stack from rsp up, page by page: the copy stops at the
 * first page that cannot be read without faulting (the top of the stack,
 * or a page swapped out: the agent's unwind then ends there, counted), or
 * at GP_BPF_USTACK_MAX. @u lies in a copy_scratch, whose slack takes the
 * overrun of the last page.
 */
static __always_inline void read_ustack(struct offcpu_ustack *u)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 sp, got = 0;

	u->rip = u->rsp = u->rbp = u->rbx = 0;
	u->flags = 0;
	/* no mm: an exiting task past exit_mm(), its user memory gone (read, not
	 * walked: a walk to a pointer field costs the verifier a scan of the BTF) */
	if ((task->flags & PF_KTHREAD) || !BPF_CORE_READ(task, mm) || !regs || !(regs->cs & 3)) {
		u->flags = OFFCPU_USTACK_NO_REGS;
		u->len = 0;
		return;
	}
	u->rip = regs->ip;
	u->rsp = sp = regs->sp;
	u->rbp = regs->bp;
	u->rbx = regs->bx;
	for (int i = 0; i < GP_BPF_USTACK_MAX / 4096 + 1; i++) {
		__u64 chunk = 4096 - ((sp + got) & 4095);

		if (got >= GP_BPF_USTACK_MAX)
			break;
		if (bpf_probe_read_user(&u->stack[got], chunk, (void *)(sp + got)))
			break;
		got += chunk;
	}
	if (got >= GP_BPF_USTACK_MAX) {
		got = GP_BPF_USTACK_MAX;
		u->flags |= OFFCPU_USTACK_CUT;
	}
	u->len = (__u32)got;
}

/*
 * With user_copy: send span @src (its kernel stack in src->ips, no user
 * addresses) from copy slot @slot, with the user registers and stack of
 * the current task (@saved NULL) or those @saved at a preempting
 * switch-out.
 */
static __always_inline void emit_copy(const struct offcpu_event *src, __u32 slot,
				      const struct offcpu_ustack *saved)
{
	struct copy_scratch *s = bpf_map_lookup_elem(&oc_copy, &slot);
	struct offcpu_copy_event *c;
	__u64 size, len;
	long nk;

	if (!s)
		return;
	c = &s->e;
	c->start_ns = src->start_ns;
	c->end_ns = src->end_ns;
	c->pid = src->pid;
	c->tid = src->tid;
	c->waker_pid = src->waker_pid;
	c->waker_tid = src->waker_tid;
	c->cpu = src->cpu;
	c->state = src->state;
	c->nr_user = 0;
	c->flags = src->flags | OFFCPU_COPY;
	nk = src->nr_kernel;
	if (nk > GP_BPF_STACK_DEPTH)
		nk = GP_BPF_STACK_DEPTH;
	if (nk > 0 && bpf_probe_read_kernel(c->kips, nk * 8, src->ips))
		nk = 0;
	c->nr_kernel = (__u16)nk;
	if (!saved)
		read_ustack(&c->u);
	else if (bpf_probe_read_kernel(&c->u, sizeof(c->u), saved))
		c->u.len = 0;
	len = c->u.len;
	if (len > GP_BPF_USTACK_MAX)
		len = GP_BPF_USTACK_MAX;
	size = offsetof(struct offcpu_copy_event, u.stack) + len;
	if (bpf_ringbuf_output(&oc_events, c, size, rb_wakeup_flags()))
		__sync_fetch_and_add(&lost_events, 1);
}

/* With user_copy: a preempted thread switching out keeps its user stack for its span. */
static __always_inline void save_ustack(__u32 tid)
{
	__u32 slot = SCRATCH_SWITCH;
	struct copy_scratch *s = bpf_map_lookup_elem(&oc_copy, &slot);

	if (!s)
		return;
	read_ustack(&s->e.u);
	if (bpf_map_update_elem(&oc_ucopy, &tid, &s->e.u, BPF_ANY))
		bpf_map_delete_elem(&oc_ucopy, &tid); /* an older copy must not stand in */
}

/*
 * A preempted thread's span @e, switched in now: with user_copy, the user
 * stack kept at its switch-out; otherwise none.
 */
static __always_inline void emit_preempted(struct offcpu_event *e, __u32 tid)
{
	struct offcpu_ustack *u;

	if (want_user && user_copy) {
		u = bpf_map_lookup_elem(&oc_ucopy, &tid);
		if (u) {
			emit_copy(e, SCRATCH_SWITCH, u);
			bpf_map_delete_elem(&oc_ucopy, &tid);
			return;
		}
		__sync_fetch_and_add(&ustack_lost, 1);
	}
	if (want_user)
		e->flags |= OFFCPU_NO_USER_STACK;
	emit(e);
}

/*
 * Send @tid's pending span with the current user stack, from scratch slot
 * @slot. At its sys_exit that is the stack of the syscall it slept in. At a
 * new switch-out before that sys_exit (flush_pending) it is the same stack:
 * the thread is still inside the kernel entry it slept in (a syscall that
 * blocks more than once, like a write to a full pipe, or one preempted
 * between its wake-up and its return), and the user registers saved at
 * that entry are what the walk starts from.
 */
static __always_inline void send_pending(void *ctx, __u32 tid, __u32 slot)
{
	struct offcpu_event *p = bpf_map_lookup_elem(&oc_pending, &tid), *e;
	long nu, nk, sz;

	if (!p)
		return;
	if (user_copy) {
		emit_copy(p, slot, NULL);
		bpf_map_delete_elem(&oc_pending, &tid);
		return;
	}
	e = bpf_map_lookup_elem(&oc_scratch, &slot);
	if (!e) {
		bpf_map_delete_elem(&oc_pending, &tid);
		return;
	}
	e->start_ns = p->start_ns;
	e->end_ns = p->end_ns;
	e->pid = p->pid;
	e->tid = p->tid;
	e->waker_pid = p->waker_pid;
	e->waker_tid = p->waker_tid;
	e->cpu = p->cpu;
	e->state = p->state;
	e->flags = p->flags;
	nu = current_user_stack(ctx, e);
	nk = p->nr_kernel;
	if (nk > GP_BPF_STACK_DEPTH)
		nk = GP_BPF_STACK_DEPTH;
	sz = nk * 8;
	if (sz > 0 && sz <= GP_BPF_STACK_DEPTH * 8 && nu >= 0 && nu <= GP_BPF_STACK_DEPTH)
		bpf_probe_read_kernel(&e->ips[nu], sz, p->ips);
	else
		nk = 0;
	e->nr_user = nu;
	e->nr_kernel = nk;
	emit(e);
	bpf_map_delete_elem(&oc_pending, &tid);
}

/* A pending span whose thread switches out again before its sys_exit (@ctx: the switch's). */
static __always_inline void flush_pending(void *ctx, __u32 tid)
{
	send_pending(ctx, tid, SCRATCH_SWITCH);
}

/* Fill scratch record @e for a span of @next that ended now; kernel stack only. */
static __always_inline void span_begin(struct offcpu_event *e, struct task_struct *next,
				       const struct start *s, __u64 now, bool btf)
{
	long nk = 0;

	e->start_ns = s->ts;
	e->end_ns = now;
	e->pid = BPF_CORE_READ(next, tgid);
	e->tid = BPF_CORE_READ(next, pid);
	e->waker_pid = s->waker_pid;
	e->waker_tid = s->waker_tid;
	e->cpu = s->cpu;
	e->state = s->state;
	e->flags = 0;
	if (want_kernel && btf) {
		nk = bpf_get_task_stack(next, e->ips, GP_BPF_STACK_DEPTH * 8, 0);
		if (nk < 0) {
			__sync_fetch_and_add(&stack_errors, 1);
			nk = 0;
		}
		nk /= 8;
	}
	e->nr_kernel = nk & 0xff;
	e->nr_user = 0;
}

/*
 * A followed thread switched out and then, with no switch-in seen, either
 * passed sys_exit (so it is running) or switched out again. That happens: on
 * some kernels and VMs a switch-in is occasionally missing from the
 * tracepoint's stream (perf record -e sched:sched_switch misses the same
 * one). Without a repair the block is lost whole, overwritten by the next
 * switch-out. The span is sent with the current user stack (the thread is
 * still in, or returning from, the kernel entry it slept in: a switch-out
 * with no sys_exit between) and no kernel stack (the one at the switch is
 * gone). It ends at @end: at sys_exit "now", within microseconds of the real
 * switch-in for a system call that blocked; at a second switch-out the time
 * sched_waking woke it (the thread may have run for long since), or, with
 * no wake-up seen, it is dropped. A thread that was preempted (state
 * TASK_RUNNING) may have run in user space for any time since its unseen
 * switch-in, so its span is dropped too rather than written over time the
 * thread spent running. Every repair is counted (missed_switch_ins).
 */
static __always_inline void send_repaired(void *ctx, struct task_struct *task,
					  const struct start *s, __u64 end, __u32 slot)
{
	struct offcpu_event *e = bpf_map_lookup_elem(&oc_scratch, &slot);

	if (!e)
		return;
	span_begin(e, task, s, end, false);
	if (want_user && user_copy) {
		emit_copy(e, slot, NULL);
		return;
	}
	if (want_user)
		e->nr_user = current_user_stack(ctx, e);
	else
		e->flags |= OFFCPU_NO_USER_STACK;
	emit(e);
}

/*
 * raw_tp's span_wanted(): a block of @delta ns of @task (@tid), switched
 * out at @ts, just ended; a short one is summed straight into oc_short.
 * True if it is to be sent as a span.
 */
static __always_inline bool span_wanted_raw(struct task_struct *task, __u32 tid, __u64 ts,
					    __u64 delta)
{
	if (delta < min_block_ns) {
		if (sum_short)
			short_add(BPF_CORE_READ(task, tgid), tid, ts, delta, 1);
		return false;
	}
	return !(max_block_ns && delta > max_block_ns);
}

/* raw_tp: @s (a copy, its oc_start entry gone) is @task's unmatched switch-out */
static __always_inline void missed_switch_in_raw(void *ctx, struct task_struct *task, __u32 tid,
						 const struct start *s, __u64 end, __u32 slot)
{
	__sync_fetch_and_add(&missed_switch_ins, 1);
	if (s->state && end > s->ts && span_wanted_raw(task, tid, s->ts, end - s->ts))
		send_repaired(ctx, task, s, end, slot);
}

/* raw_tp: task pointers are untrusted here, so hash maps keyed by tid */
static __always_inline int handle_switch(void *ctx, struct task_struct *prev,
					 struct task_struct *next, __u32 prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 ptid = BPF_CORE_READ(prev, pid), ntid = BPF_CORE_READ(next, pid), zero = 0;
	struct offcpu_event *e;
	struct start *s, st;

	if (ptid) {
		__u32 ptgid = BPF_CORE_READ(prev, tgid);

		if (task_filter__task(prev, ptgid, ptid, -1) &&
		    !fault_hit(OFFCPU_FAULT_SWITCH_OUT)) {
			if (want_user)
				flush_pending(ctx, ptid);
			s = bpf_map_lookup_elem(&oc_start, &ptid);
			if (s) {
				/* switched out twice with no switch-in seen: see send_repaired() */
				st = *s;
				missed_switch_in_raw(ctx, prev, ptid, &st, st.wake_ts, SCRATCH_SWITCH);
			}
			st.ts = now;
			st.state = prev_state;
			st.cpu = bpf_get_smp_processor_id();
			st.waker_pid = 0;
			st.waker_tid = 0;
			st.wake_ts = 0;
			bpf_map_update_elem(&oc_start, &ptid, &st, BPF_ANY);
			if (!prev_state && want_user && user_copy)
				save_ustack(ptid);
		}
	}

	if (!ntid)
		return 0;
	s = bpf_map_lookup_elem(&oc_start, &ntid);
	if (!s || fault_hit(OFFCPU_FAULT_SWITCH_IN))
		return 0;
	if (!span_wanted_raw(next, ntid, s->ts, now - s->ts)) {
		bpf_map_delete_elem(&oc_start, &ntid);
		return 0;
	}
	e = bpf_map_lookup_elem(&oc_scratch, &zero);
	if (!e) {
		bpf_map_delete_elem(&oc_start, &ntid);
		return 0;
	}
	st = *s;
	bpf_map_delete_elem(&oc_start, &ntid);
	span_begin(e, next, &st, now, false);
	if (want_user && e->state != 0) {
		/* slept in the kernel: the user stack comes at its sys_exit */
		if (bpf_map_update_elem(&oc_pending, &ntid, e, BPF_ANY))
			__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	emit_preempted(e, ntid);
	return 0;
}

/*
 * A block of @delta ns of a thread just ended: sum it if it is short (in
 * the task storage, moved to oc_short when the sum reaches min_block_ns);
 * true if it is to be sent as a span.
 */
static __always_inline bool span_wanted(struct tstate *t, __u32 pid, __u32 tid, __u64 delta)
{
	if (delta < min_block_ns) {
		if (sum_short) {
			if (!t->short_n)
				t->short_first = t->st.ts;
			t->short_ns += delta;
			t->short_n++;
			if (t->short_ns >= min_block_ns)
				short_flush(t, pid, tid);
		}
		return false;
	}
	if (sum_short)
		short_flush(t, pid, tid);
	return !(max_block_ns && delta > max_block_ns);
}

/* tp_btf: @t's unmatched switch-out, ending at @end (0: unknown, dropped); see send_repaired() */
static __always_inline void missed_switch_in(void *ctx, struct task_struct *task, struct tstate *t,
					     __u64 end, __u32 slot)
{
	t->valid = 0;
	__sync_fetch_and_add(&missed_switch_ins, 1);
	if (!t->st.state || end <= t->st.ts ||
	    !span_wanted(t, task->tgid, task->pid, end - t->st.ts))
		return;
	send_repaired(ctx, task, &t->st, end, slot);
}

/*
 * The tp_btf version of handle_switch(): per-thread state in task-local
 * storage (a pointer in the task, no hashing, freed with the task) instead
 * of LRU hash updates and deletes, which were most of the per-switch cost.
 */
static __always_inline int handle_switch_btf(void *ctx, struct task_struct *prev,
					     struct task_struct *next, __u32 prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0, ptgid = prev->tgid, ntid;
	struct offcpu_event *e;
	struct tstate *t;
	__u64 delta;

	if (prev->pid && task_filter__task(prev, ptgid, prev->pid, -1) &&
	    !fault_hit(OFFCPU_FAULT_SWITCH_OUT)) {
		t = bpf_task_storage_get(&oc_tstate, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (t) {
			if (t->pending) {
				flush_pending(ctx, prev->pid);
				t->pending = 0;
			}
			if (t->valid)
				/* switched out twice with no switch-in seen */
				missed_switch_in(ctx, prev, t, t->st.wake_ts, SCRATCH_SWITCH);
			t->st.ts = now;
			t->st.state = prev_state;
			t->st.cpu = bpf_get_smp_processor_id();
			t->st.waker_pid = 0;
			t->st.waker_tid = 0;
			t->st.wake_ts = 0;
			t->valid = 1;
			if (!prev_state && want_user && user_copy)
				save_ustack(prev->pid);
		}
	}

	if (!next->pid)
		return 0;
	t = bpf_task_storage_get(&oc_tstate, next, 0, 0);
	if (!t || !t->valid || fault_hit(OFFCPU_FAULT_SWITCH_IN))
		return 0;
	t->valid = 0;
	delta = now - t->st.ts;
	if (!span_wanted(t, next->tgid, next->pid, delta))
		return 0;
	e = bpf_map_lookup_elem(&oc_scratch, &zero);
	if (!e)
		return 0;
	span_begin(e, next, &t->st, now, true);
	ntid = next->pid;
	if (want_user && e->state != 0) {
		/* slept in the kernel: the user stack comes at its sys_exit */
		if (!bpf_map_update_elem(&oc_pending, &ntid, e, BPF_ANY))
			t->pending = 1;
		else
			__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	emit_preempted(e, ntid);
	return 0;
}

static __always_inline int handle_waking_btf(struct task_struct *p)
{
	struct tstate *t = bpf_task_storage_get(&oc_tstate, p, 0, 0);
	__u64 id;

	if (!t)
		return 0;
	if (!t->valid) {
		/*
		 * A sleeping thread off every CPU has switched out (on_cpu is
		 * cleared after the switch's tracepoint ran), yet its switch-out
		 * is not here: the tracepoint did not show it, and the block it
		 * ends is lost. Count it so the loss is reported. valid is read
		 * again after on_cpu: the switch stored it before on_cpu was
		 * cleared, so a switch-out that raced with the first read is
		 * seen. Switch-outs on CPUs left out by cpu_mask are not traced
		 * by design.
		 */
		if (!oc_filter.filter_cpus && !*(volatile int *)&p->on_cpu &&
		    !*(volatile __u32 *)&t->valid)
			__sync_fetch_and_add(&missed_switch_outs, 1);
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	t->st.waker_pid = id >> 32;
	t->st.waker_tid = (__u32)id;
	t->st.wake_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int handle_waking(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct start *s = bpf_map_lookup_elem(&oc_start, &tid);
	__u64 id;

	if (!s)
		return 0;
	id = bpf_get_current_pid_tgid();
	s->waker_pid = id >> 32;
	s->waker_tid = (__u32)id;
	s->wake_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int handle_sys_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (!want_user)
		return 0;
	if (use_btf) {
		/* the common case, no span pending: one pointer load, no hashing */
		struct task_struct *cur = bpf_get_current_task_btf();
		struct tstate *t = bpf_task_storage_get(&oc_tstate, cur, 0, 0);

		if (!t)
			return 0;
		if (t->valid) {
			/* running, yet its last switch-out is unmatched: see send_repaired() */
			missed_switch_in(ctx, cur, t, bpf_ktime_get_ns(), SCRATCH_EXIT);
			return 0;
		}
		if (!t->pending)
			return 0;
		t->pending = 0;
	} else {
		struct start *s = bpf_map_lookup_elem(&oc_start, &tid), st;

		if (s) {
			/* the same repair as under tp_btf */
			st = *s;
			bpf_map_delete_elem(&oc_start, &tid);
			missed_switch_in_raw(ctx, (struct task_struct *)bpf_get_current_task(), tid,
					     &st, bpf_ktime_get_ns(), SCRATCH_EXIT);
		}
	}
	send_pending(ctx, tid, SCRATCH_EXIT);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(oc_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return handle_switch_btf(ctx, prev, next, prev_state);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(oc_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return handle_switch(ctx, prev, next, prev_state);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(oc_waking, struct task_struct *p)
{
	return handle_waking_btf(p);
}

SEC("raw_tp/sched_waking")
int BPF_PROG(oc_waking_raw, struct task_struct *p)
{
	return handle_waking(p);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(oc_sys_exit, struct pt_regs *regs, long ret)
{
	return handle_sys_exit(ctx);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(oc_sys_exit_raw, struct pt_regs *regs, long ret)
{
	return handle_sys_exit(ctx);
}

/* ---- task iterators: blocks in progress when the recording starts and stops ---- */
#include "offcpu_iter.bpf.h"

char oc_license[] SEC("license") = "GPL";
