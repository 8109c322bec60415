// SPDX-License-Identifier: Apache-2.0
/* static_cudart: the address ranges of a static cudart inside an executable, from its .symtab. */

#include "static_cudart.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gp_util.h"

#define MAX_TABLE (256u << 20) /* bytes of .symtab or .strtab read at most */

struct fsym {
	uint64_t addr, size;
	int rt;
};

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int runtime_name(const char *n)
{
	return !strncmp(n, "libcudart_static_", 17) || !strncmp(n, "cuda", 4) ||
	       !strncmp(n, "__cuda", 6);
}

/* The whole of [off, off + size) of the file, or NULL. */
static void *read_at(int fd, uint64_t off, uint64_t size)
{
	char *p;
	size_t got = 0;

	if (!size || size > MAX_TABLE)
		return NULL;
	p = malloc(size + 1);
	if (!p)
		return NULL;
	while (got < size) {
		ssize_t n = pread(fd, p + got, size - got, (off_t)(off + got));

		if (n <= 0) {
			free(p);
			return NULL;
		}
		got += (size_t)n;
	}
	p[size] = '\0'; /* a string table that does not end in NUL stops here */
	return p;
}

int static_cudart__ranges(int fd, struct static_cudart_range *out, int max)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	Elf64_Sym *syms = NULL;
	char *str = NULL;
	struct fsym *v = NULL;
	size_t i, j, nsyms = 0, nv = 0, strsz = 0;
	int nout = 0, err = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
		return -ENOEXEC;
	sh = read_at(fd, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(*sh));
	if (!sh)
		return -EIO;
	for (i = 0; i < eh.e_shnum && !syms; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
		    sh[i].sh_link >= eh.e_shnum)
			continue;
		syms = read_at(fd, sh[i].sh_offset, sh[i].sh_size);
		str = read_at(fd, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size);
		nsyms = syms ? sh[i].sh_size / sizeof(Elf64_Sym) : 0;
		strsz = str ? sh[sh[i].sh_link].sh_size : 0;
	}
	if (!syms || !str)
		goto out; /* stripped: nothing to say */
	v = malloc(nsyms * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nsyms; i++) {
		const Elf64_Sym *s = &syms[i];

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= strsz)
			continue;
		v[nv++] = (struct fsym){ s->st_value, s->st_size, runtime_name(str + s->st_name) };
	}
	gp_sort(v, nv, sizeof(*v), fsym_cmp);
	for (i = 0; i < nv && nout < max; i = j > i ? j : i + 1) {
		for (j = i; j < nv && v[j].rt; j++)
			;
		if (j - i >= STATIC_CUDART_MIN_RUN)
			out[nout++] = (struct static_cudart_range){ v[i].addr,
								    v[j - 1].addr + v[j - 1].size };
	}
out:
	free(v);
	free(str);
	free(syms);
	free(sh);
	return err ? err : nout;
}
