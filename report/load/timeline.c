// SPDX-License-Identifier: Apache-2.0
/* timeline.c - load gpuperf traces into one in-memory timeline. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_reader.h"
#include "gp_record.h"
#include "gp_util.h"
#include "timeline.h"
#include "u64map.h"

#define MAX_WARNINGS 256

struct strtab {
	char **strs; /* id -> string; strs[0] = "" */
	uint32_t nr, cap;
	uint32_t *slots; /* open addressing: id or 0 */
	uint32_t nslots;
};

#define STK_RECENT 64 /* entries of tl_priv.stk_recent: a power of two */

/* One distinct stack of the frame pool. */
struct stk_ent {
	uint32_t off;  /* into tl->frames */
	uint32_t n;    /* frames; 0: free slot */
	uint64_t hash;
};

/*
 * Per-file string id -> timeline string id. Producers number strings from 1,
 * so ids below IDMAP_DIRECT index an array (a lookup per record); larger
 * ones (a foreign producer) go to the hash table.
 */
#define IDMAP_DIRECT 65536u

struct idmap {
	uint32_t *keys, *vals;
	uint32_t cap, nr;
	uint32_t *direct; /* by id: timeline id, 0 unknown */
	size_t ndirect;
};


struct tl_priv {
	struct strtab st;
	size_t cap_gpu, cap_api, cap_samples, cap_offcpu, cap_frames, cap_files;
	size_t cap_procs, cap_threads, cap_modules, cap_devices, cap_offcpu_short;
	size_t cap_lanes, cap_gpu_bytes, cap_long_durs, cap_tids, cap_api_names, cap_launch_stacks;
	size_t cap_kconfigs, cap_stack_ends, cap_mem;
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
	size_t api_name_of_cap;
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
	size_t nr_warnings;
	int old_sites_warned; /* old_launch_sites_warning() said it */
	/* load_dir(): the trace of the same pid's next image (after exec), or NULL */
	const char *next_image;
	/* The file being loaded: its api_stack records (correlation id -> launch stack). */
	struct api_stack_ent {
		uint32_t corr, stack;
	} *api_stacks;
	size_t nr_api_stacks, cap_api_stacks;
	uint64_t api_stacks_seen, api_stacks_truncated; /* the file's api_stack records, cut short ones */
	char errbuf[512];
};

/* tl_proc.pad while loading: the record's GP_PROC_* event, and this bit when a GPU trace opened with it */
#define PROC_GPU_IMAGE 0x100u

enum { ORD_API = 1, ORD_GPU = 4, ORD_SAMPLES = 8, ORD_OFFCPU = 16 };

/* Every record of an array checked in order by the loader, none out of order. */
#define IN_ORDER(tl, p, bit, nr, ord) (!((p)->unordered & (bit)) && (p)->ord == (tl)->nr)

static uint32_t hash_str(const char *s)
{
	return gp_fnv1a(s, strlen(s));
}

static int strtab_grow_slots(struct strtab *st)
{
	uint32_t ncap = st->nslots ? st->nslots * 2 : 1024, i;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 1; i < st->nr; i++) {
		uint32_t j = hash_str(st->strs[i]) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = i;
	}
	free(st->slots);
	st->slots = ns;
	st->nslots = ncap;
	return 0;
}

uint32_t timeline__intern(struct timeline *tl, const char *s)
{
	struct strtab *st = &tl->priv->st;
	uint32_t j;

	if (!s || !*s)
		return 0;
	if ((st->nr + 1) * 2 > st->nslots && strtab_grow_slots(st))
		return 0;
	for (j = hash_str(s) & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1))
		if (strcmp(st->strs[st->slots[j]], s) == 0)
			return st->slots[j];
	if (st->nr == st->cap) {
		uint32_t ncap = st->cap * 2;
		char **n = realloc(st->strs, ncap * sizeof(*n));

		if (!n)
			return 0;
		st->strs = n;
		st->cap = ncap;
	}
	st->strs[st->nr] = strdup(s);
	if (!st->strs[st->nr])
		return 0;
	st->slots[j] = st->nr;
	return st->nr++;
}

const char *timeline__str(const struct timeline *tl, uint32_t id)
{
	const struct strtab *st = &tl->priv->st;

	return id < st->nr ? st->strs[id] : "";
}

static void warn(struct timeline *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct timeline *tl, const char *fmt, ...)
{
	struct tl_priv *p = tl->priv;
	char buf[600];
	char **nw;
	va_list ap;

	if (p->nr_warnings >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(p->warnings, (p->nr_warnings + 1) * sizeof(*nw));
	if (!nw)
		return;
	p->warnings = nw;
	nw[p->nr_warnings] = strdup(buf);
	if (nw[p->nr_warnings])
		p->nr_warnings++;
}

size_t timeline__nr_warnings(const struct timeline *tl)
{
	return tl->priv->nr_warnings;
}

const char *timeline__warning(const struct timeline *tl, size_t i)
{
	return i < tl->priv->nr_warnings ? tl->priv->warnings[i] : NULL;
}

static void free_maps(struct tl_priv *p)
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
	p->api_name_of_cap = 0;
	memset(p->lst_key, 0, sizeof(p->lst_key));
}

struct timeline *timeline__new(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->priv = calloc(1, sizeof(*tl->priv));
	if (!tl->priv)
		goto fail;
	tl->priv->st.cap = 1024;
	tl->priv->st.strs = calloc(tl->priv->st.cap, sizeof(char *));
	if (!tl->priv->st.strs)
		goto fail;
	tl->priv->st.strs[0] = strdup("");
	if (!tl->priv->st.strs[0])
		goto fail;
	tl->priv->st.nr = 1;
	if (strtab_grow_slots(&tl->priv->st))
		goto fail;
	tl->first_ts = UINT64_MAX;
	tl->priv->last_tid_key = UINT64_MAX;
	return tl;
fail:
	timeline__free(tl);
	errno = ENOMEM;
	return NULL;
}

void timeline__free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	if (tl->priv) {
		for (i = 0; i < tl->priv->st.nr; i++)
			free(tl->priv->st.strs[i]);
		free(tl->priv->st.strs);
		free(tl->priv->st.slots);
		for (i = 0; i < tl->priv->nr_warnings; i++)
			free(tl->priv->warnings[i]);
		free(tl->priv->warnings);
		free(tl->priv->stk);
		free_maps(tl->priv);
		free(tl->priv->api_stacks);
		free(tl->priv);
	}
	for (i = 0; i < tl->nr_files; i++)
		free(tl->files[i].path);
	free(tl->files);
	free(tl->gpu);
	free(tl->api);
	free(tl->samples);
	free(tl->offcpu);
	free(tl->frames);
	free(tl->procs);
	free(tl->offcpu_short);
	free(tl->mem);
	free(tl->threads);
	free(tl->modules);
	free(tl->devices);
	free(tl->lanes);
	free(tl->gpu_bytes);
	free(tl->long_durs);
	free(tl->kconfigs);
	free(tl->stack_ends);
	free(tl->tids);
	free(tl->api_names);
	free(tl->launch_stacks);
	free(tl);
}

/* Append room for one element to a growable array; NULL on ENOMEM. */
static void *push(void **arr, size_t *nr, size_t *cap, size_t elem)
{
	if (*nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		void *n = realloc(*arr, ncap * elem);

		if (!n)
			return NULL;
		*arr = n;
		*cap = ncap;
	}
	return (char *)*arr + (*nr)++ * elem;
}

#define PUSH(tl, field, nrf, capf) \
	((__typeof__((tl)->field))push((void **)&(tl)->field, &(tl)->nrf, &(tl)->priv->capf, sizeof(*(tl)->field)))

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
	e = push(arr, nr, cap, elem);
	if (!e)
		return UINT32_MAX;
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
static int note_stack_end(struct timeline *tl, uint32_t pid, uint16_t flags)
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
				&tl->nr_stack_ends, &p->cap_stack_ends, &e, sizeof(e));
		if (i == UINT32_MAX)
			return -ENOMEM;
		p->last_end_pid = pid;
		p->last_end = i + 1;
	}
	tl->stack_ends[i].n[end < GP_STACK_END_COUNT ? end : 0]++;
	return 0;
}

