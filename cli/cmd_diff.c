// SPDX-License-Identifier: Apache-2.0
/* cmd_diff.c - `gpuperf diff`: compare two recordings' summaries, the CI regression gate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "diff.h"
#include "flamegraph_svg.h"
#include "folded.h"
#include "gp_util.h"
#include "parse.h"
#include "stack_agg.h"
#include "summary_read.h"

static const char diff_usage[] =
    "usage: gpuperf diff [options] BASE NEW\n"
    "   or: gpuperf diff [options] --base BASE... --new NEW...\n"
    "\n"
    "Compare two recordings and fail when the new one is slower. BASE and NEW are\n"
    "report directories (written by 'gpuperf report', holding summary.json) or\n"
    "summary.json files. With several runs per side each value is the median of\n"
    "its runs, and a change inside the runs' spread is reported as noise, never\n"
    "as a regression.\n"
    "\n"
    "Compared: GPU busy and idle time (per device when there are several), each\n"
    "kernel's total time (by name; launches and mean shown), each memcpy kind's\n"
    "time (bytes shown), CPU on/off time, and with --by-site each launch site's\n"
    "GPU time. New and vanished items are listed.\n"
    "\n"
    "  --base PATH...          the base runs (the paths up to the next option)\n"
    "  --new PATH...           the new runs\n"
    "  -t, --threshold SPEC    percent change that counts, PCT and/or METRIC=PCT\n"
    "                          list, e.g. 5 or 5,kernel=3,memcpy=10 [5]; metrics:\n"
    "                          gpu_busy gpu_idle kernel memcpy site cpu_on cpu_off\n"
    "      --min-time NS       skip items under NS ns on both sides [10000]\n"
    "      --by-site           also compare launch sites (stack + API call)\n"
    "      --ignore REGEX      leave out items whose name matches (repeatable)\n"
    "      --fail-on-new       a new item above --min-time is a regression too\n"
    "      --config FILE       JSON settings (docs/diff.md); options given here win\n"
    "      --json[=FILE]       JSON result to stdout instead of the table, or to FILE\n"
    "      --markdown[=FILE]   Markdown (a PR comment) to stdout, or to FILE\n"
    "      --svg FILE          differential flame graph of the folded stacks beside\n"
    "                          the summaries: width = new, red slower, blue faster\n"
    "      --folded NAME       folded file to use for --svg [gpu.folded if every\n"
    "                          run has one, else profile.folded]\n"
    "      --color WHEN        auto, always or never [auto: when stdout is a terminal]\n"
    "  -h, --help              show this help\n"
    "\n"
    "Exit status: 0 no regression (also: nothing to compare), 1 a regression\n"
    "beyond its threshold and beyond the noise, 2 usage or input error (missing\n"
    "or invalid summary.json, an incompatible schema version, a bad config).\n";

#define ME "gpuperf diff"

struct diff_cli {
	const char **base, **new_;
	size_t n_base, n_new;
	const char *threshold, *min_time, *config, *svg, *folded, *color;
	const char *json, *markdown; /* "" = stdout */
	const char **ignore;
	size_t n_ignore;
	bool by_site, fail_on_new;
};

enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

static int push_path(const char ***v, size_t *n, const char *p)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = p;
	*v = nv;
	return 0;
}

/*
 * Hand-rolled rather than getopt_long: --base and --new take every path up
 * to the next option (what a shell glob expands to), which getopt cannot say.
 * Returns -1 to go on, or the exit status.
 */
