// SPDX-License-Identifier: Apache-2.0
/*
 * test_pprof.c - profile.pb.gz: known stacks written out and decoded again by
 * check_pprof.py (its own protobuf decoder, and protoc --decode_raw when installed).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pprof.h"
#include "stack_agg.h"

static char dir[64];

#define F(n, k)                                                                                    \
	{                                                                                          \
		.name = (n), .kind = (k)                                                           \
	}

static void add(struct stack_agg *agg, const struct stack_frame *f, size_t n, uint64_t w)
{
	assert_int_equal(stack_agg__add(agg, f, n, w), 0);
}

static void check(const char *file, const char *args)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' %s", CHECK_PPROF, file, args);
	rc = system(cmd);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
		skip();
	assert_int_equal(rc, 0);
}

static void test_three_views(void **state)
{
	const struct stack_frame matmul[] = {F("main", GP_FRAME_CPU), F("train_step", GP_FRAME_CPU),
					     F("matmul_host", GP_FRAME_CPU)};
	const struct stack_frame sysread[] = {F("main", GP_FRAME_CPU),
					      F("sys_read", GP_FRAME_KERNEL_CPU)};
	const struct stack_frame off[] = {F("main", GP_FRAME_CPU), F("train_step", GP_FRAME_CPU),
					  F("cudaStreamSynchronize", GP_FRAME_CPU),
					  F("[off-cpu]", GP_FRAME_OFFCPU)};
	const struct stack_frame sgemm[] = {F("main", GP_FRAME_CPU), F("train_step", GP_FRAME_CPU),
					    F("[gpu] sgemm<float>", GP_FRAME_GPU_KERNEL)};
	const struct stack_frame copy[] = {F("main", GP_FRAME_CPU), F("train_step", GP_FRAME_CPU),
					   F("[memcpy HtoD]", GP_FRAME_GPU_MEMCPY)};
	struct stack_agg *cpu = stack_agg__new(), *offcpu = stack_agg__new(),
			 *gpu = stack_agg__new();
	struct pprof_view v[3] = {
	    {cpu, "cpu", "nanoseconds"},
	    {offcpu, "off_cpu", "nanoseconds"},
	    {gpu, "gpu", "nanoseconds"},
	};
	struct pprof_opts o = {
	    .time_nanos = 1700000000123456789ULL,
	    .duration_nanos = 5000000000ULL,
	    .period = 10101010,
	};
	char path[128];

	(void)state;
	assert_non_null(cpu);
	assert_non_null(offcpu);
	assert_non_null(gpu);
	add(cpu, matmul, 3, 2000);
	add(cpu, matmul, 3, 1000);
	add(cpu, matmul, 2, 1000);
	add(cpu, sysread, 2, 500);
	add(cpu, NULL, 0, 10); /* no stack at all */
	add(offcpu, off, 4, 7000);
	add(gpu, sgemm, 3, 20000);
	add(gpu, copy, 3, 4000);

	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	assert_int_equal(pprof__write(v, 3, &o, path), 0);
	/*
	 * 9 frame identities: main, train_step, matmul_host, sys_read_[k],
	 * cudaStreamSynchronize, [off-cpu], [gpu] sgemm<float>, [memcpy HtoD],
	 * [unknown stack]; samples: 4 cpu, 1 off-cpu, 2 gpu.
	 */
	check(path,
	      "--samples 7 --functions 9 --locations 9 --types cpu,off_cpu,gpu --default gpu "
	      "--total cpu=4510 --total off_cpu=7000 --total gpu=24000 "
	      "--name 'sys_read_[k]' --name '[gpu] sgemm<float>' --name '[unknown stack]' "
	      "--stack 'cpu=main;train_step;matmul_host=3000' --stack 'cpu=main;train_step=1000' "
	      "--stack 'cpu=main;sys_read_[k]=500' --stack 'cpu=[unknown stack]=10' "
	      "--stack 'off_cpu=main;train_step;cudaStreamSynchronize;[off-cpu]=7000' "
	      "--stack 'gpu=main;train_step;[gpu] sgemm<float>=20000' "
	      "--stack 'gpu=main;train_step;[memcpy HtoD]=4000' "
	      "--time 1700000000123456789 --duration 5000000000 --period 10101010");

	/* Without GPU time the default is the first view with weight; an explicit one wins. */
	v[2].agg = NULL;
	assert_int_equal(pprof__write(v, 3, NULL, path), 0);
	check(path, "--samples 5 --default cpu --total gpu=0");
	o.default_sample_type = "off_cpu";
	assert_int_equal(pprof__write(v, 3, &o, path), 0);
	check(path, "--default off_cpu");

	stack_agg__free(cpu);
	stack_agg__free(offcpu);
	stack_agg__free(gpu);
}

