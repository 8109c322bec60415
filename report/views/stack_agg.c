// SPDX-License-Identifier: Apache-2.0
/* stack_agg.c - interned frame names and a hashed prefix tree of stacks with weights. */
#include "stack_agg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gp_alloc.h"
#include "gp_strtab.h"
#include "gp_util.h"

/*
 * Layout: every node lives in one array and is found from its parent through
 * one open-addressing table keyed by (parent, name id, kind), so adding a
 * stack costs one hash probe per frame and no per-node allocation. Names are
 * interned in a gp_strtab. The sorted child order the walk needs is built
 * lazily (counting sort by parent, then a small sort per sibling group) and
 * dropped when a node is added.
 */

struct agg_node {
	uint64_t total;
	uint64_t self;
	uint32_t name;
	uint32_t parent;
	uint8_t kind;
};


struct stack_agg {
	struct gp_strtab names; /* frame names; id 0: "", the root's */

	struct agg_node *nodes;
	size_t nr_nodes, cap_nodes;
	uint64_t *node_slots; /* hash << 32 | node index; 0 = empty (the root is never a child) */
	size_t node_slot_cap;
	unsigned max_depth;

	/* Sorted child lists, valid while sorted_nodes == nr_nodes. */
	uint32_t *child_start; /* nr_nodes + 1 entries into child_order */
	uint32_t *child_order;
	size_t sorted_nodes;

	/* The previous stack's path: consecutive stacks share prefixes (sorted
	 * input, repeated samples), and a hit here skips both hash lookups. */
	uint32_t *last_path;
	size_t last_len, last_cap;
	struct frame_key { uint32_t hash, name; size_t len; } *keys; /* scratch, last_cap entries */
};

const char *gp_frame_kind__name(enum gp_frame_kind kind)
{
	static const char *const names[GP_FRAME_KIND_COUNT] = {
		[GP_FRAME_CPU] = "cpu",		   [GP_FRAME_KERNEL_CPU] = "kernel",
		[GP_FRAME_INLINE] = "inline",	   [GP_FRAME_JIT] = "jit",
		[GP_FRAME_WAKER] = "waker",	   [GP_FRAME_OFFCPU] = "offcpu",
		[GP_FRAME_GPU_KERNEL] = "gpu",	   [GP_FRAME_GPU_MEMCPY] = "memcpy",
		[GP_FRAME_GPU_MEMSET] = "memset", [GP_FRAME_GPU_SYNC] = "sync",
		[GP_FRAME_SYNTHETIC] = "synthetic",
	};

	if ((unsigned)kind >= GP_FRAME_KIND_COUNT)
		return "?";
	return names[kind];
}

static uint32_t hash_node_key(uint32_t parent, uint32_t name, unsigned kind)
{
	return (uint32_t)gp_mix64(((uint64_t)parent << 32 | name) ^ (uint64_t)kind << 56);
}

/*
 * The node array and both hash tables are the big, randomly accessed
 * structures: they are mapped directly and advised onto huge pages, which
 * cuts TLB misses (a third of the time on a 5M-node tree) where THP is
 * "madvise". Their contents start zeroed.
 */
#define HUGE_MIN (2u << 20)

static void *big_zalloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (size >= HUGE_MIN)
		madvise(p, size, MADV_HUGEPAGE);
	return p;
}

static void big_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

static int big_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 1024;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (!*arr)
		p = big_zalloc(ncap * elem);
	else
		p = mremap(*arr, *cap * elem, ncap * elem, MREMAP_MAYMOVE);
	if (!p || p == MAP_FAILED)
		return -ENOMEM;
	if (ncap * elem >= HUGE_MIN)
		madvise(p, ncap * elem, MADV_HUGEPAGE);
	*arr = p;
	*cap = ncap;
	return 0;
}

static int rehash(uint64_t **slotsp, size_t *capp, size_t ncap)
{
	uint64_t *slots = big_zalloc(ncap * sizeof(*slots)), *old = *slotsp;
	size_t i;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < *capp; i++) {
		size_t pos;

		if (!old[i])
			continue;
		for (pos = (old[i] >> 32) & (ncap - 1); slots[pos]; pos = (pos + 1) & (ncap - 1))
			;
		slots[pos] = old[i];
	}
	big_free(old, *capp * sizeof(*old));
	*slotsp = slots;
	*capp = ncap;
	return 0;
}

