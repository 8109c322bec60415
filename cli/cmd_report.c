// SPDX-License-Identifier: Apache-2.0
/* cmd_report.c - `gpuperf report DIR`: the merger's outputs for a recording. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "report.h"
#include "user.h"

static const char report_usage[] =
	"usage: gpuperf report [options] DIR\n"
	"\n"
	"Read DIR/cpu.trace and every DIR/gpu-<pid>.trace written by 'gpuperf record',\n"
	"join each GPU kernel, memcpy and memset to the CPU stack that launched it, and\n"
	"write into DIR:\n"
	"\n"
	"  profile.svg       interactive flame graph: on-CPU, off-CPU and GPU time together\n"
	"  cpu.svg offcpu.svg gpu.svg   the same views one at a time (when not empty)\n"
	"  *.folded          cpu, offcpu, gpu, profile and gpu_idle stacks in FlameGraph's\n"
	"                    folded format (ns weights): flamegraph.pl, speedscope, inferno\n"
	"  trace.json        timeline for https://ui.perfetto.dev; past\n"
	"                    256 MiB of JSON, more than a browser loads, trace.pftrace\n"
	"                    instead: the same timeline in Perfetto's own format, a third\n"
	"                    of the size (ui.perfetto.dev, trace_processor)\n"
	"  profile.pb.gz     pprof profile: go tool pprof, Pyroscope, Grafana\n"
	"  summary.json      totals, kernels, copies, launch sites (gpuperf diff reads it)\n"
	"\n"
	"and print a short text report on stdout (status and warnings on stderr).\n"
	"Stacks start at the process's name; processes that share a name (a build's\n"
	"cc1, an MPI job's ranks) share that root, each as a [pid] frame under it.\n"
	"\n"
	"  -f, --format LIST   outputs to write: folded, svg, trace (trace.json or\n"
	"                      trace.pftrace by size), chrome (trace.json), perfetto\n"
	"                      (trace.pftrace), pprof, json, or all: all but chrome and\n"
	"                      perfetto, which trace chooses between [all]\n"
	"      --per-thread    also thread-<tid>-<comm>.folded and .svg for every thread\n"
	"  -z, --gzip[=WHEN]   write trace.json.gz instead of trace.json: always (-z,\n"
	"                      --gzip), never, or auto: with -f chrome, when trace.json\n"
	"                      would be over 256 MiB [auto]; always or never also keep\n"
	"                      -f trace from switching to trace.pftrace\n"
	"  -o, --output DIR    write the outputs to DIR (made if missing) instead of the\n"
	"                      recording's directory\n"
	"      --debuginfo DIR also look for separate debug files under DIR\n"
	"      --top N         rows per table of the text report [10]\n"
	"  -q, --quiet         no text report\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when the outputs were written (damaged traces give warnings and\n"
	"what was intact is used), 1 when DIR holds no trace or an output cannot be\n"
	"written, 2 on usage errors.\n";

enum { OPT_PER_THREAD = 256, OPT_DEBUGINFO, OPT_TOP };

/*
 * Root reports as the user the recording belongs to: the sudo user, else
 * the owner of DIR (of DIR's link, when DIR is a link) when that is not
 * root. Their outputs are then theirs, and what DIR holds (links, FIFOs,
 * paths to device nodes) can make root neither write nor read anything.
 * 0, or -errno printed.
 */
static int report_drop_root(const char *dir)
{
	struct stat lsb, sb;
	struct gp_user u;
	int err;

	if (geteuid() != 0)
		return 0;
	err = gp_user__sudo(&u);
	if (!err && !u.drop && !lstat(dir, &lsb)) {
		/* a link someone else owns speaks for them, wherever it points */
		if (S_ISLNK(lsb.st_mode) && lsb.st_uid != 0)
			sb = lsb;
		else if (stat(dir, &sb))
			sb.st_uid = 0;
		if (sb.st_uid != 0)
			err = gp_user__of(&u, sb.st_uid, sb.st_gid);
	}
	if (!err)
		err = gp_user__become(&u);
	if (err)
		fprintf(stderr, "gpuperf report: cannot give up root for uid %u: %s\n",
			(unsigned)u.uid, strerror(-err));
	gp_user__release(&u);
	return err;
}

int cmd_report(int argc, char **argv)
{
	return report_main(argc, argv, stdout);
}

