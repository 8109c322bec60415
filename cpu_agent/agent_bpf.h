/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent_bpf: the agent's one BPF object (bpf/agent.bpf.o, the programs of
 * proc_track, cpu_sample and offcpu linked together) and its parts.
 *
 * libbpf parses the kernel's BTF (5.5 MB) for every object it loads, and
 * that was most of the agent's start-up: the agent loads the one object
 * once (cpu_agent.c), each part's loader configuring it first
 * (<part>_prog__prepare) and taking over after (<part>_prog__loaded). A
 * part loaded alone (<part>_prog__new: tests, tools) opens an instance of
 * its own with the other parts' programs and maps left out.
 *
 * A part is known by the prefix its programs and maps share (ptrack_,
 * cs_, oc_); the global data (.rodata, .bss) is all parts'.
 */
#ifndef GPUPERF_CPU_AGENT_AGENT_BPF_H
#define GPUPERF_CPU_AGENT_AGENT_BPF_H

#include "task_filter.h" /* before the skeleton: its rodata holds task_filter_knobs */
#include "agent.skel.h"

#define AGENT_BPF_PROC_TRACK "ptrack_"
#define AGENT_BPF_CPU_SAMPLE "cs_"
#define AGENT_BPF_OFFCPU "oc_"

/* An instance for the part @prefix alone: the others' programs not loaded, their maps not made. */
struct agent_bpf *agent_bpf__open_part(const char *prefix);

/* In @s (not loaded), leave out what is not the part @prefix's. */
void agent_bpf__only(struct agent_bpf *s, const char *prefix);
/* In @s (not loaded), leave out the part @prefix: its programs and its maps. */
void agent_bpf__drop(struct agent_bpf *s, const char *prefix);

/*
 * Attach the loaded programs of the part @prefix that attach themselves
 * (tracepoints; not those set autoattach false, nor perf-event programs).
 * 0 or -errno, with none of them attached.
 */
int agent_bpf__attach_part(struct agent_bpf *s, const char *prefix);
void agent_bpf__detach_part(struct agent_bpf *s, const char *prefix);

#endif /* GPUPERF_CPU_AGENT_AGENT_BPF_H */
