// SPDX-License-Identifier: Apache-2.0
/* json_writer.c - trace.json's output buffer: flushing, long pieces, escaped strings. */
#include "json_writer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bulk_out.h"
#include "json_utf8.h"

void jw_flush(struct jw *w)
{
	w->flushes++;
	if (w->bo && !w->err) {
		char *next = (char *)bulk_out__flush(w->bo, w->len, &w->len);

		if (next) {
			w->buf = next;
			return;
		}
		w->err = -errno;
	} else if (w->len && !w->err && gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) {
		w->err = -EIO;
	}
	w->len = 0;
}


void jw_put_long(struct jw *w, const char *s, size_t n)
{
	while (n) {
		size_t room = w->cap - w->len, k = n < room ? n : room;

		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == w->cap)
			jw_flush(w);
	}
}

/* 1 for the bytes a JSON string can hold as they are (printable ASCII but '"' and '\\'). */
static const unsigned char plain[256] = {
	[0x20] = 1, [0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1, [0x7f] = 1,
};

void jw_str_prefixed(struct jw *w, const char *prefix, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	const unsigned char *run = s;

	jw_lit(w, "\"");
	if (*prefix)
		jw_puts(w, prefix);
	for (;;) {
		const char *esc = NULL;
		char tmp[8];
		size_t n;

		while (plain[*s])
			s++;
		if (!*s)
			break;
		if (*s >= 0x80) {
			/* The continuation-byte checks stop at the NUL, so no overread. */
			n = json_utf8__seq_len(s); /* RFC 3629: no overlongs, no surrogates */
			if (n) {
				s += n;
				continue;
			}
			esc = "?";
		} else if (*s == '"') {
			esc = "\\\"";
		} else if (*s == '\\') {
			esc = "\\\\";
		} else if (*s == '\n') {
			esc = "\\n";
		} else if (*s == '\t') {
			esc = "\\t";
		} else if (*s == '\r') {
			esc = "\\r";
		} else if (*s == '\b') {
			esc = "\\b";
		} else if (*s == '\f') {
			esc = "\\f";
		} else {
			snprintf(tmp, sizeof(tmp), "\\u%04x", *s);
			esc = tmp;
		}
		jw_put(w, (const char *)run, (size_t)(s - run));
		jw_puts(w, esc);
		s++;
		run = s;
	}
	jw_put(w, (const char *)run, (size_t)(s - run));
	jw_lit(w, "\"");
}
