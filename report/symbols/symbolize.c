// SPDX-License-Identifier: Apache-2.0
/*
 * symbolize.c - addresses of recorded stacks to names with elfutils,
 * cached per address: the symbolizer object, its processes and their
 * mappings, the lookups (user and kernel) and their cache, demangling and
 * the interned strings everything hands out. The other files are listed
 * in symbolize_priv.h.
 */
#include "symbolize.h"

#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <gelf.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_table.h"
#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_strtab.h"
#include "gp_util.h"
#include "symbolize_priv.h"
#include "u64map.h"

/* libstdc++'s demangler; declared here because <cxxabi.h> is C++ only. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);


static void *arena_alloc(struct symbolizer *s, size_t n)
{
	struct arena_chunk *c = s->arena;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = s->arena;
		c->used = 0;
		c->cap = cap;
		s->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

const char *sym_intern_len(struct symbolizer *s, const char *str, size_t len)
{
	int64_t id = gp_strtab__intern(&s->strs, str, len, NULL);

	return id < 0 ? NULL : gp_strtab__str(&s->strs, (uint32_t)id);
}

const char *sym_intern(struct symbolizer *s, const char *str)
{
	return sym_intern_len(s, str, strlen(str));
}

const char *sym_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- demangling -------------------------------------------------------- */

static bool is_mangled(const char *name)
{
	/* Itanium ABI (g++, clang++, nvcc's device names): _Z..., and the
	 * ___Z... / __Z... spellings some tools print for block-scope names. */
	return name[0] == '_' && name[1] == 'Z';
}

/*
 * nvcc's name for a kernel of internal linkage (static, or in an anonymous
 * namespace) in a -rdc=true build: "__nv_static_" N "_" then N characters
 * naming the module, "_", and the kernel's own (mangled) name, e.g.
 * __nv_static_25__6041ec19_4_k_cu_61214189__Z5skernPf. Returns that own
 * name, or NULL when name is not spelled so.
 */
static const char *nv_static_name(const char *name)
{
	static const char prefix[] = "__nv_static_";
	const char *p = name + sizeof(prefix) - 1;
	size_t n = 0;

	if (strncmp(name, prefix, sizeof(prefix) - 1))
		return NULL;
	for (; *p >= '0' && *p <= '9' && n < 4096; p++)
		n = n * 10 + (size_t)(*p - '0');
	if (p == name + sizeof(prefix) - 1 || *p++ != '_' || strnlen(p, n + 1) < n + 1 ||
	    p[n] != '_' || !p[n + 1])
		return NULL;
	return p + n + 1;
}

const char *symbolizer__demangle(struct symbolizer *s, const char *name)
{
	const char *key, *out, *own;
	char *dem;
	int64_t id;
	int status = 0;

	if (!name)
		return NULL;
	/* a -rdc=true build's static kernel: the kernel's own name, demangled */
	own = nv_static_name(name);
	if (own)
		return symbolizer__demangle(s, own);
	if (!is_mangled(name))
		return sym_intern(s, name) ?: name;

	id = gp_strtab__intern(&s->strs, name, strlen(name), NULL);
	if (id < 0)
		return name;
	if ((size_t)id < s->demangled_alloc && s->demangled[id])
		return s->demangled[id];

	key = gp_strtab__str(&s->strs, (uint32_t)id);
	dem = __cxa_demangle(name, NULL, NULL, &status);
	out = (dem && status == 0) ? sym_intern(s, dem) : key;
	free(dem);
	if (!out)
		out = key;
	/* without memory to remember it, it is demangled again next time */
	if (!GP_ALLOC_GROW_ZERO(s->demangled, (size_t)id + 1, s->demangled_alloc))
		s->demangled[id] = out;
	return out;
}

/* ---- opening what a trace names --------------------------------------- */

/*
 * Open a file a recording names (a module path, DIR/kallsyms, a perf map)
 * for reading: the report may run as root over a directory someone else
 * controls, and a module file may have been replaced since. Only a regular
 * file that is not a link is opened, without blocking on a FIFO or opening
 * a device (gp_file__input()): recorded module paths are already resolved
 * (/proc/PID/maps) and DIR's files are regular files gpuperf wrote, so a
 * link in their place was planted. Returns the fd or -errno (-EINVAL: not
 * a regular file; -ELOOP: a symbolic link).
 */
int sym_open_regular(const char *path)
{
	return gp_file__input(AT_FDCWD, path);
}

