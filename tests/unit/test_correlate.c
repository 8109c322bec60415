// SPDX-License-Identifier: Apache-2.0
/* test_correlate.c - timeline loading, clock alignment and the GPU -> API -> stack join. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock_align.h"
#include "correlate.h"
#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"
#include "timeline.h"

static char dir[64];

static struct gp_writer *open_trace(const char *name, uint16_t producer, uint16_t clock, uint32_t pid)
{
	struct gp_writer_opts o = { .producer = producer, .clock_id = clock, .pid = pid };
	char path[128];
	struct gp_writer *w;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w = gp_writer__open(path, &o);
	assert_non_null(w);
	return w;
}

static void api(struct gp_writer *w, uint32_t pid, uint32_t tid, uint32_t corr, uint64_t start,
		uint64_t end, uint32_t domain, const char *name)
{
	struct gp_rec_api *a = gp_writer__reserve(w, GP_REC_API, sizeof(*a));

	a->start = start;
	a->end = end;
	a->pid = pid;
	a->tid = tid;
	a->correlation_id = corr;
	a->domain = domain;
	a->name_str = gp_writer__intern(w, name);
	gp_writer__commit(w);
}

static void kernel(struct gp_writer *w, uint32_t pid, uint32_t corr, uint64_t start, uint64_t end,
		   const char *name)
{
	struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

	k->start = start;
	k->end = end;
	k->pid = pid;
	k->correlation_id = corr;
	k->stream_id = 7;
	k->name_str = gp_writer__intern(w, name);
	gp_writer__commit(w);
}

/*
 * The launch stack of call `corr` (format 2.3: api_stack + stack by id):
 * frames `ip` (an address standing for its caller) and 0x999; ip 0: a
 * stack id no chunk defines.
 */
static void launched(struct gp_writer *w, uint32_t corr, uint64_t ip)
{
	struct gp_rec_api_stack *a = gp_writer__reserve(w, GP_REC_API_STACK, sizeof(*a));
	uint64_t ips[2] = { ip, 0x999 };

	a->correlation_id = corr;
	a->stack_id = ip ? gp_writer__intern_stack(w, ips, 2, 0) : 12345;
	gp_writer__commit(w);
}

/* An older agent's launch-site hit whose only frame is `ip`: read, counted, never joined. */
static void hit(struct gp_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t ip, const char *probe)
{
	struct gp_rec_launch_site *l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE, sizeof(*l) + 8);

	l->ts = ts;
	l->pid = pid;
	l->tid = tid;
	l->nr_user = 1;
	l->ips[0] = ip;
	l->probe_str = gp_writer__intern(w, probe);
	gp_writer__commit(w);
}

/* hit(), its stack named by id (format 2.1). */
static void hit_id(struct gp_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t ip,
		   const char *probe)
{
	struct gp_rec_launch_site_id *l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE_ID, sizeof(*l));
	uint64_t ips[2] = { ip, 0x999 };

	l->ts = ts;
	l->pid = pid;
	l->tid = tid;
	l->probe_str = gp_writer__intern(w, probe);
	l->stack_id = ip ? gp_writer__intern_stack(w, ips, 2, 0) : 12345;
	gp_writer__commit(w);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_corr_XXXXXX");
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

static struct timeline *load(void)
{
	struct timeline *tl = timeline__new();
	const char *why = NULL;

	assert_non_null(tl);
	assert_int_equal(timeline__load_dir(tl, dir, &why), 0);
	timeline__finish(tl);
	return tl;
}

/* The directory's traces one by one with timeline__load_file(), cpu.trace first. */
static struct timeline *load_files(void)
{
	static const char *const names[] = { "cpu.trace", "gpu-10.trace", "gpu-11.trace" };
	struct timeline *tl = timeline__new();
	const char *why = NULL;
	char path[128];
	size_t i;

	assert_non_null(tl);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!access(path, F_OK))
			assert_int_equal(timeline__load_file(tl, path, &why), 0);
	}
	timeline__finish(tl);
	return tl;
}

