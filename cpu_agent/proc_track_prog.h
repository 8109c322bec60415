/* SPDX-License-Identifier: Apache-2.0 */
/* proc_track_prog: load, attach and drain bpf/proc_track.bpf.c (fork/exec/exit of a process tree). */
#ifndef GPUPERF_CPU_AGENT_PROC_TRACK_PROG_H
#define GPUPERF_CPU_AGENT_PROC_TRACK_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_track_prog;
struct proc_track_event; /* bpf/proc_track.h */

/*
 * Called from proc_track_prog__poll()/__consume() on the polling thread, once
 * per event, in ring-buffer order. @ev is valid only during the call. Return
 * 0 to go on, or a negative errno to stop: the poll returns that value.
 */
typedef int (*proc_track_event_fn)(void *ctx, const struct proc_track_event *ev);

struct proc_track_opts {
	/*
	 * Which processes to report. all: every process on the machine.
	 * Otherwise the processes in tgids[0..nr_tgids) and everything they
	 * fork from the moment of proc_track_prog__attach(); more can be added
	 * with proc_track_prog__follow(). Processes forked before attach are
	 * not picked up. Fixed at load time (rodata).
	 */
	bool all;
	const pid_t *tgids;
	size_t nr_tgids;
	uint32_t max_procs;	/* followed processes at once; 0: 8192 */
	uint32_t ringbuf_bytes;	/* power of 2, >= page size; 0: 256 KiB */
	/*
	 * Use the raw_tp programs even where tp_btf works (tests of the
	 * fallback). tp_btf is otherwise chosen whenever the kernel can load it.
	 */
	bool force_raw_tp;
	/* Also report the exit of every thread that is not its process's last (THREAD_EXIT). */
	bool thread_exits;
	/*
	 * Also report a followed thread about to map a file executable
	 * (MMAP_EXEC), where the kernel has the syscall tracepoint; without it
	 * the rest works as before (proc_track_prog__mmap_events()).
	 */
	bool mmap_exec;
	proc_track_event_fn on_event; /* required */
	void *ctx;
};

struct proc_track_stats {
	uint64_t lost_events;	/* ring buffer was full */
	uint64_t lost_follows;	/* follow map was full: a child went unfollowed */
};

/*
 * Open the BPF object, configure it from @opts and load it into the kernel.
 * Nothing is attached yet. Returns NULL and sets errno:
 *   EPERM       not root / lacking CAP_BPF + CAP_PERFMON
 *   EOPNOTSUPP  the kernel exposes no BTF (/sys/kernel/btf/vmlinux): no CO-RE
 *   EINVAL      bad @opts
 *   other       as libbpf reports it (e.g. EACCES: the verifier refused)
 * libbpf's own messages go wherever bpf_print__route() sent them.
 */
struct proc_track_prog *proc_track_prog__new(const struct proc_track_opts *opts);
/*
 * The same in two steps, on the agent's one object (agent_bpf.h): configure
 * @skel, not loaded yet, with the tp_btf programs or their raw_tp twins (NULL
 * and errno on bad options); its followed-tgid map exists from here on
 * (proc_track_prog__tgids_fd), for the other programs to share. Once the
 * caller has loaded @skel, take over (0 or -errno). The caller destroys
 * @skel after proc_track_prog__free().
 */
struct agent_bpf;
struct proc_track_prog *proc_track_prog__prepare(struct agent_bpf *skel,
						 const struct proc_track_opts *opts, bool tp_btf);
int proc_track_prog__loaded(struct proc_track_prog *p);
/* Whether to try tp_btf first: 1, 0, or -errno (no BTF for CO-RE at all). */
int proc_track_prog__wants_tp_btf(const struct proc_track_opts *opts);

/*
 * Attach the three tracepoint programs. On failure nothing stays attached
 * and -errno is returned.
 */
int proc_track_prog__attach(struct proc_track_prog *p);

/* Whether MMAP_EXEC events come: asked for and attached (after __attach). */
bool proc_track_prog__mmap_events(const struct proc_track_prog *p);

/* Detach the programs (events already queued can still be consumed). */
void proc_track_prog__detach(struct proc_track_prog *p);

/* Follow @tgid (and, from now on, its new children). -EINVAL with opts.all. */
int proc_track_prog__follow(struct proc_track_prog *p, pid_t tgid);

/*
 * Wait up to @timeout_ms (-1: forever) for events and deliver them to
 * opts.on_event. Returns the number delivered, or -errno (-EINTR when a
 * signal arrived, or on_event's own negative value).
 */
int proc_track_prog__poll(struct proc_track_prog *p, int timeout_ms);

/* Deliver what is already queued, without waiting. Same returns as __poll. */
int proc_track_prog__consume(struct proc_track_prog *p);

/* An epoll fd that turns readable when events are queued (for a caller's own loop). */
int proc_track_prog__epoll_fd(const struct proc_track_prog *p);

/*
 * The fd of the followed-tgid hash map (key and value __u32 tgid), for other
 * BPF objects to share with bpf_map__reuse_fd() so that one filter serves
 * every program. Owned by @p: valid until proc_track_prog__free(). -EINVAL
 * with opts.all (the map is unused then).
 */
int proc_track_prog__tgids_fd(const struct proc_track_prog *p);

/* Max entries of that map (what a sharing map must declare). */
uint32_t proc_track_prog__max_procs(const struct proc_track_prog *p);

/* true when the tp_btf programs were loaded, false for the raw_tp fallback. */
bool proc_track_prog__uses_tp_btf(const struct proc_track_prog *p);

void proc_track_prog__stats(const struct proc_track_prog *p, struct proc_track_stats *st);

/* Detach and unload everything; accepts NULL. */
void proc_track_prog__free(struct proc_track_prog *p);

#endif /* GPUPERF_CPU_AGENT_PROC_TRACK_PROG_H */
