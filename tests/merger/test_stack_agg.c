// SPDX-License-Identifier: Apache-2.0
/* test_stack_agg.c - unit tests for the stack aggregator: weights, identity by kind, walk order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stack_agg.h"

#define F(n, k) { (n), (k) }

struct seen {
	char line[64][128];
	int n;
};

static int record(void *ctx, const struct stack_agg_node *node)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	snprintf(s->line[s->n++], sizeof(s->line[0]), "%u %s/%s t=%llu s=%llu o=%llu", node->depth,
		 node->name, gp_frame_kind__name(node->kind), (unsigned long long)node->total,
		 (unsigned long long)node->self, (unsigned long long)node->offset);
	return 0;
}

static void test_weights_and_order(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct stack_frame ab[] = { F("main", GP_FRAME_CPU), F("b", GP_FRAME_CPU) };
	struct stack_frame aa[] = { F("main", GP_FRAME_CPU), F("a", GP_FRAME_CPU) };
	struct stack_frame ak[] = { F("main", GP_FRAME_CPU), F("a", GP_FRAME_GPU_KERNEL) };
	struct stack_frame m[] = { F("main", GP_FRAME_CPU) };
	struct seen s = { 0 };

	assert_non_null(agg);
	assert_int_equal(stack_agg__add(agg, ab, 2, 5), 0);
	assert_int_equal(stack_agg__add(agg, aa, 2, 3), 0);
	assert_int_equal(stack_agg__add(agg, ak, 2, 7), 0);
	assert_int_equal(stack_agg__add(agg, m, 1, 1), 0);
	assert_int_equal(stack_agg__add(agg, ab, 2, 10), 0);
	assert_int_equal(stack_agg__total(agg), 26);
	assert_int_equal(stack_agg__node_count(agg), 4);
	assert_int_equal(stack_agg__name_count(agg), 3);
	assert_int_equal(stack_agg__max_depth(agg), 2);

	assert_int_equal(stack_agg__walk(agg, record, NULL, &s), 0);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.line[0], "0 /synthetic t=26 s=0 o=0");
	assert_string_equal(s.line[1], "1 main/cpu t=26 s=1 o=0");
	/* Same name, two kinds: two nodes, ordered by kind after name. */
	assert_string_equal(s.line[2], "2 a/cpu t=3 s=3 o=0");
	assert_string_equal(s.line[3], "2 a/gpu t=7 s=7 o=3");
	assert_string_equal(s.line[4], "2 b/cpu t=15 s=15 o=10");
	stack_agg__free(agg);
}

static int skip_main(void *ctx, const struct stack_agg_node *node)
{
	record(ctx, node);
	return node->depth == 1 ? 1 : 0;
}

static int stop_at_2(void *ctx, const struct stack_agg_node *node)
{
	return node->depth == 2 ? -EINTR : 0;
}

