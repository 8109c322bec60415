// SPDX-License-Identifier: Apache-2.0
/* test_cpu_sample: the agent's on-CPU samples land in the known hot function, on the right threads and processes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_harness.h"
#include "bpf_print.h"
#include "bpf_require.h"

#define TEST_NAME "test_cpu_sample"

static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

struct run {
	char dir[4096];
	struct harness_trace t;
	struct harness_syms y;
	struct cpu_agent_stats st;
	int status;
	double cpu_s;	/* CPU time the program (and its waited-for children) used */
};

static void run_burn(struct run *r, const char *tag, uint32_t hz, char *const argv[])
{
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = hz, .no_kallsyms = true };
	int err;

	harness__mkdtemp(r->dir, sizeof(r->dir), tag);
	o.dir = r->dir;
	struct rusage ru = { 0 };

	err = harness__run_ru(&o, argv, NULL, &r->status, &r->st, &ru);
	r->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	assert_int_equal(harness__load(r->dir, &r->t), 0);
	assert_true(r->t.clean_end);
	assert_int_equal(harness__syms_load(&r->y, CPU_BURN), 0);
}

static void run_done(struct run *r)
{
	harness__free(&r->t);
	harness__syms_free(&r->y);
	harness__rmrf(r->dir);
}

/* Samples of @pid (0: any) in burn_hot under burn_outer under burn_worker: returns total, *hot set. */
static int count_hot(struct run *r, uint32_t pid, int *hot, int *user_samples)
{
	int n = 0;

	*hot = 0;
	*user_samples = 0;
	for (size_t i = 0; i < r->t.n; i++) {
		const struct harness_rec *x = &r->t.r[i];
		const char *leaf;

		if (x->type != GP_REC_CPU_SAMPLE || (pid && x->pid != pid))
			continue;
		n++;
		if (!x->nr_user)
			continue;
		(*user_samples)++;
		leaf = harness__sym(&r->y, &r->t, x->pid, x->ips[0]);
		if (leaf && strcmp(leaf, "burn_hot") == 0 &&
		    harness__stack_has(&r->y, &r->t, x, "burn_outer") &&
		    harness__stack_has(&r->y, &r->t, x, "burn_worker"))
			(*hot)++;
	}
	return n;
}

static uint32_t read_stdout_value(const char *dir, const char *key, uint32_t *vals, int max)
{
	char path[4200], line[256];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t kl = strlen(key);

		if (strncmp(line, key, kl) == 0 && line[kl] == ' ' && (int)n < max)
			vals[n++] = (uint32_t)strtoul(line + kl + 1, NULL, 10);
	}
	fclose(f);
	return n;
}

static void test_hot_function(void **state)
{
	char *argv[] = { (char *)CPU_BURN, (char *)"-s", (char *)"1.5", NULL };
	struct run r = { 0 };
	int n, hot, user, dropped_seen = 0, mod_ok = 0, pairs = 0;

	run_burn(&r, "oncpu", 999, argv);
	n = count_hot(&r, 0, &hot, &user);
	fprintf(stderr, "samples %d (user %d), in burn_hot<-burn_outer<-burn_worker: %d (%.1f%%), sw clock %d\n",
		n, user, hot, user ? 100.0 * hot / user : 0.0, r.st.sw_clock);
	if (hot < 0.9 * n) {
		for (size_t i = 0, shown = 0; i < r.t.n; i++) {
			const struct harness_rec *x = &r.t.r[i];

			if (x->type == GP_REC_MODULE)
				fprintf(stderr, "module %u %lx-%lx %lx %s\n", x->pid,
					(unsigned long)x->start, (unsigned long)x->end,
					(unsigned long)x->pgoff, x->path);
			if (x->type == GP_REC_CPU_SAMPLE && shown++ < 3)
				for (int k = 0; k < x->nr_user + x->nr_kernel; k++)
					fprintf(stderr, "  %d: %lx %s\n", k, (unsigned long)x->ips[k],
						harness__sym(&r.y, &r.t, x->pid, x->ips[k]) ?: "?");
		}
	}
	/*
	 * One sample per 1/999 s of CPU time the program got (on a busy
	 * machine that is less than its 1.5 s of wall time).
	 */
	fprintf(stderr, "cpu time %.3f s: %.0f samples expected\n", r.cpu_s, r.cpu_s * 999);
	assert_true(n >= 0.8 * r.cpu_s * 999 && n <= 1.2 * r.cpu_s * 999 + 10);
	assert_true(hot >= 0.9 * n);
	for (size_t i = 0; i < r.t.n; i++) {
		const struct harness_rec *x = &r.t.r[i];

		if (x->type == GP_REC_DROPPED && x->source == GP_DROP_RINGBUF_SAMPLE)
			dropped_seen = 1;
		if (x->type == GP_REC_MODULE && strstr(x->path, "cpu_burn") && x->build_id_size == 20)
			mod_ok = 1;
		if (x->type == GP_REC_CLOCK_PAIR)
			pairs++;
	}
	assert_true(dropped_seen); /* written at stop even when 0: never silent */
	assert_true(mod_ok);
	run_done(&r);
}

