// SPDX-License-Identifier: Apache-2.0
/* pprof.c - stream a gzip'd pprof profile.proto message out. */
#include "pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gp_alloc.h"
#include "gp_file.h"
#include "gp_strtab.h"

/*
 * A hand-written encoder, as pprof's own Go writer has: the profile is one
 * message whose repeated fields may come in any order and interleaved, so
 * the string table, functions, locations and samples are written as they
 * are first met and only their keys are kept. Mappings wait for the end:
 * whether one is symbolized is known only once all its locations are.
 * Only varints and length-delimited fields are needed. Field numbers:
 * profile.proto.
 */
enum {
	WT_VARINT = 0,
	WT_LEN = 2,
};

/* Profile */
#define PROFILE_SAMPLE_TYPE	    1
#define PROFILE_SAMPLE		    2
#define PROFILE_MAPPING		    3
#define PROFILE_LOCATION	    4
#define PROFILE_FUNCTION	    5
#define PROFILE_STRING_TABLE	    6
#define PROFILE_TIME_NANOS	    9
#define PROFILE_DURATION_NANOS	    10
#define PROFILE_PERIOD_TYPE	    11
#define PROFILE_PERIOD		    12
#define PROFILE_DEFAULT_SAMPLE_TYPE 14
/* ValueType */
#define VALUE_TYPE_TYPE 1
#define VALUE_TYPE_UNIT 2
/* Sample */
#define SAMPLE_LOCATION_ID 1
#define SAMPLE_VALUE	   2
#define SAMPLE_LABEL	   3
/* Label */
#define LABEL_KEY 1
#define LABEL_STR 2
#define LABEL_NUM 3
/* Mapping */
#define MAPPING_ID		  1
#define MAPPING_MEMORY_START	  2
#define MAPPING_MEMORY_LIMIT	  3
#define MAPPING_FILE_OFFSET	  4
#define MAPPING_FILENAME	  5
#define MAPPING_BUILD_ID	  6
#define MAPPING_HAS_FUNCTIONS	  7
#define MAPPING_HAS_FILENAMES	  8
#define MAPPING_HAS_LINE_NUMBERS  9
#define MAPPING_HAS_INLINE_FRAMES 10
/* Location */
#define LOCATION_ID	    1
#define LOCATION_MAPPING_ID 2
#define LOCATION_ADDRESS    3
#define LOCATION_LINE	    4
/* Line */
#define LINE_FUNCTION_ID 1
#define LINE_LINE	 2
/* Function */
#define FUNCTION_ID	     1
#define FUNCTION_NAME	     2
#define FUNCTION_SYSTEM_NAME 3
#define FUNCTION_FILENAME    4
#define FUNCTION_START_LINE  5

#define OUT_FLUSH (64u * 1024u)

struct pbuf {
	uint8_t *p;
	size_t len, cap;
};

struct pp_mapping {
	struct pprof_mapping m; /* file and build_id not kept: the indices below */
	uint32_t file, build_id;
	uint64_t lo, hi; /* addresses located in it; lo > hi: none */
	bool unresolved, files, lines, inlines, any, exe;
};

struct pprof {
	gzFile gz;
	char *path;
	int err;
	size_t nr_views;
	uint32_t types[PPROF_MAX_VIEWS];
	uint64_t totals[PPROF_MAX_VIEWS];
	int gpu_col; /* the "gpu" type's column, -1 none */
	struct pbuf out; /* top-level fields waiting for gzwrite() */
	struct pbuf msg; /* one submessage being built */
	struct pbuf sub; /* a submessage inside it, or a packed field */
	struct pbuf key; /* the key being looked up */

	struct gp_strtab strs; /* string_table, by index */
	/* encoded keys (pp->key) -> ids 1, 2, ...: the id is the key's index + 1 */
	struct gp_strtab funcs, locs, maps;
	struct pp_mapping *mappings; /* by id - 1 */
	size_t nr_mappings, mappings_cap;
	uint64_t *fids; /* function ids of the location being made */
	size_t fids_cap;
	char *hex;
	size_t hex_cap;
};

