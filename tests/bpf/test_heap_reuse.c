// SPDX-License-Identifier: Apache-2.0
/*
 * test_heap_reuse: after heap_reuse__raise() the buffers libbpf allocates
 * for each program the agent loads (the kernel's BTF, 5.5 MB, and a copy of
 * it, both alive at once) are reused from glibc's heap: the second to the
 * fourth program fault in almost no new page, where each faulted in 11 MB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "heap_reuse.h"

#define BTF_SIZE 5515236u /* /sys/kernel/btf/vmlinux of a 6.18 kernel */

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* One program's load as libbpf 1.1 does it: the file read, then copied. */
static void one_load(void)
{
	char *raw = malloc(BTF_SIZE), *copy;

	assert_non_null(raw);
	memset(raw, 1, BTF_SIZE);
	copy = malloc(BTF_SIZE);
	assert_non_null(copy);
	memcpy(copy, raw, BTF_SIZE);
	free(raw);
	free(copy);
}

/* Page faults of loads 2 to 4, in a fresh process (glibc's thresholds as at start). */
static long faults_of_later_loads(int raise)
{
	int fds[2], st;
	long n = -1;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long before;

		if (raise)
			heap_reuse__raise();
		one_load();
		before = minflt();
		for (int i = 0; i < 3; i++)
			one_load();
		n = minflt() - before;
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &n, sizeof(n)), sizeof(n));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return n;
}

static void test_later_loads_reuse_the_heap(void **state)
{
	long with, without;

#if defined(__SANITIZE_ADDRESS__)
	skip(); /* ASan's allocator, not glibc's: nothing to measure */
#endif
	with = faults_of_later_loads(1);
	without = faults_of_later_loads(0);

	fprintf(stderr, "page faults of loads 2-4: %ld raised, %ld as glibc starts\n", with, without);
	/* 3 loads x 11 MB is 8,000 pages: reused, a few dozen at most */
	assert_true(with < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_later_loads_reuse_the_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
