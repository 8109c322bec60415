// SPDX-License-Identifier: Apache-2.0
/* sym_kallsyms.c - the kernel's symbols, from the kallsyms file a recording keeps. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gp_alloc.h"
#include "gp_util.h"
#include "symbolize_priv.h"

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int symbolizer__load_kallsyms(struct symbolizer *s, const char *path)
{
	FILE *f = sym_fopen_regular(path);
	struct ksym *syms = NULL;
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	int err = 0;

	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		char *p = line, *end, *name, *mod = NULL;
		uint64_t addr;
		char type;

		addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		type = *p;
		/* Text only: data symbols never hold an instruction pointer. */
		if (!type || !strchr("tTwW", type) || p[1] != ' ')
			continue;
		/* kptr_restrict gives all-zero addresses: nothing can be named. */
		if (!addr)
			continue;
		name = p + 2;
		name[strcspn(name, "\r\n")] = '\0';
		end = strpbrk(name, " \t");
		if (end) {
			*end = '\0';
			mod = strchr(end + 1, '[');
		}
		if (!*name)
			continue;
		if (GP_ALLOC_GROW(syms, n + 1, cap)) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (mod) {
			/* "name [mod]", as perf prints module symbols. */
			char buf[512];

			mod[strcspn(mod, "]")] = '\0';
			snprintf(buf, sizeof(buf), "%s [%s]", name, mod + 1);
			syms[n].name = sym_intern(s, buf);
		} else {
			syms[n].name = sym_intern(s, name);
		}
		if (!syms[n].name) {
			err = -ENOMEM;
			goto cleanup;
		}
		syms[n++].addr = addr;
	}
	if (ferror(f)) {
		err = -EIO;
		goto cleanup;
	}
	if (!n) {
		err = -ENODATA;
		goto cleanup;
	}
	qsort(syms, n, sizeof(*syms), ksym_cmp);
	free(s->ksyms);
	s->ksyms = syms;
	s->nksyms = n;
	syms = NULL;
	/* Earlier kernel lookups answered from the old table. */
	s->kgen++;
cleanup:
	free(syms);
	free(line);
	fclose(f);
	return err;
}