/* Returns the child's index, creating it with zero weight, or -ENOMEM. */
static int64_t child_of(struct stack_agg *agg, uint32_t parent, uint32_t name, unsigned kind)
{
	uint32_t h = hash_node_key(parent, name, kind);
	size_t mask = agg->node_slot_cap - 1, pos;
	struct agg_node *n;
	int err;

	for (pos = h & mask; agg->node_slots[pos]; pos = (pos + 1) & mask) {
		uint64_t slot = agg->node_slots[pos];

		if ((uint32_t)(slot >> 32) != h)
			continue;
		n = &agg->nodes[(uint32_t)slot];
		if (n->parent == parent && n->name == name && n->kind == kind)
			return (uint32_t)slot;
	}
	if (agg->nr_nodes >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((agg->nr_nodes + 1) * 10 > agg->node_slot_cap * 7) {
		err = rehash(&agg->node_slots, &agg->node_slot_cap, agg->node_slot_cap * 2);
		if (err)
			return err;
		mask = agg->node_slot_cap - 1;
		for (pos = h & mask; agg->node_slots[pos]; pos = (pos + 1) & mask)
			;
	}
	err = big_grow((void **)&agg->nodes, &agg->cap_nodes, agg->nr_nodes + 1, sizeof(*agg->nodes));
	if (err)
		return err;
	n = &agg->nodes[agg->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->kind = (uint8_t)kind;
	agg->node_slots[pos] = (uint64_t)h << 32 | (uint32_t)agg->nr_nodes;
	return (int64_t)agg->nr_nodes++;
}

struct stack_agg *stack_agg__new(void)
{
	struct stack_agg *agg = calloc(1, sizeof(*agg));

	if (!agg)
		goto fail;
	agg->node_slots = big_zalloc(1024 * sizeof(*agg->node_slots));
	if (!agg->node_slots)
		goto fail;
	agg->node_slot_cap = 1024;
	if (gp_strtab__intern(&agg->names, "", 0, NULL) != 0) /* id 0: the root's name */
		goto fail;
	if (big_grow((void **)&agg->nodes, &agg->cap_nodes, 1, sizeof(*agg->nodes)))
		goto fail;
	memset(&agg->nodes[0], 0, sizeof(agg->nodes[0]));
	agg->nodes[0].kind = GP_FRAME_SYNTHETIC;
	agg->nr_nodes = 1;
	return agg;
fail:
	stack_agg__free(agg);
	errno = ENOMEM;
	return NULL;
}

void stack_agg__free(struct stack_agg *agg)
{
	if (!agg)
		return;
	gp_strtab__release(&agg->names);
	big_free(agg->nodes, agg->cap_nodes * sizeof(*agg->nodes));
	big_free(agg->node_slots, agg->node_slot_cap * sizeof(*agg->node_slots));
	free(agg->child_start);
	free(agg->child_order);
	free(agg->last_path);
	free(agg->keys);
	free(agg);
}

int stack_agg__add(struct stack_agg *agg, const struct stack_frame *frames, size_t n,
		   uint64_t weight)
{
	uint32_t cur = 0;
	size_t i, start;

	if (!agg || (n && !frames))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!frames[i].name || (unsigned)frames[i].kind >= GP_FRAME_KIND_COUNT)
			return -EINVAL;
	if (weight > UINT64_MAX - agg->nodes[0].total)
		return -EOVERFLOW;
	if (n + 1 > agg->last_cap) {
		size_t cap = agg->last_cap;

		/* both to the same capacity: keys has last_cap entries */
		if (GP_ALLOC_GROW(agg->keys, n + 1, cap) ||
		    GP_ALLOC_GROW(agg->last_path, cap, agg->last_cap))
			return -ENOMEM;
	}
	/* The prefix shared with the previous stack needs no lookup at all. */
	for (i = 0; i < n && i < agg->last_len; i++) {
		const struct agg_node *prev = &agg->nodes[agg->last_path[i]];

		if (prev->parent != cur || prev->kind != frames[i].kind ||
		    strcmp(gp_strtab__str(&agg->names, prev->name), frames[i].name))
			break;
		cur = agg->last_path[i];
	}
	agg->last_len = i;
	/*
	 * The rest is memory-bound: hash every name and prefetch its slot first,
	 * so the misses of all frames overlap instead of following each other;
	 * then intern (independent per frame), then the dependent chain of child
	 * lookups. A failure adds no weight anywhere.
	 */
	for (start = i; i < n; i++) {
		struct frame_key *k = &agg->keys[i];

		k->len = strlen(frames[i].name);
		k->hash = gp_strtab__hash(frames[i].name, k->len);
		gp_strtab__prefetch(&agg->names, k->hash);
	}
	for (i = start; i < n; i++) {
		int64_t name = gp_strtab__intern_hashed(&agg->names, frames[i].name, agg->keys[i].len,
							agg->keys[i].hash, NULL);

		if (name < 0)
			return (int)name;
		agg->keys[i].name = (uint32_t)name;
	}
	for (i = start; i < n; i++) {
		int64_t child = child_of(agg, cur, agg->keys[i].name, frames[i].kind);

		if (child < 0)
			return (int)child;
		cur = (uint32_t)child;
		agg->last_path[i] = cur;
		agg->last_len = i + 1;
	}
	agg->nodes[cur].self += weight;
	for (;;) {
		agg->nodes[cur].total += weight;
		if (!cur)
			break;
		cur = agg->nodes[cur].parent;
	}
	if (n > agg->max_depth)
		agg->max_depth = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
	return 0;
}

uint64_t stack_agg__total(const struct stack_agg *agg)
{
	return agg ? agg->nodes[0].total : 0;
}

size_t stack_agg__node_count(const struct stack_agg *agg)
{
	return agg ? agg->nr_nodes - 1 : 0;
}

size_t stack_agg__name_count(const struct stack_agg *agg)
{
	return agg ? agg->names.nr - 1 : 0;
}

unsigned stack_agg__max_depth(const struct stack_agg *agg)
{
	return agg ? agg->max_depth : 0;
}

struct sort_ctx {
	const struct stack_agg *agg;
	const uint32_t *rank;
};

static int cmp_name_ids(const void *a, const void *b, void *arg)
{
	const struct stack_agg *agg = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t xlen = gp_strtab__len(&agg->names, x), ylen = gp_strtab__len(&agg->names, y);
	int c = memcmp(gp_strtab__str(&agg->names, x), gp_strtab__str(&agg->names, y),
		       xlen < ylen ? xlen : ylen);

	if (c)
		return c;
	return (xlen > ylen) - (xlen < ylen);
}

static int cmp_siblings(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct agg_node *x = &sc->agg->nodes[*(const uint32_t *)a];
	const struct agg_node *y = &sc->agg->nodes[*(const uint32_t *)b];
	uint32_t rx = sc->rank[x->name], ry = sc->rank[y->name];

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* Build child_start/child_order: children grouped by parent, each group sorted. */
static int sort_children(struct stack_agg *agg)
{
	size_t n = agg->nr_nodes, i;
	uint32_t *start = NULL, *order = NULL, *rank = NULL, *by_name = NULL;
	struct sort_ctx sc;
	int err = -ENOMEM;

	if (agg->sorted_nodes == n && agg->child_start)
		return 0;
	start = calloc(n + 1, sizeof(*start));
	order = malloc((n > 1 ? n - 1 : 1) * sizeof(*order));
	rank = malloc(agg->names.nr * sizeof(*rank));
	by_name = malloc(agg->names.nr * sizeof(*by_name));
	if (!start || !order || !rank || !by_name)
		goto cleanup;

	/* Rank names once, so sibling sorts compare integers. */
	for (i = 0; i < agg->names.nr; i++)
		by_name[i] = (uint32_t)i;
	qsort_r(by_name, agg->names.nr, sizeof(*by_name), cmp_name_ids, agg);
	for (i = 0; i < agg->names.nr; i++)
		rank[by_name[i]] = (uint32_t)i;

	/* Counting sort by parent: start[p]..start[p+1] are p's children. */
	for (i = 1; i < n; i++)
		start[agg->nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	{
		uint32_t *fill = by_name; /* reuse as a cursor array when it fits */
		uint32_t *cursor = NULL;

		if (agg->names.nr < n) {
			cursor = malloc(n * sizeof(*cursor));
			if (!cursor)
				goto cleanup;
			fill = cursor;
		}
		memcpy(fill, start, n * sizeof(*fill));
		for (i = 1; i < n; i++)
			order[fill[agg->nodes[i].parent]++] = (uint32_t)i;
		free(cursor);
	}
	sc.agg = agg;
	sc.rank = rank;
	for (i = 0; i < n; i++)
		if (start[i + 1] - start[i] > 1)
			qsort_r(order + start[i], start[i + 1] - start[i], sizeof(*order),
				cmp_siblings, &sc);

	free(agg->child_start);
	free(agg->child_order);
	agg->child_start = start;
	agg->child_order = order;
	agg->sorted_nodes = n;
	start = order = NULL;
	err = 0;
cleanup:
	free(start);
	free(order);
	free(rank);
	free(by_name);
	return err;
}

struct walk_level {
	uint32_t node;
	uint32_t next, end; /* position in child_order */
	uint64_t offset;    /* this node's offset */
	uint64_t child_off; /* where the next child starts */
};

static void fill_info(const struct stack_agg *agg, const struct walk_level *lv, unsigned depth,
		      struct stack_agg_node *info)
{
	const struct agg_node *n = &agg->nodes[lv->node];

	info->name = gp_strtab__str(&agg->names, n->name);
	info->kind = (enum gp_frame_kind)n->kind;
	info->depth = depth;
	info->total = n->total;
	info->self = n->self;
	info->offset = lv->offset;
}

int stack_agg__walk(struct stack_agg *agg, stack_agg_visit_fn enter, stack_agg_visit_fn leave,
		    void *ctx)
{
	struct walk_level *stack = NULL;
	size_t cap = 0, depth = 0;
	struct stack_agg_node info;
	int err;

	if (!agg || !enter)
		return -EINVAL;
	err = sort_children(agg);
	if (err)
		return err;
	if (GP_ALLOC_GROW(stack, (size_t)agg->max_depth + 1, cap))
		return -ENOMEM;

	stack[0] = (struct walk_level){ .node = 0, .offset = 0, .child_off = 0 };
	fill_info(agg, &stack[0], 0, &info);
	err = enter(ctx, &info);
	if (err < 0)
		goto cleanup;
	if (err == 0) {
		stack[0].next = agg->child_start[0];
		stack[0].end = agg->child_start[1];
	} else {
		stack[0].next = stack[0].end = 0;
	}
	for (;;) {
		struct walk_level *top = &stack[depth];

		if (top->next == top->end) {
			if (leave) {
				fill_info(agg, top, (unsigned)depth, &info);
				err = leave(ctx, &info);
				if (err < 0)
					goto cleanup;
			}
			if (!depth)
				break;
			depth--;
			stack[depth].child_off += agg->nodes[top->node].total;
			continue;
		}
		{
			uint32_t child = agg->child_order[top->next++];
			struct walk_level *lv;

			/* max_depth bounds depth, but stay safe if a caller lied. */
			if (GP_ALLOC_GROW(stack, (size_t)depth + 2, cap)) {
				err = -ENOMEM;
				goto cleanup;
			}
			top = &stack[depth];
			lv = &stack[depth + 1];
			lv->node = child;
			lv->offset = top->child_off;
			lv->child_off = top->child_off;
			fill_info(agg, lv, (unsigned)depth + 1, &info);
			err = enter(ctx, &info);
			if (err < 0)
				goto cleanup;
			if (err == 0) {
				lv->next = agg->child_start[child];
				lv->end = agg->child_start[child + 1];
			} else {
				lv->next = lv->end = 0;
			}
			depth++;
		}
	}
	err = 0;
cleanup:
	free(stack);
	return err;
}
