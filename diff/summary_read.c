// SPDX-License-Identifier: Apache-2.0
/* summary_read.c - load a summary.json with cJSON and keep what `gpuperf diff` compares. */
#include "summary_read.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gp_alloc.h"

struct rd {
	const char *name;
	char *err;
	size_t errsize;
};

static int fail(struct rd *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct rd *r, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->err && r->errsize) {
		n = snprintf(r->err, r->errsize, "'%s': ", r->name);
		if (n >= 0 && (size_t)n < r->errsize) {
			va_start(ap, fmt);
			vsnprintf(r->err + n, r->errsize - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

/*
 * cJSON keeps numbers as doubles, exact only up to 2^53: a u64 total above
 * that would be read rounded (and above 2^63 clamped). So each number item
 * gets its literal text as valuestring (cJSON_Delete frees it), taken from
 * the document in order: cJSON builds the tree in document order, so the
 * n-th number literal of the text is the n-th number item of a depth-first
 * walk. Nothing is attached unless the two counts agree.
 */
static size_t count_numbers(const cJSON *item)
{
	size_t n = 0;

	for (; item; item = item->next)
		n += cJSON_IsNumber(item) + count_numbers(item->child);
	return n;
}

/* The next number literal at or after *p outside strings: its start and length, 0 at the end. */
static size_t next_number(const char **p, const char *end)
{
	const char *q = *p, *start;

	while (q < end) {
		if (*q == '"') {
			for (q++; q < end && *q != '"'; q++)
				if (*q == '\\')
					q++;
			q++;
		} else if (*q == '-' || (*q >= '0' && *q <= '9')) {
			for (start = q; q < end && strchr("0123456789+-.eE", *q) && *q; q++)
				;
			*p = start;
			return (size_t)(q - start);
		} else {
			q++;
		}
	}
	*p = end;
	return 0;
}

static int attach_items(cJSON *item, const char **p, const char *end)
{
	int err;

	for (; item; item = item->next) {
		if (cJSON_IsNumber(item)) {
			size_t n = next_number(p, end);

			if (!n)
				return -EINVAL;
			item->valuestring = strndup(*p, n);
			if (!item->valuestring)
				return -ENOMEM;
			*p += n;
		}
		err = attach_items(item->child, p, end);
		if (err)
			return err;
	}
	return 0;
}

static int attach_literals(cJSON *root, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 0;

	while (next_number(&p, end)) {
		p += next_number(&p, end);
		n++;
	}
	if (n != count_numbers(root))
		return 0; /* cannot happen with a document cJSON read; doubles then */
	p = text;
	return attach_items(root, &p, end);
}

/* A non-negative integer field; absent or null reads as 0. */
static int get_u64(struct rd *r, const cJSON *obj, const char *where, const char *key,
		   uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	const char *lit;
	char *end;
	double d;

	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	lit = cJSON_IsNumber(v) ? v->valuestring : NULL;
	if (lit && lit[0] >= '0' && lit[0] <= '9' && !lit[strspn(lit, "0123456789")]) {
		/* an integer literal: exact, whatever its size */
		errno = 0;
		*out = strtoull(lit, &end, 10);
		if (errno || *end)
			return fail(r, -EINVAL, "%s%s\"%s\" is above 2^64-1", where,
				    *where ? ": " : "", key);
		return 0;
	}
	d = v->valuedouble;
	if (!cJSON_IsNumber(v) || !isfinite(d) || d < 0 || d > 1.8e19)
		return fail(r, -EINVAL, "%s%s\"%s\" is not a non-negative number", where,
			    *where ? ": " : "", key);
	/* llround() is undefined above 2^63; a double that big is an integer already */
	*out = d < 9223372036854775808.0 ? (uint64_t)llround(d) : (uint64_t)d;
	return 0;
}

/* A string field, copied; absent or null reads as "" unless required. */
static int get_str(struct rd *r, const cJSON *obj, const char *where, const char *key,
		   bool required, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if ((!v || cJSON_IsNull(v)) && !required) {
		*out = strdup("");
	} else if (!cJSON_IsString(v)) {
		return fail(r, -EINVAL, "%s: \"%s\" %s", where, key,
			    v ? "is not a string" : "is missing");
	} else {
		*out = strdup(v->valuestring);
	}
	return *out ? 0 : -ENOMEM;
}

/* An array field; absent or null reads as empty. */
static int get_array(struct rd *r, const cJSON *obj, const char *key, const cJSON **out, size_t *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	*n = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsArray(v))
		return fail(r, -EINVAL, "\"%s\" is not an array", key);
	*out = v;
	*n = (size_t)cJSON_GetArraySize(v);
	return 0;
}

static int get_object(struct rd *r, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsObject(v))
		return fail(r, -EINVAL, "\"%s\" is not an object", key);
	*out = v;
	return 0;
}

static int check_elem(struct rd *r, const cJSON *e, const char *key, size_t i, char *where,
		      size_t size)
{
	snprintf(where, size, "%s[%zu]", key, i);
	if (!cJSON_IsObject(e))
		return fail(r, -EINVAL, "%s is not an object", where);
	return 0;
}

static int read_version(struct rd *r, const cJSON *root, struct summary *s)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "schema");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
	unsigned major, minor;
	char tail;

	if (!cJSON_IsString(name))
		return fail(r, -EINVAL,
			    "not a gpuperf summary: no \"schema\" field (expected \"%s\")",
			    SUMMARY_SCHEMA_NAME);
	if (strcmp(name->valuestring, SUMMARY_SCHEMA_NAME))
		return fail(r, -EINVAL, "not a gpuperf summary: schema is \"%s\", expected \"%s\"",
			    name->valuestring, SUMMARY_SCHEMA_NAME);
	if (!cJSON_IsString(ver) || sscanf(ver->valuestring, "%u.%u%c", &major, &minor, &tail) != 2)
		return fail(r, -EINVAL, "\"schema_version\" is missing or not \"MAJOR.MINOR\"");
	if (major != SUMMARY_SCHEMA_MAJOR)
		return fail(r, -EPROTO,
			    "schema version %u.%u is not supported: this gpuperf reads %d.x "
			    "(%d.%d and older minors)%s",
			    major, minor, SUMMARY_SCHEMA_MAJOR, SUMMARY_SCHEMA_MAJOR,
			    SUMMARY_SCHEMA_MINOR,
			    major > SUMMARY_SCHEMA_MAJOR ? "; use a newer gpuperf"
							 : "; re-run 'gpuperf report'");
	s->major = major;
	s->minor = minor;
	return 0;
}

