// SPDX-License-Identifier: Apache-2.0
/*
 * test_cfi_programs: the agent's CFI unwinding (the default) on the kinds
 * of program a user profiles, all built without frame pointers, each run
 * under the agent and each of its samples checked for where its stack
 * ends (the trace's GP_STACK_END_* of every sample):
 *
 *   perf      omit_prog's stacks, as chains of its own functions from main
 *             or thread_main to the leaf, match those of `perf record
 *             --call-graph dwarf` on the same program, share for share
 *             (skipped, 77, where perf cannot record)
 *   kinds     a stripped binary (.eh_frame, no symbols), a PIE: >= 99% of
 *             the samples of each thread reach its root through main or
 *             thread_main; code in an anonymous executable mapping (a JIT's,
 *             no CFI) ends its stacks there, with that one frame, counted
 *             as unknown_module, while the rest of the program's reach root;
 *             ld.so resolving every call through the PLT again (its
 *             trampoline finds its CFA by rbx): >= 99% of the samples in
 *             ld.so reach main
 *   dlopen    a library dlopen'ed before the agent first looks at the
 *             process: its samples reach main through it, >= 99% (one
 *             dlopen'ed later: test_cfi_late)
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
#include "gp_util.h"

#define TEST_NAME "test_cfi_programs"
#define HZ 999
/*
 * Samples a test needs of a thread or a kind of code: what ~0.1 s of CPU
 * gives at HZ, which a loaded 2-CPU machine still gives it
 */
#define MIN_SAMPLES 40

static const char *module_of(const struct harness_trace *t, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].type == GP_REC_MODULE && t->r[i].pid == pid && ip >= t->r[i].start &&
		    ip < t->r[i].end)
			return t->r[i].path;
	return "(no module)";
}

/*
 * A sample of the program itself: not the harness's child before its
 * exec, not ld.so loading the program before its _start (whose frames do
 * not always reach a root: unwind/README.md).
 */
static bool program_sample(const struct harness_trace *t, const struct harness_rec *x)
{
	const char *out;

	if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
		return false;
	out = module_of(t, x->pid, x->ips[x->nr_user - 1]);
	return !strstr(out, TEST_NAME) && !strstr(out, "/ld-linux");
}

static unsigned end_of(const struct harness_rec *x)
{
	return GP_STACK_END_OF(x->flags);
}

/* The name of frame @k of @x in any of the @ny files of @y, or NULL. */
static const char *frame_name(const struct harness_syms *y, int ny, const struct harness_trace *t,
			      const struct harness_rec *x, int k)
{
	for (int i = 0; i < ny; i++) {
		const char *n = harness__sym(&y[i], t, x->pid, x->ips[k] - (k ? 1 : 0));

		if (n)
			return n;
	}
	return NULL;
}

static bool stack_has(const struct harness_syms *y, int ny, const struct harness_trace *t,
		      const struct harness_rec *x, const char *name)
{
	for (int k = 0; k < x->nr_user; k++) {
		const char *n = frame_name(y, ny, t, x, k);

		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

static void show(const struct harness_syms *y, int ny, const struct harness_trace *t,
		 const struct harness_rec *x, const char *why)
{
	fprintf(stderr, "%s (tid %u, end %s):\n", why, x->tid,
		gp_stack_end_name(end_of(x)) ?: "not said");
	for (int k = 0; k < x->nr_user; k++)
		fprintf(stderr, "  %d: %#lx %s %s\n", k, (unsigned long)x->ips[k],
			frame_name(y, ny, t, x, k) ?: "?", module_of(t, x->pid, x->ips[k]));
}

static void print_ends(const char *what, const struct cpu_agent_stats *st)
{
	fprintf(stderr, "%s: agent unwinds %llu, tables %u, ends:", what,
		(unsigned long long)st->unwinds, st->unwind_tables);
	for (int k = 0; k < CPU_AGENT_UNWIND_ENDS; k++)
		if (st->unwind_ends[k])
			fprintf(stderr, " %s %llu", cpu_agent__unwind_end_name(k),
				(unsigned long long)st->unwind_ends[k]);
	fprintf(stderr, "\n");
}

/* Run @argv under the agent (on-CPU, HZ) into a fresh *dir; the trace in *t. */
static void run_prog(char *const argv[], const char *tag, char *dir, size_t len,
		     struct harness_trace *t, struct cpu_agent_stats *st)
{
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = HZ, .no_kallsyms = true };
	int status, err;

	harness__mkdtemp(dir, len, tag);
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, t), 0);
	print_ends(tag, st);
}

