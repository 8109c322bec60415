// SPDX-License-Identifier: Apache-2.0
/*
 * test_chrome_trace.c - trace.json: a hand-built timeline written out and read back by
 * check_trace_json.py (Python's json, gzip), exact escaping, errors; its trace.pftrace
 * read back by check_pftrace.py and compared with it (samples' stacks, a graph
 * launch's arrows).
 *
 * `test_chrome_trace --write-small OUT` writes the golden case (golden/trace-small.json)
 * and exits: the golden scripts call it that way.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "chrome_trace.h"
#include "correlate.h"
#include "gp_util.h"
#include "perfetto_trace.h"
#include "stack_agg.h"
#include "timeline.h"

/* Far from 0, so that relative times are what gets printed. */
#define T0 1700000000000000000ULL

static char dir[64];

static void *grow(void *arr, size_t nr, size_t elem)
{
	void *p = realloc(arr, (nr + 1) * elem);

	assert_non_null(p);
	memset((char *)p + nr * elem, 0, elem);
	return p;
}

static struct tl_stack stack(struct timeline *tl, uint64_t user, uint64_t kernel)
{
	struct tl_stack st = {.off = (uint32_t)tl->nr_frames};

	if (user) {
		tl->frames = grow(tl->frames, tl->nr_frames, sizeof(*tl->frames));
		tl->frames[tl->nr_frames++] = user;
		st.nr_user = 1;
	}
	if (kernel) {
		tl->frames = grow(tl->frames, tl->nr_frames, sizeof(*tl->frames));
		tl->frames[tl->nr_frames++] = kernel;
		st.nr_kernel = 1;
	}
	return st;
}

static void api(struct timeline *tl, uint32_t pid, uint32_t tid, uint32_t corr, uint64_t start,
		uint64_t end, uint16_t domain, const char *name)
{
	struct tl_api *a;

	tl->api = grow(tl->api, tl->nr_api, sizeof(*tl->api));
	a = &tl->api[tl->nr_api++];
	a->start = T0 + start;
	a->dur = timeline__dur_code(tl, a->start, T0 + end);
	a->thr = timeline__tid_index(tl, pid, tid);
	a->corr = corr;
	a->domain = domain & 3;
	a->name = timeline__api_name_index(tl, timeline__intern(tl, name));
}

static void gpu_graph(struct timeline *tl, uint16_t kind, uint32_t pid, uint32_t corr,
		      uint64_t start, uint64_t end, uint32_t device, uint32_t stream,
		      const char *name, uint64_t bytes, uint32_t graph)
{
	struct tl_gpu *g;

	tl->gpu = grow(tl->gpu, tl->nr_gpu, sizeof(*tl->gpu));
	g = &tl->gpu[tl->nr_gpu++];
	g->kind = (uint8_t)kind;
	g->start = T0 + start;
	g->dur = timeline__dur_code(tl, g->start, T0 + end);
	g->corr = corr;
	g->lane = timeline__lane_index(tl, pid, device, stream, graph);
	if (kind == TL_GPU_MEMCPY || kind == TL_GPU_MEMSET)
		g->name = timeline__bytes_index(tl, bytes);
	else
		g->name = name ? timeline__intern(tl, name) : 0;
	if (kind == TL_GPU_MEMCPY)
		g->copy_kind = 1; /* HtoD */
}

static void gpu(struct timeline *tl, uint16_t kind, uint32_t pid, uint32_t corr, uint64_t start,
		uint64_t end, uint32_t device, uint32_t stream, const char *name, uint64_t bytes)
{
	gpu_graph(tl, kind, pid, corr, start, end, device, stream, name, bytes, 0);
}

static void sample(struct timeline *tl, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t user,
		   uint64_t kernel)
{
	struct tl_sample *s;

	tl->samples = grow(tl->samples, tl->nr_samples, sizeof(*tl->samples));
	s = &tl->samples[tl->nr_samples++];
	s->ts = T0 + ts;
	s->weight = 1000000;
	s->pid = pid;
	s->tid = tid;
	s->cpu = 3;
	s->stack = stack(tl, user, kernel);
}

