/* SPDX-License-Identifier: Apache-2.0 */
/* cpu_agent: the eBPF CPU agent -- follows a process tree and writes what its CPUs did to DIR/cpu.trace. */
#ifndef GPUPERF_CPU_AGENT_CPU_AGENT_H
#define GPUPERF_CPU_AGENT_CPU_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gp_record.h" /* GP_OFFCPU_AGGREGATE */

/*
 * One agent is driven by one thread (it calls __poll in a loop); nothing in
 * it is locked. It owns every BPF object and perf event it creates
 * and releases them all in __free, also after a failed __start.
 */
struct cpu_agent;


/* cpu_agent_stats.kallsyms_cache */
#define CPU_AGENT_KSYM_NO_CACHE 0 /* no cache (opts.kallsyms_cache_fd), or nothing kept */
#define CPU_AGENT_KSYM_HIT 1	  /* read from the cache */
#define CPU_AGENT_KSYM_WRITTEN 2  /* read from /proc/kallsyms, then cached */

struct cpu_agent_opts {
	const char *dir;	/* existing directory; the agent creates DIR/cpu.trace (replacing it) */
	/*
	 * Instead of dir (when > 0): a directory fd the agent creates all its
	 * files in (cpu.trace, kallsyms, perf-PID.map copies), relative to it,
	 * with O_CREAT|O_EXCL|O_NOFOLLOW: never through a name someone else
	 * could have planted. The agent keeps its own duplicate; the caller
	 * may close it after __new. dir then only names it in messages (may
	 * be NULL).
	 */
	int dir_fd;
	/*
	 * When > 0: the directory of the on-disk cache of CFI tables
	 * (unwind/cfi_cache.h), which must belong to owner_uid when
	 * set_owner (else to us); its entries are read and written relative
	 * to it, never through a link, and handed to owner_*. The agent
	 * keeps its own duplicate. Not used with GPUPERF_UNWIND=fp.
	 */
	int cache_dir_fd;
	/*
	 * When > 0: a directory only root can read and write (the kernel's
	 * addresses are secret from users), where the agent keeps the
	 * kernel's text symbols between runs of one boot instead of having
	 * the kernel format /proc/kallsyms again each time (kallsyms.h). The
	 * agent keeps its own duplicate.
	 */
	int kallsyms_cache_fd;
	/* Each file the agent creates is fchown'ed to these right after it is created. */
	bool set_owner;
	uid_t owner_uid;
	gid_t owner_gid;
	/*
	 * What to follow: exactly one of pids, tids and system_wide (else
	 * EINVAL). A pid or tid that does not exist: ESRCH, and errbuf says
	 * "no process N: ..." / "no thread N: ...".
	 */
	/* Processes to follow, with everything they fork from __start() on. */
	const pid_t *pids;
	size_t nr_pids;
	/*
	 * Only these threads (of any process). Their processes get process,
	 * thread and module records (for symbolization) and their exec/exit
	 * records, but threads and processes they create are not followed. A
	 * tid that exits is
	 * not replaced (should the number be reused, the new thread is traced).
	 */
	const pid_t *tids;
	size_t nr_tids;
	/*
	 * Every process of the system: no filter in BPF. A process gets its
	 * process record (INFO, ppid/comm/exe from /proc) and its mappings
	 * when an event first names it; one that has exited by then gets a
	 * record with what is known (an empty comm). At most max_procs at
	 * once: events of further processes are written without them
	 * (stats.procs_dropped). Mappings are rescanned only for processes
	 * that had events since the last rescan. FORK records are not written;
	 * EXEC/EXIT only for processes already seen.
	 * cpu_agent__alive() counts the live processes seen so far. The
	 * calling process (the recorder) is left out, in the BPF filters,
	 * unless include_self; so is exclude_pid (a helper process), if set.
	 */
	bool system_wide;
	bool include_self;
	pid_t exclude_pid;
	/*
	 * Only samples and switches on these CPUs (0 <= cpu < the configured
	 * CPUs, else EINVAL): perf events are opened only there; an off-CPU
	 * span is kept when the thread switched out on one of them. NULL/0: all.
	 */
	const int *cpus;
	size_t nr_cpus;
	/*
	 * Only user threads (not PF_KTHREAD) / only kernel threads, checked on
	 * the sampled / switching-out task. kernel_threads_only needs
	 * system_wide (kernel threads belong to no followed process); the two
	 * together are EINVAL.
	 */
	bool user_threads_only;
	bool kernel_threads_only;

