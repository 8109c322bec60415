/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site.h - a launch site (or, in memory_stats.c, an allocation site): one
 * API call from one stack, and what it issued. summary.json and the text
 * report rank them.
 */
#ifndef GPUPERF_SITE_H
#define GPUPERF_SITE_H

#include <stddef.h>
#include <stdint.h>

struct frame_buf;
struct frames;
struct tl_api;
struct tl_stack;

struct site {
	char *stack; /* root-first user frames, ';'-joined: with api, the identity; owned */
	const char *api;
	const char *function;
	char location[256];
	uint64_t gpu_ns, launches; /* allocation sites: bytes allocated, allocations */
};

/*
 * The site of API call a, made from launch stack lst, in (*sites)[0, *nr),
 * added (grown with realloc) when new; kernel: the demangled kernel name
 * the call launched, or NULL. fb is scratch space. Its index, or -ENOMEM.
 */
int site__get(const struct frames *fr, struct frame_buf *fb, struct site **sites, size_t *nr,
	      size_t *cap, const struct tl_api *a, const struct tl_stack *lst, const char *kernel);

#endif /* GPUPERF_SITE_H */
