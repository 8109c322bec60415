// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_record.c - `gpuperf record`: run a program with the GPU recorder (the
 * injection library) and the CPU recorder (the eBPF agent) and write DIR.
 *
 * How it works: the program is forked and held before exec on a pipe while
 * DIR is made, the agent is loaded and attached to the child's pid, and the
 * child's environment gets CUDA_INJECTION64_PATH and GPUPERF_DIR; only then
 * is it released to exec, so nothing it does is missed and nothing runs
 * half-traced. While it runs, the agent is polled and the program is reaped; when the program exits the
 * agent is stopped, DIR/record.json written and a short summary printed.
 * An exec failure comes back through a close-on-exec pipe. With -p/-t/-a
 * the agent attaches to running processes instead (CPU side only).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "builtin.h"
#include "cpu_agent.h"
#include "gp_file.h"
#include "gp_record.h"
#include "gp_util.h"
#include "parse.h"
#include "user.h"

#ifndef GPUPERF_VERSION
#define GPUPERF_VERSION "0.0.0"
#endif
#ifndef GPUPERF_HAVE_CPU_AGENT
#define GPUPERF_HAVE_CPU_AGENT 0
#endif

#define KSYM_CACHE_DIR "/run/gpuperf" /* the kernel symbol cache: root's, emptied at boot */
#define RECORD_EXIT_NOEXEC 126	/* the program exists but cannot be executed */
#define RECORD_EXIT_NOTFOUND 127 /* the program was not found */

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

/* What gpuperf catches while it records; the program gets them as gpuperf found them. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };
#define NR_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

struct record_opts {
	const char *output;
	bool force, quiet;
	int verbose;
	bool cpu, gpu;
	bool on_cpu, off_cpu;
	uint32_t freq_hz, min_block_us, max_block_us;
	bool user_stacks_only, kernel_stacks_only;
	bool user_threads_only, kernel_threads_only;
	uint64_t duration_s;	/* 0: until the program exits / Ctrl-C */
	int kill_sig;		/* 0: none */
	pid_t *pids, *tids;
	size_t nr_pids, nr_tids;
	int *cpus;
	size_t nr_cpus;
	bool system_wide;
	int argc;		/* the program: argv[0..argc) */
	char **argv;
};

struct record {
	struct record_opts o;
	struct gp_user u;	/* under sudo: the user the program runs as and DIR belongs to */
	char dir[PATH_MAX];	/* absolute: what the program gets */
	char dir_name[PATH_MAX]; /* as made or given (-o) */
	int dir_fd;		/* DIR, opened once: root writes only relative to it */
	int cache_fd;		/* the CFI table cache directory, the user's; -1: none */
	int ksym_fd;		/* the kernel symbol cache directory, root's; -1: none */
	char cache_dir[PATH_MAX];
	bool dir_created;
	char inject_lib[PATH_MAX];
	struct cpu_agent *agent;
	bool agent_stopped;
	int agent_err;		/* first error of poll/stop */
	char agent_msg[512];
	pid_t pid;		/* the launched program */
	pid_t child;		/* ... while it may still run; 0: none, reaped or left running */
	bool waited;		/* child reaped: status valid */
	int status;		/* its wait status */
	uint64_t start_real_ns, start_mono_ns, end_mono_ns;
	bool status_shown;	/* the live status line is on the terminal */
	bool live;		/* show the live status line */
	bool write_failed;
	bool signals_set;
	struct sigaction saved_sigs[NR_STOP_SIGNALS];
	size_t exits_shown;	/* -p/-t: exits of attached processes/threads reported */
	cJSON *attached_cmdline; /* -p: the first process's command line, read at attach */
};

/*
 * The signal handlers' only state: counters the main loop reads. Signals
 * carry no user data, so this is the one global of the command.
 */
static volatile sig_atomic_t sig_requests; /* SIGINT/SIGTERM/SIGHUP/SIGQUIT received */
static volatile sig_atomic_t sig_terms;	   /* ... of which SIGTERM: passed on to the program */
static volatile sig_atomic_t sig_last;

static void on_stop_signal(int sig)
{
	sig_requests++;
	if (sig == SIGTERM)
		sig_terms++;
	sig_last = sig;
}

static void on_sigchld(int sig)
{
	(void)sig; /* only to interrupt the agent's epoll_wait */
}

/*
 * Catch the stop signals (and SIGCHLD, to wake the poll); @saved gets the
 * dispositions gpuperf was started with, which the program gets back (a
 * background job or nohup ignores SIGINT/SIGHUP, and so must the program).
 */
static void signals_install(struct sigaction saved[NR_STOP_SIGNALS])
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_STOP_SIGNALS; i++) {
		/* no SA_RESTART: interrupt the poll */
		sa.sa_handler = stop_signals[i] == SIGCHLD ? on_sigchld : on_stop_signal;
		sa.sa_flags = stop_signals[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		sigaction(stop_signals[i], &sa, &saved[i]);
	}
}

static void signals_restore(const struct sigaction saved[NR_STOP_SIGNALS])
{
	size_t i;

	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved[i], NULL);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- messages -------------------------------------------------------------- */

/* Take the live status line off the terminal before any other message. */
static void status_clear(struct record *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		r->status_shown = false;
	}
}

