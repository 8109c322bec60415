// SPDX-License-Identifier: Apache-2.0
/*
 * gp_pack.c - zero-byte packing (see gp_pack.h).
 *
 * Each word is compacted (packing) or expanded (unpacking) with one byte
 * shuffle, SSSE3's pshufb driven by a 256-entry table indexed by the mask,
 * where the CPU has it (every x86-64 CPU since 2006 but the oldest AMD
 * ones); elsewhere byte by byte. Both give the same bytes.
 */
#include "gp_pack.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_X86_SIMD 1
#endif

/* Bits set in a mask byte (x86-64's baseline has no popcnt instruction). */
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
static const uint8_t bits_set[256] = { B6(0), B6(1), B6(1), B6(2) };

static int force_portable;

void gp_pack__force_portable(int on)
{
	force_portable = on;
}

/* Bit k of the result: byte k of v is not zero. */
static unsigned nonzero_bytes(uint64_t v)
{
	v |= v >> 4;
	v |= v >> 2;
	v |= v >> 1;
	v &= 0x0101010101010101ull;
	/* Byte k's low bit lands on bit 56 + k, without carries. */
	return (unsigned)((v * 0x0102040810204080ull) >> 56);
}

static size_t pack_portable(const uint8_t *in, size_t words, uint8_t *masks, uint8_t *data)
{
	size_t w, o = 0;

	for (w = 0; w < words; w++) {
		uint64_t v;
		unsigned m;

		memcpy(&v, in + 8 * w, sizeof(v));
		m = nonzero_bytes(v);
		masks[w] = (uint8_t)m;
		for (; m; m &= m - 1)
			data[o++] = (uint8_t)(v >> (8 * __builtin_ctz(m)));
	}
	return o;
}

/* Expands words [from, to); *off is the data offset. -1 if the data runs out. */
static int unpack_portable(const uint8_t *masks, size_t from, size_t to, const uint8_t *data,
			   size_t data_len, size_t *off, uint8_t *out)
{
	size_t w, o = *off;

	for (w = from; w < to; w++) {
		uint64_t v = 0;
		unsigned m = masks[w];

		if (bits_set[m] > data_len - o)
			return -1;
		for (; m; m &= m - 1)
			v |= (uint64_t)data[o++] << (8 * __builtin_ctz(m));
		memcpy(out + 8 * w, &v, sizeof(v));
	}
	*off = o;
	return 0;
}

#ifdef HAVE_X86_SIMD
/*
 * Shuffle controls, 8 bytes each (pshufb: an index picks a source byte, a
 * set high bit gives zero): compact[m] gathers the bytes named by m to the
 * bottom; expand[m] sends the bottom bytes back to the positions in m.
 */
static uint64_t compact[256], expand[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int have_ssse3;

static void tables_init(void)
{
	unsigned m, k, n;

	for (m = 0; m < 256; m++) {
		uint8_t c[8], e[8];

		memset(c, 0x80, sizeof(c));
		memset(e, 0x80, sizeof(e));
		for (k = 0, n = 0; k < 8; k++)
			if (m & (1u << k)) {
				c[n] = (uint8_t)k;
				e[k] = (uint8_t)n++;
			}
		memcpy(&compact[m], c, sizeof(c));
		memcpy(&expand[m], e, sizeof(e));
	}
	__builtin_cpu_init();
	have_ssse3 = __builtin_cpu_supports("ssse3");
}

static int use_simd(void)
{
	pthread_once(&tables_once, tables_init);
	return have_ssse3 && !force_portable;
}

/* data needs 8 bytes of room past the packed bytes: every word stores 8. */
__attribute__((target("ssse3"))) static size_t pack_ssse3(const uint8_t *in, size_t words,
							 uint8_t *masks, uint8_t *data)
{
	const __m128i zero = _mm_setzero_si128();
	size_t w, o = 0;

	for (w = 0; w < words; w++) {
		__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(in + 8 * w));
		unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) & 0xff;
		__m128i ctl = _mm_cvtsi64_si128((long long)compact[m]);

		masks[w] = (uint8_t)m;
		_mm_storel_epi64((__m128i *)(void *)(data + o), _mm_shuffle_epi8(v, ctl));
		o += bits_set[m];
	}
	return o;
}

/*
 * Bits set in each byte of v, in that byte: the counts of eight masks at
 * once (a mask's count is at most 8, so no byte carries into the next).
 */
static uint64_t byte_counts(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	return (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
}

/*
 * Words [0, to) while 8 data bytes can be loaded; returns where it stopped.
 * Eight words at a time, whose data offsets come from one prefix sum of
 * their masks' counts (a multiply sums the bytes below each byte), so the
 * eight loads do not wait on each other; one word at a time near the end.
 */
__attribute__((target("ssse3"))) static size_t unpack_ssse3(const uint8_t *masks, size_t to,
							   const uint8_t *data, size_t data_len,
							   size_t *off, uint8_t *out)
{
	size_t w = 0, o = *off;
	int k;

	/* eight words take at most 64 bytes, and the last load reads 8 from its start */
	for (; to - w >= 8 && data_len - o >= 72; w += 8) {
		uint64_t m8, sums;

		memcpy(&m8, masks + w, sizeof(m8));
		sums = byte_counts(m8) * 0x0101010101010101ull; /* byte k: words 0..k */
#pragma GCC unroll 8
		for (k = 0; k < 8; k++) {
			size_t at = o + (k ? (size_t)(uint8_t)(sums >> (8 * k - 8)) : 0);
			__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(data + at));
			__m128i ctl = _mm_cvtsi64_si128((long long)expand[(uint8_t)(m8 >> (8 * k))]);

			_mm_storel_epi64((__m128i *)(void *)(out + 8 * (w + k)), _mm_shuffle_epi8(v, ctl));
		}
		o += sums >> 56;
	}
	for (; w < to && data_len - o >= 8; w++) {
		unsigned m = masks[w];
		__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(data + o));
		__m128i ctl = _mm_cvtsi64_si128((long long)expand[m]);

		_mm_storel_epi64((__m128i *)(void *)(out + 8 * w), _mm_shuffle_epi8(v, ctl));
		o += bits_set[m];
	}
	*off = o;
	return w;
}
#endif

static size_t pack_words(const uint8_t *in, size_t words, uint8_t *masks, uint8_t *data)
{
#ifdef HAVE_X86_SIMD
	if (use_simd())
		return pack_ssse3(in, words, masks, data);
#endif
	return pack_portable(in, words, masks, data);
}

size_t gp_pack2(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t *out)
{
	size_t wa = alen / 8, words = wa + blen / 8, n;

	n = pack_words(a, wa, out, out + words);
	n += pack_words(b, blen / 8, out + wa, out + words + n);
	return words + n;
}

size_t gp_pack(const uint8_t *in, size_t len, uint8_t *out)
{
	return gp_pack2(in, len, NULL, 0, out);
}

int gp_unpack(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t words = out_len / 8, w = 0, off = 0, data_len;
	const uint8_t *data;

	if (out_len % 8 || in_len < words)
		return -1;
	data = in + words;
	data_len = in_len - words;
#ifdef HAVE_X86_SIMD
	if (use_simd())
		w = unpack_ssse3(in, words, data, data_len, &off, out);
#endif
	/* The masks must account for every data byte, no more, no fewer. */
	return unpack_portable(in, w, words, data, data_len, &off, out) || off != data_len ? -1 : 0;
}
