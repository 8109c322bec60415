// SPDX-License-Identifier: Apache-2.0
/*
 * The in-process unwinder and its CFI tables on real code: a 20-deep chain
 * without frame pointers in a shared library and in this executable
 * (checked frame by frame against backtrace(), libgcc's unwinder), leaf
 * functions and signal frames (thread stack and sigaltstack), PLT stubs,
 * corrupt frame pointers and garbage stacks (no fault, ended, counted),
 * small-stack threads, dlopen/dlclose churn, eight threads at once.
 */

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
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
#include <sys/auxv.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfi_table.h"
#include "chain.h"
#include "gp_util.h"
#include "unwind.h"

CHAIN_DECLARE(lib_)
CHAIN_DECLARE(exe_)
int churn_call(chain_cb cb, void *arg);

#ifdef __SANITIZE_ADDRESS__
#define SLOW 4 /* fewer rounds: ASan makes each one slower */
#else
#define SLOW 1
#endif

static struct gp_unwind *U;

/* Exported (not static), so dladdr() names them in the frames checked. */
int capture_cb(void *arg);
void on_sigusr1(int sig, siginfo_t *si, void *ucv);
int spin_cb(void *arg);
void *sig_thread(void *arg);
void *chain_thread(void *arg);
int loop_cb(void *arg);
void *loop_thread(void *arg);
int churn_cb(void *arg);

/* ---- helpers ---- */

static const char *sym(uint64_t pc)
{
	Dl_info di;

	if (!pc || !dladdr((void *)(uintptr_t)(pc - 1), &di) || !di.dli_sname)
		return "?";
	return di.dli_sname;
}

/* Index of P##f19 in pcs, after checking P##f19 .. P##f0, P##run follow in order; -1 if not. */
static int chain_at(const uint64_t *pcs, int n, const char *p)
{
	char want[64];
	int i, k;

	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%sf19", p);
		if (strcmp(sym(pcs[i]), want))
			continue;
		for (k = 1; k <= CHAIN_DEPTH; k++) {
			if (k < CHAIN_DEPTH)
				snprintf(want, sizeof(want), "%sf%d", p, CHAIN_DEPTH - 1 - k);
			else
				snprintf(want, sizeof(want), "%srun", p);
			if (i + k >= n || strcmp(sym(pcs[i + k]), want))
				return -1;
		}
		return i;
	}
	return -1;
}

static int has_sym(const uint64_t *pcs, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(sym(pcs[i]), name))
			return 1;
	return 0;
}

/* The thread's stack bounds, as a frame-pointer walker would check them. */
static void stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	assert_int_equal(pthread_getattr_np(pthread_self(), &a), 0);
	assert_int_equal(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	*lo = (uintptr_t)addr;
	*hi = (uintptr_t)addr + size;
}

/* What a frame-pointer-only unwinder gets (this file is built with frame pointers). */
__attribute__((noinline, no_sanitize_address)) static int fp_walk(uint64_t *pcs, int max)
{
	uintptr_t bp = (uintptr_t)__builtin_frame_address(0), lo, hi, nbp;
	int n = 0;

	stack_bounds(&lo, &hi);
	while (n < max && bp >= lo && bp + 16 <= hi && !(bp & 7)) {
		uint64_t ra = ((const uint64_t *)bp)[1];

		if (!ra)
			break;
		pcs[n++] = ra;
		nbp = *(const uintptr_t *)bp;
		if (nbp <= bp)
			break;
		bp = nbp;
	}
	return n;
}

struct capture {
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	uint64_t bt[GP_UNWIND_MAX_DEPTH];
	uint64_t fp[GP_UNWIND_MAX_DEPTH];
	int n, end, nbt, nfp;
};

__attribute__((noinline)) int capture_cb(void *arg)
{
	struct capture *c = arg;

	c->n = gp_unwind__here(U, c->pcs, GP_UNWIND_MAX_DEPTH, &c->end);
	c->nbt = backtrace((void **)c->bt, GP_UNWIND_MAX_DEPTH);
	c->nfp = fp_walk(c->fp, GP_UNWIND_MAX_DEPTH);
	return c->n;
}

/*
 * Ours against backtrace() taken one call later in the same function: the
 * first frame differs (two call sites in capture_cb), every other is equal.
 */