	bool on_cpu;		/* perf-event sampling */
	uint32_t freq_hz;	/* 0: 99 */
	bool no_user_stack;	/* on-CPU and off-CPU: keep kernel stacks only */
	bool no_kernel_stack;	/* on-CPU and off-CPU: keep user stacks only */
	bool force_sw_clock;	/* sample the CPU clock even where cycles work */

	bool off_cpu;		/* sched_switch spans */
	/*
	 * Off-CPU spans shorter than this are not kept as spans, but summed per
	 * thread in the kernel and written at stop as GP_OFFCPU_AGGREGATE
	 * records (usually one per thread; add them up). 0: 1000.
	 */
	uint32_t min_block_us;
	/* Spans longer than this are dropped (and not summed); 0: no limit; >= min_block_us. */
	uint32_t max_block_us;

	/*
	 * The pids/tids already run (attaching, not a start held at a barrier):
	 * a followed thread that is switched out at __start() gets an off-CPU
	 * span from __start() to its switch-in, so a thread blocked for the
	 * whole recording is covered too. Not with system_wide (every idle
	 * thread of the machine would get one).
	 */
	bool attach_running;

	/*
	 * cpu.trace is flushed to disk this often, which bounds what a SIGKILL
	 * of the caller loses. 0: GPUPERF_FLUSH_MS from the environment (10 to
	 * 3600000, the injection library's variable), else 1000.
	 */
	uint32_t flush_ms;
	uint32_t max_procs;	/* followed processes at once; 0: 8192 */
	bool force_raw_tp;	/* raw_tp instead of tp_btf (tests of the fallback) */
	bool force_no_iters;	/* off-CPU without the task iterators (tests of the fallback) */
	/* tests only: ignore one in N switch-ins or switch-outs at random (OFFCPU_FAULT_*, bpf/offcpu.h) */
	uint8_t offcpu_fault;
	uint32_t offcpu_fault_every;
	/*
	 * Do not write DIR/kallsyms at stop: the kernel symbols (from
	 * /proc/kallsyms, read as root) that name the kernel addresses written,
	 * and the symbol after each, in /proc/kallsyms's format.
	 */
	bool no_kallsyms;

	/*
	 * Optional: on a failure of __new or __start, one line naming the part
	 * that failed and what to do, e.g. "cannot load the off-CPU program
	 * (sched_switch): loading eBPF programs ... needs root ...".
	 */
	char *errbuf;
	size_t errlen;
};

#define CPU_AGENT_UNWIND_ENDS 9	/* GP_UNWIND_END__COUNT (unwind/unwind.h) */

