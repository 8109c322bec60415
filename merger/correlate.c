// SPDX-License-Identifier: Apache-2.0
/* correlate.c - GPU record -> API record -> launch stack. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "timeline.h"

/* (pid, correlation id) -> api index, open addressing. */
struct corr_map {
	uint64_t *keys; /* pid << 32 | corr, + 1 so that 0 means empty */
	int64_t *vals;
	size_t cap;
};

static uint64_t key_of(uint32_t pid, uint32_t corr)
{
	return (((uint64_t)pid << 32) | corr) + 1;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int corr_map_build(struct corr_map *m, const struct timeline *tl)
{
	size_t i;

	for (m->cap = 64; m->cap < tl->nr_api * 2; m->cap *= 2)
		;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = malloc(m->cap * sizeof(*m->vals));
	if (!m->keys || !m->vals)
		return -ENOMEM;
	for (i = 0; i < tl->nr_api; i++) {
		uint64_t k = key_of(tl->api[i].pid, tl->api[i].corr);
		size_t j;

		for (j = slot_of(k, m->cap); m->keys[j] && m->keys[j] != k; j = (j + 1) & (m->cap - 1))
			;
		if (!m->keys[j]) { /* the first record wins if a buggy producer repeats an id */
			m->keys[j] = k;
			m->vals[j] = (int64_t)i;
		}
	}
	return 0;
}

static int64_t corr_map_get(const struct corr_map *m, uint32_t pid, uint32_t corr)
{
	uint64_t k = key_of(pid, corr);
	size_t j;

	for (j = slot_of(k, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == k)
			return m->vals[j];
	return -1;
}

/* First launch hit at or after (pid, tid, ts) in the sorted launch array. */
static size_t launch_lower_bound(const struct timeline *tl, uint32_t pid, uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = tl->nr_launch;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct tl_launch *l = &tl->launch[mid];
		int less = l->pid != pid ? l->pid < pid : l->tid != tid ? l->tid < tid : l->ts < ts;

		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bind each outermost API call to the earliest hit in its window. */
static void bind_launches(const struct timeline *tl, int64_t *api_launch)
{
	size_t i, outer = 0;
	uint64_t window_lo = 0;

	for (i = 0; i < tl->nr_api; i++) {
		const struct tl_api *a = &tl->api[i];
		size_t j;

		api_launch[i] = -1;
		if (a->nested) {
			api_launch[i] = api_launch[outer];
			continue;
		}
		if (i == 0 || a->pid != tl->api[outer].pid || a->tid != tl->api[outer].tid)
			window_lo = 0; /* first call of this thread */
		else
			window_lo = tl->api[outer].end + 1;
		outer = i;
		j = launch_lower_bound(tl, a->pid, a->tid, window_lo);
		if (j < tl->nr_launch && tl->launch[j].pid == a->pid && tl->launch[j].tid == a->tid &&
		    tl->launch[j].ts <= a->end)
			api_launch[i] = (int64_t)j;
	}
}

int correlate__run(const struct timeline *tl, struct correlation *c)
{
	struct corr_map m = { 0 };
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	c->nr_gpu = tl->nr_gpu;
	c->gpu_api = malloc((tl->nr_gpu + 1) * sizeof(int64_t));
	c->gpu_launch = malloc((tl->nr_gpu + 1) * sizeof(int64_t));
	c->api_launch = malloc((tl->nr_api + 1) * sizeof(int64_t));
	err = -ENOMEM;
	if (!c->gpu_api || !c->gpu_launch || !c->api_launch)
		goto fail;
	err = corr_map_build(&m, tl);
	if (err)
		goto fail;
	bind_launches(tl, c->api_launch);
	for (i = 0; i < tl->nr_gpu; i++) {
		int64_t a = corr_map_get(&m, tl->gpu[i].pid, tl->gpu[i].corr);

		c->gpu_api[i] = a;
		c->gpu_launch[i] = a >= 0 ? c->api_launch[a] : -1;
		c->gpu_with_api += a >= 0;
		c->gpu_with_stack += c->gpu_launch[i] >= 0;
	}
	free(m.keys);
	free(m.vals);
	return 0;
fail:
	free(m.keys);
	free(m.vals);
	correlate__release(c);
	return err;
}

void correlate__release(struct correlation *c)
{
	free(c->gpu_api);
	free(c->gpu_launch);
	free(c->api_launch);
	memset(c, 0, sizeof(*c));
}