int report_main(int argc, char **argv, FILE *text)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "gzip", optional_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "debuginfo", required_argument, NULL, OPT_DEBUGINFO },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .formats = REPORT_ALL, .text = text, .warn = stderr,
				 .tool_version = GPUPERF_VERSION };
	struct report_result res;
	char errbuf[512] = "";
	char *end;
	long top;
	int c, err;

	optind = 0; /* glibc: start over, permuting (record may have parsed before us) */
	opterr = 0;
	/* options anywhere, as flamegraph and diff take them: `gpuperf report DIR -q` */
	while ((c = getopt_long(argc, argv, "f:zo:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (report__parse_formats(optarg, &o.formats)) {
				fprintf(stderr, "gpuperf report: invalid --format '%s': expected a "
						"comma-separated list of folded, svg, chrome, pprof, json, all\n",
					optarg);
				return GP_EXIT_USAGE;
			}
			break;
		case OPT_PER_THREAD:
			o.per_thread = true;
			break;
		case 'z':
			if (!optarg || !strcmp(optarg, "always")) {
				o.gzip = REPORT_GZIP_ALWAYS;
			} else if (!strcmp(optarg, "never")) {
				o.gzip = REPORT_GZIP_NEVER;
			} else if (!strcmp(optarg, "auto")) {
				o.gzip = REPORT_GZIP_AUTO;
			} else {
				fprintf(stderr, "gpuperf report: invalid --gzip '%s': expected always, "
						"never or auto\n", optarg);
				return GP_EXIT_USAGE;
			}
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		case OPT_DEBUGINFO:
			o.debuginfo_path = optarg;
			break;
		case OPT_TOP:
			errno = 0;
			top = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || top < 1 || top > 10000) {
				fprintf(stderr, "gpuperf report: invalid --top '%s': expected a number "
						"in [1, 10000]\n", optarg);
				return GP_EXIT_USAGE;
			}
			o.top = (unsigned)top;
			break;
		case 'q':
			o.text = NULL;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return GP_EXIT_OK;
		default:
			fprintf(stderr, "gpuperf report: unknown option '%s'\n%s", argv[optind - 1],
				report_usage);
			return GP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "gpuperf report: %s\n%s",
			optind == argc ? "missing DIR" : "one DIR at a time", report_usage);
		return GP_EXIT_USAGE;
	}
	o.dir = argv[optind];
	if (report_drop_root(o.dir))
		return GP_EXIT_DATA;
	err = report__run(&o, &res, errbuf, sizeof(errbuf));
	if (err) {
		fprintf(stderr, "gpuperf report: %s\n", errbuf[0] ? errbuf : strerror(-err));
		return GP_EXIT_DATA;
	}
	if (o.text) {
		char list[512] = "";
		size_t n = 0;

#define ADD(cond, what)                                                                            \
	do {                                                                                       \
		if ((cond) && n < sizeof(list))                                                    \
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",   \
					      what);                                               \
	} while (0)
		/* what this run wrote, in the order a reader opens them */
		ADD(o.formats & REPORT_SVG, "profile.svg (open in a browser)");
		ADD(res.trace_json && !res.trace_gzipped, "trace.json (ui.perfetto.dev)");
		ADD(res.trace_json && res.trace_gzipped && o.gzip == REPORT_GZIP_ALWAYS,
		    "trace.json.gz (ui.perfetto.dev)");
		ADD(res.trace_json && res.trace_gzipped && o.gzip != REPORT_GZIP_ALWAYS,
		    "trace.json.gz (too large for a browser: trace_processor --httpd "
		    "trace.json.gz, then ui.perfetto.dev)");
		ADD(res.trace_perfetto && res.trace_by_size,
		    "trace.pftrace (the timeline; too large as JSON: ui.perfetto.dev or "
		    "trace_processor --httpd)");
		ADD(res.trace_perfetto && !res.trace_by_size, "trace.pftrace (ui.perfetto.dev)");
		ADD(o.formats & REPORT_PPROF, "profile.pb.gz (go tool pprof)");
		ADD(o.formats & REPORT_JSON, "summary.json, analysis.txt");
		ADD(o.formats & REPORT_FOLDED, "*.folded");
#undef ADD
		fprintf(text, "\noutputs in %s/: %s\n", o.out_dir ? o.out_dir : o.dir, list);
	}
	return GP_EXIT_OK;
}
