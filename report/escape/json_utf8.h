/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_utf8.h - makes the strings of a cJSON document valid UTF-8 before it
 * is printed (summary.json, `gpuperf diff --json`).
 *
 * cJSON escapes '"', '\\' and control characters but copies every other
 * byte as it is, so a thread, file or kernel name that is not UTF-8 (a comm
 * set with arbitrary bytes, a Latin-1 path) would make the whole document
 * unreadable to strict JSON parsers. Each byte that does not belong to a
 * valid UTF-8 sequence (RFC 3629: no overlong forms, no UTF-16 surrogates,
 * nothing above U+10FFFF, no sequence cut short) becomes U+FFFD, the
 * replacement character; valid text is left as it is. The replacing is
 * json_escape()'s loop (json_escape.h) under its JSON_ESC_FFFD policy.
 */
#ifndef GPUPERF_JSON_UTF8_H
#define GPUPERF_JSON_UTF8_H

#include <stddef.h>

struct cJSON;

/* Length of the valid UTF-8 sequence at s (s is NUL-terminated), 0 if none. */
size_t json_utf8__seq_len(const unsigned char *s);

/* Whether s is valid UTF-8 throughout. NULL is. */
int json_utf8__valid(const char *s);

/* A malloc'ed copy of s with each invalid byte replaced by U+FFFD; NULL + ENOMEM. */
char *json_utf8__dup(const char *s);

/* Fix every string value and key of the tree in place. 0 or -ENOMEM. */
int json_utf8__fix_tree(struct cJSON *root);

#endif /* GPUPERF_JSON_UTF8_H */