static void offcpu(struct timeline *tl, uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
		   uint64_t user)
{
	struct tl_offcpu *o;

	tl->offcpu = grow(tl->offcpu, tl->nr_offcpu, sizeof(*tl->offcpu));
	o = &tl->offcpu[tl->nr_offcpu++];
	o->start = T0 + start;
	o->end = T0 + end;
	o->pid = pid;
	o->tid = tid;
	o->state = 1;
	o->stack = stack(tl, user, 0);
}

#define NASTY "void k<\"q\\\\\">(int)\x01\xff\xc2\xb5"
/* NASTY as check_trace_json.py must read it back: \x01 kept, the stray \xff as '?', µ kept. */
#define NASTY_HEX                                                                                  \
	"766f6964206b3c22715c5c223e28696e74290"                                                    \
	"13fc2b5"

/*
 * The small case: two processes, a launch, a copy, a memset, a graph launch of
 * three kernels, a sync, a nested driver call, an orphan kernel on a second device,
 * samples and an off-CPU span.
 */
static struct timeline *small_timeline(void)
{
	struct timeline *tl = timeline__new();

	assert_non_null(tl);
	api(tl, 10, 100, 5, 1000, 1500, 1, "cudaLaunchKernel");
	gpu(tl, TL_GPU_KERNEL, 10, 5, 3000, 4000, 0, 7, "_Z6kernelPf", 0);
	api(tl, 10, 100, 6, 1600, 1700, 1, "cudaMemcpyAsync");
	gpu(tl, TL_GPU_MEMCPY, 10, 6, 4100, 4612, 0, 7, NULL, 1048576);
	api(tl, 10, 100, 7, 1800, 1900, 1, "cudaMemsetAsync");
	gpu(tl, TL_GPU_MEMSET, 10, 7, 4000, 4100, 0, 8, NULL, 4096);
	api(tl, 10, 100, 9, 2200, 6000, 1, "cudaStreamSynchronize");
	gpu(tl, TL_GPU_SYNC, 10, 9, 2200, 5990, 0, 7, NULL, 0);
	api(tl, 10, 100, 10, 6100, 6500, 1, "cudaLaunchKernel");
	api(tl, 10, 100, 11, 6200, 6400, 2, "cuLaunchKernel");
	gpu(tl, TL_GPU_KERNEL, 10, 11, 7000, 7250, 0, 7, NASTY, 0);
	api(tl, 10, 101, 8, 2000, 2100, 1, "cudaGraphLaunch");
	gpu(tl, TL_GPU_KERNEL, 10, 8, 5000, 5100, 0, 9, "graph_k", 0);
	gpu(tl, TL_GPU_KERNEL, 10, 8, 5100, 5200, 0, 9, "graph_k", 0);
	gpu_graph(tl, TL_GPU_KERNEL, 10, 8, 5200, 5300, 0, 9, "graph_k", 0, 3);
	gpu(tl, TL_GPU_KERNEL, 10, 99, 123456789012ULL, 123456789013ULL, 1, 3, "orphan", 0);
	api(tl, 20, 100, 5, 1000, 1200, 1, "cudaLaunchKernel");
	gpu(tl, TL_GPU_KERNEL, 20, 5, 8000, 9000, 0, 13, "p20_kernel", 0);

	sample(tl, 10, 100, 1200, 0x401000, 0);
	sample(tl, 10, 101, 2050, 0x401234, 0);
	sample(tl, 10, 100, 6300, 0x401000, 0xffffffff81000000ULL);
	offcpu(tl, 10, 100, 2300, 5900, 0x402000);
	timeline__finish(tl);
	return tl;
}

static const char *fake_leaf(void *ctx, uint32_t pid, const struct tl_stack *st)
{
	const uint64_t *f = timeline__frames(ctx, st);

	(void)pid;
	if (st->nr_user && f[0] == 0x401000)
		return st->nr_kernel ? "do_syscall_64" : "matmul_host";
	if (st->nr_user && f[0] == 0x402000)
		return "pthread_cond_wait";
	return NULL;
}

