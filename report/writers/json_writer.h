/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_writer.h - struct jw, trace.json's output buffer: pieces of JSON
 * appended by inline helpers, numbers formatted by hand, strings escaped
 * (jw_str()), and the buffer written out in large pieces, to gzip or
 * through bulk_out.
 *
 * Fixed-size fields go in through a cursor p: jw_room(w, P_ROOM), p_lit()
 * and the fmt_*() helpers, jw_done(w, p). Errors stay in w->err (the first
 * -errno); writing goes on into the buffer, and the caller checks at the
 * end. Not thread-safe.
 */
#ifndef GPUPERF_JSON_WRITER_H
#define GPUPERF_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

struct bulk_out;


/*
 * Output goes through our own buffer and leaves in large gzwrite()s: the
 * document is millions of small pieces, and gzwrite() per piece costs more
 * than the formatting. A plain file is written from bulk_out's buffers
 * instead (chrome_trace__write_path()). Numbers are formatted by hand (no
 * printf in the per-event path): every event is a handful of literals and
 * integers.
 */
#define JW_BUF (1u << 20)
#define JW_NUM 32 /* room any number or fixed-width piece needs */

struct jw {
	gzFile gz;
	struct bulk_out *bo; /* instead of gz: buf is bulk_out's */
	size_t len, cap;     /* cap: JW_BUF, or BULK_OUT_CAP from bulk_out */
	int err;
	unsigned long flushes; /* a piece of buf is still whole if this did not move */
	char *buf;
};

/* Write buf out; with bulk_out, buf is then its next buffer, which may start with a few bytes. */
void jw_flush(struct jw *w);

/* jw_put() of more than the room left: in pieces, flushing between them. */
void jw_put_long(struct jw *w, const char *s, size_t n);

/* Room for n more bytes (n <= JW_BUF): where to write them. */
static inline char *jw_room(struct jw *w, size_t n)
{
	if (w->cap - w->len < n)
		jw_flush(w);
	return w->buf + w->len;
}

static inline void jw_put(struct jw *w, const char *s, size_t n)
{
	if (n > w->cap - w->len) {
		jw_put_long(w, s, n);
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* A string literal: its length is known at compile time. */
#define jw_lit(w, s) jw_put((w), "" s, sizeof(s) - 1)

static inline void jw_puts(struct jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

static const char digits2[201] = "00010203040506070809"
				 "10111213141516171819"
				 "20212223242526272829"
				 "30313233343536373839"
				 "40414243444546474849"
				 "50515253545556575859"
				 "60616263646566676869"
				 "70717273747576777879"
				 "80818283848586878889"
				 "90919293949596979899";

/* Decimal digits of v. */
static inline unsigned dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	unsigned t;

	if (v < 10)
		return 1;
	t = ((64 - (unsigned)__builtin_clzll(v)) * 1233) >> 12; /* log10(2) ~ 1233 / 4096 */
	return t + 1 - (v < pow10[t]);
}

/* v in decimal at p (at most 20 bytes); returns the end. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	char *e = p + dec_len(v), *q = e;
	uint32_t x;

	/* Eight digits at a time in 32-bit arithmetic, then pairs. */
	while (v >= 100000000ull) {
		uint32_t lo = (uint32_t)(v % 100000000ull);
		int k;

		v /= 100000000ull;
		for (k = 0; k < 4; k++) {
			q -= 2;
			memcpy(q, digits2 + 2 * (lo % 100), 2);
			lo /= 100;
		}
	}
	x = (uint32_t)v;
	while (x >= 100) {
		q -= 2;
		memcpy(q, digits2 + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10) {
		q -= 2;
		memcpy(q, digits2 + 2 * x, 2);
	} else {
		*--q = (char)('0' + x);
	}
	return e;
}

static inline void jw_u64(struct jw *w, uint64_t v)
{
	char *p = jw_room(w, JW_NUM);

	w->len = (size_t)(fmt_u64(p, v) - w->buf);
}

static inline char *fmt_i64(char *p, int64_t v)
{
	if (v >= 0)
		return fmt_u64(p, (uint64_t)v);
	*p++ = '-';
	return fmt_u64(p, (uint64_t)-(v + 1) + 1);
}

/* ns as µs with exactly three decimals: integer math, so no rounding drift at any magnitude. */
static inline char *fmt_us(char *p, uint64_t ns)
{
	unsigned f = (unsigned)(ns % 1000);

	p = fmt_u64(p, ns / 1000);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	memcpy(p + 2, digits2 + 2 * (f % 100), 2);
	return p + 4;
}

static inline void jw_i64(struct jw *w, int64_t v)
{
	w->len = (size_t)(fmt_i64(jw_room(w, JW_NUM), v) - w->buf);
}

static inline void jw_us(struct jw *w, uint64_t ns)
{
	w->len = (size_t)(fmt_us(jw_room(w, JW_NUM), ns) - w->buf);
}

/*
 * The hot event writers format straight into the buffer through a local
 * cursor (a store through w->buf could alias w->len, so the jw_* calls
 * reload and store it every time): jw_room() enough for the fixed-size
 * fields, fill them with the p_* helpers, jw_done().
 */
#define P_ROOM 512 /* more than any run of fixed-size fields between two strings */
#define p_lit(p, s) ((p) = (char *)memcpy((p), "" s, sizeof(s) - 1) + sizeof(s) - 1)

static inline void jw_done(struct jw *w, const char *p)
{
	w->len = (size_t)(p - w->buf);
}

/* A JSON string: `prefix` (a literal of ours, written as is) then str escaped (NULL: ""). */
void jw_str_prefixed(struct jw *w, const char *prefix, const char *str);

static inline void jw_str(struct jw *w, const char *str)
{
	jw_str_prefixed(w, "", str);
}

#endif /* GPUPERF_JSON_WRITER_H */
