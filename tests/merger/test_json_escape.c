// SPDX-License-Identifier: Apache-2.0
/*
 * test_json_escape.c - json_escape.h under both of its policies: trace.json's
 * (JSON escapes, '?' for a byte that is not UTF-8) and the cJSON documents'
 * (bytes as they are, U+FFFD for a byte that is not UTF-8, json_utf8__dup()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_escape.h"

struct buf {
	char s[512];
	size_t n;
	unsigned puts;
};

static void put(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;

	assert_true(b->n + n < sizeof(b->s));
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->puts++;
}

static void check(const char *in, unsigned flags, const char *want)
{
	struct buf b = { .n = 0 };

	json_escape(in, flags, put, &b);
	b.s[b.n] = '\0';
	assert_string_equal(b.s, want);
}

/* Inputs both policies see: what trace.json writes, what the cJSON documents hold. */
static const struct {
	const char *in, *quoted, *fffd;
} cases[] = {
	{ "", "", "" },
	{ "plain kernel<int>(float*)", "plain kernel<int>(float*)", "plain kernel<int>(float*)" },
	{ "a\"b\\c", "a\\\"b\\\\c", "a\"b\\c" },
	{ "\n\t\r\b\f", "\\n\\t\\r\\b\\f", "\n\t\r\b\f" },
	{ "x\x01y\x1f", "x\\u0001y\\u001f", "x\x01y\x1f" },
	{ "del\x7f", "del\x7f", "del\x7f" },
	/* valid UTF-8 of 2, 3 and 4 bytes passes */
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	/* Latin-1, a stray continuation byte, an overlong '/', a surrogate, above U+10FFFF */
	{ "caf\xe9", "caf?", "caf\xef\xbf\xbd" },
	{ "\x80x", "?x", "\xef\xbf\xbdx" },
	{ "\xc0\xaf", "??", "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xed\xa0\x80", "???", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xf4\x90\x80\x80", "????",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	/* a sequence cut short by the end of the string: no read past the NUL */
	{ "\"\xe2\x82", "\\\"??", "\"\xef\xbf\xbd\xef\xbf\xbd" },
};

static void test_trace_json(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(cases[i].in, JSON_ESC_QUOTE, cases[i].quoted);
	check(NULL, JSON_ESC_QUOTE, "");
}

static void test_fffd(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dup = json_utf8__dup(cases[i].in);

		check(cases[i].in, JSON_ESC_FFFD, cases[i].fffd);
		assert_non_null(dup);
		assert_string_equal(dup, cases[i].fffd);
		assert_int_equal(json_utf8__valid(dup), 1);
		free(dup);
	}
}

/* Text with nothing to escape goes out in one piece (a run), not a put per byte. */
static void test_runs(void **state)
{
	struct buf b = { .n = 0 };

	(void)state;
	json_escape("one long run of plain text \xc3\xa9 and more", JSON_ESC_QUOTE, put, &b);
	assert_int_equal(b.puts, 1);
	b = (struct buf){ .n = 0 };
	json_escape("a\"b", JSON_ESC_QUOTE, put, &b);
	assert_int_equal(b.puts, 3); /* "a", the escape, "b" */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_json),
		cmocka_unit_test(test_fffd),
		cmocka_unit_test(test_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
