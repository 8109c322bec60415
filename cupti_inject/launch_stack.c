// SPDX-License-Identifier: Apache-2.0
/* launch_stack: each launch's stack, taken on its thread, handed to the writer through per-thread rings. */

#include "launch_stack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gp_alloc.h"
#include "gp_record.h"
#include "gp_util.h"
#include "gp_writer.h"
#include "inject_log.h"
#include "static_cudart.h"
#include "unwind.h"

/*
 * Rings: LS_RINGS threads launch at once at most (a ring is given back when
 * its thread exits), each ring LS_RING_WORDS 8-byte words (1 MiB): at one
 * word per call from a known place (two a launch: the runtime call and its
 * driver call), 64k launches between two writer passes (launch-bound,
 * ~0.1 s), and the writer is woken at a quarter.
 * Only the pages a thread writes become resident.
 */
#define LS_RINGS 128u
#define LS_RING_WORDS (1u << 17)
#define LS_KNOWN 256u /* per-thread cache of stacks handed over, by hash */
#define LS_DEPTH 128  /* frames walked at most */

/*
 * Entry: w0 = corr | n << 32 | flags << 48 | slot << 56. With LS_E_FULL,
 * w1 = the frames' hash and n frames follow; without, the entry is that one
 * word and names the stack the thread last handed over in its known-cache
 * slot `slot` (the writer keeps the same cache: the ring is in order).
 */
#define LS_E_PAD 0x1u	    /* the ring's rest is unused: go on at word 0 */
#define LS_E_NESTED 0x2u    /* a driver call inside a runtime call */
#define LS_E_TRUNCATED 0x4u /* the walk stopped at a frame it could not read */
#define LS_E_FULL 0x8u	    /* hash and frames follow */

enum { RING_FREE, RING_USED, RING_RETIRED };

struct ls_ring {
	_Atomic uint64_t head; /* words written; the producer's */
	char pad0[56];
	_Atomic uint64_t tail; /* words read; the writer's */
	_Atomic int state;     /* RING_* */
	_Atomic int wake_armed;
	_Atomic uint64_t lost; /* entries that did not fit */
	char pad1[32];
	uint64_t known[LS_KNOWN]; /* the producer's: hashes handed over, by slot */
	uint64_t wknown[LS_KNOWN]; /* the writer's copy, as it reads the entries */
	uint64_t w[LS_RING_WORDS];
};

/* The launching thread's state. */
struct ls_tls {
	struct ls_ring *r;
	uintptr_t stk_lo, stk_hi; /* its stack, read at its first launch */
	int gone;		  /* its ring was given back: the thread is exiting */
	int depth;		  /* runtime calls entered and not left */
	uint64_t outer_hash;	  /* the outermost runtime call's stack (0: lost) */
	uint32_t rt_corr[8];	  /* the correlation ids of those calls, outermost first */
};
static __thread struct ls_tls T;

/* ---- launch path ---------------------------------------------------- */

/*
 * Checked frame-pointer walk: every read lies inside the thread's stack,
 * 8-byte aligned, and each frame is above the one before. It stops at the
 * first frame whose code keeps no frame pointer (CUDA's libraries), so it
 * serves only GPUPERF_STACKS_FP=1, for comparison. Frame pointers in this
 * file: the walk starts at its own frame.
 */
static __attribute__((noinline)) int fp_walk(uint64_t *pcs, int max, int *end)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t lo = (uintptr_t)&fp, hi = T.stk_hi;
	int n = 0;

	*end = 1;
	while (n < max) {
		const uint64_t *f = (const uint64_t *)fp;
		uintptr_t next;

		if (fp < lo || fp > hi - 16 || (fp & 7))
			return n; /* off the stack: truncated */
		if (!f[1]) {
			*end = 0;
			return n;
		}
		pcs[n++] = f[1];
		next = (uintptr_t)f[0];
		if (!next) {
			*end = 0;
			return n;
		}
		if (next <= fp)
			return n;
		fp = next;
	}
	return n;
}

/*
 * CFI tables of every module (unwind.h): through libcuda, libcudart and
 * CUPTI, which keep no frame pointers; frame pointers only where a module
 * has no CFI. A stack ended by anything but its outermost frame (a frame
 * that cannot be read, a pc in a module loaded since the last refresh) is
 * kept as far as it goes and flagged truncated.
 */
