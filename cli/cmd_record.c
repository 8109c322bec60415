// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_record.c - `gpuperf record`: run a program with the GPU recorder (the
 * injection library) and the CPU recorder (the eBPF agent) and write DIR.
 *
 * How it works: the options are parsed and checked before anything is
 * made; then DIR is made as the user (record_dir.c), the program is forked
 * and held before exec while the agent attaches to its pid (child.c,
 * record_agent.c), and only then released, with CUDA_INJECTION64_PATH and
 * GPUPERF_DIR in its environment, so nothing it does is missed and nothing
 * runs half-traced. While it runs, the agent is polled and the program is
 * reaped (record_loop.c); when it exits the agent is stopped,
 * DIR/record.json written and a short summary printed (record_summary.c).
 * With -p/-t/-a the agent attaches to running processes instead (CPU side
 * only). This file holds the options, the checks and that sequence.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "builtin.h"
#include "cpu_agent.h"
#include "gp_util.h"
#include "parse.h"
#include "record.h"
#include "record_agent.h"
#include "record_loop.h"
#include "record_summary.h"

#ifndef GPUPERF_HAVE_CPU_AGENT
#define GPUPERF_HAVE_CPU_AGENT 0
#endif

static const char record_usage[] =
	"usage: gpuperf record [options] [--] PROGRAM [ARGS...]\n"
	"       gpuperf record [options] -p PID[,PID...] | -t TID[,TID...] | -a [-d SEC]\n"
	"       gpuperf --cpu [options] PROGRAM [ARGS...]   (record --cpu, then report)\n"
	"\n"
	"Run PROGRAM with the GPU recorder (CUPTI injection library) and, with --cpu,\n"
	"the eBPF CPU recorder, and write both traces to one directory. PROGRAM's\n"
	"stdin, stdout, stderr and exit status pass through unchanged.\n"
	"\n"
	"Output:\n"
	"  -o, --output DIR        output directory [gpuperf-PROGRAM-YYYYmmdd-HHMMSS]\n"
	"      --force             reuse an existing DIR (old traces in it are removed)\n"
	"  -q, --quiet             no live status line, notes or summary\n"
	"  -v, --verbose           say what is set up (library, agent options, user)\n"
	"\n"
	"What to record:\n"
	"      --cpu               also record the CPU side with eBPF (needs root or\n"
	"                          CAP_BPF+CAP_PERFMON): on-CPU samples, off-CPU time\n"
	"      --no-gpu            no GPU side (no injection library); implies --cpu\n"
	"  -F, --freq HZ           on-CPU sampling frequency, 1..10000 [99]\n"
	"      --on-cpu, --no-on-cpu    on-CPU sampling on/off [on]\n"
	"      --off-cpu, --no-off-cpu  off-CPU (blocked) time on/off [on]\n"
	"      --min-block USEC    keep off-CPU spans of at least USEC [1000]\n"
	"      --max-block USEC    ... and at most USEC [no limit]\n"
	"  -U, --user-stacks-only  keep user stacks only\n"
	"  -K, --kernel-stacks-only  keep kernel stacks only\n"
	"      --user-threads-only, --kernel-threads-only\n"
	"                          only user threads / only kernel threads\n"
	"  -C, --cpus CPU[,CPU..]  only these CPUs (ranges: 0-3); not --cpu, which\n"
	"                          switches the CPU side on\n"
	"CPU-side options (-F, --on-cpu, --off-cpu, --min-block, ...) imply --cpu.\n"
	"\n"
	"Which processes:\n"
	"  -p, --pid PID[,PID..]   attach to running processes and what they fork\n"
	"                          (CPU side only: the GPU side needs a program\n"
	"                          started by gpuperf)\n"
	"  -t, --tid TID[,TID..]   only these threads (CPU side only)\n"
	"  -a, --all-cpus          every process of the system (CPU side); with a\n"
	"                          PROGRAM, until it exits\n"
	"  -d, --duration SEC      stop recording after SEC seconds, 1..31536000; a\n"
	"                          PROGRAM then gets --kill's signal\n"
	"      --kill SIG|none     signal for PROGRAM when the recording is stopped\n"
	"                          before it exits (-d, second Ctrl-C) [TERM]; none\n"
	"                          leaves it running\n"
	"  -h, --help              show this help\n"
	"\n"
	"Examples:\n"
	"  gpuperf record -- ./train --epochs 1        GPU side only, no privileges\n"
	"  sudo gpuperf record --cpu -o run1 ./train   both sides; ./train runs as you\n"
	"  sudo gpuperf record -p 4242 -d 10           CPU side of a running process\n"
	"  sudo gpuperf --cpu ./train                  record, then write the report\n"
	"\n"
	"Ctrl-C reaches PROGRAM directly and gpuperf keeps recording until it exits;\n"
	"a second Ctrl-C stops the recording and sends PROGRAM SIGTERM, a third\n"
	"SIGKILL. SIGTERM sent to gpuperf is passed on to PROGRAM. Under sudo,\n"
	"PROGRAM runs as the invoking user (SUDO_UID) and DIR belongs to that user.\n"
	"\n"
	"Exit status: PROGRAM's exit status, or 128+N when a signal N killed it;\n"
	"1 when gpuperf could not record (PROGRAM did not run, or it exited 0 but\n"
	"the recording could not be written), 2 on usage errors, 126 when PROGRAM\n"
	"cannot be executed, 127 when it is not found.\n";
