// SPDX-License-Identifier: Apache-2.0
/* Simulated libcuda.so.1: modules and libraries from PTX, cubin (ELF) or fatbin images. */

/*
 * Nothing is compiled or run: loading an image only finds the names of its
 * kernels, so that cuModuleGetFunction / cuLibraryGetKernel by name work
 * and launches carry the right name, and the globals of a cubin, so that
 * cuModuleGetGlobal finds them (device memory of their size, holding their
 * initial values). The image kinds, as nvcc writes them:
 *
 *   PTX       text; every ".entry <name>" is a kernel
 *   cubin     an ELF file; a kernel is a function symbol marked as an entry
 *             (st_other bit 0x10; its code is section ".text.<name>"); a
 *             global is an object symbol in a section ".nv.global*"
 *             (__device__; ".nv.global.init" holds initial values,
 *             ".nv.global" none) or ".nv.constant<bank>" (__constant__;
 *             bank 0 holds kernel parameters, not globals)
 *   fatbin    a container (magic 0xBA55ED50: u32 magic, u16 version,
 *             u16 header size, u64 size of the entries) of entries (u16
 *             kind: 1 PTX, 2 ELF; u16 version; u32 header size; u64 payload
 *             size; ...) each followed by its payload; entries whose
 *             payload is compressed (not ELF or text) are skipped
 *   wrapper   __fatBinC_Wrapper_t (fatbinary_section.h, FATBINC_MAGIC)
 *             around a fatbin, as nvcc embeds one in a host object
 *
 * Every read of an image stays within the sizes its own headers give.
 */

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <fatbinary_section.h>
#include <generated_cuda_meta.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_drv.h"
#include "sim_internal.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
/* The CUDA ELF flag of an entry function (a kernel) in st_other. */
#define STO_CUDA_ENTRY 0x10
#define MAX_IMAGE_FILE (256u << 20)

/* A module's global variable: device memory of its own. */
struct mod_global {
	char *name;
	void *mem;
	size_t size;
};

struct CUmod_st {
	size_t n;
	CUfunction *funcs;
	size_t nglobals;
	struct mod_global *globals;
	uint32_t id;	/* CUPTI's moduleId */
	char *image;	/* a copy of the image loaded, for CUPTI's module callbacks */
	size_t image_size;
};

static atomic_uint next_module_id;

/* A library is one module here ("the module of the library", cuLibraryGetModule). */
struct CUlib_st {
	struct CUmod_st mod;
};

static int mod_add(struct CUmod_st *m, const char *name, size_t len)
{
	char buf[1024];
	CUfunction f, *nf;
	size_t i;

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (i = 0; i < m->n; i++)
		if (!strcmp(gpsim_func_name(m->funcs[i]), buf))
			return 0; /* a fatbin holds the same kernel once per architecture */
	f = gpsim_func_register(buf);
	if (!f)
		return -ENOMEM;
	nf = realloc(m->funcs, (m->n + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	m->funcs = nf;
	m->funcs[m->n++] = f;
	return 0;
}

static int mod_add_global(struct CUmod_st *m, const char *name, size_t len, const char *init,
			  size_t size)
{
	struct mod_global *ng, *v;
	size_t i;

	for (i = 0; i < m->nglobals; i++)
		if (strlen(m->globals[i].name) == len && !memcmp(m->globals[i].name, name, len))
			return 0; /* again, for another architecture */
	ng = realloc(m->globals, (m->nglobals + 1) * sizeof(*ng));
	if (!ng)
		return -ENOMEM;
	m->globals = ng;
	v = &m->globals[m->nglobals];
	v->name = strndup(name, len);
	v->mem = v->name ? gpsim__static_alloc(size) : NULL;
	v->size = size;
	if (!v->mem) {
		free(v->name);
		return -ENOMEM;
	}
	if (init)
		memcpy(v->mem, init, size);
	m->nglobals++;
	return 0;
}

static const char *bmemmem(const char *h, size_t hlen, const char *n)
{
	size_t nlen = strlen(n);

	return memmem(h, hlen, n, nlen);
}

/* PTX text of at most len bytes (it may end at a NUL before). */
static int parse_ptx(struct CUmod_st *m, const char *text, size_t len)
{
	const char *end, *p;
	const void *nul = memchr(text, '\0', len);

	if (nul)
		len = (size_t)((const char *)nul - text);
	end = text + len;
	for (p = bmemmem(text, len, ".entry"); p; p = bmemmem(p, (size_t)(end - p), ".entry")) {
		const char *b, *e;
		int err;

		p += 6;
		if (p >= end || (*p != ' ' && *p != '\t' && *p != '\n'))
			continue;
		for (b = p; b < end && (*b == ' ' || *b == '\t' || *b == '\n'); b++)
			;
		for (e = b; e < end && *e != '(' && *e != ' ' && *e != '\t' && *e != '\n' &&
			    *e != '{';
		     e++)
			;
		err = mod_add(m, b, (size_t)(e - b));
		if (err)
			return err;
	}
	return 0;
}

/*
 * The size an ELF image's headers claim: the end of the last of its
 * section table, sections, program header table and segments (nvcc puts
 * the program headers last).
 */
static size_t elf_extent(const Elf64_Ehdr *eh)
{
	const Elf64_Shdr *sh = (const void *)((const char *)eh + eh->e_shoff);
	size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	unsigned i;

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > end)
			end = sh[i].sh_offset + sh[i].sh_size;
	if (eh->e_phoff && eh->e_phnum && eh->e_phentsize == sizeof(Elf64_Phdr)) {
		const Elf64_Phdr *ph = (const void *)((const char *)eh + eh->e_phoff);

		if (eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph) > end)
			end = eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph);
		for (i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_offset + ph[i].p_filesz > end)
				end = ph[i].p_offset + ph[i].p_filesz;
	}
	return end;
}

