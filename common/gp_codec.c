// SPDX-License-Identifier: Apache-2.0
/* gp_codec.c - delta coding of timestamps and ids inside a chunk. */
#include <stddef.h>
#include <string.h>

#include "gp_codec.h"

/* How one field is coded. */
enum {
	DELTA_NONE = 0,
	DELTA_PREV64, /* u64 minus the same field of the previous record */
	DELTA_PREV32, /* u32 likewise (wrapping) */
	DELTA_SELF64, /* u64 minus another u64 field of this record (`base`) */
};

struct delta_field {
	uint8_t kind;
	uint16_t off;
	uint16_t base; /* DELTA_SELF64: offset of the base field */
};

struct delta_rule {
	struct delta_field f[GP_CODEC_MAX_FIELDS];
	uint16_t lane_off; /* offset of the u32 stream id that picks the lane; 0: lane 0 */
};

#define PREV64(T, m) { DELTA_PREV64, offsetof(struct T, m), 0 }
#define PREV32(T, m) { DELTA_PREV32, offsetof(struct T, m), 0 }
#define SELF64(T, m, b) { DELTA_SELF64, offsetof(struct T, m), offsetof(struct T, b) }
/* The common GPU/API shape: start, end, correlation id. */
#define SPAN_RULE(T) { { PREV64(T, start), SELF64(T, end, start), PREV32(T, correlation_id) }, 0 }
#define GPU_RULE(T)                                                                      \
	{ { PREV64(T, start), SELF64(T, end, start), PREV32(T, correlation_id) },         \
	  offsetof(struct T, stream_id) }

static const struct delta_rule rules[GP_REC_TYPE_COUNT] = {
	[GP_REC_API] = SPAN_RULE(gp_rec_api),
	[GP_REC_KERNEL] = GPU_RULE(gp_rec_kernel),
	[GP_REC_MEMCPY] = GPU_RULE(gp_rec_memcpy),
	[GP_REC_MEMSET] = GPU_RULE(gp_rec_memset),
	[GP_REC_SYNC] = GPU_RULE(gp_rec_sync),
	[GP_REC_CPU_SAMPLE] = { { PREV64(gp_rec_cpu_sample, ts) }, 0 },
	[GP_REC_OFFCPU] = { { PREV64(gp_rec_offcpu, start), SELF64(gp_rec_offcpu, end, start) }, 0 },
	[GP_REC_LAUNCH_SITE] = { { PREV64(gp_rec_launch_site, ts) }, 0 },
	[GP_REC_LAUNCH_SITE_ID] = { { PREV64(gp_rec_launch_site_id, ts) }, 0 },
	[GP_REC_MEMORY] = { { PREV64(gp_rec_memory, ts), PREV32(gp_rec_memory, correlation_id) }, 0 },
	[GP_REC_CLOCK_PAIR] = { { PREV64(gp_rec_clock_pair, producer_ts),
				  PREV64(gp_rec_clock_pair, monotonic_ns),
				  PREV64(gp_rec_clock_pair, realtime_ns) }, 0 },
};

static uint64_t get64(const void *rec, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)rec + off, sizeof(v));
	return v;
}

static void put64(void *rec, size_t off, uint64_t v)
{
	memcpy((char *)rec + off, &v, sizeof(v));
}

static uint32_t get32(const void *rec, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)rec + off, sizeof(v));
	return v;
}

static void put32(void *rec, size_t off, uint32_t v)
{
	memcpy((char *)rec + off, &v, sizeof(v));
}

void gp_codec__reset(struct gp_codec *c, unsigned format_major)
{
	memset(c->seen, 0, sizeof(c->seen));
	c->zigzag = format_major >= 2;
}