/* A line of the program's stdout (DIR/stdout) that starts with @key; "" when none. */
static void stdout_line(const char *dir, const char *key, char *buf, size_t len)
{
	char path[4200];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/stdout", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, (int)len, f))
		if (!strncmp(buf, key, strlen(key)))
			break;
		else
			buf[0] = '\0';
	fclose(f);
}

/* ---- a stripped binary, a PIE ------------------------------------------- */

struct roots {
	int main_n, main_root;	/* main thread's samples; of them whole (root, through main) */
	int thr_n, thr_root;	/* the other thread's; of them whole (root, through thread_main) */
};

/*
 * cfi_prog (or a build of its source) at @path, named with the symbols of
 * @syms_path: each thread's samples, and those that reach the thread's root
 * through main or thread_main.
 */
static void run_cfi_prog(const char *path, const char *syms_path, const char *tag,
			 struct roots *c)
{
	char *argv[] = { (char *)path, (char *)"0.5", NULL };
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];
	int shown = 0;

	memset(c, 0, sizeof(*c));
	run_prog(argv, tag, dir, sizeof(dir), &t, &st);
	assert_int_equal(harness__syms_load(&y, syms_path), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		bool main_thread = x->tid == x->pid, ok;

		if (!program_sample(&t, x))
			continue;
		ok = end_of(x) == GP_STACK_END_ROOT &&
		     stack_has(&y, 1, &t, x, main_thread ? "main" : "thread_main");
		if (main_thread) {
			c->main_n++;
			c->main_root += ok;
		} else {
			c->thr_n++;
			c->thr_root += ok;
		}
		if (!ok && shown++ < 3)
			show(&y, 1, &t, x, "cut short");
	}
	fprintf(stderr, "%s: main thread %d/%d whole, thread %d/%d whole\n", tag, c->main_root,
		c->main_n, c->thr_root, c->thr_n);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

/* >= 99% whole per thread, or at most 2 samples cut (in clone3 before thread_main, exit after main) */
static void assert_roots(const struct roots *c)
{
	assert_true(c->main_n >= MIN_SAMPLES && c->thr_n >= MIN_SAMPLES);
	assert_true(c->main_root >= 0.99 * c->main_n || c->main_n - c->main_root <= 2);
	assert_true(c->thr_root >= 0.99 * c->thr_n || c->thr_n - c->thr_root <= 2);
}

static void test_stripped(void **state)
{
	struct harness_syms y;
	struct roots c;

	(void)state;
	/* the premise: no symbols at all, the program's code is known by its CFI alone */
	assert_int_equal(harness__syms_load(&y, CFI_STRIPPED), 0);
	assert_int_equal(y.n, 0);
	harness__syms_free(&y);
	/* the stripped copy has cfi_prog's basename: cfi_prog's symbols name its frames */
	run_cfi_prog(CFI_STRIPPED, CFI_PROG, "stripped", &c);
	assert_roots(&c);
}

static void test_pie(void **state)
{
	struct roots c;

	(void)state;
	run_cfi_prog(CFI_PIE, CFI_PIE, "pie", &c);
	assert_roots(&c);
}

/* ---- code without CFI in an anonymous mapping ------------------------------ */

