// SPDX-License-Identifier: Apache-2.0
/*
 * dl_prog: CPU time in a library loaded with dlopen (dl_lib), built
 * without frame pointers, as the program is: main -> run_lib -> dl_work
 * -> dl_mid -> dl_spin in the library, and dl_work -> prog_cb -> prog_spin
 * back in the program.
 * Usage: dl_prog LIB ROUNDS [wait]
 *   wait: load the library, print "ready", and start when a byte comes on
 *         stdin (the agent attaches in between: the library is mapped
 *         before its first look at the process)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))
#define UNIT 60000ul

static volatile unsigned long sink;

NOIPA void prog_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOIPA void prog_cb(unsigned long unit)
{
	prog_spin(unit);
	sink++;
}

NOIPA void run_lib(void (*work)(unsigned long, void (*)(unsigned long)), long rounds)
{
	while (rounds-- > 0)
		work(UNIT, prog_cb);
	sink++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 3 ? argv[3] : "";
	void (*work)(unsigned long, void (*)(unsigned long));
	void *h;
	char c;

	if (argc < 3)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	if (!h)
		return 3;
	*(void **)&work = dlsym(h, "dl_work");
	if (!work)
		return 4;
	if (!strcmp(mode, "wait")) {
		printf("ready\n");
		fflush(stdout);
		if (read(0, &c, 1) != 1)
			return 5;
	}
	run_lib(work, atol(argv[2]));
	return 0;
}
