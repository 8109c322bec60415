// SPDX-License-Identifier: Apache-2.0
/* test_cuda_launch: one launch-site event per CUDA call, on the right thread, under the calling function. */
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
#include "cuda_launch_prog.h"

#define TEST_NAME "test_cuda_launch"
#ifndef SIM_PRELOAD
#define SIM_PRELOAD "" /* set under GPUPERF_SANITIZE: the simulator needs ASan first */
#endif
#define MAX_CALLS 4096

static void print_stderr(void *ctx, enum bpf_print_level level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

struct call {
	char name[64];
	uint32_t tid;
	int matched;
};

/* Top-level API calls of the simulator's ground-truth log that we probe. */
static int read_sim_log(const char *path, struct call *calls, int max)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *name, *tid, *parent;

		if (!strstr(line, "\"type\":\"api\""))
			continue;
		name = strstr(line, "\"name\":\"");
		tid = strstr(line, "\"tid\":");
		parent = strstr(line, "\"parent_corr\":");
		if (!name || !tid || !parent || strtoul(parent + 14, NULL, 10) != 0)
			continue;
		name += 8;
		*strchr(name, '"') = '\0';
		if (!cuda_launch_prog__is_entry_point(name) || n == max)
			continue;
		snprintf(calls[n].name, sizeof(calls[n].name), "%s", name);
		calls[n].tid = (uint32_t)strtoul(tid + 6, NULL, 10);
		calls[n].matched = 0;
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Run @exe on the simulator under the agent and check: every probed
 * top-level call in the log has exactly one launch-site event with the same
 * name and tid, no event is left over, and each launch's stack holds a
 * function whose name contains @caller.
 */
static void check_sample(const char *exe, char *const extra_argv[], const char *caller,
			 const char *launch_name)
{
	struct cpu_agent_opts o = { .launch = true, .no_kallsyms = true };
	char dir[4096], logpath[4200], env_log[4300], env_lib[4300];
	char *env[] = { env_log, env_lib, (char *)"LD_PRELOAD=" SIM_PRELOAD, NULL };
	char *argv[8] = { (char *)exe };
	static struct call calls[MAX_CALLS];
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	int status, err, ncalls, events = 0, launches = 0, with_caller = 0;

	for (int i = 0; extra_argv && extra_argv[i] && i < 6; i++)
		argv[i + 1] = extra_argv[i];
	harness__mkdtemp(dir, sizeof(dir), "launch");
	snprintf(logpath, sizeof(logpath), "%s/sim.jsonl", dir);
	snprintf(env_log, sizeof(env_log), "GPUPERF_SIM_LOG=%s", logpath);
	snprintf(env_lib, sizeof(env_lib), "LD_LIBRARY_PATH=%s", SIM_LIB_DIR);
	o.dir = dir;
	err = harness__run(&o, argv, env, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, exe), 0);
	ncalls = read_sim_log(logpath, calls, MAX_CALLS);
	assert_true(ncalls > 0);

	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		int k;

		if (x->type != GP_REC_LAUNCH_SITE)
			continue;
		events++;
		for (k = 0; k < ncalls; k++)
			if (!calls[k].matched && calls[k].tid == x->tid &&
			    strcmp(calls[k].name, x->probe) == 0)
				break;
		if (k == ncalls)
			fail_msg("launch-site event %s on tid %u matches no call of the log", x->probe,
				 x->tid);
		calls[k].matched = 1;
		if (strcmp(x->probe, launch_name) == 0) {
			launches++;
			if (harness__stack_has(&y, &t, x, caller))
				with_caller++;
		}
	}
	for (int k = 0; k < ncalls; k++)
		if (!calls[k].matched)
			fail_msg("%s on tid %u has no launch-site event", calls[k].name, calls[k].tid);
	fprintf(stderr, "%s: %d calls, %d events, %d %s launches, %d under %s; %llu uprobes, %llu nested hits dropped\n",
		exe, ncalls, events, launches, launch_name, with_caller, caller,
		(unsigned long long)st.uprobes, (unsigned long long)st.launches_nested);
	assert_int_equal(events, ncalls);
	assert_true(launches > 0);
	assert_int_equal(with_caller, launches);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

static void test_vector_add_shared(void **state)
{
	check_sample(SAMPLES_DIR "/vector_add_shared", NULL, "launch_vector_add",
		     "__cudaLaunchKernel");
}

static void test_multi_stream_shared(void **state)
{
	char *args[] = { (char *)"3", (char *)"4", NULL };

	check_sample(SAMPLES_DIR "/multi_stream_shared", args, "worker_iteration",
		     "__cudaLaunchKernel");
}

/*
 * The static cudart's code range in @exe: one large range, holding
 * cudaLaunchKernel but not the application's function @app_fn.
 */
