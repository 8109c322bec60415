// SPDX-License-Identifier: Apache-2.0
/*
 * timeline.c - the timeline object: new and free, its string table (ids
 * from 0, "" first), the loader's warnings, and the lookups readers make
 * once it is finished. Loading is timeline_load.c's; the rest of the
 * split is listed in timeline_priv.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_util.h"
#include "timeline.h"
#include "timeline_priv.h"

static uint32_t hash_str(const char *s)
{
	return gp_fnv1a(s, strlen(s));
}

static int strtab_grow_slots(struct strtab *st)
{
	uint32_t ncap = st->nslots ? st->nslots * 2 : 1024, i;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 1; i < st->nr; i++) {
		uint32_t j = hash_str(st->strs[i]) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = i;
	}
	free(st->slots);
	st->slots = ns;
	st->nslots = ncap;
	return 0;
}

uint32_t timeline__intern(struct timeline *tl, const char *s)
{
	struct strtab *st = &tl->priv->st;
	uint32_t j;

	if (!s || !*s)
		return 0;
	if ((st->nr + 1) * 2 > st->nslots && strtab_grow_slots(st))
		return 0;
	for (j = hash_str(s) & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1))
		if (strcmp(st->strs[st->slots[j]], s) == 0)
			return st->slots[j];
	if (st->nr == st->cap) {
		uint32_t ncap = st->cap * 2;
		char **n = realloc(st->strs, ncap * sizeof(*n));

		if (!n)
			return 0;
		st->strs = n;
		st->cap = ncap;
	}
	st->strs[st->nr] = strdup(s);
	if (!st->strs[st->nr])
		return 0;
	st->slots[j] = st->nr;
	return st->nr++;
}

const char *timeline__str(const struct timeline *tl, uint32_t id)
{
	const struct strtab *st = &tl->priv->st;

	return id < st->nr ? st->strs[id] : "";
}

void tl_warn(struct timeline *tl, const char *fmt, ...)
{
	struct tl_priv *p = tl->priv;
	char buf[600];
	char **nw;
	va_list ap;

	if (p->nr_warnings >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(p->warnings, (p->nr_warnings + 1) * sizeof(*nw));
	if (!nw)
		return;
	p->warnings = nw;
	nw[p->nr_warnings] = strdup(buf);
	if (nw[p->nr_warnings])
		p->nr_warnings++;
}

size_t timeline__nr_warnings(const struct timeline *tl)
{
	return tl->priv->nr_warnings;
}

const char *timeline__warning(const struct timeline *tl, size_t i)
{
	return i < tl->priv->nr_warnings ? tl->priv->warnings[i] : NULL;
}

struct timeline *timeline__new(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->priv = calloc(1, sizeof(*tl->priv));
	if (!tl->priv)
		goto fail;
	tl->priv->st.cap = 1024;
	tl->priv->st.strs = calloc(tl->priv->st.cap, sizeof(char *));
	if (!tl->priv->st.strs)
		goto fail;
	tl->priv->st.strs[0] = strdup("");
	if (!tl->priv->st.strs[0])
		goto fail;
	tl->priv->st.nr = 1;
	if (strtab_grow_slots(&tl->priv->st))
		goto fail;
	tl->first_ts = UINT64_MAX;
	tl->priv->last_tid_key = UINT64_MAX;
	return tl;
fail:
	timeline__free(tl);
	errno = ENOMEM;
	return NULL;
}

void timeline__free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	if (tl->priv) {
		for (i = 0; i < tl->priv->st.nr; i++)
			free(tl->priv->st.strs[i]);
		free(tl->priv->st.strs);
		free(tl->priv->st.slots);
		for (i = 0; i < tl->priv->nr_warnings; i++)
			free(tl->priv->warnings[i]);
		free(tl->priv->warnings);
		free(tl->priv->stk);
		tl_free_maps(tl->priv);
		free(tl->priv->api_stacks);
		free(tl->priv);
	}
	for (i = 0; i < tl->nr_files; i++)
		free(tl->files[i].path);
	free(tl->files);
	free(tl->gpu);
	free(tl->api);
	free(tl->samples);
	free(tl->offcpu);
	free(tl->frames);
	free(tl->procs);
	free(tl->offcpu_short);
	free(tl->mem);
	free(tl->threads);
	free(tl->modules);
	free(tl->devices);
	free(tl->lanes);
	free(tl->gpu_bytes);
	free(tl->long_durs);
	free(tl->kconfigs);
	free(tl->stack_ends);
	free(tl->tids);
	free(tl->api_names);
	free(tl->launch_stacks);
	free(tl);
}

const uint64_t *timeline__frames(const struct timeline *tl, const struct tl_stack *st)
{
	return tl->frames + st->off;
}

static int cmp_key_pid(const void *key, const void *elem)
{
	return cmp_u64(*(const uint32_t *)key, ((const struct tl_proc *)elem)->pid);
}

const struct tl_proc *timeline__proc(const struct timeline *tl, uint32_t pid)
{
	if (!tl->nr_procs)
		return NULL;
	return bsearch(&pid, tl->procs, tl->nr_procs, sizeof(*tl->procs), cmp_key_pid);
}

const struct tl_thread *timeline__thread(const struct timeline *tl, uint32_t pid, uint32_t tid)
{
	size_t lo = 0, hi = tl->nr_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct tl_thread *t = &tl->threads[mid];

		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tl->nr_threads && tl->threads[lo].pid == pid && tl->threads[lo].tid == tid)
		return &tl->threads[lo];
	return NULL;
}

const struct tl_device *timeline__device(const struct timeline *tl, uint32_t id)
{
	size_t i;

	for (i = 0; i < tl->nr_devices; i++)
		if (tl->devices[i].id == id)
			return &tl->devices[i];
	return NULL;
}

const struct tl_stack_ends *timeline__stack_ends(const struct timeline *tl, uint32_t pid)
{
	size_t lo = 0, hi = tl->nr_stack_ends, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl->stack_ends[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tl->nr_stack_ends && tl->stack_ends[lo].pid == pid ? &tl->stack_ends[lo] : NULL;
}

const char *timeline__copy_kind_name(unsigned k)
{
	/* CUpti_ActivityMemcpyKind, as the folded files' "[memcpy HtoD]" spell it. */
	static const char *const names[] = {
	    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
	    "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP",
	};

	/* names[0] for kinds past the table: callers compare with the "unknown" this returns */
	return k < ARRAY_SIZE(names) ? names[k] : names[0];
}
