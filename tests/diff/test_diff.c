// SPDX-License-Identifier: Apache-2.0
/* test_diff.c - the comparison behind `gpuperf diff`: thresholds, noise, new/gone, config, schema.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diff.h"
#include "summary_read.h"

#define K1 "gemm_nn_kernel(float const*, float const*, float*, int, int, int)"
#define K2 "bias_act_kernel(float*, float const*, int, int, int)"
#define S1 "main;train_step;forward;layer_forward"
#define S2 "main;train_step;update"

/* A summary with kernels K1, K2 (totals k1, k2 ns, 10 launches each; 0 = absent) and their sites.
 */
static struct summary *mk(uint64_t k1, uint64_t k2)
{
	char text[4096], err[256];
	struct summary *s = NULL;
	int n;

	n = snprintf(
	    text, sizeof(text),
	    "{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
	    "\"gpu\":{\"busy_ns\":%llu,\"idle_ns\":0,\"devices\":[{\"id\":0,\"name\":\"sim\","
	    "\"busy_ns\":%llu,\"idle_ns\":0}]},\"kernels\":[",
	    (unsigned long long)(k1 + k2), (unsigned long long)(k1 + k2));
	if (k1)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "{\"name\":\"" K1
			      "\",\"count\":10,\"total_ns\":%llu,\"mean_ns\":%llu}%s",
			      (unsigned long long)k1, (unsigned long long)k1 / 10, k2 ? "," : "");
	if (k2)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "{\"name\":\"" K2
			      "\",\"count\":10,\"total_ns\":%llu,\"mean_ns\":%llu}",
			      (unsigned long long)k2, (unsigned long long)k2 / 10);
	snprintf(text + n, sizeof(text) - (size_t)n,
		 "],\"launch_sites\":[{\"function\":\"layer_forward\",\"location\":\"t.cu:1\","
		 "\"api\":\"cudaLaunchKernel\",\"stack\":\"" S1
		 "\",\"gpu_ns\":%llu,\"launches\":10},"
		 "{\"function\":\"update\",\"location\":\"\",\"api\":\"cudaLaunchKernel\","
		 "\"stack\":\"" S2 "\",\"gpu_ns\":%llu,\"launches\":10}]}",
		 (unsigned long long)k1, (unsigned long long)k2);
	assert_int_equal(summary_read__parse(text, strlen(text), "t", &s, err, sizeof(err)), 0);
	return s;
}

static struct diff_result *run(struct summary **b, size_t nb, struct summary **n, size_t nn,
			       const struct diff_opts *o)
{
	struct diff_result *r = NULL;

	assert_int_equal(diff__compare((const struct summary *const *)b, nb,
				       (const struct summary *const *)n, nn, o, &r),
			 0);
	return r;
}

static const struct diff_row *find(const struct diff_result *r, enum diff_metric m,
				   const char *item)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++)
		if (r->rows[i].metric == m && !strcmp(r->rows[i].item, item))
			return &r->rows[i];
	return NULL;
}

static size_t count_status(const struct diff_result *r, enum diff_metric m, enum diff_status s)
{
	size_t i, n = 0;

	for (i = 0; i < r->n_rows; i++)
		n += r->rows[i].metric == m && r->rows[i].status == s;
	return n;
}

static void free_all(struct summary **v, size_t n)
{
	while (n--)
		summary_read__free(v[n]);
}

