// SPDX-License-Identifier: Apache-2.0
/* report_stats.c - one pass of statistics over the report's state (report_stats.h). */
#include "report_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "memory_stats.h"
#include "report_state.h"
#include "site.h"
#include "symbolize.h"
#include "timeline.h"
#include "u64map.h"

static unsigned hist_bucket(uint64_t d)
{
	unsigned e;

	if (d < HIST_SUB * 2)
		return (unsigned)d;
	e = 63u - (unsigned)__builtin_clzll(d) - 6u; /* d >> e is in [64, 128) */
	return (unsigned)(HIST_SUB * (e + 1) + ((d >> e) - HIST_SUB));
}

static uint64_t hist_value(unsigned b)
{
	unsigned e;

	if (b < HIST_SUB * 2)
		return b;
	e = b / HIST_SUB - 1;
	return (uint64_t)(HIST_SUB + b % HIST_SUB) << e;
}

uint64_t report_stats__kernel_pct(const struct kstat *k, double pct)
{
	uint64_t want = (uint64_t)(pct * (double)k->count / 100.0 + 0.999999), seen = 0, v;
	unsigned b;

	if (!want)
		want = 1;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += k->hist[b];
		if (seen >= want)
			break;
	}
	v = hist_value(b < HIST_BUCKETS ? b : HIST_BUCKETS - 1);
	return v < k->min ? k->min : v > k->max ? k->max : v;
}

static void kcfg_add(struct kstat *k, uint16_t kconfig, uint64_t d)
{
	int i;

	for (i = 0; kconfig && i < KCFG_MAX; i++) {
		if (!k->cfg[i].kconfig)
			k->cfg[i].kconfig = kconfig;
		if (k->cfg[i].kconfig == kconfig) {
			k->cfg[i].count++;
			k->cfg[i].total += d;
			return;
		}
	}
	k->cfg_other++;
}

static struct kstat *kstat_get(struct report_stats *s, uint32_t name)
{
	uint32_t at = u64map_get(&s->k_index, name);

	if (at)
		return &s->k[at - 1];
	if (GP_ALLOC_GROW(s->k, s->nr_k + 1, s->cap_k) || u64map_reserve(&s->k_index))
		return NULL;
	memset(&s->k[s->nr_k], 0, sizeof(s->k[0]));
	s->k[s->nr_k].name = name;
	s->k[s->nr_k].min = UINT64_MAX;
	s->k[s->nr_k].hist = calloc(HIST_BUCKETS, sizeof(uint32_t));
	if (!s->k[s->nr_k].hist)
		return NULL;
	u64map_put(&s->k_index, name, (uint32_t)s->nr_k + 1); /* reserved: cannot fail */
	return &s->k[s->nr_k++];
}

static void heap_push(struct sweep *w, uint64_t v)
{
	size_t i = w->n++;

	while (i && w->heap[(i - 1) / 2] > v) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = v;
}

static uint64_t heap_pop(struct sweep *w)
{
	uint64_t top = w->heap[0], v = w->heap[--w->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= w->n)
			break;
		if (c + 1 < w->n && w->heap[c + 1] < w->heap[c])
			c++;
		if (w->heap[c] >= v)
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->n)
		w->heap[i] = v;
	return top;
}

static void advance(struct sweep *w, uint64_t t)
{
	if (t > w->now) {
		if (w->n >= 1)
			w->busy += t - w->now;
		if (w->n >= 2)
			w->overlap += t - w->now;
		w->now = t;
	}
}

/* Add device work from start to end (a duration) to d's sweep. */
static inline __attribute__((always_inline)) int
sweep_add(struct dev_stat *d, uint64_t start, uint64_t end)
{
	struct sweep *w = &d->sw;

	if (!w->started) {
		d->first = w->now = start;
		w->started = 1;
	}
	if (w->n == 1 && w->heap[0] <= start) {
		/* the usual case: the one activity running ended before this one starts */
		advance(w, w->heap[0]);
		if (start > w->now)
			w->now = start;
		w->heap[0] = end;
	} else {
		while (w->n && w->heap[0] <= start) {
			uint64_t e = w->heap[0];

			advance(w, e);
			heap_pop(w);
		}
		advance(w, start);
		if (GP_ALLOC_GROW(w->heap, w->n + 1, w->cap))
			return -ENOMEM;
		heap_push(w, end);
	}
	if (end > d->last)
		d->last = end;
	return 0;
}

