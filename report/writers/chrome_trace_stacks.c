// SPDX-License-Identifier: Apache-2.0
/*
 * chrome_trace_stacks.c - the samples' call stacks (struct
 * chrome_trace_stacks): a tree of (parent, kind, name) nodes, each
 * distinct symbol numbered once, and the node each (pid, stack) came to;
 * trace.json's "stackFrames" and trace.pftrace's callstacks are built
 * from it.
 */
#include "chrome_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

struct cs_node {
	uint32_t parent, sym;
	uint32_t name;	/* offset in the pool */
	uint32_t len;
	uint32_t hash;	/* of (parent, kind, name) */
	uint32_t kind;
};

/* A sample's stack as the timeline keys it, and the node it came to. */
struct cs_sample {
	uint64_t key; /* pid << 32 | pool offset; 0: free slot */
	uint32_t split; /* nr_user << 16 | nr_kernel */
	uint32_t leaf;
};

struct chrome_trace_stacks {
	struct cs_node *nodes; /* id - 1 */
	size_t nr, cap;
	uint32_t *slots; /* node ids by (parent, kind, name); open addressing */
	size_t nslots;
	uint32_t *sym_slots; /* first node id of each (kind, name) */
	size_t nsym_slots, nr_syms;
	char *pool;
	size_t pool_len, pool_cap;
	struct cs_sample *samples; /* stacks seen, by (pid, stack) */
	size_t nr_samples, nsample_slots;
};

struct chrome_trace_stacks *chrome_trace__stacks_new(void)
{
	return calloc(1, sizeof(struct chrome_trace_stacks));
}

void chrome_trace__stacks_free(struct chrome_trace_stacks *cs)
{
	if (!cs)
		return;
	free(cs->nodes);
	free(cs->slots);
	free(cs->sym_slots);
	free(cs->pool);
	free(cs->samples);
	free(cs);
}

size_t chrome_trace__nr_nodes(const struct chrome_trace_stacks *cs)
{
	return cs->nr;
}

size_t chrome_trace__nr_syms(const struct chrome_trace_stacks *cs)
{
	return cs->nr_syms;
}

void chrome_trace__stack_node(const struct chrome_trace_stacks *cs, uint32_t id,
			      struct chrome_trace_frame *f)
{
	const struct cs_node *n = &cs->nodes[id - 1];

	f->parent = n->parent;
	f->sym = n->sym;
	f->len = n->len;
	f->kind = n->kind;
	f->name = cs->pool + n->name;
}

/* Rehash an id table of nslots into one of twice as many; hash_of gives each id's hash. */
static int cs_grow(const struct chrome_trace_stacks *cs, uint32_t **slots, size_t *nslots, bool sym)
{
	size_t n = *nslots ? 2 * *nslots : 1024, i, j;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < *nslots; i++) {
		uint32_t id = (*slots)[i];
		const struct cs_node *nd;
		uint32_t h;

		if (!id)
			continue;
		nd = &cs->nodes[id - 1];
		h = sym ? gp_hash_bytes(cs->pool + nd->name, nd->len) ^ nd->kind * 0x9e3779b9u : nd->hash;
		for (j = h & (n - 1); v[j]; j = (j + 1) & (n - 1))
			;
		v[j] = id;
	}
	free(*slots);
	*slots = v;
	*nslots = n;
	return 0;
}

/* The id of node (parent, kind, name[0..len)), added when new; 0 on ENOMEM. */
static uint32_t cs_node(struct chrome_trace_stacks *cs, uint32_t parent, unsigned kind,
			const char *name, size_t len)
{
	uint32_t nh = gp_hash_bytes(name, len), h, sh, id;
	struct cs_node *nd;
	size_t j;

	if (len > UINT32_MAX / 2)
		len = UINT32_MAX / 2;
	h = (uint32_t)gp_mix64((uint64_t)parent << 32 | (nh ^ kind * 0x9e3779b9u));
	if ((cs->nr + 1) * 2 > cs->nslots && cs_grow(cs, &cs->slots, &cs->nslots, false))
		return 0;
	for (j = h & (cs->nslots - 1); (id = cs->slots[j]); j = (j + 1) & (cs->nslots - 1)) {
		nd = &cs->nodes[id - 1];
		if (nd->hash == h && nd->parent == parent && nd->kind == kind && nd->len == len &&
		    !memcmp(cs->pool + nd->name, name, len))
			return id;
	}
	if (GP_ALLOC_GROW(cs->nodes, cs->nr + 1, cs->cap) ||
	    GP_ALLOC_GROW(cs->pool, cs->pool_len + len + 1, cs->pool_cap))
		return 0;
	if (cs->nr >= UINT32_MAX - 1 || cs->pool_len + len + 1 > UINT32_MAX)
		return 0; /* as out of memory: 4 GiB of names */
	nd = &cs->nodes[cs->nr];
	nd->parent = parent;
	nd->kind = kind;
	nd->len = (uint32_t)len;
	nd->hash = h;
	nd->name = (uint32_t)cs->pool_len;
	memcpy(cs->pool + cs->pool_len, name, len);
	cs->pool[cs->pool_len + len] = '\0';
	cs->pool_len += len + 1;
	id = (uint32_t)++cs->nr;
	cs->slots[j] = id;

	/* its symbol: the first node of the same (kind, name) */
	if ((cs->nr_syms + 1) * 2 > cs->nsym_slots &&
	    cs_grow(cs, &cs->sym_slots, &cs->nsym_slots, true)) {
		cs->nr--; /* leave no node without a symbol: it was not added */
		cs->slots[j] = 0;
		return 0;
	}
	sh = nh ^ kind * 0x9e3779b9u;
	for (j = sh & (cs->nsym_slots - 1); cs->sym_slots[j]; j = (j + 1) & (cs->nsym_slots - 1)) {
		const struct cs_node *o = &cs->nodes[cs->sym_slots[j] - 1];

		if (o->kind == kind && o->len == len && !memcmp(cs->pool + o->name, name, len)) {
			nd->sym = o->sym;
			return id;
		}
	}
	cs->sym_slots[j] = id;
	nd->sym = (uint32_t)++cs->nr_syms;
	return id;
}

