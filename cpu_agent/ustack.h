/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ustack: the agent's CFI unwinding of sampled user stacks. A sample
 * carries the thread's user registers and a copy of its stack from rsp up
 * (bpf/cpu_sample.h, cpu_sample_copy_event); ustack unwinds it with the
 * CFI tables of the process's mapped files (unwind/cfi_table.h, the same
 * builder and format as the injection library's) and frame pointers where
 * a module has no CFI (unwind/remote.h).
 *
 * Tables are built once per file (device + inode), when a process's
 * mapping is reported (the agent's /proc/PID/maps scans), from the file the
 * mapping shows (/proc/PID/map_files/...), and kept until ustack__free():
 * every process mapping libc shares one. With a cache (ustack__set_cache)
 * a table is read from it when it holds the file's, and written to it
 * when built.
 *
 * Why a copy, not tables in BPF (the OpenTelemetry eBPF profiler's way:
 * stack deltas in maps, a binary search per frame, tail calls for depth):
 * that needs every module's table in kernel maps before the first sample
 * in it, sized to what is mapped, and a verifier-bound loop per frame. The
 * copy needs neither: tables are built in user space when the agent sees
 * a mapping, the BPF side stays a fixed loop of page reads, and one
 * unwinder (one set of frame rules, unwind/step.h) serves the injection
 * library too. Its price is bytes: 10.6-12.6 KiB through the ring per
 * sample (perf --call-graph dwarf: 8.7 KiB), and a sampler run of ×1.5-1.8
 * the frame-pointer walk's (bench/history/cpu-agent.md, 2026-11-27).
 *
 * Limits, each end counted by reason (record.json "unwind_ends", and per
 * sample in the trace): JIT code without CFI ends a stack as
 * unknown_module; a stack deeper than the copy ends as short_copy; a
 * stack page not resident ends the copy.
 *
 * One thread (the agent's polling thread); no locking.
 */
#ifndef GPUPERF_CPU_AGENT_USTACK_H
#define GPUPERF_CPU_AGENT_USTACK_H

#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"

struct ustack;
struct cfi_cache;

struct ustack_stats {
	uint64_t unwinds;		/* stacks unwound */
	uint64_t ends[GP_UNWIND_END__COUNT]; /* per end reason; ends[ROOT]: clean ends */
	uint64_t frames;		/* user frames written */
	uint64_t copy_bytes;		/* stack bytes received, summed */
	uint32_t tables;		/* files with a table */
	uint32_t files_no_cfi;		/* files without CFI (frame pointers used) */
	uint32_t files_failed;		/* files that could not be read (frame pointers used) */
	uint64_t table_bytes;		/* rows held */
	uint64_t mappings_dropped;	/* mappings not kept (no memory): their pcs end stacks */
	/* mappings at an offset no PT_LOAD segment of their file holds: frame pointers there */
	uint64_t mappings_no_segment;
	uint64_t rescans;		/* mappings rescanned for a pc in none of them */
	uint64_t rescans_found;		/* of them, scans that found new mappings: unwound again */
};

/*
 * Scan the mappings of @pid again, reporting new ones with
 * ustack__add_mapping() (the agent's /proc/PID/maps scan).
 */
typedef void (*ustack_rescan_fn)(void *ctx, pid_t pid);

struct ustack *ustack__new(void);
void ustack__free(struct ustack *u);

/*
 * When an unwind of a process's stack reaches a pc in none of its known
 * mappings (a library dlopen'ed since the agent's last scan), call @fn to
 * scan them again, at most once per process every 20 ms, and unwind again
 * when it reported new ones; only that second unwind is counted.
 */
void ustack__set_rescan(struct ustack *u, ustack_rescan_fn fn, void *ctx);

/* Read and write tables through @c (unwind/cfi_cache.h; still the caller's, kept until __free). */
void ustack__set_cache(struct ustack *u, struct cfi_cache *c);

/*
 * An executable mapping of `pid`: [start, end) maps `file` (a path that
 * opens the very file mapped, e.g. /proc/PID/map_files/START-END) from
 * offset `pgoff`; dev/inode identify the file. Builds its table the first
 * time the file is seen. A mapping overlapping older ones replaces them.
 * 0 or -errno (the mapping is then not known: its frames end stacks).
 */
int ustack__add_mapping(struct ustack *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
			uint64_t dev, uint64_t inode, const char *file);
/*
 * The process's [vdso] at [start, end): the kernel's, the same image as the
 * agent's own, whose table is built from the agent's mapping (once).
 */
int ustack__add_vdso(struct ustack *u, pid_t pid, uint64_t start, uint64_t end);
/* The process is gone: drop its mappings (tables stay). */
void ustack__forget(struct ustack *u, pid_t pid);

/*
 * Unwind a copied stack of `pid` (its user registers rip, rsp, rbp, rbx at
 * the copy): at most `max` pcs (innermost first) into `pcs`; returns how
 * many and sets *end (GP_UNWIND_END_*), both counted.
 */
int ustack__unwind(struct ustack *u, pid_t pid, uint64_t rip, uint64_t rsp, uint64_t rbp,
		   uint64_t rbx, const void *stack, uint32_t len, int cut, uint64_t *pcs, int max,
		   int *end);

void ustack__stats(const struct ustack *u, struct ustack_stats *st);

#endif /* GPUPERF_CPU_AGENT_USTACK_H */