static int read_gpu(struct rd *r, const cJSON *root, struct summary *s)
{
	const cJSON *gpu, *arr, *e;
	char where[64];
	size_t n, i = 0;
	int err;

	err = get_object(r, root, "gpu", &gpu);
	if (err || !gpu)
		return err;
	err = get_u64(r, gpu, "gpu", "busy_ns", &s->gpu_busy_ns);
	err = err ?: get_u64(r, gpu, "gpu", "idle_ns", &s->gpu_idle_ns);
	err = err ?: get_array(r, gpu, "devices", &arr, &n);
	if (err || !n)
		return err;
	s->devices = calloc(n, sizeof(*s->devices));
	if (!s->devices)
		return -ENOMEM;
	cJSON_ArrayForEach(e, arr)
	{
		struct summary_device *d = &s->devices[i];
		uint64_t id;

		s->n_devices = ++i;
		err = check_elem(r, e, "gpu.devices", i - 1, where, sizeof(where));
		err = err ?: get_u64(r, e, where, "id", &id);
		err = err ?: get_str(r, e, where, "name", false, &d->name);
		err = err ?: get_u64(r, e, where, "busy_ns", &d->busy_ns);
		err = err ?: get_u64(r, e, where, "idle_ns", &d->idle_ns);
		if (err)
			return err;
		d->id = (int64_t)id;
	}
	return 0;
}

