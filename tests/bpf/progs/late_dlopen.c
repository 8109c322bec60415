// SPDX-License-Identifier: Apache-2.0
/*
 * late_dlopen MS LIB...: after a pause (the agent's first scans of its
 * mappings are done), dlopen each LIB in turn (copies of late_lib, built
 * without frame pointers) and spin in its late_spin() for MS ms of CPU,
 * called from main through run_late(). Its samples must reach main
 * through late_spin (test_cfi_late): each library was mapped after the
 * agent last read /proc/PID/maps. Several loads, each at a random point
 * of the agent's periodic scans, so that some samples land before a
 * periodic scan would have seen the library.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef unsigned long (*spin_fn)(long ms);

__attribute__((noinline)) unsigned long run_late(spin_fn fn, long ms)
{
	return fn(ms) + 1;
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	spin_fn fn;
	void *h;

	if (argc < 3)
		return 2;
	nanosleep(&pause, NULL);
	for (int i = 2; i < argc; i++) {
		h = dlopen(argv[i], RTLD_NOW);
		fn = h ? (spin_fn)dlsym(h, "late_spin") : NULL;
		if (!fn) {
			fprintf(stderr, "late_dlopen: %s\n", dlerror());
			return 1;
		}
		printf("%lu\n", run_late(fn, atol(argv[1])));
	}
	return 0;
}
