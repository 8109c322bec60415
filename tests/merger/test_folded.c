// SPDX-License-Identifier: Apache-2.0
/* test_folded.c - unit tests for the folded writer and reader: contract, round trip, bad lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "folded.h"
#include "stack_agg.h"

/* Write agg as folded text into a heap string (caller frees). */
static char *write_str(struct stack_agg *agg, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(folded__write(agg, f, flags), 0);
	fclose(f);
	return buf;
}

static struct stack_agg *read_str(const char *text, unsigned flags, struct folded_read_stats *st)
{
	struct stack_agg *agg = stack_agg__new();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(agg);
	assert_non_null(f);
	assert_int_equal(folded__read(agg, f, flags, st), 0);
	fclose(f);
	return agg;
}

static void test_writer_contract(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct stack_frame s1[] = { { "main", GP_FRAME_CPU }, { "a;b", GP_FRAME_CPU },
				    { "line\nbreak\ttab", GP_FRAME_CPU } };
	struct stack_frame s2[] = { { "main", GP_FRAME_CPU }, { "sys_read", GP_FRAME_KERNEL_CPU } };
	struct stack_frame s3[] = { { "main", GP_FRAME_CPU }, { "", GP_FRAME_CPU } };
	struct stack_frame s4[] = { { "main", GP_FRAME_CPU } };
	char *out;

	assert_int_equal(stack_agg__add(agg, s1, 3, 100), 0);
	assert_int_equal(stack_agg__add(agg, s2, 2, 5), 0);
	assert_int_equal(stack_agg__add(agg, s3, 2, 7), 0);
	assert_int_equal(stack_agg__add(agg, s4, 1, 0), 0); /* zero weight: no line */
	out = write_str(agg, FOLDED_ANNOTATE);
	assert_string_equal(out, "main;[unknown] 7\n"
				 "main;a:b;line?break tab 100\n"
				 "main;sys_read_[k] 5\n");
	free(out);
	out = write_str(agg, 0);
	assert_string_equal(out, "main;[unknown] 7\n"
				 "main;a:b;line?break tab 100\n"
				 "main;sys_read 5\n");
	free(out);
	stack_agg__free(agg);
}

static void test_round_trip(void **state)
{
	static const char text[] = "main;[gpu] vectorAdd(float const*, int) 1500\n"
				   "main;cudaMemcpy;[memcpy HtoD] 250\n"
				   "main;cudaMemset;[memset] 10\n"
				   "main;cudaDeviceSynchronize;[sync device] 33\n"
				   "main;do_io;[off-cpu] 99\n"
				   "main;launch;[no launch stack] 4\n"
				   "main;read;vfs_read_[k] 12\n"
				   "main;hot_[i] 3\n"
				   "main;jitted_[j] 2\n"
				   "main;waker_[w] 1\n"
				   "main 1844674407370955000\n";
	struct folded_read_stats st;
	struct stack_agg *a = read_str(text, FOLDED_READ_MARKERS, &st), *b;
	char *out1, *out2;

	assert_int_equal(st.lines, 11);
	assert_int_equal(st.stacks, 11);
	assert_int_equal(st.bad_lines, 0);
	out1 = write_str(a, FOLDED_ANNOTATE);
	b = read_str(out1, FOLDED_READ_MARKERS, &st);
	out2 = write_str(b, FOLDED_ANNOTATE);
	assert_string_equal(out1, out2);
	assert_int_equal(stack_agg__total(a), stack_agg__total(b));
	assert_int_equal(stack_agg__node_count(a), stack_agg__node_count(b));
	free(out1);
	free(out2);
	stack_agg__free(a);
	stack_agg__free(b);
}

struct kinds {
	char got[32][64];
	int n;
};

static int collect(void *ctx, const struct stack_agg_node *n)
{
	struct kinds *k = ctx;

	if (n->depth && k->n < 32)
		snprintf(k->got[k->n++], sizeof(k->got[0]), "%s=%s", n->name,
			 gp_frame_kind__name(n->kind));
	return 0;
}