static void test_walk_skip_and_stop(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct stack_frame st[] = { F("main", GP_FRAME_CPU), F("x", GP_FRAME_CPU), F("y", GP_FRAME_CPU) };
	struct stack_frame other[] = { F("zzz", GP_FRAME_CPU) };
	struct seen s = { 0 };

	assert_int_equal(stack_agg__add(agg, st, 3, 4), 0);
	assert_int_equal(stack_agg__add(agg, other, 1, 2), 0);
	assert_int_equal(stack_agg__walk(agg, skip_main, NULL, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.line[2], "1 zzz/cpu t=2 s=2 o=4");
	assert_int_equal(stack_agg__walk(agg, stop_at_2, NULL, NULL), -EINTR);
	stack_agg__free(agg);
}

static int count_leaves(void *ctx, const struct stack_agg_node *node)
{
	((int *)ctx)[0]++;
	return 0;
}

static void test_leave_calls_match_enter(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct stack_frame st[] = { F("a", GP_FRAME_CPU), F("b", GP_FRAME_CPU) };
	int enters = 0, leaves = 0;

	assert_int_equal(stack_agg__add(agg, st, 2, 1), 0);
	assert_int_equal(stack_agg__add(agg, st, 1, 1), 0);
	assert_int_equal(stack_agg__walk(agg, count_leaves, NULL, &enters), 0);
	assert_int_equal(stack_agg__walk(agg, count_leaves, count_leaves, &leaves), 0);
	assert_int_equal(enters, 3);
	assert_int_equal(leaves, 6);
	stack_agg__free(agg);
}

static void test_errors(void **state)
{
	struct stack_agg *agg = stack_agg__new();
	struct stack_frame bad_kind[] = { F("a", GP_FRAME_KIND_COUNT) };
	struct stack_frame null_name[] = { F(NULL, GP_FRAME_CPU) };
	struct stack_frame ok[] = { F("a", GP_FRAME_CPU) };

	assert_int_equal(stack_agg__add(agg, bad_kind, 1, 1), -EINVAL);
	assert_int_equal(stack_agg__add(agg, null_name, 1, 1), -EINVAL);
	assert_int_equal(stack_agg__add(NULL, ok, 1, 1), -EINVAL);
	assert_int_equal(stack_agg__add(agg, ok, 1, UINT64_MAX - 1), 0);
	assert_int_equal(stack_agg__add(agg, ok, 1, 2), -EOVERFLOW);
	assert_int_equal(stack_agg__total(agg), UINT64_MAX - 1);
	/* Root-only weight (an empty stack) is fine. */
	assert_int_equal(stack_agg__add(agg, NULL, 0, 1), 0);
	assert_int_equal(stack_agg__total(agg), UINT64_MAX);
	assert_string_equal(gp_frame_kind__name(GP_FRAME_KIND_COUNT), "?");
	stack_agg__free(agg);
	stack_agg__free(NULL);
}

/* Many distinct stacks, added in two different orders, walk identically. */
static unsigned long long walk_digest;

static int digest(void *ctx, const struct stack_agg_node *node)
{
	const char *p;

	for (p = node->name; *p; p++)
		walk_digest = walk_digest * 131 + (unsigned char)*p;
	walk_digest = walk_digest * 31 + node->total * 7 + node->offset + node->depth + node->kind;
	return 0;
}

static void add_many(struct stack_agg *agg, int reverse)
{
	char names[40][16];
	struct stack_frame fr[40];
	int i, d;

	for (i = 0; i < 20000; i++) {
		int k = reverse ? 19999 - i : i;
		unsigned x = (unsigned)k * 2654435761u;
		int depth = 5 + (int)(x % 30);

		for (d = 0; d < depth; d++) {
			snprintf(names[d], sizeof(names[d]), "f%u", (x >> (d % 16)) % (d + 3));
			fr[d].name = names[d];
			fr[d].kind = d == depth - 1 && k % 7 == 0 ? GP_FRAME_GPU_KERNEL : GP_FRAME_CPU;
		}
		assert_int_equal(stack_agg__add(agg, fr, (size_t)depth, (uint64_t)k % 1000 + 1), 0);
	}
}

static void test_order_independent(void **state)
{
	struct stack_agg *a = stack_agg__new(), *b = stack_agg__new();
	unsigned long long da, db;

	add_many(a, 0);
	add_many(b, 1);
	assert_int_equal(stack_agg__total(a), stack_agg__total(b));
	assert_int_equal(stack_agg__node_count(a), stack_agg__node_count(b));
	walk_digest = 0;
	assert_int_equal(stack_agg__walk(a, digest, NULL, NULL), 0);
	da = walk_digest;
	walk_digest = 0;
	assert_int_equal(stack_agg__walk(b, digest, NULL, NULL), 0);
	db = walk_digest;
	assert_true(da == db);
	/* Adding after a walk re-sorts for the next one. */
	add_many(a, 1);
	walk_digest = 0;
	assert_int_equal(stack_agg__walk(a, digest, NULL, NULL), 0);
	assert_int_equal(stack_agg__total(a), 2 * stack_agg__total(b));
	stack_agg__free(a);
	stack_agg__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_and_order),
		cmocka_unit_test(test_walk_skip_and_stop),
		cmocka_unit_test(test_leave_calls_match_enter),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_order_independent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
