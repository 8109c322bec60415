// SPDX-License-Identifier: Apache-2.0
/* gp_strtab.c - the string interner (see gp_strtab.h). */
#include "gp_strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"

/* Strings are copied into chunks of this size (a longer one gets its own). */
#define CHUNK 65536

struct gp_strtab_chunk {
	struct gp_strtab_chunk *next;
	size_t used, cap;
	char data[];
};

static const char *arena_copy(struct gp_strtab *t, const void *s, size_t len)
{
	struct gp_strtab_chunk *c = t->arena;
	char *dst;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > CHUNK ? len + 1 : CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = t->arena;
		t->arena = c;
	}
	dst = c->data + c->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	c->used += len + 1;
	return dst;
}

/* The slot of s: where it is, or the free one where it would go. */
static size_t probe(const struct gp_strtab *t, const void *s, size_t len, uint32_t hash)
{
	size_t mask = t->nslots - 1, pos;

	for (pos = hash & mask; t->slots[pos]; pos = (pos + 1) & mask) {
		uint64_t slot = t->slots[pos];
		const struct gp_strtab_ent *e;

		if ((uint32_t)(slot >> 32) != hash)
			continue;
		e = &t->ents[(uint32_t)slot - 1];
		if (e->len == len && !memcmp(e->s, s, len))
			break;
	}
	return pos;
}

static int rehash(struct gp_strtab *t, size_t nslots)
{
	uint64_t *slots = calloc(nslots, sizeof(*slots));
	size_t i, pos;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nslots; i++) {
		if (!t->slots[i])
			continue;
		for (pos = (t->slots[i] >> 32) & (nslots - 1); slots[pos]; pos = (pos + 1) & (nslots - 1))
			;
		slots[pos] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

int64_t gp_strtab__intern_hashed(struct gp_strtab *t, const void *s, size_t len, uint32_t hash,
				 bool *fresh)
{
	struct gp_strtab_ent *e;
	size_t pos = 0;

	if (fresh)
		*fresh = false;
	if (t->nslots) {
		pos = probe(t, s, len, hash);
		if (t->slots[pos])
			return (uint32_t)t->slots[pos] - 1;
	}
	if (len > UINT32_MAX || t->nr >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->nr + 1) * 10 > t->nslots * 7) {
		if (rehash(t, t->nslots ? 2 * t->nslots : 1024))
			return -ENOMEM;
		pos = probe(t, s, len, hash);
	}
	if (GP_ALLOC_GROW(t->ents, t->nr + 1, t->alloc))
		return -ENOMEM;
	e = &t->ents[t->nr];
	e->s = arena_copy(t, s, len);
	if (!e->s)
		return -ENOMEM;
	e->len = (uint32_t)len;
	e->hash = hash;
	t->slots[pos] = (uint64_t)hash << 32 | (uint32_t)(t->nr + 1);
	if (fresh)
		*fresh = true;
	return (int64_t)t->nr++;
}

int64_t gp_strtab__find(const struct gp_strtab *t, const void *s, size_t len)
{
	size_t pos;

	if (!t->nslots)
		return -ENOENT;
	pos = probe(t, s, len, gp_strtab__hash(s, len));
	return t->slots[pos] ? (int64_t)(uint32_t)t->slots[pos] - 1 : -ENOENT;
}

void gp_strtab__release(struct gp_strtab *t)
{
	struct gp_strtab_chunk *c, *next;

	for (c = t->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	free(t->ents);
	memset(t, 0, sizeof(*t));
}
