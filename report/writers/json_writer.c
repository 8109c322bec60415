// SPDX-License-Identifier: Apache-2.0
/* json_writer.c - trace.json's output buffer: flushing, long pieces, escaped strings. */
#include "json_writer.h"

#include <errno.h>
#include <string.h>

#include "bulk_out.h"
#include "json_escape.h"

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

static void jw_put_cb(void *w, const char *s, size_t n)
{
	jw_put(w, s, n);
}

void jw_str_prefixed(struct jw *w, const char *prefix, const char *str)
{
	jw_lit(w, "\"");
	if (*prefix)
		jw_puts(w, prefix);
	json_escape(str, JSON_ESC_QUOTE, jw_put_cb, w);
	jw_lit(w, "\"");
}
