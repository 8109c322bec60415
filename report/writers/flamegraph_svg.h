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

/*
 * A differential flame graph, as FlameGraph's difffolded.pl | flamegraph.pl
 * draws it: the frames and widths are new_agg's; each frame is filled by the
 * change of its total from base_agg to new_agg, red when it grew (slower),
 * blue when it shrank (faster), white when equal, the shade scaled by the
 * largest change of any drawn frame. Frames only in base_agg are not drawn
 * (their width in the new profile is 0): their loss shows as blue on their
 * parents. Weights shown are multiplied by base_scale / new_scale (e.g. 1/runs
 * to show a mean of several runs; 0 means 1); the layout and the search's
 * "Matched" use new_agg's own weights. Every frame's <title> is
 * "name (base B, new N, delta D, P%)" and its <g> carries data-b (the scaled
 * base weight). Otherwise as flamegraph__write_svg(); the legend shows the
 * color scale instead of the frame kinds (class names still give the kind).
 */
int flamegraph__write_diff_svg(struct stack_agg *base_agg, struct stack_agg *new_agg,
			       const struct flamegraph_opts *opts, double base_scale,
			       double new_scale, FILE *out);

/* The fill of a frame that changed by delta when the largest change is max_delta. */
void flamegraph__diff_color(double delta, double max_delta, char *buf, size_t size);

/* The fill color the renderer uses for a frame (for tests): "rgb(r,g,b)". */
void flamegraph__frame_color(enum gp_frame_kind kind, const char *name, char *buf, size_t size);

/* Format a weight as the renderer shows it ("1.23 ms", "1,234 samples"). */
void flamegraph__format_weight(const struct flamegraph_opts *opts, unsigned long long w,
			       char *buf, size_t size);

#endif /* GPUPERF_FLAMEGRAPH_SVG_H */
