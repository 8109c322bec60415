// SPDX-License-Identifier: Apache-2.0
/* diff.c - compare base and new summaries metric by metric, with thresholds and run-to-run noise.
 */
#include "diff.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "json_utf8.h"
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

static int errf(char *buf, size_t size, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int errf(char *buf, size_t size, int code, const char *fmt, ...)
{
	va_list ap;

	if (buf && size) {
		va_start(ap, fmt);
		vsnprintf(buf, size, fmt, ap);
		va_end(ap);
	}
	return code;
}

void diff_opts__init(struct diff_opts *o)
{
	int m;

	memset(o, 0, sizeof(*o));
	o->threshold = 5;
	for (m = 0; m < DIFF_METRIC_COUNT; m++)
		o->metric_threshold[m] = -1;
	o->min_time_ns = 10000;
}

void diff_opts__release(struct diff_opts *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n_rules; i++) {
		free(o->rules[i].pattern);
		if (o->rules[i].re)
			regfree(o->rules[i].re);
		free(o->rules[i].re);
	}
	free(o->rules);
	o->rules = NULL;
	o->n_rules = 0;
}

static int parse_pct(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (len > 1 && buf[len - 1] == '%')
		buf[--len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end || errno || !isfinite(v) || v < 0 || v > 1e6)
		return -EINVAL;
	*out = v;
	return 0;
}

int diff_opts__parse_thresholds(struct diff_opts *o, const char *text, char *errbuf, size_t errsize)
{
	const char *p = text, *comma, *eq;
	size_t len;
	double v;
	int m;

	if (!*text)
		return errf(errbuf, errsize, -EINVAL, "empty threshold");
	for (; p; p = comma ? comma + 1 : NULL) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		eq = memchr(p, '=', len);
		if (!eq) {
			if (parse_pct(p, len, &v))
				return errf(errbuf, errsize, -EINVAL,
					    "invalid threshold '%.*s': expected a percentage such "
					    "as 5 or METRIC=PCT",
					    (int)len, p);
			o->threshold = v;
			continue;
		}
		{
			char name[32];
			size_t nlen = (size_t)(eq - p);

			if (nlen >= sizeof(name))
				nlen = sizeof(name) - 1;
			memcpy(name, p, nlen);
			name[nlen] = '\0';
			m = diff_metric__parse(name);
			if (m < 0)
				return errf(
				    errbuf, errsize, -EINVAL,
				    "unknown metric '%s' in threshold '%.*s' (metrics: "
				    "gpu_busy, gpu_idle, kernel, memcpy, site, cpu_on, cpu_off)",
				    name, (int)len, p);
		}
		if (parse_pct(eq + 1, len - (size_t)(eq + 1 - p), &v))
			return errf(errbuf, errsize, -EINVAL,
				    "invalid threshold '%.*s': expected METRIC=PCT", (int)len, p);
		o->metric_threshold[m] = v;
	}
	return 0;
}

int diff_opts__add_rule(struct diff_opts *o, const char *pattern, double threshold, bool ignore,
			char *errbuf, size_t errsize)
{
	struct diff_rule *nr, *r;
	regex_t *re;
	int rc;

	re = calloc(1, sizeof(*re));
	if (!re)
		return -ENOMEM;
	rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, re, msg, sizeof(msg));
		free(re);
		return errf(errbuf, errsize, -EINVAL, "invalid regex '%s': %s", pattern, msg);
	}
	nr = realloc(o->rules, (o->n_rules + 1) * sizeof(*nr));
	if (!nr)
		goto nomem;
	o->rules = nr;
	r = &o->rules[o->n_rules];
	r->pattern = strdup(pattern);
	if (!r->pattern)
		goto nomem;
	r->threshold = threshold;
	r->ignore = ignore;
	r->re = re;
	o->n_rules++;
	return 0;
nomem:
	regfree(re);
	free(re);
	return -ENOMEM;
}