/* sym_open_regular() as a stdio stream; NULL + errno. */
FILE *sym_fopen_regular(const char *path)
{
	int fd = sym_open_regular(path);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* ---- life cycle -------------------------------------------------------- */

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	const char *extra;
	size_t len;

	if (!s)
		goto nomem;
	if (opts)
		s->opts = *opts;
	extra = s->opts.debuginfo_path;
	s->opts.debuginfo_path = NULL; /* the caller's string is not kept */

	/*
	 * elfutils' list: an empty entry is the module's own directory, ".debug"
	 * its subdirectory, absolute entries are searched for
	 * .build-id/xx/rest.debug and DIR/<module dir>/<debuglink>. The
	 * leading '-' skips the .gnu_debuglink CRC check: build ids are what
	 * tell files apart here and the CRC would read every debug file whole.
	 * The caller's directories come first so they can override the system's.
	 */
	len = strlen("-:.debug:/usr/lib/debug") + (extra ? strlen(extra) + 1 : 0) + 1;
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path)
		goto nomem;
	if (extra && *extra)
		snprintf(s->debuginfo_path, len, "-%s::.debug:/usr/lib/debug", extra);
	else
		snprintf(s->debuginfo_path, len, "-:.debug:/usr/lib/debug");
	if (asprintf(&s->debug_dirs, "%s%s/usr/lib/debug", extra && *extra ? extra : "",
		     extra && *extra ? ":" : "") < 0) {
		s->debug_dirs = NULL;
		goto nomem;
	}

	s->callbacks.find_elf = NULL; /* dwfl_report_elf names the file */
	/* ours: elfutils' opens candidates by name, blocking on a FIFO */
	s->callbacks.find_debuginfo = sym_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;

	s->unknown = sym_intern(s, "[unknown]");
	if (!s->unknown)
		goto nomem;
	return s;

nomem:
	symbolizer__free(s);
	errno = ENOMEM;
	return NULL;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->img_keys.nr; i++) {
		struct image *img = s->imgs[i];

		if (img->dwfl)
			dwfl_end(img->dwfl);
		free(img->segs);
		free(img->fdes);
		free(img);
	}
	free(s->imgs);
	free(s->img_key);
	gp_strtab__release(&s->img_keys);
	for (size_t i = 0; i < s->nproc; i++) {
		free(s->procs[i]->maps);
		free(s->procs[i]->jit);
		free(s->procs[i]);
	}
	free(s->procs);
	u64map_free(&s->proc_of);
	free(s->ksyms);
	free(s->cache);
	gp_strtab__release(&s->strs);
	free(s->demangled);
	while (s->arena) {
		struct arena_chunk *next = s->arena->next;

		free(s->arena);
		s->arena = next;
	}
	free(s->debuginfo_path);
	free(s->debug_dirs);
	free(s);
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	*st = s->stats;
}

/* ---- processes --------------------------------------------------------- */

static struct proc *proc_find(const struct symbolizer *s, uint32_t pid)
{
	uint32_t i = u64map_get(&s->proc_of, pid);

	return i ? s->procs[i - 1] : NULL;
}

struct proc *sym_proc_get(struct symbolizer *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (p)
		return p;
	if (s->nproc >= UINT32_MAX - 1 || GP_ALLOC_GROW(s->procs, s->nproc + 1, s->procs_alloc))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (u64map_put(&s->proc_of, pid, (uint32_t)s->nproc + 1)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	s->procs[s->nproc++] = p;
	return p;
}

void symbolizer__set_parent(struct symbolizer *s, uint32_t pid, uint32_t ppid)
{
	struct proc *p;

	if (pid == ppid)
		return;
	p = sym_proc_get(s, pid);
	if (!p)
		return; /* out of memory: lookups in pid just lack the fallback */
	p->ppid = ppid;
	p->has_parent = true;
	p->gen = ++s->gen;
}

static struct proc *proc_parent(const struct symbolizer *s, const struct proc *p)
{
	return p->has_parent ? proc_find(s, p->ppid) : NULL;
}

/* The newest generation along pid's ancestry: what its cached lookups depend on. */
static uint64_t proc_gen(const struct symbolizer *s, const struct proc *p)
{
	uint64_t gen = 0;

	for (int depth = 0; p && depth < MAX_ANCESTRY; depth++, p = proc_parent(s, p))
		if (p->gen > gen)
			gen = p->gen;
	return gen;
}

/* ---- modules and lookups ---------------------------------------------- */

int symbolizer__add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t start,
			   uint64_t end, uint64_t pgoff, const uint8_t *build_id,
			   size_t build_id_size)
{
	struct mapping nm, pieces[3];
	struct image *img;
	struct proc *p;
	size_t lo, hi, i, j, np = 0;

	if (!path || start >= end)
		return -EINVAL;
	p = sym_proc_get(s, pid);
	img = p ? sym_image_get(s, path, build_id, build_id_size) : NULL;
	if (!img)
		return -ENOMEM;
	nm = (struct mapping){.start = start, .end = end, .pgoff = pgoff, .img = img};
	if (GP_ALLOC_GROW(p->maps, p->nmaps + 2, p->maps_cap))
		return -ENOMEM;

	/* [i, j): the mappings the new one overlaps; what sticks out of them
	 * on either side stays (an mmap over part of a mapping splits it). */
	lo = 0;
	hi = p->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	for (j = i; j < p->nmaps && p->maps[j].start < end; j++)
		;
	if (i < j && p->maps[i].start < start) {
		pieces[np] = p->maps[i];
		pieces[np++].end = start;
	}
	pieces[np++] = nm;
	if (i < j && p->maps[j - 1].end > end) {
		pieces[np] = p->maps[j - 1];
		pieces[np].pgoff += end - pieces[np].start;
		pieces[np++].start = end;
	}
	memmove(&p->maps[i + np], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
	memcpy(&p->maps[i], pieces, np * sizeof(*pieces));
	p->nmaps = p->nmaps - (j - i) + np;
	p->gen = ++s->gen;
	return 0;
}

static const struct mapping *proc_mapping(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nmaps && p->maps[lo].start <= addr)
		return &p->maps[lo];
	return NULL;
}

