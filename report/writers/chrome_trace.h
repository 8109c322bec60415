/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chrome_trace.h - the timeline as a Chrome Trace Event Format document
 * (trace.json), the JSON that ui.perfetto.dev and Catapult's trace viewer
 * open.
 *
 * Layout: one process per traced process, one track per host thread with
 * its CUDA API calls ("X" slices) and on-CPU samples (instant events named
 * by their leaf frame, "sf" naming their call stack in the document's
 * "stackFrames", root first as cpu.folded has it; Catapult shows it as the
 * instant's stack, Perfetto's JSON reader keeps the instant and leaves the
 * stack: trace.pftrace has it there), and beside it a track "<thread> (off-CPU)" (tid +
 * CHROME_TRACE_OFFCPU_TID) for its off-CPU spans ("X" slices named
 * "[off-cpu] leaf"): the scheduler's and CUPTI's timestamps can overlap by
 * microseconds without nesting, and on one track such a pair cannot be
 * drawn (Perfetto moves one to an overflow track and reports an error).
 * Each GPU device is a process of its own (a synthetic pid, see
 * CHROME_TRACE_GPU_PID_BASE) sorted after the host processes, with one
 * track per stream holding its kernels, memcpys and memsets, and a "GPU
 * memory" counter ("C" events, args.bytes: bytes allocated and not yet
 * freed) where memory records show allocations. A flow arrow
 * (flow v2: "bind_id" + "flow_out" on the API slice, "flow_in" on each GPU
 * slice) joins every launch to the work it issued, graph launches to all
 * their kernels. Times are µs with exactly three decimals (ns precision),
 * relative to the earliest timestamp of the timeline.
 *
 * Synchronization records (TL_GPU_SYNC) are not drawn: the host thread's
 * API slice (cudaStreamSynchronize, ...) already shows the same wait, and a
 * sync record names no device to put it on.
 */
#ifndef GPUPERF_CHROME_TRACE_H
#define GPUPERF_CHROME_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct timeline;
struct correlation;
struct tl_stack;
struct tl_sample;
struct stack_frame;

/* GPU device d is drawn as pid CHROME_TRACE_GPU_PID_BASE + d: above pid_max (2^22). */
#define CHROME_TRACE_GPU_PID_BASE 0x40000000u
/*
 * Each device's "GPU memory" counter (bytes allocated and not freed) is a
 * counter of its process; devices past this many in one recording get none.
 */
#define CHROME_TRACE_MEM_DEVICES 64
/* Thread tid's off-CPU spans are drawn as tid CHROME_TRACE_OFFCPU_TID + tid of its process. */
#define CHROME_TRACE_OFFCPU_TID 0x40000000u

/*
 * How things are named; ctx is passed back to every callback. Any callback
 * may be NULL, and any may return NULL, for the fallback: the innermost
 * frame's address in hex ("[unknown]" for an empty stack), the mangled
 * kernel name, "pid N", "thread N", no device name. A returned string only
 * has to stay valid until the next callback.
 */
struct chrome_trace_names {
	void *ctx;
	/* Innermost symbolized frame of a sample or off-CPU stack. */
	const char *(*stack_leaf)(void *ctx, uint32_t pid, const struct tl_stack *st);
	/* Demangled kernel name. */
	const char *(*kernel_name)(void *ctx, const char *mangled);
	const char *(*process_name)(void *ctx, uint32_t pid);
	const char *(*thread_name)(void *ctx, uint32_t pid, uint32_t tid);
	/* "NVIDIA H100 80GB HBM3", for the track "GPU 0 (NVIDIA H100 ...)". */
	const char *(*device_name)(void *ctx, uint32_t device);
	/*
	 * The frames of an on-CPU sample, root first, as cpu.folded draws
	 * them (names and kinds: enum gp_frame_kind): how many, with *frames
	 * valid until the next callback; -1 when out of memory. Called once
	 * per distinct (pid, stack). Fallback: the stack's addresses in hex,
	 * user frames then kernel ones, outermost first.
	 */
	long (*sample_frames)(void *ctx, const struct tl_sample *s, const struct stack_frame **frames);
};

/*
 * Write the whole document to `out`. The caller opens and closes `out`:
 * gzopen(path, "wb6") for a gzip'd trace.json.gz, gzopen(path, "wT") (or
 * gzdopen) for plain JSON, so one code path writes both.
 *
 * tl must be finished (timeline__finish()) and c computed from it
 * (correlate__run()); names may be NULL (all fallbacks). The document is
 * streamed from the timeline's arrays: memory beyond the per-track tables
 * is one bit per API call (which calls start a flow).
 *
 * Returns 0, -EINVAL (NULL tl/c/out, c not of tl), -ENOMEM, or -EIO when
 * a write fails (what was written so far is not a valid document).
 * Not thread-safe as to `out`; tl and c are only read.
 */
