// SPDX-License-Identifier: Apache-2.0
/*
 * The remote unwinder (remote.h) on real stacks of this process, copied
 * the way the eBPF agent copies a sampled thread's: registers plus the
 * bytes from rsp up. Through a 20-deep chain without frame pointers (in a
 * shared library and in this executable) it must give the in-process
 * unwinder's frames; from a signal's ucontext in a frameless leaf it must
 * reach the leaf's caller and the thread's root; a copy cut short, a
 * garbage stack, an unknown module and a module without CFI end (or walk
 * frame pointers) as documented, reading nothing outside the copy.
 */

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfi_table.h"
#include "chain.h"
#include "remote.h"
#include "unwind.h"

CHAIN_DECLARE(lib_)
CHAIN_DECLARE(exe_)

#define COPY_MAX (64u << 10)

static struct gp_unwind *U;

/* Exported (not static), so dladdr() names them. */
int snap_cb(void *arg);
struct snap;
void grab(struct snap *s, size_t max);
int fp_a(void *arg);
int fp_b(void *arg);
int spin_cb(void *arg);
void *spin_thread(void *arg);
void on_sigusr2(int sig, siginfo_t *si, void *ucv);

static const char *sym(uint64_t pc)
{
	Dl_info di;

	if (!pc || !dladdr((void *)(uintptr_t)(pc - 1), &di) || !di.dli_sname)
		return "?";
	return di.dli_sname;
}

/* ---- the module lookup: every mapped module's table, built from its program headers ---- */

#define MAX_MODS 64

static struct lmod {
	uintptr_t lo, hi, bias;
	struct cfi_table *table;
} mods[MAX_MODS];
static int nmods;
static uintptr_t no_cfi_bias = 1; /* a module answered without its table (1: none) */

static int add_mod(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	size_t i;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo >= hi || nmods == MAX_MODS)
		return 0;
	mods[nmods] = (struct lmod){ lo, hi, info->dlpi_addr, NULL };
	cfi_table__from_phdrs(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum,
			      &mods[nmods].table);
	nmods++;
	return 0;
}

static int lookup(void *ctx, uint64_t addr, struct gp_unwind_remote_mod *m)
{
	int i;

	(void)ctx;
	for (i = 0; i < nmods; i++) {
		if (addr >= mods[i].lo && addr < mods[i].hi) {
			m->table = mods[i].bias == no_cfi_bias ? NULL : mods[i].table;
			m->bias = mods[i].bias;
			return 0;
		}
	}
	return -ENOENT;
}

static int lookup_none(void *ctx, uint64_t addr, struct gp_unwind_remote_mod *m)
{
	(void)ctx;
	(void)addr;
	(void)m;
	return -ENOENT;
}

static uintptr_t bias_of(const void *fn)
{
	int i;

	for (i = 0; i < nmods; i++)
		if ((uintptr_t)fn >= mods[i].lo && (uintptr_t)fn < mods[i].hi)
			return mods[i].bias;
	fail_msg("no module holds %p", fn);
	return 0;
}

static void stack_hi(uintptr_t *hi)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	assert_int_equal(pthread_getattr_np(pthread_self(), &a), 0);
	assert_int_equal(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	*hi = (uintptr_t)addr + size;
}

/* ---- copies ---- */

struct snap {
	uint64_t rip, rsp, rbp;
	uint8_t *buf;		/* malloc'ed to exactly len: ASan sees any read past it */
	size_t len;
	bool cut;
	uint64_t here[GP_UNWIND_MAX_DEPTH]; /* the in-process unwinder's answer, same frames */
	int nhere, endhere;
};

/* Copy [sp, min(sp + max, top)) word by word: the frames we copy have ASan redzones. */
__attribute__((no_sanitize_address)) static void copy_stack(struct snap *s, uint64_t sp, size_t max)
{
	uintptr_t hi;
	size_t i;

	stack_hi(&hi);
	assert_true(sp < hi);
	s->len = hi - sp < max ? hi - sp : max;
	s->cut = s->len == max && hi - sp > max;
	s->buf = malloc(s->len);
	assert_non_null(s->buf);
	for (i = 0; i + 8 <= s->len; i += 8) {
		uint64_t v = *(const volatile uint64_t *)(uintptr_t)(sp + i);

		memcpy(s->buf + i, &v, 8);
	}
}

