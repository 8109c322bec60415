// SPDX-License-Identifier: Apache-2.0
/*
 * test_bulk_out.c - bulk_out writes exactly the bytes it is given, through
 * O_DIRECT where the file system takes it (the file's pages then stay out of
 * the page cache) and through write(2) where it does not, and reports a
 * failed write.
 *
 * A file system that takes O_DIRECT at open and refuses the writes (EINVAL)
 * is played by wrappers of glibc's aio_write/aio_error/aio_return, linked
 * with ld's --wrap (tests/merger/CMakeLists.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bulk_out.h"
#include "gp_util.h"

/* While refuse_direct is set, writes submitted with O_DIRECT on fail as such a file system's do. */
static int refuse_direct;
static unsigned refused, submitted;

int __real_aio_write(struct aiocb *cb);
int __real_aio_error(const struct aiocb *cb);
ssize_t __real_aio_return(struct aiocb *cb);
int __wrap_aio_write(struct aiocb *cb);
int __wrap_aio_error(const struct aiocb *cb);
ssize_t __wrap_aio_return(struct aiocb *cb);

/* A request this file refused is marked by a sigevent value no caller uses. */
#define REFUSED_MARK 0x7e57

int __wrap_aio_write(struct aiocb *cb)
{
	submitted++;
	if (refuse_direct && (fcntl(cb->aio_fildes, F_GETFL) & O_DIRECT)) {
		refused++;
		cb->aio_sigevent.sigev_value.sival_int = REFUSED_MARK;
		return 0;
	}
	cb->aio_sigevent.sigev_value.sival_int = 0;
	return __real_aio_write(cb);
}

int __wrap_aio_error(const struct aiocb *cb)
{
	return cb->aio_sigevent.sigev_value.sival_int == REFUSED_MARK ? EINVAL
								     : __real_aio_error(cb);
}

ssize_t __wrap_aio_return(struct aiocb *cb)
{
	if (cb->aio_sigevent.sigev_value.sival_int == REFUSED_MARK) {
		errno = EINVAL;
		return -1;
	}
	return __real_aio_return(cb);
}

static char dir[] = "bulk_out.XXXXXX";
static char path[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

/* Byte i of the expected file. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 2654435761u >> 13);
}

/* Whether this directory's file system takes O_DIRECT writes, asked without bulk_out. */
static int fs_has_direct(void)
{
	char p[80];
	void *buf = NULL;
	int fd, ok;

	snprintf(p, sizeof(p), "%s/probe", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0)
		return 0;
	assert_int_equal(posix_memalign(&buf, 4096, 4096), 0);
	memset(buf, 0, 4096);
	ok = pwrite(fd, buf, 4096, 0) == 4096;
	free(buf);
	close(fd);
	unlink(p);
	return ok;
}

/*
 * Write total bytes in pieces of varying size (a packet encoder's way:
 * flush when the next piece would not fit), close, and read back.
 * Returns how many of the file's pages were in the page cache before it was
 * read back.
 */
static size_t write_and_check(int direct, size_t total, int *was_direct)
{
	struct bulk_out *o = bulk_out__new(path, direct);
	size_t len = 0, done = 0, step = 1, resident = 0, pages, i;
	unsigned char *vec;
	uint8_t *buf, *map;
	struct stat st;
	int fd;

	assert_non_null(o);
	*was_direct = bulk_out__direct(o);
	buf = bulk_out__buf(o);
	assert_non_null(buf);
	assert_int_equal((uintptr_t)buf % 4096, 0);
	while (done < total) {
		size_t n = step % 9973 + 1; /* 1 .. 9973 bytes */

		if (n > total - done)
			n = total - done;
		if (BULK_OUT_CAP - len < n) {
			buf = bulk_out__flush(o, len, &len);
			assert_non_null(buf);
			assert_true(len < 4096);
		}
		for (i = 0; i < n; i++)
			buf[len + i] = pattern(done + i);
		len += n;
		done += n;
		step = step * 31 + 7;
	}
	assert_int_equal(bulk_out__close(o, len), 0);

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((size_t)st.st_size, total);
	if (!total) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	pages = (total + 4095) / 4096;
	vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(map, total, vec), 0);
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	for (i = 0; i < total; i++)
		if (map[i] != pattern(i))
			fail_msg("byte %zu of %zu: %u, want %u", i, total, map[i], pattern(i));
	free(vec);
	munmap(map, total);
	close(fd);
	return resident;
}

