/* SPDX-License-Identifier: Apache-2.0 */
/*
 * static_cudart.h - where nvcc's static cudart (nvcc's default) lies in an
 * executable, so that launch stacks drop its frames as they drop those of
 * libcudart.so: runs of at least STATIC_CUDART_MIN_RUN adjacent functions
 * of .symtab named like the runtime's (cuda*, __cuda*,
 * libcudart_static_*), the rule the CPU agent's launch probes use.
 *
 * Reads the file at `fd` with pread (no libelf, no mapping); allocates.
 * Off the launch path: once, at start-up. A stripped file gives no range.
 */
#ifndef GPUPERF_STATIC_CUDART_H
#define GPUPERF_STATIC_CUDART_H

#include <stdint.h>

#define STATIC_CUDART_MIN_RUN 8

struct static_cudart_range {
	uint64_t lo, hi; /* ELF virtual addresses, [lo, hi) */
};

/* Up to `max` ranges into out; returns how many, or -errno. */
int static_cudart__ranges(int fd, struct static_cudart_range *out, int max);

#endif /* GPUPERF_STATIC_CUDART_H */
