// SPDX-License-Identifier: Apache-2.0
/*
 * diff.c - compare base and new summaries metric by metric, with
 * thresholds and run-to-run noise. The options are diff_opts.c's, the
 * text, Markdown and JSON writers diff_write.c's.
 */
#include "diff.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "summary_read.h"

/*
 * Every value of every run is flattened into one array of samples, sorted by
 * (metric, key), and each run of equal keys becomes a row: a side's value is
 * the median over its runs (a run that lacks the item counts as 0), its
 * spread max - min. Sorting instead of hashing keeps the output order and the
 * code simple; summaries hold hundreds of items, not millions.
 */

static const char *const metric_names[DIFF_METRIC_COUNT] = {
    [DIFF_GPU_BUSY] = "gpu_busy", [DIFF_GPU_IDLE] = "gpu_idle", [DIFF_KERNEL] = "kernel",
    [DIFF_MEMCPY] = "memcpy",	  [DIFF_SITE] = "site",		[DIFF_CPU_ON] = "cpu_on",
    [DIFF_CPU_OFF] = "cpu_off",
};

static const char *const status_names[DIFF_STATUS_COUNT] = {
    [DIFF_OK] = "ok",
    [DIFF_REGRESSION] = "regression",
    [DIFF_IMPROVEMENT] = "improvement",
    [DIFF_NOISE] = "noise",
    [DIFF_NEW] = "new",
    [DIFF_GONE] = "gone",
    [DIFF_BELOW_MIN] = "below-min",
};

const char *diff_metric__name(enum diff_metric m)
{
	return (unsigned)m < DIFF_METRIC_COUNT ? metric_names[m] : "?";
}

int diff_metric__parse(const char *name)
{
	int m;

	for (m = 0; m < DIFF_METRIC_COUNT; m++)
		if (!strcmp(name, metric_names[m]))
			return m;
	return -1;
}

const char *diff_status__name(enum diff_status s)
{
	return (unsigned)s < DIFF_STATUS_COUNT ? status_names[s] : "?";
}

/* ---- comparison ---- */

struct sample {
	enum diff_metric metric;
	int64_t id;		/* devices; 0 otherwise */
	const char *key, *key2; /* compared */
	const char *label;	/* shown, not compared (device name) */
	const char *config;	/* kernels: main launch configuration ("" unknown) */
	const struct summary_site *site;
	unsigned side; /* 0 base, 1 new */
	size_t run;
	uint64_t value, count, mean, bytes;
};

struct samples {
	struct sample *v;
	size_t n, cap;
};

