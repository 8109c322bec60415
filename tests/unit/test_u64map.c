// SPDX-License-Identifier: Apache-2.0
/*
 * test_u64map.c - u64map.h: every key put is found with its value after
 * any number of rehashes, absent keys (0 and ~0 included) read 0, keys
 * that collide in the low bits still land apart, an empty map answers, and
 * a map reserved for n keys takes them without growing again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "u64map.h"

static void test_empty(void **state)
{
	struct u64map m = { 0 };

	(void)state;
	assert_int_equal(u64map_get(&m, 0), 0);
	assert_int_equal(u64map_get(&m, 12345), 0);
	u64map_free(&m);
	u64map_free(&m); /* twice: a freed map is an empty one */
}

static void test_put_get_across_rehashes(void **state)
{
	struct u64map m = { 0 };
	uint64_t i;

	(void)state;
	/* keys 4096 apart: the same low bits, only the hash spreads them */
	for (i = 0; i < 100000; i++)
		assert_int_equal(u64map_put(&m, i << 12, (uint32_t)i + 1), 0);
	assert_int_equal(m.nr, 100000);
	assert_true(2 * m.nr <= m.cap);
	assert_int_equal(m.cap & (m.cap - 1), 0);
	for (i = 0; i < 100000; i++)
		assert_int_equal(u64map_get(&m, i << 12), i + 1);
	assert_int_equal(u64map_get(&m, 1), 0);
	assert_int_equal(u64map_get(&m, UINT64_MAX), 0);
	assert_int_equal(u64map_get(&m, 100000ull << 12), 0);
	u64map_free(&m);
	assert_int_equal(m.cap, 0);
}

static void test_find_then_fill(void **state)
{
	struct u64map m = { 0 };
	size_t slot;

	(void)state;
	/* the timeline's pattern: reserve, look up, fill the slot it gave */
	assert_int_equal(u64map_reserve(&m), 0);
	assert_int_equal(u64map_find(&m, 0, &slot), 0);
	m.keys[slot] = 0; /* key 0 is a key like any other */
	m.vals[slot] = 7;
	m.nr++;
	assert_int_equal(u64map_get(&m, 0), 7);
	assert_int_equal(u64map_put(&m, UINT64_MAX, 9), 0);
	assert_int_equal(u64map_get(&m, UINT64_MAX), 9);
	assert_int_equal(u64map_find(&m, UINT64_MAX, &slot), 9);
	assert_int_equal(m.keys[slot], UINT64_MAX);
	u64map_free(&m);
}

static void test_reserve_nr(void **state)
{
	struct u64map m = { 0 };
	size_t cap;
	uint64_t i;

	(void)state;
	assert_int_equal(u64map_reserve_nr(&m, 5000), 0);
	cap = m.cap;
	assert_true(cap >= 2 * 5000);
	assert_int_equal(cap & (cap - 1), 0);
	for (i = 0; i < 5000; i++)
		assert_int_equal(u64map_put(&m, i * 7919, (uint32_t)i + 1), 0);
	assert_int_equal(m.cap, cap); /* no rehash on the way */
	/* a smaller reservation keeps what is there */
	assert_int_equal(u64map_reserve_nr(&m, 10), 0);
	assert_int_equal(m.cap, cap);
	for (i = 0; i < 5000; i++)
		assert_int_equal(u64map_get(&m, i * 7919), i + 1);
	/* growing a full map keeps every key */
	assert_int_equal(u64map_reserve_nr(&m, 40000), 0);
	assert_true(m.cap >= 80000);
	for (i = 0; i < 5000; i++)
		assert_int_equal(u64map_get(&m, i * 7919), i + 1);
	assert_int_equal(u64map_reserve_nr(&m, SIZE_MAX / 2), -ENOMEM);
	assert_int_equal(u64map_get(&m, 7919), 2);
	u64map_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_across_rehashes),
		cmocka_unit_test(test_find_then_fill),
		cmocka_unit_test(test_reserve_nr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