static const char *fake_kernel(void *ctx, const char *mangled)
{
	(void)ctx;
	return strcmp(mangled, "_Z6kernelPf") ? NULL : "kernel(float*)";
}

static const char *fake_process(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid == 10 ? "train_step" : NULL;
}

static const char *fake_thread(void *ctx, uint32_t pid, uint32_t tid)
{
	(void)ctx;
	return pid == 10 && tid == 100 ? "train_step" : NULL;
}

static const char *fake_device(void *ctx, uint32_t device)
{
	(void)ctx;
	return device == 0 ? "Fake GPU \"A100\"" : NULL;
}

/*
 * A sample's frames, root first, as the report's cpu.folded would have them: the
 * process, a caller, an inlined function on the loader thread, the leaf, and a
 * kernel frame under a system call.
 */
static long fake_sample_frames(void *ctx, const struct tl_sample *s, const struct stack_frame **frames)
{
	static struct stack_frame f[5];
	static char hex[24];
	const char *leaf = fake_leaf(ctx, s->pid, &s->stack);
	long n = 0;

	f[n++] = (struct stack_frame){ "train_step", GP_FRAME_CPU };
	if (s->tid == 101) {
		f[n++] = (struct stack_frame){ "loader_main", GP_FRAME_CPU };
		f[n++] = (struct stack_frame){ "read_batch", GP_FRAME_INLINE };
	} else {
		f[n++] = (struct stack_frame){ "main", GP_FRAME_CPU };
	}
	if (s->stack.nr_kernel)
		leaf = "matmul_host";
	if (!leaf) {
		snprintf(hex, sizeof(hex), "0x%llx",
			 (unsigned long long)timeline__frames(ctx, &s->stack)[0]);
		leaf = hex;
	}
	f[n++] = (struct stack_frame){ leaf, GP_FRAME_CPU };
	if (s->stack.nr_kernel)
		f[n++] = (struct stack_frame){ "do_syscall_64", GP_FRAME_KERNEL_CPU };
	*frames = f;
	return n;
}

static const struct chrome_trace_names small_names = {
	.stack_leaf = fake_leaf,
	.kernel_name = fake_kernel,
	.process_name = fake_process,
	.thread_name = fake_thread,
	.device_name = fake_device,
	.sample_frames = fake_sample_frames,
};

/* The small case as trace.json (gzopen() mode), or as trace.pftrace (mode NULL). */
static int write_small(const char *path, const char *mode)
{
	struct timeline *tl = small_timeline();
	struct chrome_trace_names nm = small_names;
	struct correlation c;
	gzFile gz;
	int err;

	nm.ctx = tl;
	if (correlate__run(tl, &c)) {
		timeline__free(tl);
		return -ENOMEM;
	}
	gz = mode ? gzopen(path, mode) : NULL;
	if (!mode) {
		err = perfetto_trace__write(tl, &c, &nm, path);
	} else if (!gz) {
		err = -errno;
	} else {
		err = chrome_trace__write(tl, &c, &nm, gz);
		if (gzclose(gz) != Z_OK && !err)
			err = -EIO;
	}
	correlate__release(&c);
	timeline__free(tl);
	return err;
}

/* Run a checker of tests/merger (check_trace_json.py's directory); 127 (no python3) skips. */
static void check_with(const char *script, const char *file, const char *args)
{
	char cmd[2048], here[1024], *slash;
	int rc;

	snprintf(here, sizeof(here), "%s", CHECK_TRACE_JSON);
	slash = strrchr(here, '/');
	if (slash)
		*slash = '\0';
	snprintf(cmd, sizeof(cmd), "python3 '%s/%s' '%s' %s", slash ? here : ".", script, file, args);
	rc = system(cmd);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
		skip();
	assert_int_equal(rc, 0);
}

static void check(const char *file, const char *args)
{
	check_with("check_trace_json.py", file, args);
}

