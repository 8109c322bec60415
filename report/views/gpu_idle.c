// SPDX-License-Identifier: Apache-2.0
/*
 * gpu_idle.c - gpu_idle.folded: what the CPU did while the GPU had nothing
 * to do, the answer to "why is my GPU idle?".
 *
 * Per process that used a GPU:
 *   window  = from its first CUDA API call (or GPU activity) to the end of
 *             its last GPU activity;
 *   busy    = the union of its kernels, memcpys and memsets on all devices;
 *   idle    = window minus busy (every gap, however short);
 *   threads = the threads that made CUDA API calls (the launching threads).
 * Then every on-CPU sample of a launching thread taken inside an idle gap
 * adds its weight, and every off-CPU span of a launching thread adds the
 * part of it that overlaps idle gaps, under the same frames as in
 * cpu.folded / offcpu.folded. A GPU that waits on a thread stuck in
 * data loading shows that loader's stack; one that waits on a thread
 * blocked in a lock shows the lock.
 */
#include "gpu_idle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "report_state.h"
#include "stack_agg.h"
#include "timeline.h"

struct span {
	uint64_t start, end;
};

struct proc_idle {
	uint32_t pid;
	struct span *gaps;
	size_t nr_gaps, cap;
	uint64_t busy_end; /* end of the busy union so far */
	uint64_t window_start;
	uint64_t first_busy; /* start of its first GPU activity */
	uint32_t *tids; /* launching threads, sorted */
	size_t nr_tids, alloc_tids;
	size_t cursor; /* first_gap()'s last answer */
};

static inline int push_gap(struct proc_idle *p, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (GP_ALLOC_GROW(p->gaps, p->nr_gaps + 1, p->cap))
		return -ENOMEM;
	p->gaps[p->nr_gaps].start = start;
	p->gaps[p->nr_gaps].end = end;
	p->nr_gaps++;
	return 0;
}

