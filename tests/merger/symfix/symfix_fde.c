// SPDX-License-Identifier: Apache-2.0
/*
 * symfix_fde.c - a library whose code the symbol tables do not name once
 * stripped (hidden functions: not in .dynsym either), for the grouping of
 * unnamed code by its .eh_frame FDE. Two functions, each long enough to be
 * sampled at many addresses; one exported entry so the linker keeps them.
 */

__attribute__((visibility("hidden"), noinline)) unsigned fde_mix(unsigned x, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		x += i * 2654435761u;
	}
	return x;
}

__attribute__((visibility("hidden"), noinline)) unsigned fde_sum(const unsigned *v, unsigned n)
{
	unsigned s = 0, m = 0;

	for (unsigned i = 0; i < n; i++) {
		s += v[i] * (i | 1u);
		m = v[i] > m ? v[i] : m;
		s ^= m >> (i & 7);
	}
	return s + m;
}

unsigned symfix_fde_entry(const unsigned *v, unsigned n)
{
	return fde_mix(fde_sum(v, n), n);
}
