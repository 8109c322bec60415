// SPDX-License-Identifier: Apache-2.0
/*
 * summary.c - summary.json (docs/summary-json.md, schema 1.x) and the short
 * text report printed at the end of `gpuperf report`.
 *
 * Both come from one pass of statistics (report_stats.h) so the two never
 * disagree.
 */
#include "summary.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "chrome_trace.h"
#include "gp_file.h"
#include "gp_record.h"
#include "gp_util.h"
#include "json_utf8.h"
#include "memory_stats.h"
#include "report_state.h"
#include "report_stats.h"
#include "site.h"
#include "stack_agg.h"
#include "symbolize.h"
#include "timeline.h"

#define SUMMARY_SCHEMA "gpuperf-summary"
#define SUMMARY_VERSION "1.10"
#define MAX_SITES 100

static void num(cJSON *o, const char *k, double v);

static int cmp_kcfg(const void *a, const void *b)
{
	const struct kcfg_stat *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->kconfig > y->kconfig ? 1 : x->kconfig < y->kconfig ? -1 : 0;
}

/* "launch_configs" of kernel k: each configuration it ran with, by total_ns descending. */
static void kcfg_json(const struct timeline *tl, struct kstat *k, cJSON *e)
{
	char dims[CHROME_TRACE_DIMS_LEN];
	cJSON *a = cJSON_AddArrayToObject(e, "launch_configs"), *c;
	int n = 0;

	while (n < KCFG_MAX && k->cfg[n].kconfig)
		n++;
	gp_sort(k->cfg, (size_t)n, sizeof(k->cfg[0]), cmp_kcfg);
	for (int i = 0; i < n; i++) {
		const struct tl_kconfig *kc = &tl->kconfigs[k->cfg[i].kconfig - 1];

		c = cJSON_CreateObject();
		chrome_trace__dims(dims, kc->grid);
		cJSON_AddStringToObject(c, "grid", dims);
		chrome_trace__dims(dims, kc->block);
		cJSON_AddStringToObject(c, "block", dims);
		num(c, "registers_per_thread", kc->regs);
		num(c, "shared_memory", (double)kc->static_smem + kc->dynamic_smem);
		num(c, "dynamic_shared_memory", kc->dynamic_smem);
		num(c, "count", (double)k->cfg[i].count);
		num(c, "total_ns", (double)k->cfg[i].total);
		cJSON_AddItemToArray(a, c);
	}
	if (k->cfg_other)
		num(e, "launches_other_config", (double)k->cfg_other);
}

/* "64x2" for {64, 2, 1}: CUDA's dim3, trailing 1s left out. */
static int dims_text(char *buf, size_t len, const uint32_t d[3])
{
	if (d[2] != 1)
		return snprintf(buf, len, "%ux%ux%u", d[0], d[1], d[2]);
	if (d[1] != 1)
		return snprintf(buf, len, "%ux%u", d[0], d[1]);
	return snprintf(buf, len, "%u", d[0]);
}

/*
 * The text report's launch column: kernel k's main configuration (most GPU
 * time) as "<<<grid, block>>>", and "+N" other configurations; "-" if none known.
 */
static void kcfg_text(const struct timeline *tl, const struct kstat *k, char *buf, size_t len)
{
	char g[40], b[40];
	int n = 0, best = -1;

	for (; n < KCFG_MAX && k->cfg[n].kconfig; n++)
		if (best < 0 || k->cfg[n].total > k->cfg[best].total)
			best = n;
	if (best < 0) {
		snprintf(buf, len, "-");
		return;
	}
	dims_text(g, sizeof(g), tl->kconfigs[k->cfg[best].kconfig - 1].grid);
	dims_text(b, sizeof(b), tl->kconfigs[k->cfg[best].kconfig - 1].block);
	if (n > 1 || k->cfg_other)
		snprintf(buf, len, "<<<%s, %s>>> +%d%s", g, b, n - 1, k->cfg_other ? "+" : "");
	else
		snprintf(buf, len, "<<<%s, %s>>>", g, b);
}

/* cJSON numbers are doubles: exact for integers below 2^53 ns (104 days). */
static void num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