static int elf_header_ok(const void *img, size_t len)
{
	const Elf64_Ehdr *eh = img;

	return len >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	       eh->e_shoff >= sizeof(*eh) && eh->e_shoff <= len &&
	       (len - eh->e_shoff) / sizeof(Elf64_Shdr) >= eh->e_shnum;
}

/*
 * An object symbol of a cubin that is a global variable: its section's
 * name says so. *init: its initial value, or NULL for zeros.
 */
static int elf_global(const char *img, size_t len, const Elf64_Ehdr *eh, const Elf64_Sym *sym,
		      const char **init)
{
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff), *sec, *names;
	const char *name;
	size_t max;

	if (ELF64_ST_TYPE(sym->st_info) != STT_OBJECT || !sym->st_size ||
	    sym->st_shndx == SHN_UNDEF || sym->st_shndx >= eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return 0;
	sec = &sh[sym->st_shndx];
	names = &sh[eh->e_shstrndx];
	if (names->sh_offset > len || names->sh_size > len - names->sh_offset ||
	    sec->sh_name >= names->sh_size)
		return 0;
	name = img + names->sh_offset + sec->sh_name;
	max = names->sh_size - sec->sh_name;
	if (strnlen(name, max) == max)
		return 0;
	if (strncmp(name, ".nv.global", 10) &&
	    (strncmp(name, ".nv.constant", 12) || !strncmp(name, ".nv.constant0", 13)))
		return 0;
	if (sym->st_value > sec->sh_size || sym->st_size > sec->sh_size - sym->st_value)
		return 0;
	*init = NULL;
	if (sec->sh_type == SHT_PROGBITS && sec->sh_offset <= len &&
	    sec->sh_size <= len - sec->sh_offset)
		*init = img + sec->sh_offset + sym->st_value;
	return 1;
}

/* A cubin of len bytes: its entry function symbols are the kernels; its globals, by section. */
static int parse_elf(struct CUmod_st *m, const char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;
	unsigned i;

	if (!elf_header_ok(img, len))
		return -EINVAL;
	sh = (const void *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *st;
		const Elf64_Sym *sym;
		size_t k, nsym;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			continue;
		st = &sh[sh[i].sh_link];
		if (st->sh_offset > len || st->sh_size > len - st->sh_offset)
			continue;
		sym = (const void *)(img + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof(*sym);
		for (k = 0; k < nsym; k++) {
			const char *name, *init;
			size_t max, nlen;
			int err, global = 0;

			if (sym[k].st_name >= st->sh_size)
				continue;
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
			    !(sym[k].st_other & STO_CUDA_ENTRY)) {
				global = elf_global(img, len, eh, &sym[k], &init);
				if (!global)
					continue;
			}
			name = img + st->sh_offset + sym[k].st_name;
			max = st->sh_size - sym[k].st_name;
			nlen = strnlen(name, max);
			if (nlen == max)
				continue;
			err = global ? mod_add_global(m, name, nlen, init, sym[k].st_size) :
				       mod_add(m, name, nlen);
			if (err)
				return err;
		}
	}
	return 0;
}

