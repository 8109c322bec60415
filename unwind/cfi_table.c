// SPDX-License-Identifier: Apache-2.0
/* cfi_table: .eh_frame / .debug_frame CFA programs run once per module into a sorted row array. */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_table.h"
#include "gp_alloc.h"

struct cfi_table {
	struct cfi_table_stats st;
	uint32_t nrows;
	struct gp_cfi_row rows[];
};

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

static void cur_init(struct cur *c, const struct region *r, const uint8_t *p, const uint8_t *end)
{
	c->r = r;
	c->p = p;
	c->end = end;
	c->bad = p > end;
}

static bool cur_take(struct cur *c, void *dst, size_t n)
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

static uint8_t rd_u8(struct cur *c)
{
	uint8_t v;

	cur_take(c, &v, 1);
	return v;
}

static uint16_t rd_u16(struct cur *c)
{
	uint16_t v;

	cur_take(c, &v, 2);
	return v;
}

static uint32_t rd_u32(struct cur *c)
{
	uint32_t v;

	cur_take(c, &v, 4);
	return v;
}

static uint64_t rd_u64(struct cur *c)
{
	uint64_t v;

	cur_take(c, &v, 8);
	return v;
}

static uint64_t rd_uleb(struct cur *c)
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

static int64_t rd_sleb(struct cur *c)
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

static uint64_t cur_vaddr(const struct cur *c)
{
	return c->r->vaddr + (uint64_t)(c->p - c->r->data);
}

/*
 * An encoded pointer; `datarel` is the base of DW_EH_PE_datarel (the
 * .eh_frame_hdr). Indirect pointers would need a read of the module's data:
 * never needed for what we decode (pc_begin, the hdr table), so refused.
 */
static uint64_t rd_ptr(struct cur *c, uint8_t enc, uint64_t datarel)
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
static void skip_ptr(struct cur *c, uint8_t enc)
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

/*
 * An entry's header: its length (4 bytes, or 0xffffffff and 8 bytes), then
 * the CIE id / CIE pointer field. On return c->end is the entry's end.
 * Returns false at a terminator or a malformed length.
 */
static bool entry_open(struct cur *c, bool *is64, const uint8_t **next)
{
	uint64_t len = rd_u32(c);

	*is64 = false;
	if (len == 0xffffffffu) {
		len = rd_u64(c);
		*is64 = true;
	}
	if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p))
		return false;
	c->end = c->p + len;
	*next = c->end;
	return true;
}

static bool cie_parse(const struct region *r, const uint8_t *at, bool debug, struct cie *cie)
{
	struct cur c;
	const uint8_t *next;
	const char *aug;
	size_t auglen;
	uint8_t version;
	uint64_t id, ra;
	bool is64;

	memset(cie, 0, sizeof(*cie));
	cie->at = at;
	cur_init(&c, r, at, r->data + r->size);
	if (!entry_open(&c, &is64, &next))
		return false;
	id = is64 ? rd_u64(&c) : rd_u32(&c);
	if (id != (debug ? (is64 ? ~(uint64_t)0 : 0xffffffffu) : 0))
		return false;
	version = rd_u8(&c);
	if (version != 1 && version != 3 && version != 4)
		return false;
	aug = (const char *)c.p;
	auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return false;
	c.p += auglen + 1;
	if (version == 4) {
		if (rd_u8(&c) != 8 || rd_u8(&c) != 0) /* address size, segment selector size */
			return false;
	}
	cie->code_align = rd_uleb(&c);
	cie->data_align = rd_sleb(&c);
	ra = version == 1 ? rd_u8(&c) : rd_uleb(&c);
	if (ra != DW_RA)
		return false;
	cie->fde_enc = DW_EH_PE_absptr; /* .debug_frame: 8-byte addresses */
	if (aug[0] == 'z') {
		uint64_t alen = rd_uleb(&c);
		const uint8_t *aend;
		const char *a;

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return false;
		aend = c.p + alen;
		cie->has_z = true;
		for (a = aug + 1; *a; a++) {
			switch (*a) {
			case 'R': cie->fde_enc = rd_u8(&c); break;
			case 'L': rd_u8(&c); break;
			case 'P': skip_ptr(&c, rd_u8(&c)); break;
			case 'S': cie->signal = true; break;
			default: return false; /* unknown augmentation: the data after it cannot be parsed */
			}
		}
		if (c.bad || c.p > aend)
			return false;
		c.p = aend;
	} else if (aug[0]) {
		return false; /* "eh" and other pre-'z' augmentations */
	}
	if (c.bad)
		return false;
	cie->insns = c.p;
	cie->insns_end = c.end;
	cie->ok = true;
	return true;
}

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

