/* SPDX-License-Identifier: Apache-2.0 */
/* agent_priv.h - the CPU agent's state, shared by its modules (not part of its API). */
#ifndef GPUPERF_CPU_AGENT_AGENT_PRIV_H
#define GPUPERF_CPU_AGENT_AGENT_PRIV_H

/*
 * One struct cpu_agent, driven on one thread, is split by noun:
 *   cpu_agent.c    options, __new, __start, the poll loop, __stop, __free
 *   agent_proc.c   the process table and what is read from /proc
 *   agent_write.c  the records and files written to DIR
 *   agent_event.c  the ring-buffer handlers of the three programs
 * None of it locks: every call comes from the thread that polls.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "build_id.h"
#include "cpu_agent.h"
#include "gp_record.h"
#include "kallsyms.h"

#define AGENT_BUILD_ID_CACHE	256

struct cfi_cache;
struct cpu_sample_copy_event;
struct cpu_sample_event;
struct cpu_sample_prog;
struct gp_writer;
struct offcpu_copy_event;
struct offcpu_event;
struct offcpu_prog;
struct offcpu_short;
struct proc_track_event;
struct proc_track_prog;
struct ustack;

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
	 * (agent_proc__late_rescan()).
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
	struct agent_bpf *skel;		/* the programs' one object (agent_bpf.h) */
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
	uint64_t next_catch_up;	/* while unwinding a backlog: process events and rescans then */
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

/* Now on @clk, in ns. */
static inline uint64_t agent_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- agent_proc.c: the process table, /proc ------------------------------ */

/* A small /proc file, its last newline cut: 0 or -errno. */
int agent_proc__read_small(const char *path, char *buf, size_t len);
/* A process's (@tid 0) or thread's name; empty when gone. */
void agent_proc__read_comm(pid_t pid, pid_t tid, char *buf, size_t len);
void agent_proc__read_exe(pid_t pid, char *buf, size_t len);
bool agent_proc__task_gone(pid_t id);
int agent_proc__tgid_of(pid_t tid);
bool agent_proc__runs_own_image(pid_t pid);

struct proc *agent_proc__find(struct cpu_agent *a, pid_t pid);
/* The entry of @pid, made (or renewed, for a reused pid) alive; NULL: the table is full. */
struct proc *agent_proc__get(struct cpu_agent *a, pid_t pid);
void agent_proc__gone(struct cpu_agent *a, struct proc *p, uint64_t now);
/* Free @p's entry: the last entry moves into its place. */
void agent_proc__drop(struct cpu_agent *a, struct proc *p);
int agent_proc__add_tid(struct proc *p, uint32_t tid);
void agent_proc__del_tid(struct proc *p, uint32_t tid);
/* qsort/bsearch order of the uint32_t tids */
int agent_proc__cmp_tid(const void *x, const void *y);
bool agent_proc__tid_followed(const struct cpu_agent *a, uint32_t tid);
void agent_proc__note_thread(struct cpu_agent *a, uint32_t pid, uint32_t tid, uint64_t ts);

void agent_proc__write_info(struct cpu_agent *a, struct proc *p, uint64_t ts);
void agent_proc__scan_maps(struct cpu_agent *a, struct proc *p, uint64_t ts);
void agent_proc__scan_threads(struct cpu_agent *a, struct proc *p, uint64_t ts);
void agent_proc__early_scan_from(struct cpu_agent *a, struct proc *p, uint64_t now);
void agent_proc__early_scans(struct cpu_agent *a, uint64_t now);
/* ustack's rescan callback (ustack__set_rescan), @ctx the agent. */
void agent_proc__late_rescan(void *ctx, pid_t pid);
void agent_proc__copy_jit_map(struct cpu_agent *a, struct proc *p, uint32_t pid);

/* ---- agent_write.c: records and files in DIR ----------------------------- */

void agent_write__process(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t ppid,
			  uint32_t event, int32_t exit_code, const char *comm, const char *exe);
void agent_write__thread(struct cpu_agent *a, uint64_t ts, uint32_t pid, uint32_t tid,
			 uint32_t event, const char *name);
void agent_write__clock_pair(struct cpu_agent *a);
void agent_write__all_dropped(struct cpu_agent *a, bool always);
/* offcpu_prog's short-block callback, @ctx the agent. */
int agent_write__short(void *ctx, const struct offcpu_short *s);
void agent_write__kallsyms(struct cpu_agent *a);
int agent_write__create(struct cpu_agent *a, const char *name);
int agent_write__copy_fd(struct cpu_agent *a, int in, uint64_t max, const char *name);

/* ---- agent_event.c: ring-buffer handlers, @ctx the agent ------------------ */

int agent_event__on_proc(void *ctx, const struct proc_track_event *ev);
int agent_event__on_sample(void *ctx, const struct cpu_sample_event *ev);
int agent_event__on_sample_copy(void *ctx, const struct cpu_sample_copy_event *ev);
int agent_event__on_offcpu(void *ctx, const struct offcpu_event *ev);
int agent_event__on_offcpu_copy(void *ctx, const struct offcpu_copy_event *ev);

#endif /* GPUPERF_CPU_AGENT_AGENT_PRIV_H */
