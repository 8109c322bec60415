// SPDX-License-Identifier: Apache-2.0
/* diff_write.c - a diff's result as text (a terminal, colored or not), Markdown and JSON. */
#include "diff.h"

#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_util.h"
#include "json_utf8.h"
#include "summary_read.h"

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
			n += (size_t)snprintf(buf + n, size - n, ", %s %g%%", diff_metric__name(m),
					      r->opts.metric_threshold[m]);
	fmt_ns(r->opts.min_time_ns, t, sizeof(t));
	if (n < size)
		snprintf(buf + n, size - n, ", min time %s", t);
}

/* A row's numbers and note as the text and Markdown tables show them. */
struct row_text {
	char base[32], new_[32], delta[32], pct[32], note[1024];
};

static void fmt_row(const struct diff_row *w, struct row_text *x)
{
	fmt_ns(w->base, x->base, sizeof(x->base));
	fmt_ns(w->new_, x->new_, sizeof(x->new_));
	fmt_delta(w->delta, x->delta, sizeof(x->delta));
	fmt_pct(w, x->pct, sizeof(x->pct));
	fmt_note(w, x->note, sizeof(x->note));
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
	char settings[256];
	struct row_text x;
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
		fmt_row(w, &x);
		fprintf(out, "%s%-12s%s %-9s %12s %12s %13s %8s  %s%s%s%s\n", sc,
			diff_status__name(w->status), *sc ? "\033[0m" : "",
			diff_metric__name(w->metric), x.base, x.new_, x.delta, x.pct, w->item,
			*x.note ? "  [" : "", x.note, *x.note ? "]" : "");
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
	struct row_text x;
	size_t i;

	fprintf(out, "| status | metric | item | base | new | delta | delta %% | note |\n"
		     "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n");
	for (i = 0; i < r->n_rows; i++) {
		const struct diff_row *w = &r->rows[i];

		if (w->status == DIFF_BELOW_MIN || (w->status == DIFF_OK) == notable)
			continue;
		fmt_row(w, &x);
		fprintf(out, "| %s%s | %s | ", icon[w->status], diff_status__name(w->status),
			diff_metric__name(w->metric));
		md_cell(out, w->item, true);
		fprintf(out, " | %s | %s | %s | %s | ", x.base, x.new_, x.delta, x.pct);
		md_cell(out, x.note, false);
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
			ok = cJSON_AddNumberToObject(x, diff_metric__name(m),
						     r->opts.metric_threshold[m]);
	ok = ok && cJSON_AddNumberToObject(o, "min_time_ns", (double)r->opts.min_time_ns) &&
	     cJSON_AddBoolToObject(o, "by_site", r->opts.by_site) &&
	     cJSON_AddBoolToObject(o, "fail_on_new", r->opts.fail_on_new);
	ok = ok && (o = cJSON_AddObjectToObject(root, "counts"));
	for (m = 0; ok && m < DIFF_STATUS_COUNT; m++)
		ok = cJSON_AddNumberToObject(o, diff_status__name(m), (double)r->count[m]);
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
