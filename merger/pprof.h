/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pprof.h - aggregated stacks as a gzip'd pprof profile (profile.pb.gz), the
 * format `go tool pprof`, pprof's web UI, speedscope and most continuous
 * profilers read (github.com/google/pprof, proto/profile.proto).
 *
 * Each view (on-CPU, off-CPU, GPU time, ...) is one sample type; every
 * node of a view with self weight is one sample whose locations are its
 * path innermost first, with the weight in the view's column and 0 in the
 * others. A location and its function stand for one frame identity (name,
 * kind), shared by all views; names are the aggregator's, with the
 * flamegraph.pl kind suffixes ("_[k]" kernel, "_[i]" inline, "_[j]" JIT,
 * "_[w]" waker) that the folded files carry, GPU and synthetic frames
 * keeping their markers ("[gpu] name", "[memcpy HtoD]", "[off-cpu]").
 */
#ifndef GPUPERF_PPROF_H
#define GPUPERF_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct stack_agg;

#define PPROF_MAX_VIEWS 8

/* One sample type, e.g. { cpu_agg, "cpu", "nanoseconds" }. */
struct pprof_view {
	struct stack_agg *agg; /* NULL: the column exists and stays 0 */
	const char *type;      /* "cpu", "off_cpu", "gpu" */
	const char *unit;      /* "nanoseconds" */
};

struct pprof_opts {
	uint64_t time_nanos;	 /* start of the recording, ns since the epoch; 0 unknown */
	uint64_t duration_nanos; /* length of the recording; 0 unknown */
	uint64_t period;	 /* ns between on-CPU samples; 0 unknown */
	/*
	 * The sample type pprof shows first. NULL: "gpu" when a view of that
	 * type has weight (the question gpuperf answers first: which host code
	 * is responsible for the GPU time), else the first view with weight.
	 */
	const char *default_sample_type;
};

/*
 * Write the profile to `path` (created or truncated, gzip'd). views[0..n),
 * 1 <= n <= PPROF_MAX_VIEWS; o may be NULL (all zero). Each stack_agg is
 * walked once (stack_agg__walk() is not reentrant: the same aggregator may
 * not serve two views). Streamed: memory is one entry per distinct frame
 * plus the deepest path.
 *
 * Returns 0, -EINVAL (bad arguments, a view without type/unit), -ENOMEM,
 * -EOVERFLOW (a weight past INT64_MAX, pprof's value type), or the -errno
 * of opening or writing path (-EIO when zlib does not say). On error the
 * file is removed.
 */
int pprof__write(const struct pprof_view *views, size_t n, const struct pprof_opts *o,
		 const char *path);

#endif /* GPUPERF_PPROF_H */