/* Warning i: the timeline's (what loading found), then the report's own. */
static const char *warning_at(const struct report_state *r, size_t i)
{
	size_t n = timeline__nr_warnings(r->tl);

	return i < n ? timeline__warning(r->tl, i) : r->warnings[i - n];
}

/* memcpy kinds by total time, descending, then by kind */
struct kind_total {
	unsigned kind;
	uint64_t total;
};

static int cmp_kind_total(const void *a, const void *b)
{
	const struct kind_total *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* errno as its name and meaning: "ENOSPC (no space left on device)". */
static void drop_cause_text(size_t source, uint32_t cause, char *buf, size_t len)
{
	static const struct {
		int err;
		const char *name, *what;
	} errs[] = {
		{ ENOSPC, "ENOSPC", "no space left on device" },
		{ EDQUOT, "EDQUOT", "disk quota exceeded" },
		{ EFBIG, "EFBIG", "file size limit (RLIMIT_FSIZE) reached" },
		{ EIO, "EIO", "I/O error" },
		{ ENOMEM, "ENOMEM", "out of memory" },
		{ EROFS, "EROFS", "read-only file system" },
		{ EACCES, "EACCES", "permission denied" },
		{ EINVAL, "EINVAL", "invalid" },
		{ ENOEXEC, "ENOEXEC", "mapped at an offset no PT_LOAD segment of its file holds" },
	};
	const char *name = NULL, *what = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(errs); i++)
		if ((uint32_t)errs[i].err == cause) {
			name = errs[i].name;
			what = errs[i].what;
		}
	if (source == GP_DROP_PERF_MAP) {
		/* the agent's reasons for not copying a /tmp/perf-PID.map */
		name = cause == GP_PERF_MAP_LINK ? "ELOOP" : name;
		what = cause == GP_PERF_MAP_LINK	   ? "a symbolic link, not followed"
		       : cause == GP_PERF_MAP_NOT_FILE ? "not a regular file"
		       : cause == GP_PERF_MAP_OWNER    ? "not owned by the process's user"
		       : cause == GP_PERF_MAP_SIZE     ? "larger than the agent copies"
						       : what;
		if (cause == GP_PERF_MAP_OWNER)
			name = "EPERM";
	}
	if (name)
		snprintf(buf, len, "%s (%s)", name, what);
	else
		snprintf(buf, len, "errno %u (%s)", cause, strerror((int)cause));
}

/* The stack ends of every process, summed; *early: the stacks that did not reach a root. */
static void stack_ends_total(const struct timeline *tl, uint64_t n[GP_STACK_END_COUNT],
			     uint64_t *stacks, uint64_t *early)
{
	size_t i, k;

	memset(n, 0, sizeof(uint64_t) * GP_STACK_END_COUNT);
	for (i = 0; i < tl->nr_stack_ends; i++)
		for (k = 0; k < GP_STACK_END_COUNT; k++)
			n[k] += tl->stack_ends[i].n[k];
	*stacks = 0;
	for (k = 0; k < GP_STACK_END_COUNT; k++)
		*stacks += n[k];
	*early = *stacks - n[GP_STACK_END_ROOT];
}

/*
 * 1.6: where the user stacks the agent unwound with CFI ended: how many
 * reached the thread's root, how many were cut short and why.
 */
static void stack_ends_json(const struct timeline *tl, cJSON *root)
{
	uint64_t n[GP_STACK_END_COUNT], stacks, early;
	cJSON *o = cJSON_AddObjectToObject(root, "stack_ends"), *why;
	unsigned k;

	stack_ends_total(tl, n, &stacks, &early);
	num(o, "stacks", (double)stacks);
	num(o, "root", (double)n[GP_STACK_END_ROOT]);
	num(o, "early", (double)early);
	why = cJSON_AddObjectToObject(o, "reasons");
	for (k = GP_STACK_END_ROOT + 1; k < GP_STACK_END_COUNT; k++)
		num(why, gp_stack_end_name(k), (double)n[k]);
}

