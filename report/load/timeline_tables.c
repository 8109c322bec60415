// SPDX-License-Identifier: Apache-2.0
/*
 * timeline_tables.c - the small tables records point into: threads (tid
 * index), GPU lanes (pid, device, stream, graph), copy sizes, kernel
 * launch configurations, launch stacks, API names, long durations and the
 * per-process count of where user stacks ended. Each is an array of
 * distinct entries plus a map from key to index that lives only while
 * loading (tl_free_maps()). The fast paths are timeline_priv.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_record.h"
#include "gp_util.h"
#include "timeline.h"
#include "timeline_priv.h"
#include "u64map.h"

void tl_free_maps(struct tl_priv *p)
{
	u64map_free(&p->tid_map);
	u64map_free(&p->bytes_map);
	u64map_free(&p->lstack_map);
	u64map_free(&p->api_name_map);
	u64map_free(&p->kcfg_map);
	u64map_free(&p->stack_end_map);
	p->last_end = 0;
	memset(p->kcfg_recent_val, 0, sizeof(p->kcfg_recent_val));
	free(p->lane_slots);
	p->lane_slots = NULL;
	p->lane_slots_cap = 0;
	p->last_tid_key = UINT64_MAX;
	memset(p->bytes_key, 0, sizeof(p->bytes_key));
	free(p->api_name_of);
	p->api_name_of = NULL;
	p->api_name_of_alloc = 0;
	memset(p->lst_key, 0, sizeof(p->lst_key));
}

/*
 * The index of key in a table of `elem`-byte entries (*arr, *nr, *cap),
 * adding the entry `val` when the key is new. UINT32_MAX on ENOMEM.
 */
static uint32_t table_index(struct u64map *m, uint64_t key, void **arr, size_t *nr, size_t *cap,
			    const void *val, size_t elem)
{
	uint32_t v;
	size_t j;
	void *e;

	if (u64map_reserve(m))
		return UINT32_MAX;
	v = u64map_find(m, key, &j);
	if (v)
		return v - 1;
	if (*nr >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (*nr >= *cap && gp_alloc_grow(arr, cap, *nr + 1, elem, 0))
		return UINT32_MAX;
	e = (char *)*arr + (*nr)++ * elem;
	memcpy(e, val, elem);
	m->keys[j] = key;
	m->vals[j] = (uint32_t)*nr;
	m->nr++;
	return (uint32_t)(*nr - 1);
}

/*
 * (2.5) Count where a user stack of process @pid ended: GP_STACK_END_* in a
 * sample's or span's @flags (0: not said, nothing to count). 0 or -ENOMEM.
 */
int tl_note_stack_end(struct timeline *tl, uint32_t pid, uint16_t flags)
{
	struct tl_priv *p = tl->priv;
	unsigned end = GP_STACK_END_OF(flags);
	uint32_t i;

	if (!end)
		return 0;
	if (p->last_end && p->last_end_pid == pid) {
		i = p->last_end - 1;
	} else {
		struct tl_stack_ends e = { .pid = pid };

		i = table_index(&p->stack_end_map, pid, (void **)&tl->stack_ends,
				&tl->nr_stack_ends, &p->alloc.stack_ends, &e, sizeof(e));
		if (i == UINT32_MAX)
			return -ENOMEM;
		p->last_end_pid = pid;
		p->last_end = i + 1;
	}
	tl->stack_ends[i].n[end < GP_STACK_END_COUNT ? end : 0]++;
	return 0;
}

__attribute__((noinline)) uint32_t tl_tid_index_slow(struct timeline *tl, uint64_t key)
{
	struct tl_priv *p = tl->priv;
	struct tl_tid t = { (uint32_t)(key >> 32), (uint32_t)key };
	uint32_t i;

	i = table_index(&p->tid_map, key, (void **)&tl->tids, &tl->nr_tids, &p->alloc.tids, &t,
			sizeof(t));
	if (i != UINT32_MAX && i >= (1u << 29))
		i = UINT32_MAX; /* tl_api.thr is 29 bits */
	if (i != UINT32_MAX) {
		p->last_tid_key = key;
		p->last_tid = i;
	}
	return i;
}

uint32_t timeline__tid_index(struct timeline *tl, uint32_t pid, uint32_t tid)
{
	return tid_index(tl, pid, tid);
}

uint32_t timeline__long_dur_code(struct timeline *tl, uint64_t d)
{
	struct tl_priv *p = tl->priv;

	/* codes TL_DUR_LONG + index stay below 2^32 */
	if (tl->nr_long_durs >= TL_DUR_LONG - 1 ||
	    GP_ALLOC_GROW(tl->long_durs, tl->nr_long_durs + 1, p->alloc.long_durs))
		return UINT32_MAX;
	tl->long_durs[tl->nr_long_durs] = d;
	return TL_DUR_LONG + (uint32_t)tl->nr_long_durs++;
}

/* c: bytes' slot in the cache of recent answers (bytes_index()) */
__attribute__((noinline)) uint32_t tl_bytes_index_slow(struct timeline *tl, uint64_t bytes,
							   size_t c)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	i = table_index(&p->bytes_map, bytes, (void **)&tl->gpu_bytes, &tl->nr_gpu_bytes,
			&p->alloc.gpu_bytes, &bytes, sizeof(bytes));
	if (i != UINT32_MAX) {
		p->bytes_key[c] = bytes + 1;
		p->bytes_val[c] = i;
	}
	return i;
}