int launch_stack__capture(struct launch_stack *ls, uint64_t *pcs, int max, int *end)
{
	int n;

	if (ls->fp_only || !ls->unw)
		return fp_walk(pcs, max, end);
	n = gp_unwind__here(ls->unw, pcs, max, end);
	/*
	 * Code the tables do not know yet (a library dlopen'ed since the last
	 * refresh): have the writer refresh them and record the module while
	 * it is mapped; this stack stays as far as it got.
	 */
	if (*end == GP_UNWIND_END_UNKNOWN_MODULE &&
	    !atomic_exchange_explicit(&ls->refresh_wanted, 1,
				      memory_order_relaxed)) {
		uint64_t one = 1;

		if (write(ls->wake_fd, &one, sizeof(one)) < 0) {
			/* saturated: the writer is awake anyway */
		}
	}
	*end = *end != GP_UNWIND_END_ROOT;
	return n;
}

static inline int in_skip(const struct launch_stack *ls, uint64_t pc)
{
	unsigned i;

	for (i = 0; i < ls->nskip; i++)
		if (pc >= ls->skip[i].lo && pc < ls->skip[i].hi)
			return 1;
	return 0;
}

/*
 * The calling thread's stack bounds, for both walks. Allocates, and on the
 * main thread reads /proc/self/maps: once per thread, at its first launch,
 * or at start-up for the thread that initializes CUDA (usually the one that
 * launches).
 */
static int thread_bounds(const struct launch_stack *ls)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (T.stk_hi)
		return 0;
	if (pthread_getattr_np(pthread_self(), &a))
		return -1;
	if (!pthread_attr_getstack(&a, &addr, &size)) {
		T.stk_lo = (uintptr_t)addr;
		T.stk_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
	if (!T.stk_hi)
		return -1;
	if (ls->unw)
		gp_unwind__thread_init();
	return 0;
}

static __attribute__((noinline)) struct ls_ring *claim_ring(struct launch_stack *ls)
{
	unsigned i;

	if (T.gone || !ls->rings || thread_bounds(ls))
		return NULL;
	for (i = 0; i < ls->nrings; i++) {
		struct ls_ring *r = &ls->rings[i];
		int want = RING_FREE;

		if (atomic_load_explicit(&r->state, memory_order_relaxed) == RING_FREE &&
		    atomic_compare_exchange_strong(&r->state, &want, RING_USED)) {
			T.r = r;
			/* given back at thread exit (the key's destructor) */
			pthread_setspecific(ls->key, r);
			return r;
		}
	}
	return NULL;
}

static void ring_destructor(void *p)
{
	struct ls_ring *r = p;

	T.r = NULL;
	T.gone = 1;
	atomic_store_explicit(&r->state, RING_RETIRED, memory_order_release);
}

/* Append one entry; 0, or -ENOBUFS when the ring has no room. */
static inline int ring_push(struct launch_stack *ls, struct ls_ring *r, uint64_t w0, uint64_t hash,
			    const uint64_t *frames, unsigned n)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	int full = (w0 >> 48) & LS_E_FULL;
	uint64_t pos = head % LS_RING_WORDS, need = full ? 2 + n : 1, pad = 0;

	if (pos + need > LS_RING_WORDS)
		pad = LS_RING_WORDS - pos;
	if (head + pad + need - tail > LS_RING_WORDS) {
		atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed);
		return -ENOBUFS;
	}
	if (pad) {
		r->w[pos] = (uint64_t)LS_E_PAD << 48;
		pos = 0;
	}
	r->w[pos] = w0;
	if (full) {
		r->w[pos + 1] = hash;
		memcpy(&r->w[pos + 2], frames, 8 * n);
	}
	head += pad + need;
	atomic_store_explicit(&r->head, head, memory_order_release);
	if (head - tail >= LS_RING_WORDS / 4 &&
	    !atomic_exchange_explicit(&r->wake_armed, 1, memory_order_relaxed)) {
		uint64_t one = 1;

		if (write(ls->wake_fd, &one, sizeof(one)) < 0) {
			/* saturated: the writer is awake anyway */
		}
	}
	return 0;
}

