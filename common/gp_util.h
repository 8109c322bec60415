/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_util.h - small helpers every part needs: the string hashes behind
 * gpuperf's hash tables, and a qsort that accepts an empty array.
 */
#ifndef GPUPERF_GP_UTIL_H
#define GPUPERF_GP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Elements of an array (not of a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* FNV-1a over len bytes. Stable across runs: colors and tables may rely on it. */
static inline uint32_t gp_fnv1a(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* A 64-bit finalizer (MurmurHash3's fmix64, first half): open-addressing tables keyed by u64. */
static inline uint64_t gp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/*
 * A hash for in-memory tables only (not stable across versions): eight bytes
 * per multiply, where FNV-1a takes one. Kernel names run to hundreds of
 * bytes, and the injection library's writer hashes one per kernel record.
 */
static inline uint32_t gp_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		__builtin_memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		__builtin_memcpy(&w, s, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/*
 * qsort(), except that n == 0 is fine with base == NULL (an array never
 * allocated): qsort's base must not be NULL even then, and UBSan says so.
 */
static inline void gp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif /* GPUPERF_GP_UTIL_H */
