// SPDX-License-Identifier: Apache-2.0
/*
 * analysis.c - wall-clock analysis: where every thread's time went.
 *
 * From the report's groups of identical records (r->groups) and the short
 * block sums (tl->offcpu_short):
 *
 *   on-CPU   the samples' weights (1e9 / HZ each: a statistical estimate)
 *   off-CPU  the spans' lengths plus the blocks under --min-block
 *   coverage (on + off) / the thread's lifetime in the recording; for a
 *            process, the sums over its threads
 *
 * A thread's lifetime runs from its first appearance (its thread record, its
 * first sample or the start of its first span, whichever is earliest, but not
 * before the recording) to its exit (or the end of the recording).
 *
 * Blocking reason of an off-CPU span: the innermost kernel frame of its stack
 * that is not generic scheduler machinery (schedule*, io_schedule*,
 * *schedule_timeout*, schedule_hrtimeout*, ...). The agent's stack already
 * starts at the function that called into the scheduler (hrtimer_nanosleep,
 * futex_wait_queue, do_epoll_wait, pipe_read, ...). Category, first that
 * applies:
 *   preempted  state 0 (runnable: the thread wanted a CPU)
 *   gpu        a user frame is a synchronizing CUDA call or lies in libcuda
 *   locks, io, poll, sleep
 *              the innermost kernel frame (generic ones skipped) that names
 *              one of them (patterns in cat_patterns[])
 *   other      none does (waitpid, ioctl, unknown kernel frames, ...)
 *   short      the blocks under --min-block (no stack)
 *
 * Thread class: the largest of these buckets of the thread's time
 *   cpu    on-CPU + preempted          -> "cpu-bound"
 *   gpu                                -> "gpu-wait"
 *   io                                 -> "io-blocked"
 *   locks                              -> "lock-wait", or "idle" when the
 *          thread used < 1% CPU and its futex waits last >= 100 ms on average
 *          (a pool thread waiting for work, not a contended lock)
 *   poll                               -> "idle" (waiting for events)
 *   sleep                              -> "sleeping"
 *   other + short                      -> "other"
 * ties go to the earlier bucket in that order; no time at all: "unknown".
 */
#include "analysis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis_priv.h"
#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_util.h"
#include "report_state.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

/* Kernel frames that only say "the thread went to sleep": skipped for the reason. */
static const char *const generic_frames[] = {
    "schedule",	     "__schedule",	   "io_schedule", "preempt_schedule", "__cond_resched",
    "_cond_resched", "finish_task_switch", "__switch_to", "context_switch",
};

/* Substrings of kernel function names, per category; a frame's first match decides. */
static const struct {
	enum an_cat cat;
	const char *pat;
} cat_patterns[] = {
    {CAT_LOCKS, "futex"},
    {CAT_LOCKS, "mutex_lock"},
    {CAT_LOCKS, "__mutex"},
    {CAT_LOCKS, "rwsem"},
    {CAT_LOCKS, "rt_mutex"},
    {CAT_LOCKS, "down_read"},
    {CAT_LOCKS, "down_write"},
    {CAT_LOCKS, "__down"},
    {CAT_LOCKS, "flock"},
    {CAT_LOCKS, "posix_lock"},
    {CAT_LOCKS, "locks_lock"},
    {CAT_LOCKS, "fcntl_setlk"},
    {CAT_LOCKS, "semtimedop"},
    {CAT_POLL, "ep_poll"},
    {CAT_POLL, "epoll"},
    {CAT_POLL, "do_poll"},
    {CAT_POLL, "do_sys_poll"},
    {CAT_POLL, "poll_schedule"},
    {CAT_POLL, "do_select"},
    {CAT_POLL, "core_sys_select"},
    {CAT_POLL, "sys_poll"},
    {CAT_POLL, "sys_ppoll"},
    {CAT_POLL, "sys_select"},
    {CAT_POLL, "sys_pselect"},
    {CAT_SLEEP, "nanosleep"},
    {CAT_SLEEP, "common_nsleep"},
    {CAT_SLEEP, "msleep"},
    {CAT_SLEEP, "sys_pause"},
    {CAT_SLEEP, "sigsuspend"},
    {CAT_IO, "pipe_read"},
    {CAT_IO, "pipe_write"},
    {CAT_IO, "pipe_wait"},
    {CAT_IO, "wait_for_partner"},
    {CAT_IO, "vfs_read"},
    {CAT_IO, "vfs_write"},
    {CAT_IO, "ksys_read"},
    {CAT_IO, "ksys_write"},
    {CAT_IO, "sys_read"},
    {CAT_IO, "sys_write"},
    {CAT_IO, "sys_pread"},
    {CAT_IO, "sys_pwrite"},
    {CAT_IO, "sendfile"},
    {CAT_IO, "splice"},
    {CAT_IO, "blk_"},
    {CAT_IO, "bio_"},
    {CAT_IO, "folio_wait"},
    {CAT_IO, "wait_on_page"},
    {CAT_IO, "lock_page"},
    {CAT_IO, "filemap_"},
    {CAT_IO, "wait_on_buffer"},
    {CAT_IO, "wait_on_bit"},
    {CAT_IO, "ext4_"},
    {CAT_IO, "xfs_"},
    {CAT_IO, "btrfs_"},
    {CAT_IO, "nfs"},
    {CAT_IO, "fuse_"},
    {CAT_IO, "jbd2"},
    {CAT_IO, "fsync"},
    {CAT_IO, "sk_wait"},
    {CAT_IO, "sk_stream_wait"},
    {CAT_IO, "tcp_recvmsg"},
    {CAT_IO, "tcp_sendmsg"},
    {CAT_IO, "udp_recvmsg"},
    {CAT_IO, "unix_stream_read"},
    {CAT_IO, "unix_stream_recvmsg"},
    {CAT_IO, "unix_dgram_recvmsg"},
    {CAT_IO, "skb_wait_for_more"},
    {CAT_IO, "skb_recv"},
    {CAT_IO, "sock_"},
    {CAT_IO, "recvmsg"},
    {CAT_IO, "sendmsg"},
    {CAT_IO, "sys_recv"},
    {CAT_IO, "sys_send"},
    {CAT_IO, "accept"},
    {CAT_IO, "n_tty_read"},
    {CAT_IO, "tty_"},
    {CAT_IO, "wait_for_completion_io"},
    {CAT_IO, "io_uring"},
    {CAT_IO, "aio_"},
};