static int cfg_number(const cJSON *v, const char *what, double lo, double hi, double *out,
		      char *errbuf, size_t errsize)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
	    v->valuedouble > hi)
		return errf(errbuf, errsize, -EINVAL, "config: \"%s\" must be a number in [%g, %g]",
			    what, lo, hi);
	*out = v->valuedouble;
	return 0;
}

static int cfg_bool(const cJSON *v, const char *what, bool *out, char *errbuf, size_t errsize)
{
	if (!cJSON_IsBool(v))
		return errf(errbuf, errsize, -EINVAL, "config: \"%s\" must be true or false", what);
	*out = cJSON_IsTrue(v);
	return 0;
}

static int cfg_rules(struct diff_opts *o, const cJSON *arr, char *errbuf, size_t errsize)
{
	const cJSON *e, *f;
	int err;

	if (!cJSON_IsArray(arr))
		return errf(errbuf, errsize, -EINVAL, "config: \"rules\" must be an array");
	cJSON_ArrayForEach(e, arr)
	{
		const char *match = NULL;
		double thr = -1;
		bool ignore = false;

		if (!cJSON_IsObject(e))
			return errf(errbuf, errsize, -EINVAL,
				    "config: each of \"rules\" must be an object");
		cJSON_ArrayForEach(f, e)
		{
			if (!strcmp(f->string, "match") && cJSON_IsString(f))
				match = f->valuestring;
			else if (!strcmp(f->string, "threshold"))
				err = cfg_number(f, "rules[].threshold", 0, 1e6, &thr, errbuf,
						 errsize);
			else if (!strcmp(f->string, "ignore"))
				err = cfg_bool(f, "rules[].ignore", &ignore, errbuf, errsize);
			else
				err = errf(errbuf, errsize, -EINVAL,
					   "config: unknown key \"%s\" in a rule (known: match, "
					   "threshold, ignore)",
					   f->string);
			if (strcmp(f->string, "match") && err)
				return err;
			err = 0;
		}
		if (!match)
			return errf(errbuf, errsize, -EINVAL,
				    "config: a rule needs \"match\": a regex string");
		err = diff_opts__add_rule(o, match, thr, ignore, errbuf, errsize);
		if (err)
			return err;
	}
	return 0;
}

int diff_opts__parse_config(struct diff_opts *o, const char *text, size_t len, char *errbuf,
			    size_t errsize)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *v, *e;
	double d = 0;
	int err = 0, m;

	if (!root || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return errf(errbuf, errsize, -EINVAL, "config: not a JSON object");
	}
	cJSON_ArrayForEach(v, root)
	{
		if (!strcmp(v->string, "threshold")) {
			err = cfg_number(v, "threshold", 0, 1e6, &o->threshold, errbuf, errsize);
		} else if (!strcmp(v->string, "thresholds")) {
			if (!cJSON_IsObject(v)) {
				err = errf(errbuf, errsize, -EINVAL,
					   "config: \"thresholds\" must be an object");
				break;
			}
			cJSON_ArrayForEach(e, v)
			{
				m = diff_metric__parse(e->string);
				if (m < 0) {
					err =
					    errf(errbuf, errsize, -EINVAL,
						 "config: unknown metric \"%s\" in \"thresholds\"",
						 e->string);
					break;
				}
				err = cfg_number(e, e->string, 0, 1e6, &o->metric_threshold[m],
						 errbuf, errsize);
				if (err)
					break;
			}
		} else if (!strcmp(v->string, "min_time_ns")) {
			err = cfg_number(v, "min_time_ns", 0, 1e18, &d, errbuf, errsize);
			o->min_time_ns = err ? o->min_time_ns : (uint64_t)d;
		} else if (!strcmp(v->string, "by_site")) {
			err = cfg_bool(v, "by_site", &o->by_site, errbuf, errsize);
		} else if (!strcmp(v->string, "fail_on_new")) {
			err = cfg_bool(v, "fail_on_new", &o->fail_on_new, errbuf, errsize);
		} else if (!strcmp(v->string, "ignore")) {
			if (!cJSON_IsArray(v)) {
				err = errf(errbuf, errsize, -EINVAL,
					   "config: \"ignore\" must be an array of regex strings");
				break;
			}
			cJSON_ArrayForEach(e, v)
			{
				err = cJSON_IsString(e)
					  ? diff_opts__add_rule(o, e->valuestring, -1, true, errbuf,
								errsize)
					  : errf(errbuf, errsize, -EINVAL,
						 "config: \"ignore\" must hold regex strings");
				if (err)
					break;
			}
		} else if (!strcmp(v->string, "rules")) {
			err = cfg_rules(o, v, errbuf, errsize);
		} else {
			err = errf(errbuf, errsize, -EINVAL,
				   "config: unknown key \"%s\" (known: threshold, thresholds, "
				   "min_time_ns, by_site, fail_on_new, ignore, rules)",
				   v->string);
		}
		if (err)
			break;
	}
	cJSON_Delete(root);
	return err;
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

