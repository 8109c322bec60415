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

uint32_t timeline__intern(struct timeline *tl, const char *s)
{
	int64_t id;

	if (!s || !*s)
		return 0;
	id = gp_strtab__intern(&tl->priv->strs, s, strlen(s), NULL);
	return id > 0 && id <= UINT32_MAX ? (uint32_t)id : 0;
}

const char *timeline__str(const struct timeline *tl, uint32_t id)
{
	const struct gp_strtab *st = &tl->priv->strs;

	return id < st->nr ? gp_strtab__str(st, id) : "";
}

void tl_warn(struct timeline *tl, const char *fmt, ...)
{
	struct tl_priv *p = tl->priv;
	char buf[600];
	va_list ap;

	if (p->nr_warnings >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (GP_ALLOC_GROW(p->warnings, p->nr_warnings + 1, p->warnings_alloc))
		return;
	p->warnings[p->nr_warnings] = strdup(buf);
	if (p->warnings[p->nr_warnings])
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
	if (gp_strtab__intern(&tl->priv->strs, "", 0, NULL) != 0)
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
		gp_strtab__release(&tl->priv->strs);
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
