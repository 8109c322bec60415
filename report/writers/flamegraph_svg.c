// SPDX-License-Identifier: Apache-2.0
/* flamegraph_svg.c - stream a stack_agg out as an interactive SVG flame graph. */
#include "flamegraph_svg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_js.h" /* generated from flamegraph_svg.js: static const char flamegraph_js[] */
#include "gp_alloc.h"
#include "gp_util.h"
#include "xml_escape.h"

/*
 * Two walks over the tree: the first finds how deep the drawn frames go and
 * which kinds occur (the SVG header needs the height and the legend), the
 * second writes one <g> per frame in pre-order. The script finds parents and
 * subtrees from that order (a subtree is a contiguous run of <g>s), so the
 * document needs no ids per frame.
 */

#define FONT_SIZE 12
#define FONT_WIDTH 0.59 /* average glyph width as a fraction of the size */
#define XPAD 10
#define TITLE_H 30
#define SUBTITLE_H 18
#define LEGEND_H 24
#define BOTTOM_H 30
#define MATCH_FILL "rgb(230,0,230)"

static const struct {
	const char *label;
	/* rgb = base + span * (a, b or c), per channel; pick: 0=a 1=b 2=c */
	unsigned char base[3], span[3], pick[3];
} palette[GP_FRAME_KIND_COUNT] = {
	[GP_FRAME_CPU] = { "on-CPU", { 210, 60, 30 }, { 45, 150, 40 }, { 0, 1, 2 } },
	[GP_FRAME_KERNEL_CPU] = { "kernel", { 215, 105, 110 }, { 35, 45, 50 }, { 0, 1, 1 } },
	[GP_FRAME_INLINE] = { "inline", { 235, 140, 60 }, { 20, 60, 30 }, { 0, 1, 2 } },
	[GP_FRAME_JIT] = { "JIT", { 205, 195, 45 }, { 40, 40, 40 }, { 0, 1, 2 } },
	[GP_FRAME_WAKER] = { "waker", { 165, 145, 215 }, { 40, 40, 35 }, { 0, 0, 1 } },
	[GP_FRAME_OFFCPU] = { "off-CPU", { 60, 100, 195 }, { 60, 70, 55 }, { 0, 0, 1 } },
	[GP_FRAME_GPU_KERNEL] = { "GPU kernel", { 45, 165, 60 }, { 55, 70, 50 }, { 0, 1, 2 } },
	[GP_FRAME_GPU_MEMCPY] = { "memcpy", { 40, 185, 195 }, { 45, 50, 50 }, { 0, 1, 1 } },
	[GP_FRAME_GPU_MEMSET] = { "memset", { 150, 90, 200 }, { 50, 40, 45 }, { 0, 1, 2 } },
	[GP_FRAME_GPU_SYNC] = { "GPU sync", { 195, 165, 125 }, { 35, 35, 35 }, { 0, 0, 1 } },
	[GP_FRAME_SYNTHETIC] = { "marker", { 175, 175, 185 }, { 45, 45, 45 }, { 0, 0, 0 } },
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = gp_fnv1a(s, strlen(s));

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

void flamegraph__frame_color(enum gp_frame_kind kind, const char *name, char *buf, size_t size)
{
	uint32_t h = name_hash(name ? name : "");
	double v[3] = { (h & 0xff) / 255.0, ((h >> 8) & 0xff) / 255.0, ((h >> 16) & 0xff) / 255.0 };
	unsigned rgb[3], i;

	if ((unsigned)kind >= GP_FRAME_KIND_COUNT)
		kind = GP_FRAME_SYNTHETIC;
	for (i = 0; i < 3; i++)
		rgb[i] = palette[kind].base[i] + (unsigned)(palette[kind].span[i] * v[palette[kind].pick[i]]);
	snprintf(buf, size, "rgb(%u,%u,%u)", rgb[0], rgb[1], rgb[2]);
}

void flamegraph__format_weight(const struct flamegraph_opts *opts, unsigned long long w,
			       char *buf, size_t size)
{
	if (opts && opts->units == FLAMEGRAPH_UNITS_COUNT) {
		char digits[32], grouped[48];
		int n = snprintf(digits, sizeof(digits), "%llu", w), i, j = 0;

		for (i = 0; i < n; i++) {
			if (i && (n - i) % 3 == 0)
				grouped[j++] = ',';
			grouped[j++] = digits[i];
		}
		grouped[j] = '\0';
		snprintf(buf, size, "%s %s", grouped,
			 opts->count_name && opts->count_name[0] ? opts->count_name : "samples");
		return;
	}
	if (w < 1000ULL)
		snprintf(buf, size, "%llu ns", w);
	else if (w < 1000000ULL)
		snprintf(buf, size, "%.2f \xc2\xb5s", w / 1e3);
	else if (w < 1000000000ULL)
		snprintf(buf, size, "%.2f ms", w / 1e6);
	else
		snprintf(buf, size, "%.3f s", w / 1e9);
}

struct diff_state;

struct svg_ctx {
	FILE *out;
	struct diff_state *diff; /* set for a differential flame graph */
	struct flamegraph_opts o;
	uint64_t total;
	double scale;	     /* px per unit of weight */
	unsigned max_depth;  /* deepest drawn level, 0 = root only */
	unsigned kinds_seen; /* bit per kind */
	double height, top;  /* image height; y of the first row below the header */
	int err;
};

static double diff_visit(struct svg_ctx *c, const struct stack_agg_node *n, double *base);
static void diff_fill(struct svg_ctx *c, const struct stack_agg_node *n, double base, char *buf,
		      size_t size);
static int diff_title(struct svg_ctx *c, const struct stack_agg_node *n, double base);
static int diff_legend(struct svg_ctx *c, double legend_y);
static void diff_note_delta(struct svg_ctx *c, double delta);

static int measure_enter(void *arg, const struct stack_agg_node *n)
{
	struct svg_ctx *c = arg;
	double delta = c->diff ? diff_visit(c, n, NULL) : 0;

	if (n->depth && (double)n->total * c->scale < c->o.min_width)
		return 1;
	if (c->diff && n->depth)
		diff_note_delta(c, delta);
	if (n->depth > c->max_depth)
		c->max_depth = n->depth;
	if (n->depth)
		c->kinds_seen |= 1u << n->kind;
	return 0;
}

static int put(struct svg_ctx *c, const char *s)
{
	if (fputs(s, c->out) == EOF)
		return -EIO;
	return 0;
}

static int putf(struct svg_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(struct svg_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(c->out, fmt, ap);
	va_end(ap);
	return r < 0 ? -EIO : 0;
}

static int esc(struct svg_ctx *c, const char *s)
{
	return xml_escape__write(c->out, s, strlen(s));
}

/* Bytes of the first `chars` UTF-8 characters of s (whole characters only). */
static size_t utf8_prefix(const char *s, size_t chars, size_t *nchars)
{
	size_t i = 0, n = 0;

	while (s[i] && n < chars) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		n++;
	}
	if (nchars)
		*nchars = n;
	return i;
}

static int write_label(struct svg_ctx *c, const char *name, double w)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_WIDTH);
	size_t chars, have;

	if (fit < 3)
		return 0;
	chars = (size_t)fit;
	utf8_prefix(name, chars + 1, &have);
	if (have <= chars)
		return esc(c, name);
	if (xml_escape__write(c->out, name, utf8_prefix(name, chars - 2, NULL)))
		return -EIO;
	return put(c, "..");
}

