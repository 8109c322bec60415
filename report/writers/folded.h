/* SPDX-License-Identifier: Apache-2.0 */
/* folded.h - FlameGraph's folded stack format: write a stack_agg, read one back. */
#ifndef GPUPERF_FOLDED_H
#define GPUPERF_FOLDED_H

#include <stdint.h>
#include <stdio.h>

struct stack_agg;

/*
 * The format, exactly as flamegraph.pl, inferno and speedscope read it: one
 * stack a line, frames root first joined by ';', one space, an integer weight
 * (ns in gpuperf's own files).
 */

enum folded_write_flags {
	/*
	 * Append flamegraph.pl's kind annotations to CPU-side frames: "_[k]"
	 * kernel, "_[i]" inline, "_[j]" JIT, "_[w]" waker. GPU and synthetic
	 * frames carry their marker in the name ("[gpu] x", "[off-cpu]").
	 */
	FOLDED_ANNOTATE = 1u << 0,
};

/*
 * Write one line per stack with non-zero self weight, in stack_agg__walk()
 * order (deterministic). A ';' in a name becomes ':', a tab a space, other
 * control characters (newlines included) '?'; an empty name is written as
 * "[unknown]" so that no line has an empty frame. Returns 0, -EIO when the
 * stream fails, or -ENOMEM.
 */
int folded__write(struct stack_agg *agg, FILE *out, unsigned flags);

struct folded_read_stats {
	uint64_t lines;		/* lines read, blank ones included */
	uint64_t stacks;	/* lines added to the aggregation */
	uint64_t bad_lines;	/* lines skipped: no weight, bad weight, overflow */
	uint64_t first_bad_line; /* 1-based line number of the first, 0 if none */
};

enum folded_read_flags {
	/*
	 * Infer kinds from gpuperf's markers: "[gpu] " -> GPU kernel,
	 * "[memcpy..." -> memcpy, "[memset..." -> memset, "[sync..." -> GPU sync,
	 * "[off-cpu]" -> off-CPU (and so are the frames under it),
	 * "[no launch stack]" and "[unknown stack]" -> synthetic. Without the
	 * flag every frame without an annotation is GP_FRAME_CPU.
	 */
	FOLDED_READ_MARKERS = 1u << 0,
};

/*
 * Parse folded lines from `in` into `agg`. Lines that flamegraph.pl would
 * ignore (no trailing count, a count that is not a number) are skipped and
 * counted in stats; so are counts past UINT64_MAX. A fractional count is
 * rounded. Trailing "_[k]", "_[i]", "_[j]", "_[w]" annotations set the
 * kind and are stripped, as flamegraph.pl does. Blank lines and a missing
 * final newline are fine. Returns 0 (even with bad lines), -EIO on a read
 * error, or -ENOMEM. `stats` may be NULL.
 */
int folded__read(struct stack_agg *agg, FILE *in, unsigned flags, struct folded_read_stats *stats);

/* Parse one line (modified in place, need not be NUL-free past len). Returns
 * 1 when added, 0 when the line is blank, -EINVAL when it is bad, or -ENOMEM. */
int folded__parse_line(struct stack_agg *agg, char *line, size_t len, unsigned flags);

#endif /* GPUPERF_FOLDED_H */