/* ---- options --------------------------------------------------------------- */

enum {
	OPT_FORCE = 256,
	OPT_CPU,
	OPT_NO_GPU,
	OPT_ON_CPU,
	OPT_NO_ON_CPU,
	OPT_OFF_CPU,
	OPT_NO_OFF_CPU,
	OPT_MIN_BLOCK,
	OPT_MAX_BLOCK,
	OPT_USER_THREADS,
	OPT_KERNEL_THREADS,
	OPT_KILL,
};

static int parse_signal(const char *s, int *sig)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = { { "TERM", SIGTERM }, { "INT", SIGINT }, { "KILL", SIGKILL },
		      { "HUP", SIGHUP },   { "QUIT", SIGQUIT }, { "USR1", SIGUSR1 },
		      { "USR2", SIGUSR2 } };
	const char *n = strncasecmp(s, "SIG", 3) ? s : s + 3;
	uint64_t v;
	size_t i;

	if (!strcasecmp(s, "none")) {
		*sig = 0;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcasecmp(n, names[i].name)) {
			*sig = names[i].sig;
			return 0;
		}
	}
	if (n[0] >= '0' && n[0] <= '9') {
		if (parse_u64("record", "--kill", s, 1, 64, &v))
			return -EINVAL;
		*sig = (int)v;
		return 0;
	}
	fprintf(stderr,
		"gpuperf record: invalid --kill '%s': expected none, a signal name (TERM, INT, "
		"KILL, HUP, QUIT, USR1, USR2) or number\n",
		s);
	return -EINVAL;
}

