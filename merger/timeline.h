/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline.h - every record of a report directory in memory, in one clock
 * (CLOCK_MONOTONIC ns), with one string table: what the merger's join,
 * aggregation and writers work from.
 *
 * Loading reads cpu.trace and every gpu-<pid>.trace of a directory (or
 * files given one by one). Damaged or cut-short files load what is intact;
 * each problem is kept as a one-line warning (timeline__warnings()) and
 * loading goes on. GPU traces not in CLOCK_MONOTONIC are aligned with
 * clock_align (see there) before their records are stored.
 *
 * Memory: GPU activities are stored compactly (struct tl_gpu, 56 bytes);
 * stacks are kept in one frame pool, each distinct stack once: two records
 * with the same non-empty frames have the same struct tl_stack offset, so
 * comparing offsets compares stacks.
 *
 * Not thread-safe; one owner.
 */
#ifndef GPUPERF_TIMELINE_H
#define GPUPERF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "clock_align.h"

/* tl_gpu.kind */
enum tl_gpu_kind {
	TL_GPU_KERNEL = 1,
	TL_GPU_MEMCPY = 2,
	TL_GPU_MEMSET = 3,
	TL_GPU_SYNC = 4,
};

/* One piece of GPU work (or a synchronization), from a gpu trace. */
struct tl_gpu {
	uint64_t start, end;
	uint64_t bytes;	    /* memcpy/memset */
	uint32_t pid;
	uint32_t corr;	    /* correlation id of the issuing API call */
	uint32_t name;	    /* timeline string: kernel name (mangled) */
	uint32_t device;
	uint32_t stream;
	uint16_t kind;	    /* enum tl_gpu_kind */
	uint8_t copy_kind;  /* memcpy: CUpti_ActivityMemcpyKind */
	uint8_t flags;
	uint32_t graph_id;
};

/* One CUDA API call on a host thread. */
struct tl_api {
	uint64_t start, end;
	uint32_t pid, tid;
	uint32_t corr;
	uint32_t name;	 /* timeline string */
	uint16_t domain; /* GP_API_RUNTIME / GP_API_DRIVER */
	uint16_t nested; /* 1: inside another API call on the same thread */
	int32_t ret;
};

/* A stack: `nr_user` user addresses then `nr_kernel` kernel ones, innermost first. */
struct tl_stack {
	uint32_t off; /* index into timeline frame pool */
	uint16_t nr_user, nr_kernel;
};

struct tl_launch {
	uint64_t ts;
	uint32_t pid, tid;
	uint32_t probe; /* timeline string: probed symbol */
	struct tl_stack stack;
};

struct tl_sample {
	uint64_t ts, weight;
	uint32_t pid, tid, cpu;
	struct tl_stack stack;
};

struct tl_offcpu {
	uint64_t start, end;
	uint32_t pid, tid, cpu, state;
	struct tl_stack stack;
};

/* A thread's blocks shorter than the agent's minimum block time, summed (no stack). */
struct tl_offcpu_short {
	uint64_t total_ns;
	uint32_t pid, tid;
	uint32_t count;
	uint32_t pad;
};

/* A process seen in any trace (merged by pid). */
struct tl_proc {
	uint64_t first_ts;  /* first record naming it (fork or info) */
	uint64_t exit_ts;   /* 0: no exit seen */
	uint32_t pid, ppid; /* ppid 0: unknown */
	uint32_t comm;	    /* timeline string; the latest (after exec) */
	uint32_t exe;	    /* timeline string: executable path, 0 unknown */
	int32_t exit_status; /* wait status, valid when exited */
	uint8_t exited;
	uint8_t forked;	    /* created by a fork seen while recording */
	uint16_t pad;
};

/* A thread seen in any trace. */
struct tl_thread {
	uint64_t first_ts, exit_ts; /* exit_ts 0: not seen */
	uint32_t pid, tid;
	uint32_t name; /* timeline string: thread comm, 0 unknown */
	uint32_t pad;
};

/* One executable mapping of a process (GP_REC_MODULE), for symbolization. */
struct tl_module {
	uint64_t ts, start, end, pgoff;
	uint32_t pid;
	uint32_t path; /* timeline string */
	uint32_t build_id_size;
	uint8_t build_id[20];
};

/* One GPU (GP_REC_DEVICE). */
struct tl_device {
	uint64_t global_memory_bytes;
	uint32_t id;
	uint32_t name; /* timeline string */
	uint32_t cc_major, cc_minor, sm_count;
};

/* A loaded GPU or CPU trace file, for reports. */
struct tl_file {
	char *path;
	uint32_t pid;
	uint16_t producer;
	int clean_end;
	uint64_t records;
	struct clock_fit fit; /* how its times were brought to CLOCK_MONOTONIC */
	char hostname[64], kernel_release[64], machine[16]; /* from the file header */
	uint64_t start_monotonic_ns, start_realtime_ns;	    /* read together at file open */
	char producer_version[32];
};

struct timeline {
	struct tl_gpu *gpu;
	size_t nr_gpu;
	struct tl_api *api;
	size_t nr_api;
	struct tl_launch *launch;
	size_t nr_launch;
	struct tl_sample *samples;
	size_t nr_samples;
	struct tl_offcpu *offcpu;
	size_t nr_offcpu;
	struct tl_offcpu_short *offcpu_short;
	size_t nr_offcpu_short;
	uint64_t *frames; /* stack pool */
	size_t nr_frames;

	/* After timeline__finish(): procs by pid, threads by (pid, tid), modules
	 * by time, devices by id. */
	struct tl_proc *procs;
	size_t nr_procs;
	struct tl_thread *threads;
	size_t nr_threads;
	struct tl_module *modules;
	size_t nr_modules;
	struct tl_device *devices;
	size_t nr_devices;

	struct tl_file *files;
	size_t nr_files;

	uint64_t dropped[16]; /* by GP_DROP_* source */
	uint64_t first_ts, last_ts;

	struct tl_priv *priv; /* string table, growth state, warnings */
};

/* An empty timeline. NULL + errno on allocation failure. */
struct timeline *timeline__new(void);
void timeline__free(struct timeline *tl);

/*
 * Load one trace file. Returns 0 when the file could be opened (even if
 * damaged: what is intact is loaded and warnings say what was not), or
 * -errno when it could not be read at all; *why (if given) then points at a
 * message valid until the next call.
 */
int timeline__load_file(struct timeline *tl, const char *path, const char **why);
/* Load cpu.trace and every gpu-*.trace in dir; -ENOENT if it holds none. */
int timeline__load_dir(struct timeline *tl, const char *dir, const char **why);

/* Sort every array by time and mark nested API calls. Call after loading. */
void timeline__finish(struct timeline *tl);

/* Lookups after timeline__finish(); NULL when not seen. */
const struct tl_proc *timeline__proc(const struct timeline *tl, uint32_t pid);
const struct tl_thread *timeline__thread(const struct timeline *tl, uint32_t pid, uint32_t tid);
const struct tl_device *timeline__device(const struct timeline *tl, uint32_t id);

/* Timeline string by id ("" for 0 or unknown). Ids are timeline-wide. */
const char *timeline__str(const struct timeline *tl, uint32_t id);
uint32_t timeline__intern(struct timeline *tl, const char *s);

const uint64_t *timeline__frames(const struct timeline *tl, const struct tl_stack *st);

/* Warnings collected while loading, one line each. */
size_t timeline__nr_warnings(const struct timeline *tl);
const char *timeline__warning(const struct timeline *tl, size_t i);

#endif /* GPUPERF_TIMELINE_H */