static const char small_expect[] =
    "--count cuda_api=8 --count gpu_kernel=7 --count gpu_memcpy=1 --count gpu_memset=1 "
    "--count cpu_sample=3 --count off_cpu=1 --flows 6 "
    "--dur 'kernel(float*)=1.000' --dur '[memcpy HtoD]=0.512' --dur '[memset]=0.100' "
    "--dur graph_k=0.100 --dur orphan=0.001 --dur p20_kernel=1.000 "
    "--dur '[off-cpu] pthread_cond_wait=3.600' --dur cudaStreamSynchronize=3.800 "
    "--ts orphan=123456788.012 --ts 'kernel(float*)=2.000' "
    "--name matmul_host --name do_syscall_64 --name 0x401234 --name-hex " NASTY_HEX
    /* each sample's stack, its kinds as the folded files mark them; the graph launch's
     * arrows to each of its three kernels */
    " --stack 'train_step;main;matmul_host' --stack 'train_step;main;matmul_host;do_syscall_64_[k]'"
    " --stack 'train_step;loader_main;read_batch_[i];0x401234' --fan 3";

static void test_small_plain(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	assert_int_equal(write_small(path, "wT"), 0);
	check(path, small_expect);
}

static void test_small_gzip(void **state)
{
	char path[128];
	unsigned char magic[2] = {0};
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/trace.json.gz", dir);
	assert_int_equal(write_small(path, "wb6"), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f);
	assert_int_equal(magic[1], 0x8b);
	check(path, small_expect);
}

/*
 * trace.pftrace of the same timeline: the same slices, samples (with the same
 * stacks) and arrows as trace.json, under the trace processor's rules; the graph
 * launch's arrows go to each of its kernels, as in trace.json, not on from one
 * kernel to the next.
 */
static void test_small_perfetto(void **state)
{
	char json[128], pf[128], args[192];

	(void)state;
	snprintf(json, sizeof(json), "%s/small.json", dir);
	snprintf(pf, sizeof(pf), "%s/small.pftrace", dir);
	assert_int_equal(write_small(json, "wT"), 0);
	assert_int_equal(write_small(pf, NULL), 0);
	snprintf(args, sizeof(args), "--json '%s'", json);
	check_with("check_pftrace.py", pf, args);
}

/* No callbacks at all: every fallback name, still a valid document. */
static void test_no_names(void **state)
{
	struct timeline *tl = small_timeline();
	struct correlation c;
	char path[128];
	gzFile gz;

	(void)state;
	snprintf(path, sizeof(path), "%s/nonames.json", dir);
	assert_int_equal(correlate__run(tl, &c), 0);
	gz = gzopen(path, "wT");
	assert_non_null(gz);
	assert_int_equal(chrome_trace__write(tl, &c, NULL, gz), 0);
	assert_int_equal(gzclose(gz), Z_OK);
	check(path, "--count gpu_kernel=7 --flows 6 --name _Z6kernelPf --name '[off-cpu] 0x402000' "
		    "--name 0x401000 --stack 0x401000 --stack '0x401000;0xffffffff81000000_[k]'");
	correlate__release(&c);
	timeline__free(tl);
}

static void test_empty(void **state)
{
	struct timeline *tl = timeline__new();
	struct correlation c;
	char path[128];
	gzFile gz;

	(void)state;
	assert_non_null(tl);
	timeline__finish(tl);
	assert_int_equal(correlate__run(tl, &c), 0);
	snprintf(path, sizeof(path), "%s/empty.json", dir);
	gz = gzopen(path, "wT");
	assert_non_null(gz);
	assert_int_equal(chrome_trace__write(tl, &c, NULL, gz), 0);
	assert_int_equal(gzclose(gz), Z_OK);
	check(path, "--flows 0");
	assert_int_equal(chrome_trace__write(NULL, &c, NULL, gz), -EINVAL);
	assert_int_equal(chrome_trace__write(tl, NULL, NULL, gz), -EINVAL);
	assert_int_equal(chrome_trace__write(tl, &c, NULL, NULL), -EINVAL);
	correlate__release(&c);
	timeline__free(tl);
}