/* The launch stack frames of the GPU record i, joined: "" when it has none. */
static void launch_of(const struct timeline *tl, size_t i, char *buf, size_t len)
{
	const struct tl_stack *st = timeline__gpu_launch_stack(tl, &tl->gpu[i]);
	size_t k, n = 0;

	buf[0] = '\0';
	for (k = 0; st && k < (size_t)st->nr_user + st->nr_kernel && n + 20 < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%" PRIx64 ";", timeline__frames(tl, st)[k]);
	if (st && !k)
		snprintf(buf, len, "(empty)");
}

/*
 * Close a GPU and the CPU trace, then load the directory: nothing to warn
 * about. The join comes out the same loaded as a directory (load()) or
 * file by file, cpu.trace first (load_files()): each GPU record has the
 * same API call and launch stack both ways.
 */
static struct timeline *close_and_load(struct gp_writer *g, struct gp_writer *c)
{
	struct timeline *tl, *ref;
	struct correlation a, b;
	char x[512], y[512];
	size_t i;

	assert_int_equal(gp_writer__close(g), 0);
	assert_int_equal(gp_writer__close(c), 0);
	tl = load();
	ref = load_files();
	assert_int_equal(timeline__nr_warnings(tl), 0);
	assert_int_equal(correlate__run(tl, &a), 0);
	assert_int_equal(correlate__run(ref, &b), 0);
	assert_int_equal(tl->nr_gpu, ref->nr_gpu);
	assert_int_equal(a.gpu_with_stack, b.gpu_with_stack);
	for (i = 0; i < tl->nr_gpu; i++) {
		assert_int_equal(timeline__gpu_corr(tl, &tl->gpu[i]), timeline__gpu_corr(ref, &ref->gpu[i]));
		launch_of(tl, i, x, sizeof(x));
		launch_of(ref, i, y, sizeof(y));
		assert_string_equal(x, y);
	}
	correlate__release(&a);
	correlate__release(&b);
	timeline__free(ref);
	return tl;
}

/* The kernel whose name is `name`: its launch stack's only frame, or 0. */
static uint64_t stack_of(const struct timeline *tl, const struct correlation *c, const char *name, int nth)
{
	size_t i;

	for (i = 0; i < tl->nr_gpu; i++) {
		if (strcmp(timeline__str(tl, tl->gpu[i].name), name) || nth--)
			continue;
		const struct tl_stack *st = timeline__gpu_launch_stack(tl, &tl->gpu[i]);

		(void)c;
		if (!st)
			return 0;
		return timeline__frames(tl, st)[0];
	}
	fail_msg("no kernel %s", name);
	return 0;
}

static void test_join(void **state)
{
	struct gp_writer *g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 10);
	struct gp_writer *c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
	struct correlation cr;
	struct timeline *tl;

	(void)state;
	/*
	 * An older agent's launch-site hits in cpu.trace, each in the time
	 * window of a call and on its thread: the old rules would have bound
	 * them. Now only the GPU trace's api_stack records count.
	 */
	hit(c, 10, 100, 1000, 0xDEAD, "cudaLaunchKernel");
	hit(c, 10, 100, 1990, 0xDEAD, "__cudaLaunchKernel");
	hit(c, 10, 300, 8990, 0xDEAD, "cudaLaunchKernel");
	hit_id(c, 10, 200, 1000, 0xDEAD, "cudaLaunchKernel");

	/* thread 100: back-to-back launches */
	api(g, 10, 100, 5, 1010, 1500, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 5, 0xA1);
	kernel(g, 10, 5, 3000, 4000, "k_first");
	api(g, 10, 100, 6, 1510, 1700, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 6, 0xA2);
	kernel(g, 10, 6, 4000, 4500, "k_second");

	/* nested: runtime call [2000,2600] makes a driver call, which has no stack record */
	api(g, 10, 100, 8, 2000, 2600, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 8, 0xB1);
	api(g, 10, 100, 9, 2110, 2500, GP_API_DRIVER, "cuLaunchKernel");
	kernel(g, 10, 8, 5000, 5100, "k_runtime");
	kernel(g, 10, 9, 5200, 5300, "k_driverid");

	/* a graph launch: three kernels with the launch's correlation id */
	api(g, 10, 100, 12, 3000, 3100, GP_API_RUNTIME, "cudaGraphLaunch");
	launched(g, 12, 0xC1);
	kernel(g, 10, 12, 6000, 6100, "k_graph");
	kernel(g, 10, 12, 6100, 6200, "k_graph");
	kernel(g, 10, 12, 6200, 6300, "k_graph");

	/* a call without GPU work between two launches */
	api(g, 10, 100, 13, 3200, 3300, GP_API_RUNTIME, "cudaStreamSynchronize");
	api(g, 10, 100, 14, 3410, 3500, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 14, 0xD1);
	kernel(g, 10, 14, 7000, 7100, "k_after_sync");

	/* thread 200 at the same times; its stack record written before its call's */
	launched(g, 20, 0xE1);
	api(g, 10, 200, 20, 1010, 1500, GP_API_RUNTIME, "cudaLaunchKernel");
	kernel(g, 10, 20, 3000, 3500, "k_thread200");
	/* ids of two threads interleave: a lower id after thread 100's higher ones */
	api(g, 10, 200, 7, 1610, 1700, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 7, 0xE2);
	kernel(g, 10, 7, 3500, 3600, "k_thread200_low");
	/* a buggy producer repeats id 6: the first call (in thread order) keeps it */
	api(g, 10, 200, 6, 1810, 1900, GP_API_RUNTIME, "cudaLaunchKernel");

	/* no API record, and an API record without a stack */
	kernel(g, 10, 99, 8000, 8100, "k_orphan");
	api(g, 10, 300, 30, 9000, 9100, GP_API_RUNTIME, "cudaLaunchKernel");
	kernel(g, 10, 30, 9500, 9600, "k_nostack");
	assert_int_equal(gp_writer__close(g), 0);

	/* another process reusing correlation id 5 on the same tid number: its own stack */
	g = open_trace("gpu-11.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 11);
	api(g, 11, 100, 5, 1010, 1500, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 5, 0xF1);
	kernel(g, 11, 5, 3000, 4000, "k_pid11");
	tl = close_and_load(g, c);
	assert_int_equal(tl->nr_gpu, 13);
	assert_int_equal(tl->old_launch_sites, 4); /* counted; the api_stacks spare a warning */
	assert_int_equal(correlate__run(tl, &cr), 0);
	assert_int_equal(stack_of(tl, &cr, "k_first", 0), 0xA1);
	assert_int_equal(stack_of(tl, &cr, "k_second", 0), 0xA2);
	assert_int_equal(stack_of(tl, &cr, "k_runtime", 0), 0xB1);
	assert_int_equal(stack_of(tl, &cr, "k_driverid", 0), 0xB1); /* nested call: enclosing stack */
	assert_int_equal(stack_of(tl, &cr, "k_graph", 0), 0xC1);
	assert_int_equal(stack_of(tl, &cr, "k_graph", 1), 0xC1);
	assert_int_equal(stack_of(tl, &cr, "k_graph", 2), 0xC1);
	assert_int_equal(stack_of(tl, &cr, "k_after_sync", 0), 0xD1);
	assert_int_equal(stack_of(tl, &cr, "k_thread200", 0), 0xE1);
	assert_int_equal(stack_of(tl, &cr, "k_thread200_low", 0), 0xE2);
	assert_int_equal(stack_of(tl, &cr, "k_pid11", 0), 0xF1);
	assert_int_equal(stack_of(tl, &cr, "k_orphan", 0), 0);
	assert_int_equal(stack_of(tl, &cr, "k_nostack", 0), 0);
	assert_int_equal(cr.gpu_with_api, 12);	 /* all but the orphan */
	assert_int_equal(cr.gpu_with_stack, 11); /* and not k_nostack */
	correlate__release(&cr);
	timeline__free(tl);
}

/*
 * Durations of 2.1 s and more live outside the records (TL_DUR_LONG): a
 * long kernel, a long synchronizing call with a nested driver call and a
 * launch inside its window, and an end before its start.
 */
static void test_long_durations(void **state)
{
	struct gp_writer *g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 10);
	struct gp_writer *c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
	const uint64_t s = 1000000000ull;
	struct correlation cr;
	struct timeline *tl;
	size_t i;

	(void)state;
	/* a 7 s runtime call; the driver call it makes ends 6 s in: nested */
	api(g, 10, 100, 1, 10 * s, 17 * s + 5, GP_API_RUNTIME, "cudaDeviceSynchronize");
	api(g, 10, 100, 2, 10 * s + 100, 16 * s, GP_API_DRIVER, "cuCtxSynchronize");
	/* a long launch call */
	api(g, 10, 100, 3, 20 * s, 24 * s, GP_API_RUNTIME, "cudaLaunchKernel");
	launched(g, 3, 0xA1);
	kernel(g, 10, 3, 30 * s, 35 * s + 7, "k_long");	/* 5 s */
	kernel(g, 10, 3, 3 * s - 1, 3 * s - 1 + 0x7fffffff, "k_just_short");
	kernel(g, 10, 3, 40 * s, 39 * s, "k_backwards");	/* ends before it starts */
	tl = close_and_load(g, c);
	assert_int_equal(correlate__run(tl, &cr), 0);
	assert_int_equal(tl->nr_api, 3);
	assert_int_equal(timeline__api_end(tl, &tl->api[0]), 17 * s + 5);
	assert_int_equal(tl->api[1].nested, 1);
	assert_int_equal(timeline__api_end(tl, &tl->api[1]), 16 * s);
	assert_int_equal(tl->api[2].nested, 0);
	assert_int_equal(tl->nr_gpu, 3);
	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *k = &tl->gpu[i];
		const char *name = timeline__str(tl, k->name);

		if (!strcmp(name, "k_long"))
			assert_int_equal(timeline__gpu_end(tl, k), 35 * s + 7);
		else if (!strcmp(name, "k_just_short"))
			assert_int_equal(timeline__dur(tl, k->dur), 0x7fffffffull);
		else
			assert_int_equal(timeline__gpu_end(tl, k), k->start); /* nothing ran */
	}
	assert_int_equal(stack_of(tl, &cr, "k_long", 0), 0xA1);
	correlate__release(&cr);
	timeline__free(tl);
}