static void test_slower_kernel_flagged(void **state)
{
	struct summary *b[1] = {mk(1000000, 500000)}, *n[1] = {mk(1200000, 500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(diff_result__failed(r), 1);
	assert_int_equal(count_status(r, DIFF_KERNEL, DIFF_REGRESSION), 1);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->delta, 200000);
	assert_true(find(r, DIFF_KERNEL, K1)->delta_pct > 19.99);
	assert_int_equal(find(r, DIFF_KERNEL, K2)->status, DIFF_OK);
	assert_null(find(r, DIFF_SITE, S1)); /* sites only with by_site */
	/* Rows by impact: the kernel and the GPU busy time it adds (ties: by metric). */
	assert_int_equal(r->rows[0].metric, DIFF_GPU_BUSY);
	assert_int_equal(r->rows[1].metric, DIFF_KERNEL);
	assert_int_equal(r->rows[1].delta, 200000);
	assert_int_equal(r->rows[2].delta, 0);
	diff_result__free(r);

	o.by_site = true;
	r = run(b, 1, n, 1, &o);
	assert_int_equal(count_status(r, DIFF_SITE, DIFF_REGRESSION), 1);
	assert_int_equal(find(r, DIFF_SITE, S1)->status, DIFF_REGRESSION);
	assert_non_null(strstr(find(r, DIFF_SITE, S1)->detail, "layer_forward (t.cu:1)"));
	assert_int_equal(find(r, DIFF_SITE, S2)->status, DIFF_OK);
	diff_result__free(r);
	diff_opts__release(&o);
	free_all(b, 1);
	free_all(n, 1);
}

/* A 1.2 summary of one kernel K1 (10 launches, ns in total) launched with blocks of block threads. */
static struct summary *mk_cfg(uint64_t ns, unsigned block)
{
	char text[1024], err[256];
	struct summary *s = NULL;

	snprintf(text, sizeof(text),
		 "{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.2\",\"kernels\":["
		 "{\"name\":\"" K1 "\",\"count\":10,\"total_ns\":%llu,\"mean_ns\":%llu,"
		 "\"launch_configs\":[{\"grid\":\"64x1x1\",\"block\":\"%ux1x1\","
		 "\"registers_per_thread\":32,\"shared_memory\":1024,\"dynamic_shared_memory\":0,"
		 "\"count\":10,\"total_ns\":%llu}]}]}",
		 (unsigned long long)ns, (unsigned long long)ns / 10, block, (unsigned long long)ns);
	assert_int_equal(summary_read__parse(text, strlen(text), "t", &s, err, sizeof(err)), 0);
	return s;
}

/* A kernel whose launch configuration changed says so, from which to which. */
static void test_launch_config_change(void **state)
{
	struct summary *b[1] = {mk_cfg(1000000, 256)}, *n[1] = {mk_cfg(1300000, 128)},
		       *same[1] = {mk_cfg(1300000, 256)}, *old[1] = {mk(1000000, 0)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	assert_string_equal(find(r, DIFF_KERNEL, K1)->detail,
			    "launch <<<64x1x1, 256x1x1>>> 32 regs, 1024 B shared -> "
			    "<<<64x1x1, 128x1x1>>> 32 regs, 1024 B shared");
	diff_result__free(r);
	/* the same configuration, or a 1.0 summary without any: nothing said */
	r = run(b, 1, same, 1, &o);
	assert_null(find(r, DIFF_KERNEL, K1)->detail);
	diff_result__free(r);
	r = run(old, 1, n, 1, &o);
	assert_null(find(r, DIFF_KERNEL, K1)->detail);
	diff_result__free(r);
	diff_opts__release(&o);
	free_all(b, 1);
	free_all(n, 1);
	free_all(same, 1);
	free_all(old, 1);
}

static void test_small_change_passes(void **state)
{
	struct summary *b[1] = {mk(1000000, 500000)}, *n[1] = {mk(1020000, 500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(diff_result__failed(r), 0);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_OK);
	assert_int_equal(r->count[DIFF_REGRESSION], 0);
	diff_result__free(r);
	/* ...and faster by 20% is an improvement, not a failure. */
	summary_read__free(n[0]);
	n[0] = mk(800000, 500000);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(diff_result__failed(r), 0);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_IMPROVEMENT);
	diff_result__free(r);
	free_all(b, 1);
	free_all(n, 1);
}

static void test_noise(void **state)
{
	struct summary *b[3] = {mk(900000, 500000), mk(1000000, 500000), mk(1100000, 500000)};
	struct summary *n[1] = {mk(1050000, 500000)};
	char text[4096];
	struct diff_opts o;
	struct diff_result *r;
	const struct diff_row *w;
	FILE *f;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 3, n, 1, &o);
	w = find(r, DIFF_KERNEL, K1);
	assert_int_equal(diff_result__failed(r), 0);
	assert_int_equal(w->status, DIFF_NOISE);
	assert_int_equal(w->base, 1000000); /* the median */
	assert_int_equal(w->base_min, 900000);
	assert_int_equal(w->base_max, 1100000);
	assert_true(w->noise_pct > 9.99 && w->noise_pct < 10.01);
	f = fmemopen(text, sizeof(text), "w");
	assert_non_null(f);
	assert_int_equal(diff__write_text(r, f, false), 0);
	fclose(f);
	assert_non_null(strstr(text, "within noise (\xc2\xb1"
				     "10.0%)"));
	diff_result__free(r);

	/* 8% slower: over the threshold, still inside a +-10% spread. */
	summary_read__free(n[0]);
	n[0] = mk(1080000, 500000);
	r = run(b, 3, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_NOISE);
	assert_int_equal(diff_result__failed(r), 0);
	diff_result__free(r);

	/* The same 8% against one base run (no spread known) is a regression. */
	r = run(&b[1], 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	diff_result__free(r);

	/* 20% slower is beyond the noise. */
	summary_read__free(n[0]);
	n[0] = mk(1200000, 500000);
	r = run(b, 3, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	diff_result__free(r);
	free_all(b, 3);
	free_all(n, 1);
}

static void test_even_runs_median(void **state)
{
	struct summary *b[2] = {mk(1000000, 500000), mk(1000001, 500000)};
	struct summary *n[2] = {mk(1000000, 500000), mk(1200000, 500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 2, n, 2, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->base, 1000000); /* (a + b) / 2, rounded down */
	assert_int_equal(find(r, DIFF_KERNEL, K1)->new_, 1100000);
	/* delta 100 us, noise 100 us: inside. */
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_NOISE);
	diff_result__free(r);
	free_all(b, 2);
	free_all(n, 2);
}

static void test_new_and_gone(void **state)
{
	struct summary *b[1] = {mk(1000000, 0)}, *n[1] = {mk(0, 500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_GONE);
	assert_int_equal(find(r, DIFF_KERNEL, K2)->status, DIFF_NEW);
	assert_int_equal(find(r, DIFF_KERNEL, K2)->base_count, 0);
	assert_int_equal(find(r, DIFF_KERNEL, K2)->new_count, 10);
	assert_int_equal(r->count[DIFF_NEW], 1);
	assert_int_equal(r->count[DIFF_GONE], 1);
	assert_int_equal(diff_result__failed(r), 0); /* listed, not failed */
	diff_result__free(r);
	o.fail_on_new = true;
	r = run(b, 1, n, 1, &o);
	assert_int_equal(diff_result__failed(r), 1);
	diff_result__free(r);
	diff_opts__release(&o);
	free_all(b, 1);
	free_all(n, 1);
}

static void test_metric_thresholds(void **state)
{
	struct summary *b[1] = {mk(1000000, 500000)}, *n[1] = {mk(1200000, 500000)};
	char msg[256];
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	assert_int_equal(
	    diff_opts__parse_thresholds(&o, "4,kernel=25,gpu_busy=50%", msg, sizeof(msg)), 0);
	assert_true(o.threshold == 4);
	assert_true(o.metric_threshold[DIFF_KERNEL] == 25);
	assert_true(o.metric_threshold[DIFF_GPU_BUSY] == 50);
	assert_true(o.metric_threshold[DIFF_MEMCPY] < 0);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_OK);
	assert_true(find(r, DIFF_KERNEL, K1)->threshold == 25);
	assert_int_equal(diff_result__failed(r), 0);
	diff_result__free(r);

	assert_int_equal(diff_opts__parse_thresholds(&o, "kernel=3", msg, sizeof(msg)), 0);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	diff_result__free(r);

	assert_int_equal(diff_opts__parse_thresholds(&o, "kernal=3", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "kernal"));
	assert_int_equal(diff_opts__parse_thresholds(&o, "kernel=x", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(diff_opts__parse_thresholds(&o, "-3", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(diff_opts__parse_thresholds(&o, "", msg, sizeof(msg)), -EINVAL);
	diff_opts__release(&o);
	free_all(b, 1);
	free_all(n, 1);
}

static int cfg_err(struct diff_opts *o, const char *text, char *msg, size_t size)
{
	return diff_opts__parse_config(o, text, strlen(text), msg, size);
}

static void test_config(void **state)
{
	static const char cfg[] =
	    "{\"threshold\": 10, \"thresholds\": {\"site\": 30}, \"min_time_ns\": 1000,"
	    " \"by_site\": true, \"ignore\": [\"^bias_act\"],"
	    " \"rules\": [{\"match\": \"^gemm_nn\", \"threshold\": 50}]}";
	struct summary *b[1] = {mk(1000000, 500000)}, *n[1] = {mk(1200000, 1000000)};
	char msg[256];
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	assert_int_equal(diff_opts__parse_config(&o, cfg, strlen(cfg), msg, sizeof(msg)), 0);
	assert_true(o.threshold == 10);
	assert_true(o.metric_threshold[DIFF_SITE] == 30);
	assert_int_equal(o.min_time_ns, 1000);
	assert_true(o.by_site);
	assert_int_equal(o.n_rules, 2);
	r = run(b, 1, n, 1, &o);
	assert_null(find(r, DIFF_KERNEL, K2)); /* ignored */
	assert_int_equal(r->ignored, 1);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_OK);	   /* rule: 50% */
	assert_int_equal(find(r, DIFF_SITE, S1)->status, DIFF_OK);	   /* site: 30% */
	assert_int_equal(find(r, DIFF_SITE, S2)->status, DIFF_REGRESSION); /* +100% */
	diff_result__free(r);
	diff_opts__release(&o);

	diff_opts__init(&o);
	assert_int_equal(cfg_err(&o, "{\"treshold\": 3}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "treshold"));
	assert_int_equal(cfg_err(&o, "{\"ignore\": [\"(\"]}", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cfg_err(&o, "[1]", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cfg_err(&o, "{\"threshold\": \"5\"}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "threshold"));
	diff_opts__release(&o);
	free_all(b, 1);
	free_all(n, 1);
}

static void test_min_time(void **state)
{
	struct summary *b[1] = {mk(5000, 500000)}, *n[1] = {mk(9000, 500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o); /* min time 10 us: 5 -> 9 us is below it */
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_BELOW_MIN);
	assert_int_equal(diff_result__failed(r), 0);
	diff_result__free(r);
	o.min_time_ns = 1000;
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	diff_result__free(r);
	/* One side over the min time is enough to compare. */
	summary_read__free(n[0]);
	n[0] = mk(20000, 500000);
	o.min_time_ns = 10000;
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_KERNEL, K1)->status, DIFF_REGRESSION);
	diff_result__free(r);
	free_all(b, 1);
	free_all(n, 1);
}

static struct summary *two_devices(uint64_t busy1)
{
	char text[1024], err[256];
	struct summary *s = NULL;

	snprintf(text, sizeof(text),
		 "{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\",\"gpu\":{"
		 "\"busy_ns\":%llu,\"idle_ns\":0,\"devices\":[{\"id\":0,\"name\":\"a\","
		 "\"busy_ns\":1000000},{\"id\":1,\"name\":\"b\",\"busy_ns\":%llu}]}}",
		 (unsigned long long)(1000000 + busy1), (unsigned long long)busy1);
	assert_int_equal(summary_read__parse(text, strlen(text), "t", &s, err, sizeof(err)), 0);
	return s;
}

static void test_devices(void **state)
{
	struct summary *b[1] = {two_devices(1000000)}, *n[1] = {two_devices(1500000)};
	struct diff_opts o;
	struct diff_result *r;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	assert_int_equal(find(r, DIFF_GPU_BUSY, "device 0 (a)")->status, DIFF_OK);
	assert_int_equal(find(r, DIFF_GPU_BUSY, "device 1 (b)")->status, DIFF_REGRESSION);
	assert_int_equal(find(r, DIFF_GPU_BUSY, "all devices")->status, DIFF_REGRESSION);
	assert_null(find(r, DIFF_CPU_ON, "all processes")); /* no "cpu" object */
	diff_result__free(r);
	free_all(b, 1);
	free_all(n, 1);
}

static int parse(const char *text, char *msg, size_t size)
{
	struct summary *s = NULL;
	int err = summary_read__parse(text, strlen(text), "x.json", &s, msg, size);

	summary_read__free(s);
	return err;
}

static void test_schema(void **state)
{
	char msg[256];

	(void)state;
	assert_int_equal(
	    parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\"}", msg, sizeof(msg)),
	    0);
	/* An older or newer minor reads; unknown fields are ignored. */
	assert_int_equal(parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.7\","
			       "\"future\":{\"x\":1}}",
			       msg, sizeof(msg)),
			 0);
	assert_int_equal(
	    parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"2.0\"}", msg, sizeof(msg)),
	    -EPROTO);
	assert_non_null(strstr(msg, "2.0"));
	assert_non_null(strstr(msg, "1.x"));
	assert_non_null(strstr(msg, "x.json"));
	assert_int_equal(
	    parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"0.9\"}", msg, sizeof(msg)),
	    -EPROTO);
	assert_int_equal(
	    parse("{\"schema\":\"other\",\"schema_version\":\"1.0\"}", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "\"other\""));
	assert_int_equal(parse("{\"schema_version\":\"1.0\"}", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(
	    parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"one\"}", msg, sizeof(msg)),
	    -EINVAL);
	assert_int_equal(parse("", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "empty"));
	assert_int_equal(parse("{\"schema\":\"gpuperf-summary\",\"sche", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "invalid JSON"));
	assert_int_equal(parse("[]", msg, sizeof(msg)), -EINVAL);
	/* Wrong types are named. */
	assert_int_equal(parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
			       "\"kernels\":[{\"name\":\"k\",\"total_ns\":\"12\"}]}",
			       msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "kernels[0]"));
	assert_non_null(strstr(msg, "total_ns"));
	assert_int_equal(parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
			       "\"kernels\":{}}",
			       msg, sizeof(msg)),
			 -EINVAL);
	assert_int_equal(parse("{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
			       "\"kernels\":[{\"count\":1}]}",
			       msg, sizeof(msg)),
			 -EINVAL);
}

static void test_writers(void **state)
{
	struct summary *b[1] = {mk(1000000, 500000)}, *n[1] = {mk(1200000, 500000)};
	char buf[16384];
	struct diff_opts o;
	struct diff_result *r;
	FILE *f;

	(void)state;
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(diff__write_text(r, f, true), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\033[1;31mregression"));
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(diff__write_text(r, f, false), 0);
	fclose(f);
	assert_null(strchr(buf, '\033'));
	assert_non_null(strstr(buf, "FAIL: 2 regressions")); /* the kernel and GPU busy */
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(diff__write_markdown(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ":x: performance regression"));
	assert_non_null(strstr(buf, "`" K1 "`"));
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(diff__write_json(r, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"result\":\t\"regression\""));
	diff_result__free(r);
	free_all(b, 1);
	free_all(n, 1);
}

/* Totals above 2^63 (and 2^53, where doubles round) are read and diffed exactly. */
static void test_huge_totals(void **state)
{
	const uint64_t big = (1ull << 63) + 9, big2 = (1ull << 63) + 1000009;
	struct summary *b[1] = {mk(big, 3)}, *n[1] = {mk(big2, 3)};
	const struct diff_row *w;
	char buf[16384], want[64];
	struct diff_opts o;
	struct diff_result *r;
	FILE *f;

	(void)state;
	assert_true(b[0]->n_kernels >= 1);
	assert_int_equal(b[0]->kernels[0].total_ns, big);
	assert_int_equal(b[0]->kernels[0].mean_ns, big / 10);
	assert_int_equal(b[0]->gpu_busy_ns, big + 3);
	diff_opts__init(&o);
	r = run(b, 1, n, 1, &o);
	w = find(r, DIFF_KERNEL, K1);
	assert_non_null(w);
	assert_int_equal(w->base, big);
	assert_int_equal(w->new_, big2);
	assert_int_equal(w->delta, 1000000);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(diff__write_json(r, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "\"base_ns\":\t%llu,", (unsigned long long)big);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "\"new_ns\":\t%llu,", (unsigned long long)big2);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "\"delta_ns\":\t1000000,"));
	diff_result__free(r);
	free_all(b, 1);
	free_all(n, 1);
}

/* A total above 2^64-1 is an error, not a wrapped or clamped number. */
static void test_total_too_big(void **state)
{
	const char *text = "{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
			   "\"kernels\":[{\"name\":\"k\",\"count\":1,"
			   "\"total_ns\":18446744073709551616}]}";
	struct summary *s = NULL;
	char err[256];

	(void)state;
	assert_int_equal(summary_read__parse(text, strlen(text), "t", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "total_ns"));
	/* written as a double (as summary.json writes totals above 2^53): read, not clamped */
	text = "{\"schema\":\"gpuperf-summary\",\"schema_version\":\"1.0\","
	       "\"kernels\":[{\"name\":\"k\",\"count\":1,\"total_ns\":1e19}]}";
	assert_int_equal(summary_read__parse(text, strlen(text), "t", &s, err, sizeof(err)), 0);
	assert_int_equal(s->kernels[0].total_ns, 10000000000000000000ull);
	summary_read__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slower_kernel_flagged),
		cmocka_unit_test(test_small_change_passes),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_even_runs_median),
		cmocka_unit_test(test_new_and_gone),
		cmocka_unit_test(test_metric_thresholds),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_min_time),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_launch_config_change),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_huge_totals),
		cmocka_unit_test(test_total_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