/* A comma list into an int array (pids, tids, cpus). */
static int parse_ints(const char *opt, const char *s, uint64_t lo, uint64_t hi, unsigned flags,
		      int **out, size_t *nr)
{
	uint64_t *v;
	size_t i, n;
	int *a;

	if (parse_u64_list("record", opt, s, lo, hi, flags, &v, &n))
		return -EINVAL;
	a = calloc(n, sizeof(*a));
	if (!a) {
		free(v);
		fprintf(stderr, "gpuperf record: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		a[i] = (int)v[i];
	free(v);
	free(*out); /* the last -p/-t/-C given wins */
	*out = a;
	*nr = n;
	return 0;
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("gpuperf record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(see 'gpuperf record --help')\n", stderr);
	va_end(ap);
	return -EINVAL;
}

/* Fill @o from the command line: 0, 1 for --help (printed), or -EINVAL (printed). */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "cpu", no_argument, NULL, OPT_CPU },
		{ "no-gpu", no_argument, NULL, OPT_NO_GPU },
		{ "freq", required_argument, NULL, 'F' },
		{ "on-cpu", no_argument, NULL, OPT_ON_CPU },
		{ "no-on-cpu", no_argument, NULL, OPT_NO_ON_CPU },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "no-off-cpu", no_argument, NULL, OPT_NO_OFF_CPU },
		{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
		{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "user-threads-only", no_argument, NULL, OPT_USER_THREADS },
		{ "kernel-threads-only", no_argument, NULL, OPT_KERNEL_THREADS },
		{ "cpus", required_argument, NULL, 'C' },
		{ "cpu-list", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "kill", required_argument, NULL, OPT_KILL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int opt, modes;

	o->gpu = true;
	o->on_cpu = true;
	o->off_cpu = true;
	o->freq_hz = 99;
	o->min_block_us = 1000;
	o->kill_sig = SIGTERM;
	optind = 1;
	opterr = 1;
	/* '+': stop at PROGRAM, whose own options are not ours */
	while ((opt = getopt_long(argc, argv, "+o:qvF:UKC:p:t:ad:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case OPT_CPU:
			o->cpu = true;
			break;
		case OPT_NO_GPU:
			o->gpu = false;
			o->cpu = true;
			break;
		case 'F':
			if (parse_u64("record", "--freq", optarg, 1, 10000, &v))
				return -EINVAL;
			o->freq_hz = (uint32_t)v;
			o->cpu = true;
			break;
		case OPT_ON_CPU:
			o->on_cpu = o->cpu = true;
			break;
		case OPT_NO_ON_CPU:
			o->on_cpu = false;
			break;
		case OPT_OFF_CPU:
			o->off_cpu = o->cpu = true;
			break;
		case OPT_NO_OFF_CPU:
			o->off_cpu = false;
			break;
		case OPT_MIN_BLOCK:
		case OPT_MAX_BLOCK:
			if (parse_u64("record", opt == OPT_MIN_BLOCK ? "--min-block" : "--max-block",
				      optarg, opt == OPT_MIN_BLOCK ? 0 : 1, UINT32_MAX, &v))
				return -EINVAL;
			if (opt == OPT_MIN_BLOCK)
				o->min_block_us = (uint32_t)v;
			else
				o->max_block_us = (uint32_t)v;
			o->cpu = true;
			break;
		case 'U':
			o->user_stacks_only = o->cpu = true;
			break;
		case 'K':
			o->kernel_stacks_only = o->cpu = true;
			break;
		case OPT_USER_THREADS:
			o->user_threads_only = o->cpu = true;
			break;
		case OPT_KERNEL_THREADS:
			o->kernel_threads_only = o->cpu = true;
			break;
		case 'C':
			if (parse_ints("--cpus", optarg, 0, 65535, PARSE_RANGES, &o->cpus, &o->nr_cpus))
				return -EINVAL;
			o->cpu = true;
			break;
		case 'p':
			if (parse_ints("--pid", optarg, 1, INT_MAX, 0, &o->pids, &o->nr_pids))
				return -EINVAL;
			break;
		case 't':
			if (parse_ints("--tid", optarg, 1, INT_MAX, 0, &o->tids, &o->nr_tids))
				return -EINVAL;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'd':
			if (parse_u64("record", "--duration", optarg, 1, 31536000, &o->duration_s))
				return -EINVAL;
			break;
		case OPT_KILL:
			if (parse_signal(optarg, &o->kill_sig))
				return -EINVAL;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 1;
		default:
			fputs("(see 'gpuperf record --help')\n", stderr);
			return -EINVAL;
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;

	modes = (o->nr_pids > 0) + (o->nr_tids > 0) + o->system_wide;
	if (modes > 1)
		return usage_error("-p, -t and -a exclude each other");
	if ((o->nr_pids || o->nr_tids) && o->argc)
		return usage_error("-p/-t attach to running processes: give no PROGRAM "
				   "(got '%s')", o->argv[0]);
	if (!modes && !o->argc)
		return usage_error("missing PROGRAM to record");
	if (o->user_stacks_only && o->kernel_stacks_only)
		return usage_error("-U and -K exclude each other");
	if (o->user_threads_only && o->kernel_threads_only)
		return usage_error("--user-threads-only and --kernel-threads-only exclude "
				   "each other");
	if (o->max_block_us && o->max_block_us < o->min_block_us)
		return usage_error("--max-block is below --min-block");
	if (modes) {
		o->cpu = true;
		if (!o->argc)
			o->gpu = false; /* nothing is started: no injection */
	}
	if (!o->gpu && !o->cpu)
		return usage_error("nothing to record");
	if (o->cpu && !o->on_cpu && !o->off_cpu && !o->gpu)
		return usage_error("nothing to record: --no-on-cpu, --no-off-cpu and --no-gpu");
	return 0;
}

/* ---- checks before anything starts ------------------------------------------ */

/* Root or CAP_BPF+CAP_PERFMON (or CAP_SYS_ADMIN, which covers both on old kernels). */
static bool have_bpf_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	uint64_t eff;

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	eff = (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
#define HAS(c) (eff & (1ull << (c)))
	return HAS(CAP_SYS_ADMIN) || (HAS(38 /* CAP_PERFMON */) && HAS(39 /* CAP_BPF */));
#undef HAS
}

/*
 * libgpuperf_inject.so: $GPUPERF_INJECT_LIB, else installed next to the
 * binary (BIN/../LIBDIR/gpuperf/), else the build tree's.
 */
static int inject_lib_find(char *out, size_t len, bool verbose)
{
	const char *env = getenv("GPUPERF_INJECT_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK)) {
			fprintf(stderr, "gpuperf record: cannot use GPUPERF_INJECT_LIB '%s': %s\n", env,
				strerror(errno));
			return -ENOENT;
		}
		snprintf(out, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, len, "%s/../%s/gpuperf/libgpuperf_inject.so", exe,
					     GPUPERF_INSTALL_LIBDIR) < len && !access(out, R_OK))
				goto found;
			if (verbose)
				fprintf(stderr, "gpuperf record: no injection library at '%s'\n", out);
		}
	}
#ifdef GPUPERF_BUILD_INJECT_LIB
	snprintf(out, len, "%s", GPUPERF_BUILD_INJECT_LIB);
	if (!access(out, R_OK))
		goto found;
#endif
	return -ENOENT;
found:
	/* the path goes into the program's environment: make it absolute */
	if (realpath(out, exe))
		snprintf(out, len, "%s", exe);
	return 0;
}

/* ---- the command ------------------------------------------------------------- */

static const char *base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

/* Make DIR as the user (or take one with --force), named for what is recorded: 0 or -errno. */
static int dir_make(struct record *r)
{
	const struct record_opts *o = &r->o;
	char what[64];

	if (o->argc)
		snprintf(what, sizeof(what), "%s", base_name(o->argv[0]));
	else if (o->nr_pids)
		snprintf(what, sizeof(what), "pid%d", o->pids[0]);
	else if (o->nr_tids)
		snprintf(what, sizeof(what), "tid%d", o->tids[0]);
	else
		snprintf(what, sizeof(what), "system");
	return record_dir__make(&r->dir, o->output, o->force, what);
}

static int exit_status(const struct record *r)
{
	const struct child *c = &r->prog;
	int ret = GP_EXIT_OK;

	if (c->waited && WIFEXITED(c->status))
		ret = WEXITSTATUS(c->status);
	else if (c->waited && WIFSIGNALED(c->status))
		ret = 128 + WTERMSIG(c->status);
	/* the program succeeded but its recording did not */
	if (ret == GP_EXIT_OK && (r->agent_err || r->write_failed))
		ret = GP_EXIT_DATA;
	return ret;
}

/*
 * The whole of `record`: returns the exit status; @dir_out (when not NULL)
 * gets DIR when a recording was written, else "", and @quiet (when not
 * NULL) whether -q was given.
 */
static int record_main(int argc, char **argv, char *dir_out, size_t dir_len, bool *quiet)
{
	struct record *r = calloc(1, sizeof(*r));
	struct cpu_agent_stats st;
	bool have_stats = false;
	int ret = GP_EXIT_DATA, err;

	if (dir_out && dir_len)
		dir_out[0] = '\0';
	if (!r) {
		fprintf(stderr, "gpuperf record: %s\n", strerror(ENOMEM));
		return GP_EXIT_DATA;
	}
	record_dir__init(&r->dir, &r->u);
	child__init(&r->prog);
	r->cache_fd = -1;
	r->ksym_fd = -1;
	err = record_parse(argc, argv, &r->o);
	if (err) {
		ret = err > 0 ? GP_EXIT_OK : GP_EXIT_USAGE;
		goto out;
	}
	if (r->o.output && !r->o.force && !access(r->o.output, F_OK)) {
		fprintf(stderr, "gpuperf record: '%s' exists: choose another -o, or add --force to "
				"reuse it\n", r->o.output);
		ret = GP_EXIT_USAGE;
		goto out;
	}
	if (r->o.cpu && !GPUPERF_HAVE_CPU_AGENT) {
		fprintf(stderr, "gpuperf record: --cpu is not available in this build (gpuperf was "
				"built without the eBPF agent: GPUPERF_BUILD_BPF=OFF, or clang, bpftool "
				"or libbpf missing)\n");
		goto out;
	}
	if (r->o.cpu && !have_bpf_caps()) {
		fprintf(stderr, "gpuperf record: recording the CPU side (--cpu, -p, -t, -a) needs root "
				"or CAP_BPF and CAP_PERFMON: run with sudo, or grant them with "
				"'sudo setcap cap_bpf,cap_perfmon+ep %s'\n",
			"$(command -v gpuperf)");
		goto out;
	}
	if (r->o.argc) {
		err = child__find(r->o.argv[0]);
		if (err) {
			fprintf(stderr, "gpuperf record: cannot run '%s': %s\n", r->o.argv[0],
				err == -ENOENT && !strchr(r->o.argv[0], '/') ? "command not found"
									  : strerror(-err));
			ret = child__exec_status(-err);
			goto out;
		}
	}
	if (r->o.gpu && inject_lib_find(r->inject_lib, sizeof(r->inject_lib), r->o.verbose)) {
		if (getenv("GPUPERF_INJECT_LIB") && *getenv("GPUPERF_INJECT_LIB"))
			goto out;
		if (!r->o.cpu) {
			fprintf(stderr, "gpuperf record: cannot find libgpuperf_inject.so (not installed "
					"next to gpuperf, not in the build tree): set GPUPERF_INJECT_LIB, "
					"or record the CPU side only with --cpu --no-gpu\n");
			goto out;
		}
		fprintf(stderr, "gpuperf record: warning: cannot find libgpuperf_inject.so (set "
				"GPUPERF_INJECT_LIB): recording the CPU side only\n");
		r->o.gpu = false;
	}
	if (r->o.gpu && r->o.verbose)
		fprintf(stderr, "gpuperf record: injection library %s\n", r->inject_lib);
	if (r->o.gpu && getenv("CUDA_INJECTION64_PATH") &&
	    strcmp(getenv("CUDA_INJECTION64_PATH"), r->inject_lib))
		fprintf(stderr, "gpuperf record: warning: replacing CUDA_INJECTION64_PATH=%s\n",
			getenv("CUDA_INJECTION64_PATH"));
	if (gp_user__sudo(&r->u)) {
		fprintf(stderr, "gpuperf record: cannot look up the sudo user: %s\n",
			strerror(ENOMEM));
		goto out;
	}
	if (r->u.drop && r->o.verbose)
		fprintf(stderr, "gpuperf record: running %s as uid %u gid %u (the sudo user)\n",
			r->o.argc ? r->o.argv[0] : "nothing", (unsigned)r->u.uid, (unsigned)r->u.gid);
	if (r->o.argc == 0 && (r->o.nr_pids || r->o.nr_tids) && !r->o.quiet)
		fprintf(stderr, "gpuperf record: attaching to running %s: CPU side only (the GPU "
				"side needs a program started by gpuperf record)\n",
			r->o.nr_pids ? "processes" : "threads");
	if (dir_make(r))
		goto out;
	if (r->o.cpu)
		record_agent__open_caches(r);
	r->live = !r->o.quiet && isatty(STDERR_FILENO);
	child__signals_catch(&r->prog);

	if (r->o.argc) {
		err = record_loop__launch(r);
		if (err) {
			ret = err;
			goto out;
		}
	} else {
		if (record_agent__start(r, 0)) {
			record_dir__unmake(&r->dir);
			goto out;
		}
		/* read now: the process may exit while recorded */
		if (r->o.nr_pids)
			record_summary__read_cmdline(r);
		/*
		 * The recording (and -d) starts once the agent is attached: its
		 * window from when the tracers covered the threads (blocks in
		 * progress count from there), not from the end of the set-up.
		 */
		r->start_real_ns = record__now_ns(CLOCK_REALTIME);
		r->start_mono_ns = record__now_ns(CLOCK_MONOTONIC);
		if (cpu_agent__covered_ns(r->agent) && cpu_agent__covered_ns(r->agent) < r->start_mono_ns) {
			r->start_real_ns -= r->start_mono_ns - cpu_agent__covered_ns(r->agent);
			r->start_mono_ns = cpu_agent__covered_ns(r->agent);
		}
		if (!r->o.quiet)
			fprintf(stderr, "gpuperf record: recording%s; Ctrl-C stops\n",
				r->o.duration_s ? " for --duration" : "");
	}
	record_loop__wait(r);
	if (r->agent) {
		cpu_agent__stats(r->agent, &st);
		have_stats = true;
	}
	record_summary__json(r, have_stats ? &st : NULL);
	if (!r->o.quiet)
		record_summary__print(r, have_stats ? &st : NULL);
	if (dir_out)
		snprintf(dir_out, dir_len, "%s", r->dir.path);
	if (quiet)
		*quiet = r->o.quiet;
	ret = exit_status(r);
out:
	child__release(&r->prog);
	cpu_agent__free(r->agent);
	cJSON_Delete(r->attached_cmdline);
	gp_user__release(&r->u);
	record_dir__release(&r->dir);
	if (r->cache_fd >= 0)
		close(r->cache_fd);
	if (r->ksym_fd >= 0)
		close(r->ksym_fd);
	free(r->o.pids);
	free(r->o.tids);
	free(r->o.cpus);
	free(r);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	return record_main(argc, argv, NULL, 0, NULL);
}

int cmd_record_report(int argc, char **argv)
{
	char dir[PATH_MAX], **rargv, *report_argv[4];
	bool quiet = false;
	int ret, rep, i;

	/* argv[0] is "--cpu": record's argv is "record --cpu ARGS..." */
	rargv = calloc((size_t)argc + 2, sizeof(*rargv));
	if (!rargv) {
		fprintf(stderr, "gpuperf: %s\n", strerror(ENOMEM));
		return GP_EXIT_DATA;
	}
	rargv[0] = (char *)"record";
	for (i = 0; i < argc; i++)
		rargv[i + 1] = argv[i];
	ret = record_main(argc + 1, rargv, dir, sizeof(dir), &quiet);
	free(rargv);
	if (!dir[0])
		return ret;
	report_argv[0] = (char *)"report";
	report_argv[1] = dir;
	report_argv[2] = quiet ? (char *)"-q" : NULL;
	report_argv[3] = NULL;
	/* the program's stdout is its own: the text report goes beside gpuperf's status */
	rep = report_main(quiet ? 3 : 2, report_argv, stderr);
	if (rep != GP_EXIT_OK)
		fprintf(stderr, "gpuperf: the report failed; the recording is in %s ('gpuperf report "
				"%s' to try again)\n", dir, dir);
	return ret != GP_EXIT_OK ? ret : rep;
}
