// SPDX-License-Identifier: Apache-2.0
/*
 * memory_stats.c - the "memory" section of summary.json and its lines in
 * the text report: allocations, frees, bytes and peak bytes live per memory
 * kind, pool events, and the allocation sites by bytes (docs/summary-json.md).
 */
#include "memory_stats.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp_record.h"
#include "gp_util.h"
#include "report_state.h"
#include "site.h"
#include "timeline.h"

#define MAX_MEM_SITES 100

/*
 * CUPTI's memory kinds (CUpti_ActivityMemoryKind 0..7), then device memory
 * of a stream-ordered pool, then virtual memory's physical allocations
 * (cuMemCreate: the injection library's own records).
 */
enum { MK_POOL = 8, MK_VMM, MK_COUNT };

static const char *const kind_names[MK_COUNT] = {
	"unknown", "pageable", "pinned", "device", "array", "managed", "device_static",
	"managed_static", "pool", "vmm",
};

struct kind_stat {
	uint64_t allocations, frees, bytes, bytes_freed, live, peak;
};

struct memory_stats {
	struct kind_stat k[MK_COUNT];
	uint64_t live, peak; /* every kind together */
	uint64_t pools_created, pools_destroyed, pools_trimmed;
	uint64_t allocations, without_stack; /* allocations with no API call stack */
	struct site *sites;
	size_t nr_sites, cap_sites;
};

static unsigned kind_of(const struct tl_mem *m)
{
	if (m->from_call)
		return MK_VMM;
	if (m->pool_type)
		return MK_POOL;
	return m->kind < MK_POOL ? m->kind : 0;
}

/* Allocations with a launch stack, by (stack, API name): each run is one site, symbolized once. */
struct alloc_key {
	int32_t launch;
	uint16_t name;
	uint32_t api;
	uint64_t bytes;
};

