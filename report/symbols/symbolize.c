// SPDX-License-Identifier: Apache-2.0
/* symbolize.c - addresses of recorded stacks to names with elfutils, cached per address. */
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
#include <zlib.h>

#include "cfi_table.h"
#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_strtab.h"
#include "gp_util.h"
#include "u64map.h"

/*
 * Layout:
 * - An image is one module file, keyed by (path, build id) and shared by
 *   every process that maps it. Its Dwfl is created on the first lookup
 *   that lands in it and reports the file at its link-time addresses (bias
 *   0), so one Dwfl serves every load base: a process address becomes a
 *   file offset through the recorded mapping (addr - start + pgoff) and the
 *   file offset becomes a link-time address through the file's PT_LOADs.
 * - A process holds its mappings sorted and non-overlapping (a later
 *   mapping cuts the ones it overlaps), its JIT map, and its parent.
 * - Results are cached per (pid, address, return_addr, generation): any
 *   change to a process's mappings, JIT map or parent moves its generation,
 *   so a lookup after an exec or dlopen is resolved afresh instead of
 *   returning what the old image said.
 * - Every string (names, files, placeholders) is interned into arena
 *   chunks; frame arrays live in the same arena. Nothing is freed before
 *   symbolizer__free, which is what lets the API hand out bare pointers.
 */

/* libstdc++'s demangler; declared here because <cxxabi.h> is C++ only. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define ARENA_CHUNK  (256u * 1024u)
#define MAX_FRAMES   64 /* inline depth kept per address; deeper chains are cut */
#define MAX_ANCESTRY 32 /* parent links followed (guards against cycles) */
#define JIT_BACKSCAN 16 /* earlier JIT entries tried when the nearest does not cover */
#define FDE_BACKSCAN 4	/* earlier FDEs tried when the nearest does not cover (nesting) */
#define MAX_BUILD_ID 64

/* ---- arena + interned strings ---------------------------------------- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	_Alignas(16) char data[];
};


/* ---- images, processes, cache ----------------------------------------- */

enum image_state {
	IMAGE_NEW,	/* not opened yet */
	IMAGE_OK,	/* Dwfl ready */
	IMAGE_MISSING,	/* cannot be opened or is not a usable ELF */
	IMAGE_MISMATCH, /* build id differs from the recorded one: not trusted */
};

struct load_seg {
	uint64_t offset, filesz, vaddr;
};

struct image {
	const char *path; /* interned */
	const char *base; /* interned basename, for placeholders */
	uint8_t build_id[MAX_BUILD_ID];
	size_t build_id_size;
	enum image_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct load_seg *segs;
	size_t nsegs;
	/* Its FDEs' ranges, read on the first address no symbol names. */
	bool fdes_read;
	struct cfi_fde_range *fdes;
	size_t nfdes;
};

struct mapping {
	uint64_t start, end, pgoff;
	struct image *img;
};

struct jit_sym {
	uint64_t start, size;
	const char *name;
	size_t order; /* line number: later lines win among equal starts */
};

struct proc {
	uint32_t pid, ppid;
	bool has_parent;
	uint64_t gen;
	struct mapping *maps;
	size_t nmaps, maps_cap;
	struct jit_sym *jit;
	size_t njit;
};

struct ksym {
	uint64_t addr;
	const char *name;
};

#define CACHE_USED   1u
#define CACHE_RET    2u
#define CACHE_KERNEL 4u

struct cache_ent {
	uint64_t addr;
	uint64_t gen;
	uint32_t pid;
	uint32_t flags;
	uint32_t n;
	const struct sym_frame *frames;
};

struct symbolizer {
	struct symbolizer_opts opts;
	char *debuginfo_path; /* elfutils' ':'-separated search list */
	char *debug_dirs;     /* the --debuginfo directories, then /usr/lib/debug (':') */
	Dwfl_Callbacks callbacks;

	struct arena_chunk *arena;
	struct gp_strtab strs;
	const char **demangled; /* by id in strs: the demangled name, NULL: not yet */
	size_t demangled_alloc;