/* 1.6: a process's "stack_ends": its unwound user stacks and how many reached a root; or null. */
static void proc_stack_ends_json(const struct timeline *tl, uint32_t pid, cJSON *e)
{
	const struct tl_stack_ends *se = timeline__stack_ends(tl, pid);
	uint64_t stacks = 0;
	cJSON *o;

	for (unsigned k = 0; se && k < GP_STACK_END_COUNT; k++)
		stacks += se->n[k];
	if (!stacks) {
		cJSON_AddNullToObject(e, "stack_ends");
		return;
	}
	o = cJSON_AddObjectToObject(e, "stack_ends");
	num(o, "stacks", (double)stacks);
	num(o, "root", (double)se->n[GP_STACK_END_ROOT]);
	num(o, "root_fraction", (double)se->n[GP_STACK_END_ROOT] / (double)stacks);
}

static cJSON *build_json(struct report_state *r, struct report_stats *s)
{
	struct timeline *tl = r->tl;
	static const char *const drop_names[GP_DROP_SOURCES] = {
		[GP_DROP_CUPTI] = "cupti",
		[GP_DROP_INJECT_BUFFERS] = "inject_buffers",
		[GP_DROP_RINGBUF_SAMPLE] = "ringbuf_sample",
		[GP_DROP_RINGBUF_OFFCPU] = "ringbuf_offcpu",
		[GP_DROP_RINGBUF_LAUNCH] = "ringbuf_launch",
		[GP_DROP_RINGBUF_PROC] = "ringbuf_proc",
		[GP_DROP_STACK] = "stack",
		[GP_DROP_WRITER] = "writer",
		[GP_DROP_OFFCPU_MISSED] = "offcpu_missed",
		[GP_DROP_PERF_MAP] = "perf_map",
		[GP_DROP_KALLSYMS] = "kallsyms",
		[GP_DROP_MODULE] = "module",		/* 1.8 */
		[GP_DROP_UNWIND_CFI] = "unwind_cfi",	/* 1.8 */
		[GP_DROP_VMM] = "vmm",			/* 1.10 */
	};
	cJSON *root = cJSON_CreateObject(), *o, *a, *e;
	const struct tl_file *host = tl->nr_files ? &tl->files[0] : NULL;
	struct kind_total kinds[MAX_MEMCPY_KINDS];
	size_t i, n;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "schema", SUMMARY_SCHEMA);
	cJSON_AddStringToObject(root, "schema_version", SUMMARY_VERSION);
	o = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(o, "name", "gpuperf");
	cJSON_AddStringToObject(o, "version", r->tool_version ? r->tool_version : "unknown");
	a = r->command_line_json ? cJSON_Parse(r->command_line_json) : NULL;
	cJSON_AddItemToObject(root, "command_line", a ? a : cJSON_CreateArray());
	o = cJSON_AddObjectToObject(root, "host");
	cJSON_AddStringToObject(o, "hostname", host ? host->hostname : "");
	cJSON_AddStringToObject(o, "kernel", host ? host->kernel_release : "");
	cJSON_AddStringToObject(o, "machine", host ? host->machine : "");

	o = cJSON_AddObjectToObject(root, "time");
	num(o, "start_ns", (double)r->start_ns);
	num(o, "end_ns", (double)r->end_ns);
	num(o, "wall_ns", (double)r->duration_ns);

	a = cJSON_AddArrayToObject(root, "clock_alignment");
	for (i = 0; i < tl->nr_files; i++) {
		const struct tl_file *f = &tl->files[i];
		const char *base = strrchr(f->path, '/');

		if (f->producer != GP_PRODUCER_INJECT)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "file", base ? base + 1 : f->path);
		num(e, "pid", f->pid);
		cJSON_AddStringToObject(e, "method", clock_fit__method_name(f->fit.method));
		num(e, "pairs", f->fit.pairs);
		num(e, "residual_max_ns", (double)f->fit.residual_max);
		cJSON_AddItemToArray(a, e);
	}

	o = cJSON_AddObjectToObject(root, "join");
	num(o, "gpu_records", (double)s->gpu_records);
	num(o, "with_api", (double)s->with_api);
	num(o, "with_stack", (double)s->with_stack);
	/* 1.5: no GPU record, no rate (null), not a perfect one */
	if (s->gpu_records)
		num(o, "rate", (double)s->with_stack / (double)s->gpu_records);
	else
		cJSON_AddNullToObject(o, "rate");
	/* 1.6: an older gpuperf's launch-site records, read but never joined */
	num(o, "old_launch_sites", (double)tl->old_launch_sites);

	o = cJSON_AddObjectToObject(root, "drops");
	for (i = 0; i < ARRAY_SIZE(drop_names); i++)
		if (drop_names[i])
			num(o, drop_names[i], (double)tl->dropped[i]);
	/* 1.4: why, for the sources whose recorder said */
	o = cJSON_AddObjectToObject(root, "drop_causes");
	for (i = 0; i < ARRAY_SIZE(drop_names); i++) {
		char why[160];

		if (drop_names[i] && tl->dropped[i] && tl->drop_cause[i]) {
			drop_cause_text(i, tl->drop_cause[i], why, sizeof(why));
			cJSON_AddStringToObject(o, drop_names[i], why);
		}
	}

	stack_ends_json(tl, root);

	o = cJSON_AddObjectToObject(root, "cpu");
	num(o, "samples", (double)tl->nr_samples);
	num(o, "on_cpu_ns", (double)s->on_cpu);
	num(o, "off_cpu_ns", (double)s->off_cpu);
	num(o, "off_cpu_spans", (double)tl->nr_offcpu);
	num(o, "off_cpu_short_ns", (double)s->off_cpu_short);
	/* 1.5: what every total and view leaves out: the injection library's writer thread */
	e = cJSON_AddObjectToObject(o, "left_out");
	cJSON_AddStringToObject(e, "thread", "gpuperf-writer");
	num(e, "on_cpu_ns", (double)s->tool_on);
	num(e, "off_cpu_ns", (double)s->tool_off);

	o = cJSON_AddObjectToObject(root, "gpu");
	num(o, "busy_ns", (double)s->busy);
	num(o, "idle_ns", (double)s->idle);
	num(o, "overlap_ns", (double)s->overlap);
	a = cJSON_AddArrayToObject(o, "devices");
	for (i = 0; i < s->nr_dev; i++) {
		const struct dev_stat *d = &s->dev[i];
		const struct tl_device *td = timeline__device(tl, d->id);
		uint64_t span = d->last - d->first;

		e = cJSON_CreateObject();
		num(e, "id", d->id);
		cJSON_AddStringToObject(e, "name", td ? timeline__str(tl, td->name) : "");
		num(e, "busy_ns", (double)d->busy);
		num(e, "idle_ns", (double)d->idle);
		num(e, "overlap_ns", (double)d->overlap);
		num(e, "busy_pct", span ? 100.0 * (double)d->busy / (double)span : 0.0);
		num(e, "kernel_ns", (double)d->kernel);
		num(e, "memcpy_ns", (double)d->memcpy);
		num(e, "memset_ns", (double)d->memset);
		cJSON_AddItemToArray(a, e);
	}

	a = cJSON_AddArrayToObject(root, "kernels");
	for (i = 0; i < s->nr_k; i++) {
		const struct kstat *k = &s->k[i];
		const char *mangled = timeline__str(tl, k->name);

		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", symbolizer__demangle(r->sym, mangled));
		cJSON_AddStringToObject(e, "mangled", mangled);
		num(e, "count", (double)k->count);
		num(e, "total_ns", (double)k->total);
		num(e, "mean_ns", (double)(k->total / k->count));
		num(e, "min_ns", (double)k->min);
		num(e, "max_ns", (double)k->max);
		num(e, "p50_ns", (double)report_stats__kernel_pct(k, 50));
		num(e, "p99_ns", (double)report_stats__kernel_pct(k, 99));
		kcfg_json(tl, &s->k[i], e);
		cJSON_AddItemToArray(a, e);
	}

	a = cJSON_AddArrayToObject(root, "memcpy");
	n = 0;
	for (i = 0; i < MAX_MEMCPY_KINDS; i++)
		if (s->mc[i].count)
			kinds[n++] = (struct kind_total){ (unsigned)i, s->mc[i].total };
	gp_sort(kinds, n, sizeof(kinds[0]), cmp_kind_total);
	for (i = 0; i < n; i++) {
		const struct mstat *m = &s->mc[kinds[i].kind];

		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "kind", timeline__copy_kind_name(kinds[i].kind));
		num(e, "count", (double)m->count);
		num(e, "bytes", (double)m->bytes);
		num(e, "total_ns", (double)m->total);
		num(e, "bandwidth_gbps", m->total ? (double)m->bytes / (double)m->total : 0.0);
		cJSON_AddItemToArray(a, e);
	}
	o = cJSON_AddObjectToObject(root, "memset");
	num(o, "count", (double)s->ms.count);
	num(o, "bytes", (double)s->ms.bytes);
	num(o, "total_ns", (double)s->ms.total);

	a = cJSON_AddArrayToObject(root, "launch_sites");
	for (i = 0; i < s->nr_sites && i < MAX_SITES; i++) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "function", s->sites[i].function);
		cJSON_AddStringToObject(e, "location", s->sites[i].location);
		cJSON_AddStringToObject(e, "api", s->sites[i].api);
		cJSON_AddStringToObject(e, "stack", s->sites[i].stack);
		num(e, "gpu_ns", (double)s->sites[i].gpu_ns);
		num(e, "launches", (double)s->sites[i].launches);
		cJSON_AddItemToArray(a, e);
	}

	memory_stats__add_json(s->mem, root);

	a = cJSON_AddArrayToObject(root, "processes");
	for (i = 0; i < tl->nr_procs; i++) {
		const struct tl_proc *p = &tl->procs[i];

		e = cJSON_CreateObject();
		num(e, "pid", p->pid);
		num(e, "ppid", p->ppid);
		cJSON_AddStringToObject(e, "comm", timeline__str(tl, p->comm));
		cJSON_AddStringToObject(e, "exe", timeline__str(tl, p->exe));
		if (p->exited)
			num(e, "exit_status", p->exit_status);
		else
			cJSON_AddNullToObject(e, "exit_status");
		num(e, "on_cpu_ns", (double)s->proc[i].on);
		num(e, "off_cpu_ns", (double)s->proc[i].off);
		num(e, "gpu_ns", (double)s->proc[i].gpu);
		proc_stack_ends_json(tl, p->pid, e);
		cJSON_AddItemToArray(a, e);
	}

	analysis__add_json(r, root); /* "threads", and "coverage" per process */

	a = cJSON_AddArrayToObject(root, "warnings");
	for (i = 0; i < timeline__nr_warnings(tl) + r->nr_warnings; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(warning_at(r, i)));
	return root;
}