static void test_kinds_from_text(void **state)
{
	static const char text[] = "[gpu] k 1\n"
				   "[memcpy DtoH] 1\n"
				   "[memset] 1\n"
				   "[sync] 1\n"
				   "[no launch stack] 1\n"
				   "[off-cpu];blocked;schedule_[k] 1\n"
				   "[unknown];x_[i];y_[j];z_[w];q_[x] 1\n";
	struct stack_agg *agg = read_str(text, FOLDED_READ_MARKERS, NULL);
	struct kinds k = { 0 };
	int i;
	static const char *const want[] = {
		"[gpu] k=gpu",	"[memcpy DtoH]=memcpy", "[memset]=memset",
		"[no launch stack]=synthetic", "[off-cpu]=offcpu", "blocked=offcpu",
		"schedule=offcpu", "[sync]=sync", "[unknown]=cpu", "x=inline", "y=jit",
		"z=waker", "q_[x]=cpu",
	};

	assert_int_equal(stack_agg__walk(agg, collect, NULL, &k), 0);
	assert_int_equal(k.n, 13);
	for (i = 0; i < k.n; i++)
		assert_string_equal(k.got[i], want[i]);
	stack_agg__free(agg);

	/* Without markers, only annotations carry kinds. */
	agg = read_str("[gpu] k;a_[k] 1\n", 0, NULL);
	k.n = 0;
	assert_int_equal(stack_agg__walk(agg, collect, NULL, &k), 0);
	assert_string_equal(k.got[0], "[gpu] k=cpu");
	assert_string_equal(k.got[1], "a=kernel");
	stack_agg__free(agg);
}

static void test_bad_lines(void **state)
{
	static const char text[] = "a;b 10\n"
				   "\n"
				   "no count here\n"
				   "a;b -5\n"
				   "a;b 1e9\n"
				   "   \r\n"
				   "7\n"
				   "a;c 99999999999999999999999\n"
				   "a;c\t2.5\r\n"
				   "a;b 3   \n"
				   "a b c 4\n"
				   "a;c 0.4"; /* no final newline */
	struct folded_read_stats st;
	struct stack_agg *agg = read_str(text, FOLDED_READ_MARKERS, &st);
	char *out;

	assert_int_equal(st.lines, 12);
	assert_int_equal(st.stacks, 5);
	assert_int_equal(st.bad_lines, 5);
	assert_int_equal(st.first_bad_line, 3);
	out = write_str(agg, 0);
	assert_string_equal(out, "a;b 13\na;c 3\na b c 4\n"); /* frame by frame: "a" < "a b c" */
	free(out);
	stack_agg__free(agg);
}

static void test_binary_garbage_never_crashes(void **state)
{
	char buf[4096];
	unsigned x = 12345;
	size_t i;
	struct folded_read_stats st;
	struct stack_agg *agg = stack_agg__new();
	FILE *f;

	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (char)(x >> 16);
		if (i % 37 == 0)
			buf[i] = '\n';
		if (i % 11 == 0)
			buf[i] = ';';
	}
	f = fmemopen(buf, sizeof(buf), "r");
	assert_int_equal(folded__read(agg, f, FOLDED_READ_MARKERS, &st), 0);
	assert_true(st.bad_lines > 0);
	fclose(f);
	stack_agg__free(agg);
}

static void test_deep_stack(void **state)
{
	size_t depth = 1000, i;
	char *line = malloc(depth * 4 + 16), *p = line, *out;
	struct stack_agg *agg;

	for (i = 0; i < depth; i++)
		p += sprintf(p, "%s%03zu", i ? ";" : "", i % 1000);
	strcpy(p, " 1\n");
	agg = read_str(line, 0, NULL);
	assert_int_equal(stack_agg__max_depth(agg), depth);
	out = write_str(agg, 0);
	assert_string_equal(out, line);
	free(out);
	free(line);
	stack_agg__free(agg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_contract),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_kinds_from_text),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_binary_garbage_never_crashes),
		cmocka_unit_test(test_deep_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
