// SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0
/* cuda_launch: uprobes on CUDA launch/copy entry points -- tid, time and user stack of each call. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "cuda_launch.h"

/*
 * How it works: the loader attaches cl_entry once per resolved entry point
 * (at the function's first instruction), with the entry point's index as
 * the BPF cookie. A hit from a followed process sends the user stack and
 * the word at %sp. At a function's first instruction that word is the
 * return address into the caller, which the kernel's frame-pointer walk
 * skips unless the function starts with `push %rbp` (bpf/README.md); user
 * space splices it in as frame 1 when it is missing.
 */

const volatile __u8 filter_tgids = 1;
const volatile __u8 stop_on_load = 1;	/* cl_dl_state: hold the process for the agent */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* replaced by proc_track's map */
	__type(key, __u32);
	__type(value, __u32);
} cl_tgids SEC(".maps");

/*
 * The processes cl_dl_state has stopped and the agent has not yet continued
 * (tgid -> ts of the stop). The agent deletes an entry after its SIGCONT;
 * should the agent die instead, its guard process continues every process
 * left here (cpu_agent/stop_guard.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} cl_held SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cuda_launch_event);
} cl_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);	/* loader: bpf_map__set_max_entries */
} cl_events SEC(".maps");

__u64 lost_events = 0;
__u64 stack_errors = 0;

static __always_inline int handle_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), size;
	__u32 tgid = id >> 32, zero = 0;
	struct cuda_launch_event *e;
	long nu;

	if (filter_tgids && !bpf_map_lookup_elem(&cl_tgids, &tgid))
		return 0;
	e = bpf_map_lookup_elem(&cl_scratch, &zero);
	if (!e)
		return 0;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = tgid;
	e->tid = (__u32)id;
	e->probe_id = (__u32)bpf_get_attach_cookie(ctx);
	e->flags = 0;
	e->ret_addr = 0;
	bpf_probe_read_user(&e->ret_addr, sizeof(e->ret_addr), (void *)PT_REGS_SP(ctx));
	nu = bpf_get_stack(ctx, e->ips, GP_BPF_STACK_DEPTH * 8, BPF_F_USER_STACK);
	if (nu < 0) {
		__sync_fetch_and_add(&stack_errors, 1);
		e->flags |= CUDA_LAUNCH_USER_ERR;
		nu = 0;
	}
	nu /= 8;
	e->nr_user = nu;
	size = 32 + 8 * (__u64)nu;
	if (size > sizeof(*e))
		size = sizeof(*e);
	/* launches are rare next to samples: wake the agent for each */
	if (bpf_ringbuf_output(&cl_events, e, size, 0))
		__sync_fetch_and_add(&lost_events, 1);
	return 0;
}

SEC("uprobe")
int cl_entry(struct pt_regs *ctx)
{
	return handle_entry(ctx);
}

/*
 * The same, for one uprobe_multi link per file (Linux 6.6+): the loader sets
 * its expected attach type. Closing one perf-event uprobe waits for an RCU
 * tasks-trace grace period (~0.1 s here), so detaching 40 of them one by one
 * takes seconds; a multi link waits once.
 */
SEC("uprobe")
int cl_entry_multi(struct pt_regs *ctx)
{
	return handle_entry(ctx);
}

/*
 * ld.so calls _dl_debug_state() (the debugger's r_brk hook) after it maps
 * or unmaps libraries, at startup and on every dlopen/dlclose. There is no
 * mmap tracepoint to use instead (and no kprobes), and a periodic rescan
 * would miss the first calls into a just-loaded libcudart. So a followed
 * process stops itself here until the agent has rescanned its mappings and
 * attached to any new CUDA library, then the agent continues it. Without
 * launch uprobes (stop_on_load == 0) the event only prompts a rescan, so
 * the mappings of short-lived processes are recorded too.
 */
static __always_inline int handle_dl_state(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct cuda_launch_event *e;

	if (filter_tgids && !bpf_map_lookup_elem(&cl_tgids, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&cl_events, 32, 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0; /* not stopped: nobody would continue it */
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = tgid;
	e->tid = (__u32)id;
	e->probe_id = CUDA_LAUNCH_PROBE_DL;
	e->nr_user = 0;
	e->flags = 0;
	e->ret_addr = 0;
	if (stop_on_load) {
		/* not stopped unless it is in cl_held, where a guard can find it */
		if (bpf_map_update_elem(&cl_held, &tgid, &e->ts_ns, BPF_ANY)) {
			bpf_ringbuf_discard(e, 0);
			return 0;
		}
		bpf_send_signal(19 /* SIGSTOP */);
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("uprobe")
int cl_dl_state(struct pt_regs *ctx)
{
	return handle_dl_state();
}

/*
 * The same as a uprobe_multi link (Linux 6.6+): closing a perf-event
 * uprobe waits for two grace periods, about 0.15 s here, the longest part
 * of the agent's stop; a multi link waits for one, beside the others.
 */
SEC("uprobe")
int cl_dl_state_multi(struct pt_regs *ctx)
{
	return handle_dl_state();
}

char LICENSE[] SEC("license") = "GPL";
