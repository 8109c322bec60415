// SPDX-License-Identifier: Apache-2.0
/* heap_reuse: one mapped block freed, so glibc keeps large buffers on its heap. */
#include "heap_reuse.h"

#include <stdlib.h>

void heap_reuse__raise(void)
{
	void *p = malloc(HEAP_REUSE_BYTES);

	/* not optimized away: the free of a mapped block is the point */
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
}