/* The frames of s without a callback: its addresses, outermost first. */
static int64_t cs_fallback(struct chrome_trace_stacks *cs, const struct timeline *tl,
			   const struct tl_sample *s)
{
	const uint64_t *f = timeline__frames(tl, &s->stack);
	size_t n = (size_t)s->stack.nr_user + s->stack.nr_kernel, i;
	uint32_t id = 0;
	char tmp[24];

	for (i = s->stack.nr_user; f && i-- > 0;) {
		id = cs_node(cs, id, GP_FRAME_CPU, tmp, (size_t)snprintf(tmp, sizeof(tmp), "0x%" PRIx64, f[i]));
		if (!id)
			return -ENOMEM;
	}
	for (i = n; f && i-- > s->stack.nr_user;) {
		id = cs_node(cs, id, GP_FRAME_KERNEL_CPU, tmp,
			     (size_t)snprintf(tmp, sizeof(tmp), "0x%" PRIx64, f[i]));
		if (!id)
			return -ENOMEM;
	}
	return id;
}

int64_t chrome_trace__sample_stack(struct chrome_trace_stacks *cs, const struct timeline *tl,
				   const struct chrome_trace_names *nm, const struct tl_sample *s)
{
	bool empty = !s->stack.nr_user && !s->stack.nr_kernel;
	/* the timeline keeps each distinct stack once: its offset names it (with the split) */
	uint64_t key = (uint64_t)s->pid << 32 | (empty ? 0 : s->stack.off) | (empty ? 1ull << 31 : 0);
	uint32_t split = (uint32_t)s->stack.nr_user << 16 | s->stack.nr_kernel;
	size_t j, mask;
	int64_t id;

	key |= !key; /* 0 marks a free slot: pid 0's empty stack has the 1 << 31 bit */
	if ((cs->nr_samples + 1) * 2 > cs->nsample_slots) {
		size_t n = cs->nsample_slots ? 2 * cs->nsample_slots : 1024, i;
		struct cs_sample *v = calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (i = 0; i < cs->nsample_slots; i++) {
			if (!cs->samples[i].key)
				continue;
			for (j = gp_mix64(cs->samples[i].key ^ cs->samples[i].split) & (n - 1); v[j].key;
			     j = (j + 1) & (n - 1))
				;
			v[j] = cs->samples[i];
		}
		free(cs->samples);
		cs->samples = v;
		cs->nsample_slots = n;
	}
	mask = cs->nsample_slots - 1;
	for (j = gp_mix64(key ^ split) & mask; cs->samples[j].key; j = (j + 1) & mask)
		if (cs->samples[j].key == key && cs->samples[j].split == split)
			return cs->samples[j].leaf;
	if (nm && nm->sample_frames) {
		const struct stack_frame *f = NULL;
		long n = nm->sample_frames(nm->ctx, s, &f), i;
		uint32_t node = 0;

		if (n < 0)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			const char *name = f[i].name ? f[i].name : "";

			node = cs_node(cs, node, f[i].kind, name, strlen(name));
			if (!node)
				return -ENOMEM;
		}
		id = node;
	} else {
		id = cs_fallback(cs, tl, s);
		if (id < 0)
			return id;
	}
	cs->samples[j].key = key;
	cs->samples[j].split = split;
	cs->samples[j].leaf = (uint32_t)id;
	cs->nr_samples++;
	return id;
}