static void test_jit(void **state)
{
	char *argv[] = { (char *)JIT_PROG, (char *)"1500", NULL };
	unsigned long lo = 0, hi = 0;
	int n = 0, jit = 0, jit_clean = 0, whole = 0, shown = 0;
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096], line[256];

	(void)state;
	run_prog(argv, "jit", dir, sizeof(dir), &t, &st);
	stdout_line(dir, "jit ", line, sizeof(line));
	assert_int_equal(sscanf(line, "jit %lu %lu", &lo, &hi), 2);
	assert_int_equal(harness__syms_load(&y, JIT_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
			continue;
		if (x->ips[0] >= lo && x->ips[0] < hi) {
			/* in the JIT code: that frame alone, ended there, and why */
			bool clean = x->nr_user == 1 && end_of(x) == GP_STACK_END_UNKNOWN_MODULE;

			jit++;
			jit_clean += clean;
			if (!clean && shown++ < 3)
				show(&y, 1, &t, x, "JIT sample not ended cleanly");
			continue;
		}
		if (!program_sample(&t, x))
			continue;
		n++;
		whole += end_of(x) == GP_STACK_END_ROOT && stack_has(&y, 1, &t, x, "main");
	}
	fprintf(stderr, "jit: %d samples in the JIT code, %d of them ended there cleanly; "
			"elsewhere %d/%d whole\n", jit, jit_clean, whole, n);
	assert_true(jit >= MIN_SAMPLES);
	assert_int_equal(jit_clean, jit);
	/* counted by the agent under that reason */
	assert_true(st.unwind_ends[GP_STACK_END_UNKNOWN_MODULE - 1] >= (uint64_t)jit);
	/* the rest of the program is unwound whole */
	assert_true(n >= MIN_SAMPLES);
	assert_true(whole >= 0.99 * n || n - whole <= 2);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

/* ---- ld.so's lazy binding -------------------------------------------------- */

/* Every frame of x in ld.so: the loader at work before the program runs. */
static bool all_in_ld(const struct harness_trace *t, const struct harness_rec *x)
{
	for (int k = 0; k < x->nr_user; k++)
		if (!strstr(module_of(t, x->pid, x->ips[k]), "/ld-linux"))
			return false;
	return true;
}

static void test_lazy_binding(void **state)
{
	char *argv[] = { (char *)LAZY_PROG, (char *)"0.5", NULL };
	char *env[] = { (char *)"LD_BIND_NOT=1", NULL };
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = HZ, .no_kallsyms = true };
	int status, err, n = 0, whole = 0, in_ld = 0, in_ld_whole = 0, shown = 0;
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096];

	(void)state;
	harness__mkdtemp(dir, sizeof(dir), "lazy");
	o.dir = dir;
	err = harness__run(&o, argv, env, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(harness__load(dir, &t), 0);
	print_ends("lazy", &st);
	assert_int_equal(harness__syms_load(&y, LAZY_PROG), 0);
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		bool ok, ld;

		if (x->type != GP_REC_CPU_SAMPLE || !x->nr_user)
			continue;
		/*
		 * Every sample in ld.so, whatever its outermost frame (where a cut
		 * stack ends): a few are ld.so loading the program, before main
		 */
		ld = strstr(module_of(&t, x->pid, x->ips[0]), "/ld-linux") != NULL;
		if (!ld && !program_sample(&t, x))
			continue;
		/*
		 * Whole: through ld.so's trampolines to main (from resolve_loop's
		 * rand_r, or from main's own clock_gettime, which LD_BIND_NOT
		 * resolves at every call too) and on to the root; or, loading the
		 * program, to ld.so's entry point.
		 */
		ok = end_of(x) == GP_STACK_END_ROOT &&
		     (stack_has(&y, 1, &t, x, "main") || all_in_ld(&t, x));
		n++;
		whole += ok;
		in_ld += ld;
		in_ld_whole += ld && ok;
		if (!ok && shown++ < 3)
			show(&y, 1, &t, x, "cut short");
	}
	fprintf(stderr, "lazy binding: %d/%d whole, in ld.so %d/%d\n", whole, n, in_ld_whole,
		in_ld);
	assert_true(in_ld >= MIN_SAMPLES);
	assert_true(in_ld_whole >= 0.99 * in_ld || in_ld - in_ld_whole <= 2);
	assert_true(whole >= 0.99 * n || n - whole <= 2);
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