/* A GPU trace in CUPTI's default CLOCK_REALTIME, aligned by its clock pairs. */
static void test_clock_fit(void **state)
{
	struct gp_writer *g = open_trace("gpu-20.trace", GP_PRODUCER_INJECT, GP_CLOCK_REALTIME, 20);
	const uint64_t off = 1700000000000000000ull; /* realtime - monotonic */
	struct timeline *tl;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct gp_rec_clock_pair cp = { 0 };
		uint64_t mono = 1000000000ull * (uint64_t)(i + 1);

		/* producer clock runs 10 ppm fast against CLOCK_MONOTONIC */
		cp.monotonic_ns = mono;
		cp.producer_ts = off + mono + (mono - 1000000000ull) / 100000;
		cp.source = GP_CLOCKSRC_CUPTI;
		assert_int_equal(gp_writer__append(g, GP_REC_CLOCK_PAIR, &cp, sizeof(cp)), 0);
	}
	/* a kernel at monotonic 1.5 s .. 1.5 s + 1 ms, in the producer clock */
	kernel(g, 20, 1, off + 1500000000ull + 5000, off + 1501000000ull + 5010, "k_rt");
	assert_int_equal(gp_writer__close(g), 0);

	tl = load();
	assert_int_equal(tl->nr_files, 1);
	assert_int_equal(tl->files[0].fit.method, CLOCK_FIT);
	assert_int_equal(tl->files[0].fit.pairs, 3);
	assert_true(tl->files[0].fit.residual_max <= 1);
	assert_int_equal(tl->nr_gpu, 1);
	assert_true(llabs((long long)(tl->gpu[0].start - 1500000000ull)) <= 2);
	assert_true(llabs((long long)(timeline__gpu_end(tl, &tl->gpu[0]) - 1501000000ull)) <= 2);
	timeline__free(tl);
}