/*
 * The *_index() lookups run for every record loaded: each has its fast
 * path (a recent answer) inline in add_record(), the rest out of line.
 */
static __attribute__((noinline)) uint32_t tid_index_slow(struct timeline *tl, uint64_t key)
{
	struct tl_priv *p = tl->priv;
	struct tl_tid t = { (uint32_t)(key >> 32), (uint32_t)key };
	uint32_t i;

	i = table_index(&p->tid_map, key, (void **)&tl->tids, &tl->nr_tids, &p->cap_tids, &t,
			sizeof(t));
	if (i != UINT32_MAX && i >= (1u << 29))
		i = UINT32_MAX; /* tl_api.thr is 29 bits */
	if (i != UINT32_MAX) {
		p->last_tid_key = key;
		p->last_tid = i;
	}
	return i;
}

static inline uint32_t tid_index(struct timeline *tl, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;

	return key == tl->priv->last_tid_key ? tl->priv->last_tid : tid_index_slow(tl, key);
}

uint32_t timeline__tid_index(struct timeline *tl, uint32_t pid, uint32_t tid)
{
	return tid_index(tl, pid, tid);
}

uint32_t timeline__long_dur_code(struct timeline *tl, uint64_t d)
{
	struct tl_priv *p = tl->priv;

	if (tl->nr_long_durs == p->cap_long_durs) {
		size_t ncap = p->cap_long_durs ? 2 * p->cap_long_durs : 64;
		uint64_t *v = ncap < TL_DUR_LONG ? realloc(tl->long_durs, ncap * sizeof(*v)) : NULL;

		if (!v)
			return UINT32_MAX;
		tl->long_durs = v;
		p->cap_long_durs = ncap;
	}
	tl->long_durs[tl->nr_long_durs] = d;
	return TL_DUR_LONG + (uint32_t)tl->nr_long_durs++;
}

/* c: bytes' slot in the cache of recent answers (bytes_index()) */
static __attribute__((noinline)) uint32_t bytes_index_slow(struct timeline *tl, uint64_t bytes,
							   size_t c)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	i = table_index(&p->bytes_map, bytes, (void **)&tl->gpu_bytes, &tl->nr_gpu_bytes,
			&p->cap_gpu_bytes, &bytes, sizeof(bytes));
	if (i != UINT32_MAX) {
		p->bytes_key[c] = bytes + 1;
		p->bytes_val[c] = i;
	}
	return i;
}

static inline uint32_t bytes_index(struct timeline *tl, uint64_t bytes)
{
	struct tl_priv *p = tl->priv;
	size_t c = gp_mix64(bytes) & 15;

	if (p->bytes_key[c] == bytes + 1 && bytes != UINT64_MAX)
		return p->bytes_val[c];
	return bytes_index_slow(tl, bytes, c);
}

uint32_t timeline__bytes_index(struct timeline *tl, uint64_t bytes)
{
	return bytes_index(tl, bytes);
}

static inline bool same_kconfig(const struct tl_kconfig *a, const struct tl_kconfig *b)
{
	return a->grid[0] == b->grid[0] && a->grid[1] == b->grid[1] && a->grid[2] == b->grid[2] &&
	       a->block[0] == b->block[0] && a->block[1] == b->block[1] &&
	       a->block[2] == b->block[2] && a->static_smem == b->static_smem &&
	       a->dynamic_smem == b->dynamic_smem && a->regs == b->regs;
}

static __attribute__((noinline)) uint16_t kconfig_index_slow(struct timeline *tl,
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
			&p->cap_kconfigs, k, sizeof(*k));
	if (i == UINT32_MAX || i >= UINT16_MAX)
		return 0;
	p->kcfg_recent[p->kcfg_next] = *k;
	p->kcfg_recent_val[p->kcfg_next] = (uint16_t)(i + 1);
	p->kcfg_next = (p->kcfg_next + 1) % 4;
	return (uint16_t)(i + 1);
}

static inline uint16_t kconfig_index(struct timeline *tl, const struct tl_kconfig *k)
{
	struct tl_priv *p = tl->priv;

	for (int i = 0; i < 4; i++)
		if (p->kcfg_recent_val[i] && same_kconfig(&p->kcfg_recent[i], k))
			return p->kcfg_recent_val[i];
	return kconfig_index_slow(tl, k);
}

uint16_t timeline__kconfig_index(struct timeline *tl, const struct tl_kconfig *k)
{
	return kconfig_index(tl, k);
}

/* key: st as launch_stack_index() makes it; c: its slot in the cache of recent answers */
static __attribute__((noinline)) uint32_t launch_stack_index_slow(struct timeline *tl,
								    const struct tl_stack *st,
								    uint64_t key, size_t c)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	i = table_index(&p->lstack_map, key, (void **)&tl->launch_stacks, &tl->nr_launch_stacks,
			&p->cap_launch_stacks, st, sizeof(*st));
	if (i != UINT32_MAX) {
		p->lst_key[c] = key + 1;
		p->lst_val[c] = i;
	}
	return i;
}

static inline uint32_t launch_stack_index(struct timeline *tl, const struct tl_stack *st)
{
	struct tl_priv *p = tl->priv;
	uint64_t key = (uint64_t)st->off << 32 | (uint32_t)st->nr_user << 16 | st->nr_kernel;
	size_t c = gp_mix64(key) & 63;

	if (p->lst_key[c] == key + 1 && key != UINT64_MAX)
		return p->lst_val[c];
	return launch_stack_index_slow(tl, st, key, c);
}

uint32_t timeline__launch_stack_index(struct timeline *tl, const struct tl_stack *st)
{
	return launch_stack_index(tl, st);
}

/*
 * Grow the zero-filled array *arr of *cap elements of @elem bytes so that
 * index @idx fits (doubling from 256); new elements are zero.
 */
static int grow_zeroed(void **arr, size_t *cap, size_t idx, size_t elem)
{
	size_t n = *cap ? *cap : 256;
	char *a;

	if (idx < *cap)
		return 0;
	while (n <= idx)
		n *= 2;
	a = realloc(*arr, n * elem);
	if (!a)
		return -ENOMEM;
	memset(a + *cap * elem, 0, (n - *cap) * elem);
	*arr = a;
	*cap = n;
	return 0;
}

static __attribute__((noinline)) uint16_t api_name_index_slow(struct timeline *tl, uint32_t str)
{
	struct tl_priv *p = tl->priv;
	uint32_t i;

	if (!tl->nr_api_names) {
		uint32_t zero = 0;

		/* [0]: the unknown name, string 0 */
		if (table_index(&p->api_name_map, 0, (void **)&tl->api_names, &tl->nr_api_names,
				&p->cap_api_names, &zero, sizeof(zero)) == UINT32_MAX)
			return 0;
	}
	i = table_index(&p->api_name_map, str, (void **)&tl->api_names, &tl->nr_api_names,
			&p->cap_api_names, &str, sizeof(str));
	if (i >= UINT16_MAX) {
		if (i != UINT32_MAX)
			tl->nr_api_names--; /* never referenced: the table stays within 16-bit indices */
		/* the map keeps the key, so later records of the name stay "unknown" too */
		return 0;
	}
	if (grow_zeroed((void **)&p->api_name_of, &p->api_name_of_cap, str,
			sizeof(*p->api_name_of)))
		return (uint16_t)i; /* only the shortcut is missing */
	p->api_name_of[str] = (uint16_t)(i + 1);
	return (uint16_t)i;
}

static inline uint16_t api_name_index(struct timeline *tl, uint32_t str)
{
	struct tl_priv *p = tl->priv;

	if (str < p->api_name_of_cap && p->api_name_of[str])
		return (uint16_t)(p->api_name_of[str] - 1);
	return api_name_index_slow(tl, str);
}

uint16_t timeline__api_name_index(struct timeline *tl, uint32_t str)
{
	return api_name_index(tl, str);
}

