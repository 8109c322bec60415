// SPDX-License-Identifier: Apache-2.0
/*
 * sym_image.c - one module file, shared by every process that maps it:
 * opened on the first lookup that lands in it (its build id checked), its
 * PT_LOAD segments (file offset to link-time address), its DWARF names
 * and inline chains, and its FDE ranges for addresses no symbol names.
 */
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
#include "gp_strtab.h"
#include "gp_util.h"
#include "symbolize_priv.h"

/* ---- images ------------------------------------------------------------ */


struct image *sym_image_get(struct symbolizer *s, const char *path, const uint8_t *bid,
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
	img->path = sym_intern(s, path);
	/* "[vdso]" and the like: "[vdso+0x..]", not "[[vdso]+0x..]". */
	if (path[0] == '[' && path[plen - 1] == ']')
		img->base = img->path ? sym_intern_len(s, path + 1, plen - 2) : NULL;
	else
		img->base = img->path ? sym_intern(s, sym_basename(path)) : NULL;
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
void sym_image_load(struct symbolizer *s, struct image *img)
{
	const unsigned char *bits;
	GElf_Addr bid_vaddr, bias;
	Elf *elf;
	int n, fd;

	img->state = IMAGE_MISSING;
	/* Pseudo paths ("[vdso]", "//anon", "") never were files to miss. */
	if (img->path[0] != '/')
		return;
	fd = sym_open_regular(img->path);
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
	if (img->mod) { /* sym_find_debuginfo()'s symbolizer */
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

bool sym_image_vaddr(const struct image *img, uint64_t off, uint64_t *vaddr)
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
	*raw = name ? sym_intern(s, name) : NULL;
	if (name)
		return symbolizer__demangle(s, name);
	name = die_string(die, DW_AT_name);
	return name ? sym_intern(s, name) : NULL;
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
	*file = f ? sym_intern(s, f) : NULL;
	*line = ln <= UINT32_MAX ? (uint32_t)ln : 0;
}

/* Whether one of a unit's scopes at an address is a function: the unit has code there. */
static bool unit_has_function(Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram ||
		    dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			return true;
	return false;
}

/*
 * Name vaddr of img into frames[] (innermost first); returns the count, 0
 * when neither the symbol table nor DWARF knows the address.
 */
size_t sym_image_resolve(struct symbolizer *s, struct image *img, uint64_t vaddr,
			    struct sym_frame *frames)
{
	const char *symname = NULL, *file = NULL, *rawsym, *raw = NULL, *at;
	uint32_t line = 0;
	size_t n = 0;
	GElf_Off off = 0;
	Dwarf_Addr sym_start;
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
	sym_start = symname && sym.st_size && off < sym.st_size ? vaddr - off : 0;
	/* A zero-size symbol is only the nearest preceding label: trust it
	 * for the name when DWARF has nothing better, below. */
	if (symname && sym.st_size && off >= sym.st_size)
		symname = NULL;
	/* A symbol table's versioned names ("clock_nanosleep@GLIBC_2.2.5",
	 * "memcpy@@GLIBC_2.14") are still the one function, as perf shows it. */
	if (symname && symname[0] != '@' && (at = strchr(symname, '@')))
		symname = sym_intern_len(s, symname, (size_t)(at - symname));
	rawsym = symname ? sym_intern(s, symname) : NULL;
	if (symname)
		symname = symbolizer__demangle(s, symname);

	if (!s->opts.no_dwarf) {
		Dwfl_Line *l = dwfl_module_getsrc(img->mod, vaddr);
		Dwarf_Addr laddr = 0;
		int ln = 0;

		cudie = dwfl_module_addrdie(img->mod, vaddr, &bias);
		if (cudie)
			nscopes = dwarf_getscopes(cudie, vaddr - bias, &scopes);
		/*
		 * libdw answers with the nearest row at or below the address,
		 * even past its sequence's end: crt1.o's _start, which has no
		 * lines, got the last line of the code before it. A row that
		 * starts no later than the function, in a unit with no function
		 * there, is another function's.
		 */
		if (l && !unit_has_function(scopes, nscopes) &&
		    (!dwfl_lineinfo(l, &laddr, NULL, NULL, NULL, NULL) || !sym_start ||
		     laddr <= sym_start))
			l = NULL;
		if (l) {
			const char *f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);

			file = f ? sym_intern(s, f) : NULL;
			line = ln > 0 ? (uint32_t)ln : 0;
		}
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

/*
 * The start of the function holding vaddr as the CFI tells it, for code no
 * symbol names: every address of a stripped function is then one frame,
 * as perf shows it, not one frame per sampled address.
 */
bool sym_image_fde_start(struct image *img, uint64_t vaddr, uint64_t *start)
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

