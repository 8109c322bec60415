/* SPDX-License-Identifier: Apache-2.0 */
/* A 20-deep call chain built without frame pointers (chain.c), declared for a name prefix. */
#ifndef GPUPERF_TESTS_UNWIND_CHAIN_H
#define GPUPERF_TESTS_UNWIND_CHAIN_H

#define CHAIN_DEPTH 20

typedef int (*chain_cb)(void *arg);

/*
 * P##run(cb, arg) calls P##f0 -> P##f1 -> ... -> P##f19 -> cb(arg), each a
 * real frame (no inlining, no tail calls, no clones). P##spin(flag) is a leaf
 * that loops until *flag: it has no stack frame at all.
 */
#define CHAIN_DECLARE(P)                                 \
	int P##run(chain_cb cb, void *arg);              \
	int P##spin(volatile int *flag);

#endif /* GPUPERF_TESTS_UNWIND_CHAIN_H */
