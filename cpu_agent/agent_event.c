// SPDX-License-Identifier: Apache-2.0
/* agent_event: the CPU agent's handlers of the process, sample and off-CPU ring buffers. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "agent_priv.h"
#include "cpu_sample.h"
#include "gp_writer.h"
#include "offcpu.h"
#include "proc_track.h"
#include "proc_track_prog.h"
#include "ustack.h"

/* Remember the exit of a pid or tid the caller gave (at most one each: it is not reused). */
static void note_exit(struct cpu_agent *a, const struct proc_track_event *ev, const char *comm,
		      bool last)
{
	struct cpu_agent_exit *n;
	bool given = false;

	if (a->tids)
		given = agent_proc__tid_followed(a, ev->tid);
	for (size_t i = 0; !a->tids && last && i < a->npids && !given; i++) {
		given = (uint32_t)a->pids[i] == ev->pid;
		if (given && a->pid_comms[i][0])
			comm = a->pid_comms[i];
	}
	if (!given || a->nexits >= a->ntids + a->npids)
		return;
	for (size_t i = 0; i < a->nexits; i++)
		if (a->exits[i].tid == (pid_t)ev->tid && a->exits[i].pid == (pid_t)ev->pid)
			return;
	n = &a->exits[a->nexits++];
	n->ts = ev->ts_ns;
	n->pid = (pid_t)ev->pid;
	n->tid = (pid_t)ev->tid;
	n->status = last ? ev->exit_status : 0;
	snprintf(n->comm, sizeof(n->comm), "%s", comm);
}

static void write_thread_exit(struct cpu_agent *a, struct proc *p,
			      const struct proc_track_event *ev, const char *comm)
{
	if (!agent_proc__tid_followed(a, ev->tid))
		return;
	agent_write__thread(a, ev->ts_ns, ev->pid, ev->tid, GP_PROC_EXIT, comm);
	a->st.threads_exited++;
	if (p)
		agent_proc__del_tid(p, ev->tid);
}

int agent_event__on_proc(void *ctx, const struct proc_track_event *ev)
{
	struct cpu_agent *a = ctx;
	struct proc *p;
	char comm[PROC_TRACK_COMM_LEN + 1];
	/* system_wide and tids: only processes already known (see cpu_agent.h) */
	bool known_only = a->opts.system_wide || a->tids;

	memcpy(comm, ev->comm, PROC_TRACK_COMM_LEN);
	comm[PROC_TRACK_COMM_LEN] = '\0';
	p = agent_proc__find(a, (pid_t)ev->pid);
	if (known_only && ev->type != PROC_TRACK_FORK && (!p || !p->alive)) {
		/*
		 * Two threads that exit together can reach the ring buffer in
		 * either order: a named thread's exit may come after its
		 * process's last thread's. It is still its exit, and a -t
		 * recording waits for it.
		 */
		if (ev->type == PROC_TRACK_THREAD_EXIT && a->tids)
			note_exit(a, ev, comm, false);
		return 0;
	}
	switch (ev->type) {
	case PROC_TRACK_FORK: {
		char exe[PATH_MAX];

		if (known_only)
			break; /* its threads are not followed / it is entered when seen */
		agent_proc__read_exe((pid_t)ev->pid, exe, sizeof(exe));
		agent_write__process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_FORK, 0, comm, exe);
		p = agent_proc__get(a, (pid_t)ev->pid);
		if (p) {
			if (agent_proc__add_tid(p, ev->tid))
				agent_write__thread(a, ev->ts_ns, ev->pid, ev->tid, GP_PROC_FORK,
						    comm);
			agent_proc__scan_maps(a, p, ev->ts_ns);
		}
		break;
	}
	case PROC_TRACK_EXEC: {
		char fn[PROC_TRACK_FILENAME_LEN + 1];

		memcpy(fn, ev->filename, PROC_TRACK_FILENAME_LEN);
		fn[PROC_TRACK_FILENAME_LEN] = '\0';
		agent_write__process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_EXEC, 0, comm, fn);
		p = agent_proc__get(a, (pid_t)ev->pid);
		if (p) {
			p->nmods = 0; /* a new address space */
			p->ntids = 0;
			p->pre_exec = false;
			p->exec_ts = ev->ts_ns;
			agent_proc__scan_maps(a, p, ev->ts_ns);
			agent_proc__scan_threads(a, p, ev->ts_ns);
			agent_proc__early_scan_from(a, p, agent_now_ns(CLOCK_MONOTONIC));
		}
		break;
	}
	case PROC_TRACK_MMAP_EXEC:
		if (p && p->alive)
			agent_proc__early_scan_from(a, p, agent_now_ns(CLOCK_MONOTONIC));
		break;
	case PROC_TRACK_THREAD_EXIT:
		if (p && p->alive) {
			write_thread_exit(a, p, ev, comm);
			note_exit(a, ev, comm, false);
		}
		break;
	case PROC_TRACK_EXIT:
		write_thread_exit(a, p, ev, comm);
		note_exit(a, ev, comm, true);
		agent_write__process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_EXIT, ev->exit_status,
				     comm, NULL);
		agent_proc__copy_jit_map(a, p, ev->pid);
		if (p)
			agent_proc__gone(a, p, agent_now_ns(CLOCK_MONOTONIC));
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Remember the kernel addresses of a stack for DIR/kallsyms (a return
 * address is looked up also one byte back, as reports do).
 */