/* Damaged and partial inputs load what they can and say what they could not. */
static void test_bad_inputs(void **state)
{
	struct gp_writer *g = open_trace("gpu-30.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 30);
	struct timeline *tl;
	const char *why = NULL;
	char path[128];
	FILE *f;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		kernel(g, 30, (uint32_t)i, 1000 + (uint64_t)i * 100, 1050 + (uint64_t)i * 100, "k");
	assert_int_equal(gp_writer__flush(g), 0);
	gp_writer__abandon(g); /* killed: no end mark */
	snprintf(path, sizeof(path), "%s/gpu-31.trace", dir);
	f = fopen(path, "w");
	fputs("garbage", f);
	fclose(f);

	tl = timeline__new();
	assert_int_equal(timeline__load_dir(tl, dir, &why), 0);
	assert_int_equal(tl->nr_gpu, 100);
	assert_int_equal(timeline__nr_warnings(tl), 2);
	for (i = 0; i < 2; i++) {
		const char *w = timeline__warning(tl, (size_t)i);

		assert_true(strstr(w, "gpu-31.trace") || strstr(w, "no end mark"));
	}
	timeline__free(tl);

	tl = timeline__new();
	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	assert_int_equal(timeline__load_dir(tl, path, &why), -ENOENT);
	assert_non_null(strstr(why, "cannot open directory"));
	timeline__free(tl);

	tl = timeline__new();
	assert_int_equal(timeline__load_dir(tl, "/", &why), -ENOENT);
	assert_non_null(strstr(why, "not a gpuperf recording"));
	timeline__free(tl);
}

/*
 * Launch configurations: one entry per distinct configuration whatever the
 * order they come in, the same index for the same one, and none (0) past
 * the 65535 a kernel record can index.
 */
static void test_kconfig_table(void **state)
{
	struct timeline *tl = timeline__new();
	struct tl_kconfig k = { .grid = { 1, 1, 1 }, .block = { 256, 1, 1 } };
	uint16_t first[6], v;
	unsigned i;

	(void)state;
	assert_non_null(tl);
	for (i = 0; i < 6; i++) { /* more than the recent-configuration cache holds */
		k.grid[0] = i + 1;
		first[i] = timeline__kconfig_index(tl, &k);
		assert_int_equal(first[i], i + 1);
	}
	for (i = 0; i < 6; i++) {
		k.grid[0] = 6 - i;
		assert_int_equal(timeline__kconfig_index(tl, &k), first[5 - i]);
	}
	k.grid[0] = 3;
	k.regs = 32; /* one field differs: another configuration */
	assert_int_equal(timeline__kconfig_index(tl, &k), 7);
	assert_int_equal(tl->nr_kconfigs, 7);
	assert_int_equal(tl->kconfigs[6].regs, 32);
	for (i = 0; tl->nr_kconfigs < UINT16_MAX; i++) {
		k.grid[1] = i + 2;
		assert_int_not_equal(timeline__kconfig_index(tl, &k), 0);
	}
	k.grid[1] = 1u << 30; /* the 65536th: not indexed, not stored */
	assert_int_equal(timeline__kconfig_index(tl, &k), 0);
	assert_int_equal(tl->nr_kconfigs, UINT16_MAX);
	k.grid[0] = 1; /* an old one still has its index */
	k.grid[1] = 1;
	k.regs = 0;
	v = timeline__kconfig_index(tl, &k);
	assert_int_equal(v, first[0]);
	timeline__free(tl);
}

/*
 * API calls and launch hits of three threads interleaved in time, the
 * busiest thread between the other two in (pid, tid) order: after loading,
 * each array is grouped by thread and in time order within a thread, no
 * record lost or doubled, and every kernel still finds its launch stack.
 * The busiest thread's first records move right (thread 100's go first),
 * its later ones left: both passes of the grouping.
 */
static void test_threads_interleaved(void **state)
{
	/* tid of the i-th call in time order: 200 is the busiest */
	static const uint32_t tids[] = { 200, 100, 300, 200, 100, 200, 200, 300, 200, 100, 200, 200 };
	enum { N = ARRAY_SIZE(tids) };
	struct gp_writer *g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 10);
	struct gp_writer *c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
	int seen[N] = { 0 };
	struct correlation cr;
	struct timeline *tl;
	char name[32];
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		uint64_t t = 1000 + 100 * i;

		api(g, 10, tids[i], (uint32_t)i + 1, t, t + 50, GP_API_RUNTIME, "cudaLaunchKernel");
		launched(g, (uint32_t)i + 1, 0x1000 + i);
		snprintf(name, sizeof(name), "k%zu", i);
		kernel(g, 10, (uint32_t)i + 1, 100000 + 100 * i, 100000 + 100 * i + 50, name);
	}
	tl = close_and_load(g, c);
	assert_int_equal(tl->nr_api, N);
	for (i = 0; i < N; i++) {
		const struct tl_api *a = &tl->api[i];

		assert_in_range(a->corr, 1, N);
		seen[a->corr - 1]++;
		assert_int_equal(timeline__api_tid(tl, a), tids[a->corr - 1]);
		/* the call's stack moved with it */
		assert_non_null(timeline__api_launch_stack(tl, a));
		assert_int_equal(timeline__frames(tl, timeline__api_launch_stack(tl, a))[0],
				 0x1000 + a->corr - 1);
		if (i) {
			uint32_t pt = timeline__api_tid(tl, a - 1);

			assert_true(pt < timeline__api_tid(tl, a) ||
				    (pt == timeline__api_tid(tl, a) && a[-1].start < a->start));
		}
	}
	for (i = 0; i < N; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(correlate__run(tl, &cr), 0);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "k%zu", i);
		assert_int_equal(stack_of(tl, &cr, name, 0), 0x1000 + i);
	}
	correlate__release(&cr);
	timeline__free(tl);
}

