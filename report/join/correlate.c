// SPDX-License-Identifier: Apache-2.0
/* correlate.c - GPU record -> API record -> launch stack, by correlation id. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"
#include "gp_alloc.h"
#include "gp_record.h"
#include "timeline.h"
#include "u64map.h"

/*
 * (pid, correlation id) -> api index. CUPTI hands out correlation ids
 * counting up from 1 per process, so per pid they are nearly dense: then a
 * plain array indexed by id - min (4 bytes per id, and lookups in time
 * order walk it in order). A pid whose ids are sparse (a buggy or foreign
 * producer) goes to one open-addressing table instead.
 */
struct pid_ids {
	uint32_t pid;
	uint32_t min;	/* smallest correlation id of the pid */
	uint32_t span;	/* max - min + 1 ids in dense, 0: the pid is in the hash table */
	uint32_t *dense; /* by id - min: api index + 1, or 0 (calloc's pages: no pass to fill it) */
	uint32_t fresh;	 /* dense[fresh..] have not been written yet: still zero */
};

struct corr_map {
	struct pid_ids *pids; /* by pid, as tl->api is sorted */
	size_t nr_pids;
	size_t last; /* the pid looked up last: GPU records come in runs of one pid */
	struct u64map sparse; /* pid << 32 | corr -> api index + 1, for the sparse pids */
};

static uint64_t key_of(uint32_t pid, uint32_t corr)
{
	return ((uint64_t)pid << 32) | corr;
}

static void corr_map_free(struct corr_map *m)
{
	size_t i;

	for (i = 0; i < m->nr_pids; i++)
		free(m->pids[i].dense);
	free(m->pids);
	u64map_free(&m->sparse);
}

/* The hash table side: one api record of a sparse pid (corr_map_build() made the room). */
static void corr_map_hash(struct corr_map *m, uint32_t pid, uint32_t corr, size_t i)
{
	uint64_t key = key_of(pid, corr);
	size_t j;

	if (!u64map_find(&m->sparse, key, &j)) { /* the first record wins if an id repeats */
		m->sparse.keys[j] = key;
		m->sparse.vals[j] = (uint32_t)i + 1;
		m->sparse.nr++;
	}
}

/*
 * Size the map: one pass over tl->api (sorted by pid first, so one run per
 * pid) for each pid's id range. The records go in while bind_nested()
 * walks tl->api anyway (corr_map_put()); at 10M calls every pass over the
 * array is a few hundred MB of memory traffic.
 */
static int corr_map_build(struct corr_map *m, const struct timeline *tl)
{
	size_t i, lo, nr_pids_alloc = 0, nr_hashed = 0;

	for (lo = 0; lo < tl->nr_api; lo = i) {
		uint32_t pid = timeline__api_pid(tl, &tl->api[lo]), min = tl->api[lo].corr, max = min;
		struct pid_ids *p;

		for (i = lo; i < tl->nr_api && timeline__api_pid(tl, &tl->api[i]) == pid; i++) {
			uint32_t c = tl->api[i].corr;

			min = c < min ? c : min;
			max = c > max ? c : max;
		}
		if (GP_ALLOC_GROW(m->pids, m->nr_pids + 1, nr_pids_alloc))
			return -ENOMEM;
		p = &m->pids[m->nr_pids++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->min = min;
		/* Dense when the table is at most 4 slots per call (or small anyway). */
		if ((uint64_t)max - min + 1 > 4 * (uint64_t)(i - lo) + 4096 || max - min == UINT32_MAX) {
			nr_hashed += i - lo;
			continue;
		}
		p->span = max - min + 1;
		p->dense = calloc(p->span, sizeof(*p->dense));
		if (!p->dense)
			return -ENOMEM;
	}
	return nr_hashed ? u64map_reserve_nr(&m->sparse, nr_hashed) : 0;
}

/* Enter tl->api[i], in order of i: `p` is its pid's entry. */
static inline void corr_map_put(struct corr_map *m, struct pid_ids *p, uint32_t corr, size_t i)
{
	if (p->dense) {
		uint32_t k = corr - p->min, *v = &p->dense[k];

		/*
		 * Past every slot written so far it is zero without a look: a
		 * read would map calloc's zero page first and the store then
		 * copy it, two faults per page. Ids mostly come in order.
		 */
		if (k >= p->fresh) {
			*v = (uint32_t)i + 1;
			p->fresh = k + 1;
		} else if (!*v) { /* the first record wins if a buggy producer repeats an id */
			*v = (uint32_t)i + 1;
		}
	} else {
		corr_map_hash(m, p->pid, corr, i);
	}
}

static int32_t corr_map_get(struct corr_map *m, uint32_t pid, uint32_t corr)
{
	const struct pid_ids *p;

	if (!m->nr_pids)
		return -1;
	if (m->pids[m->last].pid != pid) {
		size_t lo = 0, hi = m->nr_pids;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->pids[mid].pid < pid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == m->nr_pids || m->pids[lo].pid != pid)
			return -1;
		m->last = lo;
	}
	p = &m->pids[m->last];
	if (p->dense)
		return corr - p->min < p->span ? (int32_t)p->dense[corr - p->min] - 1 : -1;
	return (int32_t)u64map_get(&m->sparse, key_of(pid, corr)) - 1;
}