static void add_size(struct record *r, const char *name, uint64_t size, void *arg)
{
	uint64_t *sum = arg;

	(void)r;
	(void)name;
	sum[0]++;
	sum[1] += size;
}

static void dir_each(struct record *r, const char *pattern,
		     void (*fn)(struct record *r, const char *name, uint64_t size, void *arg),
		     void *arg);

static void status_show(struct record *r)
{
	struct cpu_agent_stats st;
	uint64_t el = (now_ns(CLOCK_MONOTONIC) - r->start_mono_ns) / 100000000ull;
	uint64_t sum[2] = { 0, 0 }, lost; /* files, bytes */

	if (!r->live)
		return;
	fprintf(stderr, "\r[gpuperf record %" PRIu64 ".%" PRIu64 "s]", el / 10, el % 10);
	if (r->agent) {
		cpu_agent__stats(r->agent, &st);
		lost = st.lost_sample + st.lost_offcpu + st.lost_proc + st.lost_stack +
		       st.lost_writer;
		fprintf(stderr, " samples %" PRIu64 "  off-cpu %" PRIu64, st.samples,
			st.offcpu_spans);
		if (lost)
			fprintf(stderr, "  lost %" PRIu64, lost);
	}
	if (r->o.gpu) {
		/* kernels are not counted live: the traces are compressed; their size is */
		dir_each(r, "gpu-*.trace", add_size, sum);
		fprintf(stderr, "  gpu traces %" PRIu64 " (%" PRIu64 " KiB)", sum[0], sum[1] / 1024);
	}
	fputs("\033[K", stderr);
	fflush(stderr);
	r->status_shown = true;
}

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
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
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
 * What execvp would find for @prog: 0, -ENOENT or -EACCES. Checked before
 * anything is created so a typo costs no directory; the exec itself still
 * reports through the pipe.
 */
static int program_check(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char buf[PATH_MAX];
	int err = -ENOENT;

	if (strchr(prog, '/'))
		return access(prog, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path;; p += strcspn(p, ":") + 1) {
		size_t len = strcspn(p, ":");
		struct stat sb;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, len ? p : ".", "/", prog);
		if (!stat(buf, &sb) && S_ISREG(sb.st_mode)) {
			if (!access(buf, X_OK))
				return 0;
			err = -EACCES;
		}
		if (!p[len])
			break;
	}
	return err;
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

/* ---- the output directory ---------------------------------------------------- */

/*
 * DIR belongs to the user the program runs as, and the program can put
 * anything in it. So DIR is made (or, with --force, emptied) by that user
 * in a child process with their credentials (gp_user__run); root then
 * opens it once, as a directory that is not a link and that the user owns,
 * and creates its own files (cpu.trace, record.json, ...) only relative to
 * that descriptor, with O_EXCL|O_NOFOLLOW, handing each to the user by
 * its descriptor.
 */

/* What a recording (and its report) leaves in DIR: removed for --force, or on a failed start. */
static const char *const dir_patterns[] = {
	"gpu-*.trace", "cpu.trace",	"record.json", "kallsyms",	"perf-*.map",
	"*.folded",    "profile.svg", "*.svg",	      "trace.json*", "trace.pftrace",
	"profile.pb.gz", "summary.json", "analysis.txt",
};

static bool dir_pattern_match(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dir_patterns); i++)
		if (!fnmatch(dir_patterns[i], name, FNM_PERIOD))
			return true;
	return false;
}

/* Does @name in @dir_fd start with the trace magic (a file gpuperf wrote)? */
static bool dir_is_trace(int dir_fd, const char *name)
{
	char magic[sizeof(GP_FILE_MAGIC) - 1];
	int fd = gp_file__input(dir_fd, name);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      !memcmp(magic, GP_FILE_MAGIC, sizeof(magic));
	close(fd);
	return yes;
}

/*
 * Remove what an earlier recording left in @dir_fd: only entries matching
 * dir_patterns, only regular files and links (the entries themselves, never
 * what a link points to). With @check, first make sure the directory is a
 * recording: empty, or holding a record.json or a trace gpuperf wrote.
 * 0, or -ENOTEMPTY when it is not a recording.
 */
static int dir_clean(int dir_fd, bool check)
{
	int fd = dup(dir_fd), err = 0;
	bool recording = true;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (check) {
		bool empty = true, ours = false;

		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			empty = false;
			if (!fstatat(dir_fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
			    S_ISREG(sb.st_mode) &&
			    (!strcmp(de->d_name, "record.json") ||
			     (!fnmatch("*.trace", de->d_name, FNM_PERIOD) &&
			      dir_is_trace(dir_fd, de->d_name))))
				ours = true;
		}
		recording = empty || ours;
		rewinddir(d);
	}
	while (recording && (de = readdir(d))) {
		if (!dir_pattern_match(de->d_name) ||
		    fstatat(dir_fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !(S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)))
			continue;
		unlinkat(dir_fd, de->d_name, 0);
	}
	closedir(d);
	return recording ? 0 : -ENOTEMPTY;
}

/* What dir_prepare() is given and answers, in memory shared with the child that runs it. */
struct dir_job {
	const struct record_opts *o;
	char what[64];	      /* for the default name */
	char stamp[32];
	char name[PATH_MAX];  /* out: the directory made or reused */
	bool created;	      /* out */
};

