/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_state.h - the state one `gpuperf report` run shares between the
 * views (this folder), the writers and the driver (report.c): the loaded
 * and joined timeline, the symbolizer, the record groups, the aggregated
 * views and the warnings. The driver fills it, the views build on it, the
 * writers read it. Single-threaded.
 */
#ifndef GPUPERF_REPORT_STATE_H
#define GPUPERF_REPORT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "correlate.h"
#include "frames.h"
#include "rec_groups.h"

struct report_stats;
struct stack_agg;
struct symbolizer;
struct timeline;

/* Per-thread aggregations (--per-thread), found by (pid, tid). */
struct thread_views {
	struct thread_view {
		uint32_t pid, tid;
		struct stack_agg *agg;
	} * v;
	size_t n, cap;
};

struct report_state {
	/* What the views and writers read of the run's options (report_opts). */
	const char *out_dir;	  /* where outputs go */
	unsigned top;		  /* rows per table of the text report */
	const char *tool_version; /* for summary.json, NULL: "unknown" */
	bool warnings_apart;	  /* the text report's warnings go elsewhere (report_opts.warn) */
	bool per_thread;	  /* build thread_views too */

	struct timeline *tl;
	struct correlation corr;
	struct symbolizer *sym;
	struct frames frames; /* over tl and sym */
	struct stack_agg *view[VIEW_COUNT];
	struct thread_views threads; /* with per_thread */
	/*
	 * The recording's window, CLOCK_MONOTONIC ns: record.json's start and
	 * end when it has them, else the first and last record's times.
	 */
	uint64_t start_ns, end_ns;
	uint64_t duration_ns;	    /* end_ns - start_ns */
	uint64_t start_realtime_ns; /* wall-clock time of start_ns, 0 unknown */
	uint32_t freq_hz;	    /* from record.json, 0 when unknown */
	char *command_line_json;    /* record.json's "command_line", printed JSON, or NULL */
	bool attached; /* record.json has "attached": a recording of running processes (-p/-t) */
	struct frame_buf fb;	      /* scratch: one record's frames at a time */
	struct rec_groups groups;     /* every sample, span and GPU record, grouped */
	struct report_stats *stats; /* report_stats.h: built on first use */
	char **warnings;	      /* the report's own (after the timeline's): one line each */
	size_t nr_warnings, warnings_alloc;
	struct { /* report_state__tool_thread()'s last answer: records come in runs of a thread */
		uint32_t pid, tid;
		bool valid, tool;
	} tool_last;
};

/* Add a one-line warning for summary.json and the text report. 0 or -ENOMEM. */
int report_state__warn(struct report_state *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Whether (pid, tid) is the injection library's writer thread
 * ("gpuperf-writer"): the tool's time, not the program's. Every view and
 * total leaves its on- and off-CPU time out; summary.json and the text
 * report say how much that was.
 */
bool report_state__tool_thread(struct report_state *r, uint32_t pid, uint32_t tid);

/*
 * Group every sample, off-CPU span and GPU record of r->tl by the frames it
 * will draw (r->groups), the tool's thread left out; then aggregate the
 * groups into r->view[] (all but VIEW_IDLE, see gpu_idle.h) and, with
 * per_thread, r->threads. 0 or -ENOMEM.
 */
int report_state__build_views(struct report_state *r);

/* A time for people: "812 ns", "3.25 us", "1.20 ms", "2.50 s". */
void report_state__fmt_ns(char *buf, size_t size, uint64_t ns);

/* Free everything r owns but r->summary (its writer's); r may be partly built. */
void report_state__release(struct report_state *r);

#endif /* GPUPERF_REPORT_STATE_H */