static uint64_t lane_hash(const struct tl_lane *l)
{
	return gp_mix64(((uint64_t)l->pid << 32 | l->device) ^ gp_mix64((uint64_t)l->stream << 32 | l->graph_id));
}

static int same_lane(const struct tl_lane *a, const struct tl_lane *b)
{
	return a->pid == b->pid && a->device == b->device && a->stream == b->stream &&
	       a->graph_id == b->graph_id;
}

static __attribute__((noinline)) uint32_t lane_index_slow(struct timeline *tl, struct tl_lane l)
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
	e = push((void **)&tl->lanes, &tl->nr_lanes, &p->cap_lanes, sizeof(*e));
	if (!e)
		return UINT32_MAX;
	*e = l;
	p->lane_slots[j] = (uint32_t)tl->nr_lanes;
	return p->last_lane = (uint32_t)tl->nr_lanes - 1;
}

static inline uint32_t lane_index(struct timeline *tl, uint32_t pid, uint32_t device,
				  uint32_t stream, uint32_t graph_id)
{
	struct tl_priv *p = tl->priv;
	struct tl_lane l = { pid, device, stream, graph_id };

	if (p->last_lane < tl->nr_lanes && same_lane(&tl->lanes[p->last_lane], &l))
		return p->last_lane;
	return lane_index_slow(tl, l);
}

uint32_t timeline__lane_index(struct timeline *tl, uint32_t pid, uint32_t device, uint32_t stream,
			      uint32_t graph_id)
{
	return lane_index(tl, pid, device, stream, graph_id);
}

