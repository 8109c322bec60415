// SPDX-License-Identifier: Apache-2.0
/*
 * timeline_finish.c - what timeline__finish() does once every file is
 * loaded: the loader's tables freed, thread indices renumbered into (pid,
 * tid) order, process and thread events merged into one entry each, and
 * every array sorted (only those the loader did not find in order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_record.h"
#include "gp_util.h"
#include "timeline.h"
#include "timeline_priv.h"
#include "u64map.h"

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
	tl_warn(tl, "%llu launch stacks came from an older gpuperf (the CPU agent's launch_site "
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

/*
 * The injection library's own records of virtual memory calls, dropped
 * where CUPTI reported the same call (its record has the call's
 * correlation id): CUPTI's is the driver's own account. Without memory for
 * the lookup, all are kept.
 */
static void drop_reported_calls(struct timeline *tl)
{
	struct u64map cupti = { 0 };
	size_t i, n = 0, own = 0;

	for (i = 0; i < tl->nr_mem; i++)
		own += tl->mem[i].from_call;
	if (!own || own == tl->nr_mem || u64map_reserve_nr(&cupti, tl->nr_mem - own))
		goto out;
	for (i = 0; i < tl->nr_mem; i++)
		if (!tl->mem[i].from_call && !u64map_get(&cupti, tl->mem[i].corr) &&
		    u64map_put(&cupti, tl->mem[i].corr, 1))
			goto out;
	for (i = 0; i < tl->nr_mem; i++)
		if (!tl->mem[i].from_call || !u64map_get(&cupti, tl->mem[i].corr))
			tl->mem[n++] = tl->mem[i];
	tl->nr_mem = n;
out:
	u64map_free(&cupti);
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
	p->nr_api_stacks = p->api_stacks_alloc = 0;
	old_launch_sites_warning(tl);
	/* the loader's order of threads was not (pid, tid): API calls are sorted again */
	if (renumber_tids(tl))
		p->unordered |= ORD_API;
	tl_free_maps(tl->priv);

	merge_procs(tl);
	merge_threads(tl);
	gp_sort(tl->modules, tl->nr_modules, sizeof(*tl->modules), cmp_module);
	gp_sort(tl->devices, tl->nr_devices, sizeof(*tl->devices), cmp_device);
	gp_sort(tl->stack_ends, tl->nr_stack_ends, sizeof(*tl->stack_ends), cmp_stack_ends);
	drop_reported_calls(tl);
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