static void sample(struct gp_writer *w, uint32_t tid, uint64_t ts)
{
	struct gp_rec_cpu_sample *s = gp_writer__reserve(w, GP_REC_CPU_SAMPLE, sizeof(*s) + 8);

	s->ts = ts;
	s->weight_ns = 1000;
	s->pid = 10;
	s->tid = tid;
	s->nr_user = 1;
	s->ips[0] = 0x5000;
	gp_writer__commit(w);
}

static void offcpu(struct gp_writer *w, uint32_t tid, uint64_t start, uint64_t end)
{
	struct gp_rec_offcpu *o = gp_writer__reserve(w, GP_REC_OFFCPU, sizeof(*o) + 8);

	o->start = start;
	o->end = end;
	o->pid = 10;
	o->tid = tid;
	o->nr_user = 1;
	o->ips[0] = 0x6000;
	gp_writer__commit(w);
}

/* Every array of tl in timeline__finish()'s order (what the joins and writers count on). */
static void assert_sorted(const struct timeline *tl)
{
	size_t i;

	for (i = 1; i < tl->nr_api; i++) {
		const struct tl_api *a = &tl->api[i - 1], *b = &tl->api[i];

		assert_true(a->thr < b->thr || (a->thr == b->thr && a->start < b->start) ||
			    (a->thr == b->thr && a->start == b->start &&
			     timeline__dur(tl, a->dur) >= timeline__dur(tl, b->dur)));
	}
	for (i = 1; i < tl->nr_gpu; i++)
		assert_true(tl->gpu[i - 1].start < tl->gpu[i].start ||
			    (tl->gpu[i - 1].start == tl->gpu[i].start &&
			     timeline__dur(tl, tl->gpu[i - 1].dur) <= timeline__dur(tl, tl->gpu[i].dur)));
	for (i = 1; i < tl->nr_samples; i++)
		assert_true(tl->samples[i - 1].ts <= tl->samples[i].ts);
	for (i = 1; i < tl->nr_offcpu; i++)
		assert_true(tl->offcpu[i - 1].start <= tl->offcpu[i].start);
}

