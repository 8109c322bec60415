// SPDX-License-Identifier: Apache-2.0
/* cpu_agent: the eBPF CPU agent -- follows a process tree and writes what its CPUs did to DIR/cpu.trace. */
#include "cpu_agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "cpu_sample.h"
#include "cpu_sample_prog.h"
#include "gp_file.h"
#include "gp_util.h"
#include "gp_record.h"
#include "gp_writer.h"
#include "heap_reuse.h"
#include "kallsyms.h"
#include "offcpu.h"
#include "offcpu_prog.h"
#include "proc_track.h"
#include "proc_track_prog.h"
#include "cfi_cache.h"
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
 * exit, the writer holds at most two chunks.
 */

#define AGENT_DEF_MAX_PROCS	8192
#define AGENT_DEF_HZ		99
#define AGENT_DEF_MIN_BLOCK_US	1000
#define AGENT_RESCAN_NS		(100ull * 1000 * 1000)	/* /proc/PID/maps rescan */
/*
 * Rescans of a process after its exec, or after it maps a file executable
 * (ld.so, dlopen), in ms from the event seen: its libraries load.
 */
static const unsigned int AGENT_EARLY_SCANS[] = { 2, 10, 30, 60 };
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
#define AGENT_MAX_TIDS		65536	/* threads remembered per process */
#define AGENT_BUILD_ID_CACHE	256
#define AGENT_MAX_PERF_MAP	(256ull << 20)	/* bytes of a /tmp/perf-PID.map copied */

struct mod_sig {
	uint64_t start, end, pgoff, inode;
};

struct proc {
	pid_t pid;
	bool alive;
	uint64_t exit_ts;	/* when it exited: the entry stays a while (AGENT_LINGER_NS) */
	struct mod_sig *mods;	/* written, sorted by start: a rescan skips them */
	size_t nmods, mcap;
	uint32_t *tids;	/* sorted */
	size_t ntids, tcap;
	bool active;	/* system_wide: named by an event since the last rescan */
	/*
	 * A fork held before its exec (__start() without attach_running): its
	 * image is the recorder's own until the exec, so its mappings get
	 * module records but no CFI tables, unless a stack needs them
	 * (late_rescan()).
	 */
	bool pre_exec;
	/*
	 * When its last exec was seen (sched_process_exec): a sample or span
	 * from before it has the registers of the image the exec replaced (the
	 * recorder's own, for a held fork), or of none (mid-exec): no user
	 * stack of this program to unwind (user_stack_of()).
	 */
	uint64_t exec_ts;
	/*
	 * Rescans soon after an exec or an executable mapping
	 * (AGENT_EARLY_SCANS), while ld.so loads the libraries: stacks are
	 * unwound when their records are read, often after a short program is
	 * gone, and need the mappings it had.
	 */
	uint64_t early_base;	/* the event they count from */
	uint64_t early_ns;	/* the next one; 0: none */
	uid_t uid, euid;	/* its real and effective uid when last scanned (a perf map's owner) */
	bool uid_known;
};

struct bid_entry {
	uint64_t dev, inode;
	uint32_t len;
	int err;
	uint8_t id[BUILD_ID_MAX];
};

struct cpu_agent {
	struct cpu_agent_opts opts;
	char *dir;		/* names the directory in messages */
	int dfd;		/* the directory: every file is created relative to it */
	bool excl;		/* create with O_EXCL (opts.dir_fd) rather than replace (opts.dir) */
	struct gp_writer *w;
	struct proc_track_prog *pt;
	struct cpu_sample_prog *cs;
	struct offcpu_prog *oc;
	struct ustack *us;	/* user stacks unwound here from copies; NULL: GPUPERF_UNWIND=fp */
	struct cfi_cache *cache; /* us's tables kept between runs (opts.cache_dir_fd); NULL: none */
	int epfd;
	bool started, stopped;
	uint64_t covered_ns;	/* CLOCK_MONOTONIC: the tracers attached, blocks in progress seeded */
	uint64_t weight_ns;
	struct proc *procs;
	size_t nprocs, pcap;
	size_t alive;
	struct bid_entry bids[AGENT_BUILD_ID_CACHE];
	size_t nbids;
	uint64_t next_rescan, next_clock, next_flush;
	uint64_t next_early;	/* the earliest proc.early_ns, UINT64_MAX: none */
	uint64_t flush_ns;
	struct cpu_agent_stats st;
	uint32_t *tids;	/* opts.tids, sorted; NULL: every thread of the followed processes */
	size_t ntids;
	pid_t *pids;	/* opts.pids */
	char (*pid_comms)[16];	/* their names at __start (the last thread to exit may be another) */
	size_t npids;
	struct cpu_agent_exit *exits;	/* of opts.pids / opts.tids, as seen */
	size_t nexits;
	/* lost counts already written, per GP_DROP_* source */
	uint64_t written_lost[GP_DROP_SOURCES];
	uint32_t perf_map_cause; /* why the first perf map was skipped (GP_PERF_MAP_*, errno) */
	struct kip_set kips;	/* kernel addresses written: DIR/kallsyms names only these */
	struct ksym_snap *ksnap; /* /proc/kallsyms read at start, in the background */
	struct ksym_snap *ksnap_stop; /* read again at stop: ksnap did not name every address */
	int kcache_fd;	/* opts.kallsyms_cache_fd, duplicated; -1: none */
	uint32_t kallsyms_cause; /* errno: DIR/kallsyms could not be written */
	int err; /* first write error */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- small /proc readers ------------------------------------------------- */

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static void read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_small(path, buf, len))
		buf[0] = '\0';
}

