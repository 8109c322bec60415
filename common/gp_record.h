/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_record.h - the gpuperf trace container: file header, chunk header and
 * every record type, defined once for both producers (the injection library
 * and the CPU agent) and the merger. docs/trace-format.md is the prose
 * version of this file; the two change together.
 *
 * Rules for every struct here: fixed-width fields only (no pointers, bool or
 * enum members), explicit padding, little-endian on disk (all supported
 * hosts are), and a _Static_assert on the size. Times are nanoseconds in the
 * file's clock (gp_file_header.clock_id, CLOCK_MONOTONIC unless said
 * otherwise). Strings are referenced by id (gp_rec_string); id 0 means "no
 * string".
 *
 * Versioning: a reader accepts files whose major version equals its own.
 * A minor version may add record types (old readers skip them by size) and
 * append fields at the end of a record (old readers read the prefix they
 * know; new readers zero-fill fields a shorter, older record lacks). Any
 * other change bumps the major version.
 */
#ifndef GPUPERF_GP_RECORD_H
#define GPUPERF_GP_RECORD_H

#include <stdint.h>

#define GP_FILE_MAGIC "GPUPERF\n" /* 8 bytes, no NUL stored */
#define GP_FORMAT_MAJOR 2
#define GP_FORMAT_MINOR 6
/* The oldest major version readers still read (1: no zero-byte packing, zlib-wrapped chunks). */
#define GP_FORMAT_MAJOR_OLDEST 1

#define GP_CHUNK_MAGIC 0x4b434750u /* bytes "PGCK" on disk (little-endian) */

/* Hard limits the reader enforces; a writer never exceeds them. */
#define GP_CHUNK_MAX_RAW (16u << 20)	/* decompressed bytes in one chunk */
#define GP_REC_MAX_SIZE (64u << 10)	/* one record, header included */
#define GP_STR_MAX_LEN 4095u		/* longest string, NUL excluded */
#define GP_STACK_MAX_DEPTH 127u		/* frames per user or kernel stack */

/* gp_file_header.producer */
#define GP_PRODUCER_INJECT 1u	/* libgpuperf_inject.so: gpu-<pid>.trace */
#define GP_PRODUCER_CPU_AGENT 2u /* eBPF agent: cpu.trace */
#define GP_PRODUCER_SYNTH 3u	/* tests and benchmarks */

/*
 * gp_file_header.clock_id. gpuperf's own numbers, not clockid_t, so that 0
 * stays "not set" (a writer option left at 0 means CLOCK_MONOTONIC).
 */
#define GP_CLOCK_MONOTONIC 1u
#define GP_CLOCK_REALTIME 2u

/*
 * File header: the first 256 bytes of every trace. header_crc is the zlib
 * crc32 of the bytes before it.
 *
 * Since 2.2 the writer rewrites the header in place (pwrite of these 256
 * bytes, which the file already holds) when it loses records: that still
 * works on a full disk and past RLIMIT_FSIZE, where nothing can be
 * appended. lost_records is then every record the writer could not store,
 * lost_cause the errno of the first loss (ENOSPC, EFBIG, EIO, ENOMEM).
 * Files of 2.1 and before hold zeros there.
 */
/* gp_file_header.flags */
#define GP_FILE_END_LOST 0x1u /* (2.2) closed, but the end record could not be written */
struct gp_file_header {
	char magic[8];		/* GP_FILE_MAGIC */
	uint16_t version_major; /* GP_FORMAT_MAJOR */
	uint16_t version_minor; /* GP_FORMAT_MINOR */
	uint16_t producer;	/* GP_PRODUCER_* */
	uint16_t clock_id;	/* GP_CLOCK_* of every timestamp in the file */
	uint32_t header_size;	/* sizeof(struct gp_file_header) */
	uint32_t pid;		/* process that wrote the file */
	uint64_t start_monotonic_ns;
	uint64_t start_realtime_ns;
	uint32_t flags;		/* GP_FILE_*; 0 before 2.2 */
	uint32_t ncpus;		/* online CPUs when the file was opened */
	char producer_version[32]; /* e.g. "gpuperf 0.1.0", NUL-padded */
	char hostname[64];
	char kernel_release[64];   /* uname -r */
	char machine[16];	   /* uname -m */
	uint64_t lost_records;	/* (2.2) records the writer could not store */
	uint32_t lost_cause;	/* (2.2) errno of the first of them; 0: none or unknown */
	char reserved[16];
	uint32_t header_crc;
};
_Static_assert(sizeof(struct gp_file_header) == 256, "gp_file_header is 256 bytes");

