/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_alloc.h - growable arrays: GP_ALLOC_GROW makes room for nr elements
 * (git's ALLOC_GROW, except that it returns -ENOMEM where git dies: the
 * injection library may not die, and the report says what ran out).
 *
 *	struct x *v; size_t nr, alloc;
 *	if (GP_ALLOC_GROW(v, nr + 1, alloc))
 *		return -ENOMEM;
 *	v[nr++] = ...;
 *
 * The capacity grows to max(nr, alloc * 3 / 2 + 16), so that appending one
 * at a time costs amortized O(1) copies. alloc must be a size_t (the macro
 * takes its address). Not thread-safe: the array's owner serializes.
 */
#ifndef GPUPERF_GP_ALLOC_H
#define GPUPERF_GP_ALLOC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity GP_ALLOC_GROW picks for at least nr, or 0 when nr elements of size bytes overflow. */
static inline size_t gp_alloc_nr(size_t alloc, size_t nr, size_t size)
{
	size_t max = size ? SIZE_MAX / size : SIZE_MAX, n;

	if (nr > max)
		return 0;
	n = alloc <= (max - 16) / 3 * 2 ? alloc + alloc / 2 + 16 : max;
	return n > nr ? n : nr;
}

/*
 * Grow *arr (*alloc elements of size bytes) to hold at least nr; with zero,
 * the elements past the old capacity are zeroed. 0, or -ENOMEM with *arr
 * and *alloc unchanged. The slow path of GP_ALLOC_GROW (call that), kept out
 * of line so that the check stays small in the loops that append.
 */
static __attribute__((noinline, cold, unused)) int gp_alloc_grow(void **arr, size_t *alloc,
								 size_t nr, size_t size, int zero)
{
	size_t n = gp_alloc_nr(*alloc, nr, size);
	void *p;

	if (!n)
		return -ENOMEM;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	if (zero)
		memset((char *)p + *alloc * size, 0, (n - *alloc) * size);
	*arr = p;
	*alloc = n;
	return 0;
}

/* Room for nr elements in x (capacity alloc, a size_t): 0 or -ENOMEM (x unchanged). */
#define GP_ALLOC_GROW(x, nr, alloc)                                                        \
	((size_t)(nr) <= (alloc) ? 0                                                       \
				 : gp_alloc_grow((void **)&(x), &(alloc), (nr), sizeof(*(x)), 0))

/* GP_ALLOC_GROW, and the elements it adds are zero: for arrays indexed by id. */
#define GP_ALLOC_GROW_ZERO(x, nr, alloc)                                                   \
	((size_t)(nr) <= (alloc) ? 0                                                       \
				 : gp_alloc_grow((void **)&(x), &(alloc), (nr), sizeof(*(x)), 1))

#endif /* GPUPERF_GP_ALLOC_H */