int chrome_trace__write(const struct timeline *tl, const struct correlation *c,
			const struct chrome_trace_names *names, gzFile out);

/*
 * The same document as plain JSON into the file at path (created or
 * truncated), written with bulk_out.h's O_DIRECT where the file system
 * allows: at 10M GPU records the JSON is ~4 GB, and copying it into the
 * page cache costs more than formatting it. Returns as
 * chrome_trace__write(), with -errno of a failure to create or write the
 * file.
 */
int chrome_trace__write_path(const struct timeline *tl, const struct correlation *c,
			     const struct chrome_trace_names *names, const char *path);

/*
 * About how many bytes chrome_trace__write() writes for tl (plain JSON):
 * from the number of events of each kind and the length of their names,
 * within some 10% for names as the symbolizer prints them. Reads tl only.
 * Once the events whose size needs no pass over the records (API calls
 * and CPU events, counted, not measured) come to more than `enough`, that
 * is what it returns: the caller only asks whether the file would be big.
 */
uint64_t chrome_trace__estimate_size(const struct timeline *tl, uint64_t enough);

/*
 * The JSON string escaper every field of the document goes through:
 * writes s as a quoted JSON string. '"', '\\' and control characters are
 * escaped (\n \t \r \b \f, others \u00XX); bytes that are not valid UTF-8
 * become '?', so that strict parsers (Python's json, browsers) accept the
 * document whatever a kernel or thread name holds. NULL writes "".
 * Returns 0 or -EIO.
 */
int chrome_trace__write_string(gzFile out, const char *s);

/*
 * What trace.json and trace.pftrace (perfetto_trace.h) both show: the name
 * of a stack's innermost frame through names->stack_leaf, or its address
 * in tmp; a task state at switch-out as ps(1)'s letter, by the kernel's
 * task_state_index() (TASK_KILLABLE is D), and whether that letter is all
 * its bits say (false for TASK_KILLABLE: writers add the raw bits then);
 * a CUpti_ActivityMemcpyKind as "HtoD", "DtoH", ... (one pointer for every
 * kind without a name: "unknown")
 */
const char *chrome_trace__leaf_name(const struct timeline *tl, const struct chrome_trace_names *nm,
				   uint32_t pid, const struct tl_stack *st, char *tmp, size_t len);
const char *chrome_trace__task_state(uint32_t state);
bool chrome_trace__task_state_exact(uint32_t state);
/* A grid or block as "256x1x1" into buf (CHROME_TRACE_DIMS_LEN bytes); returns its length. */
#define CHROME_TRACE_DIMS_LEN 36
size_t chrome_trace__dims(char *buf, const uint32_t d[3]);

/*
 * The call stacks of a timeline's samples, as both timelines write them:
 * a tree of frame nodes (parent, name, kind), each distinct path from the
 * root stored once and numbered from 1 in the order it was first seen (a
 * node's parent before it), and each distinct (name, kind) numbered too
 * (its "symbol"), so that a writer writes each frame, name and stack once
 * and refers to it by number after that.
 */
struct chrome_trace_stacks;

struct chrome_trace_frame {
	uint32_t parent; /* node id, 0 for a root frame */
	uint32_t sym;	 /* the (name, kind) of the node, from 1 */
	uint32_t len;	 /* of name */
	unsigned kind;	 /* enum gp_frame_kind */
	const char *name; /* NUL-terminated; valid until the next chrome_trace__sample_stack() */
};

/* NULL on ENOMEM. */
struct chrome_trace_stacks *chrome_trace__stacks_new(void);
void chrome_trace__stacks_free(struct chrome_trace_stacks *cs);
/*
 * The node id of sample s's innermost frame (its stack is that node and
 * its parents), 0 for a stack of no frames; -ENOMEM. Frames come from
 * nm->sample_frames (or its fallback), once per distinct (pid, stack).
 */
int64_t chrome_trace__sample_stack(struct chrome_trace_stacks *cs, const struct timeline *tl,
				   const struct chrome_trace_names *nm, const struct tl_sample *s);
/* Node id (1 .. chrome_trace__nr_nodes()). */
void chrome_trace__stack_node(const struct chrome_trace_stacks *cs, uint32_t id,
			      struct chrome_trace_frame *f);
size_t chrome_trace__nr_nodes(const struct chrome_trace_stacks *cs);
size_t chrome_trace__nr_syms(const struct chrome_trace_stacks *cs);

#endif /* GPUPERF_CHROME_TRACE_H */
