// SPDX-License-Identifier: Apache-2.0
/* test_agent_modes: what to follow (tids, system-wide, CPUs, user/kernel threads), block-time limits, thread exits, blocks open at the ends. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_harness.h"
#include "bpf_print.h"
#include "bpf_require.h"

#define TEST_NAME "test_agent_modes"

static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

/* The value of line "KEY N" in DIR/stdout, 0 if none. */
static uint64_t out_value(const char *dir, const char *key)
{
	char path[4200], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ' ')
			v = strtoull(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

static bool out_ready(const char *dir)
{
	char path[4200], line[256];
	bool ready = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		ready |= strcmp(line, "ready\n") == 0;
	fclose(f);
	return ready;
}

enum follow { FOLLOW_PID, FOLLOW_TID, FOLLOW_NONE };

/*
 * Run "thread_prog MODE": wait for its "ready", start the agent with @o and
 * the pid (FOLLOW_PID), the tid printed under @tid_key (FOLLOW_TID) or
 * nothing added (FOLLOW_NONE: system_wide), send it the go byte, poll until
 * it exits, stop. 0 or the agent's -errno.
 */
static int run_prog(const struct cpu_agent_opts *base, const char *mode, enum follow how,
		    const char *tid_key, struct cpu_agent_stats *st)
{
	struct cpu_agent_opts o = *base;
	char out[4200], *argv[] = { (char *)THREAD_PROG, (char *)mode, NULL };
	struct timespec ms = { 0, 1000000 };
	struct cpu_agent *a = NULL;
	int in[2], status, err = 0;
	pid_t pid, tid;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	snprintf(out, sizeof(out), "%s/stdout", base->dir);
	unlink(out); /* a previous run's "ready" */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(in[0], 0);
		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	for (int i = 0; i < 5000 && !out_ready(base->dir); i++)
		nanosleep(&ms, NULL);
	assert_true(out_ready(base->dir));
	tid = tid_key ? (pid_t)out_value(base->dir, tid_key) : 0;
	if (how == FOLLOW_PID) {
		o.pids = &pid;
		o.nr_pids = 1;
	} else if (how == FOLLOW_TID) {
		assert_true(tid > 0);
		o.tids = &tid;
		o.nr_tids = 1;
	}
	a = cpu_agent__new(&o);
	if (!a) {
		err = -errno;
		goto out;
	}
	err = cpu_agent__start(a);
	if (err)
		goto out;
	assert_int_equal(write(in[1], "g", 1), 1);
	for (;;) {
		int r = cpu_agent__poll(a, 50);

		if (r < 0 && r != -EINTR) {
			err = r;
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = 0;
			break;
		}
	}
	if (!err)
		err = cpu_agent__stop(a);
	if (st)
		cpu_agent__stats(a, st);
out:
	close(in[1]); /* a child still waiting for go reads EOF and exits */
	if (pid > 0)
		waitpid(pid, &status, 0);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cpu_agent__free(a);
	return err;
}

/* Is @pid a kernel thread? 1 yes, 0 no, -1 gone (PF_KTHREAD, field 9 of /proc/PID/stat). */
static int is_kthread(uint32_t pid)
{
	char path[64], buf[1024], *s;
	unsigned long flags = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	s = strrchr(buf, ')');
	if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return -1;
	return (flags & 0x00200000) != 0;
}

/* ---- kernel symbols, for the off-CPU kernel stacks ------------------------ */

struct ksym {
	uint64_t addr;
	char name[256];
};

static struct ksym *ksyms;
static size_t nksyms;

static int cmp_ksym(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static void ksyms_load(void)
{
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T')
			continue;
		assert_int_equal(GP_ALLOC_GROW(ksyms, nksyms + 1, cap), 0);
		ksyms[nksyms].addr = addr;
		memcpy(ksyms[nksyms].name, name, sizeof(name));
		nksyms++;
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
}

static const char *ksym(uint64_t ip)
{
	size_t lo = 0, hi = nksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? ksyms[lo - 1].name : "";
}

/*
 * Does the kernel stack of @r hold @name? bpf_get_task_stack() leaves out
 * the scheduler's own frames (schedule, do_nanosleep: __sched functions),
 * so a blocked stack begins at the function that called into them.
 */
static bool kstack_has(const struct harness_rec *r, const char *name)
{
	for (int i = 0; i < r->nr_kernel; i++)
		if (!strcmp(ksym(r->ips[r->nr_user + i] - (i ? 1 : 0)), name))
			return true;
	return false;
}

/* ---- tests ------------------------------------------------------------------ */

/* tids: only the spinning thread's samples; only the sleeper's off-CPU time, all of it. */
static void test_tids(void **state)
{
	struct cpu_agent_opts o = { .on_cpu = true, .off_cpu = true, .freq_hz = 499,
				    .no_kallsyms = true };
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	uint64_t spin, sleeper, truth, off = 0;
	size_t samples = 0, in_spin = 0, spans = 0, procs = 0;
	int err;

	harness__mkdtemp(dir, sizeof(dir), "tids");
	o.dir = dir;
	err = run_prog(&o, "spin_sleep", FOLLOW_TID, "spin_tid", NULL);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	spin = out_value(dir, "spin_tid");
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, THREAD_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_CPU_SAMPLE) {
			assert_int_equal(x->tid, spin);
			samples++;
			in_spin += harness__stack_has(&y, &t, x, "spin_here");
		} else if (x->type == GP_REC_OFFCPU) {
			assert_int_equal(x->tid, spin);
		} else if (x->type == GP_REC_PROCESS && x->event == GP_PROC_INFO) {
			procs++;
		}
	}
	fprintf(stderr, "tids: spinner %llu: %zu samples, %zu in spin_here\n",
		(unsigned long long)spin, samples, in_spin);
	assert_true(samples >= 100); /* 1 s of its CPU time at 499 Hz, less on a throttled PMU */
	assert_true(in_spin >= samples * 9 / 10);
	assert_int_equal(procs, 1); /* its process, for symbolization */
	harness__free(&t);

	err = run_prog(&o, "spin_sleep", FOLLOW_TID, "sleep_tid", NULL);
	assert_int_equal(err, 0);
	sleeper = out_value(dir, "sleep_tid");
	truth = out_value(dir, "sleep_ns");
	assert_int_equal(harness__load(dir, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_CPU_SAMPLE || x->type == GP_REC_OFFCPU)
			assert_int_equal(x->tid, sleeper);
		if (x->type == GP_REC_OFFCPU && !(x->flags & GP_OFFCPU_AGGREGATE)) {
			/*
			 * Its 40 sleeps (a span sent before its syscall returned has no
			 * user stack); a preemption has the user stack too, but is no sleep.
			 */
			spans += x->state && harness__stack_has(&y, &t, x, "sleep_here");
			off += x->t1 - x->t0;
		}
	}
	fprintf(stderr, "tids: sleeper %llu: %zu spans, %llu ns off-CPU, truth %llu ns\n",
		(unsigned long long)sleeper, spans, (unsigned long long)off,
		(unsigned long long)truth);
	assert_true(spans >= 36 && spans <= 40);
	assert_true(off > truth * 95 / 100 && off < truth * 105 / 100);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

/* Pinned spinners on CPU 0 and 1: each CPU's samples are its spinner's. */
static void check_cpu(int cpu)
{
	struct cpu_agent_opts o = { .on_cpu = true, .off_cpu = true, .freq_hz = 499,
				    .no_kallsyms = true };
	struct cpu_agent_stats st;
	struct harness_trace t;
	char dir[4096], key[16];
	size_t samples = 0, mine = 0, spans = 0;
	uint64_t tid;
	int err;

	harness__mkdtemp(dir, sizeof(dir), "cpus");
	o.dir = dir;
	o.cpus = &cpu;
	o.nr_cpus = 1;
	err = run_prog(&o, "pinned", FOLLOW_PID, NULL, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	/* the task iterators load with a CPU filter too: blocks in progress are read */
	assert_true(st.offcpu_iters);
	snprintf(key, sizeof(key), "cpu%d_tid", cpu);
	tid = out_value(dir, key);
	assert_int_equal(harness__load(dir, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_CPU_SAMPLE) {
			assert_int_equal(x->cpu, cpu);
			samples++;
			mine += x->tid == tid;
		} else if (x->type == GP_REC_OFFCPU && !(x->flags & GP_OFFCPU_AGGREGATE)) {
			assert_int_equal(x->cpu, cpu);
			spans++;
		}
	}
	fprintf(stderr, "cpus={%d}: %zu samples, %zu of tid %llu; %zu off-CPU spans\n", cpu,
		samples, mine, (unsigned long long)tid, spans);
	assert_true(samples >= 100);
	assert_true(mine >= samples * 9 / 10);
	harness__free(&t);
	harness__rmrf(dir);
}

static void test_cpus(void **state)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	check_cpu(1);
	check_cpu(0);
}

/* System-wide: a process named by nobody shows up, with its process record. */
static void test_system_wide(void **state)
{
	struct cpu_agent_opts o = { .system_wide = true, .on_cpu = true, .off_cpu = true,
				    .freq_hz = 499, .user_threads_only = true };
	struct cpu_agent_stats st;
	struct harness_trace t;
	char dir[4096], path[4200];
	uint32_t pids[64];
	size_t npids = 0, spin_samples = 0, kt = 0;
	uint64_t child;
	bool proc_rec = false;
	int err;

	harness__mkdtemp(dir, sizeof(dir), "sysw");
	o.dir = dir;
	err = run_prog(&o, "procs", FOLLOW_NONE, NULL, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	child = out_value(dir, "child");
	assert_true(child > 0);
	assert_int_equal(harness__load(dir, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		size_t k;

		if (x->type == GP_REC_PROCESS && x->pid == child && !strcmp(x->comm, "thread_prog"))
			proc_rec = true;
		if (x->type != GP_REC_CPU_SAMPLE && x->type != GP_REC_OFFCPU)
			continue;
		if (x->type == GP_REC_CPU_SAMPLE && x->pid == child)
			spin_samples++;
		for (k = 0; k < npids && pids[k] != x->pid; k++)
			;
		if (k == npids && npids < 64) {
			pids[npids++] = x->pid;
			kt += is_kthread(x->pid) == 1;
		}
	}
	fprintf(stderr, "system-wide: %zu pids (%zu kernel threads), %zu samples of the child "
			"%llu, %llu process records, %llu dropped\n",
		npids, kt, spin_samples, (unsigned long long)child,
		(unsigned long long)st.procs, (unsigned long long)st.procs_dropped);
	assert_true(npids >= 2);
	assert_true(spin_samples >= 100);
	assert_true(proc_rec);
	assert_int_equal(kt, 0); /* user_threads_only */
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	assert_int_equal(access(path, R_OK), 0);
	harness__free(&t);
	harness__rmrf(dir);
}

/* System-wide, kernel threads only: no user process, no user frame. */
static void test_kernel_threads(void **state)
{
	struct cpu_agent_opts o = { .system_wide = true, .on_cpu = true, .off_cpu = true,
				    .freq_hz = 499, .kernel_threads_only = true,
				    .no_kallsyms = true };
	struct harness_trace t;
	char dir[4096];
	size_t events = 0, kt = 0, user = 0;
	int err;

	harness__mkdtemp(dir, sizeof(dir), "kthr");
	o.dir = dir;
	err = run_prog(&o, "procs", FOLLOW_NONE, NULL, NULL);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_int_equal(harness__load(dir, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		int k;

		if (x->type != GP_REC_CPU_SAMPLE && x->type != GP_REC_OFFCPU)
			continue;
		events++;
		assert_int_equal(x->nr_user, 0);
		k = is_kthread(x->pid);
		kt += k == 1;
		user += k == 0;
	}
	fprintf(stderr, "kernel threads only: %zu events, %zu of live kernel threads, %zu of "
			"user processes\n", events, kt, user);
	assert_true(kt >= 1);
	assert_int_equal(user, 0);
	harness__free(&t);
	harness__rmrf(dir);
}

/*
 * max_block_us: the 50 ms sleeps go, the 5 ms ones stay, with user and
 * kernel stacks; the 100 us ones are summed; every thread's exit is recorded.
 */
static void test_block_limits(void **state)
{
	struct cpu_agent_opts o = { .off_cpu = true, .max_block_us = 20000, .no_kallsyms = true };
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	uint64_t lt, stid, tt, tiny, short_sum = 0, tiny_sum = 0, nspans = 0;
	size_t long_spans = 0, short_spans = 0, full = 0, sched = 0, exits = 0, aggs = 0;
	/* sched: spans whose kernel stack has the syscall's blocking function */
	int err;

	harness__mkdtemp(dir, sizeof(dir), "block");
	o.dir = dir;
	err = run_prog(&o, "blocks", FOLLOW_PID, NULL, NULL);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	lt = out_value(dir, "long_tid");
	stid = out_value(dir, "short_tid");
	tt = out_value(dir, "tiny_tid");
	tiny = out_value(dir, "tiny_ns");
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, THREAD_PROG), 0);
	ksyms_load();
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_THREAD && x->event == GP_PROC_EXIT &&
		    (x->tid == lt || x->tid == stid || x->tid == tt))
			exits++;
		if (x->type != GP_REC_OFFCPU)
			continue;
		if (x->flags & GP_OFFCPU_AGGREGATE) {
			assert_int_equal(x->nr_user + x->nr_kernel, 0);
			aggs++;
			if (x->tid == tt) {
				tiny_sum += x->t1 - x->t0;
				nspans += x->nr_spans;
			}
			continue;
		}
		assert_true(x->t1 - x->t0 <= 20000000ull);
		if (x->tid == tt)
			tiny_sum += x->t1 - x->t0; /* a nap that took over 1 ms */
		if (x->tid == lt && x->t1 - x->t0 > 40000000ull)
			long_spans++;
		if (x->tid == stid && harness__stack_has(&y, &t, x, "short_sleeper")) {
			short_spans++;
			short_sum += x->t1 - x->t0;
			full += x->nr_user > 0 && x->nr_kernel > 0;
			sched += kstack_has(x, "hrtimer_nanosleep");
		}
	}
	fprintf(stderr, "blocks: %zu long spans, %zu short spans (%zu with both stacks, %zu "
			"in hrtimer_nanosleep), %zu thread exits, %zu aggregates; tiny sleeps %llu ns "
			"in %llu blocks, truth %llu ns\n",
		long_spans, short_spans, full, sched, exits, aggs, (unsigned long long)tiny_sum,
		(unsigned long long)nspans, (unsigned long long)tiny);
	assert_int_equal(long_spans, 0);
	assert_true(short_spans >= 55);
	assert_true(full >= short_spans * 9 / 10);
	assert_true(sched >= short_spans * 9 / 10);
	assert_int_equal(exits, 3);
	assert_true(nspans >= 250); /* a few 100 us naps take over 1 ms: spans */
	/*
	 * The truth also holds the syscalls' own time, and under 1 ms may be left
	 * unsummed; the sum also has the thread's preemptions on a busy machine.
	 */
	assert_true(tiny_sum > tiny * 75 / 100 && tiny_sum < tiny * 150 / 100);
	free(ksyms);
	ksyms = NULL;
	nksyms = 0;
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_bad_modes(void **state)
{
	char msg[256] = "";
	struct cpu_agent_opts o = { .dir = "/tmp", .on_cpu = true, .errbuf = msg,
				    .errlen = sizeof(msg) };
	pid_t self = getpid(), missing = 0;
	int cpu = 4096, pid_max = 4194304;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	char path[64];

	if (f) {
		if (fscanf(f, "%d", &pid_max) != 1)
			pid_max = 4194304;
		fclose(f);
	}
	for (pid_t p = pid_max - 1; p > 1 && !missing; p--) {
		snprintf(path, sizeof(path), "/proc/%d", p);
		if (access(path, F_OK))
			missing = p;
	}
	o.tids = &missing;
	o.nr_tids = 1;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, ESRCH);
	snprintf(path, sizeof(path), "no thread %d:", missing);
	fprintf(stderr, "missing tid: %s\n", msg);
	assert_non_null(strstr(msg, path));

	o.tids = NULL;
	o.nr_tids = 0;
	o.pids = &missing;
	o.nr_pids = 1;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, ESRCH);
	snprintf(path, sizeof(path), "no process %d:", missing);
	assert_non_null(strstr(msg, path));

	o.pids = &self;
	o.tids = &self;
	o.nr_tids = 1;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);
	fprintf(stderr, "pids + tids: %s\n", msg);
	assert_non_null(strstr(msg, "exclude"));

	o.tids = NULL;
	o.nr_tids = 0;
	o.system_wide = true;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);

	o.system_wide = false;
	o.cpus = &cpu;
	o.nr_cpus = 1;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);
	fprintf(stderr, "bad cpu: %s\n", msg);
	assert_non_null(strstr(msg, "bad CPU 4096"));

	o.nr_cpus = 0;
	o.kernel_threads_only = true;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(msg, "system_wide"));

	o.kernel_threads_only = false;
	o.min_block_us = 5000;
	o.max_block_us = 1000;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A child blocked in read() on a pipe until a byte comes on *wfd; it then exits 0. */
