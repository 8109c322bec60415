/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unwind.h - an in-process stack unwinder for x86-64 Linux that never
 * faults, never allocates and never locks on its unwind path, for code that
 * runs as a guest on someone else's thread (a CUPTI callback on every
 * launch).
 *
 *	struct gp_unwind *u = gp_unwind__new();
 *	gp_unwind__refresh(u);		// off the hot path: at start, at module loads
 *	...
 *	uint64_t pcs[GP_UNWIND_MAX_DEPTH];
 *	int end, n = gp_unwind__here(u, pcs, GP_UNWIND_MAX_DEPTH, &end);
 *
 * How: every module mapped in the process gets a CFI table (cfi_table.h)
 * built by gp_unwind__refresh(); the walk looks each pc up in them (binary
 * searches over immutable arrays published with an atomic pointer) and
 * falls back to the frame pointer where a module has no CFI.
 *
 * Frames: pcs[0] is the return address into gp_unwind__here()'s caller,
 * then each caller's return address, outermost last. A pc after a signal
 * frame is the interrupted instruction itself, not a return address; the
 * signal trampoline (__restore_rt) appears as a frame of its own, as in
 * backtrace().
 *
 * Safety: the only memory read besides our tables is the stack, and only
 * between the current frame's stack pointer and the top of the stack it is
 * on (the thread's stack, or its sigaltstack while a handler runs there), 8
 * bytes aligned; each caller's CFA must lie above its callee's. A frame that
 * fails a check ends the stack with a reason (GP_UNWIND_END_*); depth is
 * bounded by GP_UNWIND_MAX_DEPTH.
 *
 * Threads: gp_unwind__here() and gp_unwind__regs() may run on any number
 * of threads at once, concurrently with gp_unwind__refresh() (refreshes
 * serialize on a mutex of their own). The first unwind on a thread reads
 * its stack bounds (pthread_getattr_np: allocates, and reads
 * /proc/self/maps on the main thread); call gp_unwind__thread_init() first
 * on a thread whose first unwind may be in a signal handler.
 *
 * Each thread also keeps a cache of 512 looked-up pcs (8 KiB, allocated
 * with its stack bounds, freed at its exit): the frames under a launch
 * repeat, and a hit costs one compare instead of two binary searches.
 *
 * Memory: a table is built once per module (by build id) and never freed
 * before gp_unwind__free(), nor is a replaced module array: an unwind on
 * another thread may still be reading it, and knowing when none is would
 * cost every unwind a shared write. A library dlopen'ed again reuses its
 * table; each refresh that sees a change keeps one retired array (about 64
 * bytes per module).
 */
#ifndef GPUPERF_UNWIND_UNWIND_H
#define GPUPERF_UNWIND_UNWIND_H

#include <stdint.h>

#define GP_UNWIND_MAX_DEPTH 128

/* Why a stack ended. ROOT is the only clean end; every other is counted. */
#define GP_UNWIND_END_ROOT		0 /* the thread's outermost frame (_start, clone3) or a 0 return address */
#define GP_UNWIND_END_DEPTH		1 /* `max` frames written and the stack goes on */
#define GP_UNWIND_END_UNKNOWN_MODULE	2 /* a pc in no module the last refresh saw (JIT code, a new dlopen) */
#define GP_UNWIND_END_BAD_FRAME		3 /* a read off the stack, a CFA not above its callee's, an rbp lost */
#define GP_UNWIND_END_NO_FP		4 /* no CFI for the pc and rbp is 0 */
#define GP_UNWIND_END_UNSUPPORTED	5 /* CFI the table cannot express (GP_CFI_UNKNOWN; RBX, no rbx) */
#define GP_UNWIND_END_OFF_STACK		6 /* the stack pointer is on no stack of this thread we know */
#define GP_UNWIND_END_NO_TABLES		7 /* gp_unwind__refresh() never succeeded */
#define GP_UNWIND_END_SHORT_COPY	8 /* remote: a read above a stack copy cut at its size limit */
#define GP_UNWIND_END__COUNT		9

struct gp_unwind;

struct gp_unwind_stats {
	uint64_t ends[GP_UNWIND_END__COUNT]; /* unwinds per end reason; ends[ROOT] is not counted (0) */
	uint64_t refreshes;	/* gp_unwind__refresh() calls */
	uint64_t rebuilds;	/* of those, the ones that saw a module change */
	uint32_t modules;	/* modules in the current array */
	uint32_t modules_no_cfi; /* of those, with no table (frame pointers only) */
	uint32_t tables;	/* tables built since gp_unwind__new() */
	uint32_t table_errors;	/* modules whose table could not be built (frame pointers used) */
	uint64_t table_bytes;	/* memory held by tables */
};

/* A mapped module as the unwinder knows it (for recording mappings). */
struct gp_unwind_module {
	uint64_t start, end;	/* its executable address range */
	uint64_t bias;		/* load bias: ELF vaddr = address - bias */
	const char *path;	/* as the loader names it ("" for the executable); valid until __free */
	uint8_t build_id[20];
	uint8_t build_id_len;	/* 0: none */
	uint8_t has_cfi;
};

/* NULL with errno set on failure. */
struct gp_unwind *gp_unwind__new(void);
/* Frees every table and array; no unwind may be running. Accepts NULL. */
void gp_unwind__free(struct gp_unwind *u);

/*
 * Bring the module array up to date with dl_iterate_phdr: build tables for
 * new modules, publish a new array. Cheap (one dl_iterate_phdr step) when
 * the loader's dlpi_adds/dlpi_subs have not changed. Returns 1 when a new
 * array was published, 0 when nothing changed, -errno on failure (the old
 * array stays). Allocates and locks: never on the hot path, never in a
 * signal handler.
 */
int gp_unwind__refresh(struct gp_unwind *u);

/* Read the calling thread's stack bounds now (see Threads above). 0 or -errno. */
int gp_unwind__thread_init(void);

/*
 * Unwind the calling thread from gp_unwind__here()'s caller: at most `max`
 * (<= GP_UNWIND_MAX_DEPTH) pcs into `pcs`. Returns the number written;
 * *end (may be NULL) gets GP_UNWIND_END_*.
 */
int gp_unwind__here(struct gp_unwind *u, uint64_t *pcs, int max, int *end);

/*
 * Unwind from given registers of the calling thread (e.g. a signal
 * handler's ucontext): pcs[0] = rip, taken as the exact pc (not a return
 * address). rsp must be on the calling thread's stack or active sigaltstack.
 */
int gp_unwind__regs(struct gp_unwind *u, uint64_t rip, uint64_t rsp, uint64_t rbp,
		    uint64_t *pcs, int max, int *end);

/* The module holding `pc` in the current array: 0, or -ENOENT. Lock-free. */
int gp_unwind__module_at(struct gp_unwind *u, uint64_t pc, struct gp_unwind_module *out);

void gp_unwind__stats(struct gp_unwind *u, struct gp_unwind_stats *st);
/* "root", "depth", "unknown_module", ...: for summaries. */
const char *gp_unwind__end_name(int end);

#endif /* GPUPERF_UNWIND_UNWIND_H */