/* A write that fails (disk full) is reported, not swallowed. */
static void test_write_error(void **state)
{
	struct timeline *tl = small_timeline();
	struct correlation c;
	gzFile gz;
	int fd;

	(void)state;
	fd = open("/dev/full", O_WRONLY);
	if (fd < 0) {
		timeline__free(tl);
		skip();
	}
	assert_int_equal(correlate__run(tl, &c), 0);
	gz = gzdopen(fd, "wT");
	assert_non_null(gz);
	assert_int_equal(chrome_trace__write(tl, &c, NULL, gz), -EIO);
	gzclose(gz);
	correlate__release(&c);
	timeline__free(tl);
}

static void escape_case(const char *in, const char *want)
{
	char path[128], got[256];
	size_t n;
	gzFile gz;
	FILE *f;

	snprintf(path, sizeof(path), "%s/esc.json", dir);
	gz = gzopen(path, "wT");
	assert_non_null(gz);
	assert_int_equal(chrome_trace__write_string(gz, in), 0);
	assert_int_equal(gzclose(gz), Z_OK);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void test_escape(void **state)
{
	(void)state;
	escape_case("plain", "\"plain\"");
	escape_case(NULL, "\"\"");
	escape_case("a\"b\\c", "\"a\\\"b\\\\c\"");
	escape_case("\n\t\r\b\f\x01\x1f\x7f", "\"\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\"");
	escape_case("void k<int, 3>(float*)", "\"void k<int, 3>(float*)\"");
	/* valid UTF-8 passes: é, €, 😀 */
	escape_case("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* stray, overlong, surrogate, past U+10FFFF, cut short at the end */
	escape_case("\xff", "\"?\"");
	escape_case("\xc0\xaf", "\"??\"");
	escape_case("\xed\xa0\x80", "\"???\"");
	escape_case("\xf4\x90\x80\x80", "\"????\"");
	escape_case("x\xe2\x82", "\"x??\"");
}

/* An off-CPU span's state reads as ps(1) shows the thread, whatever other bits it carries. */
static void test_task_state(void **state)
{
	static const struct {
		uint32_t bits;
		const char *letter;
		bool exact;
	} cases[] = {
	    {0x0, "R", true},	  /* TASK_RUNNING: preempted */
	    {0x1, "S", true},	  /* TASK_INTERRUPTIBLE */
	    {0x2, "D", true},	  /* TASK_UNINTERRUPTIBLE */
	    {0x102, "D", false},  /* TASK_KILLABLE: WAKEKILL | UNINTERRUPTIBLE */
	    {0x4, "T", true},	  /* __TASK_STOPPED */
	    {0x104, "T", false},  /* TASK_STOPPED: WAKEKILL | __TASK_STOPPED */
	    {0x8, "t", true},	  /* __TASK_TRACED */
	    {0x10, "X", true},	  /* EXIT_DEAD */
	    {0x20, "Z", true},	  /* EXIT_ZOMBIE */
	    {0x40, "P", true},	  /* TASK_PARKED */
	    {0x402, "I", true},	  /* TASK_IDLE: NOLOAD | UNINTERRUPTIBLE */
	    {0x2002, "D", false}, /* TASK_FREEZABLE | TASK_UNINTERRUPTIBLE */
	    {0x8000, "D", false}, /* TASK_FROZEN reads as D, as the kernel says */
	    {0x81, "S", false},	  /* bits past TASK_REPORT are left out */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("state %#x\n", cases[i].bits);
		assert_string_equal(chrome_trace__task_state(cases[i].bits), cases[i].letter);
		assert_int_equal(chrome_trace__task_state_exact(cases[i].bits), cases[i].exact);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_ctrace_XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_plain), cmocka_unit_test(test_small_gzip),
	    cmocka_unit_test(test_no_names),	cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_write_error), cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_small_perfetto), cmocka_unit_test(test_task_state),
	};

	if (argc == 3 && !strcmp(argv[1], "--write-small")) {
		int err = write_small(argv[2], "wT");

		if (err)
			fprintf(stderr, "cannot write '%s': %s\n", argv[2], strerror(-err));
		return err ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