/* ---- writers ---- */

static void fmt_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000ULL)
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000ULL)
		snprintf(buf, size, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
}

static void fmt_delta(int64_t d, char *buf, size_t size)
{
	buf[0] = d < 0 ? '-' : '+';
	fmt_ns(d < 0 ? (uint64_t)-d : (uint64_t)d, buf + 1, size - 1);
}

static void fmt_pct(const struct diff_row *r, char *buf, size_t size)
{
	if (r->status == DIFF_NEW)
		snprintf(buf, size, "new");
	else if (r->status == DIFF_GONE)
		snprintf(buf, size, "gone");
	else
		snprintf(buf, size, "%+.1f%%", r->delta_pct);
}

/* What a reader needs beside the numbers: noise, launch counts, bytes, the site. */
static void fmt_note(const struct diff_row *r, char *buf, size_t size)
{
	char a[32], b[32];
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < size)                                                                      \
			n += (size_t)snprintf(buf + n, size - n, "%s", n ? "; " : "");             \
		if (n < size)                                                                      \
			n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                     \
	} while (0)
	if (r->status == DIFF_NOISE)
		ADD("within noise (\xc2\xb1%.1f%%)", r->noise_pct);
	else if (r->noise_pct > 0 &&
		 (r->status == DIFF_REGRESSION || r->status == DIFF_IMPROVEMENT))
		ADD("noise \xc2\xb1%.1f%%", r->noise_pct);
	if (r->detail)
		ADD("%s", r->detail);
	if (r->has_count && r->base_count != r->new_count)
		ADD("%s %llu -> %llu", r->metric == DIFF_MEMCPY ? "copies" : "launches",
		    (unsigned long long)r->base_count, (unsigned long long)r->new_count);
	if (r->metric == DIFF_KERNEL && r->base_mean != r->new_mean && r->base_mean &&
	    r->new_mean) {
		fmt_ns(r->base_mean, a, sizeof(a));
		fmt_ns(r->new_mean, b, sizeof(b));
		ADD("mean %s -> %s", a, b);
	}
	if (r->metric == DIFF_MEMCPY && r->base_bytes != r->new_bytes)
		ADD("bytes %llu -> %llu", (unsigned long long)r->base_bytes,
		    (unsigned long long)r->new_bytes);
#undef ADD
}

