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

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_util.h"
#include "report_state.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

enum an_cat {
	CAT_PREEMPT,
	CAT_GPU,
	CAT_LOCKS,
	CAT_IO,
	CAT_POLL,
	CAT_SLEEP,
	CAT_OTHER,
	CAT_SHORT,
	CAT_COUNT
};

static const char *const cat_names[CAT_COUNT] = {
    [CAT_PREEMPT] = "preempted", [CAT_GPU] = "gpu",
    [CAT_LOCKS] = "locks",	 [CAT_IO] = "io",
    [CAT_POLL] = "poll",	 [CAT_SLEEP] = "sleep",
    [CAT_OTHER] = "other",	 [CAT_SHORT] = "short",
};

static const char *const cat_help[CAT_COUNT] = {
    [CAT_PREEMPT] = "runnable but not running (preempted, waiting for a CPU)",
    [CAT_GPU] = "waiting on the GPU (CUDA synchronization)",
    [CAT_LOCKS] = "futex and locks",
    [CAT_IO] = "I/O: files, pipes, sockets, block devices",
    [CAT_POLL] = "poll/epoll/select: waiting for events",
    [CAT_SLEEP] = "sleep (nanosleep, clock_nanosleep, pause)",
    [CAT_OTHER] = "other kernel waits",
    [CAT_SHORT] = "blocks shorter than --min-block (summed, no stack)",
};

enum an_class {
	CLS_CPU,
	CLS_GPU,
	CLS_IO,
	CLS_LOCK,
	CLS_IDLE,
	CLS_SLEEP,
	CLS_OTHER,
	CLS_UNKNOWN,
	CLS_COUNT
};

static const char *const cls_names[CLS_COUNT] = {
    [CLS_CPU] = "cpu-bound",  [CLS_GPU] = "gpu-wait",	 [CLS_IO] = "io-blocked",
    [CLS_LOCK] = "lock-wait", [CLS_IDLE] = "idle",	 [CLS_SLEEP] = "sleeping",
    [CLS_OTHER] = "other",    [CLS_UNKNOWN] = "unknown",
};

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

#define IDLE_MAX_CPU	 0.01	      /* "idle" futex waiter: under 1% on-CPU */
#define IDLE_MIN_MEAN_NS 100000000ull /* ... and futex waits of >= 100 ms on average */
#define TOP_STACKS	 10

struct an_thread {
	uint32_t pid, tid;
	uint64_t on, off;
	uint64_t cat[CAT_COUNT], cat_n[CAT_COUNT];
	uint64_t first, last; /* first appearance, end of its lifetime */
	uint64_t lifetime;
	const char *top_fn; /* the kernel function it blocked in longest, or NULL */
	enum an_cat top_cat;
	uint64_t top_ns;
	enum an_class cls;
};

struct an_reason {
	const char *fn; /* symbolizer-owned or a static string */
	size_t thread;	/* index into threads; SIZE_MAX in the totals */
	enum an_cat cat;
	uint64_t ns, count;
};

struct an_reasons {
	struct an_reason *v;
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1 */
	size_t nslots;
};

struct an_stack {
	char *text;
	uint64_t ns;
};

struct an_stacks {
	struct an_stack *v;
	size_t n, cap;
};