/* A kernel's launch_configs[0] as one string (summary_kernel.config); "" when it has none. */
static int read_config(struct rd *r, const cJSON *k, const char *where, char **out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(k, "launch_configs");
	const cJSON *c = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, 0) : NULL;
	char *grid = NULL, *block = NULL, w[96];
	uint64_t regs = 0, smem = 0;
	int err;

	*out = NULL;
	if (!c)
		return (*out = strdup("")) ? 0 : -ENOMEM;
	snprintf(w, sizeof(w), "%s.launch_configs[0]", where);
	if (!cJSON_IsObject(c))
		return fail(r, -EINVAL, "%s is not an object", w);
	err = get_str(r, c, w, "grid", true, &grid);
	err = err ?: get_str(r, c, w, "block", true, &block);
	err = err ?: get_u64(r, c, w, "registers_per_thread", &regs);
	err = err ?: get_u64(r, c, w, "shared_memory", &smem);
	if (!err && asprintf(out, "<<<%s, %s>>> %llu regs, %llu B shared", grid, block,
			     (unsigned long long)regs, (unsigned long long)smem) < 0) {
		*out = NULL;
		err = -ENOMEM;
	}
	free(grid);
	free(block);
	return err;
}

static int read_kernels(struct rd *r, const cJSON *root, struct summary *s)
{
	const cJSON *arr, *e;
	char where[64];
	size_t n, i = 0;
	int err;

	err = get_array(r, root, "kernels", &arr, &n);
	if (err || !n)
		return err;
	s->kernels = calloc(n, sizeof(*s->kernels));
	if (!s->kernels)
		return -ENOMEM;
	cJSON_ArrayForEach(e, arr)
	{
		struct summary_kernel *k = &s->kernels[i];

		s->n_kernels = ++i;
		err = check_elem(r, e, "kernels", i - 1, where, sizeof(where));
		err = err ?: get_str(r, e, where, "name", true, &k->name);
		err = err ?: get_u64(r, e, where, "count", &k->count);
		err = err ?: get_u64(r, e, where, "total_ns", &k->total_ns);
		err = err ?: get_u64(r, e, where, "mean_ns", &k->mean_ns);
		err = err ?: read_config(r, e, where, &k->config);
		if (err)
			return err;
	}
	return 0;
}

static int read_memcpys(struct rd *r, const cJSON *root, struct summary *s)
{
	const cJSON *arr, *e;
	char where[64];
	size_t n, i = 0;
	int err;

	err = get_array(r, root, "memcpy", &arr, &n);
	if (err || !n)
		return err;
	s->memcpys = calloc(n, sizeof(*s->memcpys));
	if (!s->memcpys)
		return -ENOMEM;
	cJSON_ArrayForEach(e, arr)
	{
		struct summary_memcpy *m = &s->memcpys[i];

		s->n_memcpys = ++i;
		err = check_elem(r, e, "memcpy", i - 1, where, sizeof(where));
		err = err ?: get_str(r, e, where, "kind", true, &m->kind);
		err = err ?: get_u64(r, e, where, "count", &m->count);
		err = err ?: get_u64(r, e, where, "bytes", &m->bytes);
		err = err ?: get_u64(r, e, where, "total_ns", &m->total_ns);
		if (err)
			return err;
	}
	return 0;
}

static int read_sites(struct rd *r, const cJSON *root, struct summary *s)
{
	const cJSON *arr, *e;
	char where[64];
	size_t n, i = 0;
	int err;

	err = get_array(r, root, "launch_sites", &arr, &n);
	if (err || !n)
		return err;
	s->sites = calloc(n, sizeof(*s->sites));
	if (!s->sites)
		return -ENOMEM;
	cJSON_ArrayForEach(e, arr)
	{
		struct summary_site *t = &s->sites[i];

		s->n_sites = ++i;
		err = check_elem(r, e, "launch_sites", i - 1, where, sizeof(where));
		err = err ?: get_str(r, e, where, "stack", true, &t->stack);
		err = err ?: get_str(r, e, where, "api", false, &t->api);
		err = err ?: get_str(r, e, where, "function", false, &t->function);
		err = err ?: get_str(r, e, where, "location", false, &t->location);
		err = err ?: get_u64(r, e, where, "gpu_ns", &t->gpu_ns);
		err = err ?: get_u64(r, e, where, "launches", &t->launches);
		if (err)
			return err;
	}
	return 0;
}

