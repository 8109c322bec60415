/* SPDX-License-Identifier: Apache-2.0 */
/*
 * u64map.h - gpuperf's hash map: a 64-bit key -> nonzero 32-bit value,
 * open addressing with linear probing (vals[i] == 0 marks a free slot),
 * gp_mix64 as the hash, a power-of-two capacity at most half full. Keys
 * and values in two arrays, so a probe walks 8-byte keys only until it
 * finds the slot. Typical use: value = index + 1 in an array of records,
 * which makes the map an index on that array (the timeline's id tables,
 * the Perfetto writer's interned names and track uuids, pprof locations).
 * Not thread-safe.
 */
#ifndef GPUPERF_U64MAP_H
#define GPUPERF_U64MAP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gp_util.h"

struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, nr;
};

static inline void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* The value of key, or 0; *slot: where it is or would go. The map must have room (cap > 0). */
static inline uint32_t u64map_find(const struct u64map *m, uint64_t key, size_t *slot)
{
	size_t j;

	for (j = gp_mix64(key) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			break;
	*slot = j;
	return m->vals[j];
}

/* Room for nr keys in all (a table filled to a known size grows once): 0 or -ENOMEM. */
static inline int u64map_reserve_nr(struct u64map *m, size_t nr)
{
	struct u64map n = { 0 };
	size_t i, j;

	if (2 * nr <= m->cap)
		return 0;
	if (nr > SIZE_MAX / sizeof(*n.keys) / 4)
		return -ENOMEM;
	for (n.cap = m->cap ? 2 * m->cap : 256; n.cap < 2 * nr; n.cap *= 2)
		;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		u64map_free(&n);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		u64map_find(&n, m->keys[i], &j);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.nr = m->nr;
	u64map_free(m);
	*m = n;
	return 0;
}

/* Room for one more key: 0 or -ENOMEM. */
static inline int u64map_reserve(struct u64map *m)
{
	return u64map_reserve_nr(m, m->nr + 1);
}

/* The value of key, or 0 when absent (an empty map included). */
static inline uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	size_t j;

	return m->cap ? u64map_find(m, key, &j) : 0;
}

/* Set key (not in the map yet) to val (nonzero): 0 or -ENOMEM. */
static inline int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t j;

	if (u64map_reserve(m))
		return -ENOMEM;
	u64map_find(m, key, &j);
	m->keys[j] = key;
	m->vals[j] = val;
	m->nr++;
	return 0;
}

#endif /* GPUPERF_U64MAP_H */