static int dir_reuse(struct dir_job *job)
{
	int fd = gp_file__dir_owned(job->name, geteuid()), err;
	struct stat sb;

	/* O_DIRECTORY|O_NOFOLLOW of a link: ELOOP or ENOTDIR */
	if (fd == -ENOTDIR && !lstat(job->name, &sb) && S_ISLNK(sb.st_mode))
		fd = -ELOOP;
	if (fd == -ELOOP || fd == -ENOTDIR) {
		fprintf(stderr, "gpuperf record: '%s' is %s: not reused\n", job->name,
			fd == -ELOOP ? "a symbolic link" : "not a directory");
		return fd;
	}
	if (fd == -EPERM) {
		fprintf(stderr, "gpuperf record: '%s' does not belong to %s (uid %u): not reused\n",
			job->name, getenv("SUDO_UID") ? "the sudo user" : "you",
			(unsigned)geteuid());
		return fd;
	}
	if (fd < 0) {
		fprintf(stderr, "gpuperf record: cannot use '%s': %s\n", job->name, strerror(-fd));
		return fd;
	}
	err = dir_clean(fd, true);
	close(fd);
	if (err == -ENOTEMPTY)
		fprintf(stderr, "gpuperf record: '%s' is not a gpuperf recording (no record.json or "
				"trace in it): --force reuses only those; choose another -o\n",
			job->name);
	else if (err)
		fprintf(stderr, "gpuperf record: cannot use '%s': %s\n", job->name, strerror(-err));
	return err;
}

/* As the user: make DIR, or take an existing one with --force. 0, or -errno printed. */
static int dir_prepare(void *arg)
{
	struct dir_job *job = arg;
	int i;

	umask(022);
	if (job->o->output) {
		snprintf(job->name, sizeof(job->name), "%s", job->o->output);
		if (!mkdir(job->name, 0755)) {
			job->created = true;
			return 0;
		}
		if (errno == EEXIST && job->o->force)
			return dir_reuse(job);
		fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name,
			strerror(errno));
		return -errno;
	}
	/* never an existing one: two runs in one second get -2, -3, ... */
	for (i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(job->name, sizeof(job->name), "gpuperf-%s-%s", job->what,
				 job->stamp);
		else
			snprintf(job->name, sizeof(job->name), "gpuperf-%s-%s-%d", job->what,
				 job->stamp, i);
		if (!mkdir(job->name, 0755)) {
			job->created = true;
			return 0;
		}
		if (errno != EEXIST) {
			fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name,
				strerror(errno));
			return -errno;
		}
	}
	fprintf(stderr, "gpuperf record: cannot create '%s': %s\n", job->name, strerror(EEXIST));
	return -EEXIST;
}

static const char *base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

