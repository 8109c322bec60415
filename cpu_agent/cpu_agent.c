// SPDX-License-Identifier: Apache-2.0
/* cpu_agent: the eBPF CPU agent -- follows a process tree and writes what its CPUs did to DIR/cpu.trace. */
#include "cpu_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_bpf.h"
#include "agent_priv.h"
#include "cfi_cache.h"
#include "cpu_sample_prog.h"
#include "gp_writer.h"
#include "heap_reuse.h"
#include "offcpu_prog.h"
#include "proc_track_prog.h"
#include "task_filter.h"
#include "ustack.h"

/*
 * How it works. proc_track owns the followed-tgid map; the sampler, the
 * off-CPU program share it (bpf_map__reuse_fd), so a
 * child forked by the target is followed by all of them from its first
 * instruction. Each program has its own ring buffer; the agent waits on all
 * of them with one epoll and drains them on one thread into one gp_writer,
 * so records need no locking. Processes, threads and executable mappings are
 * written as they are discovered: mappings at start, after fork and exec, and
 * on a periodic rescan of /proc/PID/maps (there is no mmap tracepoint to hook
 * without kprobes). Memory is bounded: per-process tables are capped and dropped at
 * exit, the writer holds at most two chunks. The process table and /proc
 * are agent_proc.c's, the records agent_write.c's, the ring-buffer handlers
 * agent_event.c's (agent_priv.h); this file is the lifecycle.
 */

#define AGENT_DEF_MAX_PROCS	8192
#define AGENT_DEF_HZ		99
#define AGENT_DEF_MIN_BLOCK_US	1000
#define AGENT_RESCAN_NS		(100ull * 1000 * 1000)	/* /proc/PID/maps rescan */
#define AGENT_CLOCK_NS		(1000ull * 1000 * 1000)	/* clock pairs, lost counts */
#define AGENT_DEF_FLUSH_MS	1000	/* as the injection library's GPUPERF_FLUSH_MS */
#define AGENT_MIN_FLUSH_MS	10
#define AGENT_MAX_FLUSH_MS	3600000
/*
 * An exited process's entry is kept this long: each program has its own
 * ring buffer, so samples and off-CPU spans from before the exit can be
 * drained after the exit event, and still need its mappings.
 */
#define AGENT_LINGER_NS		(2000ull * 1000 * 1000)

/*
 * 0 or -errno; on an error that the generic sentence would not explain,
 * @why gets the line for errbuf.
 */