/* Registers read at one instruction of this function, the stack copied from that rsp. */
__attribute__((noinline, no_sanitize_address)) void grab(struct snap *s, size_t max)
{
	uint64_t rip, rsp, rbp;

	__asm__ volatile("leaq 0(%%rip), %0\n\t"
			 "movq %%rsp, %1\n\t"
			 "movq %%rbp, %2"
			 : "=r"(rip), "=r"(rsp), "=r"(rbp));
	s->rip = rip;
	s->rsp = rsp;
	s->rbp = rbp;
	copy_stack(s, rsp, max);
	__asm__ volatile("" ::: "memory");
}

static int unwind_snap(const struct snap *s, gp_unwind_lookup_fn fn, uint64_t *pcs, int *end)
{
	struct gp_unwind_remote r = {
		.rip = s->rip, .rsp = s->rsp, .rbp = s->rbp,
		.stack = s->buf, .stack_base = s->rsp, .stack_len = s->len, .stack_cut = s->cut,
		.lookup = fn,
	};

	return gp_unwind__remote(&r, pcs, GP_UNWIND_MAX_DEPTH, end);
}

__attribute__((noinline)) int snap_cb(void *arg)
{
	struct snap *s = arg;

	s->nhere = gp_unwind__here(U, s->here, GP_UNWIND_MAX_DEPTH, &s->endhere);
	grab(s, s->len ? s->len : COPY_MAX);
	return s->nhere;
}

static void print_stacks(const uint64_t *a, int na, const uint64_t *b, int nb)
{
	for (int i = 0; i < na || i < nb; i++)
		print_message("%2d %-28s %s\n", i, i < na ? sym(a[i]) : "", i < nb ? sym(b[i]) : "");
}

/* remote: grab, snap_cb, <the chain>...; in-process: snap_cb, <the chain>... */
static void check_same(const struct snap *s)
{
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end, n = unwind_snap(s, lookup, pcs, &end);

	if (end != GP_UNWIND_END_ROOT || s->endhere != GP_UNWIND_END_ROOT || n != s->nhere + 1) {
		print_stacks(pcs, n, s->here, s->nhere);
		fail_msg("remote: %d frames, ended %s; in-process: %d, ended %s", n,
			 gp_unwind__end_name(end), s->nhere, gp_unwind__end_name(s->endhere));
	}
	assert_string_equal(sym(pcs[0]), "grab");
	assert_string_equal(sym(pcs[1]), "snap_cb");
	for (int i = 2; i < n; i++)
		if (pcs[i] != s->here[i - 1])
			fail_msg("frame %d: remote %s, in-process %s", i, sym(pcs[i]),
				 sym(s->here[i - 1]));
}

/* Through 20 frames without frame pointers, in a library and in the executable: as in-process. */
static void test_remote_equals_inprocess(void **state)
{
	struct snap s = { 0 };

	(void)state;
	lib_run(snap_cb, &s);
	assert_true(s.nhere > 20);
	check_same(&s);
	free(s.buf);

	memset(&s, 0, sizeof(s));
	exe_run(snap_cb, &s);
	check_same(&s);
	free(s.buf);
}

/* A copy cut at 256 bytes: the frames it holds, then SHORT_COPY, not a wrong frame. */
static void test_remote_cut_copy(void **state)
{
	struct snap s = { .len = 256 };
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end, n;

	(void)state;
	lib_run(snap_cb, &s);
	assert_true(s.cut);
	n = unwind_snap(&s, lookup, pcs, &end);
	assert_int_equal(end, GP_UNWIND_END_SHORT_COPY);
	assert_true(n >= 2 && n < s.nhere);
	for (int i = 2; i < n; i++)
		assert_true(pcs[i] == s.here[i - 1]);
	free(s.buf);
}

