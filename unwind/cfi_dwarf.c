// SPDX-License-Identifier: Apache-2.0
/* cfi_dwarf: CIEs, FDEs and the CFA program of .eh_frame / .debug_frame, run into rows. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_dwarf.h"
#include "gp_alloc.h"

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

void cfi_dwarf__rows_put(struct rows *rs, const struct gp_cfi_row *row)
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

void cfi_dwarf__state_to_row(const struct state *s, bool signal, uint64_t start,
			     struct gp_cfi_row *row)
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

bool cfi_dwarf__run_cfa(struct cur *c, const struct cie *cie, const struct state *init,
			struct state *s, uint64_t *loc, uint64_t end, struct rows *rs)
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
			cfi_dwarf__state_to_row(s, cie->signal, *loc, &row);
			cfi_dwarf__rows_put(rs, &row);
			*loc += delta;
		}
	}
	return !c->bad;
}

int cfi_dwarf__fde_cmp(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	/* .eh_frame first: it wins a tie (dedup keeps the first) */
	return (int)x->debug - (int)y->debug;
}

int cfi_dwarf__fdes_add(struct fdes *f, const struct fde *e)
{
	if (GP_ALLOC_GROW(f->v, f->n + 1, f->cap))
		return -ENOMEM;
	f->v[f->n++] = *e;
	return 0;
}

bool cfi_dwarf__fde_read(const struct region *r, const uint8_t *at, bool debug, struct cie *cie,
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

int cfi_dwarf__fdes_scan(struct fdes *f, const struct region *r, bool debug)
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
		if (cfi_dwarf__fde_read(r, p, debug, &cie, &e, NULL)) {
			if ((err = cfi_dwarf__fdes_add(f, &e)))
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