int summary__write_json(struct report_state *r, const char *path)
{
	struct report_stats *s = report_stats__get(r);
	cJSON *root;
	char *text;
	FILE *f;
	int err = 0;

	if (!s)
		return -ENOMEM;
	root = build_json(r, s);
	/* names are whatever bytes the traced program chose: strict readers want UTF-8 */
	text = root && !json_utf8__fix_tree(root) ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	if (!text)
		return -ENOMEM;
	f = gp_file__fopen_output(path);
	if (!f) {
		err = -errno;
	} else {
		if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
			err = -EIO;
		if (fclose(f) && !err)
			err = -EIO;
	}
	free(text);
	return err;
}

/*
 * Does another of the first @top sites read like site @i (same function,
 * line and API)? Its caller then tells the two apart in the text report.
 */
static bool site_alike(const struct report_stats *s, size_t i, size_t top)
{
	const struct site *a = &s->sites[i];

	for (size_t j = 0; j < s->nr_sites && j < top; j++)
		if (j != i && !strcmp(s->sites[j].function, a->function) &&
		    !strcmp(s->sites[j].location, a->location) && !strcmp(s->sites[j].api, a->api))
			return true;
	return false;
}

/* The frame above the launching function in a site's stack ("" when none). */
static const char *site_caller(const struct site *s, char *buf, size_t len)
{
	const char *end = s->stack ? strrchr(s->stack, ';') : NULL;
	const char *start = end;

	buf[0] = '\0';
	if (!end)
		return buf;
	while (start > s->stack && start[-1] != ';')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	return buf;
}