static pid_t fork_waiter(int *wfd)
{
	int p[2];
	pid_t child;
	char c;

	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	*wfd = p[1];
	return child;
}

/*
 * attach_running on a process blocked on a pipe before the agent starts and
 * after it stops: one span, as long as the recording, with its stacks.
 */
static void open_span(bool raw)
{
	struct cpu_agent_opts o = { .off_cpu = true, .no_kallsyms = true,
				    .attach_running = true, .force_raw_tp = raw };
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct cpu_agent *a;
	uint64_t t0, ts, t1, span = 0;
	size_t spans = 0;
	char dir[4096];
	int wfd, status;
	pid_t child;

	harness__mkdtemp(dir, sizeof(dir), raw ? "open_raw" : "open");
	child = fork_waiter(&wfd);
	usleep(100 * 1000); /* blocked in read() by now */
	o.dir = dir;
	o.pids = &child;
	o.nr_pids = 1;
	a = cpu_agent__new(&o);
	bpf_require__errno(TEST_NAME, a ? 0 : -errno);
	assert_non_null(a);
	t0 = mono_ns();
	assert_int_equal(cpu_agent__start(a), 0);
	ts = mono_ns();
	while (mono_ns() - ts < 300 * 1000000ull)
		cpu_agent__poll(a, 50);
	assert_int_equal(cpu_agent__stop(a), 0);
	t1 = mono_ns();
	cpu_agent__stats(a, &st);
	cpu_agent__free(a);
	assert_int_equal(write(wfd, "x", 1), 1);
	close(wfd);
	waitpid(child, &status, 0);

	assert_int_equal(harness__load(dir, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type != GP_REC_OFFCPU || (x->flags & GP_OFFCPU_AGGREGATE) ||
		    x->tid != (uint32_t)child)
			continue;
		spans++;
		span = x->t1 - x->t0;
		assert_true(x->nr_user >= 1);	/* at least the IP it entered the kernel from */
		assert_true(x->nr_kernel >= 1);	/* the task iterator reads it in both modes */
	}
	fprintf(stderr, "open span (%s): %zu spans, %.3f s of a %.3f s recording\n",
		raw ? "raw_tp" : "tp_btf", spans, (double)span / 1e9, (double)(t1 - t0) / 1e9);
	assert_int_equal(spans, 1);
	assert_int_equal(st.offcpu_open, 1);
	/* from inside __start to inside __stop: all of the 300 ms between them, at least */
	assert_true(span >= 299 * 1000000ull && span <= t1 - t0);
	harness__free(&t);
	harness__rmrf(dir);
}