/* No module known: the first frame, then UNKNOWN_MODULE. */
static void test_remote_unknown_module(void **state)
{
	struct snap s = { 0 };
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end, n;

	(void)state;
	lib_run(snap_cb, &s);
	n = unwind_snap(&s, lookup_none, pcs, &end);
	assert_int_equal(n, 1);
	assert_int_equal(end, GP_UNWIND_END_UNKNOWN_MODULE);
	free(s.buf);
}

__attribute__((noinline)) int fp_b(void *arg)
{
	int n = snap_cb(arg);

	__asm__ volatile("" : "+r"(n));
	return n;
}

__attribute__((noinline)) int fp_a(void *arg)
{
	int n = fp_b(arg);

	__asm__ volatile("" : "+r"(n));
	return n;
}

/* This executable (built with frame pointers) answered without CFI: its frames by rbp. */
static void test_remote_no_cfi_frame_pointer(void **state)
{
	struct snap s = { 0 };
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end, n, i;

	(void)state;
	fp_a(&s);
	no_cfi_bias = bias_of((void *)fp_a);
	n = unwind_snap(&s, lookup, pcs, &end);
	no_cfi_bias = 1;
	if (end != GP_UNWIND_END_ROOT || n != s.nhere + 1)
		print_stacks(pcs, n, s.here, s.nhere);
	/* _start's CFI says "outermost"; without it, the saved rbp of 0 it set says so */
	assert_int_equal(end, GP_UNWIND_END_ROOT);
	assert_int_equal(n, s.nhere + 1);
	for (i = 2; i < n; i++)
		assert_true(pcs[i] == s.here[i - 1]);
	assert_string_equal(sym(pcs[2]), "fp_b");
	assert_string_equal(sym(pcs[3]), "fp_a");
	free(s.buf);
}

/* Garbage stacks from real pcs: every walk ends, inside the copy (ASan checks), with a reason. */
static void test_remote_garbage(void **state)
{
	const void *starts[] = { (void *)lib_run, (void *)exe_run, (void *)getpid, (void *)snap_cb };
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	unsigned int seed = 1;
	int round, ends[GP_UNWIND_END__COUNT] = { 0 };

	(void)state;
	for (round = 0; round < 4000; round++) {
		size_t len = 8 * (1 + (size_t)(rand_r(&seed) % 512));
		uint64_t *buf = malloc(len), base = 0x7ff000000000ull + 8 * (uint64_t)(rand_r(&seed) % 4096);
		struct gp_unwind_remote r;
		int end = -1, n;
		size_t i;

		assert_non_null(buf);
		for (i = 0; i < len / 8; i++) {
			switch (rand_r(&seed) % 4) {
			case 0: /* a stack address in or near the copy */
				buf[i] = base + 8 * (uint64_t)(rand_r(&seed) % 1024) - 64;
				break;
			case 1: /* a code address */
				buf[i] = (uintptr_t)starts[rand_r(&seed) % 4] + (uint64_t)(rand_r(&seed) % 256);
				break;
			default:
				buf[i] = ((uint64_t)rand_r(&seed) << 32) ^ (uint64_t)rand_r(&seed);
			}
		}
		r = (struct gp_unwind_remote){
			.rip = (uintptr_t)starts[round % 4] + (uint64_t)(rand_r(&seed) % 64),
			.rsp = base, .rbp = base + 8 * (uint64_t)(rand_r(&seed) % 64),
			.stack = buf, .stack_base = base, .stack_len = len, .stack_cut = round & 1,
			.lookup = lookup,
		};
		n = gp_unwind__remote(&r, pcs, GP_UNWIND_MAX_DEPTH, &end);
		assert_true(n >= 1 && n <= GP_UNWIND_MAX_DEPTH);
		assert_true(end >= 0 && end < GP_UNWIND_END__COUNT);
		ends[end]++;
		free(buf);
	}
	assert_true(ends[GP_UNWIND_END_BAD_FRAME] > 0);
	assert_true(ends[GP_UNWIND_END_UNKNOWN_MODULE] > 0);
}

