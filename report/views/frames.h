/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames.h - the frames every view draws for a record, root first ("proc" is
 * the process's name, then "[pid]" when other processes share the name):
 *   on-CPU   proc;user frames;kernel frames_[k]
 *   off-CPU  proc;user frames;[off-cpu];kernel frames at the switch
 *   GPU      proc;launch stack;API call;[gpu] kernel | [memcpy HtoD] | [memset]
 *            proc;[no launch stack];API call;[gpu] kernel   (joined to an API call only)
 *            proc;[unknown API];[gpu] kernel                 (not joined at all)
 * The [off-cpu] marker sits between the user and the kernel part of a
 * blocked stack, so the user frames of on- and off-CPU time merge in the
 * combined graph and only the blocked part is drawn in the off-CPU palette.
 *
 * Names are borrowed from the timeline, the symbolizer and struct frames,
 * which must outlive the frame lists. Not thread-safe (the symbolizer
 * caches).
 */
#ifndef GPUPERF_FRAMES_H
#define GPUPERF_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "stack_agg.h"

struct symbolizer;
struct sym_frame;
struct timeline;
struct tl_api;
struct tl_gpu;
struct tl_offcpu;
struct tl_sample;
struct tl_stack;

/* A growable frame list (root first). */
struct frame_buf {
	struct stack_frame *f;
	const struct sym_frame **src; /* per frame: what symbolized it, NULL for markers */
	size_t n, cap, cap_src;       /* cap: of f, cap_src: of src */
};

/* Append a frame; name is borrowed. 0 or -ENOMEM. */
int frame_buf__push(struct frame_buf *fb, const char *name, enum gp_frame_kind kind);
/* Frees the arrays; the struct may be reused after. */
void frame_buf__release(struct frame_buf *fb);

/* What frames are drawn from: borrowed tl and sym, and each process's root frames. */
struct frames {
	struct timeline *tl;
	struct symbolizer *sym;
	char **proc_root; /* per tl->procs[i]: the root frame naming the process */
	char **proc_pid;  /* per tl->procs[i]: its "[pid]" frame, NULL when its name is its own */
	size_t nr_procs;
};

/*
 * Name the processes of tl (after timeline__finish()): the root frame of a
 * process is its name (comm). Processes that share a name share the root,
 * each under it as a "[pid]" frame: one tower per program (a build's cc1),
 * its processes side by side (an MPI job's ranks). 0 or -ENOMEM;
 * frames__release() in either case.
 */
int frames__init(struct frames *fr, struct timeline *tl, struct symbolizer *sym);
void frames__release(struct frames *fr);

/* The root frame of a process, "[unknown process]" for one without records. */
const char *frames__proc_root(const struct frames *fr, uint32_t pid);
/* Push a process's root frames: the root, and its "[pid]" frame (0 or -ENOMEM). */
int frames__push_proc(const struct frames *fr, uint32_t pid, struct frame_buf *fb);
/* How many root frames frames__push_proc() pushes: 1 or 2. */
size_t frames__proc_depth(const struct frames *fr, uint32_t pid);

/* Display name of an API call ("[unknown API]" when unknown). */
const char *frames__api_name(const struct frames *fr, const struct tl_api *a);
/* A GPU record's leaf frame: "[gpu] demangled", "[memcpy HtoD]", "[memset]"; buf used when needed.
 */
const char *frames__gpu_leaf(const struct frames *fr, const struct tl_gpu *g, char *buf,
			     size_t size);
/* The frame kind of a GPU record's leaf frame. */
enum gp_frame_kind frames__gpu_leaf_kind(const struct tl_gpu *g);

/*
 * Append the symbolized frames of a recorded stack to fb, root first:
 * user frames (outermost first; inline chains expanded), then kernel frames
 * (kind `kernel_kind`; none with GP_FRAME_KIND_COUNT). skip_user_leaf drops
 * the innermost user frame (a launch probe's own entry address). Returns 0
 * or -ENOMEM.
 */
int frames__stack(const struct frames *fr, uint32_t pid, const struct tl_stack *st,
		  int skip_user_leaf, enum gp_frame_kind kernel_kind, struct frame_buf *fb);

/*
 * The user frames of a launch-site stack, root first, without the probed
 * entry point and without the frames nvcc generates between the user's
 * <<<>>> and the runtime (the kernel's host stub, __device_stub__*,
 * __cudaLaunchKernel_helper, cudaLaunchKernel<T> wrappers): the innermost
 * frame left is the user's function that launched, and its src gives the
 * file:line of the launch. kernel: the demangled kernel name, or NULL.
 */
int frames__launch_site(const struct frames *fr, uint32_t pid, const struct tl_stack *st,
			const char *kernel, struct frame_buf *fb);

/* All frames of an on-CPU sample / an off-CPU span, process root first: 0 or -ENOMEM. */
int frames__sample(const struct frames *fr, const struct tl_sample *s, struct frame_buf *fb);
int frames__offcpu(const struct frames *fr, const struct tl_offcpu *o, struct frame_buf *fb);
/* A thread's short blocks (summed by the agent, no stack): proc;[off-cpu];[short blocks]. */
int frames__short_blocks(const struct frames *fr, uint32_t pid, struct frame_buf *fb);

/* The launch frames of GPU record i (process root, stack, API), without its leaf: 0 or -ENOMEM. */
int frames__gpu(const struct frames *fr, size_t i, struct frame_buf *fb);

#endif /* GPUPERF_FRAMES_H */
