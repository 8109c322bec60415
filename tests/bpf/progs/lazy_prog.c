// SPDX-License-Identifier: Apache-2.0
/*
 * lazy_prog: CPU time in ld.so's lazy binding, built without frame
 * pointers and linked -z lazy. Run with LD_BIND_NOT=1, ld.so never writes
 * a resolved address into the GOT, so every call through the PLT is
 * resolved again: main -> resolve_loop -> rand_r's PLT stub ->
 * _dl_runtime_resolve_xsavec (its CFA in rbx, rsp aligned down) ->
 * _dl_fixup -> _dl_lookup_symbol_x -> ... Usage: lazy_prog SECONDS.
 */
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOIPA void resolve_loop(unsigned int *seed)
{
	for (int i = 0; i < 1000; i++)
		sink += (unsigned long)rand_r(seed);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	unsigned int seed = 1;

	while (now() < end)
		resolve_loop(&seed);
	return 0;
}