void launch_stack__enter(struct launch_stack *ls, int runtime, uint32_t corr)
{
	uint64_t pcs[LS_DEPTH], h;
	struct ls_ring *r = T.r;
	unsigned k, n, flags = 0;
	int nw, end, nested = !runtime && T.depth > 0;

	/*
	 * Real CUPTI (CUDA 13.0, driver 580) gives a driver call made inside a
	 * runtime call the runtime call's correlation id, though the header
	 * says each invocation has its own: that call's record is the runtime
	 * call's, already written.
	 */
	if (nested && T.depth <= (int)ARRAY_SIZE(T.rt_corr) && T.rt_corr[T.depth - 1] == corr)
		return;
	if (runtime) {
		if (T.depth < (int)ARRAY_SIZE(T.rt_corr))
			T.rt_corr[T.depth] = corr;
		if (T.depth++)
			nested = 1; /* a runtime call inside another: its outer stack too */
	}
	if (!r) {
		r = claim_ring(ls);
		if (!r) {
			atomic_fetch_add_explicit(&ls->no_ring, 1, memory_order_relaxed);
			if (runtime && T.depth == 1)
				T.outer_hash = 0;
			return;
		}
	}
	if (nested) {
		/* the outer call's stack, handed over just before */
		if (T.outer_hash)
			ring_push(ls, r,
				  corr | (uint64_t)LS_E_NESTED << 48 |
					  (uint64_t)(T.outer_hash % LS_KNOWN) << 56,
				  0, NULL, 0);
		else
			atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed);
		return;
	}
	nw = launch_stack__capture(ls, pcs, LS_DEPTH, &end);
	/* Frame 0 is the outermost of CUDA's (and our) frames, the entry point called. */
	for (k = 0; k < (unsigned)nw && in_skip(ls, pcs[k]); k++)
		;
	k = k ? k - 1 : 0;
	n = (unsigned)nw - k;
	if (n > GP_STACK_MAX_DEPTH) {
		n = GP_STACK_MAX_DEPTH; /* what a trace holds; the outermost frames go */
		end = 1;
	}
	if (end)
		flags |= LS_E_TRUNCATED;
	h = gp_mix64(0x9e3779b97f4a7c15ull ^ ((uint64_t)n << 8 | flags));
	for (unsigned i = 0; i < n; i++)
		h = gp_mix64(h ^ pcs[k + i]);
	h |= !h; /* 0 means "lost" */
	if (r->known[h % LS_KNOWN] == h) {
		if (ring_push(ls, r, corr | (uint64_t)flags << 48 | (h % LS_KNOWN) << 56, h, NULL, 0))
			h = 0;
	} else if (!ring_push(ls, r,
			      corr | (uint64_t)n << 32 | (uint64_t)(flags | LS_E_FULL) << 48 |
				      (h % LS_KNOWN) << 56,
			      h, pcs + k, n)) {
		r->known[h % LS_KNOWN] = h;
	} else {
		h = 0;
	}
	if (runtime)
		T.outer_hash = h;
}

void launch_stack__exit_runtime(void)
{
	if (T.depth > 0)
		T.depth--;
}

/* ---- writer side ---------------------------------------------------- */

/* Every distinct stack by hash: open addressing, frames in one pool. */
struct ls_ent {
	uint64_t hash; /* 0: empty */
	uint32_t off;
	uint16_t n;
	uint16_t flags;
};

struct ls_map {
	struct ls_ent *e;
	size_t cap, nr;
	uint64_t *frames;
	size_t nframes, cap_frames;
};

#define LS_MAP_MAX (1u << 20)	 /* distinct stacks kept at most */
#define LS_FRAMES_MAX (1u << 24) /* frames kept at most (128 MiB) */

static struct ls_ent *map_find(struct ls_map *m, uint64_t h)
{
	size_t j;

	if (!m->cap)
		return NULL;
	for (j = gp_mix64(h) & (m->cap - 1); m->e[j].hash; j = (j + 1) & (m->cap - 1))
		if (m->e[j].hash == h)
			return &m->e[j];
	return NULL;
}

static int map_grow(struct ls_map *m)
{
	size_t ncap = m->cap ? 2 * m->cap : 1024, i, j;
	struct ls_ent *ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->e[i].hash)
			continue;
		for (j = gp_mix64(m->e[i].hash) & (ncap - 1); ne[j].hash; j = (j + 1) & (ncap - 1))
			;
		ne[j] = m->e[i];
	}
	free(m->e);
	m->e = ne;
	m->cap = ncap;
	return 0;
}