/* One line when user stacks ended before their thread's root: how many, and why. */
static void stack_ends_text(const struct timeline *tl, FILE *out)
{
	uint64_t n[GP_STACK_END_COUNT], stacks, early;
	const char *sep = ": ";

	stack_ends_total(tl, n, &stacks, &early);
	if (!early)
		return;
	fprintf(out, "     user stacks cut short: %llu of %llu (%.1f%%) end before their thread's "
		     "root", (unsigned long long)early, (unsigned long long)stacks,
		100.0 * (double)early / (double)stacks);
	for (unsigned k = GP_STACK_END_ROOT + 1; k < GP_STACK_END_COUNT; k++) {
		if (!n[k])
			continue;
		fprintf(out, "%s%s %llu", sep, gp_stack_end_name(k), (unsigned long long)n[k]);
		sep = ", ";
	}
	if (n[0])
		fprintf(out, "%sother %llu", sep, (unsigned long long)n[0]);
	fprintf(out, " (\"stack_ends\" in summary.json)\n");
}

void summary__write_text(struct report_state *r, FILE *out)
{
	struct timeline *tl = r->tl;
	struct report_stats *sp = report_stats__get(r), s;
	char b1[32], b2[32], b3[32];
	uint64_t kernel_total = 0;
	size_t i;

	if (!sp) {
		fprintf(out, "gpuperf report: out of memory writing the text report\n");
		return;
	}
	s = *sp;
	for (i = 0; i < s.nr_k; i++)
		kernel_total += s.k[i].total;
	report_state__fmt_ns(b1, sizeof(b1), r->duration_ns);
	fprintf(out, "recording: %s wall, %zu process%s, %zu GPU record%s, %zu CPU sample%s, "
		     "%zu off-CPU span%s\n",
		b1, tl->nr_procs, tl->nr_procs == 1 ? "" : "es", s.gpu_records,
		s.gpu_records == 1 ? "" : "s", tl->nr_samples, tl->nr_samples == 1 ? "" : "s",
		tl->nr_offcpu, tl->nr_offcpu == 1 ? "" : "s");
	for (i = 0; i < s.nr_dev; i++) {
		const struct tl_device *td = timeline__device(tl, s.dev[i].id);
		uint64_t span = s.dev[i].last - s.dev[i].first;

		report_state__fmt_ns(b1, sizeof(b1), s.dev[i].busy);
		report_state__fmt_ns(b2, sizeof(b2), s.dev[i].idle);
		fprintf(out, "GPU %u%s%s%s: busy %s (%.1f%% of its active span), idle %s\n",
			s.dev[i].id, td ? " (" : "", td ? timeline__str(tl, td->name) : "",
			td ? ")" : "", b1, span ? 100.0 * (double)s.dev[i].busy / (double)span : 0.0, b2);
	}
	if (s.gpu_records)
		fprintf(out, "launch stacks: %zu of %zu GPU records joined (%.1f%%)\n", s.with_stack,
			s.gpu_records, 100.0 * (double)s.with_stack / (double)s.gpu_records);
	if (s.nr_k) {
		fprintf(out, "\ntop kernels by GPU time:\n  %10s %6s %10s %10s  %-22s %s\n", "total", "%",
			"count", "mean", "launch", "kernel");
		for (i = 0; i < s.nr_k && i < r->top; i++) {
			char cfg[112];

			report_state__fmt_ns(b1, sizeof(b1), s.k[i].total);
			report_state__fmt_ns(b2, sizeof(b2), s.k[i].count ? s.k[i].total / s.k[i].count : 0);
			kcfg_text(tl, &s.k[i], cfg, sizeof(cfg));
			fprintf(out, "  %10s %5.1f%% %10llu %10s  %-22s %s\n", b1,
				kernel_total ? 100.0 * (double)s.k[i].total / (double)kernel_total : 0.0,
				(unsigned long long)s.k[i].count, b2, cfg,
				symbolizer__demangle(r->sym, timeline__str(tl, s.k[i].name)));
		}
	}
	if (s.nr_sites) {
		fprintf(out, "\ntop launch sites by GPU time:\n");
		for (i = 0; i < s.nr_sites && i < r->top; i++) {
			char caller[512];

			report_state__fmt_ns(b1, sizeof(b1), s.sites[i].gpu_ns);
			fprintf(out, "  %10s %10llu  %s%s%s%s%s%s -> %s\n", b1,
				(unsigned long long)s.sites[i].launches, s.sites[i].function,
				s.sites[i].location[0] ? " (" : "", s.sites[i].location,
				s.sites[i].location[0] ? ")" : "",
				site_alike(&s, i, r->top) ? " <- " : "",
				site_alike(&s, i, r->top)
					? site_caller(&s.sites[i], caller, sizeof(caller))
					: "",
				s.sites[i].api);
		}
	}
	memory_stats__write_text(s.mem, out);
	if (tl->nr_samples || tl->nr_offcpu) {
		report_state__fmt_ns(b1, sizeof(b1), s.on_cpu);
		report_state__fmt_ns(b2, sizeof(b2), s.off_cpu);
		report_state__fmt_ns(b3, sizeof(b3), stack_agg__total(r->view[VIEW_IDLE]));
		fprintf(out, "\nCPU: on-CPU %s, off-CPU %s", b1, b2);
		/* without GPU work there is no idle GPU to speak of */
		if (s.gpu_records)
			fprintf(out, "; launching threads while the GPU was idle: %s (gpu_idle.folded)",
				b3);
		fputc('\n', out);
		if (s.tool_on || s.tool_off) {
			report_state__fmt_ns(b1, sizeof(b1), s.tool_on);
			report_state__fmt_ns(b2, sizeof(b2), s.tool_off);
			fprintf(out, "     left out of every output: the injection library's writer "
				     "thread (gpuperf-writer), on-CPU %s, off-CPU %s\n", b1, b2);
		}
		stack_ends_text(tl, out);
		analysis__write_brief(r, out);
	}
	if (!r->warnings_apart)
		summary__write_warnings(r, out);
}

