// SPDX-License-Identifier: Apache-2.0
/*
 * test_cfi_stack: on-CPU user stacks unwound with CFI (the default)
 * reach main and the thread's start routine in a program built without
 * frame pointers, through Debian's libc (qsort calling back into the
 * program); a frame-pointer walk of the same program does not. A frameless
 * leaf under two callers (-O2 -fno-omit-frame-pointer) gives both towers.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_harness.h"
#include "bpf_require.h"

#define TEST_NAME "test_cfi_stack"
#define HZ 499

struct tally {
	int main_n, main_root;		/* main thread's samples; of them, reaching _start via main */
	int thr_n, thr_root;		/* the other thread's; of them, reaching thread_main */
	int cmp;			/* samples whose leaf is the comparator */
	struct cpu_agent_stats st;
};

static const char *outermost(const struct harness_syms *y, const struct harness_trace *t,
			     const struct harness_rec *x)
{
	return x->nr_user ? harness__sym(y, t, x->pid, x->ips[x->nr_user - 1] - 1) : NULL;
}

static const char *module_of(const struct harness_trace *t, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].type == GP_REC_MODULE && t->r[i].pid == pid && ip >= t->r[i].start &&
		    ip < t->r[i].end)
			return t->r[i].path;
	return "(no module)";
}

static void run(const char *unwind, struct tally *c)
{
	char *argv[] = { (char *)CFI_PROG, (char *)"1", NULL };
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = HZ, .no_kallsyms = true };
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	int status, err, shown = 0;

	memset(c, 0, sizeof(*c));
	setenv("GPUPERF_UNWIND", unwind ? unwind : "fp", 1);
	harness__mkdtemp(dir, sizeof(dir), "cfi");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, &st);
	unsetenv("GPUPERF_UNWIND");
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, CFI_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		const char *leaf, *out;
		int ok;

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
			continue;
		if (strstr(module_of(&t, x->pid, x->ips[x->nr_user - 1]), TEST_NAME))
			continue; /* the harness's child before its exec */
		if (strstr(module_of(&t, x->pid, x->ips[x->nr_user - 1]), "/ld-linux"))
			continue; /* ld.so loading the program, before its _start */
		leaf = harness__sym(&y, &t, x->pid, x->ips[0]);
		c->cmp += leaf && !strcmp(leaf, "cmp_slow");
		out = outermost(&y, &t, x);
		if (x->tid == x->pid) {
			ok = out && !strcmp(out, "_start") && harness__stack_has(&y, &t, x, "main");
			c->main_n++;
			c->main_root += ok;
		} else {
			ok = harness__stack_has(&y, &t, x, "thread_main");
			c->thr_n++;
			c->thr_root += ok;
		}
		if (!ok && unwind && shown++ < 3) {
			fprintf(stderr, "cut short (tid %u):\n", x->tid);
			for (int k = 0; k < x->nr_user; k++)
				fprintf(stderr, "  %d: %#lx %s %s\n", k, (unsigned long)x->ips[k],
					harness__sym(&y, &t, x->pid, x->ips[k] - (k ? 1 : 0)) ?: "?",
					module_of(&t, x->pid, x->ips[k]));
		}
	}
	fprintf(stderr, "%s: main thread %d/%d reach _start, thread %d/%d reach thread_main, leaf cmp_slow %d\n",
		unwind ? unwind : "fp", c->main_root, c->main_n, c->thr_root, c->thr_n, c->cmp);
	fprintf(stderr, "%s: agent unwinds %llu, tables %u, files without CFI %u, ends:",
		unwind ? unwind : "fp", (unsigned long long)st.unwinds, st.unwind_tables,
		st.unwind_files_no_cfi);
	for (int k = 0; k < CPU_AGENT_UNWIND_ENDS; k++)
		fprintf(stderr, " %s %llu", cpu_agent__unwind_end_name(k),
			(unsigned long long)st.unwind_ends[k]);
	fprintf(stderr, "\n");
	c->st = st;
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_qsort_no_frame_pointers(void **state)
{
	struct tally cfi, fp;

	(void)state;
	run("cfi", &cfi);
	/*
	 * ~HZ samples a second of CPU per thread (a second of wall time: fewer
	 * on a loaded machine); some land before main or in clock_gettime
	 */
	assert_true(cfi.main_n >= HZ / 10 && cfi.thr_n >= HZ / 10);
	assert_true(cfi.cmp >= (cfi.main_n + cfi.thr_n) / 4);
	/*
	 * >= 99%, or at most 2 samples of a thread taken in clone3/start_thread
	 * before thread_main, or in exit after main
	 */
	assert_true(cfi.main_root >= 0.99 * cfi.main_n || cfi.main_n - cfi.main_root <= 2);
	assert_true(cfi.thr_root >= 0.99 * cfi.thr_n || cfi.thr_n - cfi.thr_root <= 2);
	/* the agent's count of stacks by end reason: as many as it wrote, nearly all whole */
	assert_true(cfi.st.unwinds >= (uint64_t)(cfi.main_n + cfi.thr_n));
	assert_true(cfi.st.unwinds <= cfi.st.samples);
	assert_true(cfi.st.unwind_ends[0] >= cfi.st.unwinds * 97 / 100);
	assert_true(cfi.st.unwind_tables >= 3); /* the program, libc, ld.so */

	/* the frame-pointer walk loses the callers above libc: why CFI is needed */
	run(NULL, &fp);
	assert_true(fp.main_root < 0.5 * fp.main_n);
	assert_int_equal(fp.st.unwinds, 0);
}

