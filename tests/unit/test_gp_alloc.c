// SPDX-License-Identifier: Apache-2.0
/*
 * test_gp_alloc.c - GP_ALLOC_GROW: appends keep every element, growth is
 * geometric, an overflowing size is -ENOMEM with the array left as it was,
 * and GP_ALLOC_GROW_ZERO hands out zeroed elements.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "gp_alloc.h"

struct pair {
	uint64_t a;
	uint32_t b;
};

static void test_append_keeps_elements(void **state)
{
	struct pair *v = NULL;
	size_t nr = 0, alloc = 0, i, grows = 0;

	(void)state;
	for (i = 0; i < 100000; i++) {
		size_t before = alloc;

		assert_int_equal(GP_ALLOC_GROW(v, nr + 1, alloc), 0);
		assert_true(alloc >= nr + 1);
		if (alloc != before) {
			grows++;
			/* geometric: at least half again, plus 16 */
			assert_true(alloc >= before + before / 2 + 16);
		}
		v[nr++] = (struct pair){ .a = i * 3, .b = (uint32_t)i };
	}
	/* 100000 appends in a few dozen reallocations, not thousands */
	assert_true(grows < 40);
	for (i = 0; i < nr; i++) {
		assert_int_equal(v[i].a, i * 3);
		assert_int_equal(v[i].b, i);
	}
	free(v);
}

static void test_room_is_a_no_op(void **state)
{
	int *v = NULL, *was;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(GP_ALLOC_GROW(v, 10, alloc), 0);
	was = v;
	assert_int_equal(alloc, 16); /* 0 * 3 / 2 + 16 */
	assert_int_equal(GP_ALLOC_GROW(v, alloc, alloc), 0);
	assert_ptr_equal(v, was);
	/* a jump past the next step gets exactly what it asked for */
	assert_int_equal(GP_ALLOC_GROW(v, 1000, alloc), 0);
	assert_int_equal(alloc, 1000);
	free(v);
}

static void test_overflow_is_enomem(void **state)
{
	struct pair *v = NULL;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(GP_ALLOC_GROW(v, 4, alloc), 0);
	v[3].a = 42;
	assert_int_equal(GP_ALLOC_GROW(v, SIZE_MAX / 8, alloc), -ENOMEM);
	assert_int_equal(GP_ALLOC_GROW(v, SIZE_MAX, alloc), -ENOMEM);
	assert_non_null(v);
	assert_int_equal(alloc, 16);
	assert_int_equal(v[3].a, 42);
	/* near the top, the step is clamped to what can be counted in bytes */
	assert_int_equal(gp_alloc_nr(SIZE_MAX / 16 / 4 * 3, SIZE_MAX / 16 / 4 * 3 + 1, 16),
			 SIZE_MAX / 16);
	assert_int_equal(gp_alloc_nr(0, SIZE_MAX / 16 + 1, 16), 0);
	free(v);
}

static void test_zero(void **state)
{
	uint32_t *v = NULL;
	size_t alloc = 0, i;

	(void)state;
	assert_int_equal(GP_ALLOC_GROW_ZERO(v, 5, alloc), 0);
	for (i = 0; i < alloc; i++)
		v[i] = 0xdead;
	assert_int_equal(GP_ALLOC_GROW_ZERO(v, 5000, alloc), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(v[i], 0xdead);
	for (; i < alloc; i++)
		assert_int_equal(v[i], 0);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_keeps_elements),
		cmocka_unit_test(test_room_is_a_no_op),
		cmocka_unit_test(test_overflow_is_enomem),
		cmocka_unit_test(test_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
