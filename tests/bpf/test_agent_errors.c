// SPDX-License-Identifier: Apache-2.0
/* test_agent_errors: without privileges the agent fails clearly and leaves no BPF object behind; a full run leaves none either. */
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
#include "gp_util.h"

#define TEST_NAME "test_agent_errors"

static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

/* Every BPF object name prefix the agent's programs use (bpf/README.md). */
static const char *const prefixes[] = {
	"ptrack_", "proc_tra", "cs_", "cpu_samp", "oc_", "offcpu", "cl_", "cuda_lau",
};

/* The highest id of each kind of BPF object before a test loads anything. */
struct ids {
	__u32 last[3];
};

static void ids__now(struct ids *ids)
{
	assert_int_equal(bpf_objects__mark(ids->last), 0);
}

/* Objects of ours created since @before. */
static int count_ours(const struct ids *before)
{
	int n = 0;

	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
			int c = bpf_objects__count(k, prefixes[i], before->last[k]);

			assert_true(c >= 0);
			n += c;
		}
	return n;
}

/*
 * Closed objects go after an RCU grace period, or an RCU tasks grace period
 * for tracepoint links, which a loaded machine can stretch to seconds: wait
 * up to 30 s for none created since @before to be left. Objects an earlier
 * test is still freeing are older than @before and do not count.
 */
static void assert_none_of_ours(const struct ids *before)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int n = 0;

	for (int tries = 0; tries < 3000; tries++) {
		n = count_ours(before);
		if (n == 0)
			return;
		nanosleep(&ts, NULL);
	}
	fail_msg("%d BPF objects of the agent still exist", n);
}

static void test_not_root(void **state)
{
	char dir[4096];
	int status;
	struct ids before;
	pid_t pid;

	ids__now(&before);
	harness__mkdtemp(dir, sizeof(dir), "noroot");
	assert_int_equal(chmod(dir, 0777), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char msg_buf[512] = "";
		struct cpu_agent_opts o = { .dir = dir, .on_cpu = true, .off_cpu = true,
					    .no_kallsyms = true,
					    .errbuf = msg_buf, .errlen = sizeof(msg_buf) };
		pid_t self = getpid();
		struct cpu_agent *a;
		const char *msg;

		o.pids = &self;
		o.nr_pids = 1;
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		a = cpu_agent__new(&o);
		if (a)
			_exit(3);
		msg = cpu_agent__strerror(errno);
		fprintf(stderr, "as nobody: errno %d: %s\n  errbuf: %s\n", errno, msg, msg_buf);
		if (errno != EPERM || !strstr(msg, "root") || !strstr(msg_buf, "cannot load") ||
		    !strstr(msg_buf, "root"))
			_exit(4);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_none_of_ours(&before);
	harness__rmrf(dir);
}

/* Everything on, a real run, then free: nothing of ours is left in the kernel. */
static void test_full_run_leaves_nothing(void **state)
{
	struct cpu_agent_opts o = { .on_cpu = true, .off_cpu = true,
				    .freq_hz = 999, .no_kallsyms = true };
	char *argv[] = { (char *)"/bin/sleep", (char *)"0.2", NULL };
	struct cpu_agent_stats st;
	struct ids before;
	char dir[4096];
	int status, err;

	ids__now(&before);
	harness__mkdtemp(dir, sizeof(dir), "full");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(st.offcpu_spans >= 1); /* the 200 ms sleep */
	assert_none_of_ours(&before);
	harness__rmrf(dir);
}

static void test_bad_options(void **state)
{
	struct cpu_agent_opts o = { .dir = "/nonexistent-gpuperf-dir", .on_cpu = true };
	pid_t self = getpid();

	o.pids = &self;
	o.nr_pids = 1;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, ENOENT);
	o.dir = "/tmp";
	o.nr_pids = 0;
	assert_null(cpu_agent__new(&o));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_full_run_leaves_nothing),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