static void assert_same_as_backtrace(const struct capture *c)
{
	int i, k = 0;

	/* under ASan, backtrace() is intercepted: skip the interceptor's frame */
	while (k < c->nbt && strcmp(sym(c->bt[k]), "capture_cb"))
		k++;
	if (c->end != GP_UNWIND_END_ROOT || c->n != c->nbt - k) {
		for (i = 0; i < c->n || i < c->nbt - k; i++)
			print_message("%2d %#18lx %-28s %#18lx %s\n", i,
				      (unsigned long)(i < c->n ? c->pcs[i] : 0), i < c->n ? sym(c->pcs[i]) : "",
				      (unsigned long)(i < c->nbt - k ? c->bt[i + k] : 0),
				      i < c->nbt - k ? sym(c->bt[i + k]) : "");
		fail_msg("ours: %d frames, ended %s; backtrace(): %d frames", c->n,
			 gp_unwind__end_name(c->end), c->nbt - k);
	}
	assert_string_equal(sym(c->pcs[0]), "capture_cb");
	for (i = 1; i < c->n; i++) {
		if (c->pcs[i] != c->bt[i + k])
			fail_msg("frame %d: ours %#lx (%s), backtrace %#lx (%s)", i, (unsigned long)c->pcs[i],
				 sym(c->pcs[i]), (unsigned long)c->bt[i + k], sym(c->bt[i + k]));
	}
}

struct mod_find {
	uintptr_t addr, bias;
	const ElfW(Phdr) *phdr;
	size_t phnum;
	const char *name;
};

static int mod_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mod_find *f = arg;
	size_t i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && f->addr >= info->dlpi_addr + ph->p_vaddr &&
		    f->addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz) {
			f->bias = info->dlpi_addr;
			f->phdr = info->dlpi_phdr;
			f->phnum = info->dlpi_phnum;
			f->name = info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

/* The in-memory table of the module holding `addr`, and that module's bias. */
static struct cfi_table *table_of(const void *addr, uintptr_t *bias)
{
	struct mod_find f = { .addr = (uintptr_t)addr };
	struct cfi_table *t = NULL;

	assert_int_equal(dl_iterate_phdr(mod_find_cb, &f), 1);
	assert_int_equal(cfi_table__from_phdrs(f.bias, f.phdr, f.phnum, &t), 0);
	*bias = f.bias;
	return t;
}

static const char *file_of(const void *addr)
{
	Dl_info di;

	assert_true(dladdr(addr, &di));
	return di.dli_fname;
}

static int setup(void **state)
{
	char buf[8];

	(void)state;
	backtrace((void **)buf, 1); /* libgcc_s loaded now, not in a signal handler */
	U = gp_unwind__new();
	if (!U || gp_unwind__refresh(U) != 1)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gp_unwind__free(U);
	return 0;
}

/* ---- tables ---- */

static void assert_tables_equal(const void *addr)
{
	struct cfi_table *mem, *file;
	const struct gp_cfi_row *a, *b;
	uint32_t na, nb, i;
	uintptr_t bias;

	mem = table_of(addr, &bias);
	assert_int_equal(cfi_table__from_file(file_of(addr), &file), 0);
	a = cfi_table__rows(mem, &na);
	b = cfi_table__rows(file, &nb);
	assert_true(na > 10);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++)
		assert_memory_equal(&a[i], &b[i], sizeof(a[i]));
	for (i = 1; i < na; i++)
		assert_true(a[i].start > a[i - 1].start);
	assert_int_equal(a[na - 1].kind, GP_CFI_NONE);
	cfi_table__free(mem);
	cfi_table__free(file);
}

/* A module's table from its mapping and from its file are the same rows. */
static void test_table_file_equals_memory(void **state)
{
	(void)state;
	assert_tables_equal((void *)lib_run);
	assert_tables_equal((void *)exe_run);
	assert_tables_equal((void *)getpid); /* libc */
}

/*
 * libc has glibc's signal trampoline (FDE 'S') and thread roots (undefined
 * RA); PLTs are recognised; ld.so's rbx-based CFAs are.
 */
