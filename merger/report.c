// SPDX-License-Identifier: Apache-2.0
/*
 * report.c - `gpuperf report`: load, join, symbolize, aggregate, write.
 *
 * Frames of every view are root first ("proc" is the process's name, then
 * "[pid]" when other processes share the name):
 *   on-CPU   proc;user frames;kernel frames_[k]
 *   off-CPU  proc;user frames;[off-cpu];kernel frames at the switch
 *   GPU      proc;launch stack;API call;[gpu] kernel | [memcpy HtoD] | [memset]
 *            proc;[no launch stack];API call;[gpu] kernel   (joined to an API call only)
 *            proc;[unknown API];[gpu] kernel                 (not joined at all)
 * The [off-cpu] marker sits between the user and the kernel part of a
 * blocked stack, so the user frames of on- and off-CPU time merge in the
 * combined graph and only the blocked part is drawn in the off-CPU palette.
 */
#include "report.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "chrome_trace.h"
#include "perfetto_trace.h"
#include "flamegraph_svg.h"
#include "folded.h"
#include "gp_file.h"
#include "gp_record.h"
#include "gp_util.h"
#include "pprof_report.h"
#include "report_priv.h"

static void set_err(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(struct report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->errbuf || !r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->errbuf, r->errlen, fmt, ap);
	va_end(ap);
}

int report__warn(struct report *r, const char *fmt, ...)
{
	char **w = realloc(r->warnings, (r->nr_warnings + 1) * sizeof(*w));
	va_list ap;
	int n;

	if (!w)
		return -ENOMEM;
	r->warnings = w;
	va_start(ap, fmt);
	n = vasprintf(&w[r->nr_warnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->nr_warnings++;
	return 0;
}

int report__parse_formats(const char *list, unsigned *formats)
{
	static const struct {
		const char *name;
		unsigned bit;
	} words[] = {
		{ "folded", REPORT_FOLDED },	 { "svg", REPORT_SVG },	  { "chrome", REPORT_CHROME },
		{ "perfetto", REPORT_PERFETTO }, { "trace", REPORT_TRACE }, { "pprof", REPORT_PPROF },
		{ "json", REPORT_JSON },	 { "all", REPORT_ALL },
	};
	unsigned out = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].name) == len && !strncmp(words[i].name, p, len))
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return -EINVAL;
		out |= words[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!out)
		return -EINVAL;
	*formats = out;
	return 0;
}

static int frame_buf__push_src(struct frame_buf *fb, const char *name, enum gp_frame_kind kind,
			       const struct sym_frame *src)
{
	if (fb->n == fb->cap) {
		size_t ncap = fb->cap ? fb->cap * 2 : 64;
		struct stack_frame *f = realloc(fb->f, ncap * sizeof(*f));
		const struct sym_frame **sf;

		if (!f)
			return -ENOMEM;
		fb->f = f;
		sf = realloc(fb->src, ncap * sizeof(*sf));
		if (!sf)
			return -ENOMEM;
		fb->src = sf;
		fb->cap = ncap;
	}
	fb->f[fb->n].name = name;
	fb->f[fb->n].kind = kind;
	fb->src[fb->n] = src;
	fb->n++;
	return 0;
}

int frame_buf__push(struct frame_buf *fb, const char *name, enum gp_frame_kind kind)
{
	return frame_buf__push_src(fb, name, kind, NULL);
}

const char *report__api_name(struct report *r, const struct tl_api *a)
{
	const char *n = a ? timeline__str(r->tl, timeline__api_name(r->tl, a)) : "";

	return *n ? n : "[unknown API]";
}

const char *report__gpu_frame(struct report *r, const struct tl_gpu *g, char *buf, size_t size)
{
	switch (g->kind) {
	case TL_GPU_KERNEL:
		snprintf(buf, size, "[gpu] %s",
			 symbolizer__demangle(r->sym, timeline__str(r->tl, g->name)));
		return buf;
	case TL_GPU_MEMCPY:
		snprintf(buf, size, "[memcpy %s]", chrome_trace__memcpy_kind(g->copy_kind));
		return buf;
	case TL_GPU_MEMSET:
		return "[memset]";
	default:
		return "[sync]";
	}
}

enum gp_frame_kind report__gpu_kind(const struct tl_gpu *g)
{
	switch (g->kind) {
	case TL_GPU_KERNEL:
		return GP_FRAME_GPU_KERNEL;
	case TL_GPU_MEMCPY:
		return GP_FRAME_GPU_MEMCPY;
	case TL_GPU_MEMSET:
		return GP_FRAME_GPU_MEMSET;
	default:
		return GP_FRAME_GPU_SYNC;
	}
}

/* Root frames: comm; a "[pid]" frame under it when another process has the same comm. */
static int name_processes(struct report *r)
{
	struct timeline *tl = r->tl;
	size_t i, j;

	r->proc_root = calloc(tl->nr_procs ? tl->nr_procs : 1, sizeof(char *));
	r->proc_pid = calloc(tl->nr_procs ? tl->nr_procs : 1, sizeof(char *));
	if (!r->proc_root || !r->proc_pid)
		return -ENOMEM;
	for (i = 0; i < tl->nr_procs; i++) {
		const char *comm = timeline__str(tl, tl->procs[i].comm);
		const char *exe = timeline__str(tl, tl->procs[i].exe);
		const char *base = strrchr(exe, '/');
		int dup = 0;
		char buf[4200];

		/* the kernel cuts comm to 15 bytes: "train_step_shar" is train_step_shared */
		base = base ? base + 1 : exe;
		if (strlen(comm) == 15 && !strncmp(base, comm, 15))
			comm = base;
		if (!*comm)
			comm = "[unknown process]";
		for (j = 0; j < tl->nr_procs && !dup; j++)
			dup = j != i && !strncmp(comm, timeline__str(tl, tl->procs[j].comm), 15);
		if (dup) {
			snprintf(buf, sizeof(buf), "[%u]", tl->procs[i].pid);
			r->proc_pid[i] = strdup(buf);
			if (!r->proc_pid[i])
				return -ENOMEM;
		}
		r->proc_root[i] = strdup(comm);
		if (!r->proc_root[i])
			return -ENOMEM;
	}
	return 0;
}