/*
 * Samples of leaf_prog whose leaf is leaf_spin: how many, and how many have
 * caller_a and caller_b under it.
 */
static void run_leaf(const char *unwind, const char *rounds, int *n, int *a, int *b)
{
	char *argv[] = { (char *)LEAF_PROG, (char *)rounds, NULL };
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = 997, .no_kallsyms = true };
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	int status, err;

	*n = *a = *b = 0;
	setenv("GPUPERF_UNWIND", unwind ? unwind : "fp", 1);
	harness__mkdtemp(dir, sizeof(dir), "leaf");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, NULL);
	unsetenv("GPUPERF_UNWIND");
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, LEAF_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		const char *leaf;

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
			continue;
		leaf = harness__sym(&y, &t, x->pid, x->ips[0]);
		if (!leaf || strcmp(leaf, "leaf_spin"))
			continue;
		(*n)++;
		*a += harness__stack_has(&y, &t, x, "caller_a");
		*b += harness__stack_has(&y, &t, x, "caller_b");
	}
	fprintf(stderr, "%s: leaf_spin %d samples, under caller_a %d (%.1f%%), caller_b %d (%.1f%%)\n",
		unwind ? unwind : "fp", *n, *a, *n ? 100.0 * *a / *n : 0.0, *b,
		*n ? 100.0 * *b / *n : 0.0);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

/*
 * A frameless leaf (gcc -O2 -fno-omit-frame-pointer) under two callers,
 * 80/20: CFI gives both towers in that ratio, within 3 points; the
 * frame-pointer walk skips the leaf's caller and merges them.
 */
static void test_leaf_two_callers(void **state)
{
	int n, a, b;

	(void)state;
	/* ~2 s of CPU, ~2000 samples: the ratio's standard error is about 1 point */
	run_leaf("cfi", "2000", &n, &a, &b);
	assert_true(n >= 1500);
	assert_true(a + b >= n * 99 / 100);
	assert_true(fabs(100.0 * a / n - 80.0) <= 3.0);
	assert_true(fabs(100.0 * b / n - 20.0) <= 3.0);

	run_leaf(NULL, "300", &n, &a, &b);
	assert_true(a + b < n / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qsort_no_frame_pointers),
		cmocka_unit_test(test_leaf_two_callers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