/*
 * Enter every API call in the map, and give each nested call without a
 * stack of its own its enclosing call's (the driver call inside a runtime
 * call: the runtime call's stack, taken where the program called it).
 * Loading bound every call that has a stack of its own (api_stack records,
 * by correlation id); nothing here looks at threads or times.
 */
static void bind_nested(struct timeline *tl, struct corr_map *m)
{
	size_t i, outer = 0;
	struct pid_ids *p = m->pids;

	for (i = 0; i < tl->nr_api; i++) {
		struct tl_api *a = &tl->api[i];

		if (timeline__api_pid(tl, a) != p->pid)
			p++; /* the next run: corr_map_build() made one entry per run */
		corr_map_put(m, p, a->corr, i);
		if (!a->nested)
			outer = i;
		else if (a->launch < 0)
			a->launch = tl->api[outer].launch;
	}
}

int correlate__run(struct timeline *tl, struct correlation *c)
{
	struct corr_map m = { 0 };
	size_t i, with_api = 0, with_stack = 0;
	int err;

	memset(c, 0, sizeof(*c));
	if (tl->nr_api > INT32_MAX)
		return -EOVERFLOW;
	/* A second run starts from the correlation ids again. */
	for (i = 0; i < tl->nr_gpu && tl->joined; i++) {
		struct tl_gpu *g = &tl->gpu[i];

		if (g->flags & TL_GPU_JOINED) {
			g->corr = timeline__gpu_corr(tl, g);
			g->flags &= (uint8_t)~TL_GPU_JOINED;
		}
	}
	tl->joined = 0;
	c->flows = calloc(tl->nr_api / 64 + 1, sizeof(*c->flows));
	c->multi = calloc(tl->nr_api / 64 + 1, sizeof(*c->multi));
	if (!c->flows || !c->multi) {
		err = -ENOMEM;
		goto out;
	}
	err = corr_map_build(&m, tl);
	if (err)
		goto out;
	bind_nested(tl, &m);
	for (i = 0; i < tl->nr_gpu; i++) {
		struct tl_gpu *g = &tl->gpu[i];
		int32_t a = corr_map_get(&m, timeline__gpu_pid(tl, g), g->corr);
		size_t work = g->kind != TL_GPU_SYNC, stack;

		c->nr_work += work;
		if (a < 0)
			continue;
		g->corr = (uint32_t)a;
		g->flags |= TL_GPU_JOINED;
		stack = tl->api[a].launch >= 0;
		with_api++;
		with_stack += stack;
		c->work_with_api += work;
		c->work_with_stack += work & stack;
		if (work) {
			uint64_t bit = 1ULL << (a % 64);

			c->multi[a / 64] |= c->flows[a / 64] & bit;
			c->flows[a / 64] |= bit;
		}
	}
	/* memory records: the allocating call, whose stack is the allocation site */
	for (i = 0; i < tl->nr_mem; i++) {
		struct tl_mem *mr = &tl->mem[i];

		mr->api = corr_map_get(&m, mr->pid, mr->corr);
		c->mem_with_api += mr->api >= 0;
	}
	tl->joined = 1;
	c->nr_gpu = tl->nr_gpu;
	c->gpu_with_api = with_api;
	c->gpu_with_stack = with_stack;
out:
	corr_map_free(&m);
	return err;
}

