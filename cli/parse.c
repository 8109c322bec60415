// SPDX-License-Identifier: Apache-2.0
/* parse.c - the one checked number parser of the CLI. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "parse.h"

/* Longest list we take: more CPUs or pids than this is a typo, not a request. */
#define PARSE_LIST_MAX 65536

/* Digits only (strtoull alone takes a sign and leading spaces): 0 or -ERANGE/-EINVAL. */
static int scan_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int invalid(const char *cmd, const char *opt, const char *s, const char *what, uint64_t lo,
		   uint64_t hi)
{
	fprintf(stderr, "gpuperf %s: invalid %s '%s': expected %s in [%" PRIu64 ", %" PRIu64 "]\n",
		cmd, opt, s, what, lo, hi);
	return -EINVAL;
}

int parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
	      uint64_t *out)
{
	uint64_t v;

	if (scan_u64(s, strlen(s), &v) || v < lo || v > hi)
		return invalid(cmd, opt, s, "an integer", lo, hi);
	*out = v;
	return 0;
}

static bool list_has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

int parse_u64_list(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
		   unsigned flags, uint64_t **out, size_t *nr)
{
	const char *what = flags & PARSE_RANGES ? "a comma list of integers or ranges (A-B)"
						 : "a comma list of integers";
	uint64_t *v = NULL, a, b, x;
	size_t n = 0, cap = 0;
	const char *p = s;
	int err = 0;

	for (;;) {
		size_t len = strcspn(p, ","), dash;

		dash = strcspn(p, "-");
		if (dash < len && (flags & PARSE_RANGES)) {
			if (scan_u64(p, dash, &a) || scan_u64(p + dash + 1, len - dash - 1, &b) || a > b) {
				err = -EINVAL;
				goto cleanup;
			}
		} else if (scan_u64(p, len, &a)) {
			err = -EINVAL;
			goto cleanup;
		} else {
			b = a;
		}
		if (a < lo || b > hi) {
			err = -EINVAL;
			goto cleanup;
		}
		for (x = a; x <= b; x++) {
			if (list_has(v, n, x))
				continue;
			if (n == PARSE_LIST_MAX) {
				err = -EINVAL;
				goto cleanup;
			}
			if (GP_ALLOC_GROW(v, n + 1, cap)) {
				err = -ENOMEM;
				goto cleanup;
			}
			v[n++] = x;
			if (x == UINT64_MAX)
				break;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*out = v;
	*nr = n;
	v = NULL;
cleanup:
	if (err == -ENOMEM)
		fprintf(stderr, "gpuperf %s: cannot parse %s: %s\n", cmd, opt, strerror(ENOMEM));
	else if (err)
		invalid(cmd, opt, s, what, lo, hi);
	free(v);
	return err;
}