const char *report__proc_root(struct report *r, uint32_t pid)
{
	const struct tl_proc *p = timeline__proc(r->tl, pid);

	return p ? r->proc_root[p - r->tl->procs] : "[unknown process]";
}

static const char *proc_pid_frame(struct report *r, uint32_t pid)
{
	const struct tl_proc *p = timeline__proc(r->tl, pid);

	return p ? r->proc_pid[p - r->tl->procs] : NULL;
}

int report__push_proc(struct report *r, uint32_t pid, struct frame_buf *fb)
{
	const char *pf = proc_pid_frame(r, pid);
	int err = frame_buf__push(fb, report__proc_root(r, pid), GP_FRAME_CPU);

	return err || !pf ? err : frame_buf__push(fb, pf, GP_FRAME_CPU);
}

size_t report__proc_depth(struct report *r, uint32_t pid)
{
	return proc_pid_frame(r, pid) ? 2 : 1;
}

int report__stack_frames(struct report *r, uint32_t pid, const struct tl_stack *st,
			 int skip_user_leaf, enum gp_frame_kind kernel_kind, struct frame_buf *fb)
{
	const uint64_t *ips = timeline__frames(r->tl, st);
	size_t i, k, first = skip_user_leaf ? 1 : 0;

	/* user frames, outermost first; each address's inline chain likewise */
	for (i = st->nr_user; i-- > first;) {
		const struct sym_frame *sf;
		size_t n = symbolizer__user(r->sym, pid, ips[i], i > 0, &sf);

		for (k = n; k-- > 0;) {
			enum gp_frame_kind kind = sf[k].jit ? GP_FRAME_JIT
					       : sf[k].inlined ? GP_FRAME_INLINE
							       : GP_FRAME_CPU;

			if (frame_buf__push_src(fb, sf[k].name, kind, &sf[k]))
				return -ENOMEM;
		}
	}
	if (kernel_kind == GP_FRAME_KIND_COUNT)
		return 0;
	for (i = st->nr_kernel; i-- > 0;) {
		const struct sym_frame *sf = symbolizer__kernel(r->sym, ips[st->nr_user + i]);

		if (frame_buf__push(fb, sf->name, kernel_kind))
			return -ENOMEM;
	}
	return 0;
}

int report__sample_frames(struct report *r, const struct tl_sample *s, struct frame_buf *fb)
{
	int err = report__push_proc(r, s->pid, fb);

	return err ? err : report__stack_frames(r, s->pid, &s->stack, 0, GP_FRAME_KERNEL_CPU, fb);
}

int report__offcpu_frames(struct report *r, const struct tl_offcpu *o, struct frame_buf *fb)
{
	struct tl_stack user = o->stack, kern = o->stack;
	int err;

	user.nr_kernel = 0;
	kern.nr_user = 0;
	kern.off += o->stack.nr_user;
	err = report__push_proc(r, o->pid, fb);
	if (!err)
		err = report__stack_frames(r, o->pid, &user, 0, GP_FRAME_KIND_COUNT, fb);
	if (!err)
		err = frame_buf__push(fb, "[off-cpu]", GP_FRAME_OFFCPU);
	if (!err)
		err = report__stack_frames(r, o->pid, &kern, 0, GP_FRAME_OFFCPU, fb);
	return err;
}

void report__fmt_ns(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 10000000000ull)
		snprintf(buf, size, "%.1f s", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, size, "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, size, "%.2f us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A frame nvcc's <<<>>> or the runtime's C++ wrappers put above the user's launch. */
static int is_launch_machinery(const struct stack_frame *f, const struct sym_frame *src,
			       const char *kernel)
{
	const char *file = src && src->file ? src->file : "";
	size_t flen = strlen(file);

	if (starts_with(f->name, "__device_stub__") || starts_with(f->name, "__cudaLaunch") ||
	    starts_with(f->name, "cudaLaunchKernel<") || starts_with(f->name, "cudaLaunchCooperativeKernel<"))
		return 1;
	/* the kernel's host-side stub has the kernel's own name */
	if (kernel && !strcmp(f->name, kernel))
		return 1;
	/* nvcc's generated .stub.c and the toolkit's launch headers */
	return (flen > 7 && !strcmp(file + flen - 7, ".stub.c")) ||
	       (flen > 18 && !strcmp(file + flen - 18, "device_functions.h")) ||
	       (flen > 14 && !strcmp(file + flen - 14, "cuda_runtime.h"));
}

int report__launch_frames(struct report *r, uint32_t pid, const struct tl_stack *st,
			  const char *kernel, struct frame_buf *fb)
{
	size_t base = fb->n;

	if (report__stack_frames(r, pid, st, 1, GP_FRAME_KIND_COUNT, fb))
		return -ENOMEM;
	while (fb->n > base + 1 && is_launch_machinery(&fb->f[fb->n - 1], fb->src[fb->n - 1], kernel))
		fb->n--;
	return 0;
}

int report__gpu_frames(struct report *r, size_t i, struct frame_buf *fb)
{
	const struct tl_gpu *g = &r->tl->gpu[i];
	int64_t ai = timeline__gpu_api(r->tl, g);
	const struct tl_api *a = ai >= 0 ? &r->tl->api[ai] : NULL;
	const struct tl_stack *st = timeline__gpu_launch_stack(r->tl, g);

	if (report__push_proc(r, timeline__gpu_pid(r->tl, g), fb))
		return -ENOMEM;
	if (st) {
		const char *kernel = g->kind == TL_GPU_KERNEL
					     ? symbolizer__demangle(r->sym, timeline__str(r->tl, g->name))
					     : NULL;

		if (report__launch_frames(r, timeline__api_pid(r->tl, a), st, kernel, fb))
			return -ENOMEM;
	} else if (a) {
		if (frame_buf__push(fb, "[no launch stack]", GP_FRAME_SYNTHETIC))
			return -ENOMEM;
	}
	return frame_buf__push(fb, report__api_name(r, a), a ? GP_FRAME_CPU : GP_FRAME_SYNTHETIC);
}

/* Per-thread aggregations (--per-thread), found by (pid, tid). */
struct thread_views {
	struct thread_view {
		uint32_t pid, tid;
		struct stack_agg *agg;
	} *v;
	size_t n, cap;
};

static struct stack_agg *thread_agg(struct thread_views *tv, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = tv->n; i-- > 0;)
		if (tv->v[i].pid == pid && tv->v[i].tid == tid)
			return tv->v[i].agg;
	if (tv->n == tv->cap) {
		size_t ncap = tv->cap ? tv->cap * 2 : 16;
		struct thread_view *v = realloc(tv->v, ncap * sizeof(*v));

		if (!v)
			return NULL;
		tv->v = v;
		tv->cap = ncap;
	}
	tv->v[tv->n].pid = pid;
	tv->v[tv->n].tid = tid;
	tv->v[tv->n].agg = stack_agg__new();
	if (!tv->v[tv->n].agg)
		return NULL;
	return tv->v[tv->n++].agg;
}

