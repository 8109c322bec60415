/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remote.h - unwind another thread's user stack from a copy: its rip, rsp,
 * rbp (and rbx) and the bytes of its stack from rsp up, as a BPF program copies
 * them at a sample (the way perf --call-graph dwarf does), unwound later in
 * user space with the same CFI tables (cfi_table.h) and the same frame
 * rules as the in-process unwinder (unwind.h).
 *
 *	struct gp_unwind_remote r = {
 *		.rip = ..., .rsp = ..., .rbp = ..., .rbx = ..., .rbx_known = true,
 *		.stack = buf, .stack_base = rsp_at_copy, .stack_len = len,
 *		.stack_cut = len == copy_limit,
 *		.lookup = my_lookup, .ctx = my_process,
 *	};
 *	int end, n = gp_unwind__remote(&r, pcs, GP_UNWIND_MAX_DEPTH, &end);
 *
 * Reads only the copy: a frame whose return address, saved rbp or signal
 * context lies outside [stack_base, stack_base + stack_len) ends the stack
 * (GP_UNWIND_END_SHORT_COPY when the copy was cut at its limit and the read
 * is above it, GP_UNWIND_END_BAD_FRAME otherwise). Never allocates, locks
 * or makes a syscall; the lookup callback is the caller's (the agent keeps
 * a process's mappings sorted and answers with a binary search).
 *
 * Frames: pcs[0] is rip (exact), then return addresses, outermost last; a
 * pc after a signal frame is the interrupted instruction itself.
 */
#ifndef GPUPERF_UNWIND_REMOTE_H
#define GPUPERF_UNWIND_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi_table.h"
#include "unwind.h"

/* What the lookup callback says of an address. */
struct gp_unwind_remote_mod {
	const struct cfi_table *table;	/* NULL: the module has no CFI: frame pointer */
	uint64_t bias;			/* ELF vaddr = address - bias */
};

/*
 * The module holding `addr` (pc, or pc - 1 for a return address): 0 with
 * *m filled, or -ENOENT (no executable mapping there: JIT code, a module
 * mapped after the last scan), which ends the stack with
 * GP_UNWIND_END_UNKNOWN_MODULE.
 */
typedef int (*gp_unwind_lookup_fn)(void *ctx, uint64_t addr, struct gp_unwind_remote_mod *m);

struct gp_unwind_remote {
	uint64_t rip, rsp, rbp;		/* the thread's user registers at the copy */
	/*
	 * rbx too, where the copy has it (rbx_known): only frames whose CFA is
	 * rbx-based need it (ld.so's lazy-binding trampoline); without it they
	 * end the stack as GP_UNWIND_END_UNSUPPORTED.
	 */
	uint64_t rbx;
	bool rbx_known;
	const void *stack;		/* the copy of [stack_base, stack_base + stack_len) */
	uint64_t stack_base;		/* the address the copy starts at (normally rsp) */
	size_t stack_len;
	bool stack_cut;			/* the copy stopped at its size limit, not at the stack's end */
	gp_unwind_lookup_fn lookup;
	void *ctx;
};

/*
 * At most `max` (<= GP_UNWIND_MAX_DEPTH) pcs into `pcs`; returns how many.
 * *end (may be NULL) gets GP_UNWIND_END_*; the caller counts them.
 */
int gp_unwind__remote(const struct gp_unwind_remote *r, uint64_t *pcs, int max, int *end);

#endif /* GPUPERF_UNWIND_REMOTE_H */
