/* SPDX-License-Identifier: Apache-2.0 */
/*
 * step.h - the rules of one frame of the walk, shared by the in-process
 * unwinder (unwind.c) and the remote one (remote.c), so both read a table
 * row the same way. Private to unwind/.
 */
#ifndef GPUPERF_UNWIND_STEP_H
#define GPUPERF_UNWIND_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "cfi_row.h"
#include "unwind.h"

/*
 * The caller's CFA of a frame at (pc, sp, bp, bx) whose row is (kind, arg,
 * cfa_off), for the kinds that have one (RSP, RBP, RBX, PLT, NONE: rbp + 16).
 * Returns -1 with *cfa set, or the GP_UNWIND_END_* that ends the stack
 * here (END is the clean ROOT; SIGNAL is the caller's to handle).
 *
 * @bx_ok: bx is known. An RBX row without it ends as UNSUPPORTED: the
 * walker does not track rbx (the in-process one), the copy has none, or a
 * frame on the way kept it where this format cannot say (another register,
 * no CFI).
 *
 * @live: bp is the register as it was sampled (the first frame, or one a
 * signal frame restored), not a value a callee saved. A frame without CFI
 * whose saved rbp is 0 is the outermost one: "the user code should mark
 * the deepest stack frame by setting the frame pointer to zero" (x86-64
 * psABI 3.4.1); ld.so's _dl_start_user does so before the constructors
 * it calls. A live rbp of 0 may be any value of code that does not keep
 * a frame pointer: the walk cannot go on, and does not claim the root.
 */
static inline int gp_step__cfa(uint8_t kind, uint8_t arg, int32_t cfa_off, uint64_t pc, uint64_t sp,
			       uint64_t bp, bool bp_ok, uint64_t bx, bool bx_ok, bool live,
			       uint64_t *cfa)
{
	switch (kind) {
	case GP_CFI_RSP:
		*cfa = sp + (int64_t)cfa_off;
		return -1;
	case GP_CFI_RBP:
		if (!bp_ok)
			return GP_UNWIND_END_BAD_FRAME;
		*cfa = bp + (int64_t)cfa_off;
		return -1;
	case GP_CFI_RBX:
		if (!bx_ok)
			return GP_UNWIND_END_UNSUPPORTED;
		*cfa = bx + (int64_t)cfa_off;
		return -1;
	case GP_CFI_PLT:
		*cfa = sp + 8 + ((pc & 15) >= arg ? 8 : 0);
		return -1;
	case GP_CFI_NONE:
		if (bp_ok && !bp && !live)
			return GP_UNWIND_END_ROOT;
		if (!bp_ok || !bp)
			return GP_UNWIND_END_NO_FP;
		*cfa = bp + 16;
		return -1;
	case GP_CFI_END:
		return GP_UNWIND_END_ROOT;
	default:
		return GP_UNWIND_END_UNSUPPORTED;
	}
}

/* How the caller's rbp or rbx is found, once the CFA is known. */
#define GP_STEP_SAME 0	/* unchanged */
#define GP_STEP_LOST 1	/* not known: a later row that needs it ends the stack */
#define GP_STEP_AT   2	/* the stack word at the returned address */

/*
 * @sp: the frame's stack pointer. A save slot below it is one the
 * epilogue has popped already: GCC's and glibc's CFI describe the pops'
 * CFA but not the restores, so rbp is still said to be at its slot while
 * the stack pointer has moved above it (the caller's rbp is back in the
 * register then, but a leaf's save in the red zone reads the same: not
 * known). The slot is not read: it is outside any copy from the stack
 * pointer up, and free for a signal frame to overwrite.
 */
static inline int gp_step__rbp(uint8_t kind, int16_t rbp_off, uint64_t cfa, uint64_t sp,
			       uint64_t bp, uint64_t *at)
{
	if (kind == GP_CFI_NONE) {
		*at = bp; /* the frame record: saved rbp at rbp, return address above it */
		return GP_STEP_AT;
	}
	if (rbp_off == GP_CFI_RBP_LOST)
		return GP_STEP_LOST;
	if (rbp_off == GP_CFI_RBP_SAME)
		return GP_STEP_SAME;
	*at = cfa + (int64_t)rbp_off;
	return *at < sp ? GP_STEP_LOST : GP_STEP_AT;
}

/*
 * The same for rbx, whose rule is the row's arg (GP_CFI_RBX_*) where the
 * kind has one. A PLT stub leaves rbx alone; a frame without CFI may have
 * used it (it is callee-saved, but where it was saved is not known). A
 * slot below @sp is an epilogue's, popped already, as for rbp; unlike rbp
 * the caller's value is then taken to be back in the register: GCC saves
 * rbx with a push, never in the red zone, and _dl_fixup sampled between
 * its `pop %rbx` and its `ret` has the trampoline above it, whose CFA is
 * that rbx.
 */
static inline int gp_step__rbx(uint8_t kind, uint8_t arg, uint64_t cfa, uint64_t sp, uint64_t *at)
{
	switch (kind) {
	case GP_CFI_PLT:
		return GP_STEP_SAME;
	case GP_CFI_RSP:
	case GP_CFI_RBP:
	case GP_CFI_RBX:
		break;
	default:
		return GP_STEP_LOST;
	}
	if (arg == GP_CFI_RBX_SAME)
		return GP_STEP_SAME;
	if (arg == GP_CFI_RBX_LOST)
		return GP_STEP_LOST;
	*at = cfa - 8 * (uint64_t)arg;
	return *at < sp ? GP_STEP_SAME : GP_STEP_AT;
}

#endif /* GPUPERF_UNWIND_STEP_H */
