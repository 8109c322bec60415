/* SPDX-License-Identifier: Apache-2.0 */
/*
 * analysis.h - wall-clock analysis of a report: per process and per thread
 * on-CPU time, off-CPU time, their sum and the share of the thread's
 * lifetime they cover; the top on- and off-CPU stacks; why threads blocked
 * (the kernel function at the switch, in categories); and one label per
 * thread (CPU-bound, blocked on I/O, waiting on locks, sleeping, idle,
 * waiting on the GPU). Written to analysis.txt and into summary.json.
 *
 * The rule that labels a thread is described at the top of analysis.c and in
 * analysis.txt's header.
 */
#ifndef GPUPERF_ANALYSIS_H
#define GPUPERF_ANALYSIS_H

#include <stdio.h>

struct report_state;
struct cJSON;

/* Write analysis.txt-style text to out_dir/NAME. 0, -EIO or -ENOMEM. */
int analysis__write_text(struct report_state *r, const char *name);

/*
 * Add to summary.json's root: "threads" (one object per thread) and a
 * "coverage" to every entry of "processes" (matched by pid). 0 or -ENOMEM.
 */
int analysis__add_json(struct report_state *r, struct cJSON *root);

/* One or two lines for the short text report: threads by class. */
void analysis__write_brief(struct report_state *r, FILE *out);

#endif /* GPUPERF_ANALYSIS_H */
