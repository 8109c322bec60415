/* SPDX-License-Identifier: Apache-2.0 */
/* cuda_launch: the launch-site record shared by cuda_launch.bpf.c and its loader. */
#ifndef GPUPERF_BPF_CUDA_LAUNCH_H
#define GPUPERF_BPF_CUDA_LAUNCH_H

#include "stack_event.h"

/* cuda_launch_event.flags */
#define CUDA_LAUNCH_CALLER_ADDED 0x1	/* ips[1] is the return address read at %sp, spliced in */
#define CUDA_LAUNCH_USER_ERR	 0x2	/* the user stack could not be read */

/*
 * probe_id of the loader hook: the dynamic loader's _dl_debug_state() ran
 * (a library was just mapped or unmapped) and, when the loader asked for it
 * (stop_on_load), the process was sent SIGSTOP; the agent rescans its
 * mappings, attaches, and sends SIGCONT. No stack.
 */
#define CUDA_LAUNCH_PROBE_DL 0xffffffffu

/*
 * A uprobe hit at the entry of a CUDA launch/copy entry point. probe_id is
 * the uprobe's BPF cookie: the loader's index of the probed symbol. Sent cut
 * after ips[nr_user - 1].
 */
struct cuda_launch_event {
	__u64 ts_ns;
	__u32 pid;
	__u32 tid;
	__u32 probe_id;
	__u16 nr_user;
	__u16 flags;		/* CUDA_LAUNCH_* */
	__u64 ret_addr;		/* the word at %sp at entry: the return address into the caller */
	__u64 ips[GP_BPF_STACK_DEPTH + 1];
};

_Static_assert(sizeof(struct cuda_launch_event) == 32 + 8 * (GP_BPF_STACK_DEPTH + 1),
	       "cuda_launch_event layout changed");

#endif /* GPUPERF_BPF_CUDA_LAUNCH_H */
