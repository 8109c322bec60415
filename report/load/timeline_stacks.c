// SPDX-License-Identifier: Apache-2.0
/*
 * timeline_stacks.c - the frame pool (tl->frames): every distinct stack
 * stored once, found again by the hash of its frames. The inline front
 * (add_stack(), a cache of recent stacks) is timeline_priv.h's; a stack
 * it does not know comes here. The index is freed by timeline__finish().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "timeline_priv.h"

static uint64_t hash_frames(const uint64_t *ips, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* Double the table of distinct stacks; -ENOMEM. */
static int stk_grow(struct tl_priv *p)
{
	size_t ncap = p->stk_cap ? 2 * p->stk_cap : 1024, i, j;
	struct stk_ent *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < p->stk_cap; i++) {
		if (!p->stk[i].n)
			continue;
		for (j = p->stk[i].hash & (ncap - 1); n[j].n; j = (j + 1) & (ncap - 1))
			;
		n[j] = p->stk[i];
	}
	free(p->stk);
	p->stk = n;
	p->stk_cap = ncap;
	return 0;
}

/* add_stack() for a stack not in the cache of recent ones (its slot r there): by its hash. */
__attribute__((noinline)) int tl_add_stack_slow(struct timeline *tl, struct tl_stack *st,
						    const uint64_t *ips, size_t n, size_t r)
{
	struct tl_priv *p = tl->priv;
	size_t j;
	uint64_t h;

	if (2 * (p->stk_nr + 1) > p->stk_cap && stk_grow(p))
		return -ENOMEM;
	h = hash_frames(ips, n);
	for (j = h & (p->stk_cap - 1); p->stk[j].n; j = (j + 1) & (p->stk_cap - 1)) {
		const struct stk_ent *e = &p->stk[j];

		if (e->hash == h && e->n == n && same_frames(tl->frames + e->off, ips, n)) {
			st->off = e->off;
			p->stk_recent[r].off = e->off;
			p->stk_recent[r].n = (uint32_t)n;
			return 0;
		}
	}
	if (tl->nr_frames + n > UINT32_MAX)
		return -ENOMEM; /* tl_stack.off is 32-bit */
	if (GP_ALLOC_GROW(tl->frames, tl->nr_frames + n, p->alloc.frames))
		return -ENOMEM;
	memcpy(tl->frames + tl->nr_frames, ips, n * sizeof(*ips));
	p->stk[j].off = (uint32_t)tl->nr_frames;
	p->stk[j].n = (uint32_t)n;
	p->stk[j].hash = h;
	p->stk_recent[r].off = (uint32_t)tl->nr_frames;
	p->stk_recent[r].n = (uint32_t)n;
	p->stk_nr++;
	tl->nr_frames += n;
	return 0;
}
