// SPDX-License-Identifier: Apache-2.0
/* sym_perf_map.c - JIT symbols of a process, from its perf map (/tmp/perf-PID.map). */
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

/* ---- JIT maps ---------------------------------------------------------- */

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int symbolizer__load_perf_map(struct symbolizer *s, uint32_t pid, const char *path)
{
	FILE *f = sym_fopen_regular(path);
	struct jit_sym *syms = NULL;
	size_t n = 0, cap = 0, linecap = 0, order = 0;
	char *line = NULL;
	struct proc *p;
	int err = 0;

	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		char *q = line, *end;
		uint64_t start, size;

		order++;
		/* "START SIZE name", hex with or without 0x; the name is the
		 * rest of the line and may hold spaces (Python's do). */
		start = strtoull(q, &end, 16);
		if (end == q || *end != ' ')
			continue;
		q = end + 1;
		size = strtoull(q, &end, 16);
		if (end == q || *end != ' ' || !size)
			continue;
		q = end + 1;
		q[strcspn(q, "\r\n")] = '\0';
		if (!*q)
			continue;
		if (GP_ALLOC_GROW(syms, n + 1, cap)) {
			err = -ENOMEM;
			goto cleanup;
		}
		syms[n] = (struct jit_sym){.start = start, .size = size, .order = order};
		syms[n].name = symbolizer__demangle(s, q);
		if (!syms[n].name) {
			err = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	if (ferror(f)) {
		err = -EIO;
		goto cleanup;
	}
	if (n)
		qsort(syms, n, sizeof(*syms), jit_cmp);
	/* Among entries with the same start the last written wins: drop the
	 * earlier ones so the binary search cannot land on a stale name. */
	{
		size_t w = 0;

		for (size_t r = 0; r < n; r++) {
			if (w && syms[w - 1].start == syms[r].start)
				w--;
			syms[w++] = syms[r];
		}
		n = w;
	}
	p = sym_proc_get(s, pid);
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	free(p->jit);
	p->jit = syms;
	p->njit = n;
	p->gen = ++s->gen;
	syms = NULL;
cleanup:
	free(syms);
	free(line);
	fclose(f);
	return err;
}