/* No live task has this id any more: /proc has no entry for it, or a zombie's. */
static bool task_gone(pid_t id)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	if (read_small(path, buf, sizeof(buf)))
		return true;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static void read_exe(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* ---- process table ------------------------------------------------------- */

struct proc;
static void read_uids(struct proc *p);

static struct proc *proc_find(struct cpu_agent *a, pid_t pid)
{
	for (size_t i = 0; i < a->nprocs; i++)
		if (a->procs[i].pid == pid)
			return &a->procs[i];
	return NULL;
}

static struct proc *proc_get(struct cpu_agent *a, pid_t pid)
{
	struct proc *p = proc_find(a, pid);

	if (p && !p->alive) {
		/* the pid was reused: a new process */
		p->alive = true;
		p->nmods = 0;
		p->ntids = 0;
		p->pre_exec = false;
		a->alive++;
	}
	if (p)
		return p;
	if (a->nprocs == a->pcap) {
		size_t cap = a->pcap ? 2 * a->pcap : 16;
		struct proc *n;

		if (cap > a->opts.max_procs)
			cap = a->opts.max_procs;
		if (a->nprocs >= cap)
			return NULL;
		n = realloc(a->procs, cap * sizeof(*n));
		if (!n)
			return NULL;
		a->procs = n;
		a->pcap = cap;
	}
	p = &a->procs[a->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->alive = true;
	a->alive++;
	return p;
}

/* Its real and effective uid, from /proc/PID/status (kept as they were should it be gone). */
static void read_uids(struct proc *p)
{
	char path[64], buf[2048], *u;
	unsigned int ruid, euid;

	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	if (read_small(path, buf, sizeof(buf)))
		return;
	u = strstr(buf, "\nUid:");
	if (!u || sscanf(u + 5, "%u %u", &ruid, &euid) != 2)
		return;
	p->uid = (uid_t)ruid;
	p->euid = (uid_t)euid;
	p->uid_known = true;
}

/* The process has exited (or vanished): no longer counted alive; kept a while for late events. */
static void proc_gone(struct cpu_agent *a, struct proc *p, uint64_t now)
{
	if (!p->alive)
		return;
	p->alive = false;
	p->exit_ts = now;
	a->alive--;
}

static void proc_drop(struct cpu_agent *a, struct proc *p)
{
	if (p->alive)
		a->alive--;
	if (a->us)
		ustack__forget(a->us, p->pid);
	free(p->mods);
	free(p->tids);
	*p = a->procs[--a->nprocs];
}

/* Insert @tid into the sorted set; 1 when new, 0 when known or the set is full. */
static int proc_add_tid(struct proc *p, uint32_t tid)
{
	size_t lo = 0, hi = p->ntids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->tids[mid] == tid)
			return 0;
		if (p->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (p->ntids == p->tcap) {
		size_t cap = p->tcap ? 2 * p->tcap : 16;
		uint32_t *n;

		if (cap > AGENT_MAX_TIDS)
			return 0;
		n = realloc(p->tids, cap * sizeof(*n));
		if (!n)
			return 0;
		p->tids = n;
		p->tcap = cap;
	}
	memmove(&p->tids[lo + 1], &p->tids[lo], (p->ntids - lo) * sizeof(*p->tids));
	p->tids[lo] = tid;
	p->ntids++;
	return 1;
}

/* ---- records --------------------------------------------------------------- */

static void write_process(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t ppid,
			  uint32_t event, int32_t exit_code, const char *comm, const char *exe)
{
	struct gp_rec_process *r = gp_writer__reserve(a->w, GP_REC_PROCESS, sizeof(*r));

	if (!r)
		return;
	r->ts = ts;
	r->pid = pid;
	r->ppid = ppid;
	r->event = event;
	r->exit_code = exit_code;
	r->comm_str = gp_writer__intern(a->w, comm);
	r->exe_str = gp_writer__intern(a->w, exe);
	gp_writer__commit(a->w);
	a->st.procs++;
}

static void write_thread(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t tid,
			 uint32_t event, const char *name)
{
	struct gp_rec_thread *r = gp_writer__reserve(a->w, GP_REC_THREAD, sizeof(*r));

	if (!r)
		return;
	r->ts = ts;
	r->pid = pid;
	r->tid = tid;
	r->event = event;
	r->name_str = gp_writer__intern(a->w, name);
	gp_writer__commit(a->w);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Is @tid one of opts.tids (always true without tids)? */
static bool tid_followed(const struct cpu_agent *a, uint32_t tid)
{
	return !a->tids || bsearch(&tid, a->tids, a->ntids, sizeof(tid), cmp_u32);
}

/* Forget @tid of @p (it exited: a reused number is a new thread). */
static void proc_del_tid(struct proc *p, uint32_t tid)
{
	uint32_t *t = p->ntids ? bsearch(&tid, p->tids, p->ntids, sizeof(tid), cmp_u32) : NULL;

	if (!t)
		return;
	memmove(t, t + 1, (size_t)(p->tids + p->ntids - (t + 1)) * sizeof(*t));
	p->ntids--;
}

static void scan_maps(struct cpu_agent *a, struct proc *p, uint64_t ts);

/*
 * Schedule the rescans of a process that has just exec'ed or mapped a file
 * executable; one already due sooner stays (mappings made in a stream do not
 * put the first rescan off).
 */
static void early_scan_from(struct cpu_agent *a, struct proc *p, uint64_t now)
{
	uint64_t first = now + AGENT_EARLY_SCANS[0] * 1000000ull;

	p->early_base = now;
	if (!p->early_ns || first < p->early_ns)
		p->early_ns = first;
	if (p->early_ns < a->next_early)
		a->next_early = p->early_ns;
}

/* The next rescan after `now` of a sequence started at `base`; 0: none left. */
static uint64_t early_after(uint64_t base, uint64_t now)
{
	for (size_t i = 0; i < ARRAY_SIZE(AGENT_EARLY_SCANS); i++)
		if (base + AGENT_EARLY_SCANS[i] * 1000000ull > now)
			return base + AGENT_EARLY_SCANS[i] * 1000000ull;
	return 0;
}

/* The early rescans that are due; the next one's time. */
static void early_scans(struct cpu_agent *a, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < a->nprocs; i++) {
		struct proc *p = &a->procs[i];

		if (!p->early_ns)
			continue;
		if (!p->alive) {
			p->early_ns = 0;
			continue;
		}
		if (now >= p->early_ns) {
			scan_maps(a, p, now);
			p->early_ns = early_after(p->early_base, now);
		}
		if (p->early_ns && p->early_ns < next)
			next = p->early_ns;
	}
	a->next_early = next;
}

/* The process record of a process seen now (ppid, comm and exe from /proc). */
static void write_proc_info(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char comm[32], exe[PATH_MAX], path[64], buf[512];
	uint32_t ppid = 0;
	char *s;

	read_comm(p->pid, 0, comm, sizeof(comm));
	read_exe(p->pid, exe, sizeof(exe));
	snprintf(path, sizeof(path), "/proc/%d/stat", p->pid);
	if (!read_small(path, buf, sizeof(buf)) && (s = strrchr(buf, ')')))
		sscanf(s + 2, "%*c %u", &ppid);
	write_process(a, ts, (uint32_t)p->pid, ppid, GP_PROC_INFO, 0, comm, exe);
}

/*
 * The entry of the process an event names. system_wide: created (process
 * record, mappings) the first time; one already gone is entered as exited
 * so that it is not looked for again until it lingered out.
 */
static struct proc *proc_seen(struct cpu_agent *a, uint32_t pid, uint64_t ts)
{
	struct proc *p = proc_find(a, (pid_t)pid);
	char path[64];

	if (p || !a->opts.system_wide) {
		if (p)
			p->active = true;
		return p;
	}
	p = proc_get(a, (pid_t)pid);
	if (!p) {
		a->st.procs_dropped++;
		return NULL;
	}
	write_proc_info(a, p, ts);
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	if (access(path, R_OK)) {
		proc_gone(a, p, now_ns(CLOCK_MONOTONIC));
		return p;
	}
	scan_maps(a, p, ts);
	return p;
}

/* A thread seen for the first time in an event: name it while it (probably) lives. */
static void note_thread(struct cpu_agent *a, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct proc *p = proc_seen(a, pid, ts);
	char comm[32];

	/* no entry, or exited: the thread can no longer be named */
	if (!p || !p->alive || !tid_followed(a, tid) || !proc_add_tid(p, tid))
		return;
	read_comm((pid_t)pid, (pid_t)tid, comm, sizeof(comm));
	write_thread(a, ts, pid, tid, GP_PROC_INFO, comm);
}

static void write_clock_pair(struct cpu_agent *a)
{
	struct gp_rec_clock_pair *r = gp_writer__reserve(a->w, GP_REC_CLOCK_PAIR, sizeof(*r));
	uint64_t mono = now_ns(CLOCK_MONOTONIC);

	if (!r)
		return;
	r->producer_ts = mono; /* bpf_ktime_get_ns() is CLOCK_MONOTONIC */
	r->monotonic_ns = mono;
	r->realtime_ns = now_ns(CLOCK_REALTIME);
	r->source = GP_CLOCKSRC_BPF;
	gp_writer__commit(a->w);
}

static void write_dropped(struct cpu_agent *a, uint32_t source, uint64_t total, bool always,
			  uint32_t cause)
{
	struct gp_rec_dropped *r;
	uint64_t delta = total - a->written_lost[source];

	if (!delta && !always)
		return;
	r = gp_writer__reserve(a->w, GP_REC_DROPPED, sizeof(*r));
	if (!r)
		return;
	r->ts = now_ns(CLOCK_MONOTONIC);
	r->count = delta;
	r->source = source;
	r->cause = cause;
	gp_writer__commit(a->w);
	a->written_lost[source] = total;
}

static void collect_stats(struct cpu_agent *a)
{
	struct proc_track_stats ps = { 0 };

	if (a->pt) {
		proc_track_prog__stats(a->pt, &ps);
		a->st.lost_proc = ps.lost_events + ps.lost_follows;
	}
	a->st.lost_stack = 0;
	if (a->cs) {
		struct cpu_sample_stats cs;

		cpu_sample_prog__stats(a->cs, &cs);
		a->st.lost_sample = cs.lost_events;
		a->st.lost_stack += cs.stack_errors;
	}
	if (a->oc) {
		struct offcpu_stats os;

		offcpu_prog__stats(a->oc, &os);
		a->st.lost_offcpu = os.lost_events;
		a->st.lost_short = os.short_lost;
		a->st.offcpu_repaired = os.missed_switch_ins;
		a->st.offcpu_missed = os.missed_switch_outs + os.prog_misses;
		a->st.lost_stack += os.stack_errors;
		a->st.offcpu_ustack_lost = os.ustack_lost;
		a->st.lost_stack += os.ustack_lost;
	}
	if (a->us) {
		struct ustack_stats us;

		ustack__stats(a->us, &us);
		a->st.unwinds = us.unwinds;
		memcpy(a->st.unwind_ends, us.ends, sizeof(a->st.unwind_ends));
		a->st.unwind_tables = us.tables;
		a->st.unwind_files_no_cfi = us.files_no_cfi + us.files_failed;
		a->st.unwind_maps_dropped = us.mappings_dropped;
		a->st.unwind_maps_no_segment = us.mappings_no_segment;
		a->st.unwind_copy_bytes = us.copy_bytes;
		a->st.unwind_rescans = us.rescans;
		a->st.unwind_rescans_found = us.rescans_found;
	}
	if (a->cache) {
		struct cfi_cache_stats cs;

		cfi_cache__stats(a->cache, &cs);
		a->st.unwind_cache_hits = cs.hits;
		a->st.unwind_cache_misses = cs.misses;
		a->st.unwind_cache_bad = cs.bad;
		a->st.unwind_cache_written = cs.written;
		a->st.unwind_cache_write_errors = cs.write_errors;
		a->st.unwind_cache_write_error = cs.write_error;
		a->st.unwind_cache_evicted = cs.evicted;
	}
	if (a->w) {
		a->st.lost_writer = gp_writer__lost(a->w);
		a->st.writer_cause = gp_writer__lost_cause(a->w);
	}
}

/* Lost counts since the last call; every source once at the end (@always), even at 0. */
static void write_all_dropped(struct cpu_agent *a, bool always)
{
	collect_stats(a);
	write_dropped(a, GP_DROP_RINGBUF_PROC, a->st.lost_proc, always, 0);
	if (a->cs)
		write_dropped(a, GP_DROP_RINGBUF_SAMPLE, a->st.lost_sample, always, 0);
	if (a->oc) {
		write_dropped(a, GP_DROP_RINGBUF_OFFCPU, a->st.lost_offcpu, always, 0);
		write_dropped(a, GP_DROP_OFFCPU_MISSED, a->st.offcpu_missed, always, 0);
	}
	write_dropped(a, GP_DROP_STACK, a->st.lost_stack, always, 0);
	write_dropped(a, GP_DROP_WRITER, a->st.lost_writer, always, (uint32_t)a->st.writer_cause);
	/* only when there is one: sources of format 2.2 */
	write_dropped(a, GP_DROP_PERF_MAP, a->st.perf_maps_skipped, false, a->perf_map_cause);
	write_dropped(a, GP_DROP_KALLSYMS, a->st.kallsyms_lost, false, a->kallsyms_cause);
	/* only when there is one: mappings left out, each with its cause */
	write_dropped(a, GP_DROP_MODULE, a->st.modules_dropped + a->st.unwind_maps_dropped, false,
		      ENOMEM);
	write_dropped(a, GP_DROP_UNWIND_CFI, a->st.unwind_maps_no_segment, false, ENOEXEC);
}

/* ---- mappings -------------------------------------------------------------- */

static const struct bid_entry *build_id_of(struct cpu_agent *a, const char *path, uint64_t dev,
					   uint64_t inode)
{
	struct bid_entry *e;

	for (size_t i = 0; i < a->nbids; i++)
		if (a->bids[i].dev == dev && a->bids[i].inode == inode)
			return &a->bids[i];
	/* a full cache recycles slots round-robin: bounded, and misses only cost a reread */
	e = &a->bids[a->nbids < AGENT_BUILD_ID_CACHE ? a->nbids++ : inode % AGENT_BUILD_ID_CACHE];
	memset(e, 0, sizeof(*e));
	e->dev = dev;
	e->inode = inode;
	e->err = build_id__read(path, e->id, &e->len);
	return e;
}

static int sig_cmp(const struct mod_sig *x, const struct mod_sig *y)
{
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->pgoff != y->pgoff)
		return x->pgoff < y->pgoff ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* Where @sig is, or goes, in p->mods (*known: it is there): a binary search, also among thousands. */
static size_t mod_find(const struct proc *p, const struct mod_sig *sig, bool *known)
{
	size_t lo = 0, hi = p->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sig_cmp(&p->mods[mid], sig);

		if (!c) {
			*known = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*known = false;
	return lo;
}

/*
 * Read /proc/PID/maps and write a module record for every executable
 * mapping not written before: as many as it has (a mapping that cannot be
 * remembered, out of memory, is counted in modules_dropped).
 */
static void scan_maps(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return; /* gone already: its exit event is on the way */
	read_uids(p);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, inode;
		unsigned int maj, min;
		char perms[8], file[PATH_MAX], mf[96];
		struct mod_sig sig;
		struct gp_rec_module *r;
		const struct bid_entry *bid = NULL;
		bool known;
		size_t at;
		int n;

		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &pgoff, &maj, &min, &inode, file);
		if (n < 7 || perms[2] != 'x')
			continue;
		if (a->us && !inode && !strcmp(file, "[vdso]"))
			ustack__add_vdso(a->us, p->pid, start, end);
		sig = (struct mod_sig){ start, end, pgoff, inode };
		at = mod_find(p, &sig, &known);
		if (known)
			continue;
		if (p->nmods == p->mcap) {
			size_t cap = p->mcap ? 2 * p->mcap : 32;
			struct mod_sig *nm = realloc(p->mods, cap * sizeof(*nm));

			if (!nm) {
				/* left out, counted: a later scan tries again */
				a->st.modules_dropped++;
				continue;
			}
			p->mods = nm;
			p->mcap = cap;
		}
		memmove(&p->mods[at + 1], &p->mods[at], (p->nmods - at) * sizeof(*p->mods));
		p->mods[at] = sig;
		p->nmods++;

		/* map_files reaches the very file mapped, whatever mount namespace it is in */
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", p->pid, start, end);
		if (inode && file[0] == '/')
			bid = build_id_of(a, mf, makedev(maj, min), inode);
		if (a->us && inode && file[0] == '/' && !p->pre_exec)
			ustack__add_mapping(a->us, p->pid, start, end, pgoff, makedev(maj, min), inode,
					    mf);

		r = gp_writer__reserve(a->w, GP_REC_MODULE, sizeof(*r));
		if (r) {
			r->ts = ts;
			r->start = start;
			r->end = end;
			r->pgoff = pgoff;
			r->inode = inode;
			r->pid = (uint32_t)p->pid;
			r->path_str = gp_writer__intern(a->w, file[0] ? file : "[anon]");
			r->dev = (uint32_t)makedev(maj, min);
			r->prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) |
				  (perms[1] == 'w' ? PROT_WRITE : 0);
			if (bid && !bid->err) {
				r->build_id_size = bid->len;
				memcpy(r->build_id, bid->id, bid->len);
			}
			gp_writer__commit(a->w);
			a->st.modules++;
		}
	}
	fclose(f);
}

