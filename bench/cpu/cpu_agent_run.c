// SPDX-License-Identifier: Apache-2.0
/* cpu_agent_run: run a command under the CPU agent (benchmark driver; the real front end is `gpuperf record`). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_agent.h"

/*
 * cpu_agent_run [-F HZ] [-c] [-O] [-m MIN_BLOCK_US] -o DIR -- CMD [ARGS...]
 *   -c on-CPU sampling, -O off-CPU spans.
 * The command is forked, held until the agent is attached, then released;
 * the agent stops when it exits. Prints the agent's counters to stderr.
 */

static void usage(void)
{
	fprintf(stderr, "usage: cpu_agent_run [-F HZ] [-c] [-O] [-m US] -o DIR -- CMD [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct cpu_agent_opts o = { 0 };
	char msg[512] = "";
	struct rusage ru;
	struct cpu_agent_stats st;
	struct cpu_agent *a;
	int barrier[2], status = 0, c, err;
	pid_t pid;
	char b = 1;

	while ((c = getopt(argc, argv, "F:cOm:o:")) != -1) {
		switch (c) {
		case 'F':
			o.freq_hz = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			o.on_cpu = true;
			break;
		case 'O':
			o.off_cpu = true;
			break;
		case 'm':
			o.min_block_us = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			o.dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (!o.dir || optind >= argc)
		usage();
	if (pipe2(barrier, O_CLOEXEC))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(barrier[1]);
		if (read(barrier[0], &b, 1) != 1)
			_exit(126);
		execvp(argv[optind], &argv[optind]);
		_exit(127);
	}
	close(barrier[0]);
	o.pids = &pid;
	o.nr_pids = 1;
	o.no_kallsyms = true;
	o.errbuf = msg;
	o.errlen = sizeof(msg);
	a = cpu_agent__new(&o);
	if (!a) {
		fprintf(stderr, "cpu_agent_run: %s\n", msg);
		close(barrier[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}
	err = cpu_agent__start(a);
	if (err) {
		fprintf(stderr, "cpu_agent_run: %s\n", msg);
		cpu_agent__free(a);
		close(barrier[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (write(barrier[1], &b, 1) != 1)
		return 1;
	close(barrier[1]);
	for (;;) {
		err = cpu_agent__poll(a, 100);
		if (err < 0 && err != -EINTR)
			break;
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	err = cpu_agent__stop(a);
	cpu_agent__stats(a, &st);
	fprintf(stderr,
		"cpu_agent_run: samples %llu offcpu %llu lost sample %llu offcpu %llu "
		"stack %llu%s\n",
		(unsigned long long)st.samples, (unsigned long long)st.offcpu_spans,
		(unsigned long long)st.lost_sample,
		(unsigned long long)st.lost_offcpu, (unsigned long long)st.lost_stack,
		st.sw_clock ? " (cpu-clock)" : "");
	/* the agent's own CPU time: with CFI it unwinds every user stack */
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "cpu_agent_run: agent cpu %.3f s unwinds %llu root %llu copy_bytes %llu\n",
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
		(unsigned long long)st.unwinds, (unsigned long long)st.unwind_ends[0],
		(unsigned long long)st.unwind_copy_bytes);
	cpu_agent__free(a);
	if (err)
		fprintf(stderr, "cpu_agent_run: writing the trace: %s\n", strerror(-err));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