static int cmp_alloc_key(const void *a, const void *b)
{
	const struct alloc_key *x = a, *y = b;

	if (x->launch != y->launch)
		return x->launch < y->launch ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_site_bytes(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns < y->gpu_ns ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

static int add_sites(struct report_state *r, struct memory_stats *ms)
{
	const struct timeline *tl = r->tl;
	struct alloc_key *keys = malloc((tl->nr_mem ? tl->nr_mem : 1) * sizeof(*keys));
	size_t i, j, n = 0;
	int err = 0;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < tl->nr_mem; i++) {
		const struct tl_mem *m = &tl->mem[i];
		const struct tl_api *a = m->api >= 0 ? &tl->api[m->api] : NULL;

		if (m->op != GP_MEM_ALLOC)
			continue;
		if (!a || a->launch < 0) {
			ms->without_stack++;
			continue;
		}
		keys[n++] = (struct alloc_key){ a->launch, a->name, (uint32_t)m->api, m->bytes };
	}
	gp_sort(keys, n, sizeof(*keys), cmp_alloc_key);
	for (i = 0; i < n && !err; i = j) {
		uint64_t bytes = 0;
		int s;

		for (j = i; j < n && !cmp_alloc_key(&keys[i], &keys[j]); j++)
			bytes += keys[j].bytes;
		s = site__get(&r->frames, &r->fb, &ms->sites, &ms->nr_sites, &ms->cap_sites,
			      &tl->api[keys[i].api], &tl->launch_stacks[keys[i].launch], NULL);
		if (s < 0) {
			err = s;
			break;
		}
		ms->sites[s].gpu_ns += bytes;
		ms->sites[s].launches += j - i;
	}
	free(keys);
	if (!err)
		gp_sort(ms->sites, ms->nr_sites, sizeof(*ms->sites), cmp_site_bytes);
	return err;
}

int memory_stats__build(struct report_state *r, struct memory_stats **out)
{
	const struct timeline *tl = r->tl;
	struct memory_stats *ms;
	size_t i;
	int err;

	*out = NULL;
	if (!tl->nr_mem)
		return 0;
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	/* in time order (timeline__finish()): bytes live rise and fall as the program ran */
	for (i = 0; i < tl->nr_mem; i++) {
		const struct tl_mem *m = &tl->mem[i];
		struct kind_stat *k = &ms->k[kind_of(m)];

		switch (m->op) {
		case GP_MEM_ALLOC:
			k->allocations++;
			k->bytes += m->bytes;
			k->live += m->bytes;
			ms->live += m->bytes;
			ms->allocations++;
			break;
		case GP_MEM_FREE: {
			/* memory allocated before the recording began is freed from nothing */
			uint64_t d = m->bytes < k->live ? m->bytes : k->live;

			k->frees++;
			k->bytes_freed += m->bytes;
			k->live -= d;
			ms->live -= d;
			break;
		}
		case GP_MEM_POOL_CREATE:
			ms->pools_created++;
			break;
		case GP_MEM_POOL_DESTROY:
			ms->pools_destroyed++;
			break;
		case GP_MEM_POOL_TRIM:
			ms->pools_trimmed++;
			break;
		default:
			break;
		}
		k->peak = k->live > k->peak ? k->live : k->peak;
		ms->peak = ms->live > ms->peak ? ms->live : ms->peak;
	}
	err = add_sites(r, ms);
	if (err) {
		memory_stats__free(ms);
		return err;
	}
	*out = ms;
	return 0;
}

void memory_stats__free(struct memory_stats *ms)
{
	size_t i;

	if (!ms)
		return;
	for (i = 0; i < ms->nr_sites; i++)
		free(ms->sites[i].stack);
	free(ms->sites);
	free(ms);
}

/* Kinds with any allocation or free, most bytes allocated first. */
static size_t kinds_by_bytes(const struct memory_stats *ms, unsigned order[MK_COUNT])
{
	size_t n = 0, i, j;

	for (i = 0; i < MK_COUNT; i++) {
		if (!ms->k[i].allocations && !ms->k[i].frees)
			continue;
		for (j = n++; j > 0 && ms->k[order[j - 1]].bytes < ms->k[i].bytes; j--)
			order[j] = order[j - 1];
		order[j] = (unsigned)i;
	}
	return n;
}

/* cJSON numbers are doubles: exact for integers below 2^53. */
static void num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

void memory_stats__add_json(const struct memory_stats *ms, cJSON *root)
{
	unsigned order[MK_COUNT];
	cJSON *o, *a, *e;
	size_t i, n;

	if (!ms)
		return;
	o = cJSON_AddObjectToObject(root, "memory");
	num(o, "allocations", (double)ms->allocations);
	num(o, "peak_bytes", (double)ms->peak);
	a = cJSON_AddArrayToObject(o, "kinds");
	n = kinds_by_bytes(ms, order);
	for (i = 0; i < n; i++) {
		const struct kind_stat *k = &ms->k[order[i]];

		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "kind", kind_names[order[i]]);
		num(e, "allocations", (double)k->allocations);
		num(e, "frees", (double)k->frees);
		num(e, "bytes_allocated", (double)k->bytes);
		num(e, "bytes_freed", (double)k->bytes_freed);
		num(e, "peak_bytes", (double)k->peak);
		cJSON_AddItemToArray(a, e);
	}
	e = cJSON_AddObjectToObject(o, "pools");
	num(e, "created", (double)ms->pools_created);
	num(e, "destroyed", (double)ms->pools_destroyed);
	num(e, "trimmed", (double)ms->pools_trimmed);
	num(o, "allocations_without_stack", (double)ms->without_stack);
	a = cJSON_AddArrayToObject(o, "sites");
	for (i = 0; i < ms->nr_sites && i < MAX_MEM_SITES; i++) {
		const struct site *st = &ms->sites[i];

		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "function", st->function);
		cJSON_AddStringToObject(e, "location", st->location);
		cJSON_AddStringToObject(e, "api", st->api);
		cJSON_AddStringToObject(e, "stack", st->stack);
		num(e, "bytes", (double)st->gpu_ns);
		num(e, "allocations", (double)st->launches);
		cJSON_AddItemToArray(a, e);
	}
}

/* A size for people: "812 B", "3.25 KiB", "1.20 MiB", "2.50 GiB". */
static void fmt_bytes(char *buf, size_t size, uint64_t b)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, size, "%.2f %s", v, units[u]);
}

void memory_stats__write_text(const struct memory_stats *ms, FILE *out)
{
	unsigned order[MK_COUNT];
	char b1[32], b2[32];
	size_t i, n;

	if (!ms)
		return;
	fmt_bytes(b1, sizeof(b1), ms->peak);
	fprintf(out, "\nGPU memory: peak %s live;", b1);
	n = kinds_by_bytes(ms, order);
	for (i = 0; i < n; i++) {
		const struct kind_stat *k = &ms->k[order[i]];

		fmt_bytes(b1, sizeof(b1), k->bytes);
		fmt_bytes(b2, sizeof(b2), k->peak);
		fprintf(out, "%s %s %llu allocation%s, %s (peak %s)", i ? "," : "",
			kind_names[order[i]], (unsigned long long)k->allocations,
			k->allocations == 1 ? "" : "s", b1, b2);
	}
	fputc('\n', out);
	if (ms->nr_sites) {
		const struct site *st = &ms->sites[0];

		fmt_bytes(b1, sizeof(b1), st->gpu_ns);
		fprintf(out, "  top allocation site: %s%s%s%s -> %s, %s in %llu allocation%s\n",
			st->function, st->location[0] ? " (" : "", st->location,
			st->location[0] ? ")" : "", st->api, b1, (unsigned long long)st->launches,
			st->launches == 1 ? "" : "s");
	}
}
