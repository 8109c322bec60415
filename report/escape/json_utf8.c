// SPDX-License-Identifier: Apache-2.0
/* json_utf8.c - replace what is not UTF-8 in a cJSON document's strings with U+FFFD. */
#include "json_utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_escape.h"

size_t json_utf8__seq_len(const unsigned char *s)
{
	unsigned char c = s[0];

	/* The continuation checks stop at the NUL (not 10xxxxxx): no overread. */
	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))
			return 0; /* overlong; a surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0; /* overlong; above U+10FFFF */
		return 4;
	}
	return 0;
}

int json_utf8__valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s)
		return 1;
	for (; *p; p += n)
		if (!(n = json_utf8__seq_len(p)))
			return 0;
	return 1;
}

/* Where json_utf8__dup()'s two passes put the bytes: counted (p NULL), then copied. */
struct dup_sink {
	char *p;
	size_t n;
};

static void dup_put(void *ctx, const char *s, size_t n)
{
	struct dup_sink *k = ctx;

	if (k->p)
		memcpy(k->p + k->n, s, n);
	k->n += n;
}

char *json_utf8__dup(const char *s)
{
	struct dup_sink k = { 0 };
	char *out;

	json_escape(s, JSON_ESC_FFFD, dup_put, &k);
	out = malloc(k.n + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	k = (struct dup_sink){ .p = out };
	json_escape(s, JSON_ESC_FFFD, dup_put, &k);
	out[k.n] = '\0';
	return out;
}

/* Replace *s (allocated by cJSON's allocator, which is malloc here) when it is not UTF-8. */
static int fix(char **s)
{
	char *copy;

	if (!*s || json_utf8__valid(*s))
		return 0;
	copy = json_utf8__dup(*s);
	if (!copy)
		return -ENOMEM;
	free(*s);
	*s = copy;
	return 0;
}

int json_utf8__fix_tree(cJSON *root)
{
	cJSON *c;
	int err = 0;

	if (!root)
		return 0;
	/* A constant key (cJSON_StringIsConst) is one of our literals: ASCII. */
	if (!(root->type & cJSON_StringIsConst))
		err = fix(&root->string);
	if (!err && cJSON_IsString(root) && !(root->type & cJSON_IsReference))
		err = fix(&root->valuestring);
	for (c = root->child; c && !err; c = c->next)
		err = json_utf8__fix_tree(c);
	return err;
}