struct cpu_agent_stats {
	uint64_t samples;	/* on-CPU samples written */
	uint64_t offcpu_spans;	/* off-CPU spans written */
	uint64_t offcpu_open;	/* of them: blocks still in progress at stop, cut there */
	uint64_t offcpu_repaired; /* switch-ins the tracepoint did not show, spans repaired */
	uint64_t offcpu_missed;	/* blocks lost: switches the tracepoint did not show, or whose
				 * program run the kernel skipped */
	uint64_t offcpu_aggregates; /* GP_OFFCPU_AGGREGATE records written (threads) */
	uint64_t offcpu_short;	/* short blocks summed in them */
	uint64_t lost_short;	/* short blocks not summed (per-thread map full) */
	/* CFI: preempted spans without user stack (the copy taken at switch-out was evicted) */
	uint64_t offcpu_ustack_lost;
	uint64_t threads_exited; /* GP_REC_THREAD exit records written */
	uint64_t procs_dropped;	/* system_wide: events of processes beyond max_procs */
	uint64_t procs;		/* process records written */
	uint64_t modules;	/* module records written */
	uint64_t modules_dropped; /* executable mappings not kept (no memory): no module record */
	uint64_t lost_sample, lost_offcpu, lost_proc; /* ring buffers full */
	uint64_t lost_stack;	/* stacks that could not be read */
	uint64_t lost_writer;	/* records the trace writer could not store */
	int writer_cause;	/* errno of the first of them (ENOSPC, EFBIG, EIO, ENOMEM); 0: none */
	uint64_t perf_maps;	/* /tmp/perf-PID.map files copied to DIR */
	/* skipped: a link, not a regular file, not owned by the process's user, too large */
	uint64_t perf_maps_skipped;
	uint64_t kallsyms_symbols; /* kernel symbols written to DIR/kallsyms */
	uint64_t kallsyms_lost;	/* kernel symbols it could not hold (its write failed: emptied) */
	/* the kernel's symbols read at start: CPU_AGENT_KSYM_*, or -errno of a cache write */
	int kallsyms_cache;
	bool sw_clock;		/* on-CPU sampling fell back to the software clock */
	bool tp_btf;		/* tracepoints attached as tp_btf (false: raw_tp) */
	bool offcpu_iters;	/* off-CPU task iterators loaded: blocks in progress at
				 * start and stop are written */
	/* CFI unwinding of copied user stacks (cpu_agent/ustack.h); all 0 with frame pointers */
	uint64_t unwinds;	/* user stacks unwound */
	/* per end reason (cpu_agent__unwind_end_name()); [0]: reached the thread's root */
	uint64_t unwind_ends[CPU_AGENT_UNWIND_ENDS];
	uint32_t unwind_tables;	/* files with a CFI table */
	uint32_t unwind_files_no_cfi; /* files without CFI or unreadable: frame pointers there */
	uint64_t unwind_maps_dropped; /* mappings not kept (no memory): their frames end stacks */
	/* mappings at an offset no PT_LOAD segment of their file holds: frame pointers there */
	uint64_t unwind_maps_no_segment;
	uint64_t unwind_copy_bytes; /* user stack bytes copied for them, summed */
	uint64_t unwind_rescans; /* mappings read again for a pc in none of them (dlopen) */
	uint64_t unwind_rescans_found; /* of them, those that found new mappings */
	/* the on-disk cache of CFI tables (opts.cache_dir_fd; unwind/cfi_cache.h) */
	bool unwind_cache_off;	/* given but not used (not the owner's directory, no CFI unwinding) */
	uint64_t unwind_cache_hits; /* tables read from it */
	uint64_t unwind_cache_misses; /* tables it did not hold: built */
	uint64_t unwind_cache_bad; /* entries ignored (corrupt, truncated, another version): rebuilt */
	uint64_t unwind_cache_written; /* tables written to it */
	uint64_t unwind_cache_write_errors; /* tables that could not be written */
	int unwind_cache_write_error; /* errno of the first of them */
	uint64_t unwind_cache_evicted; /* entries removed to keep it under its size bound */
};

/*
 * Check the options, load every BPF program asked for (nothing attached
 * yet) and create DIR/cpu.trace. NULL with errno on failure:
 *   EPERM       not root / missing CAP_BPF + CAP_PERFMON
 *   EOPNOTSUPP  the kernel has no BTF
 *   EINVAL      bad options (errbuf names which)
 *   ESRCH       a pid or tid does not exist
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
 * CLOCK_MONOTONIC ns from which __start covers the followed threads: its
 * tracers attached, and blocks already in progress counted from then
 * (attach_running). 0 before __start. An attached recording's window
 * starts here, not when __start returns.
 */
uint64_t cpu_agent__covered_ns(const struct cpu_agent *a);

/* A pid (or tid) given in the options that has exited while recorded. */
struct cpu_agent_exit {
	uint64_t ts;		/* CLOCK_MONOTONIC ns */
	pid_t pid;		/* its process */
	pid_t tid;		/* with tids: the thread; else the process's last thread */
	int status;		/* wait status of the process; 0 for a thread that was not its last */
	char comm[16];		/* its name at exit */
	bool unseen;		/* gone before the tracker was attached: ts is the start, no status */
};

/*
 * The given pids (or tids) that have exited so far, in the order their exits
 * were seen; *@n is set to their number. Valid until __free.
 */
const struct cpu_agent_exit *cpu_agent__exits(const struct cpu_agent *a, size_t *n);

/*
 * Detach, drain every ring buffer, write the blocks still in progress as
 * off-CPU spans ending now (with their stacks), the final counts, and close
 * the trace. Idempotent. Returns 0 or the first write error.
 */
int cpu_agent__stop(struct cpu_agent *a);

void cpu_agent__stats(const struct cpu_agent *a, struct cpu_agent_stats *st);

/*
 * The last failure of __new (pass NULL) or of an agent call, as one sentence
 * that names what failed and what to do ("loading BPF needs root or
 * CAP_BPF+CAP_PERFMON: run as root"). Static storage; not thread-safe.
 */
const char *cpu_agent__strerror(int err);
/* The name of end reason @end of cpu_agent_stats.unwind_ends ("root", "depth", ...). */
const char *cpu_agent__unwind_end_name(int end);

/* Stop if needed, detach, unload, free. Accepts NULL. */
void cpu_agent__free(struct cpu_agent *a);

#endif /* GPUPERF_CPU_AGENT_CPU_AGENT_H */