/*
 * The loader checks the order of records as they come, so that sorting
 * skips arrays that came in order. Round 0: all in order, one thread's
 * nested call marked while loading, not another thread's call inside it. Then each way an array can still need
 * its sort, one per round (the others in order), so that each check is
 * needed: same-start calls, then kernels, in the wrong order of duration;
 * two GPU traces interleaved in time; threads first seen in other than
 * (pid, tid) order, each one's records in order; calls of two threads
 * interleaved; a sample and an off-CPU span out of time order.
 */
/*
 * A recording of an older gpuperf: launch stacks only as the CPU agent's
 * launch_site / launch_site_id records, no api_stack. It loads without
 * error; every kernel joins its API call but no stack (not by thread and
 * time any more), the hits are counted, and one warning says why and what
 * to do.
 */
static void test_old_launch_sites(void **state)
{
	struct gp_writer *g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 10);
	struct gp_writer *c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
	struct correlation cr;
	struct timeline *tl;
	const char *w;

	(void)state;
	hit(c, 10, 100, 990, 0xA1, "cudaLaunchKernel");
	api(g, 10, 100, 1, 1000, 1100, GP_API_RUNTIME, "cudaLaunchKernel");
	kernel(g, 10, 1, 5000, 5100, "k1");
	hit_id(c, 10, 100, 1990, 0xA2, "cudaLaunchKernel");
	api(g, 10, 100, 2, 2000, 2100, GP_API_RUNTIME, "cudaLaunchKernel");
	kernel(g, 10, 2, 5200, 5300, "k2");
	hit(c, 10, 555, 2000, 0xEE, "cudaLaunchKernel"); /* a thread without calls */
	assert_int_equal(gp_writer__close(g), 0);
	assert_int_equal(gp_writer__close(c), 0);
	tl = load();
	assert_int_equal(tl->old_launch_sites, 3);
	assert_int_equal(timeline__nr_warnings(tl), 1);
	w = timeline__warning(tl, 0);
	assert_non_null(strstr(w, "3 launch stacks came from an older gpuperf"));
	assert_non_null(strstr(w, "not joined"));
	assert_non_null(strstr(w, "re-record"));
	assert_int_equal(tl->nr_tids, 1); /* the hits' threads are not the timeline's */
	assert_int_equal(correlate__run(tl, &cr), 0);
	assert_int_equal(cr.gpu_with_api, 2);
	assert_int_equal(cr.gpu_with_stack, 0);
	assert_int_equal(stack_of(tl, &cr, "k1", 0), 0);
	correlate__release(&cr);
	timeline__free(tl);
}

