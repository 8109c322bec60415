// SPDX-License-Identifier: Apache-2.0
/*
 * report.c - `gpuperf report`: load, join, symbolize, aggregate, write.
 *
 * The driver: it loads the recording (timeline.h), joins it (correlate.h),
 * sets up the symbolizer, has the views built (report_state.h, gpu_idle.h)
 * and hands them to the writers. What each view draws: frames.h.
 */
#include "report.h"

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
#include "flamegraph_svg.h"
#include "folded.h"
#include "gp_file.h"
#include "gp_record.h"
#include "gp_util.h"
#include "gpu_idle.h"
#include "perfetto_trace.h"
#include "pprof_report.h"
#include "record_json.h"
#include "report_state.h"
#include "report_stats.h"
#include "stack_agg.h"
#include "summary.h"
#include "symbolize.h"
#include "timeline.h"

/* One run: the state the views and writers share, and what only the driver reads. */
struct run {
	struct report_state s;
	const struct report_opts *opts;
	char *errbuf;
	size_t errlen;
};

static void set_err(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->errbuf || !r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->errbuf, r->errlen, fmt, ap);
	va_end(ap);
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

		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i].name) == len && !strncmp(words[i].name, p, len))
				break;
		if (i == ARRAY_SIZE(words))
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

/* Register every recorded mapping, fork parent and JIT map with the symbolizer. */
static int setup_symbols(struct run *r)
{
	struct timeline *tl = r->s.tl;
	struct symbolizer_opts so = { .debuginfo_path = r->opts->debuginfo_path };
	char path[4096];
	struct dirent *de;
	size_t i, bad = 0;
	DIR *d;
	int err;

	r->s.sym = symbolizer__new(&so);
	if (!r->s.sym)
		return -ENOMEM;
	for (i = 0; i < tl->nr_modules; i++) {
		const struct tl_module *m = &tl->modules[i];

		err = symbolizer__add_module(r->s.sym, m->pid, timeline__str(tl, m->path), m->start,
					     m->end, m->pgoff, m->build_id, m->build_id_size);
		/* A damaged record (an empty range) is skipped, as the reading rules say. */
		if (err == -EINVAL)
			bad++;
		else if (err)
			return err;
	}
	if (bad && report_state__warn(&r->s,
				      "%zu module record%s with an empty address range skipped: "
				      "frames in them stay unnamed",
				      bad, bad == 1 ? "" : "s"))
		return -ENOMEM;
	for (i = 0; i < tl->nr_procs; i++)
		if (tl->procs[i].ppid && tl->procs[i].forked)
			symbolizer__set_parent(r->s.sym, tl->procs[i].pid, tl->procs[i].ppid);
	snprintf(path, sizeof(path), "%s/kallsyms", r->opts->dir);
	symbolizer__load_kallsyms(r->s.sym, path); /* absent: kernel frames stay addresses */
	d = opendir(r->opts->dir);
	while (d && (de = readdir(d))) {
		unsigned pid;

		if (fnmatch("perf-*.map", de->d_name, 0) || sscanf(de->d_name, "perf-%u.map", &pid) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->opts->dir, de->d_name);
		symbolizer__load_perf_map(r->s.sym, pid, path);
	}
	if (d)
		closedir(d);
	return 0;
}

static int open_out(struct run *r, const char *name, FILE **out)
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

static int close_out(struct run *r, const char *name, FILE *out, int err)
{
	if (fclose(out) && !err)
		err = -EIO;
	if (err == -EIO)
		set_err(r, "cannot write '%s/%s': %s", r->opts->out_dir, name, strerror(errno));
	return err;
}

static int write_folded(struct run *r, struct stack_agg *agg, const char *name)
{
	FILE *out;
	int err = open_out(r, name, &out);

	if (err)
		return err;
	err = folded__write(agg, out, FOLDED_ANNOTATE);
	return close_out(r, name, out, err);
}

