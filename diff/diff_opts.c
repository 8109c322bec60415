// SPDX-License-Identifier: Apache-2.0
/*
 * diff_opts.c - `gpuperf diff`'s options: the default thresholds, the
 * --threshold list, per-item rules and the --config file (JSON).
 */
#include "diff.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"

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
	o->n_rules = o->rules_alloc = 0;
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
	struct diff_rule *r;
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
	if (GP_ALLOC_GROW(o->rules, o->n_rules + 1, o->rules_alloc))
		goto nomem;
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