/* Make DIR as the user (or take an existing one with --force) and open it: 0, or -errno printed. */
static int dir_make(struct record *r)
{
	const struct record_opts *o = &r->o;
	char link[64];
	struct dir_job *job;
	time_t t = time(NULL);
	struct tm tm;
	ssize_t n;
	int err;

	job = mmap(NULL, sizeof(*job), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (job == MAP_FAILED) {
		fprintf(stderr, "gpuperf record: %s\n", strerror(errno));
		return -errno;
	}
	memset(job, 0, sizeof(*job));
	job->o = o;
	localtime_r(&t, &tm);
	strftime(job->stamp, sizeof(job->stamp), "%Y%m%d-%H%M%S", &tm);
	if (o->argc)
		snprintf(job->what, sizeof(job->what), "%s", base_name(o->argv[0]));
	else if (o->nr_pids)
		snprintf(job->what, sizeof(job->what), "pid%d", o->pids[0]);
	else if (o->nr_tids)
		snprintf(job->what, sizeof(job->what), "tid%d", o->tids[0]);
	else
		snprintf(job->what, sizeof(job->what), "system");

	err = gp_user__run(&r->u, dir_prepare, job);
	if (err)
		goto out;
	r->dir_created = job->created;
	snprintf(r->dir_name, sizeof(r->dir_name), "%s", job->name);
	/* root writes only into the directory the user made or owns, not through a swapped name */
	r->dir_fd = gp_file__dir_owned(job->name, gp_user__owner(&r->u));
	if (r->dir_fd < 0) {
		err = r->dir_fd;
		fprintf(stderr, "gpuperf record: cannot open '%s': %s\n", job->name,
			err == -EPERM ? "it changed owner or was replaced while being made"
				      : strerror(-err));
		goto out;
	}
	/* the path the program gets (GPUPERF_DIR): the directory opened, absolute */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", r->dir_fd);
	n = readlink(link, r->dir, sizeof(r->dir) - 1);
	if (n > 0) {
		r->dir[n] = '\0';
	} else if (!realpath(job->name, r->dir)) {
		err = -errno;
		fprintf(stderr, "gpuperf record: cannot resolve '%s': %s\n", job->name,
			strerror(errno));
	}
out:
	munmap(job, sizeof(*job));
	return err;
}

static int dir_remove(void *arg)
{
	return rmdir(arg) ? -errno : 0;
}

/* Undo dir_make() after a start that failed before the program ran. */
static void dir_unmake(struct record *r)
{
	if (r->dir_fd < 0)
		return;
	dir_clean(r->dir_fd, false);
	if (r->dir_created)
		gp_user__run(&r->u, dir_remove, r->dir_name);
}

/*
 * Create DIR/@name for writing as root, for the user: -errno printed.
 * O_EXCL: DIR was emptied, so a name that exists was put there by the
 * program, and is neither followed nor replaced.
 */
static int dir_create(struct record *r, const char *name)
{
	int fd = gp_file__create(r->dir_fd, name, r->u.drop, r->u.uid, r->u.gid);

	if (fd < 0)
		fprintf(stderr, "gpuperf record: cannot write '%s/%s': %s\n", r->dir, name,
			fd == -EEXIST ? "it exists (made by the program?): not replaced"
				      : gp_file__strerror(fd));
	return fd;
}

/* Call @fn for each entry of DIR matching @pattern that is a regular file, with its size, by name. */
static void dir_each(struct record *r, const char *pattern,
		     void (*fn)(struct record *r, const char *name, uint64_t size, void *arg),
		     void *arg)
{
	struct dirent **list;
	struct stat sb;
	int i, n = scandirat(r->dir_fd, ".", &list, NULL, alphasort);

	for (i = 0; i < n; i++) {
		if (!fnmatch(pattern, list[i]->d_name, FNM_PERIOD) &&
		    !fstatat(r->dir_fd, list[i]->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(sb.st_mode))
			fn(r, list[i]->d_name, (uint64_t)sb.st_size, arg);
		free(list[i]);
	}
	if (n > 0)
		free(list);
}

/* ---- the CFI table cache ------------------------------------------------------ */

/*
 * The agent keeps the CFI tables it builds in $XDG_CACHE_HOME/gpuperf
 * (~/.cache/gpuperf) of the user gpuperf acts for, so a warm start reads
 * them instead of parsing every library's .eh_frame again. As for DIR,
 * the user makes the directory (gp_user__run), root opens it once as a
 * directory that is not a link and that the user owns, and the agent
 * reads and writes entries only relative to that descriptor
 * (unwind/cfi_cache.h). GPUPERF_CACHE=0 turns it off.
 */

static bool cache_wanted(void)
{
	const char *s = getenv("GPUPERF_CACHE");

	return !s || !(!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") ||
		       !strcasecmp(s, "false"));
}

/* As the user: make the cache directory and any missing parent. */
static int cache_prepare(void *arg)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", (const char *)arg);
	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Open the user's cache directory for the agent (r->cache_fd), or leave it at -1 and say why with -v. */
static void cache_open(struct record *r)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = r->u.drop ? r->u.home : getenv("HOME");
	int n, err;

	if (!cache_wanted() || (getenv("GPUPERF_UNWIND") && !strcmp(getenv("GPUPERF_UNWIND"), "fp")))
		return;
	/* under sudo, a XDG_CACHE_HOME kept (sudo -E) is the user's, and checked to be theirs */
	if (xdg && xdg[0] == '/')
		n = snprintf(r->cache_dir, sizeof(r->cache_dir), "%s/gpuperf", xdg);
	else if (home && home[0] == '/')
		n = snprintf(r->cache_dir, sizeof(r->cache_dir), "%s/.cache/gpuperf", home);
	else
		return;
	if (n <= 0 || (size_t)n >= sizeof(r->cache_dir))
		return;
	err = gp_user__run(&r->u, cache_prepare, r->cache_dir);
	if (!err) {
		r->cache_fd = gp_file__dir_owned(r->cache_dir, gp_user__owner(&r->u));
		err = r->cache_fd < 0 ? r->cache_fd : 0;
	}
	if (err && r->o.verbose)
		fprintf(stderr, "gpuperf record: the CFI table cache '%s' is not used: %s\n",
			r->cache_dir,
			err == -EPERM ? "it does not belong to the user" : gp_file__strerror(err));
}

/*
 * Open the directory where the agent keeps the kernel's text symbols
 * between runs (r->ksym_fd): root's alone, as the addresses it holds are
 * what KASLR hides from users. /run is emptied at each boot, as the
 * addresses change. Made 0700 when missing; one that is not a directory
 * that root owns and alone can use is not used (the agent reads
 * /proc/kallsyms each time, as without a cache).
 */
static void ksym_cache_open(struct record *r)
{
	struct stat sb;
	int fd;

	if (geteuid() != 0 || r->o.user_stacks_only)
		return;
	if (mkdir(KSYM_CACHE_DIR, 0700) && errno != EEXIST)
		return;
	fd = gp_file__dir_owned(KSYM_CACHE_DIR, 0);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || (sb.st_mode & 077)) {
		close(fd);
		return;
	}
	r->ksym_fd = fd;
}

/* ---- the CPU agent ----------------------------------------------------------- */