int summary_read__parse(const char *text, size_t len, const char *name, struct summary **out,
			char *errbuf, size_t errsize)
{
	struct rd r = {.name = name ? name : "summary.json", .err = errbuf, .errsize = errsize};
	const char *end = NULL;
	struct summary *s = NULL;
	const cJSON *cpu;
	cJSON *root = NULL;
	size_t i;
	int err;

	if (errbuf && errsize)
		errbuf[0] = '\0';
	*out = NULL;
	for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
		;
	if (i == len)
		return fail(&r, -EINVAL, "empty file (expected a summary.json)");
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		size_t at = end && end >= text ? (size_t)(end - text) : len;

		/* cJSON stops on the last byte when the text ends early. */
		if (at + 1 >= len)
			return fail(&r, -EINVAL, "invalid JSON: cut short at byte %zu", len);
		return fail(&r, -EINVAL, "invalid JSON at byte %zu", at);
	}
	err = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s || attach_literals(root, text, len))
		goto cleanup;
	err = cJSON_IsObject(root) ? 0 : fail(&r, -EINVAL, "not a JSON object");
	err = err ?: read_version(&r, root, s);
	err = err ?: get_object(&r, root, "cpu", &cpu);
	if (!err && cpu) {
		s->has_cpu = true;
		err = get_u64(&r, cpu, "cpu", "on_cpu_ns", &s->cpu_on_ns);
		err = err ?: get_u64(&r, cpu, "cpu", "off_cpu_ns", &s->cpu_off_ns);
	}
	err = err ?: read_gpu(&r, root, s);
	err = err ?: read_kernels(&r, root, s);
	err = err ?: read_memcpys(&r, root, s);
	err = err ?: read_sites(&r, root, s);
	if (err == -ENOMEM)
		fail(&r, err, "out of memory");
cleanup:
	cJSON_Delete(root);
	if (err) {
		summary_read__free(s);
		return err;
	}
	*out = s;
	return 0;
}

static int read_all(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0, got;
	char *b = NULL;
	int err = 0;

	if (!f)
		return -errno;
	do {
		if (GP_ALLOC_GROW(b, n + 4096, cap)) {
			err = -ENOMEM;
			break;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

int summary_read__load(const char *path, struct summary **out, char *errbuf, size_t errsize)
{
	struct rd r = {.name = path, .err = errbuf, .errsize = errsize};
	char *file = NULL, *text = NULL, *slash;
	struct stat st;
	size_t len = 0;
	int err;

	*out = NULL;
	if (stat(path, &st))
		return fail(&r, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);

		while (n > 1 && path[n - 1] == '/')
			n--;
		if (asprintf(&file, "%.*s/summary.json", (int)n, path) < 0)
			return -ENOMEM;
		if (stat(file, &st)) {
			err = -errno;
			free(file);
			if (err == -ENOENT)
				return fail(
				    &r, err,
				    "no summary.json in this directory (run 'gpuperf report "
				    "%s' first)",
				    path);
			return fail(&r, err, "summary.json: %s", strerror(-err));
		}
	} else {
		file = strdup(path);
		if (!file)
			return -ENOMEM;
	}
	r.name = file;
	err = read_all(file, &text, &len);
	if (err) {
		fail(&r, err, "cannot read: %s", strerror(-err));
		goto cleanup;
	}
	err = summary_read__parse(text, len, file, out, errbuf, errsize);
	if (err)
		goto cleanup;
	(*out)->path = file;
	file = NULL;
	(*out)->dir = strdup((*out)->path);
	if (!(*out)->dir) {
		summary_read__free(*out);
		*out = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	slash = strrchr((*out)->dir, '/');
	if (slash && slash != (*out)->dir)
		*slash = '\0';
	else if (slash)
		slash[1] = '\0';
	else
		strcpy((*out)->dir, ".");
cleanup:
	free(text);
	free(file);
	return err;
}

void summary_read__free(struct summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_devices; i++)
		free(s->devices[i].name);
	for (i = 0; i < s->n_kernels; i++) {
		free(s->kernels[i].name);
		free(s->kernels[i].config);
	}
	for (i = 0; i < s->n_memcpys; i++)
		free(s->memcpys[i].kind);
	for (i = 0; i < s->n_sites; i++) {
		free(s->sites[i].function);
		free(s->sites[i].location);
		free(s->sites[i].api);
		free(s->sites[i].stack);
	}
	free(s->devices);
	free(s->kernels);
	free(s->memcpys);
	free(s->sites);
	free(s->path);
	free(s->dir);
	free(s);
}
