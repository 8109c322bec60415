/* SPDX-License-Identifier: Apache-2.0 */
/* flamegraph_svg.h - render a stack_agg as a self-contained interactive SVG flame graph. */
#ifndef GPUPERF_FLAMEGRAPH_SVG_H
#define GPUPERF_FLAMEGRAPH_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stack_agg.h"

enum flamegraph_units {
	FLAMEGRAPH_UNITS_NS = 0, /* weights are nanoseconds: shown as ns/us/ms/s */
	FLAMEGRAPH_UNITS_COUNT,	 /* weights are plain counts (samples) */
};

/* Options; zeroed fields take the defaults in brackets. Plain data, borrowed. */
struct flamegraph_opts {
	const char *title;	  /* ["Flame Graph"] */
	const char *subtitle;	  /* [none] */
	const char *count_name;	  /* unit word for FLAMEGRAPH_UNITS_COUNT ["samples"] */
	unsigned width;		  /* image width in px [1200] */
	unsigned frame_height;	  /* px per stack level [16] */
	double min_width;	  /* frames narrower than this many px are left out [0.1]; <0: none */
	bool inverted;		  /* icicle graph: root at the top */
	enum flamegraph_units units;
};

/*
 * Write the SVG to `out`, streaming: memory use is the tree walk's, never the
 * document's. Frames are laid out children-left in stack_agg__walk() order,
 * colored by kind (a palette each) with a per-name hue from a hash of the
 * name, so the same data always renders to the same bytes. Every frame
 * carries a <title> "name (time, pct%)". An empty aggregation renders a
 * small SVG saying so. Returns 0, -EINVAL on bad options, -EIO when the
 * stream fails, or -ENOMEM.
 */
int flamegraph__write_svg(struct stack_agg *agg, const struct flamegraph_opts *opts, FILE *out);

/* The fill color the renderer uses for a frame (for tests): "rgb(r,g,b)". */
void flamegraph__frame_color(enum gp_frame_kind kind, const char *name, char *buf, size_t size);

/* Format a weight as the renderer shows it ("1.23 ms", "1,234 samples"). */
void flamegraph__format_weight(const struct flamegraph_opts *opts, unsigned long long w,
			       char *buf, size_t size);

#endif /* GPUPERF_FLAMEGRAPH_SVG_H */
