// SPDX-License-Identifier: Apache-2.0
/* pprof_report.c - the report's groups of records as pprof samples with addresses, lines, labels. */
#include "pprof_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "report_state.h"
#include "symbolize.h"
#include "timeline.h"
#include "u64map.h"

/* A location's cache key: its first frame's symbolization (one per pid, address, kind). */
#define KEY_KERNEL 0xffu

struct pr {
	struct report_state *r;
	struct pprof *pp;
	struct frame_buf fb;
	uint64_t *locs; /* the sample's location ids, root first */
	size_t nr_locs, locs_cap;
	struct pprof_line *lines;
	size_t lines_cap;
	struct u64map loc_cache; /* key() -> location id */
	/* the last module's mapping: a stack's frames mostly stay in one */
	struct sym_module last_mod;
	uint64_t last_map;
	uint64_t map_self, map_gpu, map_kernel, map_jit, map_unknown;
	const char *gpu_system_name; /* the GPU frame's mangled kernel name, or NULL */
	char gbuf[GP_STR_MAX_LEN + 32];
};

static uint64_t made_up(struct pr *pr, uint64_t *id, const char *file, bool cover)
{
	if (!*id)
		*id = pprof__mapping(pr->pp, &(struct pprof_mapping){ .file = file, .cover = cover });
	return *id;
}

static int push_loc(struct pr *pr, uint64_t id)
{
	if (!id)
		return -ENOMEM; /* pprof__close() says which error */
	if (GP_ALLOC_GROW(pr->locs, pr->nr_locs + 1, pr->locs_cap))
		return -ENOMEM;
	pr->locs[pr->nr_locs++] = id;
	return 0;
}

static int reserve_lines(struct pr *pr, size_t n)
{
	return GP_ALLOC_GROW(pr->lines, n, pr->lines_cap);
}

/* The mapping of pid's module at `look` (the address the symbolizer looked up), or 0. */
static uint64_t module_map(struct pr *pr, uint32_t pid, uint64_t look)
{
	struct sym_module m;

	if (symbolizer__module(pr->r->sym, pid, look, &m))
		return 0;
	if (pr->last_map && m.path == pr->last_mod.path && m.start == pr->last_mod.start &&
	    m.end == pr->last_mod.end && m.pgoff == pr->last_mod.pgoff &&
	    m.build_id == pr->last_mod.build_id)
		return pr->last_map;
	pr->last_mod = m;
	pr->last_map = pprof__mapping(pr->pp, &(struct pprof_mapping){
		.start = m.start, .limit = m.end, .offset = m.pgoff, .file = m.path,
		.build_id = m.build_id, .build_id_size = m.build_id_size });
	return pr->last_map;
}

/*
 * The location of fb frames [k, k + n): the symbolization sf of user
 * address ip (outermost function first, as the views have it), with the
 * views' names and the symbolizer's files and lines, innermost first.
 */