static int parse_args(int argc, char **argv, struct diff_cli *cli)
{
	static const struct {
		const char *name;
		char shrt;
		enum opt_arg arg;
	} opts[] = {
	    {"base", 0, ARG_NONE},
	    {"new", 0, ARG_NONE},
	    {"threshold", 't', ARG_REQUIRED},
	    {"min-time", 0, ARG_REQUIRED},
	    {"by-site", 0, ARG_NONE},
	    {"ignore", 0, ARG_REQUIRED},
	    {"fail-on-new", 0, ARG_NONE},
	    {"config", 0, ARG_REQUIRED},
	    {"json", 0, ARG_OPTIONAL},
	    {"markdown", 0, ARG_OPTIONAL},
	    {"svg", 0, ARG_REQUIRED},
	    {"folded", 0, ARG_REQUIRED},
	    {"color", 0, ARG_REQUIRED},
	    {"help", 'h', ARG_NONE},
	};
	const char **pos = NULL;
	size_t n_pos = 0, k;
	int i, side = -1, err = 0, ret = GP_EXIT_USAGE;
	bool only_paths = false;

	for (i = 1; i < argc && !err; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		size_t len;

		if (only_paths || a[0] != '-' || !a[1]) {
			if (side == 0)
				err = push_path(&cli->base, &cli->n_base, a);
			else if (side == 1)
				err = push_path(&cli->new_, &cli->n_new, a);
			else
				err = push_path(&pos, &n_pos, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			only_paths = true;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(opts); k++) {
			if (a[1] != '-') {
				if (a[1] == opts[k].shrt && opts[k].shrt) {
					val = a[2] ? a + 2 : NULL;
					break;
				}
				continue;
			}
			eq = strchr(a + 2, '=');
			len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (strlen(opts[k].name) == len && !strncmp(a + 2, opts[k].name, len)) {
				val = eq ? eq + 1 : NULL;
				break;
			}
		}
		if (k == ARRAY_SIZE(opts)) {
			fprintf(stderr, ME ": unknown option '%s'\n", a);
			goto usage;
		}
		if (opts[k].arg == ARG_NONE && val) {
			fprintf(stderr, ME ": option '--%s' takes no value\n", opts[k].name);
			goto usage;
		}
		if (opts[k].arg == ARG_REQUIRED && !val) {
			if (i + 1 >= argc) {
				fprintf(stderr, ME ": option '--%s' needs a value\n", opts[k].name);
				goto usage;
			}
			val = argv[++i];
		}
		side = -1;
		switch (k) {
		case 0:
			side = 0;
			break;
		case 1:
			side = 1;
			break;
		case 2:
			cli->threshold = val;
			break;
		case 3:
			cli->min_time = val;
			break;
		case 4:
			cli->by_site = true;
			break;
		case 5:
			err = push_path(&cli->ignore, &cli->n_ignore, val);
			break;
		case 6:
			cli->fail_on_new = true;
			break;
		case 7:
			cli->config = val;
			break;
		case 8:
			cli->json = val ? val : "";
			break;
		case 9:
			cli->markdown = val ? val : "";
			break;
		case 10:
			cli->svg = val;
			break;
		case 11:
			cli->folded = val;
			break;
		case 12:
			cli->color = val;
			break;
		default:
			fputs(diff_usage, stdout);
			ret = GP_EXIT_OK;
			goto out;
		}
	}
	if (err) {
		fprintf(stderr, ME ": %s\n", strerror(-err));
		goto out;
	}
	if (n_pos && (cli->n_base || cli->n_new)) {
		fprintf(stderr, ME ": give BASE NEW, or --base PATH... --new PATH..., not both\n");
		goto usage;
	}
	if (n_pos) {
		if (n_pos != 2) {
			fprintf(stderr, ME ": expected two paths, BASE and NEW (got %zu)\n", n_pos);
			goto usage;
		}
		err = push_path(&cli->base, &cli->n_base, pos[0]);
		err = err ?: push_path(&cli->new_, &cli->n_new, pos[1]);
		if (err) {
			fprintf(stderr, ME ": %s\n", strerror(-err));
			goto out;
		}
	}
	if (!cli->n_base || !cli->n_new) {
		fprintf(stderr, ME ": %s\n",
			cli->n_base || cli->n_new ? "both --base and --new need at least one path"
						  : "nothing to compare: give BASE and NEW");
		goto usage;
	}
	if (cli->json && cli->markdown && !*cli->json && !*cli->markdown) {
		fprintf(stderr, ME ": --json and --markdown cannot both write to stdout; give one "
				   "a file (--json=FILE)\n");
		goto usage;
	}
	if (cli->color && strcmp(cli->color, "auto") && strcmp(cli->color, "always") &&
	    strcmp(cli->color, "never")) {
		fprintf(stderr, ME ": invalid --color '%s': expected auto, always or never\n",
			cli->color);
		goto usage;
	}
	ret = -1;
	goto out;
usage:
	fprintf(stderr, "see 'gpuperf diff --help'\n");
out:
	free(pos);
	return ret;
}

static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	int err = 0;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -errno;
		goto out;
	}
	*buf = malloc((size_t)n + 1);
	if (!*buf) {
		err = -ENOMEM;
		goto out;
	}
	*len = fread(*buf, 1, (size_t)n, f);
	if (ferror(f)) {
		free(*buf);
		*buf = NULL;
		err = -EIO;
	}
