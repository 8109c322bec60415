// SPDX-License-Identifier: Apache-2.0
/*
 * test_pprof.c - profile.pb.gz: known mappings, locations (inline chains),
 * functions, samples and labels written out and decoded again by
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

static char dir[64];

static void check(const char *file, const char *args)
{
	char cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' %s", CHECK_PPROF, file, args);
	rc = system(cmd);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
		skip();
	assert_int_equal(rc, 0);
}

static const struct pprof_view views3[3] = {
	{ "cpu", "nanoseconds" },
	{ "off_cpu", "nanoseconds" },
	{ "gpu", "nanoseconds" },
};

#define LINE(n, f, l) { .name = (n), .file = (f), .line = (l), .resolved = true }

/* One process: a binary with inlined code, libc, the kernel, and GPU work on "[gpu]". */
static void test_three_views(void **state)
{
	static const uint8_t bid[4] = { 0xde, 0xad, 0x0b, 0xef };
	struct pprof_opts o = {
		.time_nanos = 1700000000123456789ULL,
		.duration_nanos = 5000000000ULL,
		.period = 10101010,
	};
	/* innermost first: square() and dot() inlined into matmul_host at 0x401234 */
	struct pprof_line inl[3] = {
		LINE("square", "/src/m.h", 3), LINE("dot", "/src/m.h", 9),
		LINE("matmul_host", "/src/m.c", 40),
	};
	struct pprof_line tmpl = LINE("void run<float>(int)", "/src/m.c", 20);
	struct pprof_line mainl = LINE("main", "/src/m.c", 60);
	struct pprof_line rd = { .name = "read", .resolved = true };
	struct pprof_line unk = { .name = "[libc.so.6+0x1234]" };
	struct pprof_line sysr = { .name = "sys_read", .resolved = true };
	struct pprof_line root = { .name = "train", .resolved = true };
	struct pprof_line kern = { .name = "[gpu] void k<float>(float*)", .system_name = "_Z1kIfEvPf",
				   .resolved = true };
	struct pprof_label lab[] = {
		{ .key = "pid", .num = 100 }, { .key = "tid", .num = 101 },
		{ .key = "thread", .str = "loader" }, { .key = "device", .num = 0 },
	};
	uint64_t exe, libc, kmap, self, gpu, l_main, l_inl, l_run, l_root, l_read, l_unk, l_sys, l_k;
	struct pprof *pp;
	char path[128];

	(void)state;
	tmpl.system_name = "_Z3runIfEvi";
	tmpl.start_line = 18;
	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	pp = pprof__open(path, views3, 3);
	assert_non_null(pp);
	exe = pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x400000, .limit = 0x500000,
			     .offset = 0, .file = "/bin/train", .build_id = bid, .build_id_size = 4 });
	libc = pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x7f0000, .limit = 0x800000,
			      .offset = 0x28000, .file = "/lib/libc.so.6" });
	kmap = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[kernel.kallsyms]", .cover = true });
	self = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[gpuperf]" });
	gpu = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[gpu]" });
	/* the same mapping again is the same id */
	assert_int_equal(pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x400000,
			 .limit = 0x500000, .file = "/bin/train", .build_id = bid,
			 .build_id_size = 4 }), exe);
	assert_int_equal(exe, 1);
	assert_int_equal(gpu, 5);

	l_root = pprof__location(pp, self, 0, &root, 1);
	l_main = pprof__location(pp, exe, 0x401000, &mainl, 1);
	l_run = pprof__location(pp, exe, 0x401100, &tmpl, 1);
	l_inl = pprof__location(pp, exe, 0x401234, inl, 3);
	l_read = pprof__location(pp, libc, 0x7f1000, &rd, 1);
	l_unk = pprof__location(pp, libc, 0x7f1234, &unk, 1);
	l_sys = pprof__location(pp, kmap, 0xffffffff81000000ull, &sysr, 1);
	l_k = pprof__location(pp, gpu, 0, &kern, 1);
	/* the same content is the same location */
	assert_int_equal(pprof__location(pp, exe, 0x401234, inl, 3), l_inl);
	assert_int_not_equal(pprof__location(pp, exe, 0x401234, inl + 1, 2), l_inl);

	{
		uint64_t s1[] = { l_inl, l_run, l_main, l_root };
		uint64_t s2[] = { l_sys, l_read, l_main, l_root };
		uint64_t s3[] = { l_unk, l_main, l_root };
		uint64_t s4[] = { l_k, l_run, l_main, l_root };

		assert_int_equal(pprof__sample(pp, s1, 4, 0, 3000, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s2, 4, 0, 500, lab, 2), 0);
		assert_int_equal(pprof__sample(pp, s2, 4, 1, 7000, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s3, 3, 1, 10, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s4, 4, 2, 20000, lab, 4), 0);
		assert_int_equal(pprof__sample(pp, s4, 4, 2, 0, lab, 4), 0); /* nothing */
		assert_int_equal(pprof__sample(pp, s4, 4, 3, 1, lab, 4), -EINVAL);
	}
	assert_int_equal(pprof__close(pp, &o, false), -EINVAL); /* the error is kept */
	assert_int_equal(access(path, F_OK), -1);

	pp = pprof__open(path, views3, 3);
	assert_non_null(pp);
	exe = pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x400000, .limit = 0x500000,
			     .offset = 0, .file = "/bin/train", .build_id = bid, .build_id_size = 4 });
	libc = pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x7f0000, .limit = 0x800000,
			      .offset = 0x28000, .file = "/lib/libc.so.6" });
	kmap = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[kernel.kallsyms]", .cover = true });
	self = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[gpuperf]" });
	gpu = pprof__mapping(pp, &(struct pprof_mapping){ .file = "[gpu]" });
	l_root = pprof__location(pp, self, 0, &root, 1);
	l_main = pprof__location(pp, exe, 0x401000, &mainl, 1);
	l_run = pprof__location(pp, exe, 0x401100, &tmpl, 1);
	l_inl = pprof__location(pp, exe, 0x401234, inl, 3);
	l_read = pprof__location(pp, libc, 0x7f1000, &rd, 1);
	l_unk = pprof__location(pp, libc, 0x7f1234, &unk, 1);
	l_sys = pprof__location(pp, kmap, 0xffffffff81000000ull, &sysr, 1);
	l_k = pprof__location(pp, gpu, 0, &kern, 1);
	{
		uint64_t s1[] = { l_inl, l_run, l_main, l_root };
		uint64_t s2[] = { l_sys, l_read, l_main, l_root };
		uint64_t s3[] = { l_unk, l_main, l_root };
		uint64_t s4[] = { l_k, l_run, l_main, l_root };

		assert_int_equal(pprof__sample(pp, s1, 4, 0, 3000, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s2, 4, 0, 500, lab, 2), 0);
		assert_int_equal(pprof__sample(pp, s2, 4, 1, 7000, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s3, 3, 1, 10, lab, 3), 0);
		assert_int_equal(pprof__sample(pp, s4, 4, 2, 20000, lab, 4), 0);
	}
	assert_int_equal(pprof__close(pp, &o, false), 0);
	/*
	 * 10 functions (square, dot, matmul_host, run, main, read, the libc
	 * placeholder, sys_read, train, the kernel), 8 locations, 5 samples.
	 */
	check(path,
	      "--samples 5 --functions 10 --locations 8 --types cpu,off_cpu,gpu --default gpu "
	      "--total cpu=3500 --total off_cpu=7010 --total gpu=20000 --addresses "
	      "--stack 'cpu=train;main;void run<float>(int);matmul_host;dot;square=3000' "
	      "--stack 'cpu=train;main;read;sys_read=500' "
	      "--stack 'off_cpu=train;main;[libc.so.6+0x1234]=10' "
	      "--stack 'gpu=train;main;void run<float>(int);[gpu] void k<float>(float*)=20000' "
	      "--line 'dot=/src/m.h:9' --line 'matmul_host=m.c:40' --line 'square=m.h:3' "
	      "--system-name '[gpu] void k<float>(float*)=_Z1kIfEvPf' "
	      "--system-name 'void run<float>(int)=_Z3runIfEvi' --system-name 'main=main' "
	      "--mapping '/bin/train=dead0bef' "
	      "--label cpu=pid --label gpu=device --tag cpu:thread=loader=3000 "
	      "--tag off_cpu:thread=loader=7010 --tag gpu:device=0=20000 --tag cpu:tid=101=3500 "
	      "--time 1700000000123456789 --duration 5000000000 --period 10101010");
	/* libc has no build id */
	check(path, "--build-ids >/dev/null 2>&1; test $? = 1");
}