/* Add fb to `view` and the combined profile (and the thread's view). */
static int add_both(struct report *r, struct thread_views *tv, enum report_view view, uint32_t pid,
		    uint32_t tid, uint64_t weight)
{
	int err;

	if (!weight)
		return 0;
	err = stack_agg__add(r->view[view], r->fb.f, r->fb.n, weight);
	if (!err)
		err = stack_agg__add(r->view[VIEW_PROFILE], r->fb.f, r->fb.n, weight);
	if (!err && r->opts->per_thread) {
		struct stack_agg *agg = thread_agg(tv, pid, tid);
		/* a thread's own graph needs no process root (nor "[pid]") */
		size_t d = report__proc_depth(r, pid);

		err = agg ? stack_agg__add(agg, r->fb.f + d, r->fb.n - d, weight) : -ENOMEM;
	}
	return err == -EOVERFLOW ? 0 : err;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/*
 * The timeline stores each distinct stack once (timeline.h), so two
 * non-empty stacks with the same frames have the same pool offset; the
 * user/kernel split is kept per record and compared too.
 */
static uint64_t hash_stack(const struct tl_stack *st, uint64_t h)
{
	h = mix(h, ((uint64_t)st->nr_user << 16) | st->nr_kernel);
	return st->nr_user + st->nr_kernel ? mix(h, st->off) : h;
}

static int same_stack(const struct tl_stack *a, const struct tl_stack *b)
{
	return a->nr_user == b->nr_user && a->nr_kernel == b->nr_kernel &&
	       (!(a->nr_user + a->nr_kernel) || a->off == b->off);
}

static uint32_t gpu_tid(const struct report *r, size_t i)
{
	int64_t ai = timeline__gpu_api(r->tl, &r->tl->gpu[i]);

	return ai >= 0 ? timeline__api_tid(r->tl, &r->tl->api[ai]) : 0;
}

static uint32_t gpu_frame_id(const struct tl_gpu *g)
{
	return g->kind == TL_GPU_KERNEL ? g->name : g->kind == TL_GPU_MEMCPY ? g->copy_kind : 0;
}

static int same_record(const struct report *r, enum report_view kind, size_t a, size_t b)
{
	const struct timeline *tl = r->tl;

	switch (kind) {
	case VIEW_CPU:
		return tl->samples[a].pid == tl->samples[b].pid &&
		       tl->samples[a].tid == tl->samples[b].tid &&
		       same_stack(&tl->samples[a].stack, &tl->samples[b].stack);
	default: /* GPU records are compared by their key (group_add_gpu()) */
		return tl->offcpu[a].pid == tl->offcpu[b].pid &&
		       tl->offcpu[a].tid == tl->offcpu[b].tid &&
		       same_stack(&tl->offcpu[a].stack, &tl->offcpu[b].stack);
	}
}

void report__groups_free(struct rec_groups *gs)
{
	free(gs->g);
	free(gs->slots);
	memset(gs, 0, sizeof(*gs));
}

static int groups_grow(struct rec_groups *gs)
{
	size_t n = gs->nslots ? gs->nslots * 2 : 1024, i, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < gs->n; i++) {
		for (j = gs->g[i].hash & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(gs->slots);
	gs->slots = slots;
	gs->nslots = n;
	return 0;
}

/* Open a new group for `rec` in the empty slot `j` the caller's probe stopped at. */
static int group_new(struct rec_groups *gs, size_t j, const struct rec_group *g)
{
	if (gs->n == gs->cap) {
		size_t ncap = gs->cap ? gs->cap * 2 : 1024;
		struct rec_group *ng = realloc(gs->g, ncap * sizeof(*ng));

		if (!ng)
			return -ENOMEM;
		gs->g = ng;
		gs->cap = ncap;
	}
	gs->g[gs->n] = *g;
	gs->slots[j] = (uint32_t)++gs->n;
	return 0;
}

int report__group_add(struct report *r, struct rec_groups *gs, enum report_view kind, size_t rec,
		      uint64_t weight)
{
	const struct tl_sample *sa = kind == VIEW_CPU ? &r->tl->samples[rec] : NULL;
	const struct tl_offcpu *o = sa ? NULL : &r->tl->offcpu[rec];
	uint64_t hash = sa ? hash_stack(&sa->stack, (uint64_t)sa->pid << 32 | sa->tid)
			   : hash_stack(&o->stack, (uint64_t)o->pid << 32 | o->tid);
	size_t j;

	hash = mix(hash, kind);
	if ((gs->n + 1) * 2 > gs->nslots && groups_grow(gs))
		return -ENOMEM;
	for (j = hash & (gs->nslots - 1); gs->slots[j]; j = (j + 1) & (gs->nslots - 1)) {
		struct rec_group *g = &gs->g[gs->slots[j] - 1];

		if (g->hash == hash && g->kind == kind && same_record(r, kind, g->rep, rec)) {
			g->weight += weight;
			g->count++;
			return 0;
		}
	}
	return group_new(gs, j, &(struct rec_group){ .hash = hash, .weight = weight, .count = 1,
						     .rep = (uint32_t)rec, .kind = kind });
}

/*
 * What makes two GPU records draw the same frames: process, launching thread,
 * API call, launch stack and GPU frame. The launch stacks of two processes
 * only match when their pids do. The timeline stores each distinct stack
 * once (timeline.h), so a stack is compared by its pool offset.
 */
static struct gpu_key gpu_key_of(const struct report *r, const struct tl_gpu *g)
{
	const struct timeline *tl = r->tl;
	int32_t ai = timeline__gpu_api(tl, g);
	uint64_t stack = UINT64_MAX, thread = (uint64_t)timeline__gpu_pid(tl, g) << 32;
	uint64_t what = (uint64_t)gpu_frame_id(g) << 32 | g->kind;

	if (ai >= 0) {
		const struct tl_api *a = &tl->api[ai];
		const struct tl_stack *st = timeline__api_launch_stack(tl, a);

		thread |= timeline__api_tid(tl, a);
		what |= ((uint64_t)a->name + 1) << 8;
		/* same_stack(): an empty stack matches any other empty one */
		if (st)
			stack = st->nr_user + st->nr_kernel ? (uint64_t)st->off << 32 |
								      (uint32_t)st->nr_user << 16 |
								      st->nr_kernel
							    : 0;
	}
	return (struct gpu_key){ .stack = stack, .thread = thread, .what = what };
}

static int same_gpu_key(const struct gpu_key *a, const struct gpu_key *b)
{
	return a->stack == b->stack && a->thread == b->thread && a->what == b->what;
}

/* report__group_add() for a GPU record, compared by its key, not the group's representative. */
static int group_add_gpu(struct report *r, size_t rec, const struct gpu_key *k, uint64_t weight)
{
	struct rec_groups *gs = &r->groups;
	/* independent multiplies, one mix: 10M records wait on this chain before their probe */
	uint64_t hash = gp_mix64(k->thread ^ k->stack * 0x9e3779b97f4a7c15ull ^
				 k->what * 0xc2b2ae3d27d4eb4full ^ VIEW_GPU);
	size_t j;

	if ((gs->n + 1) * 2 > gs->nslots && groups_grow(gs))
		return -ENOMEM;
	for (j = hash & (gs->nslots - 1); gs->slots[j]; j = (j + 1) & (gs->nslots - 1)) {
		struct rec_group *g = &gs->g[gs->slots[j] - 1];

		if (g->hash == hash && g->kind == VIEW_GPU && same_gpu_key(&g->key, k)) {
			g->weight += weight;
			g->count++;
			return 0;
		}
	}
	return group_new(gs, j, &(struct rec_group){ .hash = hash, .weight = weight, .count = 1,
						     .rep = (uint32_t)rec, .kind = VIEW_GPU,
						     .key = *k });
}

bool report__tool_thread(struct report *r, uint32_t pid, uint32_t tid)
{
	const struct tl_thread *t;

	if (r->tool_last.valid && r->tool_last.pid == pid && r->tool_last.tid == tid)
		return r->tool_last.tool;
	t = timeline__thread(r->tl, pid, tid);
	r->tool_last.pid = pid;
	r->tool_last.tid = tid;
	r->tool_last.valid = true;
	r->tool_last.tool = t && !strcmp(timeline__str(r->tl, t->name), "gpuperf-writer");
	return r->tool_last.tool;
}

/*
 * Group every sample, off-CPU span and GPU record by the frames it will
 * draw; the injection library's writer thread is the tool's, left out.
 */
static int group_records(struct report *r)
{
	struct timeline *tl = r->tl;
	size_t i;
	int err = 0;

	for (i = 0; i < tl->nr_samples && !err; i++) {
		const struct tl_sample *s = &tl->samples[i];

		if (report__tool_thread(r, s->pid, s->tid))
			continue;
		err = report__group_add(r, &r->groups, VIEW_CPU, i, s->weight);
	}
	for (i = 0; i < tl->nr_offcpu && !err; i++) {
		const struct tl_offcpu *o = &tl->offcpu[i];

		if (report__tool_thread(r, o->pid, o->tid))
			continue;
		err = report__group_add(r, &r->groups, VIEW_OFFCPU, i,
					o->end > o->start ? o->end - o->start : 0);
	}
	for (i = 0; i < tl->nr_gpu && !err; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		struct gpu_key k;

		if (g->kind == TL_GPU_SYNC)
			continue; /* waiting, not device work: in the timeline and off-CPU */
		k = gpu_key_of(r, g);
		err = group_add_gpu(r, i, &k, timeline__dur(tl, g->dur));
	}
	return err;
}

static int build_views(struct report *r, struct thread_views *tv)
{
	struct timeline *tl = r->tl;
	char gbuf[GP_STR_MAX_LEN + 32];
	size_t k;
	int err = group_records(r);

	for (k = 0; k < r->groups.n && !err; k++) {
		const struct rec_group *grp = &r->groups.g[k];
		size_t i = grp->rep;

		r->fb.n = 0;
		if (grp->kind == VIEW_CPU) {
			const struct tl_sample *s = &tl->samples[i];

			err = report__sample_frames(r, s, &r->fb);
			if (!err)
				err = add_both(r, tv, VIEW_CPU, s->pid, s->tid, grp->weight);
		} else if (grp->kind == VIEW_OFFCPU) {
			const struct tl_offcpu *o = &tl->offcpu[i];

			err = report__offcpu_frames(r, o, &r->fb);
			if (!err)
				err = add_both(r, tv, VIEW_OFFCPU, o->pid, o->tid, grp->weight);
		} else {
			const struct tl_gpu *g = &tl->gpu[i];

			err = report__gpu_frames(r, i, &r->fb);
			if (!err)
				err = frame_buf__push(&r->fb, report__gpu_frame(r, g, gbuf, sizeof(gbuf)),
						      report__gpu_kind(g));
			if (!err)
				err = add_both(r, tv, VIEW_GPU, timeline__gpu_pid(tl, g), gpu_tid(r, i),
					       grp->weight);
		}
	}
	/* blocks under the minimum block time: summed per thread by the agent, no stack */
	for (k = 0; k < tl->nr_offcpu_short && !err; k++) {
		const struct tl_offcpu_short *a = &tl->offcpu_short[k];

		if (report__tool_thread(r, a->pid, a->tid))
			continue;
		r->fb.n = 0;
		err = report__push_proc(r, a->pid, &r->fb);
		if (!err)
			err = frame_buf__push(&r->fb, "[off-cpu]", GP_FRAME_OFFCPU);
		if (!err)
			err = frame_buf__push(&r->fb, "[short blocks]", GP_FRAME_OFFCPU);
		if (!err)
			err = add_both(r, tv, VIEW_OFFCPU, a->pid, a->tid, a->total_ns);
	}
	return err;
}

/* Register every recorded mapping, fork parent and JIT map with the symbolizer. */
static int setup_symbols(struct report *r)
{
	struct timeline *tl = r->tl;
	struct symbolizer_opts so = { .debuginfo_path = r->opts->debuginfo_path };
	char path[4096];
	struct dirent *de;
	size_t i, bad = 0;
	DIR *d;
	int err;

	r->sym = symbolizer__new(&so);
	if (!r->sym)
		return -ENOMEM;
	for (i = 0; i < tl->nr_modules; i++) {
		const struct tl_module *m = &tl->modules[i];

		err = symbolizer__add_module(r->sym, m->pid, timeline__str(tl, m->path), m->start,
					     m->end, m->pgoff, m->build_id, m->build_id_size);
		/* A damaged record (an empty range) is skipped, as the reading rules say. */
		if (err == -EINVAL)
			bad++;
		else if (err)
			return err;
	}
	if (bad && report__warn(r, "%zu module record%s with an empty address range skipped: "
			       "frames in them stay unnamed", bad, bad == 1 ? "" : "s"))
		return -ENOMEM;
	for (i = 0; i < tl->nr_procs; i++)
		if (tl->procs[i].ppid && tl->procs[i].forked)
			symbolizer__set_parent(r->sym, tl->procs[i].pid, tl->procs[i].ppid);
	snprintf(path, sizeof(path), "%s/kallsyms", r->opts->dir);
	symbolizer__load_kallsyms(r->sym, path); /* absent: kernel frames stay addresses */
	d = opendir(r->opts->dir);
	while (d && (de = readdir(d))) {
		unsigned pid;

		if (fnmatch("perf-*.map", de->d_name, 0) || sscanf(de->d_name, "perf-%u.map", &pid) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->opts->dir, de->d_name);
		symbolizer__load_perf_map(r->sym, pid, path);
	}
	if (d)
		closedir(d);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Traces of two recordings put in one directory (a cpu.trace copied beside
 * another run's GPU traces) join nothing, and the report would only say
 * that they are one. A process of the GPU traces is foreign to the CPU trace
 * when the CPU trace has no record of it (no sample or off-CPU span) and either no GPU process appears in the CPU trace at all or its
 * API calls lie outside the CPU trace's time: then one warning says so.
 * 0 or -ENOMEM.
 */
static int check_one_recording(struct report *r)
{
	const struct timeline *tl = r->tl;
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
	err = report__warn(r, "cpu.trace and the GPU trace%s of process%s %s%s do not belong "
			      "together (%s): traces of two recordings in one directory?",
			   nf == 1 ? "" : "s", nf == 1 ? "" : "es", list, nf > 3 ? ", ..." : "",
			   any_outside ? "no record of the process in cpu.trace, and their times "
			   "do not overlap" : "no process in common");
out:
	free(pids);
	free(first);
	free(last);
	free(foreign);
	return err;
}

/* record.json (written by `gpuperf record`): the sampling frequency, the command line, -p/-t. */
static void read_record_json(struct report *r)
{
	char path[4096];
	FILE *f;
	char *text = NULL;
	long len;
	cJSON *root, *opt, *cl, *start, *end;

	snprintf(path, sizeof(path), "%s/record.json", r->opts->dir);
	f = fopen(path, "rb");
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (1 << 24) &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)) &&
	    fread(text, 1, (size_t)len, f) == (size_t)len)
		text[len] = '\0';
	else {
		free(text);
		text = NULL;
	}
	fclose(f);
	if (!text)
		return;
	root = cJSON_Parse(text);
	free(text);
	if (!root)
		return;
	opt = cJSON_GetObjectItemCaseSensitive(root, "options");
	if (opt) {
		cJSON *hz = cJSON_GetObjectItemCaseSensitive(opt, "freq_hz");

		if (cJSON_IsNumber(hz) && hz->valuedouble > 0 && hz->valuedouble < 1e6)
			r->freq_hz = (uint32_t)hz->valuedouble;
	}
	cl = cJSON_GetObjectItemCaseSensitive(root, "command_line");
	if (cJSON_IsArray(cl))
		r->command_line_json = cJSON_PrintUnformatted(cl);
	r->attached = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "attached"));
	/*
	 * The window the recorder was recording: the first record may come long
	 * after its start (a program's first sample) or long before it (a
	 * span that began before the recorder attached).
	 */
	start = cJSON_GetObjectItemCaseSensitive(root, "start_monotonic_ns");
	end = cJSON_GetObjectItemCaseSensitive(root, "end_monotonic_ns");
	if (cJSON_IsNumber(start) && cJSON_IsNumber(end) && start->valuedouble > 0 &&
	    end->valuedouble > start->valuedouble && end->valuedouble < 0x1p63) {
		r->start_ns = (uint64_t)start->valuedouble;
		r->end_ns = (uint64_t)end->valuedouble;
	}
	cJSON_Delete(root);
}