static void test_table_special_rows(void **state)
{
	const struct gp_cfi_row *rows;
	struct cfi_table_stats st;
	struct cfi_table *t;
	uint32_t n, i;
	uintptr_t bias;

	(void)state;
	t = table_of((void *)getpid, &bias);
	cfi_table__stats(t, &st);
	assert_true(st.fdes > 1000);
	assert_true(st.rows_signal >= 1);
	assert_true(st.rows_end >= 1);
	assert_true(st.rows < st.fdes * 8); /* merged, not one row per instruction */
	cfi_table__free(t);

	t = table_of((void *)lib_run, &bias);
	cfi_table__stats(t, &st);
	assert_true(st.rows_plt >= 1);
	assert_int_equal(st.rows_unknown, 0);
	assert_int_equal(st.fdes_bad, 0);
	cfi_table__free(t);
	/* ld.so's lazy-binding trampolines find their CFA by rbx, which they saved */
	t = table_of((void *)getauxval(AT_BASE), &bias);
	rows = cfi_table__rows(t, &n);
	cfi_table__stats(t, &st);
	assert_true(st.rows_rbx >= 1);
	for (i = 0; i < n; i++)
		if (rows[i].kind == GP_CFI_RBX)
			assert_true(rows[i].arg != GP_CFI_RBX_SAME && rows[i].arg != GP_CFI_RBX_LOST);
	cfi_table__free(t);
}

/*
 * ld.so's _start has no FDE: a process preempted before its first
 * instruction is there, its outermost frame. The table read from the file
 * says so for that instruction alone.
 */
static void test_table_entry_point(void **state)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_BASE);
	struct cfi_table *t;

	(void)state;
	assert_non_null(eh);
	assert_int_equal(cfi_table__from_file(file_of(eh), &t), 0);
	assert_int_equal(cfi_table__find(t, eh->e_entry)->kind, GP_CFI_END);
	assert_int_equal(cfi_table__find(t, eh->e_entry + 1)->kind, GP_CFI_NONE);
	assert_int_not_equal(cfi_table__find(t, eh->e_entry - 1)->kind, GP_CFI_END);
	cfi_table__free(t);
}

/* A file whose CFI is only in .debug_frame: read from the file, absent from the mapping. */
static void test_table_debug_frame(void **state)
{
	void *h = dlopen(DBGFRAME_LIB, RTLD_NOW | RTLD_LOCAL);
	struct cfi_table *t;
	struct cfi_table_stats st;
	void *fn;
	uintptr_t bias;
	struct mod_find f;

	(void)state;
	assert_non_null(h);
	fn = dlsym(h, "dbgframe_work");
	assert_non_null(fn);
	f = (struct mod_find){ .addr = (uintptr_t)fn };
	assert_int_equal(dl_iterate_phdr(mod_find_cb, &f), 1);
	bias = f.bias;
	assert_int_equal(cfi_table__from_file(DBGFRAME_LIB, &t), 0);
	cfi_table__stats(t, &st);
	assert_true(st.fdes_debug >= 1);
	assert_int_equal(cfi_table__find(t, (uintptr_t)fn - bias)->kind, GP_CFI_RSP);
	assert_int_equal(cfi_table__find(t, (uintptr_t)fn - bias)->cfa_off, 8);
	cfi_table__free(t);
	t = NULL;
	if (cfi_table__from_phdrs(f.bias, f.phdr, f.phnum, &t) == 0) {
		assert_int_equal(cfi_table__find(t, (uintptr_t)fn - bias)->kind, GP_CFI_NONE);
		cfi_table__free(t);
	}
	dlclose(h);
}

/* ---- whole stacks ---- */

static void check_chain(int (*run)(chain_cb, void *), const char *prefix)
{
	struct capture c = { 0 };

	run(capture_cb, &c);
	assert_true(chain_at(c.pcs, c.n, prefix) == 1);
	assert_same_as_backtrace(&c);
	assert_true(has_sym(c.pcs, c.n, "main"));
	/* frame pointers alone lose the chain: rbp is a general register in it */
	assert_true(c.nfp < c.n);
	assert_int_equal(chain_at(c.fp, c.nfp, prefix), -1);
}

/* Through a shared library without frame pointers, its calls through PLT stubs. */
static void test_chain_shared_lib(void **state)
{
	(void)state;
	check_chain(lib_run, "lib_");
}

