// SPDX-License-Identifier: Apache-2.0
/* test_proc_track: proc_track follows a real process tree (fork, exec, exit) and nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
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

#include "bpf_print.h"
#include "bpf_require.h"
#include "proc_track.h"
#include "proc_track_prog.h"

#define TEST_NAME "test_proc_track"
#define MAX_SEEN  1024

struct seen {
	struct proc_track_event ev[MAX_SEEN];
	int n;
	int overflow;
};

static int on_event(void *ctx, const struct proc_track_event *ev)
{
	struct seen *s = ctx;

	if (s->n == MAX_SEEN) {
		s->overflow = 1;
		return 0;
	}
	s->ev[s->n++] = *ev;
	return 0;
}

/* libbpf's messages: only warnings, and only to stderr, which CTest shows on failure. */
static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

/* The highest id of each kind of BPF object when the test began. */
static __u32 before[3];

static void mark(void)
{
	assert_int_equal(bpf_objects__mark(before), 0);
}

/* Objects of ours created since mark(). */
static int count_ours(int kind)
{
	int a = bpf_objects__count(kind, "ptrack_", before[kind]);
	int b = bpf_objects__count(kind, "proc_tra", before[kind]); /* libbpf's .rodata/.bss maps */

	assert_true(a >= 0 && b >= 0);
	return a + b;
}

/*
 * The kernel frees closed programs and maps after an RCU grace period (an
 * RCU tasks one for tracepoint links), so their ids linger for a moment,
 * seconds on a loaded machine: wait (up to 30 s) until none of ours created
 * since mark() is left. What an earlier test is still freeing does not count.
 */
static void assert_none_of_ours(void)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int k, n = 0;

	for (int tries = 0; tries < 3000; tries++) {
		for (k = 0, n = 0; k < 3; k++)
			n += count_ours(k);
		if (n == 0)
			return;
		nanosleep(&ts, NULL);
	}
	fail_msg("%d proc_track BPF objects still exist", n);
}

static const struct proc_track_event *find(const struct seen *s, uint32_t type, uint32_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->ev[i].type == type && s->ev[i].pid == pid)
			return &s->ev[i];
	return NULL;
}

static int index_of(const struct seen *s, const struct proc_track_event *e)
{
	return (int)(e - s->ev);
}