static struct ls_ent *map_add(struct ls_map *m, uint64_t h, const uint64_t *frames, unsigned n,
			      unsigned flags)
{
	struct ls_ent *e = map_find(m, h);
	size_t j;

	if (e)
		return e;
	if (m->nr >= LS_MAP_MAX || m->nframes + n > LS_FRAMES_MAX)
		return NULL;
	if (2 * (m->nr + 1) > m->cap && map_grow(m))
		return NULL;
	if (GP_ALLOC_GROW(m->frames, m->nframes + n, m->cap_frames))
		return NULL;
	for (j = gp_mix64(h) & (m->cap - 1); m->e[j].hash; j = (j + 1) & (m->cap - 1))
		;
	e = &m->e[j];
	e->hash = h;
	e->off = (uint32_t)m->nframes;
	e->n = (uint16_t)n;
	e->flags = (uint16_t)flags;
	memcpy(m->frames + m->nframes, frames, 8 * n);
	m->nframes += n;
	m->nr++;
	return e;
}

static void write_one(struct launch_stack *ls, struct gp_writer *w, uint32_t corr,
		      const struct ls_ent *e, unsigned flags)
{
	struct gp_rec_api_stack *s = gp_writer__reserve(w, GP_REC_API_STACK, sizeof(*s));

	if (!s)
		return;
	s->correlation_id = corr;
	s->stack_id = gp_writer__intern_stack(w, ls->map->frames + e->off, e->n, 0);
	s->hdr.flags = (uint16_t)(((flags & LS_E_NESTED) ? GP_API_STACK_NESTED : 0) |
				  ((e->flags & LS_E_TRUNCATED) ? GP_API_STACK_TRUNCATED : 0));
	gp_writer__commit(w);
	ls->written++;
	ls->truncated += !!(e->flags & LS_E_TRUNCATED);
}

static void drain_ring(struct launch_stack *ls, struct ls_ring *r, struct gp_writer *w)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	while (tail < head) {
		uint64_t pos = tail % LS_RING_WORDS, w0 = r->w[pos], h;
		unsigned flags = (unsigned)(w0 >> 48) & 0xff, slot = (unsigned)(w0 >> 56) % LS_KNOWN;
		unsigned n = (unsigned)(w0 >> 32) & 0xffff;
		const struct ls_ent *e;

		if (flags & LS_E_PAD) {
			tail += LS_RING_WORDS - pos;
			continue;
		}
		if (flags & LS_E_FULL) {
			h = r->w[pos + 1];
			r->wknown[slot] = h;
			e = map_add(ls->map, h, &r->w[pos + 2], n, flags);
			tail += 2 + n;
		} else {
			h = r->wknown[slot];
			e = h ? map_find(ls->map, h) : NULL;
			tail += 1;
		}
		if (e)
			write_one(ls, w, (uint32_t)w0, e, flags);
		else
			ls->lost_unknown++; /* out of memory, or the frames were lost */
	}
	atomic_store_explicit(&r->tail, tail, memory_order_release);
	atomic_store_explicit(&r->wake_armed, 0, memory_order_relaxed);
}

void launch_stack__drain(struct launch_stack *ls, struct gp_writer *w)
{
	unsigned i;

	if (!ls->rings || !ls->map || !w)
		return;
	/* tables for modules loaded since (one dl_iterate_phdr step when nothing changed) */
	atomic_store_explicit(&ls->refresh_wanted, 0, memory_order_relaxed);
	if (ls->unw)
		gp_unwind__refresh(ls->unw);
	for (i = 0; i < ls->nrings; i++) {
		struct ls_ring *r = &ls->rings[i];
		int st = atomic_load_explicit(&r->state, memory_order_acquire);

		if (st == RING_FREE)
			continue;
		drain_ring(ls, r, w);
		if (st == RING_RETIRED) {
			/* its thread is gone: what it wrote is read; free for the next one */
			drain_ring(ls, r, w);
			ls->lost_full += atomic_exchange(&r->lost, 0);
			atomic_store(&r->head, 0);
			atomic_store(&r->tail, 0);
			memset(r->known, 0, sizeof(r->known));
			memset(r->wknown, 0, sizeof(r->wknown));
			atomic_store_explicit(&r->state, RING_FREE, memory_order_release);
		}
	}
}

size_t launch_stack__nr_stacks(const struct launch_stack *ls)
{
	return ls->map ? ls->map->nr : 0;
}

