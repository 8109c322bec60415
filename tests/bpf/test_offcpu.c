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
#include "offcpu.h"

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

/* The spans of @tid, to tell on a failure which block went missing. */
static void dump_spans(const struct harness_trace *t, uint32_t tid)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct harness_rec *x = &t->r[i];

		if (x->type == GP_REC_OFFCPU && x->tid == tid)
			fprintf(stderr, "    span %llu +%.3f ms flags %#x user %u kernel %u\n",
				(unsigned long long)x->t0, (double)(x->t1 - x->t0) / 1e6, x->flags,
				x->nr_user, x->nr_kernel);
	}
}

/* The longest block of the blocker (do_sleep), with margin: what one lost switch can cost. */
#define LONGEST_BLOCK_NS 45000000ull

/*
 * Record the blocker with @o (its fallbacks and injected faults: one in
 * offcpu_fault_every switches of kind offcpu_fault ignored at random), and
 * check the off-CPU time of each kind of block against the truth. Blocks
 * whose switch-out the tracer did not see are lost, but must be reported
 * (offcpu_missed): each may take one block off its kind's total. Returns
 * the agent's counters.
 */
static struct cpu_agent_stats check_blocker(struct cpu_agent_opts o)
{
	bool raw_tp = o.force_raw_tp;
	uint8_t fault = o.offcpu_fault;
	char *argv[] = { (char *)BLOCKER, NULL };
	static const char *const kinds[] = { "sleep", "pipe", "cond", "fullpipe" };
	static const char *const funcs[] = { "do_sleep", "do_pipe", "do_condvar", "do_fullpipe" };
	/* funcs[2] is not found under a libc without frame pointers: see below */
	enum { NKINDS = 4 };
	uint64_t got[NKINDS] = { 0 }, truth[NKINDS], other = 0, missed_in_trace = 0;
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	uint32_t tid;
	int status, err, kstacks = 0, spans = 0;
	bool ok = true;

	o.off_cpu = true;
	o.min_block_us = 1000;
	o.no_kallsyms = true;
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

		if (x->type != GP_REC_OFFCPU || x->tid != tid || (x->flags & GP_OFFCPU_AGGREGATE))
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
	fprintf(stderr, "%s%s%s: %d spans of the main thread, %d with kernel stack, "
			"not under a do_* frame %llu ns; repaired %llu, missed %llu, lost %llu\n",
		raw_tp ? "raw_tp" : "tp_btf", o.force_no_iters ? " without task iterators" : "",
		fault == OFFCPU_FAULT_SWITCH_IN	   ? " (switch-ins ignored)"
		: fault == OFFCPU_FAULT_SWITCH_OUT ? " (switch-outs ignored)"
						   : "",
		spans, kstacks, (unsigned long long)other, (unsigned long long)st.offcpu_repaired,
		(unsigned long long)st.offcpu_missed, (unsigned long long)st.lost_offcpu);
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
		double ratio, low;

		truth[k] = stdout_value(dir, kinds[k]);
		assert_true(truth[k] > 0);
		ratio = (double)got[k] / (double)truth[k];
		low = 0.95 - (double)(st.offcpu_missed * LONGEST_BLOCK_NS) / (double)truth[k];
		fprintf(stderr, "  %-8s truth %9llu ns, off-CPU %-22s %9llu ns (%.3f)\n", kinds[k],
			(unsigned long long)truth[k], k != 2 ? funcs[k] : "in the waits' windows",
			(unsigned long long)got[k], ratio);
		if (!(ratio > low && ratio < 1.05))
			ok = false;
	}
	if (!ok)
		dump_spans(&t, tid);
	assert_true(ok);
	/* the blocks lost are in the trace too, for the report's "drops" */
	for (size_t i = 0; i < t.n; i++)
		if (t.r[i].type == GP_REC_DROPPED && t.r[i].source == GP_DROP_OFFCPU_MISSED)
			missed_in_trace += t.r[i].count;
	assert_int_equal(missed_in_trace, st.offcpu_missed);
	if (!raw_tp && !fault)
		assert_true(kstacks >= spans * 9 / 10);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
	return st;
}

static void test_blocking_stacks(void **state)
{
	struct cpu_agent_stats st = check_blocker((struct cpu_agent_opts){ 0 });

	assert_true(st.offcpu_iters);
}

static void test_blocking_stacks_raw_tp(void **state)
{
	check_blocker((struct cpu_agent_opts){ .force_raw_tp = true });
}

/*
 * A kernel without task iterators (or whose verifier refuses the sleepable
 * one): the programs load without them and every kind's time is still
 * right; only blocks in progress at start and stop go unwritten.
 */
static void test_blocking_stacks_no_iters(void **state)
{
	struct cpu_agent_stats st = check_blocker((struct cpu_agent_opts){ .force_no_iters = true });

	assert_false(st.offcpu_iters);
}

/*
 * One in three switch-ins of the blocker's threads not shown (the main thread
 * has 30 blocks): each of those blocks is repaired at the thread's sys_exit or, inside the write that
 * blocks three times, at its next switch-out (ended at its wake-up), so
 * every kind's time is still within 5%.
 */
static void test_missed_switch_ins(void **state)
{
	struct cpu_agent_stats st = check_blocker(
		(struct cpu_agent_opts){ .offcpu_fault = OFFCPU_FAULT_SWITCH_IN, .offcpu_fault_every = 3 });

	assert_true(st.offcpu_repaired > 0);
	assert_int_equal(st.offcpu_missed, 0);
}

static void test_missed_switch_ins_raw_tp(void **state)
{
	struct cpu_agent_stats st = check_blocker((struct cpu_agent_opts){
		.force_raw_tp = true, .offcpu_fault = OFFCPU_FAULT_SWITCH_IN, .offcpu_fault_every = 3 });

	assert_true(st.offcpu_repaired > 0);
	assert_int_equal(st.offcpu_missed, 0);
}

/*
 * One in three switch-outs not shown: those blocks cannot be rebuilt, but
 * each is reported in offcpu_missed (at the thread's wake-up), which the
 * check's bound on the lost time uses: unreported losses still fail it.
 */
static void test_missed_switch_outs(void **state)
{
	struct cpu_agent_stats st = check_blocker(
		(struct cpu_agent_opts){ .offcpu_fault = OFFCPU_FAULT_SWITCH_OUT, .offcpu_fault_every = 3 });

	assert_true(st.offcpu_missed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocking_stacks),
		cmocka_unit_test(test_blocking_stacks_raw_tp),
		cmocka_unit_test(test_blocking_stacks_no_iters),
		cmocka_unit_test(test_missed_switch_ins),
		cmocka_unit_test(test_missed_switch_ins_raw_tp),
		cmocka_unit_test(test_missed_switch_outs),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