	struct gp_strtab img_keys; /* path, NUL, build id -> index in imgs */
	struct image **imgs;
	size_t imgs_alloc;
	uint8_t *img_key; /* the key being looked up */
	size_t img_key_alloc;

	struct u64map proc_of; /* pid -> index + 1 in procs */
	struct proc **procs;
	size_t nproc, procs_alloc;
	uint64_t gen;

	struct ksym *ksyms;
	size_t nksyms;
	uint64_t kgen; /* moves with each kallsyms load */

	struct cache_ent *cache;
	size_t cache_cap, cache_n;

	const char *unknown; /* "[unknown]" */
	struct symbolizer_stats stats;
};


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

static const char *intern_len(struct symbolizer *s, const char *str, size_t len)
{
	int64_t id = gp_strtab__intern(&s->strs, str, len, NULL);

	return id < 0 ? NULL : gp_strtab__str(&s->strs, (uint32_t)id);
}

static const char *intern(struct symbolizer *s, const char *str)
{
	return intern_len(s, str, strlen(str));
}

static const char *basename_of(const char *path)
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
		return intern(s, name) ?: name;

	id = gp_strtab__intern(&s->strs, name, strlen(name), NULL);
	if (id < 0)
		return name;
	if ((size_t)id < s->demangled_alloc && s->demangled[id])
		return s->demangled[id];

	key = gp_strtab__str(&s->strs, (uint32_t)id);
	dem = __cxa_demangle(name, NULL, NULL, &status);
	out = (dem && status == 0) ? intern(s, dem) : key;
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
static int open_regular(const char *path)
{
	return gp_file__input(AT_FDCWD, path);
}

/* open_regular() as a stdio stream; NULL + errno. */
static FILE *fopen_regular(const char *path)
{
	int fd = open_regular(path);
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

/* ---- separate debug files ---------------------------------------------- */

/*
 * A candidate debug file, opened as gp_file__input() opens: a regular file
 * that is not a link, never blocking on a FIFO, never a device. In the
 * directories of whoever runs the report (--debuginfo, /usr/lib/debug) a
 * link is resolved first (a .build-id entry is one on many distributions)
 * and the file it names opened the same way; next to a recorded module, in
 * directories the recorded program's owner controls, a link is refused.
 */
static int debug_open(const char *path, bool follow)
{
	char real[PATH_MAX];
	int fd = gp_file__input(AT_FDCWD, path);

	if (fd == -ELOOP && follow && realpath(path, real))
		fd = gp_file__input(AT_FDCWD, real);
	return fd;
}

/* The GNU build id of an open ELF file: its length (0: none) and *bits (malloc'd). */
static ssize_t fd_build_id(int fd, void **bits)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

	*bits = NULL;
	if (n > 0 && (*bits = malloc((size_t)n)))
		memcpy(*bits, id, (size_t)n);
	else
		n = 0;
	elf_end(elf);
	return n;
}

/* The .gnu_debugaltlink build id of an open ELF file (a dwz user): length, 0 none. */
static ssize_t fd_altlink_id(int fd, void **bits)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	const char *name;
	const void *id = NULL;
	ssize_t n = dw ? dwelf_dwarf_gnu_debugaltlink(dw, &name, &id) : -1;

	*bits = NULL;
	if (n > 0 && (*bits = malloc((size_t)n)))
		memcpy(*bits, id, (size_t)n);
	else
		n = 0;
	dwarf_end(dw);
	elf_end(elf);
	return n;
}

/* CRC-32 of a whole file, as .gnu_debuglink records it (zlib's polynomial). */
static bool crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	lseek(fd, 0, SEEK_SET);
	return n == 0 && (uint32_t)crc == want;
}

struct debug_want {
	const void *id; /* build id the file must carry, or NULL */
	ssize_t id_len;
	bool crc;	/* else: the debuglink's CRC-32 */
	uint32_t crc32;
	const struct stat *main; /* the module's own file: not its own debug file */
};