/* Many distinct frames and a deep stack: the tables and the path grow. */
static void test_large(void **state)
{
	struct stack_frame f[300];
	char names[300][16];
	struct stack_agg *agg = stack_agg__new();
	struct pprof_view v = {agg, "cpu", "nanoseconds"};
	char path[128];
	size_t i;

	(void)state;
	assert_non_null(agg);
	for (i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%zu", i);
		f[i].name = names[i];
		f[i].kind = GP_FRAME_CPU;
	}
	add(agg, f, 300, 1);
	for (i = 1; i <= 3000; i++) {
		char leaf[32];
		struct stack_frame s[2] = {F("root", GP_FRAME_CPU), F(leaf, GP_FRAME_CPU)};

		snprintf(leaf, sizeof(leaf), "leaf%zu", i);
		add(agg, s, 2, i);
	}
	snprintf(path, sizeof(path), "%s/large.pb.gz", dir);
	assert_int_equal(pprof__write(&v, 1, NULL, path), 0);
	check(path, "--samples 3001 --functions 3301 --total cpu=4501501 --default cpu "
		    "--stack 'cpu=root;leaf3000=3000'");
	stack_agg__free(agg);
}

static void test_errors(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct pprof_view v = {agg, "cpu", "nanoseconds"}, bad = {agg, NULL, "nanoseconds"};
	const struct stack_frame a[] = {F("a", GP_FRAME_CPU)}, b[] = {F("b", GP_FRAME_CPU)};
	char path[128];

	(void)state;
	assert_non_null(agg);
	snprintf(path, sizeof(path), "%s/err.pb.gz", dir);
	assert_int_equal(pprof__write(NULL, 1, NULL, path), -EINVAL);
	assert_int_equal(pprof__write(&v, 0, NULL, path), -EINVAL);
	assert_int_equal(pprof__write(&v, PPROF_MAX_VIEWS + 1, NULL, path), -EINVAL);
	assert_int_equal(pprof__write(&v, 1, NULL, NULL), -EINVAL);
	assert_int_equal(pprof__write(&bad, 1, NULL, path), -EINVAL);
	assert_int_equal(pprof__write(&v, 1, NULL, "/nonexistent/dir/p.pb.gz"), -ENOENT);

	/* An empty aggregation is a valid, empty profile. */
	assert_int_equal(pprof__write(&v, 1, NULL, path), 0);
	check(path, "--samples 0 --functions 0 --types cpu --default cpu");

	/* pprof values are int64: a weight past INT64_MAX fails and leaves no file. */
	add(agg, a, 1, (uint64_t)INT64_MAX);
	add(agg, b, 1, 1);
	assert_int_equal(pprof__write(&v, 1, NULL, path), 0);
	add(agg, a, 1, 1);
	assert_int_equal(pprof__write(&v, 1, NULL, path), -EOVERFLOW);
	assert_int_equal(access(path, F_OK), -1);
	stack_agg__free(agg);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_pprof_XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_three_views),
	    cmocka_unit_test(test_large),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
