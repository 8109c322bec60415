// SPDX-License-Identifier: Apache-2.0
/*
 * test_kallsyms: DIR/kallsyms from the copy of /proc/kallsyms read at start
 * names the kernel's own text as a read at stop would; an address outside it
 * (a module loaded, a BPF program) is named from a read at stop. Files stand
 * in for /proc/kallsyms, so no root is needed.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kallsyms.h"

/* The table at start: the kernel's text, one module. */
static const char start_table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T schedule\n"
	"ffffffff81000200 t futex_wait\n"
	"ffffffff81000300 T do_syscall_64\n"
	"ffffffff81100000 T _etext\n"
	"ffffffff83000000 D jiffies\n"
	"ffffffffc0001000 t ext4_read\t[ext4]\n"
	"ffffffffc0001100 t ext4_write\t[ext4]\n";

/* At stop: the same kernel; ext4 unloaded, another module where it was. */
static const char stop_table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T schedule\n"
	"ffffffff81000200 t futex_wait\n"
	"ffffffff81000300 T do_syscall_64\n"
	"ffffffff81100000 T _etext\n"
	"ffffffff83000000 D jiffies\n"
	"ffffffffc0001000 t xfs_read\t[xfs]\n"
	"ffffffffc0001200 t xfs_write\t[xfs]\n";

static char dir[] = "/tmp/test_kallsyms.XXXXXX";
static char src[sizeof(dir) + 16], out[sizeof(dir) + 16];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Write DIR/kallsyms for @ips from a snapshot of start_table, the source changed to stop_table. */
static char *run(const uint64_t *ips, size_t n, bool *reread, uint64_t *nsyms)
{
	struct kip_set s = { 0 };
	struct ksym_snap *k;
	static char text[4096];
	ssize_t got;
	int fd;

	put(src, start_table);
	k = kallsyms__snap_start(src);
	assert_non_null(k);
	for (size_t i = 0; i < n; i++)
		kip_set__add(&s, ips[i]);
	/* the snapshot is read by now or reads the old file: wait for it before changing it */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	{
		struct kip_set none = { 0 };
		bool r;
		uint64_t ns;
		int dev = open("/dev/null", O_WRONLY);

		assert_int_equal(kallsyms__snap_write_needed(k, &none, dev, &ns, &r), 0);
		close(dev);
	}
	put(src, stop_table);
	assert_int_equal(kallsyms__snap_write_needed(k, &s, fd, nsyms, reread), 0);
	close(fd);
	kallsyms__snap_free(k);
	kip_set__free(&s);
	fd = open(out, O_RDONLY);
	assert_true(fd >= 0);
	got = read(fd, text, sizeof(text) - 1);
	close(fd);
	assert_true(got >= 0);
	text[got] = '\0';
	return text;
}

/* Addresses in the kernel's own text: the copy from start, not a second read. */
static void test_core_text_from_start(void **state)
{
	const uint64_t ips[] = { 0xffffffff81000210, 0xffffffff81000105 };
	uint64_t nsyms = 0;
	bool reread = true;
	char *t = run(ips, 2, &reread, &nsyms);

	assert_false(reread);
	assert_string_equal(t, "ffffffff81000100 T schedule\n"
			       "ffffffff81000200 t futex_wait\n"
			       "ffffffff81000300 T do_syscall_64\n");
	assert_int_equal(nsyms, 3);
}

/* A module's address: read again at stop, so it is named by what is loaded now. */
static void test_module_read_at_stop(void **state)
{
	const uint64_t ips[] = { 0xffffffff81000210, 0xffffffffc0001150 };
	uint64_t nsyms = 0;
	bool reread = false;
	char *t = run(ips, 2, &reread, &nsyms);

	assert_true(reread);
	assert_non_null(strstr(t, "xfs_read"));
	assert_null(strstr(t, "ext4"));
	assert_non_null(strstr(t, "futex_wait"));
}

/* No _stext/_etext in the table (a kernel that hides them): always read at stop. */
static void test_no_text_bounds(void **state)
{
	const uint64_t ips[] = { 0xffffffff81000210 };
	struct kip_set s = { 0 };
	struct ksym_snap *k;
	uint64_t nsyms = 0;
	bool reread = false;
	int fd;

	put(src, "ffffffff81000100 T schedule\nffffffff81000200 t futex_wait\n");
	k = kallsyms__snap_start(src);
	assert_non_null(k);
	kip_set__add(&s, ips[0]);
	fd = open("/dev/null", O_WRONLY);
	assert_int_equal(kallsyms__snap_write_needed(k, &s, fd, &nsyms, &reread), 0);
	close(fd);
	assert_true(reread);
	assert_int_equal(nsyms, 1); /* futex_wait; nothing after it */
	kallsyms__snap_free(k);
	kip_set__free(&s);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	return 0;
}

static int teardown(void **state)
{
	unlink(src);
	unlink(out);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_text_from_start),
		cmocka_unit_test(test_module_read_at_stop),
		cmocka_unit_test(test_no_text_bounds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