/* The end of d's sweep: its busy, overlap and idle time. */
static void sweep_finish(struct dev_stat *d)
{
	struct sweep *w = &d->sw;

	while (w->n) {
		uint64_t e = w->heap[0];

		advance(w, e);
		heap_pop(w);
	}
	free(w->heap);
	w->heap = NULL;
	d->busy = w->busy;
	d->overlap = w->overlap;
	d->idle = d->last > d->first && d->last - d->first > w->busy ? d->last - d->first - w->busy : 0;
}

/* What sweep_add() counts, and sweep_finish(), for the GPU records of all devices together. */
static int sweep_all(const struct timeline *tl, struct dev_stat *d)
{
	size_t i;

	for (i = 0; i < tl->nr_gpu; i++) {
		const struct tl_gpu *g = &tl->gpu[i];

		if (g->kind != TL_GPU_SYNC && g->dur &&
		    sweep_add(d, g->start, timeline__gpu_end(tl, g))) {
			free(d->sw.heap);
			return -ENOMEM;
		}
	}
	sweep_finish(d);
	return 0;
}

static int add_site(struct report_state *r, struct report_stats *s, size_t gi, uint64_t ns, uint64_t count)
{
	const struct tl_stack *lst = timeline__gpu_launch_stack(r->tl, &r->tl->gpu[gi]);
	int64_t ai = timeline__gpu_api(r->tl, &r->tl->gpu[gi]);
	const struct tl_gpu *g = &r->tl->gpu[gi];
	const char *kernel;
	int i;

	if (!lst || ai < 0)
		return 0;
	kernel = g->kind == TL_GPU_KERNEL ? symbolizer__demangle(r->sym, timeline__str(r->tl, g->name))
					  : NULL;
	i = site__get(&r->frames, &r->fb, &s->sites, &s->nr_sites, &s->cap_sites, &r->tl->api[ai],
		      lst, kernel);
	if (i < 0)
		return i;
	s->sites[i].gpu_ns += ns;
	s->sites[i].launches += count;
	return 0;
}

/* timeline__proc(), remembering the last answer (*last): records come in runs of a process */
static const struct tl_proc *proc_of(const struct timeline *tl, uint32_t pid, const struct tl_proc **last)
{
	if (!*last || (*last)->pid != pid)
		*last = timeline__proc(tl, pid);
	return *last;
}

