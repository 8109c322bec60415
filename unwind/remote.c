// SPDX-License-Identifier: Apache-2.0
/* remote: unwind a copied user stack with the CFI tables; reads nothing but the copy. */

#include <stddef.h>
#include <string.h>
#include <sys/ucontext.h>

#include "remote.h"
#include "step.h"

/* ucontext_t fields the kernel's rt_sigframe holds at the trampoline's rsp */
#define UC_RIP offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#define UC_RSP offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define UC_RBP offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])
#define UC_RBX offsetof(ucontext_t, uc_mcontext.gregs[REG_RBX])

/*
 * The word at address `a` of the copied stack: -1 with *v set, or the end
 * reason: above a copy cut at its limit the stack may well go on
 * (SHORT_COPY); anywhere else the frame is wrong (BAD_FRAME).
 */
static int copy_word(const struct gp_unwind_remote *r, uint64_t a, uint64_t *v)
{
	uint64_t lo = r->stack_base, len = r->stack_len;

	if ((a & 7) || a < lo || len < 8 || a - lo > len - 8) {
		if (r->stack_cut && a >= lo && a - lo <= len + (1ull << 30))
			return GP_UNWIND_END_SHORT_COPY;
		return GP_UNWIND_END_BAD_FRAME;
	}
	memcpy(v, (const char *)r->stack + (a - lo), 8);
	return -1;
}

int gp_unwind__remote(const struct gp_unwind_remote *r, uint64_t *pcs, int max, int *endp)
{
	uint64_t pc = r->rip, sp = r->rsp, bp = r->rbp, bx = r->rbx, cfa, at, ra, nbp, nbx, lookup;
	struct gp_unwind_remote_mod md;
	const struct gp_cfi_row *row;
	static const struct gp_cfi_row none = { .kind = GP_CFI_NONE };
	bool exact = true, bp_ok = true, bx_ok = r->rbx_known;
	int n = 0, end;

	if (max > GP_UNWIND_MAX_DEPTH)
		max = GP_UNWIND_MAX_DEPTH;
	if (max < 0)
		max = 0;
	if (!r->stack || sp < r->stack_base || sp - r->stack_base >= r->stack_len) {
		end = GP_UNWIND_END_OFF_STACK;
		goto out;
	}
	for (;;) {
		if (n == max) {
			end = GP_UNWIND_END_DEPTH;
			goto out;
		}
		pcs[n++] = pc;
		lookup = exact ? pc : pc - 1;
		if (!r->lookup || r->lookup(r->ctx, lookup, &md)) {
			end = GP_UNWIND_END_UNKNOWN_MODULE;
			goto out;
		}
		row = md.table ? cfi_table__find(md.table, lookup - md.bias) : &none;
		if (row->kind == GP_CFI_SIGNAL) {
			uint64_t nrip, nrsp, nrbp;

			if ((end = copy_word(r, sp + UC_RIP, &nrip)) >= 0 ||
			    (end = copy_word(r, sp + UC_RSP, &nrsp)) >= 0 ||
			    (end = copy_word(r, sp + UC_RBP, &nrbp)) >= 0 ||
			    (end = copy_word(r, sp + UC_RBX, &nbx)) >= 0)
				goto out;
			/* the interrupted frame is above the handler's on the same stack, or not copied */
			if (nrsp <= sp || nrsp - r->stack_base >= r->stack_len) {
				end = nrsp > sp && r->stack_cut ? GP_UNWIND_END_SHORT_COPY
								: GP_UNWIND_END_OFF_STACK;
				goto out;
			}
			pc = nrip;
			sp = nrsp;
			bp = nrbp;
			bp_ok = true;
			bx = nbx;
			bx_ok = true;
			exact = true;
			continue;
		}
		end = gp_step__cfa(row->kind, row->arg, row->cfa_off, pc, sp, bp, bp_ok, bx, bx_ok,
				   exact, &cfa);
		if (end >= 0)
			goto out;
		if (cfa <= sp) {
			end = GP_UNWIND_END_BAD_FRAME;
			goto out;
		}
		if ((end = copy_word(r, cfa - 8, &ra)) >= 0)
			goto out;
		switch (gp_step__rbp(row->kind, row->rbp_off, cfa, sp, bp, &at)) {
		case GP_STEP_AT:
			if ((end = copy_word(r, at, &nbp)) >= 0)
				goto out;
			bp = nbp;
			bp_ok = true; /* a frame that saved it: known again, if lost below */
			break;
		case GP_STEP_LOST:
			bp_ok = false;
			break;
		}
		/* between sp and the return address, so in the copy; only an RBX row needs it */
		switch (gp_step__rbx(row->kind, row->arg, cfa, sp, &at)) {
		case GP_STEP_AT:
			bx_ok = copy_word(r, at, &bx) < 0;
			break;
		case GP_STEP_LOST:
			bx_ok = false;
			break;
		}
		if (!ra) {
			end = GP_UNWIND_END_ROOT;
			goto out;
		}
		pc = ra;
		sp = cfa;
		exact = false;
	}
out:
	if (endp)
		*endp = end;
	return n;
}
