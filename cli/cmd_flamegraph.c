// SPDX-License-Identifier: Apache-2.0
/* cmd_flamegraph.c - `gpuperf flamegraph`: render folded stacks as an interactive SVG flame graph. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "flamegraph_svg.h"
#include "folded.h"
#include "stack_agg.h"

static const char flamegraph_usage[] =
	"usage: gpuperf flamegraph [options] [FILE.folded | -] [-o OUT.svg]\n"
	"\n"
	"Render folded stacks (flamegraph.pl's input: frames root first joined by ';',\n"
	"a space, a weight) as a self-contained interactive SVG. Reads stdin when FILE\n"
	"is '-' or missing; writes stdout unless -o is given.\n"
	"\n"
	"  -o, --output FILE       write the SVG to FILE\n"
	"  -t, --title TEXT        title [Flame Graph]\n"
	"      --subtitle TEXT     second line under the title\n"
	"  -w, --width PX          image width [1200]\n"
	"      --height PX         height of one frame [16]\n"
	"      --minwidth PX       leave out frames narrower than PX [0.1]; 0 keeps all\n"
	"  -i, --inverted          icicle graph: roots at the top\n"
	"  -u, --units UNIT        what the weights are: ns (default; shown as ns, us,\n"
	"                          ms, s) or samples (plain counts)\n"
	"      --countname NAME    word for plain counts [samples]; implies --units samples\n"
	"      --no-markers        do not color frames by gpuperf's name markers\n"
	"                          ([gpu] x, [memcpy ..], [memset], [off-cpu])\n"
	"  -h, --help              show this help\n"
	"\n"
	"Trailing _[k] _[i] _[j] _[w] annotations mark kernel, inline, JIT and waker\n"
	"frames and are stripped, as flamegraph.pl does. Lines that are not stacks are\n"
	"skipped and counted in one warning.\n"
	"\n"
	"Exit status: 0 on success (also with skipped lines), 1 when the input cannot\n"
	"be read or the output cannot be written, 2 on usage errors.\n";

/* The one number parser of this command: a finite decimal in [lo, hi]. */
static int parse_number(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "gpuperf flamegraph: invalid %s '%s': expected a number in [%g, %g]\n",
			opt, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

enum { OPT_SUBTITLE = 256, OPT_HEIGHT, OPT_MINWIDTH, OPT_COUNTNAME, OPT_NO_MARKERS };

int cmd_flamegraph(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
		{ "width", required_argument, NULL, 'w' },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
		{ "inverted", no_argument, NULL, 'i' },
		{ "units", required_argument, NULL, 'u' },
		{ "countname", required_argument, NULL, OPT_COUNTNAME },
		{ "no-markers", no_argument, NULL, OPT_NO_MARKERS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct flamegraph_opts fo = { 0 };
	struct folded_read_stats st;
	const char *in_path = "-", *out_path = NULL, *in_name;
	unsigned read_flags = FOLDED_READ_MARKERS;
	struct stack_agg *agg = NULL;
	FILE *in = NULL, *out = NULL;
	double v;
	int opt, err, ret = GP_EXIT_USAGE;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:t:w:iu:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case 't':
			fo.title = optarg;
			break;
		case OPT_SUBTITLE:
			fo.subtitle = optarg;
			break;
		case 'w':
			if (parse_number("--width", optarg, 200, 100000, &v))
				return GP_EXIT_USAGE;
			fo.width = (unsigned)v;
			break;
		case OPT_HEIGHT:
			if (parse_number("--height", optarg, 4, 200, &v))
				return GP_EXIT_USAGE;
			fo.frame_height = (unsigned)v;
			break;
		case OPT_MINWIDTH:
			if (parse_number("--minwidth", optarg, 0, 10000, &v))
				return GP_EXIT_USAGE;
			fo.min_width = v > 0 ? v : -1; /* the renderer reads 0 as "default" */
			break;
		case 'i':
			fo.inverted = true;
			break;
		case 'u':
			if (!strcmp(optarg, "ns")) {
				fo.units = FLAMEGRAPH_UNITS_NS;
			} else if (!strcmp(optarg, "samples") || !strcmp(optarg, "count")) {
				fo.units = FLAMEGRAPH_UNITS_COUNT;
			} else {
				fprintf(stderr,
					"gpuperf flamegraph: invalid --units '%s': expected ns or samples\n",
					optarg);
				return GP_EXIT_USAGE;
			}
			break;
		case OPT_COUNTNAME:
			fo.units = FLAMEGRAPH_UNITS_COUNT;
			fo.count_name = optarg;
			break;
		case OPT_NO_MARKERS:
			read_flags &= ~(unsigned)FOLDED_READ_MARKERS;
			break;
		case 'h':
			fputs(flamegraph_usage, stdout);
			return GP_EXIT_OK;
		default:
			fputs(flamegraph_usage, stderr);
			return GP_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "gpuperf flamegraph: one input file at most (got %d)\n", argc - optind);
		return GP_EXIT_USAGE;
	}
	if (optind < argc)
		in_path = argv[optind];

	ret = GP_EXIT_DATA;
	in_name = strcmp(in_path, "-") ? in_path : "<stdin>";
	in = strcmp(in_path, "-") ? fopen(in_path, "r") : stdin;
	if (!in) {
		fprintf(stderr, "gpuperf flamegraph: cannot open '%s': %s\n", in_path, strerror(errno));
		goto cleanup;
	}
	agg = stack_agg__new();
	if (!agg) {
		fprintf(stderr, "gpuperf flamegraph: %s\n", strerror(errno));
		goto cleanup;
	}
	err = folded__read(agg, in, read_flags, &st);
	if (err) {
		fprintf(stderr, "gpuperf flamegraph: cannot read '%s': %s\n", in_name, strerror(-err));
		goto cleanup;
	}
	if (st.bad_lines)
		fprintf(stderr,
			"gpuperf flamegraph: warning: skipped %llu of %llu lines in '%s' that are not "
			"folded stacks (first: line %llu)\n",
			(unsigned long long)st.bad_lines, (unsigned long long)st.lines, in_name,
			(unsigned long long)st.first_bad_line);
	if (!stack_agg__total(agg))
		fprintf(stderr, "gpuperf flamegraph: warning: no stack weights found in '%s'\n",
			in_name);

	out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "gpuperf flamegraph: cannot create '%s': %s\n", out_path,
			strerror(errno));
		goto cleanup;
	}
	err = flamegraph__write_svg(agg, &fo, out);
	if (out_path) {
		if (fclose(out) && !err)
			err = -errno;
		out = NULL;
	}
	if (err) {
		fprintf(stderr, "gpuperf flamegraph: cannot write '%s': %s\n",
			out_path ? out_path : "<stdout>", strerror(-err));
		goto cleanup;
	}
	ret = GP_EXIT_OK;
cleanup:
	stack_agg__free(agg);
	if (in && in != stdin)
		fclose(in);
	if (out && out != stdout)
		fclose(out);
	return ret;
}