void launch_stack__counters(struct launch_stack *ls, struct gp_writer *w, uint64_t ts)
{
	uint64_t lost;
	unsigned i;
	struct gp_rec_dropped *d;
	struct {
		uint64_t *n;
		uint32_t cause;
	} c[3];

	if (!ls->rings || !w)
		return;
	for (i = 0; i < ls->nrings; i++)
		ls->lost_full += atomic_exchange(&ls->rings[i].lost, 0);
	ls->lost_no_ring += atomic_exchange(&ls->no_ring, 0);
	c[0].n = &ls->lost_full;	/* a ring full: the writer fell behind */
	c[0].cause = ENOBUFS;
	c[1].n = &ls->lost_no_ring;	/* more launching threads than rings */
	c[1].cause = EUSERS;
	c[2].n = &ls->lost_unknown;	/* the writer's memory */
	c[2].cause = ENOMEM;
	for (i = 0; i < 3; i++) {
		lost = *c[i].n;
		if (!lost)
			continue;
		d = gp_writer__reserve(w, GP_REC_DROPPED, sizeof(*d));
		if (!d)
			return;
		d->ts = ts;
		d->count = lost;
		d->source = GP_DROP_STACK;
		d->cause = c[i].cause;
		gp_writer__commit(w);
		*c[i].n = 0;
	}
}

/* ---- modules -------------------------------------------------------- */

struct ls_mod {
	uint64_t start, end, pgoff, inode;
};

/* A module's exec ranges and build id, read while the loader cannot unmap it. */
struct dl_mod {
	uintptr_t lo, hi;
	uint8_t bid[20];
	uint8_t bid_len;
};

struct dl_scan {
	struct dl_mod m[512];
	unsigned n;
	unsigned long long adds, subs;
	int have_counts;
};

static void note_build_id(const struct dl_phdr_info *info, struct dl_mod *m)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t nsz = (nh->n_namesz + 3) & ~3u, dsz = (nh->n_descsz + 3) & ~3u;
			const uint8_t *desc = p + sizeof(*nh) + nsz;

			if (desc + dsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz > 0) {
				m->bid_len = (uint8_t)(nh->n_descsz < 20 ? nh->n_descsz : 20);
				memcpy(m->bid, desc, m->bid_len);
				return;
			}
			p = desc + dsz;
		}
	}
}

static int dl_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct dl_scan *s = data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int i;

	if (!s->have_counts && size >= offsetof(struct dl_phdr_info, dlpi_subs) +
						 sizeof(info->dlpi_subs)) {
		s->adds = info->dlpi_adds;
		s->subs = info->dlpi_subs;
		s->have_counts = 1;
	}
	if (s->n >= ARRAY_SIZE(s->m))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	s->m[s->n].lo = lo;
	s->m[s->n].hi = hi;
	s->m[s->n].bid_len = 0;
	note_build_id(info, &s->m[s->n]);
	s->n++;
	return 0;
}

/* The loader's load and unload counts, from the first module: the iteration stops there. */
static int count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
		c[2] = 1;
	}
	return 1;
}

void launch_stack__modules(struct launch_stack *ls, struct gp_writer *w, uint64_t ts)
{
	char line[PATH_MAX + 256];
	unsigned long long c[3] = { 0, 0, 0 };
	struct dl_scan *s;
	FILE *f;

	if (!w)
		return;
	/* at every drain: a library dlopen'ed, launched from and dlclose'd soon after is still named */
	dl_iterate_phdr(count_cb, c);
	if (ls->dl_seen && c[2] && c[0] == ls->dl_adds && c[1] == ls->dl_subs)
		return;
	if (!ls->scan)
		ls->scan = malloc(sizeof(*ls->scan));
	s = ls->scan;
	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	dl_iterate_phdr(dl_cb, s);
	ls->dl_seen = 1;
	ls->dl_adds = s->adds;
	ls->dl_subs = s->subs;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, inode;
		unsigned maj, min, i;
		char perms[8], file[PATH_MAX];
		struct gp_rec_module *r;
		size_t k;
		int known = 0;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &pgoff, &maj, &min, &inode, file) < 7 ||
		    perms[2] != 'x')
			continue;
		for (k = 0; k < ls->nmods && !known; k++)
			known = ls->mods[k].start == start && ls->mods[k].end == end &&
				ls->mods[k].pgoff == pgoff && ls->mods[k].inode == inode;
		if (known)
			continue;
		if (GP_ALLOC_GROW(ls->mods, ls->nmods + 1, ls->cap_mods))
			break;
		ls->mods[ls->nmods++] = (struct ls_mod){ start, end, pgoff, inode };
		r = gp_writer__reserve(w, GP_REC_MODULE, sizeof(*r));
		if (!r)
			break;
		r->ts = ts;
		r->start = start;
		r->end = end;
		r->pgoff = pgoff;
		r->inode = inode;
		r->pid = (uint32_t)getpid();
		r->path_str = gp_writer__intern(w, file[0] ? file : "[anon]");
		r->dev = (uint32_t)makedev(maj, min);
		r->prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) |
			  (perms[1] == 'w' ? PROT_WRITE : 0);
		for (i = 0; i < s->n; i++)
			if (start < s->m[i].hi && end > s->m[i].lo && s->m[i].bid_len) {
				r->build_id_size = s->m[i].bid_len;
				memcpy(r->build_id, s->m[i].bid, s->m[i].bid_len);
				break;
			}
		gp_writer__commit(w);
	}
	fclose(f);
}

