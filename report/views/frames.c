// SPDX-License-Identifier: Apache-2.0
/* frames.c - the frames of a sample, an off-CPU span or a GPU record, root first (frames.h). */
#include "frames.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "symbolize.h"
#include "timeline.h"

static int frame_buf__push_src(struct frame_buf *fb, const char *name, enum gp_frame_kind kind,
			       const struct sym_frame *src)
{
	/* one capacity each, so that a failed second grow leaves both right */
	if (GP_ALLOC_GROW(fb->f, fb->n + 1, fb->cap) ||
	    GP_ALLOC_GROW(fb->src, fb->n + 1, fb->cap_src))
		return -ENOMEM;
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

void frame_buf__release(struct frame_buf *fb)
{
	free(fb->f);
	free(fb->src);
	memset(fb, 0, sizeof(*fb));
}

const char *frames__api_name(const struct frames *fr, const struct tl_api *a)
{
	const char *n = a ? timeline__str(fr->tl, timeline__api_name(fr->tl, a)) : "";

	return *n ? n : "[unknown API]";
}

const char *frames__gpu_leaf(const struct frames *fr, const struct tl_gpu *g, char *buf,
			     size_t size)
{
	switch (g->kind) {
	case TL_GPU_KERNEL:
		snprintf(buf, size, "[gpu] %s",
			 symbolizer__demangle(fr->sym, timeline__str(fr->tl, g->name)));
		return buf;
	case TL_GPU_MEMCPY:
		snprintf(buf, size, "[memcpy %s]", timeline__copy_kind_name(g->copy_kind));
		return buf;
	case TL_GPU_MEMSET:
		return "[memset]";
	default:
		return "[sync]";
	}
}

enum gp_frame_kind frames__gpu_leaf_kind(const struct tl_gpu *g)
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
int frames__init(struct frames *fr, struct timeline *tl, struct symbolizer *sym)
{
	size_t i, j;

	memset(fr, 0, sizeof(*fr));
	fr->tl = tl;
	fr->sym = sym;
	fr->proc_root = calloc(tl->nr_procs ? tl->nr_procs : 1, sizeof(char *));
	fr->proc_pid = calloc(tl->nr_procs ? tl->nr_procs : 1, sizeof(char *));
	if (!fr->proc_root || !fr->proc_pid)
		return -ENOMEM;
	fr->nr_procs = tl->nr_procs;
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
			fr->proc_pid[i] = strdup(buf);
			if (!fr->proc_pid[i])
				return -ENOMEM;
		}
		fr->proc_root[i] = strdup(comm);
		if (!fr->proc_root[i])
			return -ENOMEM;
	}
	return 0;
}

void frames__release(struct frames *fr)
{
	size_t i;

	for (i = 0; fr->proc_root && i < fr->nr_procs; i++)
		free(fr->proc_root[i]);
	for (i = 0; fr->proc_pid && i < fr->nr_procs; i++)
		free(fr->proc_pid[i]);
	free(fr->proc_root);
	free(fr->proc_pid);
	memset(fr, 0, sizeof(*fr));
}

const char *frames__proc_root(const struct frames *fr, uint32_t pid)
{
	const struct tl_proc *p = timeline__proc(fr->tl, pid);

	return p ? fr->proc_root[p - fr->tl->procs] : "[unknown process]";
}

static const char *proc_pid_frame(const struct frames *fr, uint32_t pid)
{
	const struct tl_proc *p = timeline__proc(fr->tl, pid);

	return p ? fr->proc_pid[p - fr->tl->procs] : NULL;
}

int frames__push_proc(const struct frames *fr, uint32_t pid, struct frame_buf *fb)
{
	const char *pf = proc_pid_frame(fr, pid);
	int err = frame_buf__push(fb, frames__proc_root(fr, pid), GP_FRAME_CPU);

	return err || !pf ? err : frame_buf__push(fb, pf, GP_FRAME_CPU);
}

size_t frames__proc_depth(const struct frames *fr, uint32_t pid)
{
	return proc_pid_frame(fr, pid) ? 2 : 1;
}

