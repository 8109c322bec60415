// SPDX-License-Identifier: Apache-2.0
/* pprof.c - stream stack aggregations out as a gzip'd pprof profile.proto message. */
#include "pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gp_file.h"
#include "gp_util.h"
#include "stack_agg.h"

/*
 * A hand-written encoder, as pprof's own Go writer has: the profile is one
 * message whose repeated fields may come in any order and interleaved, so
 * the string table, functions, locations and samples are written as the
 * walk meets them and nothing is built in memory. Only varints and
 * length-delimited fields are needed. Field numbers: profile.proto.
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
/* Mapping */
#define MAPPING_ID	      1
#define MAPPING_FILENAME      5
#define MAPPING_HAS_FUNCTIONS 7
/* Location */
#define LOCATION_ID	    1
#define LOCATION_MAPPING_ID 2
#define LOCATION_LINE	    4
/* Line */
#define LINE_FUNCTION_ID 1
/* Function */
#define FUNCTION_ID	     1
#define FUNCTION_NAME	     2
#define FUNCTION_SYSTEM_NAME 3

/* The one mapping every location points at: says functions are known, so pprof never
 * tries to symbolize our addressless locations. */
#define MAPPING_SELF 1

#define OUT_FLUSH (64u * 1024u)

struct pbuf {
	uint8_t *p;
	size_t len, cap;
};

struct strent {
	char *s;
	uint32_t hash;
	uint32_t idx;
};

struct pp {
	gzFile gz;
	int err;
	struct pbuf out; /* top-level fields waiting for gzwrite() */
	struct pbuf msg; /* one submessage being built */
	struct pbuf sub; /* a submessage inside it, or a packed field */

	struct strent *strs; /* open addressing; s == NULL is free */
	size_t str_cap, nr_strs;

	uint64_t *frames; /* (string index << 8 | kind) + 1 -> location id in the low 32 bits */
	size_t frame_cap, nr_frames;

	uint64_t *path; /* location ids by depth */
	size_t path_cap;
	size_t nr_views, col;
	char *scratch; /* annotated names */
	size_t scratch_cap;
};

static int pb_reserve(struct pbuf *b, size_t n)
{
	size_t ncap;
	uint8_t *np;

	if (b->len + n <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + n)
		ncap *= 2;
	np = realloc(b->p, ncap);
	if (!np)
		return -ENOMEM;
	b->p = np;
	b->cap = ncap;
	return 0;
}

static void pb_varint(struct pp *pp, struct pbuf *b, uint64_t v)
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

