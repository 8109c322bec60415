// SPDX-License-Identifier: Apache-2.0
/*
 * test_offcpu: off-CPU time per blocking stack (sleep, pipe read, condition
 * variable, a write that blocks three times in one system call) within 5% of
 * the truth.
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

#include "agent_harness.h"
#include "bpf_print.h"
#include "bpf_require.h"

#define TEST_NAME "test_offcpu"

static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

static uint64_t stdout_value(const char *dir, const char *key)
{
	char path[4200], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ' ')
			v = strtoull(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Off-CPU time of @tid inside the "condwin" windows; most of it (>= 90%)
 * under one leaf frame, the futex wait of pthread_cond_wait. On a busy
 * machine the rest is the mutex handoff (a different futex wait) or
 * preemption, which the windows include too.
 */
static uint64_t cond_by_window(const char *dir, const struct harness_trace *t, uint32_t tid)
{
	char path[4200], line[256];
	uint64_t sum = 0, leaf[8] = { 0 }, leaf_ns[8] = { 0 }, best = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "condwin %llu %llu", &a, &b) != 2)
			continue;
		for (size_t i = 0; i < t->n; i++) {
			const struct harness_rec *x = &t->r[i];

			uint64_t ip;
			int k;

			if (x->type != GP_REC_OFFCPU || x->tid != tid || x->t0 < a || x->t1 > b)
				continue;
			ip = x->nr_user ? x->ips[0] : 0;
			for (k = 0; k < 7 && leaf[k] && leaf[k] != ip; k++)
				;
			leaf[k] = ip;
			leaf_ns[k] += x->t1 - x->t0;
			sum += x->t1 - x->t0;
		}
	}
	fclose(f);
	for (int k = 0; k < 8; k++)
		if (leaf[k] && leaf_ns[k] > best)
			best = leaf_ns[k];
	assert_true(best >= sum * 9 / 10); /* one blocking stack */
	return sum;
}

static void check_blocker(bool raw_tp)
{
	struct cpu_agent_opts o = { .off_cpu = true, .min_block_us = 1000, .no_kallsyms = true,
				    .force_raw_tp = raw_tp };
	char *argv[] = { (char *)BLOCKER, NULL };
	static const char *const kinds[] = { "sleep", "pipe", "cond", "fullpipe" };
	static const char *const funcs[] = { "do_sleep", "do_pipe", "do_condvar", "do_fullpipe" };
	/* funcs[2] is not found under a libc without frame pointers: see below */
	enum { NKINDS = 4 };
	uint64_t got[NKINDS] = { 0 }, other = 0;
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	uint32_t tid;
	int status, err, kstacks = 0, spans = 0;

	harness__mkdtemp(dir, sizeof(dir), "offcpu");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, BLOCKER), 0);
	tid = (uint32_t)stdout_value(dir, "tid");

	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		int k;

		if (x->type != GP_REC_OFFCPU || x->tid != tid)
			continue;
		spans++;
		if (x->nr_kernel)
			kstacks++;
		for (k = 0; k < NKINDS && !harness__stack_has(&y, &t, x, funcs[k]); k++)
			;
		if (k < NKINDS)
			got[k] += x->t1 - x->t0;
		else
			other += x->t1 - x->t0;
	}
	fprintf(stderr, "%s: %d spans of the main thread, %d with kernel stack, not under a do_* frame %llu ns\n",
		raw_tp ? "raw_tp" : "tp_btf", spans, kstacks, (unsigned long long)other);
	/*
	 * Debian's glibc has no frame pointers and pthread_cond_wait's futex
	 * path uses %rbp as a plain register, so the frame-pointer walk ends
	 * at the libc frame that made the syscall: the condvar wait's blocking
	 * stack is that one frame, with no frame of the program under it. So
	 * take the spans inside the waits' time windows, check that they share
	 * one blocking stack, and check their time.
	 */
	if (!got[2])
		got[2] = cond_by_window(dir, &t, tid);
	/*
	 * fullpipe's write blocks three times before it returns: the first two
	 * spans are still waiting for their sys_exit when the thread switches
	 * out again, and must get the write's user stack there, not none.
	 */
	for (int k = 0; k < NKINDS; k++) {
		uint64_t truth = stdout_value(dir, kinds[k]);
		double ratio = truth ? (double)got[k] / (double)truth : 0;

		fprintf(stderr, "  %-8s truth %9llu ns, off-CPU %-22s %9llu ns (%.3f)\n", kinds[k],
			(unsigned long long)truth, k != 2 ? funcs[k] : "in the waits' windows",
			(unsigned long long)got[k], ratio);
		assert_true(truth > 0);
		assert_true(ratio > 0.95 && ratio < 1.05);
	}
	if (!raw_tp)
		assert_true(kstacks >= spans * 9 / 10);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_blocking_stacks(void **state)
{
	check_blocker(false);
}

static void test_blocking_stacks_raw_tp(void **state)
{
	check_blocker(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocking_stacks),
		cmocka_unit_test(test_blocking_stacks_raw_tp),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