static void check_round(struct timeline *tl, int round);

static void test_load_order(void **state)
{
	int round;

	(void)state;
	for (round = 0; round < 7; round++) {
		struct gp_writer *g, *c;
		struct timeline *tl;

		assert_int_equal(teardown(NULL), 0);
		assert_int_equal(setup(NULL), 0);
		g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 10);
		c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
		switch (round) {
		case 0: /* a runtime call and its nested driver call, then two more */
		case 1: /* the same with the enclosing call second */
			if (!round)
				api(g, 10, 100, 2, 1000, 2000, GP_API_RUNTIME, "cudaLaunchKernel");
			api(g, 10, 100, 1, 1000, 1900, GP_API_DRIVER, "cuLaunchKernel");
			if (round)
				api(g, 10, 100, 2, 1000, 2000, GP_API_RUNTIME, "cudaLaunchKernel");
			api(g, 10, 100, 3, 2500, 2600, GP_API_RUNTIME, "cudaMemcpy");
			api(g, 10, 100, 4, 2600, 9000, GP_API_RUNTIME, "cudaDeviceSynchronize");
			/* another thread's call within that one: not nested */
			api(g, 10, 200, 5, 3000, 3100, GP_API_RUNTIME, "cudaLaunchKernel");
			kernel(g, 10, 2, 5000, 5100, "k1");
			break;
		case 2: /* same start, the longer kernel first */
			kernel(g, 10, 1, 5000, 5300, "k_long");
			kernel(g, 10, 2, 5000, 5100, "k_short");
			break;
		case 3: /* a second process's kernel between two of the first's */
			kernel(g, 10, 1, 5000, 5100, "k1");
			kernel(g, 10, 2, 7000, 7100, "k2");
			assert_int_equal(gp_writer__close(g), 0);
			g = open_trace("gpu-11.trace", GP_PRODUCER_INJECT, GP_CLOCK_MONOTONIC, 11);
			kernel(g, 11, 9, 6000, 6100, "k_other_process");
			break;
		case 4: /* thread 200 first seen, all its records before thread 100's */
		case 5: /* thread 100 first seen, the two threads' records interleaved */
			api(g, 10, round == 4 ? 200 : 100, 1, 1000, 1100, GP_API_RUNTIME, "cudaLaunchKernel");
			launched(g, 1, 0xB1);
			api(g, 10, 200, 2, 1200, 1300, GP_API_RUNTIME, "cudaLaunchKernel");
			launched(g, 2, 0xB2);
			api(g, 10, 100, 3, 2000, 2100, GP_API_RUNTIME, "cudaLaunchKernel");
			launched(g, 3, 0xB3);
			break;
		case 6: /* the second of each later than the third */
			sample(c, 100, 3000);
			sample(c, 100, 5000);
			sample(c, 100, 4000);
			offcpu(c, 100, 3100, 3200);
			offcpu(c, 100, 3500, 3600);
			offcpu(c, 100, 3300, 3400);
			break;
		}
		if (round != 6) { /* the CPU arrays in order */
			sample(c, 100, 3000);
			offcpu(c, 100, 3100, 3900);
		}
		tl = close_and_load(g, c); /* loading the directory, then its files one by one */
		check_round(tl, round);
		timeline__free(tl);
		tl = load_files();
		check_round(tl, round);
		timeline__free(tl);
	}
}

/* test_load_order()'s checks of one round, on one way of loading it. */
static void check_round(struct timeline *tl, int round)
{
	assert_sorted(tl);
	if (round < 2) {
		/* the enclosing call first, the driver call in it nested */
		assert_int_equal(tl->nr_api, 5);
		assert_int_equal(tl->api[0].corr, 2);
		assert_false(tl->api[0].nested);
		assert_int_equal(tl->api[1].corr, 1);
		assert_true(tl->api[1].nested);
		assert_false(tl->api[2].nested);
		assert_false(tl->api[3].nested);
		assert_int_equal(tl->api[4].corr, 5);
		assert_false(tl->api[4].nested);
	}
	if (round == 4 || round == 5) { /* by thread: 100 first, each call with its stack */
		assert_int_equal(tl->nr_api, 3);
		assert_int_equal(timeline__api_tid(tl, &tl->api[0]), 100);
		assert_int_equal(timeline__api_tid(tl, &tl->api[2]), 200);
		for (size_t i = 0; i < tl->nr_api; i++)
			assert_int_equal(timeline__frames(tl, timeline__api_launch_stack(tl, &tl->api[i]))[0],
					 0xB0 + tl->api[i].corr);
	}
}