out:
	fclose(f);
	return err;
}

/* Settings: the config file first, then what the command line says. */
static int build_opts(const struct diff_cli *cli, struct diff_opts *o)
{
	char msg[512];
	size_t i, len = 0;
	uint64_t v;
	char *text = NULL;
	int err;

	if (cli->config) {
		err = read_file(cli->config, &text, &len);
		if (err) {
			fprintf(stderr, ME ": cannot read config '%s': %s\n", cli->config,
				strerror(-err));
			return err;
		}
		err = diff_opts__parse_config(o, text, len, msg, sizeof(msg));
		free(text);
		if (err) {
			fprintf(stderr, ME ": '%s': %s\n", cli->config, msg);
			return err;
		}
	}
	if (cli->threshold && diff_opts__parse_thresholds(o, cli->threshold, msg, sizeof(msg))) {
		fprintf(stderr, ME ": %s\n", msg);
		return -EINVAL;
	}
	if (cli->min_time) {
		if (parse_u64("diff", "--min-time", cli->min_time, 0, UINT64_MAX / 2, &v))
			return -EINVAL;
		o->min_time_ns = v;
	}
	o->by_site |= cli->by_site;
	o->fail_on_new |= cli->fail_on_new;
	for (i = 0; i < cli->n_ignore; i++) {
		err = diff_opts__add_rule(o, cli->ignore[i], -1, true, msg, sizeof(msg));
		if (err) {
			fprintf(stderr, ME ": --ignore: %s\n",
				err == -ENOMEM ? strerror(ENOMEM) : msg);
			return err;
		}
	}
	return 0;
}

static int load_side(const char *const *paths, size_t n, struct summary **out)
{
	char msg[1024];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = summary_read__load(paths[i], &out[i], msg, sizeof(msg));
		if (err) {
			fprintf(stderr, ME ": %s\n", *msg ? msg : strerror(-err));
			return err;
		}
	}
	return 0;
}

static bool has_file(const struct summary *s, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	return access(path, R_OK) == 0;
}

/* Sum one side's folded files into agg (the caller scales by 1/n: the mean of the runs). */
static int read_folded_side(struct summary *const *s, size_t n, const char *name,
			    struct stack_agg *agg)
{
	struct folded_read_stats st;
	char path[4096];
	size_t i;
	FILE *f;
	int err;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", s[i]->dir, name);
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, ME ": --svg: cannot open '%s': %s\n", path,
				strerror(errno));
			return -errno;
		}
		err = folded__read(agg, f, FOLDED_READ_MARKERS, &st);
		fclose(f);
		if (err) {
			fprintf(stderr, ME ": --svg: cannot read '%s': %s\n", path, strerror(-err));
			return err;
		}
		if (st.bad_lines)
			fprintf(stderr,
				ME ": warning: skipped %llu lines of '%s' that are not "
				   "folded stacks\n",
				(unsigned long long)st.bad_lines, path);
	}
	return 0;
}

