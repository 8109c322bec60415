/* SPDX-License-Identifier: Apache-2.0 */
/* cpu_agent: the eBPF CPU agent -- follows a process tree and writes what its CPUs did to DIR/cpu.trace. */
#ifndef GPUPERF_CPU_AGENT_CPU_AGENT_H
#define GPUPERF_CPU_AGENT_CPU_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * One agent is driven by one thread (it calls __poll in a loop); nothing in
 * it is locked. It owns every BPF object, perf event and uprobe it creates
 * and releases them all in __free, also after a failed __start.
 */
struct cpu_agent;

struct cpu_agent_opts {
	const char *dir;	/* existing directory; the agent creates DIR/cpu.trace (replacing it) */
	/* Processes to follow, with everything they fork from __start() on. */
	const pid_t *pids;
	size_t nr_pids;
	/*
	 * Only these threads (of any process; their processes are recorded for
	 * symbolization). Exclusive with pids and system_wide.
	 */
	const pid_t *tids;
	size_t nr_tids;
	/* Every process of the system (pids/tids must be empty). */
	bool system_wide;
	/* Only samples and switches on these CPUs; NULL/0: all. */
	const int *cpus;
	size_t nr_cpus;
	/* Only user threads (not kthreads) / only kernel threads. */
	bool user_threads_only;
	bool kernel_threads_only;

	bool on_cpu;		/* perf-event sampling */
	uint32_t freq_hz;	/* 0: 99 */
	bool no_user_stack;	/* on-CPU and off-CPU: keep kernel stacks only */
	bool no_kernel_stack;	/* on-CPU and off-CPU: keep user stacks only */
	bool force_sw_clock;	/* sample the CPU clock even where cycles work */

	bool off_cpu;		/* sched_switch spans */
	uint32_t min_block_us;	/* off-CPU spans shorter than this are not kept; 0: 1000 */
	uint32_t max_block_us;	/* ... and longer than this; 0: no limit */

	/*
	 * Uprobes on CUDA launch/copy entry points. To attach to a libcudart
	 * before its first call, a followed process that maps a library (ld.so's
	 * _dl_debug_state: startup, dlopen) stops itself (SIGSTOP) until the
	 * agent has scanned the new mappings; the agent then sends SIGCONT. So
	 * keep polling while the target runs.
	 */
	bool launch;

	uint32_t max_procs;	/* followed processes at once; 0: 8192 */
	bool force_raw_tp;	/* raw_tp instead of tp_btf (tests of the fallback) */
	bool no_kallsyms;	/* do not copy /proc/kallsyms to DIR/kallsyms at stop */

	/*
	 * Optional: on a failure of __new or __start, one line naming the part
	 * that failed and what to do, e.g. "cannot load the off-CPU program
	 * (sched_switch): loading eBPF programs ... needs root ...".
	 */
	char *errbuf;
	size_t errlen;
};

struct cpu_agent_stats {
	uint64_t samples;	/* on-CPU samples written */
	uint64_t offcpu_spans;	/* off-CPU spans written */
	uint64_t launches;	/* launch-site events written */
	uint64_t launches_nested; /* hits dropped: called from inside libcudart/libcuda */
	uint64_t loader_stops;	/* times a process was held in ld.so while new libraries were scanned */
	uint64_t procs;		/* process records written */
	uint64_t modules;	/* module records written */
	uint64_t uprobes;	/* uprobes attached */
	uint64_t lost_sample, lost_offcpu, lost_launch, lost_proc; /* ring buffers full */
	uint64_t lost_stack;	/* stacks that could not be read */
	uint64_t lost_writer;	/* records the trace writer could not store */
	bool sw_clock;		/* on-CPU sampling fell back to the software clock */
	bool tp_btf;		/* tracepoints attached as tp_btf (false: raw_tp) */
};

/*
 * Check the options, load every BPF program asked for (nothing attached
 * yet) and create DIR/cpu.trace. NULL with errno on failure:
 *   EPERM       not root / missing CAP_BPF + CAP_PERFMON
 *   EOPNOTSUPP  the kernel has no BTF
 *   EINVAL      bad options
 *   ENOENT      DIR does not exist
 * Use cpu_agent__strerror() for a sentence naming the problem and the fix.
 */
struct cpu_agent *cpu_agent__new(const struct cpu_agent_opts *opts);

/*
 * Attach everything and record the followed processes as they are now
 * (processes, threads, executable mappings). On failure -errno with nothing
 * left attached. The caller releases a held target only after this returns 0.
 */
int cpu_agent__start(struct cpu_agent *a);

/*
 * Wait up to @timeout_ms for events, write them, and do the periodic work
 * (mapping rescans, clock pairs, lost counts). Returns the number of events
 * handled, 0 on timeout, or -errno (-EINTR on a signal: just call again).
 */
int cpu_agent__poll(struct cpu_agent *a, int timeout_ms);

/* Number of followed processes that have not exited. */
size_t cpu_agent__alive(const struct cpu_agent *a);

/*
 * Detach, drain every ring buffer, write the final counts and close the
 * trace. Idempotent. Returns 0 or the first write error.
 */
int cpu_agent__stop(struct cpu_agent *a);

void cpu_agent__stats(const struct cpu_agent *a, struct cpu_agent_stats *st);

/*
 * The last failure of __new (pass NULL) or of an agent call, as one sentence
 * that names what failed and what to do ("loading BPF needs root or
 * CAP_BPF+CAP_PERFMON: run as root"). Static storage; not thread-safe.
 */
const char *cpu_agent__strerror(int err);

/* Stop if needed, detach, unload, free. Accepts NULL. */
void cpu_agent__free(struct cpu_agent *a);

#endif /* GPUPERF_CPU_AGENT_CPU_AGENT_H */
