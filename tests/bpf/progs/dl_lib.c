// SPDX-License-Identifier: Apache-2.0
/*
 * dl_lib: the library dl_prog loads with dlopen, built without frame
 * pointers: its own hot loop, and a call back into the program.
 */
#define NOIPA __attribute__((noipa))

static volatile unsigned long sink;

NOIPA void dl_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOIPA void dl_mid(unsigned long n)
{
	dl_spin(n);
	sink++;
}

/* One round: 3 units in the library, 1 in the program's @cb. */
NOIPA void dl_work(unsigned long unit, void (*cb)(unsigned long))
{
	dl_mid(3 * unit);
	cb(unit);
	sink++;
}
