/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.h - `gpuperf report`: from a recording directory to what a GPU
 * engineer opens. Loads cpu.trace and every gpu-<pid>.trace, aligns clocks,
 * joins GPU work to the CPU stacks that launched it, symbolizes, aggregates
 * the views and writes the outputs (names fixed, see the README):
 *
 *   cpu.folded offcpu.folded gpu.folded profile.folded gpu_idle.folded
 *   profile.svg (+ cpu.svg offcpu.svg gpu.svg when they have data)
 *   trace.json[.gz]  profile.pb.gz  summary.json  analysis.txt
 *   thread-<tid>-<comm>.{folded,svg} with per_thread
 */
#ifndef GPUPERF_REPORT_H
#define GPUPERF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum report_format {
	REPORT_FOLDED = 1u << 0,
	REPORT_SVG = 1u << 1,
	REPORT_CHROME = 1u << 2,
	REPORT_PPROF = 1u << 3,
	REPORT_JSON = 1u << 4,
	REPORT_PERFETTO = 1u << 5, /* trace.pftrace */
	/* one timeline, by size: trace.json, or past REPORT_GZIP_AUTO_BYTES of JSON (with
	 * gzip auto) trace.pftrace, which loads where JSON of that size does not */
	REPORT_TRACE = 1u << 6,
	REPORT_ALL = REPORT_FOLDED | REPORT_SVG | REPORT_TRACE | REPORT_PPROF | REPORT_JSON,
};

/* When trace.json is written gzip'd, as trace.json.gz (report_opts.gzip). */
enum report_gzip {
	REPORT_GZIP_AUTO = 0, /* when it would be larger than REPORT_GZIP_AUTO_BYTES */
	REPORT_GZIP_ALWAYS,
	REPORT_GZIP_NEVER,
};

/*
 * Past this size a browser does not open a JSON trace any more
 * (chrome://tracing's limit is 256 MB; Perfetto UI's in-browser engine runs
 * out of its ~2 GB at a few hundred MB of JSON), so the trace is for
 * trace_processor (--httpd, with the UI on top), which reads gzip: then it
 * is written at zlib level 1, a twentieth of the bytes.
 */
#define REPORT_GZIP_AUTO_BYTES (256ull << 20)

struct report_opts {
	const char *dir;	    /* the recording */
	const char *out_dir;	    /* where outputs go [dir] */
	unsigned formats;	    /* enum report_format bits [REPORT_ALL] */
	bool per_thread;	    /* thread-<tid>-<comm>.* as well */
	enum report_gzip gzip;	    /* trace.json or trace.json.gz [auto] */
	const char *debuginfo_path; /* extra separate-debug-file directories */
	FILE *text;		    /* the short text report [none] */
	FILE *warn;		    /* its warnings, also without text [in text] */
	unsigned top;		    /* rows per table of the text report [10] */
	const char *tool_version;   /* for summary.json ["unknown"] */
};

/* Counts the caller may print or check. */
struct report_result {
	size_t gpu_records, gpu_with_stack;
	size_t samples, offcpu_spans;
	size_t warnings;
	size_t files_written;
	bool trace_gzipped;  /* trace.json.gz was written */
	bool trace_json;     /* trace.json or trace.json.gz was written */
	bool trace_perfetto; /* trace.pftrace was written */
	bool trace_by_size;  /* REPORT_TRACE chose trace.pftrace for the JSON's size */
};

/*
 * Run the whole report. Returns 0 (outputs written; warnings about damaged
 * input are in the text report and summary.json), or -errno with one line
 * in errbuf: -ENOENT (DIR missing or holds no trace), -EIO (an output could
 * not be written), -ENOMEM.
 */
int report__run(const struct report_opts *opts, struct report_result *res, char *errbuf,
		size_t errlen);

/*
 * Parse a --format list ("folded,svg,trace,chrome,perfetto,pprof,json" or
 * "all"); -EINVAL on an unknown word.
 */
int report__parse_formats(const char *list, unsigned *formats);

#endif /* GPUPERF_REPORT_H */
