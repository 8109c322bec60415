/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record.h - the state of one `gpuperf record` run, shared by the files
 * that do its parts: cmd_record.c (options, checks, the sequence),
 * record_agent.c (the CPU side), record_loop.c (launch and the wait) and
 * record_summary.c (what is written and said at the end).
 *
 * It is the command's own state, not a library: cmd_record.c fills the
 * options and owns the struct; the parts read the options and own the
 * fields their comments name. The program (struct child) and DIR (struct
 * record_dir) are modules of their own that know nothing of the command.
 */
#ifndef GPUPERF_RECORD_H
#define GPUPERF_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "child.h"
#include "record_dir.h"
#include "user.h"

struct cJSON;
struct cpu_agent;

/* What the command line asked for: set by cmd_record.c, read by the rest. */
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
	struct record_dir dir;
	struct child prog;	/* the launched program; none with -p/-t/-a alone */
	char inject_lib[PATH_MAX];

	/* record_agent.c */
	struct cpu_agent *agent;
	bool agent_stopped;
	int agent_err;		/* first error of poll/stop */
	char agent_msg[512];
	int cache_fd;		/* the CFI table cache directory, the user's; -1: none */
	int ksym_fd;		/* the kernel symbol cache directory, root's; -1: none */
	char cache_dir[PATH_MAX];

	/* record_loop.c */
	uint64_t start_real_ns, start_mono_ns, end_mono_ns;
	bool live;		/* show the live status line */
	bool status_shown;	/* the live status line is on the terminal */
	size_t exits_shown;	/* -p/-t: exits of attached processes/threads reported */

	/* record_summary.c */
	bool write_failed;
	struct cJSON *attached_cmdline; /* -p: the first process's command line, read at attach */
};

static inline uint64_t record__now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* GPUPERF_RECORD_H */