static void test_threads(void **state)
{
	char *argv[] = { (char *)CPU_BURN, (char *)"-t", (char *)"2", (char *)"-s", (char *)"1", NULL };
	uint32_t tids[8];
	int per_tid[8] = { 0 };
	struct run r = { 0 };
	int n, hot, user, ntids;

	run_burn(&r, "threads", 499, argv);
	ntids = (int)read_stdout_value(r.dir, "tid", tids, 8);
	assert_int_equal(ntids, 2);
	n = count_hot(&r, 0, &hot, &user);
	assert_true(hot >= 0.9 * n);
	for (size_t i = 0; i < r.t.n; i++) {
		const struct harness_rec *x = &r.t.r[i];
		int k;

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user ||
		    !harness__stack_has(&r.y, &r.t, x, "burn_hot"))
			continue;
		for (k = 0; k < ntids && tids[k] != x->tid; k++)
			;
		assert_true(k < ntids); /* burning samples come only from the burning threads */
		per_tid[k]++;
	}
	fprintf(stderr, "tid %u: %d samples, tid %u: %d samples\n", tids[0], per_tid[0], tids[1],
		per_tid[1]);
	/* both threads burn the same time: neither gets less than a third of the samples */
	assert_true(n >= 0.8 * r.cpu_s * 499);
	assert_true(per_tid[0] * 3 > n && per_tid[1] * 3 > n);
	run_done(&r);
}

static void test_fork(void **state)
{
	char *argv[] = { (char *)CPU_BURN, (char *)"-f", (char *)"-s", (char *)"1", NULL };
	struct run r = { 0 };
	uint32_t child;
	int n, hot, user, fork_rec = 0, exit_rec = 0;

	run_burn(&r, "fork", 499, argv);
	assert_int_equal(read_stdout_value(r.dir, "child", &child, 1), 1);
	n = count_hot(&r, child, &hot, &user);
	fprintf(stderr, "child %u: %d samples, %d hot\n", child, n, hot);
	/* the child's CPU time is in the parent's rusage (it waited for it) */
	assert_true(n >= 0.8 * r.cpu_s * 499);
	assert_true(hot >= 0.9 * n);
	for (size_t i = 0; i < r.t.n; i++) {
		const struct harness_rec *x = &r.t.r[i];

		if (x->type == GP_REC_PROCESS && x->pid == child && x->event == GP_PROC_FORK)
			fork_rec = 1;
		if (x->type == GP_REC_PROCESS && x->pid == child && x->event == GP_PROC_EXIT)
			exit_rec = 1;
	}
	assert_true(fork_rec && exit_rec);
	run_done(&r);
}

/* CPU time used so far by @pid, from /proc/PID/stat (clock ticks). */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st),
			 2);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* --pid: attach to a process that is already running (no barrier). */
static void test_attach_running(void **state)
{
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = 499, .no_kallsyms = true };
	struct harness_trace t;
	struct harness_syms y;
	struct cpu_agent *a;
	char dir[4096];
	int status, n = 0, hot = 0, info = 0;
	struct rusage ru;
	double cpu0, cpu1;
	pid_t pid;

	harness__mkdtemp(dir, sizeof(dir), "attach");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(CPU_BURN, CPU_BURN, "-s", "1.2", (char *)NULL);
		_exit(127);
	}
	usleep(200 * 1000); /* running, and past exec */
	o.dir = dir;
	o.pids = &pid;
	o.nr_pids = 1;
	a = cpu_agent__new(&o);
	if (!a) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		bpf_require__errno(TEST_NAME, -errno);
	}
	assert_non_null(a);
	assert_int_equal(cpu_agent__start(a), 0);
	cpu0 = proc_cpu_s(pid);
	while (wait4(pid, &status, WNOHANG, &ru) != pid)
		cpu_agent__poll(a, 50);
	cpu1 = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	assert_int_equal(cpu_agent__stop(a), 0);
	cpu_agent__free(a);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, CPU_BURN), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_PROCESS && x->pid == (uint32_t)pid && x->event == GP_PROC_INFO)
			info = 1;
		if (x->type != GP_REC_CPU_SAMPLE || x->pid != (uint32_t)pid)
			continue;
		n++;
		hot += harness__stack_has(&y, &t, x, "burn_hot") &&
		       harness__stack_has(&y, &t, x, "burn_outer");
	}
	fprintf(stderr, "attached to running %d: %d samples, %d hot, %.3f s CPU after attach\n", pid,
		n, hot, cpu1 - cpu0);
	assert_true(info);	/* the process as found at attach */
	/* one sample per 1/499 s of CPU it used after the attach (/proc ticks: 4 ms) */
	assert_true(n >= 0.8 * (cpu1 - cpu0 - 0.02) * 499);
	assert_true(n >= 50);
	assert_true(hot >= 0.9 * n);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_function),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_attach_running),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