/* The same code compiled into the executable. */
static void test_chain_executable(void **state)
{
	(void)state;
	check_chain(exe_run, "exe_");
}

/* A PLT stub's CFA depends on where in the stub the pc is (ld's expression): both halves. */
static void test_plt_stub(void **state)
{
	struct cfi_table *t;
	const struct gp_cfi_row *rows;
	uint64_t fake[4], pcs[8];
	uintptr_t bias, plt = 0;
	uint32_t n, i;
	int end, k = 0;

	(void)state;
	t = table_of((void *)lib_run, &bias);
	rows = cfi_table__rows(t, &n);
	for (i = 0; i < n && !plt; i++)
		if (rows[i].kind == GP_CFI_PLT) {
			plt = bias + rows[i].start;
			assert_true(rows[i].arg == 11 || rows[i].arg == 10);
			assert_int_equal(plt & 15, 0);
			k = rows[i].arg;
		}
	assert_true(plt);
	fake[0] = (uintptr_t)lib_run + 4; /* return addresses: any pc in a known module */
	fake[1] = (uintptr_t)exe_run + 4;
	fake[2] = fake[3] = 0;
	/* before the push: the return address is at rsp */
	assert_true(gp_unwind__regs(U, plt, (uintptr_t)fake, 0, pcs, 2, &end) == 2);
	assert_int_equal(pcs[1], fake[0]);
	/* after the lazy stub's push: one word deeper */
	assert_true(gp_unwind__regs(U, plt + k, (uintptr_t)fake, 0, pcs, 2, &end) == 2);
	assert_int_equal(pcs[1], fake[1]);
	cfi_table__free(t);
}

/* DT_INIT or DT_FINI of the loaded library `file`, relocated; 0 if it has none. */
static uintptr_t dyn_fn(const char *file, long tag)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_NOLOAD);
	struct link_map *lm = NULL;
	const ElfW(Dyn) *d;
	uintptr_t fn = 0;

	assert_non_null(h);
	assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	for (d = lm->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			fn = lm->l_addr + d->d_un.d_ptr;
	dlclose(h);
	return fn;
}

/*
 * _init and _fini have no FDE, and ld.so runs a library's _init inside
 * dlopen(): a stack sampled there goes on to dlopen's caller. Their one
 * slot (`sub $8,%rsp` ... `add $8,%rsp; ret`) is known at each instruction.
 */
static void test_init_fini_frames(void **state)
{
	static const long tags[] = { DT_INIT, DT_FINI };
	uint64_t fake[4], pcs[4];
	size_t i;
	int end;

	(void)state;
	fake[0] = (uintptr_t)lib_run + 4;
	fake[1] = (uintptr_t)exe_run + 4;
	fake[2] = fake[3] = 0;
	for (i = 0; i < 2; i++) {
		const uint8_t *p = (const uint8_t *)dyn_fn(file_of((void *)lib_run), tags[i]);
		const uint8_t *body, *ret;

		assert_non_null(p);
		body = p + (p[0] == 0xf3 ? 4 : 0); /* endbr64 */
		assert_memory_equal(body, "\x48\x83\xec\x08", 4); /* sub $8,%rsp */
		body += 4;
		for (ret = body; memcmp(ret, "\x48\x83\xc4\x08\xc3", 5); ret++)
			assert_true(ret < body + 64);
		ret += 4;
		/* at entry the return address is at rsp */
		assert_int_equal(gp_unwind__regs(U, (uintptr_t)p, (uintptr_t)fake, 0, pcs, 2, &end), 2);
		assert_int_equal(pcs[1], fake[0]);
		/* in the body one slot is pushed */
		assert_int_equal(gp_unwind__regs(U, (uintptr_t)body, (uintptr_t)fake, 0, pcs, 2, &end), 2);
		assert_int_equal(pcs[1], fake[1]);
		assert_int_equal(gp_unwind__regs(U, (uintptr_t)ret - 4, (uintptr_t)fake, 0, pcs, 2, &end), 2);
		assert_int_equal(pcs[1], fake[1]);
		/* at the ret it is popped */
		assert_int_equal(gp_unwind__regs(U, (uintptr_t)ret, (uintptr_t)fake, 0, pcs, 2, &end), 2);
		assert_int_equal(pcs[1], fake[0]);
	}
}