/* Without GPU time the default is the first type with weight; an explicit one wins. */
static void test_default_type(void **state)
{
	struct pprof_line l = { .name = "f", .resolved = true };
	struct pprof_opts o = { .default_sample_type = "off_cpu" };
	char path[128];
	struct pprof *pp;
	uint64_t loc;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/default.pb.gz", dir);
	for (i = 0; i < 3; i++) {
		pp = pprof__open(path, views3, 3);
		assert_non_null(pp);
		loc = pprof__location(pp, pprof__mapping(pp, &(struct pprof_mapping){ .file = "[x]" }),
				      0, &l, 1);
		if (i)
			assert_int_equal(pprof__sample(pp, &loc, 1, 1, 5, NULL, 0), 0);
		assert_int_equal(pprof__close(pp, i == 2 ? &o : NULL, false), 0);
		check(path, i == 0 ? "--samples 0 --default cpu" : i == 1 ? "--samples 1 --default off_cpu"
									 : "--default off_cpu");
	}
}

/* Many distinct functions and locations and a deep sample: the tables grow. */
static void test_large(void **state)
{
	static uint64_t deep[3000];
	char name[32], path[128];
	struct pprof *pp;
	uint64_t map;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/large.pb.gz", dir);
	pp = pprof__open(path, views3, 1);
	assert_non_null(pp);
	map = pprof__mapping(pp, &(struct pprof_mapping){ .start = 0x1000, .limit = 0x100000,
			     .file = "/bin/big" });
	for (i = 0; i < 3000; i++) {
		struct pprof_line l = { .name = name, .file = "/src/big.c",
					.line = (uint32_t)i + 1, .resolved = true };

		snprintf(name, sizeof(name), "fn%zu", i % 1000);
		deep[i] = pprof__location(pp, map, 0x1000 + i, &l, 1);
		assert_int_equal(deep[i], i + 1);
		assert_int_equal(pprof__sample(pp, &deep[i], 1, 0, i + 1, NULL, 0), 0);
	}
	assert_int_equal(pprof__sample(pp, deep, 3000, 0, 1, NULL, 0), 0);
	assert_int_equal(pprof__close(pp, NULL, false), 0);
	check(path, "--samples 3001 --functions 1000 --locations 3000 --total cpu=4501501 "
		    "--default cpu --stack 'cpu=fn999=6000' --line 'fn5=big.c:2006' --addresses");
}