static int check_opts(const struct cpu_agent_opts *o, char *why, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct stat sb;

	if (!o || (!o->dir && o->dir_fd <= 0))
		return -EINVAL;
	if ((o->nr_pids && !o->pids) || (o->nr_tids && !o->tids) || (o->nr_cpus && !o->cpus))
		return -EINVAL;
	if ((o->nr_pids > 0) + (o->nr_tids > 0) + o->system_wide != 1) {
		snprintf(why, len, "%s",
			 o->nr_pids || o->nr_tids || o->system_wide
				 ? "pids, tids and system_wide exclude each other: give one"
				 : "nothing to follow: give pids, tids or system_wide");
		return -EINVAL;
	}
	if (o->no_user_stack && o->no_kernel_stack) {
		snprintf(why, len, "no_user_stack and no_kernel_stack together leave no stack");
		return -EINVAL;
	}
	if (o->user_threads_only && o->kernel_threads_only) {
		snprintf(why, len, "user_threads_only and kernel_threads_only exclude each other");
		return -EINVAL;
	}
	if (o->kernel_threads_only && !o->system_wide) {
		snprintf(why, len, "kernel_threads_only needs system_wide: kernel threads belong "
				   "to no followed process");
		return -EINVAL;
	}
	if (o->max_block_us &&
	    o->max_block_us < (o->min_block_us ? o->min_block_us : AGENT_DEF_MIN_BLOCK_US)) {
		snprintf(why, len, "max_block_us (%u) is below min_block_us", o->max_block_us);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->nr_cpus; i++) {
		if (o->cpus[i] < 0 || o->cpus[i] >= ncpu || o->cpus[i] >= TASK_FILTER_MAX_CPUS) {
			snprintf(why, len, "bad CPU %d: this machine has CPUs 0-%ld", o->cpus[i],
				 ncpu - 1);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		int t = o->pids[i] > 0 ? agent_proc__tgid_of(o->pids[i]) : -EINVAL;

		if (t == -ESRCH)
			snprintf(why, len, "no process %d: %s", o->pids[i], cpu_agent__strerror(t));
		else if (t > 0 && t != o->pids[i])
			snprintf(why, len, "%d is a thread of process %d, not a process: pass it "
					   "as a tid", o->pids[i], t);
		if (t < 0)
			return t;
		if (t != o->pids[i])
			return -EINVAL;
	}
	for (size_t i = 0; i < o->nr_tids; i++) {
		int t = o->tids[i] > 0 ? agent_proc__tgid_of(o->tids[i]) : -EINVAL;

		if (t == -ESRCH)
			snprintf(why, len, "no thread %d: it does not exist (exited, or a wrong "
					   "number)", o->tids[i]);
		if (t < 0)
			return t;
	}
	if (o->dir_fd > 0 ? fstat(o->dir_fd, &sb) : stat(o->dir, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	return 0;
}

/* opts.flush_ms, else GPUPERF_FLUSH_MS when it is a number in range, else the default. */
static uint32_t flush_period_ms(const struct cpu_agent_opts *o)
{
	const char *v = getenv("GPUPERF_FLUSH_MS");
	unsigned long ms;
	char *end;

	ms = o->flush_ms;
	if (!ms && v && *v) {
		errno = 0;
		ms = strtoul(v, &end, 10);
		if (errno || *end)
			ms = 0;
	}
	if (!ms)
		ms = AGENT_DEF_FLUSH_MS;
	if (ms < AGENT_MIN_FLUSH_MS)
		ms = AGENT_MIN_FLUSH_MS;
	if (ms > AGENT_MAX_FLUSH_MS)
		ms = AGENT_MAX_FLUSH_MS;
	return (uint32_t)ms;
}

static void set_error(const struct cpu_agent_opts *o, const char *what, int err)
{
	if (o && o->errbuf && o->errlen)
		snprintf(o->errbuf, o->errlen, "%s: %s", what, cpu_agent__strerror(err));
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The programs' loaders and their one object, as before load_programs(). */
static void unload_programs(struct cpu_agent *a)
{
	offcpu_prog__free(a->oc);
	cpu_sample_prog__free(a->cs);
	proc_track_prog__free(a->pt);
	agent_bpf__destroy(a->skel);
	a->oc = NULL;
	a->cs = NULL;
	a->pt = NULL;
	a->skel = NULL;
}

/*
 * The process tracker, the sampler and the off-CPU tracer, configured on one
 * object (agent_bpf.h) with the tp_btf programs or their raw_tp twins, with
 * or without the task iterators, and loaded. 0, or -errno with *what set.
 */
static int load_once(struct cpu_agent *a, const struct cpu_agent_opts *opts,
		     const struct proc_track_opts *po, bool tp_btf, bool iters, const char **what)
{
	struct task_filter_opts tf;
	int err;

	*what = "cannot open the eBPF programs";
	a->skel = agent_bpf__open();
	if (!a->skel)
		return -errno;
	if (!opts->on_cpu)
		agent_bpf__drop(a->skel, AGENT_BPF_CPU_SAMPLE);
	if (!opts->off_cpu)
		agent_bpf__drop(a->skel, AGENT_BPF_OFFCPU);
	*what = "cannot load the process tracker (sched_process_fork/exec/exit)";
	a->pt = proc_track_prog__prepare(a->skel, po, tp_btf);
	if (!a->pt)
		return -errno;
	/* the threads the sampler and the off-CPU tracer follow: one filter for both */
	tf = (struct task_filter_opts){
		.tgids_fd = opts->system_wide ? -1 : proc_track_prog__tgids_fd(a->pt),
		.tgids_max = proc_track_prog__max_procs(a->pt),
		/* system-wide, the recorder would otherwise profile its own draining */
		.exclude_tgid = { opts->system_wide && !opts->include_self ? getpid() : 0,
				  opts->system_wide ? opts->exclude_pid : 0 },
		.tids = opts->tids,
		.nr_tids = opts->nr_tids,
		.cpus = opts->cpus,
		.nr_cpus = opts->nr_cpus,
		.user_threads_only = opts->user_threads_only,
		.kernel_threads_only = opts->kernel_threads_only,
	};
	if (opts->on_cpu) {
		struct cpu_sample_opts so = {
			.freq_hz = a->opts.freq_hz,
			.no_user = opts->no_user_stack,
			.no_kernel = opts->no_kernel_stack,
			.filter = tf,
			.force_sw_clock = opts->force_sw_clock,
			.on_event = agent_event__on_sample,
			.on_copy = a->us ? agent_event__on_sample_copy : NULL,
			.ctx = a,
		};

		*what = "cannot load the on-CPU sampler (perf_event program)";
		a->cs = cpu_sample_prog__prepare(a->skel, &so);
		if (!a->cs)
			return -errno;
	}
	if (opts->off_cpu) {
		struct offcpu_opts oo = {
			.min_block_us = a->opts.min_block_us,
			.max_block_us = opts->max_block_us,
			.no_user = opts->no_user_stack,
			.no_kernel = opts->no_kernel_stack,
			.filter = tf,
			.force_raw_tp = opts->force_raw_tp,
			.force_no_iters = opts->force_no_iters,
			.fault = opts->offcpu_fault,
			.fault_every = opts->offcpu_fault_every,
			.on_event = agent_event__on_offcpu,
			.on_copy = a->us ? agent_event__on_offcpu_copy : NULL,
			.ctx = a,
		};

		*what = "cannot load the off-CPU tracer (sched_switch/sched_waking/sys_exit)";
		a->oc = offcpu_prog__prepare(a->skel, &oo, tp_btf, iters);
		if (!a->oc)
			return -errno;
	}
	*what = "cannot load the eBPF programs (process tracker, sampler, off-CPU tracer)";
	err = agent_bpf__load(a->skel);
	if (!err)
		err = proc_track_prog__loaded(a->pt);
	if (!err && a->cs)
		err = cpu_sample_prog__loaded(a->cs);
	if (!err && a->oc)
		err = offcpu_prog__loaded(a->oc);
	return err;
}

/*
 * Load the programs, trying what this kernel may lack in turn: tp_btf, then
 * the raw_tp twins (tracepoints without BTF); the task iterators, then none
 * (no spans for blocks in progress at the ends). 0 or -errno, *what set.
 */
static int load_programs(struct cpu_agent *a, const struct cpu_agent_opts *opts,
			 const struct proc_track_opts *po, const char **what)
{
	int tp_btf = proc_track_prog__wants_tp_btf(po), err = -EINVAL;

	if (tp_btf < 0) {
		*what = "cannot load the process tracker (sched_process_fork/exec/exit)";
		return tp_btf;
	}
	for (int i = tp_btf ? 0 : 2; i < 4; i++) {
		err = load_once(a, opts, po, i < 2, !(i & 1) && opts->off_cpu, what);
		if (!err)
			break;
		unload_programs(a);
		if (err == -EPERM || err == -EINVAL || err == -ENOMEM)
			break; /* not for want of a kernel feature */
		if (!opts->off_cpu && !(i & 1))
			i++; /* no iterators to go without */
	}
	if (err)
		return err;
	a->st.tp_btf = proc_track_prog__uses_tp_btf(a->pt);
	if (a->oc)
		a->st.offcpu_iters = offcpu_prog__has_iters(a->oc);
	return 0;
}

struct cpu_agent *cpu_agent__new(const struct cpu_agent_opts *opts)
{
	struct gp_writer_opts wo = { .producer = GP_PRODUCER_CPU_AGENT,
				     .clock_id = GP_CLOCK_MONOTONIC,
				     .truncate = 1 };
	struct proc_track_opts po = { 0 };
	struct cpu_agent *a = NULL;
	const char *what = "invalid agent options";
	char why[256] = "";
	pid_t *tgids = NULL;
	size_t ntgids = 0;
	int err, tfd;

	err = check_opts(opts, why, sizeof(why));
	if (err) {
		if (opts && opts->dir && (err == -ENOENT || err == -ENOTDIR))
			what = "cannot use the output directory";
		if (why[0] && opts->errbuf && opts->errlen) {
			snprintf(opts->errbuf, opts->errlen, "%s", why);
			cpu_agent__free(a);
			errno = -err;
			return NULL;
		}
		goto fail;
	}
	/* libbpf's BTF buffers, one set per program, reused rather than faulted in again */
	heap_reuse__raise();
	what = "out of memory";
	a = calloc(1, sizeof(*a));
	if (!a) {
		err = -ENOMEM;
		goto fail;
	}
	a->epfd = -1;
	a->dfd = -1;
	a->kcache_fd = -1;
	a->opts = *opts;
	a->opts.pids = NULL;
	a->opts.tids = NULL; /* a->tids */
	a->opts.cpus = NULL; /* copied by the programs */
	if (!a->opts.max_procs)
		a->opts.max_procs = AGENT_DEF_MAX_PROCS;
	if (!a->opts.freq_hz)
		a->opts.freq_hz = AGENT_DEF_HZ;
	if (!a->opts.min_block_us)
		a->opts.min_block_us = AGENT_DEF_MIN_BLOCK_US;
	/* on idle CPU time beside the loading (and the program): the stop need not wait for it */
	if (!a->opts.no_kallsyms) {
		char boot_id[KSYM_BOOT_ID_MAX] = "";

		if (opts->kallsyms_cache_fd > 0 &&
		    !agent_proc__read_small("/proc/sys/kernel/random/boot_id", boot_id,
					    sizeof(boot_id)))
			a->kcache_fd = fcntl(opts->kallsyms_cache_fd, F_DUPFD_CLOEXEC, 3);
		a->ksnap = kallsyms__snap_start_cached("/proc/kallsyms", a->kcache_fd, boot_id, true);
	}
	a->weight_ns = 1000000000ull / a->opts.freq_hz;
	a->flush_ns = flush_period_ms(opts) * 1000000ull;
	a->dir = strdup(opts->dir ? opts->dir : "DIR");
	if (!a->dir) {
		err = -ENOMEM;
		goto fail;
	}
	what = "cannot use the output directory";
	a->excl = opts->dir_fd > 0;
	a->dfd = a->excl ? fcntl(opts->dir_fd, F_DUPFD_CLOEXEC, 3)
			 : open(opts->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->dfd < 0) {
		err = -errno;
		goto fail;
	}
	what = "out of memory";
	a->pids = calloc(opts->nr_pids + 1, sizeof(*a->pids));
	a->pid_comms = calloc(opts->nr_pids + 1, sizeof(*a->pid_comms));
	a->exits = calloc(opts->nr_pids + opts->nr_tids + 1, sizeof(*a->exits));
	if (!a->pids || !a->pid_comms || !a->exits) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < opts->nr_pids; i++) {
		a->pids[a->npids++] = opts->pids[i];
		if (!agent_proc__get(a, opts->pids[i])) {
			err = -ENOMEM;
			goto fail;
		}
	}
	if (opts->nr_tids) {
		/* follow the threads' processes, for their records; sample only the threads */
		a->tids = calloc(opts->nr_tids, sizeof(*a->tids));
		tgids = calloc(opts->nr_tids, sizeof(*tgids));
		if (!a->tids || !tgids) {
			err = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < opts->nr_tids; i++) {
			int t = agent_proc__tgid_of(opts->tids[i]);
			bool dup = false;

			if (t < 0) {
				err = t; /* exited since check_opts() */
				snprintf(why, sizeof(why), "no thread %d", opts->tids[i]);
				what = why;
				goto fail;
			}
			a->tids[i] = (uint32_t)opts->tids[i];
			for (size_t k = 0; k < ntgids && !dup; k++)
				dup = tgids[k] == t;
			if (!dup) {
				tgids[ntgids++] = t;
				if (!agent_proc__get(a, t)) {
					err = -ENOMEM;
					goto fail;
				}
			}
		}
		a->ntids = opts->nr_tids;
		qsort(a->tids, a->ntids, sizeof(*a->tids), agent_proc__cmp_tid);
	}

	po.all = opts->system_wide;
	po.tgids = opts->nr_tids ? tgids : opts->pids;
	po.nr_tgids = opts->nr_tids ? ntgids : opts->nr_pids;
	po.thread_exits = true;
	po.mmap_exec = !opts->system_wide; /* a followed tree's libraries, as they load */
	po.max_procs = a->opts.max_procs;
	po.force_raw_tp = opts->force_raw_tp;
	po.on_event = agent_event__on_proc;
	po.ctx = a;
	/* CFI unwinding of copied user stacks; frame pointers with GPUPERF_UNWIND=fp */
	if (!(getenv("GPUPERF_UNWIND") && !strcmp(getenv("GPUPERF_UNWIND"), "fp")) &&
	    !opts->no_user_stack && (opts->on_cpu || opts->off_cpu)) {
		a->us = ustack__new();
		if (!a->us) {
			err = -ENOMEM;
			goto fail;
		}
		if (opts->cache_dir_fd > 0) {
			struct cfi_cache_opts co = {
				.set_owner = opts->set_owner,
				.owner_uid = opts->owner_uid,
				.owner_gid = opts->owner_gid,
			};

			/* a cache that cannot be used costs time, not stacks: run without */
			cfi_cache__open(opts->cache_dir_fd, &co, &a->cache);
			ustack__set_cache(a->us, a->cache);
		}
		ustack__set_rescan(a->us, agent_proc__late_rescan, a);
	}
	a->st.unwind_cache_off = opts->cache_dir_fd > 0 && !a->cache;
	/* one object for all the programs (agent_bpf.h), loaded once */
	err = load_programs(a, opts, &po, &what);
	if (err)
		goto fail;

	what = "cannot wait on the ring buffers";
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (a->epfd < 0) {
		err = -errno;
		goto fail;
	}
	err = epoll_add(a->epfd, proc_track_prog__epoll_fd(a->pt));
	if (!err && a->cs)
		err = epoll_add(a->epfd, cpu_sample_prog__epoll_fd(a->cs));
	if (!err && a->oc)
		err = epoll_add(a->epfd, offcpu_prog__epoll_fd(a->oc));
	if (err)
		goto fail;

	what = "cannot create DIR/cpu.trace";
	tfd = agent_write__create(a, "cpu.trace");
	if (tfd < 0) {
		err = tfd;
		goto fail;
	}
	a->w = gp_writer__fdopen(tfd, &wo);
	if (!a->w) {
		err = -errno;
		goto fail;
	}
	free(tgids);
	return a;

fail:
	set_error(opts, what, err);
	free(tgids);
	cpu_agent__free(a);
	errno = -err;
	return NULL;
}

static void detach_all(struct cpu_agent *a)
{
	if (a->cs)
		cpu_sample_prog__detach(a->cs);
	if (a->oc)
		offcpu_prog__detach(a->oc);
	if (a->pt)
		proc_track_prog__detach(a->pt);
}

/*
 * A named process or thread that exited after __open checked it and before
 * the process tracker was attached left no exit event: noted here, once
 * the tracker runs, as gone at the start (time and status unknown), so
 * that -p/-t recordings do not wait for it.
 */
static void note_gone_at_start(struct cpu_agent *a, uint64_t ts)
{
	size_t i, n = a->tids ? a->ntids : a->npids;

	for (i = 0; i < n && a->nexits < a->ntids + a->npids; i++) {
		pid_t id = a->tids ? (pid_t)a->tids[i] : a->pids[i];
		struct cpu_agent_exit *e;
		struct proc *p;

		if (!agent_proc__task_gone(id))
			continue;
		e = &a->exits[a->nexits++];
		memset(e, 0, sizeof(*e));
		e->ts = ts;
		e->pid = id;
		e->tid = id;
		e->unseen = true;
		if (!a->tids) {
			snprintf(e->comm, sizeof(e->comm), "%s", a->pid_comms[i]);
			p = agent_proc__find(a, id);
			if (p)
				agent_proc__gone(a, p, ts);
		}
	}
}

int cpu_agent__start(struct cpu_agent *a)
{
	const char *what;
	uint64_t ts;
	int err;

	if (a->started)
		return -EALREADY;
	/* proc_track first, so a fork during the rest of the attach is not missed */
	what = "cannot attach the process tracker";
	err = proc_track_prog__attach(a->pt);
	if (!err && a->oc) {
		what = "cannot attach the off-CPU tracer";
		err = offcpu_prog__attach(a->oc);
		/* threads blocked now: their blocks count from now (best effort) */
		if (!err && a->opts.attach_running && !a->opts.system_wide)
			offcpu_prog__seed(a->oc);
	}
	if (!err && a->cs) {
		what = "cannot open the sampling perf events";
		err = cpu_sample_prog__attach(a->cs);
		a->st.sw_clock = !err && cpu_sample_prog__uses_sw_clock(a->cs);
	}
	/* what follows (maps scans, unwind tables) can take a while: coverage began here */
	a->covered_ns = agent_now_ns(CLOCK_MONOTONIC);
	if (err) {
		set_error(&a->opts, what, err);
		detach_all(a);
		return err;
	}
	a->started = true;
	for (size_t i = 0; i < a->npids; i++)
		agent_proc__read_comm(a->pids[i], 0, a->pid_comms[i], sizeof(a->pid_comms[i]));
	agent_write__clock_pair(a);
	ts = agent_now_ns(CLOCK_MONOTONIC);
	note_gone_at_start(a, ts);
	for (size_t i = 0; i < a->nprocs; i++) {
		struct proc *p = &a->procs[i];

		/* held before exec: the tables of the recorder's own libraries would go unused */
		p->pre_exec = !a->opts.attach_running && !a->opts.system_wide && !a->tids &&
			      agent_proc__runs_own_image(p->pid);
		agent_proc__write_info(a, p, ts);
		agent_proc__scan_maps(a, p, ts);
		agent_proc__scan_threads(a, p, ts);
	}
	a->next_rescan = ts + AGENT_RESCAN_NS;
	a->next_early = UINT64_MAX;
	a->next_clock = ts + AGENT_CLOCK_NS;
	a->next_flush = ts + a->flush_ns;
	return 0;
}

static int consume_all(struct cpu_agent *a)
{
	int n = 0, r;

	/* process events first: a sample's thread is best named after its fork */
	r = proc_track_prog__consume(a->pt);
	if (r < 0)
		return r;
	n += r;
	if (a->cs) {
		r = cpu_sample_prog__consume(a->cs);
		if (r < 0)
			return r;
		n += r;
	}
	if (a->oc) {
		r = offcpu_prog__consume(a->oc);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}

static void periodic(struct cpu_agent *a)
{
	uint64_t now = agent_now_ns(CLOCK_MONOTONIC);

	if (now >= a->next_early)
		agent_proc__early_scans(a, now);
	if (now >= a->next_rescan) {
		for (size_t i = 0; i < a->nprocs;) {
			struct proc *p = &a->procs[i];

			if (p->alive) {
				/* system-wide: only processes that were active */
				if (p->active || !a->opts.system_wide)
					agent_proc__scan_maps(a, p, now);
				p->active = false;
			} else if (now - p->exit_ts > AGENT_LINGER_NS) {
				agent_proc__drop(a, p); /* moves the last entry here */
				continue;
			}
			i++;
		}
		a->next_rescan = now + AGENT_RESCAN_NS;
	}
	if (now >= a->next_clock) {
		agent_write__clock_pair(a);
		agent_write__all_dropped(a, false);
		a->next_clock = now + AGENT_CLOCK_NS;
	}
	if (now >= a->next_flush) {
		/* a SIGKILL of the recorder loses at most one period (a failure is counted in lost) */
		gp_writer__flush(a->w);
		a->next_flush = now + a->flush_ns;
	}
}

int cpu_agent__poll(struct cpu_agent *a, int timeout_ms)
{
	struct epoll_event evs[8];
	uint64_t wake;
	int n, left;

	if (!a->started || a->stopped)
		return -EINVAL;
	wake = a->next_rescan < a->next_flush ? a->next_rescan : a->next_flush;
	if (a->next_early < wake)
		wake = a->next_early;
	left = (int)(((int64_t)wake - (int64_t)agent_now_ns(CLOCK_MONOTONIC)) / 1000000);
	if (left < 0)
		left = 0;
	if (timeout_ms < 0 || timeout_ms > left)
		timeout_ms = left;
	n = epoll_wait(a->epfd, evs, 8, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -errno;
	n = consume_all(a);
	periodic(a);
	return n;
}

uint64_t cpu_agent__covered_ns(const struct cpu_agent *a)
{
	return a && a->started ? a->covered_ns : 0;
}

size_t cpu_agent__alive(const struct cpu_agent *a)
{
	return a->alive;
}

const struct cpu_agent_exit *cpu_agent__exits(const struct cpu_agent *a, size_t *n)
{
	*n = a->nexits;
	return a->exits;
}

int cpu_agent__stop(struct cpu_agent *a)
{
	uint64_t end = agent_now_ns(CLOCK_MONOTONIC);
	int err;

	if (a->stopped)
		return a->err;
	a->stopped = true;
	/*
	 * When the table read at start does not name every kernel address so
	 * far, /proc/kallsyms is read again on a thread meanwhile, once the
	 * programs that record kernel addresses are detached.
	 */
	detach_all(a);
	if (!a->opts.no_kallsyms && !kallsyms__snap_covers(a->ksnap, &a->kips))
		a->ksnap_stop = kallsyms__snap_start("/proc/kallsyms", false);
	if (a->started) {
		/* nothing new can arrive now: drain to empty */
		while (consume_all(a) > 0)
			;
		/*
		 * Blocks in progress end here, so a wall-clock profile covers
		 * the window. A recording whose followed processes have all
		 * exited has none: their iterator is not even loaded.
		 */
		if (a->oc && (a->opts.system_wide || a->alive)) {
			offcpu_prog__for_each_open(a->oc, end, agent_event__on_offcpu,
						   a->us ? agent_event__on_offcpu_copy : NULL,
						   agent_write__short, a);
			if (!offcpu_prog__open_loaded(a->oc))
				a->st.offcpu_iters = false; /* not read: no spans in progress */
		}
		if (a->oc)
			offcpu_prog__for_each_short(a->oc, agent_write__short, a);
	}
	/* before the trace is closed: a failure is a drop it records */
	if (!a->opts.no_kallsyms)
		agent_write__kallsyms(a);
	agent_write__all_dropped(a, true);
	agent_write__clock_pair(a);
	err = gp_writer__close(a->w);
	a->w = NULL;
	if (err && !a->err)
		a->err = err;
	return a->err;
}

void cpu_agent__stats(const struct cpu_agent *a, struct cpu_agent_stats *st)
{
	*st = a->st;
}

_Static_assert(CPU_AGENT_UNWIND_ENDS == GP_UNWIND_END__COUNT, "unwind end reasons changed");

const char *cpu_agent__unwind_end_name(int end)
{
	return gp_unwind__end_name(end);
}

const char *cpu_agent__strerror(int err)
{
	static char buf[256];

	if (err > 0)
		err = -err;
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "loading eBPF programs and opening perf events needs root or "
		       "CAP_BPF+CAP_PERFMON (and CAP_SYS_RESOURCE on kernels before 5.11): "
		       "run as root";
	case -EOPNOTSUPP:
		return "the kernel exposes no BTF (/sys/kernel/btf/vmlinux), which CO-RE "
		       "needs: use a kernel built with CONFIG_DEBUG_INFO_BTF=y (5.8 or later)";
	case -ENOENT:
		return "no such file or directory (output directory or target process "
		       "missing)";
	case -ESRCH:
		return "the target process or thread does not exist";
	case -EINVAL:
		return "invalid agent options (or a sampling frequency above "
		       "kernel.perf_event_max_sample_rate)";
	case -ENOSYS:
		return "the kernel lacks a BPF feature the agent needs (ring buffer: 5.8, "
		       "tp_btf/raw_tp)";
	default:
		snprintf(buf, sizeof(buf), "%s", strerror(-err));
		return buf;
	}
}

void cpu_agent__free(struct cpu_agent *a)
{
	if (!a)
		return;
	if (a->w && !a->stopped)
		cpu_agent__stop(a);
	detach_all(a);
	if (a->epfd >= 0)
		close(a->epfd);
	if (a->dfd >= 0)
		close(a->dfd);
	unload_programs(a);
	gp_writer__abandon(a->w);
	while (a->nprocs)
		agent_proc__drop(a, &a->procs[a->nprocs - 1]);
	ustack__free(a->us);
	cfi_cache__free(a->cache);
	free(a->procs);
	free(a->tids);
	free(a->pids);
	free(a->pid_comms);
	free(a->exits);
	free(a->dir);
	kip_set__free(&a->kips);
	kallsyms__snap_free(a->ksnap);
	kallsyms__snap_free(a->ksnap_stop);
	if (a->kcache_fd >= 0)
		close(a->kcache_fd);
	free(a);
}