static int write_svg(struct run *r, struct stack_agg *agg, const char *name, const char *title,
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

static int write_thread_views(struct run *r, struct report_result *res)
{
	const struct thread_views *tv = &r->s.threads;
	size_t i;
	int err = 0;

	for (i = 0; i < tv->n && !err; i++) {
		const struct tl_thread *t = timeline__thread(r->s.tl, tv->v[i].pid, tv->v[i].tid);
		const struct tl_proc *p = timeline__proc(r->s.tl, tv->v[i].pid);
		const char *comm = t ? timeline__str(r->s.tl, t->name) : "";
		char name[64], file[128], title[160];

		if (!*comm && p)
			comm = timeline__str(r->s.tl, p->comm);
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
	struct run *r = ctx;
	const uint64_t *ips = timeline__frames(r->s.tl, st);
	const struct sym_frame *sf;

	if (st->nr_user) {
		symbolizer__user(r->s.sym, pid, ips[0], false, &sf);
		return sf[0].name;
	}
	if (st->nr_kernel)
		return symbolizer__kernel(r->s.sym, ips[0])->name;
	return NULL;
}

/* A sample's frames as cpu.folded has them (r->s.fb is free once the views are built). */
static long ct_sample_frames(void *ctx, const struct tl_sample *s, const struct stack_frame **frames)
{
	struct run *r = ctx;

	r->s.fb.n = 0;
	if (frames__sample(&r->s.frames, s, &r->s.fb))
		return -1;
	*frames = r->s.fb.f;
	return (long)r->s.fb.n;
}

static const char *ct_kernel_name(void *ctx, const char *mangled)
{
	return symbolizer__demangle(((struct run *)ctx)->s.sym, mangled);
}

static const char *ct_process_name(void *ctx, uint32_t pid)
{
	struct run *r = ctx;
	const struct tl_proc *p = timeline__proc(r->s.tl, pid);

	return p ? r->s.frames.proc_root[p - r->s.tl->procs] : NULL;
}

static const char *ct_thread_name(void *ctx, uint32_t pid, uint32_t tid)
{
	struct run *r = ctx;
	const struct tl_thread *t = timeline__thread(r->s.tl, pid, tid);

	return t && t->name ? timeline__str(r->s.tl, t->name) : NULL;
}

static const char *ct_device_name(void *ctx, uint32_t device)
{
	struct run *r = ctx;
	const struct tl_device *d = timeline__device(r->s.tl, device);

	return d && d->name ? timeline__str(r->s.tl, d->name) : NULL;
}

/* Remove out_dir/name if it is there (a stale output of another kind). */
static int remove_output(struct run *r, const char *name)
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
static int write_timeline(struct run *r, const char *name, const char *mode, bool perfetto)
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
		err = perfetto ? perfetto_trace__write(r->s.tl, &r->s.corr, &names, path)
			       : chrome_trace__write_path(r->s.tl, &r->s.corr, &names, path);
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
	err = chrome_trace__write(r->s.tl, &r->s.corr, &names, out);
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
static int write_timelines(struct run *r, struct report_result *res)
{
	unsigned fmt = r->opts->formats;
	bool json = fmt & REPORT_CHROME, pf = fmt & REPORT_PERFETTO, big, gz;
	int err = 0;

	if (!(fmt & (REPORT_CHROME | REPORT_PERFETTO | REPORT_TRACE)))
		return 0;
	big = chrome_trace__estimate_size(r->s.tl, REPORT_GZIP_AUTO_BYTES) > REPORT_GZIP_AUTO_BYTES;
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

static int write_outputs(struct run *r, struct report_result *res)
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
	for (i = 0; i < ARRAY_SIZE(files) && !err; i++) {
		struct stack_agg *agg = r->s.view[files[i].view];

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
			.time_nanos = r->s.start_realtime_ns,
			.duration_nanos = r->s.duration_ns,
			.period = r->s.freq_hz ? 1000000000ull / r->s.freq_hz : 0,
		};
		char path[4096];

		snprintf(path, sizeof(path), "%s/profile.pb.gz", r->opts->out_dir);
		err = pprof_report__write(&r->s, path, &po);
		if (err)
			set_err(r, "cannot write '%s': %s", path, strerror(-err));
		err = err ? -EIO : 0;
		res->files_written += !err;
	}
	if (!err && (fmt & REPORT_JSON)) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/summary.json", r->opts->out_dir);
		err = summary__write_json(&r->s, path);
		if (err)
			set_err(r, "cannot write '%s': %s", path, strerror(-err));
		res->files_written += !err;
	}
	if (!err && (fmt & REPORT_JSON)) {
		err = analysis__write_text(&r->s, "analysis.txt");
		if (err)
			set_err(r, "cannot write '%s/analysis.txt': %s", r->opts->out_dir, strerror(-err));
		res->files_written += !err;
	}
	return err;
}