/* Open path (debug_open()) and keep it when it is the wanted file: fd, or -1. */
static int debug_try(const char *path, bool follow, const struct debug_want *w, char **name)
{
	struct stat st;
	void *id;
	ssize_t n;
	bool ok;
	int fd = debug_open(path, follow);

	if (fd < 0)
		return -1;
	if (w->main && !fstat(fd, &st) && st.st_dev == w->main->st_dev &&
	    st.st_ino == w->main->st_ino) {
		close(fd);
		return -1;
	}
	if (w->id) {
		n = fd_build_id(fd, &id);
		ok = n == w->id_len && !memcmp(id, w->id, (size_t)n);
		free(id);
	} else {
		ok = !w->crc || crc_matches(fd, w->crc32);
	}
	if (!ok || !(*name = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* dir/.build-id/xx/rest.debug */
static int debug_by_id(const char *dir, const unsigned char *id, ssize_t len,
		       const struct debug_want *w, char **name)
{
	char path[PATH_MAX];
	int off, i;

	if (len < 2 || len > 64)
		return -1;
	off = snprintf(path, sizeof(path), "%s/.build-id/%02x/", dir, id[0]);
	for (i = 1; i < len && off > 0 && off < (int)sizeof(path) - 8; i++)
		off += snprintf(path + off, sizeof(path) - (size_t)off, "%02x", id[i]);
	if (off <= 0 || off >= (int)sizeof(path) - 8)
		return -1;
	strcpy(path + off, ".debug");
	return debug_try(path, true, w, name);
}

/*
 * Dwfl's find_debuginfo: elfutils' own search (dwfl_standard_find_debuginfo)
 * opens every candidate by name, so a FIFO planted where a debug file could
 * be (DIR/.debug/<debuglink>, a --debuginfo directory) hung the report.
 * The same places, in elfutils' order, each opened with debug_open():
 * by build id under the --debuginfo directories and /usr/lib/debug, then
 * the .gnu_debuglink name next to the file, in its .debug/, and under each
 * of those directories followed by the file's own directory. A file is
 * taken when its build id is the module's (the CRC of .gnu_debuglink when
 * the module has none); a dwz file (.gnu_debugaltlink, asked for once the
 * debug file is open) when its build id is the one the link names.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const struct symbolizer *s = *userdata;
	const char *debugfile = NULL, *slash;
	const unsigned char *mod_id = NULL;
	char *dirs = NULL, *d, *save = NULL, dir[PATH_MAX], path[PATH_MAX];
	struct stat main_st;
	struct debug_want w = { 0 };
	void *alt_id = NULL;
	GElf_Addr id_vaddr;
	ssize_t len;
	int fd = -1, i;

	(void)modname;
	(void)base;
	if (!s)
		return -1;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile && file_name) {
		/* the dwz file of the debug file already open: its id is in the link */
		int dfd = debug_open(file_name, true); /* the debug file we opened */

		len = dfd >= 0 ? fd_altlink_id(dfd, &alt_id) : 0;
		if (dfd >= 0)
			close(dfd);
		if (len <= 0)
			return -1;
		w.id = alt_id;
		w.id_len = len;
	} else {
		len = dwfl_module_build_id(mod, &mod_id, &id_vaddr);
		if (len > 0) {
			w.id = mod_id;
			w.id_len = len;
		} else {
			w.crc = debuglink != NULL;
			w.crc32 = crc;
		}
		if (file_name && !stat(file_name, &main_st))
			w.main = &main_st;
	}
	dirs = strdup(s->debug_dirs);
	if (!dirs)
		goto out;
	for (d = strtok_r(dirs, ":", &save); d && fd < 0 && w.id; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/')
			fd = debug_by_id(d, w.id, w.id_len, &w, debuginfo_file_name);
	if (fd >= 0 || !debuglink || !file_name)
		goto out;
	if (debuglink[0] == '/') { /* a dwz link may be absolute */
		fd = debug_try(debuglink, false, &w, debuginfo_file_name);
		goto out;
	}
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	for (i = 0; i < 2 && fd < 0; i++) {
		if (snprintf(path, sizeof(path), "%s%s/%s", dir, i ? "/.debug" : "", debuglink) <
		    (int)sizeof(path))
			fd = debug_try(path, false, &w, debuginfo_file_name);
	}
	/* DIR + the file's own directory, for each absolute directory of the list */
	strcpy(dirs, s->debug_dirs); /* strtok_r cut it */
	save = NULL;
	for (d = strtok_r(dirs, ":", &save); d && fd < 0; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/' && dir[0] == '/' &&
		    snprintf(path, sizeof(path), "%s%s/%s", d, dir, debuglink) < (int)sizeof(path))
			fd = debug_try(path, true, &w, debuginfo_file_name);
out:
	free(dirs);
	free(alt_id);
	return fd;
}

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
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;

	s->unknown = intern(s, "[unknown]");
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

static struct proc *proc_get(struct symbolizer *s, uint32_t pid)
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
	p = proc_get(s, pid);
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

/* ---- images ------------------------------------------------------------ */


static struct image *image_get(struct symbolizer *s, const char *path, const uint8_t *bid,
			       size_t bid_size)
{
	size_t plen = strlen(path), klen;
	struct image *img;
	int64_t id;

	if (bid_size > MAX_BUILD_ID)
		bid_size = MAX_BUILD_ID;
	if (!bid)
		bid_size = 0;
	/* the key: path, NUL, build id */
	klen = plen + 1 + bid_size;
	if (GP_ALLOC_GROW(s->img_key, klen, s->img_key_alloc))
		return NULL;
	memcpy(s->img_key, path, plen + 1);
	if (bid_size)
		memcpy(s->img_key + plen + 1, bid, bid_size);
	id = gp_strtab__find(&s->img_keys, s->img_key, klen);
	if (id >= 0)
		return s->imgs[id];
	if (GP_ALLOC_GROW(s->imgs, s->img_keys.nr + 1, s->imgs_alloc))
		return NULL;
	img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->path = intern(s, path);
	/* "[vdso]" and the like: "[vdso+0x..]", not "[[vdso]+0x..]". */
	if (path[0] == '[' && path[plen - 1] == ']')
		img->base = img->path ? intern_len(s, path + 1, plen - 2) : NULL;
	else
		img->base = img->path ? intern(s, basename_of(path)) : NULL;
	id = img->base ? gp_strtab__intern(&s->img_keys, s->img_key, klen, NULL) : -ENOMEM;
	if (id < 0) {
		free(img);
		return NULL;
	}
	if (bid_size)
		memcpy(img->build_id, bid, bid_size);
	img->build_id_size = bid_size;
	s->imgs[id] = img;
	return img;
}

static int image_read_segments(struct image *img, Elf *elf)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) || !nph)
		return -ENOEXEC;
	img->segs = calloc(nph, sizeof(*img->segs));
	if (!img->segs)
		return -ENOMEM;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		img->segs[img->nsegs++] = (struct load_seg){
			.offset = ph->p_offset, .filesz = ph->p_filesz, .vaddr = ph->p_vaddr};
	}
	return img->nsegs ? 0 : -ENOEXEC;
}

