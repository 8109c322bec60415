// SPDX-License-Identifier: Apache-2.0
/* unwind: walk the calling thread's stack with per-module CFI tables; no fault, malloc or lock. */

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>

#include "cfi_table.h"
#include "gp_alloc.h"
#include "step.h"
#include "unwind.h"

/* A table, built once per module identity and kept until gp_unwind__free(). */
struct table_ent {
	struct table_ent *next;
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint64_t hdr_vaddr;	/* identity when there is no build id: path + these two */
	uint64_t exec_size;
	struct cfi_table *table; /* NULL: no CFI, or it could not be built */
};

struct mod {
	uintptr_t start, end;	/* executable range */
	uintptr_t bias;
	const struct cfi_table *table;
	const struct table_ent *ent;
};

/* An immutable, sorted module array; replaced as a whole by a refresh. */
struct map {
	struct map *retired;	/* the array this one replaced */
	uint64_t gen;		/* unique across unwinders: what a thread's row cache was filled from */
	uint32_t n;
	struct mod m[];
};

struct gp_unwind {
	_Atomic(struct map *) map;
	pthread_mutex_t lock;	/* refresh only */
	unsigned long long adds, subs;
	struct table_ent *tables;
	uint64_t refreshes, rebuilds;
	uint32_t ntables, table_errors;
	uint64_t table_bytes;
	_Atomic uint64_t ends[GP_UNWIND_END__COUNT];
};

static _Atomic uint64_t map_gen;

/*
 * A thread's cache of looked-up rows: pc -> rule, direct-mapped. The
 * frames below a launch are the same on every call, so almost every frame
 * is found here with one compare instead of two binary searches
 * (bench/RESULTS.md). One per thread, so never shared, never locked;
 * emptied when the module array it was filled from is replaced.
 */
#define RCACHE_BITS 9
#define RCACHE_SIZE (1u << RCACHE_BITS)

struct rcache_ent {
	uint64_t pc;		/* the looked-up address (pc, or pc - 1 for a return address); 0: empty */
	uint8_t kind, arg;
	int16_t rbp_off;
	int32_t cfa_off;
};

struct rcache {
	uint64_t gen;
	struct rcache_ent e[RCACHE_SIZE];
};

/*
 * The thread's stack, read once, and its row cache. Initial-exec TLS: the
 * library is meant to be linked into a dlopen'ed one, where a
 * general-dynamic TLS access may allocate on a thread's first use.
 */
struct tstack {
	uintptr_t lo, hi;
	struct rcache *cache;	/* NULL: none (allocation failed, or the thread is exiting) */
	int state;		/* 0 unread, 1 read, -errno failed */
};
static __thread struct tstack tstack __attribute__((tls_model("initial-exec")));

static pthread_key_t rcache_key;
static pthread_once_t rcache_once = PTHREAD_ONCE_INIT;
static int rcache_key_ok;

static void rcache_free(void *c)
{
	tstack.cache = NULL; /* an unwind later in this thread's exit goes without */
	free(c);
}

static void rcache_key_init(void)
{
	rcache_key_ok = !pthread_key_create(&rcache_key, rcache_free);
}

int gp_unwind__thread_init(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	int err;

	if (tstack.state)
		return tstack.state > 0 ? 0 : tstack.state;
	pthread_once(&rcache_once, rcache_key_init);
	if (rcache_key_ok) {
		tstack.cache = calloc(1, sizeof(*tstack.cache));
		if (tstack.cache && pthread_setspecific(rcache_key, tstack.cache)) {
			free(tstack.cache);
			tstack.cache = NULL;
		}
	}
	err = pthread_getattr_np(pthread_self(), &a);
	if (err) {
		tstack.state = -err;
		return -err;
	}
	err = pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	if (err) {
		tstack.state = -err;
		return -err;
	}
	tstack.lo = (uintptr_t)addr;
	tstack.hi = (uintptr_t)addr + size;
	tstack.state = 1;
	return 0;
}