/* ---- signals ---- */

struct sig_run {
	volatile int flag;
	int altstack;
	pthread_t thread;
	struct capture c;
	atomic_int ready;
};

static struct sig_run *sig_current;

void on_sigusr1(int sig, siginfo_t *si, void *ucv)
{
	struct sig_run *r = sig_current;
	const ucontext_t *uc = ucv;
	Dl_info di;

	(void)sig;
	(void)si;
	if (r->flag)
		return;
	/* only a signal that landed in the leaf itself (not on the way to it) */
	if (!dladdr((void *)(uintptr_t)uc->uc_mcontext.gregs[REG_RIP], &di) || !di.dli_sname ||
	    strcmp(di.dli_sname, "lib_spin"))
		return;
	capture_cb(&r->c);
	r->flag = 1;
}

int spin_cb(void *arg)
{
	struct sig_run *r = arg;

	int n;

	atomic_store(&r->ready, 1);
	n = lib_spin(&r->flag);
	__asm__ volatile("" : "+r"(n)); /* a frame of its own: no tail call */
	return n;
}

void *sig_thread(void *arg)
{
	struct sig_run *r = arg;
	stack_t ss = { 0 };

	gp_unwind__thread_init(); /* not in the handler: it allocates */
	if (r->altstack) {
		ss.ss_size = 64 << 10;
		ss.ss_sp = malloc(ss.ss_size);
		assert_non_null(ss.ss_sp);
		assert_int_equal(sigaltstack(&ss, NULL), 0);
	}
	lib_run(spin_cb, r);
	if (r->altstack) {
		stack_t off = { .ss_flags = SS_DISABLE };

		sigaltstack(&off, NULL);
		free(ss.ss_sp);
	}
	return NULL;
}

/*
 * A signal lands in a frameless leaf (lib_spin) under the chain; the
 * handler unwinds through the kernel's signal frame into the leaf, its
 * caller and the chain, to the thread's root, as backtrace() does.
 */
static void run_signal(int altstack)
{
	struct sig_run r = { .altstack = altstack };
	struct sigaction sa = { .sa_sigaction = on_sigusr1, .sa_flags = SA_SIGINFO | SA_ONSTACK }, old;
	int spin_at, i;

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	sig_current = &r;
	assert_int_equal(pthread_create(&r.thread, NULL, sig_thread, &r), 0);
	while (!atomic_load(&r.ready))
		usleep(100);
	while (!r.flag) {
		pthread_kill(r.thread, SIGUSR1);
		usleep(1000);
	}
	pthread_join(r.thread, NULL);
	sigaction(SIGUSR1, &old, NULL);

	assert_same_as_backtrace(&r.c);
	assert_string_equal(sym(r.c.pcs[1]), "on_sigusr1");
	spin_at = -1;
	for (i = 0; i < r.c.n; i++)
		if (!strcmp(sym(r.c.pcs[i]), "lib_spin"))
			spin_at = i;
	assert_true(spin_at >= 3); /* handler, __restore_rt, ..., the interrupted leaf */
	assert_string_equal(sym(r.c.pcs[spin_at + 1]), "spin_cb");
	assert_int_equal(chain_at(r.c.pcs, r.c.n, "lib_"), spin_at + 2);
	assert_true(has_sym(r.c.pcs, r.c.n, "sig_thread"));
}

static void test_signal_in_leaf(void **state)
{
	(void)state;
	run_signal(0);
}

static void test_signal_on_altstack(void **state)
{
	(void)state;
	run_signal(1);
}

/* ---- bad frames ---- */

/* A pc no FDE covers inside a module: the frame-pointer fallback. */
static uintptr_t find_gap(const void *in_module)
{
	struct cfi_table *t;
	const struct gp_cfi_row *rows;
	struct gp_unwind_module m;
	uintptr_t bias, pc = 0;
	uint32_t n, i;

	assert_int_equal(gp_unwind__module_at(U, (uintptr_t)in_module, &m), 0);
	t = table_of(in_module, &bias);
	rows = cfi_table__rows(t, &n);
	for (i = 0; i + 1 < n && !pc; i++)
		if (rows[i].kind == GP_CFI_NONE && bias + rows[i].start >= m.start &&
		    bias + rows[i + 1].start <= m.end && rows[i + 1].start - rows[i].start >= 1)
			pc = bias + rows[i].start;
	cfi_table__free(t);
	return pc;
}