static void check_runtime_range(struct cuda_launch_prog *p, const char *exe, const char *app_fn)
{
	struct cuda_launch_range rg[4];
	struct harness_syms y;
	uint64_t app = 0, launch = 0;
	int n;

	n = cuda_launch_prog__runtime_ranges(p, exe, rg, 4);
	assert_int_equal(n, 1);
	assert_int_equal(harness__syms_load(&y, exe), 0);
	for (size_t i = 0; i < y.n; i++) {
		uint64_t off = 0;

		for (int k = 0; k < y.nload; k++)
			if (y.s[i].addr >= y.load[k].vaddr &&
			    y.s[i].addr < y.load[k].vaddr + y.load[k].filesz)
				off = y.s[i].addr - y.load[k].vaddr + y.load[k].offset;
		if (strstr(y.s[i].name, app_fn))
			app = off;
		if (strcmp(y.s[i].name, "cudaLaunchKernel") == 0)
			launch = off;
	}
	fprintf(stderr, "  %s: static cudart at [%#llx, %#llx), %s at %#llx\n", exe,
		(unsigned long long)rg[0].lo, (unsigned long long)rg[0].hi, app_fn,
		(unsigned long long)app);
	assert_true(app && launch);
	assert_true(rg[0].hi - rg[0].lo > 64 * 1024);
	assert_true(launch >= rg[0].lo && launch < rg[0].hi);
	assert_false(app >= rg[0].lo && app < rg[0].hi);
	harness__syms_free(&y);
}

/*
 * Static cudart: the entry points are local symbols of the executable
 * itself. Attached here as one perf-event uprobe each (the fallback for
 * kernels before 6.6); the agent runs use uprobe_multi links.
 */
static void test_static_attach(void **state)
{
	struct cuda_launch_opts lo = { .tgids_fd = -1, .on_event = NULL, .no_multi = true };
	struct cuda_launch_prog *p;
	int n, launch = 0, stub = 0;

	lo.on_event = (cuda_launch_event_fn)(void (*)(void))abort; /* never called: nothing runs */
	p = cuda_launch_prog__new(&lo);
	if (!p)
		bpf_require__errno(TEST_NAME, -errno);
	assert_non_null(p);
	n = cuda_launch_prog__attach_file(p, SAMPLES_DIR "/vector_add");
	assert_true(n >= 3);
	for (int i = 0; i < cuda_launch_prog__nr_probes(p); i++) {
		const char *nm = cuda_launch_prog__attached_name(p, i);

		fprintf(stderr, "  static uprobe: %s\n", nm);
		launch += strcmp(nm, "cudaLaunchKernel") == 0;
		stub += strcmp(nm, "__cudaLaunchKernel") == 0;
	}
	assert_int_equal(launch, 1);
	assert_int_equal(stub, 0); /* a jump stub to cudaLaunchKernel: probing it would double count */
	/* the same file again: nothing new */
	assert_int_equal(cuda_launch_prog__attach_file(p, SAMPLES_DIR "/vector_add"), 0);
	check_runtime_range(p, SAMPLES_DIR "/vector_add", "launch_vector_add");
	cuda_launch_prog__free(p);

	/* uprobe_multi this time (fast to detach) */
	lo.no_multi = false;
	p = cuda_launch_prog__new(&lo);
	assert_non_null(p);
	assert_true(cuda_launch_prog__attach_file(p, SAMPLES_DIR "/driver_api") > 0);
	/* driver_api's own cuLaunchKernel call must stay outside: it is the application's */
	check_runtime_range(p, SAMPLES_DIR "/driver_api", "launch_saxpy_driver");
	cuda_launch_prog__free(p);
}

/* libcudart dlopen'ed after start: the rescan finds it and attaches. */
static void test_dlopen(void **state)
{
	struct cpu_agent_opts o = { .launch = true, .no_kallsyms = true };
	char dir[4096], env_lib[4300];
	char *env[] = { env_lib, (char *)"LD_PRELOAD=" SIM_PRELOAD, NULL };
	char *argv[] = { (char *)DLOPEN_CUDA, NULL };
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	int status, err, copies = 0, under = 0;

	harness__mkdtemp(dir, sizeof(dir), "dlopen");
	snprintf(env_lib, sizeof(env_lib), "LD_LIBRARY_PATH=%s", SIM_LIB_DIR);
	o.dir = dir;
	err = harness__run(&o, argv, env, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, DLOPEN_CUDA), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type == GP_REC_LAUNCH_SITE && strcmp(x->probe, "cudaMemcpy") == 0) {
			copies++;
			under += harness__stack_has(&y, &t, x, "copy_loop");
		}
	}
	fprintf(stderr, "dlopen: %llu uprobes, %d cudaMemcpy events, %d under copy_loop\n",
		(unsigned long long)st.uprobes, copies, under);
	assert_true(st.uprobes > 0);
	assert_int_equal(copies, 5);
	assert_int_equal(under, 5);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_add_shared),
		cmocka_unit_test(test_multi_stream_shared),
		cmocka_unit_test(test_static_attach),
		cmocka_unit_test(test_dlopen),
	};

	bpf_require(TEST_NAME);
	bpf_print__route(print_stderr, NULL, BPF_PRINT_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
