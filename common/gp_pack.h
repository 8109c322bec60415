/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_pack.h - zero-byte packing of a chunk's records (trace format 2),
 * between delta coding and deflate.
 *
 * After delta coding most bytes of a chunk are zero (small differences and
 * small values in 8-byte and 4-byte fields, unused fields), and zlib spends
 * its time per input byte, writing and reading. A chunk of `len` bytes (a
 * multiple of 8) packs into len / 8 mask bytes, one per 8-byte word (bit k
 * set: byte k of the word is not zero), followed by the non-zero bytes of
 * every word, in order. Masks first, so that reading does not wait on each
 * mask to find the next one. Defined in docs/trace-format.md.
 */
#ifndef GPUPERF_GP_PACK_H
#define GPUPERF_GP_PACK_H

#include <stddef.h>
#include <stdint.h>

/* Room gp_pack() needs for `len` bytes: it stores whole words past the data's end. */
#define GP_PACK_BOUND(len) ((len) + (len) / 8 + 8)

/* Pack `len` bytes (a multiple of 8) into `out`; returns the packed length. */
size_t gp_pack(const uint8_t *in, size_t len, uint8_t *out);
/* The same for the bytes of a followed by those of b, without joining them first. */
size_t gp_pack2(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t *out);

/*
 * The inverse: 0 when `in` unpacks to exactly out_len bytes (a multiple of
 * 8) using all of in_len, -1 for anything else (damaged data). Never reads
 * or writes outside the two buffers.
 */
int gp_unpack(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);

/* Tests: 1 runs the portable code even where SSSE3 is there; 0 goes back to the default. */
void gp_pack__force_portable(int on);

#endif /* GPUPERF_GP_PACK_H */