/*
 * Chunk header, then `csize` bytes of one complete zlib stream that
 * inflates to `rsize` bytes holding `nrecords` records. payload_crc is the
 * crc32 of the compressed bytes; header_crc the crc32 of the 20 bytes before
 * it, so a reader can trust the lengths before it allocates anything.
 */
struct gp_chunk_header {
	uint32_t magic; /* GP_CHUNK_MAGIC */
	uint32_t csize;
	uint32_t rsize;
	uint32_t nrecords;
	uint32_t payload_crc;
	uint32_t header_crc;
};
_Static_assert(sizeof(struct gp_chunk_header) == 24, "gp_chunk_header is 24 bytes");

/*
 * Every record starts with this header. size counts the header and is a
 * multiple of 8, so records stay 8-byte aligned inside a chunk.
 */
struct gp_rec_hdr {
	uint16_t type;	/* GP_REC_* */
	uint16_t flags; /* per type; 0 unless said */
	uint32_t size;
};
_Static_assert(sizeof(struct gp_rec_hdr) == 8, "gp_rec_hdr is 8 bytes");

enum gp_rec_type {
	GP_REC_STRING = 1,
	GP_REC_CLOCK_PAIR = 2,
	GP_REC_PROCESS = 3,
	GP_REC_THREAD = 4,
	GP_REC_MODULE = 5,
	GP_REC_DEVICE = 6,
	GP_REC_API = 7,
	GP_REC_KERNEL = 8,
	GP_REC_MEMCPY = 9,
	GP_REC_MEMSET = 10,
	GP_REC_SYNC = 11,
	GP_REC_CPU_SAMPLE = 12,
	GP_REC_OFFCPU = 13,
	GP_REC_LAUNCH_SITE = 14,
	GP_REC_DROPPED = 15,
	GP_REC_END = 16,
	GP_REC_STACK = 17,	     /* since 2.1 */
	GP_REC_LAUNCH_SITE_ID = 18, /* since 2.1 */
	GP_REC_API_STACK = 19,	     /* since 2.3 */
	GP_REC_MEMORY = 20,	     /* since 2.6 */
	GP_REC_TYPE_COUNT /* one past the last known type */
};

/*
 * GP_REC_STRING: defines string `id` (ids are per file, stable, never 0).
 * A writer defines each string in every chunk that uses it, ahead of the
 * records that use it, so every chunk reads on its own. data holds len
 * bytes and a NUL, padded with NULs to the record's 8-byte size.
 */
struct gp_rec_string {
	struct gp_rec_hdr hdr;
	uint32_t id;
	uint32_t len;
	char data[];
};
_Static_assert(sizeof(struct gp_rec_string) == 16, "gp_rec_string");

/* GP_REC_CLOCK_PAIR source */
#define GP_CLOCKSRC_CUPTI 1u /* producer_ts from cuptiGetTimestamp() */
#define GP_CLOCKSRC_BPF 2u   /* producer_ts from bpf_ktime_get_ns() */

/*
 * GP_REC_CLOCK_PAIR: the producer's own clock read next to the system
 * clocks, so a trace in another clock can be aligned by offset and drift.
 */
struct gp_rec_clock_pair {
	struct gp_rec_hdr hdr;
	uint64_t producer_ts;
	uint64_t monotonic_ns;
	uint64_t realtime_ns;
	uint32_t source; /* GP_CLOCKSRC_* */
	uint32_t pad;
};
_Static_assert(sizeof(struct gp_rec_clock_pair) == 40, "gp_rec_clock_pair");

/* GP_REC_PROCESS / GP_REC_THREAD event */
#define GP_PROC_INFO 0u /* seen alive (attach, or file start) */
#define GP_PROC_FORK 1u
#define GP_PROC_EXEC 2u
#define GP_PROC_EXIT 3u

struct gp_rec_process {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint32_t pid;
	uint32_t ppid;
	uint32_t event;	    /* GP_PROC_* */
	int32_t exit_code;  /* wait status as the kernel reports it, on EXIT */
	uint32_t comm_str;  /* string id: comm */
	uint32_t exe_str;   /* string id: executable path, 0 if unknown */
};
_Static_assert(sizeof(struct gp_rec_process) == 40, "gp_rec_process");

