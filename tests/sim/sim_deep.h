/* SPDX-License-Identifier: Apache-2.0 */
/* sim_deep.h - internal call chains as deep as NVIDIA's, without frame pointers (test equipment). */
#ifndef GPSIM_DEEP_H
#define GPSIM_DEEP_H

/*
 * NVIDIA's libcudart, libcuda and libcupti are built without frame
 * pointers and reach a CUPTI callback through several internal frames of
 * each library; profilers unwind through them with their .eh_frame CFI.
 * The simulator does the same: each library passes its API entry and its
 * callbacks through gpsim_deep(), GPSIM_DEEP_LEVELS frames of its own, of
 * different sizes, built -fomit-frame-pointer (CMakeLists.txt), one of
 * which uses rbp as a general register, as optimized code may: a
 * frame-pointer walk from the callback reads a value that is no frame and
 * stops there; the CFI (which records where rbp was saved) gets through.
 * The asm after each call keeps the compiler from turning it into a jump.
 */
#define GPSIM_DEEP_LEVELS 4

typedef void (*gpsim_deep_fn)(void *arg);

/* Uses rbp for something else while it calls on (its CFI says where rbp was saved). */
static __attribute__((noinline)) void gpsim_deep_rbp(gpsim_deep_fn fn, void *arg)
{
	__asm__ volatile("movabs $0x5a5a5a5a5a5a5a5a, %%rbp" ::: "rbp", "memory");
	fn(arg);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void gpsim_deep_1(gpsim_deep_fn fn, void *arg)
{
	volatile char pad[24];

	pad[0] = 1;
	gpsim_deep_rbp(fn, arg);
	__asm__ volatile("" ::"r"(pad) : "memory");
}

static __attribute__((noinline)) void gpsim_deep_2(gpsim_deep_fn fn, void *arg)
{
	volatile char pad[72];

	pad[0] = 2;
	gpsim_deep_1(fn, arg);
	__asm__ volatile("" ::"r"(pad) : "memory");
}

/* GPSIM_DEEP_LEVELS frames of this library between the caller and fn(arg). */
static __attribute__((noinline)) void gpsim_deep(gpsim_deep_fn fn, void *arg)
{
	volatile char pad[40];

	pad[0] = 3;
	gpsim_deep_2(fn, arg);
	__asm__ volatile("" ::"r"(pad) : "memory");
}

#endif /* GPSIM_DEEP_H */
