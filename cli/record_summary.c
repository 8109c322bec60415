// SPDX-License-Identifier: Apache-2.0
/* record_summary.c - record.json and the summary on stderr (see record_summary.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cpu_agent.h"
#include "gp_file.h"
#include "gp_record.h"
#include "record.h"
#include "record_summary.h"

#ifndef GPUPERF_VERSION
#define GPUPERF_VERSION "0.0.0"
#endif

/* cJSON numbers are doubles: a realtime ns count needs all its 64 bits */
static void add_u64(cJSON *o, const char *name, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	cJSON_AddRawToObject(o, name, buf);
}

static cJSON *int_array(const int *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

/*
 * -p/-t: "attached": one entry per given pid (tid), with its exit when it
 * exited while recorded (null fields when it was still running).
 */
static void record_json_attached(struct record *r, cJSON *j)
{
	const struct record_opts *o = &r->o;
	const struct cpu_agent_exit *ex;
	cJSON *arr = cJSON_AddArrayToObject(j, "attached"), *e;
	size_t nex, i, k;

	ex = cpu_agent__exits(r->agent, &nex);
	for (i = 0; arr && i < (o->nr_pids ? o->nr_pids : o->nr_tids); i++) {
		int id = o->nr_pids ? o->pids[i] : o->tids[i];
		const struct cpu_agent_exit *x = NULL;

		for (k = 0; k < nex && !x; k++)
			if ((o->nr_pids ? ex[k].pid : ex[k].tid) == id)
				x = &ex[k];
		e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(arr, e)) {
			cJSON_Delete(e);
			return;
		}
		cJSON_AddNumberToObject(e, o->nr_pids ? "pid" : "tid", id);
		if (x && x->unseen) {
			/* exited while the recorder attached: neither time nor status known */
			cJSON_AddStringToObject(e, "comm", x->comm);
			cJSON_AddNullToObject(e, "exit_monotonic_ns");
			cJSON_AddNullToObject(e, "exit_code");
			cJSON_AddNullToObject(e, "signal");
		} else if (x) {
			cJSON_AddStringToObject(e, "comm", x->comm);
			add_u64(e, "exit_monotonic_ns", x->ts);
			/* a thread has no exit status of its own */
			if (!o->nr_tids && WIFEXITED(x->status))
				cJSON_AddNumberToObject(e, "exit_code", WEXITSTATUS(x->status));
			else
				cJSON_AddNullToObject(e, "exit_code");
			if (!o->nr_tids && WIFSIGNALED(x->status))
				cJSON_AddNumberToObject(e, "signal", WTERMSIG(x->status));
			else
				cJSON_AddNullToObject(e, "signal");
		} else {
			cJSON_AddNullToObject(e, "exit_monotonic_ns");
			cJSON_AddNullToObject(e, "exit_code");
			cJSON_AddNullToObject(e, "signal");
		}
	}
}

void record_summary__read_cmdline(struct record *r)
{
	pid_t pid = r->o.pids[0];
	cJSON *a = cJSON_CreateArray();
	char path[64], buf[4096];
	size_t n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	for (i = 0; a && i < n; i += strlen(buf + i) + 1)
		cJSON_AddItemToArray(a, cJSON_CreateString(buf + i));
	r->attached_cmdline = a;
}

/*
 * The records a trace's writer could not store and the errno of the first
 * (format 2.2 keeps both in the header, rewritten in place: a full disk
 * cannot hide them). 0 when none or unknown.
 */
static uint64_t trace_lost(struct record_dir *d, const char *name, uint32_t *cause)
{
	struct gp_file_header h;
	int fd = gp_file__input(d->fd, name);
	bool ok;

	*cause = 0;
	if (fd < 0)
		return 0;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, GP_FILE_MAGIC, sizeof(h.magic)) &&
	     (h.version_major > 2 || (h.version_major == 2 && h.version_minor >= 2));
	close(fd);
	if (!ok)
		return 0;
	*cause = h.lost_cause;
	return h.lost_records;
}