/* Corrupt frame pointers, where the walk needs rbp: ended and counted, never a fault. */
static void test_corrupt_frame_pointer(void **state)
{
	struct gp_unwind_stats before, after;
	uint64_t pcs[8], frame[4];
	uintptr_t gap = find_gap((void *)getpid);
	uintptr_t sp = (uintptr_t)frame; /* the walk's rsp: below it is not the stack */
	uintptr_t bad[] = { 0, 1, 7, sp - 4096, sp - 8, UINTPTR_MAX - 7, 0x1000, (uintptr_t)-4096 };
	size_t i;
	int end;

	(void)state;
	assert_true(gap);
	gp_unwind__stats(U, &before);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(gp_unwind__regs(U, gap, (uintptr_t)frame, bad[i], pcs, 8, &end), 1);
		assert_true(end == GP_UNWIND_END_BAD_FRAME || end == GP_UNWIND_END_NO_FP);
	}
	gp_unwind__stats(U, &after);
	assert_int_equal(after.ends[GP_UNWIND_END_BAD_FRAME] + after.ends[GP_UNWIND_END_NO_FP],
			 before.ends[GP_UNWIND_END_BAD_FRAME] + before.ends[GP_UNWIND_END_NO_FP] + i);
	/* and a good frame pointer is followed: saved rbp 0, return address into the chain */
	frame[0] = 0;
	frame[1] = (uintptr_t)lib_run + 4;
	frame[2] = frame[3] = 0;
	assert_true(gp_unwind__regs(U, gap, (uintptr_t)frame, (uintptr_t)frame, pcs, 2, &end) == 2);
	assert_int_equal(pcs[1], (uintptr_t)lib_run + 4);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * The stack overwritten with garbage: random words, pointers into the
 * stack, pcs inside modules, from random pcs. Thousands of rounds; every
 * one ends with a reason, none faults.
 */
static void test_garbage_stack(void **state)
{
	uint64_t junk[512], pcs[GP_UNWIND_MAX_DEPTH];
	uintptr_t pcs_in[] = { (uintptr_t)lib_run, (uintptr_t)exe_run, (uintptr_t)getpid,
			       (uintptr_t)lib_spin, (uintptr_t)capture_cb, (uintptr_t)memcpy };
	uint64_t ends[GP_UNWIND_END__COUNT] = { 0 }, counted = 0;
	struct gp_unwind_stats before, after;
	int rounds = 20000 / SLOW, i, j, end, n;

	(void)state;
	gp_unwind__stats(U, &before);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < 512; j++) {
			switch (rnd() % 4) {
			case 0: junk[j] = rnd(); break;
			case 1: junk[j] = (uintptr_t)&junk[rnd() % 512] + (rnd() % 4 == 0 ? rnd() % 8 : 0); break;
			case 2: junk[j] = pcs_in[rnd() % 6] + rnd() % 4096; break;
			default: junk[j] = rnd() % 3 ? 0 : rnd() % 64; break;
			}
		}
		n = gp_unwind__regs(U, pcs_in[rnd() % 6] + rnd() % 2048,
				    (uintptr_t)&junk[rnd() % 480] + (rnd() % 8 == 0 ? 4 : 0), junk[rnd() % 512],
				    pcs, GP_UNWIND_MAX_DEPTH, &end);
		assert_true(n >= 1 && n <= GP_UNWIND_MAX_DEPTH);
		assert_true(end >= 0 && end < GP_UNWIND_END__COUNT);
		ends[end]++;
	}
	gp_unwind__stats(U, &after);
	for (j = 1; j < GP_UNWIND_END__COUNT; j++)
		counted += after.ends[j] - before.ends[j];
	assert_int_equal(counted, rounds - ends[GP_UNWIND_END_ROOT]);
	assert_true(ends[GP_UNWIND_END_BAD_FRAME] > 0);
	print_message("garbage: %d rounds: root %lu depth %lu unknown_module %lu bad_frame %lu "
		      "no_fp %lu unsupported %lu off_stack %lu\n", rounds,
		      (unsigned long)ends[0], (unsigned long)ends[1], (unsigned long)ends[2],
		      (unsigned long)ends[3], (unsigned long)ends[4], (unsigned long)ends[5],
		      (unsigned long)ends[6]);
}