static int pb_reserve(struct pbuf *b, size_t n)
{
	return GP_ALLOC_GROW(b->p, b->len + n, b->cap);
}

static void pb_varint(struct pprof *pp, struct pbuf *b, uint64_t v)
{
	if (pb_reserve(b, 10)) {
		pp->err = -ENOMEM;
		return;
	}
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

static void pb_key(struct pprof *pp, struct pbuf *b, unsigned field, unsigned wt)
{
	pb_varint(pp, b, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pprof *pp, struct pbuf *b, unsigned field, uint64_t v)
{
	pb_key(pp, b, field, WT_VARINT);
	pb_varint(pp, b, v);
}

/* A field whose default is 0: written only when set. */
static void pb_uint_nz(struct pprof *pp, struct pbuf *b, unsigned field, uint64_t v)
{
	if (v)
		pb_uint(pp, b, field, v);
}

static void pb_bytes(struct pprof *pp, struct pbuf *b, unsigned field, const void *p, size_t n)
{
	pb_key(pp, b, field, WT_LEN);
	pb_varint(pp, b, n);
	if (pb_reserve(b, n)) {
		pp->err = -ENOMEM;
		return;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void flush(struct pprof *pp)
{
	if (pp->out.len && !pp->err &&
	    gzwrite(pp->gz, pp->out.p, (unsigned)pp->out.len) != (int)pp->out.len) {
		int zerr;

		gzerror(pp->gz, &zerr);
		pp->err = zerr == Z_ERRNO && errno ? -errno : -EIO;
	}
	pp->out.len = 0;
}

/* Move the finished submessage `m` into the profile as field `field`. */
static void emit(struct pprof *pp, unsigned field, struct pbuf *m)
{
	pb_bytes(pp, &pp->out, field, m->p, m->len);
	m->len = 0;
	if (pp->out.len >= OUT_FLUSH)
		flush(pp);
}

/* The string's index in string_table, adding it (written out at once) when new. */
static uint32_t str_index(struct pprof *pp, const char *s)
{
	size_t len = strlen(s);
	bool fresh;
	int64_t id = gp_strtab__intern(&pp->strs, s, len, &fresh);

	if (id < 0) {
		pp->err = (int)id;
		return 0;
	}
	if (fresh)
		pb_bytes(pp, &pp->out, PROFILE_STRING_TABLE, s, len);
	return (uint32_t)id;
}

/*
 * The id of pp->key in m; when new, *fresh is set and the next id given
 * (m->nr after the call). 0 after an error.
 */
static uint64_t idmap_get(struct pprof *pp, struct gp_strtab *m, bool *fresh)
{
	int64_t id;

	*fresh = false;
	if (pp->err)
		return 0;
	id = gp_strtab__intern(m, pp->key.p, pp->key.len, fresh);
	if (id < 0) {
		pp->err = (int)id;
		return 0;
	}
	return (uint64_t)id + 1;
}

static void value_type(struct pprof *pp, unsigned field, uint32_t type, uint32_t unit)
{
	pb_uint(pp, &pp->msg, VALUE_TYPE_TYPE, type);
	pb_uint(pp, &pp->msg, VALUE_TYPE_UNIT, unit);
	emit(pp, field, &pp->msg);
}

/* The string index of a build id in lowercase hex ("" for none). */
static uint32_t build_id_index(struct pprof *pp, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (!id || !n)
		return 0;
	if (GP_ALLOC_GROW(pp->hex, 2 * n + 1, pp->hex_cap)) {
		pp->err = -ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++) {
		pp->hex[2 * i] = digits[id[i] >> 4];
		pp->hex[2 * i + 1] = digits[id[i] & 15];
	}
	pp->hex[2 * n] = '\0';
	return str_index(pp, pp->hex);
}

/* A file that is not a shared library ("x.so", "x.so.6"): an executable. */
static bool is_executable(const char *f)
{
	const char *so = strstr(f, ".so");

	return f[0] == '/' && (!so || (so[3] && so[3] != '.'));
}

uint64_t pprof__mapping(struct pprof *pp, const struct pprof_mapping *m)
{
	uint32_t file = str_index(pp, m->file);
	uint32_t bid = build_id_index(pp, m->build_id, m->build_id_size);
	uint64_t id;
	bool fresh;

	pp->key.len = 0;
	pb_varint(pp, &pp->key, m->start);
	pb_varint(pp, &pp->key, m->limit);
	pb_varint(pp, &pp->key, m->offset);
	pb_varint(pp, &pp->key, file);
	pb_varint(pp, &pp->key, bid);
	pb_varint(pp, &pp->key, m->cover);
	id = idmap_get(pp, &pp->maps, &fresh);
	if (!fresh)
		return id;
	if (GP_ALLOC_GROW(pp->mappings, pp->nr_mappings + 1, pp->mappings_cap)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->mappings[pp->nr_mappings++] = (struct pp_mapping){
		.m = { .start = m->start, .limit = m->limit, .offset = m->offset, .cover = m->cover },
		.file = file,
		.build_id = bid,
		.lo = UINT64_MAX,
		.exe = is_executable(m->file),
	};
	return id;
}

static uint64_t function_id(struct pprof *pp, const struct pprof_line *l)
{
	uint32_t name = str_index(pp, l->name);
	uint32_t sys = l->system_name ? str_index(pp, l->system_name) : name;
	uint32_t file = l->file ? str_index(pp, l->file) : 0;
	uint64_t id;
	bool fresh;

	pp->key.len = 0;
	pb_varint(pp, &pp->key, name);
	pb_varint(pp, &pp->key, sys);
	pb_varint(pp, &pp->key, file);
	pb_varint(pp, &pp->key, l->start_line);
	id = idmap_get(pp, &pp->funcs, &fresh);
	if (fresh) {
		pb_uint(pp, &pp->msg, FUNCTION_ID, id);
		pb_uint(pp, &pp->msg, FUNCTION_NAME, name);
		pb_uint(pp, &pp->msg, FUNCTION_SYSTEM_NAME, sys);
		pb_uint_nz(pp, &pp->msg, FUNCTION_FILENAME, file);
		pb_uint_nz(pp, &pp->msg, FUNCTION_START_LINE, l->start_line);
		emit(pp, PROFILE_FUNCTION, &pp->msg);
	}
	return id;
}

uint64_t pprof__location(struct pprof *pp, uint64_t mapping, uint64_t address,
			 const struct pprof_line *lines, size_t n)
{
	struct pp_mapping *m;
	uint64_t id;
	bool fresh;
	size_t i;

	if (pp->err)
		return 0;
	if (!n || !mapping || mapping > pp->nr_mappings) {
		pp->err = -EINVAL;
		return 0;
	}
	if (GP_ALLOC_GROW(pp->fids, n, pp->fids_cap)) {
		pp->err = -ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++)
		pp->fids[i] = function_id(pp, &lines[i]);
	pp->key.len = 0;
	pb_varint(pp, &pp->key, mapping);
	pb_varint(pp, &pp->key, address);
	for (i = 0; i < n; i++) {
		pb_varint(pp, &pp->key, pp->fids[i]);
		pb_varint(pp, &pp->key, lines[i].line);
	}
	id = idmap_get(pp, &pp->locs, &fresh);
	if (!fresh)
		return id;

	m = &pp->mappings[mapping - 1];
	m->any = true;
	m->lo = address < m->lo ? address : m->lo;
	m->hi = address > m->hi ? address : m->hi;
	m->inlines |= n > 1;
	pb_uint(pp, &pp->msg, LOCATION_ID, id);
	pb_uint(pp, &pp->msg, LOCATION_MAPPING_ID, mapping);
	pb_uint_nz(pp, &pp->msg, LOCATION_ADDRESS, address);
	for (i = 0; i < n; i++) {
		m->unresolved |= !lines[i].resolved;
		m->files |= lines[i].file != NULL;
		m->lines |= lines[i].line != 0;
		pb_uint(pp, &pp->sub, LINE_FUNCTION_ID, pp->fids[i]);
		pb_uint_nz(pp, &pp->sub, LINE_LINE, lines[i].line);
		pb_bytes(pp, &pp->msg, LOCATION_LINE, pp->sub.p, pp->sub.len);
		pp->sub.len = 0;
	}
	emit(pp, PROFILE_LOCATION, &pp->msg);
	return id;
}

int pprof__sample(struct pprof *pp, const uint64_t *loc, size_t n, size_t col, uint64_t value,
		  const struct pprof_label *labels, size_t nl)
{
	size_t i;

	if (pp->err)
		return pp->err;
	if (col >= pp->nr_views)
		return pp->err = -EINVAL;
	if (value > INT64_MAX || pp->totals[col] + value > INT64_MAX)
		return pp->err = -EOVERFLOW;
	if (!value)
		return 0;
	pp->totals[col] += value;
	for (i = 0; i < n; i++)
		pb_varint(pp, &pp->sub, loc[i]);
	pb_bytes(pp, &pp->msg, SAMPLE_LOCATION_ID, pp->sub.p, pp->sub.len);
	pp->sub.len = 0;
	for (i = 0; i < pp->nr_views; i++)
		pb_varint(pp, &pp->sub, i == col ? value : 0);
	pb_bytes(pp, &pp->msg, SAMPLE_VALUE, pp->sub.p, pp->sub.len);
	pp->sub.len = 0;
	for (i = 0; i < nl; i++) {
		pb_uint(pp, &pp->sub, LABEL_KEY, str_index(pp, labels[i].key));
		if (labels[i].str)
			pb_uint(pp, &pp->sub, LABEL_STR, str_index(pp, labels[i].str));
		else
			pb_uint(pp, &pp->sub, LABEL_NUM, (uint64_t)labels[i].num);
		pb_bytes(pp, &pp->msg, SAMPLE_LABEL, pp->sub.p, pp->sub.len);
		pp->sub.len = 0;
	}
	emit(pp, PROFILE_SAMPLE, &pp->msg);
	return pp->err;
}

struct pprof *pprof__open(const char *path, const struct pprof_view *views, size_t n)
{
	struct pprof *pp;
	size_t i;
	int fd;

	if (!views || !n || n > PPROF_MAX_VIEWS || !path) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!views[i].type || !views[i].unit) {
			errno = EINVAL;
			return NULL;
		}
	pp = calloc(1, sizeof(*pp));
	if (!pp || !(pp->path = strdup(path))) {
		free(pp);
		errno = ENOMEM;
		return NULL;
	}
	errno = 0;
	fd = gp_file__output(AT_FDCWD, path);
	if (fd < 0) {
		free(pp->path);
		free(pp);
		errno = -fd;
		return NULL;
	}
	pp->gz = gzdopen(fd, "wb6");
	if (!pp->gz) {
		close(fd);
		unlink(path);
		free(pp->path);
		free(pp);
		errno = ENOMEM;
		return NULL;
	}
	pp->nr_views = n;
	pp->gpu_col = -1;
	str_index(pp, ""); /* string_table[0] must be "" */
	for (i = 0; i < n; i++) {
		pp->types[i] = str_index(pp, views[i].type);
		if (pp->gpu_col < 0 && !strcmp(views[i].type, "gpu"))
			pp->gpu_col = (int)i;
		value_type(pp, PROFILE_SAMPLE_TYPE, pp->types[i], str_index(pp, views[i].unit));
	}
	return pp;
}

/*
 * The mappings, an executable's first: pprof takes the first mapping for
 * the profile's main binary ("File:" in its reports).
 */
static void write_mappings(struct pprof *pp)
{
	size_t i, first = 0, k;

	for (k = 0; k < pp->nr_mappings; k++)
		if (pp->mappings[k].any && pp->mappings[k].exe) {
			first = k;
			break;
		}
	for (k = 0; k < pp->nr_mappings; k++) {
		/* first, then the others in order */
		struct pp_mapping *m;

		i = k == 0 ? first : k <= first ? k - 1 : k;
		m = &pp->mappings[i];
		uint64_t start = m->m.start, limit = m->m.limit;

		if (m->m.cover && m->lo <= m->hi) {
			start = m->lo < start || start >= limit ? m->lo : start;
			limit = m->hi >= limit ? m->hi + 1 : limit;
		}
		pb_uint(pp, &pp->msg, MAPPING_ID, i + 1);
		pb_uint_nz(pp, &pp->msg, MAPPING_MEMORY_START, start);
		pb_uint_nz(pp, &pp->msg, MAPPING_MEMORY_LIMIT, limit);
		pb_uint_nz(pp, &pp->msg, MAPPING_FILE_OFFSET, m->m.offset);
		pb_uint(pp, &pp->msg, MAPPING_FILENAME, m->file);
		pb_uint_nz(pp, &pp->msg, MAPPING_BUILD_ID, m->build_id);
		/* symbolized: every location has its functions, none a placeholder */
		pb_uint_nz(pp, &pp->msg, MAPPING_HAS_FUNCTIONS, m->any && !m->unresolved);
		pb_uint_nz(pp, &pp->msg, MAPPING_HAS_FILENAMES, m->files);
		pb_uint_nz(pp, &pp->msg, MAPPING_HAS_LINE_NUMBERS, m->lines);
		pb_uint_nz(pp, &pp->msg, MAPPING_HAS_INLINE_FRAMES, m->inlines);
		emit(pp, PROFILE_MAPPING, &pp->msg);
	}
}

/* "gpu" when that type has weight, else the first type with weight, else the first. */
static uint32_t default_type(const struct pprof *pp)
{
	size_t i;

	if (pp->gpu_col >= 0 && pp->totals[pp->gpu_col])
		return pp->types[pp->gpu_col];
	for (i = 0; i < pp->nr_views; i++)
		if (pp->totals[i])
			return pp->types[i];
	return pp->types[0];
}

int pprof__close(struct pprof *pp, const struct pprof_opts *o, bool abandon)
{
	static const struct pprof_opts none;
	int err, rc;

	if (!o)
		o = &none;
	if (!abandon) {
		write_mappings(pp);
		pb_uint_nz(pp, &pp->out, PROFILE_TIME_NANOS, o->time_nanos);
		pb_uint_nz(pp, &pp->out, PROFILE_DURATION_NANOS, o->duration_nanos);
		value_type(pp, PROFILE_PERIOD_TYPE, str_index(pp, "cpu"), str_index(pp, "nanoseconds"));
		pb_uint_nz(pp, &pp->out, PROFILE_PERIOD, o->period);
		pb_uint(pp, &pp->out, PROFILE_DEFAULT_SAMPLE_TYPE,
			o->default_sample_type ? str_index(pp, o->default_sample_type)
					       : default_type(pp));
		flush(pp);
	}
	err = pp->err;
	errno = 0;
	rc = gzclose(pp->gz);
	if (rc != Z_OK && !err && !abandon)
		err = rc == Z_ERRNO && errno ? -errno : -EIO;
	if (err || abandon)
		unlink(pp->path);

	gp_strtab__release(&pp->strs);
	gp_strtab__release(&pp->funcs);
	gp_strtab__release(&pp->locs);
	gp_strtab__release(&pp->maps);
	free(pp->mappings);
	free(pp->fids);
	free(pp->hex);
	free(pp->out.p);
	free(pp->msg.p);
	free(pp->sub.p);
	free(pp->key.p);
	free(pp->path);
	free(pp);
	return err;
}
