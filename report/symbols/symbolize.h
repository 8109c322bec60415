/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbolize.h - turns the addresses of recorded stacks into function names,
 * after the process that owned them may be long gone.
 *
 * User addresses are resolved against the executable mappings recorded in
 * the trace (GP_REC_MODULE: path, range, file offset, build id) with
 * elfutils' libdwfl: ELF symbol tables (local symbols included), DWARF
 * function names with inline chains and file:line where debug info exists,
 * separate debug files found by build id. JIT maps (perf-PID.map) name what
 * no module covers. Kernel addresses are resolved against a kallsyms copy.
 * C++ and CUDA names are demangled (__cxa_demangle). An address nothing
 * names reads "[module+0xoff]" (or "[unknown]" outside every module).
 *
 * Each distinct (pid, address, return_addr) is resolved once (a hash cache;
 * a change to pid's modules, JIT map or parent makes it resolve afresh).
 * Module files are opened lazily, once per (path, build id), and shared by
 * every pid that maps them. Every file a recording names (module paths,
 * kallsyms and JIT map copies) is opened without blocking and without
 * following a link in its last component, and read only when it is a
 * regular file: anything else (a FIFO, a device node, a planted link)
 * counts as missing. Every string and frame returned lives as long
 * as the symbolizer. Not thread-safe; one owner.
 */
#ifndef GPUPERF_SYMBOLIZE_H
#define GPUPERF_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One frame of a resolved address (one address gives 1 + inline depth frames). */
struct sym_frame {
	const char *name; /* demangled function name, or "[module+0xoff]" / "[unknown]" */
	const char *file; /* source file, NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	bool inlined;	  /* an inlined function (flamegraph.pl's _[i]) */
	bool jit;	  /* named by a perf-PID.map (flamegraph.pl's _[j]) */
	bool resolved;	  /* false: a "[module+0xoff]" or "[unknown]" placeholder */
	const char *system_name; /* the name as the binary spells it (mangled); NULL: as name */
	uint32_t start_line;	 /* the function's first line (DW_AT_decl_line); 0 when unknown */
};

struct symbolizer_opts {
	/* Extra directories (':'-separated) searched for separate debug
	 * files, before the default /usr/lib/debug: DIR/.build-id/xx/yyyy.debug
	 * and DIR/<module's dir>/<.gnu_debuglink name>. NULL: none. Copied. */
	const char *debuginfo_path;
	/* Leave DWARF out: symbol tables only (no inline frames, no lines). */
	bool no_dwarf;
};

struct symbolizer;

/* NULL + errno (ENOMEM) on failure. opts may be NULL. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
void symbolizer__free(struct symbolizer *s);

/*
 * Record one executable mapping of process `pid` (from a GP_REC_MODULE).
 * Later mappings that overlap earlier ones replace them for lookups (an
 * exec, a dlclose + dlopen). A file that is gone or changed (build id
 * differs) only yields "[module+0xoff]" names. 0, -EINVAL (no path, or
 * end <= start: nothing recorded) or -ENOMEM.
 */
int symbolizer__add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t start,
			   uint64_t end, uint64_t pgoff, const uint8_t *build_id,
			   size_t build_id_size);

/*
 * `pid` was forked from `ppid`: lookups in pid that no module of pid covers
 * fall back to ppid's modules (a child shares its parent's image until it
 * execs or maps its own).
 */
void symbolizer__set_parent(struct symbolizer *s, uint32_t pid, uint32_t ppid);

/* Load a kallsyms copy ("addr type name [module]" lines). 0, -errno
 * (-EINVAL: not a regular file, -ELOOP: a symbolic link). */
int symbolizer__load_kallsyms(struct symbolizer *s, const char *path);
/* Load a JIT map ("start size name" lines, hex) for pid. 0, -errno, as kallsyms. */
int symbolizer__load_perf_map(struct symbolizer *s, uint32_t pid, const char *path);

/*
 * Resolve a user address of pid. `return_addr`: the address is a return
 * address (every frame of a stack but the first), so the call instruction
 * before it is the one looked up. Sets *frames to 1 + n frames, innermost
 * first (the inlined callee first, the real function last), and returns
 * their number (>= 1). Never fails: on any error the placeholder name.
 */
size_t symbolizer__user(struct symbolizer *s, uint32_t pid, uint64_t addr, bool return_addr,
			const struct sym_frame **frames);

/* The recorded mapping (of pid or the ancestor it was forked from) that holds addr. */
struct sym_module {
	const char *path;
	uint64_t start, end, pgoff;
	const uint8_t *build_id;
	size_t build_id_size;
};
/* 0 and *m filled, or -ENOENT when no module of pid covers addr. */
int symbolizer__module(const struct symbolizer *s, uint32_t pid, uint64_t addr,
		       struct sym_module *m);

/*
 * Resolve a kernel address: "function" or "function [module]", or the
 * placeholder "[kernel+0xaddr]" (resolved=false) below every symbol or
 * without a kallsyms copy. Never NULL; cached like user addresses.
 */
const struct sym_frame *symbolizer__kernel(struct symbolizer *s, uint64_t addr);

/*
 * Demangle a C++/CUDA (Itanium ABI) name. Returns an interned string that
 * lives as long as s: the demangled name, or a copy of `name` when it is not
 * mangled or does not demangle. NULL only for a NULL name.
 */
const char *symbolizer__demangle(struct symbolizer *s, const char *name);

/* Counters for the summary. */
struct symbolizer_stats {
	uint64_t lookups;	 /* calls to __user/__kernel */
	uint64_t distinct;	 /* distinct addresses resolved (the rest hit the cache) */
	uint64_t unresolved;	 /* distinct addresses left as placeholders */
	uint64_t modules_missing; /* module files that could not be opened */
	uint64_t build_id_mismatch; /* module files whose build id differs: not used */
	uint64_t images;	  /* distinct module files opened (shared by all pids) */
};
void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st);

#endif /* GPUPERF_SYMBOLIZE_H */
