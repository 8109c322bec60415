// SPDX-License-Identifier: Apache-2.0
/*
 * test_kallsyms: DIR/kallsyms written from /proc/kallsyms read on a thread
 * of its own holds what a read in line writes: the covering symbol of each
 * address and the one after it; a table that cannot be read gives its
 * error. A table read at start names the kernel's own text for good, not a
 * module's address (modules come and go). The kernel's own text is kept
 * in a cache per boot and read from there, naming every address as the
 * table itself does. Files stand in for /proc/kallsyms, so no root is
 * needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kallsyms.h"

static const char table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000300 T do_syscall_64\n"
	"ffffffff81000100 T schedule\n"
	"ffffffff81000200 t futex_wait\n"
	"ffffffff81000200 t futex_wait_alias\n"
	"ffffffff81100000 T _etext\n"
	"ffffffff83000000 D jiffies\n"
	"ffffffffc0001000 t ext4_read\t[ext4]\n"
	"ffffffffc0001100 t ext4_write\t[ext4]\n";

static char dir[] = "/tmp/test_kallsyms.XXXXXX";
static char src[sizeof(dir) + 16], out[sizeof(dir) + 16], cdir[sizeof(dir) + 16];
static char cfile[sizeof(dir) + 32];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Write DIR/kallsyms for @ips, from a read on a thread (@thread) or in line; its text. */
static char *run(bool thread, const uint64_t *ips, size_t n, uint64_t *nsyms)
{
	static char text[2][4096];
	struct kip_set s = { 0 };
	char *t = text[thread];
	ssize_t got;
	int fd;

	for (size_t i = 0; i < n; i++)
		kip_set__add(&s, ips[i]);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	if (thread) {
		struct ksym_snap *k = kallsyms__snap_start(src, false);

		assert_non_null(k);
		assert_int_equal(kallsyms__snap_write_needed(k, &s, fd, nsyms), 0);
		kallsyms__snap_free(k);
	} else {
		assert_int_equal(kallsyms__write_needed(src, &s, fd, nsyms), 0);
	}
	kip_set__free(&s);
	got = pread(fd, t, sizeof(text[0]) - 1, 0);
	close(fd);
	assert_true(got >= 0);
	t[got] = '\0';
	return t;
}

/* DIR/kallsyms for @ips from a snapshot with the cache for @boot; its text, the cache's state. */
static char *run_cached(const char *boot, const uint64_t *ips, size_t n, int *state)
{
	static char text[4096];
	struct kip_set s = { 0 };
	struct ksym_snap *k;
	uint64_t nsyms;
	ssize_t got;
	int fd, dfd;

	for (size_t i = 0; i < n; i++)
		kip_set__add(&s, ips[i]);
	dfd = open(cdir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	k = kallsyms__snap_start_cached(src, dfd, boot, true);
	assert_non_null(k);
	assert_true(kallsyms__snap_covers(k, &s));
	assert_int_equal(kallsyms__snap_write_needed(k, &s, fd, &nsyms), 0);
	*state = kallsyms__snap_cache_state(k);
	kallsyms__snap_free(k);
	kip_set__free(&s);
	close(dfd);
	got = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	assert_true(got >= 0);
	text[got] = '\0';
	return text;
}

static const uint64_t core_ips[] = { 0xffffffff81000210, 0xffffffff81000105 };
static const char core_names[] = "ffffffff81000100 T schedule\n"
				 "ffffffff81000200 t futex_wait\n"
				 "ffffffff81000200 t futex_wait_alias\n"
				 "ffffffff81000300 T do_syscall_64\n";

/*
 * The first run of a boot reads the table and keeps its kernel text (not
 * the modules', not data); the next runs of that boot name the same
 * addresses alike from the cache alone; another boot reads the table again.
 */
static void test_cache_per_boot(void **state)
{
	int st;
	char *t, *c;
	FILE *f;
	char line[256];
	size_t lines = 0;

	put(src, table);
	t = run_cached("boot-a", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_WRITTEN);
	assert_string_equal(t, core_names);
	f = fopen(cfile, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "gpuperf-kallsyms 1 boot-a 6\n");
	while (fgets(line, sizeof(line), f)) {
		lines++;
		assert_null(strstr(line, "ext4"));
		assert_null(strstr(line, "jiffies"));
	}
	fclose(f);
	assert_int_equal(lines, 6);

	/* the kernel's table is not read again in this boot: what it says now is not seen */
	put(src, "ffffffff81000000 T _stext\nffffffff81000100 T other\nffffffff81100000 T _etext\n");
	t = run_cached("boot-a", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_HIT);
	assert_string_equal(t, core_names);
	t = run_cached("boot-b", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_WRITTEN);
	assert_string_equal(t, "ffffffff81000100 T other\nffffffff81100000 T _etext\n");
	c = run_cached("boot-b", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_HIT);
	assert_string_equal(c, "ffffffff81000100 T other\nffffffff81100000 T _etext\n");
}

/* A cache cut short (a full disk, a crash) is not taken for the table: it is read again. */
static void test_cache_cut_short(void **state)
{
	int st, fd;
	char *t;
	struct stat sb;

	put(src, table);
	run_cached("boot-c", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_WRITTEN);
	assert_int_equal(stat(cfile, &sb), 0);
	assert_int_equal(sb.st_mode & 077, 0); /* kernel addresses: root's alone */
	fd = open(cfile, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, sb.st_size - 20), 0);
	close(fd);
	t = run_cached("boot-c", core_ips, 2, &st);
	assert_int_equal(st, KSYM_CACHE_WRITTEN);
	assert_string_equal(t, core_names);
}

