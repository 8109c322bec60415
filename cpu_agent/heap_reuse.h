/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap_reuse: have glibc keep the agent's large, short-lived buffers on its
 * heap. libbpf parses the kernel's BTF (5.5 MB, and a copy of it) for each
 * object it loads (the agent's programs at start, its stop-time iterator
 * again at stop); above glibc's mmap threshold (128 KiB
 * at first) each buffer is a new mapping, faulted in page by page and
 * unmapped again, which was about a fifth of the recorder's CPU time on a
 * VM where a page fault is dear. Freeing one mapped block raises glibc's
 * dynamic threshold to that block's size (and the trim threshold to twice
 * it): later buffers up to that size come from the heap and are reused.
 */
#ifndef GPUPERF_CPU_AGENT_HEAP_REUSE_H
#define GPUPERF_CPU_AGENT_HEAP_REUSE_H

#define HEAP_REUSE_BYTES (16u << 20) /* glibc's dynamic threshold stops at 32 MiB */

/* Raise the threshold (no effect where M_MMAP_THRESHOLD or a tunable fixed it). */
void heap_reuse__raise(void);

#endif /* GPUPERF_CPU_AGENT_HEAP_REUSE_H */
