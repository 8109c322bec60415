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
 * Memory: GPU records and API calls are 28 bytes each; what
 * many records share (a stream's pid/device/stream/graph, a thread's pid and
 * tid, API names, launch stacks, memcpy sizes) is in small tables they index;
 * stacks are kept in one frame pool, each distinct stack once: two records
 * with the same non-empty frames have the same struct tl_stack offset, so
 * comparing offsets compares stacks.
 *
 * Not thread-safe; one owner.
 */
#ifndef GPUPERF_TIMELINE_H
#define GPUPERF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock_align.h"
#include "gp_record.h"

/* tl_gpu.kind */
enum tl_gpu_kind {
	TL_GPU_KERNEL = 1,
	TL_GPU_MEMCPY = 2,
	TL_GPU_MEMSET = 3,
	TL_GPU_SYNC = 4,
};

/* tl_gpu.flags */
#define TL_GPU_JOINED 0x1 /* corr holds the index of the issuing API call (correlate__run()) */

/*
 * Where a GPU record ran: what records of one stream share, stored once
 * (tl->lanes) so that a record is 28 bytes.
 */
struct tl_lane {
	uint32_t pid;
	uint32_t device;
	uint32_t stream;
	uint32_t graph_id;
};

/*
 * A duration in a record: nanoseconds below TL_DUR_LONG (2.1 s); at or
 * above it, TL_DUR_LONG + an index into tl->long_durs, where the few longer
 * ones are kept. Read it with timeline__dur(); records store
 * timeline__dur_code()'s.
 */
#define TL_DUR_LONG 0x80000000u

/*
 * One piece of GPU work (or a synchronization), from a gpu trace. 28 bytes:
 * at 10M records every byte here is 10 MB, and the kernel charges for each
 * page the first time it is written. Read the end, pid/device/stream/graph
 * id, memcpy bytes and the correlation id through the timeline__gpu_*()
 * helpers.
 */
struct __attribute__((packed, aligned(4))) tl_gpu {
	uint64_t start;
	uint32_t dur;	   /* end - start, or 0 when the end is not after it; coded: TL_DUR_LONG */
	/* Correlation id of the issuing API call; with TL_GPU_JOINED (set by
	 * correlate__run()) the index of that call in tl->api instead, whose
	 * corr is the same id. */
	uint32_t corr;
	uint32_t name;	   /* kernel: timeline string (mangled); memcpy/memset: index into tl->gpu_bytes */
	uint32_t lane;	   /* index into tl->lanes */
	uint8_t kind;	   /* enum tl_gpu_kind */
	uint8_t flags;	   /* TL_GPU_* */
	union {
		uint16_t copy_kind; /* memcpy: CUpti_ActivityMemcpyKind */
		uint16_t kconfig;   /* kernel: index + 1 into tl->kconfigs; 0: not known */
	};
};

/*
 * A kernel's launch configuration, as CUPTI's kernel record gives it:
 * stored once per distinct configuration (tl->kconfigs), at most 65535 of
 * them (a kernel past that has none: tl_gpu.kconfig 0).
 */
struct tl_kconfig {
	uint32_t grid[3], block[3];
	uint32_t static_smem, dynamic_smem; /* bytes per block */
	uint32_t regs;			    /* registers per thread */
};

/*
 * One allocation, free or memory pool event (GP_REC_MEMORY, format 2.6),
 * in time order after timeline__finish(). Few enough (one per allocating
 * call) to be stored whole.
 */
struct tl_mem {
	uint64_t ts;
	uint64_t address, bytes;	/* pool events: the pool's base and size */
	uint64_t pool_address, pool_size, pool_used;
	uint32_t pid, device, context, stream;
	uint32_t corr; /* the API call's correlation id (+ its file's corr_base) */
	int32_t api;   /* index of that call in tl->api (correlate__run()), -1: not joined */
	uint8_t op;    /* GP_MEM_* */
	uint8_t kind;  /* CUpti_ActivityMemoryKind */
	uint8_t pool_type; /* CUpti_ActivityMemoryPoolType; 0: not from a pool */
	uint8_t is_async;
	uint8_t from_call; /* the injection library's record of a virtual memory call (GP_MEMORY_FROM_CALL) */
	uint8_t pad[3];
};

