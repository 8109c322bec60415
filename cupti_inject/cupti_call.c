// SPDX-License-Identifier: Apache-2.0
/* Loads libcupti with dlopen and resolves the calls the injection library makes. */

#include "cupti_call.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cupti_fns gp_cupti;

struct lib_dirs {
	char dir[2][4096]; /* directories of the mapped libcudart / libcuda */
};

static int find_cuda_dirs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct lib_dirs *d = data;
	const char *base, *name = info->dlpi_name;
	int slot;

	if (!name || !*name || !(base = strrchr(name, '/')))
		return 0;
	if (!strncmp(base + 1, "libcudart.so", 12))
		slot = 0;
	else if (!strncmp(base + 1, "libcuda.so", 10))
		slot = 1;
	else
		return 0;
	if (!d->dir[slot][0] && (size_t)(base - name) < sizeof(d->dir[slot]))
		snprintf(d->dir[slot], sizeof(d->dir[slot]), "%.*s", (int)(base - name), name);
	return 0;
}

static void *try_open(const char *path, char *why, size_t whylen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h && why && !*why) {
		const char *e = dlerror();

		snprintf(why, whylen, "%s", e ? e : path);
	}
	return h;
}

/*
 * Its 12 KiB of paths are on the heap: on the stack they would be pages
 * never touched below the dlopen calls, which end the stack copies of
 * the CPU agent's samples taken there (a copy cannot fault pages in).
 */
static void *open_cupti(const char *path, char *why, size_t whylen)
{
	static const char *const names[] = { "libcupti.so.13", "libcupti.so" };
	static const char *const rel[] = { "", "/../extras/CUPTI/lib64" };
	/* The toolkit's default install locations, last resort. */
	static const char *const std_dirs[] = { "/usr/local/cuda/extras/CUPTI/lib64",
						"/usr/local/cuda/lib64" };
	struct {
		struct lib_dirs d;
		char buf[4096 + 64];
	} *m;
	void *h = NULL;
	size_t i, j, k;

	if (path && *path)
		return try_open(path, why, whylen);
	for (i = 0; i < 2; i++)
		if ((h = try_open(names[i], why, whylen)))
			return h;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	dl_iterate_phdr(find_cuda_dirs, &m->d);
	for (k = 0; k < 2 && !h; k++) {
		if (!m->d.dir[k][0])
			continue;
		for (j = 0; j < 2 && !h; j++) {
			snprintf(m->buf, sizeof(m->buf), "%s%s/libcupti.so.13", m->d.dir[k], rel[j]);
			h = dlopen(m->buf, RTLD_NOW | RTLD_LOCAL);
		}
	}
	for (j = 0; j < 2 && !h; j++) {
		snprintf(m->buf, sizeof(m->buf), "%s/libcupti.so.13", std_dirs[j]);
		h = dlopen(m->buf, RTLD_NOW | RTLD_LOCAL);
	}
	free(m);
	return h;
}

int cupti_call__open(const char *path, char *why, size_t whylen)
{
	struct cupti_fns f;
	const char *missing = NULL;

	if (why && whylen)
		why[0] = '\0';
	memset(&f, 0, sizeof(f));
	f.handle = open_cupti(path, why, whylen);
	if (!f.handle)
		return -ENOENT;
#define REQ(field, sym)                                       \
	do {                                                  \
		*(void **)&f.field = dlsym(f.handle, #sym);   \
		if (!f.field && !missing)                     \
			missing = #sym;                       \
	} while (0)
#define OPT(field, sym) (*(void **)&f.field = dlsym(f.handle, #sym))
	REQ(Subscribe, cuptiSubscribe);
	REQ(Unsubscribe, cuptiUnsubscribe);
	REQ(EnableCallback, cuptiEnableCallback);
	REQ(SetThreadIdType, cuptiSetThreadIdType);
	REQ(GetTimestamp, cuptiGetTimestamp);
	REQ(GetResultString, cuptiGetResultString);
	REQ(ActivityRegisterTimestampCallback, cuptiActivityRegisterTimestampCallback);
	REQ(ActivityRegisterCallbacks, cuptiActivityRegisterCallbacks);
	REQ(ActivityEnable, cuptiActivityEnable);
	REQ(ActivityDisable, cuptiActivityDisable);
	REQ(ActivityFlushAll, cuptiActivityFlushAll);
	REQ(ActivityGetNextRecord, cuptiActivityGetNextRecord);
	REQ(ActivityGetNumDroppedRecords, cuptiActivityGetNumDroppedRecords);
	OPT(ActivityEnableRuntimeApi, cuptiActivityEnableRuntimeApi);
	OPT(ActivityEnableDriverApi, cuptiActivityEnableDriverApi);
	OPT(GetGraphNodeId, cuptiGetGraphNodeId);
#undef REQ
#undef OPT
	if (missing) {
		snprintf(why, whylen, "this libcupti has no %s (too old?)", missing);
		dlclose(f.handle);
		return -ENOSYS;
	}
	gp_cupti = f;
	return 0;
}

const char *cupti_call__strerror(CUptiResult r)
{
	const char *s = NULL;

	if (gp_cupti.GetResultString && gp_cupti.GetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI_ERROR_UNKNOWN";
}
