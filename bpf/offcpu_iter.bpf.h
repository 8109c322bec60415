/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * offcpu_iter.bpf.h - the task iterators of offcpu.bpf.c: the blocks in
 * progress when the recording starts (oc_seed) and stops (oc_open). Part
 * of that one object, included at its end: it uses its maps, settings and
 * helpers, and is compiled nowhere else.
 */
#ifndef GPUPERF_BPF_OFFCPU_ITER_BPF_H
#define GPUPERF_BPF_OFFCPU_ITER_BPF_H

/* bpf_ktime_get_ns() when the switch programs were detached; set before oc_open runs */
__u64 open_end_ns = 0;

static __always_inline __u32 task_cpu(struct task_struct *task)
{
	return BPF_CORE_READ(task, thread_info.cpu);
}

/*
 * Run once right after attaching, for attaching to processes that are
 * already running: a followed thread that is switched out now (blocked or
 * waiting for a CPU) gets its switch-out state as if it had switched out
 * now, so its switch-in (or oc_open at stop) writes the span from the start
 * of the recording. Threads the switch program has met already are left
 * alone, so running it twice changes nothing.
 */
SEC("iter/task")
int oc_seed(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct start st = {};
	struct tstate *t;
	__u32 tid;

	if (!task || !task->pid || task->on_cpu)
		return 0;
	tid = task->pid;
	if (!task_filter__task(task, task->tgid, tid, (int)task_cpu(task)))
		return 0;
	st.ts = bpf_ktime_get_ns();
	st.state = task->__state;
	st.cpu = task_cpu(task);
	if (!use_btf) {
		bpf_map_update_elem(&oc_start, &tid, &st, BPF_NOEXIST);
		return 0;
	}
	if (bpf_task_storage_get(&oc_tstate, task, 0, 0))
		return 0;
	t = bpf_task_storage_get(&oc_tstate, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (t && !t->valid) {
		t->st = st;
		t->valid = 1;
	}
	return 0;
}

/*
 * The user stack of a task that is not current, from the user registers it
 * entered the kernel with: the frame-pointer walk perf does, reading the
 * task's memory (sleepable). 0 frames for a kernel thread.
 */
static __always_inline long task_user_stack(struct task_struct *task, __u64 *ips)
{
	struct pt_regs *regs;
	__u64 bp, fr[2];
	long n = 0;
	int i;

	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	ips[n++] = BPF_CORE_READ(regs, ip);
	bp = BPF_CORE_READ(regs, bp);
	for (i = 1; i < GP_BPF_STACK_DEPTH; i++) {
		if (!bp || (bp & 7) || bpf_copy_from_user_task(fr, sizeof(fr), (void *)bp, task, 0))
			break;
		if (!fr[1])
			break;
		ips[i] = fr[1];
		n = i + 1;
		if (fr[0] <= bp)
			break;
		bp = fr[0];
	}
	return n;
}

/*
 * With user_copy: @task's user registers, from its entry to the kernel,
 * and its stack from rsp up, read from its memory (sleepable), page by
 * page as read_ustack() does for the current task. @u lies in a
 * copy_scratch, whose slack takes the overrun of the last page.
 */
static __always_inline void task_ustack_copy(struct task_struct *task, struct offcpu_ustack *u)
{
	struct pt_regs *regs;
	__u64 sp, got = 0;

	u->rip = u->rsp = u->rbp = u->rbx = 0;
	u->flags = 0;
	u->len = 0;
	regs = (BPF_CORE_READ(task, flags) & PF_KTHREAD) || !BPF_CORE_READ(task, mm)
		       ? NULL
		       : (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs || !(BPF_CORE_READ(regs, cs) & 3)) {
		u->flags = OFFCPU_USTACK_NO_REGS;
		return;
	}
	u->rip = BPF_CORE_READ(regs, ip);
	u->rsp = sp = BPF_CORE_READ(regs, sp);
	u->rbp = BPF_CORE_READ(regs, bp);
	u->rbx = BPF_CORE_READ(regs, bx);
	for (int i = 0; i < GP_BPF_USTACK_MAX / 4096 + 1; i++) {
		__u64 chunk = 4096 - ((sp + got) & 4095);

		if (got >= GP_BPF_USTACK_MAX)
			break;
		if (bpf_copy_from_user_task(&u->stack[got], chunk, (void *)(sp + got), task, 0))
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
 * With user_copy: open span @e of @task (kernel stack not yet read) to
 * the seq_file as an offcpu_copy_event, for the agent to unwind with CFI
 * like every other span. 0, or -1 when there was no scratch to build it.
 */
static __always_inline int seq_emit_copy(struct seq_file *seq, struct task_struct *task,
					 const struct offcpu_event *e)
{
	__u32 slot = SCRATCH_SWITCH;
	struct copy_scratch *s = bpf_map_lookup_elem(&oc_copy, &slot);
	struct offcpu_copy_event *c;
	__u64 size, len;
	long nk = 0;

	if (!s)
		return -1;
	c = &s->e;
	__builtin_memcpy(c, e, offsetof(struct offcpu_copy_event, kips));
	c->nr_user = 0;
	c->flags = e->flags | OFFCPU_COPY;
	if (want_kernel) {
		nk = bpf_get_task_stack(task, c->kips, GP_BPF_STACK_DEPTH * 8, 0);
		nk = nk < 0 ? 0 : (long)((__u64)nk / 8);
	}
	c->nr_kernel = (__u16)nk;
	task_ustack_copy(task, &c->u);
	len = c->u.len;
	if (len > GP_BPF_USTACK_MAX)
		len = GP_BPF_USTACK_MAX;
	barrier_var(len); /* the verifier must see the size made of the clamped length */
	size = offsetof(struct offcpu_copy_event, u.stack) + len;
	bpf_seq_write(seq, c, size);
	return 0;
}

static __always_inline void seq_emit(struct seq_file *seq, struct offcpu_event *e)
{
	__u64 n = (__u64)e->nr_user + e->nr_kernel, size = 48 + 8 * n;

	if (size > sizeof(*e))
		size = sizeof(*e);
	bpf_seq_write(seq, e, size);
}

/*
 * Run once at stop, after the switch programs are detached: the blocks still
 * in progress then (switch-out recorded, no switch-in), as spans ending at
 * open_end_ns with both stacks (OFFCPU_OPEN; with user_copy as an
 * offcpu_copy_event, at most ~17.6 KiB of the 32 KiB a task's output may
 * take in the seq_file); spans still waiting for their
 * thread's sys_exit, without user stack; and what each thread summed in its
 * task storage below min_block_ns (OFFCPU_SHORT_SUM). Written to the
 * iterator's seq_file, not the ring buffer: thousands of threads cannot
 * overflow it. It changes no state: the iterator may show a task twice when
 * its output did not fit the buffer.
 */
SEC("iter.s/task")
int oc_open(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct offcpu_event *e, *p;
	struct start st = {}, *s;
	__u32 tid, zero = 0;
	__u64 end, delta;
	bool valid = false;
	long nu = 0, nk = 0;

	if (!task || !task->pid)
		return 0;
	tid = task->pid;
	e = bpf_map_lookup_elem(&oc_scratch, &zero);
	if (!e)
		return 0;
	end = open_end_ns ? open_end_ns : bpf_ktime_get_ns();
	if (use_btf) {
		struct tstate *t = bpf_task_storage_get(&oc_tstate, task, 0, 0);

		if (!t)
			return 0;
		if (t->short_n && sum_short) {
			__builtin_memset(e, 0, 48);
			e->start_ns = t->short_first;
			e->end_ns = t->short_first + t->short_ns;
			e->pid = task->tgid;
			e->tid = tid;
			e->state = t->short_n > 0xffffffffull ? 0xffffffffu : (__u32)t->short_n;
			e->flags = OFFCPU_SHORT_SUM;
			seq_emit(seq, e);
		}
		valid = t->valid;
		st = t->st;
	} else {
		s = bpf_map_lookup_elem(&oc_start, &tid);
		if (s) {
			valid = true;
			st = *s;
		}
	}
	if (want_user) {
		p = bpf_map_lookup_elem(&oc_pending, &tid);
		if (p && !bpf_probe_read_kernel(e, sizeof(*e), p)) {
			e->nr_user = 0;
			e->flags |= OFFCPU_NO_USER_STACK;
			seq_emit(seq, e);
		}
	}
	if (!valid || end <= st.ts)
		return 0;
	delta = end - st.ts;
	if (max_block_ns && delta > max_block_ns)
		return 0;
	if (delta < min_block_ns) {
		if (sum_short) {
			__builtin_memset(e, 0, 48);
			e->start_ns = st.ts;
			e->end_ns = end;
			e->pid = task->tgid;
			e->tid = tid;
			e->state = 1;
			e->flags = OFFCPU_SHORT_SUM;
			seq_emit(seq, e);
		}
		return 0;
	}
	e->start_ns = st.ts;
	e->end_ns = end;
	e->pid = task->tgid;
	e->tid = tid;
	e->waker_pid = st.waker_pid;
	e->waker_tid = st.waker_tid;
	e->cpu = st.cpu;
	e->state = st.state;
	e->flags = OFFCPU_OPEN;
	if (want_user && user_copy && !seq_emit_copy(seq, task, e))
		return 0;
	if (want_user)
		nu = task_user_stack(task, e->ips);
	else
		e->flags |= OFFCPU_NO_USER_STACK;
	if (nu < 0 || nu > GP_BPF_STACK_DEPTH)
		nu = 0;
	if (want_kernel) {
		nk = bpf_get_task_stack(task, &e->ips[nu], GP_BPF_STACK_DEPTH * 8, 0);
		nk = nk < 0 ? 0 : (long)((__u64)nk / 8);
	}
	e->nr_user = nu;
	e->nr_kernel = nk;
	seq_emit(seq, e);
	return 0;
}

#endif /* GPUPERF_BPF_OFFCPU_ITER_BPF_H */