static void test_direct(void **state)
{
	size_t total = 3 * BULK_OUT_CAP + 12345, pages = (total + 4095) / 4096, resident;
	int was_direct;

	(void)state;
	resident = write_and_check(1, total, &was_direct);
	if (!fs_has_direct()) {
		assert_false(was_direct);
		skip();
	}
	assert_true(was_direct);
	/* only the unaligned tail went through the page cache */
	if (resident > BULK_OUT_CAP / 4096 + 1)
		fail_msg("%zu of %zu pages in the page cache after O_DIRECT writes", resident,
			 pages);
}

/*
 * O_DIRECT taken at open and refused at the first write: the refused
 * buffers go out again with write(2), every byte lands, and nothing more
 * is tried with O_DIRECT.
 */
static void test_refused_at_write(void **state)
{
	size_t total = 5 * BULK_OUT_CAP + 777;
	int was_direct;

	(void)state;
	if (!fs_has_direct())
		skip(); /* open with O_DIRECT fails here: the other fallback, test_direct's */
	refuse_direct = 1;
	refused = submitted = 0;
	write_and_check(1, total, &was_direct);
	assert_true(was_direct);
	assert_true(refused >= 1);
	/* after the first refusal comes back, the rest are plain writes: at most the buffers
	 * already in flight were tried with O_DIRECT */
	assert_true(submitted <= 4);
}

/* After test_refused_at_write, failed or not: the file system takes O_DIRECT again. */
static int take_direct_again(void **state)
{
	(void)state;
	refuse_direct = 0;
	return 0;
}

static void test_buffered(void **state)
{
	int was_direct;

	(void)state;
	write_and_check(0, 2 * BULK_OUT_CAP + 4096, &was_direct);
	assert_false(was_direct);
	write_and_check(0, 5, &was_direct);
}

/* Sizes around the buffer and block boundaries, and nothing at all. */
static void test_edges(void **state)
{
	static const size_t sizes[] = {
		0, 1, 4095, 4096, 4097, BULK_OUT_CAP - 1, BULK_OUT_CAP, BULK_OUT_CAP + 1,
		2 * BULK_OUT_CAP,
	};
	int was_direct;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		write_and_check(1, sizes[i], &was_direct);
		write_and_check(0, sizes[i], &was_direct);
	}
}

static void test_errors(void **state)
{
	struct bulk_out *o;
	size_t len;
	uint8_t *buf;

	(void)state;
	errno = 0;
	assert_null(bulk_out__new("no-such-dir/out", 1));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(bulk_out__close(NULL, 0), 0);

	/* a full disk: the flush that cannot write fails, and so does every call after it */
	if (access("/dev/full", W_OK))
		skip();
	o = bulk_out__new_fd(open("/dev/full", O_WRONLY | O_CLOEXEC), 1);
	assert_non_null(o);
	buf = bulk_out__buf(o);
	memset(buf, 'x', 8192);
	buf = bulk_out__flush(o, 8192, &len);
	if (buf) /* the write went to the background: its failure shows at the next flush */
		buf = bulk_out__flush(o, 8192, &len);
	assert_null(buf);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(bulk_out__close(o, 0), -ENOSPC);

	o = bulk_out__new_fd(open("/dev/full", O_WRONLY | O_CLOEXEC), 0);
	assert_non_null(o);
	memset(bulk_out__buf(o), 'x', 100);
	assert_int_equal(bulk_out__close(o, 100), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct),
		cmocka_unit_test_teardown(test_refused_at_write, take_direct_again),
		cmocka_unit_test(test_buffered),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