/*
 * A named process (or thread) that exits after cpu_agent__new checked it
 * and before __start attached the tracker left no exit event: __start
 * notes it as gone, so that a -p/-t recording does not wait for it.
 */
static void test_gone_at_start(void **state)
{
	for (int tids = 0; tids < 2; tids++) {
		struct cpu_agent_opts o = { .off_cpu = true, .no_kallsyms = true,
					    .attach_running = true };
		const struct cpu_agent_exit *ex;
		struct cpu_agent *a;
		char dir[4096];
		int wfd, status;
		pid_t child;
		size_t n;

		(void)state;
		harness__mkdtemp(dir, sizeof(dir), "gone");
		child = fork_waiter(&wfd);
		o.dir = dir;
		if (tids) {
			o.tids = &child;
			o.nr_tids = 1;
		} else {
			o.pids = &child;
			o.nr_pids = 1;
		}
		a = cpu_agent__new(&o);
		bpf_require__errno(TEST_NAME, a ? 0 : -errno);
		assert_non_null(a);
		/* it exits, and is reaped, between the check and the attach */
		assert_int_equal(write(wfd, "x", 1), 1);
		close(wfd);
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_int_equal(cpu_agent__start(a), 0);
		ex = cpu_agent__exits(a, &n);
		assert_int_equal(n, 1);
		assert_int_equal(ex[0].pid, child);
		assert_true(ex[0].unseen);
		if (!tids)
			assert_int_equal(cpu_agent__alive(a), 0);
		assert_int_equal(cpu_agent__stop(a), 0);
		cpu_agent__free(a);
		harness__rmrf(dir);
	}
}

static void test_open_spans(void **state)
{
	open_span(false);
	open_span(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_modes),
		cmocka_unit_test(test_tids),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_kernel_threads),
		cmocka_unit_test(test_block_limits),
		cmocka_unit_test(test_open_spans),
		cmocka_unit_test(test_gone_at_start),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
