/* SPDX-License-Identifier: Apache-2.0 */
/* stack_event: the stack-carrying record layout shared by cpu_sample and offcpu. */
#ifndef GPUPERF_BPF_STACK_EVENT_H
#define GPUPERF_BPF_STACK_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Deepest user or kernel stack we keep (GP_STACK_MAX_DEPTH in the trace). */
#define GP_BPF_STACK_DEPTH 127

/*
 * The variable tail of every stacked event: nr_user user addresses
 * (innermost first), then nr_kernel kernel addresses. An event is sent with
 * bpf_ringbuf_output() cut right after its last address, so its size is
 * offsetof(ips) + 8 * (nr_user + nr_kernel).
 */
#define GP_BPF_STACK_SLOTS (2 * GP_BPF_STACK_DEPTH + 2)

/*
 * Most bytes of user stack copied from rsp up, for the agent to unwind with
 * CFI (cpu_sample_copy_event, offcpu_copy_event; perf --call-graph dwarf
 * copies 8 KiB by default).
 */
#define GP_BPF_USTACK_MAX	(16 * 1024)

#endif /* GPUPERF_BPF_STACK_EVENT_H */