int symbolizer__module(const struct symbolizer *s, uint32_t pid, uint64_t addr,
		       struct sym_module *m)
{
	const struct proc *q = proc_find(s, pid);
	const struct mapping *map = NULL;

	for (int depth = 0; q && !map && depth < MAX_ANCESTRY; depth++, q = proc_parent(s, q))
		map = proc_mapping(q, addr);
	if (!map)
		return -ENOENT;
	*m = (struct sym_module){.path = map->img->path,
				 .start = map->start,
				 .end = map->end,
				 .pgoff = map->pgoff,
				 .build_id = map->img->build_id,
				 .build_id_size = map->img->build_id_size};
	return 0;
}

static const struct jit_sym *proc_jit(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->njit;

	/* The last entry starting at or below addr, then a few before it for
	 * a region nested in (or overlapping) an earlier one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->jit[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < JIT_BACKSCAN && lo > 0; k++, lo--) {
		const struct jit_sym *j = &p->jit[lo - 1];

		if (addr - j->start < j->size)
			return j;
	}
	return NULL;
}

static const struct sym_frame *frames_store(struct symbolizer *s, const struct sym_frame *f,
					    size_t n)
{
	struct sym_frame *out = arena_alloc(s, n * sizeof(*out));

	if (out)
		memcpy(out, f, n * sizeof(*out));
	return out;
}

static const char *placeholder(struct symbolizer *s, const char *mod, uint64_t off)
{
	char buf[PATH_MAX + 32];

	snprintf(buf, sizeof(buf), "[%s+0x%" PRIx64 "]", mod, off);
	return sym_intern(s, buf);
}

static size_t resolve_user(struct symbolizer *s, struct proc *p, uint64_t addr, bool return_addr,
			   struct sym_frame *frames)
{
	/* A return address is one past the call: the call is what ran. */
	uint64_t look = return_addr && addr ? addr - 1 : addr;
	const struct mapping *m = NULL;
	const struct jit_sym *jit = NULL;
	uint64_t off = 0, fn = 0, vaddr = 0;
	bool in_image = false;
	struct proc *q;
	int depth;
	size_t n;

	/* A forked child's addresses are its parent's image until it maps
	 * its own; walk up until some ancestor maps the address. */
	for (q = p, depth = 0; q && !m && depth < MAX_ANCESTRY; depth++, q = proc_parent(s, q))
		m = proc_mapping(q, look);
	if (m) {
		struct image *img = m->img;

		if (img->state == IMAGE_NEW)
			sym_image_load(s, img);
		if (img->state == IMAGE_OK &&
		    sym_image_vaddr(img, look - m->start + m->pgoff, &vaddr)) {
			n = sym_image_resolve(s, img, vaddr, frames);
			if (n)
				return n;
			in_image = true;
		}
	}
	/* JIT maps name what no module does (anonymous code, trampolines). */
	for (q = p, depth = 0; q && !jit && depth < MAX_ANCESTRY; depth++, q = proc_parent(s, q))
		jit = proc_jit(q, look);
	if (jit) {
		frames[0] = (struct sym_frame){.name = jit->name, .jit = true, .resolved = true};
		return 1;
	}
	frames[0] = (struct sym_frame){.name = s->unknown};
	if (m) {
		/* The offset in the file, of the address as recorded, so it
		 * can be fed to addr2line / objdump by hand; of its function's
		 * first byte where the CFI says where that is. */
		off = addr - m->start + m->pgoff;
		if (in_image && sym_image_fde_start(m->img, vaddr, &fn))
			off = look - m->start + m->pgoff - (vaddr - fn);
		frames[0].name = placeholder(s, m->img->base, off);
		if (!frames[0].name)
			frames[0].name = s->unknown;
	}
	return 1;
}