struct analysis {
	struct an_thread *t;
	size_t nr_t;
	struct an_reasons per_thread; /* (thread, function) */
	struct an_reasons total;      /* (function) */
	uint64_t cat_total[CAT_COUNT], cat_count[CAT_COUNT];
	struct an_stacks top[2]; /* on-CPU, off-CPU: merged by text, heaviest first */
	uint64_t on_total, off_total;
	uint64_t tool_on, tool_off; /* the writer thread's, left out (report_state__tool_thread) */
	size_t cls_count[CLS_COUNT];
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

static void analysis_release(struct analysis *a)
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

static int analysis_build(struct report_state *r, struct analysis *a, int with_stacks)
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
		analysis_release(a);
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

static const char *thread_name(struct report_state *r, uint32_t pid, uint32_t tid)
{
	const struct tl_thread *t = timeline__thread(r->tl, pid, tid);
	const struct tl_proc *p = timeline__proc(r->tl, pid);
	const char *name = t ? timeline__str(r->tl, t->name) : "";

	if (!*name && p)
		name = timeline__str(r->tl, p->comm);
	return *name ? name : "?";
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/* Per process: the sums over its threads (a->t is sorted by pid). */
struct an_proc {
	uint32_t pid;
	size_t threads;
	uint64_t on, off, lifetime;
};

static int next_proc(const struct analysis *a, size_t *i, struct an_proc *p)
{
	if (*i >= a->nr_t)
		return 0;
	memset(p, 0, sizeof(*p));
	p->pid = a->t[*i].pid;
	for (; *i < a->nr_t && a->t[*i].pid == p->pid; (*i)++) {
		p->threads++;
		p->on += a->t[*i].on;
		p->off += a->t[*i].off;
		p->lifetime += a->t[*i].lifetime;
	}
	return 1;
}

static int cmp_reason(const void *x, const void *y)
{
	const struct an_reason *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	return strcmp(a->fn, b->fn);
}

/* Processes that exited while recorded: a note each (their data until then is all there is). */
static void write_exits(struct report_state *r, FILE *out)
{
	const struct timeline *tl = r->tl;
	size_t i, n = 0;
	char b1[32], b2[32];

	for (i = 0; i < tl->nr_procs; i++) {
		const struct tl_proc *p = &tl->procs[i];
		int st = p->exit_status;

		if (!p->exited || !p->exit_ts || p->exit_ts < r->start_ns)
			continue;
		if (n++ == 8)
			continue;
		report_state__fmt_ns(b1, sizeof(b1), p->exit_ts - r->start_ns);
		report_state__fmt_ns(b2, sizeof(b2), r->duration_ns);
		fprintf(out, "%s  process %u (%s) exited %s into the %s recording, ",
			n == 1 ? "\nnotes:\n" : "", p->pid, frames__proc_root(&r->frames, p->pid), b1, b2);
		if (WIFEXITED(st))
			fprintf(out, "with status %d", WEXITSTATUS(st));
		else
			fprintf(out, "killed by signal %d", WTERMSIG(st));
		fprintf(out, "; it is counted until then\n");
	}
	if (n > 8)
		fprintf(out, "  and %zu more processes exited\n", n - 8);
}

static void write_text(struct report_state *r, struct analysis *a, FILE *out)
{
	struct timeline *tl = r->tl;
	char b1[32], b2[32], b3[32], b4[32];
	size_t i, k;
	struct an_proc p;

	report_state__fmt_ns(b1, sizeof(b1), r->duration_ns);
	fprintf(out, "gpuperf wall-clock analysis: %s recorded, %zu process%s, %zu thread%s\n\n",
		b1, tl->nr_procs, tl->nr_procs == 1 ? "" : "es", a->nr_t, a->nr_t == 1 ? "" : "s");
	fprintf(
	    out,
	    "on-CPU: the samples' weights (1e9/HZ each%s); off-CPU: the recorded blocked spans\n"
	    "plus the blocks shorter than --min-block (summed per thread, no stack).\n"
	    "coverage = (on-CPU + off-CPU) / the thread's lifetime in the recording (from its\n"
	    "first appearance, or the recording's start, to its exit, or the recording's end);\n"
	    "for a process, the same sums over its threads (threads x duration when every\n"
	    "thread lived through the whole recording).\n"
	    "  coverage well below 100%%: time not accounted for: a block that began before\n"
	    "    the recording with -a (with -p/-t it counts from the start; a block still\n"
	    "    going at the end counts up to it), events lost (see the warnings), on-CPU\n"
	    "    time between samples of a thread that ran only briefly (sampling\n"
	    "    granularity), or a thread that did not exist or was not followed during\n"
	    "    part of the window (-t, -C).\n"
	    "  coverage above 100%%: on-CPU time is a statistical estimate (each sample stands\n"
	    "    for a whole period, 1e9/HZ ns), and a sample and a span can overlap at their\n"
	    "    edges; a few %% over is normal.\n\n",
	    r->freq_hz ? "" : ", HZ from the samples");
	report_state__fmt_ns(b1, sizeof(b1), a->on_total);
	report_state__fmt_ns(b2, sizeof(b2), a->off_total);
	fprintf(out, "totals: on-CPU %s, off-CPU %s (as in summary.json and every view)\n", b1, b2);
	if (a->tool_on || a->tool_off) {
		report_state__fmt_ns(b1, sizeof(b1), a->tool_on);
		report_state__fmt_ns(b2, sizeof(b2), a->tool_off);
		fprintf(out, "left out: the injection library's writer thread (gpuperf-writer): the\n"
			     "tool's, not the program's: on-CPU %s, off-CPU %s\n", b1, b2);
	}
	fputc('\n', out);
	fprintf(
	    out,
	    "thread classes (the largest share of the thread's recorded time decides):\n"
	    "  cpu-bound   on-CPU time plus time runnable but preempted\n"
	    "  gpu-wait    blocked in a CUDA synchronization (cudaStreamSynchronize,\n"
	    "              cudaDeviceSynchronize, cudaMemcpy, cuCtxSynchronize, ... or libcuda)\n"
	    "  io-blocked  blocked in reads/writes of files, pipes, sockets, block devices\n"
	    "  lock-wait   blocked on futexes and kernel locks (mutexes, condition variables)\n"
	    "  idle        waiting for work: poll/epoll/select, or futex waits of >= 100 ms\n"
	    "              on average with < 1%% on-CPU (a pool thread with nothing to do)\n"
	    "  sleeping    nanosleep, clock_nanosleep, pause\n"
	    "  other       other kernel waits and short blocks; unknown: no time recorded\n"
	    "blocking reason: the innermost kernel function of an off-CPU stack that is not\n"
	    "scheduler machinery (schedule*, io_schedule*, *schedule_timeout*,\n"
	    "schedule_hrtimeout*); preempted: a span whose thread stayed runnable.\n\n");

	fprintf(out, "processes:\n  %8s  %-16s %7s %10s %10s %10s %9s\n", "pid", "name", "threads",
		"on-CPU", "off-CPU", "sum", "coverage");
	for (i = 0; next_proc(a, &i, &p);) {
		const struct tl_proc *tp = timeline__proc(tl, p.pid);

		report_state__fmt_ns(b1, sizeof(b1), p.on);
		report_state__fmt_ns(b2, sizeof(b2), p.off);
		report_state__fmt_ns(b3, sizeof(b3), p.on + p.off);
		fprintf(out, "  %8u  %-16s %7zu %10s %10s %10s %8.1f%%\n", p.pid,
			tp ? frames__proc_root(&r->frames, p.pid) : "?", p.threads, b1, b2, b3,
			100.0 * ratio(p.on + p.off, p.lifetime));
	}
	write_exits(r, out);
	fprintf(out, "\nthreads:\n  %8s %8s  %-16s %10s %10s %10s %10s %9s  %-10s  %s\n", "pid",
		"tid", "name", "on-CPU", "off-CPU", "sum", "lifetime", "coverage", "class",
		"top reason");
	for (i = 0; i < a->nr_t; i++) {
		const struct an_thread *t = &a->t[i];

		report_state__fmt_ns(b1, sizeof(b1), t->on);
		report_state__fmt_ns(b2, sizeof(b2), t->off);
		report_state__fmt_ns(b3, sizeof(b3), t->on + t->off);
		report_state__fmt_ns(b4, sizeof(b4), t->lifetime);
		fprintf(out, "  %8u %8u  %-16s %10s %10s %10s %10s %8.1f%%  %-10s  %s%s%s%s\n",
			t->pid, t->tid, thread_name(r, t->pid, t->tid), b1, b2, b3, b4,
			100.0 * ratio(t->on + t->off, t->lifetime), cls_names[t->cls],
			t->top_fn ? t->top_fn : "-", t->top_fn ? " (" : "",
			t->top_fn ? cat_names[t->top_cat] : "", t->top_fn ? ")" : "");
	}

	report_state__fmt_ns(b1, sizeof(b1), a->off_total);
	fprintf(out, "\nblocking reasons by category (of %s off-CPU):\n", b1);
	for (k = 0; k < CAT_COUNT; k++) {
		if (!a->cat_total[k])
			continue;
		report_state__fmt_ns(b1, sizeof(b1), a->cat_total[k]);
		fprintf(out, "  %-10s %10s %5.1f%% %9llu  %s\n", cat_names[k], b1,
			100.0 * ratio(a->cat_total[k], a->off_total),
			(unsigned long long)a->cat_count[k], cat_help[k]);
	}
	gp_sort(a->total.v, a->total.n, sizeof(*a->total.v), cmp_reason);
	fprintf(out, "\nblocking reasons by kernel function:\n  %10s %6s %9s  %-10s %s\n", "total",
		"%", "blocks", "category", "function");
	for (i = 0; i < a->total.n && i < 2 * r->top; i++) {
		const struct an_reason *e = &a->total.v[i];

		report_state__fmt_ns(b1, sizeof(b1), e->ns);
		fprintf(out, "  %10s %5.1f%% %9llu  %-10s %s\n", b1,
			100.0 * ratio(e->ns, a->off_total), (unsigned long long)e->count,
			cat_names[e->cat], e->fn);
	}
	for (k = 0; k < 2; k++) {
		uint64_t total = k ? a->off_total : a->on_total;

		fprintf(out, "\ntop %s stacks (root first, leaf last):\n",
			k ? "off-CPU" : "on-CPU");
		for (i = 0; i < a->top[k].n && i < TOP_STACKS; i++) {
			report_state__fmt_ns(b1, sizeof(b1), a->top[k].v[i].ns);
			fprintf(out, "  %10s %5.1f%%  %s\n", b1,
				100.0 * ratio(a->top[k].v[i].ns, total), a->top[k].v[i].text);
		}
		if (!a->top[k].n)
			fprintf(out, "  (none recorded)\n");
	}
}

int analysis__write_text(struct report_state *r, const char *name)
{
	struct analysis a;
	char path[4096];
	FILE *out;
	int err;

	err = analysis_build(r, &a, 1);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", r->out_dir, name);
	out = gp_file__fopen_output(path);
	if (!out) {
		analysis_release(&a);
		return -EIO;
	}
	write_text(r, &a, out);
	err = ferror(out) ? -EIO : 0;
	if (fclose(out) && !err)
		err = -EIO;
	analysis_release(&a);
	return err;
}

int analysis__add_json(struct report_state *r, cJSON *root)
{
	struct analysis a;
	cJSON *arr, *procs, *e;
	struct an_proc p;
	size_t i;
	int err = analysis_build(r, &a, 0);

	if (err)
		return err;
	arr = cJSON_AddArrayToObject(root, "threads");
	for (i = 0; arr && i < a.nr_t; i++) {
		const struct an_thread *t = &a.t[i];

		e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(arr, e)) {
			cJSON_Delete(e);
			err = -ENOMEM;
			break;
		}
		cJSON_AddNumberToObject(e, "pid", t->pid);
		cJSON_AddNumberToObject(e, "tid", t->tid);
		cJSON_AddStringToObject(e, "name", thread_name(r, t->pid, t->tid));
		cJSON_AddNumberToObject(e, "on_cpu_ns", (double)t->on);
		cJSON_AddNumberToObject(e, "off_cpu_ns", (double)t->off);
		cJSON_AddNumberToObject(e, "lifetime_ns", (double)t->lifetime);
		cJSON_AddNumberToObject(e, "coverage", ratio(t->on + t->off, t->lifetime));
		cJSON_AddStringToObject(e, "class", cls_names[t->cls]);
		cJSON_AddStringToObject(e, "top_reason", t->top_fn ? t->top_fn : "");
		cJSON_AddStringToObject(e, "top_reason_category",
					t->top_fn ? cat_names[t->top_cat] : "");
	}
	if (!arr)
		err = -ENOMEM;
	procs = cJSON_GetObjectItemCaseSensitive(root, "processes");
	for (i = 0; !err && next_proc(&a, &i, &p);) {
		cJSON_ArrayForEach(e, procs)
		{
			cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");

			if (cJSON_IsNumber(pid) && (uint32_t)pid->valuedouble == p.pid &&
			    !cJSON_GetObjectItemCaseSensitive(e, "coverage")) {
				const struct tl_proc *tp = timeline__proc(r->tl, p.pid);

				cJSON_AddNumberToObject(e, "threads", (double)p.threads);
				cJSON_AddNumberToObject(e, "coverage",
							ratio(p.on + p.off, p.lifetime));
				/* exited while recorded: when, from the recording's start */
				if (tp && tp->exited && tp->exit_ts >= r->start_ns)
					cJSON_AddNumberToObject(e, "exit_offset_ns",
								(double)(tp->exit_ts - r->start_ns));
			}
		}
	}
	analysis_release(&a);
	return err;
}

void analysis__write_brief(struct report_state *r, FILE *out)
{
	struct analysis a;
	size_t k, n = 0;

	if (analysis_build(r, &a, 0))
		return;
	if (a.nr_t) {
		fprintf(out, "threads:");
		for (k = 0; k < CLS_COUNT; k++)
			if (a.cls_count[k])
				fprintf(out, "%s %zu %s", n++ ? "," : "", a.cls_count[k],
					cls_names[k]);
		fprintf(out, " (analysis.txt)\n");
	}
	/* an attached process's exit ended the recording: say so; a launched one's is expected */
	if (r->attached)
		write_exits(r, out);
	analysis_release(&a);
}
