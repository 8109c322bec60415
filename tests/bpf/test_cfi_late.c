// SPDX-License-Identifier: Apache-2.0
/*
 * test_cfi_late: a library dlopen'ed after the agent last read the
 * process's mappings (late_dlopen loads late_lib, built without frame
 * pointers, and spins in it). Its samples must reach main through the
 * library's late_spin: a pc in no known mapping makes the agent read the
 * mappings again and unwind again, instead of ending the stack as an
 * unknown module until its next periodic scan. Eight copies loaded in
 * turn, so that some land between two periodic scans whatever their
 * timing.
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
#include "unwind.h"

#define TEST_NAME "test_cfi_late"
#define HZ 997
#define NLIBS 8	/* copies of late_lib, each loaded in turn */

static const char *module_of(const struct harness_trace *t, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].type == GP_REC_MODULE && t->r[i].pid == pid && ip >= t->r[i].start &&
		    ip < t->r[i].end)
			return t->r[i].path;
	return "(no module)";
}

/*
 * The functions of a library that the loader runs, not the program: its
 * initializers inside dlopen() (_init; frame_dummy, the first of
 * .init_array, and the register_tm_clones it jumps to) and its finalizers
 * at exit. A sample there is under dlopen() or exit(), not run_late.
 */
static bool loader_run(const char *fn)
{
	static const char *const names[] = { "_init", "_fini", "frame_dummy", "register_tm_clones",
					     "deregister_tm_clones", "__do_global_dtors_aux" };

	for (size_t i = 0; fn && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(fn, names[i]))
			return true;
	return false;
}

/* The function of the first frame of r in one of the libraries, or NULL. */
static const char *lib_leaf(const struct harness_syms *ylib, int nlibs,
			    const struct harness_trace *t, const struct harness_rec *r)
{
	for (int k = 0; k < r->nr_user; k++)
		for (int i = 0; i < nlibs; i++) {
			const char *n = harness__sym(&ylib[i], t, r->pid, r->ips[k] - (k ? 1 : 0));

			if (n)
				return n;
		}
	return NULL;
}

/*
 * late_dlopen loading nlibs copies of late_lib in turn, ms of CPU in each;
 * every sample in a library's code must reach main through run_late (the
 * loader's calls into it, initializers and finalizers, are under dlopen
 * and exit instead: counted apart). Returns the agent's statistics.
 */
static void run_late_dlopen(int nlibs, const char *ms, int min_samples, struct cpu_agent_stats *st)
{
	char *argv[3 + NLIBS] = { (char *)LATE_DLOPEN, (char *)ms };
	char libs[NLIBS][4200], cmd[8600];
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = HZ, .no_kallsyms = true };
	struct harness_trace t;
	struct harness_syms y, ylib[NLIBS];
	int status, err, n = 0, whole = 0, shown = 0, loader = 0;
	char dir[4096];

	assert_true(nlibs <= NLIBS);
	setenv("GPUPERF_UNWIND", "cfi", 1);
	harness__mkdtemp(dir, sizeof(dir), "late");
	o.dir = dir;
	for (int i = 0; i < nlibs; i++) {
		snprintf(libs[i], sizeof(libs[i]), "%s/late_lib%d.so", dir, i);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%.4199s'", LATE_LIB, libs[i]);
		assert_int_equal(system(cmd), 0);
		argv[2 + i] = libs[i];
	}
	err = harness__run(&o, argv, NULL, &status, st);
	unsetenv("GPUPERF_UNWIND");
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y, LATE_DLOPEN), 0);
	for (int i = 0; i < nlibs; i++)
		assert_int_equal(harness__syms_load(&ylib[i], libs[i]), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		bool in_lib = false, ok;

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
			continue;
		/* samples in the library: their leaf, or a frame above a libc call */
		for (int k = 0; k < x->nr_user && !in_lib; k++)
			in_lib = strstr(module_of(&t, x->pid, x->ips[k]), "late_lib") != NULL;
		/* a leaf in no module: the library before any scan saw it */
		if (!in_lib && strcmp(module_of(&t, x->pid, x->ips[0]), "(no module)"))
			continue;
		if (in_lib && loader_run(lib_leaf(ylib, nlibs, &t, x))) {
			loader++;
			continue;
		}
		n++;
		ok = in_lib && harness__stack_has(&y, &t, x, "run_late") &&
		     harness__stack_has(&y, &t, x, "main");
		whole += ok;
		if (!ok && shown++ < 3) {
			fprintf(stderr, "cut short:\n");
			for (int k = 0; k < x->nr_user; k++)
				fprintf(stderr, "  %d: %#lx %s %s\n", k, (unsigned long)x->ips[k],
					harness__sym(&y, &t, x->pid, x->ips[k] - (k ? 1 : 0)) ?: "?",
					module_of(&t, x->pid, x->ips[k]));
		}
	}
	fprintf(stderr, "late_lib x%d: %d samples, %d reach main through run_late (%d more in the "
			"loader's calls into it); rescans %llu "
			"(found new mappings %llu), unknown_module ends %llu\n",
		nlibs, n, whole, loader, (unsigned long long)st->unwind_rescans,
		(unsigned long long)st->unwind_rescans_found,
		(unsigned long long)st->unwind_ends[GP_UNWIND_END_UNKNOWN_MODULE]);
	assert_true(n >= min_samples);
	/* every one: without the rescan, the first samples after a load end at an unknown module */
	assert_int_equal(whole, n);
	harness__free(&t);
	harness__syms_free(&y);
	for (int i = 0; i < nlibs; i++)
		harness__syms_free(&ylib[i]);
	harness__rmrf(dir);
}

static void test_dlopen_late(void **state)
{
	struct cpu_agent_stats st;

	(void)state;
	/* 8 x 60 ms of CPU at 997 Hz: fewer on a loaded machine */
	run_late_dlopen(NLIBS, "60", 100, &st);
	assert_true(st.unwind_rescans_found >= 1);
}

/*
 * Two libraries, 25 ms in each, and the program exits: its samples are
 * read after it is gone (the agent is not woken for them; the harness
 * polls late here), when its mappings can no longer be read. The agent read them when each library
 * was mapped (proc_track's MMAP_EXEC), not when a sample needed them.
 */
static void test_dlopen_then_exit(void **state)
{
	struct cpu_agent_stats st;

	(void)state;
	harness_poll_ms = 2000;
	run_late_dlopen(2, "25", 10, &st);
	harness_poll_ms = 50;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlopen_late),
		cmocka_unit_test(test_dlopen_then_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
