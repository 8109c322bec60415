// SPDX-License-Identifier: Apache-2.0
/*
 * The on-disk cache of CFI tables: an entry read back gives the table it
 * was written from, row for row; a truncated, corrupt, foreign-version or
 * foreign-key entry is rejected (counted) and replaced by the next write;
 * a link planted under an entry's name is neither read nor written
 * through; the directory stays under its size bound, least recently used
 * first; the key is the build id where there is one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfi_cache.h"
#include "cfi_file.h"
#include "cfi_table.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static char dir[64];
static int dfd = -1;

static void rm_dir(void)
{
	char cmd[128];

	if (dfd >= 0)
		close(dfd);
	dfd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_cfi_cache.XXXXXX");
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_dir();
	return 0;
}

static void assert_same_table(const struct cfi_table *a, const struct cfi_table *b)
{
	struct cfi_table_stats sa, sb;
	const struct gp_cfi_row *ra, *rb;
	uint32_t na, nb;

	ra = cfi_table__rows(a, &na);
	rb = cfi_table__rows(b, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(ra, rb, (size_t)na * sizeof(*ra));
	cfi_table__stats(a, &sa);
	cfi_table__stats(b, &sb);
	assert_memory_equal(&sa, &sb, sizeof(sa));
}

/* libc's table and key */
static struct cfi_table *libc_table(char key[CFI_FILE_KEY_MAX])
{
	struct cfi_table *t;
	int fd = open(LIBC, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(cfi_table__from_fd(fd, &t), 0);
	assert_int_equal(cfi_file__key(fd, key), 0);
	close(fd);
	return t;
}

static void test_key(void **state)
{
	char key[CFI_FILE_KEY_MAX], key2[CFI_FILE_KEY_MAX], path[128];
	struct stat sb;
	struct cfi_table *t;
	int fd;

	(void)state;
	t = libc_table(key);
	cfi_table__free(t);
	/* Debian's libc has a 20-byte build id: "b-" 40 hex digits "-" size */
	assert_int_equal(strncmp(key, "b-", 2), 0);
	assert_int_equal(strspn(key + 2, "0123456789abcdef"), 40);
	assert_int_equal(stat(LIBC, &sb), 0);
	snprintf(path, sizeof(path), "-%llu", (unsigned long long)sb.st_size);
	assert_string_equal(key + 42, path);

	/* no build id: the file's identity, which changes with the file */
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(cfi_file__key(fd, key), 0);
	assert_int_equal(strncmp(key, "i-", 2), 0);
	assert_int_equal(write(fd, "y", 1), 1);
	assert_int_equal(cfi_file__key(fd, key2), 0);
	assert_string_not_equal(key, key2);
	close(fd);
	unlink(path);
}

static void test_encode_decode(void **state)
{
	char key[CFI_FILE_KEY_MAX];
	struct cfi_table *t, *back;
	uint8_t *buf, *bad;
	size_t len, cut;
	uint32_t version, nrows;

	(void)state;
	t = libc_table(key);
	assert_int_equal(cfi_file__encode(t, key, (void **)&buf, &len), 0);
	cfi_table__rows(t, &nrows);
	assert_true(nrows > 1000);
	assert_int_equal(cfi_file__decode(buf, len, key, &back), 0);
	assert_same_table(t, back);
	cfi_table__free(back);

	/* the same from an odd address (a buffer read at any offset) */
	bad = malloc(len + 1);
	assert_non_null(bad);
	memcpy(bad + 1, buf, len);
	assert_int_equal(cfi_file__decode(bad + 1, len, key, &back), 0);
	assert_same_table(t, back);
	cfi_table__free(back);

	/* truncated anywhere: in the header, between rows, one byte short */
	for (cut = 0; cut < len; cut += cut < 200 ? 7 : len / 13) {
		assert_int_equal(cfi_file__decode(buf, cut, key, &back), -EBADMSG);
		assert_null(back);
	}
	assert_int_equal(cfi_file__decode(buf, len - 1, key, &back), -EBADMSG);
	/* one bit flipped in a row, in the row count, in an FDE count, in the checksum */
	memcpy(bad, buf, len);
	bad[len - 100] ^= 0x10;
	assert_int_equal(cfi_file__decode(bad, len, key, &back), -EBADMSG);
	memcpy(bad, buf, len);
	bad[16] ^= 1;
	assert_int_equal(cfi_file__decode(bad, len, key, &back), -EBADMSG);
	memcpy(bad, buf, len);
	bad[20] ^= 1;
	assert_int_equal(cfi_file__decode(bad, len, key, &back), -EBADMSG);
	memcpy(bad, buf, len);
	bad[130] ^= 1;
	assert_int_equal(cfi_file__decode(bad, len, key, &back), -EBADMSG);
	/* another file's entry, renamed to this key */
	assert_int_equal(cfi_file__decode(buf, len, "b-00-1", &back), -EBADMSG);
	/* another version of the format */
	memcpy(bad, buf, len);
	memcpy(&version, bad + 8, 4);
	version++;
	memcpy(bad + 8, &version, 4);
	assert_int_equal(cfi_file__decode(bad, len, key, &back), -ESTALE);
	free(bad);
	free(buf);
	cfi_table__free(t);
}

/* Rows that are not a table are refused even when the bytes are intact. */
static void test_from_rows_checks(void **state)
{
	struct gp_cfi_row rows[3] = {
		{ .start = 0x100, .kind = GP_CFI_RSP, .cfa_off = 16 },
		{ .start = 0x200, .kind = GP_CFI_RBP, .cfa_off = 16, .rbp_off = -16 },
		{ .start = 0x300, .kind = GP_CFI_NONE },
	};
	struct cfi_table *t;

	(void)state;
	assert_int_equal(cfi_table__from_rows(rows, 3, NULL, &t), 0);
	assert_int_equal(cfi_table__find(t, 0x250)->kind, GP_CFI_RBP);
	cfi_table__free(t);
	rows[1].start = 0x100; /* not increasing */
	assert_int_equal(cfi_table__from_rows(rows, 3, NULL, &t), -EINVAL);
	rows[1].start = 0x200;
	rows[1].kind = 42; /* no such kind */
	assert_int_equal(cfi_table__from_rows(rows, 3, NULL, &t), -EINVAL);
	rows[1].kind = GP_CFI_RBX; /* ld.so's trampolines: kept */
	rows[1].arg = GP_CFI_RBX_AT(4);
	assert_int_equal(cfi_table__from_rows(rows, 3, NULL, &t), 0);
	assert_int_equal(cfi_table__find(t, 0x250)->kind, GP_CFI_RBX);
	cfi_table__free(t);
	rows[1].kind = GP_CFI_RBP;
	rows[2].kind = GP_CFI_RSP; /* not closed */
	assert_int_equal(cfi_table__from_rows(rows, 3, NULL, &t), -EINVAL);
	assert_null(t);
}

static int count_entries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void entry_path(const char *key, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.cfi", dir, key);
}

static void test_cache_hit_miss_corrupt(void **state)
{
	char key[CFI_FILE_KEY_MAX], path[256];
	struct cfi_cache_stats st;
	struct cfi_table *t, *back;
	struct cfi_cache *c;
	struct stat sb;

	(void)state;
	t = libc_table(key);
	assert_int_equal(cfi_cache__open(dfd, NULL, &c), 0);
	assert_int_equal(cfi_cache__get(c, key, &back), -ENOENT);
	assert_int_equal(cfi_cache__put(c, key, t), 0);
	assert_int_equal(cfi_cache__get(c, key, &back), 0);
	assert_same_table(t, back);
	cfi_table__free(back);

	/* cut short (a crash mid-write of an older version, a full disk) */
	entry_path(key, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(truncate(path, sb.st_size / 2), 0);
	assert_int_equal(cfi_cache__get(c, key, &back), -EBADMSG);
	assert_null(back);
	/* rebuilt and written again: whole */
	assert_int_equal(cfi_cache__put(c, key, t), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(cfi_cache__get(c, key, &back), 0);
	assert_same_table(t, back);
	cfi_table__free(back);

	cfi_cache__stats(c, &st);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.bad, 1);
	assert_int_equal(st.written, 2);
	assert_int_equal(st.write_errors, 0);
	/* nothing left behind but the entry */
	assert_int_equal(count_entries(), 1);
	cfi_cache__free(c);
	cfi_table__free(t);
}

static void test_cache_planted_link(void **state)
{
	char key[CFI_FILE_KEY_MAX], path[256], target[256], buf[64];
	struct cfi_table *t, *back;
	struct cfi_cache *c;
	struct cfi_cache_stats st;
	struct stat sb;
	int fd;

	(void)state;
	t = libc_table(key);
	/* a link under the entry's name to a file the cache must not touch */
	snprintf(target, sizeof(target), "%s/precious", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious\n", 9), 9);
	close(fd);
	entry_path(key, path, sizeof(path));
	assert_int_equal(symlink(target, path), 0);

	assert_int_equal(cfi_cache__open(dfd, NULL, &c), 0);
	assert_int_equal(cfi_cache__get(c, key, &back), -EBADMSG); /* not followed */
	assert_int_equal(cfi_cache__put(c, key, t), 0);
	/* the link was replaced by an entry; what it pointed to is as it was */
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	fd = open(target, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 9);
	close(fd);
	assert_memory_equal(buf, "precious\n", 9);
	assert_int_equal(cfi_cache__get(c, key, &back), 0);
	cfi_table__free(back);
	cfi_cache__stats(c, &st);
	assert_int_equal(st.bad, 1);
	assert_int_equal(st.hits, 1);
	cfi_cache__free(c);
	cfi_table__free(t);
	unlink(target);
}

/* A directory that is not the owner's is refused. */
static void test_cache_owner(void **state)
{
	struct cfi_cache_opts o = { .set_owner = true, .owner_uid = 65534, .owner_gid = 65534 };
	struct cfi_cache *c;
	struct stat sb;

	(void)state;
	assert_int_equal(fstat(dfd, &sb), 0);
	if (sb.st_uid == 65534)
		skip();
	assert_int_equal(cfi_cache__open(dfd, &o, &c), -EPERM);
	assert_null(c);
}

static void test_cache_evicts_oldest(void **state)
{
	char key[CFI_FILE_KEY_MAX], k[3][CFI_FILE_KEY_MAX + 8], path[256];
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct cfi_cache_opts o = { 0 };
	struct cfi_cache_stats st;
	struct cfi_table *t, *back;
	struct cfi_cache *c;
	struct stat sb;
	int i;

	(void)state;
	t = libc_table(key);
	for (i = 0; i < 3; i++)
		snprintf(k[i], sizeof(k[i]), "%s-%d", key, i);
	/* room for two entries */
	assert_int_equal(cfi_cache__open(dfd, NULL, &c), 0);
	assert_int_equal(cfi_cache__put(c, k[0], t), 0);
	entry_path(k[0], path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	cfi_cache__free(c);
	o.max_bytes = (uint64_t)sb.st_size * 5 / 2;
	assert_int_equal(cfi_cache__open(dfd, &o, &c), 0);
	nanosleep(&pause, NULL);
	assert_int_equal(cfi_cache__put(c, k[1], t), 0);
	nanosleep(&pause, NULL);
	/* k[0] used last: k[1] is the oldest now */
	assert_int_equal(cfi_cache__get(c, k[0], &back), 0);
	cfi_table__free(back);
	nanosleep(&pause, NULL);
	assert_int_equal(cfi_cache__put(c, k[2], t), 0);
	assert_int_equal(cfi_cache__get(c, k[1], &back), -ENOENT);
	assert_int_equal(cfi_cache__get(c, k[0], &back), 0);
	cfi_table__free(back);
	assert_int_equal(cfi_cache__get(c, k[2], &back), 0);
	cfi_table__free(back);
	cfi_cache__stats(c, &st);
	assert_int_equal(st.evicted, 1);
	cfi_cache__free(c);
	cfi_table__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key, setup, teardown),
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_from_rows_checks),
		cmocka_unit_test_setup_teardown(test_cache_hit_miss_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_planted_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_evicts_oldest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