static void rows_put(struct rows *rs, const struct gp_cfi_row *row)
{
	if (rs->n && rs->v[rs->n - 1].start == row->start) {
		rs->v[rs->n - 1] = *row;
		return;
	}
	if (GP_ALLOC_GROW(rs->v, rs->n + 1, rs->cap)) {
		rs->err = -ENOMEM;
		return;
	}
	rs->v[rs->n++] = *row;
}

/* The PLT's CFA expression as ld writes it, with DW_OP_lit<N> as the threshold. */
static bool is_plt_expr(const uint8_t *e, uint64_t len, uint8_t *arg)
{
	static const uint8_t plt[11] = {
		0x77, 0x08,	/* DW_OP_breg7 (rsp) 8 */
		0x80, 0x00,	/* DW_OP_breg16 (rip) 0 */
		0x3f,		/* DW_OP_lit15 */
		0x1a,		/* DW_OP_and */
		0x30,		/* DW_OP_lit<N>: 11, 10 for IBT PLTs */
		0x2a,		/* DW_OP_ge */
		0x33,		/* DW_OP_lit3 */
		0x24,		/* DW_OP_shl */
		0x22,		/* DW_OP_plus */
	};

	if (len != sizeof(plt) || memcmp(e, plt, 6) || memcmp(e + 7, plt + 7, 4) ||
	    e[6] < 0x30 || e[6] > 0x3f)
		return false;
	*arg = (uint8_t)(e[6] - 0x30);
	return true;
}

static void state_to_row(const struct state *s, bool signal, uint64_t start, struct gp_cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	row->start = (uint32_t)start;
	if (signal) {
		row->kind = GP_CFI_SIGNAL;
		return;
	}
	if (s->ra.how == R_UNDEF) {
		row->kind = GP_CFI_END;
		return;
	}
	row->kind = GP_CFI_UNKNOWN;
	if (s->ra.how != R_OFF || s->ra.off != -8)
		return;
	if (s->cfa_how == CFA_PLT) {
		row->kind = GP_CFI_PLT;
		row->arg = s->plt_arg;
		row->cfa_off = 8;
	} else if (s->cfa_how == CFA_REG &&
		   (s->cfa_reg == DW_RSP || s->cfa_reg == DW_RBP || s->cfa_reg == DW_RBX) &&
		   s->cfa_off >= INT32_MIN && s->cfa_off <= INT32_MAX) {
		row->kind = s->cfa_reg == DW_RSP   ? GP_CFI_RSP
			    : s->cfa_reg == DW_RBP ? GP_CFI_RBP
						   : GP_CFI_RBX;
		row->cfa_off = (int32_t)s->cfa_off;
		if (s->rbx.how == R_SAME)
			row->arg = GP_CFI_RBX_SAME;
		else if (s->rbx.how == R_OFF && s->rbx.off < 0 && s->rbx.off >= -8 * 254 &&
			 !(s->rbx.off & 7))
			row->arg = (uint8_t)GP_CFI_RBX_AT(-s->rbx.off / 8);
		else
			row->arg = GP_CFI_RBX_LOST;
	} else {
		return;
	}
	if (s->rbp.how == R_SAME)
		row->rbp_off = GP_CFI_RBP_SAME;
	else if (s->rbp.how == R_OFF && s->rbp.off < 0 && s->rbp.off >= INT16_MIN && !(s->rbp.off & 7))
		row->rbp_off = (int16_t)s->rbp.off;
	else
		row->rbp_off = GP_CFI_RBP_LOST;
}

static struct rule *rule_of(struct state *s, uint64_t reg)
{
	if (reg == DW_RBX)
		return &s->rbx;
	if (reg == DW_RBP)
		return &s->rbp;
	if (reg == DW_RA)
		return &s->ra;
	return NULL;
}

/*
 * Run a CFA program. With `rs` NULL (a CIE's initial instructions) only
 * the state is computed; otherwise a row is written at each location the
 * program reaches. Returns false on a malformed or unsupported program.
 */