/* Open the file once, on the first lookup that needs it. */
static void image_load(struct symbolizer *s, struct image *img)
{
	const unsigned char *bits;
	GElf_Addr bid_vaddr, bias;
	Elf *elf;
	int n, fd;

	img->state = IMAGE_MISSING;
	/* Pseudo paths ("[vdso]", "//anon", "") never were files to miss. */
	if (img->path[0] != '/')
		return;
	fd = open_regular(img->path);
	if (fd < 0)
		goto missing;
	img->dwfl = dwfl_begin(&s->callbacks);
	if (!img->dwfl) {
		close(fd);
		goto missing;
	}
	dwfl_report_begin(img->dwfl);
	/* Base 0 + add_p_vaddr: the module sits at its link-time addresses,
	 * whatever base any process loaded it at (see the layout note). The
	 * fd is libdwfl's on success; on failure it is still ours. */
	img->mod = dwfl_report_elf(img->dwfl, img->base, img->path, fd, 0, true);
	dwfl_report_end(img->dwfl, NULL, NULL);
	if (img->mod) { /* find_debuginfo()'s symbolizer */
		void **ud;

		dwfl_module_info(img->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = s;
	}
	if (!img->mod) {
		close(fd);
		goto missing;
	}
	elf = dwfl_module_getelf(img->mod, &bias);
	if (!elf || image_read_segments(img, elf))
		goto missing;

	if (img->build_id_size) {
		n = dwfl_module_build_id(img->mod, &bits, &bid_vaddr);
		if (n != (int)img->build_id_size || memcmp(bits, img->build_id, (size_t)n)) {
			/* Rebuilt or replaced since the recording: its names
			 * would be confidently wrong, so none are used. */
			img->state = IMAGE_MISMATCH;
			s->stats.build_id_mismatch++;
			goto drop;
		}
	}
	s->stats.images++;
	img->state = IMAGE_OK;
	return;

missing:
	s->stats.modules_missing++;
drop:
	if (img->dwfl)
		dwfl_end(img->dwfl);
	img->dwfl = NULL;
	img->mod = NULL;
}

static bool image_vaddr(const struct image *img, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct load_seg *sg = &img->segs[i];

		if (off >= sg->offset && off - sg->offset < sg->filesz) {
			*vaddr = sg->vaddr + (off - sg->offset);
			return true;
		}
	}
	return false;
}