struct gp_rec_thread {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t event;	   /* GP_PROC_* */
	uint32_t name_str; /* string id: thread comm */
};
_Static_assert(sizeof(struct gp_rec_thread) == 32, "gp_rec_thread");

/*
 * GP_REC_MODULE: one executable mapping of a process, with what is needed
 * to symbolize its addresses after the process is gone.
 */
struct gp_rec_module {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t inode;
	uint32_t pid;
	uint32_t path_str;   /* string id */
	uint32_t dev;	     /* makedev(major, minor) */
	uint32_t prot;	     /* PROT_* */
	uint32_t build_id_size;
	uint8_t build_id[20];
};
_Static_assert(sizeof(struct gp_rec_module) == 88, "gp_rec_module");

/* GP_REC_DEVICE: one GPU */
struct gp_rec_device {
	struct gp_rec_hdr hdr;
	uint64_t global_memory_bytes;
	uint32_t device_id;
	uint32_t name_str;
	uint32_t cc_major;
	uint32_t cc_minor;
	uint32_t sm_count;
	uint32_t pci_bus_id;
	uint32_t pci_device_id;
	uint32_t pad;
	uint8_t uuid[16];
};
_Static_assert(sizeof(struct gp_rec_device) == 64, "gp_rec_device");

/* gp_rec_api.domain */
#define GP_API_RUNTIME 1u
#define GP_API_DRIVER 2u

/*
 * GP_REC_API: one CUDA runtime or driver API call on a host thread. tid is
 * the kernel tid (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM). cbid is CUPTI's
 * callback id in `domain`; name_str keeps the name so readers need no CUPTI.
 */
struct gp_rec_api {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t tid;
	uint32_t domain; /* GP_API_* */
	uint32_t cbid;
	uint32_t name_str;
	int32_t return_value;
	uint32_t pad;
};
_Static_assert(sizeof(struct gp_rec_api) == 56, "gp_rec_api");

/* gp_rec_kernel.flags (in hdr.flags) */
#define GP_KERNEL_IN_GRAPH 0x1u
#define GP_KERNEL_COOPERATIVE 0x2u

/*
 * GP_REC_KERNEL: one kernel execution. correlation_id is that of the API
 * call that issued it (for graph kernels: the graph launch's).
 */
struct gp_rec_kernel {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint64_t graph_node_id;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t name_str; /* mangled name as CUPTI reports it */
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t static_shared_mem;
	uint32_t dynamic_shared_mem;
	uint32_t registers_per_thread;
};
_Static_assert(sizeof(struct gp_rec_kernel) == 96, "gp_rec_kernel");

/* gp_rec_memcpy.copy_kind: CUpti_ActivityMemcpyKind values */
/* gp_rec_memcpy.src_kind / dst_kind: CUpti_ActivityMemoryKind values */
struct gp_rec_memcpy {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint64_t bytes;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;
	uint8_t copy_kind;
	uint8_t src_kind;
	uint8_t dst_kind;
	uint8_t is_async;
	uint32_t pad;
	uint64_t graph_node_id; /* (2.4) CUPTI's graphNodeId; 0 outside graphs and in older files */
};
_Static_assert(sizeof(struct gp_rec_memcpy) == 72, "gp_rec_memcpy");

struct gp_rec_memset {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint64_t bytes;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;
	uint32_t value;
	uint16_t memory_kind; /* CUpti_ActivityMemoryKind */
	uint16_t is_async;
	uint64_t graph_node_id; /* (2.4) CUPTI's graphNodeId; 0 outside graphs and in older files */
};
_Static_assert(sizeof(struct gp_rec_memset) == 72, "gp_rec_memset");

/* gp_rec_sync.sync_type: CUpti_ActivitySynchronizationType values */
struct gp_rec_sync {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t sync_type;
	uint32_t context_id;
	uint32_t stream_id; /* 0xffffffff when not stream-specific */
	uint32_t event_id;  /* 0xffffffff when not an event sync */
};
_Static_assert(sizeof(struct gp_rec_sync) == 48, "gp_rec_sync");

/*
 * The fields the four GPU activity records (kernel, memcpy, memset, sync)
 * share, read and written through one accessor rather than copied field by
 * field for each type. An accessor, not a layout: the records keep theirs.
 * A sync has no device, graph or graph node: they read 0 and are not
 * written.
 */