static void add_trace(struct record_dir *d, const char *name, uint64_t size, void *arg)
{
	cJSON *e = cJSON_CreateObject();
	uint32_t cause;
	uint64_t lost = trace_lost(d, name, &cause);

	if (!e)
		return;
	cJSON_AddStringToObject(e, "file", name);
	cJSON_AddNumberToObject(e, "bytes", (double)size);
	add_u64(e, "lost_records", lost);
	if (lost)
		cJSON_AddStringToObject(e, "lost_cause", strerror(cause ? (int)cause : EIO));
	cJSON_AddItemToArray(arg, e);
}

/* A GPU trace whose writer lost records: say how many and why (the disk, not the rings). */
static void warn_trace_lost(struct record_dir *d, const char *name, uint64_t size, void *arg)
{
	uint32_t cause;
	uint64_t lost = trace_lost(d, name, &cause);

	(void)size;
	(void)arg;
	if (lost)
		fprintf(stderr,
			"gpuperf record: warning: %" PRIu64 " GPU records could not be written to "
			"%s: %s\n",
			lost, name, strerror(cause ? (int)cause : EIO));
}

int record_summary__json(struct record *r, const struct cpu_agent_stats *st)
{
	const struct record_opts *o = &r->o;
	cJSON *j = cJSON_CreateObject(), *opts, *cmd, *tgt, *ag, *gpu;
	char *text = NULL;
	FILE *f = NULL;
	size_t i;
	int fd, err = -ENOMEM;

	if (!j)
		goto out;
	if (o->argc) {
		cmd = cJSON_AddArrayToObject(j, "command_line");
		for (i = 0; cmd && i < (size_t)o->argc; i++)
			cJSON_AddItemToArray(cmd, cJSON_CreateString(o->argv[i]));
	} else {
		cJSON_AddItemToObject(j, "command_line", r->attached_cmdline
								    ? r->attached_cmdline
								    : cJSON_CreateArray());
		r->attached_cmdline = NULL; /* owned by j now */
	}
	cJSON_AddStringToObject(j, "gpuperf_version", GPUPERF_VERSION);
	add_u64(j, "start_realtime_ns", r->start_real_ns);
	add_u64(j, "start_monotonic_ns", r->start_mono_ns);
	add_u64(j, "end_monotonic_ns", r->end_mono_ns);
	cJSON_AddStringToObject(j, "dir", r->dir.path);

	opts = cJSON_AddObjectToObject(j, "options");
	if (opts) {
		cJSON_AddBoolToObject(opts, "cpu", o->cpu);
		cJSON_AddBoolToObject(opts, "gpu", o->gpu);
		cJSON_AddBoolToObject(opts, "on_cpu", o->cpu && o->on_cpu);
		cJSON_AddNumberToObject(opts, "freq_hz", o->freq_hz);
		cJSON_AddBoolToObject(opts, "off_cpu", o->cpu && o->off_cpu);
		cJSON_AddNumberToObject(opts, "min_block_us", o->min_block_us);
		cJSON_AddNumberToObject(opts, "max_block_us", o->max_block_us);
		cJSON_AddBoolToObject(opts, "user_stacks_only", o->user_stacks_only);
		cJSON_AddBoolToObject(opts, "kernel_stacks_only", o->kernel_stacks_only);
		cJSON_AddBoolToObject(opts, "user_threads_only", o->user_threads_only);
		cJSON_AddBoolToObject(opts, "kernel_threads_only", o->kernel_threads_only);
		cJSON_AddNumberToObject(opts, "duration_s", (double)o->duration_s);
		cJSON_AddItemToObject(opts, "pids", int_array(o->pids, o->nr_pids));
		cJSON_AddItemToObject(opts, "tids", int_array(o->tids, o->nr_tids));
		cJSON_AddBoolToObject(opts, "system_wide", o->system_wide);
		cJSON_AddItemToObject(opts, "cpus", int_array(o->cpus, o->nr_cpus));
		if (o->gpu)
			cJSON_AddStringToObject(opts, "inject_lib", r->inject_lib);
	}

	if (!o->argc && (o->nr_pids || o->nr_tids) && st)
		record_json_attached(r, j);
	tgt = cJSON_AddObjectToObject(j, "target");
	if (tgt && o->argc) {
		const struct child *c = &r->prog;
		bool ex = c->waited && WIFEXITED(c->status), sg = c->waited && WIFSIGNALED(c->status);

		cJSON_AddNumberToObject(tgt, "pid", c->pid);
		if (ex)
			cJSON_AddNumberToObject(tgt, "exit_code", WEXITSTATUS(c->status));
		else
			cJSON_AddNullToObject(tgt, "exit_code");
		if (sg)
			cJSON_AddNumberToObject(tgt, "signal", WTERMSIG(c->status));
		else
			cJSON_AddNullToObject(tgt, "signal");
		if (r->u.drop)
			cJSON_AddNumberToObject(tgt, "uid", r->u.uid);
	}

	if (st) {
		ag = cJSON_AddObjectToObject(j, "agent");
		if (ag) {
#define STAT(name) add_u64(ag, #name, st->name)
			STAT(samples);
			STAT(offcpu_spans);
			STAT(offcpu_open);
			STAT(offcpu_repaired);
			STAT(offcpu_missed);
			STAT(procs);
			STAT(modules);
			STAT(modules_dropped);
			STAT(lost_sample);
			STAT(lost_offcpu);
			STAT(lost_proc);
			STAT(lost_stack);
			STAT(lost_writer);
			STAT(perf_maps);
			STAT(perf_maps_skipped);
			STAT(kallsyms_symbols);
			STAT(kallsyms_lost);
#undef STAT
			if (!r->o.user_stacks_only)
				cJSON_AddStringToObject(
					ag, "kallsyms_cache",
					st->kallsyms_cache == CPU_AGENT_KSYM_HIT	   ? "hit"
					: st->kallsyms_cache == CPU_AGENT_KSYM_WRITTEN ? "written"
					: st->kallsyms_cache < 0 ? strerror(-st->kallsyms_cache)
								 : "none");
			cJSON_AddBoolToObject(ag, "sw_clock", st->sw_clock);
			cJSON_AddBoolToObject(ag, "tp_btf", st->tp_btf);
			if (r->o.off_cpu)
				cJSON_AddBoolToObject(ag, "offcpu_iters", st->offcpu_iters);
			if (st->unwinds) {
				cJSON *ends = cJSON_AddObjectToObject(ag, "unwind_ends");

				add_u64(ag, "unwinds", st->unwinds);
				for (i = 0; ends && i < CPU_AGENT_UNWIND_ENDS; i++)
					add_u64(ends, cpu_agent__unwind_end_name((int)i),
						st->unwind_ends[i]);
				add_u64(ag, "unwind_tables", st->unwind_tables);
				add_u64(ag, "unwind_files_no_cfi", st->unwind_files_no_cfi);
				add_u64(ag, "unwind_maps_dropped", st->unwind_maps_dropped);
				add_u64(ag, "unwind_maps_no_segment", st->unwind_maps_no_segment);
				add_u64(ag, "unwind_rescans", st->unwind_rescans);
				add_u64(ag, "unwind_rescans_found", st->unwind_rescans_found);
				add_u64(ag, "offcpu_ustack_lost", st->offcpu_ustack_lost);
			}
			if (r->cache_fd >= 0 && !st->unwind_cache_off) {
				cJSON *c = cJSON_AddObjectToObject(ag, "unwind_cache");

				cJSON_AddStringToObject(c, "dir", r->cache_dir);
				add_u64(c, "hits", st->unwind_cache_hits);
				add_u64(c, "misses", st->unwind_cache_misses);
				add_u64(c, "bad", st->unwind_cache_bad);
				add_u64(c, "written", st->unwind_cache_written);
				add_u64(c, "write_errors", st->unwind_cache_write_errors);
				if (st->unwind_cache_write_errors)
					cJSON_AddStringToObject(
						c, "write_error",
						strerror(st->unwind_cache_write_error));
				add_u64(c, "evicted", st->unwind_cache_evicted);
			}
			if (r->agent_err)
				cJSON_AddStringToObject(ag, "error", cpu_agent__strerror(r->agent_err));
		}
	} else {
		cJSON_AddNullToObject(j, "agent");
	}

	gpu = cJSON_AddArrayToObject(j, "gpu_traces");
	if (gpu)
		record_dir__each(&r->dir, "gpu-*.trace", add_trace, gpu);

	text = cJSON_Print(j);
	if (!text)
		goto out;
	fd = record_dir__create(&r->dir, "record.json");
	if (fd < 0) {
		err = fd;
		r->write_failed = true;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto out;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) < 0) {
		err = -errno;
		goto out;
	}
	err = fclose(f) ? -errno : 0;
	f = NULL;