static bool run_cfa(struct cur *c, const struct cie *cie, const struct state *init, struct state *s,
		    uint64_t *loc, uint64_t end, struct rows *rs)
{
	struct state stack[STATE_STACK];
	unsigned depth = 0;
	struct gp_cfi_row row;
	struct rule *r;
	uint64_t reg, delta, len;
	int64_t off;
	uint8_t op;

	while (c->p < c->end && !c->bad) {
		op = rd_u8(c);
		delta = 0;
		switch (op & 0xc0) {
		case 0x40: /* DW_CFA_advance_loc */
			delta = (uint64_t)(op & 0x3f) * cie->code_align;
			goto advance;
		case 0x80: /* DW_CFA_offset */
			off = (int64_t)rd_uleb(c) * cie->data_align;
			if ((r = rule_of(s, op & 0x3f)))
				*r = (struct rule){ R_OFF, off };
			continue;
		case 0xc0: /* DW_CFA_restore */
			if (!init)
				return false;
			if ((r = rule_of(s, op & 0x3f)))
				*r = *rule_of((struct state *)init, op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00: /* DW_CFA_nop */
			break;
		case 0x01: /* DW_CFA_set_loc */
		{
			uint64_t to = rd_ptr(c, cie->fde_enc, 0);

			if (to < *loc)
				return false;
			delta = to - *loc;
			goto advance;
		}
		case 0x02: delta = rd_u8(c) * cie->code_align; goto advance;
		case 0x03: delta = rd_u16(c) * cie->code_align; goto advance;
		case 0x04: delta = rd_u32(c) * cie->code_align; goto advance;
		case 0x05: /* DW_CFA_offset_extended */
			reg = rd_uleb(c);
			off = (int64_t)rd_uleb(c) * cie->data_align;
			if ((r = rule_of(s, reg)))
				*r = (struct rule){ R_OFF, off };
			break;
		case 0x06: /* DW_CFA_restore_extended */
			reg = rd_uleb(c);
			if (!init)
				return false;
			if ((r = rule_of(s, reg)))
				*r = *rule_of((struct state *)init, reg);
			break;
		case 0x07: /* DW_CFA_undefined */
		case 0x08: /* DW_CFA_same_value */
			if ((r = rule_of(s, rd_uleb(c))))
				*r = (struct rule){ op == 0x07 ? R_UNDEF : R_SAME, 0 };
			break;
		case 0x09: /* DW_CFA_register */
			if ((r = rule_of(s, rd_uleb(c))))
				*r = (struct rule){ R_OTHER, 0 };
			rd_uleb(c);
			break;
		case 0x0a: /* DW_CFA_remember_state */
			if (depth == STATE_STACK)
				return false;
			stack[depth++] = *s;
			break;
		case 0x0b: /* DW_CFA_restore_state: the whole row, CFA included, as libgcc does */
			if (!depth)
				return false;
			*s = stack[--depth];
			break;
		case 0x0c: /* DW_CFA_def_cfa */
			s->cfa_how = CFA_REG;
			s->cfa_reg = rd_uleb(c);
			s->cfa_off = (int64_t)rd_uleb(c);
			break;
		case 0x0d: /* DW_CFA_def_cfa_register */
			s->cfa_how = CFA_REG;
			s->cfa_reg = rd_uleb(c);
			break;
		case 0x0e: /* DW_CFA_def_cfa_offset */
			s->cfa_off = (int64_t)rd_uleb(c);
			break;
		case 0x0f: /* DW_CFA_def_cfa_expression */
			len = rd_uleb(c);
			if (c->bad || len > (uint64_t)(c->end - c->p))
				return false;
			s->cfa_how = is_plt_expr(c->p, len, &s->plt_arg) ? CFA_PLT : CFA_EXPR;
			c->p += len;
			break;
		case 0x10: /* DW_CFA_expression */
		case 0x16: /* DW_CFA_val_expression */
			reg = rd_uleb(c);
			len = rd_uleb(c);
			if (c->bad || len > (uint64_t)(c->end - c->p))
				return false;
			c->p += len;
			if ((r = rule_of(s, reg)))
				*r = (struct rule){ R_OTHER, 0 };
			break;
		case 0x11: /* DW_CFA_offset_extended_sf */
			reg = rd_uleb(c);
			off = rd_sleb(c) * cie->data_align;
			if ((r = rule_of(s, reg)))
				*r = (struct rule){ R_OFF, off };
			break;
		case 0x12: /* DW_CFA_def_cfa_sf */
			s->cfa_how = CFA_REG;
			s->cfa_reg = rd_uleb(c);
			s->cfa_off = rd_sleb(c) * cie->data_align;
			break;
		case 0x13: /* DW_CFA_def_cfa_offset_sf */
			s->cfa_off = rd_sleb(c) * cie->data_align;
			break;
		case 0x14: /* DW_CFA_val_offset */
		case 0x15: /* DW_CFA_val_offset_sf */
			reg = rd_uleb(c);
			if (op == 0x14)
				rd_uleb(c);
			else
				rd_sleb(c);
			if ((r = rule_of(s, reg)))
				*r = (struct rule){ R_OTHER, 0 };
			break;
		case 0x2e: /* DW_CFA_GNU_args_size: for landing pads, not for unwinding */
			rd_uleb(c);
			break;
		case 0x2f: /* DW_CFA_GNU_negative_offset_extended */
			reg = rd_uleb(c);
			off = -(int64_t)rd_uleb(c) * cie->data_align;
			if ((r = rule_of(s, reg)))
				*r = (struct rule){ R_OFF, off };
			break;
		default:
			return false;
		}
		continue;
advance:
		if (!rs)
			return false; /* a CIE's initial instructions do not advance */
		if (delta > end - *loc)
			delta = end - *loc;
		if (delta) {
			state_to_row(s, cie->signal, *loc, &row);
			rows_put(rs, &row);
			*loc += delta;
		}
	}
	return !c->bad;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	/* .eh_frame first: it wins a tie (dedup keeps the first) */
	return (int)x->debug - (int)y->debug;
}

struct fdes {
	struct fde *v;
	size_t n, cap;
	struct cfi_table_stats st;
	uint64_t entry;	/* the file's ELF entry point (from a file only); 0: none */
};

static int fdes_add(struct fdes *f, const struct fde *e)
{
	if (GP_ALLOC_GROW(f->v, f->n + 1, f->cap))
		return -ENOMEM;
	f->v[f->n++] = *e;
	return 0;
}

/*
 * Read one FDE's header at `at` in `r`: its range and CIE. Returns false
 * for a CIE, a terminator or a malformed entry. `cie` is a one-entry cache
 * (consecutive FDEs share their CIE).
 */
static bool fde_read(const struct region *r, const uint8_t *at, bool debug, struct cie *cie,
		     struct fde *out, struct cur *body)
{
	struct cur c;
	const uint8_t *next, *cie_at, *idp;
	uint64_t id, range;
	bool is64;

	cur_init(&c, r, at, r->data + r->size);
	if (!entry_open(&c, &is64, &next))
		return false;
	idp = c.p;
	id = is64 ? rd_u64(&c) : rd_u32(&c);
	if (c.bad)
		return false;
	if (debug) {
		if (id == (is64 ? ~(uint64_t)0 : 0xffffffffu) || id >= r->size)
			return false;
		cie_at = r->data + id;
	} else {
		if (id == 0 || id > (uint64_t)(idp - r->data))
			return false;
		cie_at = idp - id;
	}
	if (cie->at != cie_at && !cie_parse(r, cie_at, debug, cie))
		cie->ok = false;
	if (!cie->ok)
		return false;
	out->begin = rd_ptr(&c, cie->fde_enc, 0);
	range = rd_ptr(&c, cie->fde_enc & 0x0f, 0);
	if (cie->has_z) {
		uint64_t alen = rd_uleb(&c);

		if (alen > (uint64_t)(c.end - c.p))
			return false;
		c.p += alen;
	}
	if (c.bad || range == 0 || out->begin + range < out->begin)
		return false;
	out->end = out->begin + range;
	out->at = at;
	out->r = r;
	out->debug = debug;
	if (body)
		*body = c;
	return true;
}

/* Every FDE of a whole section, in order (a file's .eh_frame or .debug_frame). */
static int fdes_scan(struct fdes *f, const struct region *r, bool debug)
{
	const uint8_t *p = r->data, *end = r->data + r->size, *next;
	struct cie cie = { 0 };
	struct fde e;
	struct cur c;
	bool is64;
	int err;

	while (p < end) {
		cur_init(&c, r, p, end);
		if ((size_t)(end - p) >= 4 && !memcmp(p, "\0\0\0\0", 4)) {
			if (!debug)
				break; /* .eh_frame's terminator */
			p += 4;	   /* padding */
			continue;
		}
		if (!entry_open(&c, &is64, &next))
			break;
		if (fde_read(r, p, debug, &cie, &e, NULL)) {
			if ((err = fdes_add(f, &e)))
				return err;
		} else {
			/* a CIE, or an FDE we cannot read */
			uint64_t id;

			cur_init(&c, r, p, end);
			entry_open(&c, &is64, &next);
			id = is64 ? rd_u64(&c) : rd_u32(&c);
			if (id != (debug ? (is64 ? ~(uint64_t)0 : 0xffffffffu) : 0))
				f->st.fdes_bad++;
		}
		p = next;
	}
	return 0;
}

/*
 * A gap shorter than this between an FDE that ends in its entry state
 * (CFA rsp + 8, nothing saved) and the next FDE continues the first:
 * glibc's clone3 closes its FDE before the syscall and opens the child's
 * after the parent's `ret`, so the parent returning from the syscall (a
 * thread's creator, preempted there) has no CFI, and what it runs there
 * (test, branch, ret) leaves the stack as at entry. Padding between
 * functions never runs; a function without CFI this short has no frame.
 */
#define GAP_CONTINUES 16

static bool entry_state(const struct state *s)
{
	return s->cfa_how == CFA_REG && s->cfa_reg == DW_RSP && s->cfa_off == 8 &&
	       s->ra.how == R_OFF && s->ra.off == -8 && s->rbp.how == R_SAME;
}

/*
 * The ELF entry point's first instruction is a process's outermost frame
 * when no FDE covers it: ld.so's _start has no CFI, and a process
 * preempted on its way back from exec, before it ran anything, is there
 * with rbp 0 as the kernel left it, which a live rbp cannot vouch for.
 * One END row covers that instruction alone.
 */
static int mark_entry(struct rows *rs, uint64_t entry)
{
	struct gp_cfi_row end = { .start = (uint32_t)entry, .kind = GP_CFI_END };
	struct gp_cfi_row none = { .start = (uint32_t)entry + 1, .kind = GP_CFI_NONE };
	size_t at = rs->n, add;
	bool replace, close;

	if (entry >= UINT32_MAX)
		return 0;
	while (at && rs->v[at - 1].start > entry)
		at--;
	if (at && rs->v[at - 1].kind != GP_CFI_NONE)
		return 0; /* an FDE covers it */
	replace = at && rs->v[at - 1].start == entry;	/* a gap's NONE row starts there */
	close = !(at < rs->n && rs->v[at].start == entry + 1); /* no row starts right after */
	add = !replace + close;
	if (GP_ALLOC_GROW(rs->v, rs->n + add, rs->cap))
		return -ENOMEM;
	if (replace)
		at--;
	memmove(&rs->v[at + add + replace], &rs->v[at + replace],
		(rs->n - at - replace) * sizeof(rs->v[0]));
	rs->v[at] = end;
	if (close)
		rs->v[at + 1] = none;
	rs->n += add;
	return 0;
}

/* Turn the FDE list into rows: sort, run each program, close gaps, merge equal neighbours. */
static int build(struct fdes *f, struct cfi_table **out)
{
	struct rows rs = { 0 };
	struct cie cie = { 0 };
	struct cfi_table *t;
	size_t i, j, n;
	int err = 0;

	if (f->n > 1) /* a module without FDEs has no array: qsort wants one */
		qsort(f->v, f->n, sizeof(*f->v), fde_cmp);
	for (i = 0; i < f->n; i++) {
		const struct fde *e = &f->v[i];
		struct state init = { .cfa_how = CFA_REG, .cfa_reg = DW_RSP, .cfa_off = 8,
				      .rbx = { R_SAME, 0 }, .rbp = { R_SAME, 0 },
				      .ra = { R_OFF, -8 } };
		struct state s;
		struct gp_cfi_row row;
		struct cur c, body;
		struct fde chk;
		uint64_t loc;
		size_t keep;

		if (e->end > UINT32_MAX) {
			err = -ERANGE;
			goto out;
		}
		/* .debug_frame yields to .eh_frame where both describe a range */
		if (e->debug && i && f->v[i - 1].end > e->begin && !f->v[i - 1].debug)
			continue;
		if (!fde_read(e->r, e->at, e->debug, &cie, &chk, &body)) {
			f->st.fdes_bad++;
			continue;
		}
		/* a later FDE wins from its start on: drop rows of earlier ones from there */
		keep = rs.n;
		while (keep && rs.v[keep - 1].start >= e->begin)
			keep--;
		rs.n = keep;
		cur_init(&c, e->r, cie.insns, cie.insns_end);
		s = init;
		loc = e->begin;
		if (!run_cfa(&c, &cie, NULL, &s, &loc, e->end, NULL)) {
			f->st.fdes_bad++;
			continue;
		}
		init = s;
		if (!run_cfa(&body, &cie, &init, &s, &loc, e->end, &rs)) {
			/* what ran so far stands; the rest of the FDE is unknown */
			f->st.fdes_bad++;
			memset(&s, 0, sizeof(s));
			s.ra.how = R_OTHER;
		}
		if (loc < e->end) {
			state_to_row(&s, cie.signal, loc, &row);
			rows_put(&rs, &row);
		}
		if (i + 1 == f->n || f->v[i + 1].begin <= e->end ||
		    f->v[i + 1].begin - e->end >= GAP_CONTINUES || !entry_state(&s)) {
			memset(&row, 0, sizeof(row));
			row.start = (uint32_t)e->end;
			row.kind = GP_CFI_NONE;
			rows_put(&rs, &row);
		}
		f->st.fdes++;
		f->st.fdes_debug += e->debug;
		if (rs.err) {
			err = rs.err;
			goto out;
		}
	}
	if (f->entry && (err = mark_entry(&rs, f->entry)))
		goto out;
	/* merge: a row equal to its predecessor adds nothing */
	for (i = 0, n = 0; i < rs.n; i++) {
		const struct gp_cfi_row *r = &rs.v[i];

		if (n && r->kind == rs.v[n - 1].kind && r->arg == rs.v[n - 1].arg &&
		    r->rbp_off == rs.v[n - 1].rbp_off && r->cfa_off == rs.v[n - 1].cfa_off)
			continue;
		if (!n && r->kind == GP_CFI_NONE)
			continue;
		rs.v[n++] = *r;
	}
	t = malloc(sizeof(*t) + n * sizeof(t->rows[0]));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	t->st = f->st;
	t->nrows = (uint32_t)n;
	if (n)
		memcpy(t->rows, rs.v, n * sizeof(t->rows[0]));
	for (j = 0; j < n; j++) {
		t->st.rows_unknown += t->rows[j].kind == GP_CFI_UNKNOWN;
		t->st.rows_plt += t->rows[j].kind == GP_CFI_PLT;
		t->st.rows_signal += t->rows[j].kind == GP_CFI_SIGNAL;
		t->st.rows_end += t->rows[j].kind == GP_CFI_END;
		t->st.rows_rbx += t->rows[j].kind == GP_CFI_RBX;
	}
	t->st.rows = (uint32_t)n;
	*out = t;
out:
	free(rs.v);
	return err;
}

/* ---- a module mapped in this process ---- */

/* The readable PT_LOAD segment holding [vaddr, vaddr + len), as a region. */
static bool segment_of(uintptr_t bias, const ElfW(Phdr) *phdr, size_t phnum, uint64_t vaddr,
		       uint64_t len, struct region *r)
{
	size_t i;

	for (i = 0; i < phnum; i++) {
		const ElfW(Phdr) *ph = &phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr <= ph->p_filesz &&
		    len <= ph->p_filesz - (vaddr - ph->p_vaddr)) {
			r->data = (const uint8_t *)(bias + ph->p_vaddr);
			r->size = ph->p_filesz;
			r->vaddr = ph->p_vaddr;
			return true;
		}
	}
	return false;
}