/* ---- DWARF ------------------------------------------------------------- */

static const char *die_string(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute mem;

	/* _integrate follows DW_AT_abstract_origin and DW_AT_specification:
	 * an inlined instance names nothing itself. */
	return dwarf_formstring(dwarf_attr_integrate(die, at, &mem));
}

/* The function's name, demangled; *raw: its linkage (mangled) name, or NULL. */
static const char *die_name(struct symbolizer *s, Dwarf_Die *die, const char **raw)
{
	const char *name = die_string(die, DW_AT_linkage_name);

	if (!name)
		name = die_string(die, DW_AT_MIPS_linkage_name);
	*raw = name ? intern(s, name) : NULL;
	if (name)
		return symbolizer__demangle(s, name);
	name = die_string(die, DW_AT_name);
	return name ? intern(s, name) : NULL;
}

static uint32_t die_decl_line(Dwarf_Die *die)
{
	int line = 0;

	return dwarf_decl_line(die, &line) == 0 && line > 0 ? (uint32_t)line : 0;
}

/* The call site of an inlined instance: where the next outer frame is. */
static void die_call_site(struct symbolizer *s, Dwarf_Die *die, const char **file, uint32_t *line)
{
	Dwarf_Attribute mem;
	Dwarf_Word idx = 0, ln = 0;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nfiles;
	const char *f = NULL;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &mem), &idx) == 0 &&
	    dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
	    idx < nfiles)
		f = dwarf_filesrc(files, idx, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &mem), &ln) != 0)
		ln = 0;
	*file = f ? intern(s, f) : NULL;
	*line = ln <= UINT32_MAX ? (uint32_t)ln : 0;
}

/*
 * Name vaddr of img into frames[] (innermost first); returns the count, 0
 * when neither the symbol table nor DWARF knows the address.
 */
static size_t image_resolve(struct symbolizer *s, struct image *img, uint64_t vaddr,
			    struct sym_frame *frames)
{
	const char *symname = NULL, *file = NULL, *rawsym, *raw = NULL, *at;
	uint32_t line = 0;
	size_t n = 0;
	GElf_Off off = 0;
	GElf_Sym sym;
	GElf_Word shndx;
	Elf *elf;
	Dwarf_Addr bias;
	Dwarf_Die *cudie, *scopes = NULL;
	int nscopes = 0;
	bool have_sub = false;