static int open_out(struct report *r, const char *name, FILE **out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", r->opts->out_dir, name);
	*out = gp_file__fopen_output(path);
	if (!*out) {
		set_err(r, "cannot write '%s': %s", path, gp_file__strerror(-errno));
		return -EIO;
	}
	return 0;
}

static int close_out(struct report *r, const char *name, FILE *out, int err)
{
	if (fclose(out) && !err)
		err = -EIO;
	if (err == -EIO)
		set_err(r, "cannot write '%s/%s': %s", r->opts->out_dir, name, strerror(errno));
	return err;
}

static int write_folded(struct report *r, struct stack_agg *agg, const char *name)
{
	FILE *out;
	int err = open_out(r, name, &out);

	if (err)
		return err;
	err = folded__write(agg, out, FOLDED_ANNOTATE);
	return close_out(r, name, out, err);
}

static int write_svg(struct report *r, struct stack_agg *agg, const char *name, const char *title,
		     const char *subtitle)
{
	struct flamegraph_opts fo = { .title = title, .subtitle = subtitle };
	FILE *out;
	int err = open_out(r, name, &out);

	if (err)
		return err;
	err = flamegraph__write_svg(agg, &fo, out);
	return close_out(r, name, out, err);
}

/* A file-name-safe version of a thread's comm. */
static void safe_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				 c == '-' || c == '_' || c == '.'
			 ? (char)c
			 : '_';
	}
	dst[i] = '\0';
	if (!i)
		snprintf(dst, size, "thread");
}

