/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_util.h - two small helpers every part needs: the string hash behind
 * gpuperf's hash tables, and a qsort that accepts an empty array.
 */
#ifndef GPUPERF_GP_UTIL_H
#define GPUPERF_GP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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
