// SPDX-License-Identifier: Apache-2.0
/* gen_folded.c - write a deterministic synthetic folded file (N stacks, depth 20-40) for the flame graph benchmark. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The shape imitates a real profile: a few entry points near the root and
 * ever more distinct functions deeper down (the pool at depth d grows with
 * d), picked with a skew so hot paths share long prefixes; a share of the
 * leaves are GPU kernels, memcpys, off-CPU markers or kernel (_[k]) frames.
 * Same arguments, same bytes.
 */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	uint64_t x = rng_state; /* xorshift64* */

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Skewed pick in [0, n): small indices are much likelier. */
static unsigned pick(unsigned n)
{
	double u = (double)(rng() >> 11) / (double)(1ULL << 53);

	return (unsigned)(u * u * u * n);
}

static const char *const spaces[] = { "app", "torch::autograd", "at::native", "cudart",
				      "std", "io", "net", "util" };

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	unsigned long i;

	if (argc > 2 || !n) {
		fprintf(stderr, "usage: gen_folded [STACKS] > FILE.folded   (default 200000)\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		unsigned depth = 20 + (unsigned)(rng() % 21), d, leaf = (unsigned)(rng() % 100);
		unsigned long long w = 1000 + rng() % 5000000;

		for (d = 0; d < depth; d++) {
			unsigned pool = 3 + d * d * 4;
			unsigned f = pick(pool);

			if (d)
				putchar(';');
			if (d == depth - 1 && leaf < 15)
				printf("[gpu] kernel_%u<float>(float const*, float*, int)", f % 97);
			else if (d == depth - 1 && leaf < 20)
				printf("[memcpy %s]", f % 2 ? "HtoD" : "DtoH");
			else if (d == depth - 1 && leaf < 30)
				printf("[off-cpu]");
			else if (d >= depth - 3 && leaf >= 90)
				printf("kfunc_%u_[k]", f);
			else
				printf("%s::func_%u_%u(int, char const*)", spaces[f % 8], d, f);
		}
		printf(" %llu\n", w);
	}
	return ferror(stdout) ? 1 : 0;
}
