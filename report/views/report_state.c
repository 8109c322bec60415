// SPDX-License-Identifier: Apache-2.0
/* report_state.c - one report run's state: warnings, the tool's thread, the views. */
#include "report_state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_alloc.h"
#include "gp_record.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

int report_state__warn(struct report_state *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (GP_ALLOC_GROW(r->warnings, r->nr_warnings + 1, r->warnings_alloc))
		return -ENOMEM;
	va_start(ap, fmt);
	n = vasprintf(&r->warnings[r->nr_warnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->nr_warnings++;
	return 0;
}

bool report_state__tool_thread(struct report_state *r, uint32_t pid, uint32_t tid)
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

void report_state__fmt_ns(char *buf, size_t size, uint64_t ns)
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

static struct stack_agg *thread_agg(struct thread_views *tv, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = tv->n; i-- > 0;)
		if (tv->v[i].pid == pid && tv->v[i].tid == tid)
			return tv->v[i].agg;
	if (GP_ALLOC_GROW(tv->v, tv->n + 1, tv->cap))
		return NULL;
	tv->v[tv->n].pid = pid;
	tv->v[tv->n].tid = tid;
	tv->v[tv->n].agg = stack_agg__new();
	if (!tv->v[tv->n].agg)
		return NULL;
	return tv->v[tv->n++].agg;
}

/* Add fb to `view` and the combined profile (and the thread's view). */
static int add_both(struct report_state *r, enum report_view view, uint32_t pid, uint32_t tid,
		    uint64_t weight)
{
	int err;

	if (!weight)
		return 0;
	err = stack_agg__add(r->view[view], r->fb.f, r->fb.n, weight);
	if (!err)
		err = stack_agg__add(r->view[VIEW_PROFILE], r->fb.f, r->fb.n, weight);
	if (!err && r->per_thread) {
		struct stack_agg *agg = thread_agg(&r->threads, pid, tid);
		/* a thread's own graph needs no process root (nor "[pid]") */
		size_t d = frames__proc_depth(&r->frames, pid);

		err = agg ? stack_agg__add(agg, r->fb.f + d, r->fb.n - d, weight) : -ENOMEM;
	}
	return err == -EOVERFLOW ? 0 : err;
}

/*
 * Group every sample, off-CPU span and GPU record by the frames it will
 * draw; the injection library's writer thread is the tool's, left out.
 */
static int group_records(struct report_state *r)
{
	struct timeline *tl = r->tl;
	size_t i;
	int err = 0;

	for (i = 0; i < tl->nr_samples && !err; i++) {
		const struct tl_sample *s = &tl->samples[i];

		if (report_state__tool_thread(r, s->pid, s->tid))
			continue;
		err = rec_groups__add(&r->groups, tl, VIEW_CPU, i, s->weight);
	}
	for (i = 0; i < tl->nr_offcpu && !err; i++) {
		const struct tl_offcpu *o = &tl->offcpu[i];

		if (report_state__tool_thread(r, o->pid, o->tid))
			continue;
		err = rec_groups__add(&r->groups, tl, VIEW_OFFCPU, i,
				      o->end > o->start ? o->end - o->start : 0);
	}
	return err ? err : rec_groups__add_gpu(&r->groups, tl);
}

int report_state__build_views(struct report_state *r)
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

			err = frames__sample(&r->frames, s, &r->fb);
			if (!err)
				err = add_both(r, VIEW_CPU, s->pid, s->tid, grp->weight);
		} else if (grp->kind == VIEW_OFFCPU) {
			const struct tl_offcpu *o = &tl->offcpu[i];

			err = frames__offcpu(&r->frames, o, &r->fb);
			if (!err)
				err = add_both(r, VIEW_OFFCPU, o->pid, o->tid, grp->weight);
		} else {
			const struct tl_gpu *g = &tl->gpu[i];

			err = frames__gpu(&r->frames, i, &r->fb);
			if (!err)
				err = frame_buf__push(
				    &r->fb, frames__gpu_leaf(&r->frames, g, gbuf, sizeof(gbuf)),
				    frames__gpu_leaf_kind(g));
			if (!err)
				err = add_both(r, VIEW_GPU, timeline__gpu_pid(tl, g),
					       rec_groups__gpu_tid(tl, i), grp->weight);
		}
	}
	/* blocks under the minimum block time: summed per thread by the agent, no stack */
	for (k = 0; k < tl->nr_offcpu_short && !err; k++) {
		const struct tl_offcpu_short *a = &tl->offcpu_short[k];

		if (report_state__tool_thread(r, a->pid, a->tid))
			continue;
		r->fb.n = 0;
		err = frames__short_blocks(&r->frames, a->pid, &r->fb);
		if (!err)
			err = add_both(r, VIEW_OFFCPU, a->pid, a->tid, a->total_ns);
	}
	return err;
}

void report_state__release(struct report_state *r)
{
	size_t i;

	for (i = 0; i < VIEW_COUNT; i++)
		stack_agg__free(r->view[i]);
	for (i = 0; i < r->threads.n; i++)
		stack_agg__free(r->threads.v[i].agg);
	free(r->threads.v);
	frames__release(&r->frames);
	frame_buf__release(&r->fb);
	rec_groups__free(&r->groups);
	free(r->command_line_json);
	for (i = 0; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	symbolizer__free(r->sym);
	correlate__release(&r->corr);
	timeline__free(r->tl);
	memset(r, 0, sizeof(*r));
}