static int write_svg(const struct diff_cli *cli, struct summary **base, struct summary **new_)
{
	struct stack_agg *ba = stack_agg__new(), *na = stack_agg__new();
	struct flamegraph_opts fo = {0};
	const char *name = cli->folded;
	char title[256], sub[512];
	FILE *out = NULL;
	size_t i;
	int err = -ENOMEM;

	if (!ba || !na) {
		fprintf(stderr, ME ": --svg: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (!name) {
		name = "gpu.folded";
		for (i = 0; i < cli->n_base; i++)
			name = has_file(base[i], name) ? name : "profile.folded";
		for (i = 0; i < cli->n_new; i++)
			name = has_file(new_[i], name) ? name : "profile.folded";
	}
	err = read_folded_side(base, cli->n_base, name, ba);
	err = err ?: read_folded_side(new_, cli->n_new, name, na);
	if (err)
		goto out;
	snprintf(title, sizeof(title), "Differential flame graph: %s", name);
	snprintf(sub, sizeof(sub), "base %s%s, new %s%s: red slower, blue faster%s", base[0]->dir,
		 cli->n_base > 1 ? " (+ more runs)" : "", new_[0]->dir,
		 cli->n_new > 1 ? " (+ more runs)" : "",
		 cli->n_base > 1 || cli->n_new > 1 ? "; mean of the runs" : "");
	fo.title = title;
	fo.subtitle = sub;
	out = fopen(cli->svg, "w");
	if (!out) {
		err = -errno;
		fprintf(stderr, ME ": cannot create '%s': %s\n", cli->svg, strerror(errno));
		goto out;
	}
	err = flamegraph__write_diff_svg(ba, na, &fo, 1.0 / (double)cli->n_base,
					 1.0 / (double)cli->n_new, out);
	if (fclose(out) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, ME ": cannot write '%s': %s\n", cli->svg, strerror(-err));
out:
	stack_agg__free(ba);
	stack_agg__free(na);
	return err;
}

/* Write with `fn` to path ("" = stdout). */
static int write_to(const char *path, const struct diff_result *r,
		    int (*fn)(const struct diff_result *, FILE *))
{
	FILE *f = *path ? fopen(path, "w") : stdout;
	int err;

	if (!f) {
		fprintf(stderr, ME ": cannot create '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	err = fn(r, f);
	if (*path) {
		if (fclose(f) && !err)
			err = -errno;
	} else if (fflush(f) && !err) {
		err = -EIO;
	}
	if (err)
		fprintf(stderr, ME ": cannot write '%s': %s\n", *path ? path : "<stdout>",
			strerror(-err));
	return err;
}

static int write_text_plain(const struct diff_result *r, FILE *f)
{
	return diff__write_text(r, f, false);
}

static int write_text_color(const struct diff_result *r, FILE *f)
{
	return diff__write_text(r, f, true);
}

static bool want_color(const char *when)
{
	const char *term = getenv("TERM");

	if (when && !strcmp(when, "always"))
		return true;
	if (when && !strcmp(when, "never"))
		return false;
	return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cli cli = {0};
	struct summary **base = NULL, **new_ = NULL;
	struct diff_result *res = NULL;
	struct diff_opts o;
	size_t i;
	int ret, err;

	diff_opts__init(&o);
	ret = parse_args(argc, argv, &cli);
	if (ret >= 0)
		goto cleanup;
	ret = GP_EXIT_USAGE;
	if (build_opts(&cli, &o))
		goto cleanup;
	base = calloc(cli.n_base, sizeof(*base));
	new_ = calloc(cli.n_new, sizeof(*new_));
	if (!base || !new_) {
		fprintf(stderr, ME ": %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	if (load_side(cli.base, cli.n_base, base) || load_side(cli.new_, cli.n_new, new_))
		goto cleanup;
	err = diff__compare((const struct summary *const *)base, cli.n_base,
			    (const struct summary *const *)new_, cli.n_new, &o, &res);
	if (err) {
		fprintf(stderr, ME ": %s\n", strerror(-err));
		goto cleanup;
	}
	if (cli.svg && write_svg(&cli, base, new_))
		goto cleanup;
	err = 0;
	if (cli.json)
		err = write_to(cli.json, res, diff__write_json);
	if (cli.markdown && !err)
		err = write_to(cli.markdown, res, diff__write_markdown);
	if (!err && !(cli.json && !*cli.json) && !(cli.markdown && !*cli.markdown))
		err =
		    write_to("", res, want_color(cli.color) ? write_text_color : write_text_plain);
	if (err)
		goto cleanup;
	ret = diff_result__failed(res) ? GP_EXIT_DATA : GP_EXIT_OK;
cleanup:
	diff_result__free(res);
	for (i = 0; base && i < cli.n_base; i++)
		summary_read__free(base[i]);
	for (i = 0; new_ && i < cli.n_new; i++)
		summary_read__free(new_[i]);
	free(base);
	free(new_);
	free(cli.base);
	free(cli.new_);
	free(cli.ignore);
	diff_opts__release(&o);
	return ret;
}