struct gp_rec_gpu {
	uint64_t start;
	uint64_t end;
	uint64_t graph_node_id;
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t graph_id;
};

/* Whether a record type is one of the four GPU activity records. */
static inline int gp_rec_is_gpu(uint16_t type)
{
	return type == GP_REC_KERNEL || type == GP_REC_MEMCPY || type == GP_REC_MEMSET ||
	       type == GP_REC_SYNC;
}

/*
 * Kernel, memcpy and memset name the shared fields alike. graph_node_id
 * ends memcpy and memset records from 2.4 on: an older, shorter one has
 * none (gp_rec_read()'s rule: 0).
 */
#define GP_REC_GPU_GET_(g, r)                                                                      \
	((g)->start = (r)->start, (g)->end = (r)->end,                                             \
	 (g)->graph_node_id = (r)->hdr.size >= sizeof(*(r)) ? (r)->graph_node_id : 0,              \
	 (g)->correlation_id = (r)->correlation_id, (g)->pid = (r)->pid,                           \
	 (g)->device_id = (r)->device_id, (g)->context_id = (r)->context_id,                       \
	 (g)->stream_id = (r)->stream_id, (g)->graph_id = (r)->graph_id)
#define GP_REC_GPU_SET_(r, g)                                                                      \
	((r)->start = (g)->start, (r)->end = (g)->end, (r)->graph_node_id = (g)->graph_node_id,    \
	 (r)->correlation_id = (g)->correlation_id, (r)->pid = (g)->pid,                           \
	 (r)->device_id = (g)->device_id, (r)->context_id = (g)->context_id,                       \
	 (r)->stream_id = (g)->stream_id, (r)->graph_id = (g)->graph_id)

/*
 * The shared fields of GPU record h (at least gp_rec_min_size() bytes) into
 * *g: 1, or 0 (*g zeroed) when h is no GPU record.
 */
static inline int gp_rec_gpu__get(const struct gp_rec_hdr *h, struct gp_rec_gpu *g)
{
	switch (h->type) {
	case GP_REC_KERNEL:
		GP_REC_GPU_GET_(g, (const struct gp_rec_kernel *)(const void *)h);
		return 1;
	case GP_REC_MEMCPY:
		GP_REC_GPU_GET_(g, (const struct gp_rec_memcpy *)(const void *)h);
		return 1;
	case GP_REC_MEMSET:
		GP_REC_GPU_GET_(g, (const struct gp_rec_memset *)(const void *)h);
		return 1;
	case GP_REC_SYNC: {
		const struct gp_rec_sync *s = (const void *)h;

		*g = (struct gp_rec_gpu){ .start = s->start, .end = s->end,
					  .correlation_id = s->correlation_id, .pid = s->pid,
					  .context_id = s->context_id, .stream_id = s->stream_id };
		return 1;
	}
	default:
		*g = (struct gp_rec_gpu){ 0 };
		return 0;
	}
}

/*
 * Write *g's fields into GPU record h, its hdr.type set and its size its
 * type's whole struct (gp_writer__reserve() makes it so): 1, or 0 when h is
 * no GPU record.
 */
static inline int gp_rec_gpu__set(struct gp_rec_hdr *h, const struct gp_rec_gpu *g)
{
	switch (h->type) {
	case GP_REC_KERNEL:
		GP_REC_GPU_SET_((struct gp_rec_kernel *)(void *)h, g);
		return 1;
	case GP_REC_MEMCPY:
		GP_REC_GPU_SET_((struct gp_rec_memcpy *)(void *)h, g);
		return 1;
	case GP_REC_MEMSET:
		GP_REC_GPU_SET_((struct gp_rec_memset *)(void *)h, g);
		return 1;
	case GP_REC_SYNC: {
		struct gp_rec_sync *s = (void *)h;

		s->start = g->start;
		s->end = g->end;
		s->correlation_id = g->correlation_id;
		s->pid = g->pid;
		s->context_id = g->context_id;
		s->stream_id = g->stream_id;
		return 1;
	}
	default:
		return 0;
	}
}

/*
 * Stacked records (CPU sample, off-CPU span, launch site) end in
 * nr_user user-space return addresses (innermost first) followed by
 * nr_kernel kernel addresses (innermost first). size is exactly
 * sizeof(struct) + 8 * (nr_user + nr_kernel).
 */