/* A host thread that made CUDA calls (tl->tids). */
struct tl_tid {
	uint32_t pid, tid;
};

/*
 * One CUDA API call on a host thread. 28 bytes: the thread and the API name
 * are indices into small tables (timeline__api_pid(), _tid(), _name()); the
 * end is timeline__api_end().
 */
struct __attribute__((packed, aligned(4))) tl_api {
	uint64_t start;
	uint32_t dur; /* end - start, or 0 when the end is not after it; coded: TL_DUR_LONG */
	uint32_t corr;
	/* The call's launch stack, an index into tl->launch_stacks; -1: none. Set while
	 * loading from the GPU trace's own api_stack records (2.3: by correlation id,
	 * exactly); a nested call without one takes its enclosing call's (correlate__run()). */
	int32_t launch;
	union {
		struct {
			uint32_t thr : 29; /* index into tl->tids, (pid, tid) order after timeline__finish() */
			uint32_t domain : 2; /* GP_API_RUNTIME / GP_API_DRIVER */
			uint32_t nested : 1; /* inside another API call on the same thread */
		};
		uint32_t bits; /* the three together, to store in one write */
	};
	uint16_t name;	    /* index into tl->api_names */
	int16_t ret;	    /* return value (CUresult / cudaError_t are < 1000; others saturate) */
};

/* A stack: `nr_user` user addresses then `nr_kernel` kernel ones, innermost first. */
struct tl_stack {
	uint32_t off; /* index into timeline frame pool */
	uint16_t nr_user, nr_kernel;
};

struct tl_sample {
	uint64_t ts;
	uint32_t weight; /* ns: one sampling period (saturates at 4.29 s) */
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

/*
 * (2.5) Where the user stacks of one process ended, on- and off-CPU, as the
 * agent's unwinder said (gp_record.h, GP_STACK_END_*): n[GP_STACK_END_ROOT]
 * reached the thread's root, the others were cut short; n[0] counts ends
 * of a reason this reader does not know (a newer agent's). Stacks whose end
 * was not said (frame pointers) are not counted.
 */
struct tl_stack_ends {
	uint32_t pid;
	uint32_t pad;
	uint64_t n[GP_STACK_END_COUNT];
};

/* A process seen in any trace (merged by pid). */
struct tl_proc {
	uint64_t first_ts;  /* first record naming it (fork or info) */
	uint64_t exit_ts;   /* 0: no exit seen */
	uint32_t pid, ppid; /* ppid 0: unknown */
	uint32_t comm;	    /* timeline string; the latest (after exec); several GPU images: "a -> b" */
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
	/*
	 * Correlation ids: the file's own go up to corr_max; loaded as id +
	 * corr_base, above those of the same pid's GPU traces loaded before
	 * (CUPTI counts from 1 again in each image of an exec chain).
	 */
	uint32_t corr_base, corr_max;
	int launch_stacks; /* (2.3) a GPU trace with api_stack records: its calls' stacks are exact */
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
	struct tl_sample *samples;
	size_t nr_samples;
	struct tl_offcpu *offcpu;
	size_t nr_offcpu;
	struct tl_offcpu_short *offcpu_short;
	size_t nr_offcpu_short;
	struct tl_mem *mem; /* allocations, frees, pool events */
	size_t nr_mem;
	uint64_t *frames; /* stack pool */
	size_t nr_frames;

	/* The small tables the records index (see their structs). */
	struct tl_lane *lanes;
	size_t nr_lanes;
	uint64_t *gpu_bytes; /* distinct memcpy/memset byte counts */
	size_t nr_gpu_bytes;
	uint64_t *long_durs; /* durations of TL_DUR_LONG or more (struct tl_gpu.dur, tl_api.dur) */
	size_t nr_long_durs;
	struct tl_kconfig *kconfigs; /* distinct kernel launch configurations */
	size_t nr_kconfigs;
	struct tl_tid *tids;
	size_t nr_tids;
	uint32_t *api_names; /* timeline strings; [0] = 0 */
	size_t nr_api_names;
	struct tl_stack *launch_stacks;
	size_t nr_launch_stacks;

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

