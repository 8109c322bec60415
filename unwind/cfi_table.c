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

#include "cfi_dwarf.h"
#include "cfi_table.h"
#include "gp_alloc.h"

struct cfi_table {
	struct cfi_table_stats st;
	uint32_t nrows;
	struct gp_cfi_row rows[];
};

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
 * Rows add[0..k) and a NONE row at `end` into a gap no FDE covers, where
 * [add[0].start, end) lies wholly in it; nothing where an FDE covers any of it.
 */
static int fill_gap(struct rows *rs, const struct gp_cfi_row *add, size_t k, uint64_t end)
{
	uint64_t begin = add[0].start;
	size_t at = rs->n, grow;
	bool replace, close;

	if (end >= UINT32_MAX)
		return 0;
	while (at && rs->v[at - 1].start > begin)
		at--;
	if (at && rs->v[at - 1].kind != GP_CFI_NONE)
		return 0; /* an FDE covers its start */
	if (at < rs->n && rs->v[at].start < end)
		return 0; /* an FDE begins inside */
	replace = at && rs->v[at - 1].start == begin; /* a gap's NONE row starts there */
	close = !(at < rs->n && rs->v[at].start == end); /* no row starts right after */
	grow = k + close - replace;
	if (GP_ALLOC_GROW(rs->v, rs->n + grow, rs->cap))
		return -ENOMEM;
	if (replace)
		at--;
	memmove(&rs->v[at + k + close], &rs->v[at + replace],
		(rs->n - at - replace) * sizeof(rs->v[0]));
	memcpy(&rs->v[at], add, k * sizeof(add[0]));
	if (close)
		rs->v[at + k] = (struct gp_cfi_row){ .start = (uint32_t)end, .kind = GP_CFI_NONE };
	rs->n += grow;
	return 0;
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

	return fill_gap(rs, &end, 1, entry + 1);
}

/*
 * _init and _fini have no FDE (crti.o and crtn.o carry none), and ld.so
 * runs a library's _init inside dlopen(): a sample there would end the
 * stack, as the frame pointer is the caller's. Their frame is one slot:
 * CFA rsp + 8 to the `sub`, rsp + 16 in the body, rsp + 8 at the `ret`.
 */