/*
 * (2.5) hdr.flags of cpu_sample and offcpu records, bits 8-11: where the
 * user stack ends, as the agent's CFI unwinder said (GP_STACK_END_*): at the
 * thread's root (a whole stack) or, cut short, why. 0: not said (a
 * frame-pointer walk cannot tell; files before 2.5). The names are
 * gp_stack_end_name()'s, those of record.json's "unwind_ends".
 */
#define GP_STACK_END_SHIFT 8
#define GP_STACK_END_MASK 0x0f00u
#define GP_STACK_END_OF(flags) (((unsigned)(flags) & GP_STACK_END_MASK) >> GP_STACK_END_SHIFT)
#define GP_STACK_END_ROOT 1u		/* the thread's outermost frame (_start, clone3) */
#define GP_STACK_END_DEPTH 2u		/* the depth limit (GP_STACK_MAX_DEPTH frames) */
#define GP_STACK_END_UNKNOWN_MODULE 3u	/* a pc in no mapping the agent had seen: JIT code, a new dlopen */
#define GP_STACK_END_BAD_FRAME 4u	/* a frame that reads off the stack or below its callee's */
#define GP_STACK_END_NO_FP 5u		/* code without CFI, and no frame pointer */
#define GP_STACK_END_UNSUPPORTED 6u	/* CFI the unwinder cannot follow */
#define GP_STACK_END_OFF_STACK 7u	/* the stack pointer off the copied stack */
#define GP_STACK_END_NO_TABLES 8u	/* no CFI tables at all for the process */
#define GP_STACK_END_SHORT_COPY 9u	/* deeper than the stack bytes the agent copies */
#define GP_STACK_END_COUNT 10u		/* one past the last; 0 is "not said" */

struct gp_rec_cpu_sample {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint64_t weight_ns; /* 1e9 / sampling frequency */
	uint32_t pid;
	uint32_t tid;
	uint32_t cpu;
	uint16_t nr_user;
	uint16_t nr_kernel;
	uint64_t ips[];
};
_Static_assert(sizeof(struct gp_rec_cpu_sample) == 40, "gp_rec_cpu_sample");

/*
 * GP_REC_OFFCPU: a thread switched out at `start` and back in at `end`.
 *
 * With GP_OFFCPU_AGGREGATE in hdr.flags it is instead the sum of a thread's
 * blocks shorter than the agent's minimum block time: end - start is their
 * total, start the switch-out of the first, pad their number; no stack, no
 * waker, cpu = UINT32_MAX. Readers keep it out of timelines and count it in
 * totals.
 */
#define GP_OFFCPU_AGGREGATE 0x1u
struct gp_rec_offcpu {
	struct gp_rec_hdr hdr;
	uint64_t start;
	uint64_t end;
	uint32_t pid;
	uint32_t tid;
	uint32_t waker_pid; /* 0 when unknown */
	uint32_t waker_tid;
	uint32_t cpu;	    /* CPU it switched out on */
	uint32_t state;	    /* task state at switch-out (TASK_* bits) */
	uint16_t nr_user;
	uint16_t nr_kernel;
	uint32_t pad;
	uint64_t ips[];
};
_Static_assert(sizeof(struct gp_rec_offcpu) == 56, "gp_rec_offcpu");

/*
 * GP_REC_LAUNCH_SITE: a uprobe hit on a CUDA launch/copy entry point, as
 * the CPU agent wrote them before its launch uprobes were retired (and
 * GP_REC_LAUNCH_SITE_ID). Still read; the merger counts them, never joins
 * them (launch stacks are GP_REC_API_STACK's).
 */
struct gp_rec_launch_site {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t probe_str; /* string id: the probed symbol, e.g. "cudaLaunchKernel" */
	uint16_t nr_user;
	uint16_t nr_kernel; /* always 0 today; kept for the common stack layout */
	uint64_t ips[];
};
_Static_assert(sizeof(struct gp_rec_launch_site) == 32, "gp_rec_launch_site");

/*
 * GP_REC_STACK (2.1): defines stack `id` (ids are per file, stable, never 0;
 * an id always names the same frames), nr_user user addresses then
 * nr_kernel kernel ones, innermost first. Like a string, it is defined in
 * every chunk that names it, ahead of the records that do, so every chunk
 * reads on its own.
 */