/* ---- a library loaded with dlopen ----------------------------------------- */

/*
 * dl_prog in "wait" mode: started, its library loaded, then followed by
 * the agent (whose first look at the process maps it), then let go.
 */
static int run_attached(const struct cpu_agent_opts *base, char *const argv[], int *status,
			struct cpu_agent_stats *st)
{
	struct cpu_agent_opts o = *base;
	struct cpu_agent *a = NULL;
	int in[2], out[2], err = 0;
	char buf[16];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* "ready": the library is mapped */
	if (read(out[0], buf, sizeof(buf)) <= 0) {
		err = -EIO;
		goto out;
	}
	o.pids = &pid;
	o.nr_pids = 1;
	a = cpu_agent__new(&o);
	if (!a) {
		err = -errno;
		goto out;
	}
	err = cpu_agent__start(a);
	if (err)
		goto out;
	if (write(in[1], "x", 1) != 1) {
		err = -errno;
		goto out;
	}
	for (;;) {
		int r = cpu_agent__poll(a, 50);

		if (r < 0 && r != -EINTR) {
			err = r;
			break;
		}
		if (waitpid(pid, status, WNOHANG) == pid) {
			pid = 0;
			break;
		}
	}
	if (!err)
		err = cpu_agent__stop(a);
	cpu_agent__stats(a, st);
out:
	close(in[1]);
	close(out[0]);
	if (pid > 0)
		waitpid(pid, status, 0);
	cpu_agent__free(a);
	return err;
}

struct dl_tally {
	int n, whole;		/* the program's samples; of them whole through main */
	int lib, lib_whole;	/* of them with their leaf in the library */
};

static void tally_dl(const struct harness_syms *y, const struct harness_trace *t,
		     struct dl_tally *c)
{
	int shown = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < t->n; i++) {
		const struct harness_rec *x = &t->r[i];
		bool in_lib, ok;

		if (!program_sample(t, x))
			continue;
		in_lib = harness__sym(&y[1], t, x->pid, x->ips[0]) != NULL;
		ok = end_of(x) == GP_STACK_END_ROOT && stack_has(y, 2, t, x, "main");
		c->n++;
		c->whole += ok;
		c->lib += in_lib;
		/* from the library's code through the program's: main -> run_lib -> dl_work -> ... */
		c->lib_whole += in_lib && ok && stack_has(y, 2, t, x, "run_lib") &&
				stack_has(y, 2, t, x, "dl_work");
		if (!ok && shown++ < 2)
			show(y, 2, t, x, "cut short");
	}
}

static void test_dlopen_before_attach(void **state)
{
	char *argv[] = { (char *)DL_PROG, (char *)DL_LIB, (char *)"5000", (char *)"wait", NULL };
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = HZ, .no_kallsyms = true };
	struct cpu_agent_stats st;
	struct harness_syms y[2];
	struct harness_trace t;
	struct dl_tally c;
	char dir[4096];
	int status, err;

	(void)state;
	harness__mkdtemp(dir, sizeof(dir), "dlopen");
	o.dir = dir;
	err = run_attached(&o, argv, &status, &st);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	print_ends("dlopen", &st);
	assert_int_equal(harness__load(dir, &t), 0);
	assert_int_equal(harness__syms_load(&y[0], DL_PROG), 0);
	assert_int_equal(harness__syms_load(&y[1], DL_LIB), 0);
	tally_dl(y, &t, &c);
	fprintf(stderr, "dlopen before attach: %d/%d whole, in the library %d/%d\n", c.whole, c.n,
		c.lib_whole, c.lib);
	assert_true(c.lib >= MIN_SAMPLES);
	assert_true(c.lib_whole >= 0.99 * c.lib || c.lib - c.lib_whole <= 2);
	assert_true(c.whole >= 0.99 * c.n || c.n - c.whole <= 2);
	harness__free(&t);
	harness__syms_free(&y[0]);
	harness__syms_free(&y[1]);
	harness__rmrf(dir);
}

/* ---- against perf --call-graph dwarf ------------------------------------- */