/* ---- a sample in an epilogue, after the pop of rbp ---- */

/*
 * The shape of GCC's (and glibc's) epilogues: the CFI follows the pops'
 * CFA but never says the registers were restored, so at epilogue_popped
 * rbp is still "saved at CFA-16", 8 bytes below rsp. Its caller saves rbp
 * in its frame, and that one's caller finds its CFA by rbp (frame
 * pointers): fp_fn -> saver_fn -> epilogue_fn.
 */
void epilogue_fn(void);
extern const char epilogue_popped[], saver_ret[], fp_ret[];
__asm__(".text\n"
	".globl epilogue_fn\n"
	".type epilogue_fn, @function\n"
	"epilogue_fn:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"push %rbx\n"
	".cfi_def_cfa_offset 24\n"
	".cfi_offset %rbx, -24\n"
	"nop\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 16\n"
	"pop %rbp\n"
	".cfi_def_cfa_offset 8\n"
	".globl epilogue_popped\n"
	"epilogue_popped:\n"
	"ret\n"
	".cfi_endproc\n"
	".size epilogue_fn, .-epilogue_fn\n"
	".globl saver_fn\n"
	".type saver_fn, @function\n"
	"saver_fn:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"call epilogue_fn\n"
	".globl saver_ret\n"
	"saver_ret:\n"
	"pop %rbp\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size saver_fn, .-saver_fn\n"
	".globl fp_fn\n"
	".type fp_fn, @function\n"
	"fp_fn:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"call saver_fn\n"
	".globl fp_ret\n"
	"fp_ret:\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size fp_fn, .-fp_fn\n");

/*
 * Stopped at `rip`, rsp at the return address into saver_fn, the copy from
 * there up, rbp holding no frame: the walk reaches saver_fn, then fp_fn by
 * the rbp saver_fn saved, and fp_fn is outermost (its saved rbp and return
 * address 0).
 */
static void check_from_saver(const void *rip)
{
	uint64_t base = 0x7ff000001000ull, pcs[GP_UNWIND_MAX_DEPTH];
	uint64_t stack[5] = {
		(uintptr_t)saver_ret,	/* the return address into saver_fn */
		base + 24,		/* saver_fn: fp_fn's rbp, saved */
		(uintptr_t)fp_ret,	/* saver_fn's return address */
		0, 0,			/* fp_fn's frame record: rbp, return address */
	};
	struct gp_unwind_remote r = {
		.rip = (uintptr_t)rip, .rsp = base, .rbp = 0x1234,
		.stack = stack, .stack_base = base, .stack_len = sizeof(stack), .lookup = lookup,
	};
	int end = -1, n;

	n = gp_unwind__remote(&r, pcs, GP_UNWIND_MAX_DEPTH, &end);
	if (n != 3 || end != GP_UNWIND_END_ROOT)
		print_stacks(pcs, n, NULL, 0);
	assert_int_equal(n, 3);
	assert_true(pcs[0] == (uintptr_t)rip);
	assert_true(pcs[1] == (uintptr_t)saver_ret);
	assert_true(pcs[2] == (uintptr_t)fp_ret);
	assert_int_equal(end, GP_UNWIND_END_ROOT);
}

/* In epilogue_fn after its pops: no read below the copy, by the CFA the pops left. */
static void test_remote_epilogue(void **state)
{
	(void)state;
	check_from_saver(epilogue_popped);
}

/* ---- the return of a syscall outside any FDE, as in glibc's clone3 ---- */

/*
 * clone3's shape: its FDE ends before the syscall, and the child's opens
 * after the parent's ret, so the parent returning from the syscall is in
 * no FDE, its stack as at entry.
 */
void gap_fn(void);
extern const char gap_ret[];
__asm__(".text\n"
	".globl gap_fn\n"
	".type gap_fn, @function\n"
	"gap_fn:\n"
	".cfi_startproc\n"
	"mov $0, %eax\n"
	".cfi_endproc\n"
	"nop\n" /* the syscall */
	".globl gap_ret\n"
	"gap_ret:\n"
	"test %rax, %rax\n"
	"jz 1f\n"
	"ret\n"
	"1:\n"
	".cfi_startproc\n"
	".cfi_undefined %rip\n"
	"xor %ebp, %ebp\n"
	"ud2\n"
	".cfi_endproc\n"
	".size gap_fn, .-gap_fn\n");

