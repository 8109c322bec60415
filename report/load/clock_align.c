// SPDX-License-Identifier: Apache-2.0
/* clock_align.c - least-squares offset + drift between a producer clock and CLOCK_MONOTONIC. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "clock_align.h"

void clock_fit__offset(struct clock_fit *f, uint64_t producer, uint64_t mono, int method)
{
	memset(f, 0, sizeof(*f));
	f->method = method;
	f->pairs = method == CLOCK_HEADER ? 0 : 1;
	f->t0 = producer;
	f->base = (int64_t)(mono - producer);
}

int clock_fit__pairs(struct clock_fit *f, const uint64_t *producer, const uint64_t *mono, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, den, worst = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	if (n == 1) {
		clock_fit__offset(f, producer[0], mono[0], CLOCK_OFFSET);
		return 0;
	}
	/*
	 * Fit y = a + b x with x = producer - t0 and y = mono - producer - base,
	 * both small (the clocks can be 1.7e18 ns apart), so doubles keep ns
	 * precision where raw 64-bit differences would not.
	 */
	memset(f, 0, sizeof(*f));
	f->t0 = producer[0];
	f->base = (int64_t)(mono[0] - producer[0]);
	for (i = 0; i < n; i++) {
		double x = (double)(int64_t)(producer[i] - f->t0);
		double y = (double)((int64_t)(mono[i] - producer[i]) - f->base);

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	den = (double)n * sxx - sx * sx;
	f->drift = den != 0 ? ((double)n * sxy - sx * sy) / den : 0;
	f->offset = (sy - f->drift * sx) / (double)n;
	f->method = CLOCK_FIT;
	f->pairs = (uint32_t)n;
	for (i = 0; i < n; i++) {
		double d = fabs((double)(int64_t)(clock_fit__apply(f, producer[i]) - mono[i]));

		if (d > worst)
			worst = d;
	}
	f->residual_max = (uint64_t)llround(worst);
	return 0;
}

uint64_t clock_fit__apply(const struct clock_fit *f, uint64_t t)
{
	double x;

	if (t == 0 || f->method == CLOCK_IDENTITY)
		return t;
	x = (double)(int64_t)(t - f->t0);
	return t + (uint64_t)f->base + (uint64_t)llround(f->offset + f->drift * x);
}

const char *clock_fit__method_name(int method)
{
	switch (method) {
	case CLOCK_IDENTITY:
		return "identity";
	case CLOCK_FIT:
		return "fit";
	case CLOCK_OFFSET:
		return "offset";
	case CLOCK_HEADER:
		return "header";
	default:
		return "unknown";
	}
}
