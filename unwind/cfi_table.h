/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cfi_table.h - a module's call frame information (.eh_frame, and
 * .debug_frame when read from a file) turned into one compact, sorted,
 * immutable array of gp_cfi_row (cfi_row.h): address range -> how to find
 * the CFA, the return address and the caller's rbp.
 *
 * Two inputs: a module mapped in this process (its program headers, as
 * dl_iterate_phdr gives them: PT_GNU_EH_FRAME locates .eh_frame_hdr, whose
 * search table lists every FDE), and an ELF file (read through a file
 * descriptor; needs no libelf). Both give the same rows for the same file's
 * .eh_frame, in ELF virtual addresses.
 *
 * The rows: each FDE's CFA program is run (every DW_CFA_* GCC and clang
 * emit), a row is written where the rule changes, a GP_CFI_NONE row where
 * an FDE ends and no other begins, and adjacent equal rows are merged. An
 * FDE with the 'S' augmentation (glibc's __restore_rt) is one
 * GP_CFI_SIGNAL row; the CFA expression ld writes for .plt is recognised
 * (GP_CFI_PLT); a CFA in rsp, rbp or rbx plus an offset is GP_CFI_RSP,
 * GP_CFI_RBP or GP_CFI_RBX, and where the caller's rbp and rbx were saved
 * is kept beside it; any other expression for the CFA or the return
 * address, or a CFA in another register, is GP_CFI_UNKNOWN, so an
 * unwinder stops there instead of guessing.
 * Overlapping FDEs: the one that starts later wins from its start on;
 * .eh_frame wins over .debug_frame for a range both describe.
 *
 * Errors: 0 or -errno (-ENOEXEC: not an x86-64 ELF or no CFI at all;
 * -EINVAL: malformed header; -ERANGE: addresses beyond 4 GiB; -ENOMEM).
 * Malformed entries are skipped and counted in the stats, never read past
 * the section or segment that holds them.
 *
 * Threads: building allocates and may take milliseconds (libc: ~3k FDEs);
 * a built table is immutable, so any number of threads may look it up with
 * no lock. cfi_table__find() neither allocates nor writes.
 */
#ifndef GPUPERF_UNWIND_CFI_TABLE_H
#define GPUPERF_UNWIND_CFI_TABLE_H

#include <link.h> /* ElfW */
#include <stddef.h>
#include <stdint.h>

#include "cfi_row.h"

struct cfi_table;

struct cfi_table_stats {
	uint32_t fdes;		/* FDEs turned into rows */
	uint32_t fdes_bad;	/* FDEs (or CIEs) skipped: malformed or unsupported */
	uint32_t fdes_debug;	/* of `fdes`, from .debug_frame */
	uint32_t rows;		/* rows in the table */
	uint32_t rows_unknown;	/* GP_CFI_UNKNOWN rows */
	uint32_t rows_plt;	/* GP_CFI_PLT rows */
	uint32_t rows_signal;	/* GP_CFI_SIGNAL rows */
	uint32_t rows_end;	/* GP_CFI_END rows */
	uint32_t rows_rbx;	/* GP_CFI_RBX rows */
};

/*
 * Build the table of a module mapped in this process: `bias` is its load
 * bias (dlpi_addr), `phdr`/`phnum` its program headers. Reads only inside
 * the module's readable PT_LOAD segments.
 */
int cfi_table__from_phdrs(uintptr_t bias, const ElfW(Phdr) *phdr, size_t phnum,
			  struct cfi_table **out);
/* Build the table of the ELF file open at `fd` (.eh_frame and .debug_frame). */
int cfi_table__from_fd(int fd, struct cfi_table **out);
/* Same, opening `path` (O_RDONLY|O_CLOEXEC). */
int cfi_table__from_file(const char *path, struct cfi_table **out);
/*
 * A table of rows kept elsewhere (the on-disk cache, cfi_file.h), copied:
 * they must be a table as a builder writes it (starts strictly increasing,
 * known kinds, a PLT threshold up to 15, the last row GP_CFI_NONE), else
 * -EINVAL. @fdes (may be NULL) gives the FDE counts of the stats; the row
 * counts are the rows'.
 */
int cfi_table__from_rows(const struct gp_cfi_row *rows, uint32_t nrows,
			 const struct cfi_table_stats *fdes, struct cfi_table **out);
void cfi_table__free(struct cfi_table *t);

/*
 * The row covering module-relative address `addr` (pc - bias; pc - 1 for a
 * return address). Never NULL: an address no FDE covers gets a static
 * GP_CFI_NONE row.
 */
const struct gp_cfi_row *cfi_table__find(const struct cfi_table *t, uint64_t addr);

/*
 * The functions the CFI describes, where no symbol table is left (strip
 * keeps .eh_frame): each FDE's [start, end) in ELF virtual addresses,
 * sorted by start (.eh_frame's where .debug_frame describes the same
 * code), of the ELF file image elf[0, size) (a whole file, as read or
 * mapped). *out is malloc'ed (NULL when there are none); errors as
 * cfi_table__from_fd's.
 */
struct cfi_fde_range {
	uint64_t start, end;
};
int cfi_table__fde_ranges(const void *elf, size_t size, struct cfi_fde_range **out, size_t *nr);

/* The rows, sorted by start, for writing the table elsewhere (a BPF map). */
const struct gp_cfi_row *cfi_table__rows(const struct cfi_table *t, uint32_t *nrows);
void cfi_table__stats(const struct cfi_table *t, struct cfi_table_stats *st);

#endif /* GPUPERF_UNWIND_CFI_TABLE_H */