/* Stopped at gap_ret: the walk goes on by the entry state, not by rbp. */
static void test_remote_syscall_gap(void **state)
{
	(void)state;
	check_from_saver(gap_ret);
}

/* ---- ld.so's lazy binding: a CFA in rbx ---- */

/*
 * The shape of glibc's _dl_runtime_resolve_xsavec: entered from a PLT
 * stub that pushed two words, it saves rbx, keeps its entry rsp there,
 * aligns rsp down for xsave and calls _dl_fixup, which saves rbx again
 * and uses it. Only rbx, restored from fixup_fn's frame, finds
 * resolve_fn's CFA.
 */
void resolve_fn(void);
void fixup_fn(void);
extern const char resolve_call[], resolve_ret[], fixup_body[], fixup_popped[];
__asm__(".text\n"
	".globl resolve_fn\n"
	".type resolve_fn, @function\n"
	"resolve_fn:\n"
	".cfi_startproc\n"
	".cfi_adjust_cfa_offset 16\n" /* the PLT stub's two pushes */
	"push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbx, 0\n"
	"mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"and $-64, %rsp\n"
	"sub $256, %rsp\n"
	".globl resolve_call\n"
	"resolve_call:\n"
	"call fixup_fn\n"
	".globl resolve_ret\n"
	"resolve_ret:\n"
	"mov %rax, %r11\n"
	"mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"mov (%rsp), %rbx\n"
	".cfi_restore %rbx\n"
	"add $24, %rsp\n"
	".cfi_adjust_cfa_offset -24\n"
	"jmp *%r11\n"
	".cfi_endproc\n"
	".size resolve_fn, .-resolve_fn\n"
	".globl fixup_fn\n"
	".type fixup_fn, @function\n"
	"fixup_fn:\n"
	".cfi_startproc\n"
	"push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"mov %rdi, %rbx\n"
	".globl fixup_body\n"
	"fixup_body:\n"
	"nop\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	".globl fixup_popped\n"
	"fixup_popped:\n"
	"ret\n"
	".cfi_endproc\n"
	".size fixup_fn, .-fixup_fn\n");

/*
 * The stack of saver_fn -> resolve_fn -> fixup_fn, stopped at fixup_body:
 * word 0 at the base. resolve_fn's rsp at its call is base + 16, 64-byte
 * aligned, 256 bytes below the aligned-down rbx (base + 312): what lies
 * between is not a frame, and is filled with words that look like one.
 */
#define RESOLVE_BASE  0x7ff000000ff0ull
#define RESOLVE_RBX   (RESOLVE_BASE + 312)
#define RESOLVE_WORDS 47

static void resolve_stack(uint64_t *w)
{
	for (int i = 0; i < RESOLVE_WORDS; i++)
		w[i] = i & 1 ? (uintptr_t)saver_ret : RESOLVE_BASE + 8 * (uint64_t)(i + 2);
	w[0] = RESOLVE_RBX;			/* fixup_fn: resolve_fn's rbx, saved */
	w[1] = (uintptr_t)resolve_ret;		/* fixup_fn's return address */
	w[39] = 0xb0b;				/* resolve_fn: its caller's rbx, saved */
	w[40] = 0x7;				/* the PLT stub's pushes: relocation index, */
	w[41] = 0x55550000;			/* link map */
	w[42] = (uintptr_t)saver_ret;		/* resolve_fn's return address */
	w[43] = RESOLVE_BASE + 8 * 45;		/* saver_fn: fp_fn's rbp, saved */
	w[44] = (uintptr_t)fp_ret;		/* saver_fn's return address */
	w[45] = w[46] = 0;			/* fp_fn's frame record */
}