	/* Local symbols are searched too: the static cudart's launch
	 * functions are local, hidden symbols. */
	symname = dwfl_module_addrinfo(img->mod, vaddr, &off, &sym, &shndx, &elf, &bias);
	/* A zero-size symbol is only the nearest preceding label: trust it
	 * for the name when DWARF has nothing better, below. */
	if (symname && sym.st_size && off >= sym.st_size)
		symname = NULL;
	/* A symbol table's versioned names ("clock_nanosleep@GLIBC_2.2.5",
	 * "memcpy@@GLIBC_2.14") are still the one function, as perf shows it. */
	if (symname && symname[0] != '@' && (at = strchr(symname, '@')))
		symname = intern_len(s, symname, (size_t)(at - symname));
	rawsym = symname ? intern(s, symname) : NULL;
	if (symname)
		symname = symbolizer__demangle(s, symname);

	if (!s->opts.no_dwarf) {
		Dwfl_Line *l = dwfl_module_getsrc(img->mod, vaddr);
		int ln = 0;

		if (l) {
			const char *f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);

			file = f ? intern(s, f) : NULL;
			line = ln > 0 ? (uint32_t)ln : 0;
		}
		cudie = dwfl_module_addrdie(img->mod, vaddr, &bias);
		if (cudie)
			nscopes = dwarf_getscopes(cudie, vaddr - bias, &scopes);
	}

	for (int i = 0; i < nscopes && n < MAX_FRAMES - 1; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			frames[n] = (struct sym_frame){
				.name = die_name(s, &scopes[i], &raw) ?: s->unknown,
				.file = file,
				.line = line,
				.inlined = true,
				.resolved = true,
				.start_line = die_decl_line(&scopes[i]),
			};
			frames[n++].system_name = raw;
			die_call_site(s, &scopes[i], &file, &line);
		} else if (tag == DW_TAG_subprogram) {
			/* The symbol table's name wins for the real function:
			 * it is what perf and nm show (".constprop.0" and all)
			 * and it is the mangled, fully qualified one. */
			const char *dname = symname ? NULL : die_name(s, &scopes[i], &raw);

			frames[n++] = (struct sym_frame){
				.name = symname ?: dname ?: s->unknown,
				.file = file,
				.line = line,
				.resolved = true,
				.system_name = symname ? rawsym : raw,
				.start_line = die_decl_line(&scopes[i]),
			};
			have_sub = true;
			break;
		}
	}
	free(scopes);

	if (!have_sub) {
		if (!symname) {
			/* Inline frames without their function are still better
			 * than nothing; a bare address is nothing. */
			if (!n)
				return 0;
			symname = s->unknown;
		}
		frames[n++] = (struct sym_frame){.name = symname,
						 .file = file,
						 .line = line,
						 .resolved = true,
						 .system_name = symname != s->unknown ? rawsym : NULL};
	}
	return n;
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
	p = proc_get(s, pid);
	img = p ? image_get(s, path, build_id, build_id_size) : NULL;
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
	return intern(s, buf);
}

/*
 * The start of the function holding vaddr as the CFI tells it, for code no
 * symbol names: every address of a stripped function is then one frame,
 * as perf shows it, not one frame per sampled address.
 */