struct gp_unwind *gp_unwind__new(void)
{
	struct gp_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	return u;
}

void gp_unwind__free(struct gp_unwind *u)
{
	struct map *m, *older;
	struct table_ent *t, *next;

	if (!u)
		return;
	for (m = atomic_load(&u->map); m; m = older) {
		older = m->retired;
		free(m);
	}
	for (t = u->tables; t; t = next) {
		next = t->next;
		cfi_table__free(t->table);
		free(t->path);
		free(t);
	}
	pthread_mutex_destroy(&u->lock);
	free(u);
}

/* ---- refresh ---- */

struct scan {
	struct gp_unwind *u;
	struct mod *mods;
	size_t n, cap;
	bool unchanged;
	int err;
};

/* NT_GNU_BUILD_ID from the module's PT_NOTE segments, in memory. */
static uint8_t build_id_of(const struct dl_phdr_info *info, uint8_t id[20])
{
	size_t i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_filesz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (left >= sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			size_t nsz, dsz;

			memcpy(&nh, p, sizeof(nh));
			nsz = (nh.n_namesz + 3) & ~(size_t)3;
			dsz = (nh.n_descsz + 3) & ~(size_t)3;
			if (nsz > left - sizeof(nh) || dsz > left - sizeof(nh) - nsz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(p + sizeof(nh), "GNU", 4) && nh.n_descsz && nh.n_descsz <= 20) {
				memcpy(id, p + sizeof(nh) + nsz, nh.n_descsz);
				return (uint8_t)nh.n_descsz;
			}
			p += sizeof(nh) + nsz + dsz;
			left -= sizeof(nh) + nsz + dsz;
		}
	}
	return 0;
}

static struct table_ent *table_for(struct gp_unwind *u, const struct dl_phdr_info *info,
				   uint64_t exec_size)
{
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	struct table_ent *t;
	uint64_t hdr_vaddr = 0;
	uint8_t id[20];
	uint8_t idlen = build_id_of(info, id);
	size_t i;
	int err;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr_vaddr = info->dlpi_phdr[i].p_vaddr;
	for (t = u->tables; t; t = t->next) {
		if (idlen ? t->build_id_len == idlen && !memcmp(t->build_id, id, idlen)
			  : !t->build_id_len && t->hdr_vaddr == hdr_vaddr &&
				    t->exec_size == exec_size && !strcmp(t->path, path))
			return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->path = strdup(path);
	if (!t->path) {
		free(t);
		return NULL;
	}
	memcpy(t->build_id, id, idlen);
	t->build_id_len = idlen;
	t->hdr_vaddr = hdr_vaddr;
	t->exec_size = exec_size;
	err = cfi_table__from_phdrs(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, &t->table);
	if (err && err != -ENOEXEC)
		u->table_errors++;
	if (t->table) {
		struct cfi_table_stats st;

		cfi_table__stats(t->table, &st);
		u->table_bytes += (uint64_t)st.rows * sizeof(struct gp_cfi_row);
	}
	u->ntables++;
	t->next = u->tables;
	u->tables = t;
	return t;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	struct gp_unwind *u = s->u;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	struct table_ent *t;
	size_t i;

	if (!s->n && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		if (atomic_load_explicit(&u->map, memory_order_relaxed) && info->dlpi_adds == u->adds &&
		    info->dlpi_subs == u->subs) {
			s->unchanged = true;
			return 1;
		}
		u->adds = info->dlpi_adds;
		u->subs = info->dlpi_subs;
	}
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo >= hi)
		return 0;
	/* the table is built here, while the loader keeps the module mapped */
	t = table_for(u, info, hi - lo);
	if (!t) {
		s->err = -ENOMEM;
		return 1;
	}
	if (GP_ALLOC_GROW(s->mods, s->n + 1, s->cap)) {
		s->err = -ENOMEM;
		return 1;
	}
	s->mods[s->n++] = (struct mod){ lo, hi, info->dlpi_addr, t->table, t };
	return 0;
}

