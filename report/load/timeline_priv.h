/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeline_priv.h - what the timeline's own files share, and no one else:
 * struct tl_priv (the loader's state: string table, growth state, the
 * tables that number records' threads, lanes, copy sizes, kernel
 * configurations, launch stacks and API names, the frame pool's index,
 * warnings), and the inline fast paths of the lookups every record makes.
 *
 *   timeline.c          the object: new/free, strings, warnings, lookups
 *   timeline_tables.c   the small tables records point into (tid, lane, ...)
 *   timeline_stacks.c   the frame pool: each distinct stack stored once
 *   timeline_records.c  one loader per record type, the loop over a file's
 *   timeline_load.c     files and directories: open, clock fit, warnings
 *   timeline_finish.c   after loading: sort, merge processes and threads
 *
 * Not thread-safe: one thread loads a timeline.
 */
#ifndef GPUPERF_TIMELINE_PRIV_H
#define GPUPERF_TIMELINE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_strtab.h"
#include "gp_util.h"
#include "timeline.h"
#include "u64map.h"

struct gp_reader;

#define MAX_WARNINGS 256

#define STK_RECENT 64 /* entries of tl_priv.stk_recent: a power of two */

/* One distinct stack of the frame pool. */
struct stk_ent {
	uint32_t off;  /* into tl->frames */
	uint32_t n;    /* frames; 0: free slot */
	uint64_t hash;
};


struct tl_priv {
	struct gp_strtab strs; /* the timeline's strings: "" is id 0 */
	/* The capacity of each of the timeline's arrays (GP_ALLOC_GROW). */
	struct {
		size_t gpu, api, samples, offcpu, frames, files, procs, threads, modules, devices;
		size_t offcpu_short, lanes, gpu_bytes, long_durs, tids, api_names, launch_stacks;
		size_t kconfigs, stack_ends, mem;
	} alloc;
	/* What the small tables hold, while loading (freed by timeline__finish()). */
	struct u64map tid_map, bytes_map, lstack_map, api_name_map, kcfg_map, stack_end_map;
	uint32_t last_end_pid, last_end; /* the last stack_ends entry counted in: pid, index + 1 */
	uint32_t *lane_slots; /* lane index + 1, by hash of its fields */
	size_t lane_slots_cap;
	uint64_t last_tid_key; /* one-entry caches: records come in runs of one thread, */
	uint32_t last_tid;
	uint32_t last_lane;    /* stream, */
	uint64_t bytes_key[16]; /* copy sizes: direct-mapped cache (size + 1; 0: empty), index */
	uint32_t bytes_val[16];
	/* API names are few and string ids dense: api_name_of[string id] = index + 1 */
	uint16_t *api_name_of;
	size_t api_name_of_alloc;
	/* launch stacks: a direct-mapped cache in front of the map (key + 1, index) */
	uint64_t lst_key[64];
	uint32_t lst_val[64];
	/* kernel launch configurations: the last few seen and their index + 1 (0: none);
	 * kernels alternate between a handful of configurations */
	struct tl_kconfig kcfg_recent[4];
	uint16_t kcfg_recent_val[4];
	unsigned kcfg_next;
	/* Stacks already in the frame pool (launch stacks and samples repeat):
	 * open addressing on the frames' hash, entries index stk. */
	struct stk_ent *stk;
	size_t stk_cap, stk_nr;
	/* Stacks seen lately, by their depth and innermost frame (direct-mapped): most
	 * records repeat one of a few stacks, found here without hashing every frame. */
	struct {
		uint32_t off, n;
	} stk_recent[STK_RECENT];
	/*
	 * The loader compares each record with the one before it in its array
	 * while both are at hand, by the comparators the sort uses: ord_*
	 * records of each array went through that check, none out of
	 * timeline__finish()'s order (an ORD_* bit of `unordered`: one was,
	 * and the sort does the rest). It marks nested API calls the way
	 * timeline__finish() does, too (outer_*: the enclosing call so far).
	 * finish() then skips every array that came in order, a pass over
	 * each saved.
	 */
	size_t ord_api, ord_gpu, ord_samples, ord_offcpu;
	unsigned unordered;
	uint32_t outer_thr;
	uint64_t outer_end;
	char **warnings;
	size_t nr_warnings, warnings_alloc;
	int old_sites_warned; /* old_launch_sites_warning() said it */
	/* load_dir(): the trace of the same pid's next image (after exec), or NULL */
	const char *next_image;
	/* The file being loaded: its api_stack records (correlation id -> launch stack). */
	struct api_stack_ent {
		uint32_t corr, stack;
	} *api_stacks;
	size_t nr_api_stacks, api_stacks_alloc;
	uint64_t api_stacks_seen, api_stacks_truncated; /* the file's api_stack records, cut short ones */
	char errbuf[512];
};

