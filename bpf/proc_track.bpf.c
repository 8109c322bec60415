// SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0
/* proc_track: fork/exec/exit of a followed process tree, as events on a ring buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "proc_track.h"

#define TASK_FILTER_KNOBS	ptrack_filter
#define TASK_FILTER_TGIDS	ptrack_tgids	/* this program's own: the others share it */
#include "task_filter.bpf.h"

/*
 * How it works: ptrack_tgids holds the followed processes. The loader seeds
 * it with the targets; a fork by a followed process adds the child before
 * the child can run, so the whole tree below a target is followed without
 * races; the exit of a process's last thread removes it. With
 * filter_tgids == 0 every process is reported and the map is unused.
 *
 * Each tracepoint has a tp_btf program and a raw_tp twin; the loader keeps
 * exactly one of each pair (bpf_program__set_autoload). The bodies use
 * BPF_CORE_READ throughout, so the same code is valid for raw_tp, whose
 * arguments are untrusted pointers.
 */

const volatile __u8 thread_exits = 0;	/* report non-last threads' exits too */

/* mmap(2)'s number and flags, which vmlinux.h does not carry (x86-64 uapi) */
#define PT_NR_MMAP	9
#define PT_PROT_EXEC	0x4
#define PT_MAP_ANONYMOUS 0x20

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);	/* loader: bpf_map__set_max_entries */
} ptrack_events SEC(".maps");

/* Read by the loader; losses are counted, never silent. */
__u64 ptrack_lost_events = 0;	/* ring buffer full */
__u64 lost_follows = 0;	/* ptrack_tgids full: a child of a followed process is not followed */

static __always_inline struct proc_track_event *event_reserve(__u32 type, __u32 pid)
{
	struct proc_track_event *e;

	e = bpf_ringbuf_reserve(&ptrack_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&ptrack_lost_events, 1);
		return NULL;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->pid = pid;
	e->tid = 0;
	e->ppid = 0;
	e->exit_status = 0;
	e->flags = 0;
	e->filename[0] = '\0';
	return e;
}

static __always_inline int handle_fork(struct task_struct *parent, struct task_struct *child)
{
	struct proc_track_event *e;
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);

	if (ptgid == ctgid)	/* a new thread, not a new process */
		return 0;
	if (!task_filter__tgid(ptgid))
		return 0;
	if (ptrack_filter.filter_tgids && bpf_map_update_elem(&ptrack_tgids, &ctgid, &ptgid, BPF_ANY))
		__sync_fetch_and_add(&lost_follows, 1);

	e = event_reserve(PROC_TRACK_FORK, ctgid);
	if (!e)
		return 0;
	e->tid = BPF_CORE_READ(child, pid);
	e->ppid = ptgid;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int handle_exec(struct task_struct *task, pid_t old_pid,
				       struct linux_binprm *bprm)
{
	struct proc_track_event *e;
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (!task_filter__tgid(tgid))
		return 0;
	e = event_reserve(PROC_TRACK_EXEC, tgid);
	if (!e)
		return 0;
	e->tid = old_pid;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	bpf_probe_read_kernel_str(&e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int handle_exit(struct task_struct *task)
{
	struct proc_track_event *e;
	__u32 tgid = BPF_CORE_READ(task, tgid);

	/*
	 * do_exit() drops signal->live before this tracepoint fires, so 0 means
	 * the last thread of the process is leaving. (The tracepoint's own
	 * group_dead argument only exists since 6.16.)
	 */
	if (BPF_CORE_READ(task, signal, live.counter) != 0) {
		if (!thread_exits || !task_filter__tgid(tgid))
			return 0;
		e = event_reserve(PROC_TRACK_THREAD_EXIT, tgid);
		if (!e)
			return 0;
		e->tid = BPF_CORE_READ(task, pid);
		BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
		bpf_ringbuf_submit(e, 0);
		return 0;
	}
	if (!task_filter__tgid(tgid))
		return 0;
	if (ptrack_filter.filter_tgids)
		bpf_map_delete_elem(&ptrack_tgids, &tgid);

	e = event_reserve(PROC_TRACK_EXIT, tgid);
	if (!e)
		return 0;
	e->tid = BPF_CORE_READ(task, pid);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->exit_status = BPF_CORE_READ(task, exit_code);
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ptrack_fork, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(ptrack_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ptrack_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(task, old_pid, bprm);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(ptrack_exec_raw, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(task, old_pid, bprm);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ptrack_exit, struct task_struct *task)
{
	return handle_exit(task);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(ptrack_exit_raw, struct task_struct *task)
{
	return handle_exit(task);
}

/*
 * A followed process about to map a file executable: ld.so loading a
 * library, dlopen. The agent reads the process's mappings again soon after,
 * while it lives: its stacks are unwound when read, often after it exited.
 * Loaded only when the loader asks (opts.mmap_exec), and only as tp_btf:
 * the raw tracepoint of every syscall, whose detach is quick (a perf-event
 * syscalls:sys_enter_mmap costs ~70 ms to close on this VM), returning at
 * once for anything but mmap.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(ptrack_mmap, struct pt_regs *regs, long id)
{
	struct proc_track_event *e;
	__u64 pid_tgid;

	if (id != PT_NR_MMAP)
		return 0;
	/* mmap(addr, len, prot, flags, fd, off): rdi, rsi, rdx, r10, r8, r9 */
	if (!(regs->dx & PT_PROT_EXEC) || (regs->r10 & PT_MAP_ANONYMOUS) || (int)regs->r8 < 0)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!task_filter__tgid(pid_tgid >> 32))
		return 0;
	e = event_reserve(PROC_TRACK_MMAP_EXEC, pid_tgid >> 32);
	if (!e)
		return 0;
	e->tid = (__u32)pid_tgid;
	e->comm[0] = '\0';
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* GPL-compatible so the kernel allows bpf_probe_read_kernel_str(); see SPDX line. */
char ptrack_license[] SEC("license") = "GPL";