static int agent_start(struct record *r, pid_t child)
{
	const struct record_opts *o = &r->o;
	struct cpu_agent_opts ao;
	int err;

	memset(&ao, 0, sizeof(ao));
	ao.dir = r->dir;
	/* the agent creates its files relative to DIR's descriptor, each handed to the user */
	ao.dir_fd = r->dir_fd;
	ao.set_owner = r->u.drop;
	ao.cache_dir_fd = r->cache_fd > 0 ? r->cache_fd : 0;
	ao.kallsyms_cache_fd = r->ksym_fd > 0 ? r->ksym_fd : 0;
	ao.owner_uid = r->u.uid;
	ao.owner_gid = r->u.gid;
	if (child) {
		if (!o->system_wide) {
			ao.pids = &r->child;
			ao.nr_pids = 1;
		}
	} else {
		ao.pids = o->pids;
		ao.nr_pids = o->nr_pids;
		ao.tids = o->tids;
		ao.nr_tids = o->nr_tids;
		/* threads blocked when we attach are covered from then on */
		ao.attach_running = true;
	}
	ao.system_wide = o->system_wide;
	ao.cpus = o->cpus;
	ao.nr_cpus = o->nr_cpus;
	ao.user_threads_only = o->user_threads_only;
	ao.kernel_threads_only = o->kernel_threads_only;
	ao.on_cpu = o->on_cpu;
	ao.freq_hz = o->freq_hz;
	ao.no_user_stack = o->kernel_stacks_only;
	ao.no_kernel_stack = o->user_stacks_only;
	ao.off_cpu = o->off_cpu;
	ao.min_block_us = o->min_block_us;
	ao.max_block_us = o->max_block_us;
	ao.no_kallsyms = o->user_stacks_only; /* kernel symbols only serve kernel stacks */
	ao.errbuf = r->agent_msg;
	ao.errlen = sizeof(r->agent_msg);

	if (o->verbose)
		fprintf(stderr,
			"gpuperf record: CPU agent: on-cpu %s at %u Hz, off-cpu %s (%u..%u us)\n",
			ao.on_cpu ? "on" : "off", ao.freq_hz, ao.off_cpu ? "on" : "off",
			ao.min_block_us, ao.max_block_us);
	r->agent = cpu_agent__new(&ao);
	if (!r->agent) {
		err = -errno;
		goto fail;
	}
	err = cpu_agent__start(r->agent);
	if (err)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "gpuperf record: cannot start the CPU recorder: %s\n",
		r->agent_msg[0] ? r->agent_msg : cpu_agent__strerror(err));
	cpu_agent__free(r->agent);
	r->agent = NULL;
	return err;
}

static void agent_stop(struct record *r)
{
	int err;

	if (!r->agent || r->agent_stopped)
		return;
	r->agent_stopped = true;
	err = cpu_agent__stop(r->agent);
	if (err && !r->agent_err)
		r->agent_err = err;
}

/* ---- the program ------------------------------------------------------------- */

/* What the child reports through the exec pipe when it cannot start the program. */
struct child_failure {
	int stage; /* CHILD_* */
	int err;
};

enum { CHILD_EXEC, CHILD_SETGROUPS, CHILD_SETGID, CHILD_SETUID };

static void child_fail(int fd, int stage, int err)
{
	struct child_failure f = { stage, err };

	if (write(fd, &f, sizeof(f)) < 0)
		_exit(1);
}

/* In the child: wait for the release, become the user, exec. Never returns. */
static void child_run(struct record *r, int hold_fd, int fail_fd)
{
	const struct gp_user *u = &r->u;
	char c;

	signals_restore(r->saved_sigs);
	if (r->o.gpu) {
		setenv("CUDA_INJECTION64_PATH", r->inject_lib, 1);
		setenv("GPUPERF_DIR", r->dir, 1);
	}
	if (u->drop && u->name) {
		setenv("HOME", u->home, 1);
		setenv("USER", u->name, 1);
		setenv("LOGNAME", u->name, 1);
	}
	/* EOF: gpuperf gave up (the agent failed); the program never runs */
	if (read(hold_fd, &c, 1) != 1)
		_exit(1);
	close(hold_fd);
	if (u->drop) {
		if (setgroups((size_t)u->nr_groups, u->groups)) {
			child_fail(fail_fd, CHILD_SETGROUPS, errno);
			_exit(1);
		}
		if (setgid(u->gid)) {
			child_fail(fail_fd, CHILD_SETGID, errno);
			_exit(1);
		}
		if (setuid(u->uid)) {
			child_fail(fail_fd, CHILD_SETUID, errno);
			_exit(1);
		}
	}
	execvp(r->o.argv[0], r->o.argv);
	child_fail(fail_fd, CHILD_EXEC, errno);
	_exit(errno == ENOENT ? RECORD_EXIT_NOTFOUND : RECORD_EXIT_NOEXEC);
}

static int exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR ? RECORD_EXIT_NOTFOUND : RECORD_EXIT_NOEXEC;
}

static void reap(struct record *r, int flags)
{
	int st;
	pid_t w;

	if (r->child <= 0)
		return;
	/* no WUNTRACED: a job-control stop is not an exit */
	do
		w = waitpid(r->child, &st, flags);
	while (w < 0 && errno == EINTR);
	if (w == r->child) {
		r->status = st;
		r->waited = true;
		r->child = 0;
	}
}