static int write_thread_views(struct report *r, struct thread_views *tv, struct report_result *res)
{
	size_t i;
	int err = 0;

	for (i = 0; i < tv->n && !err; i++) {
		const struct tl_thread *t = timeline__thread(r->tl, tv->v[i].pid, tv->v[i].tid);
		const struct tl_proc *p = timeline__proc(r->tl, tv->v[i].pid);
		const char *comm = t ? timeline__str(r->tl, t->name) : "";
		char name[64], file[128], title[160];

		if (!*comm && p)
			comm = timeline__str(r->tl, p->comm);
		safe_name(name, sizeof(name), comm);
		snprintf(title, sizeof(title), "Thread %u (%s) of process %u", tv->v[i].tid,
			 *comm ? comm : "?", tv->v[i].pid);
		if (r->opts->formats & REPORT_FOLDED) {
			snprintf(file, sizeof(file), "thread-%u-%s.folded", tv->v[i].tid, name);
			err = write_folded(r, tv->v[i].agg, file);
			res->files_written += !err;
		}
		if (!err && (r->opts->formats & REPORT_SVG)) {
			snprintf(file, sizeof(file), "thread-%u-%s.svg", tv->v[i].tid, name);
			err = write_svg(r, tv->v[i].agg, file, title, "on-CPU, off-CPU and GPU time");
			res->files_written += !err;
		}
	}
	return err;
}