static int collect(struct report_state *r, struct report_stats *s)
{
	const struct tl_proc *last = NULL;
	struct timeline *tl = r->tl;
	ptrdiff_t *lane_proc;
	size_t i, j;
	int err = 0;

	s->proc = calloc(tl->nr_procs ? tl->nr_procs : 1, sizeof(*s->proc));
	if (!s->proc)
		return -ENOMEM;
	/* the injection library's writer thread is the tool's: counted apart (tool_*) */
	for (i = 0; i < tl->nr_samples; i++) {
		const struct tl_sample *sa = &tl->samples[i];
		const struct tl_proc *p;

		if (report_state__tool_thread(r, sa->pid, sa->tid)) {
			s->tool_on += sa->weight;
			continue;
		}
		p = proc_of(tl, sa->pid, &last);
		s->on_cpu += sa->weight;
		if (p)
			s->proc[p - tl->procs].on += sa->weight;
	}
	for (i = 0; i < tl->nr_offcpu; i++) {
		const struct tl_offcpu *o = &tl->offcpu[i];
		uint64_t d = o->end > o->start ? o->end - o->start : 0;
		const struct tl_proc *p;

		if (report_state__tool_thread(r, o->pid, o->tid)) {
			s->tool_off += d;
			continue;
		}
		p = proc_of(tl, o->pid, &last);
		s->off_cpu += d;
		if (p)
			s->proc[p - tl->procs].off += d;
	}
	for (i = 0; i < tl->nr_offcpu_short; i++) {
		const struct tl_proc *p = timeline__proc(tl, tl->offcpu_short[i].pid);

		if (report_state__tool_thread(r, tl->offcpu_short[i].pid, tl->offcpu_short[i].tid)) {
			s->tool_off += tl->offcpu_short[i].total_ns;
			continue;
		}
		s->off_cpu_short += tl->offcpu_short[i].total_ns;
		if (p)
			s->proc[p - tl->procs].off += tl->offcpu_short[i].total_ns;
	}
	s->off_cpu += s->off_cpu_short;
	/* counted by the join, which looks up each record's API call anyway */
	s->gpu_records = r->corr.nr_work;
	s->with_api = r->corr.work_with_api;
	s->with_stack = r->corr.work_with_stack;
	/* the process of each stream, looked up once, not per record */
	lane_proc = malloc((tl->nr_lanes ? tl->nr_lanes : 1) * sizeof(*lane_proc));
	if (!lane_proc)
		return -ENOMEM;
	for (i = 0; i < tl->nr_lanes; i++) {
		const struct tl_proc *p = timeline__proc(tl, tl->lanes[i].pid);

		lane_proc[i] = p ? p - tl->procs : -1;
	}
	for (i = 0; i < tl->nr_gpu && !err; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		uint64_t d = timeline__dur(tl, g->dur);

		if (g->kind == TL_GPU_SYNC)
			continue;
		if (lane_proc[g->lane] >= 0)
			s->proc[lane_proc[g->lane]].gpu += d;
		if (g->kind == TL_GPU_KERNEL) {
			struct kstat *k = kstat_get(s, g->name);

			if (!k) {
				err = -ENOMEM;
				break;
			}
			k->count++;
			k->total += d;
			k->min = d < k->min ? d : k->min;
			k->max = d > k->max ? d : k->max;
			k->hist[hist_bucket(d) < HIST_BUCKETS ? hist_bucket(d) : HIST_BUCKETS - 1]++;
			kcfg_add(k, g->kconfig, d);
		} else if (g->kind == TL_GPU_MEMCPY) {
			/* kinds without a name of their own all count as "unknown" (0) */
			struct mstat *m = &s->mc[timeline__copy_kind_name(g->copy_kind) !=
							 timeline__copy_kind_name(0) ? g->copy_kind : 0];

			m->count++;
			m->bytes += timeline__gpu_bytes(tl, g);
			m->total += d;
		} else {
			s->ms.count++;
			s->ms.bytes += timeline__gpu_bytes(tl, g);
			s->ms.total += d;
		}
		for (j = 0; j < s->nr_dev && s->dev[j].id != timeline__gpu_device(tl, g); j++)
			;
		if (j == s->nr_dev) {
			if (GP_ALLOC_GROW(s->dev, s->nr_dev + 1, s->dev_alloc)) {
				err = -ENOMEM;
				break;
			}
			memset(&s->dev[s->nr_dev], 0, sizeof(s->dev[0]));
			s->dev[s->nr_dev++].id = timeline__gpu_device(tl, g);
		}
		if (g->kind == TL_GPU_KERNEL)
			s->dev[j].kernel += d;
		else if (g->kind == TL_GPU_MEMCPY)
			s->dev[j].memcpy += d;
		else
			s->dev[j].memset += d;
		if (d && sweep_add(&s->dev[j], g->start, g->start + d))
			err = -ENOMEM;
	}
	free(lane_proc);
	/* launch sites: one symbolization per group of identical GPU records */
	for (i = 0; i < r->groups.n && !err; i++)
		if (r->groups.g[i].kind == VIEW_GPU)
			err = add_site(r, s, r->groups.g[i].rep, r->groups.g[i].weight,
				       r->groups.g[i].count);
	for (j = 0; j < s->nr_dev; j++) {
		sweep_finish(&s->dev[j]);
		s->idle += s->dev[j].idle;
		s->overlap += s->dev[j].overlap;
	}
	if (!err && s->nr_dev == 1) {
		s->busy = s->dev[0].busy; /* one device: the union is its own busy time */
	} else if (!err && s->nr_dev) {
		struct dev_stat all = { 0 };

		err = sweep_all(tl, &all);
		s->busy = all.busy;
	}
	return err;
}

static int cmp_kstat(const void *a, const void *b)
{
	const struct kstat *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns < y->gpu_ns ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct dev_stat *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void stats_release(struct report_stats *s)
{
	size_t i;

	for (i = 0; i < s->nr_k; i++)
		free(s->k[i].hist);
	free(s->k);
	u64map_free(&s->k_index);
	for (i = 0; i < s->nr_sites; i++)
		free(s->sites[i].stack);
	free(s->sites);
	free(s->dev);
	free(s->proc);
	memory_stats__free(s->mem);
}

static int stats_build(struct report_state *r, struct report_stats *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = collect(r, s);
	if (!err)
		err = memory_stats__build(r, &s->mem);
	if (err) {
		stats_release(s);
		return err;
	}
	gp_sort(s->k, s->nr_k, sizeof(*s->k), cmp_kstat);
	gp_sort(s->sites, s->nr_sites, sizeof(*s->sites), cmp_site);
	gp_sort(s->dev, s->nr_dev, sizeof(*s->dev), cmp_dev);
	return 0;
}

struct report_stats *report_stats__get(struct report_state *r)
{
	if (!r->stats) {
		struct report_stats *s = malloc(sizeof(*s));

		if (!s || stats_build(r, s)) {
			free(s);
			return NULL;
		}
		r->stats = s;
	}
	return r->stats;
}

void report_stats__free(struct report_state *r)
{
	if (r->stats) {
		stats_release(r->stats);
		free(r->stats);
		r->stats = NULL;
	}
}