/* Fork the program held, start the agent on it, release it: 0 or an exit status (printed). */
static int launch(struct record *r)
{
	int hold[2] = { -1, -1 }, fail[2] = { -1, -1 }, ret = GP_EXIT_DATA;
	struct child_failure f;
	ssize_t n;
	char c = 1;
	pid_t pid;

	if (pipe2(hold, O_CLOEXEC) || pipe2(fail, O_CLOEXEC)) {
		fprintf(stderr, "gpuperf record: cannot create a pipe: %s\n", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "gpuperf record: cannot fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(hold[1]);
		close(fail[0]);
		child_run(r, hold[0], fail[1]);
	}
	r->child = r->pid = pid;
	close(hold[0]);
	close(fail[1]);
	hold[0] = fail[1] = -1;

	if (r->o.cpu && agent_start(r, pid))
		goto kill_held;
	if (sig_requests) {
		fprintf(stderr, "gpuperf record: interrupted before %s started\n", r->o.argv[0]);
		ret = 128 + sig_last;
		goto kill_held;
	}

	r->start_real_ns = now_ns(CLOCK_REALTIME);
	r->start_mono_ns = now_ns(CLOCK_MONOTONIC);
	if (write(hold[1], &c, 1) != 1) {
		fprintf(stderr, "gpuperf record: cannot release %s: %s\n", r->o.argv[0],
			strerror(errno));
		goto kill_held;
	}
	close(hold[1]);
	hold[1] = -1;

	/* EOF at the exec (close-on-exec), or the child's report of what failed */
	do
		n = read(fail[0], &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(f)) {
		static const char *const what[] = { "run", "set the groups of", "setgid for",
						    "setuid for" };

		fprintf(stderr, "gpuperf record: cannot %s '%s': %s\n",
			what[f.stage >= 0 && f.stage <= CHILD_SETUID ? f.stage : 0], r->o.argv[0],
			strerror(f.err));
		ret = f.stage == CHILD_EXEC ? exec_status(f.err) : GP_EXIT_DATA;
		reap(r, 0);
		agent_stop(r);
		cpu_agent__free(r->agent);
		r->agent = NULL;
		dir_unmake(r);
		goto out;
	}
	ret = 0;
	goto out;

kill_held:
	/* the program never ran: it is still blocked in read() before exec */
	kill(r->child, SIGKILL);
	reap(r, 0);
	cpu_agent__free(r->agent);
	r->agent = NULL;
	dir_unmake(r);
out:
	if (hold[0] >= 0)
		close(hold[0]);
	if (hold[1] >= 0)
		close(hold[1]);
	if (fail[0] >= 0)
		close(fail[0]);
	if (fail[1] >= 0)
		close(fail[1]);
	return ret;
}

static const char *signame(int sig)
{
	const char *s = sigabbrev_np(sig);

	return s ? s : "?";
}

/*
 * Stop the recording before the program exits (second Ctrl-C, -d): stop
 * the agent, then send the program --kill's signal; returns true when the
 * loop should still wait for it.
 */
static bool stop_early(struct record *r, const char *why)
{
	status_clear(r);
	agent_stop(r);
	if (!r->child)
		return false;
	if (!r->o.kill_sig) {
		fprintf(stderr, "gpuperf record: %s: recording stopped; %s (pid %d) keeps running\n",
			why, r->o.argv[0], (int)r->child);
		r->child = 0; /* --kill none: not ours to wait for or kill */
		return false;
	}
	fprintf(stderr, "gpuperf record: %s: recording stopped; sending SIG%s to %s (pid %d)%s\n",
		why, signame(r->o.kill_sig), r->o.argv[0], (int)r->child,
		r->o.kill_sig != SIGKILL ? "; Ctrl-C again sends SIGKILL" : "");
	kill(r->child, r->o.kill_sig);
	kill(r->child, SIGCONT);
	return true;
}

/* -p/-t: say when an attached process or thread exits (its data so far is kept). */
static void show_exits(struct record *r)
{
	const struct cpu_agent_exit *ex;
	size_t n;

	if (!r->agent)
		return;
	ex = cpu_agent__exits(r->agent, &n);
	for (; r->exits_shown < n; r->exits_shown++) {
		const struct cpu_agent_exit *e = &ex[r->exits_shown];
		double at = e->ts > r->start_mono_ns ? (double)(e->ts - r->start_mono_ns) / 1e9 : 0;

		if (r->o.quiet)
			continue;
		status_clear(r);
		if (e->unseen)
			fprintf(stderr, "gpuperf record: %s %d exited while the recorder attached; "
					"nothing of it was recorded\n",
				r->o.nr_tids ? "thread" : "process", (int)e->pid);
		else if (r->o.nr_tids)
			fprintf(stderr, "gpuperf record: thread %d (%s) of process %d exited after "
					"%.2f s\n", (int)e->tid, e->comm, (int)e->pid, at);
		else if (WIFSIGNALED(e->status))
			fprintf(stderr, "gpuperf record: process %d (%s) was killed by SIG%s after "
					"%.2f s\n", (int)e->pid, e->comm, signame(WTERMSIG(e->status)), at);
		else
			fprintf(stderr, "gpuperf record: process %d (%s) exited with status %d after "
					"%.2f s\n", (int)e->pid, e->comm, WEXITSTATUS(e->status), at);
	}
}

/* Poll the agent, reap the program, follow signals and the clock until the recording ends. */
static void record_loop(struct record *r)
{
	const uint64_t period = 500000000ull;
	uint64_t next_status, deadline = 0, first_int = 0, now;
	int handled = 0, terms = 0, level = 0;
	bool attach = r->child == 0, waiting = true;

	next_status = now_ns(CLOCK_MONOTONIC) + period;
	if (r->o.duration_s)
		deadline = r->start_mono_ns + r->o.duration_s * 1000000000ull;
	while (waiting) {
		if (r->agent && !r->agent_stopped) {
			int e = cpu_agent__poll(r->agent, 100);

			if (e < 0 && e != -EINTR) {
				status_clear(r);
				fprintf(stderr, "gpuperf record: the CPU recorder failed: %s; "
						"stopping it\n", cpu_agent__strerror(e));
				r->agent_err = e;
				agent_stop(r);
			}
		} else {
			poll(NULL, 0, 50);
		}
		if (!attach) {
			reap(r, WNOHANG);
			if (!r->child)
				break;
		} else if (r->agent) {
			size_t n;

			show_exits(r);
			cpu_agent__exits(r->agent, &n);
			if (r->o.nr_pids && !cpu_agent__alive(r->agent))
				break; /* every attached process has exited */
			if (r->o.nr_tids && n == r->o.nr_tids)
				break; /* every attached thread has exited */
		}
		now = now_ns(CLOCK_MONOTONIC);

		/* SIGTERM to gpuperf is meant for the program */
		while (terms < sig_terms) {
			terms++;
			if (r->child)
				kill(r->child, SIGTERM);
		}
		while (handled < sig_requests) {
			handled++;
			level++;
			if (attach) {
				waiting = false;
			} else if (level == 1) {
				first_int = now; /* the terminal sent it to the program too */
			} else if (level == 2) {
				waiting = stop_early(r, "interrupted");
			} else if (r->child) {
				status_clear(r);
				fprintf(stderr, "gpuperf record: sending SIGKILL to %s (pid %d)\n",
					r->o.argv[0], (int)r->child);
				kill(r->child, SIGKILL);
			}
		}
		if (first_int && level == 1 && now - first_int > 1000000000ull && r->child) {
			status_clear(r);
			fprintf(stderr, "gpuperf record: %s is still running after SIG%s; recording "
					"until it exits (Ctrl-C again stops the recording)\n",
				r->o.argv[0], signame(sig_last));
			first_int = 0;
		}
		if (deadline && now >= deadline) {
			deadline = 0;
			if (attach) {
				waiting = false;
			} else if (level < 2) {
				level = 2; /* a Ctrl-C from now on kills */
				waiting = stop_early(r, "--duration reached");
			}
		}
		if (waiting && now >= next_status) {
			next_status = now + period;
			status_show(r);
		}
	}
	status_clear(r);
	r->end_mono_ns = now_ns(CLOCK_MONOTONIC);
	agent_stop(r);
}

/* ---- record.json and the summary --------------------------------------------- */

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

/* The attached process's command line, for the report's title. */
static cJSON *proc_cmdline(pid_t pid)
{
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
	return a;
}

/*
 * The records a trace's writer could not store and the errno of the first
 * (format 2.2 keeps both in the header, rewritten in place: a full disk
 * cannot hide them). 0 when none or unknown.
 */
static uint64_t trace_lost(struct record *r, const char *name, uint32_t *cause)
{
	struct gp_file_header h;
	int fd = gp_file__input(r->dir_fd, name);
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

static void add_trace(struct record *r, const char *name, uint64_t size, void *arg)
{
	cJSON *e = cJSON_CreateObject();
	uint32_t cause;
	uint64_t lost = trace_lost(r, name, &cause);

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
static void warn_trace_lost(struct record *r, const char *name, uint64_t size, void *arg)
{
	uint32_t cause;
	uint64_t lost = trace_lost(r, name, &cause);

	(void)size;
	(void)arg;
	if (lost)
		fprintf(stderr,
			"gpuperf record: warning: %" PRIu64 " GPU records could not be written to "
			"%s: %s\n",
			lost, name, strerror(cause ? (int)cause : EIO));
}

static int record_json(struct record *r, const struct cpu_agent_stats *st)
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
	cJSON_AddStringToObject(j, "dir", r->dir);

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
		bool ex = r->waited && WIFEXITED(r->status), sg = r->waited && WIFSIGNALED(r->status);

		cJSON_AddNumberToObject(tgt, "pid", r->pid);
		if (ex)
			cJSON_AddNumberToObject(tgt, "exit_code", WEXITSTATUS(r->status));
		else
			cJSON_AddNullToObject(tgt, "exit_code");
		if (sg)
			cJSON_AddNumberToObject(tgt, "signal", WTERMSIG(r->status));
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
		dir_each(r, "gpu-*.trace", add_trace, gpu);

	text = cJSON_Print(j);
	if (!text)
		goto out;
	fd = dir_create(r, "record.json");
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
	if (err && !r->write_failed) { /* dir_create() said why */
		fprintf(stderr, "gpuperf record: cannot write '%s/record.json': %s\n", r->dir,
			strerror(-err));
		r->write_failed = true;
	}
	free(text);
	cJSON_Delete(j);
	return err;
}

static void print_size(struct record *r, const char *name, uint64_t size, void *what)
{
	(void)r;
	fprintf(stderr, "  %-18s %9.1f KiB%s%s\n", name, (double)size / 1024.0, what ? "  " : "",
		what ? (const char *)what : "");
}

static void summary(struct record *r, const struct cpu_agent_stats *st)
{
	double secs = (double)(r->end_mono_ns - r->start_mono_ns) / 1e9;
	uint64_t lost, sum[2] = { 0, 0 }; /* GPU traces, bytes */
	char what[160];

	if (r->o.argc) {
		if (r->waited && WIFEXITED(r->status))
			fprintf(stderr, "gpuperf record: %s exited with status %d after %.2f s\n",
				r->o.argv[0], WEXITSTATUS(r->status), secs);
		else if (r->waited && WIFSIGNALED(r->status))
			fprintf(stderr, "gpuperf record: %s was killed by SIG%s after %.2f s\n",
				r->o.argv[0], signame(WTERMSIG(r->status)), secs);
		else
			fprintf(stderr, "gpuperf record: recorded %.2f s of %s\n", secs, r->o.argv[0]);
	} else {
		fprintf(stderr, "gpuperf record: recorded %.2f s\n", secs);
	}
	fprintf(stderr, "gpuperf record: wrote %s/\n", r->dir);
	if (st) {
		snprintf(what, sizeof(what),
			 "%" PRIu64 " sample%s, %" PRIu64 " off-CPU span%s, %" PRIu64
			 " process event%s (fork, exec, exit)",
			 st->samples, st->samples == 1 ? "" : "s", st->offcpu_spans,
			 st->offcpu_spans == 1 ? "" : "s", st->procs, st->procs == 1 ? "" : "s");
		dir_each(r, "cpu.trace", print_size, what);
	}
	dir_each(r, "gpu-*.trace", add_size, sum);
	if (sum[0]) {
		dir_each(r, "gpu-*.trace", print_size, NULL);
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
	dir_each(r, "gpu-*.trace", warn_trace_lost, NULL);
	if (r->agent_err)
		fprintf(stderr, "gpuperf record: warning: the CPU trace may be incomplete: %s\n",
			cpu_agent__strerror(r->agent_err));
}

/* ---- the command ------------------------------------------------------------- */

static int exit_status(const struct record *r)
{
	int ret = GP_EXIT_OK;

	if (r->waited && WIFEXITED(r->status))
		ret = WEXITSTATUS(r->status);
	else if (r->waited && WIFSIGNALED(r->status))
		ret = 128 + WTERMSIG(r->status);
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
	r->dir_fd = -1;
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
		err = program_check(r->o.argv[0]);
		if (err) {
			fprintf(stderr, "gpuperf record: cannot run '%s': %s\n", r->o.argv[0],
				err == -ENOENT && !strchr(r->o.argv[0], '/') ? "command not found"
									  : strerror(-err));
			ret = exec_status(-err);
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
	if (r->o.cpu) {
		cache_open(r);
		ksym_cache_open(r);
	}
	r->live = !r->o.quiet && isatty(STDERR_FILENO);
	signals_install(r->saved_sigs);
	r->signals_set = true;

	if (r->o.argc) {
		err = launch(r);
		if (err) {
			ret = err;
			goto out;
		}
	} else {
		if (agent_start(r, 0)) {
			dir_unmake(r);
			goto out;
		}
		/* read now: the process may exit while recorded */
		if (r->o.nr_pids)
			r->attached_cmdline = proc_cmdline(r->o.pids[0]);
		/*
		 * The recording (and -d) starts once the agent is attached: its
		 * window from when the tracers covered the threads (blocks in
		 * progress count from there), not from the end of the set-up.
		 */
		r->start_real_ns = now_ns(CLOCK_REALTIME);
		r->start_mono_ns = now_ns(CLOCK_MONOTONIC);
		if (cpu_agent__covered_ns(r->agent) && cpu_agent__covered_ns(r->agent) < r->start_mono_ns) {
			r->start_real_ns -= r->start_mono_ns - cpu_agent__covered_ns(r->agent);
			r->start_mono_ns = cpu_agent__covered_ns(r->agent);
		}
		if (!r->o.quiet)
			fprintf(stderr, "gpuperf record: recording%s; Ctrl-C stops\n",
				r->o.duration_s ? " for --duration" : "");
	}
	record_loop(r);
	if (r->agent) {
		cpu_agent__stats(r->agent, &st);
		have_stats = true;
	}
	record_json(r, have_stats ? &st : NULL);
	if (!r->o.quiet)
		summary(r, have_stats ? &st : NULL);
	if (dir_out)
		snprintf(dir_out, dir_len, "%s", r->dir);
	if (quiet)
		*quiet = r->o.quiet;
	ret = exit_status(r);
out:
	if (r->signals_set)
		signals_restore(r->saved_sigs);
	if (r->child > 0) {
		kill(r->child, SIGKILL);
		reap(r, 0);
	}
	cpu_agent__free(r->agent);
	cJSON_Delete(r->attached_cmdline);
	gp_user__release(&r->u);
	if (r->dir_fd >= 0)
		close(r->dir_fd);
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