/* User frames that mean "waiting for the GPU". */
static const char *const gpu_sync_funcs[] = {
    "cudaStreamSynchronize",
    "cudaDeviceSynchronize",
    "cudaEventSynchronize",
    "cudaThreadSynchronize",
    "cudaMemcpy",
    "cudaMemcpy2D",
    "cudaMemcpy3D",
    "cudaMemcpyToSymbol",
    "cudaMemcpyFromSymbol",
    "cudaMemset",
    "cudaStreamWaitEvent",
    "cuStreamSynchronize",
    "cuCtxSynchronize",
    "cuEventSynchronize",
    "cuMemcpy",
    "cuMemcpyDtoH",
    "cuMemcpyDtoH_v2",
    "cuMemcpyHtoD",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoD",
    "cuMemcpyDtoD_v2",
};

static int cmp_key(const void *a, const void *b)
{
	const struct an_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct an_thread *find_thread(struct analysis *a, uint32_t pid, uint32_t tid)
{
	struct an_thread key = {.pid = pid, .tid = tid};

	return a->nr_t ? bsearch(&key, a->t, a->nr_t, sizeof(*a->t), cmp_key) : NULL;
}

static uint64_t reason_hash(const char *fn, size_t thread, enum an_cat cat)
{
	return gp_mix64(gp_hash_bytes(fn, strlen(fn)) ^ (uint64_t)thread << 32 ^ (uint64_t)cat << 24);
}

static int reasons_add(struct an_reasons *rs, const char *fn, size_t thread, enum an_cat cat,
		       uint64_t ns, uint64_t count)
{
	uint64_t h = reason_hash(fn, thread, cat);
	size_t i, mask;

	if ((rs->n + 1) * 2 >= rs->nslots) {
		size_t n = rs->nslots ? rs->nslots * 2 : 64, j;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (j = 0; j < rs->n; j++) {
			const struct an_reason *e = &rs->v[j];
			uint64_t eh = reason_hash(e->fn, e->thread, e->cat);

			for (i = eh & (n - 1); slots[i]; i = (i + 1) & (n - 1))
				;
			slots[i] = (uint32_t)j + 1;
		}
		free(rs->slots);
		rs->slots = slots;
		rs->nslots = n;
	}
	mask = rs->nslots - 1;
	for (i = h & mask; rs->slots[i]; i = (i + 1) & mask) {
		struct an_reason *e = &rs->v[rs->slots[i] - 1];

		if (e->thread == thread && e->cat == cat && !strcmp(e->fn, fn)) {
			e->ns += ns;
			e->count += count;
			return 0;
		}
	}
	if (GP_ALLOC_GROW(rs->v, rs->n + 1, rs->cap))
		return -ENOMEM;
	rs->v[rs->n] = (struct an_reason){fn, thread, cat, ns, count};
	rs->slots[i] = (uint32_t)++rs->n;
	return 0;
}

static int starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int is_generic(const char *fn)
{
	size_t i;

	if (strstr(fn, "schedule_timeout") || starts_with(fn, "schedule_hrtimeout") ||
	    starts_with(fn, "schedule_preempt") || starts_with(fn, "io_schedule"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(generic_frames); i++) {
		size_t n = strlen(generic_frames[i]);

		/* "schedule" and "schedule [module]", not "schedule_foo" (handled above) */
		if (!strncmp(fn, generic_frames[i], n) && (!fn[n] || fn[n] == ' ' || fn[n] == '.'))
			return 1;
	}
	return 0;
}

static int frame_cat(const char *fn, enum an_cat *cat)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cat_patterns); i++)
		if (strstr(fn, cat_patterns[i].pat)) {
			*cat = cat_patterns[i].cat;
			return 1;
		}
	return 0;
}

