/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cfi_dwarf.h - reading .eh_frame and .debug_frame: the bounded cursor,
 * CIEs and FDEs, and the CFA program run into rows. Private to unwind/:
 * cfi_table.c turns a module's FDEs into its table with these.
 */
#ifndef GPUPERF_UNWIND_CFI_DWARF_H
#define GPUPERF_UNWIND_CFI_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cfi_table.h"

/* DWARF register numbers on x86-64 */
#define DW_RBX 3
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

/* Pointer encodings (LSB, .eh_frame) */
#define DW_EH_PE_absptr	 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2	 0x02
#define DW_EH_PE_udata4	 0x03
#define DW_EH_PE_udata8	 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2	 0x0a
#define DW_EH_PE_sdata4	 0x0b
#define DW_EH_PE_sdata8	 0x0c
#define DW_EH_PE_pcrel	 0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_indirect 0x80
#define DW_EH_PE_omit	 0xff

/*
 * A byte range and the virtual address of its first byte: a section of a
 * file, or a PT_LOAD segment of a mapped module. Every read stays inside.
 */
struct region {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;
};

struct cur {
	const struct region *r;
	const uint8_t *p, *end;
	bool bad;
};


static inline void cur_init(struct cur *c, const struct region *r, const uint8_t *p,
			    const uint8_t *end)
{
	c->r = r;
	c->p = p;
	c->end = end;
	c->bad = p > end;
}

static inline bool cur_take(struct cur *c, void *dst, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		memset(dst, 0, n);
		return false;
	}
	memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static inline uint8_t rd_u8(struct cur *c)
{
	uint8_t v;

	cur_take(c, &v, 1);
	return v;
}

static inline uint16_t rd_u16(struct cur *c)
{
	uint16_t v;

	cur_take(c, &v, 2);
	return v;
}

static inline uint32_t rd_u32(struct cur *c)
{
	uint32_t v;

	cur_take(c, &v, 4);
	return v;
}

static inline uint64_t rd_u64(struct cur *c)
{
	uint64_t v;

	cur_take(c, &v, 8);
	return v;
}

static inline uint64_t rd_uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = rd_u8(c);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	return v;
}

static inline int64_t rd_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = rd_u8(c);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static inline uint64_t cur_vaddr(const struct cur *c)
{
	return c->r->vaddr + (uint64_t)(c->p - c->r->data);
}

/*
 * An encoded pointer; `datarel` is the base of DW_EH_PE_datarel (the
 * .eh_frame_hdr). Indirect pointers would need a read of the module's data:
 * never needed for what we decode (pc_begin, the hdr table), so refused.
 */
static inline uint64_t rd_ptr(struct cur *c, uint8_t enc, uint64_t datarel)
{
	uint64_t at = cur_vaddr(c), v;

	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = rd_u64(c); break;
	case DW_EH_PE_uleb128: v = rd_uleb(c); break;
	case DW_EH_PE_udata2: v = rd_u16(c); break;
	case DW_EH_PE_udata4: v = rd_u32(c); break;
	case DW_EH_PE_udata8: v = rd_u64(c); break;
	case DW_EH_PE_sleb128: v = (uint64_t)rd_sleb(c); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)rd_u16(c); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)rd_u32(c); break;
	case DW_EH_PE_sdata8: v = rd_u64(c); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case DW_EH_PE_pcrel: v += at; break;
	case DW_EH_PE_datarel: v += datarel; break;
	default: c->bad = true; return 0; /* textrel, funcrel, aligned: not used on x86-64 Linux */
	}
	if (enc & DW_EH_PE_indirect)
		c->bad = true;
	return v;
}

/* Skip a pointer of encoding `enc` without decoding it (personality routines may be indirect). */
static inline void skip_ptr(struct cur *c, uint8_t enc)
{
	uint8_t scratch[8];

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: cur_take(c, scratch, 8); break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: cur_take(c, scratch, 4); break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: cur_take(c, scratch, 2); break;
	case DW_EH_PE_uleb128: rd_uleb(c); break;
	case DW_EH_PE_sleb128: rd_sleb(c); break;
	default: c->bad = true;
	}
}


/* ---- CIEs and FDEs ---- */

struct cie {
	const uint8_t *at;		/* the CIE's first byte: its identity */
	const uint8_t *insns, *insns_end;
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool has_z;
	bool signal;
	bool ok;
};

struct fde {
	uint64_t begin, end;
	const uint8_t *at;
	const struct region *r;
	bool debug;
};

/* ---- the CFA program ---- */

#define R_SAME	0
#define R_UNDEF 1
#define R_OFF	2
#define R_OTHER 3

#define CFA_REG	 0
#define CFA_PLT	 1
#define CFA_EXPR 2

struct rule {
	uint8_t how;
	int64_t off;
};

struct state {
	uint8_t cfa_how;
	uint8_t plt_arg;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct rule rbx, rbp, ra;
};

#define STATE_STACK 16

struct rows {
	struct gp_cfi_row *v;
	size_t n, cap;
	int err;
};

struct fdes {
	struct fde *v;
	size_t n, cap;
	struct cfi_table_stats st;
	uint64_t entry;	/* the file's ELF entry point (from a file only); 0: none */
	/*
	 * _init and _fini (DT_INIT, DT_FINI) as crti.o and crtn.o write them,
	 * which no FDE covers: [begin, body) is `[endbr64] sub $8,%rsp`,
	 * [body, ret) runs with one slot pushed, `ret` is the return.
	 */
	struct { uint64_t begin, body, ret; } crt[2];
	unsigned ncrt;
};

/* Append a row; one at the same start replaces it (rs->err on no memory). */
void cfi_dwarf__rows_put(struct rows *rs, const struct gp_cfi_row *row);

/* The row of state `s` from `start`: its kind, CFA and saved registers. */
void cfi_dwarf__state_to_row(const struct state *s, bool signal, uint64_t start,
			     struct gp_cfi_row *row);

/*
 * Run a CFA program. With `rs` NULL (a CIE's initial instructions) only
 * the state is computed; otherwise a row is written at each location the
 * program reaches. Returns false on a malformed or unsupported program.
 */
bool cfi_dwarf__run_cfa(struct cur *c, const struct cie *cie, const struct state *init,
			struct state *s, uint64_t *loc, uint64_t end, struct rows *rs);

/* qsort order of FDEs: by start, .eh_frame before .debug_frame. */
int cfi_dwarf__fde_cmp(const void *a, const void *b);

int cfi_dwarf__fdes_add(struct fdes *f, const struct fde *e);

/*
 * Read one FDE's header at `at` in `r`: its range and CIE. Returns false
 * for a CIE, a terminator or a malformed entry. `cie` is a one-entry cache
 * (consecutive FDEs share their CIE).
 */
bool cfi_dwarf__fde_read(const struct region *r, const uint8_t *at, bool debug, struct cie *cie,
			 struct fde *out, struct cur *body);

/* Every FDE of a whole section, in order (a file's .eh_frame or .debug_frame). */
int cfi_dwarf__fdes_scan(struct fdes *f, const struct region *r, bool debug);

#endif /* GPUPERF_UNWIND_CFI_DWARF_H */
