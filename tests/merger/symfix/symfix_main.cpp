// SPDX-License-Identifier: Apache-2.0
/*
 * symfix_main.cpp - the symbolizer tests' fixture: a PIE with known functions
 * (plain, local, always-inlined, C++ template in a namespace) and a shared
 * library. It prints their run-time addresses, the lines they sit on and
 * its executable mappings, then exits, so the test symbolizes a process
 * that is gone, as the merger does.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern "C" {
int symfix_lib_func(int x);
extern const int symfix_lib_func_line;
}

static volatile uintptr_t probe_ret;
static volatile int line_inl, line_outer;

extern "C" {
__attribute__((noinline)) void symfix_probe(void)
{
	probe_ret = (uintptr_t)__builtin_return_address(0);
}

/* Marker and function on one line: every address of the function maps to it. */
static const int line_plain = __LINE__; __attribute__((noinline)) int symfix_plain(int x) { return x * 7 + (int)probe_ret; }

static const int line_local = __LINE__; static __attribute__((noinline)) int symfix_local(int x) { return x - (int)probe_ret; }

static inline __attribute__((always_inline)) int symfix_inl(int x)
{
	symfix_probe(); line_inl = __LINE__;
	return x * 3;
}

__attribute__((noinline)) int symfix_outer(int x)
{
	int r = symfix_inl(x); line_outer = __LINE__;
	return r + 1;
}
}

namespace symfix
{
static const int line_twice = __LINE__; template <typename T> __attribute__((noinline)) T twice(T v) { return v + v + (T)probe_ret; }
} // namespace symfix

/* Called through volatile pointers so nothing is folded or cloned away. */
static int (*volatile fp_plain)(int) = symfix_plain;
static int (*volatile fp_local)(int) = symfix_local;
static int (*volatile fp_outer)(int) = symfix_outer;
static int (*volatile fp_twice)(int) = symfix::twice<int>;
static int (*volatile fp_lib)(int) = symfix_lib_func;

int main(void)
{
	char line[4096];
	FILE *maps;
	int sum = fp_plain(1) + fp_local(2) + fp_outer(3) + fp_twice(4) + fp_lib(5);

	printf("fn plain %lx\n", (unsigned long)(uintptr_t)fp_plain);
	printf("fn local %lx\n", (unsigned long)(uintptr_t)fp_local);
	printf("fn outer %lx\n", (unsigned long)(uintptr_t)fp_outer);
	printf("fn twice %lx\n", (unsigned long)(uintptr_t)fp_twice);
	printf("fn lib %lx\n", (unsigned long)(uintptr_t)fp_lib);
	printf("fn ret_inl %lx\n", (unsigned long)probe_ret);
	printf("line plain %d\n", line_plain);
	printf("line local %d\n", line_local);
	printf("line inl %d\n", line_inl);
	printf("line twice %d\n", symfix::line_twice);
	printf("line outer %d\n", line_outer);
	printf("line lib %d\n", symfix_lib_func_line);
	printf("sum %d\n", sum);

	/* "start-end perms pgoff dev inode path": executable file mappings only,
	 * what GP_REC_MODULE records. */
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 1;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, pgoff;
		char perms[8], path[4096];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) == 5 &&
		    perms[2] == 'x' && path[0] == '/')
			printf("map %lx %lx %lx %s\n", start, end, pgoff, path);
	}
	fclose(maps);
	return 0;
}