static void note_kernel_ips(struct cpu_agent *a, const uint64_t *ips, uint32_t n)
{
	if (a->opts.no_kallsyms)
		return;
	for (uint32_t i = 0; i < n; i++) {
		kip_set__add(&a->kips, ips[i]);
		kip_set__add(&a->kips, ips[i] - 1);
	}
}

/*
 * One cpu_sample record: @nu user frames at @user, @nk kernel frames at
 * @kernel (8-byte addresses, the BPF side's __u64 or the unwinder's
 * uint64_t), hdr.flags @flags (GP_STACK_END_* of the user stack, or 0).
 */
static void write_sample(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t tid,
			 uint32_t cpu, const void *user, uint32_t nu, const void *kernel,
			 uint32_t nk, uint16_t flags)
{
	struct gp_rec_cpu_sample *r;

	r = gp_writer__reserve(a->w, GP_REC_CPU_SAMPLE, (uint32_t)(sizeof(*r) + 8 * (nu + nk)));
	if (!r)
		return;
	r->hdr.flags = flags;
	r->ts = ts;
	r->weight_ns = a->weight_ns;
	r->pid = pid;
	r->tid = tid;
	r->cpu = cpu;
	r->nr_user = (uint16_t)nu;
	r->nr_kernel = (uint16_t)nk;
	memcpy(r->ips, user, 8 * nu);
	memcpy(r->ips + nu, kernel, 8 * nk);
	_Static_assert(sizeof(r->ips[0]) == 8, "8-byte addresses");
	note_kernel_ips(a, r->ips + nu, nk);
	gp_writer__commit(a->w);
	a->st.samples++;
}

int agent_event__on_sample(void *ctx, const struct cpu_sample_event *ev)
{
	struct cpu_agent *a = ctx;

	agent_proc__note_thread(a, ev->pid, ev->tid, ev->ts_ns);
	write_sample(a, ev->ts_ns, ev->pid, ev->tid, ev->cpu, ev->ips, ev->nr_user,
		     ev->ips + ev->nr_user, ev->nr_kernel, 0);
	return 0;
}

_Static_assert(GP_STACK_END_ROOT == GP_UNWIND_END_ROOT + 1 &&
	       GP_STACK_END_UNKNOWN_MODULE == GP_UNWIND_END_UNKNOWN_MODULE + 1 &&
	       GP_STACK_END_SHORT_COPY == GP_UNWIND_END_SHORT_COPY + 1 &&
	       GP_STACK_END_COUNT == GP_UNWIND_END__COUNT + 1,
	       "a trace's stack end is the unwinder's end reason + 1");

/* hdr.flags saying where an unwound user stack ends (gp_record.h, GP_STACK_END_*). */
static uint16_t stack_end_flags(int end)
{
	return (uint16_t)((unsigned)(end + 1) << GP_STACK_END_SHIFT);
}

/*
 * Whether a stack of process `pid` taken at `ts` is one of its program's:
 * not when taken before its exec, in a fork the recorder holds until it
 * execs (its image is the recorder's) or before the exec last seen. The
 * exec's event is in its ring before any stack taken after it: a fork
 * whose exec is not seen yet has its ring read again first.
 */
static bool user_stack_of(struct cpu_agent *a, uint32_t pid, uint64_t ts)
{
	struct proc *p = agent_proc__find(a, (pid_t)pid);

	if (p && p->pre_exec) {
		proc_track_prog__consume(a->pt);
		p = agent_proc__find(a, (pid_t)pid);
	}
	return !p || (!p->pre_exec && ts >= p->exec_ts);
}

/* while unwinding a backlog, how often process events and due rescans come first */
#define CATCH_UP_NS (2ull * 1000 * 1000)

/*
 * Unwinding a backlog of copies can take long (a module's first tables,
 * a sanitizer build), and the processes whose mappings matter are still
 * running meanwhile: every CATCH_UP_NS, read the process events (an exec,
 * a library mapped) and do the rescans that are due, before the next
 * stack, rather than after the whole backlog, when the process may be gone.
 */