static int mark_crt(struct rows *rs, const struct fdes *f)
{
	unsigned i;
	int err;

	for (i = 0; i < f->ncrt; i++) {
		struct gp_cfi_row r[3] = {
			{ .start = (uint32_t)f->crt[i].begin, .kind = GP_CFI_RSP, .cfa_off = 8 },
			{ .start = (uint32_t)f->crt[i].body, .kind = GP_CFI_RSP, .cfa_off = 16 },
			{ .start = (uint32_t)f->crt[i].ret, .kind = GP_CFI_RSP, .cfa_off = 8 },
		};

		if ((err = fill_gap(rs, r, 3, f->crt[i].ret + 1)))
			return err;
	}
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
		qsort(f->v, f->n, sizeof(*f->v), cfi_dwarf__fde_cmp);
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
		if (!cfi_dwarf__fde_read(e->r, e->at, e->debug, &cie, &chk, &body)) {
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
		if (!cfi_dwarf__run_cfa(&c, &cie, NULL, &s, &loc, e->end, NULL)) {
			f->st.fdes_bad++;
			continue;
		}
		init = s;
		if (!cfi_dwarf__run_cfa(&body, &cie, &init, &s, &loc, e->end, &rs)) {
			/* what ran so far stands; the rest of the FDE is unknown */
			f->st.fdes_bad++;
			memset(&s, 0, sizeof(s));
			s.ra.how = R_OTHER;
		}
		if (loc < e->end) {
			cfi_dwarf__state_to_row(&s, cie.signal, loc, &row);
			cfi_dwarf__rows_put(&rs, &row);
		}
		if (i + 1 == f->n || f->v[i + 1].begin <= e->end ||
		    f->v[i + 1].begin - e->end >= GAP_CONTINUES || !entry_state(&s)) {
			memset(&row, 0, sizeof(row));
			row.start = (uint32_t)e->end;
			row.kind = GP_CFI_NONE;
			cfi_dwarf__rows_put(&rs, &row);
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
	if ((err = mark_crt(&rs, f)))
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

/* ---- _init and _fini, found the same way in a mapping and in a file ---- */

/*
 * An image's bytes by virtual address: a mapping (size 0: at bias +
 * vaddr) or a whole file of `size` bytes (through the PT_LOAD's file
 * offset).
 */
struct image {
	uintptr_t base;	/* the mapping's bias, or the address of the file's first byte */
	size_t size;	/* the file's size; 0 for a mapping */
	const ElfW(Phdr) *phdr;
	size_t phnum;
};

/* The bytes at [vaddr, vaddr + *len) inside one PT_LOAD's file image (*len cut to it), or NULL. */
static const uint8_t *image_at(const struct image *im, uint64_t vaddr, uint64_t *len, uint32_t flag)
{
	size_t i;

	for (i = 0; i < im->phnum; i++) {
		const ElfW(Phdr) *ph = &im->phdr[i];
		uint64_t off;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & flag) || vaddr < ph->p_vaddr ||
		    vaddr - ph->p_vaddr >= ph->p_filesz)
			continue;
		off = vaddr - ph->p_vaddr;
		if (*len > ph->p_filesz - off)
			*len = ph->p_filesz - off;
		if (!im->size)
			return (const uint8_t *)(im->base + vaddr);
		if (ph->p_offset > im->size || ph->p_filesz > im->size - ph->p_offset)
			return NULL;
		return (const uint8_t *)(im->base + ph->p_offset + off);
	}
	return NULL;
}

/* `[endbr64] sub $8,%rsp`, then within a few dozen bytes `add $8,%rsp; ret`. */
static bool crt_frame(const struct image *im, uint64_t fn, struct fdes *f)
{
	static const uint8_t endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t sub[4] = { 0x48, 0x83, 0xec, 0x08 };
	static const uint8_t add[5] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	uint64_t len = 64, at = 0, i;
	const uint8_t *p = image_at(im, fn, &len, PF_X);

	if (!p || f->ncrt >= 2)
		return false;
	if (len >= sizeof(endbr) && !memcmp(p, endbr, sizeof(endbr)))
		at = sizeof(endbr);
	if (len < at + sizeof(sub) || memcmp(p + at, sub, sizeof(sub)))
		return false;
	at += sizeof(sub);
	for (i = at; i + sizeof(add) <= len; i++) {
		if (memcmp(p + i, add, sizeof(add)))
			continue;
		f->crt[f->ncrt].begin = fn;
		f->crt[f->ncrt].body = fn + at;
		f->crt[f->ncrt].ret = fn + i + 4;
		f->ncrt++;
		return true;
	}
	return false;
}

/* DT_INIT and DT_FINI of the image's dynamic section, where crt_frame() knows them. */
static void crt_frames(const struct image *im, struct fdes *f)
{
	const ElfW(Dyn) *d = NULL;
	uint64_t len = 0, i;

	for (i = 0; i < im->phnum; i++)
		if (im->phdr[i].p_type == PT_DYNAMIC) {
			len = im->phdr[i].p_filesz;
			d = (const ElfW(Dyn) *)image_at(im, im->phdr[i].p_vaddr, &len, PF_R);
			break;
		}
	if (!d || ((uintptr_t)d & (sizeof(d->d_tag) - 1)))
		return;
	for (i = 0; i < len / sizeof(*d) && d[i].d_tag != DT_NULL; i++)
		if (d[i].d_tag == DT_INIT || d[i].d_tag == DT_FINI)
			crt_frame(im, d[i].d_un.d_ptr, f);
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
		err = cfi_dwarf__fdes_scan(&f, &eh, false);
		/* cfi_dwarf__fde_read() works on the whole segment: re-base what the scan found */
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
		    !cfi_dwarf__fde_read(&eh_seg, eh_seg.data + (fde_vaddr - eh_seg.vaddr), false,
					 &cie, &e, NULL)) {
			f.st.fdes_bad++;
			continue;
		}
		err = cfi_dwarf__fdes_add(&f, &e);
	}
built:
	if (!err) {
		struct image im = { bias, 0, phdr, phnum };

		crt_frames(&im, &f);
		err = build(&f, out);
	}
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
	if (eh->e_phentsize == sizeof(ElfW(Phdr)) && eh->e_phoff <= size &&
	    eh->e_phnum <= (size - eh->e_phoff) / sizeof(ElfW(Phdr)) &&
	    !(eh->e_phoff & (sizeof(uint64_t) - 1))) {
		struct image im = { (uintptr_t)img, size, (const ElfW(Phdr) *)(img + eh->e_phoff),
				    eh->e_phnum };

		crt_frames(&im, f);
	}
	if (eh_sec) {
		*eh_r = (struct region){ img + eh_sec->sh_offset, eh_sec->sh_size, eh_sec->sh_addr };
		if ((err = cfi_dwarf__fdes_scan(f, eh_r, false)))
			return err;
	}
	if (dbg_sec) {
		*dbg_r = (struct region){ img + dbg_sec->sh_offset, dbg_sec->sh_size, 0 };
		if ((err = cfi_dwarf__fdes_scan(f, dbg_r, true)))
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
		qsort(f.v, f.n, sizeof(*f.v), cfi_dwarf__fde_cmp);
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