/* ---- setup ---------------------------------------------------------- */

static int is_cuda_name(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && (!strncmp(base, "libcuda.so", 10) || !strncmp(base, "libcudart.so", 12) ||
			!strncmp(base, "libcupti.so", 11));
}

static int skip_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct launch_stack *ls = data;
	uintptr_t self = (uintptr_t)&launch_stack__enter;
	int i, mine = 0, cuda = is_cuda_name(info->dlpi_name);

	(void)size;
	for (i = 0; i < info->dlpi_phnum && !cuda; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz)
			mine = 1;
	}
	if (!cuda && !mine)
		return 0;
	for (i = 0; i < info->dlpi_phnum && ls->nskip < LS_SKIP_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		ls->skip[ls->nskip].lo = info->dlpi_addr + ph->p_vaddr;
		ls->skip[ls->nskip].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		ls->nskip++;
	}
	return 0;
}

/* The executable's load bias (dl_iterate_phdr lists it first). */
static int exe_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

/*
 * nvcc's default links cudart into the executable: its frames are CUDA's
 * too. Found by name in .symtab (static_cudart.h); a stripped executable
 * keeps them, above the program's own.
 */
static void skip_static_cudart(struct launch_stack *ls)
{
	struct static_cudart_range r[4];
	uintptr_t bias = 0;
	int fd, n, i;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = static_cudart__ranges(fd, r, 4);
	close(fd);
	if (n <= 0)
		return;
	dl_iterate_phdr(exe_cb, &bias);
	for (i = 0; i < n && ls->nskip < LS_SKIP_MAX; i++) {
		ls->skip[ls->nskip].lo = bias + r[i].lo;
		ls->skip[ls->nskip].hi = bias + r[i].hi;
		ls->nskip++;
	}
	inj_dbg("launch stacks: %d static cudart range%s in the executable", n, n == 1 ? "" : "s");
}

int launch_stack__init(struct launch_stack *ls, int wake_fd, int fp_only)
{
	size_t bytes = (size_t)LS_RINGS * sizeof(struct ls_ring);
	void *p;
	int err;

	memset(ls, 0, sizeof(*ls));
	ls->wake_fd = wake_fd;
	ls->fp_only = fp_only;
	ls->map = calloc(1, sizeof(*ls->map));
	if (!ls->map)
		return -ENOMEM;
	/* Zero pages until a thread writes them: the rings cost what is used. */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		err = -errno;
		free(ls->map);
		ls->map = NULL;
		return err;
	}
	err = pthread_key_create(&ls->key, ring_destructor);
	if (err) {
		munmap(p, bytes);
		free(ls->map);
		ls->map = NULL;
		return -err;
	}
	ls->rings = p;
	ls->nrings = LS_RINGS;
	ls->map_bytes = bytes;
	if (!fp_only) {
		/* every loaded module's CFI table, now, off the launch path */
		ls->unw = gp_unwind__new();
		err = ls->unw ? gp_unwind__refresh(ls->unw) : -errno;
		if (err < 0) {
			inj_warn("no CFI unwinder (%s): launch stacks by frame pointers only",
				 strerror(-err));
			gp_unwind__free(ls->unw); /* no walk has begun */
			ls->unw = NULL;
		}
	}
	dl_iterate_phdr(skip_cb, ls);
	skip_static_cudart(ls);
	thread_bounds(ls); /* the initializing thread's, off its first launch */
	inj_dbg("launch stacks: %u CUDA and own code ranges skipped", ls->nskip);
	return 0;
}

void launch_stack__release(struct launch_stack *ls)
{
	if (ls->map) {
		free(ls->map->e);
		free(ls->map->frames);
		free(ls->map);
	}
	free(ls->mods);
	free(ls->scan);
	ls->scan = NULL;
	/*
	 * The rings and the key stay: a thread may still be inside a callback
	 * or about to run the key's destructor; the process is ending.
	 */
	ls->map = NULL;
	ls->mods = NULL;
}
