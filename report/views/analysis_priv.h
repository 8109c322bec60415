/* SPDX-License-Identifier: Apache-2.0 */
/*
 * analysis_priv.h - the wall-clock analysis's model, shared by its two
 * files: analysis.c builds it (the rule is described there), and
 * analysis_write.c writes it (analysis.txt, summary.json's "analysis",
 * the report's brief).
 */
#ifndef GPUPERF_ANALYSIS_PRIV_H
#define GPUPERF_ANALYSIS_PRIV_H

#include <stddef.h>
#include <stdint.h>

struct report_state;

enum an_cat {
	CAT_PREEMPT,
	CAT_GPU,
	CAT_LOCKS,
	CAT_IO,
	CAT_POLL,
	CAT_SLEEP,
	CAT_OTHER,
	CAT_SHORT,
	CAT_COUNT
};

enum an_class {
	CLS_CPU,
	CLS_GPU,
	CLS_IO,
	CLS_LOCK,
	CLS_IDLE,
	CLS_SLEEP,
	CLS_OTHER,
	CLS_UNKNOWN,
	CLS_COUNT
};

#define IDLE_MAX_CPU	 0.01	      /* "idle" futex waiter: under 1% on-CPU */
#define IDLE_MIN_MEAN_NS 100000000ull /* ... and futex waits of >= 100 ms on average */
#define TOP_STACKS	 10

struct an_thread {
	uint32_t pid, tid;
	uint64_t on, off;
	uint64_t cat[CAT_COUNT], cat_n[CAT_COUNT];
	uint64_t first, last; /* first appearance, end of its lifetime */
	uint64_t lifetime;
	const char *top_fn; /* the kernel function it blocked in longest, or NULL */
	enum an_cat top_cat;
	uint64_t top_ns;
	enum an_class cls;
};

struct an_reason {
	const char *fn; /* symbolizer-owned or a static string */
	size_t thread;	/* index into threads; SIZE_MAX in the totals */
	enum an_cat cat;
	uint64_t ns, count;
};

struct an_reasons {
	struct an_reason *v;
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1 */
	size_t nslots;
};

struct an_stack {
	char *text;
	uint64_t ns;
};

struct an_stacks {
	struct an_stack *v;
	size_t n, cap;
};

struct analysis {
	struct an_thread *t;
	size_t nr_t;
	struct an_reasons per_thread; /* (thread, function) */
	struct an_reasons total;      /* (function) */
	uint64_t cat_total[CAT_COUNT], cat_count[CAT_COUNT];
	struct an_stacks top[2]; /* on-CPU, off-CPU: merged by text, heaviest first */
	uint64_t on_total, off_total;
	uint64_t tool_on, tool_off; /* the writer thread's, left out (report_state__tool_thread) */
	size_t cls_count[CLS_COUNT];
};

/* Build the analysis of r (with_stacks: each thread's top off-CPU stacks too): 0 or -ENOMEM. */
int an_build(struct report_state *r, struct analysis *a, int with_stacks);
void an_release(struct analysis *a);

#endif /* GPUPERF_ANALYSIS_PRIV_H */