static void catch_up(struct cpu_agent *a)
{
	uint64_t now = agent_now_ns(CLOCK_MONOTONIC);

	if (now < a->next_catch_up)
		return;
	a->next_catch_up = now + CATCH_UP_NS;
	proc_track_prog__consume(a->pt);
	if (now >= a->next_early)
		agent_proc__early_scans(a, now);
}

/*
 * A sample carrying the user registers and stack: unwound here with CFI,
 * written as agent_event__on_sample.
 */
int agent_event__on_sample_copy(void *ctx, const struct cpu_sample_copy_event *ev)
{
	struct cpu_agent *a = ctx;
	uint64_t pcs[GP_BPF_STACK_DEPTH];
	uint32_t nu = 0, nk = ev->nr_kernel;
	int end = -1;

	catch_up(a);
	/* a new process's mappings first */
	agent_proc__note_thread(a, ev->pid, ev->tid, ev->ts_ns);
	if (!(ev->stack_flags & CPU_SAMPLE_NO_REGS) && user_stack_of(a, ev->pid, ev->ts_ns))
		nu = (uint32_t)ustack__unwind(a->us, (pid_t)ev->pid, ev->rip, ev->rsp, ev->rbp,
					      ev->rbx, ev->stack, ev->stack_len,
					      ev->stack_flags & CPU_SAMPLE_STACK_CUT, pcs,
					      GP_BPF_STACK_DEPTH, &end);
	write_sample(a, ev->ts_ns, ev->pid, ev->tid, ev->cpu, pcs, nu, ev->kips, nk,
		     end >= 0 ? stack_end_flags(end) : 0);
	return 0;
}

/* Span @ev as an offcpu record with @flags (GP_STACK_END_* of its user stack, or 0). */
static int write_offcpu(struct cpu_agent *a, const struct offcpu_event *ev, uint16_t flags)
{
	uint32_t n = (uint32_t)ev->nr_user + ev->nr_kernel;
	struct gp_rec_offcpu *r;

	agent_proc__note_thread(a, ev->pid, ev->tid, ev->end_ns);
	r = gp_writer__reserve(a->w, GP_REC_OFFCPU, (uint32_t)(sizeof(*r) + 8 * n));
	if (!r)
		return 0;
	r->hdr.flags = flags;
	r->start = ev->start_ns;
	r->end = ev->end_ns;
	r->pid = ev->pid;
	r->tid = ev->tid;
	r->waker_pid = ev->waker_pid;
	r->waker_tid = ev->waker_tid;
	r->cpu = ev->cpu;
	r->state = ev->state;
	r->nr_user = ev->nr_user;
	r->nr_kernel = ev->nr_kernel;
	memcpy(r->ips, ev->ips, 8 * n);
	note_kernel_ips(a, r->ips + ev->nr_user, ev->nr_kernel);
	gp_writer__commit(a->w);
	a->st.offcpu_spans++;
	if (ev->flags & OFFCPU_OPEN)
		a->st.offcpu_open++;
	return 0;
}

int agent_event__on_offcpu(void *ctx, const struct offcpu_event *ev)
{
	return write_offcpu(ctx, ev, 0);
}

/*
 * A span carrying the user registers and stack: unwound here with CFI,
 * written as agent_event__on_offcpu.
 */
int agent_event__on_offcpu_copy(void *ctx, const struct offcpu_copy_event *ev)
{
	struct cpu_agent *a = ctx;
	uint64_t pcs[GP_BPF_STACK_DEPTH];
	struct offcpu_event e;
	uint32_t nu = 0, nk = ev->nr_kernel;
	int end = -1;

	catch_up(a);
	/* a new process's mappings first */
	agent_proc__note_thread(a, ev->pid, ev->tid, ev->end_ns);
	memcpy(&e, ev, offsetof(struct offcpu_event, ips));
	if (!(ev->u.flags & OFFCPU_USTACK_NO_REGS) && user_stack_of(a, ev->pid, ev->start_ns))
		nu = (uint32_t)ustack__unwind(a->us, (pid_t)ev->pid, ev->u.rip, ev->u.rsp,
					      ev->u.rbp, ev->u.rbx, ev->u.stack, ev->u.len,
					      ev->u.flags & OFFCPU_USTACK_CUT, pcs,
					      GP_BPF_STACK_DEPTH, &end);
	memcpy(e.ips, pcs, 8 * nu);
	memcpy(e.ips + nu, ev->kips, 8 * nk);
	e.nr_user = (uint16_t)nu;
	e.flags &= ~OFFCPU_COPY;
	return write_offcpu(a, &e, end >= 0 ? stack_end_flags(end) : 0);
}
