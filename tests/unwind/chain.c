// SPDX-License-Identifier: Apache-2.0
/*
 * A 20-deep call chain for the unwinder's tests and benchmark. Built with
 * -O2 -fomit-frame-pointer: rbp is an ordinary register here (the even
 * links keep six values live across their call, so rbp is saved and
 * reused), and the frames differ in size, so a frame-pointer walk cannot
 * get through and CFI must. CHAIN_PREFIX names the copy (lib_, exe_, ...).
 */
#include "chain.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define C(n) CAT(CHAIN_PREFIX, n)

#if defined(__clang__)
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

/* the prototypes of this copy (-Wmissing-prototypes) */
int C(run)(chain_cb cb, void *arg);
int C(spin)(volatile int *flag);
#define PROTO(i) int C(f##i)(chain_cb cb, void *arg, int x);
PROTO(0) PROTO(1) PROTO(2) PROTO(3) PROTO(4) PROTO(5) PROTO(6) PROTO(7) PROTO(8) PROTO(9)
PROTO(10) PROTO(11) PROTO(12) PROTO(13) PROTO(14) PROTO(15) PROTO(16) PROTO(17) PROTO(18)
PROTO(19)

/* odd links: a frame of (i % 5) * 8 + 8 bytes of locals */
#define LINK_ODD(i, next)                                              \
	NOIPA int C(f##i)(chain_cb cb, void *arg, int x)               \
	{                                                              \
		volatile char pad[((i) % 5) * 8 + 8];                  \
		int r;                                                 \
		pad[0] = (char)x;                                      \
		r = C(f##next)(cb, arg, x + pad[0]);                   \
		__asm__ volatile("" : "+r"(r));                        \
		return r + pad[sizeof(pad) - 1];                       \
	}

/* even links: six values live across the call: rbx, rbp, r12-r15 all saved and used */
#define LINK_EVEN(i, next)                                             \
	NOIPA int C(f##i)(chain_cb cb, void *arg, int x)               \
	{                                                              \
		int a = x * 3, b = x ^ 5, c = x + 7, d = x * x, e = x - 9, g = x << 2; \
		int r;                                                 \
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(g)); \
		r = C(f##next)(cb, arg, x + 1);                        \
		__asm__ volatile("" : "+r"(r), "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(g)); \
		return r + a + b + c + d + e + g;                      \
	}

NOIPA int C(f19)(chain_cb cb, void *arg, int x)
{
	int r = cb(arg);

	__asm__ volatile("" : "+r"(r));
	return r + x;
}

LINK_ODD(18, 19) LINK_ODD(17, 18) LINK_EVEN(16, 17) LINK_ODD(15, 16) LINK_EVEN(14, 15)
LINK_ODD(13, 14) LINK_EVEN(12, 13) LINK_ODD(11, 12) LINK_EVEN(10, 11) LINK_ODD(9, 10)
LINK_EVEN(8, 9) LINK_ODD(7, 8) LINK_EVEN(6, 7) LINK_ODD(5, 6) LINK_EVEN(4, 5)
LINK_ODD(3, 4) LINK_EVEN(2, 3) LINK_ODD(1, 2) LINK_EVEN(0, 1)

NOIPA int C(run)(chain_cb cb, void *arg)
{
	int r = C(f0)(cb, arg, 1);

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* A leaf with no frame: a signal landing here is unwound by its CFI alone. */
NOIPA int C(spin)(volatile int *flag)
{
	int n = 0;

	while (!*flag)
		n++;
	return n;
}