/* Names for the Chrome trace, from the symbolizer and the process records. */
static const char *ct_stack_leaf(void *ctx, uint32_t pid, const struct tl_stack *st)
{
	struct report *r = ctx;
	const uint64_t *ips = timeline__frames(r->tl, st);
	const struct sym_frame *sf;

	if (st->nr_user) {
		symbolizer__user(r->sym, pid, ips[0], false, &sf);
		return sf[0].name;
	}
	if (st->nr_kernel)
		return symbolizer__kernel(r->sym, ips[0])->name;
	return NULL;
}

/* A sample's frames as cpu.folded has them (r->fb is free once the views are built). */
static long ct_sample_frames(void *ctx, const struct tl_sample *s, const struct stack_frame **frames)
{
	struct report *r = ctx;

	r->fb.n = 0;
	if (report__sample_frames(r, s, &r->fb))
		return -1;
	*frames = r->fb.f;
	return (long)r->fb.n;
}

static const char *ct_kernel_name(void *ctx, const char *mangled)
{
	return symbolizer__demangle(((struct report *)ctx)->sym, mangled);
}

static const char *ct_process_name(void *ctx, uint32_t pid)
{
	struct report *r = ctx;
	const struct tl_proc *p = timeline__proc(r->tl, pid);

	return p ? r->proc_root[p - r->tl->procs] : NULL;
}

static const char *ct_thread_name(void *ctx, uint32_t pid, uint32_t tid)
{
	struct report *r = ctx;
	const struct tl_thread *t = timeline__thread(r->tl, pid, tid);

	return t && t->name ? timeline__str(r->tl, t->name) : NULL;
}

static const char *ct_device_name(void *ctx, uint32_t device)
{
	struct report *r = ctx;
	const struct tl_device *d = timeline__device(r->tl, device);

	return d && d->name ? timeline__str(r->tl, d->name) : NULL;
}