static int is_gpu_frame(const char *fn)
{
	size_t i;

	if (strstr(fn, "libcuda.so") || strstr(fn, "libcudart.so"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(gpu_sync_funcs); i++)
		if (!strcmp(fn, gpu_sync_funcs[i]))
			return 1;
	return 0;
}

/* The reason and category of an off-CPU span. */
static void classify_span(struct report_state *r, const struct tl_offcpu *o, const char **fn,
			  enum an_cat *cat)
{
	const uint64_t *ips = timeline__frames(r->tl, &o->stack);
	const char *reason = NULL;
	size_t i;

	*cat = CAT_OTHER;
	for (i = 0; i < o->stack.nr_kernel; i++) {
		const char *name = symbolizer__kernel(r->sym, ips[o->stack.nr_user + i])->name;

		if (is_generic(name))
			continue;
		if (!reason)
			reason = name;
		if (frame_cat(name, cat))
			break;
	}
	*fn = reason ? reason : o->stack.nr_kernel ? "[scheduler]" : "[no kernel stack]";
	if (o->state == 0) {
		*cat = CAT_PREEMPT;
		return;
	}
	for (i = 0; i < o->stack.nr_user; i++) {
		const struct sym_frame *sf;
		size_t n = symbolizer__user(r->sym, o->pid, ips[i], i > 0, &sf), k;

		for (k = 0; k < n; k++)
			if (is_gpu_frame(sf[k].name)) {
				*cat = CAT_GPU;
				return;
			}
	}
}

static int push_key(struct analysis *a, size_t *cap, uint32_t pid, uint32_t tid)
{
	if (GP_ALLOC_GROW(a->t, a->nr_t + 1, *cap))
		return -ENOMEM;
	memset(&a->t[a->nr_t], 0, sizeof(a->t[0]));
	a->t[a->nr_t].pid = pid;
	a->t[a->nr_t].tid = tid;
	a->t[a->nr_t].first = UINT64_MAX;
	a->nr_t++;
	return 0;
}

static int collect_threads(struct report_state *r, struct analysis *a)
{
	struct timeline *tl = r->tl;
	size_t cap = 0, i, j;
	int err = 0;

	for (i = 0; i < tl->nr_threads && !err; i++)
		err = push_key(a, &cap, tl->threads[i].pid, tl->threads[i].tid);
	for (i = 0; i < r->groups.n && !err; i++) {
		const struct rec_group *g = &r->groups.g[i];

		if (g->kind == VIEW_CPU)
			err = push_key(a, &cap, tl->samples[g->rep].pid, tl->samples[g->rep].tid);
		else if (g->kind == VIEW_OFFCPU)
			err = push_key(a, &cap, tl->offcpu[g->rep].pid, tl->offcpu[g->rep].tid);
	}
	for (i = 0; i < tl->nr_offcpu_short && !err; i++)
		err = push_key(a, &cap, tl->offcpu_short[i].pid, tl->offcpu_short[i].tid);
	if (err)
		return err;
	gp_sort(a->t, a->nr_t, sizeof(*a->t), cmp_key);
	for (i = j = 0; i < a->nr_t; i++) {
		/* the injection library's writer thread: the tool's, left out everywhere */
		if (report_state__tool_thread(r, a->t[i].pid, a->t[i].tid))
			continue;
		if (!j || cmp_key(&a->t[j - 1], &a->t[i]))
			a->t[j++] = a->t[i];
	}
	a->nr_t = j;
	return 0;
}

static void note_seen(struct an_thread *t, uint64_t ts)
{
	if (t && ts && ts < t->first)
		t->first = ts;
}

static enum an_class classify_thread(const struct an_thread *t)
{
	uint64_t b[7];
	uint64_t total = t->on + t->off;
	size_t i, best = 0;

	if (!total)
		return CLS_UNKNOWN;
	b[0] = t->on + t->cat[CAT_PREEMPT];
	b[1] = t->cat[CAT_GPU];
	b[2] = t->cat[CAT_IO];
	b[3] = t->cat[CAT_LOCKS];
	b[4] = t->cat[CAT_POLL];
	b[5] = t->cat[CAT_SLEEP];
	b[6] = t->cat[CAT_OTHER] + t->cat[CAT_SHORT];
	for (i = 1; i < 7; i++)
		if (b[i] > b[best])
			best = i;
	switch (best) {
	case 0:
		return CLS_CPU;
	case 1:
		return CLS_GPU;
	case 2:
		return CLS_IO;
	case 3:
		if ((double)t->on < IDLE_MAX_CPU * (double)total && t->cat_n[CAT_LOCKS] &&
		    t->cat[CAT_LOCKS] / t->cat_n[CAT_LOCKS] >= IDLE_MIN_MEAN_NS)
			return CLS_IDLE;
		return CLS_LOCK;
	case 4:
		return CLS_IDLE;
	case 5:
		return CLS_SLEEP;
	default:
		return CLS_OTHER;
	}
}

/* Frames of group g as one line, root first: "proc;main;...;[off-cpu];pipe_read". */
static char *stack_text(struct report_state *r, const struct rec_group *g, struct frame_buf *fb)
{
	struct timeline *tl = r->tl;
	size_t i, len = 0;
	char *text, *p;
	int err;

	fb->n = 0;
	err = g->kind == VIEW_CPU ? frames__sample(&r->frames, &tl->samples[g->rep], fb)
				  : frames__offcpu(&r->frames, &tl->offcpu[g->rep], fb);
	if (err)
		return NULL;
	for (i = 0; i < fb->n; i++)
		len += strlen(fb->f[i].name) + 1;
	text = malloc(len + 1);
	if (!text)
		return NULL;
	p = text;
	for (i = 0; i < fb->n; i++) {
		size_t n = strlen(fb->f[i].name);

		if (i)
			*p++ = ';';
		memcpy(p, fb->f[i].name, n);
		p += n;
	}
	*p = '\0';
	return text;
}

static int cmp_stack_text(const void *a, const void *b)
{
	return strcmp(((const struct an_stack *)a)->text, ((const struct an_stack *)b)->text);
}

static int cmp_stack_ns(const void *a, const void *b)
{
	const struct an_stack *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->text, y->text);
}