static int user_loc(struct pr *pr, uint32_t pid, uint64_t ip, bool ret, size_t k, size_t n)
{
	const struct sym_frame *src = pr->fb.src[k];
	uint64_t key = (uint64_t)(uintptr_t)src | (uint64_t)n << 56, map;
	uint32_t id = u64map_get(&pr->loc_cache, key);
	size_t i;

	if (id)
		return push_loc(pr, id);
	if (reserve_lines(pr, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct sym_frame *sf = pr->fb.src[k + n - 1 - i];

		pr->lines[i] = (struct pprof_line){
			.name = pr->fb.f[k + n - 1 - i].name,
			.system_name = sf->system_name,
			.file = sf->file,
			.line = sf->line,
			.start_line = sf->start_line,
			.resolved = sf->resolved,
		};
	}
	map = module_map(pr, pid, ret && ip ? ip - 1 : ip);
	if (!map)
		map = src->jit ? made_up(pr, &pr->map_jit, "[jit]", true)
			       : made_up(pr, &pr->map_unknown, "[unknown]", true);
	id = (uint32_t)pprof__location(pr->pp, map, ip, pr->lines, n);
	if (id && u64map_put(&pr->loc_cache, key, id))
		return -ENOMEM;
	return push_loc(pr, id);
}

static int kernel_loc(struct pr *pr, const struct sym_frame *ksf, uint64_t ip, const char *name)
{
	uint64_t key = (uint64_t)(uintptr_t)ksf | (uint64_t)KEY_KERNEL << 56;
	uint32_t id = u64map_get(&pr->loc_cache, key);
	struct pprof_line l = { .name = name, .resolved = ksf->resolved };

	if (id)
		return push_loc(pr, id);
	id = (uint32_t)pprof__location(pr->pp, made_up(pr, &pr->map_kernel, "[kernel.kallsyms]", true),
				       ip, &l, 1);
	if (id && u64map_put(&pr->loc_cache, key, id))
		return -ENOMEM;
	return push_loc(pr, id);
}

static bool is_gpu(enum gp_frame_kind kind)
{
	return kind == GP_FRAME_GPU_KERNEL || kind == GP_FRAME_GPU_MEMCPY ||
	       kind == GP_FRAME_GPU_MEMSET || kind == GP_FRAME_GPU_SYNC;
}

/* A frame of gpuperf's own (process root, API call, marker) or of GPU work: address 0. */
static int marker_loc(struct pr *pr, const struct stack_frame *f)
{
	struct pprof_line l = { .name = f->name, .resolved = true };
	uint64_t map = is_gpu(f->kind) ? made_up(pr, &pr->map_gpu, "[gpu]", false)
				       : made_up(pr, &pr->map_self, "[gpuperf]", false);

	if (is_gpu(f->kind))
		l.system_name = pr->gpu_system_name;

	return push_loc(pr, pprof__location(pr->pp, map, 0, &l, 1));
}

/*
 * The locations of pr->fb's frames (root first), drawn from stack st of
 * pid (NULL: none; user addresses from index `lowest` up). The views'
 * frame builders keep, for each user frame, the symbolization it came
 * from (fb.src): the frames of one address are one array of the
 * symbolizer's, so a frame is matched to its address by that pointer, and
 * a kernel frame by the symbolizer's name for the address. What matches
 * nothing is a marker.
 */
static int locate(struct pr *pr, uint32_t pid, const struct tl_stack *st, size_t lowest)
{
	const struct frame_buf *fb = &pr->fb;
	const uint64_t *ips = st ? timeline__frames(pr->r->tl, st) : NULL;
	size_t u = st ? st->nr_user : 0, kk = st ? st->nr_kernel : 0, k = 0;
	int err = 0;

	pr->nr_locs = 0;
	while (k < fb->n && !err) {
		const struct sym_frame *src = fb->src[k];
		size_t j, n = 0;

		if (src) {
			const struct sym_frame *sf = NULL;
			bool found = false;

			/* the next user address (outermost first) whose frames hold src */
			for (j = u; !found && j > lowest;) {
				j--;
				n = symbolizer__user(pr->r->sym, pid, ips[j], j > 0, &sf);
				found = src >= sf && src < sf + n;
			}
			if (found) {
				size_t m = 1;

				/* the inlined callees after it, as far as the view kept them */
				while (k + m < fb->n && fb->src[k + m] >= sf && fb->src[k + m] < sf + n &&
				       fb->src[k + m] < fb->src[k + m - 1])
					m++;
				u = j;
				err = user_loc(pr, pid, ips[j], j > 0, k, m);
				k += m;
				continue;
			}
		} else if (kk && (fb->f[k].kind == GP_FRAME_KERNEL_CPU ||
				  fb->f[k].kind == GP_FRAME_OFFCPU)) {
			uint64_t ip = ips[st->nr_user + kk - 1];
			const struct sym_frame *ksf = symbolizer__kernel(pr->r->sym, ip);

			if (ksf->name == fb->f[k].name) {
				kk--;
				err = kernel_loc(pr, ksf, ip, fb->f[k].name);
				k++;
				continue;
			}
		}
		err = marker_loc(pr, &fb->f[k]);
		k++;
	}
	return err;
}

/* The process's name, as its root frame has it but without " [pid]". */
static const char *proc_name(struct report_state *r, uint32_t pid)
{
	const struct tl_proc *p = timeline__proc(r->tl, pid);
	const char *comm, *exe, *base;

	if (!p)
		return "[unknown process]";
	comm = timeline__str(r->tl, p->comm);
	exe = timeline__str(r->tl, p->exe);
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	/* the kernel cuts comm to 15 bytes */
	if (strlen(comm) == 15 && !strncmp(base, comm, 15))
		comm = base;
	return *comm ? comm : "[unknown process]";
}

/* The sample of the located frames (reversed: innermost first), with its labels. */
static int put_sample(struct pr *pr, size_t col, uint64_t weight, uint32_t pid, uint32_t tid,
		      const uint32_t *dev_stream)
{
	char dev[16], stream[16];
	const struct tl_thread *t = timeline__thread(pr->r->tl, pid, tid);
	const char *tname = t && t->name ? timeline__str(pr->r->tl, t->name) : "";
	struct pprof_label l[6] = {
		{ .key = "pid", .num = pid },
		{ .key = "process", .str = proc_name(pr->r, pid) },
	};
	size_t nl = 2, i;

	if (tid) /* GPU work of no known API call: no thread */
		l[nl++] = (struct pprof_label){ .key = "tid", .num = tid };
	if (*tname)
		l[nl++] = (struct pprof_label){ .key = "thread", .str = tname };
	/* strings: pprof drops a number label of 0 (device 0, the one most work runs on) */
	if (dev_stream) {
		snprintf(dev, sizeof(dev), "%u", dev_stream[0]);
		snprintf(stream, sizeof(stream), "%u", dev_stream[1]);
		l[nl++] = (struct pprof_label){ .key = "device", .str = dev };
		l[nl++] = (struct pprof_label){ .key = "stream", .str = stream };
	}
	for (i = 0; i < pr->nr_locs / 2; i++) {
		uint64_t x = pr->locs[i];

		pr->locs[i] = pr->locs[pr->nr_locs - 1 - i];
		pr->locs[pr->nr_locs - 1 - i] = x;
	}
	return pprof__sample(pr->pp, pr->locs, pr->nr_locs, col, weight, l, nl);
}

/*
 * GPU work grouped as the GPU view groups it (process, launching thread,
 * API call, launch stack, kernel or copy kind) and also by lane (device
 * and stream), for the labels: a group per distinct key, weights summed.
 */
struct gpu_group {
	uint64_t w[3];
	uint64_t weight;
	uint32_t rep;
};

struct gpu_groups {
	struct gpu_group *g;
	size_t n, cap;
	uint32_t *slots; /* group index + 1 */
	size_t nslots;
};

static int gpu_group_add(struct gpu_groups *gs, const uint64_t w[3], uint64_t weight, size_t rec)
{
	uint64_t h = gp_mix64(w[0] ^ w[1] * 0x9e3779b97f4a7c15ull ^ w[2] * 0xc2b2ae3d27d4eb4full);
	size_t j, i;

	if ((gs->n + 1) * 2 > gs->nslots) {
		size_t ns = gs->nslots ? 2 * gs->nslots : 1024;
		uint32_t *s = calloc(ns, sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (i = 0; i < gs->n; i++) {
			const struct gpu_group *g = &gs->g[i];
			uint64_t gh = gp_mix64(g->w[0] ^ g->w[1] * 0x9e3779b97f4a7c15ull ^
					       g->w[2] * 0xc2b2ae3d27d4eb4full);

			for (j = gh & (ns - 1); s[j]; j = (j + 1) & (ns - 1))
				;
			s[j] = (uint32_t)i + 1;
		}
		free(gs->slots);
		gs->slots = s;
		gs->nslots = ns;
	}
	for (j = h & (gs->nslots - 1); gs->slots[j]; j = (j + 1) & (gs->nslots - 1)) {
		struct gpu_group *g = &gs->g[gs->slots[j] - 1];

		if (g->w[0] == w[0] && g->w[1] == w[1] && g->w[2] == w[2]) {
			g->weight += weight;
			return 0;
		}
	}
	if (GP_ALLOC_GROW(gs->g, gs->n + 1, gs->cap))
		return -ENOMEM;
	gs->g[gs->n] = (struct gpu_group){ .w = { w[0], w[1], w[2] }, .weight = weight,
					   .rep = (uint32_t)rec };
	gs->slots[j] = (uint32_t)++gs->n;
	return 0;
}

static int gpu_samples(struct pr *pr, size_t col)
{
	const struct timeline *tl = pr->r->tl;
	struct gpu_groups gs = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < tl->nr_gpu && !err; i++) {
		const struct tl_gpu *g = &tl->gpu[i];
		int32_t ai = timeline__gpu_api(tl, g);
		uint64_t w[3], dur;

		if (g->kind == TL_GPU_SYNC)
			continue; /* waiting, not device work (as the GPU view) */
		dur = timeline__dur(tl, g->dur);
		if (!dur)
			continue;
		w[0] = (uint64_t)g->lane << 32 |
		       (g->kind == TL_GPU_KERNEL ? g->name : g->kind == TL_GPU_MEMCPY ? g->copy_kind : 0);
		w[1] = UINT64_MAX;
		w[2] = g->kind;
		if (ai >= 0) {
			const struct tl_api *a = &tl->api[ai];

			w[1] = (uint64_t)(uint32_t)(a->launch + 1) << 32 | a->thr;
			w[2] |= ((uint64_t)a->name + 1) << 8;
		}
		err = gpu_group_add(&gs, w, dur, i);
	}
	for (i = 0; i < gs.n && !err; i++) {
		const struct tl_gpu *g = &tl->gpu[gs.g[i].rep];
		int32_t ai = timeline__gpu_api(tl, g);
		const struct tl_api *a = ai >= 0 ? &tl->api[ai] : NULL;
		uint32_t ds[2] = { timeline__gpu_device(tl, g), timeline__gpu_stream(tl, g) };

		pr->fb.n = 0;
		pr->gpu_system_name = g->kind == TL_GPU_KERNEL ? timeline__str(tl, g->name) : NULL;
		err = frames__gpu(&pr->r->frames, gs.g[i].rep, &pr->fb);
		if (!err)
			err = frame_buf__push(&pr->fb,
					      frames__gpu_leaf(&pr->r->frames, g, pr->gbuf, sizeof(pr->gbuf)),
					      frames__gpu_leaf_kind(g));
		if (!err)
			err = locate(pr, a ? timeline__api_pid(tl, a) : 0,
				     a ? timeline__api_launch_stack(tl, a) : NULL, 1);
		if (!err)
			err = put_sample(pr, col, gs.g[i].weight, timeline__gpu_pid(tl, g),
					 a ? timeline__api_tid(tl, a) : 0, ds);
	}
	free(gs.g);
	free(gs.slots);
	return err;
}

int pprof_report__write(struct report_state *r, const char *path, const struct pprof_opts *o)
{
	static const struct pprof_view views[] = {
		{ "cpu", "nanoseconds" },
		{ "off_cpu", "nanoseconds" },
		{ "gpu", "nanoseconds" },
	};
	const struct timeline *tl = r->tl;
	struct pr pr = { .r = r };
	size_t k;
	int err = 0, cerr;

	pr.pp = pprof__open(path, views, ARRAY_SIZE(views));
	if (!pr.pp)
		return -errno;
	for (k = 0; k < r->groups.n && !err; k++) {
		const struct rec_group *grp = &r->groups.g[k];

		pr.fb.n = 0;
		if (grp->kind == VIEW_CPU) {
			const struct tl_sample *s = &tl->samples[grp->rep];

			err = frames__sample(&r->frames, s, &pr.fb);
			if (!err)
				err = locate(&pr, s->pid, &s->stack, 0);
			if (!err)
				err = put_sample(&pr, 0, grp->weight, s->pid, s->tid, NULL);
		} else if (grp->kind == VIEW_OFFCPU) {
			const struct tl_offcpu *oc = &tl->offcpu[grp->rep];

			err = frames__offcpu(&r->frames, oc, &pr.fb);
			if (!err)
				err = locate(&pr, oc->pid, &oc->stack, 0);
			if (!err)
				err = put_sample(&pr, 1, grp->weight, oc->pid, oc->tid, NULL);
		}
	}
	/* blocks under the minimum block time: summed per thread, no stack (as the off-CPU view) */
	for (k = 0; k < tl->nr_offcpu_short && !err; k++) {
		const struct tl_offcpu_short *a = &tl->offcpu_short[k];

		if (report_state__tool_thread(r, a->pid, a->tid))
			continue; /* the writer thread's: left out of every view */
		pr.fb.n = 0;
		err = frames__short_blocks(&r->frames, a->pid, &pr.fb);
		if (!err)
			err = locate(&pr, a->pid, NULL, 0);
		if (!err)
			err = put_sample(&pr, 1, a->total_ns, a->pid, a->tid, NULL);
	}
	if (!err)
		err = gpu_samples(&pr, 2);
	cerr = pprof__close(pr.pp, o, err != 0);
	free(pr.fb.f);
	free(pr.fb.src);
	free(pr.locs);
	free(pr.lines);
	u64map_free(&pr.loc_cache);
	return cerr ? cerr : err;
}
