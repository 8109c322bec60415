// SPDX-License-Identifier: Apache-2.0
/*
 * analysis_write.c - the wall-clock analysis written out: analysis.txt,
 * the "analysis" object of summary.json and the few lines of the report's
 * text summary. The model is analysis.c's.
 */
#include "analysis.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis_priv.h"
#include "gp_file.h"
#include "gp_util.h"
#include "report_state.h"
#include "timeline.h"

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

static const char *const cls_names[CLS_COUNT] = {
    [CLS_CPU] = "cpu-bound",  [CLS_GPU] = "gpu-wait",	 [CLS_IO] = "io-blocked",
    [CLS_LOCK] = "lock-wait", [CLS_IDLE] = "idle",	 [CLS_SLEEP] = "sleeping",
    [CLS_OTHER] = "other",    [CLS_UNKNOWN] = "unknown",
};

/* Kernel frames that only say "the thread went to sleep": skipped for the reason. */
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

	err = an_build(r, &a, 1);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", r->out_dir, name);
	out = gp_file__fopen_output(path);
	if (!out) {
		an_release(&a);
		return -EIO;
	}
	write_text(r, &a, out);
	err = ferror(out) ? -EIO : 0;
	if (fclose(out) && !err)
		err = -EIO;
	an_release(&a);
	return err;
}

int analysis__add_json(struct report_state *r, cJSON *root)
{
	struct analysis a;
	cJSON *arr, *procs, *e;
	struct an_proc p;
	size_t i;
	int err = an_build(r, &a, 0);

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
	an_release(&a);
	return err;
}

void analysis__write_brief(struct report_state *r, FILE *out)
{
	struct analysis a;
	size_t k, n = 0;

	if (an_build(r, &a, 0))
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
	an_release(&a);
}
