// SPDX-License-Identifier: Apache-2.0
/* test_api_stacks.c - launch stacks by correlation id (format 2.3): exact, whatever else the recording holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "correlate.h"
#include "gp_record.h"
#include "gp_writer.h"
#include "timeline.h"

static char dir[64];

static struct gp_writer *open_trace(const char *name, uint16_t producer, uint32_t pid)
{
	struct gp_writer_opts o = { .producer = producer, .pid = pid };
	char path[128];
	struct gp_writer *w;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w = gp_writer__open(path, &o);
	assert_non_null(w);
	return w;
}

static void api(struct gp_writer *w, uint32_t tid, uint32_t corr, uint64_t start, uint64_t end,
		uint32_t domain, const char *name)
{
	struct gp_rec_api *a = gp_writer__reserve(w, GP_REC_API, sizeof(*a));

	a->start = start;
	a->end = end;
	a->pid = 10;
	a->tid = tid;
	a->correlation_id = corr;
	a->domain = domain;
	a->name_str = gp_writer__intern(w, name);
	gp_writer__commit(w);
}

static void kernel(struct gp_writer *w, uint32_t corr, uint64_t start)
{
	struct gp_rec_kernel *k = gp_writer__reserve(w, GP_REC_KERNEL, sizeof(*k));

	k->start = start;
	k->end = start + 100;
	k->pid = 10;
	k->correlation_id = corr;
	k->stream_id = 7;
	k->name_str = gp_writer__intern(w, "k");
	gp_writer__commit(w);
}

/* The stack the injection library took for corr: the entry point, then `caller`. */
static void api_stack(struct gp_writer *w, uint32_t corr, uint64_t caller, uint16_t flags)
{
	struct gp_rec_api_stack *s = gp_writer__reserve(w, GP_REC_API_STACK, sizeof(*s));
	uint64_t ips[3] = { 0x7f0000001000ull, caller, 0x400100 };

	s->correlation_id = corr;
	s->stack_id = gp_writer__intern_stack(w, ips, 3, 0);
	s->hdr.flags = flags;
	gp_writer__commit(w);
}

/* An older CPU agent's uprobe launch-site hit whose caller frame is `ip`: read, never joined. */
static void hit(struct gp_writer *w, uint32_t tid, uint64_t ts, uint64_t ip)
{
	struct gp_rec_launch_site *l = gp_writer__reserve(w, GP_REC_LAUNCH_SITE, sizeof(*l) + 16);

	l->ts = ts;
	l->pid = 10;
	l->tid = tid;
	l->nr_user = 2;
	l->ips[0] = 0x7f0000001000ull;
	l->ips[1] = ip;
	l->probe_str = gp_writer__intern(w, "cudaLaunchKernel");
	gp_writer__commit(w);
}

/*
 * Three launches on thread 11 (runtime call + nested driver call each); the
 * GPU trace says launch i came from 0x1000 + i. An older CPU agent's hits,
 * if any, say otherwise (0x9000 + i), out of time order; each lies in its
 * call's window on its thread, where the retired window rule joined them.
 */
static void write_recording(int with_stacks, int with_hits)
{
	struct gp_writer *g = open_trace("gpu-10.trace", GP_PRODUCER_INJECT, 10), *c;
	uint32_t i;

	for (i = 0; i < 3; i++) {
		uint64_t t = 1000 + 1000 * i;

		if (with_stacks) {
			api_stack(g, 2 * i + 1, 0x1000 + i, 0);
			api_stack(g, 2 * i + 2, 0x1000 + i, GP_API_STACK_NESTED);
		}
		api(g, 11, 2 * i + 2, t + 10, t + 50, GP_API_DRIVER, "cuLaunchKernel");
		api(g, 11, 2 * i + 1, t, t + 100, GP_API_RUNTIME, "cudaLaunchKernel");
		kernel(g, 2 * i + 1, t + 200);
	}
	assert_int_equal(gp_writer__close(g), 0);
	if (!with_hits)
		return;
	c = open_trace("cpu.trace", GP_PRODUCER_CPU_AGENT, 0);
	hit(c, 11, 3001, 0x9002);
	hit(c, 11, 1001, 0x9000);
	hit(c, 11, 2001, 0x9001);
	assert_int_equal(gp_writer__close(c), 0);
}

static void check(struct timeline *tl, uint64_t base)
{
	struct correlation c;
	size_t i;

	assert_int_equal(correlate__run(tl, &c), 0);
	assert_int_equal(c.nr_work, 3);
	assert_int_equal(c.work_with_stack, 3);
	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_stack *st = timeline__gpu_launch_stack(tl, &tl->gpu[i]);

		assert_non_null(st);
		assert_int_equal(st->nr_user, base == 0x9000 ? 2 : 3);
		assert_int_equal(timeline__frames(tl, st)[1], base + (tl->gpu[i].start - 1200) / 1000);
	}
	/* nested driver calls carry their runtime call's stack too */
	for (i = 0; i < tl->nr_api; i++)
		assert_true(tl->api[i].launch >= 0);
	correlate__release(&c);
}

static struct timeline *load_dir(void)
{
	struct timeline *tl = timeline__new();
	const char *why = NULL;

	assert_non_null(tl);
	assert_int_equal(timeline__load_dir(tl, dir, &why), 0);
	timeline__finish(tl);
	return tl;
}

static struct timeline *load_files(void)
{
	static const char *const names[] = { "cpu.trace", "gpu-10.trace" };
	struct timeline *tl = timeline__new();
	const char *why = NULL;
	char path[128];
	size_t i;

	assert_non_null(tl);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!access(path, F_OK))
			assert_int_equal(timeline__load_file(tl, path, &why), 0);
	}
	timeline__finish(tl);
	return tl;
}

/* Without --cpu: every launch gets the stack its GPU trace names. */
static void test_exact_alone(void **state)
{
	struct timeline *tl;

	(void)state;
	write_recording(1, 0);
	tl = load_dir();
	check(tl, 0x1000);
	timeline__free(tl);
	tl = load_files();
	check(tl, 0x1000);
	timeline__free(tl);
}

/* With an older agent's hits beside them: still the GPU trace's, the hits only counted. */
static void test_exact_over_hits(void **state)
{
	struct timeline *tl;

	(void)state;
	write_recording(1, 1);
	tl = load_dir();
	check(tl, 0x1000);
	assert_int_equal(tl->old_launch_sites, 3);
	assert_int_equal(timeline__nr_warnings(tl), 0);
	timeline__free(tl);
	tl = load_files();
	check(tl, 0x1000);
	timeline__free(tl);
}

/*
 * An older recording (no api_stack, the agent's hits only): every kernel
 * joins its API call but no stack, loaded either way, and one warning says
 * the stacks are an older gpuperf's and not joined.
 */
static void test_old_trace_not_joined(void **state)
{
	struct timeline *tl;
	int round;

	(void)state;
	write_recording(0, 1);
	for (round = 0; round < 2; round++) {
		struct correlation c;

		tl = round ? load_files() : load_dir();
		assert_int_equal(tl->old_launch_sites, 3);
		assert_int_equal(timeline__nr_warnings(tl), 1);
		assert_non_null(strstr(timeline__warning(tl, 0), "older gpuperf"));
		assert_int_equal(correlate__run(tl, &c), 0);
		assert_int_equal(c.work_with_api, 3);
		assert_int_equal(c.work_with_stack, 0);
		correlate__release(&c);
		timeline__free(tl);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_apistk_XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/gpu-10.trace", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu.trace", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exact_over_hits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_trace_not_joined, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