static pid_t waited(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/*
 * The tree: test (followed seed) -> child C -> grandchild G (exit 7);
 * C waits for G, then execs /bin/true (exit 0). Beside it, an unrelated
 * process P, forked before attach and so not followed, forks U (exit 3)
 * and exits 5 while we are attached: neither may appear.
 */
static void run_tree(bool force_raw_tp)
{
	int rel[2], ret;
	struct seen *s = calloc(1, sizeof(*s));
	struct proc_track_prog *p;
	struct proc_track_stats st;
	pid_t me = getpid(), c, g_pid, unrel;
	int gpipe[2];
	char b;

	assert_non_null(s);
	mark();

	assert_int_equal(pipe(rel), 0);
	unrel = fork();
	assert_true(unrel >= 0);
	if (unrel == 0) {
		pid_t u;

		close(rel[1]);
		if (read(rel[0], &b, 1) != 1)
			_exit(90);
		u = fork();
		if (u == 0)
			_exit(3);
		if (u < 0 || waitpid(u, NULL, 0) != u)
			_exit(91);
		_exit(5);
	}
	close(rel[0]);

	struct proc_track_opts opts = {
		.tgids = &me,
		.nr_tgids = 1,
		.force_raw_tp = force_raw_tp,
		.on_event = on_event,
		.ctx = s,
	};
	p = proc_track_prog__new(&opts);
	if (!p) {
		ret = -errno;
		kill(unrel, SIGKILL);
		waitpid(unrel, NULL, 0);
		bpf_require__errno(TEST_NAME, ret);
		fail_msg("proc_track_prog__new: %s", strerror(-ret));
	}
	assert_int_equal(proc_track_prog__uses_tp_btf(p), !force_raw_tp);
	assert_int_equal(proc_track_prog__attach(p), 0);

	/* C reports G's pid through a pipe so we can check the fork event's pid. */
	assert_int_equal(pipe(gpipe), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		pid_t g;

		close(gpipe[0]);
		g = fork();
		if (g == 0)
			_exit(7);
		if (g < 0 || write(gpipe[1], &g, sizeof(g)) != sizeof(g))
			_exit(92);
		close(gpipe[1]);
		if (waitpid(g, NULL, 0) != g)
			_exit(93);
		execl("/bin/true", "true", (char *)NULL);
		_exit(94);
	}
	close(gpipe[1]);
	assert_int_equal(read(gpipe[0], &g_pid, sizeof(g_pid)), sizeof(g_pid));
	close(gpipe[0]);
	ret = waited(c);
	assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);

	assert_int_equal(write(rel[1], "x", 1), 1);
	close(rel[1]);
	ret = waited(unrel);
	assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 5);

	/*
	 * Every event is in the ring buffer by now: each tracepoint fired
	 * before the waitpid() that reaped its process returned.
	 */
	for (int i = 0; i < 50 && !find(s, PROC_TRACK_EXIT, (uint32_t)c); i++)
		assert_true(proc_track_prog__poll(p, 100) >= 0);
	assert_true(proc_track_prog__consume(p) >= 0);
	proc_track_prog__stats(p, &st);
	assert_int_equal(st.lost_events, 0);
	assert_int_equal(st.lost_follows, 0);
	assert_false(s->overflow);

	const struct proc_track_event *fc = find(s, PROC_TRACK_FORK, (uint32_t)c);
	const struct proc_track_event *fg = find(s, PROC_TRACK_FORK, (uint32_t)g_pid);
	const struct proc_track_event *xg = find(s, PROC_TRACK_EXIT, (uint32_t)g_pid);
	const struct proc_track_event *ec = find(s, PROC_TRACK_EXEC, (uint32_t)c);
	const struct proc_track_event *xc = find(s, PROC_TRACK_EXIT, (uint32_t)c);

	assert_non_null(fc);
	assert_int_equal(fc->ppid, me);
	assert_int_equal(fc->tid, c);

	assert_non_null(fg); /* followed only because its parent C is */
	assert_int_equal(fg->ppid, c);
	assert_int_equal(fg->tid, g_pid);

	assert_non_null(xg);
	assert_true(WIFEXITED(xg->exit_status));
	assert_int_equal(WEXITSTATUS(xg->exit_status), 7);
	assert_int_equal(xg->tid, g_pid);

	assert_non_null(ec);
	assert_string_equal(ec->comm, "true");
	assert_string_equal(ec->filename, "/bin/true");
	assert_int_equal(ec->tid, c);
	assert_int_equal(ec->ppid, me);

	assert_non_null(xc);
	assert_true(WIFEXITED(xc->exit_status));
	assert_int_equal(WEXITSTATUS(xc->exit_status), 0);
	assert_string_equal(xc->comm, "true");
	assert_int_equal(xc->ppid, me);

	/* The causal order survives the ring buffer, and so does the clock. */
	assert_true(index_of(s, fc) < index_of(s, fg));
	assert_true(index_of(s, fg) < index_of(s, xg));
	assert_true(index_of(s, xg) < index_of(s, ec));
	assert_true(index_of(s, ec) < index_of(s, xc));
	assert_true(fc->ts_ns <= fg->ts_ns && fg->ts_ns <= xg->ts_ns);
	assert_true(xg->ts_ns <= ec->ts_ns && ec->ts_ns <= xc->ts_ns);

	/* Nothing about the unrelated tree, and nothing from outside ours. */
	for (int i = 0; i < s->n; i++) {
		const struct proc_track_event *e = &s->ev[i];

		assert_int_not_equal(e->pid, unrel);
		assert_int_not_equal(e->ppid, unrel);
		assert_true(e->pid == (uint32_t)c || e->pid == (uint32_t)g_pid);
		assert_int_equal(e->flags, 0);
	}
	assert_int_equal(s->n, 5);

	proc_track_prog__free(p);
	assert_none_of_ours();
	free(s);
}

static void test_tree_tp_btf(void **state)
{
	run_tree(false);
}

static void test_tree_raw_tp(void **state)
{
	run_tree(true);
}