int cfi_table__from_phdrs(uintptr_t bias, const ElfW(Phdr) *phdr, size_t phnum,
			  struct cfi_table **out)
{
	struct fdes f = { 0 };
	struct region hdr_seg, eh_seg;
	const ElfW(Phdr) *hdr = NULL;
	struct cur c;
	uint64_t hdr_vaddr, eh_frame, count, i;
	uint8_t version, eh_enc, count_enc, table_enc;
	struct cie cie = { 0 };
	int err = 0;

	*out = NULL;
	for (i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = &phdr[i];
	if (!hdr)
		return -ENOEXEC;
	hdr_vaddr = hdr->p_vaddr;
	if (!segment_of(bias, phdr, phnum, hdr_vaddr, 4, &hdr_seg))
		return -EINVAL;
	cur_init(&c, &hdr_seg, hdr_seg.data + (hdr_vaddr - hdr_seg.vaddr), hdr_seg.data + hdr_seg.size);
	version = rd_u8(&c);
	eh_enc = rd_u8(&c);
	count_enc = rd_u8(&c);
	table_enc = rd_u8(&c);
	if (c.bad || version != 1)
		return -EINVAL;
	eh_frame = rd_ptr(&c, eh_enc, hdr_vaddr);
	if (c.bad || !segment_of(bias, phdr, phnum, eh_frame, 4, &eh_seg))
		return -EINVAL;
	if (count_enc == DW_EH_PE_omit || table_enc == DW_EH_PE_omit) {
		/* no search table (rare): walk .eh_frame to its terminator, inside its segment */
		struct region eh = eh_seg;

		eh.data += eh_frame - eh_seg.vaddr;
		eh.size -= eh_frame - eh_seg.vaddr;
		eh.vaddr = eh_frame;
		err = fdes_scan(&f, &eh, false);
		/* fde_read() works on the whole segment: re-base what the scan found */
		for (i = 0; i < f.n; i++)
			f.v[i].r = &eh_seg;
		goto built;
	}
	count = rd_ptr(&c, count_enc, hdr_vaddr);
	if (c.bad || count > (uint64_t)(c.end - c.p) / 2)
		return -EINVAL;
	for (i = 0; i < count && !err; i++) {
		struct fde e;
		uint64_t fde_vaddr;

		rd_ptr(&c, table_enc, hdr_vaddr); /* initial location: the FDE says it again */
		fde_vaddr = rd_ptr(&c, table_enc, hdr_vaddr);
		if (c.bad) {
			err = -EINVAL;
			break;
		}
		if (fde_vaddr < eh_seg.vaddr || fde_vaddr - eh_seg.vaddr >= eh_seg.size ||
		    !fde_read(&eh_seg, eh_seg.data + (fde_vaddr - eh_seg.vaddr), false, &cie, &e, NULL)) {
			f.st.fdes_bad++;
			continue;
		}
		err = fdes_add(&f, &e);
	}
built:
	if (!err)
		err = build(&f, out);
	free(f.v);
	return err;
}

/* ---- an ELF file ---- */

static const ElfW(Shdr) *find_section(const uint8_t *img, size_t size, const ElfW(Ehdr) *eh,
				      const char *name)
{
	const ElfW(Shdr) *sh, *strs;
	size_t i;

	if (!eh->e_shoff || eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(ElfW(Shdr)) || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const ElfW(Shdr) *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *n = (const char *)img + strs->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strs->sh_size ||
		    strnlen(n, strs->sh_size - sh[i].sh_name) == strs->sh_size - sh[i].sh_name)
			continue;
		if (strcmp(n, name) || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return NULL;
		return &sh[i];
	}
	return NULL;
}

/*
 * Every FDE of the ELF image img[0, size) (a whole file), into f. The FDEs
 * point into img and into *eh_r / *dbg_r, which the caller keeps as long.
 */
static int image_fdes(const uint8_t *img, size_t size, struct fdes *f, struct region *eh_r,
		      struct region *dbg_r)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
	const ElfW(Shdr) *eh_sec, *dbg_sec;
	int err;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64)
		return -ENOEXEC;
	eh_sec = find_section(img, size, eh, ".eh_frame");
	dbg_sec = find_section(img, size, eh, ".debug_frame");
	if (eh_sec && (eh_sec->sh_flags & SHF_COMPRESSED))
		eh_sec = NULL;
	if (dbg_sec && (dbg_sec->sh_flags & SHF_COMPRESSED)) {
		f->st.fdes_bad++; /* compressed .debug_frame is not read: counted, not guessed */
		dbg_sec = NULL;
	}
	if (!eh_sec && !dbg_sec)
		return -ENOEXEC;
	f->entry = eh->e_entry;
	if (eh_sec) {
		*eh_r = (struct region){ img + eh_sec->sh_offset, eh_sec->sh_size, eh_sec->sh_addr };
		if ((err = fdes_scan(f, eh_r, false)))
			return err;
	}
	if (dbg_sec) {
		*dbg_r = (struct region){ img + dbg_sec->sh_offset, dbg_sec->sh_size, 0 };
		if ((err = fdes_scan(f, dbg_r, true)))
			return err;
	}
	return 0;
}