/*
 * Stopped at @rip with rsp at word @sp_word of resolve_stack() and @rbx
 * (@known: the copy has it), the copy from rsp up: the pcs of the walk
 * and how it ended. Expected, when it goes on past resolve_fn: @rip, (from
 * fixup_fn) resolve_ret, then saver_ret, fp_ret, and the root.
 */
static int walk_resolve(const void *rip, int sp_word, uint64_t rbx, bool known, uint64_t *pcs,
			int *end)
{
	uint64_t stack[RESOLVE_WORDS];
	struct gp_unwind_remote r = {
		.rip = (uintptr_t)rip, .rsp = RESOLVE_BASE + 8 * (uint64_t)sp_word, .rbp = 0x1234,
		.rbx = rbx, .rbx_known = known,
		.stack = stack + sp_word, .stack_base = RESOLVE_BASE + 8 * (uint64_t)sp_word,
		.stack_len = sizeof(stack) - 8 * (size_t)sp_word, .lookup = lookup,
	};

	resolve_stack(stack);
	return gp_unwind__remote(&r, pcs, GP_UNWIND_MAX_DEPTH, end);
}

static void check_resolve(const void *rip, int sp_word, uint64_t rbx, bool known)
{
	const uint64_t want[] = { (uintptr_t)rip, (uintptr_t)resolve_ret, (uintptr_t)saver_ret,
				  (uintptr_t)fp_ret };
	bool in_fixup = rip != resolve_call;
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end = -1, n = walk_resolve(rip, sp_word, rbx, known, pcs, &end);

	if (n != 3 + in_fixup || end != GP_UNWIND_END_ROOT)
		print_stacks(pcs, n, NULL, 0);
	assert_int_equal(n, 3 + in_fixup);
	assert_true(pcs[0] == want[0]);
	for (int i = 1; i < n; i++)
		assert_true(pcs[i] == want[i + !in_fixup]);
	assert_int_equal(end, GP_UNWIND_END_ROOT);
}

/* Sampled in fixup_fn, its own value in rbx: the walk reaches fp_fn through resolve_fn. */
static void test_remote_rbx_cfa_callee(void **state)
{
	(void)state;
	check_resolve(fixup_body, 0, 0x5678, true);
	/* rbx not copied: fixup_fn's save of it is enough */
	check_resolve(fixup_body, 0, 0, false);
}

/*
 * Sampled in fixup_fn's epilogue, rbx popped (its CFI still says "saved",
 * as GCC's does): the popped slot is not in the copy, the register is
 * resolve_fn's again.
 */
static void test_remote_rbx_cfa_epilogue(void **state)
{
	(void)state;
	check_resolve(fixup_popped, 1, RESOLVE_RBX, true);
}

/* Sampled in resolve_fn itself, rsp aligned down: its CFA is rbx's. */
static void test_remote_rbx_cfa_trampoline(void **state)
{
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end = -1, n;

	(void)state;
	check_resolve(resolve_call, 2, RESOLVE_RBX, true);
	/* rbx not copied: the trampoline's frame cannot be found, and says so */
	n = walk_resolve(resolve_call, 2, 0, false, pcs, &end);
	assert_int_equal(n, 1);
	assert_int_equal(end, GP_UNWIND_END_UNSUPPORTED);
}

/* The rows of both: the CFA in rbx, and where each frame saved its caller's rbx. */
static void test_table_rbx_rows(void **state)
{
	struct gp_unwind_remote_mod m;
	const struct gp_cfi_row *row;

	(void)state;
	assert_int_equal(lookup(NULL, (uintptr_t)resolve_call, &m), 0);
	assert_non_null(m.table);
	row = cfi_table__find(m.table, (uintptr_t)resolve_call - m.bias);
	assert_int_equal(row->kind, GP_CFI_RBX);
	assert_int_equal(row->cfa_off, 32);
	assert_int_equal(row->arg, GP_CFI_RBX_AT(4));
	assert_int_equal(row->rbp_off, GP_CFI_RBP_SAME);
	row = cfi_table__find(m.table, (uintptr_t)fixup_body - m.bias);
	assert_int_equal(row->kind, GP_CFI_RSP);
	assert_int_equal(row->cfa_off, 16);
	assert_int_equal(row->arg, GP_CFI_RBX_AT(2));
	row = cfi_table__find(m.table, (uintptr_t)fixup_fn - m.bias);
	assert_int_equal(row->arg, GP_CFI_RBX_SAME);
}