	struct tl_stack_ends *stack_ends; /* by process; by pid after timeline__finish() */
	size_t nr_stack_ends;

	uint64_t dropped[16]; /* by GP_DROP_* source (room for sources a newer minor version adds) */
	uint32_t drop_cause[16]; /* errno of the first loss of each source (format 2.2); 0: unknown */
	uint64_t first_ts, last_ts;
	int joined; /* correlate__run() has joined the GPU records (TL_GPU_JOINED) */
	/*
	 * launch_site / launch_site_id records read (an older gpuperf's CPU
	 * agent took launch stacks with uprobes): read and counted, never
	 * joined. A recording with no api_stack record to join instead gets a
	 * warning (timeline__finish()).
	 */
	uint64_t old_launch_sites;

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
/*
 * Load every gpu-*.trace in dir, then cpu.trace; -ENOENT if it holds none.
 */
int timeline__load_dir(struct timeline *tl, const char *dir, const char **why);

/* Sort every array by time and mark nested API calls. Call after loading. */
void timeline__finish(struct timeline *tl);

/* Lookups after timeline__finish(); NULL when not seen. */
const struct tl_proc *timeline__proc(const struct timeline *tl, uint32_t pid);
const struct tl_thread *timeline__thread(const struct timeline *tl, uint32_t pid, uint32_t tid);
const struct tl_device *timeline__device(const struct timeline *tl, uint32_t id);
const struct tl_stack_ends *timeline__stack_ends(const struct timeline *tl, uint32_t pid);

/* Timeline string by id ("" for 0 or unknown). Ids are timeline-wide. */
const char *timeline__str(const struct timeline *tl, uint32_t id);

/*
 * The direction of a memcpy (tl_gpu.copy_kind, CUpti_ActivityMemcpyKind)
 * as every output spells it: "HtoD", "DtoH", ... ("[memcpy HtoD]"); the
 * name of kind 0, "unknown", for kinds past the known ones.
 */
const char *timeline__copy_kind_name(unsigned kind);
uint32_t timeline__intern(struct timeline *tl, const char *s);

const uint64_t *timeline__frames(const struct timeline *tl, const struct tl_stack *st);

/*
 * Indices into the small tables, adding the entry when new (loading uses
 * them; so can a caller that builds a timeline by hand, before
 * timeline__finish()). UINT32_MAX on ENOMEM (and past 2^29 threads).
 * API names: 0 ("unknown") on ENOMEM and past 65534 distinct names; the
 * table holds entry 0 once any name was asked for (none: ENOMEM).
 */
uint32_t timeline__tid_index(struct timeline *tl, uint32_t pid, uint32_t tid);
uint32_t timeline__lane_index(struct timeline *tl, uint32_t pid, uint32_t device, uint32_t stream,
			      uint32_t graph_id);
uint32_t timeline__bytes_index(struct timeline *tl, uint64_t bytes);
/* tl_gpu.kconfig for a kernel launched with *k: index + 1, 0 past 65535 configurations or on ENOMEM. */
uint16_t timeline__kconfig_index(struct timeline *tl, const struct tl_kconfig *k);
uint16_t timeline__api_name_index(struct timeline *tl, uint32_t str);
uint32_t timeline__launch_stack_index(struct timeline *tl, const struct tl_stack *st);

/* timeline__dur_code() for a duration of TL_DUR_LONG or more. */
uint32_t timeline__long_dur_code(struct timeline *tl, uint64_t dur);

/*
 * The code of a record's duration from start to end (0 when end is not
 * after start), keeping a long one in tl->long_durs; UINT32_MAX when out
 * of memory.
 */
static inline uint32_t timeline__dur_code(struct timeline *tl, uint64_t start, uint64_t end)
{
	uint64_t d = end > start ? end - start : 0;

	return d < TL_DUR_LONG ? (uint32_t)d : timeline__long_dur_code(tl, d);
}

/* The duration a record's code stands for. */
static inline uint64_t timeline__dur(const struct timeline *tl, uint32_t code)
{
	return code < TL_DUR_LONG ? code : tl->long_durs[code - TL_DUR_LONG];
}

/*
 * Samples and off-CPU spans in one time order, so that each thread's events
 * ascend (the timelines' writers): whether the next, after @s samples and
 * @o spans, is sample @s (else span @o). Only while one of them is left.
 */
static inline bool timeline__sample_next(const struct timeline *tl, size_t s, size_t o)
{
	return o == tl->nr_offcpu ||
	       (s < tl->nr_samples && tl->samples[s].ts <= tl->offcpu[o].start);
}

static inline uint64_t timeline__gpu_end(const struct timeline *tl, const struct tl_gpu *g)
{
	return g->start + timeline__dur(tl, g->dur);
}

static inline uint64_t timeline__api_end(const struct timeline *tl, const struct tl_api *a)
{
	return a->start + timeline__dur(tl, a->dur);
}

/* The fields of small records that live in the timeline's tables. */
static inline uint32_t timeline__gpu_pid(const struct timeline *tl, const struct tl_gpu *g)
{
	return tl->lanes[g->lane].pid;
}

static inline uint32_t timeline__gpu_device(const struct timeline *tl, const struct tl_gpu *g)
{
	return tl->lanes[g->lane].device;
}

static inline uint32_t timeline__gpu_stream(const struct timeline *tl, const struct tl_gpu *g)
{
	return tl->lanes[g->lane].stream;
}

static inline uint32_t timeline__gpu_graph(const struct timeline *tl, const struct tl_gpu *g)
{
	return tl->lanes[g->lane].graph_id;
}

static inline uint64_t timeline__gpu_bytes(const struct timeline *tl, const struct tl_gpu *g)
{
	return g->kind == TL_GPU_MEMCPY || g->kind == TL_GPU_MEMSET ? tl->gpu_bytes[g->name] : 0;
}

/* A kernel's launch configuration, or NULL (not a kernel, or not known). */
static inline const struct tl_kconfig *timeline__gpu_kconfig(const struct timeline *tl,
							     const struct tl_gpu *g)
{
	return g->kind == TL_GPU_KERNEL && g->kconfig ? &tl->kconfigs[g->kconfig - 1] : NULL;
}

/* The issuing API call's index in tl->api (correlate__run()), or -1. */
static inline int32_t timeline__gpu_api(const struct timeline *tl, const struct tl_gpu *g)
{
	(void)tl;
	return g->flags & TL_GPU_JOINED ? (int32_t)g->corr : -1;
}

static inline uint32_t timeline__gpu_corr(const struct timeline *tl, const struct tl_gpu *g)
{
	return g->flags & TL_GPU_JOINED ? tl->api[g->corr].corr : g->corr;
}

/* The launch stack of API call a (correlate__run()), or NULL. */
static inline const struct tl_stack *timeline__api_launch_stack(const struct timeline *tl,
								const struct tl_api *a)
{
	return a->launch >= 0 ? &tl->launch_stacks[a->launch] : NULL;
}

/* The launch stack of the call that issued g (correlate__run()), or NULL. */
static inline const struct tl_stack *timeline__gpu_launch_stack(const struct timeline *tl,
								const struct tl_gpu *g)
{
	return g->flags & TL_GPU_JOINED ? timeline__api_launch_stack(tl, &tl->api[g->corr]) : NULL;
}

static inline uint32_t timeline__api_pid(const struct timeline *tl, const struct tl_api *a)
{
	return tl->tids[a->thr].pid;
}

static inline uint32_t timeline__api_tid(const struct timeline *tl, const struct tl_api *a)
{
	return tl->tids[a->thr].tid;
}

/* The API call's name as a timeline string id (0: unknown). */
static inline uint32_t timeline__api_name(const struct timeline *tl, const struct tl_api *a)
{
	return tl->api_names[a->name];
}

/* Warnings collected while loading, one line each. */
size_t timeline__nr_warnings(const struct timeline *tl);
const char *timeline__warning(const struct timeline *tl, size_t i);

#endif /* GPUPERF_TIMELINE_H */
