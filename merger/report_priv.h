/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_priv.h - the state one `gpuperf report` run shares between its
 * parts: report.c (views and files), summary.c (summary.json and the text
 * report) and gpu_idle.c (what the CPU did while the GPU had no work).
 */
#ifndef GPUPERF_REPORT_PRIV_H
#define GPUPERF_REPORT_PRIV_H

#include <stdint.h>

#include "correlate.h"
#include "report.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

/* The views: one aggregation each, frames root first, weights in ns. */
enum report_view {
	VIEW_CPU = 0, /* on-CPU samples */
	VIEW_OFFCPU,  /* off-CPU spans */
	VIEW_GPU,     /* kernels, memcpys, memsets under their launch stacks */
	VIEW_PROFILE, /* all three */
	VIEW_IDLE,    /* launching threads' stacks while the GPU had no work */
	VIEW_COUNT
};

/* A growable frame list (root first). */
struct frame_buf {
	struct stack_frame *f;
	const struct sym_frame **src; /* per frame: what symbolized it, NULL for markers */
	size_t n, cap;
};

/*
 * Records with the same frames are aggregated once: a group is one distinct
 * (kind, pid, tid, stack, API name, GPU frame), with the index of one of its
 * records (rep), the sum of their weights and their count.
 */
struct report_stats;

/* What a GPU record's frames depend on, derived once per record (report.c). */
struct gpu_key {
	uint64_t stack;	 /* launch stack: off << 32 | nr_user << 16 | nr_kernel; UINT64_MAX none */
	uint64_t thread; /* pid << 32 | tid */
	uint64_t what;	 /* GPU frame (kernel name or memcpy kind) << 32 | API name index + 1
			  * (0: no API call) << 8 | tl_gpu kind */
	/* (whole 64-bit words, each made in a register: a key built field by field
	 * and read back as wider words stalls on store forwarding) */
};

struct rec_group {
	uint64_t hash;
	uint64_t weight;
	uint64_t count;
	uint32_t rep;
	uint32_t kind; /* enum report_view of the records: VIEW_CPU, VIEW_OFFCPU, VIEW_GPU */
	struct gpu_key key; /* VIEW_GPU */
};

struct rec_groups {
	struct rec_group *g;
	size_t n, cap;
	uint32_t *slots; /* open addressing: group index + 1 */
	size_t nslots;
};

struct report {
	const struct report_opts *opts;
	struct timeline *tl;
	struct correlation corr;
	struct symbolizer *sym;
	struct stack_agg *view[VIEW_COUNT];
	char **proc_root; /* per tl->procs[i]: the root frame naming the process */
	char **proc_pid;  /* per tl->procs[i]: its "[pid]" frame, NULL when its name is its own */
	/*
	 * The recording's window, CLOCK_MONOTONIC ns: record.json's start and
	 * end when it has them, else the first and last record's times.
	 */
	uint64_t start_ns, end_ns;
	uint64_t duration_ns; /* end_ns - start_ns */
	uint64_t start_realtime_ns; /* wall-clock time of start_ns, 0 unknown */
	uint32_t freq_hz;     /* from record.json, 0 when unknown */
	char *command_line_json; /* record.json's "command_line", printed JSON, or NULL */
	bool attached;	/* record.json has "attached": a recording of running processes (-p/-t) */
	struct frame_buf fb;
	struct rec_groups groups; /* every sample, span and GPU record, grouped */
	struct report_stats *summary; /* summary.c's statistics, built on first use */
	char *errbuf;
	size_t errlen;
	char **warnings; /* the report's own (after the timeline's): one line each */
	size_t nr_warnings;
	struct { /* report__tool_thread()'s last answer: records come in runs of a thread */
		uint32_t pid, tid;
		bool valid, tool;
	} tool_last;
};

/*
 * Whether (pid, tid) is the injection library's writer thread
 * ("gpuperf-writer"): the tool's time, not the program's. Every view and
 * total leaves its on- and off-CPU time out; summary.json and the text
 * report say how much that was.
 */
bool report__tool_thread(struct report *r, uint32_t pid, uint32_t tid);