void correlate__release(struct correlation *c)
{
	free(c->flows);
	free(c->multi);
	memset(c, 0, sizeof(*c));
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int correlate__check_one_recording(const struct timeline *tl, char *why, size_t len)
{
	uint64_t cpu_first = UINT64_MAX, cpu_last = 0;
	uint64_t *first = NULL, *last = NULL;
	uint32_t *pids = NULL, *foreign = NULL;
	size_t i, j, n = 0, nf = 0, ngpu = 0;
	bool any_outside = false;
	char list[64] = "";
	int err = -ENOMEM;

	if (!tl->nr_api || !(tl->nr_samples + tl->nr_offcpu))
		return 0;
	/* the CPU trace's processes, and its time */
	pids = malloc((tl->nr_samples + tl->nr_offcpu + 1) * sizeof(*pids));
	first = calloc(tl->nr_tids, sizeof(*first));
	last = calloc(tl->nr_tids, sizeof(*last));
	foreign = malloc(tl->nr_tids * sizeof(*foreign));
	if (!pids || !first || !last || !foreign)
		goto out;
#define CPU_SEEN(pid, t0, t1)                                  \
	do {                                                   \
		if (!n || pids[n - 1] != (pid))                \
			pids[n++] = (pid);                     \
		cpu_first = (t0) < cpu_first ? (t0) : cpu_first; \
		cpu_last = (t1) > cpu_last ? (t1) : cpu_last;    \
	} while (0)
	for (i = 0; i < tl->nr_samples; i++)
		CPU_SEEN(tl->samples[i].pid, tl->samples[i].ts, tl->samples[i].ts);
	for (i = 0; i < tl->nr_offcpu; i++)
		CPU_SEEN(tl->offcpu[i].pid, tl->offcpu[i].start, tl->offcpu[i].end);
#undef CPU_SEEN
	/* the time of each thread's API calls */
	for (i = 0; i < tl->nr_api; i++) {
		const struct tl_api *a = &tl->api[i];
		uint64_t end = timeline__api_end(tl, a);

		if (!first[a->thr] || a->start < first[a->thr])
			first[a->thr] = a->start ? a->start : 1;
		last[a->thr] = end > last[a->thr] ? end : last[a->thr];
	}
	qsort(pids, n, sizeof(*pids), cmp_pid);
	/* tids are in (pid, tid) order: a process's threads are a run */
	for (i = 0; i < tl->nr_tids; i = j) {
		uint32_t pid = tl->tids[i].pid;
		uint64_t f = UINT64_MAX, l = 0;

		for (j = i; j < tl->nr_tids && tl->tids[j].pid == pid; j++) {
			if (!first[j])
				continue; /* a thread without API calls */
			f = first[j] < f ? first[j] : f;
			l = last[j] > l ? last[j] : l;
		}
		if (!l)
			continue;
		ngpu++;
		if (bsearch(&pid, pids, n, sizeof(*pids), cmp_pid))
			continue;
		foreign[nf++] = pid;
		any_outside |= l < cpu_first || f > cpu_last;
	}
	err = 0;
	if (!nf || (nf < ngpu && !any_outside))
		goto out;
	for (i = 0; i < nf && i < 3; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u", i ? ", " : "",
			 foreign[i]);
	snprintf(why, len,
		 "cpu.trace and the GPU trace%s of process%s %s%s do not belong together (%s): "
		 "traces of two recordings in one directory?",
		 nf == 1 ? "" : "s", nf == 1 ? "" : "es", list, nf > 3 ? ", ..." : "",
		 any_outside ? "no record of the process in cpu.trace, and their times "
			       "do not overlap"
			     : "no process in common");
	err = 1;
out:
	free(pids);
	free(first);
	free(last);
	free(foreign);
	return err;
}
