/* SPDX-License-Identifier: Apache-2.0 */
/* cfi_row: one row of a module's unwind table, shared by user space and (later) BPF programs. */
#ifndef GPUPERF_UNWIND_CFI_ROW_H
#define GPUPERF_UNWIND_CFI_ROW_H

#include <linux/types.h>

/*
 * A module's table is an array of rows sorted by `start` (strictly
 * increasing). A row's rule covers [start, next row's start); the last row
 * is always GP_CFI_NONE (the end of the last FDE). An address below the
 * first row's start is GP_CFI_NONE too. Find a pc's row with a binary
 * search for the last row whose start <= pc - load bias; a return address
 * is looked up as pc - 1 (the call may be a function's last instruction).
 *
 * Addresses are ELF virtual addresses (what the file's program headers
 * say), so one table serves every process that maps the module: the
 * in-process unwinder and the BPF one build and read the same rows.
 *
 * x86-64 only: the return address is always at CFA - 8 (a rule that says
 * otherwise makes the row GP_CFI_UNKNOWN) and the caller's rsp is the CFA.
 *
 * Two of the caller's registers are tracked besides rsp: rbp (rbp_off),
 * which GP_CFI_RBP and GP_CFI_NONE rows need, and rbx (arg, for the kinds
 * other than GP_CFI_PLT), which GP_CFI_RBX rows need: glibc's lazy-binding
 * trampolines (_dl_runtime_resolve_xsavec and its kin) save rbx, keep
 * their entry rsp in it and align rsp down, so their CFA is rbx-based
 * while _dl_fixup, which saves rbx again, runs above them.
 */

/* gp_cfi_row.kind */
#define GP_CFI_NONE	0 /* no CFI covers this range: walk the frame pointer */
#define GP_CFI_RSP	1 /* CFA = rsp + cfa_off */
#define GP_CFI_RBP	2 /* CFA = rbp + cfa_off */
#define GP_CFI_PLT	3 /* PLT stub: CFA = rsp + 8 + ((rip & 15) >= arg ? 8 : 0) */
#define GP_CFI_SIGNAL	4 /* signal trampoline (FDE 'S'): a ucontext_t at rsp holds the interrupted registers */
#define GP_CFI_END	5 /* return address undefined: the outermost frame (_start, clone3's child) */
#define GP_CFI_UNKNOWN	6 /* CFI this format cannot express (a DWARF expression, CFA in another register) */
#define GP_CFI_RBX	7 /* CFA = rbx + cfa_off */
#define GP_CFI_KIND_MAX GP_CFI_RBX

/* gp_cfi_row.rbp_off when it is not an offset (offsets are negative multiples of 8) */
#define GP_CFI_RBP_SAME 0 /* the caller's rbp is the current rbp */
#define GP_CFI_RBP_LOST 1 /* the caller's rbp is not known (undefined, in another register) */

/*
 * gp_cfi_row.arg of GP_CFI_RSP, GP_CFI_RBP and GP_CFI_RBX rows: where the
 * caller's rbx is. 1..254 (GP_CFI_RBX_AT(k)): saved at CFA - 8k; a save
 * anywhere else (above the CFA, beyond CFA - 2032) is LOST. The other kinds
 * say nothing of rbx: PLT stubs leave it alone, a signal frame's ucontext
 * holds it, a frame without CFI (GP_CFI_NONE) may have changed it.
 */
#define GP_CFI_RBX_SAME	 0   /* the caller's rbx is the current rbx */
#define GP_CFI_RBX_LOST	 255 /* not known (undefined, in another register, an odd slot) */
#define GP_CFI_RBX_AT(k) (k) /* saved at CFA - 8 * k, 1 <= k <= 254 */

struct gp_cfi_row {
	__u32 start;	/* first covered address, module-relative (ELF vaddr) */
	__u8 kind;	/* GP_CFI_* */
	__u8 arg;	/* GP_CFI_PLT: the (rip & 15) threshold (11, or 10 for IBT PLTs);
			 * GP_CFI_RSP, GP_CFI_RBP, GP_CFI_RBX: the caller's rbx, GP_CFI_RBX_* */
	__s16 rbp_off;	/* caller's rbp saved at CFA + rbp_off, or GP_CFI_RBP_* */
	__s32 cfa_off;	/* GP_CFI_RSP, GP_CFI_RBP, GP_CFI_RBX */
};

_Static_assert(sizeof(struct gp_cfi_row) == 12, "gp_cfi_row layout changed");

#endif /* GPUPERF_UNWIND_CFI_ROW_H */