static void pb_key(struct pp *pp, struct pbuf *b, unsigned field, unsigned wt)
{
	pb_varint(pp, b, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pp *pp, struct pbuf *b, unsigned field, uint64_t v)
{
	pb_key(pp, b, field, WT_VARINT);
	pb_varint(pp, b, v);
}

static void pb_bytes(struct pp *pp, struct pbuf *b, unsigned field, const void *p, size_t n)
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

/* Move the finished submessage `m` into the profile as field `field`. */
static void emit(struct pp *pp, unsigned field, struct pbuf *m)
{
	pb_bytes(pp, &pp->out, field, m->p, m->len);
	m->len = 0;
	if (pp->out.len >= OUT_FLUSH && !pp->err) {
		if (gzwrite(pp->gz, pp->out.p, (unsigned)pp->out.len) != (int)pp->out.len)
			pp->err = -EIO;
		pp->out.len = 0;
	}
}

/* The string's index in string_table, adding it (written out at once) when new. */
static uint32_t str_index(struct pp *pp, const char *s)
{
	size_t len = strlen(s), i;
	uint32_t h = gp_fnv1a(s, len);

	if (2 * (pp->nr_strs + 1) > pp->str_cap) {
		size_t ncap = pp->str_cap ? 2 * pp->str_cap : 1024, j;
		struct strent *ns = calloc(ncap, sizeof(*ns));

		if (!ns) {
			pp->err = -ENOMEM;
			return 0;
		}
		for (j = 0; j < pp->str_cap; j++) {
			if (!pp->strs[j].s)
				continue;
			for (i = pp->strs[j].hash & (ncap - 1); ns[i].s; i = (i + 1) & (ncap - 1))
				;
			ns[i] = pp->strs[j];
		}
		free(pp->strs);
		pp->strs = ns;
		pp->str_cap = ncap;
	}
	for (i = h & (pp->str_cap - 1); pp->strs[i].s; i = (i + 1) & (pp->str_cap - 1))
		if (pp->strs[i].hash == h && !strcmp(pp->strs[i].s, s))
			return pp->strs[i].idx;
	pp->strs[i].s = strdup(s);
	if (!pp->strs[i].s) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->strs[i].hash = h;
	pp->strs[i].idx = (uint32_t)pp->nr_strs++;
	pb_bytes(pp, &pp->out, PROFILE_STRING_TABLE, s, len);
	return pp->strs[i].idx;
}

static void value_type(struct pp *pp, unsigned field, const char *type, const char *unit)
{
	uint32_t t = str_index(pp, type), u = str_index(pp, unit);

	pb_uint(pp, &pp->msg, VALUE_TYPE_TYPE, t);
	pb_uint(pp, &pp->msg, VALUE_TYPE_UNIT, u);
	emit(pp, field, &pp->msg);
}

/* The folded files' spelling of a frame: flamegraph.pl's suffix for CPU-side kinds. */
static const char *frame_name(struct pp *pp, const char *name, enum gp_frame_kind kind)
{
	const char *suffix = NULL;
	size_t len;

	switch (kind) {
	case GP_FRAME_KERNEL_CPU:
		suffix = "_[k]";
		break;
	case GP_FRAME_INLINE:
		suffix = "_[i]";
		break;
	case GP_FRAME_JIT:
		suffix = "_[j]";
		break;
	case GP_FRAME_WAKER:
		suffix = "_[w]";
		break;
	default:
		break;
	}
	if (!*name)
		name = "[unknown]";
	if (!suffix)
		return name;
	len = strlen(name);
	if (len + 5 > pp->scratch_cap) {
		char *n = realloc(pp->scratch, len + 5);

		if (!n) {
			pp->err = -ENOMEM;
			return name;
		}
		pp->scratch = n;
		pp->scratch_cap = len + 5;
	}
	memcpy(pp->scratch, name, len);
	memcpy(pp->scratch + len, suffix, 5);
	return pp->scratch;
}


/* The location id of a frame identity; its function and location are written when new. */
static uint32_t frame_id(struct pp *pp, const char *name, enum gp_frame_kind kind)
{
	uint32_t s = str_index(pp, frame_name(pp, name, kind)), id;
	uint64_t key = ((uint64_t)s << 8 | (unsigned)kind) + 1;
	size_t i;

	if (pp->err)
		return 0;
	if (2 * (pp->nr_frames + 1) > pp->frame_cap) {
		size_t ncap = pp->frame_cap ? 2 * pp->frame_cap : 1024, j;
		uint64_t *nf = calloc(ncap, 2 * sizeof(*nf));

		if (!nf) {
			pp->err = -ENOMEM;
			return 0;
		}
		for (j = 0; j < pp->frame_cap; j++) {
			if (!pp->frames[2 * j])
				continue;
			for (i = gp_mix64(pp->frames[2 * j]) & (ncap - 1); nf[2 * i];
			     i = (i + 1) & (ncap - 1))
				;
			nf[2 * i] = pp->frames[2 * j];
			nf[2 * i + 1] = pp->frames[2 * j + 1];
		}
		free(pp->frames);
		pp->frames = nf;
		pp->frame_cap = ncap;
	}
	for (i = gp_mix64(key) & (pp->frame_cap - 1); pp->frames[2 * i];
	     i = (i + 1) & (pp->frame_cap - 1))
		if (pp->frames[2 * i] == key)
			return (uint32_t)pp->frames[2 * i + 1];
	id = (uint32_t)++pp->nr_frames;
	pp->frames[2 * i] = key;
	pp->frames[2 * i + 1] = id;

	pb_uint(pp, &pp->msg, FUNCTION_ID, id);
	pb_uint(pp, &pp->msg, FUNCTION_NAME, s);
	pb_uint(pp, &pp->msg, FUNCTION_SYSTEM_NAME, s);
	emit(pp, PROFILE_FUNCTION, &pp->msg);

	pb_uint(pp, &pp->sub, LINE_FUNCTION_ID, id);
	pb_uint(pp, &pp->msg, LOCATION_ID, id);
	pb_uint(pp, &pp->msg, LOCATION_MAPPING_ID, MAPPING_SELF);
	pb_bytes(pp, &pp->msg, LOCATION_LINE, pp->sub.p, pp->sub.len);
	pp->sub.len = 0;
	emit(pp, PROFILE_LOCATION, &pp->msg);
	return id;
}

/* One sample: locations path[depth..1] (innermost first), weight in column pp->col. */
static void sample(struct pp *pp, unsigned depth, uint64_t weight)
{
	size_t i;

	for (i = depth; i >= 1; i--)
		pb_varint(pp, &pp->sub, pp->path[i]);
	pb_bytes(pp, &pp->msg, SAMPLE_LOCATION_ID, pp->sub.p, pp->sub.len);
	pp->sub.len = 0;
	for (i = 0; i < pp->nr_views; i++)
		pb_varint(pp, &pp->sub, i == pp->col ? weight : 0);
	pb_bytes(pp, &pp->msg, SAMPLE_VALUE, pp->sub.p, pp->sub.len);
	pp->sub.len = 0;
	emit(pp, PROFILE_SAMPLE, &pp->msg);
}

static int enter(void *ctx, const struct stack_agg_node *nd)
{
	struct pp *pp = ctx;

	if (!nd->total)
		return 1; /* nodes left by a failed add: nothing under them */
	if (nd->self > INT64_MAX)
		return -EOVERFLOW;
	if (nd->depth >= pp->path_cap) {
		size_t ncap = pp->path_cap ? 2 * pp->path_cap : 64;
		uint64_t *np;

		while (ncap <= nd->depth)
			ncap *= 2;
		np = realloc(pp->path, ncap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		pp->path = np;
		pp->path_cap = ncap;
	}
	if (nd->depth == 0) {
		/* Weight added with an empty stack: one synthetic frame, so the sample has a place.
		 */
		if (nd->self) {
			pp->path[1] = frame_id(pp, "[unknown stack]", GP_FRAME_SYNTHETIC);
			sample(pp, 1, nd->self);
		}
		return pp->err;
	}
	pp->path[nd->depth] = frame_id(pp, nd->name, nd->kind);
	if (nd->self && !pp->err)
		sample(pp, nd->depth, nd->self);
	return pp->err;
}

static const char *default_type(const struct pprof_view *views, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(views[i].type, "gpu") && views[i].agg && stack_agg__total(views[i].agg))
			return "gpu";
	for (i = 0; i < n; i++)
		if (views[i].agg && stack_agg__total(views[i].agg))
			return views[i].type;
	return views[0].type;
}

int pprof__write(const struct pprof_view *views, size_t n, const struct pprof_opts *o,
		 const char *path)
{
	static const struct pprof_opts none;
	struct pp pp = {0};
	size_t i;
	int err = 0, rc, fd;

	if (!views || !n || n > PPROF_MAX_VIEWS || !path)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!views[i].type || !views[i].unit)
			return -EINVAL;
	if (!o)
		o = &none;
	errno = 0;
	fd = gp_file__output(AT_FDCWD, path);
	if (fd < 0)
		return fd;
	pp.gz = gzdopen(fd, "wb6");
	if (!pp.gz) {
		close(fd);
		return -ENOMEM;
	}
	pp.nr_views = n;

	str_index(&pp, ""); /* string_table[0] must be "" */
	for (i = 0; i < n; i++)
		value_type(&pp, PROFILE_SAMPLE_TYPE, views[i].type, views[i].unit);
	pb_uint(&pp, &pp.msg, MAPPING_ID, MAPPING_SELF);
	pb_uint(&pp, &pp.msg, MAPPING_FILENAME, str_index(&pp, "[gpuperf]"));
	pb_uint(&pp, &pp.msg, MAPPING_HAS_FUNCTIONS, 1);
	emit(&pp, PROFILE_MAPPING, &pp.msg);

	for (i = 0; i < n && !pp.err; i++) {
		if (!views[i].agg)
			continue;
		pp.col = i;
		rc = stack_agg__walk(views[i].agg, enter, NULL, &pp);
		if (rc && !pp.err)
			pp.err = rc;
	}

	if (o->time_nanos)
		pb_uint(&pp, &pp.out, PROFILE_TIME_NANOS, o->time_nanos);
	if (o->duration_nanos)
		pb_uint(&pp, &pp.out, PROFILE_DURATION_NANOS, o->duration_nanos);
	value_type(&pp, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	if (o->period)
		pb_uint(&pp, &pp.out, PROFILE_PERIOD, o->period);
	pb_uint(&pp, &pp.out, PROFILE_DEFAULT_SAMPLE_TYPE,
		str_index(&pp, o->default_sample_type ? o->default_sample_type
						      : default_type(views, n)));

	err = pp.err;
	if (!err && pp.out.len && gzwrite(pp.gz, pp.out.p, (unsigned)pp.out.len) != (int)pp.out.len)
		err = -EIO;
	errno = 0;
	rc = gzclose(pp.gz);
	if (rc != Z_OK && !err)
		err = rc == Z_ERRNO && errno ? -errno : -EIO;
	if (err)
		unlink(path);

	for (i = 0; i < pp.str_cap; i++)
		free(pp.strs[i].s);
	free(pp.strs);
	free(pp.frames);
	free(pp.path);
	free(pp.scratch);
	free(pp.out.p);
	free(pp.msg.p);
	free(pp.sub.p);
	return err;
}