static struct proc_idle *find(struct proc_idle *v, size_t n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int is_launcher(const struct proc_idle *p, uint32_t tid)
{
	return p->nr_tids && bsearch(&tid, p->tids, p->nr_tids, sizeof(*p->tids), cmp_u32);
}

/*
 * The first gap of p that ends after t. Samples and off-CPU spans come in
 * time order, so each search starts where the process's last one stopped
 * (p->cursor; 0 for a new pass): one walk over the gaps per pass.
 */
static size_t first_gap(struct proc_idle *p, uint64_t t)
{
	size_t lo = p->cursor, hi = p->nr_gaps;

	/* a few steps first: the answer is usually at or next to the last one */
	for (; lo < hi && lo < p->cursor + 4; lo++)
		if (p->gaps[lo].end > t)
			return p->cursor = lo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->gaps[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->cursor = lo;
}

/* The end of the run of API calls of tl->api[i]'s thread (calls are sorted by thread). */
static size_t run_end(const struct timeline *tl, size_t i)
{
	uint32_t thr = tl->api[i].thr;
	size_t lo = i + 1, step = 1, hi;

	/* gallop, then bisect: [lo, hi) holds the first call of another thread, or hi = nr_api */
	while (lo + step < tl->nr_api && tl->api[lo + step - 1].thr == thr) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < tl->nr_api ? lo + step : tl->nr_api;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->api[mid].thr == thr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Gaps of each GPU-using process, from tl->gpu (sorted by start). */
static int find_gaps(struct report_state *r, struct proc_idle **out, size_t *nout)
{
	struct timeline *tl = r->tl;
	struct proc_idle *v = NULL, *p;
	size_t n = 0, alloc = 0, i;
	/* each stream's process, looked up once: index + 1 into v */
	uint32_t *lane_proc = calloc(tl->nr_lanes + 1, sizeof(*lane_proc));

	if (!lane_proc)
		return -ENOMEM;
	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		uint64_t end;

		if (g->kind == TL_GPU_SYNC || !g->dur)
			continue;
		if (!lane_proc[g->lane]) {
			p = find(v, n, timeline__gpu_pid(tl, g));
			if (!p) {
				if (GP_ALLOC_GROW(v, n + 1, alloc))
					goto nomem;
				p = &v[n++];
				memset(p, 0, sizeof(*p));
				p->pid = timeline__gpu_pid(tl, g);
				p->window_start = g->start;
				p->first_busy = g->start;
				p->busy_end = g->start;
			}
			lane_proc[g->lane] = (uint32_t)(p - v) + 1;
		}
		p = &v[lane_proc[g->lane] - 1];
		if (push_gap(p, p->busy_end, g->start))
			goto nomem;
		end = timeline__gpu_end(tl, g);
		if (end > p->busy_end)
			p->busy_end = end;
	}
	/*
	 * The window opens at the process's first API call; its threads are the
	 * launchers. Calls are sorted by thread, then start: a thread's first
	 * call with a time is all it adds, and the end of its run is found by
	 * a search, not a pass over millions of calls.
	 */
	for (i = 0; i < tl->nr_api; i = run_end(tl, i)) {
		const struct tl_api *a = &tl->api[i];
		uint32_t tid = timeline__api_tid(tl, a);
		size_t j, end;

		p = find(v, n, timeline__api_pid(tl, a));
		if (!p)
			continue; /* not a GPU-using process */
		if (!p->nr_tids || p->tids[p->nr_tids - 1] != tid) {
			if (GP_ALLOC_GROW(p->tids, p->nr_tids + 1, p->alloc_tids))
				goto nomem;
			p->tids[p->nr_tids++] = tid;
		}
		for (j = i, end = run_end(tl, i); j < end && !tl->api[j].start; j++)
			;
		if (j < end && tl->api[j].start < p->window_start)
			p->window_start = tl->api[j].start;
	}
	for (i = 0; i < n; i++) {
		size_t j, k = 0;

		/* a lane with GPU work but no API call of its process has no tids (NULL) */
		if (v[i].nr_tids > 1)
			qsort(v[i].tids, v[i].nr_tids, sizeof(*v[i].tids), cmp_u32);
		for (j = 0; j < v[i].nr_tids; j++)
			if (!k || v[i].tids[k - 1] != v[i].tids[j])
				v[i].tids[k++] = v[i].tids[j];
		v[i].nr_tids = k;
		/* the time from the first API call to the first GPU activity is a gap too */
		if (v[i].window_start < v[i].first_busy) {
			if (push_gap(&v[i], v[i].window_start, v[i].first_busy))
				goto nomem;
			memmove(v[i].gaps + 1, v[i].gaps, (v[i].nr_gaps - 1) * sizeof(*v[i].gaps));
			v[i].gaps[0].start = v[i].window_start;
			v[i].gaps[0].end = v[i].first_busy;
		}
	}
	free(lane_proc);
	*out = v;
	*nout = n;
	return 0;
nomem:
	free(lane_proc);
	for (i = 0; i < n; i++) {
		free(v[i].gaps);
		free(v[i].tids);
	}
	free(v);
	return -ENOMEM;
}

int gpu_idle__build(struct report_state *r)
{
	struct timeline *tl = r->tl;
	struct stack_agg *agg = r->view[VIEW_IDLE];
	struct rec_groups gs = { 0 }; /* idle time by what it draws: frames built once a group */
	struct proc_idle *v = NULL, *p;
	size_t n = 0, i;
	int err = find_gaps(r, &v, &n);

	for (i = 0; i < tl->nr_samples && !err && n; i++) {
		const struct tl_sample *s = &tl->samples[i];
		size_t g;

		p = find(v, n, s->pid);
		if (!p || !is_launcher(p, s->tid))
			continue;
		g = first_gap(p, s->ts);
		if (g == p->nr_gaps || p->gaps[g].start > s->ts)
			continue;
		err = rec_groups__add(&gs, tl, VIEW_CPU, i, s->weight);
	}
	for (i = 0; i < n; i++)
		v[i].cursor = 0;
	for (i = 0; i < tl->nr_offcpu && !err && n; i++) {
		const struct tl_offcpu *o = &tl->offcpu[i];
		uint64_t w = 0;
		size_t g;

		p = find(v, n, o->pid);
		if (!p || !is_launcher(p, o->tid))
			continue;
		for (g = first_gap(p, o->start); g < p->nr_gaps && p->gaps[g].start < o->end; g++) {
			uint64_t a = o->start > p->gaps[g].start ? o->start : p->gaps[g].start;
			uint64_t b = o->end < p->gaps[g].end ? o->end : p->gaps[g].end;

			w += b > a ? b - a : 0;
		}
		if (w)
			err = rec_groups__add(&gs, tl, VIEW_OFFCPU, i, w);
	}
	/* in the order the groups began: that of the records, as without grouping */
	for (i = 0; i < gs.n && !err; i++) {
		const struct rec_group *e = &gs.g[i];

		r->fb.n = 0;
		err = e->kind == VIEW_OFFCPU ? frames__offcpu(&r->frames, &tl->offcpu[e->rep], &r->fb)
					     : frames__sample(&r->frames, &tl->samples[e->rep], &r->fb);
		if (!err)
			err = stack_agg__add(agg, r->fb.f, r->fb.n, e->weight);
		if (err == -EOVERFLOW) /* a stack too deep for the aggregate: the others still go in */
			err = 0;
	}
	rec_groups__free(&gs);
	for (i = 0; i < n; i++) {
		free(v[i].gaps);
		free(v[i].tids);
	}
	free(v);
	return err;
}