int report__run(const struct report_opts *opts, struct report_result *res, char *errbuf,
		size_t errlen)
{
	struct report_opts o = *opts;
	struct run r = { .opts = &o, .errbuf = errbuf, .errlen = errlen };
	struct report_result dummy;
	const char *why = NULL;
	char why_buf[512];
	struct record_json rj;
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
	r.s.out_dir = o.out_dir;
	r.s.top = o.top;
	r.s.tool_version = o.tool_version;
	r.s.warnings_apart = o.warn != NULL;
	r.s.per_thread = o.per_thread;
	r.s.tl = timeline__new();
	if (!r.s.tl)
		return -ENOMEM;
	err = timeline__load_dir(r.s.tl, o.dir, &why);
	if (err) {
		set_err(&r, "%s", why ? why : strerror(-err));
		goto out;
	}
	if (!r.s.tl->nr_files) {
		set_err(&r, "no readable trace in '%s': %s", o.dir,
			timeline__nr_warnings(r.s.tl) ? timeline__warning(r.s.tl, 0) : "?");
		err = -ENOENT;
		goto out;
	}
	timeline__finish(r.s.tl);
	err = correlate__run(r.s.tl, &r.s.corr);
	if (!err)
		err = correlate__check_one_recording(r.s.tl, why_buf, sizeof(why_buf));
	if (err == 1)
		err = report_state__warn(&r.s, "%s", why_buf);
	if (err)
		goto out;
	record_json__read(&rj, o.dir);
	r.s.freq_hz = rj.freq_hz;
	r.s.command_line_json = rj.command_line_json; /* now the state's */
	r.s.attached = rj.attached;
	r.s.start_ns = rj.start_ns;
	r.s.end_ns = rj.end_ns;
	if (!r.s.end_ns) {
		/* no record.json (or none that says): the records' own extent */
		r.s.start_ns = r.s.tl->first_ts;
		r.s.end_ns = r.s.tl->last_ts > r.s.tl->first_ts ? r.s.tl->last_ts : r.s.tl->first_ts;
	}
	r.s.duration_ns = r.s.end_ns - r.s.start_ns;
	/* the wall-clock time of the start, from the file headers' pair of clocks */
	for (i = 0; i < r.s.tl->nr_files; i++) {
		const struct tl_file *f = &r.s.tl->files[i];

		if (f->start_realtime_ns && f->start_monotonic_ns && r.s.start_ns) {
			r.s.start_realtime_ns = f->start_realtime_ns + (r.s.start_ns - f->start_monotonic_ns);
			break;
		}
	}
	err = setup_symbols(&r);
	if (!err)
		err = frames__init(&r.s.frames, r.s.tl, r.s.sym);
	for (i = 0; i < VIEW_COUNT && !err; i++) {
		r.s.view[i] = stack_agg__new();
		if (!r.s.view[i])
			err = -ENOMEM;
	}
	/*
	 * Only what is written needs building: the timelines (-f chrome,perfetto)
	 * need neither the views nor the idle gaps; the text report needs both.
	 */
	if (!err && ((o.formats & (REPORT_FOLDED | REPORT_SVG | REPORT_PPROF | REPORT_JSON)) ||
		     o.text || o.per_thread))
		err = report_state__build_views(&r.s);
	if (!err && ((o.formats & REPORT_FOLDED) || o.text))
		err = gpu_idle__build(&r.s);
	if (!err)
		err = write_outputs(&r, res);
	if (!err && o.per_thread)
		err = write_thread_views(&r, res);
	if (!err && o.text)
		summary__write_text(&r.s, o.text);
	if (!err && o.warn)
		summary__write_warnings(&r.s, o.warn);
	res->gpu_records = r.s.corr.nr_gpu;
	res->gpu_with_stack = r.s.corr.gpu_with_stack;
	res->samples = r.s.tl->nr_samples;
	res->offcpu_spans = r.s.tl->nr_offcpu;
	res->warnings = timeline__nr_warnings(r.s.tl) + r.s.nr_warnings;
	if (err == -ENOMEM)
		set_err(&r, "out of memory");
out:
	report_stats__free(&r.s);
	report_state__release(&r.s);
	return err;
}