/* Every process on the machine: at least our own child's fork and exit show up. */
static void test_all(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	struct proc_track_opts opts = { .all = true, .on_event = on_event, .ctx = s };
	struct proc_track_prog *p;
	pid_t c;

	assert_non_null(s);
	p = proc_track_prog__new(&opts);
	assert_non_null(p);
	assert_int_equal(proc_track_prog__follow(p, getpid()), -EINVAL);
	assert_int_equal(proc_track_prog__attach(p), 0);
	c = fork();
	if (c == 0)
		_exit(9);
	assert_int_equal(WEXITSTATUS(waited(c)), 9);
	for (int i = 0; i < 50 && !find(s, PROC_TRACK_EXIT, (uint32_t)c); i++)
		assert_true(proc_track_prog__poll(p, 100) >= 0);
	assert_non_null(find(s, PROC_TRACK_FORK, (uint32_t)c));
	assert_int_equal(WEXITSTATUS(find(s, PROC_TRACK_EXIT, (uint32_t)c)->exit_status), 9);
	proc_track_prog__free(p);
	free(s);
}

static void test_bad_opts(void **state)
{
	struct seen s = { .n = 0 };
	pid_t zero = 0, me = getpid();
	struct proc_track_opts opts = { .on_event = on_event, .ctx = &s };

	assert_null(proc_track_prog__new(NULL));
	assert_int_equal(errno, EINVAL);
	opts.on_event = NULL;
	assert_null(proc_track_prog__new(&opts));
	assert_int_equal(errno, EINVAL);
	opts.on_event = on_event;
	opts.ringbuf_bytes = 3000;
	assert_null(proc_track_prog__new(&opts));
	assert_int_equal(errno, EINVAL);
	opts.ringbuf_bytes = 0;
	opts.tgids = &zero;
	opts.nr_tgids = 1;
	assert_null(proc_track_prog__new(&opts));
	assert_int_equal(errno, EINVAL);
	opts.tgids = &me;
	opts.all = true;
	assert_null(proc_track_prog__new(&opts));
	assert_int_equal(errno, EINVAL);
	proc_track_prog__free(NULL);
}

/*
 * A user without CAP_BPF gets -EPERM, and the failed load leaves no program,
 * map or link behind -- checked while the child still lives, since its exit
 * would close whatever it leaked.
 */
static void test_unprivileged_eperm(void **state)
{
	int res[2], hold[2], child_errno = 0;
	pid_t c, me = getpid();
	ssize_t n;
	char b;

	mark();
	assert_int_equal(pipe(res), 0);
	assert_int_equal(pipe(hold), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		struct seen s = { .n = 0 };
		struct proc_track_opts opts = {
			.tgids = &me, .nr_tgids = 1, .on_event = on_event, .ctx = &s,
		};
		struct proc_track_prog *p;
		int e;

		close(res[0]);
		close(hold[1]);
		bpf_print__route(NULL, NULL, BPF_PRINT_WARN);
		/* Dropping every uid clears the capability sets. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(95);
		p = proc_track_prog__new(&opts);
		e = p ? 0 : errno;
		if (write(res[1], &e, sizeof(e)) != sizeof(e))
			_exit(96);
		if (read(hold[0], &b, 1) < 0) /* EOF: the parent has counted */
			_exit(97);
		proc_track_prog__free(p);
		_exit(0);
	}
	close(res[1]);
	close(hold[0]);
	n = read(res[0], &child_errno, sizeof(child_errno));
	close(res[0]);
	assert_int_equal(n, sizeof(child_errno));
	if (child_errno != EPERM)
		fail_msg("unprivileged load: want EPERM, got %s", strerror(child_errno));
	assert_none_of_ours();
	close(hold[1]);
	assert_int_equal(WEXITSTATUS(waited(c)), 0);
}

/*
 * A load that fails at its last step releases what it made: programs and
 * maps are loaded, then seeding a second tgid into a one-entry map fails.
 */
static void test_failed_load_cleans_up(void **state)
{
	struct seen s = { .n = 0 };
	pid_t two[2] = { getpid(), 1 };
	struct proc_track_opts opts = {
		.tgids = two, .nr_tgids = 2, .max_procs = 1,
		.on_event = on_event, .ctx = &s,
	};

	mark();
	bpf_print__route(NULL, NULL, BPF_PRINT_WARN);
	assert_null(proc_track_prog__new(&opts));
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	assert_int_equal(errno, E2BIG);
	assert_none_of_ours();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_opts),
		cmocka_unit_test(test_tree_tp_btf),
		cmocka_unit_test(test_tree_raw_tp),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_unprivileged_eperm),
		cmocka_unit_test(test_failed_load_cleans_up),
	};

	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	bpf_require(TEST_NAME);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