static bool image_fde_start(struct image *img, uint64_t vaddr, uint64_t *start)
{
	size_t lo = 0, hi;

	if (!img->fdes_read) {
		GElf_Addr bias;
		Elf *elf = dwfl_module_getelf(img->mod, &bias);
		size_t size = 0;
		const char *raw = elf ? elf_rawfile(elf, &size) : NULL;

		img->fdes_read = true;
		/* none (no CFI, not x86-64, no memory): addresses stay as they are */
		if (raw && cfi_table__fde_ranges(raw, size, &img->fdes, &img->nfdes))
			img->nfdes = 0;
	}
	hi = img->nfdes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->fdes[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < FDE_BACKSCAN && lo > 0; k++, lo--) {
		const struct cfi_fde_range *f = &img->fdes[lo - 1];

		if (vaddr < f->end) {
			*start = f->start;
			return true;
		}
	}
	return false;
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
			image_load(s, img);
		if (img->state == IMAGE_OK &&
		    image_vaddr(img, look - m->start + m->pgoff, &vaddr)) {
			n = image_resolve(s, img, vaddr, frames);
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
		if (in_image && image_fde_start(m->img, vaddr, &fn))
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
	/* image_load and interning never touch the cache: e is still the slot. */
	return cache_fill(s, e, pid, addr, flags, gen, buf, n, frames);
}

/* ---- kernel ------------------------------------------------------------ */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int symbolizer__load_kallsyms(struct symbolizer *s, const char *path)
{
	FILE *f = fopen_regular(path);
	struct ksym *syms = NULL;
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	int err = 0;

	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		char *p = line, *end, *name, *mod = NULL;
		uint64_t addr;
		char type;

		addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		type = *p;
		/* Text only: data symbols never hold an instruction pointer. */
		if (!type || !strchr("tTwW", type) || p[1] != ' ')
			continue;
		/* kptr_restrict gives all-zero addresses: nothing can be named. */
		if (!addr)
			continue;
		name = p + 2;
		name[strcspn(name, "\r\n")] = '\0';
		end = strpbrk(name, " \t");
		if (end) {
			*end = '\0';
			mod = strchr(end + 1, '[');
		}
		if (!*name)
			continue;
		if (GP_ALLOC_GROW(syms, n + 1, cap)) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (mod) {
			/* "name [mod]", as perf prints module symbols. */
			char buf[512];

			mod[strcspn(mod, "]")] = '\0';
			snprintf(buf, sizeof(buf), "%s [%s]", name, mod + 1);
			syms[n].name = intern(s, buf);
		} else {
			syms[n].name = intern(s, name);
		}
		if (!syms[n].name) {
			err = -ENOMEM;
			goto cleanup;
		}
		syms[n++].addr = addr;
	}
	if (ferror(f)) {
		err = -EIO;
		goto cleanup;
	}
	if (!n) {
		err = -ENODATA;
		goto cleanup;
	}
	qsort(syms, n, sizeof(*syms), ksym_cmp);
	free(s->ksyms);
	s->ksyms = syms;
	s->nksyms = n;
	syms = NULL;
	/* Earlier kernel lookups answered from the old table. */
	s->kgen++;
cleanup:
	free(syms);
	free(line);
	fclose(f);
	return err;
}

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

/* ---- JIT maps ---------------------------------------------------------- */

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int symbolizer__load_perf_map(struct symbolizer *s, uint32_t pid, const char *path)
{
	FILE *f = fopen_regular(path);
	struct jit_sym *syms = NULL;
	size_t n = 0, cap = 0, linecap = 0, order = 0;
	char *line = NULL;
	struct proc *p;
	int err = 0;

	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		char *q = line, *end;
		uint64_t start, size;

		order++;
		/* "START SIZE name", hex with or without 0x; the name is the
		 * rest of the line and may hold spaces (Python's do). */
		start = strtoull(q, &end, 16);
		if (end == q || *end != ' ')
			continue;
		q = end + 1;
		size = strtoull(q, &end, 16);
		if (end == q || *end != ' ' || !size)
			continue;
		q = end + 1;
		q[strcspn(q, "\r\n")] = '\0';
		if (!*q)
			continue;
		if (GP_ALLOC_GROW(syms, n + 1, cap)) {
			err = -ENOMEM;
			goto cleanup;
		}
		syms[n] = (struct jit_sym){.start = start, .size = size, .order = order};
		syms[n].name = symbolizer__demangle(s, q);
		if (!syms[n].name) {
			err = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	if (ferror(f)) {
		err = -EIO;
		goto cleanup;
	}
	if (n)
		qsort(syms, n, sizeof(*syms), jit_cmp);
	/* Among entries with the same start the last written wins: drop the
	 * earlier ones so the binary search cannot land on a stale name. */
	{
		size_t w = 0;

		for (size_t r = 0; r < n; r++) {
			if (w && syms[w - 1].start == syms[r].start)
				w--;
			syms[w++] = syms[r];
		}
		n = w;
	}
	p = proc_get(s, pid);
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	free(p->jit);
	p->jit = syms;
	p->njit = n;
	p->gen = ++s->gen;
	syms = NULL;
cleanup:
	free(syms);
	free(line);
	fclose(f);
	return err;
}
