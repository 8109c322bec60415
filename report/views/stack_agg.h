/* SPDX-License-Identifier: Apache-2.0 */
/* stack_agg.h - aggregate call stacks (root-first frames with kinds) into a weighted prefix tree. */
#ifndef GPUPERF_STACK_AGG_H
#define GPUPERF_STACK_AGG_H

#include <stddef.h>
#include <stdint.h>

/*
 * What a frame is. The kind is part of a frame's identity: "read" on-CPU and
 * "read" off-CPU are two different nodes. Writers color and annotate by kind,
 * never by parsing names (the folded reader is the one place that infers a
 * kind from text, see folded.h).
 */
enum gp_frame_kind {
	GP_FRAME_CPU = 0,	/* user-space code, on-CPU */
	GP_FRAME_KERNEL_CPU,	/* kernel code (flamegraph.pl's _[k]) */
	GP_FRAME_INLINE,	/* inlined function (_[i]) */
	GP_FRAME_JIT,		/* JIT-compiled code (_[j]) */
	GP_FRAME_WAKER,		/* waker stack of an off-wake graph (_[w]) */
	GP_FRAME_OFFCPU,	/* blocked time */
	GP_FRAME_GPU_KERNEL,	/* device time of a kernel */
	GP_FRAME_GPU_MEMCPY,	/* device time of a memcpy */
	GP_FRAME_GPU_MEMSET,	/* device time of a memset */
	GP_FRAME_GPU_SYNC,	/* time waiting on the device */
	GP_FRAME_SYNTHETIC,	/* markers such as "[off-cpu]", "[no launch stack]" */
	GP_FRAME_KIND_COUNT
};

/* A short stable name for a kind ("cpu", "gpu", ...); "?" when out of range. */
const char *gp_frame_kind__name(enum gp_frame_kind kind);

/* One frame of a stack handed to stack_agg__add(); plain data, borrowed. */
struct stack_frame {
	const char *name; /* NUL-terminated; copied (interned) by the aggregator */
	enum gp_frame_kind kind;
};

/* A node as seen by stack_agg__walk(); valid only during the callback. */
struct stack_agg_node {
	const char *name;	/* "" for the root */
	enum gp_frame_kind kind;
	unsigned depth;		/* 0 = root (all stacks), 1 = outermost frame */
	uint64_t total;		/* weight of this node and everything under it */
	uint64_t self;		/* weight of stacks that end exactly here */
	uint64_t offset;	/* total weight of the nodes left of this one at its depth */
};

/*
 * The aggregator owns copies of every name; nothing it returns outlives it.
 * Not thread-safe: one thread at a time per stack_agg (the merger aggregates
 * on one thread; shard by view or process to use more).
 */
struct stack_agg;

/* Returns NULL and sets errno (ENOMEM) on failure. */
struct stack_agg *stack_agg__new(void);
/* Accepts NULL. */
void stack_agg__free(struct stack_agg *agg);

/*
 * Add `weight` to the stack frames[0..n) (root first). n == 0 adds to the
 * root itself. Returns 0, -EINVAL (NULL name, bad kind), -EOVERFLOW (total
 * weight would pass UINT64_MAX) or -ENOMEM; on error no weight is added
 * (after -ENOMEM, some of the path's names and nodes may exist with zero
 * weight; writers skip zero-weight nodes).
 */
int stack_agg__add(struct stack_agg *agg, const struct stack_frame *frames, size_t n,
		   uint64_t weight);

/* Sum of all weights added. */
uint64_t stack_agg__total(const struct stack_agg *agg);
/* Number of distinct nodes, the root excluded. */
size_t stack_agg__node_count(const struct stack_agg *agg);
/* Number of distinct frame names interned. */
size_t stack_agg__name_count(const struct stack_agg *agg);
/* Deepest stack added (0 when empty). */
unsigned stack_agg__max_depth(const struct stack_agg *agg);

/*
 * Visit the tree depth-first, parents before children, siblings in a stable
 * order: by name (byte-wise, as strcmp) and then by kind. So two
 * aggregations of the same stacks, added in any order, walk identically.
 *
 * enter() is called for every node, the root included (depth 0, name "");
 * return 0 to descend, 1 to skip the node's children, a negative errno to
 * stop the walk (returned by stack_agg__walk()). leave(), when not NULL, is
 * called after a node's children. Returns 0, the callback's error or -ENOMEM.
 * Not reentrant; adding during a walk is not allowed.
 */
typedef int (*stack_agg_visit_fn)(void *ctx, const struct stack_agg_node *node);
int stack_agg__walk(struct stack_agg *agg, stack_agg_visit_fn enter, stack_agg_visit_fn leave,
		    void *ctx);

#endif /* GPUPERF_STACK_AGG_H */