static void scan_threads(struct cpu_agent *a, struct proc *p, uint64_t ts)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		note_thread(a, (uint32_t)p->pid, (uint32_t)tid, ts);
	}
	closedir(d);
}

/* ---- ring-buffer callbacks ------------------------------------------------ */

/*
 * Create DIR/name for writing, relative to the directory fd and never
 * through a link, owned by opts.owner_* when set_owner: an fd or -errno.
 */
static int agent_create(struct cpu_agent *a, const char *name)
{
	int fd, err;

	if (a->excl)
		return gp_file__create(a->dfd, name, a->opts.set_owner, a->opts.owner_uid,
				       a->opts.owner_gid);
	fd = openat(a->dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (a->opts.set_owner && fchown(fd, a->opts.owner_uid, a->opts.owner_gid)) {
		err = -errno;
		close(fd);
		unlinkat(a->dfd, name, 0);
		return err;
	}
	return fd;
}

static int copy_fd(struct cpu_agent *a, int in, uint64_t max, const char *name);

_Static_assert(GP_PERF_MAP_LINK == ELOOP && GP_PERF_MAP_NOT_FILE == EINVAL &&
		       GP_PERF_MAP_OWNER == EPERM && GP_PERF_MAP_SIZE == EFBIG,
	       "perf map causes are errno numbers");

/*
 * A JIT's symbol map (/tmp/perf-PID.map) outlives nothing: keep a copy in
 * DIR. /tmp is anyone's and the pid predictable, so the agent (root) reads
 * only what the process itself could have written there: never through a
 * link, never blocking (a FIFO), only a regular file owned by the
 * process's uid, at most AGENT_MAX_PERF_MAP bytes. Anything else is
 * skipped and counted (stats.perf_maps_skipped, a GP_DROP_PERF_MAP record
 * whose cause says why).
 */
static void copy_jit_map(struct cpu_agent *a, struct proc *p, uint32_t pid)
{
	char src[64], dst[64];
	struct stat sb;
	int fd, err;

	snprintf(src, sizeof(src), "/tmp/perf-%u.map", pid);
	/* a regular file only: a link (ELOOP), a FIFO or a device (EINVAL) is not opened */
	fd = gp_file__input(AT_FDCWD, src);
	if (fd < 0) {
		if (fd == -ENOENT)
			return; /* no JIT: the usual case */
		err = -fd;
		goto skip;
	}
	if (fstat(fd, &sb)) {
		err = errno;
	} else if (!p || !p->uid_known || (sb.st_uid != p->uid && sb.st_uid != p->euid)) {
		err = GP_PERF_MAP_OWNER;
	} else if ((uint64_t)sb.st_size > AGENT_MAX_PERF_MAP) {
		err = GP_PERF_MAP_SIZE;
	} else {
		snprintf(dst, sizeof(dst), "perf-%u.map", pid);
		err = -copy_fd(a, fd, AGENT_MAX_PERF_MAP, dst);
		if (!err) {
			close(fd);
			a->st.perf_maps++;
			return;
		}
	}
	close(fd);
skip:
	a->st.perf_maps_skipped++;
	if (!a->perf_map_cause)
		a->perf_map_cause = (uint32_t)err;
}

/* Remember the exit of a pid or tid the caller gave (at most one each: it is not reused). */
static void note_exit(struct cpu_agent *a, const struct proc_track_event *ev, const char *comm,
		      bool last)
{
	struct cpu_agent_exit *n;
	bool given = false;

	if (a->tids)
		given = tid_followed(a, ev->tid);
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

		if (!task_gone(id))
			continue;
		e = &a->exits[a->nexits++];
		memset(e, 0, sizeof(*e));
		e->ts = ts;
		e->pid = id;
		e->tid = id;
		e->unseen = true;
		if (!a->tids) {
			snprintf(e->comm, sizeof(e->comm), "%s", a->pid_comms[i]);
			p = proc_find(a, id);
			if (p)
				proc_gone(a, p, ts);
		}
	}
}

