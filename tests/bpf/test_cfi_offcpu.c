// SPDX-License-Identifier: Apache-2.0
/*
 * test_cfi_offcpu: off-CPU spans unwound with CFI (the default). A
 * program built with frame pointers blocks in nanosleep, read of a pipe,
 * pthread_cond_wait and std::condition_variable::wait (Debian's libc and
 * libstdc++ have none): the function that waited is under each blocking
 * stack; and two threads spinning on one CPU, each preempted by the other,
 * have the spinning function in the stacks of their runnable spans. A
 * frame-pointer walk loses the condition-variable waits' callers and has
 * no user stack for preempted spans. Blocks still in progress when the
 * recording stops, in a program without frame pointers, are unwound with
 * CFI too: whole, through the function that waited.
 */
#include <errno.h>
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

#define TEST_NAME "test_cfi_offcpu"
#define NKINDS 4

static const char *const kinds[NKINDS] = { "sleep", "pipe", "cond", "cxx" };
static const char *const funcs[NKINDS] = { "wait_sleep", "wait_pipe", "wait_cond", "wait_cxx" };

struct tally {
	uint64_t in_win[NKINDS];	/* off-CPU ns of the main thread in each kind's waits */
	uint64_t under[NKINDS];		/* of it, under that kind's wait_* function */
	uint64_t spin, spin_under;	/* spinning threads' off-CPU ns; of it, under spin_loop */
};