/*
 * A signal trampoline's pc with the stack pointer just below the top of the
 * stack: the ucontext would lie past the top (unmapped, on the main thread).
 * Ended as a bad frame, nothing read.
 */
static void test_signal_frame_at_stack_top(void **state)
{
	struct cfi_table *t;
	const struct gp_cfi_row *rows;
	uintptr_t bias, lo, hi, tramp = 0;
	uint64_t pcs[4];
	uint32_t n, i;
	int end, off;

	(void)state;
	t = table_of((void *)getpid, &bias);
	rows = cfi_table__rows(t, &n);
	for (i = 0; i < n && !tramp; i++)
		if (rows[i].kind == GP_CFI_SIGNAL)
			tramp = bias + rows[i].start + 1; /* __restore_rt: one byte into its FDE */
	cfi_table__free(t);
	assert_true(tramp);
	stack_bounds(&lo, &hi);
	for (off = 8; off <= 160; off += 8) {
		assert_int_equal(gp_unwind__regs(U, tramp, hi - (uintptr_t)off, 0, pcs, 4, &end), 1);
		assert_int_equal(end, GP_UNWIND_END_BAD_FRAME);
	}
}

/* A stack pointer on no stack of this thread: ended as off_stack before any read. */
static void test_off_stack(void **state)
{
	static uint64_t elsewhere[64];
	uint64_t pcs[4];
	int end;

	(void)state;
	assert_int_equal(gp_unwind__regs(U, (uintptr_t)lib_run, (uintptr_t)&elsewhere[8], 0, pcs, 4,
					 &end), 0);
	assert_int_equal(end, GP_UNWIND_END_OFF_STACK);
}

/* ---- threads ---- */

void *chain_thread(void *arg)
{
	struct capture *c = arg;

	lib_run(capture_cb, c);
	return NULL;
}

/* A thread with a minimal stack: the whole chain, to the thread's root. */
static void test_small_stack_thread(void **state)
{
	struct capture *c = calloc(1, sizeof(*c));
	pthread_attr_t a;
	pthread_t t;
	size_t size = (size_t)sysconf(_SC_THREAD_STACK_MIN);

	(void)state;
	assert_non_null(c);
#ifdef __SANITIZE_ADDRESS__
	size *= 4; /* ASan's frames are larger */
#endif
	pthread_attr_init(&a);
	assert_int_equal(pthread_attr_setstacksize(&a, size), 0);
	assert_int_equal(pthread_create(&t, &a, chain_thread, c), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&a);
	struct capture got = *c;

	free(c);
	assert_same_as_backtrace(&got);
	assert_int_equal(chain_at(got.pcs, got.n, "lib_"), 1);
	assert_true(has_sym(got.pcs, got.n, "chain_thread"));
}

struct loop {
	struct capture ref;
	atomic_int *stop;
	int rounds, bad;
};

int loop_cb(void *arg)
{
	struct loop *l = arg;
	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
	int i, n, end;

	l->ref.n = gp_unwind__here(U, l->ref.pcs, GP_UNWIND_MAX_DEPTH, &l->ref.end);
	for (i = 0; l->stop ? !atomic_load(l->stop) : i < l->rounds; i++) {
		n = gp_unwind__here(U, pcs, GP_UNWIND_MAX_DEPTH, &end);
		/* same call site as ref, one line later: frames 1.. equal */
		if (n != l->ref.n || end != GP_UNWIND_END_ROOT ||
		    memcmp(pcs + 1, l->ref.pcs + 1, (size_t)(n - 1) * sizeof(pcs[0])))
			l->bad++;
	}
	return 0;
}

void *loop_thread(void *arg)
{
	struct loop *l = arg;

	lib_run(loop_cb, l);
	return NULL;
}

