/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_codec.h - the reversible per-chunk transform applied to records before
 * zlib: timestamps and correlation ids become deltas (against the same field
 * of the previous record of that type in the chunk, or `end` against `start`
 * of the same record), so monotone clocks and counters compress to a few bits.
 * Defined in docs/trace-format.md ("Delta coding"); part of format 1.x.
 *
 * Both directions work in place on one chunk's records, which the caller has
 * already checked: every header's size is within the buffer and at least
 * gp_rec_min_size() for known types. Unknown types pass through untouched.
 */
#ifndef GPUPERF_GP_CODEC_H
#define GPUPERF_GP_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "gp_record.h"

#define GP_CODEC_MAX_FIELDS 4
/*
 * GPU records are delta-coded against the previous record of the same type
 * *on the same stream* (slot = stream_id % GP_CODEC_LANES): they complete in
 * order per stream but interleave across streams.
 */
#define GP_CODEC_LANES 16

/*
 * Coding state for one chunk; reset it (gp_codec__reset) at each chunk
 * start. A lane's state is zeroed when the chunk first uses it.
 */
struct gp_codec {
	uint64_t prev[GP_REC_TYPE_COUNT][GP_CODEC_LANES][GP_CODEC_MAX_FIELDS];
	uint16_t seen[GP_REC_TYPE_COUNT]; /* lanes used in this chunk, a bit each */
	int zigzag; /* format 2: differences to the previous record are zigzag-coded */
};

/*
 * Start a chunk of a file of this format major version (format 2
 * zigzag-codes the differences to the previous record; docs/trace-format.md).
 */
void gp_codec__reset(struct gp_codec *c, unsigned format_major);
/* Encode / decode one record in place. */
void gp_codec__encode(struct gp_codec *c, struct gp_rec_hdr *rec);
void gp_codec__decode(struct gp_codec *c, struct gp_rec_hdr *rec);

#endif /* GPUPERF_GP_CODEC_H */