struct fatbin_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint64_t size;
};

struct fatbin_entry {
	uint16_t kind;
	uint16_t version;
	uint32_t header_size;
	uint64_t payload_size;
};

static int parse_fatbin(struct CUmod_st *m, const char *img)
{
	struct fatbin_header fh;
	const char *p, *end;

	memcpy(&fh, img, sizeof(fh));
	if (fh.header_size < sizeof(fh))
		return -EINVAL;
	p = img + fh.header_size;
	end = p + fh.size;
	while ((size_t)(end - p) >= sizeof(struct fatbin_entry)) {
		struct fatbin_entry e;
		const char *payload;
		int err = 0;

		memcpy(&e, p, sizeof(e));
		if (e.header_size < sizeof(e) || e.header_size > (size_t)(end - p) ||
		    e.payload_size > (size_t)(end - p) - e.header_size)
			return -EINVAL;
		payload = p + e.header_size;
		if (e.kind == FATBIN_KIND_ELF && e.payload_size >= SELFMAG &&
		    !memcmp(payload, ELFMAG, SELFMAG))
			err = parse_elf(m, payload, e.payload_size);
		else if (e.kind == FATBIN_KIND_PTX)
			err = parse_ptx(m, payload, e.payload_size);
		if (err)
			return err;
		p = payload + e.payload_size;
	}
	return 0;
}

/* Any image cuModuleLoadData takes: "a cubin or PTX or fatbin file". */
static CUresult parse_image(struct CUmod_st *m, const void *image)
{
	const char *img = image;
	uint32_t magic;
	size_t size = 0;
	int err;

	memcpy(&magic, img, sizeof(magic));
	if (magic == (uint32_t)FATBINC_MAGIC) {
		const __fatBinC_Wrapper_t *w = image;

		if (!w->data)
			return CUDA_ERROR_INVALID_IMAGE;
		img = (const char *)w->data;
		memcpy(&magic, img, sizeof(magic));
	}
	if (magic == FATBIN_MAGIC) {
		struct fatbin_header fh;

		memcpy(&fh, img, sizeof(fh));
		size = fh.header_size + fh.size;
		err = parse_fatbin(m, img);
	} else if (!memcmp(img, ELFMAG, SELFMAG)) {
		const Elf64_Ehdr *eh = (const void *)img;

		err = -EINVAL;
		if (elf_header_ok(img, SIZE_MAX)) {
			size = elf_extent(eh);
			err = parse_elf(m, img, size);
		}
	} else {
		size = strlen(img) + 1;
		err = parse_ptx(m, img, size - 1);
	}
	if (err == -ENOMEM)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (err || !m->n)
		return CUDA_ERROR_INVALID_IMAGE;
	m->image = malloc(size);
	if (!m->image)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(m->image, img, size);
	m->image_size = size;
	m->id = atomic_fetch_add(&next_module_id, 1) + 1;
	return CUDA_SUCCESS;
}

/* "A module has been loaded" / "A module is about to be unloaded", with its image. */
static void mod_event(uint32_t cbid, const struct CUmod_st *m)
{
	struct gpsim_res_ev ev = { .ctx = gpsim_ctx_current(), .module_id = m->id,
				   .image = m->image, .image_size = m->image_size };

	gpsim__resource(cbid, &ev);
}

static void mod_release(struct CUmod_st *m)
{
	size_t i;

	for (i = 0; i < m->nglobals; i++) {
		gpsim__static_free(m->globals[i].mem);
		free(m->globals[i].name);
	}
	free(m->globals);
	m->globals = NULL;
	m->nglobals = 0;
	free(m->funcs);
	free(m->image);
	m->funcs = NULL;
	m->image = NULL;
	m->n = 0;
}