/* Eight threads unwinding at once: every stack whole and identical to the thread's first. */
static void test_threads_concurrent(void **state)
{
	struct loop l[8] = { 0 };
	pthread_t t[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		l[i].rounds = 20000 / SLOW;
		assert_int_equal(pthread_create(&t[i], NULL, loop_thread, &l[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(l[i].bad, 0);
		assert_int_equal(l[i].ref.end, GP_UNWIND_END_ROOT);
		assert_int_equal(chain_at(l[i].ref.pcs, l[i].ref.n, "lib_"), 1);
		assert_true(has_sym(l[i].ref.pcs, l[i].ref.n, "loop_thread"));
	}
}

int churn_cb(void *arg)
{
	struct capture *c = arg;

	c->n = gp_unwind__here(U, c->pcs, GP_UNWIND_MAX_DEPTH, &c->end);
	return c->n;
}

/*
 * dlopen/dlclose of a library in a loop, with a refresh after each, while
 * two threads unwind without pause: no fault (also under ASan: retired
 * arrays and tables are never freed under a reader), every stack whole.
 * A stack through the library before the refresh that knows it ends as
 * unknown_module and is counted.
 */
static void test_dlopen_churn(void **state)
{
	atomic_int stop = 0;
	struct loop l[2] = { { .stop = &stop }, { .stop = &stop } };
	struct gp_unwind_stats before, after;
	struct capture c;
	pthread_t t[2];
	int (*call)(chain_cb, void *);
	int i, rounds = 200 / SLOW, unknown = 0;

	(void)state;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, loop_thread, &l[i]), 0);
	gp_unwind__stats(U, &before);
	for (i = 0; i < rounds; i++) {
		void *h = dlopen(CHURN_LIB, RTLD_NOW | RTLD_LOCAL);

		assert_non_null(h);
		call = (int (*)(chain_cb, void *))dlsym(h, "churn_call");
		assert_non_null(call);
		if (i % 2) {
			/* not refreshed yet: the library's frame is unknown */
			call(churn_cb, &c);
			unknown += c.end == GP_UNWIND_END_UNKNOWN_MODULE;
		}
		assert_true(gp_unwind__refresh(U) >= 0);
		call(churn_cb, &c);
		assert_int_equal(c.end, GP_UNWIND_END_ROOT);
		assert_string_equal(sym(c.pcs[1]), "churn_call");
		assert_int_equal(dlclose(h), 0);
		assert_true(gp_unwind__refresh(U) >= 0);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(l[i].bad, 0);
	}
	gp_unwind__stats(U, &after);
	assert_int_equal(unknown, rounds / 2);
	assert_true(after.ends[GP_UNWIND_END_UNKNOWN_MODULE] -
			    before.ends[GP_UNWIND_END_UNKNOWN_MODULE] >= (uint64_t)unknown);
	assert_true(after.rebuilds - before.rebuilds >= (uint64_t)rounds);
	/* one table for the library, however often it came back */
	assert_int_equal(after.tables - before.tables, 1);
}

/* A refresh with nothing loaded or unloaded since the last one does nothing. */
static void test_refresh_unchanged(void **state)
{
	struct gp_unwind_stats st;

	(void)state;
	gp_unwind__refresh(U);
	assert_int_equal(gp_unwind__refresh(U), 0);
	gp_unwind__stats(U, &st);
	assert_true(st.modules >= 4); /* exe, chain lib, libc, ld.so, vdso... */
	assert_int_equal(st.table_errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_file_equals_memory),
		cmocka_unit_test(test_table_special_rows),
		cmocka_unit_test(test_table_entry_point),
		cmocka_unit_test(test_table_debug_frame),
		cmocka_unit_test(test_chain_shared_lib),
		cmocka_unit_test(test_chain_executable),
		cmocka_unit_test(test_plt_stub),
		cmocka_unit_test(test_init_fini_frames),
		cmocka_unit_test(test_signal_in_leaf),
		cmocka_unit_test(test_signal_on_altstack),
		cmocka_unit_test(test_corrupt_frame_pointer),
		cmocka_unit_test(test_garbage_stack),
		cmocka_unit_test(test_signal_frame_at_stack_top),
		cmocka_unit_test(test_off_stack),
		cmocka_unit_test(test_small_stack_thread),
		cmocka_unit_test(test_threads_concurrent),
		cmocka_unit_test(test_dlopen_churn),
		cmocka_unit_test(test_refresh_unchanged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