static uint32_t idmap_get(const struct idmap *m, uint32_t key)
{
	uint32_t j;

	if (key < IDMAP_DIRECT)
		return key < m->ndirect ? m->direct[key] : 0;
	if (!m->cap)
		return 0;
	for (j = (key * 2654435761u) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return m->vals[j];
	return 0;
}

static int idmap_put(struct idmap *m, uint32_t key, uint32_t val)
{
	uint32_t j;

	if (key < IDMAP_DIRECT) {
		if (grow_zeroed((void **)&m->direct, &m->ndirect, key, sizeof(*m->direct)))
			return -ENOMEM;
		m->direct[key] = val;
		return 0;
	}
	if ((m->nr + 1) * 2 > m->cap) {
		struct idmap n = { 0 };
		uint32_t i;

		n.cap = m->cap ? m->cap * 2 : 256;
		n.keys = calloc(n.cap, sizeof(uint32_t));
		n.vals = calloc(n.cap, sizeof(uint32_t));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				idmap_put(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		n.direct = m->direct;
		n.ndirect = m->ndirect;
		*m = n;
	}
	for (j = (key * 2654435761u) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			m->vals[j] = val;
			return 0;
		}
	m->keys[j] = key;
	m->vals[j] = val;
	m->nr++;
	return 0;
}

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

/* Whether the n frames at a and b are the same (n is small: a loop beats a call to memcmp). */
static inline bool same_frames(const uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* add_stack() for a stack not in the cache of recent ones (its slot r there): by its hash. */
static __attribute__((noinline)) int add_stack_slow(struct timeline *tl, struct tl_stack *st,
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
	if (tl->nr_frames + n > p->cap_frames) {
		size_t ncap = p->cap_frames ? p->cap_frames : 4096;
		uint64_t *f;

		while (ncap < tl->nr_frames + n)
			ncap *= 2;
		f = realloc(tl->frames, ncap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		tl->frames = f;
		p->cap_frames = ncap;
	}
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

/*
 * Store a stack in the frame pool, once: a stack seen before (the same
 * frames) points at the frames already there. The split into user and
 * kernel frames is kept in st, so only the frames have to match. A stack
 * met a moment ago is found in a small cache first, inline; the rest is
 * add_stack_slow()'s.
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
	return add_stack_slow(tl, st, ips, n, r);
}

const uint64_t *timeline__frames(const struct timeline *tl, const struct tl_stack *st)
{
	return tl->frames + st->off;
}

static void seen_ts(struct timeline *tl, uint64_t a, uint64_t b)
{
	if (a && a < tl->first_ts)
		tl->first_ts = a;
	if (b > tl->last_ts)
		tl->last_ts = b;
}

/*
 * First pass over a file not in CLOCK_MONOTONIC: its clock pairs decide
 * the mapping before any of its records is stored.
 */
static void fit_clock(struct timeline *tl, const char *path, struct gp_reader *r, struct clock_fit *fit)
{
	const struct gp_file_header *h = gp_reader__header(r);
	uint64_t *prod = NULL, *mono = NULL;
	size_t n = 0, cap = 0;
	const struct gp_rec_hdr *rec;
	int rc;

	while ((rc = gp_reader__next(r, &rec)) != GP_READ_EOF) {
		const struct gp_rec_clock_pair *cp = (const void *)rec;

		if (rc != GP_READ_RECORD || rec->type != GP_REC_CLOCK_PAIR || !cp->producer_ts)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			uint64_t *np = realloc(prod, ncap * sizeof(*np));
			uint64_t *nm = np ? realloc(mono, ncap * sizeof(*nm)) : NULL;

			if (!np || !nm) {
				prod = np ? np : prod;
				break;
			}
			prod = np;
			mono = nm;
			cap = ncap;
		}
		prod[n] = cp->producer_ts;
		mono[n] = cp->monotonic_ns;
		n++;
	}
	if (n) {
		clock_fit__pairs(fit, prod, mono, n);
	} else {
		/* The header's two clocks, read together when the file was opened. */
		uint64_t at = h->clock_id == GP_CLOCK_REALTIME ? h->start_realtime_ns : h->start_monotonic_ns;

		clock_fit__offset(fit, at, h->start_monotonic_ns, CLOCK_HEADER);
		warn(tl, "'%s': timestamps are not CLOCK_MONOTONIC and the trace has no clock pairs; "
			 "aligned by the header's clocks only (expect microseconds of error)", path);
	}
	free(prod);
	free(mono);
}

static int cmp_u64(uint64_t a, uint64_t b)
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
 * The record just stored last in an array (its ORD_* bit, *ord its count
 * of records checked): whether it came after the one before it in the
 * order above (struct tl_priv's ord_*).
 */
static inline void note_order(struct tl_priv *p, size_t *ord, unsigned bit, bool out_of_order)
{
	if (out_of_order)
		p->unordered |= bit;
	(*ord)++;
}

/*
 * Whether a new API call on thread thr, ending at end, is nested, as
 * timeline__finish() marks them while the calls come in order (outer_*:
 * the thread's enclosing call so far).
 */
static inline unsigned api_nested(struct timeline *tl, uint32_t thr, uint64_t end)
{
	struct tl_priv *p = tl->priv;
	size_t i = tl->nr_api - 1; /* its index */
	unsigned nested;

	/* in order, a call starts no earlier than the thread's enclosing one */
	nested = i && thr == p->outer_thr && end <= p->outer_end;
	if (!nested) {
		p->outer_thr = thr;
		p->outer_end = end;
	}
	return nested;
}

/*
 * Copy one record into the timeline; -ENOMEM is the only failure. ids and
 * stacks: the file's string and stack ids, to timeline strings and launch
 * stacks (index + 1).
 */
static int add_record(struct timeline *tl, struct idmap *ids, struct idmap *stacks,
		      const struct gp_rec_hdr *rec, struct tl_file *f)
{
	const struct clock_fit *fit = &f->fit;
	uint32_t file_pid = f->pid;

/* most traces are CLOCK_MONOTONIC already: no call per timestamp then */
#define T(x) (fit->method == CLOCK_IDENTITY ? (x) : clock_fit__apply(fit, (x)))
#define S(x) idmap_get(ids, (x))
	switch (rec->type) {
	case GP_REC_STRING: {
		const struct gp_rec_string *s = (const void *)rec;
		uint32_t id = timeline__intern(tl, s->data);

		return id ? idmap_put(ids, s->id, id) : 0;
	}
	case GP_REC_API: {
		const struct gp_rec_api *a = (const void *)rec;
		struct tl_api *o = PUSH(tl, api, nr_api, cap_api);
		uint64_t start = T(a->start), end = T(a->end);
		uint32_t thr = tid_index(tl, a->pid ? a->pid : file_pid, a->tid);
		struct tl_api bits = { .thr = thr & 0x1fffffff, .domain = a->domain & 3 };

		if (!o || thr == UINT32_MAX)
			return -ENOMEM;
		bits.nested = api_nested(tl, bits.thr, end > start ? end : start) & 1;
		/*
		 * Plain stores only, in the order of the fields: the first touch of
		 * each new page is a write. A bit field's read-modify-write would
		 * map the zero page first and take a second fault to replace it.
		 */
		o->start = start;
		o->dur = timeline__dur_code(tl, start, end);
		o->corr = a->correlation_id + f->corr_base;
		if (a->correlation_id > f->corr_max)
			f->corr_max = a->correlation_id;
		o->launch = -1;
		o->bits = bits.bits;
		o->name = api_name_index(tl, S(a->name_str));
		o->ret = a->return_value > INT16_MAX   ? INT16_MAX
			 : a->return_value < INT16_MIN ? INT16_MIN
						       : (int16_t)a->return_value;
		if (o->dur == UINT32_MAX || !tl->nr_api_names)
			return -ENOMEM; /* a long duration, or not even the "unknown" API name */
		note_order(tl->priv, &tl->priv->ord_api, ORD_API,
			   tl->nr_api > 1 && api_cmp(tl, o - 1, o) > 0);
		seen_ts(tl, start, end);
		return 0;
	}
	case GP_REC_KERNEL:
	case GP_REC_MEMCPY:
	case GP_REC_MEMSET:
	case GP_REC_SYNC: {
		struct tl_gpu *g = PUSH(tl, gpu, nr_gpu, cap_gpu);
		uint32_t pid = 0, device = 0, stream = 0, graph = 0;
		uint64_t bytes = 0, start, end;

		if (!g)
			return -ENOMEM;
		memset(g, 0, sizeof(*g));
		if (rec->type == GP_REC_KERNEL) {
			const struct gp_rec_kernel *k = (const void *)rec;

			g->kind = TL_GPU_KERNEL;
			start = k->start;
			end = k->end;
			pid = k->pid;
			g->corr = k->correlation_id;
			g->name = S(k->name_str);
			if (k->grid[0] && k->block[0]) {
				struct tl_kconfig c = {
					.grid = { k->grid[0], k->grid[1], k->grid[2] },
					.block = { k->block[0], k->block[1], k->block[2] },
					.static_smem = k->static_shared_mem,
					.dynamic_smem = k->dynamic_shared_mem,
					.regs = k->registers_per_thread,
				};

				g->kconfig = kconfig_index(tl, &c);
			}
			device = k->device_id;
			stream = k->stream_id;
			graph = k->graph_id;
		} else if (rec->type == GP_REC_MEMCPY) {
			const struct gp_rec_memcpy *m = (const void *)rec;

			g->kind = TL_GPU_MEMCPY;
			start = m->start;
			end = m->end;
			pid = m->pid;
			g->corr = m->correlation_id;
			device = m->device_id;
			stream = m->stream_id;
			graph = m->graph_id;
			bytes = m->bytes;
			g->copy_kind = m->copy_kind;
		} else if (rec->type == GP_REC_MEMSET) {
			const struct gp_rec_memset *m = (const void *)rec;

			g->kind = TL_GPU_MEMSET;
			start = m->start;
			end = m->end;
			pid = m->pid;
			g->corr = m->correlation_id;
			device = m->device_id;
			stream = m->stream_id;
			graph = m->graph_id;
			bytes = m->bytes;
		} else {
			const struct gp_rec_sync *s = (const void *)rec;

			g->kind = TL_GPU_SYNC;
			start = s->start;
			end = s->end;
			pid = s->pid;
			g->corr = s->correlation_id;
			stream = s->stream_id;
		}
		if (g->corr > f->corr_max)
			f->corr_max = g->corr;
		g->corr += f->corr_base;
		g->start = T(start);
		end = T(end);
		g->dur = timeline__dur_code(tl, g->start, end);
		if (g->dur == UINT32_MAX)
			return -ENOMEM;
		note_order(tl->priv, &tl->priv->ord_gpu, ORD_GPU,
			   tl->nr_gpu > 1 && gpu_cmp(tl, g - 1, g) > 0);
		g->lane = lane_index(tl, pid ? pid : file_pid, device, stream, graph);
		if (g->lane == UINT32_MAX)
			return -ENOMEM;
		if (g->kind == TL_GPU_MEMCPY || g->kind == TL_GPU_MEMSET) {
			g->name = bytes_index(tl, bytes);
			if (g->name == UINT32_MAX)
				return -ENOMEM;
		}
		seen_ts(tl, g->start, end);
		return 0;
	}
	case GP_REC_MEMORY: {
		const struct gp_rec_memory *m = (const void *)rec;
		struct tl_mem *o = PUSH(tl, mem, nr_mem, cap_mem);

		if (!o)
			return -ENOMEM;
		memset(o, 0, sizeof(*o));
		o->ts = T(m->ts);
		o->address = m->address;
		o->bytes = m->bytes;
		o->pool_address = m->pool_address;
		o->pool_size = m->pool_size;
		o->pool_used = m->pool_used;
		o->pid = m->pid ? m->pid : file_pid;
		o->device = m->device_id;
		o->context = m->context_id;
		o->stream = m->stream_id;
		if (m->correlation_id > f->corr_max)
			f->corr_max = m->correlation_id;
		o->corr = m->correlation_id + f->corr_base;
		o->api = -1;
		o->op = m->op;
		o->kind = m->memory_kind;
		o->pool_type = m->pool_type;
		o->is_async = m->is_async;
		seen_ts(tl, o->ts, o->ts);
		return 0;
	}
	case GP_REC_LAUNCH_SITE:
	case GP_REC_LAUNCH_SITE_ID:
		/* an older agent's uprobe hits: no longer joined, only counted (timeline.h) */
		tl->old_launch_sites++;
		return 0;
	case GP_REC_STACK: {
		/* launch stacks, so far the only ones named by id (GP_REC_API_STACK) */
		const struct gp_rec_stack *k = (const void *)rec;
		struct tl_stack st;
		uint32_t li;

		/*
		 * Mapped again at each chunk's definition (a few per chunk; the
		 * stack and its index are found in their caches): a writer's ids
		 * name the same frames, but a reader need not count on it.
		 */
		if (add_stack(tl, &st, k->ips, k->nr_user, k->nr_kernel))
			return -ENOMEM;
		li = launch_stack_index(tl, &st);
		return li == UINT32_MAX ? -ENOMEM : idmap_put(stacks, k->id, li + 1);
	}
	case GP_REC_API_STACK: {
		/* (2.3) the call's own stack, taken on its thread: bound after the file (bind_api_stacks()) */
		const struct gp_rec_api_stack *a = (const void *)rec;
		uint32_t li = a->stack_id ? idmap_get(stacks, a->stack_id) : 0;
		struct tl_priv *p = tl->priv;
		struct api_stack_ent *e;

		f->launch_stacks = 1;
		p->api_stacks_seen++;
		p->api_stacks_truncated += !!(rec->flags & GP_API_STACK_TRUNCATED);
		if (!li)
			return 0; /* not known, or its chunk did not define it: the call keeps none */
		e = push((void **)&p->api_stacks, &p->nr_api_stacks, &p->cap_api_stacks, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->corr = a->correlation_id + f->corr_base;
		e->stack = li - 1;
		return 0;
	}
	case GP_REC_CPU_SAMPLE: {
		const struct gp_rec_cpu_sample *s = (const void *)rec;
		struct tl_sample *o = PUSH(tl, samples, nr_samples, cap_samples);

		if (!o)
			return -ENOMEM;
		o->ts = T(s->ts);
		note_order(tl->priv, &tl->priv->ord_samples, ORD_SAMPLES,
			   tl->nr_samples > 1 && cmp_sample(o - 1, o) > 0);
		o->weight = s->weight_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)s->weight_ns;
		o->pid = s->pid;
		o->tid = s->tid;
		o->cpu = s->cpu;
		seen_ts(tl, o->ts, o->ts);
		if (note_stack_end(tl, s->pid, rec->flags))
			return -ENOMEM;
		return add_stack(tl, &o->stack, s->ips, s->nr_user, s->nr_kernel);
	}
	case GP_REC_OFFCPU: {
		const struct gp_rec_offcpu *s = (const void *)rec;
		struct tl_offcpu *o;

		if (rec->flags & GP_OFFCPU_AGGREGATE) {
			struct tl_offcpu_short *a = PUSH(tl, offcpu_short, nr_offcpu_short,
							 cap_offcpu_short);

			if (!a)
				return -ENOMEM;
			a->total_ns = s->end > s->start ? s->end - s->start : 0;
			a->pid = s->pid;
			a->tid = s->tid;
			a->count = s->pad;
			a->pad = 0;
			return 0;
		}
		o = PUSH(tl, offcpu, nr_offcpu, cap_offcpu);

		if (!o)
			return -ENOMEM;
		o->start = T(s->start);
		note_order(tl->priv, &tl->priv->ord_offcpu, ORD_OFFCPU,
			   tl->nr_offcpu > 1 && cmp_offcpu(o - 1, o) > 0);
		o->end = T(s->end);
		o->pid = s->pid;
		o->tid = s->tid;
		o->cpu = s->cpu;
		o->state = s->state;
		seen_ts(tl, o->start, o->end);
		if (note_stack_end(tl, s->pid, rec->flags))
			return -ENOMEM;
		return add_stack(tl, &o->stack, s->ips, s->nr_user, s->nr_kernel);
	}
	case GP_REC_DROPPED: {
		const struct gp_rec_dropped *d = (const void *)rec;

		_Static_assert(GP_DROP_SOURCES <= sizeof(tl->dropped) / sizeof(tl->dropped[0]),
			       "timeline.dropped holds every source");

		if (d->source < sizeof(tl->dropped) / sizeof(tl->dropped[0])) {
			tl->dropped[d->source] += d->count;
			if (d->count && d->cause && !tl->drop_cause[d->source])
				tl->drop_cause[d->source] = d->cause;
		}
		return 0;
	}
	case GP_REC_PROCESS: {
		const struct gp_rec_process *pr = (const void *)rec;
		struct tl_proc *o = PUSH(tl, procs, nr_procs, cap_procs);

		if (!o)
			return -ENOMEM;
		memset(o, 0, sizeof(*o));
		o->pid = pr->pid;
		o->ppid = pr->ppid;
		o->comm = S(pr->comm_str);
		o->exe = S(pr->exe_str);
		if (pr->event == GP_PROC_EXIT) {
			o->exit_ts = T(pr->ts);
			o->exit_status = pr->exit_code;
			o->exited = 1;
			/* the recording lasts at least until an exit it saw */
			seen_ts(tl, 0, o->exit_ts);
		} else {
			o->first_ts = T(pr->ts);
			o->forked = pr->event == GP_PROC_FORK;
		}
		/* exec: the record's comm/exe replace the old image's when merged */
		o->pad = (uint16_t)((pr->event & 0xff) |
				    (f->producer == GP_PRODUCER_INJECT ? PROC_GPU_IMAGE : 0));
		return 0;
	}
	case GP_REC_THREAD: {
		const struct gp_rec_thread *th = (const void *)rec;
		struct tl_thread *o = PUSH(tl, threads, nr_threads, cap_threads);

		if (!o)
			return -ENOMEM;
		memset(o, 0, sizeof(*o));
		o->pid = th->pid;
		o->tid = th->tid;
		o->name = S(th->name_str);
		if (th->event == GP_PROC_EXIT) {
			o->exit_ts = T(th->ts);
			seen_ts(tl, 0, o->exit_ts);
		} else
			o->first_ts = T(th->ts);
		return 0;
	}
	case GP_REC_MODULE: {
		const struct gp_rec_module *m = (const void *)rec;
		struct tl_module *o = PUSH(tl, modules, nr_modules, cap_modules);

		if (!o)
			return -ENOMEM;
		o->ts = T(m->ts);
		o->start = m->start;
		o->end = m->end;
		o->pgoff = m->pgoff;
		o->pid = m->pid;
		o->path = S(m->path_str);
		o->build_id_size = m->build_id_size <= sizeof(o->build_id) ? m->build_id_size : 0;
		memcpy(o->build_id, m->build_id, sizeof(o->build_id));
		return 0;
	}
	case GP_REC_DEVICE: {
		const struct gp_rec_device *d = (const void *)rec;
		struct tl_device *o = PUSH(tl, devices, nr_devices, cap_devices);

		if (!o)
			return -ENOMEM;
		o->global_memory_bytes = d->global_memory_bytes;
		o->id = d->device_id;
		o->name = S(d->name_str);
		o->cc_major = d->cc_major;
		o->cc_minor = d->cc_minor;
		o->sm_count = d->sm_count;
		return 0;
	}
	default:
		return 0; /* types this merger does not use */
	}
#undef T
#undef S
}

static int cmp_api_stack(const void *a, const void *b)
{
	const struct api_stack_ent *x = a, *y = b;

	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/*
 * A GPU trace with launch stacks (2.3): each of its API calls [api0,
 * nr_api) takes the stack its api_stack record names, by correlation id,
 * exactly. The first record of an id
 * wins, as correlate's does for API records.
 */
static void bind_api_stacks(struct timeline *tl, size_t api0)
{
	struct tl_priv *p = tl->priv;
	size_t i;

	if (!p->nr_api_stacks)
		return;
	gp_sort(p->api_stacks, p->nr_api_stacks, sizeof(*p->api_stacks), cmp_api_stack);
	for (i = api0; i < tl->nr_api; i++) {
		size_t lo = 0, hi = p->nr_api_stacks;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->api_stacks[mid].corr < tl->api[i].corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->nr_api_stacks && p->api_stacks[lo].corr == tl->api[i].corr)
			tl->api[i].launch = (int32_t)p->api_stacks[lo].stack;
	}
	p->nr_api_stacks = 0;
}

int timeline__load_file(struct timeline *tl, const char *path, const char **why)
{
	struct tl_priv *p = tl->priv;
	struct idmap ids = { 0 }, stacks = { 0 };
	struct gp_reader_stats rs;
	struct gp_reader *r;
	struct tl_file *f;
	const uint8_t *recs;
	uint64_t writer0;
	size_t len, api0;
	int rc, err = 0;

	r = gp_reader__open(path, p->errbuf, sizeof(p->errbuf));
	if (!r) {
		err = -errno;
		if (why)
			*why = p->errbuf;
		return err ? err : -EINVAL;
	}
	f = push((void **)&tl->files, &tl->nr_files, &p->cap_files, sizeof(*tl->files));
	if (!f) {
		gp_reader__free(r);
		return -ENOMEM;
	}
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->pid = gp_reader__header(r)->pid;
	f->producer = gp_reader__header(r)->producer;
	{
		const struct gp_file_header *h = gp_reader__header(r);

		f->start_monotonic_ns = h->start_monotonic_ns;
		f->start_realtime_ns = h->start_realtime_ns;
		snprintf(f->hostname, sizeof(f->hostname), "%.*s", (int)sizeof(h->hostname),
			 h->hostname);
		snprintf(f->kernel_release, sizeof(f->kernel_release), "%.*s",
			 (int)sizeof(h->kernel_release), h->kernel_release);
		snprintf(f->machine, sizeof(f->machine), "%.*s", (int)sizeof(h->machine), h->machine);
		snprintf(f->producer_version, sizeof(f->producer_version), "%.*s",
			 (int)sizeof(h->producer_version), h->producer_version);
	}
	/*
	 * CUPTI counts correlation ids from 1 in every process image: the ids of
	 * a later image of the same pid (its own trace after an exec) go above
	 * those of the images loaded before, so each call keeps its own GPU work.
	 */
	if (f->producer == GP_PRODUCER_INJECT) {
		size_t i;

		for (i = 0; i + 1 < tl->nr_files; i++) {
			const struct tl_file *e = &tl->files[i];

			if (e->producer == GP_PRODUCER_INJECT && e->pid == f->pid &&
			    e->corr_base + (uint64_t)e->corr_max > f->corr_base)
				f->corr_base = (uint32_t)(e->corr_base + (uint64_t)e->corr_max);
		}
	}
	if (gp_reader__header(r)->clock_id != GP_CLOCK_MONOTONIC) {
		fit_clock(tl, path, r, &f->fit);
		gp_reader__free(r);
		r = gp_reader__open(path, p->errbuf, sizeof(p->errbuf));
		if (!r) {
			if (why)
				*why = p->errbuf;
			return -EIO;
		}
	}
	writer0 = tl->dropped[GP_DROP_WRITER];
	api0 = tl->nr_api;
	tl->priv->nr_api_stacks = 0;
	tl->priv->api_stacks_seen = tl->priv->api_stacks_truncated = 0;
	/* a chunk's records at a time: a call per record is a tenth of the loading time */
	while (!err && (rc = gp_reader__next_chunk(r, &recs, &len)) != GP_READ_EOF) {
		const uint8_t *end = recs + len;

		if (rc == GP_READ_ERROR) {
			warn(tl, "%s", gp_reader__error(r));
			continue;
		}
		for (; recs < end && !err; recs += ((const struct gp_rec_hdr *)recs)->size)
			err = add_record(tl, &ids, &stacks, (const struct gp_rec_hdr *)recs, f);
	}
	if (!err)
		bind_api_stacks(tl, api0);
	if (p->api_stacks_truncated)
		warn(tl, "'%s': %llu of %llu launch stacks end early (a frame the unwinder could not "
			 "read, or code loaded after its last table refresh): their outer frames are "
			 "missing", path, (unsigned long long)p->api_stacks_truncated,
		     (unsigned long long)p->api_stacks_seen);
	gp_reader__stats(r, &rs);
	f->clean_end = rs.clean_end;
	f->records = rs.records;
	/* 2.2: the writer's losses, kept in the header where no record could go (a full disk) */
	if (gp_reader__header(r)->lost_records > tl->dropped[GP_DROP_WRITER] - writer0)
		tl->dropped[GP_DROP_WRITER] = writer0 + gp_reader__header(r)->lost_records;
	if (gp_reader__header(r)->lost_records && !tl->drop_cause[GP_DROP_WRITER])
		tl->drop_cause[GP_DROP_WRITER] = gp_reader__header(r)->lost_cause;
	if (gp_reader__header(r)->flags & GP_FILE_END_LOST)
		rs.clean_end = 1; /* closed; its losses say what is missing */
	if (!rs.clean_end && !rs.truncated && !err && p->next_image)
		warn(tl, "'%s': no end mark: the process exec'd ('%s' is its next image); what it "
			 "flushed before the exec is used, its last flush period is lost", path,
		     p->next_image);
	else if (!rs.clean_end && !rs.truncated && !err)
		warn(tl, "'%s': no end mark: the recording process was killed or is still running; "
			 "what it flushed is used", path);
	free(ids.keys);
	free(ids.vals);
	free(ids.direct);
	free(stacks.keys);
	free(stacks.vals);
	free(stacks.direct);
	gp_reader__free(r);
	if (err && why) {
		snprintf(p->errbuf, sizeof(p->errbuf), "out of memory loading '%s'", path);
		*why = p->errbuf;
	}
	return err;
}

static int trace_name(const struct dirent *de)
{
	return !strcmp(de->d_name, "cpu.trace") || !fnmatch("gpu-*.trace", de->d_name, 0);
}

/*
 * The n of gpu-<pid>.<n>.trace (a pid's image after n execs), 0 for
 * gpu-<pid>.trace; *stem: the length of "gpu-<pid>".
 */
static unsigned long image_of(const char *name, size_t *stem)
{
	const char *dot = strchr(name, '.');

	*stem = dot ? (size_t)(dot - name) : strlen(name);
	return dot && dot[1] >= '0' && dot[1] <= '9' ? strtoul(dot + 1, NULL, 10) : 0;
}

/*
 * gpu-*.trace by name, a pid's images in exec order, then cpu.trace.
 */
static int cmp_trace_name(const struct dirent **a, const struct dirent **b)
{
	const char *x = (*a)->d_name, *y = (*b)->d_name;
	int ca = !strcmp(x, "cpu.trace"), cb = !strcmp(y, "cpu.trace"), c;
	unsigned long nx, ny;
	size_t sx, sy;

	if (ca != cb)
		return ca - cb;
	nx = image_of(x, &sx);
	ny = image_of(y, &sy);
	c = strncmp(x, y, sx < sy ? sx : sy);
	if (c || sx != sy)
		return c ? c : sx < sy ? -1 : 1;
	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

static int load_dir(struct timeline *tl, const char *dir, const char **why)
{
	struct tl_priv *p = tl->priv;
	struct dirent **de = NULL;
	char path[4096];
	int n = scandir(dir, &de, trace_name, cmp_trace_name), i, err = 0;

	if (n < 0) {
		err = -errno;
		snprintf(p->errbuf, sizeof(p->errbuf), "cannot open directory '%s': %s", dir, strerror(-err));
		if (why)
			*why = p->errbuf;
		return err;
	}
	for (i = 0; i < n && err != -ENOMEM; i++) {
		size_t s1, s2;

		snprintf(path, sizeof(path), "%s/%s", dir, de[i]->d_name);
		/* the next name a later image of the same pid (sorted so): this one exec'd */
		p->next_image = NULL;
		if (i + 1 < n && strcmp(de[i + 1]->d_name, "cpu.trace")) {
			image_of(de[i]->d_name, &s1);
			image_of(de[i + 1]->d_name, &s2);
			if (s1 == s2 && !strncmp(de[i]->d_name, de[i + 1]->d_name, s1))
				p->next_image = de[i + 1]->d_name;
		}
		err = timeline__load_file(tl, path, why);
		p->next_image = NULL;
		if (err && err != -ENOMEM) {
			/* an unreadable file is a warning; the others still load */
			warn(tl, "%s", p->errbuf);
			err = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(de[i]);
	free(de);
	if (!err && !n) {
		snprintf(p->errbuf, sizeof(p->errbuf),
			 "'%s' holds no cpu.trace or gpu-<pid>.trace: not a gpuperf recording", dir);
		if (why)
			*why = p->errbuf;
		return -ENOENT;
	}
	return err;
}

int timeline__load_dir(struct timeline *tl, const char *dir, const char **why)
{
	return load_dir(tl, dir, why);
}

/*
 * A stable sort for arrays that are nearly in order already (each trace is
 * written about in time order; several files, CUPTI's per-buffer order and
 * clock alignment displace some records a little). An array in order is
 * only checked; one with a few records out of place is insertion-sorted in
 * place, without the n-element scratch copy a merge sort needs. Past a
 * budget of element moves (really unordered input) the rest goes to
 * gp_sort(): insertion sort keeps equal elements in their order, so the
 * result is the one a stable gp_sort() (glibc's merge sort) gives alone.
 * Inlined at each call, with its comparison: an array in order then costs
 * one pass of inline compares, not a call per element.
 */
static inline __attribute__((always_inline)) void
sort_nearly(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base, tmp[128];
	size_t i, moves = 0, budget = 4 * n + 4096;

	if (n < 2)
		return;
	if (size > sizeof(tmp)) {
		gp_sort(base, n, size, cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		char *x = b + i * size;
		size_t j = i - 1;

		if (cmp(b + j * size, x) <= 0)
			continue;
		while (j > 0 && cmp(b + (j - 1) * size, x) > 0)
			j--;
		moves += i - j;
		if (moves > budget) {
			gp_sort(base, n, size, cmp);
			return;
		}
		memcpy(tmp, x, size);
		memmove(b + (j + 1) * size, b + j * size, (i - j) * size);
		memcpy(b + j * size, tmp, size);
	}
}

/*
 * Group the n records at arr by thread index (thr(), below nthr), each
 * thread's in the order they were: what sorting by thread, then time, does
 * to records of several threads interleaved in time, in one pass. Such an
 * array is far from sorted for sort_nearly(), whose fallback (qsort: a
 * merge sort) copies it too, then compares ~log2(n) times per record.
 * Nothing is done when the records are grouped already, or on ENOMEM (the
 * sort does it all then).
 *
 * The thread with the most records (the main one, usually) stays in the
 * array: only the others go out to a scratch copy and back, so a program
 * with one busy launching thread and a few quiet ones does not pay for a
 * second copy of every record. The busy thread's k-th record goes from its
 * place c(k) to p + k, p being the records of the threads before it.
 * c(k) - k (the others' records before it) only grows with k, so the ones
 * that move left (c(k) >= p + k) come after those that move right: the
 * first go in one pass forward, each into a slot already emptied (an
 * other's, copied out, or a busy record's, moved already); the rest in a
 * pass backward over the slots below p + (how many move right), where
 * nothing was written and the busy thread has no other record.
 */
static inline __attribute__((always_inline)) void
group_by_thread(void *arr, size_t n, size_t size, size_t nthr, uint32_t (*thr)(const void *))
{
	char *a = arr, *out;
	size_t i, k, t, big = 0, nbig, p, right = 0, *at;

	for (i = 1; i < n && thr(a + i * size) >= thr(a + (i - 1) * size); i++)
		;
	if (i >= n)
		return;
	at = calloc(nthr + 1, sizeof(*at));
	if (!at)
		return;
	for (i = 0; i < n; i++) {
		t = thr(a + i * size);
		if (t >= nthr) { /* not an index into tl->tids: leave it to the sort */
			free(at);
			return;
		}
		at[t + 1]++;
	}
	for (t = 1; t < nthr; t++)
		if (at[t + 1] > at[big + 1])
			big = t;
	nbig = at[big + 1];
	for (t = 1; t <= nthr; t++)
		at[t] += at[t - 1]; /* at[t]: where thread t's records start */
	p = at[big];
	out = malloc((n - nbig) * size);
	if (!out) {
		free(at);
		return;
	}
	/* at[t] becomes thread t's next slot in out, where the busy thread's records are not */
	for (t = big + 1; t < nthr; t++)
		at[t] -= nbig;
	for (i = 0, k = 0; i < n; i++) {
		t = thr(a + i * size);
		if (t != big) {
			memcpy(out + at[t]++ * size, a + i * size, size);
		} else {
			if (i < p + k)
				right = k + 1; /* moves right: in the pass backward */
			else if (i != p + k)
				memcpy(a + (p + k) * size, a + i * size, size);
			k++;
		}
	}
	/* the ones that move right are the busy thread's only records below p + right */
	for (i = p + right, k = right; k;) {
		if (thr(a + --i * size) != big)
			continue;
		k--;
		memcpy(a + (p + k) * size, a + i * size, size);
	}
	memcpy(a, out, p * size);
	memcpy(a + (p + nbig) * size, out + p * size, (n - p - nbig) * size);
	free(out);
	free(at);
}

static inline uint32_t api_thr(const void *a)
{
	return ((const struct tl_api *)a)->thr;
}

/*
 * A recording whose launch stacks are all an older agent's launch_site
 * records: say once that they are not joined, and what to do. Where some
 * GPU trace carries its own stacks (api_stack), those are the join and the
 * old records are only counted.
 */
static void old_launch_sites_warning(struct timeline *tl)
{
	size_t i;

	if (!tl->old_launch_sites || tl->priv->old_sites_warned)
		return;
	for (i = 0; i < tl->nr_files; i++)
		if (tl->files[i].launch_stacks)
			return;
	tl->priv->old_sites_warned = 1;
	warn(tl, "%llu launch stacks came from an older gpuperf (the CPU agent's launch_site "
		 "records) and are not joined to GPU work: re-record with this gpuperf to get "
		 "launch stacks", (unsigned long long)tl->old_launch_sites);
}

/* The timeline being sorted, for the comparators' long durations (timeline__dur()). */
static const struct timeline *sort_tl;

static int cmp_api(const void *a, const void *b)
{
	return api_cmp(sort_tl, a, b);
}

static int cmp_gpu(const void *a, const void *b)
{
	return gpu_cmp(sort_tl, a, b);
}

/* Process events by pid, then time (info/fork/exec before exit). */
static int cmp_proc(const void *a, const void *b)
{
	const struct tl_proc *x = a, *y = b;
	uint64_t tx = x->exited ? UINT64_MAX : x->first_ts, ty = y->exited ? UINT64_MAX : y->first_ts;

	return x->pid != y->pid ? cmp_u64(x->pid, y->pid) : cmp_u64(tx, ty);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct tl_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return cmp_u64(x->pid, y->pid);
	if (x->tid != y->tid)
		return cmp_u64(x->tid, y->tid);
	/* in time order, the exit last: the latest name (after an exec) wins */
	return cmp_u64(x->exit_ts ? x->exit_ts : x->first_ts, y->exit_ts ? y->exit_ts : y->first_ts);
}

static int cmp_module(const void *a, const void *b)
{
	return cmp_u64(((const struct tl_module *)a)->ts, ((const struct tl_module *)b)->ts);
}

static int cmp_mem(const void *a, const void *b)
{
	const struct tl_mem *x = a, *y = b;

	return x->ts != y->ts ? (x->ts < y->ts ? -1 : 1) : x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_device(const void *a, const void *b)
{
	return cmp_u64(((const struct tl_device *)a)->id, ((const struct tl_device *)b)->id);
}

static int cmp_stack_ends(const void *a, const void *b)
{
	return cmp_u64(((const struct tl_stack_ends *)a)->pid,
		       ((const struct tl_stack_ends *)b)->pid);
}

/*
 * A pid whose program exec'd CUDA programs has a GPU trace per image: its
 * name becomes their chain, "launcher -> job", each image's comm in exec
 * order. 0: one image (or out of memory): the name stays.
 */
static uint32_t image_chain(struct timeline *tl, const struct tl_proc *e, size_t n)
{
	char buf[1024];
	size_t i, len = 0, images = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *comm;
		int w;

		if (!(e[i].pad & PROC_GPU_IMAGE) || e[i].exited)
			continue;
		comm = timeline__str(tl, e[i].comm);
		w = snprintf(buf + len, sizeof(buf) - len, "%s%s", images ? " -> " : "",
			     *comm ? comm : "[unknown]");
		images++;
		if (w < 0 || (size_t)w >= sizeof(buf) - len)
			break; /* cut short: the images that fit */
		len += (size_t)w;
	}
	return images > 1 ? timeline__intern(tl, buf) : 0;
}

/*
 * Fold the process events of each pid (from the CPU trace and from every GPU
 * trace) into one entry: the earliest sighting, the latest comm/exe (an exec
 * replaces them; several GPU images: their chain), the exit.
 */
static void merge_procs(struct timeline *tl)
{
	size_t i, j, n = 0;
	uint32_t chain = 0;

	gp_sort(tl->procs, tl->nr_procs, sizeof(*tl->procs), cmp_proc);
	for (i = 0; i < tl->nr_procs; i++) {
		struct tl_proc *e = &tl->procs[i], *o;
		int is_exec = (e->pad & 0xff) == GP_PROC_EXEC;

		if (n && tl->procs[n - 1].pid == e->pid) {
			o = &tl->procs[n - 1];
			if (e->exited) {
				o->exited = 1;
				o->exit_ts = e->exit_ts;
				o->exit_status = e->exit_status;
			} else {
				if (e->first_ts && (!o->first_ts || e->first_ts < o->first_ts))
					o->first_ts = e->first_ts;
				o->forked |= e->forked;
			}
			if (e->comm && (is_exec || !o->comm))
				o->comm = e->comm;
			if (e->exe && (is_exec || !o->exe))
				o->exe = e->exe;
			if (e->ppid && !o->ppid)
				o->ppid = e->ppid;
			continue;
		}
		if (chain) /* the pid before is complete */
			tl->procs[n - 1].comm = chain;
		/* its events, in time order, before the merge below rewrites the first */
		for (j = i; j < tl->nr_procs && tl->procs[j].pid == e->pid; j++)
			;
		chain = image_chain(tl, e, j - i);
		tl->procs[n++] = *e;
	}
	if (chain)
		tl->procs[n - 1].comm = chain;
	tl->nr_procs = n;
	for (i = 0; i < n; i++)
		tl->procs[i].pad = 0;
}

static void merge_threads(struct timeline *tl)
{
	size_t i, n = 0;

	gp_sort(tl->threads, tl->nr_threads, sizeof(*tl->threads), cmp_thread);
	for (i = 0; i < tl->nr_threads; i++) {
		struct tl_thread *e = &tl->threads[i];

		if (n && tl->threads[n - 1].pid == e->pid && tl->threads[n - 1].tid == e->tid) {
			struct tl_thread *o = &tl->threads[n - 1];

			if (e->exit_ts)
				o->exit_ts = e->exit_ts;
			if (e->first_ts && (!o->first_ts || e->first_ts < o->first_ts))
				o->first_ts = e->first_ts;
			if (e->name)
				o->name = e->name;
			continue;
		}
		tl->threads[n++] = *e;
	}
	tl->nr_threads = n;
}

static int cmp_key_pid(const void *key, const void *elem)
{
	return cmp_u64(*(const uint32_t *)key, ((const struct tl_proc *)elem)->pid);
}

const struct tl_proc *timeline__proc(const struct timeline *tl, uint32_t pid)
{
	if (!tl->nr_procs)
		return NULL;
	return bsearch(&pid, tl->procs, tl->nr_procs, sizeof(*tl->procs), cmp_key_pid);
}

const struct tl_thread *timeline__thread(const struct timeline *tl, uint32_t pid, uint32_t tid)
{
	size_t lo = 0, hi = tl->nr_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct tl_thread *t = &tl->threads[mid];

		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tl->nr_threads && tl->threads[lo].pid == pid && tl->threads[lo].tid == tid)
		return &tl->threads[lo];
	return NULL;
}

const struct tl_device *timeline__device(const struct timeline *tl, uint32_t id)
{
	size_t i;

	for (i = 0; i < tl->nr_devices; i++)
		if (tl->devices[i].id == id)
			return &tl->devices[i];
	return NULL;
}

const struct tl_stack_ends *timeline__stack_ends(const struct timeline *tl, uint32_t pid)
{
	size_t lo = 0, hi = tl->nr_stack_ends, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl->stack_ends[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tl->nr_stack_ends && tl->stack_ends[lo].pid == pid ? &tl->stack_ends[lo] : NULL;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct tl_tid *x = a, *y = b;

	return x->pid != y->pid ? cmp_u64(x->pid, y->pid) : cmp_u64(x->tid, y->tid);
}

/*
 * Sort tl->tids by (pid, tid) and renumber the records' thread indices, so
 * that sorting API calls by index sorts them by thread.
 * Without memory for the renumbering the order stays the load order (still
 * one run per thread, only not by pid).
 */
static bool renumber_tids(struct timeline *tl)
{
	size_t n = tl->nr_tids, i, j;
	uint32_t *rank = malloc(n * sizeof(*rank));
	struct tl_tid *sorted = malloc(n * sizeof(*sorted));
	bool same = true;

	if (n < 2 || !rank || !sorted)
		goto out;
	memcpy(sorted, tl->tids, n * sizeof(*sorted));
	gp_sort(sorted, n, sizeof(*sorted), cmp_tid);
	/* the old index of each pair is still in the map */
	for (i = 0; i < n; i++) {
		size_t old = u64map_find(&tl->priv->tid_map,
					 (uint64_t)sorted[i].pid << 32 | sorted[i].tid, &j) - 1;

		rank[old] = (uint32_t)i;
		same &= old == i;
	}
	if (same) /* first seen in (pid, tid) order already: two passes over the records saved */
		goto out;
	memcpy(tl->tids, sorted, n * sizeof(*sorted));
	for (i = 0; i < tl->nr_api; i++)
		tl->api[i].thr = rank[tl->api[i].thr];
out:
	free(rank);
	free(sorted);
	return !same;
}

void timeline__finish(struct timeline *tl)
{
	struct tl_priv *p = tl->priv;
	size_t i;

	/* Loading is over: the table that deduplicates stacks is not needed any more. */
	free(tl->priv->stk);
	tl->priv->stk = NULL;
	tl->priv->stk_cap = tl->priv->stk_nr = 0;
	free(p->api_stacks);
	p->api_stacks = NULL;
	p->nr_api_stacks = p->cap_api_stacks = 0;
	old_launch_sites_warning(tl);
	/* the loader's order of threads was not (pid, tid): API calls are sorted again */
	if (renumber_tids(tl))
		p->unordered |= ORD_API;
	free_maps(tl->priv);

	merge_procs(tl);
	merge_threads(tl);
	gp_sort(tl->modules, tl->nr_modules, sizeof(*tl->modules), cmp_module);
	gp_sort(tl->devices, tl->nr_devices, sizeof(*tl->devices), cmp_device);
	gp_sort(tl->stack_ends, tl->nr_stack_ends, sizeof(*tl->stack_ends), cmp_stack_ends);
	gp_sort(tl->mem, tl->nr_mem, sizeof(*tl->mem), cmp_mem);
	/* one entry per device id (every process's trace describes the GPUs it saw) */
	if (tl->nr_devices) {
		size_t n = 1;

		for (i = 1; i < tl->nr_devices; i++)
			if (tl->devices[i].id != tl->devices[n - 1].id)
				tl->devices[n++] = tl->devices[i];
		tl->nr_devices = n;
	}

	/* what the loader found in order (struct tl_priv's ord_*) is not looked at again */
	sort_tl = tl;
	if (!IN_ORDER(tl, p, ORD_API, nr_api, ord_api)) {
		size_t outer = 0;
		uint64_t outer_end = 0;

		group_by_thread(tl->api, tl->nr_api, sizeof(*tl->api), tl->nr_tids, api_thr);
		sort_nearly(tl->api, tl->nr_api, sizeof(*tl->api), cmp_api);
		/*
		 * A call inside the span of the thread's enclosing call is nested
		 * (the driver call a runtime call makes). Written only where it
		 * changes: a record left alone is a cache line not written back.
		 */
		for (i = 0; i < tl->nr_api; i++) {
			struct tl_api *a = &tl->api[i], *o = &tl->api[outer];
			uint64_t end = timeline__api_end(tl, a);
			unsigned nested = i > 0 && a->thr == o->thr && a->start >= o->start &&
					  end <= outer_end;

			if (a->nested != nested)
				a->nested = nested & 1;
			if (!nested) {
				outer = i;
				outer_end = end;
			}
		}
	}
	if (!IN_ORDER(tl, p, ORD_GPU, nr_gpu, ord_gpu))
		sort_nearly(tl->gpu, tl->nr_gpu, sizeof(*tl->gpu), cmp_gpu);
	if (!IN_ORDER(tl, p, ORD_SAMPLES, nr_samples, ord_samples))
		sort_nearly(tl->samples, tl->nr_samples, sizeof(*tl->samples), cmp_sample);
	if (!IN_ORDER(tl, p, ORD_OFFCPU, nr_offcpu, ord_offcpu))
		sort_nearly(tl->offcpu, tl->nr_offcpu, sizeof(*tl->offcpu), cmp_offcpu);
	if (tl->first_ts == UINT64_MAX)
		tl->first_ts = 0;
}

const char *timeline__copy_kind_name(unsigned k)
{
	/* CUpti_ActivityMemcpyKind, as the folded files' "[memcpy HtoD]" spell it. */
	static const char *const names[] = {
	    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
	    "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP",
	};

	/* names[0] for kinds past the table: callers compare with the "unknown" this returns */
	return k < ARRAY_SIZE(names) ? names[k] : names[0];
}