static void run(const char *unwind, struct tally *c)
{
	char *argv[] = { (char *)WAIT_PROG, NULL };
	struct cpu_agent_opts o = { .off_cpu = true, .min_block_us = 200, .no_kallsyms = true };
	uint32_t main_tid = 0, spin_tid[2] = { 0, 0 };
	struct { int k; uint64_t a, b; } win[64];
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096], path[4200], line[256], kind[16];
	int status, err, nwin = 0, nspin = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	setenv("GPUPERF_UNWIND", unwind ? unwind : "fp", 1);
	harness__mkdtemp(dir, sizeof(dir), "cfioff");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, &st);
	unsetenv("GPUPERF_UNWIND");
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, WAIT_PROG), 0);

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		unsigned int tid;

		if (sscanf(line, "main %u", &tid) == 1)
			main_tid = tid;
		else if (sscanf(line, "spin %u", &tid) == 1 && nspin < 2)
			spin_tid[nspin++] = tid;
		else if (sscanf(line, "win %15s %llu %llu", kind, &a, &b) == 3 && nwin < 64)
			for (int k = 0; k < NKINDS; k++)
				if (!strcmp(kind, kinds[k]))
					win[nwin++] = (typeof(win[0])){ k, a, b };
	}
	fclose(f);
	assert_true(main_tid && nspin == 2 && nwin == 16);

	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		uint64_t d = x->t1 - x->t0;

		if (x->type != GP_REC_OFFCPU || (x->flags & GP_OFFCPU_AGGREGATE))
			continue;
		if (x->tid == spin_tid[0] || x->tid == spin_tid[1]) {
			c->spin += d;
			c->spin_under += harness__stack_has(&y, &t, x, "spin_loop") ? d : 0;
			continue;
		}
		if (x->tid != main_tid)
			continue;
		for (int w = 0; w < nwin; w++) {
			if (x->t0 < win[w].a || x->t1 > win[w].b)
				continue;
			c->in_win[win[w].k] += d;
			if (harness__stack_has(&y, &t, x, funcs[win[w].k]))
				c->under[win[w].k] += d;
		}
	}
	for (int k = 0; k < NKINDS; k++)
		fprintf(stderr, "%s: %-5s %9llu ns off-CPU in its waits, %5.1f%% under %s\n",
			unwind ? unwind : "fp", kinds[k], (unsigned long long)c->in_win[k],
			c->in_win[k] ? 100.0 * (double)c->under[k] / (double)c->in_win[k] : 0.0,
			funcs[k]);
	fprintf(stderr, "%s: spinning threads %llu ns runnable, %.1f%% under spin_loop; "
			"preempted spans without user stack %llu\n",
		unwind ? unwind : "fp", (unsigned long long)c->spin,
		c->spin ? 100.0 * (double)c->spin_under / (double)c->spin : 0.0,
		(unsigned long long)st.offcpu_ustack_lost);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_waits_and_preemption(void **state)
{
	struct tally cfi, fp;

	(void)state;
	run("cfi", &cfi);
	for (int k = 0; k < NKINDS; k++) {
		/* 4 waits of 20 ms each; the rest of a window is the waker's start-up */
		assert_true(cfi.in_win[k] >= 50000000ull);
		assert_true(cfi.under[k] >= cfi.in_win[k] * 95 / 100);
	}
	/* two threads on one CPU for 0.3 s: each waits for the other's slices */
	assert_true(cfi.spin >= 50000000ull);
	assert_true(cfi.spin_under >= cfi.spin * 9 / 10);

	/* the frame-pointer walk: why CFI is needed */
	run(NULL, &fp);
	assert_true(fp.under[2] < fp.in_win[2] / 2);
	assert_true(fp.spin_under == 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct open_tally {
	int spans;		/* block_prog's spans with a user stack */
	int main_whole;		/* the main thread's: root, through wait_cond and main */
	int thr_whole;		/* the other's: root, through wait_read and thread_main */
	uint64_t open;		/* the agent's count of spans cut at stop */
};

/*
 * block_prog, blocked before the agent attaches (attach_running) and still
 * blocked when it stops: each thread's one span is cut at stop.
 */
static void run_open(const char *unwind, struct open_tally *c)
{
	struct cpu_agent_opts o = { .off_cpu = true, .no_kallsyms = true, .attach_running = true };
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	struct cpu_agent *a;
	char dir[4096], buf[16];
	int in[2], out[2], status;
	uint64_t ts;
	pid_t child;

	memset(c, 0, sizeof(*c));
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(BLOCK_PROG, BLOCK_PROG, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	assert_true(read(out[0], buf, sizeof(buf)) > 0);
	usleep(100 * 1000); /* both threads blocked by now */
	harness__mkdtemp(dir, sizeof(dir), "cfiopen");
	o.dir = dir;
	o.pids = &child;
	o.nr_pids = 1;
	setenv("GPUPERF_UNWIND", unwind ? unwind : "fp", 1);
	a = cpu_agent__new(&o);
	unsetenv("GPUPERF_UNWIND");
	if (!a) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		bpf_require__errno(TEST_NAME, -errno);
	}
	assert_non_null(a);
	assert_int_equal(cpu_agent__start(a), 0);
	ts = mono_ns();
	while (mono_ns() - ts < 300 * 1000000ull)
		cpu_agent__poll(a, 50);
	assert_int_equal(cpu_agent__stop(a), 0);
	cpu_agent__stats(a, &st);
	cpu_agent__free(a);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	close(in[1]);
	close(out[0]);

	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, BLOCK_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		bool root = GP_STACK_END_OF(x->flags) == GP_STACK_END_ROOT;

		if (x->type != GP_REC_OFFCPU || (x->flags & GP_OFFCPU_AGGREGATE) ||
		    x->pid != (uint32_t)child || !x->nr_user)
			continue;
		c->spans++;
		if (x->tid == x->pid)
			c->main_whole += root && harness__stack_has(&y, &t, x, "wait_cond") &&
					 harness__stack_has(&y, &t, x, "main");
		else
			c->thr_whole += root && harness__stack_has(&y, &t, x, "wait_read") &&
					harness__stack_has(&y, &t, x, "thread_main");
	}
	c->open = st.offcpu_open;
	fprintf(stderr, "%s: open at stop %llu, spans %d, main thread's whole %d, thread's %d\n",
		unwind ? unwind : "fp", (unsigned long long)c->open, c->spans, c->main_whole,
		c->thr_whole);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_open_at_stop(void **state)
{
	struct open_tally cfi, fp;

	(void)state;
	run_open("cfi", &cfi);
	assert_true(cfi.open >= 2);
	assert_int_equal(cfi.spans, 2);
	assert_int_equal(cfi.main_whole, 1);
	assert_int_equal(cfi.thr_whole, 1);

	/* the frame-pointer walk stops in libc: why the copy is taken for these too */
	run_open(NULL, &fp);
	assert_true(fp.open >= 2);
	assert_int_equal(fp.main_whole + fp.thr_whole, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_and_preemption),
		cmocka_unit_test(test_open_at_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
