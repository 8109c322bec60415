// SPDX-License-Identifier: Apache-2.0
/* rec_groups.c - records that draw the same frames, in one open-addressing table (rec_groups.h). */
#include "rec_groups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "timeline.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/*
 * The timeline stores each distinct stack once (timeline.h), so two
 * non-empty stacks with the same frames have the same pool offset; the
 * user/kernel split is kept per record and compared too.
 */
static uint64_t hash_stack(const struct tl_stack *st, uint64_t h)
{
	h = mix(h, ((uint64_t)st->nr_user << 16) | st->nr_kernel);
	return st->nr_user + st->nr_kernel ? mix(h, st->off) : h;
}

static int same_stack(const struct tl_stack *a, const struct tl_stack *b)
{
	return a->nr_user == b->nr_user && a->nr_kernel == b->nr_kernel &&
	       (!(a->nr_user + a->nr_kernel) || a->off == b->off);
}

uint32_t rec_groups__gpu_tid(const struct timeline *tl, size_t i)
{
	int64_t ai = timeline__gpu_api(tl, &tl->gpu[i]);

	return ai >= 0 ? timeline__api_tid(tl, &tl->api[ai]) : 0;
}

static uint32_t gpu_frame_id(const struct tl_gpu *g)
{
	return g->kind == TL_GPU_KERNEL ? g->name : g->kind == TL_GPU_MEMCPY ? g->copy_kind : 0;
}

static int same_record(const struct timeline *tl, enum report_view kind, size_t a, size_t b)
{

	switch (kind) {
	case VIEW_CPU:
		return tl->samples[a].pid == tl->samples[b].pid &&
		       tl->samples[a].tid == tl->samples[b].tid &&
		       same_stack(&tl->samples[a].stack, &tl->samples[b].stack);
	default: /* GPU records are compared by their key (group_add_gpu()) */
		return tl->offcpu[a].pid == tl->offcpu[b].pid &&
		       tl->offcpu[a].tid == tl->offcpu[b].tid &&
		       same_stack(&tl->offcpu[a].stack, &tl->offcpu[b].stack);
	}
}

void rec_groups__free(struct rec_groups *gs)
{
	free(gs->g);
	free(gs->slots);
	memset(gs, 0, sizeof(*gs));
}

static int groups_grow(struct rec_groups *gs)
{
	size_t n = gs->nslots ? gs->nslots * 2 : 1024, i, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < gs->n; i++) {
		for (j = gs->g[i].hash & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(gs->slots);
	gs->slots = slots;
	gs->nslots = n;
	return 0;
}

/* Open a new group for `rec` in the empty slot `j` the caller's probe stopped at. */
static int group_new(struct rec_groups *gs, size_t j, const struct rec_group *g)
{
	if (GP_ALLOC_GROW(gs->g, gs->n + 1, gs->cap))
		return -ENOMEM;
	gs->g[gs->n] = *g;
	gs->slots[j] = (uint32_t)++gs->n;
	return 0;
}

int rec_groups__add(struct rec_groups *gs, const struct timeline *tl, enum report_view kind,
		    size_t rec, uint64_t weight)
{
	const struct tl_sample *sa = kind == VIEW_CPU ? &tl->samples[rec] : NULL;
	const struct tl_offcpu *o = sa ? NULL : &tl->offcpu[rec];
	uint64_t hash = sa ? hash_stack(&sa->stack, (uint64_t)sa->pid << 32 | sa->tid)
			   : hash_stack(&o->stack, (uint64_t)o->pid << 32 | o->tid);
	size_t j;

	hash = mix(hash, kind);
	if ((gs->n + 1) * 2 > gs->nslots && groups_grow(gs))
		return -ENOMEM;
	for (j = hash & (gs->nslots - 1); gs->slots[j]; j = (j + 1) & (gs->nslots - 1)) {
		struct rec_group *g = &gs->g[gs->slots[j] - 1];

		if (g->hash == hash && g->kind == kind && same_record(tl, kind, g->rep, rec)) {
			g->weight += weight;
			g->count++;
			return 0;
		}
	}
	return group_new(
	    gs, j,
	    &(struct rec_group){
		.hash = hash, .weight = weight, .count = 1, .rep = (uint32_t)rec, .kind = kind});
}

/*
 * What makes two GPU records draw the same frames: process, launching thread,
 * API call, launch stack and GPU frame. The launch stacks of two processes
 * only match when their pids do. The timeline stores each distinct stack
 * once (timeline.h), so a stack is compared by its pool offset.
 */
static struct gpu_key gpu_key_of(const struct timeline *tl, const struct tl_gpu *g)
{
	int32_t ai = timeline__gpu_api(tl, g);
	uint64_t stack = UINT64_MAX, thread = (uint64_t)timeline__gpu_pid(tl, g) << 32;
	uint64_t what = (uint64_t)gpu_frame_id(g) << 32 | g->kind;

	if (ai >= 0) {
		const struct tl_api *a = &tl->api[ai];
		const struct tl_stack *st = timeline__api_launch_stack(tl, a);

		thread |= timeline__api_tid(tl, a);
		what |= ((uint64_t)a->name + 1) << 8;
		/* same_stack(): an empty stack matches any other empty one */
		if (st)
			stack = st->nr_user + st->nr_kernel
				    ? (uint64_t)st->off << 32 | (uint32_t)st->nr_user << 16 |
					  st->nr_kernel
				    : 0;
	}
	return (struct gpu_key){.stack = stack, .thread = thread, .what = what};
}

static int same_gpu_key(const struct gpu_key *a, const struct gpu_key *b)
{
	return a->stack == b->stack && a->thread == b->thread && a->what == b->what;
}

/* rec_groups__add() for a GPU record, compared by its key, not the group's representative. */
static int group_add_gpu(struct rec_groups *gs, size_t rec, const struct gpu_key *k,
			 uint64_t weight)
{
	/* independent multiplies, one mix: 10M records wait on this chain before their probe */
	uint64_t hash = gp_mix64(k->thread ^ k->stack * 0x9e3779b97f4a7c15ull ^
				 k->what * 0xc2b2ae3d27d4eb4full ^ VIEW_GPU);
	size_t j;

	if ((gs->n + 1) * 2 > gs->nslots && groups_grow(gs))
		return -ENOMEM;
	for (j = hash & (gs->nslots - 1); gs->slots[j]; j = (j + 1) & (gs->nslots - 1)) {
		struct rec_group *g = &gs->g[gs->slots[j] - 1];

		if (g->hash == hash && g->kind == VIEW_GPU && same_gpu_key(&g->key, k)) {
			g->weight += weight;
			g->count++;
			return 0;
		}
	}
	return group_new(gs, j,
			 &(struct rec_group){.hash = hash,
					     .weight = weight,
					     .count = 1,
					     .rep = (uint32_t)rec,
					     .kind = VIEW_GPU,
					     .key = *k});
}

int rec_groups__add_gpu(struct rec_groups *gs, const struct timeline *tl)
{
	size_t i;
	int err = 0;

	for (i = 0; i < tl->nr_gpu && !err; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		struct gpu_key k;

		if (g->kind == TL_GPU_SYNC)
			continue; /* waiting, not device work: in the timeline and off-CPU */
		k = gpu_key_of(tl, g);
		err = group_add_gpu(gs, i, &k, timeline__dur(tl, g->dur));
	}
	return err;
}