#define MAX_CHAINS 64

struct chains {
	struct {
		char key[256];
		int n;
	} c[MAX_CHAINS];
	int nc, total;
};

static void chain_add(struct chains *ch, const char *key)
{
	int i;

	ch->total++;
	for (i = 0; i < ch->nc; i++)
		if (!strcmp(ch->c[i].key, key))
			break;
	if (i == ch->nc) {
		if (ch->nc == MAX_CHAINS)
			return;
		snprintf(ch->c[ch->nc++].key, sizeof(ch->c[0].key), "%s", key);
	}
	ch->c[i].n++;
}

/*
 * The share of chain @key among the chains of its thread (those with the
 * same outermost function: main or thread_main), in %: how the two
 * threads shared the CPUs varies from run to run, what each did does not.
 */
static double chain_share(const struct chains *ch, const char *key)
{
	size_t root = strcspn(key, ";");
	int n = 0, of = 0;

	for (int i = 0; i < ch->nc; i++) {
		if (strncmp(ch->c[i].key, key, root) || strcspn(ch->c[i].key, ";") != root)
			continue;
		of += ch->c[i].n;
		if (!strcmp(ch->c[i].key, key))
			n = ch->c[i].n;
	}
	return of ? 100.0 * n / of : 0.0;
}

/*
 * Root-first chain of @names (innermost first, @n of them): the program's
 * own functions, ';'-joined, without _start (perf names it, the agent's
 * samples reach it too: the chains compare what is between).
 */
static void chain_key(const char *const *names, int n, char *key, size_t len)
{
	size_t off = 0;

	key[0] = '\0';
	for (int k = n - 1; k >= 0; k--) {
		if (!names[k] || !strcmp(names[k], "_start"))
			continue;
		off += (size_t)snprintf(key + off, off < len ? len - off : 0, "%s%s", off ? ";" : "",
					names[k]);
	}
}

/* `perf script` of @data: each sample of omit_prog as a chain. 0, or -1 when perf failed. */
static int perf_chains(const char *data, struct chains *ch)
{
	const char *names[GP_STACK_MAX_DEPTH];
	char cmd[4600], line[1024], key[256];
	int n = 0, in_sample = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F comm,tid,ip,sym,dso --no-inline 2>/dev/null",
		 data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	memset(ch, 0, sizeof(*ch));
	for (;;) {
		bool eof = !fgets(line, sizeof(line), p);
		char sym[256], dso[512];
		unsigned long ip;

		if (eof || line[0] == '\n' || (line[0] != ' ' && line[0] != '\t')) {
			if (in_sample && n) {
				chain_key(names, n, key, sizeof(key));
				if (key[0])
					chain_add(ch, key);
			}
			for (int k = 0; k < n; k++)
				free((void *)names[k]);
			n = 0;
			if (eof)
				break;
			/* a sample's first line: "omit_prog TID" */
			in_sample = !strncmp(line, "omit_prog ", 10);
			continue;
		}
		/* "\t  401136 spin (/path/omit_prog)" */
		if (!in_sample || sscanf(line, " %lx %255s (%511[^)])", &ip, sym, dso) != 3 ||
		    n == GP_STACK_MAX_DEPTH)
			continue;
		if (strcmp(strrchr(dso, '/') ? strrchr(dso, '/') + 1 : dso, "omit_prog"))
			continue;
		names[n++] = strdup(sym);
	}
	return pclose(p) == 0 && ch->total ? 0 : -1;
}