struct gp_rec_stack {
	struct gp_rec_hdr hdr;
	uint32_t id;
	uint16_t nr_user;
	uint16_t nr_kernel;
	uint64_t ips[];
};
_Static_assert(sizeof(struct gp_rec_stack) == 16, "gp_rec_stack");

/*
 * GP_REC_LAUNCH_SITE_ID (2.1): a GP_REC_LAUNCH_SITE whose stack is named by
 * id (a GP_REC_STACK of the same chunk), not carried: a program launches
 * from a few places millions of times. stack_id 0: the stack is not known.
 */
struct gp_rec_launch_site_id {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint32_t probe_str; /* string id: the probed symbol, e.g. "cudaLaunchKernel" */
	uint32_t stack_id;
};
_Static_assert(sizeof(struct gp_rec_launch_site_id) == 32, "gp_rec_launch_site_id");

/*
 * GP_REC_API_STACK (2.3): the stack of the thread that made API call
 * `correlation_id` (a gp_rec_api of the same file), taken by the injection
 * library on that thread as the call entered: stack_id names a GP_REC_STACK
 * of the same chunk (user addresses only, innermost first: the caller of
 * the CUDA entry point is frame 0... see docs/trace-format.md). A driver
 * call made inside a runtime call gets a record too, with the runtime
 * call's stack. stack_id 0: the stack is not known. A trace that holds any
 * of these has every launch's stack by correlation id: readers join them
 * exactly and use no launch_site records for its process.
 */
#define GP_API_STACK_TRUNCATED 0x1u /* hdr.flags: the walk stopped at a frame it could not read */
#define GP_API_STACK_NESTED 0x2u    /* hdr.flags: a driver call inside a runtime call; its stack */
struct gp_rec_api_stack {
	struct gp_rec_hdr hdr;
	uint32_t correlation_id;
	uint32_t stack_id;
};
_Static_assert(sizeof(struct gp_rec_api_stack) == 16, "gp_rec_api_stack");

/*
 * hdr.flags of GP_REC_MEMORY (2.6, added later: a reader that does not know it
 * counts the record as CUPTI's): made by the injection library from the
 * call's own callback, not by CUPTI: virtual memory's physical allocations
 * (cuMemCreate) and their frees (a handle's last cuMemRelease), address the
 * allocation handle. A reader drops one whose correlation id also has a
 * memory record from CUPTI: the driver reported the call itself.
 */
#define GP_MEMORY_FROM_CALL 0x1u

/* gp_rec_memory.op */
#define GP_MEM_ALLOC 1u
#define GP_MEM_FREE 2u
#define GP_MEM_POOL_CREATE 3u
#define GP_MEM_POOL_DESTROY 4u
#define GP_MEM_POOL_TRIM 5u

/*
 * GP_REC_MEMORY (2.6): one allocation or release of GPU-visible memory
 * (CUPTI's MEMORY2: cudaMalloc, cudaMallocAsync, cudaMallocManaged,
 * cudaHostAlloc, ... and their frees), or one event of a stream-ordered
 * memory pool (CUPTI's MEMORY_POOL: created, destroyed, trimmed), at `ts`,
 * inside API call `correlation_id` (whose api_stack is the allocation's
 * stack). Pool events: address is the pool's base, bytes its size after
 * the event (trim: the bytes it was asked to keep), memory_kind 0. A graph
 * launch's allocation or free node: correlation_id is the launch's,
 * graph_node_id the executable graph's node (as on kernels), found by the
 * allocation's address (CUPTI's record has no such field).
 */
struct gp_rec_memory {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint64_t address;
	uint64_t bytes;
	uint64_t pool_address; /* the pool's base; 0 when not from a pool */
	uint64_t pool_size;    /* bytes the pool holds (reserved) as of this event */
	uint64_t pool_used;    /* bytes of it in use */
	uint32_t correlation_id;
	uint32_t pid;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;  /* 0xffffffff when not stream-ordered */
	uint8_t op;	     /* GP_MEM_* */
	uint8_t memory_kind; /* CUpti_ActivityMemoryKind: 2 pinned, 3 device, 5 managed, ... */
	uint8_t pool_type;   /* CUpti_ActivityMemoryPoolType: 0 none, 1 local, 2 imported */
	uint8_t is_async;    /* stream-ordered (cudaMallocAsync, cudaFreeAsync, a graph's memory node) */
	uint64_t graph_node_id; /* the graph allocation or free node that made it; 0: none */
};
_Static_assert(sizeof(struct gp_rec_memory) == 88, "gp_rec_memory");