int cfi_table__from_fd(int fd, struct cfi_table **out)
{
	struct fdes f = { 0 };
	struct region eh_r, dbg_r;
	struct stat st;
	uint8_t *img;
	size_t size;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size < sizeof(ElfW(Ehdr)))
		return -ENOEXEC;
	size = (size_t)st.st_size;
	img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		return -errno;
	err = image_fdes(img, size, &f, &eh_r, &dbg_r);
	if (!err)
		err = build(&f, out);
	free(f.v);
	munmap(img, size);
	return err;
}

int cfi_table__fde_ranges(const void *elf, size_t size, struct cfi_fde_range **out, size_t *nr)
{
	struct fdes f = { 0 };
	struct region eh_r, dbg_r;
	struct cfi_fde_range *v;
	size_t i, n = 0;
	int err;

	*out = NULL;
	*nr = 0;
	err = image_fdes(elf, size, &f, &eh_r, &dbg_r);
	if (err || !f.n)
		goto out;
	if (f.n > 1)
		qsort(f.v, f.n, sizeof(*f.v), fde_cmp);
	v = malloc(f.n * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < f.n; i++) {
		/* .debug_frame yields to .eh_frame, as in the rows */
		if (f.v[i].debug && n && v[n - 1].end > f.v[i].begin)
			continue;
		v[n++] = (struct cfi_fde_range){ f.v[i].begin, f.v[i].end };
	}
	*out = v;
	*nr = n;
out:
	free(f.v);
	return err;
}