static void test_errors(void **state)
{
	struct pprof_view bad = { NULL, "nanoseconds" };
	struct pprof_line l = { .name = "a", .resolved = true };
	char path[128];
	struct pprof *pp;
	uint64_t loc;

	(void)state;
	snprintf(path, sizeof(path), "%s/err.pb.gz", dir);
	assert_null(pprof__open(path, NULL, 1));
	assert_int_equal(errno, EINVAL);
	assert_null(pprof__open(path, views3, 0));
	assert_null(pprof__open(path, views3, PPROF_MAX_VIEWS + 1));
	assert_null(pprof__open(NULL, views3, 1));
	assert_null(pprof__open(path, &bad, 1));
	assert_int_equal(errno, EINVAL);
	assert_null(pprof__open("/nonexistent/dir/p.pb.gz", views3, 1));
	assert_int_equal(errno, ENOENT);

	/* Nothing added is a valid, empty profile. */
	pp = pprof__open(path, views3, 1);
	assert_non_null(pp);
	assert_int_equal(pprof__close(pp, NULL, false), 0);
	check(path, "--samples 0 --functions 0 --types cpu --default cpu");

	/* A location of no mapping fails; so does everything after it. */
	pp = pprof__open(path, views3, 1);
	assert_non_null(pp);
	assert_int_equal(pprof__location(pp, 1, 0, &l, 1), 0);
	assert_int_equal(pprof__close(pp, NULL, false), -EINVAL);
	assert_int_equal(access(path, F_OK), -1);

	/* pprof values are int64: a total past INT64_MAX fails and leaves no file. */
	pp = pprof__open(path, views3, 1);
	assert_non_null(pp);
	loc = pprof__location(pp, pprof__mapping(pp, &(struct pprof_mapping){ .file = "[x]" }), 0,
			      &l, 1);
	assert_int_equal(pprof__sample(pp, &loc, 1, 0, (uint64_t)INT64_MAX, NULL, 0), 0);
	assert_int_equal(pprof__sample(pp, &loc, 1, 0, 1, NULL, 0), -EOVERFLOW);
	assert_int_equal(pprof__close(pp, NULL, false), -EOVERFLOW);
	assert_int_equal(access(path, F_OK), -1);

	/* Abandoned: no file, no error. */
	pp = pprof__open(path, views3, 1);
	assert_non_null(pp);
	assert_int_equal(pprof__close(pp, NULL, true), 0);
	assert_int_equal(access(path, F_OK), -1);
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
	    cmocka_unit_test(test_default_type),
	    cmocka_unit_test(test_large),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