static int mod_cmp(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int gp_unwind__refresh(struct gp_unwind *u)
{
	struct scan s = { .u = u };
	struct map *m, *old;
	int ret;

	pthread_mutex_lock(&u->lock);
	u->refreshes++;
	dl_iterate_phdr(scan_one, &s);
	if (s.unchanged) {
		ret = 0;
		goto out;
	}
	if (s.err) {
		u->adds = u->subs = 0; /* try again next time */
		ret = s.err;
		goto out;
	}
	if (s.n > 1)
		qsort(s.mods, s.n, sizeof(*s.mods), mod_cmp);
	m = malloc(sizeof(*m) + s.n * sizeof(m->m[0]));
	if (!m) {
		u->adds = u->subs = 0;
		ret = -ENOMEM;
		goto out;
	}
	m->n = (uint32_t)s.n;
	m->gen = atomic_fetch_add(&map_gen, 1) + 1;
	if (s.n)
		memcpy(m->m, s.mods, s.n * sizeof(m->m[0]));
	old = atomic_load_explicit(&u->map, memory_order_relaxed);
	m->retired = old;
	atomic_store_explicit(&u->map, m, memory_order_release);
	u->rebuilds++;
	ret = 1;
out:
	pthread_mutex_unlock(&u->lock);
	free(s.mods);
	return ret;
}

/* ---- the walk: no malloc, no lock, no read outside [sp, hi) ---- */

static const struct mod *mod_find(const struct map *m, uintptr_t pc)
{
	uint32_t lo = 0, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pc < m->m[mid].start)
			hi = mid;
		else if (pc >= m->m[mid].end)
			lo = mid + 1;
		else
			return &m->m[mid];
	}
	return NULL;
}

/* The rule for looked-up address `pc`: from the thread's cache, else searched and cached. */
static bool row_of(const struct map *m, struct rcache *rc, uintptr_t pc, struct rcache_ent *out)
{
	struct rcache_ent *e = NULL;
	const struct gp_cfi_row *r;
	const struct mod *md;

	if (rc) {
		e = &rc->e[(uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> (64 - RCACHE_BITS))];
		if (e->pc == pc && pc) {
			*out = *e;
			return true;
		}
	}
	md = mod_find(m, pc);
	if (!md)
		return false;
	out->pc = pc;
	if (md->table) {
		r = cfi_table__find(md->table, pc - md->bias);
		out->kind = r->kind;
		out->arg = r->arg;
		out->rbp_off = r->rbp_off;
		out->cfa_off = r->cfa_off;
	} else {
		out->kind = GP_CFI_NONE;
		out->arg = 0;
		out->rbp_off = 0;
		out->cfa_off = 0;
	}
	if (e)
		*e = *out;
	return true;
}

/*
 * One stack word, only if [a, a + 8) lies in [lo, hi) and is aligned.
 * Not instrumented: a saved register may sit in what ASan calls a redzone
 * of a frame we walk through.
 */
__attribute__((no_sanitize_address)) static bool stack_word(uintptr_t a, uintptr_t lo, uintptr_t hi,
							   uint64_t *v)
{
	if (a < lo || hi < 8 || a > hi - 8 || (a & 7))
		return false;
	*v = *(const volatile uint64_t *)a;
	return true;
}

/* ucontext_t fields the kernel's rt_sigframe holds at the trampoline's rsp */
#define UC_RIP	  offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#define UC_RSP	  offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define UC_RBP	  offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])
#define UC_SS_SP  offsetof(ucontext_t, uc_stack.ss_sp)
#define UC_SS_LEN offsetof(ucontext_t, uc_stack.ss_size)