/* Remove out_dir/name if it is there (a stale output of another kind). */
static int remove_output(struct report *r, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", r->opts->out_dir, name);
	if (unlink(path) && errno != ENOENT) {
		set_err(r, "cannot remove '%s': %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/*
 * trace.json.gz: chrome_trace__write() into out_dir/name, opened with
 * gzopen() mode; plain trace.json (mode NULL) and trace.pftrace:
 * chrome_trace__write_path() and perfetto_trace__write(), which make the
 * file themselves, written around the page cache (bulk_out.h).
 */
static int write_timeline(struct report *r, const char *name, const char *mode, bool perfetto)
{
	struct chrome_trace_names names = {
		.ctx = r,
		.stack_leaf = ct_stack_leaf,
		.kernel_name = ct_kernel_name,
		.process_name = ct_process_name,
		.thread_name = ct_thread_name,
		.device_name = ct_device_name,
		.sample_frames = ct_sample_frames,
	};
	char path[4096];
	gzFile out;
	int err, cerr, fd;

	snprintf(path, sizeof(path), "%s/%s", r->opts->out_dir, name);
	if (perfetto || !mode) {
		err = perfetto ? perfetto_trace__write(r->tl, &r->corr, &names, path)
			       : chrome_trace__write_path(r->tl, &r->corr, &names, path);
		if (err && err != -ENOMEM && err != -EINVAL)
			set_err(r, "cannot write '%s': %s", path, strerror(-err));
		return err && err != -ENOMEM && err != -EINVAL ? -EIO : err;
	}
	fd = gp_file__output(AT_FDCWD, path);
	out = fd >= 0 ? gzdopen(fd, mode) : NULL;
	if (!out) {
		if (fd >= 0)
			close(fd);
		set_err(r, "cannot write '%s': %s", path,
			fd < 0 ? gp_file__strerror(fd) : strerror(ENOMEM));
		return -EIO;
	}
	/*
	 * zlib's 8 KiB buffer makes a write() per 8 KiB of compressed output; a
	 * larger one must stay below the writers' 1 MiB pieces, which zlib then
	 * takes without copying them into its buffer first.
	 */
	gzbuffer(out, 128u << 10);
	err = chrome_trace__write(r->tl, &r->corr, &names, out);
	cerr = gzclose(out);
	if (!err && cerr != Z_OK)
		err = -EIO;
	if (err == -EIO)
		set_err(r, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
	return err;
}

/*
 * The timelines asked for. chrome: trace.json, or trace.json.gz
 * (report_opts.gzip): automatically when the plain file would be past what
 * a browser opens (REPORT_GZIP_AUTO_BYTES); the other name is removed, so a
 * directory never holds a stale one. perfetto: trace.pftrace. trace (in
 * all): trace.json as chrome writes it, except that where chrome would
 * gzip it for its size, trace.pftrace instead, and the JSON names go.
 */
static int write_timelines(struct report *r, struct report_result *res)
{
	unsigned fmt = r->opts->formats;
	bool json = fmt & REPORT_CHROME, pf = fmt & REPORT_PERFETTO, big, gz;
	int err = 0;

	if (!(fmt & (REPORT_CHROME | REPORT_PERFETTO | REPORT_TRACE)))
		return 0;
	big = chrome_trace__estimate_size(r->tl, REPORT_GZIP_AUTO_BYTES) > REPORT_GZIP_AUTO_BYTES;
	if ((fmt & REPORT_TRACE) && !json) {
		if (r->opts->gzip == REPORT_GZIP_AUTO && big) {
			res->trace_by_size = pf = true;
			err = remove_output(r, "trace.json");
			if (!err)
				err = remove_output(r, "trace.json.gz");
		} else {
			json = true;
			if (!pf)
				err = remove_output(r, "trace.pftrace");
		}
	}
	if (!err && json) {
		gz = r->opts->gzip == REPORT_GZIP_ALWAYS || (r->opts->gzip == REPORT_GZIP_AUTO && big);
		err = remove_output(r, gz ? "trace.json" : "trace.json.gz");
		/* asked for: a smaller file at the default level; by size: the fastest level */
		if (!err)
			err = write_timeline(r, gz ? "trace.json.gz" : "trace.json",
					     !gz ? NULL : r->opts->gzip == REPORT_GZIP_ALWAYS ? "wb6" : "wb1",
					     false);
		res->trace_gzipped = gz && !err;
		res->trace_json = !err;
		res->files_written += !err;
	}
	if (!err && pf) {
		err = write_timeline(r, "trace.pftrace", NULL, true);
		res->trace_perfetto = !err;
		res->files_written += !err;
	}
	return err;
}

static int write_outputs(struct report *r, struct report_result *res)
{
	static const struct {
		enum report_view view;
		const char *folded, *svg, *title;
	} files[] = {
		{ VIEW_CPU, "cpu.folded", "cpu.svg", "On-CPU time" },
		{ VIEW_OFFCPU, "offcpu.folded", "offcpu.svg", "Off-CPU time" },
		{ VIEW_GPU, "gpu.folded", "gpu.svg", "GPU time by launching CPU stack" },
		{ VIEW_IDLE, "gpu_idle.folded", NULL, NULL },
		{ VIEW_PROFILE, "profile.folded", "profile.svg", "gpuperf: CPU and GPU time" },
	};
	unsigned fmt = r->opts->formats;
	char subtitle[256];
	size_t i;
	int err = 0;

	snprintf(subtitle, sizeof(subtitle),
		 "on-CPU, off-CPU and GPU time in ns; GPU work sits on the stack that launched it");
	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !err; i++) {
		struct stack_agg *agg = r->view[files[i].view];

		/*
		 * A view without data is not written: an empty folded file is
		 * one flamegraph.pl refuses ("No stack counts found", exit 2).
		 */
		if ((fmt & REPORT_FOLDED) && stack_agg__total(agg)) {
			err = write_folded(r, agg, files[i].folded);
			res->files_written += !err;
		}
		/* profile.svg always (it says when it is empty); the others when they have data */
		if (!err && (fmt & REPORT_SVG) && files[i].svg &&
		    (files[i].view == VIEW_PROFILE || stack_agg__total(agg))) {
			err = write_svg(r, agg, files[i].svg, files[i].title,
					files[i].view == VIEW_PROFILE ? subtitle : NULL);
			res->files_written += !err;
		}
	}
	if (!err)
		err = write_timelines(r, res);
	if (!err && (fmt & REPORT_PPROF)) {
		struct pprof_opts po = {
			.time_nanos = r->start_realtime_ns,
			.duration_nanos = r->duration_ns,
			.period = r->freq_hz ? 1000000000ull / r->freq_hz : 0,
		};
		char path[4096];

		snprintf(path, sizeof(path), "%s/profile.pb.gz", r->opts->out_dir);
		err = pprof_report__write(r, path, &po);
		if (err)
			set_err(r, "cannot write '%s': %s", path, strerror(-err));
		err = err ? -EIO : 0;
		res->files_written += !err;
	}
	if (!err && (fmt & REPORT_JSON)) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/summary.json", r->opts->out_dir);
		err = summary__write_json(r, path);
		if (err)
			set_err(r, "cannot write '%s': %s", path, strerror(-err));
		res->files_written += !err;
	}
	if (!err && (fmt & REPORT_JSON)) {
		err = analysis__write_text(r, "analysis.txt");
		if (err)
			set_err(r, "cannot write '%s/analysis.txt': %s", r->opts->out_dir, strerror(-err));
		res->files_written += !err;
	}
	return err;
}

static void report_release(struct report *r)
{
	size_t i;

	for (i = 0; i < VIEW_COUNT; i++)
		stack_agg__free(r->view[i]);
	if (r->proc_root && r->tl)
		for (i = 0; i < r->tl->nr_procs; i++)
			free(r->proc_root[i]);
	if (r->proc_pid && r->tl)
		for (i = 0; i < r->tl->nr_procs; i++)
			free(r->proc_pid[i]);
	free(r->proc_root);
	free(r->proc_pid);
	free(r->fb.f);
	free(r->fb.src);
	report__groups_free(&r->groups);
	summary__free_stats(r);
	free(r->command_line_json);
	for (i = 0; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	symbolizer__free(r->sym);
	correlate__release(&r->corr);
	timeline__free(r->tl);
}

int report__run(const struct report_opts *opts, struct report_result *res, char *errbuf,
		size_t errlen)
{
	struct report_opts o = *opts;
	struct report r = { .opts = &o, .errbuf = errbuf, .errlen = errlen };
	struct thread_views tv = { 0 };
	struct report_result dummy;
	const char *why = NULL;
	struct stat st;
	size_t i;
	int err;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (!o.out_dir)
		o.out_dir = o.dir;
	if (!o.formats)
		o.formats = REPORT_ALL;
	if (!o.top)
		o.top = 10;
	if (stat(o.dir, &st) || !S_ISDIR(st.st_mode)) {
		set_err(&r, "'%s' is not a directory: give the output directory of 'gpuperf record'",
			o.dir);
		return -ENOENT;
	}
	/* Before any work: an output directory that cannot be written fails now, not at the end. */
	if (o.out_dir != o.dir && mkdir(o.out_dir, 0777) && errno != EEXIST) {
		err = -errno;
		set_err(&r, "cannot create the output directory '%s': %s", o.out_dir, strerror(-err));
		return err;
	}
	if (stat(o.out_dir, &st) || !S_ISDIR(st.st_mode)) {
		set_err(&r, "'%s' is not a directory: give a directory for the outputs", o.out_dir);
		return -ENOTDIR;
	}
	if (access(o.out_dir, W_OK | X_OK)) {
		err = -errno;
		set_err(&r, "cannot write into '%s': %s%s", o.out_dir, strerror(-err),
			o.out_dir == o.dir ? "; write the outputs elsewhere with -o DIR" : "");
		return err;
	}
	r.tl = timeline__new();
	if (!r.tl)
		return -ENOMEM;
	err = timeline__load_dir(r.tl, o.dir, &why);
	if (err) {
		set_err(&r, "%s", why ? why : strerror(-err));
		goto out;
	}
	if (!r.tl->nr_files) {
		set_err(&r, "no readable trace in '%s': %s", o.dir,
			timeline__nr_warnings(r.tl) ? timeline__warning(r.tl, 0) : "?");
		err = -ENOENT;
		goto out;
	}
	timeline__finish(r.tl);
	err = correlate__run(r.tl, &r.corr);
	if (!err)
		err = check_one_recording(&r);
	if (err)
		goto out;
	read_record_json(&r);
	if (!r.end_ns) {
		/* no record.json (or none that says): the records' own extent */
		r.start_ns = r.tl->first_ts;
		r.end_ns = r.tl->last_ts > r.tl->first_ts ? r.tl->last_ts : r.tl->first_ts;
	}
	r.duration_ns = r.end_ns - r.start_ns;
	/* the wall-clock time of the start, from the file headers' pair of clocks */
	for (i = 0; i < r.tl->nr_files; i++) {
		const struct tl_file *f = &r.tl->files[i];

		if (f->start_realtime_ns && f->start_monotonic_ns && r.start_ns) {
			r.start_realtime_ns = f->start_realtime_ns + (r.start_ns - f->start_monotonic_ns);
			break;
		}
	}
	err = setup_symbols(&r);
	if (!err)
		err = name_processes(&r);
	for (i = 0; i < VIEW_COUNT && !err; i++) {
		r.view[i] = stack_agg__new();
		if (!r.view[i])
			err = -ENOMEM;
	}
	/*
	 * Only what is written needs building: the timelines (-f chrome,perfetto)
	 * need neither the views nor the idle gaps; the text report needs both.
	 */
	if (!err && ((o.formats & (REPORT_FOLDED | REPORT_SVG | REPORT_PPROF | REPORT_JSON)) ||
		     o.text || o.per_thread))
		err = build_views(&r, &tv);
	if (!err && ((o.formats & REPORT_FOLDED) || o.text))
		err = gpu_idle__build(&r);
	if (!err)
		err = write_outputs(&r, res);
	if (!err && o.per_thread)
		err = write_thread_views(&r, &tv, res);
	if (!err && o.text)
		summary__write_text(&r, o.text);
	if (!err && o.warn)
		summary__write_warnings(&r, o.warn);
	res->gpu_records = r.corr.nr_gpu;
	res->gpu_with_stack = r.corr.gpu_with_stack;
	res->samples = r.tl->nr_samples;
	res->offcpu_spans = r.tl->nr_offcpu;
	res->warnings = timeline__nr_warnings(r.tl) + r.nr_warnings;
	if (err == -ENOMEM)
		set_err(&r, "out of memory");
out:
	for (i = 0; i < tv.n; i++)
		stack_agg__free(tv.v[i].agg);
	free(tv.v);
	report_release(&r);
	return err;
}