static CUresult mod_load(CUmodule *out, const void *image)
{
	struct CUmod_st *m;
	CUresult r;

	if (!out || !image)
		return CUDA_ERROR_INVALID_VALUE;
	m = calloc(1, sizeof(*m));
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r = parse_image(m, image);
	if (r != CUDA_SUCCESS) {
		mod_release(m);
		free(m);
		return r;
	}
	*out = m;
	mod_event(CUPTI_CBID_RESOURCE_MODULE_LOADED, m);
	return CUDA_SUCCESS;
}

/* A whole file into memory, NUL-terminated (PTX is text); *size its bytes (without the NUL). */
CUresult gpsim__read_image(const char *path, char **out, size_t *size)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd;
	CUresult r = CUDA_ERROR_FILE_NOT_FOUND;

	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_FILE_NOT_FOUND;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_IMAGE_FILE)
		goto out;
	r = CUDA_ERROR_OUT_OF_MEMORY;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	r = got >= sizeof(uint32_t) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
out:
	close(fd);
	if (r == CUDA_SUCCESS) {
		*out = buf;
		if (size)
			*size = got;
	}
	else
		free(buf);
	return r;
}

static CUresult mod_get(CUfunction *f, const struct CUmod_st *m, const char *name)
{
	size_t i;

	if (!f || !m || !name)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < m->n; i++) {
		if (!strcmp(gpsim_func_name(m->funcs[i]), name)) {
			*f = m->funcs[i];
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_NOT_FOUND;
}

static CUresult mod_global(CUdeviceptr *dptr, size_t *bytes, const struct CUmod_st *m,
			   const char *name)
{
	size_t i;

	/* "One of the parameters dptr or bytes (not both) can be NULL in which case it is ignored." */
	if ((!dptr && !bytes) || !m || !name)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < m->nglobals; i++) {
		if (!strcmp(m->globals[i].name, name)) {
			if (dptr)
				*dptr = (CUdeviceptr)(uintptr_t)m->globals[i].mem;
			if (bytes)
				*bytes = m->globals[i].size;
			return CUDA_SUCCESS;
		}
	}
	/* "If no variable of that name exists, cuModuleGetGlobal() returns CUDA_ERROR_NOT_FOUND." */
	return CUDA_ERROR_NOT_FOUND;
}

#pragma GCC visibility push(default)

CUresult CUDAAPI cuModuleLoadData(CUmodule *mod, const void *image)
{
	cuModuleLoadData_params p = { mod, image };
	DRV_ENTER(cuModuleLoadData, &p, NULL);
	NEED_CTX();
	DRV_RETURN(mod_load(mod, image));
}

/* JIT options only steer compiling PTX, which nothing here does. */
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int n,
				    CUjit_option *options, void **values)
{
	cuModuleLoadDataEx_params p = { mod, image, n, options, values };
	DRV_ENTER(cuModuleLoadDataEx, &p, NULL);
	NEED_CTX();
	if (n && (!options || !values))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(mod_load(mod, image));
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *mod, const void *fatbin)
{
	cuModuleLoadFatBinary_params p = { mod, fatbin };
	DRV_ENTER(cuModuleLoadFatBinary, &p, NULL);
	NEED_CTX();
	DRV_RETURN(mod_load(mod, fatbin));
}

/* "Takes a filename fname and loads the corresponding module": PTX, cubin or fatbin. */
CUresult CUDAAPI cuModuleLoad(CUmodule *mod, const char *fname)
{
	cuModuleLoad_params p = { mod, fname };
	char *img = NULL;
	CUresult r;
	DRV_ENTER(cuModuleLoad, &p, NULL);

	NEED_CTX();
	if (!mod)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = gpsim__read_image(fname, &img, NULL);
	if (r == CUDA_SUCCESS)
		r = mod_load(mod, img);
	free(img);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	cuModuleGetFunction_params p = { f, m, name };
	DRV_ENTER(cuModuleGetFunction, &p, NULL);
	NEED_CTX();
	DRV_RETURN(mod_get(f, m, name));
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule m,
				     const char *name)
{
	cuModuleGetGlobal_v2_params p = { dptr, bytes, m, name };
	DRV_ENTER(cuModuleGetGlobal_v2, &p, NULL);
	NEED_CTX();
	DRV_RETURN(mod_global(dptr, bytes, m, name));
}

CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule m)
{
	DRV_ENTER(cuModuleGetFunctionCount, NULL, NULL);
	NEED_CTX();
	if (!count || !m)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*count = (unsigned int)m->n;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuModuleUnload(CUmodule m)
{
	cuModuleUnload_params p = { m };
	DRV_ENTER(cuModuleUnload, &p, NULL);
	NEED_CTX();
	if (!m)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	mod_event(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, m);
	mod_release(m);
	free(m);
	DRV_RETURN(CUDA_SUCCESS);
}

/*
 * Libraries are context-independent ("the library is loaded into all
 * contexts"), so these need an initialized driver, not a current context.
 */
static CUresult lib_load(CUlibrary *out, const void *code, unsigned int njit,
			 unsigned int nlib)
{
	struct CUlib_st *l;
	CUresult r;

	if (!out || !code)
		return CUDA_ERROR_INVALID_VALUE;
	l = calloc(1, sizeof(*l));
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r = parse_image(&l->mod, code);
	if (r != CUDA_SUCCESS) {
		mod_release(&l->mod);
		free(l);
		return r;
	}
	*out = l;
	mod_event(CUPTI_CBID_RESOURCE_MODULE_LOADED, &l->mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jit_options,
				   void **jit_values, unsigned int njit,
				   CUlibraryOption *lib_options, void **lib_values,
				   unsigned int nlib)
{
	cuLibraryLoadData_params p = { library, code, jit_options, jit_values, njit,
				       lib_options, lib_values, nlib };
	DRV_ENTER(cuLibraryLoadData, &p, NULL);
	NEED_INIT();
	DRV_RETURN(lib_load(library, code, njit, nlib));
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *file,
				       CUjit_option *jit_options, void **jit_values,
				       unsigned int njit, CUlibraryOption *lib_options,
				       void **lib_values, unsigned int nlib)
{
	cuLibraryLoadFromFile_params p = { library, file, jit_options, jit_values, njit,
					   lib_options, lib_values, nlib };
	char *img = NULL;
	CUresult r;
	DRV_ENTER(cuLibraryLoadFromFile, &p, NULL);

	NEED_INIT();
	r = gpsim__read_image(file, &img, NULL);
	if (r == CUDA_SUCCESS)
		r = lib_load(library, img, njit, nlib);
	free(img);
	DRV_RETURN(r);
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary l)
{
	cuLibraryUnload_params p = { l };
	DRV_ENTER(cuLibraryUnload, &p, NULL);
	NEED_INIT();
	if (!l)
		DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
	mod_event(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, &l->mod);
	mod_release(&l->mod);
	free(l);
	DRV_RETURN(CUDA_SUCCESS);
}

/* A CUkernel here is the kernel's CUfunction: one function per name in every context. */
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *name)
{
	cuLibraryGetKernel_params p = { k, l, name };
	CUfunction f;
	CUresult r;
	DRV_ENTER(cuLibraryGetKernel, &p, NULL);

	NEED_INIT();
	if (!k || !l)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	r = mod_get(&f, &l->mod, name);
	if (r == CUDA_SUCCESS)
		*k = (CUkernel)(void *)f;
	DRV_RETURN(r);
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary l,
				   const char *name)
{
	DRV_ENTER(cuLibraryGetGlobal, NULL, NULL);
	NEED_CTX();
	if (!l)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(mod_global(dptr, bytes, &l->mod, name));
}

CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary l)
{
	DRV_ENTER(cuLibraryGetKernelCount, NULL, NULL);
	NEED_INIT();
	if (!count || !l)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*count = (unsigned int)l->mod.n;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *mod, CUlibrary l)
{
	DRV_ENTER(cuLibraryGetModule, NULL, NULL);
	NEED_CTX();
	if (!mod || !l)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*mod = &l->mod;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	DRV_ENTER(cuKernelGetFunction, NULL, NULL);
	NEED_CTX();
	if (!f || !k)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*f = (CUfunction)(void *)k;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel k)
{
	DRV_ENTER(cuKernelGetName, NULL, NULL);
	if (!name || !k)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*name = gpsim_func_name((CUfunction)(void *)k);
	DRV_RETURN(CUDA_SUCCESS);
}

#pragma GCC visibility pop