static void fmt_settings(const struct diff_result *r, char *buf, size_t size)
{
	char t[32];
	size_t n;
	int m;

	n = (size_t)snprintf(buf, size, "threshold %g%%", r->opts.threshold);
	for (m = 0; m < DIFF_METRIC_COUNT && n < size; m++)
		if (r->opts.metric_threshold[m] >= 0)
			n += (size_t)snprintf(buf + n, size - n, ", %s %g%%", metric_names[m],
					      r->opts.metric_threshold[m]);
	fmt_ns(r->opts.min_time_ns, t, sizeof(t));
	if (n < size)
		snprintf(buf + n, size - n, ", min time %s", t);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int write_verdict(const struct diff_result *r, FILE *out, bool md)
{
	const size_t *c = r->count;
	int fail = diff_result__failed(r);

	fprintf(out, "%s%zu %s, %zu %s, %zu within noise, %zu new, %zu gone",
		md ? "" : (fail ? "FAIL: " : "OK: "), c[DIFF_REGRESSION],
		plural(c[DIFF_REGRESSION], "regression", "regressions"), c[DIFF_IMPROVEMENT],
		plural(c[DIFF_IMPROVEMENT], "improvement", "improvements"), c[DIFF_NOISE],
		c[DIFF_NEW], c[DIFF_GONE]);
	if (c[DIFF_BELOW_MIN])
		fprintf(out, "; %zu below the min time not shown", c[DIFF_BELOW_MIN]);
	if (r->ignored)
		fprintf(out, "; %zu ignored", r->ignored);
	if (r->opts.fail_on_new && c[DIFF_NEW])
		fprintf(out, "; new items fail (fail_on_new)");
	return fprintf(out, "%s\n", md ? "" : (fail ? " (exit 1)" : "")) < 0 ? -EIO : 0;
}

static const char *status_color(enum diff_status s)
{
	switch (s) {
	case DIFF_REGRESSION:
		return "\033[1;31m";
	case DIFF_IMPROVEMENT:
		return "\033[32m";
	case DIFF_NOISE:
		return "\033[33m";
	case DIFF_NEW:
		return "\033[35m";
	case DIFF_GONE:
		return "\033[36m";
	default:
		return "";
	}
}

int diff__write_text(const struct diff_result *r, FILE *out, bool color)
{
	char settings[256], b[32], n[32], d[32], p[32], note[1024];
	size_t i, shown = 0;

	fmt_settings(r, settings, sizeof(settings));
	fprintf(out, "gpuperf diff: %zu base %s vs %zu new %s (medians); %s\n\n", r->n_base,
		plural(r->n_base, "run", "runs"), r->n_new, plural(r->n_new, "run", "runs"),
		settings);
	for (i = 0; i < r->n_rows; i++)
		shown += r->rows[i].status != DIFF_BELOW_MIN;
	if (!shown) {
		fprintf(out, "nothing to compare: no item reaches the min time\n");
	} else {
		fprintf(out, "%-12s %-9s %12s %12s %13s %8s  %s\n", "STATUS", "METRIC", "BASE",
			"NEW", "DELTA", "DELTA%", "ITEM");
	}
	for (i = 0; i < r->n_rows; i++) {
		const struct diff_row *w = &r->rows[i];
		const char *sc = color ? status_color(w->status) : "";

		if (w->status == DIFF_BELOW_MIN)
			continue;
		fmt_ns(w->base, b, sizeof(b));
		fmt_ns(w->new_, n, sizeof(n));
		fmt_delta(w->delta, d, sizeof(d));
		fmt_pct(w, p, sizeof(p));
		fmt_note(w, note, sizeof(note));
		fprintf(out, "%s%-12s%s %-9s %12s %12s %13s %8s  %s%s%s%s\n", sc,
			diff_status__name(w->status), *sc ? "\033[0m" : "",
			diff_metric__name(w->metric), b, n, d, p, w->item, *note ? "  [" : "", note,
			*note ? "]" : "");
	}
	fputc('\n', out);
	return write_verdict(r, out, false) || ferror(out) ? -EIO : 0;
}

/* Markdown table cell: no '|' or newline, and code spans without backticks. */
static void md_cell(FILE *out, const char *s, bool code)
{
	if (code)
		fputc('`', out);
	for (; *s; s++) {
		if (*s == '|')
			fputs(code ? "\\|" : "\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else if (*s == '`' && code)
			fputc('\'', out);
		else
			fputc(*s, out);
	}
	if (code)
		fputc('`', out);
}

static void md_rows(const struct diff_result *r, FILE *out, bool notable)
{
	static const char *const icon[DIFF_STATUS_COUNT] = {
	    [DIFF_OK] = "",
	    [DIFF_REGRESSION] = ":red_circle: ",
	    [DIFF_IMPROVEMENT] = ":green_circle: ",
	    [DIFF_NOISE] = ":yellow_circle: ",
	    [DIFF_NEW] = ":new: ",
	    [DIFF_GONE] = ":wastebasket: ",
	};
	char b[32], n[32], d[32], p[32], note[1024];
	size_t i;

	fprintf(out, "| status | metric | item | base | new | delta | delta %% | note |\n"
		     "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n");
	for (i = 0; i < r->n_rows; i++) {
		const struct diff_row *w = &r->rows[i];

		if (w->status == DIFF_BELOW_MIN || (w->status == DIFF_OK) == notable)
			continue;
		fmt_ns(w->base, b, sizeof(b));
		fmt_ns(w->new_, n, sizeof(n));
		fmt_delta(w->delta, d, sizeof(d));
		fmt_pct(w, p, sizeof(p));
		fmt_note(w, note, sizeof(note));
		fprintf(out, "| %s%s | %s | ", icon[w->status], diff_status__name(w->status),
			diff_metric__name(w->metric));
		md_cell(out, w->item, true);
		fprintf(out, " | %s | %s | %s | %s | ", b, n, d, p);
		md_cell(out, note, false);
		fputs(" |\n", out);
	}
}

int diff__write_markdown(const struct diff_result *r, FILE *out)
{
	char settings[256];
	size_t i, notable = 0, ok = 0;

	for (i = 0; i < r->n_rows; i++) {
		notable += r->rows[i].status != DIFF_OK && r->rows[i].status != DIFF_BELOW_MIN;
		ok += r->rows[i].status == DIFF_OK;
	}
	fmt_settings(r, settings, sizeof(settings));
	fprintf(out, "### gpuperf diff: %s\n\n",
		diff_result__failed(r) ? ":x: performance regression"
				       : ":white_check_mark: no regression");
	fprintf(out, "%zu base %s vs %zu new %s (medians); %s.\n\n", r->n_base,
		plural(r->n_base, "run", "runs"), r->n_new, plural(r->n_new, "run", "runs"),
		settings);
	write_verdict(r, out, true);
	if (notable) {
		fputc('\n', out);
		md_rows(r, out, true);
	}
	if (ok) {
		fprintf(out, "\n<details><summary>%zu unchanged within the threshold</summary>\n\n",
			ok);
		md_rows(r, out, false);
		fprintf(out, "\n</details>\n");
	}
	return ferror(out) ? -EIO : 0;
}

static double round2(double v)
{
	return round(v * 100) / 100;
}

/*
 * An integer as JSON: exactly, also above 2^53 where a double (what cJSON
 * numbers are) would round it (then as a raw literal).
 */
static bool add_int(cJSON *o, const char *key, uint64_t mag, bool neg)
{
	char buf[24];

	if (mag <= 1ull << 53)
		return cJSON_AddNumberToObject(o, key, neg ? -(double)mag : (double)mag);
	snprintf(buf, sizeof(buf), "%s%llu", neg ? "-" : "", (unsigned long long)mag);
	return cJSON_AddRawToObject(o, key, buf);
}

static bool add_u64(cJSON *o, const char *key, uint64_t v)
{
	return add_int(o, key, v, false);
}

static bool add_i64(cJSON *o, const char *key, int64_t v)
{
	return add_int(o, key, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

static cJSON *json_pair(uint64_t a, uint64_t b)
{
	cJSON *o = cJSON_CreateObject();

	if (o && (!add_u64(o, "base", a) || !add_u64(o, "new", b))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *json_row(const struct diff_row *w)
{
	cJSON *o = cJSON_CreateObject(), *x;
	bool ok = o != NULL;

	ok = ok && cJSON_AddStringToObject(o, "status", diff_status__name(w->status));
	ok = ok && cJSON_AddStringToObject(o, "metric", diff_metric__name(w->metric));
	ok = ok && cJSON_AddStringToObject(o, "item", w->item);
	if (w->detail)
		ok = ok && cJSON_AddStringToObject(o, "detail", w->detail);
	ok = ok && add_u64(o, "base_ns", w->base);
	ok = ok && add_u64(o, "new_ns", w->new_);
	ok = ok && add_i64(o, "delta_ns", w->delta);
	ok = ok && cJSON_AddNumberToObject(o, "delta_pct", round2(w->delta_pct));
	ok = ok && cJSON_AddNumberToObject(o, "threshold_pct", w->threshold);
	ok = ok && cJSON_AddNumberToObject(o, "noise_pct", round2(w->noise_pct));
	ok =
	    ok && (x = json_pair(w->base_min, w->new_min)) && cJSON_AddItemToObject(o, "min_ns", x);
	ok =
	    ok && (x = json_pair(w->base_max, w->new_max)) && cJSON_AddItemToObject(o, "max_ns", x);
	if (w->has_count)
		ok = ok && (x = json_pair(w->base_count, w->new_count)) &&
		     cJSON_AddItemToObject(o, w->metric == DIFF_MEMCPY ? "copies" : "launches", x);
	if (w->metric == DIFF_KERNEL)
		ok = ok && (x = json_pair(w->base_mean, w->new_mean)) &&
		     cJSON_AddItemToObject(o, "mean_ns", x);
	if (w->metric == DIFF_MEMCPY)
		ok = ok && (x = json_pair(w->base_bytes, w->new_bytes)) &&
		     cJSON_AddItemToObject(o, "bytes", x);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int diff__write_json(const struct diff_result *r, FILE *out)
{
	cJSON *root = cJSON_CreateObject(), *o, *x;
	char *text = NULL;
	bool ok = root != NULL;
	size_t i;
	int m, err = -ENOMEM;

	ok = ok && cJSON_AddStringToObject(root, "schema", "gpuperf-diff");
	ok = ok && cJSON_AddStringToObject(root, "schema_version", "1.0");
	ok = ok &&
	     cJSON_AddStringToObject(root, "result", diff_result__failed(r) ? "regression" : "ok");
	ok = ok && cJSON_AddNumberToObject(root, "exit_status", diff_result__failed(r));
	ok = ok && (o = cJSON_AddObjectToObject(root, "runs")) &&
	     cJSON_AddNumberToObject(o, "base", (double)r->n_base) &&
	     cJSON_AddNumberToObject(o, "new", (double)r->n_new);
	ok = ok && (o = cJSON_AddObjectToObject(root, "settings")) &&
	     cJSON_AddNumberToObject(o, "threshold_pct", r->opts.threshold) &&
	     (x = cJSON_AddObjectToObject(o, "thresholds_pct"));
	for (m = 0; ok && m < DIFF_METRIC_COUNT; m++)
		if (r->opts.metric_threshold[m] >= 0)
			ok = cJSON_AddNumberToObject(x, metric_names[m],
						     r->opts.metric_threshold[m]);
	ok = ok && cJSON_AddNumberToObject(o, "min_time_ns", (double)r->opts.min_time_ns) &&
	     cJSON_AddBoolToObject(o, "by_site", r->opts.by_site) &&
	     cJSON_AddBoolToObject(o, "fail_on_new", r->opts.fail_on_new);
	ok = ok && (o = cJSON_AddObjectToObject(root, "counts"));
	for (m = 0; ok && m < DIFF_STATUS_COUNT; m++)
		ok = cJSON_AddNumberToObject(o, status_names[m], (double)r->count[m]);
	ok = ok && cJSON_AddNumberToObject(o, "ignored", (double)r->ignored);
	ok = ok && (o = cJSON_AddArrayToObject(root, "rows"));
	for (i = 0; ok && i < r->n_rows; i++) {
		if (r->rows[i].status == DIFF_BELOW_MIN)
			continue;
		x = json_row(&r->rows[i]);
		ok = x && cJSON_AddItemToArray(o, x);
	}
	/* names come from summary.json files, which older reports wrote with any bytes */
	if (ok && !json_utf8__fix_tree(root))
		text = cJSON_Print(root);
	if (text)
		err = fprintf(out, "%s\n", text) < 0 ? -EIO : 0;
	cJSON_free(text);
	cJSON_Delete(root);
	return err;
}
