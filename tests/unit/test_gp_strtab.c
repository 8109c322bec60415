// SPDX-License-Identifier: Apache-2.0
/*
 * test_gp_strtab.c - the string interner: the same bytes give the same id,
 * ids are dense in first-seen order, strings keep their address across
 * growth, binary and empty strings are strings like others, and strings
 * whose hashes collide are still told apart.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gp_strtab.h"

static void test_dense_ids_stable_strings(void **state)
{
	struct gp_strtab t = { 0 };
	const char *first;
	char buf[32];
	bool fresh;
	int64_t id;
	int i;

	(void)state;
	assert_int_equal(gp_strtab__find(&t, "x", 1), -ENOENT);
	assert_int_equal(gp_strtab__intern(&t, "main", 4, &fresh), 0);
	assert_true(fresh);
	first = gp_strtab__str(&t, 0);
	for (i = 0; i < 50000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		id = gp_strtab__intern(&t, buf, strlen(buf), &fresh);
		assert_int_equal(id, i + 1);
		assert_true(fresh);
	}
	assert_int_equal(t.nr, 50001);
	for (i = 0; i < 50000; i += 7) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		id = gp_strtab__intern(&t, buf, strlen(buf), &fresh);
		assert_int_equal(id, i + 1);
		assert_false(fresh);
		assert_string_equal(gp_strtab__str(&t, (uint32_t)id), buf);
		assert_int_equal(gp_strtab__len(&t, (uint32_t)id), strlen(buf));
		assert_int_equal(gp_strtab__find(&t, buf, strlen(buf)), id);
	}
	/* the first string did not move while the table grew */
	assert_ptr_equal(gp_strtab__str(&t, 0), first);
	assert_string_equal(first, "main");
	assert_int_equal(gp_strtab__intern(&t, "main", 4, NULL), 0);
	assert_int_equal(t.nr, 50001);
	gp_strtab__release(&t);
	assert_int_equal(t.nr, 0);
	gp_strtab__release(&t);
}

static void test_bytes_not_c_strings(void **state)
{
	struct gp_strtab t = { 0 };
	static const char a[] = { 'a', 0, 'b' }, b[] = { 'a', 0, 'c' };

	(void)state;
	assert_int_equal(gp_strtab__intern(&t, "", 0, NULL), 0);
	assert_int_equal(gp_strtab__intern(&t, a, 3, NULL), 1);
	assert_int_equal(gp_strtab__intern(&t, b, 3, NULL), 2); /* differ past the NUL */
	assert_int_equal(gp_strtab__intern(&t, a, 1, NULL), 3); /* a prefix is another string */
	assert_int_equal(gp_strtab__intern(&t, a, 3, NULL), 1);
	assert_memory_equal(gp_strtab__str(&t, 2), b, 3);
	assert_int_equal(gp_strtab__str(&t, 2)[3], '\0');
	assert_int_equal(gp_strtab__len(&t, 0), 0);
	gp_strtab__release(&t);
}

static void test_colliding_hashes(void **state)
{
	struct gp_strtab t = { 0 };
	char buf[16];
	int i;

	(void)state;
	/* one hash for all: only the bytes can tell them apart */
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(gp_strtab__intern_hashed(&t, buf, strlen(buf), 42, NULL), i);
	}
	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(gp_strtab__intern_hashed(&t, buf, strlen(buf), 42, NULL), i);
	}
	assert_int_equal(t.nr, 2000);
	gp_strtab__release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_ids_stable_strings),
		cmocka_unit_test(test_bytes_not_c_strings),
		cmocka_unit_test(test_colliding_hashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
