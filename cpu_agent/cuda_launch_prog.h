/* SPDX-License-Identifier: Apache-2.0 */
/* cuda_launch_prog: find CUDA launch/copy entry points in ELF files and put uprobes on them. */
#ifndef GPUPERF_CPU_AGENT_CUDA_LAUNCH_PROG_H
#define GPUPERF_CPU_AGENT_CUDA_LAUNCH_PROG_H

#include <stdbool.h>
#include <stdint.h>

struct cuda_launch_prog;
struct cuda_launch_event; /* bpf/cuda_launch.h */

/* Called on the polling thread per hit; @ev is valid only during the call. */
typedef int (*cuda_launch_event_fn)(void *ctx, const struct cuda_launch_event *ev);

struct cuda_launch_opts {
	int tgids_fd;		/* proc_track_prog__tgids_fd(); < 0: every process */
	uint32_t tgids_max;
	uint32_t ringbuf_bytes;	/* power of 2; 0: 1 MiB */
	uint32_t max_probes;	/* uprobes at once; 0: 1024 */
	/*
	 * One perf-event uprobe per entry point even where the kernel has
	 * uprobe_multi links (6.6+; tests of the fallback). Closing each such
	 * uprobe waits for a grace period, so detaching is slow.
	 */
	bool no_multi;
	/*
	 * Loader hook only: do not stop a process at _dl_debug_state (the event
	 * still comes). For recording mappings when no entry point is probed.
	 */
	bool no_stop_on_load;
	cuda_launch_event_fn on_event; /* required */
	void *ctx;
};

struct cuda_launch_stats {
	uint64_t lost_events;
	uint64_t stack_errors;
};

struct cuda_launch_prog *cuda_launch_prog__new(const struct cuda_launch_opts *opts);

/*
 * Whether a mapped file is worth resolving: the basename is libcudart.so*
 * or libcuda.so*, or @is_main_exe (nvcc links cudart statically).
 */
bool cuda_launch_prog__candidate(const char *path, bool is_main_exe);

/*
 * Resolve every known entry point in the ELF file @path (.symtab and
 * .dynsym, local symbols and versioned names included) and attach a uprobe
 * to each, for all processes (the BPF side filters by the shared tgid map).
 * A file already handled (same device and inode) is skipped. Returns the
 * number of uprobes attached (0: none of the names is there), or -errno:
 * -ENOENT no such file, -EPERM not allowed; uprobes attached before a
 * failure stay until __detach/__free.
 */
int cuda_launch_prog__attach_file(struct cuda_launch_prog *p, const char *path);

/*
 * Put the loader hook (see bpf/cuda_launch.bpf.c) on _dl_debug_state in the
 * dynamic loader @path. Followed processes then report every library load
 * (a CUDA_LAUNCH_PROBE_DL event) and, unless opts.no_stop_on_load, stop
 * until the caller has handled it and sent SIGCONT. Returns 1 attached, 0
 * already done / no such symbol, or -errno.
 */
int cuda_launch_prog__attach_loader(struct cuda_launch_prog *p, const char *path);

/* Code of a CUDA runtime linked statically into an executable, as file offsets [lo, hi). */
struct cuda_launch_range {
	uint64_t lo, hi;
};

/*
 * The statically linked CUDA runtime inside @path, as found when
 * cuda_launch_prog__attach_file() handled it: runs of at least 8 adjacent
 * functions named cuda*, __cuda* or libcudart_static_* (nvcc's static
 * cudart is one such run of ~1700). A driver entry point called from there
 * is the runtime's own call, not the application's. Returns how many
 * ranges were written to @out (at most @max), 0 for none or an unknown file.
 */
int cuda_launch_prog__runtime_ranges(const struct cuda_launch_prog *p, const char *path,
				     struct cuda_launch_range *out, int max);

/* The symbol name of a probe_id from an event; "?" if unknown. */
const char *cuda_launch_prog__probe_name(const struct cuda_launch_prog *p, uint32_t probe_id);

int cuda_launch_prog__nr_probes(const struct cuda_launch_prog *p);
/* The symbol of the i-th attached uprobe (0 <= i < nr_probes), or NULL. */
const char *cuda_launch_prog__attached_name(const struct cuda_launch_prog *p, int i);
/* Is @name (a version suffix "@..." ignored) one of the entry points probed? */
bool cuda_launch_prog__is_entry_point(const char *name);
void cuda_launch_prog__detach(struct cuda_launch_prog *p);
/*
 * __detach in two halves: _begin starts closing every link from threads
 * (each close waits for grace periods), _end waits until all are closed;
 * events can arrive until _end returns. __detach and __free call _end.
 */
void cuda_launch_prog__detach_begin(struct cuda_launch_prog *p);
void cuda_launch_prog__detach_end(struct cuda_launch_prog *p);
int cuda_launch_prog__consume(struct cuda_launch_prog *p);
int cuda_launch_prog__epoll_fd(const struct cuda_launch_prog *p);
/*
 * The map of processes stopped at a library load and not yet continued
 * (tgid -> stop time), for a guard that continues them should the agent die.
 */
int cuda_launch_prog__held_fd(const struct cuda_launch_prog *p);
/* Process @pid, stopped at @ts (the DL event's ts_ns), was sent SIGCONT. */
void cuda_launch_prog__released(struct cuda_launch_prog *p, uint32_t pid, uint64_t ts);
void cuda_launch_prog__stats(const struct cuda_launch_prog *p, struct cuda_launch_stats *st);
void cuda_launch_prog__free(struct cuda_launch_prog *p);

#endif /* GPUPERF_CPU_AGENT_CUDA_LAUNCH_PROG_H */