static double row_y(const struct svg_ctx *c, unsigned depth)
{
	unsigned fh = c->o.frame_height;

	if (c->o.inverted)
		return c->top + (double)depth * fh;
	return c->top + (double)(c->max_depth - depth) * fh;
}

static int frame_enter(void *arg, const struct stack_agg_node *n)
{
	struct svg_ctx *c = arg;
	const char *name = n->depth ? n->name : "all";
	enum gp_frame_kind kind = n->depth ? n->kind : GP_FRAME_SYNTHETIC;
	double x = XPAD + (double)n->offset * c->scale, w = (double)n->total * c->scale;
	double y = row_y(c, n->depth);
	char color[32], weight[64];
	double base = 0;
	int err = 0;

	if (c->diff)
		diff_visit(c, n, &base);
	if (n->depth && w < c->o.min_width)
		return 1;
	if (c->diff)
		diff_fill(c, n, base, color, sizeof(color));
	else
		flamegraph__frame_color(kind, name, color, sizeof(color));
	flamegraph__format_weight(&c->o, (unsigned long long)n->total, weight, sizeof(weight));
	err = err ?: putf(c, "<g class=\"%s\" data-w=\"%llu\"", gp_frame_kind__name(kind),
			  (unsigned long long)n->total);
	if (c->diff)
		err = err ?: putf(c, " data-b=\"%.0f\"", base);
	err = err ?: put(c, "><title>");
	err = err ?: esc(c, name);
	if (c->diff)
		err = err ?: diff_title(c, n, base);
	else
		err = err ?: putf(c, " (%s, %.2f%%)</title>", weight,
				  c->total ? 100.0 * (double)n->total / (double)c->total : 0.0);
	err = err ?: putf(c,
			  "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%u\" fill=\"%s\" "
			  "rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			  x, y, w, c->o.frame_height - 1, color, x + 3,
			  y + (c->o.frame_height - 1) / 2.0 + FONT_SIZE * 0.35);
	err = err ?: write_label(c, name, w);
	err = err ?: put(c, "</text></g>\n");
	return err;
}

