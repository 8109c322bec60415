// SPDX-License-Identifier: Apache-2.0
/* symfix_lib.c - the fixture's shared library: one known function and its line. */

int symfix_lib_func(int x);
extern const int symfix_lib_func_line;

/* The marker and the function share a line: the function's entry maps to it. */
const int symfix_lib_func_line = __LINE__; __attribute__((noinline)) int symfix_lib_func(int x) { return x * 5 + 1; }