static void test_against_perf(void **state)
{
	static const char *const expect[] = { "main;path_a;spin", "main;path_b;mid_b;spin",
					      "main;path_c;cmp_c", "thread_main;path_a;spin" };
	char *argv[] = { (char *)OMIT_PROG, (char *)"800", NULL };
	struct chains ours, perf;
	struct cpu_agent_stats st;
	struct harness_trace t;
	struct harness_syms y;
	char dir[4096], data[4200], cmd[8600], key[256];
	int whole = 0, n = 0;

	(void)state;
	run_prog(argv, "omitfp", dir, sizeof(dir), &t, &st);
	assert_int_equal(harness__syms_load(&y, OMIT_PROG), 0);
	memset(&ours, 0, sizeof(ours));
	for (size_t i = 0; i < t.n; i++) {
		const struct harness_rec *x = &t.r[i];
		const char *names[2 * GP_STACK_MAX_DEPTH + 2];

		if (!program_sample(&t, x))
			continue;
		for (int k = 0; k < x->nr_user; k++)
			names[k] = harness__sym(&y, &t, x->pid, x->ips[k] - (k ? 1 : 0));
		chain_key(names, x->nr_user, key, sizeof(key));
		n++;
		whole += end_of(x) == GP_STACK_END_ROOT;
		if (key[0])
			chain_add(&ours, key);
	}

	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q --call-graph dwarf -F %d -o '%s' -- '%s' 800 "
		 ">/dev/null 2>&1", HZ, data, OMIT_PROG);
	if (system(cmd) != 0 || perf_chains(data, &perf)) {
		fprintf(stderr, "%s: skipped: perf cannot record here (%s)\n", TEST_NAME, cmd);
		harness__rmrf(dir);
		exit(BPF_REQUIRE_SKIP);
	}

	fprintf(stderr, "%-40s %8s %8s\n", "chain (% of its thread's)", "ours", "perf's");
	for (int i = 0; i < ours.nc; i++)
		fprintf(stderr, "%-40s %8.1f %8.1f\n", ours.c[i].key, chain_share(&ours, ours.c[i].key),
			chain_share(&perf, ours.c[i].key));
	for (int i = 0; i < perf.nc; i++)
		if (!chain_share(&ours, perf.c[i].key))
			fprintf(stderr, "%-40s %8.1f %8.1f\n", perf.c[i].key, 0.0,
				chain_share(&perf, perf.c[i].key));
	fprintf(stderr, "samples: ours %d (%d whole), perf's %d\n", ours.total, whole, perf.total);

	assert_true(ours.total >= 2 * MIN_SAMPLES && perf.total >= 2 * MIN_SAMPLES);
	assert_true(whole >= 0.99 * n || n - whole <= 2);
	/* every chain the program has, in both */
	for (size_t i = 0; i < ARRAY_SIZE(expect); i++) {
		assert_true(chain_share(&ours, expect[i]) >= 2.0);
		assert_true(chain_share(&perf, expect[i]) >= 2.0);
	}
	/* and every chain of 2% or more in either, in the other, within 10 points (two runs) */
	for (int i = 0; i < ours.nc; i++) {
		double a = chain_share(&ours, ours.c[i].key), b = chain_share(&perf, ours.c[i].key);

		if (a >= 2.0 || b >= 2.0)
			assert_true(a - b <= 10.0 && b - a <= 10.0);
	}
	for (int i = 0; i < perf.nc; i++) {
		double a = chain_share(&ours, perf.c[i].key), b = chain_share(&perf, perf.c[i].key);

		if (a >= 2.0 || b >= 2.0)
			assert_true(a - b <= 10.0 && b - a <= 10.0);
	}
	harness__free(&t);
	harness__syms_free(&y);
	harness__rmrf(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest perf[] = {
		cmocka_unit_test(test_against_perf),
	};
	const struct CMUnitTest kinds[] = {
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_jit),
		cmocka_unit_test(test_lazy_binding),
	};
	const struct CMUnitTest dlopen[] = {
		cmocka_unit_test(test_dlopen_before_attach),
	};
	const char *group = argc > 1 ? argv[1] : "kinds";

	if (!strcmp(group, "perf"))
		return cmocka_run_group_tests_name("perf", perf, NULL, NULL);
	if (!strcmp(group, "kinds"))
		return cmocka_run_group_tests_name("kinds", kinds, NULL, NULL);
	if (!strcmp(group, "dlopen"))
		return cmocka_run_group_tests_name("dlopen", dlopen, NULL, NULL);
	fprintf(stderr, "usage: %s perf|kinds|dlopen\n", argv[0]);
	return 2;
}
