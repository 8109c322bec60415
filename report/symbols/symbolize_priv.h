/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbolize_priv.h - what the symbolizer's files share, and no one else:
 * struct symbolizer and what it holds (images, processes, the cache), and
 * the calls between its files:
 *
 *   symbolize.c         the object, processes, modules, the per-address cache,
 *                       user and kernel lookups, demangling, interned strings
 *   sym_image.c         one module file: opened once, its segments, DWARF
 *                       names and inline chains, FDE ranges
 *   sym_debuginfo.c     finding a module's separate debug file
 *   sym_kallsyms.c      the kernel's symbols from DIR/kallsyms
 *   sym_perf_map.c      JIT symbols from /tmp/perf-PID.map
 *
 * Not thread-safe, as the symbolizer.
 */
#ifndef GPUPERF_SYMBOLIZE_PRIV_H
#define GPUPERF_SYMBOLIZE_PRIV_H

#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <gelf.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gp_strtab.h"
#include "u64map.h"
#include "symbolize.h"

struct cfi_fde_range;

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

/* symbolize.c */
const char *sym_intern_len(struct symbolizer *s, const char *str, size_t len);
const char *sym_intern(struct symbolizer *s, const char *str);
const char *sym_basename(const char *path);
int sym_open_regular(const char *path);
FILE *sym_fopen_regular(const char *path);
struct proc *sym_proc_get(struct symbolizer *s, uint32_t pid);

/* sym_debuginfo.c: elfutils' find_debuginfo callback */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       const char *file_name, const char *debuglink, GElf_Word crc,
		       char **debuginfo_file_name);

/* sym_image.c */
struct image *sym_image_get(struct symbolizer *s, const char *path, const uint8_t *bid,
			    size_t bid_size);
void sym_image_load(struct symbolizer *s, struct image *img);
bool sym_image_vaddr(const struct image *img, uint64_t off, uint64_t *vaddr);
size_t sym_image_resolve(struct symbolizer *s, struct image *img, uint64_t vaddr,
			 struct sym_frame *frames);
bool sym_image_fde_start(struct image *img, uint64_t vaddr, uint64_t *start);

#endif /* GPUPERF_SYMBOLIZE_PRIV_H */
