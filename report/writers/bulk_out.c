// SPDX-License-Identifier: Apache-2.0
/* bulk_out.c - a large output file written with O_DIRECT from four buffers in turn. */
#include "bulk_out.h"

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gp_file.h"

/*
 * O_DIRECT wants the buffer's address, the length and the file offset to be
 * multiples of the device's logical block size: 512 or 4096 bytes.
 */
#define ALIGN 4096u

/*
 * Buffers: all but the one being filled can be on their way to the device.
 * glibc's AIO runs the requests of one file descriptor one after another,
 * and a virtual disk takes about twice as many bytes per second with two
 * writes in flight as with one: each buffer is written through a
 * descriptor of its own (dup(2): the same open file, flags and all).
 */
#define NBUF 4

struct bulk_out {
	int fd;
	int wfd[NBUF]; /* buffer i's writes: fd or a dup of it */
	int direct;    /* O_DIRECT on fd: flushes write whole blocks through AIO */
	int err;       /* the first failure, -errno; sticky */
	int cur;       /* the buffer being filled */
	off_t off;     /* where the next write goes */
	uint8_t *buf[NBUF];
	struct aiocb cb[NBUF];
	int busy[NBUF]; /* cb[i] submitted and not yet waited for */
};

static int write_all(int fd, const uint8_t *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Leave O_DIRECT: a file system that takes the flag at open may still refuse the writes. */
static int go_buffered(struct bulk_out *o)
{
	int fl = fcntl(o->fd, F_GETFL);

	o->direct = 0;
	if (fl < 0 || fcntl(o->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	return 0;
}

static void fail(struct bulk_out *o, int err)
{
	if (!o->err)
		o->err = err;
}

/* Wait for buffer i's write; what it could not write is written again without O_DIRECT. */
static void wait_for(struct bulk_out *o, int i)
{
	struct aiocb *cb = &o->cb[i];
	const struct aiocb *list[1] = { cb };
	ssize_t n;
	int e;

	if (!o->busy[i])
		return;
	while ((e = aio_error(cb)) == EINPROGRESS)
		aio_suspend(list, 1, NULL); /* EINTR, EAGAIN: ask again */
	o->busy[i] = 0;
	n = aio_return(cb);
	if (e == EINVAL) { /* no O_DIRECT on this file system after all */
		n = 0;
		e = 0;
		if (o->direct)
			fail(o, go_buffered(o));
	}
	if (e) {
		fail(o, -e);
		return;
	}
	/* a short write (the disk filling up): the rest as a plain write, which says why */
	if ((size_t)n < cb->aio_nbytes)
		fail(o, write_all(o->fd, (const uint8_t *)cb->aio_buf + n, cb->aio_nbytes - (size_t)n,
				  cb->aio_offset + n));
}

/* Write n bytes of buffer i at o->off: started in the background with O_DIRECT, else now. */
static void submit(struct bulk_out *o, int i, size_t n)
{
	struct aiocb *cb = &o->cb[i];

	if (!n || o->err)
		return;
	if (o->direct) {
		memset(cb, 0, sizeof(*cb));
		cb->aio_fildes = o->wfd[i];
		cb->aio_buf = o->buf[i];
		cb->aio_nbytes = n;
		cb->aio_offset = o->off;
		cb->aio_sigevent.sigev_notify = SIGEV_NONE;
		if (!aio_write(cb))
			o->busy[i] = 1;
		else /* no AIO to be had (EAGAIN, ENOSYS): the same write, waiting for it */
			fail(o, write_all(o->fd, o->buf[i], n, o->off));
	} else {
		fail(o, write_all(o->fd, o->buf[i], n, o->off));
	}
	o->off += (off_t)n;
}

/* Close o's descriptors, free its buffers and o; -errno when closing fails (a late write error). */
static int release(struct bulk_out *o)
{
	int err = 0;

	for (int i = 0; i < NBUF; i++) {
		if (o->wfd[i] >= 0 && o->wfd[i] != o->fd)
			close(o->wfd[i]);
		free(o->buf[i]);
	}
	if (o->fd >= 0 && close(o->fd) < 0)
		err = -errno;
	free(o);
	return err;
}

struct bulk_out *bulk_out__new(const char *path, int direct)
{
	/* never through a link, into a FIFO or a device (gp_file.h) */
	int fd = gp_file__output(AT_FDCWD, path);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return bulk_out__new_fd(fd, direct);
}

struct bulk_out *bulk_out__new_fd(int fd, int direct)
{
	struct bulk_out *o = calloc(1, sizeof(*o));
	int e, i;

	if (!o) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < NBUF; i++)
		o->wfd[i] = -1;
	o->fd = fd;
	/* a file system without O_DIRECT (EINVAL) is written through the page cache */
	o->direct = direct && !fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) | O_DIRECT);
	for (i = 0; i < NBUF; i++) {
		/* no descriptor to spare: the writes of this buffer wait for the others' */
		o->wfd[i] = i && o->direct ? fcntl(o->fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (o->wfd[i] < 0)
			o->wfd[i] = o->fd;
		o->buf[i] = aligned_alloc(ALIGN, BULK_OUT_CAP);
		if (!o->buf[i]) {
			errno = ENOMEM;
			goto fail;
		}
	}
	return o;
fail:
	e = errno;
	release(o);
	errno = e;
	return NULL;
}

uint8_t *bulk_out__buf(struct bulk_out *o)
{
	return o->buf[o->cur];
}

int bulk_out__direct(const struct bulk_out *o)
{
	return o->direct;
}

uint8_t *bulk_out__flush(struct bulk_out *o, size_t len, size_t *carried)
{
	int cur = o->cur, next = (cur + 1) % NBUF;
	size_t n = o->direct ? len & ~(size_t)(ALIGN - 1) : len;

	submit(o, cur, n);
	wait_for(o, next);
	if (o->err) {
		errno = -o->err;
		return NULL;
	}
	/* the unaligned tail starts the next buffer (read while the device reads the rest) */
	memcpy(o->buf[next], o->buf[cur] + n, len - n);
	o->cur = next;
	*carried = len - n;
	return o->buf[next];
}

int bulk_out__close(struct bulk_out *o, size_t len)
{
	int err, cerr;

	if (!o)
		return 0;
	for (int i = 0; i < NBUF; i++)
		wait_for(o, i);
	/* the last bytes, whatever their length: written through the page cache */
	if (o->direct && len % ALIGN)
		fail(o, go_buffered(o));
	submit(o, o->cur, len);
	wait_for(o, o->cur);
	err = o->err;
	cerr = release(o);
	return err ? err : cerr;
}