int frames__stack(const struct frames *fr, uint32_t pid, const struct tl_stack *st,
		  int skip_user_leaf, enum gp_frame_kind kernel_kind, struct frame_buf *fb)
{
	const uint64_t *ips = timeline__frames(fr->tl, st);
	size_t i, k, first = skip_user_leaf ? 1 : 0;

	/* user frames, outermost first; each address's inline chain likewise */
	for (i = st->nr_user; i-- > first;) {
		const struct sym_frame *sf;
		size_t n = symbolizer__user(fr->sym, pid, ips[i], i > 0, &sf);

		for (k = n; k-- > 0;) {
			enum gp_frame_kind kind = sf[k].jit	  ? GP_FRAME_JIT
						  : sf[k].inlined ? GP_FRAME_INLINE
								  : GP_FRAME_CPU;

			if (frame_buf__push_src(fb, sf[k].name, kind, &sf[k]))
				return -ENOMEM;
		}
	}
	if (kernel_kind == GP_FRAME_KIND_COUNT)
		return 0;
	for (i = st->nr_kernel; i-- > 0;) {
		const struct sym_frame *sf = symbolizer__kernel(fr->sym, ips[st->nr_user + i]);

		if (frame_buf__push(fb, sf->name, kernel_kind))
			return -ENOMEM;
	}
	return 0;
}

int frames__sample(const struct frames *fr, const struct tl_sample *s, struct frame_buf *fb)
{
	int err = frames__push_proc(fr, s->pid, fb);

	return err ? err : frames__stack(fr, s->pid, &s->stack, 0, GP_FRAME_KERNEL_CPU, fb);
}

int frames__offcpu(const struct frames *fr, const struct tl_offcpu *o, struct frame_buf *fb)
{
	struct tl_stack user = o->stack, kern = o->stack;
	int err;

	user.nr_kernel = 0;
	kern.nr_user = 0;
	kern.off += o->stack.nr_user;
	err = frames__push_proc(fr, o->pid, fb);
	if (!err)
		err = frames__stack(fr, o->pid, &user, 0, GP_FRAME_KIND_COUNT, fb);
	if (!err)
		err = frame_buf__push(fb, "[off-cpu]", GP_FRAME_OFFCPU);
	if (!err)
		err = frames__stack(fr, o->pid, &kern, 0, GP_FRAME_OFFCPU, fb);
	return err;
}

int frames__short_blocks(const struct frames *fr, uint32_t pid, struct frame_buf *fb)
{
	int err = frames__push_proc(fr, pid, fb);

	if (!err)
		err = frame_buf__push(fb, "[off-cpu]", GP_FRAME_OFFCPU);
	return err ? err : frame_buf__push(fb, "[short blocks]", GP_FRAME_OFFCPU);
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
	    starts_with(f->name, "cudaLaunchKernel<") ||
	    starts_with(f->name, "cudaLaunchCooperativeKernel<"))
		return 1;
	/* the kernel's host-side stub has the kernel's own name */
	if (kernel && !strcmp(f->name, kernel))
		return 1;
	/* nvcc's generated .stub.c and the toolkit's launch headers */
	return (flen > 7 && !strcmp(file + flen - 7, ".stub.c")) ||
	       (flen > 18 && !strcmp(file + flen - 18, "device_functions.h")) ||
	       (flen > 14 && !strcmp(file + flen - 14, "cuda_runtime.h"));
}

int frames__launch_site(const struct frames *fr, uint32_t pid, const struct tl_stack *st,
			const char *kernel, struct frame_buf *fb)
{
	size_t base = fb->n;

	if (frames__stack(fr, pid, st, 1, GP_FRAME_KIND_COUNT, fb))
		return -ENOMEM;
	while (fb->n > base + 1 &&
	       is_launch_machinery(&fb->f[fb->n - 1], fb->src[fb->n - 1], kernel))
		fb->n--;
	return 0;
}

int frames__gpu(const struct frames *fr, size_t i, struct frame_buf *fb)
{
	const struct tl_gpu *g = &fr->tl->gpu[i];
	int64_t ai = timeline__gpu_api(fr->tl, g);
	const struct tl_api *a = ai >= 0 ? &fr->tl->api[ai] : NULL;
	const struct tl_stack *st = timeline__gpu_launch_stack(fr->tl, g);

	if (frames__push_proc(fr, timeline__gpu_pid(fr->tl, g), fb))
		return -ENOMEM;
	if (st) {
		const char *kernel =
		    g->kind == TL_GPU_KERNEL
			? symbolizer__demangle(fr->sym, timeline__str(fr->tl, g->name))
			: NULL;

		if (frames__launch_site(fr, timeline__api_pid(fr->tl, a), st, kernel, fb))
			return -ENOMEM;
	} else if (a) {
		if (frame_buf__push(fb, "[no launch stack]", GP_FRAME_SYNTHETIC))
			return -ENOMEM;
	}
	return frame_buf__push(fb, frames__api_name(fr, a), a ? GP_FRAME_CPU : GP_FRAME_SYNTHETIC);
}