/*
 * Launch stacks named by id (stack + api_stack records) join across
 * chunks; a call naming a stack no chunk defines keeps none, and a later
 * chunk that gives an id other frames (a writer that reuses ids) counts
 * there.
 */
static void test_stack_ids_join(void **state)
{
	struct gp_writer_opts o = { .producer = GP_PRODUCER_INJECT, .pid = 10, .chunk_size = 4096 };
	struct gp_writer *c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, GP_CLOCK_MONOTONIC, 1);
	struct gp_writer *g;
	struct correlation cr;
	struct timeline *tl;
	char path[128], name[32];
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/gpu-10.trace", dir);
	g = gp_writer__open(path, &o);
	assert_non_null(g);
	for (i = 0; i < 600; i++) { /* 4 KiB chunks: a few hundred records span many */
		uint64_t t = 1000 + 100 * i;

		api(g, 10, 100, (uint32_t)i + 1, t, t + 50, GP_API_RUNTIME, "cudaLaunchKernel");
		launched(g, (uint32_t)i + 1, i == 7 ? 0 : 0xA000 + i % 3);
		snprintf(name, sizeof(name), "k%zu", i);
		kernel(g, 10, (uint32_t)i + 1, 100000 + 100 * i, 100000 + 100 * i + 50, name);
	}
	assert_int_equal(gp_writer__flush(g), 0);
	{
		struct gp_rec_stack *k = gp_writer__reserve(g, GP_REC_STACK, sizeof(*k) + 16);
		struct gp_rec_api_stack *a;

		k->id = 1;
		k->nr_user = 2;
		k->ips[0] = 0xBEEF;
		k->ips[1] = 0x999;
		gp_writer__commit(g);
		a = gp_writer__reserve(g, GP_REC_API_STACK, sizeof(*a));
		a->correlation_id = 601;
		a->stack_id = 1;
		gp_writer__commit(g);
	}
	api(g, 10, 100, 601, 1000 + 100 * 600, 1000 + 100 * 600 + 50, GP_API_RUNTIME, "cudaLaunchKernel");
	kernel(g, 10, 601, 200000, 200050, "k_redefined");
	tl = close_and_load(g, c);
	assert_int_equal(tl->nr_launch_stacks, 4); /* three stacks and id 1's second */
	assert_int_equal(correlate__run(tl, &cr), 0);
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "k%zu", i);
		assert_int_equal(stack_of(tl, &cr, name, 0), i == 7 ? 0 : 0xA000 + i % 3);
	}
	assert_int_equal(stack_of(tl, &cr, "k_redefined", 0), 0xBEEF);
	assert_int_equal(cr.gpu_with_stack, 600);
	correlate__release(&cr);
	timeline__free(tl);
}

static void test_fit_math(void **state)
{
	uint64_t p[4] = { 100, 200, 300, 400 }, m[4] = { 1100, 1200, 1300, 1400 };
	struct clock_fit f;

	(void)state;
	assert_int_equal(clock_fit__pairs(&f, p, m, 0), -EINVAL);
	assert_int_equal(clock_fit__pairs(&f, p, m, 4), 0);
	assert_int_equal(clock_fit__apply(&f, 250), 1250);
	assert_int_equal(f.residual_max, 0);
	assert_int_equal(clock_fit__apply(&f, 0), 0); /* unknown stays unknown */
	m[2] = 1310; /* a noisy pair shows as residual */
	assert_int_equal(clock_fit__pairs(&f, p, m, 4), 0);
	assert_int_equal(f.residual_max, 7); /* y = 1001 + 0.01 x: misses 1, 2, 7, 4 */
	assert_int_equal(clock_fit__pairs(&f, p, m, 1), 0);
	assert_int_equal(f.method, CLOCK_OFFSET);
	assert_int_equal(clock_fit__apply(&f, 150), 1150);
	assert_string_equal(clock_fit__method_name(CLOCK_FIT), "fit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_durations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_fit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_ids_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_launch_sites, setup, teardown),
		cmocka_unit_test(test_fit_math),
		cmocka_unit_test(test_kconfig_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
