/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_escape.h - the one loop that makes a C string fit for a JSON
 * document, for the two ways gpuperf writes JSON:
 *
 *  - trace.json is written by hand (json_writer.h): '"', '\\' and control
 *    characters become JSON escapes, and a byte that starts no valid UTF-8
 *    sequence becomes '?' (JSON_ESC_QUOTE).
 *  - summary.json and `gpuperf diff --json` are cJSON documents, which
 *    escape '"', '\\' and control characters themselves but copy any other
 *    byte: there only the invalid bytes are replaced, with U+FFFD, the
 *    replacement character (JSON_ESC_FFFD; json_utf8.h).
 *
 * Valid UTF-8 (json_utf8__seq_len(): RFC 3629) passes as it is. The output
 * goes out in pieces through a put callback; json_escape() is inline so
 * that a caller's constant flags and put compile to its own loop.
 */
#ifndef GPUPERF_JSON_ESCAPE_H
#define GPUPERF_JSON_ESCAPE_H

#include <stddef.h>

#include "json_utf8.h"

#define JSON_ESC_QUOTE 1u /* '"', '\\' and control characters as JSON escapes */
#define JSON_ESC_FFFD  2u /* an invalid byte becomes U+FFFD (else '?') */

/*
 * Per byte, the flags under which it passes as it is: printable ASCII but
 * '"' and '\\' (and DEL) under any; the other bytes below 0x80 but NUL
 * only without JSON_ESC_QUOTE; bytes from 0x80 never (UTF-8 is checked).
 */
#define JSON_ESC_PLAIN_ANY 1u
#define JSON_ESC_PLAIN_RAW 2u
extern const unsigned char json_escape_plain[256];

/* Write n bytes at s to ctx. */
typedef void json_put_fn(void *ctx, const char *s, size_t n);

/*
 * The escape of the byte at s, which is neither plain nor the start of a
 * valid UTF-8 sequence, under flags: a NUL-terminated string, in tmp (at
 * least 8 bytes) when it has to be built.
 */
const char *json_escape__byte(unsigned char c, unsigned flags, char *tmp);

/* Write str (NULL: "") through put(ctx, ...) made fit for JSON under flags. */
static inline __attribute__((always_inline)) void json_escape(const char *str, unsigned flags,
							      json_put_fn *put, void *ctx)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	const unsigned char *run = s;
	unsigned plain = flags & JSON_ESC_QUOTE ? JSON_ESC_PLAIN_ANY : JSON_ESC_PLAIN_RAW;

	for (;;) {
		const char *esc;
		char tmp[8];
		size_t n;

		while (json_escape_plain[*s] & plain)
			s++;
		if (!*s)
			break;
		if (*s >= 0x80) {
			/* the continuation-byte checks stop at the NUL, so no overread */
			n = json_utf8__seq_len(s);
			if (n) {
				s += n;
				continue;
			}
		}
		esc = json_escape__byte(*s, flags, tmp);
		put(ctx, (const char *)run, (size_t)(s - run));
		put(ctx, esc, __builtin_strlen(esc));
		s++;
		run = s;
	}
	put(ctx, (const char *)run, (size_t)(s - run));
}

#endif /* GPUPERF_JSON_ESCAPE_H */