/* Add a one-line warning for summary.json and the text report. 0 or -ENOMEM. */
int report__warn(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Add sample (VIEW_CPU) or off-CPU span (VIEW_OFFCPU) number rec of r's
 * timeline, with weight, to its group in gs: records of one thread with the
 * same stack draw the same frames, so a group's frames are built once. The
 * groups stay in the order they began. 0 or -ENOMEM.
 */
int report__group_add(struct report *r, struct rec_groups *gs, enum report_view kind, size_t rec,
		      uint64_t weight);
void report__groups_free(struct rec_groups *gs);

/*
 * The root frame of a process: its name (comm). Processes that share a name
 * share the root, each under it as a "[pid]" frame: one tower per program
 * (a build's cc1), its processes side by side (an MPI job's ranks).
 * __push_proc pushes both (0 or -ENOMEM); __proc_depth says how many.
 */
const char *report__proc_root(struct report *r, uint32_t pid);
int report__push_proc(struct report *r, uint32_t pid, struct frame_buf *fb);
size_t report__proc_depth(struct report *r, uint32_t pid);

/* Display name of an API call ("" when unknown) and of a GPU record's frame. */
const char *report__api_name(struct report *r, const struct tl_api *a);
/* "[gpu] demangled", "[memcpy HtoD]", "[memset]"; buf used when needed. */
const char *report__gpu_frame(struct report *r, const struct tl_gpu *g, char *buf, size_t size);
/* The frame kind of a GPU record's leaf frame. */
enum gp_frame_kind report__gpu_kind(const struct tl_gpu *g);
/* A time for people: "812 ns", "3.25 us", "1.20 ms", "2.50 s". */
void report__fmt_ns(char *buf, size_t size, uint64_t ns);

/*
 * Append the symbolized frames of a recorded stack to fb, root first:
 * user frames (outermost first; inline chains expanded), then kernel frames
 * (kind `kernel_kind`). skip_user_leaf drops the innermost user frame (a
 * launch probe's own entry address). Returns 0 or -ENOMEM.
 */
int report__stack_frames(struct report *r, uint32_t pid, const struct tl_stack *st,
			 int skip_user_leaf, enum gp_frame_kind kernel_kind, struct frame_buf *fb);
int frame_buf__push(struct frame_buf *fb, const char *name, enum gp_frame_kind kind);

/*
 * The user frames of a launch-site stack, root first, without the probed
 * entry point and without the frames nvcc generates between the user's
 * <<<>>> and the runtime (the kernel's host stub, __device_stub__*,
 * __cudaLaunchKernel_helper, cudaLaunchKernel<T> wrappers): the innermost
 * frame left is the user's function that launched, and its src gives the
 * file:line of the launch. kernel: the demangled kernel name, or NULL.
 */
int report__launch_frames(struct report *r, uint32_t pid, const struct tl_stack *st,
			  const char *kernel, struct frame_buf *fb);

/* All frames of an on-CPU sample / an off-CPU span, process root first: 0 or -ENOMEM. */
int report__sample_frames(struct report *r, const struct tl_sample *s, struct frame_buf *fb);
int report__offcpu_frames(struct report *r, const struct tl_offcpu *o, struct frame_buf *fb);

/* The launch frames of GPU record i (process root, stack, API): 0 or -ENOMEM. */
int report__gpu_frames(struct report *r, size_t i, struct frame_buf *fb);

/* gpu_idle.c: fill r->view[VIEW_IDLE]. 0 or -ENOMEM. */
int gpu_idle__build(struct report *r);

/*
 * A launch site (or, in memory_stats.c, an allocation site): one API call
 * from one stack, and what it issued.
 */
struct site {
	char *stack;	   /* root-first user frames, ';'-joined: with api, the identity */
	const char *api;
	const char *function;
	char location[256];
	uint64_t gpu_ns, launches; /* allocation sites: bytes allocated, allocations */
};

/*
 * The site of API call a, made from launch stack lst, in (*sites)[0, *nr),
 * added (grown with realloc) when new; kernel: the demangled kernel name
 * the call launched, or NULL. Its index, or -ENOMEM.
 */
int summary__site_get(struct report *r, struct site **sites, size_t *nr, size_t *cap,
		      const struct tl_api *a, const struct tl_stack *lst, const char *kernel);

/*
 * memory_stats.c: the "memory" section of summary.json and its lines in the
 * text report, from tl->mem (joined by correlate__run()). build sets *out
 * to NULL when the recording has no memory records (then the others write
 * nothing); 0 or -ENOMEM.
 */
struct memory_stats;
struct cJSON;
int memory_stats__build(struct report *r, struct memory_stats **out);
void memory_stats__free(struct memory_stats *ms);
void memory_stats__add_json(const struct memory_stats *ms, struct cJSON *root);
void memory_stats__write_text(const struct memory_stats *ms, FILE *out);

/* summary.c */
int summary__write_json(struct report *r, const char *path);
/* The text report; its warnings too unless opts->warn takes them. */
void summary__write_text(struct report *r, FILE *out);
/* What was lost and what loading found wrong, one "warning:" line each. */
void summary__write_warnings(struct report *r, FILE *out);
void summary__free_stats(struct report *r);

#endif /* GPUPERF_REPORT_PRIV_H */