/* tl_proc.pad while loading: the record's GP_PROC_* event, and this bit when a GPU trace opened with it */
#define PROC_GPU_IMAGE 0x100u

enum { ORD_API = 1, ORD_GPU = 4, ORD_SAMPLES = 8, ORD_OFFCPU = 16 };

/* Every record of an array checked in order by the loader, none out of order. */
#define IN_ORDER(tl, p, bit, nr, ord) (!((p)->unordered & (bit)) && (p)->ord == (tl)->nr)

void tl_warn(struct timeline *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free the tables that serve only while loading (timeline_tables.c). */
void tl_free_maps(struct tl_priv *p);

/*
 * Every record of an open trace into tl (timeline_records.c), its file f;
 * 0 or -ENOMEM. Unreadable chunks are warnings.
 */
int tl_records__load(struct timeline *tl, struct gp_reader *r, struct tl_file *f);

/* Room for one more element of a timeline array: the element, counted in; NULL on ENOMEM. */
#define PUSH(tl, field, nrf, allocf)                                                       \
	(GP_ALLOC_GROW((tl)->field, (tl)->nrf + 1, (tl)->priv->alloc.allocf)               \
		 ? NULL                                                                    \
		 : &(tl)->field[(tl)->nrf++])

static inline int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/*
 * The order timeline__finish() sorts each array into, which the loader
 * checks record by record (note_order()).
 */

/* By thread: after renumber_tids(), thread indices are in (pid, tid) order. */
static inline __attribute__((always_inline)) int api_cmp(const struct timeline *tl,
							  const struct tl_api *x,
							  const struct tl_api *y)
{
	if (x->thr != y->thr)
		return cmp_u64(x->thr, y->thr);
	if (x->start != y->start)
		return cmp_u64(x->start, y->start);
	/* the enclosing call first */
	return cmp_u64(timeline__dur(tl, y->dur), timeline__dur(tl, x->dur));
}

static inline __attribute__((always_inline)) int gpu_cmp(const struct timeline *tl,
							  const struct tl_gpu *x,
							  const struct tl_gpu *y)
{
	if (x->start != y->start)
		return cmp_u64(x->start, y->start);
	return cmp_u64(timeline__dur(tl, x->dur), timeline__dur(tl, y->dur));
}

static inline int cmp_sample(const void *a, const void *b)
{
	return cmp_u64(((const struct tl_sample *)a)->ts, ((const struct tl_sample *)b)->ts);
}

static inline int cmp_offcpu(const void *a, const void *b)
{
	return cmp_u64(((const struct tl_offcpu *)a)->start, ((const struct tl_offcpu *)b)->start);
}

/*
 * The *_index() lookups run for every record loaded: each has its fast
 * path (a recent answer) inline here, in the loaders; the rest out of
 * line (timeline_tables.c, timeline_stacks.c). UINT32_MAX (0 for the
 * 16-bit ones) on ENOMEM.
 */
uint32_t tl_tid_index_slow(struct timeline *tl, uint64_t key);
uint32_t tl_bytes_index_slow(struct timeline *tl, uint64_t bytes, size_t c);
uint16_t tl_kconfig_index_slow(struct timeline *tl, const struct tl_kconfig *k);
uint32_t tl_launch_stack_index_slow(struct timeline *tl, const struct tl_stack *st, uint64_t key,
				    size_t c);
uint16_t tl_api_name_index_slow(struct timeline *tl, uint32_t str);
uint32_t tl_lane_index_slow(struct timeline *tl, struct tl_lane l);
int tl_add_stack_slow(struct timeline *tl, struct tl_stack *st, const uint64_t *ips, size_t n,
		      size_t r);
int tl_note_stack_end(struct timeline *tl, uint32_t pid, uint16_t flags);

static inline uint32_t tid_index(struct timeline *tl, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;

	return key == tl->priv->last_tid_key ? tl->priv->last_tid : tl_tid_index_slow(tl, key);
}

static inline uint32_t bytes_index(struct timeline *tl, uint64_t bytes)
{
	struct tl_priv *p = tl->priv;
	size_t c = gp_mix64(bytes) & 15;

	if (p->bytes_key[c] == bytes + 1 && bytes != UINT64_MAX)
		return p->bytes_val[c];
	return tl_bytes_index_slow(tl, bytes, c);
}

static inline bool same_kconfig(const struct tl_kconfig *a, const struct tl_kconfig *b)
{
	return a->grid[0] == b->grid[0] && a->grid[1] == b->grid[1] && a->grid[2] == b->grid[2] &&
	       a->block[0] == b->block[0] && a->block[1] == b->block[1] &&
	       a->block[2] == b->block[2] && a->static_smem == b->static_smem &&
	       a->dynamic_smem == b->dynamic_smem && a->regs == b->regs;
}

static inline uint16_t kconfig_index(struct timeline *tl, const struct tl_kconfig *k)
{
	struct tl_priv *p = tl->priv;

	for (int i = 0; i < 4; i++)
		if (p->kcfg_recent_val[i] && same_kconfig(&p->kcfg_recent[i], k))
			return p->kcfg_recent_val[i];
	return tl_kconfig_index_slow(tl, k);
}

static inline uint32_t launch_stack_index(struct timeline *tl, const struct tl_stack *st)
{
	struct tl_priv *p = tl->priv;
	uint64_t key = (uint64_t)st->off << 32 | (uint32_t)st->nr_user << 16 | st->nr_kernel;
	size_t c = gp_mix64(key) & 63;

	if (p->lst_key[c] == key + 1 && key != UINT64_MAX)
		return p->lst_val[c];
	return tl_launch_stack_index_slow(tl, st, key, c);
}

static inline uint16_t api_name_index(struct timeline *tl, uint32_t str)
{
	struct tl_priv *p = tl->priv;

	if (str < p->api_name_of_alloc && p->api_name_of[str])
		return (uint16_t)(p->api_name_of[str] - 1);
	return tl_api_name_index_slow(tl, str);
}

static inline int same_lane(const struct tl_lane *a, const struct tl_lane *b)
{
	return a->pid == b->pid && a->device == b->device && a->stream == b->stream &&
	       a->graph_id == b->graph_id;
}

static inline uint32_t lane_index(struct timeline *tl, uint32_t pid, uint32_t device,
				  uint32_t stream, uint32_t graph_id)
{
	struct tl_priv *p = tl->priv;
	struct tl_lane l = { pid, device, stream, graph_id };

	if (p->last_lane < tl->nr_lanes && same_lane(&tl->lanes[p->last_lane], &l))
		return p->last_lane;
	return tl_lane_index_slow(tl, l);
}

/* Whether the n frames at a and b are the same (n is small: a loop beats a call to memcmp). */
static inline bool same_frames(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Store a stack in the frame pool, once: a stack seen before (the same
 * frames) points at the frames already there. The split into user and
 * kernel frames is kept in st, so only the frames have to match. A stack
 * met a moment ago is found in a small cache first, inline; the rest is
 * tl_add_stack_slow()'s.
 */
static inline int add_stack(struct timeline *tl, struct tl_stack *st, const uint64_t *ips,
			    uint16_t nu, uint16_t nk)
{
	struct tl_priv *p = tl->priv;
	size_t n = (size_t)nu + nk, r;

	st->off = (uint32_t)tl->nr_frames;
	st->nr_user = nu;
	st->nr_kernel = nk;
	if (!n)
		return 0; /* an empty stack needs no pool (which may not exist yet) */
	/*
	 * Not by the leaf alone: every launch stack's is a CUDA entry point and
	 * most off-CPU stacks' the scheduler. The caller and a frame half way
	 * down tell the stacks of different places apart.
	 */
	r = gp_mix64(ips[0] ^ n ^ ips[n > 1] * 0x9e3779b97f4a7c15ull ^
		     ips[n / 2] * 0xc2b2ae3d27d4eb4full) & (STK_RECENT - 1);
	if (p->stk_recent[r].n == n && same_frames(tl->frames + p->stk_recent[r].off, ips, n)) {
		st->off = p->stk_recent[r].off;
		return 0;
	}
	return tl_add_stack_slow(tl, st, ips, n, r);
}

#endif /* GPUPERF_TIMELINE_PRIV_H */
