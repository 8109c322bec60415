/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gp_strtab.h - gpuperf's string interner: byte strings -> dense ids 0, 1,
 * 2, ... in the order first seen, each kept once, NUL-terminated, at an
 * address that does not move until the table is released.
 *
 * Open addressing with linear probing over 8-byte slots (hash << 32 |
 * id + 1; 0 is free), at most 7/10 full: a probe compares hashes held in
 * the slot and reads the string only on a match. The hash is
 * gp_hash_bytes(); a caller that already has it (to prefetch the slot,
 * say) passes it to gp_strtab__intern_hashed.
 *
 * A zeroed struct is an empty table. Not thread-safe.
 */
#ifndef GPUPERF_GP_STRTAB_H
#define GPUPERF_GP_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gp_util.h"

struct gp_strtab_chunk;

struct gp_strtab {
	uint64_t *slots;
	size_t nslots;
	struct gp_strtab_ent {
		const char *s;
		uint32_t len, hash;
	} *ents; /* by id */
	size_t nr, alloc;
	struct gp_strtab_chunk *arena;
};

static inline uint32_t gp_strtab__hash(const void *s, size_t len)
{
	return gp_hash_bytes(s, len);
}

/*
 * The id of the len bytes at s, adding a copy when new (*fresh, which may
 * be NULL, says so); hash must be gp_strtab__hash(s, len). The id, or
 * -ENOMEM (past 2^32 - 2 strings too), with the table unchanged.
 */
int64_t gp_strtab__intern_hashed(struct gp_strtab *t, const void *s, size_t len, uint32_t hash,
				 bool *fresh);

static inline int64_t gp_strtab__intern(struct gp_strtab *t, const void *s, size_t len, bool *fresh)
{
	return gp_strtab__intern_hashed(t, s, len, gp_strtab__hash(s, len), fresh);
}

/* Start loading the slot a string of this hash probes first: call ahead of intern. */
static inline void gp_strtab__prefetch(const struct gp_strtab *t, uint32_t hash)
{
	if (t->nslots)
		__builtin_prefetch(&t->slots[hash & (t->nslots - 1)]);
}

/* The id of s when interned, or -ENOENT. */
int64_t gp_strtab__find(const struct gp_strtab *t, const void *s, size_t len);

/* The string of an id < t->nr: NUL-terminated, valid until release. */
static inline const char *gp_strtab__str(const struct gp_strtab *t, uint32_t id)
{
	return t->ents[id].s;
}

static inline uint32_t gp_strtab__len(const struct gp_strtab *t, uint32_t id)
{
	return t->ents[id].len;
}

/* Free everything; the table is empty again. */
void gp_strtab__release(struct gp_strtab *t);

#endif /* GPUPERF_GP_STRTAB_H */