static int push(struct samples *s, const struct sample *x)
{
	if (GP_ALLOC_GROW(s->v, s->n + 1, s->cap))
		return -ENOMEM;
	s->v[s->n++] = *x;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_sample_key(const struct sample *a, const struct sample *b)
{
	int c;

	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	c = cmp_str(a->key, b->key);
	return c ? c : cmp_str(a->key2, b->key2);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;
	int c = cmp_sample_key(a, b);

	if (c)
		return c;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->run < b->run ? -1 : a->run > b->run;
}

static int collect(const struct summary *s, unsigned side, size_t run, bool per_device,
		   const struct diff_opts *o, struct samples *out)
{
	struct sample x = {.side = side, .run = run};
	size_t i;
	int err = 0;

	x.metric = DIFF_GPU_BUSY;
	x.id = -1;
	x.value = s->gpu_busy_ns;
	err = err ?: push(out, &x);
	x.metric = DIFF_GPU_IDLE;
	x.value = s->gpu_idle_ns;
	err = err ?: push(out, &x);
	for (i = 0; per_device && i < s->n_devices && !err; i++) {
		x.id = s->devices[i].id;
		x.label = s->devices[i].name;
		x.metric = DIFF_GPU_BUSY;
		x.value = s->devices[i].busy_ns;
		err = push(out, &x);
		x.metric = DIFF_GPU_IDLE;
		x.value = s->devices[i].idle_ns;
		err = err ?: push(out, &x);
	}
	x.id = 0;
	x.label = NULL;
	if (s->has_cpu) {
		x.metric = DIFF_CPU_ON;
		x.value = s->cpu_on_ns;
		err = err ?: push(out, &x);
		x.metric = DIFF_CPU_OFF;
		x.value = s->cpu_off_ns;
		err = err ?: push(out, &x);
	}
	for (i = 0; i < s->n_kernels && !err; i++) {
		const struct summary_kernel *k = &s->kernels[i];

		x.metric = DIFF_KERNEL;
		x.key = k->name;
		x.value = k->total_ns;
		x.count = k->count;
		x.mean = k->mean_ns ? k->mean_ns : (k->count ? k->total_ns / k->count : 0);
		x.config = k->config;
		err = push(out, &x);
	}
	x.mean = 0;
	x.config = NULL;
	for (i = 0; i < s->n_memcpys && !err; i++) {
		const struct summary_memcpy *m = &s->memcpys[i];

		x.metric = DIFF_MEMCPY;
		x.key = m->kind;
		x.value = m->total_ns;
		x.count = m->count;
		x.bytes = m->bytes;
		err = push(out, &x);
	}
	x.bytes = 0;
	for (i = 0; o->by_site && i < s->n_sites && !err; i++) {
		const struct summary_site *t = &s->sites[i];

		x.metric = DIFF_SITE;
		x.key = t->stack;
		x.key2 = t->api;
		x.site = t;
		x.value = t->gpu_ns;
		x.count = t->launches;
		err = push(out, &x);
	}
	return err;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Median of v[0..n) (sorts v); the mean of the middle two for even n. */
static uint64_t median(uint64_t *v, size_t n)
{
	gp_sort(v, n, sizeof(*v), cmp_u64);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

static const struct diff_rule *find_rule(const struct diff_opts *o, const char *item)
{
	size_t i;

	for (i = 0; i < o->n_rules; i++)
		if (!regexec(o->rules[i].re, item, 0, NULL, 0))
			return &o->rules[i];
	return NULL;
}

struct side_vals {
	uint64_t *value, *count, *mean, *bytes;
	bool present;
};

static void classify(struct diff_row *r, bool base_present, bool new_present,
		     const struct diff_opts *o)
{
	double noise_ns;
	uint64_t mag = r->delta < 0 ? (uint64_t)-r->delta : (uint64_t)r->delta;

	r->delta_pct = r->base ? 100.0 * (double)r->delta / (double)r->base : 0;
	noise_ns = (double)(r->base_max - r->base_min) / 2 + (double)(r->new_max - r->new_min) / 2;
	r->noise_pct = r->base ? 100.0 * noise_ns / (double)r->base : 0;
	if (r->base < o->min_time_ns && r->new_ < o->min_time_ns)
		r->status = DIFF_BELOW_MIN;
	else if (!base_present || !r->base)
		r->status = DIFF_NEW;
	else if (!new_present || !r->new_)
		r->status = DIFF_GONE;
	else if (mag && (double)mag <= noise_ns)
		r->status =
		    DIFF_NOISE; /* said even under the threshold: the change means nothing */
	else if (fabs(r->delta_pct) <= r->threshold)
		r->status = DIFF_OK;
	else
		r->status = r->delta > 0 ? DIFF_REGRESSION : DIFF_IMPROVEMENT;
}

static char *device_item(const struct sample *s)
{
	char *p = NULL;

	if (s->id < 0)
		return strdup("all devices");
	if (asprintf(&p, "device %lld%s%s%s", (long long)s->id, s->label && *s->label ? " (" : "",
		     s->label ? s->label : "", s->label && *s->label ? ")" : "") < 0)
		return NULL;
	return p;
}

static char *site_detail(const struct summary_site *t)
{
	char *p = NULL;

	if (asprintf(&p, "%s%s%s%s%s%s", t->api, *t->function ? " in " : "", t->function,
		     *t->location ? " (" : "", t->location, *t->location ? ")" : "") < 0)
		return NULL;
	return p;
}

/* Turn samples[0..n) (one key, sorted by side and run) into a row. */
static int make_row(const struct sample *g, size_t n, size_t n_base, size_t n_new,
		    const struct diff_opts *o, uint64_t *scratch, struct diff_result *res)
{
	uint64_t *vals[2][4];
	bool present[2] = {false, false};
	size_t nruns[2] = {n_base, n_new}, i, side, f;
	struct diff_row *r = &res->rows[res->n_rows];
	const struct diff_rule *rule;
	const char *item_key = g->key;

	memset(r, 0, sizeof(*r));
	for (side = 0; side < 2; side++)
		for (f = 0; f < 4; f++) {
			vals[side][f] = scratch;
			scratch += nruns[side];
			memset(vals[side][f], 0, nruns[side] * sizeof(uint64_t));
		}
	for (i = 0; i < n; i++) {
		const struct sample *s = &g[i];

		present[s->side] = true;
		vals[s->side][0][s->run] += s->value;
		vals[s->side][1][s->run] += s->count;
		vals[s->side][2][s->run] = s->mean;
		vals[s->side][3][s->run] += s->bytes;
	}
	r->metric = g->metric;
	if (g->metric == DIFF_GPU_BUSY || g->metric == DIFF_GPU_IDLE)
		r->item = device_item(g);
	else if (g->metric == DIFF_CPU_ON || g->metric == DIFF_CPU_OFF)
		r->item = strdup("all processes");
	else
		r->item = strdup(item_key ? item_key : "");
	if (!r->item)
		return -ENOMEM;
	if (g->metric == DIFF_SITE) {
		r->detail = site_detail(g->site);
		if (!r->detail) {
			free(r->item);
			return -ENOMEM;
		}
	} else if (g->metric == DIFF_KERNEL) {
		const char *cfg[2] = { NULL, NULL };

		/* its main launch configuration, said when the two sides' differ */
		for (i = 0; i < n; i++)
			if (g[i].config && *g[i].config && !cfg[g[i].side])
				cfg[g[i].side] = g[i].config;
		if (cfg[0] && cfg[1] && strcmp(cfg[0], cfg[1]) &&
		    asprintf(&r->detail, "launch %s -> %s", cfg[0], cfg[1]) < 0) {
			free(r->item);
			return -ENOMEM;
		}
	}
	rule = find_rule(o, r->item);
	if (rule && rule->ignore) {
		free(r->item);
		free(r->detail);
		res->ignored++;
		return 0;
	}
	for (side = 0; side < 2; side++) {
		uint64_t *v = vals[side][0], mn = UINT64_MAX, mx = 0, med;

		for (i = 0; i < nruns[side]; i++) {
			mn = v[i] < mn ? v[i] : mn;
			mx = v[i] > mx ? v[i] : mx;
		}
		med = median(v, nruns[side]);
		if (side == 0) {
			r->base = med, r->base_min = mn, r->base_max = mx;
			r->base_count = median(vals[0][1], n_base);
			r->base_mean = median(vals[0][2], n_base);
			r->base_bytes = median(vals[0][3], n_base);
		} else {
			r->new_ = med, r->new_min = mn, r->new_max = mx;
			r->new_count = median(vals[1][1], n_new);
			r->new_mean = median(vals[1][2], n_new);
			r->new_bytes = median(vals[1][3], n_new);
		}
	}
	r->has_count =
	    g->metric == DIFF_KERNEL || g->metric == DIFF_MEMCPY || g->metric == DIFF_SITE;
	/* new - base, saturated: totals may exceed what int64 holds */
	if (r->new_ >= r->base)
		r->delta = r->new_ - r->base > INT64_MAX ? INT64_MAX : (int64_t)(r->new_ - r->base);
	else
		r->delta = r->base - r->new_ > INT64_MAX ? -INT64_MAX : -(int64_t)(r->base - r->new_);
	if (rule && rule->threshold >= 0)
		r->threshold = rule->threshold;
	else if (o->metric_threshold[g->metric] >= 0)
		r->threshold = o->metric_threshold[g->metric];
	else
		r->threshold = o->threshold;
	classify(r, present[0], present[1], o);
	res->count[r->status]++;
	res->n_rows++;
	return 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	uint64_t ia = a->delta < 0 ? (uint64_t)-a->delta : (uint64_t)a->delta;
	uint64_t ib = b->delta < 0 ? (uint64_t)-b->delta : (uint64_t)b->delta;
	int c;

	if (ia != ib)
		return ia > ib ? -1 : 1;
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	c = strcmp(a->item, b->item);
	return c ? c : cmp_str(a->detail, b->detail);
}

int diff__compare(const struct summary *const *base, size_t n_base,
		  const struct summary *const *new_, size_t n_new, const struct diff_opts *o,
		  struct diff_result **out)
{
	struct samples s = {0};
	struct diff_result *res = NULL;
	uint64_t *scratch = NULL;
	bool per_device = false;
	size_t i, j;
	int err = 0;

	*out = NULL;
	if (!base || !new_ || !n_base || !n_new || !o)
		return -EINVAL;
	for (i = 0; i < n_base; i++)
		per_device |= base[i]->n_devices > 1;
	for (i = 0; i < n_new; i++)
		per_device |= new_[i]->n_devices > 1;
	for (i = 0; i < n_base && !err; i++)
		err = collect(base[i], 0, i, per_device, o, &s);
	for (i = 0; i < n_new && !err; i++)
		err = collect(new_[i], 1, i, per_device, o, &s);
	if (err)
		goto cleanup;
	gp_sort(s.v, s.n, sizeof(*s.v), cmp_sample);
	err = -ENOMEM;
	res = calloc(1, sizeof(*res));
	scratch = calloc(4 * (n_base + n_new), sizeof(*scratch));
	if (!res || !scratch)
		goto cleanup;
	res->rows = calloc(s.n ? s.n : 1, sizeof(*res->rows));
	if (!res->rows)
		goto cleanup;
	res->n_base = n_base;
	res->n_new = n_new;
	res->opts = *o;
	res->opts.rules = NULL;
	res->opts.n_rules = 0;
	res->opts.rules_alloc = 0;
	err = 0;
	for (i = 0; i < s.n && !err; i = j) {
		for (j = i + 1; j < s.n && !cmp_sample_key(&s.v[i], &s.v[j]); j++)
			;
		err = make_row(&s.v[i], j - i, n_base, n_new, o, scratch, res);
	}
	if (err)
		goto cleanup;
	gp_sort(res->rows, res->n_rows, sizeof(*res->rows), cmp_row);
	*out = res;
	res = NULL;
cleanup:
	diff_result__free(res);
	free(scratch);
	free(s.v);
	return err;
}

void diff_result__free(struct diff_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_rows; i++) {
		free(r->rows[i].item);
		free(r->rows[i].detail);
	}
	free(r->rows);
	free(r);
}

int diff_result__failed(const struct diff_result *r)
{
	return r->count[DIFF_REGRESSION] || (r->opts.fail_on_new && r->count[DIFF_NEW]) ? 1 : 0;
}