static int walk(struct gp_unwind *u, uintptr_t pc, uintptr_t sp, uintptr_t bp, int skip,
		uint64_t *pcs, int max, int *endp)
{
	const struct map *m = atomic_load_explicit(&u->map, memory_order_acquire);
	uintptr_t hi, alt_lo = 0, alt_hi = 0, lookup;
	struct rcache *rc;
	struct rcache_ent row;
	bool exact = true, bp_ok = true, on_alt = false;
	uint64_t ra, nbp, cfa, at;
	int n = 0, depth, end;

	if (max > GP_UNWIND_MAX_DEPTH)
		max = GP_UNWIND_MAX_DEPTH;
	if (max < 0)
		max = 0;
	if (!m) {
		end = GP_UNWIND_END_NO_TABLES;
		goto out;
	}
	if (!tstack.state)
		gp_unwind__thread_init();
	rc = tstack.cache;
	if (rc && rc->gen != m->gen) {
		memset(rc->e, 0, sizeof(rc->e));
		rc->gen = m->gen;
	}
	if (tstack.state > 0 && sp >= tstack.lo && sp < tstack.hi) {
		hi = tstack.hi;
	} else {
		stack_t ss;

		/* a handler on its sigaltstack: the one case worth a syscall here */
		if (sigaltstack(NULL, &ss) || !(ss.ss_flags & SS_ONSTACK) ||
		    sp < (uintptr_t)ss.ss_sp || sp - (uintptr_t)ss.ss_sp >= ss.ss_size) {
			end = GP_UNWIND_END_OFF_STACK;
			goto out;
		}
		alt_lo = (uintptr_t)ss.ss_sp;
		alt_hi = alt_lo + ss.ss_size;
		hi = alt_hi;
		on_alt = true;
	}
	for (depth = 0; depth < GP_UNWIND_MAX_DEPTH + skip; depth++) {
		if (depth >= skip) {
			if (n == max) {
				end = GP_UNWIND_END_DEPTH;
				goto out;
			}
			pcs[n++] = pc;
		}
		lookup = exact ? pc : pc - 1;
		if (!row_of(m, rc, lookup, &row)) {
			end = GP_UNWIND_END_UNKNOWN_MODULE;
			goto out;
		}
		if (row.kind == GP_CFI_SIGNAL) {
			uint64_t nrip, nrsp, nrbp, ss_sp, ss_len;

			if (!stack_word(sp + UC_RIP, sp, hi, &nrip) ||
			    !stack_word(sp + UC_RSP, sp, hi, &nrsp) ||
			    !stack_word(sp + UC_RBP, sp, hi, &nrbp)) {
				end = GP_UNWIND_END_BAD_FRAME;
				goto out;
			}
			if (on_alt) {
				/* the kernel writes the sigaltstack it used: a cheap proof this is a real frame */
				if (!stack_word(sp + UC_SS_SP, sp, hi, &ss_sp) ||
				    !stack_word(sp + UC_SS_LEN, sp, hi, &ss_len) || ss_sp != alt_lo ||
				    ss_sp + ss_len != alt_hi) {
					end = GP_UNWIND_END_BAD_FRAME;
					goto out;
				}
			}
			if (tstack.state > 0 && nrsp >= tstack.lo && nrsp < tstack.hi) {
				if (!on_alt && nrsp <= sp) {
					end = GP_UNWIND_END_BAD_FRAME;
					goto out;
				}
				hi = tstack.hi;
				on_alt = false;
			} else if (!(on_alt && nrsp > sp && nrsp < alt_hi)) {
				end = GP_UNWIND_END_OFF_STACK;
				goto out;
			}
			pc = nrip;
			sp = nrsp;
			bp = nrbp;
			bp_ok = true;
			exact = true;
			continue;
		}
		/*
		 * rbx is not tracked: the CFAs kept in it are ld.so's lazy-binding
		 * trampolines', on the stack only while _dl_fixup resolves a symbol,
		 * which launches nothing; an RBX row ends as UNSUPPORTED.
		 */
		end = gp_step__cfa(row.kind, row.arg, row.cfa_off, pc, sp, bp, bp_ok, 0, false,
				   exact, &cfa);
		if (end >= 0)
			goto out;
		if (cfa <= sp || cfa > hi || !stack_word(cfa - 8, sp, hi, &ra)) {
			end = GP_UNWIND_END_BAD_FRAME;
			goto out;
		}
		switch (gp_step__rbp(row.kind, row.rbp_off, cfa, sp, bp, &at)) {
		case GP_STEP_AT:
			if (!stack_word(at, sp, hi, &nbp)) {
				end = GP_UNWIND_END_BAD_FRAME;
				goto out;
			}
			bp = nbp;
			bp_ok = true; /* a frame that saved it: known again, if lost below */
			break;
		case GP_STEP_LOST:
			bp_ok = false;
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
	end = GP_UNWIND_END_DEPTH;
out:
	if (end != GP_UNWIND_END_ROOT)
		atomic_fetch_add_explicit(&u->ends[end], 1, memory_order_relaxed);
	if (endp)
		*endp = end;
	return n;
}

int gp_unwind__regs(struct gp_unwind *u, uint64_t rip, uint64_t rsp, uint64_t rbp,
		    uint64_t *pcs, int max, int *end)
{
	return walk(u, rip, rsp, rbp, 0, pcs, max, end);
}

/*
 * rip, rsp and rbp read together, at one instruction of this function, so
 * the table's row for that rip describes that rsp: the walk starts in this
 * very frame and skips it.
 */
__attribute__((noinline)) int gp_unwind__here(struct gp_unwind *u, uint64_t *pcs, int max, int *end)
{
	uintptr_t rip, rsp, rbp;
	int n;

	__asm__ volatile("leaq 0(%%rip), %0\n\t"
			 "movq %%rsp, %1\n\t"
			 "movq %%rbp, %2"
			 : "=r"(rip), "=r"(rsp), "=r"(rbp));
	n = walk(u, rip, rsp, rbp, 1, pcs, max, end);
	/* no tail call: the walk reads this frame, which must still be there */
	__asm__ volatile("" ::: "memory");
	return n;
}

int gp_unwind__module_at(struct gp_unwind *u, uint64_t pc, struct gp_unwind_module *out)
{
	const struct map *m = atomic_load_explicit(&u->map, memory_order_acquire);
	const struct mod *md = m ? mod_find(m, pc) : NULL;

	if (!md)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->start = md->start;
	out->end = md->end;
	out->bias = md->bias;
	out->path = md->ent->path;
	memcpy(out->build_id, md->ent->build_id, sizeof(out->build_id));
	out->build_id_len = md->ent->build_id_len;
	out->has_cfi = md->table != NULL;
	return 0;
}

void gp_unwind__stats(struct gp_unwind *u, struct gp_unwind_stats *st)
{
	const struct map *m;
	uint32_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < GP_UNWIND_END__COUNT; i++)
		st->ends[i] = atomic_load_explicit(&u->ends[i], memory_order_relaxed);
	pthread_mutex_lock(&u->lock);
	m = atomic_load_explicit(&u->map, memory_order_relaxed);
	st->refreshes = u->refreshes;
	st->rebuilds = u->rebuilds;
	st->tables = u->ntables;
	st->table_errors = u->table_errors;
	st->table_bytes = u->table_bytes;
	if (m) {
		st->modules = m->n;
		for (i = 0; i < m->n; i++)
			st->modules_no_cfi += !m->m[i].table;
	}
	pthread_mutex_unlock(&u->lock);
}

const char *gp_unwind__end_name(int end)
{
	static const char *const names[GP_UNWIND_END__COUNT] = {
		"root", "depth", "unknown_module", "bad_frame",
		"no_fp", "unsupported_cfi", "off_stack", "no_tables", "short_copy",
	};

	return end >= 0 && end < GP_UNWIND_END__COUNT ? names[end] : "?";
}
