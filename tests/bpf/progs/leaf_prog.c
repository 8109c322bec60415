// SPDX-License-Identifier: Apache-2.0
/*
 * leaf_prog: one hot leaf function called from two callers, four calls
 * from caller_a for each one from caller_b (80/20 of the CPU time). Built
 * -O2 -fno-omit-frame-pointer: gcc sets up no frame in a leaf that does
 * not touch the stack, so a frame-pointer walk from inside the leaf skips
 * its caller and both callers merge into one tower.
 * Usage: leaf_prog ROUNDS (a fixed amount of work, so the number of
 * samples does not depend on the machine's load: ~1 ms of CPU a round)
 */
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;

NOIPA void leaf_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOIPA void caller_a(void)
{
	leaf_spin(20000);
	sink++;
}

NOIPA void caller_b(void)
{
	leaf_spin(20000);
	sink++;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000;

	while (rounds-- > 0) {
		for (int r = 0; r < 16; r++) {
			for (int i = 0; i < 4; i++)
				caller_a();
			caller_b();
		}
	}
	return 0;
}