static int cache_grow(struct symbolizer *s)
{
	size_t cap = s->cache_cap ? s->cache_cap * 2 : 4096;
	struct cache_ent *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < s->cache_cap; i++) {
		struct cache_ent *e = &s->cache[i];
		size_t j;

		if (!e->flags)
			continue;
		j = gp_mix64(e->addr ^ gp_mix64(((uint64_t)e->pid << 8 | e->flags) + e->gen));
		for (j &= cap - 1; tab[j].flags; j = (j + 1) & (cap - 1))
			;
		tab[j] = *e;
	}
	free(s->cache);
	s->cache = tab;
	s->cache_cap = cap;
	return 0;
}

/* The entry for the key, or the empty slot for it; NULL when the table cannot grow. */
static struct cache_ent *cache_slot(struct symbolizer *s, uint32_t pid, uint64_t addr,
				    uint32_t flags, uint64_t gen)
{
	size_t i;

	if ((s->cache_n + 1) * 4 > s->cache_cap * 3 && cache_grow(s))
		return NULL;
	i = gp_mix64(addr ^ gp_mix64(((uint64_t)pid << 8 | flags) + gen)) & (s->cache_cap - 1);
	for (; s->cache[i].flags; i = (i + 1) & (s->cache_cap - 1)) {
		struct cache_ent *e = &s->cache[i];

		if (e->addr == addr && e->pid == pid && e->flags == flags && e->gen == gen)
			return e;
	}
	return &s->cache[i];
}

static size_t cache_fill(struct symbolizer *s, struct cache_ent *e, uint32_t pid, uint64_t addr,
			 uint32_t flags, uint64_t gen, const struct sym_frame *f, size_t n,
			 const struct sym_frame **frames)
{
	const struct sym_frame *stored = frames_store(s, f, n);

	s->stats.distinct++;
	if (!f[n - 1].resolved)
		s->stats.unresolved++;
	if (!stored) {
		/* No memory left: answer with a placeholder that needs none. */
		static const struct sym_frame oom = {.name = "[unknown]"};

		*frames = &oom;
		return 1;
	}
	if (e) {
		*e = (struct cache_ent){.addr = addr,
				       .gen = gen,
				       .pid = pid,
				       .flags = flags,
				       .n = (uint32_t)n,
				       .frames = stored};
		s->cache_n++;
	}
	*frames = stored;
	return n;
}

size_t symbolizer__user(struct symbolizer *s, uint32_t pid, uint64_t addr, bool return_addr,
			const struct sym_frame **frames)
{
	struct sym_frame buf[MAX_FRAMES];
	uint32_t flags = CACHE_USED | (return_addr ? CACHE_RET : 0);
	struct proc *p = proc_find(s, pid);
	uint64_t gen = proc_gen(s, p);
	struct cache_ent *e;
	size_t n;

	s->stats.lookups++;
	e = cache_slot(s, pid, addr, flags, gen);
	if (e && e->flags) {
		*frames = e->frames;
		return e->n;
	}
	n = resolve_user(s, p, addr, return_addr, buf);
	/* sym_image_load and interning never touch the cache: e is still the slot. */
	return cache_fill(s, e, pid, addr, flags, gen, buf, n, frames);
}

/* ---- kernel ------------------------------------------------------------ */

const struct sym_frame *symbolizer__kernel(struct symbolizer *s, uint64_t addr)
{
	struct sym_frame fr = {.name = NULL};
	const struct sym_frame *out;
	struct cache_ent *e;
	size_t lo = 0, hi = s->nksyms;
	uint64_t gen = s->kgen;

	s->stats.lookups++;
	e = cache_slot(s, 0, addr, CACHE_USED | CACHE_KERNEL, gen);
	if (e && e->flags)
		return e->frames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		fr.name = s->ksyms[lo - 1].name;
		fr.resolved = true;
	} else {
		fr.name = placeholder(s, "kernel", addr) ?: s->unknown;
	}
	cache_fill(s, e, 0, addr, CACHE_USED | CACHE_KERNEL, gen, &fr, 1, &out);
	return out;
}