int cfi_table__from_file(const char *path, struct cfi_table **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = cfi_table__from_fd(fd, out);
	close(fd);
	return err;
}

int cfi_table__from_rows(const struct gp_cfi_row *rows, uint32_t nrows,
			 const struct cfi_table_stats *fdes, struct cfi_table **out)
{
	struct cfi_table *t;
	uint32_t i;

	*out = NULL;
	for (i = 0; i < nrows; i++) {
		const struct gp_cfi_row *r = &rows[i];

		if (r->kind > GP_CFI_KIND_MAX || (i && r->start <= rows[i - 1].start))
			return -EINVAL;
		if (r->kind == GP_CFI_PLT && r->arg > 15)
			return -EINVAL;
	}
	if (nrows && rows[nrows - 1].kind != GP_CFI_NONE)
		return -EINVAL;
	t = malloc(sizeof(*t) + (size_t)nrows * sizeof(t->rows[0]));
	if (!t)
		return -ENOMEM;
	memset(&t->st, 0, sizeof(t->st));
	t->st.fdes = fdes ? fdes->fdes : 0;
	t->st.fdes_bad = fdes ? fdes->fdes_bad : 0;
	t->st.fdes_debug = fdes ? fdes->fdes_debug : 0;
	t->nrows = nrows;
	if (nrows)
		memcpy(t->rows, rows, (size_t)nrows * sizeof(t->rows[0]));
	for (i = 0; i < nrows; i++) {
		t->st.rows_unknown += t->rows[i].kind == GP_CFI_UNKNOWN;
		t->st.rows_plt += t->rows[i].kind == GP_CFI_PLT;
		t->st.rows_signal += t->rows[i].kind == GP_CFI_SIGNAL;
		t->st.rows_end += t->rows[i].kind == GP_CFI_END;
		t->st.rows_rbx += t->rows[i].kind == GP_CFI_RBX;
	}
	t->st.rows = nrows;
	*out = t;
	return 0;
}

void cfi_table__free(struct cfi_table *t)
{
	free(t);
}

const struct gp_cfi_row *cfi_table__find(const struct cfi_table *t, uint64_t addr)
{
	static const struct gp_cfi_row none = { .kind = GP_CFI_NONE };
	const struct gp_cfi_row *base = t->rows;
	uint32_t n = t->nrows, half;

	if (addr > UINT32_MAX || !n || addr < base[0].start)
		return &none;
	/* the last row whose start <= addr; branch-free steps (cmov): no mispredictions */
	while (n > 1) {
		half = n / 2;
		base = base[half].start <= addr ? base + half : base;
		n -= half;
	}
	return base;
}

const struct gp_cfi_row *cfi_table__rows(const struct cfi_table *t, uint32_t *nrows)
{
	*nrows = t->nrows;
	return t->rows;
}

void cfi_table__stats(const struct cfi_table *t, struct cfi_table_stats *st)
{
	*st = t->st;
}
