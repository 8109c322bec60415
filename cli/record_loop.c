// SPDX-License-Identifier: Apache-2.0
/*
 * record_loop.c - `gpuperf record` while it records: the launch of the
 * program under the recorders, then the wait (see record_loop.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "cpu_agent.h"
#include "record.h"
#include "record_agent.h"
#include "record_loop.h"

/* Take the live status line off the terminal before any other message. */
static void status_clear(struct record *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		r->status_shown = false;
	}
}


static void status_show(struct record *r)
{
	struct cpu_agent_stats st;
	uint64_t el = (record__now_ns(CLOCK_MONOTONIC) - r->start_mono_ns) / 100000000ull;
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
		record_dir__sum(&r->dir, "gpu-*.trace", sum);
		fprintf(stderr, "  gpu traces %" PRIu64 " (%" PRIu64 " KiB)", sum[0], sum[1] / 1024);
	}
	fputs("\033[K", stderr);
	fflush(stderr);
	r->status_shown = true;
}

int record_loop__launch(struct record *r)
{
	struct child *c = &r->prog;
	struct child_signals sig;
	int ret = GP_EXIT_DATA, err;

	c->argv = r->o.argv;
	c->user = &r->u;
	if (r->o.gpu) {
		c->env[0][0] = "CUDA_INJECTION64_PATH";
		c->env[0][1] = r->inject_lib;
		c->env[1][0] = "GPUPERF_DIR";
		c->env[1][1] = r->dir.path;
	}
	if (child__start(c))
		return ret;

	if (r->o.cpu && record_agent__start(r, c->pid))
		goto kill_held;
	child__signals_seen(&sig);
	if (sig.requests) {
		fprintf(stderr, "gpuperf record: interrupted before %s started\n", r->o.argv[0]);
		ret = 128 + sig.last;
		goto kill_held;
	}

	r->start_real_ns = record__now_ns(CLOCK_REALTIME);
	r->start_mono_ns = record__now_ns(CLOCK_MONOTONIC);
	err = child__exec(c);
	if (err < 0)
		goto kill_held;
	if (err > 0) {
		/* it could not exec or become the user: reaped, nothing of it recorded */
		record_agent__stop(r);
		cpu_agent__free(r->agent);
		r->agent = NULL;
		record_dir__unmake(&r->dir);
		return err;
	}
	return 0;

kill_held:
	child__kill_held(c);
	cpu_agent__free(r->agent);
	r->agent = NULL;
	record_dir__unmake(&r->dir);
	return ret;
}

/*
 * Stop the recording before the program exits (second Ctrl-C, -d): stop
 * the agent, then send the program --kill's signal; returns true when the
 * loop should still wait for it.
 */
static bool stop_early(struct record *r, const char *why)
{
	status_clear(r);
	record_agent__stop(r);
	if (!r->prog.running)
		return false;
	if (!r->o.kill_sig) {
		fprintf(stderr, "gpuperf record: %s: recording stopped; %s (pid %d) keeps running\n",
			why, r->o.argv[0], (int)r->prog.running);
		r->prog.running = 0; /* --kill none: not ours to wait for or kill */
		return false;
	}
	fprintf(stderr, "gpuperf record: %s: recording stopped; sending SIG%s to %s (pid %d)%s\n",
		why, child__signame(r->o.kill_sig), r->o.argv[0], (int)r->prog.running,
		r->o.kill_sig != SIGKILL ? "; Ctrl-C again sends SIGKILL" : "");
	kill(r->prog.running, r->o.kill_sig);
	kill(r->prog.running, SIGCONT);
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
					"%.2f s\n", (int)e->pid, e->comm, child__signame(WTERMSIG(e->status)), at);
		else
			fprintf(stderr, "gpuperf record: process %d (%s) exited with status %d after "
					"%.2f s\n", (int)e->pid, e->comm, WEXITSTATUS(e->status), at);
	}
}

/* Poll the agent, reap the program, follow signals and the clock until the recording ends. */
void record_loop__wait(struct record *r)
{
	const uint64_t period = 500000000ull;
	uint64_t next_status, deadline = 0, first_int = 0, now;
	int handled = 0, level = 0;
	bool attach = r->prog.running == 0, waiting = true;
	struct child_signals sig;

	next_status = record__now_ns(CLOCK_MONOTONIC) + period;
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
				record_agent__stop(r);
			}
		} else {
			poll(NULL, 0, 50);
		}
		if (!attach) {
			child__reap(&r->prog, WNOHANG);
			if (!r->prog.running)
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
		now = record__now_ns(CLOCK_MONOTONIC);

		child__forward_terms(&r->prog);
		child__signals_seen(&sig);
		while (handled < sig.requests) {
			handled++;
			level++;
			if (attach) {
				waiting = false;
			} else if (level == 1) {
				first_int = now; /* the terminal sent it to the program too */
			} else if (level == 2) {
				waiting = stop_early(r, "interrupted");
			} else if (r->prog.running) {
				status_clear(r);
				fprintf(stderr, "gpuperf record: sending SIGKILL to %s (pid %d)\n",
					r->o.argv[0], (int)r->prog.running);
				kill(r->prog.running, SIGKILL);
			}
		}
		if (first_int && level == 1 && now - first_int > 1000000000ull && r->prog.running) {
			status_clear(r);
			fprintf(stderr, "gpuperf record: %s is still running after SIG%s; recording "
					"until it exits (Ctrl-C again stops the recording)\n",
				r->o.argv[0], child__signame(sig.last));
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
	r->end_mono_ns = record__now_ns(CLOCK_MONOTONIC);
	record_agent__stop(r);
}