uint32_t timeline__bytes_index(struct timeline *tl, uint64_t bytes)
{
	return bytes_index(tl, bytes);
}

__attribute__((noinline)) uint16_t tl_kconfig_index_slow(struct timeline *tl,
							     const struct tl_kconfig *k)
{
	struct tl_priv *p = tl->priv;
	uint32_t w[9], i;
	uint64_t key = 0x9e3779b97f4a7c15ull;

	/* The map is keyed by a 64-bit digest of the nine fields: a collision of two
	 * configurations among 65535 is about one chance in 10^10. */
	memcpy(w, k, sizeof(w));
	for (i = 0; i < 9; i++)
		key = gp_mix64(key ^ w[i]) + i;
	if (tl->nr_kconfigs >= UINT16_MAX && !u64map_find(&p->kcfg_map, key, &(size_t){ 0 }))
		return 0;
	i = table_index(&p->kcfg_map, key, (void **)&tl->kconfigs, &tl->nr_kconfigs,
			&p->alloc.kconfigs, k, sizeof(*k));
	if (i == UINT32_MAX || i >= UINT16_MAX)
		return 0;
	p->kcfg_recent[p->kcfg_next] = *k;
	p->kcfg_recent_val[p->kcfg_next] = (uint16_t)(i + 1);
	p->kcfg_next = (p->kcfg_next + 1) % 4;
	return (uint16_t)(i + 1);
}

uint16_t timeline__kconfig_index(struct timeline *tl, const struct tl_kconfig *k)
{
	return kconfig_index(tl, k);
}

/* key: st as launch_stack_index() makes it; c: its slot in the cache of recent answers */
__attribute__((noinline)) uint32_t tl_launch_stack_index_slow(struct timeline *tl,
								    const struct tl_stack *st,
								    uint64_t key, size_t c)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	i = table_index(&p->lstack_map, key, (void **)&tl->launch_stacks, &tl->nr_launch_stacks,
			&p->alloc.launch_stacks, st, sizeof(*st));
	if (i != UINT32_MAX) {
		p->lst_key[c] = key + 1;
		p->lst_val[c] = i;
	}
	return i;
}

uint32_t timeline__launch_stack_index(struct timeline *tl, const struct tl_stack *st)
{
	return launch_stack_index(tl, st);
}

__attribute__((noinline)) uint16_t tl_api_name_index_slow(struct timeline *tl, uint32_t str)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	if (!tl->nr_api_names) {
		uint32_t zero = 0;

		/* [0]: the unknown name, string 0 */
		if (table_index(&p->api_name_map, 0, (void **)&tl->api_names, &tl->nr_api_names,
				&p->alloc.api_names, &zero, sizeof(zero)) == UINT32_MAX)
			return 0;
	}
	i = table_index(&p->api_name_map, str, (void **)&tl->api_names, &tl->nr_api_names,
			&p->alloc.api_names, &str, sizeof(str));
	if (i >= UINT16_MAX) {
		if (i != UINT32_MAX)
			tl->nr_api_names--; /* never referenced: the table stays within 16-bit indices */
		/* the map keeps the key, so later records of the name stay "unknown" too */
		return 0;
	}
	if (GP_ALLOC_GROW_ZERO(p->api_name_of, (size_t)str + 1, p->api_name_of_alloc))
		return (uint16_t)i; /* only the shortcut is missing */
	p->api_name_of[str] = (uint16_t)(i + 1);
	return (uint16_t)i;
}

uint16_t timeline__api_name_index(struct timeline *tl, uint32_t str)
{
	return api_name_index(tl, str);
}

static uint64_t lane_hash(const struct tl_lane *l)
{
	return gp_mix64(((uint64_t)l->pid << 32 | l->device) ^ gp_mix64((uint64_t)l->stream << 32 | l->graph_id));
}

__attribute__((noinline)) uint32_t tl_lane_index_slow(struct timeline *tl, struct tl_lane l)
{
	struct tl_priv *p = tl->priv;
	struct tl_lane *e;
	size_t j, cap;

	if (2 * (tl->nr_lanes + 1) > p->lane_slots_cap) {
		uint32_t *ns;
		size_t i;

		cap = p->lane_slots_cap ? 2 * p->lane_slots_cap : 64;
		ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return UINT32_MAX;
		for (i = 0; i < tl->nr_lanes; i++) {
			for (j = lane_hash(&tl->lanes[i]) & (cap - 1); ns[j]; j = (j + 1) & (cap - 1))
				;
			ns[j] = (uint32_t)i + 1;
		}
		free(p->lane_slots);
		p->lane_slots = ns;
		p->lane_slots_cap = cap;
	}
	cap = p->lane_slots_cap;
	for (j = lane_hash(&l) & (cap - 1); p->lane_slots[j]; j = (j + 1) & (cap - 1))
		if (same_lane(&tl->lanes[p->lane_slots[j] - 1], &l))
			return p->last_lane = p->lane_slots[j] - 1;
	if (tl->nr_lanes >= UINT32_MAX - 1)
		return UINT32_MAX;
	e = PUSH(tl, lanes, nr_lanes, lanes);
	if (!e)
		return UINT32_MAX;
	*e = l;
	p->lane_slots[j] = (uint32_t)tl->nr_lanes;
	return p->last_lane = (uint32_t)tl->nr_lanes - 1;
}

uint32_t timeline__lane_index(struct timeline *tl, uint32_t pid, uint32_t device, uint32_t stream,
			      uint32_t graph_id)
{
	return lane_index(tl, pid, device, stream, graph_id);
}