/* Format 2: a difference d is stored as 2d (d >= 0) or -2d-1 (d < 0), so small negative ones pack small too. */
static uint64_t zig64(uint64_t d)
{
	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static uint64_t unzig64(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static uint32_t zig32(uint32_t d)
{
	return (d << 1) ^ (uint32_t)-(int32_t)(d >> 31);
}

static uint32_t unzig32(uint32_t z)
{
	return (z >> 1) ^ (uint32_t)-(int32_t)(z & 1);
}

/*
 * The state of a record's type and lane, zeroed when the chunk first uses
 * it. The stream id is never coded, so both directions see the same lane.
 */
static inline __attribute__((always_inline)) uint64_t *
lane(struct gp_codec *c, const struct delta_rule *r, unsigned type, const struct gp_rec_hdr *rec)
{
	uint32_t l = r->lane_off ? get32(rec, r->lane_off) % GP_CODEC_LANES : 0;
	uint64_t *prev = c->prev[type][l];

	if (!(c->seen[type] & (1u << l))) {
		c->seen[type] |= (uint16_t)(1u << l);
		memset(prev, 0, sizeof(c->prev[0][0]));
	}
	return prev;
}

/*
 * Encoding: SELF fields first, while their base still holds its real value;
 * then PREV fields. Decoding runs the other way round.
 */
void gp_codec__encode(struct gp_codec *c, struct gp_rec_hdr *rec)
{
	const struct delta_rule *r;
	uint64_t *prev;
	int i, zz = c->zigzag;

	if (rec->type >= GP_REC_TYPE_COUNT)
		return;
	r = &rules[rec->type];
	prev = lane(c, r, rec->type, rec);
	for (i = 0; i < GP_CODEC_MAX_FIELDS; i++) {
		const struct delta_field *f = &r->f[i];

		if (f->kind == DELTA_SELF64)
			put64(rec, f->off, get64(rec, f->off) - get64(rec, f->base));
	}
	for (i = 0; i < GP_CODEC_MAX_FIELDS; i++) {
		const struct delta_field *f = &r->f[i];
		uint64_t v;

		switch (f->kind) {
		case DELTA_PREV64:
			v = get64(rec, f->off);
			put64(rec, f->off, zz ? zig64(v - prev[i]) : v - prev[i]);
			prev[i] = v;
			break;
		case DELTA_PREV32:
			v = get32(rec, f->off);
			put32(rec, f->off, zz ? zig32((uint32_t)(v - prev[i])) : (uint32_t)(v - prev[i]));
			prev[i] = v;
			break;
		default:
			break;
		}
	}
}

/*
 * Decoding, for one type's rule. Inlined with a constant type for each type
 * that carries coded fields, so the rule's offsets and kinds fold into the
 * code: the table walk cost more than the arithmetic, record after record.
 */
static inline __attribute__((always_inline)) void decode_rule(struct gp_codec *c,
							      struct gp_rec_hdr *rec,
							      unsigned type)
{
	const struct delta_rule *r = &rules[type];
	uint64_t *prev = lane(c, r, type, rec);
	int i;

#pragma GCC unroll 4
	for (i = 0; i < GP_CODEC_MAX_FIELDS; i++) {
		const struct delta_field *f = &r->f[i];
		uint64_t v;

		if (f->kind == DELTA_PREV64) {
			v = get64(rec, f->off);
			v = (c->zigzag ? unzig64(v) : v) + prev[i];
			put64(rec, f->off, v);
			prev[i] = v;
		} else if (f->kind == DELTA_PREV32) {
			v = get32(rec, f->off);
			v = (uint32_t)((c->zigzag ? unzig32((uint32_t)v) : (uint32_t)v) + (uint32_t)prev[i]);
			put32(rec, f->off, (uint32_t)v);
			prev[i] = v;
		}
	}
#pragma GCC unroll 4
	for (i = 0; i < GP_CODEC_MAX_FIELDS; i++) {
		const struct delta_field *f = &r->f[i];

		if (f->kind == DELTA_SELF64)
			put64(rec, f->off, get64(rec, f->off) + get64(rec, f->base));
	}
}

void gp_codec__decode(struct gp_codec *c, struct gp_rec_hdr *rec)
{
#define DECODE(t)                         \
	case t:                           \
		decode_rule(c, rec, t);   \
		break
	switch (rec->type) {
		DECODE(GP_REC_API);
		DECODE(GP_REC_KERNEL);
		DECODE(GP_REC_MEMCPY);
		DECODE(GP_REC_MEMSET);
		DECODE(GP_REC_SYNC);
		DECODE(GP_REC_CPU_SAMPLE);
		DECODE(GP_REC_OFFCPU);
		DECODE(GP_REC_LAUNCH_SITE);
		DECODE(GP_REC_LAUNCH_SITE_ID);
		DECODE(GP_REC_CLOCK_PAIR);
		DECODE(GP_REC_MEMORY);
	default: /* the same from the table, for a type with a rule not listed above */
		if (rec->type < GP_REC_TYPE_COUNT)
			decode_rule(c, rec, rec->type);
		break;
	}
#undef DECODE
}