static int stacks_push(struct an_stacks *s, char *text, uint64_t ns)
{
	if (GP_ALLOC_GROW(s->v, s->n + 1, s->cap))
		return -ENOMEM;
	s->v[s->n].text = text;
	s->v[s->n++].ns = ns;
	return 0;
}

/* Merge equal texts (the same stack on several threads), heaviest first. */
static void stacks_finish(struct an_stacks *s)
{
	size_t i, j;

	gp_sort(s->v, s->n, sizeof(*s->v), cmp_stack_text);
	for (i = j = 0; i < s->n; i++) {
		if (j && !strcmp(s->v[j - 1].text, s->v[i].text)) {
			s->v[j - 1].ns += s->v[i].ns;
			free(s->v[i].text);
		} else {
			s->v[j++] = s->v[i];
		}
	}
	s->n = j;
	gp_sort(s->v, s->n, sizeof(*s->v), cmp_stack_ns);
}

void an_release(struct analysis *a)
{
	size_t i, k;

	free(a->t);
	free(a->per_thread.v);
	free(a->per_thread.slots);
	free(a->total.v);
	free(a->total.slots);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < a->top[k].n; i++)
			free(a->top[k].v[i].text);
		free(a->top[k].v);
	}
}

int an_build(struct report_state *r, struct analysis *a, int with_stacks)
{
	struct timeline *tl = r->tl;
	struct frame_buf fb = {0};
	struct an_thread *seen;
	size_t i;
	int err;

	memset(a, 0, sizeof(*a));
	err = collect_threads(r, a);
	for (i = 0; i < tl->nr_threads && !err; i++) {
		struct an_thread *t = find_thread(a, tl->threads[i].pid, tl->threads[i].tid);

		note_seen(t, tl->threads[i].first_ts);
		if (t && tl->threads[i].exit_ts)
			t->last = tl->threads[i].exit_ts;
	}
	/* the thread of a run of records is looked up once */
	for (i = 0, seen = NULL; i < tl->nr_samples && !err; i++) {
		const struct tl_sample *sa = &tl->samples[i];

		if (report_state__tool_thread(r, sa->pid, sa->tid))
			a->tool_on += sa->weight;

		if (!seen || seen->pid != sa->pid || seen->tid != sa->tid)
			seen = find_thread(a, sa->pid, sa->tid);
		/* a sample stands for the period before it */
		note_seen(seen, sa->ts > sa->weight ? sa->ts - sa->weight : sa->ts);
	}
	for (i = 0, seen = NULL; i < tl->nr_offcpu && !err; i++) {
		const struct tl_offcpu *o = &tl->offcpu[i];

		if (report_state__tool_thread(r, o->pid, o->tid))
			a->tool_off += o->end > o->start ? o->end - o->start : 0;

		if (!seen || seen->pid != o->pid || seen->tid != o->tid)
			seen = find_thread(a, o->pid, o->tid);
		note_seen(seen, o->start);
	}
	for (i = 0; i < r->groups.n && !err; i++) {
		const struct rec_group *g = &r->groups.g[i];
		struct an_thread *t;
		const char *fn;
		enum an_cat cat;

		if (g->kind == VIEW_CPU) {
			t = find_thread(a, tl->samples[g->rep].pid, tl->samples[g->rep].tid);
			if (!t)
				continue;
			t->on += g->weight;
			a->on_total += g->weight;
		} else if (g->kind == VIEW_OFFCPU) {
			t = find_thread(a, tl->offcpu[g->rep].pid, tl->offcpu[g->rep].tid);
			if (!t)
				continue;
			classify_span(r, &tl->offcpu[g->rep], &fn, &cat);
			t->off += g->weight;
			t->cat[cat] += g->weight;
			t->cat_n[cat] += g->count;
			a->off_total += g->weight;
			a->cat_total[cat] += g->weight;
			a->cat_count[cat] += g->count;
			err = reasons_add(&a->per_thread, fn, (size_t)(t - a->t), cat, g->weight,
					  g->count);
			if (!err)
				err =
				    reasons_add(&a->total, fn, SIZE_MAX, cat, g->weight, g->count);
		} else {
			continue;
		}
		if (!err && with_stacks) {
			char *text = stack_text(r, g, &fb);

			err = text ? stacks_push(&a->top[g->kind == VIEW_OFFCPU], text, g->weight)
				   : -ENOMEM;
		}
	}
	for (i = 0; i < tl->nr_offcpu_short && !err; i++) {
		const struct tl_offcpu_short *s = &tl->offcpu_short[i];
		struct an_thread *t = find_thread(a, s->pid, s->tid);

		if (report_state__tool_thread(r, s->pid, s->tid))
			a->tool_off += s->total_ns;
		if (!t)
			continue;
		t->off += s->total_ns;
		t->cat[CAT_SHORT] += s->total_ns;
		t->cat_n[CAT_SHORT] += s->count;
		a->off_total += s->total_ns;
		a->cat_total[CAT_SHORT] += s->total_ns;
		a->cat_count[CAT_SHORT] += s->count;
		err = reasons_add(&a->per_thread, "[short blocks]", (size_t)(t - a->t), CAT_SHORT,
				  s->total_ns, s->count);
		if (!err)
			err = reasons_add(&a->total, "[short blocks]", SIZE_MAX, CAT_SHORT,
					  s->total_ns, s->count);
	}
	free(fb.f);
	free(fb.src);
	if (err) {
		an_release(a);
		return err;
	}
	for (i = 0; i < a->per_thread.n; i++) {
		const struct an_reason *e = &a->per_thread.v[i];
		struct an_thread *t = &a->t[e->thread];

		if (e->ns > t->top_ns ||
		    (e->ns == t->top_ns && t->top_fn && strcmp(e->fn, t->top_fn) < 0)) {
			t->top_ns = e->ns;
			t->top_fn = e->fn;
			t->top_cat = e->cat;
		}
	}
	for (i = 0; i < a->nr_t; i++) {
		struct an_thread *t = &a->t[i];
		uint64_t start =
		    t->first == UINT64_MAX || t->first < r->start_ns ? r->start_ns : t->first;
		uint64_t end = t->last && t->last < r->end_ns ? t->last : r->end_ns;

		t->first = start;
		t->last = end;
		t->lifetime = end > start ? end - start : 0;
		t->cls = classify_thread(t);
		a->cls_count[t->cls]++;
	}
	for (i = 0; i < 2; i++)
		stacks_finish(&a->top[i]);
	return 0;
}
