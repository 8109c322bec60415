// SPDX-License-Identifier: Apache-2.0
/*
 * test_gp_file.c - gp_file.h in a directory where someone planted links,
 * FIFOs, hard links and devices: nothing is followed, blocked on, opened
 * as a device or overwritten through another name.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gp_file.h"

static char dir[64];
static int dfd = -1;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp_file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void put(const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void expect_text(const char *name, const char *text)
{
	char buf[64] = "";
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) >= 0);
	close(fd);
	assert_string_equal(buf, text);
}

static void test_output(void **state)
{
	int fd;

	(void)state;
	/* new, and an earlier run's output: truncated in place */
	fd = gp_file__output(dfd, "out.svg");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old output", 10), 10);
	close(fd);
	fd = gp_file__output(dfd, "out.svg");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new", 3), 3);
	close(fd);
	expect_text("out.svg", "new");

	/* a link to someone's file: refused, the file untouched */
	put("victim", "precious");
	assert_int_equal(symlinkat("victim", dfd, "link.svg"), 0);
	assert_int_equal(gp_file__output(dfd, "link.svg"), -ELOOP);
	expect_text("victim", "precious");
	/* a dangling link: nothing made where it points */
	assert_int_equal(symlinkat("made-through-link", dfd, "dangling.svg"), 0);
	assert_int_equal(gp_file__output(dfd, "dangling.svg"), -ELOOP);
	assert_int_equal(faccessat(dfd, "made-through-link", F_OK, 0), -1);

	/* a hard link to another file: not overwritten */
	assert_int_equal(linkat(dfd, "victim", dfd, "hard.svg", 0), 0);
	assert_int_equal(gp_file__output(dfd, "hard.svg"), -EMLINK);
	expect_text("victim", "precious");

	/* a FIFO nobody reads: refused at once (an open for writing would block) */
	assert_int_equal(mkfifoat(dfd, "fifo.svg", 0600), 0);
	assert_int_equal(gp_file__output(dfd, "fifo.svg"), -EINVAL);
	/* a directory */
	assert_int_equal(mkdirat(dfd, "sub.svg", 0700), 0);
	assert_int_equal(gp_file__output(dfd, "sub.svg"), -EINVAL);
	/* a path (AT_FDCWD) whose last component is a link */
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/link.svg", dir);
		errno = 0;
		assert_null(gp_file__fopen_output(path));
		assert_int_equal(errno, ELOOP);
	}
	expect_text("victim", "precious");
}

static void test_create(void **state)
{
	int fd;

	(void)state;
	fd = gp_file__create(dfd, "record.json", false, 0, 0);
	assert_true(fd >= 0);
	close(fd);
	/* it exists now: someone else's file is never taken over */
	assert_int_equal(gp_file__create(dfd, "record.json", false, 0, 0), -EEXIST);
	/* a planted dangling link: not followed, nothing created where it points */
	assert_int_equal(symlinkat("through", dfd, "cpu.trace"), 0);
	assert_int_equal(gp_file__create(dfd, "cpu.trace", false, 0, 0), -EEXIST);
	assert_int_equal(faccessat(dfd, "through", F_OK, 0), -1);
}

static void test_input(void **state)
{
	int fd, dev;
	char c;

	(void)state;
	put("kallsyms", "x");
	fd = gp_file__input(dfd, "kallsyms");
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &c, 1), 1);
	close(fd);
	/* a FIFO: refused without blocking (a plain open would wait for a writer) */
	assert_int_equal(mkfifoat(dfd, "perf.map", 0600), 0);
	assert_int_equal(gp_file__input(dfd, "perf.map"), -EINVAL);
	/* a link to a file: not followed */
	assert_int_equal(symlinkat("kallsyms", dfd, "ln"), 0);
	assert_int_equal(gp_file__input(dfd, "ln"), -ELOOP);
	/* a device node: not opened */
	dev = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dev >= 0);
	assert_int_equal(gp_file__input(dev, "null"), -EINVAL);
	close(dev);
}

static void test_dir_owned(void **state)
{
	char path[128];
	int fd;

	(void)state;
	fd = gp_file__dir_owned(dir, geteuid());
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gp_file__dir_owned(dir, geteuid() + 1), -EPERM);
	snprintf(path, sizeof(path), "%s/dirlink", dir);
	assert_int_equal(symlink(dir, path), 0);
	fd = gp_file__dir_owned(path, geteuid());
	assert_true(fd == -ELOOP || fd == -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_dir_owned),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
