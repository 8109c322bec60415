// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_maps: the agent records every executable mapping of a process
 * however long its /proc/PID/maps. The child (this program, run again)
 * maps its own file executable MAPS times, each a mapping of its own, so
 * that its maps file is several times the agent's first read buffer, and
 * stays a moment for the agent's scans; each mapping must come back as a
 * module record.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_harness.h"
#include "bpf_require.h"

#define TEST_NAME "test_agent_maps"
#define MAPS 3000 /* ~100 bytes a line: 300 KB of maps, past the 64 KiB first read */

/* The child: MAPS executable mappings of its own file, then 300 ms for the scans. */
static int map_many(void)
{
	struct timespec ts = { .tv_nsec = 300 * 1000 * 1000 };
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 2;
	for (int i = 0; i < MAPS; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 3;
	nanosleep(&ts, NULL);
	return 0;
}

static void test_every_mapping(void **state)
{
	struct cpu_agent_opts o = { .on_cpu = true, .freq_hz = 99, .no_kallsyms = true };
	char *argv[] = { (char *)"/proc/self/exe", (char *)"--map-many", NULL };
	char exe[4096], dir[4096];
	struct harness_trace t;
	ssize_t len;
	size_t n = 0;
	int status, err;

	(void)state;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = '\0';
	harness__mkdtemp(dir, sizeof(dir), "maps");
	o.dir = dir;
	err = harness__run(&o, argv, NULL, &status, NULL);
	bpf_require__errno(TEST_NAME, err);
	assert_int_equal(err, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(harness__load(dir, &t), 0);
	/* the program's own text, and each of its MAPS mappings of page 0 */
	for (size_t i = 0; i < t.n; i++)
		if (t.r[i].type == GP_REC_MODULE && !strcmp(t.r[i].path, exe) && !t.r[i].pgoff &&
		    t.r[i].end - t.r[i].start == 4096)
			n++;
	fprintf(stderr, "%zu one-page mappings of %s recorded\n", n, exe);
	assert_true(n >= MAPS);
	harness__free(&t);
	harness__rmrf(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_mapping),
	};

	if (argc > 1 && !strcmp(argv[1], "--map-many"))
		return map_many();
	bpf_require(TEST_NAME);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