static int write_header(struct svg_ctx *c)
{
	unsigned width = c->o.width;
	double title_y = 24, legend_y;
	int err = 0, k, x, shown = 0;

	err = err ?: putf(c,
			  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
			  "<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" "
			  "xmlns=\"http://www.w3.org/2000/svg\" onload=\"fg_init(evt)\">\n",
			  width, c->height, width, c->height);
	err = err ?: putf(c,
			  "<!-- Flame graph written by gpuperf. Click a frame to zoom, Ctrl-F to "
			  "search. -->\n<defs><linearGradient id=\"fg-bg\" y1=\"0\" y2=\"1\" x1=\"0\" "
			  "x2=\"0\"><stop stop-color=\"#f7f7f9\" offset=\"5%%\"/><stop "
			  "stop-color=\"#e6e8ef\" offset=\"95%%\"/></linearGradient></defs>\n");
	err = err ?: putf(c,
			  "<style type=\"text/css\">\n"
			  "text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: %dpx; "
			  "fill: #000; }\n"
			  "#fg-title { text-anchor: middle; font-size: 17px; }\n"
			  "#fg-subtitle { text-anchor: middle; fill: #555; }\n"
			  "#fg-frames > g { cursor: pointer; }\n"
			  "#fg-frames > g:hover > rect { stroke: #222; stroke-width: 0.6; }\n"
			  "#fg-frames text { pointer-events: none; }\n"
			  "#fg-frames > g.fg-hidden { display: none; }\n"
			  "#fg-frames > g.fg-parent { opacity: 0.55; }\n"
			  ".fg-button { cursor: pointer; fill: #333; }\n"
			  ".fg-button:hover { fill: #c00; }\n"
			  ".fg-off { opacity: 0; pointer-events: none; }\n"
			  "#fg-ic.fg-on { fill: #c00; font-weight: bold; }\n"
			  "#fg-legend text { font-size: 11px; fill: #333; }\n"
			  "</style>\n",
			  FONT_SIZE);
	err = err ?: putf(c,
			  "<script type=\"text/ecmascript\"><![CDATA[\n"
			  "var fg_conf = { width: %u, xpad: %d, frameHeight: %u, fontSize: %d, "
			  "fontWidth: %.2f, total: %llu, inverted: %s, matchFill: \"%s\" };\n",
			  width, XPAD, c->o.frame_height, FONT_SIZE, FONT_WIDTH,
			  (unsigned long long)c->total, c->o.inverted ? "true" : "false", MATCH_FILL);
	err = err ?: put(c, flamegraph_js);
	err = err ?: put(c, "]]></script>\n");
	err = err ?: putf(c,
			  "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"url(#fg-bg)\"/>\n",
			  width, c->height);
	err = err ?: putf(c, "<text id=\"fg-title\" x=\"%.1f\" y=\"%.0f\">", width / 2.0, title_y);
	err = err ?: esc(c, c->o.title);
	err = err ?: put(c, "</text>\n");
	legend_y = title_y + 22;
	if (c->o.subtitle && c->o.subtitle[0]) {
		err = err ?: putf(c, "<text id=\"fg-subtitle\" x=\"%.1f\" y=\"%.0f\">", width / 2.0,
				  title_y + SUBTITLE_H);
		err = err ?: esc(c, c->o.subtitle);
		err = err ?: put(c, "</text>\n");
		legend_y += SUBTITLE_H;
	}
	err = err ?: putf(c,
			  "<text id=\"fg-unzoom\" class=\"fg-button fg-off\" x=\"%d\" y=\"%.0f\">"
			  "Reset Zoom</text>\n"
			  "<text id=\"fg-search\" class=\"fg-button\" x=\"%d\" y=\"%.0f\" "
			  "text-anchor=\"end\">Search</text>\n"
			  "<text id=\"fg-ic\" class=\"fg-button\" x=\"%d\" y=\"%.0f\">ic</text>\n",
			  XPAD, title_y, width - XPAD - 26, title_y, width - XPAD - 14, title_y);
	err = err ?: putf(c, "<g id=\"fg-legend\">");
	if (c->diff)
		err = err ?: diff_legend(c, legend_y);
	for (k = 0, x = XPAD; !c->diff && k < GP_FRAME_KIND_COUNT; k++) {
		char color[32];

		if (!(c->kinds_seen & (1u << k)))
			continue;
		/* A fixed mid-palette sample, so the swatch matches the frames' hue. */
		flamegraph__frame_color((enum gp_frame_kind)k, palette[k].label, color, sizeof(color));
		err = err ?: putf(c,
				  "<g class=\"%s\"><rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" "
				  "rx=\"2\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\">%s</text></g>",
				  gp_frame_kind__name((enum gp_frame_kind)k), x, legend_y - 10, color,
				  x + 16, legend_y, palette[k].label);
		x += 16 + (int)strlen(palette[k].label) * 7 + 20;
		shown++;
	}
	err = err ?: put(c, "</g>\n");
	err = err ?: putf(c,
			  "<text id=\"fg-details\" x=\"%d\" y=\"%.0f\"> </text>\n"
			  "<text id=\"fg-matched\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\"> </text>\n",
			  XPAD, c->height - 10, width - XPAD, c->height - 10);
	return err;
}

static int write_svg(struct svg_ctx *cp, struct stack_agg *agg, const struct flamegraph_opts *opts,
		     FILE *out);

int flamegraph__write_svg(struct stack_agg *agg, const struct flamegraph_opts *opts, FILE *out)
{
	struct svg_ctx c = { .out = out };

	return write_svg(&c, agg, opts, out);
}

static int write_svg(struct svg_ctx *cp, struct stack_agg *agg, const struct flamegraph_opts *opts,
		     FILE *out)
{
	struct svg_ctx c = *cp;
	int err;

	if (!agg || !out)
		return -EINVAL;
	if (opts)
		c.o = *opts;
	if (!c.o.title)
		c.o.title = "Flame Graph";
	if (!c.o.width)
		c.o.width = 1200;
	if (!c.o.frame_height)
		c.o.frame_height = 16;
	if (c.o.min_width == 0.0 && !(opts && opts->min_width < 0))
		c.o.min_width = 0.1;
	if (c.o.min_width < 0)
		c.o.min_width = 0; /* a negative value asks for every frame */
	if (c.o.width < 2 * XPAD + 100 || c.o.width > 1000000 || c.o.frame_height < 4 ||
	    c.o.frame_height > 1000 || c.o.min_width != c.o.min_width)
		return -EINVAL;

	c.total = stack_agg__total(agg);
	c.scale = c.total ? (c.o.width - 2.0 * XPAD) / (double)c.total : 0;
	c.top = TITLE_H + LEGEND_H + (c.o.subtitle && c.o.subtitle[0] ? SUBTITLE_H : 0);
	if (!c.total) {
		c.height = c.top + BOTTOM_H + c.o.frame_height;
		err = write_header(&c);
		err = err ?: putf(&c,
				  "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">No stacks to "
				  "show</text>\n<g id=\"fg-frames\"></g>\n</svg>\n",
				  c.o.width / 2.0, c.top + c.o.frame_height);
		goto done;
	}
	err = stack_agg__walk(agg, measure_enter, NULL, &c);
	if (err)
		return err;
	c.height = c.top + (double)(c.max_depth + 1) * c.o.frame_height + BOTTOM_H;
	err = write_header(&c);
	err = err ?: put(&c, "<g id=\"fg-frames\">\n");
	err = err ?: stack_agg__walk(agg, frame_enter, NULL, &c);
	err = err ?: put(&c, "</g>\n</svg>\n");
done:
	if (!err && fflush(out))
		err = -EIO;
	return err;
}

/*
 * The differential flame graph. The base tree is indexed once by (parent id,
 * kind, name) in a hash table; walking the new tree, ids[depth] holds the
 * base node matching the new node at that depth (NONE when the path is not
 * in base), so each lookup is one probe sequence and no path strings are built.
 */
#define NONE UINT32_MAX

struct base_node {
	uint32_t parent;
	enum gp_frame_kind kind;
	char *name;
	uint64_t total;
};

struct diff_state {
	struct base_node *nodes;
	size_t n_nodes, cap;
	uint32_t *slots; /* node id + 1; 0 = empty */
	size_t mask;
	uint32_t *ids;	 /* by depth: base node id, or NONE */
	size_t ids_cap;
	double base_scale, new_scale, max_delta;
};

static size_t node_hash(uint32_t parent, enum gp_frame_kind kind, const char *name)
{
	return (size_t)gp_mix64((uint64_t)gp_hash_bytes(name, strlen(name)) << 32 ^ parent ^
				(uint64_t)kind << 24);
}

static uint32_t diff_find(const struct diff_state *d, uint32_t parent, enum gp_frame_kind kind,
			  const char *name)
{
	size_t i = node_hash(parent, kind, name) & d->mask;

	for (; d->slots[i]; i = (i + 1) & d->mask) {
		const struct base_node *b = &d->nodes[d->slots[i] - 1];

		if (b->parent == parent && b->kind == kind && !strcmp(b->name, name))
			return d->slots[i] - 1;
	}
	return NONE;
}

static int ids_reserve(struct diff_state *d, unsigned depth)
{
	return GP_ALLOC_GROW(d->ids, (size_t)depth + 1, d->ids_cap);
}

static int index_enter(void *arg, const struct stack_agg_node *n)
{
	struct diff_state *d = arg;
	uint32_t parent, id = (uint32_t)d->n_nodes;
	struct base_node *b;
	size_t i;

	if (ids_reserve(d, n->depth) || d->n_nodes >= d->cap)
		return -ENOMEM;
	parent = n->depth ? d->ids[n->depth - 1] : NONE;
	b = &d->nodes[id];
	b->parent = parent;
	b->kind = n->kind;
	b->total = n->total;
	b->name = strdup(n->name);
	if (!b->name)
		return -ENOMEM;
	d->n_nodes++;
	for (i = node_hash(parent, n->kind, n->name) & d->mask; d->slots[i]; i = (i + 1) & d->mask)
		;
	d->slots[i] = id + 1;
	d->ids[n->depth] = id;
	return 0;
}

static void diff_release(struct diff_state *d)
{
	size_t i;

	for (i = 0; i < d->n_nodes; i++)
		free(d->nodes[i].name);
	free(d->nodes);
	free(d->slots);
	free(d->ids);
}

static int diff_index(struct diff_state *d, struct stack_agg *base)
{
	size_t want = stack_agg__node_count(base) + 1, slots = 16;

	while (slots < 2 * want)
		slots *= 2;
	if (want >= NONE)
		return -ENOMEM;
	d->cap = want;
	d->nodes = calloc(want, sizeof(*d->nodes));
	d->slots = calloc(slots, sizeof(*d->slots));
	d->mask = slots - 1;
	if (!d->nodes || !d->slots)
		return -ENOMEM;
	return stack_agg__walk(base, index_enter, NULL, d);
}

/* Track the base node matching n; returns new - base (scaled), *base = scaled base weight. */
static double diff_visit(struct svg_ctx *c, const struct stack_agg_node *n, double *base)
{
	struct diff_state *d = c->diff;
	uint32_t id = NONE, parent;
	double b = 0;

	/* ids has room for new_agg's deepest stack (flamegraph__write_diff_svg). */
	if (!n->depth)
		id = d->n_nodes ? 0 : NONE;
	else if ((parent = d->ids[n->depth - 1]) != NONE)
		id = diff_find(d, parent, n->kind, n->name);
	d->ids[n->depth] = id;
	if (id != NONE)
		b = (double)d->nodes[id].total * d->base_scale;
	if (base)
		*base = b;
	return (double)n->total * d->new_scale - b;
}

static void diff_note_delta(struct svg_ctx *c, double delta)
{
	if (fabs(delta) > c->diff->max_delta)
		c->diff->max_delta = fabs(delta);
}

void flamegraph__diff_color(double delta, double max_delta, char *buf, size_t size)
{
	unsigned r = 255, g = 255, b = 255;
	double v = max_delta > 0 ? fabs(delta) / max_delta : 0;

	/* flamegraph.pl's color_scale(): white, shading to red (grew) or blue (shrank). */
	if (v > 1)
		v = 1;
	if (delta > 0)
		g = b = (unsigned)(210 * (1 - v));
	else if (delta < 0)
		r = g = (unsigned)(210 * (1 - v));
	snprintf(buf, size, "rgb(%u,%u,%u)", r, g, b);
}

static void diff_fill(struct svg_ctx *c, const struct stack_agg_node *n, double base, char *buf,
		      size_t size)
{
	flamegraph__diff_color((double)n->total * c->diff->new_scale - base, c->diff->max_delta,
			       buf, size);
}

static int diff_title(struct svg_ctx *c, const struct stack_agg_node *n, double base)
{
	double nw = (double)n->total * c->diff->new_scale, delta = nw - base;
	char bs[64], ns[64], ds[64];

	flamegraph__format_weight(&c->o, (unsigned long long)llround(base), bs, sizeof(bs));
	flamegraph__format_weight(&c->o, (unsigned long long)llround(nw), ns, sizeof(ns));
	flamegraph__format_weight(&c->o, (unsigned long long)llround(fabs(delta)), ds, sizeof(ds));
	if (base <= 0)
		return putf(c, " (base 0, new %s, delta +%s, new frame)</title>", ns, ds);
	return putf(c, " (base %s, new %s, delta %s%s, %+.2f%%)</title>", bs, ns,
		    delta < 0 ? "-" : "+", ds, 100.0 * delta / base);
}

static int diff_legend(struct svg_ctx *c, double legend_y)
{
	static const struct {
		const char *cls, *label;
		double delta;
	} item[] = {
		{ "slower", "slower than base", 1 },
		{ "faster", "faster than base", -1 },
		{ "same", "unchanged", 0 },
	};
	char color[32];
	int err = 0, x = XPAD;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(item); i++) {
		flamegraph__diff_color(item[i].delta, 1, color, sizeof(color));
		err = err ?: putf(c,
				  "<g class=\"%s\"><rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" "
				  "rx=\"2\" fill=\"%s\" stroke=\"#999\" stroke-width=\"0.5\"/><text "
				  "x=\"%d\" y=\"%.0f\">%s</text></g>",
				  item[i].cls, x, legend_y - 10, color, x + 16, legend_y,
				  item[i].label);
		x += 16 + (int)strlen(item[i].label) * 7 + 20;
	}
	return err ?: putf(c,
			   "<text x=\"%d\" y=\"%.0f\">width: new profile; frames only in base are "
			   "not drawn</text>",
			   x, legend_y);
}

int flamegraph__write_diff_svg(struct stack_agg *base_agg, struct stack_agg *new_agg,
			       const struct flamegraph_opts *opts, double base_scale,
			       double new_scale, FILE *out)
{
	struct diff_state d = { .base_scale = base_scale > 0 ? base_scale : 1,
				.new_scale = new_scale > 0 ? new_scale : 1 };
	struct svg_ctx c = { .out = out, .diff = &d };
	int err;

	if (!base_agg || !new_agg || !out)
		return -EINVAL;
	err = diff_index(&d, base_agg);
	err = err ?: ids_reserve(&d, stack_agg__max_depth(new_agg) + 1);
	err = err ?: write_svg(&c, new_agg, opts, out);
	diff_release(&d);
	return err;
}
