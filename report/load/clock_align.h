/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock_align.h - brings a trace's timestamps to CLOCK_MONOTONIC.
 *
 * A GPU trace whose CUPTI timestamp callback was installed is already in
 * CLOCK_MONOTONIC (identity). Otherwise its clock-pair records (CUPTI time
 * read next to CLOCK_MONOTONIC) give a least-squares fit
 *	mono = t + base + offset + drift * (t - t0)
 * and the largest residual of the pairs tells how good it is. With one pair,
 * or none (the file header's own pair of clocks is used then), only an
 * offset can be known.
 */
#ifndef GPUPERF_CLOCK_ALIGN_H
#define GPUPERF_CLOCK_ALIGN_H

#include <stddef.h>
#include <stdint.h>

enum clock_method {
	CLOCK_IDENTITY = 0, /* already CLOCK_MONOTONIC */
	CLOCK_FIT = 1,	    /* offset + drift from >= 2 clock pairs */
	CLOCK_OFFSET = 2,   /* offset from one clock pair */
	CLOCK_HEADER = 3,   /* offset from the file header's clocks (no pairs) */
};

struct clock_fit {
	int method;	       /* enum clock_method */
	uint32_t pairs;	       /* clock pairs used */
	uint64_t t0;	       /* reference point of the fit, producer clock */
	int64_t base;	       /* ns to add: mono - producer of the first pair, exact */
	double offset;	       /* ns to add at t0 on top of base (small) */
	double drift;	       /* ns per ns: extra offset per ns after t0 */
	uint64_t residual_max; /* ns: worst |fit - pair| over the pairs */
};

/* Fit from n pairs (producer time, CLOCK_MONOTONIC). n == 0 gives -EINVAL. */
int clock_fit__pairs(struct clock_fit *f, const uint64_t *producer, const uint64_t *mono, size_t n);
/* Offset-only fit from one pair, tagged with `method`. */
void clock_fit__offset(struct clock_fit *f, uint64_t producer, uint64_t mono, int method);
/* Map a producer timestamp to CLOCK_MONOTONIC (0 stays 0: "unknown"). */
uint64_t clock_fit__apply(const struct clock_fit *f, uint64_t t);
/* "identity", "fit", "offset", "header". */
const char *clock_fit__method_name(int method);

#endif /* GPUPERF_CLOCK_ALIGN_H */