/* ---- a signal in a frameless leaf: the registers a sample would see ---- */

struct leaf_run {
	volatile int flag;
	atomic_int ready;
	pthread_t thread;
	struct snap s;
};

static struct leaf_run *leaf_current;

void on_sigusr2(int sig, siginfo_t *si, void *ucv)
{
	struct leaf_run *lr = leaf_current;
	const ucontext_t *uc = ucv;
	Dl_info di;

	(void)sig;
	(void)si;
	if (lr->flag)
		return;
	if (!dladdr((void *)(uintptr_t)uc->uc_mcontext.gregs[REG_RIP], &di) || !di.dli_sname ||
	    strcmp(di.dli_sname, "lib_spin"))
		return;
	lr->s.rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	lr->s.rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	lr->s.rbp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	copy_stack(&lr->s, lr->s.rsp, COPY_MAX); /* malloc in a handler: the test's own thread, no lock held */
	lr->flag = 1;
}

int spin_cb(void *arg)
{
	struct leaf_run *lr = arg;
	int n;

	atomic_store(&lr->ready, 1);
	n = lib_spin(&lr->flag);
	__asm__ volatile("" : "+r"(n));
	return n;
}

void *spin_thread(void *arg)
{
	lib_run(spin_cb, arg);
	return NULL;
}

static void test_remote_leaf(void **state)
{
	struct leaf_run lr = { 0 };
	struct sigaction sa = { .sa_sigaction = on_sigusr2, .sa_flags = SA_SIGINFO }, old;
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int end, n;

	(void)state;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
	leaf_current = &lr;
	assert_int_equal(pthread_create(&lr.thread, NULL, spin_thread, &lr), 0);
	while (!atomic_load(&lr.ready))
		usleep(100);
	while (!lr.flag) {
		pthread_kill(lr.thread, SIGUSR2);
		usleep(1000);
	}
	pthread_join(lr.thread, NULL);
	sigaction(SIGUSR2, &old, NULL);

	n = unwind_snap(&lr.s, lookup, pcs, &end);
	if (end != GP_UNWIND_END_ROOT || n < 23)
		print_stacks(pcs, n, NULL, 0);
	assert_int_equal(end, GP_UNWIND_END_ROOT);
	assert_string_equal(sym(pcs[0]), "lib_spin");
	assert_string_equal(sym(pcs[1]), "spin_cb"); /* the leaf's caller, from rsp alone */
	assert_string_equal(sym(pcs[2]), "lib_f19");
	assert_string_equal(sym(pcs[21]), "lib_f0");
	assert_string_equal(sym(pcs[22]), "lib_run");
	assert_string_equal(sym(pcs[23]), "spin_thread");
	free(lr.s.buf);
}

static int setup(void **state)
{
	(void)state;
	U = gp_unwind__new();
	if (!U || gp_unwind__refresh(U) != 1)
		return -1;
	dl_iterate_phdr(add_mod, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < nmods; i++)
		cfi_table__free(mods[i].table);
	gp_unwind__free(U);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remote_equals_inprocess),
		cmocka_unit_test(test_remote_cut_copy),
		cmocka_unit_test(test_remote_unknown_module),
		cmocka_unit_test(test_remote_no_cfi_frame_pointer),
		cmocka_unit_test(test_remote_garbage),
		cmocka_unit_test(test_remote_leaf),
		cmocka_unit_test(test_remote_epilogue),
		cmocka_unit_test(test_remote_syscall_gap),
		cmocka_unit_test(test_remote_rbx_cfa_callee),
		cmocka_unit_test(test_remote_rbx_cfa_epilogue),
		cmocka_unit_test(test_remote_rbx_cfa_trampoline),
		cmocka_unit_test(test_table_rbx_rows),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
