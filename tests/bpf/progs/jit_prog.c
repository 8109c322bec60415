// SPDX-License-Identifier: Apache-2.0
/*
 * jit_prog: code in an anonymous executable mapping, without CFI, as a
 * JIT compiler's, called from main and spinning there; and a C function
 * spinning as long, beside it. Built without frame pointers.
 *   main -> run_jit -> [jit code]   and   main -> c_spin
 * Prints "jit START END" (the mapping) on stdout.
 * Usage: jit_prog ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NOIPA __attribute__((noipa))
#define UNIT 200000ul

static volatile unsigned long sink;

NOIPA void c_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOIPA void run_jit(unsigned long (*code)(unsigned long), unsigned long n)
{
	sink += code(n);
}

int main(int argc, char **argv)
{
	/* mov %rdi,%rax; 1: dec %rax; jnz 1b; ret: a loop of n, touching no stack */
	static const unsigned char loop[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
	long rounds = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long (*code)(unsigned long);
	void *m;

	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memcpy(m, loop, sizeof(loop));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return 1;
	*(void **)&code = m;
	printf("jit %lu %lu\n", (unsigned long)m, (unsigned long)m + 4096);
	fflush(stdout);
	while (rounds-- > 0) {
		run_jit(code, 2 * UNIT);
		c_spin(UNIT);
	}
	return 0;
}