static void write_thread_exit(struct cpu_agent *a, struct proc *p,
			      const struct proc_track_event *ev, const char *comm)
{
	if (!tid_followed(a, ev->tid))
		return;
	write_thread(a, ev->ts_ns, ev->pid, ev->tid, GP_PROC_EXIT, comm);
	a->st.threads_exited++;
	if (p)
		proc_del_tid(p, ev->tid);
}

static int on_proc_event(void *ctx, const struct proc_track_event *ev)
{
	struct cpu_agent *a = ctx;
	struct proc *p;
	char comm[PROC_TRACK_COMM_LEN + 1];
	/* system_wide and tids: only processes already known (see cpu_agent.h) */
	bool known_only = a->opts.system_wide || a->tids;

	memcpy(comm, ev->comm, PROC_TRACK_COMM_LEN);
	comm[PROC_TRACK_COMM_LEN] = '\0';
	p = proc_find(a, (pid_t)ev->pid);
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
		read_exe((pid_t)ev->pid, exe, sizeof(exe));
		write_process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_FORK, 0, comm, exe);
		p = proc_get(a, (pid_t)ev->pid);
		if (p) {
			if (proc_add_tid(p, ev->tid))
				write_thread(a, ev->ts_ns, ev->pid, ev->tid, GP_PROC_FORK, comm);
			scan_maps(a, p, ev->ts_ns);
		}
		break;
	}
	case PROC_TRACK_EXEC: {
		char fn[PROC_TRACK_FILENAME_LEN + 1];

		memcpy(fn, ev->filename, PROC_TRACK_FILENAME_LEN);
		fn[PROC_TRACK_FILENAME_LEN] = '\0';
		write_process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_EXEC, 0, comm, fn);
		p = proc_get(a, (pid_t)ev->pid);
		if (p) {
			p->nmods = 0; /* a new address space */
			p->ntids = 0;
			p->pre_exec = false;
			p->exec_ts = ev->ts_ns;
			scan_maps(a, p, ev->ts_ns);
			scan_threads(a, p, ev->ts_ns);
			early_scan_from(a, p, now_ns(CLOCK_MONOTONIC));
		}
		break;
	}
	case PROC_TRACK_MMAP_EXEC:
		if (p && p->alive)
			early_scan_from(a, p, now_ns(CLOCK_MONOTONIC));
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
		write_process(a, ev->ts_ns, ev->pid, ev->ppid, GP_PROC_EXIT, ev->exit_status, comm,
			      NULL);
		copy_jit_map(a, p, ev->pid);
		if (p)
			proc_gone(a, p, now_ns(CLOCK_MONOTONIC));
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

