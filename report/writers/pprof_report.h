/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pprof_report.h - the report's profile.pb.gz: the on-CPU, off-CPU and GPU
 * views as pprof samples that keep what the folded files cannot.
 *
 * Each sample is one group of records with the same frames (a thread's
 * samples or blocks with one stack; GPU work of one launch site on one
 * device and stream), its frames those of the views, process root first.
 * Code frames are locations at their recorded address (a return address
 * for callers) in the mapping of the module that holds it (file, offset,
 * build id), with one line per inlined function, innermost first, and the
 * file, line and mangled name the symbolizer found; kernel frames are on
 * "[kernel.kallsyms]", JIT frames on "[jit]", GPU work on "[gpu]" and
 * gpuperf's own markers (process root, API call, "[off-cpu]") on
 * "[gpuperf]", at address 0. Labels: pid, tid (numbers), process, thread
 * (strings); GPU samples also device and stream (strings: pprof drops a
 * number label of 0).
 */
#ifndef GPUPERF_PPROF_REPORT_H
#define GPUPERF_PPROF_REPORT_H

#include "pprof.h"

struct report_state;

/*
 * Write r's groups (build_views() made them) to path. 0, or pprof's
 * errors (pprof.h: -ENOMEM, -EOVERFLOW, -errno of writing); on error no file.
 */
int pprof_report__write(struct report_state *r, const char *path, const struct pprof_opts *o);

#endif /* GPUPERF_PPROF_REPORT_H */
