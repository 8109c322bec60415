// SPDX-License-Identifier: Apache-2.0
/* late_lib: code without frame pointers, dlopen'ed late by late_dlopen. */
#include <time.h>

unsigned long late_spin(long ms);

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long late_inner(unsigned long x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

unsigned long late_spin(long ms)
{
	double end = cpu_ms() + (double)ms;
	unsigned long x = 1;

	while (cpu_ms() < end)
		x = late_inner(x);
	return x;
}