void summary__write_warnings(struct report_state *r, FILE *out)
{
	const struct timeline *tl = r->tl;
	uint64_t drops = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tl->dropped); i++)
		drops += tl->dropped[i];
	if (drops)
		fprintf(out, "\nwarning: %llu records were lost while recording (see \"drops\" in "
			     "summary.json)\n", (unsigned long long)drops);
	for (i = 0; i < ARRAY_SIZE(tl->dropped); i++) {
		static const char *const what[GP_DROP_SOURCES] = {
			[GP_DROP_WRITER] = "records could not be written to the trace files",
			[GP_DROP_PERF_MAP] = "JIT symbol maps (/tmp/perf-PID.map) were not copied",
			[GP_DROP_KALLSYMS] = "kernel symbols could not be written to DIR/kallsyms "
					     "(kernel frames stay addresses)",
			[GP_DROP_MODULE] = "executable mappings were left out (their frames end "
					   "user stacks or stay addresses)",
			[GP_DROP_UNWIND_CFI] = "mappings were unwound by frame pointers, not their "
					       "file's CFI",
			[GP_DROP_VMM] = "virtual memory allocations or frees were not recorded "
					"(\"memory\" in summary.json misses them)",
		};
		char why[160];

		if (!tl->dropped[i] || !tl->drop_cause[i])
			continue;
		drop_cause_text(i, tl->drop_cause[i], why, sizeof(why));
		fprintf(out, "warning: %llu %s: %s\n", (unsigned long long)tl->dropped[i],
			i < GP_DROP_SOURCES && what[i] ? what[i] : "records were lost", why);
	}
	for (i = 0; i < timeline__nr_warnings(tl) + r->nr_warnings && i < 10; i++)
		fprintf(out, "warning: %s\n", warning_at(r, i));
	if (timeline__nr_warnings(tl) + r->nr_warnings > 10)
		fprintf(out, "warning: ... and %zu more in summary.json\n",
			timeline__nr_warnings(tl) + r->nr_warnings - 10);
}
