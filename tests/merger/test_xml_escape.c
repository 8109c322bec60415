// SPDX-License-Identifier: Apache-2.0
/* test_xml_escape.c - unit tests for XML escaping: entities, control bytes, invalid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xml_escape.h"

static char *esc(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(xml_escape__write(f, s, len), 0);
	fclose(f);
	return buf;
}

static void check(const char *in, const char *want)
{
	char *got = esc(in, strlen(in));

	assert_string_equal(got, want);
	free(got);
}

static void test_entities(void **state)
{
	check("", "");
	check("plain text", "plain text");
	check("a<b>&\"c\"'d'", "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
	check("std::vector<int>::push_back(int&&)", "std::vector&lt;int&gt;::push_back(int&amp;&amp;)");
	check("]]>", "]]&gt;");
}

static void test_control_bytes(void **state)
{
	check("tab\there\nnl\rcr", "tab\there\nnl\rcr");
	check("bell\x07 esc\x1b del\x7f", "bell? esc? del?");
}

static void test_utf8(void **state)
{
	check("\xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "\xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
	check("bad \xff byte", "bad ? byte");
	check("cut \xe2\x82", "cut ??");
	check("overlong \xc0\xaf", "overlong ??");
	check("surrogate \xed\xa0\x80", "surrogate ???");
	check("nonchar \xef\xbf\xbf", "nonchar ???");
	check("lone cont \x80 x", "lone cont ? x");
}

static void test_len_and_nul(void **state)
{
	char *got = esc("abc<def", 4);

	assert_string_equal(got, "abc&lt;");
	free(got);
	got = esc("ab\0cd", 5);
	assert_string_equal(got, "ab");
	free(got);
	/* A multibyte character cut by len is not valid UTF-8. */
	got = esc("\xc3\xa9", 1);
	assert_string_equal(got, "?");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entities),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_len_and_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