/* Each address's symbol (its alias too) and the next, in address order, as a read in line writes them. */
static void test_thread_read_names_as_in_line(void **state)
{
	const uint64_t ips[] = { 0xffffffff81000210, 0xffffffffc0001150, 0xffffffff81000105 };
	uint64_t n_thread = 0, n_line = 0;
	char *a, *b;

	put(src, table);
	a = run(true, ips, 3, &n_thread);
	b = run(false, ips, 3, &n_line);
	assert_string_equal(a, "ffffffff81000100 T schedule\n"
			       "ffffffff81000200 t futex_wait\n"
			       "ffffffff81000200 t futex_wait_alias\n"
			       "ffffffff81000300 T do_syscall_64\n"
			       "ffffffffc0001100 t ext4_write\t[ext4]\n");
	assert_int_equal(n_thread, 5);
	assert_string_equal(a, b);
	assert_int_equal(n_thread, n_line);
}

/* A table that cannot be read: its error, nothing written, as the agent counts it. */
static void test_unreadable_table(void **state)
{
	struct kip_set s = { 0 };
	struct ksym_snap *k;
	uint64_t nsyms = 7;
	int fd;

	unlink(src);
	kip_set__add(&s, 0xffffffff81000210);
	k = kallsyms__snap_start(src, false);
	assert_non_null(k);
	fd = open("/dev/null", O_WRONLY);
	assert_int_equal(kallsyms__snap_write_needed(k, &s, fd, &nsyms), -ENOENT);
	close(fd);
	assert_int_equal(nsyms, 0);
	kallsyms__snap_free(k);
	kip_set__free(&s);
}

/* Started and never waited for (a stop that failed first): freed without a leak. */
static void test_free_unwaited(void **state)
{
	put(src, table);
	kallsyms__snap_free(kallsyms__snap_start(src, false));
}

/* Read at start in the background: the kernel's text is covered, a module's address is not. */
static void test_start_table_covers_kernel_text(void **state)
{
	struct kip_set core = { 0 }, mod = { 0 };
	struct ksym_snap *k;

	put(src, table);
	k = kallsyms__snap_start(src, true);
	assert_non_null(k);
	kip_set__add(&core, 0xffffffff81000210);
	kip_set__add(&core, 0xffffffff81000105);
	kip_set__add(&mod, 0xffffffff81000210);
	kip_set__add(&mod, 0xffffffffc0001150);
	assert_true(kallsyms__snap_covers(k, &core));
	assert_false(kallsyms__snap_covers(k, &mod));
	kallsyms__snap_free(k);
	kip_set__free(&core);
	kip_set__free(&mod);
}

/* A table without _stext/_etext (a kernel that hides them) covers nothing. */
static void test_no_text_bounds_covers_nothing(void **state)
{
	struct kip_set s = { 0 };
	struct ksym_snap *k;

	put(src, "ffffffff81000100 T schedule\nffffffff81000200 t futex_wait\n");
	k = kallsyms__snap_start(src, true);
	assert_non_null(k);
	kip_set__add(&s, 0xffffffff81000210);
	assert_false(kallsyms__snap_covers(k, &s));
	kallsyms__snap_free(k);
	kip_set__free(&s);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(cdir, sizeof(cdir), "%s/cache", dir);
	snprintf(cfile, sizeof(cfile), "%s/cache/%s", dir, KSYM_CACHE_FILE);
	return mkdir(cdir, 0700);
}

static int teardown(void **state)
{
	unlink(src);
	unlink(out);
	unlink(cfile);
	rmdir(cdir);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_read_names_as_in_line),
		cmocka_unit_test(test_unreadable_table),
		cmocka_unit_test(test_free_unwaited),
		cmocka_unit_test(test_start_table_covers_kernel_text),
		cmocka_unit_test(test_no_text_bounds_covers_nothing),
		cmocka_unit_test(test_cache_per_boot),
		cmocka_unit_test(test_cache_cut_short),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