static int on_sample(void *ctx, const struct cpu_sample_event *ev)
{
	struct cpu_agent *a = ctx;
	uint32_t n = (uint32_t)ev->nr_user + ev->nr_kernel;
	struct gp_rec_cpu_sample *r;

	note_thread(a, ev->pid, ev->tid, ev->ts_ns);
	r = gp_writer__reserve(a->w, GP_REC_CPU_SAMPLE, (uint32_t)(sizeof(*r) + 8 * n));
	if (!r)
		return 0;
	r->ts = ev->ts_ns;
	r->weight_ns = a->weight_ns;
	r->pid = ev->pid;
	r->tid = ev->tid;
	r->cpu = ev->cpu;
	r->nr_user = ev->nr_user;
	r->nr_kernel = ev->nr_kernel;
	memcpy(r->ips, ev->ips, 8 * n);
	note_kernel_ips(a, r->ips + ev->nr_user, ev->nr_kernel);
	gp_writer__commit(a->w);
	a->st.samples++;
	return 0;
}

/* ustack found a pc in none of the process's known mappings: read them again (dlopen). */
static void late_rescan(void *ctx, pid_t pid)
{
	struct cpu_agent *a = ctx;
	struct proc *p = proc_find(a, pid);

	if (!p || !p->alive)
		return;
	if (p->pre_exec) { /* its tables after all: every mapping again */
		p->pre_exec = false;
		p->nmods = 0;
	}
	scan_maps(a, p, now_ns(CLOCK_MONOTONIC));
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

/* Whether `pid` runs this process's own executable: a fork held before its exec. */
static bool runs_own_image(pid_t pid)
{
	char path[64];
	struct stat self, st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return !stat("/proc/self/exe", &self) && !stat(path, &st) && self.st_dev == st.st_dev &&
	       self.st_ino == st.st_ino;
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
	struct proc *p = proc_find(a, (pid_t)pid);

	if (p && p->pre_exec) {
		proc_track_prog__consume(a->pt);
		p = proc_find(a, (pid_t)pid);
	}
	return !p || (!p->pre_exec && ts >= p->exec_ts);
}

/* A sample carrying the user registers and stack: unwound here with CFI, written as on_sample. */
static int on_sample_copy(void *ctx, const struct cpu_sample_copy_event *ev)
{
	struct cpu_agent *a = ctx;
	uint64_t pcs[GP_BPF_STACK_DEPTH];
	uint32_t nu = 0, nk = ev->nr_kernel;
	struct gp_rec_cpu_sample *r;
	int end = -1;

	note_thread(a, ev->pid, ev->tid, ev->ts_ns); /* a new process's mappings first */
	if (!(ev->stack_flags & CPU_SAMPLE_NO_REGS) && user_stack_of(a, ev->pid, ev->ts_ns))
		nu = (uint32_t)ustack__unwind(a->us, (pid_t)ev->pid, ev->rip, ev->rsp, ev->rbp,
					      ev->rbx, ev->stack, ev->stack_len,
					      ev->stack_flags & CPU_SAMPLE_STACK_CUT, pcs,
					      GP_BPF_STACK_DEPTH, &end);
	r = gp_writer__reserve(a->w, GP_REC_CPU_SAMPLE, (uint32_t)(sizeof(*r) + 8 * (nu + nk)));
	if (!r)
		return 0;
	if (end >= 0)
		r->hdr.flags = stack_end_flags(end);
	r->ts = ev->ts_ns;
	r->weight_ns = a->weight_ns;
	r->pid = ev->pid;
	r->tid = ev->tid;
	r->cpu = ev->cpu;
	r->nr_user = (uint16_t)nu;
	r->nr_kernel = (uint16_t)nk;
	memcpy(r->ips, pcs, 8 * nu);
	memcpy(r->ips + nu, ev->kips, 8 * nk);
	note_kernel_ips(a, r->ips + nu, nk);
	gp_writer__commit(a->w);
	a->st.samples++;
	return 0;
}

/* Span @ev as an offcpu record with @flags (GP_STACK_END_* of its user stack, or 0). */
static int write_offcpu(struct cpu_agent *a, const struct offcpu_event *ev, uint16_t flags)
{
	uint32_t n = (uint32_t)ev->nr_user + ev->nr_kernel;
	struct gp_rec_offcpu *r;

	note_thread(a, ev->pid, ev->tid, ev->end_ns);
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

static int on_offcpu(void *ctx, const struct offcpu_event *ev)
{
	return write_offcpu(ctx, ev, 0);
}

/* A span carrying the user registers and stack: unwound here with CFI, written as on_offcpu. */
static int on_offcpu_copy(void *ctx, const struct offcpu_copy_event *ev)
{
	struct cpu_agent *a = ctx;
	uint64_t pcs[GP_BPF_STACK_DEPTH];
	struct offcpu_event e;
	uint32_t nu = 0, nk = ev->nr_kernel;
	int end = -1;

	note_thread(a, ev->pid, ev->tid, ev->end_ns); /* a new process's mappings first */
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

/* ---- lifecycle ------------------------------------------------------------ */

/* Tgid of thread @tid (any thread, also a process's first), from /proc; -errno. */
static int tgid_of(pid_t tid)
{
	char path[64], buf[2048], *t;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	t = strstr(buf, "\nTgid:");
	return t ? atoi(t + 6) : -ESRCH;
}

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
		if (o->cpus[i] < 0 || o->cpus[i] >= ncpu || o->cpus[i] >= OFFCPU_MAX_CPUS) {
			snprintf(why, len, "bad CPU %d: this machine has CPUs 0-%ld", o->cpus[i],
				 ncpu - 1);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		int t = o->pids[i] > 0 ? tgid_of(o->pids[i]) : -EINVAL;

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
		int t = o->tids[i] > 0 ? tgid_of(o->tids[i]) : -EINVAL;

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

struct cpu_agent *cpu_agent__new(const struct cpu_agent_opts *opts)
{
	struct gp_writer_opts wo = { .producer = GP_PRODUCER_CPU_AGENT,
				     .clock_id = GP_CLOCK_MONOTONIC,
				     .truncate = 1 };
	struct proc_track_opts po = { 0 };
	struct cpu_agent *a = NULL;
	const char *what = "invalid agent options";
	char why[256] = "";
	pid_t *tgids = NULL, ex[2];
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
		    !read_small("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id)))
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
		if (!proc_get(a, opts->pids[i])) {
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
			int t = tgid_of(opts->tids[i]);
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
				if (!proc_get(a, t)) {
					err = -ENOMEM;
					goto fail;
				}
			}
		}
		a->ntids = opts->nr_tids;
		qsort(a->tids, a->ntids, sizeof(*a->tids), cmp_u32);
	}

	po.all = opts->system_wide;
	po.tgids = opts->nr_tids ? tgids : opts->pids;
	po.nr_tgids = opts->nr_tids ? ntgids : opts->nr_pids;
	po.thread_exits = true;
	po.mmap_exec = !opts->system_wide; /* a followed tree's libraries, as they load */
	po.max_procs = a->opts.max_procs;
	po.force_raw_tp = opts->force_raw_tp;
	po.on_event = on_proc_event;
	po.ctx = a;
	what = "cannot load the process tracker (sched_process_fork/exec/exit)";
	a->pt = proc_track_prog__new(&po);
	if (!a->pt) {
		err = -errno;
		goto fail;
	}
	a->st.tp_btf = proc_track_prog__uses_tp_btf(a->pt);
	tfd = opts->system_wide ? -1 : proc_track_prog__tgids_fd(a->pt);
	/* system-wide, the recorder would otherwise profile its own draining */
	ex[0] = opts->system_wide && !opts->include_self ? getpid() : 0;
	ex[1] = opts->system_wide ? opts->exclude_pid : 0;

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
		ustack__set_rescan(a->us, late_rescan, a);
	}
	a->st.unwind_cache_off = opts->cache_dir_fd > 0 && !a->cache;
	if (opts->on_cpu) {
		struct cpu_sample_opts so = {
			.freq_hz = a->opts.freq_hz,
			.no_user = opts->no_user_stack,
			.no_kernel = opts->no_kernel_stack,
			.tgids_fd = tfd,
			.tgids_max = proc_track_prog__max_procs(a->pt),
			.exclude_tgid = { ex[0], ex[1] },
			.tids = opts->tids,
			.nr_tids = opts->nr_tids,
			.cpus = opts->cpus,
			.nr_cpus = opts->nr_cpus,
			.user_threads_only = opts->user_threads_only,
			.kernel_threads_only = opts->kernel_threads_only,
			.force_sw_clock = opts->force_sw_clock,
			.on_event = on_sample,
			.ctx = a,
		};

		if (a->us)
			so.on_copy = on_sample_copy;

		what = "cannot load the on-CPU sampler (perf_event program)";
		a->cs = cpu_sample_prog__new(&so);
		if (!a->cs) {
			err = -errno;
			goto fail;
		}
	}
	if (opts->off_cpu) {
		struct offcpu_opts oo = {
			.min_block_us = a->opts.min_block_us,
			.max_block_us = opts->max_block_us,
			.no_user = opts->no_user_stack,
			.no_kernel = opts->no_kernel_stack,
			.tgids_fd = tfd,
			.tgids_max = proc_track_prog__max_procs(a->pt),
			.exclude_tgid = { ex[0], ex[1] },
			.tids = opts->tids,
			.nr_tids = opts->nr_tids,
			.cpus = opts->cpus,
			.nr_cpus = opts->nr_cpus,
			.user_threads_only = opts->user_threads_only,
			.kernel_threads_only = opts->kernel_threads_only,
			.force_raw_tp = opts->force_raw_tp,
			.force_no_iters = opts->force_no_iters,
			.fault = opts->offcpu_fault,
			.fault_every = opts->offcpu_fault_every,
			.on_event = on_offcpu,
			.on_copy = a->us ? on_offcpu_copy : NULL,
			.ctx = a,
		};

		what = "cannot load the off-CPU tracer (sched_switch/sched_waking/sys_exit)";
		a->oc = offcpu_prog__new(&oo);
		if (!a->oc) {
			err = -errno;
			goto fail;
		}
		a->st.offcpu_iters = offcpu_prog__has_iters(a->oc);
	}

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
	tfd = agent_create(a, "cpu.trace");
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
	a->covered_ns = now_ns(CLOCK_MONOTONIC);
	if (err) {
		set_error(&a->opts, what, err);
		detach_all(a);
		return err;
	}
	a->started = true;
	for (size_t i = 0; i < a->npids; i++)
		read_comm(a->pids[i], 0, a->pid_comms[i], sizeof(a->pid_comms[i]));
	write_clock_pair(a);
	ts = now_ns(CLOCK_MONOTONIC);
	note_gone_at_start(a, ts);
	for (size_t i = 0; i < a->nprocs; i++) {
		struct proc *p = &a->procs[i];

		/* held before exec: the tables of the recorder's own libraries would go unused */
		p->pre_exec = !a->opts.attach_running && !a->opts.system_wide && !a->tids &&
			      runs_own_image(p->pid);
		write_proc_info(a, p, ts);
		scan_maps(a, p, ts);
		scan_threads(a, p, ts);
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
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (now >= a->next_early)
		early_scans(a, now);
	if (now >= a->next_rescan) {
		for (size_t i = 0; i < a->nprocs;) {
			struct proc *p = &a->procs[i];

			if (p->alive) {
				/* system-wide: only processes that were active */
				if (p->active || !a->opts.system_wide)
					scan_maps(a, p, now);
				p->active = false;
			} else if (now - p->exit_ts > AGENT_LINGER_NS) {
				proc_drop(a, p); /* moves the last entry here */
				continue;
			}
			i++;
		}
		a->next_rescan = now + AGENT_RESCAN_NS;
	}
	if (now >= a->next_clock) {
		write_clock_pair(a);
		write_all_dropped(a, false);
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
	left = (int)(((int64_t)wake - (int64_t)now_ns(CLOCK_MONOTONIC)) / 1000000);
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

/* One thread's short off-CPU blocks as one GP_OFFCPU_AGGREGATE record. */
static int write_short(void *ctx, const struct offcpu_short *s)
{
	struct cpu_agent *a = ctx;
	struct gp_rec_offcpu *r;

	if (!s->count)
		return 0;
	r = gp_writer__reserve(a->w, GP_REC_OFFCPU, sizeof(*r));
	if (!r)
		return 0;
	r->hdr.flags = GP_OFFCPU_AGGREGATE;
	r->start = s->first_ns;
	r->end = s->first_ns + s->total_ns;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = UINT32_MAX;
	r->pad = s->count > UINT32_MAX ? UINT32_MAX : (uint32_t)s->count;
	gp_writer__commit(a->w);
	a->st.offcpu_aggregates++;
	a->st.offcpu_short += s->count;
	return 0;
}

/*
 * Copy at most @max bytes of @in to a new DIR/name: 0 or -errno. A copy
 * that cannot be finished is emptied (a reader takes none rather than a
 * part for the whole).
 */
static int copy_fd(struct cpu_agent *a, int in, uint64_t max, const char *name)
{
	char buf[65536];
	uint64_t left = max;
	int out, err = 0;
	ssize_t n;

	out = agent_create(a, name);
	if (out < 0)
		return out;
	while (left && (n = read(in, buf, left < sizeof(buf) ? left : sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		err = gp_file__write_full(out, buf, (size_t)n);
		if (err)
			break;
		left -= (uint64_t)n;
	}
	if (err && ftruncate(out, 0))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	return err;
}

/*
 * DIR/kallsyms: the kernel symbols of the addresses written (not the whole
 * table), read as root (a user reads zeros in /proc/kallsyms): from the
 * table read at start when it names every address (all in the kernel's
 * own text), else from the one read at stop.
 * A file that cannot be written whole is emptied (a part would name frames
 * wrongly), and counted (stats.kallsyms_lost, a GP_DROP_KALLSYMS drop).
 */
_Static_assert(CPU_AGENT_KSYM_NO_CACHE == KSYM_CACHE_NONE && CPU_AGENT_KSYM_HIT == KSYM_CACHE_HIT &&
		       CPU_AGENT_KSYM_WRITTEN == KSYM_CACHE_WRITTEN,
	       "the agent's kallsyms cache states are kallsyms.h's");

static void write_kallsyms(struct cpu_agent *a)
{
	uint64_t nsyms = 0;
	int fd, err;

	fd = agent_create(a, "kallsyms");
	if (fd < 0) {
		err = fd;
	} else {
		struct ksym_snap *k = a->ksnap_stop;

		if (!k && kallsyms__snap_covers(a->ksnap, &a->kips))
			k = a->ksnap;
		if (k)
			err = kallsyms__snap_write_needed(k, &a->kips, fd, &nsyms);
		else
			err = kallsyms__write_needed("/proc/kallsyms", &a->kips, fd, &nsyms);
		if (err && ftruncate(fd, 0)) {
			/* emptied as far as it can be; the count says the rest */
		}
		if (close(fd) && !err)
			err = -errno;
	}
	a->st.kallsyms_symbols = err ? 0 : nsyms;
	a->st.kallsyms_cache = kallsyms__snap_cache_state(a->ksnap);
	if (!err)
		return;
	/* symbols not written; the addresses left unnamed where that is not known */
	a->st.kallsyms_lost = nsyms ? nsyms : a->kips.n;
	if (!a->st.kallsyms_lost)
		a->st.kallsyms_lost = 1;
	a->kallsyms_cause = (uint32_t)-err;
}

int cpu_agent__stop(struct cpu_agent *a)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC);
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
		if (a->oc) {
			/* blocks in progress end here, so a wall-clock profile covers the window */
			offcpu_prog__for_each_open(a->oc, end, on_offcpu,
						   a->us ? on_offcpu_copy : NULL, write_short, a);
			offcpu_prog__for_each_short(a->oc, write_short, a);
		}
	}
	/* before the trace is closed: a failure is a drop it records */
	if (!a->opts.no_kallsyms)
		write_kallsyms(a);
	write_all_dropped(a, true);
	write_clock_pair(a);
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
	offcpu_prog__free(a->oc);
	cpu_sample_prog__free(a->cs);
	proc_track_prog__free(a->pt);
	gp_writer__abandon(a->w);
	while (a->nprocs)
		proc_drop(a, &a->procs[a->nprocs - 1]);
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