/* gp_rec_dropped.source */
#define GP_DROP_CUPTI 1u	 /* cuptiActivityGetNumDroppedRecords */
#define GP_DROP_INJECT_BUFFERS 2u /* our buffer pool was empty */
#define GP_DROP_RINGBUF_SAMPLE 3u
#define GP_DROP_RINGBUF_OFFCPU 4u
#define GP_DROP_RINGBUF_LAUNCH 5u
#define GP_DROP_RINGBUF_PROC 6u
#define GP_DROP_STACK 7u	 /* a stack could not be read (or, 2.3, a launch stack kept) */
#define GP_DROP_WRITER 8u	 /* records the writer could not store */
#define GP_DROP_OFFCPU_MISSED 9u /* off-CPU blocks whose switch the kernel did not show */
#define GP_DROP_PERF_MAP 10u	 /* (2.2) JIT symbol maps (/tmp/perf-PID.map) not copied */
#define GP_DROP_KALLSYMS 11u	 /* (2.2) kernel symbols DIR/kallsyms could not hold */
/*
 * (2.5, added later: readers that do not know a source skip it) executable
 * mappings the CPU agent left out (cause ENOMEM): no module record, or no
 * unwinding through them (their pcs end stacks as an unknown module)
 */
#define GP_DROP_MODULE 12u
/* (likewise) mappings unwound by frame pointers, not their file's CFI (ENOEXEC: see summary) */
#define GP_DROP_UNWIND_CFI 13u
/* (likewise) virtual memory events the injection library had no room for (ENOBUFS) */
#define GP_DROP_VMM 14u
#define GP_DROP_SOURCES 15u	 /* one past the last source: size arrays by source with it */

/*
 * GP_REC_DROPPED.cause for GP_DROP_PERF_MAP: why a map was not copied
 * (Linux errno numbers, like every cause).
 */
#define GP_PERF_MAP_LINK 40u	 /* ELOOP: a symbolic link */
#define GP_PERF_MAP_NOT_FILE 22u /* EINVAL: not a regular file (a FIFO, a device) */
#define GP_PERF_MAP_OWNER 1u	 /* EPERM: not owned by the process's user */
#define GP_PERF_MAP_SIZE 27u	 /* EFBIG: larger than the agent copies */

/* GP_REC_DROPPED: `count` records of `source` lost since the previous one. */
struct gp_rec_dropped {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint64_t count;
	uint32_t source;     /* GP_DROP_* */
	uint32_t context_id; /* for GP_DROP_CUPTI, else 0 */
	uint32_t stream_id;
	uint32_t cause;	     /* (2.2) errno of the loss (ENOSPC, EFBIG, ...); 0: not known */
};
_Static_assert(sizeof(struct gp_rec_dropped) == 40, "gp_rec_dropped");

/*
 * GP_REC_END: the producer closed the file cleanly; a file without it was
 * cut short (SIGKILL, crash) and holds what was flushed before that.
 */
struct gp_rec_end {
	struct gp_rec_hdr hdr;
	uint64_t ts;
	uint64_t records; /* records written before this one */
};
_Static_assert(sizeof(struct gp_rec_end) == 24, "gp_rec_end");

/* "root", "depth", "unknown_module", ... for GP_STACK_END_*; NULL for 0 and unknown values. */
const char *gp_stack_end_name(unsigned end);
/* Smallest valid size of each type (fixed part, as of 1.0); 0 for unknown types. */
uint32_t gp_rec_min_size(uint16_t type);
/*
 * Copies record h into dst (the reader's struct of its type, size bytes):
 * fields a shorter record of an older minor version lacks read as zero.
 * Read memcpy and memset records (2.4 appended graph_node_id) through it.
 */
void gp_rec_read(void *dst, uint32_t size, const struct gp_rec_hdr *h);
/* "kernel", "memcpy", ...; "unknown" for types this build does not know. */
const char *gp_rec_type_name(uint16_t type);
/*
 * For stacked types (CPU sample, off-CPU span, launch site): 1, with the
 * fixed part's size and the offset of nr_user (nr_kernel follows it).
 * 0 for every other type.
 */
int gp_rec_stack_layout(uint16_t type, uint32_t *fixed, uint32_t *nr_off);

#endif /* GPUPERF_GP_RECORD_H */