out:
	if (f)
		fclose(f);
	if (err && !r->write_failed) { /* record_dir__create() said why */
		fprintf(stderr, "gpuperf record: cannot write '%s/record.json': %s\n", r->dir.path,
			strerror(-err));
		r->write_failed = true;
	}
	free(text);
	cJSON_Delete(j);
	return err;
}

static void print_size(struct record_dir *d, const char *name, uint64_t size, void *what)
{
	(void)d;
	fprintf(stderr, "  %-18s %9.1f KiB%s%s\n", name, (double)size / 1024.0, what ? "  " : "",
		what ? (const char *)what : "");
}

void record_summary__print(struct record *r, const struct cpu_agent_stats *st)
{
	const struct child *c = &r->prog;
	double secs = (double)(r->end_mono_ns - r->start_mono_ns) / 1e9;
	uint64_t lost, sum[2] = { 0, 0 }; /* GPU traces, bytes */
	char what[160];

	if (r->o.argc) {
		if (c->waited && WIFEXITED(c->status))
			fprintf(stderr, "gpuperf record: %s exited with status %d after %.2f s\n",
				r->o.argv[0], WEXITSTATUS(c->status), secs);
		else if (c->waited && WIFSIGNALED(c->status))
			fprintf(stderr, "gpuperf record: %s was killed by SIG%s after %.2f s\n",
				r->o.argv[0], child__signame(WTERMSIG(c->status)), secs);
		else
			fprintf(stderr, "gpuperf record: recorded %.2f s of %s\n", secs, r->o.argv[0]);
	} else {
		fprintf(stderr, "gpuperf record: recorded %.2f s\n", secs);
	}
	fprintf(stderr, "gpuperf record: wrote %s/\n", r->dir.path);
	if (st) {
		snprintf(what, sizeof(what),
			 "%" PRIu64 " sample%s, %" PRIu64 " off-CPU span%s, %" PRIu64
			 " process event%s (fork, exec, exit)",
			 st->samples, st->samples == 1 ? "" : "s", st->offcpu_spans,
			 st->offcpu_spans == 1 ? "" : "s", st->procs, st->procs == 1 ? "" : "s");
		record_dir__each(&r->dir, "cpu.trace", print_size, what);
	}
	record_dir__sum(&r->dir, "gpu-*.trace", sum);
	if (sum[0]) {
		record_dir__each(&r->dir, "gpu-*.trace", print_size, NULL);
	} else if (r->o.gpu) {
		fprintf(stderr, "  (no gpu-*.trace: %s made no CUDA call, or the injection library "
				"could not start; see its messages above)\n",
			r->o.argc ? r->o.argv[0] : "the program");
	}
	if (st) {
		lost = st->lost_sample + st->lost_offcpu + st->lost_proc;
		if (lost)
			fprintf(stderr,
				"gpuperf record: warning: lost %" PRIu64 " samples, %" PRIu64
				" off-CPU spans, %" PRIu64 " process events "
				"(ring buffers full: try a lower -F or a higher --min-block)\n",
				st->lost_sample, st->lost_offcpu, st->lost_proc);
		/* not the ring buffers: the disk (ENOSPC, EFBIG) or memory */
		if (st->lost_writer)
			fprintf(stderr,
				"gpuperf record: warning: %" PRIu64 " CPU records could not be "
				"written to cpu.trace: %s\n",
				st->lost_writer, strerror(st->writer_cause ? st->writer_cause : EIO));
		if (st->lost_stack)
			fprintf(stderr, "gpuperf record: warning: %" PRIu64 " stacks could not be read\n",
				st->lost_stack);
		if (st->offcpu_missed)
			fprintf(stderr,
				"gpuperf record: warning: the kernel did not show %" PRIu64
				" context switches to the off-CPU tracer; the blocks they began "
				"are missing from the off-CPU time\n",
				st->offcpu_missed);
		if (st->sw_clock && r->o.verbose)
			fprintf(stderr, "gpuperf record: on-CPU sampling used the software CPU clock\n");
	}
	record_dir__each(&r->dir, "gpu-*.trace", warn_trace_lost, NULL);
	if (r->agent_err)
		fprintf(stderr, "gpuperf record: warning: the CPU trace may be incomplete: %s\n",
			cpu_agent__strerror(r->agent_err));
}
